//! The error type of the policy layer: a configuration that cannot be read or trusted, or a
//! server lspedit refuses to start.

use std::path::PathBuf;

/// Why a configuration could not be loaded or a server may not start.
///
/// Closed on purpose: the pool converts it into its own error by an exhaustive `match`
/// (`lspedit-lsp`'s `From<ServersError> for LspError`), so a new variant must be handled there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServersError {
    /// A configuration file (or a trust record) could not be read, parsed or written.
    #[error("language-server config {path}: {message}")]
    Config { path: PathBuf, message: String },

    /// lspedit refuses to start the server: its program lies inside the workspace, there is no
    /// TypeScript outside the workspace to give it, the Rust toolchain cannot be resolved
    /// outside it, or its scratch directory cannot be made. `reason` is lspedit's own text (no
    /// server output), safe to show the model.
    #[error("language server `{server}` not started: {reason}")]
    Refused { server: String, reason: String },
}
