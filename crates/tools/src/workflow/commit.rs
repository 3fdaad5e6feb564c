//! Committing planned file states to the workspace, per file or all-or-nothing, and the journal
//! that makes an all-or-nothing commit survive a crash.
//!
//! All-or-nothing protocol (callers hold the workspace lock throughout):
//! 1. the checkpoint with every file's old bytes is durable (see `checkpoint.rs`);
//! 2. `.lspedit/journal/<txn>.json` is written atomically, naming the checkpoint and each file's
//!    old and new sha and the temp file its new content is staged in;
//! 3. every new content is staged (written and fsynced under its temp name, on a few threads);
//! 4. each file is switched by a rename, in order, so each is always entirely old or entirely
//!    new; then the directories are fsynced;
//! 5. the journal is removed: that unlink is the commit point.
//!
//! A journal found when a workflow opens means a commit died between 2 and 5: staged temp files
//! are removed, every file whose sha is the journal's new sha is restored from the checkpoint
//! (rolled back), then the journal and the checkpoint are removed. A file that is neither old
//! nor new was changed by someone else since the crash; it is left alone and reported.
//!
//! A journal is read back as untrusted: its ids must be ids (the txn id its file name), its
//! paths resolve inside the workspace outside the protected directories, and its checkpoint is
//! verified like any other. A journal that fails this is kept and logged, never acted on. A temp
//! path is removed only when it is the staged file lspedit would have made for its entry: in the
//! entry's directory inside the root, named `.<name>.lspedit-<pid>-<n>.tmp` for that entry's
//! name; anything else is left alone and reported (`RecoveryReport::refused_tmps`). New journals
//! record temp paths relative to the root.
//!
//! Per-file commits follow 3 and 4 without a journal: a failed file is restored on its own.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checkpoint::{CheckpointManifest, Checkpoints};
use super::plan::Atomicity;
use super::util::{
    Layout, check_entry, is_valid_id, is_valid_sha, new_id, now_ms, read_json, show_sha,
    state_error, state_sha, stored_path, sync_dir, tampered, write_json_atomic,
};
use crate::error::{Reason, ToolError};
use crate::workspace::{Replaced, Staged, Workspace, temp_name};

/// One path's planned transition. `None` = the file does not exist (before) / is deleted (after).
#[derive(Debug, Clone)]
pub(crate) struct PathChange {
    pub path: String,
    /// `path` resolved inside the workspace (when planned, under the locks).
    pub abs: PathBuf,
    pub old: Option<Vec<u8>>,
    pub new: Option<Vec<u8>>,
    /// Permission bits for a file this change creates (undo recreating a deleted file).
    pub new_mode: Option<u32>,
}

/// The paths that succeed or fail together under per-file atomicity: one file, or both ends of
/// a rename (plus any other section touching them).
#[derive(Debug, Clone)]
pub(crate) struct CommitUnit {
    /// The file as the report names it.
    pub label: String,
    pub changes: Vec<PathChange>,
}

/// Test hook: told after each path of a commit is written. Returning `Err` fails that path as an
/// I/O error would, so rollback can be exercised; blocking in it holds the commit mid-way (the
/// crash test kills the process there).
#[doc(hidden)]
pub trait CommitObserver: Send + Sync {
    /// `index` is 1-based among `total` path writes of the commit.
    fn file_written(&self, path: &str, index: usize, total: usize) -> Result<(), String>;
}

/// What a commit did.
#[derive(Debug, Default)]
pub(crate) struct CommitResult {
    /// Indices of the units fully written.
    pub applied: Vec<usize>,
    /// Units that failed (and were restored), with the error.
    pub failed: Vec<(usize, ToolError)>,
    /// All-or-nothing: a failure restored every file already written.
    pub rolled_back: bool,
    /// A restore itself failed: the files named here may be left new.
    pub rollback_errors: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct JournalEntry {
    path: String,
    old_sha: Option<String>,
    new_sha: Option<String>,
    /// Where the new content is staged, relative to the root (absolute in journals of older
    /// versions); removed by recovery if the crash left it and it is that entry's temp file.
    tmp: Option<PathBuf>,
}

/// `.lspedit/journal/<txn>.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Journal {
    txn_id: String,
    patch_id: String,
    checkpoint_id: String,
    created_ms: u64,
    pid: u32,
    entries: Vec<JournalEntry>,
}

