//! `outline` and `find_symbol` on real servers (TypeScript, Python, Rust) over copies of
//! `test-projects/` with a file holding a class (struct and impls in Rust) and its methods:
//! the tree with name paths, anchors and line ranges; a symbol by name and by name path
//! (`Cart/total` through rust-analyzer's `impl Cart`); an ambiguous name listing both
//! candidates; an unknown name with the nearest name suggested; bodies as hashline excerpts;
//! the declarations an outline lists by default, and everything with `all`.

use std::time::Instant;

use lspedit_lsp_edits::{FindQuery, FindReport, OutlineOptions};

use crate::lsp_edits_real::{Real, open_real};

pub(crate) const TS_CART: &str = include_str!("../../../../test-projects/fixtures/symbols/cart.ts");

pub(crate) const PY_CART: &str = include_str!("../../../../test-projects/fixtures/symbols/cart.py");

pub(crate) const RS_CART: &str = include_str!("../../../../test-projects/fixtures/symbols/cart.rs");

pub(crate) struct Case {
    pub server: &'static str,
    pub project: &'static str,
    pub file: &'static str,
    pub text: &'static str,
    /// A line to add to an existing file so the new one is part of the project.
    register: Option<(&'static str, &'static str)>,
    /// Outline lines (kind and name path) that must appear, in this order, with their depth.
    outline: &'static [(&'static str, usize)],
    /// The class's kind as the server says it.
    class_kind: &'static str,
    /// The text of the line declaring `total`.
    total_decl: &'static str,
}

pub(crate) fn ts() -> Case {
    ts_on("typescript-language-server")
}

pub(crate) fn ts_on(server: &'static str) -> Case {
    Case {
        server,
        project: "ts-basic",
        file: "src/cart.ts",
        text: TS_CART,
        register: None,
        outline: &[
            ("interface Priced", 0),
            ("method Priced/price", 1),
            ("class Cart", 0),
            ("property Cart/items", 1),
            ("method Cart/total", 1),
            ("method Cart/price", 1),
        ],
        class_kind: "class",
        total_decl: "total(): number",
    }
}

pub(crate) fn python() -> Case {
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/cart.py",
        text: PY_CART,
        register: None,
        outline: &[
            ("class Priced", 0),
            ("method Priced/price", 1),
            ("class Cart", 0),
            ("method Cart/__init__", 1),
            ("method Cart/total", 1),
            ("method Cart/price", 1),
        ],
        class_kind: "class",
        total_decl: "def total",
    }
}

pub(crate) fn rust() -> Case {
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/cart.rs",
        text: RS_CART,
        register: Some(("src/lib.rs", "\npub mod cart;\n")),
        outline: &[
            ("interface Priced", 0),
            ("method Priced/price", 1),
            ("struct Cart", 0),
            ("field Cart/items", 1),
            ("object Cart", 0),
            ("method Cart/total", 1),
            ("object Cart", 0),
            ("method Cart/price", 1),
        ],
        class_kind: "struct",
        total_decl: "fn total",
    }
}

pub(crate) fn setup(case: &Case) -> Option<Real> {
    let env = open_real(case.server, case.project)?;
    let root = env.dir.path();
    std::fs::write(root.join(case.file), case.text).unwrap();
    if let Some((path, line)) = case.register {
        let mut old = std::fs::read_to_string(root.join(path)).unwrap();
        old.push_str(line);
        std::fs::write(root.join(path), old).unwrap();
    }
    Some(env)
}

/// The 1-based line of the first `needle` in the case's file.
fn line_of(case: &Case, needle: &str) -> usize {
    case.text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the fixture"))
        + 1
}

fn find(env: &Real, q: FindQuery) -> FindReport {
    env.edits()
        .find_symbol(&q)
        .unwrap_or_else(|e| panic!("find_symbol {q:?}: {e}"))
}

fn query(name: &str) -> FindQuery {
    FindQuery {
        name: name.to_owned(),
        ..FindQuery::default()
    }
}

