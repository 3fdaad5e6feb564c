//! The tools over real language servers installed by `scripts/install-servers`: an edit that
//! introduces a type error returns the block with the right line and code, and the fix returns
//! no block (never stale). Skipped with a printed reason when a server is missing, unless
//! `LSPEDIT_REQUIRE_SERVERS=1` (set by `scripts/test`), where a missing server fails.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::support::{copy_project, require_installed};
use lspedit_lsp::{BlockingPool, PoolConfig};
use lspedit_tools::{DiagnosticsProvider, DiagnosticsStatus, LspProvider, Tools, ToolsConfig};
use lspedit_write::Workspace;

pub fn require_server(server: &str) -> Option<PoolConfig> {
    let cfg = PoolConfig::bundled().unwrap().only(&[server]);
    let installed = cfg.resolve_command(cfg.server(server).unwrap()).is_some();
    require_installed(server, installed).then_some(cfg)
}

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    good: &'static str,
    bad: &'static str,
    /// A line of the expected block, e.g. `ERROR [3:7] ` … `(ts2322)`.
    expect_prefix: &'static str,
    expect_code: &'static str,
}

fn run(case: Case) {
    let Some(cfg) = require_server(case.server) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(case.project);
    copy_project(&src, dir.path()).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let mut tcfg = ToolsConfig::default();
    // Cold starts on a loaded 2-core CI machine (rust-analyzer's first cargo check) can take
    // long; the test is about correctness, the benchmarks measure speed.
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider as Arc<dyn DiagnosticsProvider>),
        tcfg,
    );

    let r = tools.edit(case.file, case.good, case.bad, false);
    assert!(!r.is_error, "{}", r.llm_content);
    let heading = format!(
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"{}\">\n",
        case.file
    );
    assert!(
        r.llm_content.contains(&heading),
        "{}: no block after breaking the file:\n{}",
        case.server,
        r.llm_content
    );
    let line = r
        .llm_content
        .lines()
        .find(|l| {
            l.starts_with(case.expect_prefix) && l.ends_with(&format!("({})", case.expect_code))
        })
        .unwrap_or_else(|| {
            panic!(
                "{}: expected `{} … ({})`:\n{}",
                case.server, case.expect_prefix, case.expect_code, r.llm_content
            )
        });
    eprintln!("{}: {line}", case.server);

    let r = tools.edit(case.file, case.bad, case.good, false);
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{}: stale diagnostics after the fix:\n{}",
        case.server,
        r.llm_content
    );

    let r = tools.edit(case.file, case.good, case.bad, false);
    assert!(
        r.llm_content.contains(case.expect_prefix),
        "{}: error not reported again:\n{}",
        case.server,
        r.llm_content
    );
}

#[test]
fn typescript_language_server_type_error_and_fix() {
    run(Case {
        server: "typescript-language-server",
        project: "ts-basic",
        file: "src/index.ts",
        good: "const total: number = add(1, 2);",
        bad: "const total: string = add(1, 2);",
        expect_prefix: "ERROR [3:7] ",
        expect_code: "ts2322",
    });
}

#[test]
fn rust_analyzer_mismatched_types_and_fix() {
    run(Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        good: "let value: i32 = add(40, 2);",
        bad: "let value: String = add(40, 2);",
        expect_prefix: "ERROR [8:",
        expect_code: "E0308",
    });
}

