//! The error type of the pool: every way a request (diagnostics, rename, code actions, …) can fail, with the context a
//! caller needs to log it or to decide to retry.

use std::path::PathBuf;
use std::time::Duration;

/// Errors of the language-server pool.
///
/// Closed on purpose (not `#[non_exhaustive]`): the layers above convert it to their own reasons
/// ([`crate::CheckError`], the LSP edit tools' reasons) by exhaustive matches, so a variant added
/// here does not compile until each of them gives it a place (docs/design.md §9).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LspError {
    /// No enabled server is configured for the file's extension.
    #[error("no language server configured for {path}")]
    NoServer { path: PathBuf },

    /// The file is outside the pool's workspace root.
    #[error("{path} is outside the workspace root {root}")]
    OutsideWorkspace { path: PathBuf, root: PathBuf },

    /// The server's binary was not found in the project-local install dir nor on `$PATH`.
    #[error(
        "language server `{server}`: command `{command}` not found (run scripts/install-servers)"
    )]
    CommandNotFound { server: String, command: String },

    /// lspedit refused to start the server: its program lies inside the workspace, there is no
    /// TypeScript outside the workspace to give it, the Rust toolchain cannot be resolved
    /// outside it, or the sandbox could not be set up. `reason` is lspedit's own text (no
    /// server output), safe to show the model.
    #[error("language server `{server}` not started: {reason}")]
    Refused { server: String, reason: String },

    /// Spawning the process failed.
    #[error("language server `{server}`: spawn failed: {message}")]
    Spawn { server: String, message: String },

    /// The deadline passed before the result settled. The server keeps running.
    #[error("language server `{server}`: no result within {waited:?} ({stage})")]
    Timeout {
        server: String,
        stage: &'static str,
        waited: Duration,
    },

    /// The server exited or broke the protocol while work was pending.
    #[error(
        "language server `{server}` died: {reason}{}",
        tail_suffix(stderr_tail)
    )]
    ServerDied {
        server: String,
        reason: String,
        stderr_tail: String,
    },

    /// The server answered a request with an error.
    #[error("language server `{server}`: {method} failed: {message} ({code})")]
    Request {
        server: String,
        method: &'static str,
        code: i32,
        message: String,
    },

    /// The server's check on save ended without running (rust-analyzer: `cargo check` could not
    /// start), so its diagnostics of the file are unknown. Its own message is not kept: it is
    /// the server's text.
    #[error("language server `{server}`: its check on save could not run; diagnostics unknown")]
    CheckFailed { server: String },

    /// The server's check on save reads the file from disk (rust-analyzer's `cargo check`), and
    /// the checked text did not stay both the file's content on disk and the server's text
    /// from the save to the check's end: another writer rewrote the file (an editor, a second
    /// session), the text was never saved, or another session's text reached the server shared
    /// through the host. Its diagnostics would be of another text, so there are none.
    #[error(
        "language server `{server}`: {path} changed during its check on save (on disk, or another session's text reached the server); its diagnostics would be of another text"
    )]
    Superseded { server: String, path: PathBuf },

    /// The server crashed repeatedly and is not restarted any more.
    #[error(
        "language server `{server}` is marked broken after {crashes} crashes; tried again in {} s",
        retry_in.as_secs()
    )]
    Broken {
        server: String,
        crashes: u32,
        /// When the pool tries it again (the rest of `broken_cooldown`).
        retry_in: Duration,
    },

    /// The server crashed recently and waits out its restart backoff.
    #[error("language server `{server}` crashed; next restart in {retry_in:?}")]
    Backoff { server: String, retry_in: Duration },

    /// A configuration file could not be read or parsed.
    #[error("language-server config {path}: {message}")]
    Config { path: PathBuf, message: String },

    /// The pool's own runtime could not be built.
    #[error("language-server pool runtime: {message}")]
    Runtime { message: String },

    /// The pool was shut down.
    #[error("the language-server pool is shut down")]
    PoolClosed,

    /// A synchronous call was made on the very thread that drives the single-threaded tokio
    /// runtime the pool's servers run on: waiting there would stop the thread that has to
    /// produce the answer, so it is refused at once instead of hanging.
    #[error(
        "a synchronous language-server call was made from inside the single-threaded tokio runtime the servers run on, which cannot answer while it waits; call it from `tokio::task::spawn_blocking` (or use `AsyncTools`), or give the pool a runtime of its own (`LspProvider::open`)"
    )]
    BlockedRuntime,

    /// The server does not offer the request (no such capability).
    #[error("language server `{server}` does not support {method}")]
    Unsupported {
        server: String,
        method: &'static str,
    },

    /// The server answered, but declined: no symbol to rename there, an action without an edit.
    #[error("language server `{server}`: {method}: {message}")]
    Declined {
        server: String,
        method: &'static str,
        message: String,
    },

    /// A path could not be turned into a `file://` URI.
    #[error("cannot turn {path} into a file URI")]
    BadPath { path: PathBuf },
}

fn tail_suffix(tail: &str) -> String {
    if tail.is_empty() {
        String::new()
    } else {
        format!("; stderr: {tail}")
    }
}

/// A refusal of the policy layer keeps its meaning here: a config error stays a config error,
/// a refused start a refused start.
impl From<lspedit_servers::ServersError> for LspError {
    fn from(e: lspedit_servers::ServersError) -> Self {
        use lspedit_servers::ServersError;
        match e {
            ServersError::Config { path, message } => LspError::Config { path, message },
            ServersError::Refused { server, reason } => LspError::Refused { server, reason },
        }
    }
}

impl LspError {
    /// The pool's error for the server `server` that [`lspedit_process::spawn`] could not
    /// start: a sandbox that cannot be set up is a refusal (lspedit's own words), the rest a
    /// failed spawn.
    pub(crate) fn from_process(server: &str, e: lspedit_process::ProcessError) -> Self {
        use lspedit_process::ProcessError;
        let server = server.to_owned();
        match e {
            ProcessError::Sandbox { reason } => LspError::Refused {
                server,
                reason: format!("its sandbox could not be set up ({reason})"),
            },
            ProcessError::Spawn { program, source } => LspError::Spawn {
                server,
                message: format!("{}: {source}", program.display()),
            },
            ProcessError::PipesMissing => LspError::Spawn {
                server,
                message: "stdio pipes missing".to_owned(),
            },
        }
    }

    /// True when the error means the result did not arrive in time (the server may still be
    /// healthy and warming up).
    pub fn is_timeout(&self) -> bool {
        matches!(self, LspError::Timeout { .. })
    }
}
