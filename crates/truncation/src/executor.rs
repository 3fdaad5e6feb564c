//! The truncation-safe edit executor: preflight, one model call per file, every reply checked
//! for truncation and validated strictly, failed files retried within the ledger's caps, and
//! either a combined diff of the whole step or a pause with the reason. Nothing is written here:
//! partial output never reaches the disk, and [`apply_combined`] writes a completed step only
//! after every file planned cleanly.
//!
//! Preflight rule (documented because callers tune it): the step is split into one call per
//! file when it has more target files than [`PreflightRules::max_files_per_call`] (default 1)
//! or its target files hold more than [`PreflightRules::max_lines_per_call`] lines together
//! (default 400, "high complexity": a diff over that much text risks the output limit). A
//! single file is the smallest chunk. When the step is not split and covers several files, they
//! go in one call first; if that reply fails (truncated or invalid), the step splits by file.
//!
//! The complexity estimate ([`Complexity::estimate`], `estimatedComplexity` in the
//! `preflight_complete` event) grades the step from its file and line counts: `low` for one
//! file of at most 150 lines, `high` for more than 3 files or more than 400 lines together,
//! `medium` otherwise.
//!
//! When the task names no targets, the preflight takes them from the instruction
//! ([`file_hints`]): every word that names an existing file of the workspace.
//!
//! Events (through the [`EventSink`]): `preflight_complete`, then `edit_split_triggered` when
//! split, then per call `edit_chunk_started`, `truncation_detected` (when a signal fires),
//! `edit_chunk_completed` or `edit_chunk_failed`, and `edit_step_paused` when a cap is hit or
//! the model declines (`validation_status` `stale_context` or `cannot_edit`). A call covering
//! several files names them joined by `, ` in its chunk events. Chunk events carry
//! `chunk_index` (1-based; a file's position in the step, 1 for a combined call) of
//! `total_chunks` (the step's files once split, 1 for a combined call) and `progress`, the share
//! of the step's files finished when the event was sent.
//!
//! Each done file's diff is re-rendered by the engine from the planned result, anchored against
//! the content sent, so the combined diff is canonical and any later drift of a file is caught
//! line by line when it is applied.

use std::collections::BTreeMap;
use std::sync::Arc;

use lspedit_engine::{
    ApplyOptions, DiffOptions, Document, FileAction, FileChange, Patch, ViewOptions,
    apply_file_patch, hashline_view, unified_diff,
};

use super::detect::detect_truncation_with;
use super::ledger::{ChunkStatus, EditAttemptLedger, LedgerError, LedgerLimits, PauseReason};
use super::model_edit::{BLOCKING_VALIDATION_STATUSES, ValidateOptions, validate_model_edit_with};
use lspedit_tools::events::{ChunkProgress, Event, EventSink};
use lspedit_write::{ApplyPatchOptions, PatchReport, apply_parsed};
use lspedit_write::{Reason, ToolError};
use lspedit_write::{Workspace, base_sha};

/// One file as sent to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetFile {
    pub path: String,
    /// base_sha of the bytes sent; `""` when the file does not exist yet.
    pub base_sha: String,
    pub exists: bool,
    pub line_count: usize,
    /// The hashline view of the whole file (`42abcd|content` lines).
    pub view: String,
}

/// What the model is asked for in one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditRequest {
    pub instruction: String,
    /// The files this call must edit (one when the step is split).
    pub files: Vec<TargetFile>,
    /// Every target file of the step, so the model knows the whole plan.
    pub step_files: Vec<String>,
    /// Read-only context (typically from `lspedit_workflow::select_excerpts`).
    pub context: String,
    /// 1-based attempt of these files.
    pub attempt: u32,
    /// Why the previous attempt was refused, for the model to correct.
    pub previous_error: Option<String>,
}