/// What recovery did with one interrupted all-or-nothing commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecoveryReport {
    pub txn_id: String,
    pub patch_id: String,
    /// Files that were new and are old again.
    pub restored: Vec<String>,
    /// Files that were neither old nor new (changed by someone since the crash): left alone.
    pub conflicts: Vec<String>,
    /// Temp paths the journal named that are not the staged file of their entry (outside the
    /// root, in another directory, another name): the journal was tampered with; left alone.
    pub refused_tmps: Vec<String>,
}

/// Threads that stage new contents at once. Staging is bound by fsync latency, not CPU: with
/// several fsyncs in flight the file system commits them together.
const STAGE_THREADS: usize = 8;

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
/// the target's permissions (or the recorded mode of a file being recreated), fsynced.
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

/// Install one staged change: rename its temp file over the target, or remove the target (the
/// entry itself: a symlink, never its target). The staged file's directory fsync is left to the
/// caller, once per directory before the commit point; each file is still entirely old or
/// entirely new after a crash, which is all recovery needs.
///
/// The switch happens only if the file still holds the bytes the plan read (compared under the
/// directory's cross-process lock): a file another writer changed since is `stale_context`, and
/// its unit is rolled back, so an approved change never overwrites one nobody reviewed.
fn install(ws: &Workspace, c: &PathChange, staged: &StageResult) -> Result<(), ToolError> {
    let switched = match staged {
        Err(e) => return Err(e.clone()),
        Ok(Some(s)) => ws.install_if(s, c.old.as_deref())?,
        Ok(None) => ws.replace_verified(&c.path, c.old.as_deref(), None, None)?,
    };
    match switched {
        Replaced::Done => Ok(()),
        Replaced::Changed { current } => Err(ToolError::new(
            Reason::StaleContext,
            Some(&c.path),
            format!(
                "the file changed on disk after the patch was planned (base_sha {}, now {}); nothing of it was written: propose the change again",
                show_sha(state_sha(c.old.as_deref()).as_deref()),
                show_sha(state_sha(current.as_deref()).as_deref()),
            ),
        )),
    }
}

/// Write one path's state. A file recreated with a known mode gets it back (permission bits
/// only).
fn write_state(
    ws: &Workspace,
    path: &str,
    state: Option<&[u8]>,
    mode: Option<u32>,
) -> Result<(), ToolError> {
    match state {
        Some(bytes) => ws.write_atomic_mode(path, bytes, mode),
        None if ws.entry_exists(path)? => ws.remove(path),
        None => Ok(()),
    }
}

fn current_sha(ws: &Workspace, path: &str) -> Result<Option<String>, ToolError> {
    Ok(state_sha(ws.read(path)?.as_deref()))
}

/// Refuse (`stale_context`) unless every path is still in its old state. Run under the lock,
/// right before the first write.
pub(crate) fn check_fresh(ws: &Workspace, units: &[CommitUnit]) -> Result<(), ToolError> {
    for c in units.iter().flat_map(|u| &u.changes) {
        let now = current_sha(ws, &c.path)?;
        let expected = state_sha(c.old.as_deref());
        if now != expected {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(&c.path),
                format!(
                    "the file changed since the patch was proposed (base_sha {}, now {}); propose the edit again",
                    show_sha(expected.as_deref()),
                    show_sha(now.as_deref())
                ),
            ));
        }
    }
    Ok(())
}

