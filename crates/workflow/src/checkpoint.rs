//! Checkpoints under `.lspedit/checkpoints/<id>/`: the old content of every file an apply is
//! about to touch (or the fact that it did not exist), with the sha each file will have after
//! the apply, so `undo` can restore them and refuse when a file changed since.
//!
//! A checkpoint is built in a `.tmp-<id>` directory and renamed into place once every blob and
//! the manifest are fsynced, so a crash never leaves a half-written checkpoint under its id;
//! the journal of an all-or-nothing commit relies on this to roll back.
//!
//! A checkpoint is read back as untrusted ([`Checkpoints::load`]): its id must be the directory
//! it was found in, every path must resolve inside the workspace outside the protected
//! directories, blob names are plain hashes opened only inside its `blobs/` (never through a
//! symlink) and must hold the bytes whose SHA-256 the manifest records, and modes keep their
//! permission bits only. The manifest carries a keyed MAC (`mac`, key in `key.rs`,
//! `docs/ids.md`) over all of it, its id included, bound to the workspace it was made in: a
//! checkpoint written or swapped by anyone without the person's key, or copied from another
//! workspace, is `tampered_state`, and nothing is restored from it.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use lspedit_tools::front::{Step, say};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::key::{KeySource, StateKey};
use super::util::{
    Layout, MODE_MASK, blob_name, check_entry, evict_oldest, invalid, is_blob_name, is_valid_id,
    is_valid_sha, now_ms, read_json, read_state_file, state_error, state_sha, stored_path,
    sync_dir, tampered, write_json_atomic,
};
use lspedit_write::Workspace;
use lspedit_write::commit::PathChange;
use lspedit_write::{Reason, ToolError};

/// One file of a checkpoint.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CheckpointEntry {
    pub path: String,
    /// `None`: the file did not exist before the apply.
    pub old_sha: Option<String>,
    /// `None`: the apply deletes the file.
    pub new_sha: Option<String>,
    /// Name of the blob holding the old bytes, under `blobs/`: a SHA-256 in hex
    /// ([`is_blob_name`]).
    pub blob: Option<String>,
    /// Permission bits (`0o777` at most) of the old file, restored when undo recreates it.
    pub mode: Option<u32>,
    /// The whole SHA-256 (64 hex digits) of the old bytes, which the blob must hold: `old_sha`
    /// has 48 bits, too few to bind a blob someone else could write.
    pub old_sha256: Option<String>,
}

/// `checkpoint.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CheckpointManifest {
    /// [`CHECKPOINT_VERSION`]; absent (read as 1) in checkpoints of older lspedits.
    #[serde(default = "unversioned")]
    pub version: u32,
    pub checkpoint_id: String,
    pub patch_id: String,
    pub created_ms: u64,
    pub entries: Vec<CheckpointEntry>,
    /// HMAC-SHA256 (64 hex digits) under the person's key of the manifest with an empty `mac`
    /// ([`CheckpointManifest::signed_bytes`]).
    pub mac: String,
}

/// Format version of a checkpoint; one of another version is refused. Version 1 (no `version`
/// field) had a MAC under the person's key alone, which verifies in any of their workspaces;
/// version 2's MAC is bound to the workspace.
const CHECKPOINT_VERSION: u32 = 2;

/// The version of a checkpoint without a `version` field.
fn unversioned() -> u32 {
    1
}

/// What a checkpoint's MAC is computed under (a patch id's is another). Named for the version,
/// so a MAC of an older version never verifies as one of this.
const CHECKPOINT_DOMAIN: &str = "lspedit/checkpoint/v2";

impl CheckpointManifest {
    /// The manifest as JSON with an empty `mac` (these types serialize in a fixed order).
    fn signed_bytes(&self) -> Vec<u8> {
        let unsigned = CheckpointManifest {
            mac: String::new(),
            ..self.clone()
        };
        // Serializing these plain types cannot fail; an empty body would only fail to verify.
        serde_json::to_vec(&unsigned).unwrap_or_default()
    }

    fn sign(&mut self, key: &StateKey) {
        self.mac = key.mac_hex(CHECKPOINT_DOMAIN, &self.signed_bytes());
    }
}

/// The SHA-256 of `bytes` in 64 hex digits.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Keep the old bytes of a file at `blob`. A hard link to the file costs no copy and no data
/// fsync: commits replace files by renaming a new inode over them, so the linked inode keeps the
/// old content (callers hold the locks and have just verified that content's sha). Where
/// linking is impossible (another file system, a file with other links that could be written in
/// place), the bytes are copied and fsynced.
fn store_blob(abs: &Path, bytes: &[u8], blob: &Path) -> io::Result<()> {
    if single_link(abs) && fs::hard_link(abs, blob).is_ok() {
        return Ok(());
    }
    fs::write(blob, bytes)?;
    fs::File::open(blob)?.sync_all()
}

