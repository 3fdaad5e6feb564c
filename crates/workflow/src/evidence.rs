//! Evidence of every proposed, applied or refused diff under `.lspedit/evidence/`: the raw diff
//! (`<id>.diff`), the validation pipeline report (`<id>.manifest.json`) and the apply result
//! (`<id>.apply.json`). Evidence is an audit trail: failing to write it is logged, never fatal.
//! It is written, never read back; `evidence/` (or `.lspedit`) being a symlink is refused like
//! every other entry of the layout, and then no evidence is written.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::model::{ProposeStats, ProposedFile, StageReport};
use super::util::{Layout, evict_oldest, write_json_atomic};
use super::validate::ValidationReport;
use crate::ApplyStatus;
use crate::excerpt::ExcerptSet;
use lspedit_write::Reason;
use lspedit_write::write_atomic_abs;

/// `<id>.manifest.json`: the pipeline report of a proposal (rewritten with the apply-time stages
/// when it is applied), its statistics and files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Manifest {
    pub evidence_id: String,
    pub patch_id: Option<String>,
    /// `propose` or `apply`: which step wrote this version of the manifest.
    pub phase: Phase,
    /// `regex` or `patch`.
    pub source: String,
    /// `proposed`, `refused`, `applied`, `partially_applied`, `rejected`.
    pub outcome: Outcome,
    pub created_ms: u64,
    pub stages: Vec<StageReport>,
    pub stats: ProposeStats,
    pub files: Vec<ProposedFile>,
}

/// Which step wrote a manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Propose,
    Apply,
}

/// How the step that wrote a manifest ended: a proposal stored or refused, or an apply's
/// [`ApplyStatus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Proposed,
    Refused,
    Applied,
    PartiallyApplied,
    Rejected,
}

impl From<ApplyStatus> for Outcome {
    fn from(s: ApplyStatus) -> Outcome {
        match s {
            ApplyStatus::Applied => Outcome::Applied,
            ApplyStatus::PartiallyApplied => Outcome::PartiallyApplied,
            ApplyStatus::Rejected => Outcome::Rejected,
            ApplyStatus::Refused => Outcome::Refused,
        }
    }
}

/// One file's line of `<id>.apply.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub applied: bool,
    pub reason: Option<Reason>,
    pub message: String,
}

/// `<id>.apply.json`: the result of an apply attempt (the latest one).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApplyRecord {
    pub patch_id: String,
    pub evidence_id: String,
    /// `applied`, `partially_applied`, `rejected`, `refused`.
    pub status: ApplyStatus,
    pub reason: Option<Reason>,
    pub message: String,
    pub atomicity: String,
    pub files: Vec<FileRecord>,
    pub checkpoint_id: Option<String>,
    pub validation: Option<ValidationReport>,
    pub rolled_back: bool,
    pub duration_ms: u64,
    pub finished_ms: u64,
}

/// The evidence store.
#[derive(Debug, Clone)]
pub(crate) struct Evidence {
    layout: Layout,
    dir: PathBuf,
    max_ids: usize,
}

fn group_of(name: &str) -> String {
    name.split('.').next().unwrap_or(name).to_string()
}

impl Evidence {
    pub fn new(layout: &Layout, max_ids: usize) -> Evidence {
        Evidence {
            layout: layout.clone(),
            dir: layout.evidence.clone(),
            max_ids,
        }
    }

    pub fn path(&self, id: &str, suffix: &str) -> PathBuf {
        self.dir.join(format!("{id}{suffix}"))
    }

    /// The patch text of a proposal (what apply parses; the diff shown is planned from it).
    pub fn write_diff(&self, id: &str, raw: &str) {
        let p = self.path(id, ".diff");
        log_failure(
            &p,
            self.layout
                .ensure_dir(&self.dir)
                .and_then(|()| write_atomic_abs(&p, raw.as_bytes())),
        );
        self.evict(id);
    }

    /// The excerpts selected as a step's context: `context_<step>_<ms>.json`.
    pub fn write_context(&self, step: &str, ms: u64, context: &ExcerptSet) {
        let id = format!("context_{step}_{ms}");
        let p = self.path(&id, ".json");
        log_failure(
            &p,
            self.layout
                .ensure_dir(&self.dir)
                .and_then(|()| write_json_atomic(&p, context)),
        );
        self.evict(&id);
    }

    pub fn write_manifest(&self, manifest: &Manifest) {
        let p = self.path(&manifest.evidence_id, ".manifest.json");
        log_failure(
            &p,
            self.layout
                .ensure_dir(&self.dir)
                .and_then(|()| write_json_atomic(&p, manifest)),
        );
    }

    pub fn write_apply(&self, record: &ApplyRecord) {
        let p = self.path(&record.evidence_id, ".apply.json");
        log_failure(
            &p,
            self.layout
                .ensure_dir(&self.dir)
                .and_then(|()| write_json_atomic(&p, record)),
        );
    }

    fn evict(&self, protect: &str) {
        if fs::symlink_metadata(&self.dir).is_ok_and(|m| m.is_dir()) {
            evict_oldest(
                &self.dir,
                &["patch_", "refused_", "diff_", "context_"],
                self.max_ids,
                None,
                protect,
                group_of,
            );
        }
    }
}

fn log_failure(path: &Path, r: std::io::Result<()>) {
    if let Err(e) = r {
        tracing::warn!(path = %path.display(), error = %e, "evidence not written");
    }
}
