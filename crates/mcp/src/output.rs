//! Structured tool results: what each tool returns as `structuredContent`, beside the text the
//! model reads, with the `outputSchema` it declares (made portable by [`crate::schema`]).
//!
//! Every id, sha and count a client needs is a field here, so no client scrapes them out of
//! prose. A refused call has the same shape: the fields that describe a success are absent and
//! `reason` holds the reason code. Built only from what the tools crate exposes
//! ([`ToolResult`], [`FileReport`], [`Proposal`], [`ApplyOutcome`], [`UndoOutcome`], and the
//! session's [`DiagnosticsReport`]): these are the MCP adapters of the tools' own results.

use std::borrow::Cow;

use lspedit_engine::FileAction;
use lspedit_lsp::Severity;
use lspedit_lsp_edits::LspEditReason;
use lspedit_session::{DiagnosticsReport, FileCheck};
use lspedit_tools::{DiagnosticsStatus, Done, FileDiagnosticsStatus, ToolResult};
use lspedit_workflow::{ApplyOutcome, ApplyStatus, ChangeKind, Proposal, UndoOutcome};
use lspedit_write::{FileReport, FileStatus, Reason, ToolError};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Serialize, Serializer};

/// A tool's text result and its structured twin.
#[derive(Debug)]
pub struct Reply {
    pub result: ToolResult,
    pub structured: serde_json::Value,
}

impl Reply {
    /// `result` with `structured` serialized; a value that cannot be serialized (never for these
    /// types) leaves `null`, logged.
    pub fn new<T: Serialize>(result: ToolResult, structured: &T) -> Reply {
        let structured = serde_json::to_value(structured).unwrap_or_else(|e| {
            tracing::error!("cannot serialize a structured result: {e}");
            serde_json::Value::Null
        });
        Reply { result, structured }
    }
}

/// A reason code of the wire (docs/design.md §9): any [`LspEditReason`], which holds every
/// write-layer [`Reason`] too. Serialized as the bare code, as before it was typed; its schema
/// lists every code, so a client sees the closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReasonCode(pub LspEditReason);

impl From<Reason> for ReasonCode {
    fn from(r: Reason) -> ReasonCode {
        ReasonCode(LspEditReason::Tool(r))
    }
}

impl From<LspEditReason> for ReasonCode {
    fn from(r: LspEditReason) -> ReasonCode {
        ReasonCode(r)
    }
}

impl Serialize for ReasonCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.as_str())
    }
}

impl JsonSchema for ReasonCode {
    fn schema_name() -> Cow<'static, str> {
        "ReasonCode".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let codes: Vec<&str> = LspEditReason::all().map(LspEditReason::as_str).collect();
        schemars::json_schema!({ "type": "string", "enum": codes })
    }
}

fn code(reason: Option<Reason>) -> Option<ReasonCode> {
    reason.map(ReasonCode::from)
}

/// A written file's diagnostics status (docs/design.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    // Plain comments on the variants: a doc comment would make the schema a `oneOf` instead of
    // one `enum`. The server answered for the file's new text.
    Checked,
    // No answer in time; a later answer starts the next tool result.
    TimedOut,
    // No language server configured or installed for the file.
    NoServer,
    // The server failed or crashed.
    Failed,
}

impl From<DiagnosticsStatus> for CheckStatus {
    fn from(s: DiagnosticsStatus) -> CheckStatus {
        match s {
            DiagnosticsStatus::Checked => CheckStatus::Checked,
            DiagnosticsStatus::TimedOut => CheckStatus::TimedOut,
            DiagnosticsStatus::NoServer => CheckStatus::NoServer,
            DiagnosticsStatus::Failed => CheckStatus::Failed,
        }
    }
}

/// How an `apply_edit` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApplyState {
    Applied,
    // Per-file atomicity: some files refused.
    PartiallyApplied,
    // The approver said no; nothing written.
    Rejected,
    // Nothing written (or what was written rolled back).
    Refused,
}

