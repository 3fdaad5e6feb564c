//! The one commit path: planned file states written to the workspace unit by unit, each file
//! switched only if it still holds the bytes the plan read. `apply_patch` (and through it the
//! truncation executor) and the workflow's approved commit and undo all commit here; what
//! legitimately differs between them is the [`Policy`]:
//!
//! - [`OnChanged`]: a file another writer changed since the plan read it is handed back for a
//!   new plan ([`OnChanged::Replan`]: `apply_patch` plans those sections again from the new
//!   bytes) or refused as `stale_context` ([`OnChanged::Refuse`]: the person approved that diff,
//!   not a new one);
//! - a [`Journal`]: all-or-nothing across units, recorded before the first switch so that a
//!   crash is rolled back on the next open (the workflow's `.lspedit/journal`). Without one,
//!   each unit is committed or put back on its own;
//! - [`Staging`]: when a new content is written to its temp file. [`Staging::AtSwitch`] (one
//!   file at a time, just before its compare: `apply_patch`, whose files other programs may be
//!   writing right then, so a file's new content is staged from the latest plan) or
//!   [`Staging::Ahead`] (a window of contents staged before their switches, on a few threads,
//!   so fsyncs in flight together are committed together: the workflow's large reviewed
//!   commits; a journal names its temp files before anything is staged, so it implies this).
//!
//! Each file is switched, in order, by [`Workspace::replace_verified`] (staging at the switch)
//! or [`Workspace::install_if`] (staged ahead): the compare with the bytes the plan read and
//! the exchange under its directory's cross-process lock, then the check of the file it
//! displaced, so a write by another program that does not take the lock is kept and answered
//! [`Replaced::Changed`] (see the workspace's `switch_verified`). The unit's permission bits are
//! set last. A unit that fails is put back (with a
//! journal, every unit written so far is), each file only if it still holds what was written.
//! Directories are fsynced once per window of staged contents, temp files never installed are
//! removed, then the journal is closed: its removal is the commit point. The atomic writes
//! themselves are the workspace's.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::{Reason, ToolError};
use crate::workspace::{Replaced, Staged, Workspace, show_sha, state_sha, temp_name};

/// One path's planned transition. `None` = the file does not exist (before) / is deleted (after).
#[derive(Debug, Clone)]
pub struct PathChange {
    pub path: String,
    /// `path` resolved inside the workspace, as [`Workspace::check_writable`] (for a removal,
    /// [`Workspace::resolve_entry`]) gives it: a commit that stages at the switch writes here
    /// without resolving `path` again.
    pub abs: PathBuf,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
    /// Permission bits for a file this change creates (undo recreating a deleted file).
    pub new_mode: Option<u32>,
    /// Permission bits a put-back recreates `old` with when this change deleted it (the
    /// workflow's checkpoint records them).
    pub old_mode: Option<u32>,
}

/// Paths that are committed or put back together: one file, or every file a chain of sections
/// links (both ends of a rename).
#[derive(Debug, Clone)]
pub struct CommitUnit {
    /// The file as logs name the unit.
    pub label: String,
    /// In the order they are switched.
    pub changes: Vec<PathChange>,
    /// Permission bits set once every file of the unit is written (git's `new mode`), by path.
    pub modes: Vec<(String, u32)>,
}

/// Test hook: told after each path of a commit is written. Returning `Err` fails that path as an
/// I/O error would, so rollback can be exercised; blocking in it holds the commit mid-way (the
/// crash test kills the process there).
#[doc(hidden)]
pub trait CommitObserver: Send + Sync {
    /// `index` is 1-based among `total` path writes of the commit.
    fn file_written(&self, path: &str, index: usize, total: usize) -> Result<(), String>;
}

/// What a commit does with a file that no longer holds the bytes the plan read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnChanged {
    /// Put back the unit and answer [`UnitOutcome::Changed`]: the caller plans it again.
    Replan,
    /// Fail the unit with `stale_context`.
    Refuse,
}

