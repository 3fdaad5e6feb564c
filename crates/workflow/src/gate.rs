//! The operator's policy over the writes that are not a stored proposal: `edit`, `write_file`,
//! `apply_patch`, `undo`, and the language-server edits (`docs/policy.md`, "One gate for every
//! writer").
//!
//! [`PolicyGate`] is the write core's [`WriteGate`]: the commit asks it about every unit before
//! anything is staged. It judges the planned files with the same [`ApplyPlan::check`] an
//! `apply_edit` is judged by (forbidden operations `unsafe_diff`, sizes `scope_violation`), then
//! asks its [`Approver`] with the diff of exactly what will be written. A refusal writes nothing.
//!
//! Invariant: a write the gate refused leaves every file as it was, and a write it admitted is
//! the write it was shown (it is asked again if the file changed and the write is planned anew).

use lspedit_engine::{DiffOptions, unified_diff};
use lspedit_write::commit::{CommitUnit, PathChange};
use lspedit_write::{Reason, ToolError, WriteGate};

use crate::approval::{ApprovalRequest, Approver};
use crate::model::{ChangeKind, ProposedFile};
use crate::plan::ApplyPlan;
use crate::util::new_id;

/// The operator's limits and approval over one tool's writes (see the module doc).
pub struct PolicyGate<'a> {
    tool: &'a str,
    plan: ApplyPlan,
    approver: &'a dyn Approver,
    declined: String,
}

impl<'a> PolicyGate<'a> {
    /// The gate of `tool`'s writes: within `plan`'s limits and forbidden operations
    /// ([`Policy::writer_plan`](crate::Policy::writer_plan)), approved by `approver`. When the
    /// approver says no, the write is refused as `approval_required` with `declined` as the
    /// message (why, and what the model can do instead).
    pub fn new(
        tool: &'a str,
        plan: ApplyPlan,
        approver: &'a dyn Approver,
        declined: impl Into<String>,
    ) -> PolicyGate<'a> {
        PolicyGate {
            tool,
            plan,
            approver,
            declined: declined.into(),
        }
    }

    /// The limits and forbidden operations the gate checks.
    pub fn plan(&self) -> &ApplyPlan {
        &self.plan
    }

    /// Who the gate asks.
    pub fn approver(&self) -> &dyn Approver {
        self.approver
    }

    /// The refusal's message when the approver says no.
    pub fn declined(&self) -> &str {
        &self.declined
    }
}

impl WriteGate for PolicyGate<'_> {
    fn admit(&self, units: &[CommitUnit]) -> Result<(), ToolError> {
        let changed = changed_files(units);
        let files: Vec<&ProposedFile> = changed.iter().map(|(f, _)| f).collect();
        self.plan.check(&files).map_err(|e| {
            let message = format!(
                "{}; {} was refused by the operator's policy and wrote nothing",
                e.message, self.tool
            );
            ToolError::new(e.reason, e.path.as_deref(), message)
        })?;
        let mut paths: Vec<String> = changed
            .iter()
            .flat_map(|(f, _)| std::iter::once(f.path.clone()).chain(f.new_path.clone()))
            .collect();
        paths.sort();
        paths.dedup();
        let diff: String = changed.iter().map(|(_, d)| d.as_str()).collect();
        let (added, removed) = files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        let summary = format!(
            "{} changed (+{added} -{removed}) by {}",
            lspedit_tools::render::plural(files.len(), "file", "files"),
            self.tool
        );
        let approval_id = new_id("appr", self.tool.as_bytes());
        let request = ApprovalRequest {
            approval_id: &approval_id,
            patch_id: self.tool,
            diff: &diff,
            files: &paths,
            summary: &summary,
        };
        if self.approver.approve(&request) {
            Ok(())
        } else {
            Err(ToolError::new(
                Reason::ApprovalRequired,
                paths.first().map(String::as_str),
                self.declined.clone(),
            ))
        }
    }
}

/// Each file `units` change, as the plan's checks count it (a rename, both of its paths in one
/// unit, is one file), with its unified diff.
fn changed_files(units: &[CommitUnit]) -> Vec<(ProposedFile, String)> {
    let mut out = Vec::new();
    for unit in units {
        let created = unit
            .changes
            .iter()
            .find(|c| c.old.is_none() && c.new.is_some());
        let deleted = unit
            .changes
            .iter()
            .find(|c| c.old.is_some() && c.new.is_none());
        if let (Some(to), Some(from)) = (created, deleted) {
            // A rename: the content moves; what changed in it is counted as a modification.
            let (diff, added, removed) =
                diff_of(from.old.as_deref(), to.new.as_deref(), &from.path, &to.path);
            out.push((
                file(
                    &from.path,
                    Some(&to.path),
                    ChangeKind::Rename,
                    added,
                    removed,
                ),
                diff,
            ));
            for c in &unit.changes {
                if !std::ptr::eq(c, to) && !std::ptr::eq(c, from) {
                    out.push(one(c));
                }
            }
        } else {
            out.extend(unit.changes.iter().map(one));
        }
    }
    out
}

