//! The apply plan: the limits a stored patch must fit (`scope_violation` for sizes, `unsafe_diff`
//! for forbidden operations), its atomicity and its optional isolated validation.

use lspedit_engine::Reason;

use super::propose::{ChangeKind, ProposedFile};
use super::validate::ValidationCommand;
use crate::error::ToolError;

/// How a multi-file apply commits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Atomicity {
    /// Each file (a rename: both of its paths) is written atomically on its own; a file that
    /// fails is reported and the others still apply, as the `apply_patch` tool does.
    #[default]
    PerFile,
    /// Every file or none, across files: a journal under `.lspedit/journal/` lets a crash in the
    /// middle be rolled back when the workflow is next opened.
    AllOrNothing,
}

impl Atomicity {
    pub fn as_str(self) -> &'static str {
        match self {
            Atomicity::PerFile => "per_file",
            Atomicity::AllOrNothing => "all_or_nothing",
        }
    }
}

/// The constraints and options of one `apply_edit`. The default has no limits.
#[derive(Debug, Clone, Default)]
pub struct ApplyPlan {
    /// At most this many files changed (a rename counts once).
    pub max_files: Option<usize>,
    /// At most this many added plus removed lines over all files.
    pub max_changed_lines: Option<usize>,
    pub forbid_create: bool,
    pub forbid_delete: bool,
    pub forbid_rename: bool,
    /// Limit of the validation command's run; the workflow's default when `None`.
    pub timeout_seconds: Option<u64>,
    pub atomicity: Atomicity,
    /// Apply in a temporary copy first and run this command there; commit only if it passes.
    pub validation: Option<ValidationCommand>,
}

impl ApplyPlan {
    /// The "mission edit" preset: at most 3 files and 100 changed lines, no create, delete or
    /// rename, all or nothing.
    pub fn mission_edit() -> ApplyPlan {
        ApplyPlan {
            max_files: Some(3),
            max_changed_lines: Some(100),
            forbid_create: true,
            forbid_delete: true,
            forbid_rename: true,
            timeout_seconds: None,
            atomicity: Atomicity::AllOrNothing,
            validation: None,
        }
    }

    /// Check the patch's planned files (those that plan cleanly) against the limits.
    pub(crate) fn check(&self, files: &[&ProposedFile]) -> Result<String, ToolError> {
        for f in files {
            let forbidden = match f.kind {
                ChangeKind::Create if self.forbid_create => Some("creates"),
                ChangeKind::Delete if self.forbid_delete => Some("deletes"),
                ChangeKind::Rename if self.forbid_rename => Some("renames"),
                _ => None,
            };
            if let Some(what) = forbidden {
                return Err(ToolError::new(
                    Reason::UnsafeDiff,
                    Some(&f.path),
                    format!(
                        "the patch {what} this file, which the apply plan forbids; propose a change that only modifies existing files"
                    ),
                ));
            }
        }
        let count = files.len();
        if let Some(max) = self.max_files
            && count > max
        {
            return Err(ToolError::new(
                Reason::ScopeViolation,
                None,
                format!(
                    "the patch changes {count} files but the apply plan allows at most {max}; split it into smaller patches"
                ),
            ));
        }
        let lines: usize = files.iter().map(|f| f.added + f.removed).sum();
        if let Some(max) = self.max_changed_lines
            && lines > max
        {
            return Err(ToolError::new(
                Reason::ScopeViolation,
                None,
                format!(
                    "the patch changes {lines} lines (added + removed) but the apply plan allows at most {max}; split it into smaller patches"
                ),
            ));
        }
        Ok(format!(
            "{count} files, {lines} changed lines within the plan"
        ))
    }
}