fn run(case: Case) {
    let Some(env) = setup(&case) else {
        return;
    };
    let server = case.server;

    // Outline of the file: the tree, indented by depth, with anchors and line ranges.
    let o = env.edits().outline(case.file).unwrap();
    eprintln!("{server} outline:\n{}", o.llm_content);
    assert!(!o.partial, "{server}: {}", o.llm_content);
    let lines: Vec<&str> = o.llm_content.lines().skip(1).collect();
    let mut at = 0;
    for (want, depth) in case.outline {
        let prefix = format!("{}{want} ", "  ".repeat(*depth));
        let found = lines[at..]
            .iter()
            .position(|l| l.starts_with(&prefix))
            .unwrap_or_else(|| {
                panic!(
                    "{server}: no {prefix:?} after line {at}:\n{}",
                    o.llm_content
                )
            });
        at += found + 1;
    }
    let total = o.files[0]
        .symbols
        .iter()
        .find(|s| s.name_path == "Cart/total")
        .unwrap();
    let total_line = line_of(&case, case.total_decl);
    assert_eq!(total.line, total_line, "{server}: {total:?}");
    assert!(total.end_line > total.line, "{server}: {total:?}");
    let view = env.tools.read_file(case.file, None, None).llm_content;
    assert!(
        view.contains(&format!("{}|", total.anchor)),
        "{server}: anchor {} is not read_file's",
        total.anchor
    );

    // By name, across the workspace.
    let r = find(&env, query("total"));
    eprintln!("{server} find total:\n{}", r.llm_content);
    let paths: Vec<(&str, &str, usize)> = r
        .matches
        .iter()
        .map(|m| {
            (
                m.symbol.path.as_str(),
                m.symbol.name_path.as_str(),
                m.symbol.line,
            )
        })
        .collect();
    assert!(
        paths.contains(&(case.file, "Cart/total", total_line)),
        "{server}: {}",
        r.llm_content
    );
    assert!(
        r.llm_content.contains(&format!(
            "{}:{total_line} method Cart/total {}",
            case.file, total.anchor
        )),
        "{server}: {}",
        r.llm_content
    );

    // By name path, exactly, with its body.
    let r = find(
        &env,
        FindQuery {
            name: "Cart/total".into(),
            exact: true,
            include_body: true,
            ..FindQuery::default()
        },
    );
    eprintln!("{server} find Cart/total:\n{}", r.llm_content);
    assert_eq!(r.matches.len(), 1, "{server}: {}", r.llm_content);
    let body = r.matches[0].body.as_deref().unwrap();
    assert!(
        body.contains(&format!("{}|", total.anchor)) && body.contains("add("),
        "{server}: {body}"
    );

    // An ambiguous name: both candidates, by name path, in the file and across the workspace.
    for path in [Some(case.file.to_owned()), None] {
        let r = find(
            &env,
            FindQuery {
                name: "price".into(),
                exact: true,
                kind: Some("method".into()),
                path,
                ..FindQuery::default()
            },
        );
        eprintln!("{server} find price:\n{}", r.llm_content);
        let mut got: Vec<&str> = r
            .matches
            .iter()
            .map(|m| m.symbol.name_path.as_str())
            .collect();
        got.sort_unstable();
        assert_eq!(
            got,
            ["Cart/price", "Priced/price"],
            "{server}: {}",
            r.llm_content
        );
    }

    // The class by kind.
    let r = find(
        &env,
        FindQuery {
            name: "Cart".into(),
            exact: true,
            kind: Some(case.class_kind.into()),
            ..FindQuery::default()
        },
    );
    assert_eq!(r.matches.len(), 1, "{server}: {}", r.llm_content);

    // Unknown: nothing, and the nearest name.
    let r = find(&env, query("Cart/totl"));
    eprintln!("{server} find Cart/totl:\n{}", r.llm_content);
    assert!(r.matches.is_empty(), "{server}: {}", r.llm_content);
    assert_eq!(
        r.suggestions.first().map(String::as_str),
        Some("Cart/total"),
        "{server}: {}",
        r.llm_content
    );
    assert!(
        r.llm_content.starts_with("No symbols match `Cart/totl`")
            && r.llm_content.contains("Nearest names: Cart/total"),
        "{server}: {}",
        r.llm_content
    );

    // The directory: top-level symbols of each file.
    let dir = std::path::Path::new(case.file)
        .parent()
        .unwrap()
        .to_str()
        .unwrap();
    let o = env.edits().outline(dir).unwrap();
    eprintln!("{server} outline {dir}:\n{}", o.llm_content);
    let cart = o.files.iter().find(|f| f.path == case.file).unwrap();
    assert!(
        cart.symbols.iter().all(|s| s.depth == 0),
        "{server}: {cart:?}"
    );
    assert!(
        o.llm_content.contains(&format!("\n{}\n  ", case.file)),
        "{server}: {}",
        o.llm_content
    );
}

