//! The apply plan: the limits a stored patch must fit (`scope_violation` for sizes, `unsafe_diff`
//! for forbidden operations), its atomicity, its optional validation, the time the whole apply
//! may take and what happens to written files when validation fails or time runs out.

use std::time::Duration;

use super::model::{ChangeKind, ProposedFile};
use super::validate::ValidationCommand;
use lspedit_tools::events::{LimitKind, ScopeBreach};
use lspedit_write::{Reason, ToolError};

/// What an apply does with files it already wrote when a later step fails: a validation run
/// after the commit ([`ValidationStage::AfterCommit`]) or the plan's timeout passing during or
/// after the commit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RollbackStrategy {
    /// Restore every written file from the apply's checkpoint; the outcome is a refusal with
    /// `rolled_back` set (or, if restoring failed, an `io_error` that keeps the checkpoint).
    #[default]
    RestoreCheckpoint,
    /// Leave the written files; the outcome is a refusal that names the checkpoint, which
    /// `undo` restores.
    KeepChanges,
}

impl RollbackStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            RollbackStrategy::RestoreCheckpoint => "restore_checkpoint",
            RollbackStrategy::KeepChanges => "keep_changes",
        }
    }
}

/// When the plan's validation command runs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ValidationStage {
    /// In a temporary copy with the change applied, before anything is written: a failure
    /// leaves nothing to roll back.
    #[default]
    Isolated,
    /// After the commit, on a copy of the workspace as written; a failure or timeout triggers
    /// the plan's [`RollbackStrategy`].
    AfterCommit,
}
/// How a multi-file apply commits. The workflow's default is all-or-nothing (the seeds'
/// safe-edit contract, see `docs/policy.md`): a reviewed change is applied whole or not at all;
/// per file only when the caller asks for it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Atomicity {
    /// Each file (a rename: both of its paths) is written atomically on its own; a file that
    /// fails is reported and the others still apply, as the `apply_patch` tool does.
    PerFile,
    /// Every file or none, across files: a journal under `.lspedit/journal/` lets a crash in the
    /// middle be rolled back when the workflow is next opened.
    #[default]
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

/// The constraints and options of one `apply_edit`. The default has no size limits and is
/// all-or-nothing; the CLI and the MCP server build their plans from the operator's
/// [`Policy`](crate::Policy), whose defaults are the seeds' limits.
#[derive(Debug, Clone, Default)]
pub struct ApplyPlan {
    /// At most this many files changed (a rename counts once).
    pub max_files: Option<usize>,
    /// At most this many added plus removed lines over all files.
    pub max_changed_lines: Option<usize>,
    pub forbid_create: bool,
    pub forbid_delete: bool,
    pub forbid_rename: bool,
    /// Bound of the whole apply, from the call to its last write (approval and validation
    /// included). Checked before the approver is asked, before the commit and after it; a
    /// validation run gets what remains. Past it: `scope_violation` (`type: "timeout_ms"` in
    /// the failure event), and written files are handled per [`ApplyPlan::rollback`]. `None`:
    /// no bound on the apply, and the workflow's default bound on a validation run.
    pub timeout_seconds: Option<u64>,
    pub atomicity: Atomicity,
    /// Run this command; with [`ValidationStage::Isolated`] commit only if it passes.
    pub validation: Option<ValidationCommand>,
    pub validation_stage: ValidationStage,
    pub rollback: RollbackStrategy,
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
            validation_stage: ValidationStage::Isolated,
            rollback: RollbackStrategy::RestoreCheckpoint,
        }
    }

    /// The whole apply's bound, when the plan sets one.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_seconds.map(Duration::from_secs)
    }

    /// The first size limit `files` exceed: files first, then changed lines.
    pub(crate) fn breach(&self, files: &[&ProposedFile]) -> Option<ScopeBreach> {
        let count = files.len();
        if let Some(max) = self.max_files
            && count > max
        {
            return Some(ScopeBreach {
                limit_kind: LimitKind::MaxFiles,
                limit: max,
                actual: count,
            });
        }
        let lines: usize = files.iter().map(|f| f.added + f.removed).sum();
        if let Some(max) = self.max_changed_lines
            && lines > max
        {
            return Some(ScopeBreach {
                limit_kind: LimitKind::MaxChangedLines,
                limit: max,
                actual: lines,
            });
        }
        None
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
        let lines: usize = files.iter().map(|f| f.added + f.removed).sum();
        if let Some(b) = self.breach(files) {
            let what = match b.limit_kind {
                LimitKind::MaxFiles => "files",
                // `breach` reports only the two size limits; time is checked while applying.
                LimitKind::MaxChangedLines | LimitKind::TimeoutMs => "lines (added + removed)",
            };
            return Err(ToolError::new(
                Reason::ScopeViolation,
                None,
                format!(
                    "the patch changes {} {what} but the apply plan allows at most {}; split it into smaller patches",
                    b.actual, b.limit
                ),
            ));
        }
        Ok(format!(
            "{count} files, {lines} changed lines within the plan"
        ))
    }
}