#[test]
fn rust_analyzer_write_file_reports_errors_in_other_files() {
    let Some(cfg) = require_server("rust-analyzer") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    copy_project(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test-projects/rust-basic"),
        dir.path(),
    )
    .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let mut tcfg = ToolsConfig::default();
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider as Arc<dyn DiagnosticsProvider>),
        tcfg,
    );

    let r = tools.write_file(
        "src/other.rs",
        "pub fn twice(x: i32) -> i32 {\n    x * 2\n}\n",
    );
    assert!(!r.is_error, "{}", r.llm_content);
    let lib = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let r = tools.write_file(
        "src/lib.rs",
        &format!("{lib}\npub mod other;\n\npub fn four() -> i32 {{\n    other::twice(2)\n}}\n"),
    );
    assert!(!r.llm_content.contains("LSP errors"), "{}", r.llm_content);

    // Changing the callee's signature breaks the caller in lib.rs, not the written file.
    let r = tools.write_file(
        "src/other.rs",
        "pub fn twice(x: &str) -> String {\n    x.repeat(2)\n}\n",
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        !r.llm_content.contains("LSP errors detected in this file"),
        "{}",
        r.llm_content
    );
    let section = r
        .llm_content
        .split("LSP errors detected in other files:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no other-files section:\n{}", r.llm_content));
    assert!(
        section.starts_with("<diagnostics file=\"src/lib.rs\">\nERROR ["),
        "{section}"
    );
    assert!(section.contains("(E0308)"), "{section}");
}

/// One long session over a project with a module (`first`) and a module importing it
/// (`importer`), as a user of `lspedit mcp` drives it.
struct Session {
    server: &'static str,
    project: &'static str,
    first: &'static str,
    importer: &'static str,
    /// The exported declaration and its renamed form (breaks the importer).
    decl: (&'static str, &'static str),
    /// A correct rename over both files, one `apply_patch` each way, given as the two files'
    /// sections (first file's, importer's) of a Codex patch; the reverse patch swaps -/+.
    first_section: &'static str,
    importer_section: &'static str,
    /// Push servers know a file's "before" only once they have answered: check first.
    warm_up: bool,
}

fn codex(sections: &[(&str, &str)]) -> String {
    let mut p = String::from("*** Begin Patch\n");
    for (path, body) in sections {
        p.push_str(&format!("*** Update File: {path}\n{body}"));
    }
    p.push_str("*** End Patch\n");
    p
}