impl From<ApplyStatus> for ApplyState {
    fn from(s: ApplyStatus) -> ApplyState {
        match s {
            ApplyStatus::Applied => ApplyState::Applied,
            ApplyStatus::PartiallyApplied => ApplyState::PartiallyApplied,
            ApplyStatus::Rejected => ApplyState::Rejected,
            ApplyStatus::Refused => ApplyState::Refused,
        }
    }
}

/// A diagnostic's severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeverityName {
    Error,
    Warning,
    Info,
    Hint,
}

impl From<Severity> for SeverityName {
    fn from(s: Severity) -> SeverityName {
        match s {
            Severity::Error => SeverityName::Error,
            Severity::Warning => SeverityName::Warning,
            Severity::Information => SeverityName::Info,
            Severity::Hint => SeverityName::Hint,
        }
    }
}

/// `read_file`'s structured result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadFileOutput {
    /// The workspace-relative path read (as given, when refused).
    pub path: String,
    /// The file's base_sha (first 12 hex digits of the SHA-256 of its bytes): pass it in
    /// propose_edit's `base_shas` to refuse the proposal if the file changed since this read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// Which lines the view shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<LineWindow>,
    /// The reason code when the read was refused (`file_not_found`, `path_outside_workspace`,
    /// `binary_file`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
}

/// The lines a `read_file` view shows.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LineWindow {
    /// First line shown, 1-based.
    pub offset: usize,
    /// The most lines the view could show.
    pub limit: usize,
    /// Lines actually shown (0 when `offset` is past the end).
    pub shown: usize,
    /// Lines in the file.
    pub total: usize,
    /// More lines follow the view: read again with `offset` = `offset` + `shown`.
    pub more: bool,
}

impl ReadFileOutput {
    /// From `read_file`'s result for `path`: its typed report, or the refusal's reason.
    pub fn new(r: &ToolResult, path: &str) -> ReadFileOutput {
        match &r.done {
            Some(Done::Read(read)) => ReadFileOutput {
                path: read.path.clone(),
                base_sha: Some(read.base_sha.clone()),
                lines: Some(LineWindow {
                    offset: read.offset,
                    limit: read.limit,
                    shown: read.shown,
                    total: read.total_lines,
                    more: read.more(),
                }),
                reason: None,
            },
            _ => ReadFileOutput {
                path: path.to_string(),
                base_sha: None,
                lines: None,
                reason: code(r.reason),
            },
        }
    }
}

/// The structured result of the writing tools `edit`, `write_file` and `apply_patch`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct WriteOutput {
    /// Every file was written (the result is not isError).
    pub success: bool,
    /// The reason code of the refusal: of the whole call, or of the first refused file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// One entry per file (per patch section), in the order of the text result.
    pub files: Vec<FileResult>,
}

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FileState {
    Added,
    Modified,
    Deleted,
    Renamed,
    // Refused: nothing was written to this file. (A plain comment: a doc comment would make
    // the schema a `oneOf` instead of one `enum`.)
    Failed,
}

/// One file of a writing tool's result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileResult {
    /// Workspace-relative path (the source path of a rename).
    pub path: String,
    pub status: FileState,
    /// The destination of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    /// The reason code when `status` is `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// What went wrong and what to do, when `status` is `failed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where each hunk of a patch applied (empty for edit and write_file).
    pub hunks: Vec<HunkResult>,
    /// The changed blocks of the new file, with their fresh anchors (`42abcd|content`) when
    /// within the cap; re-read the range otherwise.
    pub changed: Vec<ChangedBlock>,
    /// Whether the language server checked the file's new text; absent when no diagnostics
    /// were asked for it (diagnostics off, binary file, deleted, refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<FileDiagnosticsState>,
}

/// The diagnostics status of one written file (docs/design.md §7).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileDiagnosticsState {
    /// `checked` (the text shows its errors, if any), `timed_out` (no answer in time: the text
    /// has none; if errors arrive later, the next tool result starts with them), `no_server`
    /// (no language server configured or installed for the file) or `failed` (the server
    /// failed or crashed).
    pub status: CheckStatus,
    /// When `checked`: how many diagnostics the text reports for the file (errors by default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<usize>,
}

