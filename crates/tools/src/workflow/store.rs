//! The patch store: one JSON file per proposed patch under `.lspedit/patches/`, written
//! atomically so another process can apply it, capped in count and bytes (oldest evicted).
//!
//! A stored patch is bound to what was reviewed: the hash part of its id covers the patch text,
//! the base states it was planned against and the summary shown with it ([`patch_id`]), and
//! loading recomputes it. The reviewable diff is not stored at all: it is planned again from the
//! patch text whenever it is shown. So a patch text changed after review no longer matches its
//! id and is refused (`tampered_state`) instead of being applied under a harmless diff.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::model::{ProposeStats, ProposedFile, StageReport};
use super::util::{
    Layout, evict_oldest, id_ms, is_valid_id, is_valid_sha, read_json, state_error, stored_path,
    tampered, write_json_atomic,
};
use crate::error::{Reason, ToolError};
use crate::workspace::Workspace;

/// Format version of a stored patch; a file with another version is refused. Version 2 binds
/// the id to the patch text and stores no diff.
pub(crate) const STORE_VERSION: u32 = 2;

/// A proposed patch as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoredPatch {
    pub version: u32,
    pub patch_id: String,
    pub created_ms: u64,
    /// `regex` or `patch`.
    pub source: String,
    /// The patch text that apply parses and applies (the caller's, or the one generated from a
    /// regex replacement).
    pub patch_text: String,
    pub files: Vec<ProposedFile>,
    /// Every path the patch reads or writes → its sha at propose time (`None`: did not exist).
    pub base_shas: BTreeMap<String, Option<String>>,
    pub stats: ProposeStats,
    pub summary: String,
    /// The propose-time pipeline verdicts; apply fills in its own stages.
    pub stages: Vec<StageReport>,
    /// The caller's step id (events name the step by it; the patch id otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// `diff_<taskId>_<stepId>_<ms>` when the caller gave both ids; the patch id otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<String>,
}

