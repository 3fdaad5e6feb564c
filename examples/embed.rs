//! Embedding lspedit in-process: the agent tools over a workspace, with diagnostics from the
//! language-server pool. Writes a tiny TypeScript project to a temp dir, breaks it with an
//! anchored patch, prints what the model would read, then fixes it.
//!
//! Run: `cargo run --example embed` (needs the TypeScript servers: `lspedit servers install tsc7`).

// An example prints its results.
#![allow(clippy::print_stdout)]

use std::sync::Arc;

use lspedit::lsp::{BlockingPool, PoolConfig};
use lspedit::tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig};
use lspedit::write::Workspace;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join("tsconfig.json"),
        "{ \"compilerOptions\": { \"strict\": true } }\n",
    )?;
    std::fs::create_dir(dir.path().join("src"))?;
    std::fs::write(
        dir.path().join("src/main.ts"),
        "export const n: number = 1;\n",
    )?;

    let ws = Workspace::open(dir.path())?;
    // The bundled server declarations, the workspace's `.lspedit/config.toml`, and the servers
    // where `lspedit servers install` put them.
    let pool = BlockingPool::new(ws.root(), PoolConfig::load(ws.root())?)?;
    let provider: Arc<dyn DiagnosticsProvider> = Arc::new(LspProvider::from_pool(pool));
    let tools = Tools::new(ws, Some(provider), ToolsConfig::default());

    // 1. The model reads the file: every line carries its anchor (`1abcd|...`).
    let view = tools.read_file("src/main.ts", None, None);
    print!("read_file:\n{}", view.llm_content);
    let anchor = view.llm_content.split('|').next().unwrap_or_default();

    // 2. Its anchored patch introduces a type error; the result says so.
    let patch = format!(
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ @@\n-{anchor}|export const n: number = 1;\n+export const n: number = \"one\";\n"
    );
    let result = tools.apply_patch(&patch);
    println!(
        "\napply_patch (is_error: {}):\n{}",
        result.is_error, result.llm_content
    );

    // 3. The fix comes back clean.
    let result = tools.edit("src/main.ts", "= \"one\"", "= 1", false);
    println!(
        "\nedit (is_error: {}):\n{}",
        result.is_error, result.llm_content
    );
    Ok(())
}
