//! Cross-file breakage on pull servers: a change to a function reaches the files that use it
//! through a barrel (`export * from "./a.js"`, a package `__init__.py`), and `check_change`
//! reports each of them with its new error, and not the files the change leaves alone. Pull
//! servers answer only for the files they are asked about, so this is the importer scan
//! (`importers.rs`) working end to end.

use std::path::Path;

use lspedit_lsp::{ChangedFile, Pool};

use crate::harness::*;

struct Project {
    server: &'static str,
    files: &'static [(&'static str, &'static str)],
    /// The file changed, and the (from, to) replacement that breaks its users.
    changed: &'static str,
    change: (&'static str, &'static str),
    /// Files that get a new error from the change.
    broken: &'static [&'static str],
    /// Files that import the changed one (through the barrel) and stay correct.
    unaffected: &'static [&'static str],
}

async fn run(p: Project) {
    let Some(cfg) = require_server(p.server) else {
        return;
    };
    init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in p.files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let pool = Pool::new(&root, cfg).unwrap();
    let path = root.join(p.changed);
    let old = std::fs::read_to_string(&path).unwrap();
    let new = old.replacen(p.change.0, p.change.1, 1);
    assert_ne!(old, new, "fixture drifted");

    // A warm server: "before" is known only once it has answered a check.
    let r = pool
        .check_file(&path, &old, deadline(90_000))
        .await
        .unwrap();
    assert_eq!(r.errors().count(), 0, "{}: {r:#?}", p.server);

    std::fs::write(&path, &new).unwrap();
    let out = pool
        .check_change(
            vec![ChangedFile {
                path: path.clone(),
                text: new.into(),
                previous: Some(old.into()),
            }],
            deadline(60_000),
        )
        .await;
    let rel = |q: &Path| q.strip_prefix(&root).unwrap().display().to_string();
    let others: Vec<String> = out.others.iter().map(|o| rel(&o.path)).collect();
    eprintln!("{}: others {others:?}", p.server);
    for broken in p.broken {
        let other = out
            .others
            .iter()
            .find(|o| rel(&o.path) == *broken)
            .unwrap_or_else(|| {
                panic!(
                    "{}: {broken} missing from the other files {others:?}: {out:#?}",
                    p.server
                )
            });
        assert!(
            other
                .after
                .iter()
                .any(|d| d.severity == lspedit_lsp::Severity::Error && !other.before.contains(d)),
            "{}: no new error in {broken}: {other:#?}",
            p.server
        );
    }
    // Other files come back changed or not (the caller decides what is new): an unaffected
    // one may be among them, with no error its "before" did not have.
    for fine in p.unaffected {
        if let Some(other) = out.others.iter().find(|o| rel(&o.path) == *fine) {
            assert!(
                other.after.iter().all(|d| other.before.contains(d)),
                "{}: {fine} has new errors though unaffected: {out:#?}",
                p.server
            );
        }
    }
    pool.shutdown().await;
}

// Regression: files using a function through a barrel (`export * from "./a.js"`, where the
// specifier's `.js` names `a.ts`) were not compared; only the barrel was, which has no error.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_7_through_a_barrel() {
    run(Project {
        server: "tsc7",
        files: &[
            ("package.json", r#"{"private": true, "type": "module"}"#),
            (
                "tsconfig.json",
                r#"{"compilerOptions": {"module": "nodenext", "strict": true, "noEmit": true}, "include": ["src"]}"#,
            ),
            (
                "src/lib/a.ts",
                "export function greet(name: string): string {\n  return name;\n}\n\nexport function other(): number {\n  return 1;\n}\n",
            ),
            ("src/lib/index.ts", "export * from \"./a.js\";\n"),
            (
                "src/app/consumer.ts",
                "import { greet } from \"../lib/index.js\";\n\nexport const s: string = greet(\"x\");\n",
            ),
            (
                "src/app/ns.ts",
                "import * as lib from \"../lib/index.js\";\n\nexport const t: string = lib.greet(\"y\");\n",
            ),
            (
                "src/app/unaffected.ts",
                "import { other } from \"../lib/index.js\";\n\nexport const n: number = other();\n",
            ),
        ],
        changed: "src/lib/a.ts",
        change: ("greet(name: string)", "greet(name: string, loud: boolean)"),
        broken: &["src/app/consumer.ts", "src/app/ns.ts"],
        unaffected: &["src/app/unaffected.ts", "src/lib/index.ts"],
    })
    .await;
}

// Regression: `from pkg import greet` (re-exported by `pkg/__init__.py`) and `from pkg import a`
// (`pkg/a.py`) were not recognised as imports of `pkg/a.py`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_through_a_package() {
    run(Project {
        server: "pyright",
        files: &[
            ("pyproject.toml", "[project]\nname = \"cross\"\nversion = \"0.0.0\"\n"),
            ("pkg/__init__.py", "from .a import greet\n"),
            (
                "pkg/a.py",
                "def greet(name: str) -> str:\n    return name\n\n\ndef other() -> int:\n    return 1\n",
            ),
            ("consumer.py", "from pkg import greet\n\ns: str = greet(\"x\")\n"),
            ("by_module.py", "from pkg import a\n\nt: str = a.greet(\"y\")\n"),
            ("unaffected.py", "from pkg import a\n\nn: int = a.other()\n"),
        ],
        changed: "pkg/a.py",
        change: ("greet(name: str)", "greet(name: str, loud: bool)"),
        broken: &["consumer.py", "by_module.py"],
        unaffected: &["unaffected.py", "pkg/__init__.py"],
    })
    .await;
}