#[test]
fn typescript_language_server_outline_and_find_symbol() {
    run(ts());
}

#[test]
fn tsc7_outline_and_find_symbol() {
    run(ts_on("tsc7"));
}

#[test]
fn pyright_outline_and_find_symbol() {
    run(python());
}

#[test]
fn rust_analyzer_outline_and_find_symbol() {
    run(rust());
}

/// Refusals: outside the workspace, a protected path, a binary file; a file no server reads.
#[test]
fn outline_refuses_what_it_may_not_read() {
    let Some(env) = open_real("typescript-language-server", "ts-basic") else {
        return;
    };
    let root = env.dir.path();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/x.ts"), "export const a = 1;\n").unwrap();
    std::fs::write(root.join("src/blob.ts"), b"ab\0cd").unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let code = |path: &str| env.edits().outline(path).unwrap_err().code();
    assert_eq!(code("../outside.ts"), "path_outside_workspace");
    assert_eq!(code(".git/x.ts"), "protected_path");
    assert_eq!(code("src/blob.ts"), "binary_file");
    assert_eq!(code("notes.txt"), "no_server");
    assert_eq!(code("src/missing.ts"), "file_not_found");
}

/// Warm latency of each tool per server (p50 of 10 calls after a warm-up), printed. Run with
/// `cargo test -p lspedit-lsp-edits --test it symbol_tool_latency -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn symbol_tool_latency() {
    for case in [ts(), ts_on("tsc7"), python(), rust()] {
        let Some(env) = setup(&case) else {
            continue;
        };
        let e = env.edits();
        e.outline(case.file).unwrap();
        e.find_symbol(&query("total")).unwrap();
        let measure = |what: &str, f: &dyn Fn()| {
            let mut took = Vec::new();
            for _ in 0..10 {
                let start = Instant::now();
                f();
                took.push(start.elapsed());
            }
            took.sort();
            eprintln!(
                "latency {:<28} {:<28} p50 {:>9.1?} max {:>9.1?}",
                case.server,
                what,
                lspedit_fake_lsp::support::percentile(&took, 0.5),
                took[took.len() - 1]
            );
        };
        measure("outline file", &|| drop(e.outline(case.file).unwrap()));
        let dir = std::path::Path::new(case.file)
            .parent()
            .unwrap()
            .to_str()
            .unwrap();
        measure("outline dir", &|| drop(e.outline(dir).unwrap()));
        measure("find_symbol total", &|| {
            drop(e.find_symbol(&query("total")).unwrap())
        });
        measure("find_symbol Cart/total", &|| {
            drop(
                e.find_symbol(&FindQuery {
                    name: "Cart/total".into(),
                    exact: true,
                    include_body: true,
                    ..FindQuery::default()
                })
                .unwrap(),
            )
        });
        measure("find_symbol in file", &|| {
            drop(
                e.find_symbol(&FindQuery {
                    name: "price".into(),
                    path: Some(case.file.into()),
                    ..FindQuery::default()
                })
                .unwrap(),
            )
        });
        env.provider.pool().shutdown();
    }
}

/// A file of each language with import bindings, object literals held by constants and
/// properties, locals in functions and methods, and the declarations around them
/// (`test-projects/fixtures/symbols/decls.*`).
struct Decls {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    text: &'static str,
    register: Option<(&'static str, &'static str)>,
    /// The name paths `outline` lists by default, in order.
    declarations: &'static [&'static str],
    /// Name paths only `all` lists.
    others: &'static [&'static str],
}

const TS_DECLS: &str = include_str!("../../../../test-projects/fixtures/symbols/decls.ts");
const TS_DECLARATIONS: &[&str] = &[
    "LIMIT",
    "settings",
    "Id",
    "Color",
    "Color/Red",
    "Color/Green",
    "Shape",
    "Shape/area",
    "Box",
    "Box/width",
    "Box/origin",
    "Box/area",
    "helper",
];
const TS_OTHERS: &[&str] = &[
    "settings/retries",
    "settings/nested",
    "settings/nested/depth",
    "settings/run",
    "Box/origin/x",
    "Box/area/scale",
    "Box/area/scale/by",
    "helper/local",
    "helper/inner",
];