/// Commit `units`. Callers hold the workspace lock and have checked freshness and written
/// `checkpoint` (whose entries cover every path of `units`).
pub(crate) fn commit(
    ws: &Workspace,
    layout: &Layout,
    units: &[CommitUnit],
    atomicity: Atomicity,
    checkpoint: &CheckpointManifest,
    observer: Option<&dyn CommitObserver>,
) -> CommitResult {
    let total: usize = units.iter().map(|u| u.changes.len()).sum();
    let mode_of = |path: &str| {
        checkpoint
            .entries
            .iter()
            .find(|e| e.path == path)
            .and_then(|e| e.mode)
    };
    let mut result = CommitResult::default();
    let changes: Vec<&PathChange> = units.iter().flat_map(|u| &u.changes).collect();
    let tmps: Vec<PathBuf> = changes.iter().map(|c| temp_path(&c.abs)).collect();
    let journal_path = match atomicity {
        Atomicity::PerFile => None,
        Atomicity::AllOrNothing => match begin_journal(ws, layout, &changes, &tmps, checkpoint) {
            Ok(p) => Some(p),
            Err(e) => {
                result.failed.push((0, e));
                result.rolled_back = true;
                return result;
            }
        },
    };
    // New contents are written and fsynced first (in parallel, invisible under temp names);
    // then installed one by one in order, each rename being that file's switch to new.
    let staged = stage_all(ws, &changes, &tmps);
    // Paths written so far, in order, across units (all-or-nothing rolls back all of them).
    let mut written: Vec<&PathChange> = Vec::new();
    let mut index = 0;
    for (ui, unit) in units.iter().enumerate() {
        let mut unit_written: Vec<&PathChange> = Vec::new();
        let mut failure = None;
        for c in &unit.changes {
            let i = index;
            index += 1;
            let r = install(ws, c, &staged[i]).and_then(|()| {
                unit_written.push(c);
                match observer.map(|o| o.file_written(&c.path, index, total)) {
                    Some(Err(msg)) => Err(ToolError::new(Reason::IoError, Some(&c.path), msg)),
                    _ => Ok(()),
                }
            });
            if let Err(e) = r {
                failure = Some(e);
                break;
            }
        }
        match failure {
            None => {
                result.applied.push(ui);
                written.extend(unit_written);
            }
            Some(e) => {
                tracing::warn!(file = %unit.label, error = %e, "commit failed; restoring");
                result.failed.push((ui, e));
                let to_restore: Vec<&PathChange> = match atomicity {
                    Atomicity::PerFile => unit_written,
                    Atomicity::AllOrNothing => {
                        written.extend(unit_written);
                        std::mem::take(&mut written)
                    }
                };
                for c in to_restore.iter().rev() {
                    if let Err(re) = write_state(ws, &c.path, c.old.as_deref(), mode_of(&c.path)) {
                        result.rollback_errors.push(format!("{}: {re}", c.path));
                    }
                }
                if atomicity == Atomicity::AllOrNothing {
                    result.rolled_back = true;
                    result.applied.clear();
                    break;
                }
            }
        }
    }
    // Make every rename durable before the commit point (the journal's removal), once per
    // directory; then the temp files of changes never installed (after a failure) go.
    let mut synced: BTreeSet<&Path> = BTreeSet::new();
    for (c, s) in changes.iter().zip(&staged) {
        if let (Ok(Some(s)), Some(dir)) = (s, c.abs.parent())
            && synced.insert(dir)
        {
            s.sync_dir();
        }
    }
    for s in staged.into_iter().flatten().flatten() {
        s.discard();
    }
    if let Some(p) = journal_path {
        if result.rollback_errors.is_empty() {
            end_journal(layout, &p);
        } else {
            // Leave the journal: the next open retries the rollback from the checkpoint.
            tracing::error!(journal = %p.display(), "rollback incomplete; the journal is kept for recovery");
        }
    }
    result
}

fn begin_journal(
    ws: &Workspace,
    layout: &Layout,
    changes: &[&PathChange],
    tmps: &[PathBuf],
    checkpoint: &CheckpointManifest,
) -> Result<PathBuf, ToolError> {
    let txn_id = new_id("txn", checkpoint.checkpoint_id.as_bytes());
    let journal = Journal {
        txn_id: txn_id.clone(),
        patch_id: checkpoint.patch_id.clone(),
        checkpoint_id: checkpoint.checkpoint_id.clone(),
        created_ms: now_ms(),
        pid: std::process::id(),
        entries: changes
            .iter()
            .zip(tmps)
            .map(|(c, tmp)| JournalEntry {
                path: c.path.clone(),
                old_sha: state_sha(c.old.as_deref()),
                new_sha: state_sha(c.new.as_deref()),
                tmp: c.new.as_ref().map(|_| PathBuf::from(ws.display_path(tmp))),
            })
            .collect(),
    };
    let path = layout.journal.join(format!("{txn_id}.json"));
    layout
        .ensure_dir(&layout.journal)
        .and_then(|()| {
            sync_dir(&layout.dir);
            write_json_atomic(&path, &journal)
        })
        .map_err(|e| state_error(".lspedit/journal", "writing the commit journal", &e))?;
    Ok(path)
}

