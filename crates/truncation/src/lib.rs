//! lspedit-truncation: truncation-safe model output (docs/design.md §10). Detecting cut-off
//! replies, strict validation of the model's edit JSON, a ledger of per-file attempts, and an
//! executor that drives a model file by file and never applies partial output. It sits beside
//! the workflow, over the write core; no binary of lspedit drives a model, embedders do.
//!
//! The pieces compose as: `lspedit_workflow::select_excerpts` (the deterministic excerpt
//! selector) → context for an [`EditTask`] →
//! [`EditExecutor::run`] (preflight, one model call per file, [`detect_truncation`] and
//! [`validate_model_edit`] on every reply, retries recorded in the [`EditAttemptLedger`]) →
//! [`EditOutcome::Completed`] with a combined diff that [`apply_combined`] writes only after every
//! file planned cleanly, or [`EditOutcome::Paused`] with the reason and the ledger.

mod detect;
mod executor;
mod ledger;
mod model_edit;

// The public API is what callers outside this crate use, plus the types those signatures
// hand out (`FileExcerpt`, `LedgerEntry`, `PreflightReport`, `ValidatedEdit`, ...), so every
// value a caller receives can be named. Helpers of the submodules stay private.
pub use detect::{TruncationReason, TruncationReport, detect_truncation, detect_truncation_with};
pub use executor::{
    Complexity, EditExecutor, EditModel, EditOutcome, EditRequest, EditTask, ExecutorConfig,
    ModelError, ModelReply, PreflightReport, PreflightRules, TargetFile, apply_combined,
    file_hints,
};
pub use ledger::{
    ChunkStatus, EditAttemptLedger, LedgerEntry, LedgerError, LedgerLimits, PauseReason,
};
pub use model_edit::{
    Confidence, ModelEdit, ModelEditError, TouchedFile, ValidateOptions, ValidatedEdit,
    validate_model_edit, validate_model_edit_with,
};