/// Whether `abs` is a regular file with no other hard link (so linking it is safe).
#[cfg(unix)]
fn single_link(abs: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    fs::symlink_metadata(abs).is_ok_and(|m| m.is_file() && m.nlink() == 1)
}

/// Whether `abs` may be linked instead of copied: never on Windows, whose std metadata has no
/// link count (unstable there), so every blob is a copy (the fallback Unix takes too).
#[cfg(windows)]
fn single_link(abs: &Path) -> bool {
    let _ = abs;
    false
}

/// The permission bits of the file at `abs` (following a symlink), kept with its checkpoint.
#[cfg(unix)]
fn file_mode(abs: &Path) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(abs)
        .ok()
        .map(|m| m.permissions().mode() & MODE_MASK)
}

/// None on Windows: files have no Unix permission bits, so a checkpoint keeps no mode and undo
/// sets none.
#[cfg(windows)]
fn file_mode(abs: &Path) -> Option<u32> {
    let _ = abs;
    None
}

/// `checkpoint_not_found` for `id`.
fn not_found(id: &str) -> ToolError {
    ToolError::new(
        Reason::CheckpointNotFound,
        None,
        format!(
            "Checkpoint '{id}' not found; use {} (an undone checkpoint is consumed: undo its redo checkpoint instead)",
            say(&Step::CheckpointSource)
        ),
    )
}

/// The checkpoint store.
#[derive(Debug, Clone)]
pub(crate) struct Checkpoints {
    layout: Layout,
    dir: PathBuf,
    key: Arc<KeySource>,
    max: usize,
}

impl Checkpoints {
    pub fn new(layout: &Layout, key: Arc<KeySource>, max: usize) -> Checkpoints {
        Checkpoints {
            layout: layout.clone(),
            dir: layout.checkpoints.clone(),
            key,
            max,
        }
    }

    /// The key, as an I/O error when it cannot be had (writers report I/O errors).
    fn signing_key(&self) -> io::Result<StateKey> {
        self.key.key().map_err(|e| io::Error::other(e.message))
    }

    /// The directory of checkpoint `id`; `InvalidData` for anything but a checkpoint id, so a
    /// path can never be built from one.
    fn path(&self, id: &str) -> io::Result<PathBuf> {
        if is_valid_id("ckpt", id) {
            Ok(self.dir.join(id))
        } else {
            Err(invalid(format!("`{id}` is not a checkpoint id")))
        }
    }