fn one(c: &PathChange) -> (ProposedFile, String) {
    let kind = match (&c.old, &c.new) {
        (None, _) => ChangeKind::Create,
        (Some(_), None) => ChangeKind::Delete,
        (Some(_), Some(_)) => ChangeKind::Modify,
    };
    let (diff, added, removed) = diff_of(c.old.as_deref(), c.new.as_deref(), &c.path, &c.path);
    (file(&c.path, None, kind, added, removed), diff)
}

fn file(
    path: &str,
    new_path: Option<&str>,
    kind: ChangeKind,
    added: usize,
    removed: usize,
) -> ProposedFile {
    ProposedFile {
        path: path.to_string(),
        new_path: new_path.map(str::to_string),
        kind,
        base_sha: None,
        new_sha: None,
        added,
        removed,
        changes: 1,
        problem: None,
    }
}

/// The unified diff of one change and its added and removed line counts (a binary content is
/// shown as its lossy text; its lines still count).
fn diff_of(
    old: Option<&[u8]>,
    new: Option<&[u8]>,
    old_path: &str,
    new_path: &str,
) -> (String, usize, usize) {
    let old_text = old.map(String::from_utf8_lossy).unwrap_or_default();
    let new_text = new.map(String::from_utf8_lossy).unwrap_or_default();
    let diff = unified_diff(
        &old_text,
        &new_text,
        old.map(|_| old_path),
        new.map(|_| new_path),
        &DiffOptions::default(),
    );
    let mut added = 0;
    let mut removed = 0;
    // The two header lines of the one file's diff are skipped; every other line starting with
    // `+` or `-` is a changed line.
    for line in diff.lines().skip(2) {
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    (diff, added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::{AutoApprove, Deny};

    fn change(path: &str, old: Option<&str>, new: Option<&str>) -> PathChange {
        PathChange {
            path: path.into(),
            abs: path.into(),
            old: old.map(|s| s.as_bytes().to_vec()),
            new: new.map(|s| s.as_bytes().to_vec()),
            new_mode: None,
            old_mode: None,
        }
    }

    fn unit(changes: Vec<PathChange>) -> CommitUnit {
        CommitUnit {
            label: changes[0].path.clone(),
            changes,
            modes: Vec::new(),
        }
    }

    #[test]
    fn a_rename_is_one_file_and_lines_are_counted_from_the_diff() {
        let units = [
            unit(vec![
                change("new.rs", None, Some("a\nB\n")),
                change("old.rs", Some("a\nb\n"), None),
            ]),
            unit(vec![change("c.rs", Some("x\n"), Some("y\nz\n"))]),
        ];
        let files = changed_files(&units);
        let kinds: Vec<(&str, ChangeKind, usize, usize)> = files
            .iter()
            .map(|(f, _)| (f.path.as_str(), f.kind, f.added, f.removed))
            .collect();
        assert_eq!(
            kinds,
            [
                ("old.rs", ChangeKind::Rename, 1, 1),
                ("c.rs", ChangeKind::Modify, 2, 1)
            ]
        );
    }

    #[test]
    fn limits_forbidden_operations_and_approval_each_refuse() {
        let modify = [unit(vec![change("a.rs", Some("a\n"), Some("b\n"))])];
        let create = [unit(vec![change("n.rs", None, Some("n\n"))])];
        let open = PolicyGate::new("edit", ApplyPlan::default(), &AutoApprove, "no");
        assert!(open.admit(&modify).is_ok());
        assert!(open.admit(&create).is_ok());
        let small = ApplyPlan {
            max_changed_lines: Some(1),
            ..ApplyPlan::default()
        };
        let e = PolicyGate::new("edit", small, &AutoApprove, "no")
            .admit(&modify)
            .unwrap_err();
        assert_eq!(e.reason, Reason::ScopeViolation, "{e}");
        let no_create = ApplyPlan {
            forbid_create: true,
            ..ApplyPlan::default()
        };
        let e = PolicyGate::new("write_file", no_create, &AutoApprove, "no")
            .admit(&create)
            .unwrap_err();
        assert_eq!(e.reason, Reason::UnsafeDiff, "{e}");
        assert!(e.message.contains("write_file was refused"), "{e}");
        let e = PolicyGate::new("edit", ApplyPlan::default(), &Deny, "denied here")
            .admit(&modify)
            .unwrap_err();
        assert_eq!(
            (e.reason, e.message.as_str(), e.path.as_deref()),
            (Reason::ApprovalRequired, "denied here", Some("a.rs"))
        );
    }
}