impl EditRequest {
    /// A plain-text prompt for models that take one: instruction, files with base_sha and
    /// anchored content, context, the previous error, and the reply format. Deterministic.
    pub fn prompt(&self) -> String {
        let mut out = String::new();
        out.push_str("Task:\n");
        out.push_str(self.instruction.trim_end());
        out.push_str("\n\n");
        if self.step_files.len() > self.files.len() {
            out.push_str(&format!(
                "This call covers part of a step over: {}. Edit only the files below.\n\n",
                self.step_files.join(", ")
            ));
        }
        for f in &self.files {
            if f.exists {
                out.push_str(&format!(
                    "==> {} base_sha={} lines={} <==\n{}",
                    f.path, f.base_sha, f.line_count, f.view
                ));
            } else {
                out.push_str(&format!(
                    "==> {} base_sha=\"\" (does not exist; create it if the task needs it) <==\n",
                    f.path
                ));
            }
            out.push('\n');
        }
        if !self.context.trim().is_empty() {
            out.push_str("Context (read-only):\n");
            out.push_str(self.context.trim_end());
            out.push_str("\n\n");
        }
        if let Some(e) = &self.previous_error {
            out.push_str(&format!(
                "The previous attempt was refused: {e}\nFix that and send the whole edit again.\n\n"
            ));
        }
        out.push_str(REPLY_FORMAT);
        out
    }
}

const REPLY_FORMAT: &str = "Reply with one JSON object and nothing else:\n\
{\"unified_diff\": \"<unified diff; context and removal lines may keep their 42abcd| anchors>\", \
\"touched_files\": [{\"path\": \"...\", \"reason\": \"...\", \"base_sha\": \"<as given above>\"}], \
\"confidence\": <0..1>, \"notes\": \"...\", \"validation_status\": \"...\", \"complete\": true}\n\
Use an empty unified_diff and no touched_files when a file needs no change. \
`complete` must be the last field and true.\n";

/// A model reply: the generated text and the API's stop reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelReply {
    pub content: String,
    pub stop_reason: Option<String>,
}

/// A model call that failed before producing a reply (transport, quota, ...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("model call failed: {message}")]
pub struct ModelError {
    pub message: String,
}

/// A model that writes edits. Implemented over a real API by embedders, and by scripted models
/// in tests.
pub trait EditModel {
    fn generate(&self, request: &EditRequest) -> Result<ModelReply, ModelError>;
}

/// An edit step: what to do, to which files, with what context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditTask {
    pub instruction: String,
    /// Workspace-relative paths; files that do not exist may be created. Empty: the files the
    /// instruction names ([`file_hints`]).
    pub targets: Vec<String>,
    pub context: String,
}

/// The files an instruction names: each whitespace-separated word, stripped of surrounding
/// quotes, backticks, brackets and punctuation, that has an extension and names an existing
/// file inside the workspace, in order of first mention.
pub fn file_hints(ws: &Workspace, instruction: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in instruction.split_whitespace() {
        let punct = |c: char| {
            matches!(
                c,
                '`' | '"'
                    | '\''
                    | '('
                    | ')'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '<'
                    | '>'
                    | ','
                    | ';'
                    | ':'
                    | '!'
                    | '?'
            )
        };
        // A sentence's full stop may follow the name; a file name rarely ends in one.
        let w = word
            .trim_start_matches(punct)
            .trim_end_matches(|c: char| punct(c) || c == '.');
        let w = normalize_path(w);
        let has_ext = w.rsplit_once('.').is_some_and(|(stem, ext)| {
            !stem.is_empty()
                && !stem.ends_with('/')
                && !ext.is_empty()
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        });
        if !has_ext || w.contains("://") || out.contains(&w) {
            continue;
        }
        if matches!(ws.read(&w), Ok(Some(_))) {
            out.push(w);
        }
    }
    out
}

/// How big a step looks before any call: see the module documentation for the thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complexity {
    Low,
    Medium,
    High,
}

impl Complexity {
    /// `low`: one file of at most 150 lines; `high`: more than 3 files or more than 400
    /// lines; `medium`: anything between.
    pub fn estimate(file_count: usize, total_lines: usize) -> Complexity {
        if file_count > 3 || total_lines > 400 {
            Complexity::High
        } else if file_count <= 1 && total_lines <= 150 {
            Complexity::Low
        } else {
            Complexity::Medium
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Complexity::Low => "low",
            Complexity::Medium => "medium",
            Complexity::High => "high",
        }
    }
}

/// When the preflight splits a step (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreflightRules {
    pub max_files_per_call: usize,
    pub max_lines_per_call: usize,
}

impl Default for PreflightRules {
    fn default() -> Self {
        PreflightRules {
            max_files_per_call: 1,
            max_lines_per_call: 400,
        }
    }
}

