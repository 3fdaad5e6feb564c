//! The event stream of the safe-edit workflow (docs/design.md §9, §10): typed events, the
//! [`EventSink`] trait they go through, and the sinks shipped here (a JSONL log, an in-memory
//! recorder, a fan-out).
//!
//! An event's JSON form is `{"event": "<name>", "ts_ms": <unix ms>, ...fields}`; the names are
//! part of the contract (`diff_proposed`, `checkpoint_created`, ...). Sinks must not fail the
//! operation they observe: a sink that cannot write logs the error and drops the event.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use lspedit_write::Reason;
use serde_json::{Map, Value, json};

/// One event of the workflow. Field names are those of the JSON form.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Event {
    ToolStart {
        tool: String,
    },
    /// `status` on the wire: `"failed"` when `is_error`, `"success"` otherwise.
    ToolEnd {
        tool: String,
        is_error: bool,
    },
    /// An apply began working on a step (a stored patch; `step_id` is the caller's, or the
    /// patch id when the caller gave none).
    StepStarted {
        step_id: String,
        diff_id: String,
    },
    /// The step entered a stage.
    StageChanged {
        step_id: String,
        stage: StepStage,
    },
    /// The step's diff was written (`status`: `applied` or `partially_applied`).
    StepCompleted {
        step_id: String,
        diff_id: String,
        status: StepStatus,
    },
    DiffProposed {
        diff_id: String,
        files_changed: Vec<String>,
        summary: String,
        evidence_id: String,
    },
    ApprovalRequested {
        approval_id: String,
        /// `apply_diff`, the only approval type the workflow requests; a string because it is
        /// a wire value that other approval types may join.
        kind: String,
        diff_id: String,
    },
    ApprovalResolved {
        approval_id: String,
        approved: bool,
    },
    CheckpointCreated {
        checkpoint_id: String,
        files: Vec<String>,
    },
    DiffApplied {
        diff_id: String,
        files_changed: Vec<String>,
        evidence_id: String,
    },
    FailureDetected {
        reason: Reason,
        details: FailureDetails,
    },
    /// `diff_id` names the diff the pause is about (always set for `diff_rejected`).
    ExecutionPaused {
        reason: PauseReason,
        diff_id: Option<String>,
    },
    // The executor's events: names and fields as seed 003 spells them (`docs/events.md`,
    // "Executor"); the wire names are in `fields`.
    /// `shouldSplit`, `targetFileCount`, `estimatedComplexity` on the wire.
    PreflightComplete {
        target_files: Vec<String>,
        should_split: bool,
        reason: String,
        /// `low`, `medium` or `high`.
        estimated_complexity: String,
        target_file_count: usize,
        total_lines: usize,
    },
    /// `file`, `reason`, `stopReason`, `partialLength` on the wire.
    TruncationDetected {
        /// The file(s) of the call, joined by `, `.
        file: String,
        reason: String,
        stop_reason: Option<String>,
        partial_length: usize,
    },
    /// `files`, `file_count`, `reason` on the wire.
    EditSplitTriggered {
        files: Vec<String>,
        reason: String,
    },
    /// `file`, `attempt`, `chunk_index`, `total_chunks`, `progress` on the wire.
    EditChunkStarted {
        file: String,
        attempt: u32,
        progress: ChunkProgress,
    },
    EditChunkCompleted {
        file: String,
        attempt: u32,
        progress: ChunkProgress,
    },
    EditChunkFailed {
        file: String,
        attempt: u32,
        reason: String,
        progress: ChunkProgress,
    },
    /// `reason`, `progress` on the wire: the share of the step's files finished when it paused.
    EditStepPaused {
        reason: String,
        progress: f64,
    },
}

/// How a completed step's diff was written (`step_completed`'s `status`, the closed list of
/// `docs/events.schema.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepStatus {
    /// Every file was written.
    Applied,
    /// Per-file atomicity: some files were written, others refused.
    PartiallyApplied,
}

impl StepStatus {
    /// Every status, in the order the schema lists them.
    pub const ALL: &'static [StepStatus] = &[StepStatus::Applied, StepStatus::PartiallyApplied];

    /// `applied`, `partially_applied`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Applied => "applied",
            StepStatus::PartiallyApplied => "partially_applied",
        }
    }
}

/// The stage a step entered (`stage_changed`'s `stage`, the closed list of
/// `docs/events.schema.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepStage {
    /// The diff is reviewed, approved and written.
    Edit,
}

impl StepStage {
    /// Every stage, in the order the schema lists them.
    pub const ALL: &'static [StepStage] = &[StepStage::Edit];