/// The record that makes an all-or-nothing commit survive a crash.
pub trait Journal {
    /// Record the commit of `changes`, whose new contents will be staged at `tmps`, before
    /// anything is staged or switched. `Err` refuses the commit with nothing written.
    fn begin(&mut self, changes: &[&PathChange], tmps: &[PathBuf]) -> Result<(), ToolError>;
    /// Everything is durable, all written or all put back: remove the record (the commit point).
    fn end(&mut self);
    /// A put-back failed: keep the record, so recovery finishes the rollback.
    fn keep(&mut self);
}

/// When new contents are written to their temp files (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Staging {
    /// Each content at its switch, just before the compare (so the two are microseconds apart).
    AtSwitch,
    /// A window of contents before their switches, on a few threads.
    Ahead,
}

/// How a commit treats changed files and failures (see the module doc).
pub struct Policy<'a> {
    pub on_changed: OnChanged,
    /// Ignored with a journal, which names the temp files before anything is staged: then
    /// contents are staged ahead.
    pub staging: Staging,
    /// All-or-nothing under this journal; `None`: each unit on its own.
    pub journal: Option<&'a mut dyn Journal>,
    pub observer: Option<&'a dyn CommitObserver>,
    /// The operator's gate ([`WriteGate`]): asked once, before anything is staged, about every
    /// unit; a refusal fails every unit with it and writes nothing. `None` for writes the
    /// operator's policy has already judged (the workflow's applies) and for put-backs.
    pub gate: Option<&'a dyn WriteGate>,
}

/// The operator's say over a write that is about to happen: the direct writers (`edit`,
/// `write_file`, `apply_patch`) and undo pass their commit through it, so the limits, the
/// forbidden operations and the approval the operator set bind them as they bind `apply_edit`
/// (`docs/policy.md`). Implemented by the workflow's policy gate.
pub trait WriteGate: Send + Sync {
    /// `Ok` to write `units` as planned; `Err` is the refusal every unit fails with.
    fn admit(&self, units: &[CommitUnit]) -> Result<(), ToolError>;
}

/// What became of one unit.
#[derive(Debug)]
pub enum UnitOutcome {
    /// Every file holds its new state.
    Written,
    /// [`OnChanged::Replan`]: a file had changed since the plan read it; nothing of the unit is
    /// on disk.
    Changed,
    /// Refused or failed; what of it was written was put back (see
    /// [`CommitResult::rollback_errors`]).
    Failed(ToolError),
    /// All-or-nothing: another unit failed, so this one was put back or never written.
    RolledBack,
}

/// What a commit did: one outcome per unit, in order.
#[derive(Debug, Default)]
pub struct CommitResult {
    pub units: Vec<UnitOutcome>,
    /// All-or-nothing: a failure put back every unit already written.
    pub rolled_back: bool,
    /// A put-back itself failed: the files named here may be left new.
    pub rollback_errors: Vec<String>,
    /// Some file this commit wrote was put back (all-or-nothing, or the files of a unit that
    /// failed part-way under either policy); with `rollback_errors`, putting back failed for
    /// some. `false` when a failure came before anything was written.
    pub put_back: bool,
}

impl CommitResult {
    /// Indices of the units written.
    pub fn written(&self) -> impl Iterator<Item = usize> + '_ {
        self.units
            .iter()
            .enumerate()
            .filter_map(|(i, u)| matches!(u, UnitOutcome::Written).then_some(i))
    }

    /// All-or-nothing: the unit after those done so far failed with `failed`; every other unit
    /// of the `total` is rolled back (put back, or never written).
    fn abandon(&mut self, failed: UnitOutcome, total: usize) {
        for done in &mut self.units {
            *done = UnitOutcome::RolledBack;
        }
        self.units.push(failed);
        self.units
            .extend((self.units.len()..total).map(|_| UnitOutcome::RolledBack));
        self.rolled_back = true;
    }

    /// The units that failed, with the error.
    pub fn failures(&self) -> impl Iterator<Item = (usize, &ToolError)> {
        self.units.iter().enumerate().filter_map(|(i, u)| match u {
            UnitOutcome::Failed(e) => Some((i, e)),
            _ => None,
        })
    }
}