fn reverse(section: &str) -> String {
    section
        .lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix('-') {
                format!("+{rest}\n")
            } else if let Some(rest) = l.strip_prefix('+') {
                format!("-{rest}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

fn long_session(s: Session) {
    let Some(cfg) = require_server(s.server) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(s.project);
    copy_project(&src, dir.path()).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let pool = Arc::clone(&provider);
    // The default: the result does not wait for other files once the edited one is checked.
    let mut tcfg = ToolsConfig::default();
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider as Arc<dyn DiagnosticsProvider>),
        tcfg,
    );
    let importer_block = format!("<diagnostics file=\"{}\">\nERROR [", s.importer);
    let check = |path: &str| {
        let fb = tools.check_paths(&[path.to_string()]).unwrap();
        assert_eq!(fb.statuses.len(), 1);
        assert_eq!(
            fb.statuses[0].status,
            DiagnosticsStatus::Checked,
            "{}: {:?}",
            s.server,
            fb.statuses
        );
        fb.text
    };
    if s.warm_up {
        let text = check(s.importer);
        assert!(!text.contains("LSP errors"), "{}: {text}", s.server);
    }

    // 1. Renaming the exported function: the importer's error is named, in the edit's own
    // result, or (a pull server was still checking it when the edited file's verdict came) the
    // result says so and the next result starts with it.
    let r = tools.edit(s.first, s.decl.0, s.decl.1, false);
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked);
    let late;
    let others = match r
        .llm_content
        .split("LSP errors detected in other files:\n")
        .nth(1)
    {
        Some(others) => others,
        None => {
            assert!(
                r.llm_content
                    .contains("that may depend on this change; new errors there will be reported in a later result."),
                "{}: no other-files section and no pending line:\n{}",
                s.server,
                r.llm_content
            );
            assert!(
                pool.pool()
                    .wait_for_late_others(std::time::Instant::now() + Duration::from_secs(60)),
                "{}: the other files' check never ended",
                s.server
            );
            late = tools.take_late_feedback().unwrap_or_default();
            late.split(
                "LSP errors detected in other files after your earlier change, please fix:\n",
            )
            .nth(1)
            .unwrap_or_else(|| panic!("{}: no late other-files section:\n{late}", s.server))
        }
    };
    assert!(
        others.starts_with(&importer_block),
        "{}: {}",
        s.server,
        r.llm_content
    );
    // 2. Checking the importer shows it.
    let text = check(s.importer);
    assert!(text.contains(&importer_block), "{}: {text}", s.server);
    // 3. The revert clears it.
    let r = tools.edit(s.first, s.decl.1, s.decl.0, false);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{}: {}",
        s.server,
        r.llm_content
    );
    let text = check(s.importer);
    assert!(!text.contains("LSP errors"), "{}: {text}", s.server);

    // 4. Another program renames it on disk: diagnostics follow, and follow it back.
    let original = std::fs::read_to_string(root.join(s.first)).unwrap();
    std::fs::write(root.join(s.first), original.replace(s.decl.0, s.decl.1)).unwrap();
    let text = check(s.importer);
    assert!(
        text.contains(&importer_block),
        "{}: after the disk write: {text}",
        s.server
    );
    std::fs::write(root.join(s.first), &original).unwrap();
    let text = check(s.importer);
    assert!(
        !text.contains("LSP errors"),
        "{}: after the disk revert: {text}",
        s.server
    );

    // 5. A correct two-file rename in one apply_patch reports nothing, whichever file the
    // patch names first (there and back).
    let forward = codex(&[(s.first, s.first_section), (s.importer, s.importer_section)]);
    let r = tools.apply_patch(&forward);
    assert!(!r.is_error, "{}: {}", s.server, r.llm_content);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{}: {}",
        s.server,
        r.llm_content
    );
    assert!(
        r.diagnostics
            .iter()
            .all(|d| d.status == DiagnosticsStatus::Checked),
        "{:?}",
        r.diagnostics
    );
    let back = codex(&[
        (s.importer, &reverse(s.importer_section)),
        (s.first, &reverse(s.first_section)),
    ]);
    let r = tools.apply_patch(&back);
    assert!(!r.is_error, "{}: {}", s.server, r.llm_content);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{}: {}",
        s.server,
        r.llm_content
    );
    assert_eq!(
        std::fs::read_to_string(root.join(s.first)).unwrap(),
        original
    );
}

#[test]
fn tsc7_long_session_cross_file() {
    long_session(Session {
        server: "tsc7",
        project: "ts-basic",
        first: "src/util.ts",
        importer: "src/index.ts",
        decl: ("export function add(", "export function sum("),
        first_section: "@@\n-export function add(a: number, b: number): number {\n+export function sum(a: number, b: number): number {\n",
        importer_section: "@@\n-import { add, greet } from \"./util\";\n+import { sum, greet } from \"./util\";\n@@\n-const total: number = add(1, 2);\n+const total: number = sum(1, 2);\n",
        warm_up: false,
    });
}

#[test]
fn pyright_long_session_cross_file() {
    long_session(Session {
        server: "pyright",
        project: "python-basic",
        first: "app/main.py",
        importer: "app/report.py",
        decl: ("def add(", "def plus("),
        first_section: "@@\n-def add(a: int, b: int) -> int:\n+def plus(a: int, b: int) -> int:\n@@\n-    value: int = add(40, 2)\n+    value: int = plus(40, 2)\n",
        importer_section: "@@\n-from app.main import add\n+from app.main import plus\n@@\n-    return add(1, 2)\n+    return plus(1, 2)\n",
        warm_up: false,
    });
}

