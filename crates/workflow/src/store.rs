//! The patch store: one JSON file per proposed patch under `.lspedit/patches/`, written
//! atomically so another process can apply it, capped in count and bytes (oldest evicted).
//!
//! A stored patch is bound to what was reviewed: its id is a keyed MAC ([`patch_id`], key in
//! `key.rs`, `docs/ids.md`) over every stored field (the patch text that decides what gets
//! written, the base states it was planned against, the files, the summary shown with it, the
//! step) and bound to the workspace it was proposed in (`key.rs`), and loading checks it. The
//! reviewable diff is not stored at all: it is planned again
//! from the patch text whenever it is shown. So a patch text changed after review no longer
//! matches its id and is refused (`tampered_state`) instead of being applied under a harmless
//! diff, and without the key no one can make an id that matches the changed text.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::key::{KeySource, StateKey};
use super::model::{ProposeStats, ProposedFile, StageReport};
use super::util::{
    ID_HEX, Layout, evict_oldest, id_ms, is_valid_id, is_valid_sha, read_json, short_id_note,
    state_error, stored_path, tampered, write_json_atomic,
};
use lspedit_tools::front::{Step, say, say_first};
use lspedit_write::Workspace;
use lspedit_write::{Reason, ToolError};

/// Format version of a stored patch; a file with another version is refused. Version 2 bound
/// the id to the patch text and stored no diff; version 3 makes the id a keyed MAC of it all;
/// version 4 binds that MAC to the workspace (a version 3 id verifies in any workspace of the
/// person's, so it is refused like any other version).
pub(crate) const STORE_VERSION: u32 = 4;

/// What a patch id's MAC is computed under (a checkpoint's is another). Named for the store
/// version, so a MAC of an older version never verifies as one of this.
const PATCH_DOMAIN: &str = "lspedit/patch/v4";

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

/// What a patch id signs: the millisecond in the id, then the stored patch as JSON with an
/// empty `patch_id` (serialized from these types, whose field order is fixed and whose maps
/// are sorted, so a stored file read back gives the same bytes).
fn signed_bytes(ms: u64, patch: &StoredPatch) -> Vec<u8> {
    let unsigned = StoredPatch {
        patch_id: String::new(),
        ..patch.clone()
    };
    let mut bytes = ms.to_le_bytes().to_vec();
    // Serializing these plain types cannot fail; an empty body would only fail to verify.
    bytes.extend(serde_json::to_vec(&unsigned).unwrap_or_default());
    bytes
}

/// The id of `patch` (its `patch_id` aside), made at `ms`: `patch_<ms>_<tag>`, `tag` the first
/// 128 bits (32 hex digits) of an HMAC-SHA256 under `key`, bound to its workspace, over
/// everything stored ([`signed_bytes`]). The same proposal copied into another workspace's
/// store does not verify there. Everything a reviewer is shown and everything apply writes follows from
/// these: the diff is the patch text planned on files with these bases. Two proposals of the
/// same text on the same files in the same millisecond get the same id, and are the same
/// proposal.
pub(crate) fn patch_id(key: &StateKey, ms: u64, patch: &StoredPatch) -> String {
    let mac = key.mac_hex(PATCH_DOMAIN, &signed_bytes(ms, patch));
    format!("patch_{ms}_{}", &mac[..ID_HEX])
}