    /// Write a checkpoint of `changes` (their old states) and return its manifest. Callers hold
    /// the workspace lock, so any `.tmp-*` directory found here is a crashed creation.
    pub fn create(
        &self,
        id: &str,
        patch_id: &str,
        changes: &[&PathChange],
    ) -> io::Result<CheckpointManifest> {
        let dest = self.path(id)?;
        let key = self.signing_key()?;
        self.layout.ensure_dir(&self.dir)?;
        self.remove_stray_tmp();
        let tmp = self.dir.join(format!(".tmp-{id}"));
        let blobs = tmp.join("blobs");
        fs::create_dir_all(&blobs)?;
        let result = (|| {
            let mut entries = Vec::with_capacity(changes.len());
            for (i, c) in changes.iter().enumerate() {
                let (blob, mode) = match &c.old {
                    Some(bytes) => {
                        let name = blob_name(i, &c.path);
                        let mode = file_mode(&c.abs);
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
                    old_sha256: c.old.as_deref().map(sha256_hex),
                });
            }
            sync_dir(&blobs);
            let mut manifest = CheckpointManifest {
                version: CHECKPOINT_VERSION,
                checkpoint_id: id.to_string(),
                patch_id: patch_id.to_string(),
                created_ms: now_ms(),
                entries,
                mac: String::new(),
            };
            manifest.sign(&key);
            write_json_atomic(&tmp.join("checkpoint.json"), &manifest)?;
            fs::rename(&tmp, &dest)?;
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

    /// The manifest of checkpoint `id`, verified: `checkpoint_not_found` when there is none (or
    /// `id` is no checkpoint id), `tampered_state` naming the file when it is not what lspedit
    /// wrote there (see the module doc). Modes come back masked to permission bits.
    pub fn load(&self, ws: &Workspace, id: &str) -> Result<CheckpointManifest, ToolError> {
        let Ok(dir) = self.path(id) else {
            return Err(not_found(id));
        };
        let shown_dir = self.layout.rel(&dir);
        check_entry(&dir, &shown_dir, true)
            .map_err(|e| state_error(&shown_dir, "reading the checkpoint", &e))?;
        let path = dir.join("checkpoint.json");
        let file = self.layout.rel(&path);
        let mut m: CheckpointManifest = read_json(&path, &file).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                not_found(id)
            } else {
                state_error(&file, "reading the checkpoint", &e)
            }
        })?;
        if m.checkpoint_id != id {
            return Err(tampered(
                &file,
                format!(
                    "the checkpoint names itself `{}` but is stored as `{id}`; undo refused, nothing was restored",
                    m.checkpoint_id
                ),
            ));
        }
        if !is_valid_id("patch", &m.patch_id) {
            return Err(tampered(
                &file,
                format!("`{}` is not a patch id", m.patch_id),
            ));
        }
        if m.version != CHECKPOINT_VERSION {
            return Err(tampered(
                &file,
                format!(
                    "checkpoint `{id}` has format version {} but this lspedit reads version {CHECKPOINT_VERSION} only (those of version 1 are not bound to their workspace); undo refused, nothing was restored",
                    m.version
                ),
            ));
        }
        let key = self.key.key()?;
        if !key.verify_hex(CHECKPOINT_DOMAIN, &m.signed_bytes(), &m.mac) || m.mac.len() != 64 {
            return Err(tampered(
                &file,
                format!(
                    "checkpoint `{id}` does not carry a valid signature: it was not written by lspedit for this user in this workspace (a checkpoint is bound to the workspace root it was made in: one copied from elsewhere, or made before the workspace moved, is refused), or was changed since; undo refused, nothing was restored"
                ),
            ));
        }
        let mut seen = BTreeSet::new();
        for e in &mut m.entries {
            stored_path(ws, &file, &e.path)?;
            if !seen.insert(e.path.clone()) {
                return Err(tampered(&file, format!("`{}` appears twice", e.path)));
            }
            let blob_ok = match (&e.blob, &e.old_sha, &e.old_sha256) {
                (Some(b), Some(_), Some(full)) => is_blob_name(b) && is_blob_name(full),
                (None, None, None) => true,
                _ => false,
            };
            if !blob_ok {
                return Err(tampered(
                    &file,
                    format!(
                        "the blob of `{}` is not a blob name lspedit writes (a 64-digit hex hash)",
                        e.path
                    ),
                ));
            }
            if !is_valid_sha(e.old_sha.as_deref()) || !is_valid_sha(e.new_sha.as_deref()) {
                return Err(tampered(
                    &file,
                    format!("a sha of `{}` is not a sha", e.path),
                ));
            }
            e.mode = e.mode.map(|mode| mode & MODE_MASK);
        }
        Ok(m)
    }

    /// The old bytes of an entry of a loaded manifest (`None` when the file did not exist):
    /// the blob is read from `blobs/` without following a symlink and must hold the bytes whose
    /// sha the entry records (`tampered_state` otherwise).
    pub fn old_bytes(
        &self,
        id: &str,
        entry: &CheckpointEntry,
    ) -> Result<Option<Vec<u8>>, ToolError> {
        let Some(blob) = &entry.blob else {
            return Ok(None);
        };
        let dir = self
            .path(id)
            .map_err(|e| state_error(&self.layout.rel(&self.dir), "reading the checkpoint", &e))?;
        let blobs = dir.join("blobs");
        let path = blobs.join(blob);
        let file = self.layout.rel(&path);
        if !is_blob_name(blob) {
            return Err(tampered(&file, "not a blob name lspedit writes"));
        }
        let bytes = check_entry(&blobs, &self.layout.rel(&blobs), true)
            .and_then(|()| read_state_file(&path, &file, u64::MAX))
            .map_err(|e| state_error(&file, "reading the checkpoint blob", &e))?;
        if state_sha(Some(&bytes)) != entry.old_sha
            || entry.old_sha256.as_deref() != Some(sha256_hex(&bytes).as_str())
        {
            return Err(tampered(
                &file,
                format!(
                    "the blob does not hold the content the checkpoint records for `{}`; nothing was restored",
                    entry.path
                ),
            ));
        }
        Ok(Some(bytes))
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
        let dir = self.path(&m.checkpoint_id)?;
        for e in m.entries.iter().filter(|e| !paths.contains(&e.path)) {
            if let Some(b) = e.blob.as_ref().filter(|b| is_blob_name(b)) {
                fs::remove_file(dir.join("blobs").join(b))?;
            }
        }
        m.entries.retain(|e| paths.contains(&e.path));
        m.sign(&self.signing_key()?);
        write_json_atomic(&dir.join("checkpoint.json"), &m)
    }

