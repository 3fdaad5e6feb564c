//! The journal that makes an all-or-nothing commit survive a crash, and the recovery that rolls
//! an interrupted one back. The commit itself is the one commit path (`crate::commit`); this is
//! the [`Journal`] the workflow gives it.
//!
//! All-or-nothing protocol (callers hold the workspace lock throughout):
//! 1. the checkpoint with every file's old bytes is durable (see `checkpoint.rs`);
//! 2. `.lspedit/journal/<txn>.json` is written atomically, naming the checkpoint and each file's
//!    old and new sha and the temp file its new content is staged in;
//! 3. new contents are staged ahead of their switch (written and fsynced under their temp
//!    names, on a few threads, a window of them at a time);
//! 4. each file is switched by a rename, in order, so each is always entirely old or entirely
//!    new; the directories are fsynced;
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

use std::collections::BTreeSet;
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::checkpoint::{CheckpointManifest, Checkpoints};
use super::util::{
    Layout, check_entry, is_valid_id, is_valid_sha, new_id, now_ms, read_json, state_error,
    state_sha, stored_path, sync_dir, tampered, write_json_atomic,
};
use lspedit_write::commit::{Journal, PathChange};
use lspedit_write::{Reason, ToolError};
use lspedit_write::{Workspace, temp_owner_pid};

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
struct Record {
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

/// The journal of one all-or-nothing commit, naming its checkpoint.
pub(crate) struct JournalFile<'a> {
    ws: &'a Workspace,
    layout: &'a Layout,
    checkpoint: &'a CheckpointManifest,
    /// Where it was written, once it was.
    path: Option<PathBuf>,
}

impl<'a> JournalFile<'a> {
    pub fn new(
        ws: &'a Workspace,
        layout: &'a Layout,
        checkpoint: &'a CheckpointManifest,
    ) -> JournalFile<'a> {
        JournalFile {
            ws,
            layout,
            checkpoint,
            path: None,
        }
    }
}

impl Journal for JournalFile<'_> {
    fn begin(&mut self, changes: &[&PathChange], tmps: &[PathBuf]) -> Result<(), ToolError> {
        let (ws, layout, checkpoint) = (self.ws, self.layout, self.checkpoint);
        let txn_id = new_id("txn", checkpoint.checkpoint_id.as_bytes());
        let journal = Record {
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
        self.path = Some(path);
        Ok(())
    }

    fn end(&mut self) {
        let Some(path) = self.path.take() else {
            return;
        };
        if let Err(e) = fs::remove_file(&path) {
            tracing::error!(journal = %path.display(), error = %e, "removing the commit journal failed");
            return;
        }
        sync_dir(&self.layout.journal);
        // An empty journal directory is removed so a clean workspace has no journal at all.
        let _ = fs::remove_dir(&self.layout.journal);
    }

    fn keep(&mut self) {
        // The next open retries the rollback from the checkpoint.
        if let Some(path) = &self.path {
            tracing::error!(journal = %path.display(), "rollback incomplete; the journal is kept for recovery");
        }
    }
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
        let journal = read_json::<Record>(&path, &file)
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
fn verify_journal(ws: &Workspace, j: &Record, id: &str, file: &str) -> Result<(), ToolError> {
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
/// `.<target>.lspedit-<pid>-<n>.tmp`, read by the write core, which makes it.
fn is_temp_name_of(name: &str, target: &str) -> bool {
    temp_owner_pid(name, target).is_some()
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
    journal: &Record,
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
            ".a.txt.lspedit-+12-0.tmp",
            ".a.txt.lspedit-12-+0.tmp",
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