    /// `edit`.
    pub fn as_str(self) -> &'static str {
        match self {
            StepStage::Edit => "edit",
        }
    }
}

/// Why the workflow paused (`execution_paused`'s `reason`, the closed list of
/// `docs/events.schema.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PauseReason {
    /// A refusal or failure: a person decides what next.
    NeedsUserDecision,
    /// The approver said no.
    DiffRejected,
}

impl PauseReason {
    /// Every reason, in the order the schema lists them.
    pub const ALL: &'static [PauseReason] =
        &[PauseReason::NeedsUserDecision, PauseReason::DiffRejected];

    /// `needs_user_decision`, `diff_rejected`.
    pub fn as_str(self) -> &'static str {
        match self {
            PauseReason::NeedsUserDecision => "needs_user_decision",
            PauseReason::DiffRejected => "diff_rejected",
        }
    }
}

/// The structured `details` of a `failure_detected` event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FailureDetails {
    /// The refusal as the model reads it.
    pub message: String,
    /// For `scope_violation` from a size limit: which limit and the numbers.
    pub scope: Option<ScopeBreach>,
    /// For a commit that failed after writing: whether restoring the written files succeeded.
    pub rollback: Option<RollbackStatus>,
}

impl FailureDetails {
    pub fn message(message: impl Into<String>) -> FailureDetails {
        FailureDetails {
            message: message.into(),
            ..FailureDetails::default()
        }
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("message".into(), Value::from(self.message.as_str()));
        if let Some(s) = &self.scope {
            m.insert("type".into(), Value::from(s.limit_kind.as_str()));
            m.insert("limit".into(), json!(s.limit));
            m.insert("actual".into(), json!(s.actual));
        }
        if let Some(r) = self.rollback {
            m.insert("rollback".into(), Value::from(r.as_str()));
        }
        Value::Object(m)
    }
}

/// Which size limit of an apply plan was exceeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    MaxFiles,
    MaxChangedLines,
    /// The plan's timeout, in milliseconds (limit and time taken).
    TimeoutMs,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LimitKind::MaxFiles => "max_files",
            LimitKind::MaxChangedLines => "max_changed_lines",
            LimitKind::TimeoutMs => "timeout_ms",
        }
    }
}

/// A size limit exceeded: the limit and the patch's actual count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScopeBreach {
    pub limit_kind: LimitKind,
    pub limit: usize,
    pub actual: usize,
}

/// Whether a rollback restored every written file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RollbackStatus {
    Success,
    Failed,
}

impl RollbackStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RollbackStatus::Success => "success",
            RollbackStatus::Failed => "failed",
        }
    }
}

/// Where a chunk stands in its step: `chunk_index` (1-based) of `total_chunks`, and `progress`,
/// the share of the step's files finished (done or needing no change) when the event was sent,
/// from 0 to 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkProgress {
    pub chunk_index: usize,
    pub total_chunks: usize,
    pub progress: f64,
}