fn decls_ts(server: &'static str, others: &'static [&'static str]) -> Decls {
    Decls {
        server,
        project: "ts-basic",
        file: "src/decls.ts",
        text: TS_DECLS,
        register: None,
        declarations: TS_DECLARATIONS,
        others,
    }
}

fn outline_declarations(case: Decls) {
    let Some(env) = open_real(case.server, case.project) else {
        return;
    };
    let server = case.server;
    let root = env.dir.path();
    std::fs::write(root.join(case.file), case.text).unwrap();
    if let Some((path, line)) = case.register {
        let mut old = std::fs::read_to_string(root.join(path)).unwrap();
        old.push_str(line);
        std::fs::write(root.join(path), old).unwrap();
    }
    let names = |o: &lspedit_lsp_edits::OutlineReport| -> Vec<String> {
        o.files[0]
            .symbols
            .iter()
            .map(|s| s.name_path.clone())
            .collect()
    };
    let o = env.edits().outline(case.file).unwrap();
    eprintln!("{server} outline:\n{}", o.llm_content);
    assert_eq!(names(&o), case.declarations, "{server}: {}", o.llm_content);
    let all = env
        .edits()
        .outline_with(case.file, OutlineOptions { all: true })
        .unwrap();
    eprintln!("{server} outline, all:\n{}", all.llm_content);
    let every = names(&all);
    assert_eq!(
        every.len(),
        o.files[0].symbols.len() + o.hidden,
        "{server}: what is left out is counted: {}",
        o.llm_content
    );
    for name in case.declarations.iter().chain(case.others) {
        assert!(
            every.iter().any(|n| n == name),
            "{server}: {name} not in\n{}",
            all.llm_content
        );
    }
    assert!(
        o.llm_content
            .lines()
            .next()
            .unwrap()
            .contains(&format!("; {} other symbol", o.hidden))
            && o.llm_content.contains("all=true"),
        "{server}: {}",
        o.llm_content
    );
    // find_symbol still finds what the outline leaves out.
    let r = find(
        &env,
        FindQuery {
            name: case.others[0].into(),
            exact: true,
            path: Some(case.file.into()),
            ..FindQuery::default()
        },
    );
    assert_eq!(r.matches.len(), 1, "{server}: {}", r.llm_content);
}

#[test]
fn typescript_language_server_outline_lists_declarations() {
    outline_declarations(decls_ts("typescript-language-server", TS_OTHERS));
}

/// Regression: tsc7 gives import bindings as top-level variables (`variable add`).
#[test]
fn tsc7_outline_lists_declarations_not_imports() {
    const TSC7_OTHERS: &[&str] = &[
        "settings/retries",
        "add",
        "hello",
        "settings/nested/depth",
        "Box/origin/x",
        "Box/area/scale",
        "helper/local",
        "helper/inner",
    ];
    outline_declarations(decls_ts("tsc7", TSC7_OTHERS));
}

#[test]
fn pyright_outline_lists_declarations() {
    outline_declarations(Decls {
        server: "pyright",
        project: "python-basic",
        file: "app/decls.py",
        text: include_str!("../../../../test-projects/fixtures/symbols/decls.py"),
        register: None,
        declarations: &[
            "LIMIT",
            "SETTINGS",
            "Box",
            "Box/origin",
            "Box/__init__",
            "Box/width",
            "Box/area",
            "helper",
        ],
        others: &["Box/area/scale", "helper/local", "helper/inner"],
    });
}

#[test]
fn rust_analyzer_outline_lists_declarations() {
    outline_declarations(Decls {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/decls.rs",
        text: include_str!("../../../../test-projects/fixtures/symbols/decls.rs"),
        register: Some(("src/lib.rs", "\npub mod decls;\n")),
        declarations: &[
            "LIMIT",
            "NAMES",
            "Id",
            "Color",
            "Color/Red",
            "Color/Green",
            "Shape",
            "Shape/area",
            "Boxed",
            "Boxed/width",
            "Boxed",
            "Boxed/area",
            "inner",
            "inner/nested",
            "helper",
        ],
        others: &["helper/inner_fn"],
    });
}
