//! The tools over real language servers installed by `scripts/install-servers`: an edit that
//! introduces a type error returns the block with the right line and code, and the fix returns
//! no block (never stale). Skipped with a printed reason when a server is missing, unless
//! `LSPEDIT_REQUIRE_SERVERS=1` (set by `scripts/test`), where a missing server fails.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::support::copy_project;
use lspedit_lsp::{BlockingPool, PoolConfig};
use lspedit_tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig, Workspace};

fn require_server(server: &str) -> Option<PoolConfig> {
    let cfg = PoolConfig::bundled().unwrap().only(&[server]);
    let decl = cfg.server(server).unwrap();
    if cfg.resolve_command(decl).is_some() {
        return Some(cfg);
    }
    assert!(
        std::env::var("LSPEDIT_REQUIRE_SERVERS").as_deref() != Ok("1"),
        "{server} is not installed but LSPEDIT_REQUIRE_SERVERS=1; run scripts/install-servers"
    );
    eprintln!("skipping: {server} is not installed (run scripts/install-servers)");
    None
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
    tcfg.diagnostics.timeout = Duration::from_secs(60);
    tcfg.diagnostics.start_timeout = Duration::from_secs(90);
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
    tcfg.diagnostics.timeout = Duration::from_secs(60);
    tcfg.diagnostics.start_timeout = Duration::from_secs(90);
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