/// Threads that stage new contents at once. Staging is bound by fsync latency, not CPU: with
/// several fsyncs in flight the file system commits them together.
const STAGE_THREADS: usize = 8;

/// Changes staged ahead of their switch, at most: each staged content holds its directory
/// open, so a commit of thousands of files must not stage them all at once (the descriptor
/// limit is often 1,024).
const STAGE_WINDOW: usize = 256;

/// Commit `units` under `policy`. A unit that cannot be written (or, all-or-nothing, any unit)
/// leaves its files as they were; see the module doc.
pub fn commit(ws: &Workspace, units: &[CommitUnit], policy: Policy<'_>) -> CommitResult {
    let Policy {
        on_changed,
        staging,
        mut journal,
        observer,
        gate,
    } = policy;
    if let Some(g) = gate
        && let Err(e) = g.admit(units)
    {
        // Refused before anything is staged or journaled: every unit fails with the refusal.
        return CommitResult {
            units: units
                .iter()
                .map(|_| UnitOutcome::Failed(e.clone()))
                .collect(),
            ..CommitResult::default()
        };
    }
    let changes: Vec<&PathChange> = units.iter().flat_map(|u| &u.changes).collect();
    let tmps: Vec<PathBuf> = changes.iter().map(|c| temp_path(&c.abs)).collect();
    if let Some(j) = journal.as_deref_mut()
        && let Err(e) = j.begin(&changes, &tmps)
    {
        // Nothing is staged or written: the commit fails as a whole, with the first unit.
        let mut result = CommitResult::default();
        result.abandon(UnitOutcome::Failed(e), units.len());
        return result;
    }
    let mut run = Run {
        ws,
        ahead: staging == Staging::Ahead || journal.is_some(),
        changes: &changes,
        tmps: &tmps,
        window: Vec::new(),
        window_start: 0,
        on_changed,
        observer,
        next: 0,
        rollback_errors: Vec::new(),
        put_back: false,
    };
    let mut result = CommitResult::default();
    // Files written so far by units that succeeded: all-or-nothing puts them back too.
    let mut kept: Vec<&PathChange> = Vec::new();
    for unit in units {
        let (written, outcome) = run.unit(unit);
        let Some(failed) = outcome else {
            result.units.push(UnitOutcome::Written);
            kept.extend(written);
            continue;
        };
        // The result reports the failure (a protected path refused at commit is an expected
        // outcome): a person at default verbosity sees it there, not again as a warning. A put
        // back that fails is warned about below.
        tracing::debug!(file = %unit.label, "commit of a unit failed; putting it back");
        if journal.is_some() {
            kept.extend(written);
            run.put_back(&kept);
            result.abandon(failed, units.len());
            break;
        }
        result.units.push(failed);
        run.put_back(&written);
    }
    run.close_window();
    result.rollback_errors = run.rollback_errors;
    result.put_back = run.put_back;
    if let Some(j) = journal {
        if result.rollback_errors.is_empty() {
            j.end();
        } else {
            j.keep();
        }
    }
    result
}

/// The switching part of a commit: the changes, the window of them staged, the policy.
struct Run<'a> {
    ws: &'a Workspace,
    /// Stage contents ahead of their switch ([`Staging::Ahead`]).
    ahead: bool,
    /// Every change of the commit, in order, and where each is staged.
    changes: &'a [&'a PathChange],
    tmps: &'a [PathBuf],
    /// The staged contents of changes `window_start..window_start + window.len()`.
    window: Vec<StageResult>,
    window_start: usize,
    on_changed: OnChanged,
    observer: Option<&'a dyn CommitObserver>,
    /// Index (among `changes`) of the first change of the next unit.
    next: usize,
    rollback_errors: Vec<String>,
    /// Some written file was put back (or putting it back was tried).
    put_back: bool,
}