impl FileDiagnosticsState {
    pub fn new(s: &FileDiagnosticsStatus) -> FileDiagnosticsState {
        FileDiagnosticsState {
            status: s.status.into(),
            errors: (s.status == DiagnosticsStatus::Checked).then_some(s.reported.len()),
        }
    }

    /// The state of the first of `paths` that has one in `statuses`.
    fn find(statuses: &[FileDiagnosticsStatus], paths: &[&str]) -> Option<FileDiagnosticsState> {
        paths
            .iter()
            .find_map(|p| statuses.iter().find(|s| s.path == *p))
            .map(FileDiagnosticsState::new)
    }
}

/// Where one hunk applied.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HunkResult {
    /// 1-based hunk number within its file.
    pub index: usize,
    /// 1-based line the hunk was expected at.
    pub target_line: usize,
    /// 1-based line it was found at.
    pub found_line: usize,
    /// How far the file had moved (`found_line` − the line the hunk claimed); may be negative.
    pub offset: i64,
}

/// A changed block of the new file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ChangedBlock {
    /// 1-based first line of the block in the new file.
    pub start_line: usize,
    /// Lines in the block (0 when lines were only removed).
    pub line_count: usize,
    /// 1-based first line of what it replaced, in the old file.
    pub old_start_line: usize,
    /// Lines it replaced (0 when lines were only added).
    pub old_line_count: usize,
    /// The block's lines with fresh anchors, `42abcd|content`; absent past the cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchored_lines: Option<Vec<String>>,
}

impl FileResult {
    fn from_report(f: &FileReport) -> FileResult {
        match &f.status {
            FileStatus::Failed(e) => FileResult::failed(&f.path, e),
            FileStatus::Applied(o) => {
                let (status, new_path) = match &o.action {
                    FileAction::Added => (FileState::Added, None),
                    FileAction::Modified => (FileState::Modified, None),
                    FileAction::Deleted => (FileState::Deleted, None),
                    FileAction::Renamed { .. } => (FileState::Renamed, Some(o.path.clone())),
                };
                FileResult {
                    path: f.path.clone(),
                    status,
                    new_path,
                    reason: None,
                    message: None,
                    hunks: o
                        .hunks
                        .iter()
                        .map(|h| HunkResult {
                            index: h.index,
                            target_line: h.target_line,
                            found_line: h.found_line,
                            offset: i64::try_from(h.offset).unwrap_or(i64::MAX),
                        })
                        .collect(),
                    changed: o
                        .sync
                        .iter()
                        .map(|b| ChangedBlock {
                            start_line: b.start_line,
                            line_count: b.line_count,
                            old_start_line: b.old_start_line,
                            old_line_count: b.old_line_count,
                            anchored_lines: b.lines.clone(),
                        })
                        .collect(),
                    diagnostics: None,
                }
            }
        }
    }

    fn failed(path: &str, e: &ToolError) -> FileResult {
        FileResult {
            path: e.path.clone().unwrap_or_else(|| path.to_string()),
            status: FileState::Failed,
            new_path: None,
            reason: Some(e.reason.into()),
            message: Some(e.message.clone()),
            hunks: Vec::new(),
            changed: Vec::new(),
            diagnostics: None,
        }
    }

    fn bare(path: String, status: FileState, reason: Option<Reason>) -> FileResult {
        FileResult {
            path,
            status,
            new_path: None,
            reason: code(reason),
            message: None,
            hunks: Vec::new(),
            changed: Vec::new(),
            diagnostics: None,
        }
    }
}