impl Event {
    /// The event's name on the wire (`tool_start`, `diff_proposed`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Event::ToolStart { .. } => "tool_start",
            Event::ToolEnd { .. } => "tool_end",
            Event::StepStarted { .. } => "step_started",
            Event::StageChanged { .. } => "stage_changed",
            Event::StepCompleted { .. } => "step_completed",
            Event::DiffProposed { .. } => "diff_proposed",
            Event::ApprovalRequested { .. } => "approval_requested",
            Event::ApprovalResolved { .. } => "approval_resolved",
            Event::CheckpointCreated { .. } => "checkpoint_created",
            Event::DiffApplied { .. } => "diff_applied",
            Event::FailureDetected { .. } => "failure_detected",
            Event::ExecutionPaused { .. } => "execution_paused",
            Event::PreflightComplete { .. } => "preflight_complete",
            Event::TruncationDetected { .. } => "truncation_detected",
            Event::EditSplitTriggered { .. } => "edit_split_triggered",
            Event::EditChunkStarted { .. } => "edit_chunk_started",
            Event::EditChunkCompleted { .. } => "edit_chunk_completed",
            Event::EditChunkFailed { .. } => "edit_chunk_failed",
            Event::EditStepPaused { .. } => "edit_step_paused",
        }
    }

    /// The event's fields as a JSON object, without `event` and `ts_ms`.
    pub fn fields(&self) -> Map<String, Value> {
        let v = match self {
            Event::ToolStart { tool } => json!({ "tool": tool }),
            Event::ToolEnd { tool, is_error } => json!({
                "tool": tool,
                "is_error": is_error,
                "status": if *is_error { "failed" } else { "success" },
            }),
            Event::StepStarted { step_id, diff_id } => {
                json!({ "step_id": step_id, "diff_id": diff_id })
            }
            Event::StageChanged { step_id, stage } => {
                json!({ "step_id": step_id, "stage": stage.as_str() })
            }
            Event::StepCompleted {
                step_id,
                diff_id,
                status,
            } => json!({ "step_id": step_id, "diff_id": diff_id, "status": status.as_str() }),
            Event::DiffProposed {
                diff_id,
                files_changed,
                summary,
                evidence_id,
            } => json!({
                "diff_id": diff_id,
                "files_changed": files_changed,
                "summary": summary,
                "evidence_id": evidence_id,
            }),
            Event::ApprovalRequested {
                approval_id,
                kind,
                diff_id,
            } => json!({ "approval_id": approval_id, "type": kind, "diff_id": diff_id }),
            Event::ApprovalResolved {
                approval_id,
                approved,
            } => json!({ "approval_id": approval_id, "approved": approved }),
            Event::CheckpointCreated {
                checkpoint_id,
                files,
            } => json!({ "checkpoint_id": checkpoint_id, "files": files }),
            Event::DiffApplied {
                diff_id,
                files_changed,
                evidence_id,
            } => json!({
                "diff_id": diff_id,
                "files_changed": files_changed,
                "evidence_id": evidence_id,
            }),
            Event::FailureDetected { reason, details } => {
                json!({ "reason": reason.as_str(), "details": details.to_json() })
            }
            Event::ExecutionPaused { reason, diff_id } => {
                let mut v = json!({ "reason": reason.as_str() });
                if let Some(id) = diff_id {
                    v["diff_id"] = Value::from(id.as_str());
                }
                v
            }
            Event::EditStepPaused { reason, progress } => {
                json!({ "reason": reason, "progress": progress })
            }
            Event::PreflightComplete {
                target_files,
                should_split,
                reason,
                estimated_complexity,
                target_file_count,
                total_lines,
            } => json!({
                "target_files": target_files,
                "shouldSplit": should_split,
                "reason": reason,
                "estimatedComplexity": estimated_complexity,
                "targetFileCount": target_file_count,
                "total_lines": total_lines,
            }),
            Event::TruncationDetected {
                file,
                reason,
                stop_reason,
                partial_length,
            } => {
                // Absent rather than null: the documented schemas use no type unions.
                let mut v =
                    json!({ "file": file, "reason": reason, "partialLength": partial_length });
                if let Some(s) = stop_reason {
                    v["stopReason"] = Value::from(s.as_str());
                }
                v
            }
            Event::EditSplitTriggered { files, reason } => {
                json!({ "files": files, "file_count": files.len(), "reason": reason })
            }
            Event::EditChunkStarted {
                file,
                attempt,
                progress,
            }
            | Event::EditChunkCompleted {
                file,
                attempt,
                progress,
            } => json!({
                "file": file,
                "attempt": attempt,
                "chunk_index": progress.chunk_index,
                "total_chunks": progress.total_chunks,
                "progress": progress.progress,
            }),
            Event::EditChunkFailed {
                file,
                attempt,
                reason,
                progress,
            } => json!({
                "file": file,
                "attempt": attempt,
                "reason": reason,
                "chunk_index": progress.chunk_index,
                "total_chunks": progress.total_chunks,
                "progress": progress.progress,
            }),
        };
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    /// The JSON form: `{"event": name, "ts_ms": ts_ms, ...fields}`.
    pub fn to_json(&self, ts_ms: u128) -> Value {
        let mut m = Map::new();
        m.insert("event".into(), Value::from(self.name()));
        m.insert("ts_ms".into(), json!(ts_ms));
        m.extend(self.fields());
        Value::Object(m)
    }
}

/// Milliseconds since the Unix epoch (0 if the clock is before it).
pub fn unix_ms() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis())
}

/// Where events go. Implementations must be cheap and must not panic; they cannot fail the
/// operation that emits.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: &Event);
}

/// Drops every event.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullSink;

impl EventSink for NullSink {
    fn emit(&self, _event: &Event) {}
}

/// Keeps every event in memory, in order (for tests and embedders that poll).
#[derive(Debug, Default)]
pub struct RecordingSink {
    events: Mutex<Vec<Event>>,
}

impl RecordingSink {
    pub fn new() -> RecordingSink {
        RecordingSink::default()
    }

    /// A copy of the events so far.
    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The names of the events so far, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.events().iter().map(Event::name).collect()
    }
}

