//! One file planned from its bytes and written through the one committer: the path of the
//! `edit` and `write_file` tools. A one-file unit, re-planned when another program changed the
//! file between the read and the switch, exactly as `apply_patch` re-plans its sections.

use std::path::Path;

use crate::commit::{
    CommitUnit, OnChanged, PathChange, Policy, Staging, UnitOutcome, WriteGate, commit,
};
use crate::error::{Reason, ToolError};
use crate::patch::MAX_REPLANS;
use crate::workspace::Workspace;

/// What [`write_planned`] wrote.
#[derive(Debug)]
pub struct Written<T> {
    /// The bytes the file held when it was replaced; `None`: it was created.
    pub old: Option<Vec<u8>>,
    /// The bytes it holds now.
    pub new: Vec<u8>,
    /// What the plan of those bytes said besides them.
    pub planned: T,
}

/// Write `path` (as the workspace shows it; `abs`, resolved) with the content `plan` makes of
/// its bytes.
///
/// `current` is the file as the caller read it (`None`: it does not exist). `plan` gets those
/// bytes and returns the new content and whatever else the caller wants from planning. The
/// file is committed as a one-file unit ([`OnChanged::Replan`], staged at its switch); when
/// another program changed it since it was read, it is read again and planned again, up to
/// [`MAX_REPLANS`] times, then refused as `stale_context` with `stale` as the message. A plan
/// that fails fails the write, with nothing written; so does a refusal of `gate`, asked about
/// each planned content before it is written.
pub fn write_planned<T>(
    ws: &Workspace,
    path: &str,
    abs: &Path,
    mut current: Option<Vec<u8>>,
    mut plan: impl FnMut(Option<&[u8]>) -> Result<(Vec<u8>, T), ToolError>,
    stale: &str,
    gate: Option<&dyn WriteGate>,
) -> Result<Written<T>, ToolError> {
    let mut tries = 0;
    loop {
        let (new, planned) = plan(current.as_deref())?;
        let unit = CommitUnit {
            label: path.to_string(),
            changes: vec![PathChange {
                path: path.to_string(),
                abs: abs.to_path_buf(),
                old: current,
                new: Some(new),
                new_mode: None,
                old_mode: None,
            }],
            modes: Vec::new(),
        };
        let policy = Policy {
            on_changed: OnChanged::Replan,
            staging: Staging::AtSwitch,
            journal: None,
            observer: None,
            gate,
        };
        let mut result = commit(ws, std::slice::from_ref(&unit), policy);
        // The unit's bytes move back out: the plan's content is not copied on its way to disk.
        let change = unit.changes.into_iter().next();
        match (result.units.pop(), change) {
            (Some(UnitOutcome::Written), Some(PathChange { old, new, .. })) => {
                return Ok(Written {
                    old,
                    new: new.unwrap_or_default(),
                    planned,
                });
            }
            (Some(UnitOutcome::Changed), _) if tries < MAX_REPLANS => {
                tries += 1;
                current = ws.read_resolved(abs, path)?;
            }
            (Some(UnitOutcome::Changed), _) => {
                return Err(ToolError::new(Reason::StaleContext, Some(path), stale));
            }
            (Some(UnitOutcome::Failed(e)), _) => return Err(e),
            // Without a journal a unit is never rolled back for another's sake, and one unit
            // gives one outcome: neither can happen.
            _ => {
                return Err(ToolError::new(
                    Reason::IoError,
                    Some(path),
                    "the write was put back and its unit has no error to show",
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(content: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), content).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    /// A plan that upper-cases the file, while another program appends a line during the
    /// first `foreign` plans (after the read the plan works from, before the switch).
    fn upper_with_foreign_appends(
        ws: &Workspace,
        dir: &std::path::Path,
        foreign: usize,
    ) -> (Result<Written<usize>, ToolError>, Vec<String>) {
        let abs = ws.resolve("f.txt").unwrap();
        let mut seen = Vec::new();
        let mut plans = 0;
        let current = ws.read("f.txt").unwrap();
        let result = write_planned(
            ws,
            "f.txt",
            &abs,
            current,
            |bytes| {
                let text = String::from_utf8(bytes.unwrap().to_vec()).unwrap();
                seen.push(text.clone());
                plans += 1;
                if plans <= foreign {
                    let mut f = std::fs::OpenOptions::new()
                        .append(true)
                        .open(dir.join("f.txt"))
                        .unwrap();
                    std::io::Write::write_all(&mut f, format!("foreign {plans}\n").as_bytes())
                        .unwrap();
                }
                Ok((text.to_uppercase().into_bytes(), plans))
            },
            "kept changing",
            None,
        );
        (result, seen)
    }

    #[test]
    fn a_file_changed_between_read_and_switch_is_planned_again_from_its_new_bytes() {
        let (dir, ws) = workspace("a\n");
        let (result, seen) = upper_with_foreign_appends(&ws, dir.path(), 2);
        let written = result.unwrap();
        assert_eq!(seen, ["a\n", "a\nforeign 1\n", "a\nforeign 1\nforeign 2\n"]);
        assert_eq!(written.planned, 3);
        assert_eq!(
            written.old.as_deref(),
            Some(&b"a\nforeign 1\nforeign 2\n"[..])
        );
        assert_eq!(written.new, b"A\nFOREIGN 1\nFOREIGN 2\n");
        let on_disk = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
        assert_eq!(on_disk, "A\nFOREIGN 1\nFOREIGN 2\n");
    }

    #[test]
    fn a_file_that_keeps_changing_is_stale_context_and_keeps_every_foreign_write() {
        let (dir, ws) = workspace("a\n");
        let (result, seen) = upper_with_foreign_appends(&ws, dir.path(), MAX_REPLANS + 1);
        let err = result.unwrap_err();
        assert_eq!(err.reason, Reason::StaleContext);
        assert_eq!(seen.len(), MAX_REPLANS + 1);
        let on_disk = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
        let expected: String = std::iter::once("a\n".to_string())
            .chain((1..=MAX_REPLANS + 1).map(|i| format!("foreign {i}\n")))
            .collect();
        assert_eq!(
            on_disk, expected,
            "nothing of the plan was written, nothing foreign lost"
        );
    }

    /// A write the workspace refuses answers the refusal itself (here `protected_path`), not
    /// a stand-in.
    #[test]
    fn a_refused_write_answers_its_own_error() {
        let (dir, ws) = workspace("a\n");
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let abs = ws.root().join(".git/config");
        let err = write_planned(
            &ws,
            ".git/config",
            &abs,
            None,
            |_| Ok((b"x\n".to_vec(), ())),
            "kept changing",
            None,
        )
        .unwrap_err();
        assert_eq!(err.reason, Reason::ProtectedPath, "{err}");
        assert!(!abs.exists());
    }

    #[test]
    fn a_plan_that_fails_writes_nothing() {
        let (dir, ws) = workspace("a\n");
        let abs = ws.resolve("f.txt").unwrap();
        let current = ws.read("f.txt").unwrap();
        let err = write_planned(
            &ws,
            "f.txt",
            &abs,
            current,
            |_| -> Result<(Vec<u8>, ()), ToolError> {
                Err(ToolError::new(
                    Reason::HunkMismatch,
                    Some("f.txt"),
                    "no match",
                ))
            },
            "kept changing",
            None,
        )
        .unwrap_err();
        assert_eq!(err.reason, Reason::HunkMismatch);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
            "a\n"
        );
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temp file left behind");
    }
}