impl WriteOutput {
    /// From a writing tool's result. `path` is the file `edit`/`write_file` was asked to write
    /// (`None` for apply_patch): a refusal of the whole call names it as the failed file.
    pub fn new(r: &ToolResult, path: Option<&str>) -> WriteOutput {
        let mut files: Vec<FileResult> = r.files.iter().map(FileResult::from_report).collect();
        if files.is_empty()
            && let Some(path) = path
        {
            files.push(if r.is_error {
                FileResult::bare(path.to_string(), FileState::Failed, r.reason)
            } else {
                // write_file reports no FileReport; it says what it did in `done`.
                match &r.done {
                    Some(Done::Wrote(w)) if w.created => {
                        FileResult::bare(w.path.clone(), FileState::Added, None)
                    }
                    Some(Done::Wrote(w)) => {
                        FileResult::bare(w.path.clone(), FileState::Modified, None)
                    }
                    _ => FileResult::bare(path.to_string(), FileState::Modified, None),
                }
            });
        }
        for f in &mut files {
            let mut paths = vec![f.path.as_str()];
            paths.extend(f.new_path.as_deref());
            // A rename's content is checked under its destination.
            paths.reverse();
            f.diagnostics = FileDiagnosticsState::find(&r.diagnostics, &paths);
        }
        WriteOutput {
            success: !r.is_error,
            reason: code(r.reason),
            files,
        }
    }
}

/// `propose_edit`'s structured result.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct ProposeOutput {
    /// The proposal was stored (a `patch_id` follows) and every file of it applies; false
    /// when it was refused, or when a file would be refused (the proposal is stored for a
    /// per-file apply, but cannot apply all or nothing; `reason` is that file's). Seed 001's
    /// result shape: every propose and apply result says whether it succeeded.
    pub success: bool,
    /// The id to pass to apply_edit (`patch_<unix_ms>_<32 hex>`); absent when refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_id: Option<String>,
    /// Every path the proposal would change, sorted (both ends of a rename).
    pub affected_files: Vec<String>,
    /// The unified diff of the change, for review.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unified_diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistics: Option<Statistics>,
    /// One entry per file of the proposal.
    pub files: Vec<ProposedFileOutput>,
    /// The id of the proposal's evidence under `.lspedit/evidence/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<String>,
    /// The reason code when the proposal was refused (`invalid_diff_format`, `empty_diff`,
    /// `sha_mismatch`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
}

/// What a proposal covers.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Statistics {
    /// Regex: text files searched. Patch: file sections.
    pub files_scanned: usize,
    /// Files the proposal changes.
    pub files_matched: usize,
    /// Regex: replacements. Patch: changed hunks (a create, delete or rename counts one).
    pub total_changes: usize,
    /// Regex: files in scope not searched (binary, not UTF-8, too large).
    pub files_skipped: usize,
}

/// One file of a proposal.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ProposedFileOutput {
    /// Workspace-relative path (the source path of a rename).
    pub path: String,
    /// The destination of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    pub kind: ChangeKind,
    /// base_sha of `path` when proposed; absent when it does not exist yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_sha: Option<String>,
    /// base_sha after the change; absent for a deletion or a refused file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_sha: Option<String>,
    pub added: usize,
    pub removed: usize,
    /// Replacements (regex) or changed hunks (patch) in this file.
    pub changes: usize,
    /// The reason code when this file would be refused (the rest can still apply per file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// Why this file would be refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl ProposeOutput {
    /// `success` only when every file of the proposal applies: one that would be refused makes
    /// an all-or-nothing apply of it impossible, and `reason` is that file's.
    pub fn from_proposal(p: &Proposal) -> ProposeOutput {
        let problem = p.files.iter().find_map(|f| f.problem.as_ref());
        ProposeOutput {
            success: problem.is_none(),
            patch_id: Some(p.patch_id.clone()),
            affected_files: p.affected_files(),
            unified_diff: Some(p.diff.clone()),
            statistics: Some(Statistics {
                files_scanned: p.stats.files_scanned,
                files_matched: p.stats.files_matched,
                total_changes: p.stats.total_changes,
                files_skipped: p.stats.files_skipped,
            }),
            files: p
                .files
                .iter()
                .map(|f| ProposedFileOutput {
                    path: f.path.clone(),
                    new_path: f.new_path.clone(),
                    kind: f.kind,
                    base_sha: f.base_sha.clone(),
                    new_sha: f.new_sha.clone(),
                    added: f.added,
                    removed: f.removed,
                    changes: f.changes,
                    reason: f.problem.as_ref().map(|p| p.reason.into()),
                    message: f.problem.as_ref().map(|p| p.message.clone()),
                })
                .collect(),
            evidence_id: Some(p.evidence_id.clone()),
            reason: code(problem.map(|p| p.reason)),
        }
    }

    pub fn refused(reason: Option<Reason>) -> ProposeOutput {
        ProposeOutput {
            reason: code(reason),
            ..ProposeOutput::default()
        }
    }

    /// From the session's `propose_edit`: the proposal, or the refusal's reason.
    pub fn from_outcome(outcome: &Result<Proposal, ToolError>) -> ProposeOutput {
        match outcome {
            Ok(p) => ProposeOutput::from_proposal(p),
            Err(e) => ProposeOutput::refused(Some(e.reason)),
        }
    }
}