/// Whether `s` may be a task or step id: 1 to 64 ASCII letters, digits and `-` (no `_`, which
/// separates the parts of an evidence name, and nothing a path could be built from).
pub(crate) fn is_valid_label(s: &str) -> bool {
    (1..=64).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The evidence name of a step: `diff_<taskId>_<stepId>_<ms>`.
pub(crate) fn step_evidence_id(task_id: &str, step_id: &str, ms: u64) -> String {
    format!("diff_{task_id}_{step_id}_{ms}")
}

/// Whether `id` is an evidence name [`step_evidence_id`] makes.
fn is_valid_step_evidence_id(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("diff_") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('_').collect();
    matches!(parts.as_slice(), [t, s, ms]
        if is_valid_label(t) && is_valid_label(s)
            && !ms.is_empty() && ms.len() <= 20 && ms.bytes().all(|b| b.is_ascii_digit()))
}

impl StoredPatch {
    /// The id its evidence files are named by.
    pub(crate) fn evidence_id(&self) -> &str {
        self.evidence_id.as_deref().unwrap_or(&self.patch_id)
    }
}

/// The id of a proposal made at `ms`: `patch_<ms>_<hash8>`, `hash8` the first 8 hex digits of a
/// SHA-256 over `ms`, the patch text, the base states and the summary (each length-prefixed, so
/// no two inputs encode alike). Everything a reviewer is shown follows from these: the diff is
/// the patch text planned on files with these bases. Two proposals of the same text on the same
/// files in the same millisecond get the same id, and are the same proposal.
pub(crate) fn patch_id(
    ms: u64,
    patch_text: &str,
    base_shas: &BTreeMap<String, Option<String>>,
    summary: &str,
) -> String {
    fn field(h: &mut Sha256, bytes: &[u8]) {
        h.update(u64::try_from(bytes.len()).unwrap_or(u64::MAX).to_le_bytes());
        h.update(bytes);
    }
    let mut h = Sha256::new();
    h.update(ms.to_le_bytes());
    field(&mut h, patch_text.as_bytes());
    h.update(
        u64::try_from(base_shas.len())
            .unwrap_or(u64::MAX)
            .to_le_bytes(),
    );
    for (path, sha) in base_shas {
        field(&mut h, path.as_bytes());
        match sha {
            Some(s) => field(&mut h, s.as_bytes()),
            // Distinct from every `Some`: a sha is never 2^64 - 1 bytes long.
            None => h.update(u64::MAX.to_le_bytes()),
        }
    }
    field(&mut h, summary.as_bytes());
    let hash8: String = h
        .finalize()
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("patch_{ms}_{hash8}")
}

impl StoredPatch {
    /// Refuse (`tampered_state`, naming `file`) a stored patch that is not the proposal `id`:
    /// another format version, another id, a hash that does not cover its content, a sha that is
    /// not one, or a path that does not resolve inside the workspace outside the protected
    /// directories.
    fn verify(&self, ws: &Workspace, id: &str, file: &str) -> Result<(), ToolError> {
        if self.version != STORE_VERSION {
            return Err(tampered(
                file,
                format!(
                    "the stored proposal has format version {} but this lspedit reads version {STORE_VERSION}; call propose_edit again",
                    self.version
                ),
            ));
        }
        let expected = patch_id(id_ms(id), &self.patch_text, &self.base_shas, &self.summary);
        if self.patch_id != id || expected != id {
            return Err(tampered(
                file,
                "the stored proposal does not match its id: it was changed after it was proposed (and reviewed); nothing was applied. Call propose_edit again and review the new diff",
            ));
        }
        if self.step_id.as_deref().is_some_and(|s| !is_valid_label(s))
            || self
                .evidence_id
                .as_deref()
                .is_some_and(|e| !is_valid_step_evidence_id(e))
        {
            return Err(tampered(
                file,
                "the stored step id or evidence name is not one lspedit makes",
            ));
        }
        for (path, sha) in &self.base_shas {
            stored_path(ws, file, path)?;
            if !is_valid_sha(sha.as_deref()) {
                return Err(tampered(
                    file,
                    format!("the base_sha of `{path}` is not a sha"),
                ));
            }
        }
        for f in &self.files {
            for p in std::iter::once(&f.path).chain(&f.new_path) {
                stored_path(ws, file, p)?;
            }
            if !is_valid_sha(f.base_sha.as_deref()) || !is_valid_sha(f.new_sha.as_deref()) {
                return Err(tampered(
                    file,
                    format!("a sha of `{}` is not a sha", f.path),
                ));
            }
        }
        Ok(())
    }
}

/// The store.
#[derive(Debug, Clone)]
pub(crate) struct PatchStore {
    layout: Layout,
    max_patches: usize,
    max_bytes: u64,
}

impl PatchStore {
    pub fn new(layout: &Layout, max_patches: usize, max_bytes: u64) -> PatchStore {
        PatchStore {
            layout: layout.clone(),
            max_patches,
            max_bytes,
        }
    }

    /// The file of `id`, which callers have checked with `is_valid_id("patch", id)`.
    fn path(&self, id: &str) -> PathBuf {
        self.layout.patches.join(format!("{id}.json"))
    }

    /// Whether something is stored under `id` (checked without creating or following anything:
    /// a symlink counts, so that loading it refuses it instead of calling it unknown).
    pub fn exists(&self, id: &str) -> bool {
        is_valid_id("patch", id) && std::fs::symlink_metadata(self.path(id)).is_ok()
    }

    pub fn save(&self, patch: &StoredPatch) -> io::Result<()> {
        self.layout.ensure_dir(&self.layout.patches)?;
        write_json_atomic(&self.path(&patch.patch_id), patch)?;
        evict_oldest(
            &self.layout.patches,
            &["patch_"],
            self.max_patches,
            Some(self.max_bytes),
            &format!("{}.json", patch.patch_id),
            str::to_string,
        );
        Ok(())
    }

    /// The proposal `id`, verified (see [`StoredPatch::verify`]): `patch_not_found` when nothing
    /// is stored under it, `tampered_state` when what is stored is not that proposal.
    pub fn load(&self, ws: &Workspace, id: &str) -> Result<StoredPatch, ToolError> {
        if !is_valid_id("patch", id) {
            return Err(not_found(id));
        }
        let path = self.path(id);
        let file = self.layout.rel(&path);
        let p: StoredPatch = read_json(&path, &file).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                not_found(id)
            } else {
                state_error(&file, "reading the stored patch", &e)
            }
        })?;
        p.verify(ws, id, &file)?;
        Ok(p)
    }
}

/// `patch_not_found` for `id`.
pub(crate) fn not_found(id: &str) -> ToolError {
    ToolError::new(Reason::PatchNotFound, None, not_found_text(id))
}

/// What an unknown patch id reads as.
pub(crate) fn not_found_text(id: &str) -> String {
    format!("Patch '{id}' not found; call propose_edit again to get a patch id to apply")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_covers_text_bases_and_summary() {
        let bases: BTreeMap<String, Option<String>> =
            [("a.txt".to_string(), Some("0123456789ab".to_string()))].into();
        let id = patch_id(42, "text", &bases, "summary");
        assert!(is_valid_id("patch", &id), "{id}");
        assert!(id.starts_with("patch_42_"), "{id}");
        assert_eq!(id, patch_id(42, "text", &bases, "summary"));
        let mut other = bases.clone();
        other.insert("a.txt".into(), None);
        for changed in [
            patch_id(43, "text", &bases, "summary"),
            patch_id(42, "text2", &bases, "summary"),
            patch_id(42, "text", &other, "summary"),
            patch_id(42, "text", &BTreeMap::new(), "summary"),
            patch_id(42, "text", &bases, "summary!"),
        ] {
            assert_ne!(changed, id);
        }
    }
}
