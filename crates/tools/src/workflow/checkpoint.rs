//! Checkpoints under `.lspedit/checkpoints/<id>/`: the old content of every file an apply is
//! about to touch (or the fact that it did not exist), with the sha each file will have after
//! the apply, so `undo` can restore them and refuse when a file changed since.
//!
//! A checkpoint is built in a `.tmp-<id>` directory and renamed into place once every blob and
//! the manifest are fsynced, so a crash never leaves a half-written checkpoint under its id;
//! the journal of an all-or-nothing commit relies on this to roll back.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::commit::PathChange;
use super::util::{
    Layout, evict_oldest, now_ms, read_json, state_sha, sync_dir, write_json_atomic,
};

/// One file of a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CheckpointEntry {
    pub path: String,
    /// `None`: the file did not exist before the apply.
    pub old_sha: Option<String>,
    /// `None`: the apply deletes the file.
    pub new_sha: Option<String>,
    /// Name of the blob holding the old bytes, under `blobs/`.
    pub blob: Option<String>,
    /// Unix permission bits of the old file, restored when undo recreates it.
    pub mode: Option<u32>,
}

/// `checkpoint.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CheckpointManifest {
    pub checkpoint_id: String,
    pub patch_id: String,
    pub created_ms: u64,
    pub entries: Vec<CheckpointEntry>,
}

/// Keep the old bytes of a file at `blob`. A hard link to the file costs no copy and no data
/// fsync: commits replace files by renaming a new inode over them, so the linked inode keeps the
/// old content (callers hold the locks and have just verified that content's sha). Where
/// linking is impossible (another file system, a file with other links that could be written in
/// place), the bytes are copied and fsynced.
fn store_blob(abs: &Path, bytes: &[u8], blob: &Path) -> io::Result<()> {
    if fs::symlink_metadata(abs).is_ok_and(|m| m.is_file() && m.nlink() == 1)
        && fs::hard_link(abs, blob).is_ok()
    {
        return Ok(());
    }
    fs::write(blob, bytes)?;
    fs::File::open(blob)?.sync_all()
}

/// The checkpoint store.
#[derive(Debug, Clone)]
pub(crate) struct Checkpoints {
    dir: PathBuf,
    max: usize,
}

impl Checkpoints {
    pub fn new(layout: &Layout, max: usize) -> Checkpoints {
        Checkpoints {
            dir: layout.checkpoints.clone(),
            max,
        }
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// Write a checkpoint of `changes` (their old states) and return its manifest. Callers hold
    /// the workspace lock, so any `.tmp-*` directory found here is a crashed creation.
    pub fn create(
        &self,
        id: &str,
        patch_id: &str,
        changes: &[&PathChange],
    ) -> io::Result<CheckpointManifest> {
        fs::create_dir_all(&self.dir)?;
        self.remove_stray_tmp();
        let tmp = self.dir.join(format!(".tmp-{id}"));
        let blobs = tmp.join("blobs");
        fs::create_dir_all(&blobs)?;
        let result = (|| {
            let mut entries = Vec::with_capacity(changes.len());
            for (i, c) in changes.iter().enumerate() {
                let (blob, mode) = match &c.old {
                    Some(bytes) => {
                        let name = i.to_string();
                        let mode = fs::metadata(&c.abs)
                            .ok()
                            .map(|m| m.permissions().mode() & 0o7777);
                        store_blob(&c.abs, bytes, &blobs.join(&name))?;
                        (Some(name), mode)
                    }
                    None => (None, None),
                };
                entries.push(CheckpointEntry {
                    path: c.path.clone(),
                    old_sha: state_sha(c.old.as_deref()),
                    new_sha: state_sha(c.new.as_deref()),
                    blob,
                    mode,
                });
            }
            sync_dir(&blobs);
            let manifest = CheckpointManifest {
                checkpoint_id: id.to_string(),
                patch_id: patch_id.to_string(),
                created_ms: now_ms(),
                entries,
            };
            write_json_atomic(&tmp.join("checkpoint.json"), &manifest)?;
            fs::rename(&tmp, self.path(id))?;
            sync_dir(&self.dir);
            Ok(manifest)
        })();
        if result.is_err() {
            let _ = fs::remove_dir_all(&tmp);
        }
        if result.is_ok() {
            evict_oldest(&self.dir, &["ckpt_"], self.max, None, id, str::to_string);
        }
        result
    }

    fn remove_stray_tmp(&self) {
        let Ok(rd) = fs::read_dir(&self.dir) else {
            return;
        };
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with(".tmp-") {
                let _ = fs::remove_dir_all(e.path());
            }
        }
    }

    /// The manifest of checkpoint `id`; `NotFound` when there is none.
    pub fn load(&self, id: &str) -> io::Result<CheckpointManifest> {
        read_json(&self.path(id).join("checkpoint.json"))
    }

    /// The old bytes of an entry (`None` when the file did not exist).
    pub fn old_bytes(&self, id: &str, entry: &CheckpointEntry) -> io::Result<Option<Vec<u8>>> {
        entry
            .blob
            .as_ref()
            .map(|b| fs::read(self.path(id).join("blobs").join(b)))
            .transpose()
    }

    /// Keep only the entries of `paths` (those a per-file commit actually wrote). The dropped
    /// entries' blobs go too: a blob may be a hard link to a workspace file that was not
    /// replaced, and must not stay linked to it.
    pub fn retain(
        &self,
        manifest: &CheckpointManifest,
        paths: &BTreeSet<String>,
    ) -> io::Result<()> {
        let mut m = manifest.clone();
        let dir = self.path(&m.checkpoint_id);
        for e in m.entries.iter().filter(|e| !paths.contains(&e.path)) {
            if let Some(b) = &e.blob {
                fs::remove_file(dir.join("blobs").join(b))?;
            }
        }
        m.entries.retain(|e| paths.contains(&e.path));
        write_json_atomic(&dir.join("checkpoint.json"), &m)
    }

    pub fn remove(&self, id: &str) {
        if let Err(e) = fs::remove_dir_all(self.path(id))
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(checkpoint = id, error = %e, "removing a checkpoint failed");
        }
    }
}