/// `apply_edit`'s structured result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ApplyEditOutput {
    /// Every file of the proposal was written.
    pub success: bool,
    /// `applied`, `partially_applied` (per-file atomicity: some files refused), `rejected` or
    /// `refused` (nothing written).
    pub status: ApplyState,
    pub patch_id: String,
    /// The files written, in path order.
    pub modified_files: Vec<String>,
    /// Pass it to undo to restore the files; present when anything was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_id: Option<String>,
    /// The id of this apply's evidence under `.lspedit/evidence/`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<String>,
    /// The reason code of the refusal (`patch_not_found`: call propose_edit again;
    /// `stale_context`, `scope_violation`, `unsafe_diff`, `hunk_mismatch`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// An all-or-nothing commit failed part-way and every written file was restored.
    pub rolled_back: bool,
    /// Each file's outcome.
    pub files: Vec<AppliedFile>,
}

/// One file of an apply.
#[derive(Debug, Serialize, JsonSchema)]
pub struct AppliedFile {
    pub path: String,
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// `M a.ts (1 hunk)` or the refusal.
    pub message: String,
    /// Whether the language server checked the file's new text; absent when no diagnostics
    /// were asked for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<FileDiagnosticsState>,
}

impl ApplyEditOutput {
    pub fn new(o: &ApplyOutcome) -> ApplyEditOutput {
        let mut modified_files: Vec<String> = o
            .files
            .iter()
            .filter(|f| f.applied)
            .map(|f| f.path.clone())
            .collect();
        modified_files.sort();
        ApplyEditOutput {
            success: !o.is_error,
            status: o.status.into(),
            patch_id: o.patch_id.clone(),
            modified_files,
            checkpoint_id: o.checkpoint_id.clone(),
            evidence_id: o.evidence_id.clone(),
            reason: code(o.reason),
            rolled_back: o.rolled_back,
            files: o
                .files
                .iter()
                .map(|f| AppliedFile {
                    path: f.path.clone(),
                    applied: f.applied,
                    reason: code(f.reason),
                    message: f.message.clone(),
                    diagnostics: f
                        .applied
                        .then(|| FileDiagnosticsState::find(&o.diagnostics, &[&f.path]))
                        .flatten(),
                })
                .collect(),
        }
    }

    /// From the session's `apply_edit` of `patch_id`: the outcome, or the workflow could not be
    /// opened.
    pub fn from_outcome(
        patch_id: &str,
        outcome: &Result<ApplyOutcome, ToolError>,
    ) -> ApplyEditOutput {
        match outcome {
            Ok(o) => ApplyEditOutput::new(o),
            Err(e) => ApplyEditOutput::unavailable(patch_id, Some(e.reason)),
        }
    }

    /// The workflow could not be opened: nothing was tried.
    pub fn unavailable(patch_id: &str, reason: Option<Reason>) -> ApplyEditOutput {
        ApplyEditOutput {
            success: false,
            status: ApplyState::Refused,
            patch_id: patch_id.to_string(),
            modified_files: Vec::new(),
            checkpoint_id: None,
            evidence_id: None,
            reason: code(reason),
            rolled_back: false,
            files: Vec::new(),
        }
    }
}