impl PreflightRules {
    /// Decide whether `files` are split: `multiple_files`, `high_complexity`, or
    /// `single_chunk`.
    pub fn decide(&self, files: &[TargetFile]) -> PreflightReport {
        let total_lines = files.iter().map(|f| f.line_count).sum();
        let (split, reason) = if files.len() > self.max_files_per_call {
            (true, "multiple_files")
        } else if total_lines > self.max_lines_per_call {
            (true, "high_complexity")
        } else {
            (false, "single_chunk")
        };
        PreflightReport {
            target_files: files.iter().map(|f| f.path.clone()).collect(),
            total_lines,
            split,
            reason,
            estimated_complexity: Complexity::estimate(files.len(), total_lines),
        }
    }
}

/// The preflight's decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreflightReport {
    pub target_files: Vec<String>,
    pub total_lines: usize,
    pub split: bool,
    pub reason: &'static str,
    pub estimated_complexity: Complexity,
}

/// Configuration of the executor.
#[derive(Debug, Clone)]
pub struct ExecutorConfig {
    pub limits: LedgerLimits,
    pub preflight: PreflightRules,
    /// Options for planning each reply's diff against the content sent.
    pub engine: ApplyOptions,
    /// A reply must end with `"complete": true` (`requireCompleteSentinel`; default true).
    /// Off, a reply without the field is read as whole; `"complete": false` is still refused.
    pub require_complete_sentinel: bool,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig {
            limits: LedgerLimits::default(),
            preflight: PreflightRules::default(),
            engine: ApplyOptions::default(),
            require_complete_sentinel: true,
        }
    }
}

/// How a step ended.
#[derive(Debug, Clone)]
pub enum EditOutcome {
    /// Every file is done or needs no change. `combined_diff` is the done files' diffs in path
    /// order (empty when nothing changes); apply it with [`apply_combined`] and
    /// `ledger.base_shas()`.
    Completed {
        combined_diff: String,
        ledger: EditAttemptLedger,
        /// The step ran as one call per file (`wasSplit`).
        was_split: bool,
    },
    /// The step stopped; nothing of it may be applied.
    Paused {
        reason: PauseReason,
        ledger: EditAttemptLedger,
        was_split: bool,
    },
}

impl EditOutcome {
    pub fn ledger(&self) -> &EditAttemptLedger {
        match self {
            EditOutcome::Completed { ledger, .. } | EditOutcome::Paused { ledger, .. } => ledger,
        }
    }

    /// Whether the step ran as one call per file (by the preflight, or after a combined call
    /// failed).
    pub fn was_split(&self) -> bool {
        match self {
            EditOutcome::Completed { was_split, .. } | EditOutcome::Paused { was_split, .. } => {
                *was_split
            }
        }
    }

    /// The result as JSON for a framework's log: `{"status": "completed" | "paused",
    /// "wasSplit", "reason" (when paused), "files": {path: status}, "chunks_used"}`.
    pub fn to_json(&self) -> serde_json::Value {
        let ledger = self.ledger();
        let files: serde_json::Map<String, serde_json::Value> = ledger
            .entries()
            .map(|e| (e.path.clone(), serde_json::Value::from(e.status.as_str())))
            .collect();
        let mut v = serde_json::json!({
            "status": match self {
                EditOutcome::Completed { .. } => "completed",
                EditOutcome::Paused { .. } => "paused",
            },
            "wasSplit": self.was_split(),
            "files": files,
            "chunks_used": ledger.chunks_used(),
        });
        if let EditOutcome::Paused { reason, .. } = self {
            v["reason"] = serde_json::Value::from(reason.code());
        }
        v
    }
}

/// What the executor read of a target file.
struct Snapshot {
    bytes: Option<Vec<u8>>,
    file: TargetFile,
}

/// Why one chunk failed: a reason code and the message the model gets on retry, or, when the
/// model declined, the pause that ends the step.
struct ChunkFailure {
    code: &'static str,
    message: String,
    pause: Option<PauseReason>,
}

impl ChunkFailure {
    fn new(code: &'static str, message: String) -> ChunkFailure {
        ChunkFailure {
            code,
            message,
            pause: None,
        }
    }
}

