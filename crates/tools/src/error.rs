//! Typed errors of the tools: the engine's reason code plus the path it is about.

use std::fmt;

use lspedit_engine::EngineError;
pub use lspedit_engine::Reason;

/// A refusal or failure of a tool, naming the file and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolError {
    pub reason: Reason,
    /// The workspace-relative path the error is about, when there is one.
    pub path: Option<String>,
    pub message: String,
}

impl ToolError {
    pub fn new(reason: Reason, path: Option<&str>, message: impl Into<String>) -> Self {
        ToolError {
            reason,
            path: path.map(str::to_string),
            message: message.into(),
        }
    }

    /// An I/O failure while `what` (reading, writing, ...) `path`. A name the file system
    /// cannot hold says so, whatever the operation was.
    pub fn io(path: &str, what: &str, err: &std::io::Error) -> Self {
        if err.raw_os_error() == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error()) {
            let longest = path.split('/').map(str::len).max().unwrap_or(0);
            return ToolError::new(
                Reason::IoError,
                Some(path),
                format!(
                    "the file name is too long for the file system ({longest} bytes in one name; most allow 255): choose a shorter name"
                ),
            );
        }
        ToolError::new(Reason::IoError, Some(path), format!("{what} failed: {err}"))
    }

    pub fn from_engine(path: Option<&str>, err: EngineError) -> Self {
        ToolError {
            reason: err.reason,
            path: path.map(str::to_string),
            message: err.message,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{p}: {}: {}", self.reason, self.message),
            None => write!(f, "{}: {}", self.reason, self.message),
        }
    }
}

impl std::error::Error for ToolError {}