/// `undo`'s structured result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UndoOutput {
    /// Every file was restored.
    pub success: bool,
    pub checkpoint_id: String,
    /// Files restored to their content before the apply (or removed, if it created them).
    pub restored: Vec<String>,
    /// A checkpoint of the state undo replaced: undo it to redo the apply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redo_checkpoint_id: Option<String>,
    /// The reason code of the refusal (`checkpoint_not_found`, `stale_context`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
}

impl UndoOutput {
    pub fn new(u: &UndoOutcome) -> UndoOutput {
        UndoOutput {
            success: true,
            checkpoint_id: u.checkpoint_id.clone(),
            restored: u.restored.clone(),
            redo_checkpoint_id: Some(u.redo_checkpoint_id.clone()),
            reason: None,
        }
    }

    pub fn refused(checkpoint_id: &str, reason: Option<Reason>) -> UndoOutput {
        UndoOutput {
            success: false,
            checkpoint_id: checkpoint_id.to_string(),
            restored: Vec::new(),
            redo_checkpoint_id: None,
            reason: code(reason),
        }
    }

    /// From the session's `undo` of `checkpoint_id`: what was restored, or the refusal's reason.
    pub fn from_outcome(
        checkpoint_id: &str,
        outcome: &Result<UndoOutcome, ToolError>,
    ) -> UndoOutput {
        match outcome {
            Ok(u) => UndoOutput::new(u),
            Err(e) => UndoOutput::refused(checkpoint_id, Some(e.reason)),
        }
    }
}

/// `diagnostics`' structured result.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct DiagnosticsOutput {
    /// One entry per distinct path, in path order.
    pub files: Vec<FileDiagnosticsOutput>,
    /// Why this session has no diagnostics at all (turned off, an invalid
    /// `.lspedit/config.toml`, a pool that could not start); absent when they are on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// What loading the language-server configuration ignored, one sentence each.
    pub warnings: Vec<String>,
}

/// The diagnostics of one file.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileDiagnosticsOutput {
    /// Workspace-relative path.
    pub path: String,
    /// The id of the language server for the file, when one is configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// `checked`, `timed_out` (no answer in time: call diagnostics again shortly), `no_server`
    /// (none configured or installed, or diagnostics off) or `failed`; absent when the path
    /// was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<CheckStatus>,
    /// The reported diagnostics of the severities shown (errors by default), sorted by
    /// line and column; absent when the file could not be checked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<DiagnosticOutput>>,
    /// The text result for this file (the diagnostics block, `no errors`, or why there are no
    /// diagnostics).
    pub text: String,
    /// The reason code when the path itself was refused (`file_not_found`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
}

impl DiagnosticsOutput {
    /// From the session's diagnostics report.
    pub fn new(r: &DiagnosticsReport) -> DiagnosticsOutput {
        DiagnosticsOutput {
            files: r.files.iter().map(FileDiagnosticsOutput::new).collect(),
            unavailable: r.unavailable.clone(),
            warnings: r.warnings.clone(),
        }
    }
}

impl FileDiagnosticsOutput {
    fn new(f: &FileCheck) -> FileDiagnosticsOutput {
        FileDiagnosticsOutput {
            path: f.path.clone(),
            server: f.server.clone(),
            status: f.status.map(CheckStatus::from),
            diagnostics: f.diagnostics.as_ref().map(|ds| {
                ds.iter()
                    .map(|d| DiagnosticOutput {
                        line: d.line,
                        column: d.column,
                        severity: d.severity.into(),
                        code: d.code.clone(),
                        message: d.message.clone(),
                    })
                    .collect()
            }),
            text: f.text.clone(),
            reason: code(f.reason),
        }
    }
}