#[test]
fn rust_analyzer_long_session_cross_file() {
    long_session(Session {
        server: "rust-analyzer",
        project: "rust-basic",
        first: "src/lib.rs",
        importer: "src/twice.rs",
        decl: ("pub fn add(", "pub fn plus("),
        first_section: "@@\n-pub fn add(a: i32, b: i32) -> i32 {\n+pub fn plus(a: i32, b: i32) -> i32 {\n@@\n-    let value: i32 = add(40, 2);\n+    let value: i32 = plus(40, 2);\n",
        importer_section: "@@\n-use crate::add;\n+use crate::plus;\n@@\n-    add(x, x)\n+    plus(x, x)\n",
        warm_up: true,
    });
}

/// The other-files section of `r` (`LSP errors detected in other files:`), or, when the result
/// says other files were still being checked, the late section the next result starts with
/// (once every check pass has ended); empty when there is none.
fn other_files_section(tools: &Tools, provider: &LspProvider, r: &str) -> String {
    if let Some(section) = r.split("LSP errors detected in other files:\n").nth(1) {
        return section.to_string();
    }
    if !r.contains(
        "that may depend on this change; new errors there will be reported in a later result.",
    ) {
        return String::new();
    }
    assert!(
        provider
            .pool()
            .wait_passes_done(std::time::Instant::now() + Duration::from_secs(60)),
        "the other files' check never ended:\n{r}"
    );
    let late = tools.take_late_feedback().unwrap_or_default();
    late.split("LSP errors detected in other files after your earlier change, please fix:\n")
        .nth(1)
        .map(str::to_string)
        .unwrap_or_default()
}

// A long pyright session over a small shop: after many files were opened, renaming
// `format_price` names the importer's broken import (in the result or the next one), the
// importer's own check shows it (never "no errors"), and the fix reports nothing, though the
// importer's older error, hidden while the import was broken, is back (a fix is never blamed
// for what was there before).
#[test]
fn pyright_rename_in_a_long_session_reports_the_importer_and_never_blames_the_fix() {
    let Some(cfg) = require_server("pyright") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let files: &[(&str, &str)] = &[
        ("pyproject.toml", "[tool.pyright]\n"),
        ("shop/__init__.py", ""),
        (
            "shop/price.py",
            "def format_price(cents: int) -> str:\n    return f\"{cents / 100:.2f}\"\n",
        ),
        (
            "shop/cart.py",
            "from shop.price import format_price\n\n\ndef total(items: list[int]) -> str:\n    return format_price(sum(items))\n\n\nlegacy: int = format_price(1)\n",
        ),
        (
            "shop/orders.py",
            "from .cart import total\n\n\ndef order() -> str:\n    return total([1, 2])\n",
        ),
        ("shop/stock.py", "def count() -> int:\n    return 3\n"),
        ("shop/users.py", "def name() -> str:\n    return \"ann\"\n"),
        ("shop/tax.py", "def rate() -> float:\n    return 0.2\n"),
    ];
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let mut tcfg = ToolsConfig::default();
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(Arc::clone(&provider) as Arc<dyn DiagnosticsProvider>),
        tcfg,
    );
    // A long session: most of the shop was opened and checked first.
    let opened: Vec<String> = [
        "shop/orders.py",
        "shop/stock.py",
        "shop/users.py",
        "shop/tax.py",
        "shop/cart.py",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let fb = tools.check_paths(&opened).unwrap();
    assert!(
        fb.text
            .contains("<diagnostics file=\"shop/cart.py\">\nERROR [8:"),
        "the older error: {}",
        fb.text
    );

    let r = tools.edit(
        "shop/price.py",
        "def format_price(",
        "def format_cents(",
        false,
    );
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked, "{r:?}");
    let others = other_files_section(&tools, &provider, &r.llm_content);
    assert!(
        others.starts_with("<diagnostics file=\"shop/cart.py\">\nERROR [1:"),
        "the importer's broken import: {}\n---\n{others}",
        r.llm_content
    );
    let fb = tools.check_paths(&["shop/cart.py".to_string()]).unwrap();
    assert!(
        fb.text
            .contains("<diagnostics file=\"shop/cart.py\">\nERROR [1:"),
        "the importer's own check: {}",
        fb.text
    );

    let fix = tools.edit(
        "shop/price.py",
        "def format_cents(",
        "def format_price(",
        false,
    );
    let others = other_files_section(&tools, &provider, &fix.llm_content);
    assert!(
        !fix.llm_content.contains("LSP errors") && others.is_empty(),
        "the fix was blamed: {}\n---\n{others}",
        fix.llm_content
    );
}