fn end_journal(layout: &Layout, path: &std::path::Path) {
    if let Err(e) = fs::remove_file(path) {
        tracing::error!(journal = %path.display(), error = %e, "removing the commit journal failed");
        return;
    }
    sync_dir(&layout.journal);
    // An empty journal directory is removed so a clean workspace has no journal at all.
    let _ = fs::remove_dir(&layout.journal);
}

/// Whether a journal directory with entries exists (cheap; no lock, nothing created).
pub(crate) fn has_journal(layout: &Layout) -> bool {
    fs::read_dir(&layout.journal).is_ok_and(|mut rd| rd.next().is_some())
}

/// Roll back every interrupted all-or-nothing commit. Callers hold the workspace lock.
pub(crate) fn recover(
    ws: &Workspace,
    layout: &Layout,
    checkpoints: &Checkpoints,
) -> Vec<RecoveryReport> {
    let mut reports = Vec::new();
    if let Err(e) = check_entry(&layout.journal, ".lspedit/journal", true) {
        tracing::error!(error = %e, "the journal directory is not lspedit's; nothing was recovered");
        return reports;
    }
    let Ok(rd) = fs::read_dir(&layout.journal) else {
        return reports;
    };
    let mut names: Vec<String> = rd
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let path = layout.journal.join(&name);
        let Some(id) = name
            .strip_suffix(".json")
            .filter(|id| is_valid_id("txn", id))
        else {
            // A temp file of a journal write that never completed: no file was touched after it.
            // (Removed as an entry of the checked journal directory: a symlink goes itself.)
            let _ = fs::remove_file(&path);
            continue;
        };
        let file = layout.rel(&path);
        let journal = read_json::<Journal>(&path, &file)
            .map_err(|e| state_error(&file, "reading the commit journal", &e))
            .and_then(|j| verify_journal(ws, &j, id, &file).map(|()| j));
        let journal = match journal {
            Ok(j) => j,
            Err(e) => {
                tracing::error!(journal = id, error = %e, "commit journal kept for inspection; nothing was done with it");
                continue;
            }
        };
        match recover_one(ws, checkpoints, &journal) {
            Ok(report) => {
                tracing::warn!(
                    txn = %report.txn_id,
                    patch = %report.patch_id,
                    restored = ?report.restored,
                    conflicts = ?report.conflicts,
                    refused_tmps = ?report.refused_tmps,
                    "rolled back an interrupted all-or-nothing commit"
                );
                checkpoints.remove(&journal.checkpoint_id);
                let _ = fs::remove_file(&path);
                reports.push(report);
            }
            Err(e) => {
                tracing::error!(journal = id, error = %e, "rolling back an interrupted commit failed; the journal is kept");
            }
        }
    }
    sync_dir(&layout.journal);
    let _ = fs::remove_dir(&layout.journal);
    reports
}

/// Refuse (`tampered_state`, naming `file`) a journal that is not one lspedit wrote as `id`.
fn verify_journal(ws: &Workspace, j: &Journal, id: &str, file: &str) -> Result<(), ToolError> {
    if j.txn_id != id {
        return Err(tampered(
            file,
            format!(
                "the journal names itself `{}` but is stored as `{id}`",
                j.txn_id
            ),
        ));
    }
    if !is_valid_id("patch", &j.patch_id) || !is_valid_id("ckpt", &j.checkpoint_id) {
        return Err(tampered(
            file,
            "its patch or checkpoint id is not an id lspedit makes",
        ));
    }
    for e in &j.entries {
        stored_path(ws, file, &e.path)?;
        if !is_valid_sha(e.old_sha.as_deref()) || !is_valid_sha(e.new_sha.as_deref()) {
            return Err(tampered(
                file,
                format!("a sha of `{}` is not a sha", e.path),
            ));
        }
    }
    Ok(())
}

/// Whether `name` is lspedit's temp-file name for a write to `target` (a file name):
/// `.<target>.lspedit-<pid>-<n>.tmp`.
fn is_temp_name_of(name: &str, target: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix('.')
        .and_then(|r| r.strip_prefix(target))
        .and_then(|r| r.strip_prefix(".lspedit-"))
        .and_then(|r| r.strip_suffix(".tmp"))
        .and_then(|r| r.split_once('-'))
        .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// The absolute path of the temp file a journal entry for `target` (a workspace path) names,
/// when it is one lspedit would have staged for it: inside the root, in the directory `target`
/// resolves to, named for `target`'s name. `None` for anything else.
fn journal_tmp(ws: &Workspace, target: &str, tmp: &Path) -> Option<PathBuf> {
    let root = ws.root();
    let rel = if tmp.is_absolute() {
        tmp.strip_prefix(root).ok()?
    } else {
        tmp
    };
    let plain = rel.components().next().is_some()
        && rel.components().all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return None;
    }
    let abs = root.join(rel);
    let target = ws.resolve(target).ok()?;
    if abs.parent()? != target.parent()? {
        return None;
    }
    let name = abs.file_name()?.to_str()?;
    is_temp_name_of(name, target.file_name()?.to_str()?).then_some(abs)
}