impl<'a> Run<'a> {
    /// Switch every file of `unit`, then set its modes. Returns the files switched and, when
    /// the unit did not complete, why (its written files are not put back yet).
    fn unit(&mut self, unit: &'a CommitUnit) -> (Vec<&'a PathChange>, Option<UnitOutcome>) {
        let mut written = Vec::new();
        let first = self.next;
        self.next += unit.changes.len();
        for (i, c) in (first..).zip(&unit.changes) {
            match self.switch(c, i) {
                Ok(Replaced::Done) => written.push(c),
                Ok(Replaced::Changed { current }) => {
                    let outcome = match self.on_changed {
                        OnChanged::Replan => UnitOutcome::Changed,
                        OnChanged::Refuse => UnitOutcome::Failed(changed(c, current.as_deref())),
                    };
                    return (written, Some(outcome));
                }
                Err(e) => return (written, Some(UnitOutcome::Failed(e))),
            }
            if let Some(Err(msg)) = self
                .observer
                .map(|o| o.file_written(&c.path, i + 1, self.changes.len()))
            {
                return (
                    written,
                    Some(UnitOutcome::Failed(ToolError::new(
                        Reason::IoError,
                        Some(&c.path),
                        msg,
                    ))),
                );
            }
        }
        for (path, mode) in &unit.modes {
            if let Err(e) = self.ws.set_mode(path, *mode) {
                return (written, Some(UnitOutcome::Failed(e)));
            }
        }
        (written, None)
    }

    /// Switch change `i` (`c`) from its old state to its new one, if it still holds the old.
    fn switch(&mut self, c: &PathChange, i: usize) -> Result<Replaced, ToolError> {
        let ws = self.ws;
        if !self.ahead {
            // `c.abs` is `c.path` as the plan resolved it: not walked by name again.
            return ws.replace_resolved(
                &c.abs,
                &c.path,
                c.old.as_deref(),
                c.new.as_deref(),
                c.new_mode,
            );
        }
        // `stage` gives a staged file exactly when the change has new content.
        match (self.staged(i), c.new.as_deref()) {
            (Err(e), _) => Err(e.clone()),
            (Ok(Some(s)), Some(new)) => ws.install_if(s, c.old.as_deref(), new),
            (Ok(None), None) => ws.replace_verified(&c.path, c.old.as_deref(), None, None),
            (Ok(_), _) => Err(ToolError::new(
                Reason::IoError,
                Some(&c.path),
                "the staged content does not match the change; nothing was written",
            )),
        }
    }

    /// The staged content of change `i`; past the current window, the window is closed and
    /// the next one (from `i`) staged.
    fn staged(&mut self, i: usize) -> &StageResult {
        if !(self.window_start..self.window_start + self.window.len()).contains(&i) {
            self.close_window();
            let end = (i + STAGE_WINDOW).min(self.changes.len());
            self.window = stage_all(self.ws, &self.changes[i..end], &self.tmps[i..end]);
            self.window_start = i;
        }
        &self.window[i - self.window_start]
    }

    /// Make the window's renames durable, once per directory; then remove the temp files of
    /// its changes never installed (after a failure).
    fn close_window(&mut self) {
        let window = std::mem::take(&mut self.window);
        let changes = &self.changes[self.window_start..];
        let mut synced: BTreeSet<&Path> = BTreeSet::new();
        for (c, s) in changes.iter().zip(&window) {
            if let (Ok(Some(s)), Some(dir)) = (s, c.abs.parent())
                && synced.insert(dir)
            {
                s.sync_dir();
            }
        }
        for s in window.into_iter().flatten().flatten() {
            s.discard();
        }
    }

