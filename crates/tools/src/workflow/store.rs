//! The patch store: one JSON file per proposed patch under `.lspedit/patches/`, written
//! atomically so another process can apply it, capped in count and bytes (oldest evicted).

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::evidence::StageReport;
use super::propose::{ProposeStats, ProposedFile};
use super::util::{Layout, evict_oldest, read_json, write_json_atomic};

/// Format version of a stored patch; a file with another version is refused as unreadable.
pub(crate) const STORE_VERSION: u32 = 1;

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
    /// The unified diff shown for review.
    pub diff: String,
    pub files: Vec<ProposedFile>,
    /// Every path the patch reads or writes → its sha at propose time (`None`: did not exist).
    pub base_shas: BTreeMap<String, Option<String>>,
    pub stats: ProposeStats,
    pub summary: String,
    /// The propose-time pipeline verdicts; apply fills in its own stages.
    pub stages: Vec<StageReport>,
}

/// The store.
#[derive(Debug, Clone)]
pub(crate) struct PatchStore {
    dir: PathBuf,
    max_patches: usize,
    max_bytes: u64,
}

impl PatchStore {
    pub fn new(layout: &Layout, max_patches: usize, max_bytes: u64) -> PatchStore {
        PatchStore {
            dir: layout.patches.clone(),
            max_patches,
            max_bytes,
        }
    }

    fn path(&self, id: &str) -> PathBuf {
        self.dir.join(format!("{id}.json"))
    }

    /// Whether a patch is stored under `id` (a valid id; checked without creating anything).
    pub fn exists(&self, id: &str) -> bool {
        self.path(id).is_file()
    }

    pub fn save(&self, patch: &StoredPatch) -> io::Result<()> {
        write_json_atomic(&self.path(&patch.patch_id), patch)?;
        evict_oldest(
            &self.dir,
            &["patch_"],
            self.max_patches,
            Some(self.max_bytes),
            &format!("{}.json", patch.patch_id),
            str::to_string,
        );
        Ok(())
    }

    pub fn load(&self, id: &str) -> io::Result<StoredPatch> {
        let p: StoredPatch = read_json(&self.path(id))?;
        if p.version != STORE_VERSION || p.patch_id != id {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "stored patch has format version {} (expected {STORE_VERSION}) or another id",
                    p.version
                ),
            ));
        }
        Ok(p)
    }
}