/// Where a chunk stands in its step (see the module documentation).
fn progress(
    ledger: &EditAttemptLedger,
    paths: &[String],
    chunk: &[String],
    split: bool,
) -> ChunkProgress {
    let (chunk_index, total_chunks) = if split {
        let index = chunk
            .first()
            .and_then(|c| paths.iter().position(|p| p == c))
            .map_or(1, |i| i + 1);
        (index, paths.len().max(1))
    } else {
        (1, 1)
    };
    ChunkProgress {
        chunk_index,
        total_chunks,
        progress: finished_share(ledger),
    }
}

/// The share of the step's files finished (done, or needing no change), from 0 to 1.
fn finished_share(ledger: &EditAttemptLedger) -> f64 {
    let (finished, total) = ledger.entries().fold((0usize, 0usize), |(f, t), e| {
        let done = matches!(e.status, ChunkStatus::Done | ChunkStatus::Skipped);
        (f + usize::from(done), t + 1)
    });
    finished as f64 / total.max(1) as f64
}

/// Runs edit steps against a model. See the module documentation for the rules.
pub struct EditExecutor<'a> {
    ws: &'a Workspace,
    model: &'a dyn EditModel,
    events: Arc<dyn EventSink>,
    config: ExecutorConfig,
}

impl std::fmt::Debug for EditExecutor<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EditExecutor")
            .field("root", &self.ws.root())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn normalize_path(p: &str) -> String {
    p.strip_prefix("./").unwrap_or(p).to_string()
}