impl StoredPatch {
    /// Refuse (`tampered_state`, naming `file`) a stored patch that is not the proposal `id`:
    /// another format version, a sha that is not one, a path that does not resolve inside the
    /// workspace outside the protected directories, another id, or an id that is not the MAC of
    /// its content under this user's key in this workspace.
    fn verify(
        &self,
        ws: &Workspace,
        key: &StateKey,
        id: &str,
        file: &str,
    ) -> Result<(), ToolError> {
        if self.version != STORE_VERSION {
            return Err(tampered(
                file,
                format!(
                    "the stored proposal has format version {} but this lspedit reads version {STORE_VERSION}; {} again",
                    self.version,
                    say(&Step::Propose)
                ),
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
        // Last, so a malformed file is named for what is wrong with it; nothing above acts on it.
        let tag = id.rsplit('_').next().unwrap_or_default();
        if self.patch_id != id
            || self.created_ms != id_ms(id)
            || !key.verify_hex(PATCH_DOMAIN, &signed_bytes(id_ms(id), self), tag)
        {
            return Err(tampered(
                file,
                format!(
                    "the stored proposal `{id}` does not match its id: it was changed after it was proposed (and reviewed), signed with another key than this user's, or proposed in another workspace (a proposal is bound to the workspace root it was made in, and one copied from elsewhere or made before the workspace moved is refused); nothing was applied. {} again and review the new diff",
                    say_first(&Step::Propose)
                ),
            ));
        }
        Ok(())
    }
}

/// The store.
#[derive(Debug, Clone)]
pub(crate) struct PatchStore {
    layout: Layout,
    key: Arc<KeySource>,
    max_patches: usize,
    max_bytes: u64,
}

impl PatchStore {
    pub fn new(
        layout: &Layout,
        key: Arc<KeySource>,
        max_patches: usize,
        max_bytes: u64,
    ) -> PatchStore {
        PatchStore {
            layout: layout.clone(),
            key,
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

    /// Sign `patch` (its id: [`patch_id`]) and store it.
    pub fn save(&self, patch: &mut StoredPatch) -> Result<(), ToolError> {
        patch.patch_id = patch_id(&self.key.key()?, patch.created_ms, patch);
        self.write(patch)
            .map_err(|e| state_error(".lspedit/patches", "storing the patch", &e))
    }

    fn write(&self, patch: &StoredPatch) -> io::Result<()> {
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
        p.verify(ws, &self.key.key()?, id, &file)?;
        Ok(p)
    }
}

/// `patch_not_found` for `id`.
pub(crate) fn not_found(id: &str) -> ToolError {
    ToolError::new(Reason::PatchNotFound, None, not_found_text(id))
}

/// What an unknown patch id reads as (saying so when it is an id of fewer bits than lspedit's).
pub(crate) fn not_found_text(id: &str) -> String {
    format!(
        "Patch '{id}' not found{}; {} again to get a patch id to apply",
        short_id_note("patch", id).unwrap_or_default(),
        say(&Step::Propose)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(text: &str) -> StoredPatch {
        StoredPatch {
            version: STORE_VERSION,
            patch_id: String::new(),
            created_ms: 42,
            source: "patch".into(),
            patch_text: text.into(),
            files: Vec::new(),
            base_shas: [("a.txt".to_string(), Some("0123456789ab".to_string()))].into(),
            stats: ProposeStats::default(),
            summary: "summary".into(),
            stages: Vec::new(),
            step_id: None,
            evidence_id: None,
        }
    }

    #[test]
    fn the_id_is_a_128_bit_mac_of_everything_stored() {
        let tmp = tempfile::tempdir().unwrap();
        let key = KeySource::new(Some(tmp.path().join("k")), &tmp.path().join("ws"))
            .key()
            .unwrap();
        let p = stored("text");
        let id = patch_id(&key, 42, &p);
        assert!(is_valid_id("patch", &id), "{id}");
        assert!(id.starts_with("patch_42_"), "{id}");
        assert_eq!(id, patch_id(&key, 42, &p));
        let with_id = StoredPatch {
            patch_id: id.clone(),
            ..p.clone()
        };
        assert_eq!(
            id,
            patch_id(&key, 42, &with_id),
            "the id field is not signed"
        );
        let mut changed = vec![patch_id(&key, 43, &p), patch_id(&key, 42, &stored("text2"))];
        for f in [
            |p: &mut StoredPatch| {
                p.base_shas
                    .insert("a.txt".into(), None)
                    .map(drop)
                    .unwrap_or(())
            },
            |p: &mut StoredPatch| p.summary.push('!'),
            |p: &mut StoredPatch| p.source = "regex".into(),
            |p: &mut StoredPatch| p.step_id = Some("s".into()),
            |p: &mut StoredPatch| p.stats.total_changes = 7,
        ] {
            let mut q = p.clone();
            f(&mut q);
            changed.push(patch_id(&key, 42, &q));
        }
        for c in changed {
            assert_ne!(c, id);
        }
    }

    /// Two workspaces `a` and `b` under one temp dir, and one key dir beside them.
    fn two_workspaces() -> (tempfile::TempDir, [(Workspace, StateKey); 2]) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = |name: &str| {
            std::fs::create_dir(tmp.path().join(name)).unwrap();
            let ws = Workspace::open(tmp.path().join(name)).unwrap();
            let key = KeySource::new(Some(tmp.path().join("k")), ws.root())
                .key()
                .unwrap();
            (ws, key)
        };
        let pair = [ws("a"), ws("b")];
        (tmp, pair)
    }

    // Regression (issue 44): a proposal signed in one workspace verified in any other of the
    // person's once copied into its store.
    #[test]
    fn a_proposal_verifies_in_its_workspace_only() {
        let (_tmp, [(ws_a, key_a), (ws_b, key_b)]) = two_workspaces();
        let mut p = stored("text");
        p.patch_id = patch_id(&key_a, 42, &p);
        let id = p.patch_id.clone();
        p.verify(&ws_a, &key_a, &id, "f.json").unwrap();
        assert_ne!(
            id,
            patch_id(&key_b, 42, &p),
            "the id depends on the workspace"
        );
        let e = p.verify(&ws_b, &key_b, &id, "f.json").unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState, "{e}");
        assert_eq!(e.path.as_deref(), Some("f.json"));
        assert!(e.message.contains("another workspace"), "{e}");
    }

    // A proposal stored before ids were bound to their workspace (store version 3, its id a MAC
    // under the key alone) is refused, as is its unbound MAC relabelled as this version.
    #[test]
    fn a_proposal_signed_unbound_is_refused() {
        let (_tmp, [(ws, key), _]) = two_workspaces();
        let legacy = |version: u32, domain: &str| {
            let mut p = stored("text");
            p.version = version;
            let mac = key.unbound_mac_hex(domain, &signed_bytes(42, &p));
            p.patch_id = format!("patch_42_{}", &mac[..ID_HEX]);
            p
        };
        let v3 = legacy(3, "lspedit/patch/v3");
        let e = v3.verify(&ws, &key, &v3.patch_id, "f.json").unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState, "{e}");
        assert!(e.message.contains("format version 3"), "{e}");
        for domain in ["lspedit/patch/v3", PATCH_DOMAIN] {
            let p = legacy(STORE_VERSION, domain);
            let e = p.verify(&ws, &key, &p.patch_id, "f.json").unwrap_err();
            assert_eq!(e.reason, Reason::TamperedState, "{domain}: {e}");
            assert!(e.message.contains("does not match its id"), "{e}");
        }
    }
}
