//! Typed errors of the tools: the reason code of the wire, built from the engine's refusals and
//! the tools' own (workspace, workflow, I/O), plus the path it is about.

use std::fmt;

use lspedit_engine::EngineError;

/// Why a tool refused or failed: the one reason type of the wire. The snake_case codes of
/// [`Reason::as_str`] are the protocol (docs/design.md §9): the CLI and the MCP server print them
/// verbatim, and they never change.
///
/// The first group is the engine's ([`lspedit_engine::Reason`], converted by `From`, code for
/// code); the second is the tools' own: the workspace's confinement, the workflow's checks and
/// stored state, limits, and I/O, which the pure engine never produces.
///
/// Closed on purpose (not `#[non_exhaustive]`): the layers above match it exhaustively, so a
/// reason added here fails to compile wherever it is not yet given a place. It serializes as its
/// code, and deserializing refuses any other string (stored state read back is untrusted: an
/// unknown code is an error, never a default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    // The engine's.
    InvalidDiffFormat,
    UnsafeDiff,
    EmptyDiff,
    HunkMismatch,
    AmbiguousMatch,
    OutOfBounds,
    TruncatedInput,
    AnchoredAddition,
    BinaryFile,
    NotUtf8,
    FileNotFound,
    FileExists,
    /// The change is already in place (a retried patch); nothing written.
    AlreadyApplied,
    // The tools' own.
    ShaMismatch,
    ScopeViolation,
    StaleContext,
    PathOutsideWorkspace,
    PatchNotFound,
    CheckpointNotFound,
    ProtectedPath,
    TamperedState,
    TooLarge,
    ValidationFailed,
    IoError,
    /// The operator's policy asks a person to approve the apply, and the client cannot ask
    /// one (it did not declare MCP elicitation).
    ApprovalRequired,
}

impl Reason {
    /// Every reason, in the order docs/design.md §9 lists them.
    pub const ALL: &'static [Reason] = &[
        Reason::InvalidDiffFormat,
        Reason::UnsafeDiff,
        Reason::ShaMismatch,
        Reason::ScopeViolation,
        Reason::EmptyDiff,
        Reason::StaleContext,
        Reason::HunkMismatch,
        Reason::AmbiguousMatch,
        Reason::OutOfBounds,
        Reason::TruncatedInput,
        Reason::AnchoredAddition,
        Reason::PathOutsideWorkspace,
        Reason::BinaryFile,
        Reason::NotUtf8,
        Reason::FileNotFound,
        Reason::FileExists,
        Reason::AlreadyApplied,
        Reason::PatchNotFound,
        Reason::CheckpointNotFound,
        Reason::ProtectedPath,
        Reason::TamperedState,
        Reason::TooLarge,
        Reason::ValidationFailed,
        Reason::IoError,
        Reason::ApprovalRequired,
    ];

    /// The reason whose code is `code`, if any.
    pub fn from_code(code: &str) -> Option<Reason> {
        Reason::ALL.iter().copied().find(|r| r.as_str() == code)
    }

    /// The stable reason code.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InvalidDiffFormat => "invalid_diff_format",
            Reason::UnsafeDiff => "unsafe_diff",
            Reason::ShaMismatch => "sha_mismatch",
            Reason::ScopeViolation => "scope_violation",
            Reason::EmptyDiff => "empty_diff",
            Reason::StaleContext => "stale_context",
            Reason::HunkMismatch => "hunk_mismatch",
            Reason::AmbiguousMatch => "ambiguous_match",
            Reason::OutOfBounds => "out_of_bounds",
            Reason::TruncatedInput => "truncated_input",
            Reason::AnchoredAddition => "anchored_addition",
            Reason::PathOutsideWorkspace => "path_outside_workspace",
            Reason::BinaryFile => "binary_file",
            Reason::NotUtf8 => "not_utf8",
            Reason::FileNotFound => "file_not_found",
            Reason::FileExists => "file_exists",
            Reason::AlreadyApplied => "already_applied",
            Reason::PatchNotFound => "patch_not_found",
            Reason::CheckpointNotFound => "checkpoint_not_found",
            Reason::ProtectedPath => "protected_path",
            Reason::TamperedState => "tampered_state",
            Reason::TooLarge => "too_large",
            Reason::ValidationFailed => "validation_failed",
            Reason::IoError => "io_error",
            Reason::ApprovalRequired => "approval_required",
        }
    }
}

impl From<lspedit_engine::Reason> for Reason {
    /// The wire reason of the same code (`every_engine_reason_keeps_its_code`). No wildcard arm:
    /// a new engine reason does not compile until it is given its wire reason here.
    fn from(r: lspedit_engine::Reason) -> Reason {
        use lspedit_engine::Reason as E;
        match r {
            E::InvalidDiffFormat => Reason::InvalidDiffFormat,
            E::UnsafeDiff => Reason::UnsafeDiff,
            E::EmptyDiff => Reason::EmptyDiff,
            E::HunkMismatch => Reason::HunkMismatch,
            E::AmbiguousMatch => Reason::AmbiguousMatch,
            E::OutOfBounds => Reason::OutOfBounds,
            E::TruncatedInput => Reason::TruncatedInput,
            E::AnchoredAddition => Reason::AnchoredAddition,
            E::BinaryFile => Reason::BinaryFile,
            E::NotUtf8 => Reason::NotUtf8,
            E::FileNotFound => Reason::FileNotFound,
            E::FileExists => Reason::FileExists,
            E::AlreadyApplied => Reason::AlreadyApplied,
        }
    }
}

