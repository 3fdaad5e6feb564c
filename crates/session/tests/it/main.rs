//! Integration tests of the session the CLI and the MCP server run on.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod asynchronous;
mod session;

use std::path::Path;
use std::time::Duration;

use lspedit_fake_lsp::Script;
use lspedit_lsp::{PoolConfig, ServerConfig};

/// A pool of one server, the fake one running `script` (written to `root/script.json`) for
/// `.ts` files with pull diagnostics; `timeout` bounds its start and each request.
fn fake_pool(root: &Path, script: &Script, timeout: Duration, warnings: Vec<String>) -> PoolConfig {
    let script_file = root.join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    let toml = format!(
        "id = \"fake\"\ncommand = {cmd:?}\nroot_markers = []\nlanguages = {{ ts = \"typescript\" }}\n\
         diagnostics = {{ strategy = \"pull\" }}\nenv = {{ LSPEDIT_FAKE_SCRIPT_FILE = {script:?} }}\n",
        cmd = lspedit_fake_lsp::binary().display().to_string(),
        script = script_file.display().to_string(),
    );
    PoolConfig {
        servers: vec![ServerConfig::from_toml(&toml).unwrap()],
        shutdown_grace: Duration::from_millis(300),
        startup_timeout: timeout,
        request_timeout: timeout,
        warnings,
        ..PoolConfig::default()
    }
}
