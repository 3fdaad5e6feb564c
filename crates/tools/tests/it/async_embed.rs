//! Embedding from an async program: the tools through `AsyncTools`, the language servers on
//! the caller's runtime (`LspProvider` over `BlockingPool::with_handle`), on a current-thread
//! runtime (the case where blocking a worker would hang) and on a multi-thread one.

use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp::{BlockingPool, PoolConfig, ServerConfig};
use lspedit_tools::{
    AsyncTools, DiagnosticsProvider, DiagnosticsStatus, LspProvider, Tools, ToolsConfig,
};
use lspedit_write::Workspace;

/// The scripted server declared for `.ts` files, its errors on lines holding `BAD`.
fn fake_config(root: &std::path::Path) -> PoolConfig {
    let script = Script {
        mode: Mode::Pull,
        marker: "BAD".to_string(),
        ..Script::default()
    };
    let script_file = root.join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    let toml = format!(
        "id = \"fake\"\ncommand = {:?}\nroot_markers = []\nlanguages = {{ ts = \"typescript\" }}\n\
         diagnostics = {{ strategy = \"pull\" }}\nenv = {{ LSPEDIT_FAKE_SCRIPT_FILE = {:?} }}\n",
        lspedit_fake_lsp::binary().display().to_string(),
        script_file.display().to_string(),
    );
    PoolConfig {
        servers: vec![ServerConfig::from_toml(&toml).unwrap()],
        shutdown_grace: Duration::from_millis(300),
        ..PoolConfig::default()
    }
}

/// A workspace holding `a.ts`, and tools whose diagnostics come from the scripted server on
/// the current runtime. The directory is deleted on drop.
fn embedded(config: ToolsConfig) -> (tempfile::TempDir, Arc<LspProvider>, Tools) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.ts"), "let a = 1;\n").unwrap();
    let pool =
        BlockingPool::with_handle(&root, fake_config(&root), tokio::runtime::Handle::current())
            .unwrap();
    let provider = Arc::new(LspProvider::from_pool(pool));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        config,
    );
    (dir, provider, tools)
}

async fn edit_reports_the_error_and_the_fix_clears_it() {
    let (_dir, provider, tools) = embedded(ToolsConfig::default());
    let tools = AsyncTools::new(Arc::new(tools));

    let r = tools
        .edit("a.ts", "let a = 1;", "let a = BAD;", false)
        .await;
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        r.llm_content
            .contains("LSP errors detected in this file, please fix:"),
        "{}",
        r.llm_content
    );
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked);
    // `check_paths` awaited: the file as it is on disk, and a missing one refused, typed.
    let fb = tools.check_paths(vec!["a.ts".into()]).await.unwrap();
    assert!(fb.blocks["a.ts"].contains("ERROR [1:"), "{}", fb.text);
    let missing = tools
        .run(|t| t.check_paths(&["gone.ts".to_string()]))
        .await
        .unwrap_err();
    assert_eq!(missing.reason, lspedit_write::Reason::FileNotFound);
    let r = tools.edit("a.ts", "BAD", "2", false).await;
    assert!(!r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let r = tools.read_file("a.ts", None, None).await;
    assert!(r.llm_content.contains("|let a = 2;"), "{}", r.llm_content);

    // Nothing outlives the embedder: the servers go when the tools and provider are dropped.
    let groups = provider.pool().process_groups();
    assert!(!groups.is_empty());
    drop(tools);
    drop(provider);
    for g in groups {
        assert!(
            tokio::task::spawn_blocking(move || lspedit_process::wait_group_gone(
                g,
                Duration::from_secs(10)
            ))
            .await
            .unwrap(),
            "server group {g} still running"
        );
    }
}

#[tokio::test(flavor = "current_thread")]
async fn tools_embedded_on_a_current_thread_runtime() {
    edit_reports_the_error_and_the_fix_clears_it().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_embedded_on_a_multi_thread_runtime() {
    edit_reports_the_error_and_the_fix_clears_it().await;
}

/// The synchronous tools called straight from the future a single-threaded runtime drives
/// (not through `AsyncTools`): the servers run on that very thread, so no answer can come
/// while it waits. The edit is written and answered at once, its diagnostics `failed` with the
/// rule to follow, never a hang to the deadline or past it (regression: > 60 s).
#[tokio::test(flavor = "current_thread")]
async fn sync_tools_on_the_thread_driving_their_runtime_answer_at_once() {
    let mut config = ToolsConfig::default();
    // The deadline the call would otherwise wait out, in full, for nothing.
    let deadline = Duration::from_secs(20);
    config.diagnostics.timeout = Some(deadline);
    config.diagnostics.start_timeout = Some(deadline);
    let (dir, _provider, tools) = embedded(config);
    let root = dir.path();
    let started = std::time::Instant::now();
    let r = tools.edit("a.ts", "let a = 1;", "let a = BAD;", false);
    assert!(
        started.elapsed() < deadline,
        "waited {:?}, the deadline is {deadline:?}",
        started.elapsed()
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(
        std::fs::read_to_string(root.join("a.ts")).unwrap(),
        "let a = BAD;\n"
    );
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Failed);
    let r = tools.apply_patch("--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-let a = BAD;\n+let a = 2;\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Failed);
    // The same pool still serves the tools from a blocking thread of that runtime.
    let tools = AsyncTools::new(Arc::new(tools));
    let r = tools
        .edit("a.ts", "let a = 2;", "let a = BAD;", false)
        .await;
    assert_checked_with_the_error(&r);
}

/// The same straight call from a worker of a multi-threaded runtime works: the worker hands
/// its other tasks over while it waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn sync_tools_on_a_worker_of_a_multi_thread_runtime_get_their_diagnostics() {
    let (_dir, _provider, tools) = embedded(ToolsConfig::default());
    let r = tools.edit("a.ts", "let a = 1;", "let a = BAD;", false);
    assert_checked_with_the_error(&r);
}

/// The server answered for the edit and its error is in the text.
fn assert_checked_with_the_error(r: &lspedit_tools::ToolResult) {
    assert_eq!(
        r.diagnostics[0].status,
        DiagnosticsStatus::Checked,
        "{}",
        r.llm_content
    );
    assert!(r.llm_content.contains("LSP errors"), "{}", r.llm_content);
}
