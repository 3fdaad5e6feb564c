//! lspedit-tools: the workspace (confined paths, atomic writes) and the operations agents call,
//! composed from the pure engine.

mod agent;
mod asynchronous;
mod baselines;
mod commit;
pub mod diagnostics;
mod error;
pub mod events;
pub mod lsp_edits;
mod lsp_provider;
mod patch;
mod plan;
pub mod policy;
pub mod session;
pub mod truncation;
pub mod workflow;
mod workspace;

pub use agent::{
    DiagnosticsFeedback, MAX_ECHOED_LINE_CHARS, ToolResult, Tools, ToolsConfig, WrittenFile,
    cap_line, offset_past_end, sync_text,
};
pub use asynchronous::AsyncTools;
pub use diagnostics::{
    CheckError, CheckReport, Deadlines, DiagnosticsConfig, DiagnosticsMode, DiagnosticsProvider,
    DiagnosticsStatus, Feedback, FileDiagnosticsStatus, FileText, OtherFile,
};
pub use error::{Reason, ToolError};
pub use events::{Event, EventSink, FanOut, JsonlSink, NullSink, RecordingSink};
pub use lsp_edits::{
    ActionPick, CodeActionList, EditOptions, LineRef, LspEditError, LspEditProvider, LspEditResult,
    LspEdits, LspEditsConfig, SymbolAt,
};
pub use lsp_provider::LspProvider;
pub use patch::{
    ApplyPatchOptions, FileReport, FileStatus, MAX_REPLANS, PatchLimits, PatchReport, apply_parsed,
    apply_patch,
};
pub use policy::{Approve, Operation, PlanRequest, Policy, PolicyError};
pub use session::{Answer, DiagnosticsReport, FileCheck, Session};
pub use truncation::{
    EditAttemptLedger, EditExecutor, EditModel, EditOutcome, EditRequest, EditTask, ModelReply,
    TruncationReport, apply_combined, detect_truncation, select_excerpts, validate_model_edit,
};
pub use workflow::{
    ApplyOutcome, ApplyPlan, ApplyStatus, Atomicity, Proposal, ProposeRequest, UndoOutcome,
    Workflow, WorkflowConfig,
};
pub use workspace::{Replaced, Workspace, base_sha, write_atomic_abs};