impl<'a> EditExecutor<'a> {
    pub fn new(
        ws: &'a Workspace,
        model: &'a dyn EditModel,
        events: Arc<dyn EventSink>,
    ) -> EditExecutor<'a> {
        EditExecutor {
            ws,
            model,
            events,
            config: ExecutorConfig::default(),
        }
    }

    pub fn with_config(mut self, config: ExecutorConfig) -> EditExecutor<'a> {
        self.config = config;
        self
    }

    /// Run a step. `Err` only when the task itself is unusable (no targets, a path outside the
    /// workspace, a binary or unreadable target); refusals of model output are recorded in the
    /// ledger and end in [`EditOutcome::Paused`] when the caps are hit. Writes nothing.
    pub fn run(&self, task: &EditTask) -> Result<EditOutcome, ToolError> {
        let hinted;
        let targets = if task.targets.is_empty() {
            hinted = file_hints(self.ws, &task.instruction);
            &hinted
        } else {
            &task.targets
        };
        let snapshots = self.snapshot(targets)?;
        let files: Vec<TargetFile> = snapshots.values().map(|s| s.file.clone()).collect();
        let paths: Vec<String> = snapshots.keys().cloned().collect();
        let preflight = self.config.preflight.decide(&files);
        tracing::debug!(
            files = paths.len(),
            lines = preflight.total_lines,
            split = preflight.split,
            reason = preflight.reason,
            "edit step preflight"
        );
        self.events.emit(&Event::PreflightComplete {
            target_files: preflight.target_files.clone(),
            should_split: preflight.split,
            reason: preflight.reason.to_string(),
            estimated_complexity: preflight.estimated_complexity.as_str().to_string(),
            target_file_count: paths.len(),
            total_lines: preflight.total_lines,
        });
        if preflight.split {
            self.events.emit(&Event::EditSplitTriggered {
                files: paths.clone(),
                reason: preflight.reason.to_string(),
            });
        }
        let mut ledger = EditAttemptLedger::new(
            snapshots
                .iter()
                .map(|(p, s)| (p.clone(), s.file.base_sha.clone())),
            self.config.limits,
        );

        let mut split = preflight.split;
        if !preflight.split && paths.len() > 1 {
            match ledger.start_group(&paths) {
                Ok(()) => match self.run_group(task, &paths, &snapshots, &mut ledger) {
                    Ok(true) => {}
                    Ok(false) => split = true,
                    Err(reason) => return Ok(self.pause(reason, ledger, split)),
                },
                Err(LedgerError::Paused(reason)) => return Ok(self.pause(reason, ledger, split)),
                Err(e) => {
                    // Unreachable with a fresh ledger; per-file calls still do the work.
                    tracing::error!(error = %e, "could not start the combined call");
                }
            }
        }

        loop {
            if let Some(reason) = ledger.should_pause() {
                return Ok(self.pause(reason, ledger, split));
            }
            let Some(path) = ledger.next_runnable().map(str::to_string) else {
                break;
            };
            let previous_error = ledger.entry(&path).and_then(|e| e.last_error.clone());
            let attempt = match ledger.start_file(&path) {
                Ok(a) => a,
                Err(LedgerError::Paused(reason)) => return Ok(self.pause(reason, ledger, split)),
                Err(e) => {
                    tracing::error!(error = %e, path, "ledger refused an attempt it offered");
                    break;
                }
            };
            let chunk = std::slice::from_ref(&path);
            self.events.emit(&Event::EditChunkStarted {
                file: path.clone(),
                attempt,
                progress: progress(&ledger, &paths, chunk, true),
            });
            match self.attempt(task, chunk, attempt, previous_error, &paths, &snapshots) {
                Ok(diffs) => {
                    record(&mut ledger, diffs);
                    self.events.emit(&Event::EditChunkCompleted {
                        progress: progress(&ledger, &paths, chunk, true),
                        file: path,
                        attempt,
                    });
                }
                Err(f) => {
                    tracing::debug!(path, attempt, reason = f.code, "edit chunk failed");
                    check(ledger.fail(&path, f.message));
                    self.events.emit(&Event::EditChunkFailed {
                        file: path.clone(),
                        attempt,
                        reason: f.code.to_string(),
                        progress: progress(&ledger, &paths, chunk, true),
                    });
                    if let Some(reason) = f.pause {
                        return Ok(self.pause(reason, ledger, split));
                    }
                }
            }
        }
        if !ledger.is_complete() {
            // Only reachable if the ledger refused an attempt it offered (logged above).
            let reason = PauseReason::ChunkCapReached {
                chunks: ledger.chunks_used(),
                remaining: ledger.remaining(),
            };
            return Ok(self.pause(reason, ledger, split));
        }
        Ok(EditOutcome::Completed {
            combined_diff: ledger.combined_diff(),
            ledger,
            was_split: split,
        })
    }

    /// One call for every file of an unsplit step: `Ok(true)` when it succeeded. On failure
    /// the files go back to pending and the step splits by file (`Ok(false)`), unless the model
    /// declined, which pauses the step (`Err`).
    fn run_group(
        &self,
        task: &EditTask,
        paths: &[String],
        snapshots: &BTreeMap<String, Snapshot>,
        ledger: &mut EditAttemptLedger,
    ) -> Result<bool, PauseReason> {
        let label = paths.join(", ");
        self.events.emit(&Event::EditChunkStarted {
            file: label.clone(),
            attempt: 1,
            progress: progress(ledger, paths, paths, false),
        });
        match self.attempt(task, paths, 1, None, paths, snapshots) {
            Ok(diffs) => {
                record(ledger, diffs);
                self.events.emit(&Event::EditChunkCompleted {
                    file: label,
                    attempt: 1,
                    progress: progress(ledger, paths, paths, false),
                });
                Ok(true)
            }
            Err(f) => {
                for p in paths {
                    if f.pause.is_some() {
                        check(ledger.fail(p, f.message.clone()));
                    } else {
                        check(ledger.release(p, f.message.clone()));
                    }
                }
                self.events.emit(&Event::EditChunkFailed {
                    file: label,
                    attempt: 1,
                    reason: f.code.to_string(),
                    progress: progress(ledger, paths, paths, false),
                });
                if let Some(reason) = f.pause {
                    return Err(reason);
                }
                self.events.emit(&Event::EditSplitTriggered {
                    files: paths.to_vec(),
                    reason: format!("combined_output_{}", f.code),
                });
                Ok(false)
            }
        }
    }

    fn pause(
        &self,
        reason: PauseReason,
        ledger: EditAttemptLedger,
        was_split: bool,
    ) -> EditOutcome {
        tracing::info!(reason = %reason, "edit step paused");
        self.events.emit(&Event::EditStepPaused {
            reason: reason.code().to_string(),
            progress: finished_share(&ledger),
        });
        EditOutcome::Paused {
            reason,
            ledger,
            was_split,
        }
    }

    fn snapshot(&self, targets: &[String]) -> Result<BTreeMap<String, Snapshot>, ToolError> {
        if targets.is_empty() {
            return Err(ToolError::new(
                Reason::EmptyDiff,
                None,
                "the edit step names no target file",
            ));
        }
        let mut out = BTreeMap::new();
        for raw in targets {
            let path = normalize_path(raw);
            if out.contains_key(&path) {
                continue;
            }
            let bytes = self.ws.read(&path)?;
            let file = match &bytes {
                Some(b) => {
                    let doc = Document::from_bytes(b)
                        .map_err(|e| ToolError::from_engine(Some(&path), e))?;
                    let texts = doc.texts();
                    TargetFile {
                        path: path.clone(),
                        base_sha: base_sha(b),
                        exists: true,
                        line_count: texts.len(),
                        view: hashline_view(&texts, ViewOptions::default()),
                    }
                }
                None => TargetFile {
                    path: path.clone(),
                    base_sha: String::new(),
                    exists: false,
                    line_count: 0,
                    view: String::new(),
                },
            };
            out.insert(path, Snapshot { bytes, file });
        }
        Ok(out)
    }

    /// One model call for `chunk`: request, truncation check, validation, plan. Returns each
    /// file's diff (`None`: no change).
    fn attempt(
        &self,
        task: &EditTask,
        chunk: &[String],
        attempt: u32,
        previous_error: Option<String>,
        step_files: &[String],
        snapshots: &BTreeMap<String, Snapshot>,
    ) -> Result<BTreeMap<String, Option<String>>, ChunkFailure> {
        let chunk_snaps: Vec<(&String, &Snapshot)> = chunk
            .iter()
            .filter_map(|p| snapshots.get(p).map(|s| (p, s)))
            .collect();
        let request = EditRequest {
            instruction: task.instruction.clone(),
            files: chunk_snaps.iter().map(|(_, s)| s.file.clone()).collect(),
            step_files: step_files.to_vec(),
            context: task.context.clone(),
            attempt,
            previous_error,
        };
        let reply = self
            .model
            .generate(&request)
            .map_err(|e| ChunkFailure::new("model_error", e.to_string()))?;
        let tr = detect_truncation_with(
            &reply.content,
            reply.stop_reason.as_deref(),
            self.config.require_complete_sentinel,
        );
        if tr.truncated {
            let reason = tr.reason.map_or("", |r| r.as_str());
            self.events.emit(&Event::TruncationDetected {
                file: chunk.join(", "),
                reason: reason.to_string(),
                stop_reason: tr.stop_reason.clone(),
                partial_length: tr.partial_length,
            });
            return Err(ChunkFailure::new(
                Reason::TruncatedInput.as_str(),
                format!(
                    "truncated_input ({reason}): {}; nothing of that output was used. Send the complete edit, with fewer or smaller hunks",
                    tr.details
                ),
            ));
        }
        let expected: BTreeMap<String, String> = chunk_snaps
            .iter()
            .map(|(p, s)| ((*p).clone(), s.file.base_sha.clone()))
            .collect();
        let options = ValidateOptions {
            require_complete_sentinel: self.config.require_complete_sentinel,
        };
        let validated = validate_model_edit_with(&reply.content, &expected, options)
            .map_err(|e| ChunkFailure::new(e.reason().as_str(), format!("{}: {e}", e.reason())))?;
        let status = validated.edit.validation_status.trim();
        if let Some(code) = BLOCKING_VALIDATION_STATUSES
            .iter()
            .copied()
            .find(|c| *c == status)
        {
            let reason = PauseReason::ModelDeclined {
                path: chunk.join(", "),
                status: code,
                notes: validated.edit.notes.clone(),
            };
            return Err(ChunkFailure {
                code,
                message: reason.to_string(),
                pause: Some(reason),
            });
        }
        self.plan(chunk, validated.patch.as_ref(), snapshots)
            .map_err(|e| ChunkFailure::new(e.reason.as_str(), e.to_string()))
    }

    /// Apply the reply's diff in memory to the content sent, and render each changed file's
    /// anchored diff.
    fn plan(
        &self,
        chunk: &[String],
        patch: Option<&Patch>,
        snapshots: &BTreeMap<String, Snapshot>,
    ) -> Result<BTreeMap<String, Option<String>>, ToolError> {
        let mut state: BTreeMap<String, Option<Vec<u8>>> = chunk
            .iter()
            .filter_map(|p| snapshots.get(p).map(|s| (p.clone(), s.bytes.clone())))
            .collect();
        for fp in patch.map_or(&[][..], |p| &p.files[..]) {
            let path = normalize_path(fp.path());
            if let FileChange::Update {
                move_to: Some(_), ..
            } = &fp.change
            {
                return Err(ToolError::new(
                    Reason::UnsafeDiff,
                    Some(&path),
                    "renames are not part of a chunked edit; change the file in place",
                ));
            }
            let Some(current) = state.get(&path) else {
                return Err(ToolError::new(
                    Reason::ScopeViolation,
                    Some(&path),
                    "the diff changes a file that was not sent in this request",
                ));
            };
            let outcome = apply_file_patch(fp, current.as_deref(), &self.config.engine)
                .map_err(|e| ToolError::from_engine(Some(&path), e))?;
            let next = match outcome.action {
                FileAction::Deleted => None,
                _ => outcome.new_content,
            };
            state.insert(path, next);
        }
        let mut out = BTreeMap::new();
        for (path, new) in state {
            let old = snapshots.get(&path).and_then(|s| s.bytes.as_deref());
            if old == new.as_deref() {
                out.insert(path, None);
                continue;
            }
            let text = |b: Option<&[u8]>| -> Result<String, ToolError> {
                b.map_or(Ok(String::new()), |b| {
                    String::from_utf8(b.to_vec()).map_err(|_| {
                        ToolError::new(Reason::NotUtf8, Some(&path), "the result is not UTF-8")
                    })
                })
            };
            let diff = unified_diff(
                &text(old)?,
                &text(new.as_deref())?,
                old.is_some().then_some(path.as_str()),
                new.is_some().then_some(path.as_str()),
                &DiffOptions {
                    context: 3,
                    anchored: true,
                },
            );
            if diff.is_empty() {
                // Only an empty file's creation or deletion changes nothing a diff can show.
                return Err(ToolError::new(
                    Reason::UnsafeDiff,
                    Some(&path),
                    "creating or deleting an empty file is not part of a chunked edit",
                ));
            }
            out.insert(path, Some(diff));
        }
        Ok(out)
    }
}