fn recover_one(
    ws: &Workspace,
    checkpoints: &Checkpoints,
    journal: &Journal,
) -> Result<RecoveryReport, ToolError> {
    let manifest = checkpoints.load(ws, &journal.checkpoint_id)?;
    let mut report = RecoveryReport {
        txn_id: journal.txn_id.clone(),
        patch_id: journal.patch_id.clone(),
        restored: Vec::new(),
        conflicts: Vec::new(),
        refused_tmps: Vec::new(),
    };
    for entry in &journal.entries {
        let Some(tmp) = &entry.tmp else {
            continue;
        };
        let Some(abs) = journal_tmp(ws, &entry.path, tmp) else {
            tracing::warn!(tmp = %tmp.display(), path = %entry.path, "the journal names a temp path that is not lspedit's temp file of its entry; left alone");
            report.refused_tmps.push(tmp.to_string_lossy().into_owned());
            continue;
        };
        // The directory is the target's real one inside the root; the removal goes through
        // the root's handle and never follows a symlink in the last component.
        let rel = abs.strip_prefix(ws.root()).unwrap_or(&abs);
        let target = Path::new(&entry.path)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if let Err(e) = ws.remove_temp(rel, target) {
            tracing::warn!(tmp = %abs.display(), error = %e, "removing a staged temp file failed");
        }
    }
    let mut seen = BTreeSet::new();
    for entry in &journal.entries {
        if !seen.insert(entry.path.clone()) {
            continue;
        }
        let now = current_sha(ws, &entry.path)?;
        if now == entry.old_sha {
            continue;
        }
        if now != entry.new_sha {
            report.conflicts.push(entry.path.clone());
            continue;
        }
        let cp = manifest
            .entries
            .iter()
            .find(|e| e.path == entry.path)
            .ok_or_else(|| {
                ToolError::new(
                    Reason::IoError,
                    Some(&entry.path),
                    "the checkpoint does not cover this file",
                )
            })?;
        let old = checkpoints.old_bytes(&manifest.checkpoint_id, cp)?;
        write_state(ws, &entry.path, old.as_deref(), cp.mode)?;
        report.restored.push(entry.path.clone());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_are_recognized_only_for_their_target() {
        assert!(is_temp_name_of(".a.txt.lspedit-12-0.tmp", "a.txt"));
        for bad in [
            ".a.txt.lspedit-12-0.tmp.x",
            ".b.txt.lspedit-12-0.tmp",
            "a.txt.lspedit-12-0.tmp",
            ".a.txt.lspedit--0.tmp",
            ".a.txt.lspedit-12-.tmp",
            ".a.txt.lspedit-1x-0.tmp",
            "passwd",
        ] {
            assert!(!is_temp_name_of(bad, "a.txt"), "{bad}");
        }
    }

    #[test]
    fn journal_temp_paths_must_sit_beside_their_target() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let root = ws.root().to_path_buf();
        let ok = Path::new("sub/.a.txt.lspedit-1-2.tmp");
        assert_eq!(
            journal_tmp(&ws, "sub/a.txt", ok),
            Some(root.join("sub/.a.txt.lspedit-1-2.tmp"))
        );
        // Older journals stored the absolute path.
        assert!(journal_tmp(&ws, "sub/a.txt", &root.join(ok)).is_some());
        for bad in [
            "/etc/.a.txt.lspedit-1-2.tmp",
            ".a.txt.lspedit-1-2.tmp",
            "sub/../.a.txt.lspedit-1-2.tmp",
            "../sub/.a.txt.lspedit-1-2.tmp",
            "sub/a.txt",
            "sub/.b.txt.lspedit-1-2.tmp",
        ] {
            assert_eq!(journal_tmp(&ws, "sub/a.txt", Path::new(bad)), None, "{bad}");
        }
    }
}