impl EventSink for RecordingSink {
    fn emit(&self, event: &Event) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event.clone());
    }
}

/// Appends one JSON object per line to a file (`.lspedit/events.jsonl` by default), creating
/// it and its parent directories on first use. Each line is written with a single `write_all`
/// on a file opened in append mode, so lines from several processes do not interleave.
#[derive(Debug)]
pub struct JsonlSink {
    path: PathBuf,
    file: Mutex<Option<File>>,
}

impl JsonlSink {
    pub fn new(path: impl Into<PathBuf>) -> JsonlSink {
        JsonlSink {
            path: path.into(),
            file: Mutex::new(None),
        }
    }

    /// The log of a workspace: `<root>/.lspedit/events.jsonl`.
    pub fn for_workspace(root: &Path) -> JsonlSink {
        JsonlSink::new(root.join(".lspedit").join("events.jsonl"))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open(&self) -> std::io::Result<File> {
        if let Some(parent) = self.path.parent() {
            fs::create_dir_all(parent)?;
            if parent.file_name().is_some_and(|n| n == ".lspedit") {
                ignore_in_git(parent);
            }
        }
        OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
    }
}

impl EventSink for JsonlSink {
    fn emit(&self, event: &Event) {
        let mut line = event.to_json(unix_ms()).to_string();
        line.push('\n');
        let mut guard = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        if guard.is_none() {
            match self.open() {
                Ok(f) => *guard = Some(f),
                Err(e) => {
                    tracing::warn!(path = %self.path.display(), error = %e, "event log unavailable");
                    return;
                }
            }
        }
        if let Some(f) = guard.as_mut()
            && let Err(e) = f.write_all(line.as_bytes())
        {
            tracing::warn!(path = %self.path.display(), error = %e, "event not logged");
            *guard = None;
        }
    }
}

/// Puts a `.gitignore` holding `*` into the state directory `dir` (`.lspedit`) unless one is
/// there, so lspedit's state never shows in `git status` or gets committed. Created exclusively
/// (never through a symlink, never over the person's own file); best effort: the state works
/// without it.
pub fn ignore_in_git(dir: &Path) {
    let path = dir.join(".gitignore");
    let created = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| f.write_all(b"*\n"));
    if let Err(e) = created
        && e.kind() != std::io::ErrorKind::AlreadyExists
    {
        tracing::debug!(path = %path.display(), error = %e, "no .gitignore for lspedit's state");
    }
}

/// Sends every event to each of its sinks, in order.
#[derive(Default, Clone)]
pub struct FanOut {
    sinks: Vec<Arc<dyn EventSink>>,
}

impl std::fmt::Debug for FanOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FanOut")
            .field("sinks", &self.sinks.len())
            .finish()
    }
}

impl FanOut {
    pub fn new(sinks: Vec<Arc<dyn EventSink>>) -> FanOut {
        FanOut { sinks }
    }

    pub fn push(&mut self, sink: Arc<dyn EventSink>) {
        self.sinks.push(sink);
    }
}

impl EventSink for FanOut {
    fn emit(&self, event: &Event) {
        for s in &self.sinks {
            s.emit(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_form_carries_name_and_fields() {
        let e = Event::ApprovalRequested {
            approval_id: "appr_1".into(),
            kind: "apply_diff".into(),
            diff_id: "patch_1_abcdef01abcdef01abcdef01abcdef01".into(),
        };
        let v = e.to_json(42);
        assert_eq!(v["event"], "approval_requested");
        assert_eq!(v["ts_ms"], 42);
        assert_eq!(v["type"], "apply_diff");
        assert_eq!(v["diff_id"], "patch_1_abcdef01abcdef01abcdef01abcdef01");
    }

    #[test]
    fn jsonl_sink_appends_one_line_per_event() {
        let dir = tempfile::tempdir().expect("tempdir");
        let sink = JsonlSink::for_workspace(dir.path());
        sink.emit(&Event::ToolStart {
            tool: "apply_edit".into(),
        });
        sink.emit(&Event::ExecutionPaused {
            reason: PauseReason::DiffRejected,
            diff_id: Some("patch_1_abcdef01abcdef01abcdef01abcdef01".into()),
        });
        let text = fs::read_to_string(sink.path()).expect("log written");
        let names: Vec<String> = text
            .lines()
            .map(|l| {
                let v: Value = serde_json::from_str(l).expect("each line is JSON");
                v["event"].as_str().unwrap_or_default().to_string()
            })
            .collect();
        assert_eq!(names, ["tool_start", "execution_paused"]);
    }
}