    /// Put `written` back to their old states, last written first, each only if it still holds
    /// what was written.
    fn put_back(&mut self, written: &[&PathChange]) {
        self.put_back |= !written.is_empty();
        for c in written.iter().rev() {
            let put =
                self.ws
                    .replace_verified(&c.path, c.new.as_deref(), c.old.as_deref(), c.old_mode);
            let err = match put {
                Ok(Replaced::Done) => continue,
                Ok(Replaced::Changed { .. }) => {
                    "it changed again since it was written; left as it is".to_string()
                }
                Err(e) => e.to_string(),
            };
            tracing::warn!(path = %c.path, error = %err, "putting back a file of a failed commit failed");
            self.rollback_errors.push(format!("{}: {err}", c.path));
        }
    }
}

/// `stale_context` for `c`, which holds `current` instead of the bytes the plan read.
fn changed(c: &PathChange, current: Option<&[u8]>) -> ToolError {
    ToolError::new(
        Reason::StaleContext,
        Some(&c.path),
        format!(
            "the file changed on disk after the patch was planned (base_sha {}, now {}); nothing of it was written: propose the change again",
            show_sha(state_sha(c.old.as_deref()).as_deref()),
            show_sha(state_sha(current).as_deref()),
        ),
    )
}

/// Where a change's new content is staged: a hidden temp file next to the target, named so it
/// is recognizably lspedit's (`.<name>.lspedit-<pid>-<n>.tmp`).
fn temp_path(abs: &Path) -> PathBuf {
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    abs.with_file_name(temp_name(&name))
}

/// What staging one change gave: its staged content, `None` for a deletion.
type StageResult = Result<Option<Staged>, ToolError>;

/// Stage one change through the workspace's handles: its new content under `tmp`'s name with
/// the target's permissions (or `new_mode` for a file being created), fsynced.
fn stage(ws: &Workspace, c: &PathChange, tmp: &Path) -> StageResult {
    let Some(bytes) = &c.new else {
        return Ok(None);
    };
    let tmp_name = tmp.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    ws.stage_named(&c.path, bytes, c.new_mode, tmp_name)
        .map(Some)
}