/// One diagnostic.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DiagnosticOutput {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// `error`, `warning`, `info` or `hint`.
    pub severity: SeverityName,
    /// The server's code (`2322` for TypeScript, `E0308` for rustc), when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(path: &str, status: DiagnosticsStatus, reported: usize) -> FileDiagnosticsStatus {
        let d = lspedit_lsp::Diagnostic {
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            severity: lspedit_lsp::Severity::Error,
            code: None,
            message: "m".into(),
            source: None,
        };
        FileDiagnosticsStatus {
            path: path.into(),
            status,
            detail: (status != DiagnosticsStatus::Checked)
                .then(|| "server stderr: secret token".to_string()),
            refused: None,
            reported: vec![d; reported],
        }
    }

    #[test]
    fn each_written_file_carries_its_diagnostics_status_never_the_detail() {
        let mut r = ToolResult {
            diagnostics: vec![status("a.ts", DiagnosticsStatus::TimedOut, 0)],
            ..ToolResult::text(String::new(), "M a.ts".into(), false)
        };
        let out = serde_json::to_value(WriteOutput::new(&r, Some("a.ts"))).unwrap();
        assert_eq!(
            out["files"][0]["diagnostics"],
            serde_json::json!({"status": "timed_out"})
        );
        assert!(!out.to_string().contains("secret"), "{out}");
        r.diagnostics = vec![status("a.ts", DiagnosticsStatus::Checked, 2)];
        let out = serde_json::to_value(WriteOutput::new(&r, Some("a.ts"))).unwrap();
        assert_eq!(
            out["files"][0]["diagnostics"],
            serde_json::json!({"status": "checked", "errors": 2})
        );
        // Nothing asked (diagnostics off, binary file): no key at all.
        r.diagnostics.clear();
        let out = serde_json::to_value(WriteOutput::new(&r, Some("a.ts"))).unwrap();
        assert!(out["files"][0].get("diagnostics").is_none(), "{out}");
    }

    /// write_file's state comes from its typed report, whatever its display text says.
    #[test]
    fn write_file_says_added_or_modified_from_its_report() {
        let report = |created| {
            Some(Done::Wrote(lspedit_tools::WriteFileReport {
                path: "src/a b.ts".into(),
                created,
                lines: 1,
                bytes: 2,
                binary: false,
            }))
        };
        let mut r = ToolResult {
            done: report(true),
            ..ToolResult::text("Overwrote other.ts".into(), "M other.ts".into(), false)
        };
        let out = serde_json::to_value(WriteOutput::new(&r, Some("./src/a b.ts"))).unwrap();
        assert_eq!(out["files"][0]["path"], "src/a b.ts", "{out}");
        assert_eq!(out["files"][0]["status"], "added", "{out}");
        r.done = report(false);
        (r.llm_content, r.display) = ("Created other.ts".into(), "A other.ts".into());
        let out = serde_json::to_value(WriteOutput::new(&r, Some("./src/a b.ts"))).unwrap();
        assert_eq!(out["files"][0]["status"], "modified", "{out}");
    }

    #[test]
    fn the_diagnostics_status_is_optional_in_the_schemas() {
        let schema = serde_json::Value::Object(
            crate::schema::portable_output::<WriteOutput>()
                .as_ref()
                .clone(),
        );
        let file = &schema["properties"]["files"]["items"];
        let required = file["required"].as_array().unwrap();
        assert!(!required.contains(&"diagnostics".into()), "{file}");
        let d = &file["properties"]["diagnostics"];
        assert_eq!(d["type"], "object", "{d}");
        assert_eq!(d["required"], serde_json::json!(["status"]), "{d}");
        assert_eq!(d["properties"]["errors"]["minimum"], 0, "{d}");
        let schema = serde_json::Value::Object(
            crate::schema::portable_output::<ApplyEditOutput>()
                .as_ref()
                .clone(),
        );
        let file = &schema["properties"]["files"]["items"];
        assert_eq!(
            file["properties"]["diagnostics"]["required"],
            serde_json::json!(["status"]),
            "{file}"
        );
        let schema = serde_json::Value::Object(
            crate::schema::portable_output::<DiagnosticsOutput>()
                .as_ref()
                .clone(),
        );
        let file = &schema["properties"]["files"]["items"];
        assert_eq!(file["properties"]["status"]["type"], "string", "{file}");
        assert!(
            !file["required"]
                .as_array()
                .unwrap()
                .contains(&"status".into()),
            "{file}"
        );
    }
}