// A late block is true when shown (issue 48: reverting `method: int` in requests' api.py opened
// the revert's own result with the error that very call removed). A session whose budget is
// zero gets every verdict late: the break of a parameter's type in `app/api.py`, then its
// revert. Neither the revert's result nor the next one shows the removed error, nor presents
// the error `app/main.py` had from the start as caused by the change; once everything settled
// the file's late answer, if any, is of its reverted text.
#[test]
fn pyright_a_reverts_results_never_show_the_error_it_removed() {
    let Some(cfg) = require_server("pyright") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let api_good = "def request(method: str, url: str) -> str:\n    return method.upper() + url\n";
    let api_bad = "def request(method: int, url: str) -> str:\n    return method.upper() + url\n";
    let files: &[(&str, &str)] = &[
        ("pyproject.toml", "[tool.pyright]\n"),
        ("app/__init__.py", ""),
        ("app/api.py", api_good),
        (
            "app/main.py",
            "from app.api import request\n\n\ndef get(url: str) -> str:\n    return request(\"GET\", url)\n\n\nlegacy: int = \"old\"\n",
        ),
    ];
    for (path, text) in files {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let pool = provider.pool();
    let settle = || {
        assert!(
            pool.wait_passes_done(std::time::Instant::now() + Duration::from_secs(90)),
            "pyright never settled"
        );
    };
    // Warm: both files checked by a patient session (the older error of main.py is there).
    let mut patient = ToolsConfig::default();
    patient.diagnostics.timeout = Some(Duration::from_secs(60));
    patient.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let warm = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(Arc::clone(&provider) as Arc<dyn DiagnosticsProvider>),
        patient,
    );
    let fb = warm
        .check_paths(&["app/main.py".to_string(), "app/api.py".to_string()])
        .unwrap();
    assert!(
        fb.text
            .contains("<diagnostics file=\"app/main.py\">\nERROR [8:"),
        "the older error: {}",
        fb.text
    );
    // The session under test never waits: every verdict of its own is late.
    let mut hasty = ToolsConfig::default();
    hasty.diagnostics.timeout = Some(Duration::ZERO);
    hasty.diagnostics.start_timeout = Some(Duration::ZERO);
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(Arc::clone(&provider) as Arc<dyn DiagnosticsProvider>),
        hasty,
    );
    let r = tools.edit("app/api.py", api_good, api_bad, false);
    assert!(!r.is_error, "{}", r.llm_content);
    settle();
    let revert = tools.edit("app/api.py", api_bad, api_good, false);
    assert!(!revert.is_error, "{}", revert.llm_content);
    // pyright: `Cannot access attribute "upper" for class "int"` in api.py, `... parameter
    // "method" of type "int"` in main.py.
    assert!(
        !revert
            .llm_content
            .contains("<diagnostics file=\"app/api.py\">")
            && !revert.llm_content.contains("\"int\""),
        "the revert's result shows the error it removed:\n{}",
        revert.llm_content
    );
    assert!(
        !revert
            .llm_content
            .contains("<diagnostics file=\"app/main.py\">"),
        "the revert's result blames it for main.py's errors:\n{}",
        revert.llm_content
    );
    settle();
    let next = tools.read_file("app/main.py", None, None);
    assert!(
        !next.llm_content.contains("LSP errors"),
        "a late block after the revert settled:\n{}",
        next.llm_content
    );
}
