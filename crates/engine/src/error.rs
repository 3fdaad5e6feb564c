//! Typed refusals of the engine: a reason code a program can match on, and a message a model can act on.

use std::fmt;

/// Why the engine refused a patch, a file or a hunk: only the reasons the engine itself
/// produces. The workspace, the workflow and I/O have their own (`lspedit_tools::Reason`, the
/// one reason type of the wire, which every engine reason converts into).
///
/// The snake_case names returned by [`Reason::as_str`] are part of the protocol (docs/design.md
/// §9): tools, the CLI and the MCP server print them verbatim.
///
/// Closed on purpose (not `#[non_exhaustive]`): the tools convert it with an exhaustive
/// `match`, so a reason added here fails to compile there until it has a wire code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
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
    /// The hunk's new side is already in place where its old side points: applying it would
    /// duplicate the change (a retried patch). Nothing is written.
    AlreadyApplied,
}

impl Reason {
    /// Every reason, in the order docs/design.md §9 lists them.
    pub const ALL: &'static [Reason] = &[
        Reason::InvalidDiffFormat,
        Reason::UnsafeDiff,
        Reason::EmptyDiff,
        Reason::HunkMismatch,
        Reason::AmbiguousMatch,
        Reason::OutOfBounds,
        Reason::TruncatedInput,
        Reason::AnchoredAddition,
        Reason::BinaryFile,
        Reason::NotUtf8,
        Reason::FileNotFound,
        Reason::FileExists,
        Reason::AlreadyApplied,
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
            Reason::EmptyDiff => "empty_diff",
            Reason::HunkMismatch => "hunk_mismatch",
            Reason::AmbiguousMatch => "ambiguous_match",
            Reason::OutOfBounds => "out_of_bounds",
            Reason::TruncatedInput => "truncated_input",
            Reason::AnchoredAddition => "anchored_addition",
            Reason::BinaryFile => "binary_file",
            Reason::NotUtf8 => "not_utf8",
            Reason::FileNotFound => "file_not_found",
            Reason::FileExists => "file_exists",
            Reason::AlreadyApplied => "already_applied",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal with its context. `message` is written for the model: it says what is wrong and
/// what to do next; `patch_line` (1-based) points into the patch text when the patch is at fault.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {message}")]
pub struct EngineError {
    pub reason: Reason,
    pub message: String,
    pub patch_line: Option<usize>,
    pub hunk: Option<usize>,
}

impl EngineError {
    pub fn new(reason: Reason, message: impl Into<String>) -> Self {
        EngineError {
            reason,
            message: message.into(),
            patch_line: None,
            hunk: None,
        }
    }

    /// A parse error at a 1-based line of the patch; the message is prefixed with the line.
    pub fn at_line(reason: Reason, patch_line: usize, message: impl Into<String>) -> Self {
        EngineError {
            reason,
            message: format!("patch line {patch_line}: {}", message.into()),
            patch_line: Some(patch_line),
            hunk: None,
        }
    }

    pub fn with_hunk(mut self, hunk: usize) -> Self {
        self.hunk = Some(hunk);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips() {
        for r in Reason::ALL {
            assert_eq!(Reason::from_code(r.as_str()), Some(*r));
        }
        assert_eq!(Reason::from_code("nope"), None);
    }

    // An error reads as its code, then the message (what the CLI and the tools print), the
    // patch line leading a parse error's message.
    #[test]
    fn an_error_reads_as_its_code_then_its_message() {
        let err = EngineError::at_line(Reason::InvalidDiffFormat, 7, "no hunk header").with_hunk(2);
        assert_eq!(
            err.to_string(),
            "invalid_diff_format: patch line 7: no hunk header"
        );
        assert_eq!((err.patch_line, err.hunk), (Some(7), Some(2)));
        assert_eq!(Reason::FileExists.to_string(), "file_exists");
    }
}