    /// Remove checkpoint `id` (a symlink in its place is removed itself, never followed). Not a
    /// checkpoint id: nothing is removed.
    pub fn remove(&self, id: &str) {
        let Ok(dir) = self.path(id) else {
            tracing::warn!(checkpoint = id, "not a checkpoint id; nothing removed");
            return;
        };
        if let Err(e) = fs::remove_dir_all(dir)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(checkpoint = id, error = %e, "removing a checkpoint failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::new_id;

    const PATCH: &str = "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef";

    /// A new workspace `<tmp>/<name>` and its checkpoint store, the key in `<tmp>/k`.
    fn store(tmp: &Path, name: &str) -> (Workspace, Checkpoints) {
        fs::create_dir(tmp.join(name)).unwrap();
        let ws = Workspace::open(tmp.join(name)).unwrap();
        let key = Arc::new(KeySource::new(Some(tmp.join("k")), ws.root()));
        let cps = Checkpoints::new(&Layout::new(ws.root()), key, 8);
        (ws, cps)
    }

    fn manifest_file(cps: &Checkpoints, id: &str) -> PathBuf {
        cps.dir.join(id).join("checkpoint.json")
    }

    // Regression (issue 44): a checkpoint signed in one workspace verified in any other of the
    // person's once copied into its `.lspedit/checkpoints/`.
    #[test]
    fn a_checkpoint_verifies_in_its_workspace_only() {
        let tmp = tempfile::tempdir().unwrap();
        let (ws_a, a) = store(tmp.path(), "a");
        let (ws_b, b) = store(tmp.path(), "b");
        let id = new_id("ckpt", b"");
        a.create(&id, PATCH, &[]).unwrap();
        fs::create_dir_all(b.dir.join(&id)).unwrap();
        fs::copy(manifest_file(&a, &id), manifest_file(&b, &id)).unwrap();
        let e = b.load(&ws_b, &id).unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState, "{e}");
        assert_eq!(
            e.path,
            Some(format!(".lspedit/checkpoints/{id}/checkpoint.json"))
        );
        assert!(e.message.contains("in this workspace"), "{e}");
        a.load(&ws_a, &id).unwrap();
    }

    /// `checkpoint.json` as lspedit wrote it before checkpoints had a version (version 1).
    #[derive(Serialize)]
    struct V1Manifest {
        checkpoint_id: String,
        patch_id: String,
        created_ms: u64,
        entries: Vec<CheckpointEntry>,
        mac: String,
    }

    // A checkpoint written before checkpoints were bound to their workspace (no version, a MAC
    // under the key alone) is refused, as is such an unbound MAC relabelled as this version.
    #[test]
    fn a_checkpoint_signed_unbound_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let (ws, cps) = store(tmp.path(), "a");
        let key = cps.key.key().unwrap();
        let id = new_id("ckpt", b"");
        fs::create_dir_all(cps.dir.join(&id)).unwrap();
        let mut v1 = V1Manifest {
            checkpoint_id: id.clone(),
            patch_id: PATCH.into(),
            created_ms: 1,
            entries: Vec::new(),
            mac: String::new(),
        };
        v1.mac = key.unbound_mac_hex("lspedit/checkpoint/v1", &serde_json::to_vec(&v1).unwrap());
        fs::write(manifest_file(&cps, &id), serde_json::to_vec(&v1).unwrap()).unwrap();
        let e = cps.load(&ws, &id).unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState, "{e}");
        assert!(e.message.contains("format version 1"), "{e}");

        let mut v2 = CheckpointManifest {
            version: CHECKPOINT_VERSION,
            checkpoint_id: id.clone(),
            patch_id: PATCH.into(),
            created_ms: 1,
            entries: Vec::new(),
            mac: String::new(),
        };
        v2.mac = key.unbound_mac_hex(CHECKPOINT_DOMAIN, &v2.signed_bytes());
        fs::write(manifest_file(&cps, &id), serde_json::to_vec(&v2).unwrap()).unwrap();
        let e = cps.load(&ws, &id).unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState, "{e}");
        assert!(e.message.contains("valid signature"), "{e}");
        // Signed bound, the same manifest loads.
        v2.sign(&key);
        fs::write(manifest_file(&cps, &id), serde_json::to_vec(&v2).unwrap()).unwrap();
        cps.load(&ws, &id).unwrap();
    }
}
