//! Truncation-safe model output (docs/design.md §10): detecting cut-off replies, strict validation
//! of the model's edit JSON, a ledger of per-file attempts, an executor that splits an edit step by
//! file and never applies partial output, and the deterministic excerpt selector that builds the
//! model's context.
//!
//! The pieces compose as: [`select_excerpts`] → context for an [`EditTask`] →
//! [`EditExecutor::run`] (preflight, one model call per file, [`detect_truncation`] and
//! [`validate_model_edit`] on every reply, retries recorded in the [`EditAttemptLedger`]) →
//! [`EditOutcome::Completed`] with a combined diff that [`apply_combined`] writes only after every
//! file planned cleanly, or [`EditOutcome::Paused`] with the reason and the ledger.

mod detect;
mod excerpt;
mod executor;
mod ledger;
mod model_edit;

// The public API is what callers outside this module use (the crate root re-exports the
// main entry points; the workflow records an `ExcerptSet`), plus the types those signatures
// hand out (`FileExcerpt`, `LedgerEntry`, `PreflightReport`, `ValidatedEdit`, ...), so every
// value a caller receives can be named. Helpers of the submodules stay private.
pub use detect::{TruncationReason, TruncationReport, detect_truncation, detect_truncation_with};
pub use excerpt::{
    ExcerptCandidates, ExcerptLimits, ExcerptSet, FileExcerpt, SkippedCandidate, select_excerpts,
};
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
