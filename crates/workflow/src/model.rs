//! The workflow's shared data: what a proposal says about each file, its statistics, and the
//! validation pipeline's stage reports. Plain types every step reads (propose, store, plan,
//! evidence, apply), kept here so those modules depend on this one and never on each other.

use std::collections::BTreeSet;

use lspedit_write::Reason;
use serde::{Deserialize, Serialize};

// Stored under `.lspedit/` and sent as it is in the MCP server's structured output (`kind`),
// hence its schema under the `schema` feature. The doc line below is the schema's description.
/// What a proposed change does to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Create,
    Modify,
    Delete,
    Rename,
}

/// Why a file of a proposal would be refused (the rest can still apply per file).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileProblem {
    /// Stored as its code (`hunk_mismatch`, ...); a stored code this build does not know makes
    /// the stored proposal `tampered_state`.
    pub reason: Reason,
    pub message: String,
}

/// One file of a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposedFile {
    /// Workspace-relative path (the source path of a rename).
    pub path: String,
    /// The destination of a rename.
    pub new_path: Option<String>,
    pub kind: ChangeKind,
    /// sha of `path` when proposed; `None`: it did not exist.
    pub base_sha: Option<String>,
    /// sha after the change; `None` for a deletion (or a refused file).
    pub new_sha: Option<String>,
    pub added: usize,
    pub removed: usize,
    /// Replacements (regex) or changed hunks (patch) in this file.
    pub changes: usize,
    /// Set when this file would be refused.
    pub problem: Option<FileProblem>,
}

/// Statistics of a proposal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposeStats {
    /// Regex: text files searched. Patch: file sections.
    pub files_scanned: usize,
    /// Files the proposal changes.
    pub files_matched: usize,
    /// Regex: replacements. Patch: changed hunks (a create, delete or rename counts one).
    pub total_changes: usize,
    /// Regex: files in scope not searched (binary, not UTF-8, too large, or a replacement a
    /// diff cannot carry exactly).
    pub files_skipped: usize,
}

/// Every path `files` would change, sorted (both ends of a rename); refused files left out.
pub(crate) fn affected(files: &[ProposedFile]) -> Vec<String> {
    let set: BTreeSet<String> = files
        .iter()
        .filter(|f| f.problem.is_none())
        .flat_map(|f| std::iter::once(f.path.clone()).chain(f.new_path.clone()))
        .collect();
    set.into_iter().collect()
}

/// A stage of the validation pipeline. Stored (evidence manifests, stored proposals) as its
/// snake_case code: `parse`, `safety`, `sha_match`, `scope`, `empty`, `stale`, `hunk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The patch text parses (or the regex compiles).
    Parse,
    /// Every path stays inside the workspace and off protected paths.
    Safety,
    /// The files are at the `base_sha` the caller gave.
    ShaMatch,
    /// The change stays within the apply plan's limits.
    Scope,
    /// The change changes something.
    Empty,
    /// No file changed since the proposal.
    Stale,
    /// Every hunk (or replacement) applies.
    Hunk,
}

/// The stages of the validation pipeline, in the order they run and are reported.
pub const STAGES: [Stage; 7] = [
    Stage::Parse,
    Stage::Safety,
    Stage::ShaMatch,
    Stage::Scope,
    Stage::Empty,
    Stage::Stale,
    Stage::Hunk,
];

/// The verdict of one stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageStatus {
    Pass,
    Fail,
    Skipped,
}

/// One stage of the pipeline report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StageReport {
    pub stage: Stage,
    pub status: StageStatus,
    pub detail: String,
}

/// Collects stage verdicts in any order and reports them in [`STAGES`] order, every stage that
/// was never reached marked skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Pipeline {
    stages: Vec<StageReport>,
}

impl Pipeline {
    pub fn from_reports(stages: &[StageReport]) -> Pipeline {
        Pipeline {
            stages: stages.to_vec(),
        }
    }

    pub fn set(&mut self, stage: Stage, status: StageStatus, detail: impl Into<String>) {
        let report = StageReport {
            stage,
            status,
            detail: detail.into(),
        };
        match self.stages.iter_mut().find(|s| s.stage == stage) {
            Some(s) => *s = report,
            None => self.stages.push(report),
        }
    }

    pub fn pass(&mut self, stage: Stage, detail: impl Into<String>) {
        self.set(stage, StageStatus::Pass, detail);
    }

    pub fn fail(&mut self, stage: Stage, detail: impl Into<String>) {
        self.set(stage, StageStatus::Fail, detail);
    }

    pub fn skip(&mut self, stage: Stage, detail: impl Into<String>) {
        self.set(stage, StageStatus::Skipped, detail);
    }

    pub fn reports(&self) -> Vec<StageReport> {
        STAGES
            .iter()
            .map(|&stage| {
                self.stages
                    .iter()
                    .find(|s| s.stage == stage)
                    .cloned()
                    .unwrap_or_else(|| StageReport {
                        stage,
                        status: StageStatus::Skipped,
                        detail: "not reached".to_string(),
                    })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipeline_reports_every_stage_in_order() {
        let mut p = Pipeline::default();
        p.fail(Stage::Hunk, "b.txt: hunk_mismatch");
        p.pass(Stage::Parse, "unified diff");
        let r = p.reports();
        let names: Vec<Stage> = r.iter().map(|s| s.stage).collect();
        assert_eq!(names, STAGES);
        assert_eq!(r[0].status, StageStatus::Pass);
        assert_eq!(r[1].status, StageStatus::Skipped);
        assert_eq!(r[6].status, StageStatus::Fail);
        assert_eq!(
            serde_json::to_value(&r[6]).unwrap()["status"],
            serde_json::json!("fail")
        );
    }

    // The stage codes are stored under `.lspedit/` and read by other processes: they must not
    // change with the enum's variant names.
    #[test]
    fn stages_serialize_to_their_stored_codes() {
        let codes: Vec<serde_json::Value> = STAGES
            .iter()
            .map(|s| serde_json::to_value(s).unwrap())
            .collect();
        assert_eq!(
            codes,
            [
                "parse",
                "safety",
                "sha_match",
                "scope",
                "empty",
                "stale",
                "hunk"
            ]
            .map(serde_json::Value::from)
        );
        for s in STAGES {
            let back: Stage = serde_json::from_value(serde_json::to_value(s).unwrap()).unwrap();
            assert_eq!(back, s);
        }
        assert!(serde_json::from_value::<Stage>(serde_json::json!("lint")).is_err());
    }
}