/// Record a chunk's planned diffs in the ledger.
fn record(ledger: &mut EditAttemptLedger, diffs: BTreeMap<String, Option<String>>) {
    for (path, diff) in diffs {
        match diff {
            Some(d) => check(ledger.complete(&path, d)),
            None => check(ledger.skip(&path, "the model made no change to this file")),
        }
    }
}

/// The executor only finishes entries it started; a refusal here is a bug, logged, not fatal.
fn check(result: Result<(), LedgerError>) {
    if let Err(e) = result {
        tracing::error!(error = %e, "edit ledger update refused");
    }
}

/// Apply a completed step's combined diff to the workspace, all or nothing by dry run: every
/// file's base_sha is re-checked against the disk (`stale_context` if a file changed since the
/// edit was generated), then every file is planned with a dry run, and only if all plan cleanly
/// are they written (each atomically). On any refusal nothing is written. `base_shas` is
/// `ledger.base_shas()` of [`EditOutcome::Completed`]; `""` means the file must not exist. An
/// empty diff (the step changed nothing) is `empty_diff`.
///
/// The writes themselves are per file; a crash between two of them is the journal's job in
/// the propose/apply workflow, which callers needing cross-file atomicity route through.
pub fn apply_combined(
    ws: &Workspace,
    combined_diff: &str,
    base_shas: &BTreeMap<String, String>,
) -> Result<PatchReport, ToolError> {
    for (path, expected) in base_shas {
        let now = ws.read(path)?.map(|b| base_sha(&b)).unwrap_or_default();
        if &now != expected {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(path),
                format!(
                    "the file changed since the edit was generated (base_sha `{expected}`, now `{now}`); nothing was written; re-run the edit step"
                ),
            ));
        }
    }
    let patch = lspedit_write::PatchLimits::default().parse(combined_diff)?;
    let dry = apply_parsed(
        ws,
        &patch,
        &ApplyPatchOptions {
            engine: ApplyOptions::default(),
            dry_run: true,
            limits: lspedit_write::PatchLimits::default(),
        },
    )?;
    if let Some((path, e)) = dry.files.iter().find_map(|f| match &f.status {
        lspedit_write::FileStatus::Failed(e) => Some((f.path.clone(), e.clone())),
        lspedit_write::FileStatus::Applied(_) => None,
    }) {
        return Err(ToolError::new(
            e.reason,
            Some(&path),
            format!("{}; nothing was written", e.message),
        ));
    }
    apply_parsed(ws, &patch, &ApplyPatchOptions::default())
}