/// Stage every change, on up to [`STAGE_THREADS`] threads; results in input order.
fn stage_all(ws: &Workspace, changes: &[&PathChange], tmps: &[PathBuf]) -> Vec<StageResult> {
    let threads = STAGE_THREADS.min(changes.len());
    // One change is staged inline, without a thread: the same result either way (so the
    // mutant `threads > 1` is equivalent, excluded in .cargo/mutants.toml).
    if threads <= 1 {
        return changes
            .iter()
            .zip(tmps)
            .map(|(c, t)| stage(ws, c, t))
            .collect();
    }
    let mut results: Vec<Option<StageResult>> = (0..changes.len()).map(|_| None).collect();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    (t..changes.len())
                        .step_by(threads)
                        .map(|i| (i, stage(ws, changes[i], &tmps[i])))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for h in handles {
            match h.join() {
                Ok(done) => {
                    for (i, r) in done {
                        results[i] = Some(r);
                    }
                }
                Err(_) => tracing::error!("a staging thread panicked"),
            }
        }
    });
    results
        .into_iter()
        .zip(changes)
        .map(|(r, c)| {
            r.unwrap_or_else(|| {
                Err(ToolError::new(
                    Reason::IoError,
                    Some(&c.path),
                    "staging did not run",
                ))
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `act` after the `at`-th write of a commit (1-based), then fails it or not.
    struct After<F: Fn() + Send + Sync> {
        at: usize,
        act: F,
        fail: bool,
    }

    impl<F: Fn() + Send + Sync> CommitObserver for After<F> {
        fn file_written(&self, _path: &str, index: usize, _total: usize) -> Result<(), String> {
            if index != self.at {
                return Ok(());
            }
            (self.act)();
            if self.fail {
                Err("injected failure".into())
            } else {
                Ok(())
            }
        }
    }

    fn setup(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (p, text) in files {
            std::fs::write(dir.path().join(p), text).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    fn change(ws: &Workspace, path: &str, old: &str, new: &str) -> PathChange {
        PathChange {
            path: path.to_string(),
            abs: ws.root().join(path),
            old: Some(old.as_bytes().to_vec()),
            new: Some(new.as_bytes().to_vec()),
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

    /// A journal that records what the commit asked of it.
    struct Log(Vec<&'static str>);
    impl Journal for Log {
        fn begin(&mut self, changes: &[&PathChange], tmps: &[PathBuf]) -> Result<(), ToolError> {
            assert_eq!(changes.len(), tmps.len());
            self.0.push("begin");
            Ok(())
        }
        fn end(&mut self) {
            self.0.push("end");
        }
        fn keep(&mut self) {
            self.0.push("keep");
        }
    }

    /// One unit: `a.txt` a → A, then `b.txt` b → B.
    fn a_and_b(ws: &Workspace) -> Vec<CommitUnit> {
        vec![unit(vec![
            change(ws, "a.txt", "a\n", "A\n"),
            change(ws, "b.txt", "b\n", "B\n"),
        ])]
    }

    fn read(dir: &tempfile::TempDir, p: &str) -> String {
        std::fs::read_to_string(dir.path().join(p)).unwrap()
    }

    /// A file another writer changed between the plan and its switch: the unit is handed back
    /// for a new plan (re-plan) or refused (`stale_context`), and either way nothing of it stays
    /// on disk: the file written before it is put back, the changed one keeps the other write.
    #[test]
    fn a_changed_file_fails_its_whole_unit_per_policy() {
        let cases = [
            (OnChanged::Replan, true, Staging::AtSwitch),
            (OnChanged::Replan, true, Staging::Ahead),
            (OnChanged::Refuse, false, Staging::AtSwitch),
            (OnChanged::Refuse, false, Staging::Ahead),
        ];
        for (on_changed, replan, staging) in cases {
            let (dir, ws) = setup(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
            let units = a_and_b(&ws);
            let b = dir.path().join("b.txt");
            let other = After {
                at: 1,
                act: || std::fs::write(&b, "theirs\n").unwrap(),
                fail: false,
            };
            let policy = Policy {
                on_changed,
                staging,
                journal: None,
                observer: Some(&other),
                gate: None,
            };
            let result = commit(&ws, &units, policy);
            match (&result.units[..], replan) {
                ([UnitOutcome::Changed], true) => {}
                ([UnitOutcome::Failed(e)], false) => {
                    assert_eq!(e.reason, Reason::StaleContext, "{e}");
                    assert_eq!(e.path.as_deref(), Some("b.txt"));
                    let shas = format!(
                        "base_sha {}, now {}",
                        crate::base_sha(b"b\n"),
                        crate::base_sha(b"theirs\n")
                    );
                    assert!(e.message.contains(&shas), "{e}");
                }
                (other, _) => panic!("{on_changed:?}: {other:?}"),
            }
            assert_eq!(
                read(&dir, "a.txt"),
                "a\n",
                "{on_changed:?}: a.txt not put back"
            );
            assert_eq!(read(&dir, "b.txt"), "theirs\n");
            assert!(
                result.rollback_errors.is_empty(),
                "{:?}",
                result.rollback_errors
            );
            let names = std::fs::read_dir(dir.path()).unwrap().count();
            assert_eq!(names, 2, "a temp file was left behind");
        }
    }

    /// Without a journal a failed unit is put back on its own and the next one still commits;
    /// with one, the units already written are put back too and the rest never run.
    #[test]
    fn a_journal_makes_the_commit_all_or_nothing() {
        for journaled in [false, true] {
            let (dir, ws) = setup(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
            let units = vec![
                unit(vec![change(&ws, "a.txt", "a\n", "A\n")]),
                unit(vec![change(&ws, "b.txt", "b\n", "B\n")]),
                unit(vec![change(&ws, "c.txt", "c\n", "C\n")]),
            ];
            let fail_b = After {
                at: 2,
                act: || {},
                fail: true,
            };
            let mut log = Log(Vec::new());
            let policy = Policy {
                on_changed: OnChanged::Refuse,
                staging: Staging::AtSwitch,
                journal: journaled.then_some(&mut log as &mut dyn Journal),
                observer: Some(&fail_b),
                gate: None,
            };
            let result = commit(&ws, &units, policy);
            assert!(
                matches!(&result.units[1], UnitOutcome::Failed(e) if e.reason == Reason::IoError)
            );
            let failures: Vec<(usize, Reason)> =
                result.failures().map(|(i, e)| (i, e.reason)).collect();
            assert_eq!(failures, [(1, Reason::IoError)], "{:?}", result.units);
            assert_eq!(read(&dir, "b.txt"), "b\n");
            // b.txt was written, then put back: either way the result says so.
            assert!(result.put_back);
            if journaled {
                assert!(result.rolled_back);
                assert!(matches!(result.units[0], UnitOutcome::RolledBack));
                assert!(matches!(result.units[2], UnitOutcome::RolledBack));
                assert_eq!(
                    (read(&dir, "a.txt"), read(&dir, "c.txt")),
                    ("a\n".into(), "c\n".into())
                );
                assert_eq!(log.0, ["begin", "end"]);
            } else {
                assert!(!result.rolled_back);
                assert_eq!(result.written().collect::<Vec<_>>(), [0, 2]);
                assert_eq!(
                    (read(&dir, "a.txt"), read(&dir, "c.txt")),
                    ("A\n".into(), "C\n".into())
                );
            }
        }
    }

    /// A put-back only replaces what the commit wrote: a file someone changed after it was
    /// written keeps their change, is reported, and the journal is kept for recovery.
    #[test]
    fn a_put_back_never_overwrites_a_later_write() {
        let (dir, ws) = setup(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
        let units = a_and_b(&ws);
        let a = dir.path().join("a.txt");
        let overwrite_a = After {
            at: 2,
            act: || std::fs::write(&a, "theirs\n").unwrap(),
            fail: true,
        };
        let mut log = Log(Vec::new());
        let policy = Policy {
            on_changed: OnChanged::Refuse,
            staging: Staging::Ahead,
            journal: Some(&mut log),
            observer: Some(&overwrite_a),
            gate: None,
        };
        let result = commit(&ws, &units, policy);
        assert_eq!(read(&dir, "a.txt"), "theirs\n");
        assert_eq!(read(&dir, "b.txt"), "b\n");
        assert_eq!(
            result.rollback_errors.len(),
            1,
            "{:?}",
            result.rollback_errors
        );
        assert!(
            result.rollback_errors[0].starts_with("a.txt: "),
            "{:?}",
            result.rollback_errors
        );
        assert_eq!(
            log.0,
            ["begin", "keep"],
            "the journal must be kept when a put-back failed"
        );
    }

    /// A journal records where the new contents will be staged, and recovery reads them there:
    /// with a journal, every content of the commit is staged at the recorded temp path before
    /// the first switch, whatever staging the policy asks for.
    #[test]
    fn a_journal_finds_every_content_staged_where_it_recorded_it() {
        type Recorded = std::sync::Arc<std::sync::Mutex<Vec<PathBuf>>>;
        struct Names(Recorded);
        impl Journal for Names {
            fn begin(&mut self, _: &[&PathChange], tmps: &[PathBuf]) -> Result<(), ToolError> {
                self.0.lock().unwrap().extend_from_slice(tmps);
                Ok(())
            }
            fn end(&mut self) {}
            fn keep(&mut self) {}
        }
        /// At the first switch: what each recorded temp path holds.
        struct Staged(Recorded, std::sync::Mutex<Vec<Option<String>>>);
        impl CommitObserver for Staged {
            fn file_written(&self, _: &str, index: usize, _: usize) -> Result<(), String> {
                if index == 1 {
                    let tmps = self.0.lock().unwrap();
                    let held = tmps.iter().map(|t| std::fs::read_to_string(t).ok());
                    *self.1.lock().unwrap() = held.collect();
                }
                Ok(())
            }
        }
        let (dir, ws) = setup(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
        let units = a_and_b(&ws);
        let recorded = Recorded::default();
        let mut journal = Names(recorded.clone());
        let seen = Staged(recorded.clone(), Default::default());
        let policy = Policy {
            on_changed: OnChanged::Refuse,
            staging: Staging::AtSwitch,
            journal: Some(&mut journal),
            observer: Some(&seen),
            gate: None,
        };
        let result = commit(&ws, &units, policy);
        assert!(
            matches!(result.units[..], [UnitOutcome::Written]),
            "{:?}",
            result.units
        );
        // a.txt's content was switched in (its temp name now holds nothing); b.txt's waits
        // at its recorded path.
        assert_eq!(
            *seen.1.lock().unwrap(),
            [None, Some("B\n".to_string())],
            "{:?}",
            recorded.lock().unwrap()
        );
        assert_eq!(
            (read(&dir, "a.txt"), read(&dir, "b.txt")),
            ("A\n".into(), "B\n".into())
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            2,
            "a temp file was left"
        );
    }

    /// A unit that fails at its first file leaves the next unit's files matched with their own
    /// staged contents (regression: the running index lagged by the files a failed unit never
    /// reached, so the next unit was switched with another file's content and refused).
    #[test]
    fn a_unit_failing_early_does_not_shift_the_next_units_files() {
        let (dir, ws) = setup(&[("a.txt", "a\n"), ("b.txt", "b\n"), ("c.txt", "c\n")]);
        let mut units = a_and_b(&ws);
        units.push(unit(vec![change(&ws, "c.txt", "c\n", "C\n")]));
        std::fs::write(dir.path().join("a.txt"), "theirs\n").unwrap();
        let policy = Policy {
            on_changed: OnChanged::Refuse,
            staging: Staging::Ahead,
            journal: None,
            observer: None,
            gate: None,
        };
        let result = commit(&ws, &units, policy);
        assert!(
            matches!(&result.units[0], UnitOutcome::Failed(e) if e.reason == Reason::StaleContext)
        );
        assert!(
            matches!(result.units[1], UnitOutcome::Written),
            "{:?}",
            result.units[1]
        );
        assert_eq!(read(&dir, "a.txt"), "theirs\n");
        assert_eq!(read(&dir, "b.txt"), "b\n");
        assert_eq!(read(&dir, "c.txt"), "C\n");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            3,
            "a temp file was left"
        );
    }

    /// More changes than two staging windows, with a unit across each window's edge: every
    /// file is written with its own content and no temp file stays.
    #[test]
    fn a_commit_larger_than_the_staging_window_writes_every_file() {
        let pairs = STAGE_WINDOW + 10;
        let dir = tempfile::tempdir().unwrap();
        for i in 0..2 * pairs {
            std::fs::write(dir.path().join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        let units: Vec<CommitUnit> = (0..pairs)
            .map(|p| {
                let one = |i: usize| {
                    change(
                        &ws,
                        &format!("f{i}.txt"),
                        &format!("{i}\n"),
                        &format!("new {i}\n"),
                    )
                };
                unit(vec![one(2 * p), one(2 * p + 1)])
            })
            .collect();
        let policy = Policy {
            on_changed: OnChanged::Replan,
            staging: Staging::Ahead,
            journal: None,
            observer: None,
            gate: None,
        };
        let result = commit(&ws, &units, policy);
        assert_eq!(result.written().count(), pairs, "{:?}", result.units);
        for i in 0..2 * pairs {
            assert_eq!(read(&dir, &format!("f{i}.txt")), format!("new {i}\n"));
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2 * pairs);
    }
}
