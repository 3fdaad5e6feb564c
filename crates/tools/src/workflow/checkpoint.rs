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
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::commit::PathChange;
use super::util::{
    Layout, evict_oldest, now_ms, read_json, state_sha, sync_dir, write_json_atomic,
};
use crate::workspace::Workspace;

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
        ws: &Workspace,
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
                        let f = blobs.join(&name);
                        fs::write(&f, bytes)?;
                        fs::File::open(&f)?.sync_all()?;
                        let mode = ws
                            .resolve(&c.path)
                            .ok()
                            .and_then(|abs| fs::metadata(abs).ok())
                            .map(|m| m.permissions().mode() & 0o7777);
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

    /// Keep only the entries of `paths` (those a per-file commit actually wrote).
    pub fn retain(
        &self,
        manifest: &CheckpointManifest,
        paths: &BTreeSet<String>,
    ) -> io::Result<()> {
        let mut m = manifest.clone();
        m.entries.retain(|e| paths.contains(&e.path));
        write_json_atomic(&self.path(&m.checkpoint_id).join("checkpoint.json"), &m)
    }

    pub fn remove(&self, id: &str) {
        if let Err(e) = fs::remove_dir_all(self.path(id))
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(checkpoint = id, error = %e, "removing a checkpoint failed");
        }
    }
}