impl serde::Serialize for Reason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Reason {
    /// A known code, else an error naming it: stored state with a code this build does not
    /// know is not what lspedit wrote.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Reason, D::Error> {
        let code = String::deserialize(d)?;
        Reason::from_code(&code)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown reason code `{code}`")))
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
        if err.raw_os_error() == Some(crate::os::NAME_TOO_LONG) {
            let longest = path.split('/').map(str::len).max().unwrap_or(0);
            // A name that fits can still be too long for the temp file written beside it.
            let detail = if longest > 255 {
                format!("{longest} bytes in one name; most allow 255")
            } else {
                format!(
                    "{longest} bytes in one name, and the temp file written beside it (`.<name>.lspedit-<pid>-<n>.tmp`) adds about 30; most allow 255"
                )
            };
            return ToolError::new(
                Reason::IoError,
                Some(path),
                format!(
                    "the file name is too long for the file system ({detail}): choose a shorter name"
                ),
            );
        }
        ToolError::new(Reason::IoError, Some(path), format!("{what} failed: {err}"))
    }

    pub fn from_engine(path: Option<&str>, err: EngineError) -> Self {
        ToolError {
            reason: err.reason.into(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        for r in Reason::ALL {
            assert_eq!(Reason::from_code(r.as_str()), Some(*r));
        }
        assert_eq!(Reason::from_code("nope"), None);
        let codes: std::collections::BTreeSet<&str> =
            Reason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(codes.len(), Reason::ALL.len(), "two reasons share a code");
    }

    /// The engine's refusals reach the wire with their own code, never as another reason.
    #[test]
    fn every_engine_reason_keeps_its_code() {
        for &r in lspedit_engine::Reason::ALL {
            assert_eq!(Reason::from(r).as_str(), r.as_str());
        }
    }

    /// Serialized as its bare code (stored state and JSON unchanged); an unknown code read
    /// back is an error, never a stand-in reason.
    #[test]
    fn serde_uses_the_code_and_refuses_unknown_ones() {
        for &r in Reason::ALL {
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(json, format!("\"{}\"", r.as_str()));
            assert_eq!(serde_json::from_str::<Reason>(&json).unwrap(), r);
        }
        let e = serde_json::from_str::<Reason>("\"made_up\"").unwrap_err();
        assert!(
            e.to_string().contains("unknown reason code `made_up`"),
            "{e}"
        );
        assert!(serde_json::from_str::<Reason>("7").is_err());
    }

    /// What a model reads: `path: code: message`, or `code: message` for an error about no
    /// file; an I/O failure names the operation, and a name too long for the file system says
    /// so with the length of its longest component (and the temp name when the name itself
    /// fits), whatever the operation.
    #[test]
    fn messages_name_the_path_the_reason_and_what_failed() {
        let e = ToolError::new(Reason::HunkMismatch, Some("a/b.txt"), "no match");
        assert_eq!(e.to_string(), "a/b.txt: hunk_mismatch: no match");
        let e = ToolError::new(Reason::TooLarge, None, "split it");
        assert_eq!(e.to_string(), "too_large: split it");
        assert_eq!(Reason::StaleContext.to_string(), "stale_context");

        let denied = std::io::Error::from_raw_os_error(rustix::io::Errno::ACCESS.raw_os_error());
        let e = ToolError::io("a.txt", "writing", &denied);
        assert_eq!(
            (e.reason, e.path.as_deref()),
            (Reason::IoError, Some("a.txt"))
        );
        assert_eq!(e.message, format!("writing failed: {denied}"));

        let long = "x".repeat(300);
        let path = format!("dir/{long}/f.txt");
        let too_long =
            std::io::Error::from_raw_os_error(rustix::io::Errno::NAMETOOLONG.raw_os_error());
        let e = ToolError::io(&path, "reading", &too_long);
        assert_eq!(
            (e.reason, e.path.as_deref()),
            (Reason::IoError, Some(path.as_str()))
        );
        assert_eq!(
            e.message,
            "the file name is too long for the file system (300 bytes in one name; most allow 255): choose a shorter name"
        );
        // A name that fits (255 bytes at most) is too long once the temp file's name is made
        // from it: the message says which.
        let fits = "x".repeat(255);
        let e = ToolError::io(&fits, "writing", &too_long);
        assert!(
            e.message.starts_with(
                "the file name is too long for the file system (255 bytes in one name, and the temp file written beside it"
            ),
            "{}",
            e.message
        );
    }
}
