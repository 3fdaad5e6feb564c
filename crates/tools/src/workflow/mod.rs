//! The propose → approve → apply workflow (DESIGN.md §9): `propose_edit` plans a change and
//! stores it as a patch under `.lspedit/patches/`; `apply_edit` re-checks it against the files,
//! the plan's limits and an [`Approver`], optionally validates it in a temporary copy, takes a
//! checkpoint and commits it per file or all-or-nothing; `undo` restores a checkpoint.
//!
//! Built over [`Tools`]: it shares the workspace, the per-file locks and the diagnostics
//! feedback. Between processes, a lock file (`.lspedit/lock`) serializes commits, undos and the
//! journal recovery that [`Workflow::open`] runs. Every step is reported as an [`Event`] (to
//! `.lspedit/events.jsonl` and the configured sinks) and leaves evidence under
//! `.lspedit/evidence/`.
//!
//! Nothing under `.lspedit/` is created before it is needed: opening a workflow, or naming a
//! patch that does not exist, creates no file or directory.
//!
//! Nothing read back from `.lspedit/` is trusted (see `util.rs`): ids given by a caller are
//! checked before any path is built from them, stored files are verified before anything is
//! done with them (`tampered_state` naming the file otherwise), a stored patch must match the
//! hash in its id, and the diff a reviewer or approver sees is planned again from the patch text.
//! `.lspedit` or any entry under it being a symlink is refused (`tampered_state`) at open and
//! before every operation.

mod approval;
mod checkpoint;
mod evidence;
mod journal;
mod model;
mod plan;
mod propose;
mod scan;
mod store;
mod util;
mod validate;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use lspedit_engine::parse_patch;

#[doc(hidden)]
pub use crate::commit::CommitObserver;
pub use approval::{ApprovalRequest, Approver, AutoApprove, Callback, Deny};
pub use evidence::{ApplyRecord, FileRecord, Manifest};
pub use journal::RecoveryReport;
pub use model::{
    ChangeKind, FileProblem, ProposeStats, ProposedFile, STAGES, StageReport, StageStatus,
};
pub use plan::{ApplyPlan, Atomicity, RollbackStrategy, ValidationStage};
pub use propose::{Proposal, ProposeRequest, ProposeSource};
pub use scan::language_globs;
pub use validate::{CopyScope, ValidationCommand, ValidationReport};

use self::checkpoint::{CheckpointManifest, Checkpoints};
use self::evidence::Evidence;
use self::journal::JournalFile;
use self::model::{Pipeline, affected};
use self::propose::{PatchPlan, plan_patch};
use self::store::{PatchStore, StoredPatch};
use self::util::{
    Layout, WorkspaceLock, is_valid_id, lock_workspace, new_id, now_ms, show_sha, state_error,
};
use crate::agent::{Tools, sync_text};
use crate::commit::{CommitResult, CommitUnit, OnChanged, PathChange, Policy, commit};
use crate::diagnostics::FileDiagnosticsStatus;
use crate::error::{Reason, ToolError};
use crate::events::{
    Event, EventSink, FailureDetails, FanOut, JsonlSink, LimitKind, RollbackStatus, ScopeBreach,
};
use crate::patch::FileStatus;
use crate::workspace::Workspace;

/// Configuration of a [`Workflow`].
#[derive(Clone)]
pub struct WorkflowConfig {
    /// Asked before every apply. Default: [`AutoApprove`].
    pub approver: Arc<dyn Approver>,
    /// Sinks that get every event, after the JSONL log.
    pub sinks: Vec<Arc<dyn EventSink>>,
    /// Log events to `.lspedit/events.jsonl`. Default: true.
    pub event_log: bool,
    /// Patch store cap: the oldest patches are evicted beyond this count or size.
    pub max_patches: usize,
    pub max_store_bytes: u64,
    /// Checkpoints kept (oldest evicted).
    pub max_checkpoints: usize,
    /// Evidence ids kept (oldest evicted).
    pub max_evidence: usize,
    /// The regex scan skips larger files.
    pub max_scan_file_bytes: u64,
    /// Limit of a validation run when the plan gives none.
    pub validation_timeout: Duration,
    /// Test hook called after each file of a commit is written.
    #[doc(hidden)]
    pub commit_observer: Option<Arc<dyn CommitObserver>>,
}

impl Default for WorkflowConfig {
    fn default() -> Self {
        WorkflowConfig {
            approver: Arc::new(AutoApprove),
            sinks: Vec::new(),
            event_log: true,
            max_patches: 256,
            max_store_bytes: 64 * 1024 * 1024,
            max_checkpoints: 64,
            max_evidence: 512,
            max_scan_file_bytes: 4 * 1024 * 1024,
            validation_timeout: Duration::from_secs(300),
            commit_observer: None,
        }
    }
}

impl std::fmt::Debug for WorkflowConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowConfig")
            .field("sinks", &self.sinks.len())
            .field("event_log", &self.event_log)
            .field("max_patches", &self.max_patches)
            .field("max_store_bytes", &self.max_store_bytes)
            .field("max_checkpoints", &self.max_checkpoints)
            .field("max_evidence", &self.max_evidence)
            .field("validation_timeout", &self.validation_timeout)
            .finish_non_exhaustive()
    }
}

/// How an apply ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApplyStatus {
    /// Every file was written.
    Applied,
    /// Per-file atomicity: some files were written, others refused.
    PartiallyApplied,
    /// The approver said no; nothing was written.
    Rejected,
    /// Refused (unknown id, stale, scope, validation, hunk, I/O); nothing was written, or what
    /// was written was rolled back, or (with [`RollbackStrategy::KeepChanges`]) what was
    /// written was kept: those files say `applied` and `checkpoint_id` restores them.
    Refused,
}

impl ApplyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ApplyStatus::Applied => "applied",
            ApplyStatus::PartiallyApplied => "partially_applied",
            ApplyStatus::Rejected => "rejected",
            ApplyStatus::Refused => "refused",
        }
    }
}

/// One file's outcome in an apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileApplyResult {
    pub path: String,
    pub applied: bool,
    pub reason: Option<Reason>,
    /// `M a.ts (1 hunk)` or the refusal.
    pub message: String,
}

/// The result of `apply_edit`. `llm_content` is what the model reads (with the diagnostics
/// feedback appended after a successful write, as the tools do).
#[derive(Debug, Clone)]
pub struct ApplyOutcome {
    pub patch_id: String,
    pub status: ApplyStatus,
    /// The refusal's reason code (the first failed file's for a partial apply).
    pub reason: Option<Reason>,
    pub llm_content: String,
    pub display: String,
    pub is_error: bool,
    pub files: Vec<FileApplyResult>,
    pub checkpoint_id: Option<String>,
    pub evidence_id: Option<String>,
    pub validation: Option<ValidationReport>,
    /// An all-or-nothing commit failed part-way and every written file was restored.
    pub rolled_back: bool,
    /// Diagnostics status of each written text file, in path order (as
    /// [`crate::ToolResult::diagnostics`]); empty when nothing was written or asked.
    pub diagnostics: Vec<FileDiagnosticsStatus>,
}

impl ApplyOutcome {
    fn not_found(patch_id: &str) -> ApplyOutcome {
        ApplyOutcome::refused_unread(
            patch_id,
            Reason::PatchNotFound,
            store::not_found_text(patch_id),
        )
    }

    /// Refused before the stored patch could be used (unknown, unreadable, tampered): nothing
    /// was touched.
    fn refused_unread(patch_id: &str, reason: Reason, text: String) -> ApplyOutcome {
        ApplyOutcome {
            patch_id: patch_id.to_string(),
            status: ApplyStatus::Refused,
            reason: Some(reason),
            llm_content: text.clone(),
            display: text,
            is_error: true,
            files: Vec::new(),
            checkpoint_id: None,
            evidence_id: None,
            validation: None,
            rolled_back: false,
            diagnostics: Vec::new(),
        }
    }
}

/// The result of `undo`.
#[derive(Debug, Clone)]
pub struct UndoOutcome {
    pub checkpoint_id: String,
    /// Files restored to their content before the apply (or removed, if it created them).
    pub restored: Vec<String>,
    /// A checkpoint of the state undo replaced: undoing it redoes the apply.
    pub redo_checkpoint_id: String,
    pub llm_content: String,
}

/// The workflow over one workspace.
pub struct Workflow {
    tools: Arc<Tools>,
    config: WorkflowConfig,
    layout: Layout,
    events: FanOut,
    store: PatchStore,
    evidence: Evidence,
    checkpoints: Checkpoints,
    recovered: Mutex<Vec<RecoveryReport>>,
}

impl std::fmt::Debug for Workflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workflow")
            .field("root", &self.tools.workspace().root())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// `stale_context` naming the first path whose sha now (per `now`) is not its proposed one.
fn stale_check(
    stored: &StoredPatch,
    now: impl Fn(&str) -> Result<Option<String>, ToolError>,
) -> Result<(), ToolError> {
    for (path, base) in &stored.base_shas {
        let now = now(path)?;
        if &now != base {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(path),
                format!(
                    "the file changed since the patch was proposed (base_sha {}, now {}); propose the edit again",
                    show_sha(base.as_deref()),
                    show_sha(now.as_deref())
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse (`stale_context`) unless every path is still in its old state. Run under the lock,
/// right before the first write.
fn check_fresh(ws: &Workspace, units: &[CommitUnit]) -> Result<(), ToolError> {
    for c in units.iter().flat_map(|u| &u.changes) {
        let now = util::state_sha(ws.read(&c.path)?.as_deref());
        let expected = util::state_sha(c.old.as_deref());
        if now != expected {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(&c.path),
                format!(
                    "the file changed since the patch was proposed (base_sha {}, now {}); propose the edit again",
                    show_sha(expected.as_deref()),
                    show_sha(now.as_deref())
                ),
            ));
        }
    }
    Ok(())
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// State of one apply, for the evidence and the outcome.
struct ApplyRun<'a> {
    stored: &'a StoredPatch,
    plan: &'a ApplyPlan,
    pipeline: Pipeline,
    start: Instant,
    checkpoint_id: Option<String>,
    validation: Option<ValidationReport>,
    rolled_back: bool,
    /// The size limit or timeout a refusal is about, for the failure event's details.
    breach: Option<ScopeBreach>,
    /// Set when written files were (or could not be) restored after a failure.
    rollback: Option<RollbackStatus>,
    /// Files written and kept after a later failure ([`RollbackStrategy::KeepChanges`]).
    kept: BTreeSet<String>,
}

impl ApplyRun<'_> {
    /// `Err(scope_violation)` when the plan's timeout has passed; `at` names the point.
    fn check_deadline(&mut self, at: &str) -> Result<(), ToolError> {
        let Some(limit) = self.plan.timeout() else {
            return Ok(());
        };
        let elapsed = self.start.elapsed();
        // At the limit, the time is up (so a zero timeout always refuses).
        if elapsed < limit {
            return Ok(());
        }
        self.breach = Some(ScopeBreach {
            limit_kind: LimitKind::TimeoutMs,
            limit: usize::try_from(limit.as_millis()).unwrap_or(usize::MAX),
            actual: usize::try_from(elapsed.as_millis()).unwrap_or(usize::MAX),
        });
        Err(ToolError::new(
            Reason::ScopeViolation,
            None,
            format!(
                "the apply took longer than its timeout of {} s ({at}); propose a smaller change or allow more time",
                limit.as_secs()
            ),
        ))
    }

    /// What remains of the plan's timeout (`None`: unbounded).
    fn remaining(&self) -> Option<Duration> {
        self.plan
            .timeout()
            .map(|t| t.saturating_sub(self.start.elapsed()))
    }
}

impl Workflow {
    /// Open the workflow over `tools`' workspace, rolling back any all-or-nothing commit a
    /// crashed process left half done (see [`Workflow::recovered`]).
    ///
    /// Refused (`tampered_state`) when `.lspedit` or an entry under it is a symlink: before the
    /// event log is opened, so nothing is written through it.
    pub fn open(tools: Arc<Tools>, config: WorkflowConfig) -> Result<Workflow, ToolError> {
        let root = tools.workspace().root().to_path_buf();
        let layout = Layout::new(&root);
        layout.verify()?;
        let mut events = FanOut::default();
        if config.event_log {
            events.push(Arc::new(JsonlSink::for_workspace(&root)));
        }
        for s in &config.sinks {
            events.push(Arc::clone(s));
        }
        let wf = Workflow {
            store: PatchStore::new(&layout, config.max_patches, config.max_store_bytes),
            evidence: Evidence::new(&layout, config.max_evidence),
            checkpoints: Checkpoints::new(&layout, config.max_checkpoints),
            tools,
            config,
            layout,
            events,
            recovered: Mutex::new(Vec::new()),
        };
        wf.recover_if_needed()?;
        Ok(wf)
    }

    pub fn tools(&self) -> &Arc<Tools> {
        &self.tools
    }

    /// The interrupted commits this workflow rolled back (when opened, or before a commit).
    pub fn recovered(&self) -> Vec<RecoveryReport> {
        lock(&self.recovered).clone()
    }

    /// Roll back what a crashed process left half committed before reading the workspace
    /// (open, propose, apply): otherwise a half-new set of files would be read as current.
    fn recover_if_needed(&self) -> Result<(), ToolError> {
        self.layout.verify()?;
        if journal::has_journal(&self.layout) {
            let _lock = self.workspace_lock()?;
            self.recover_pending();
        }
        Ok(())
    }

    /// Roll back the commits of crashed processes. Callers hold the workspace lock; since every
    /// commit holds it from its journal's creation to its removal, a journal seen under the lock
    /// belongs to a process that died mid-commit.
    fn recover_pending(&self) {
        if journal::has_journal(&self.layout) {
            let reports = journal::recover(self.tools.workspace(), &self.layout, &self.checkpoints);
            lock(&self.recovered).extend(reports);
        }
    }

    fn emit(&self, event: Event) {
        self.events.emit(&event);
    }

    fn workspace_lock(&self) -> Result<WorkspaceLock, ToolError> {
        lock_workspace(&self.layout)
            .map_err(|e| state_error(".lspedit/lock", "locking the workspace", &e))
    }

    /// The in-process locks of `paths`, taken in path order (the tools' order too).
    fn file_locks(&self, paths: impl Iterator<Item = String>) -> Vec<Arc<Mutex<()>>> {
        let ws = self.tools.workspace();
        let mut abs: Vec<PathBuf> = paths.filter_map(|p| ws.resolve(&p).ok()).collect();
        abs.sort();
        abs.dedup();
        abs.iter().map(|a| self.tools.file_lock(a)).collect()
    }

    /// `propose_edit`: plan the change, store it, and return it for review. Changes no file of
    /// the workspace.
    pub fn propose_edit(&self, request: &ProposeRequest) -> Result<Proposal, ToolError> {
        self.emit(Event::ToolStart {
            tool: "propose_edit".into(),
        });
        if let Err(e) = self.recover_if_needed() {
            self.emit(Event::ToolEnd {
                tool: "propose_edit".into(),
                is_error: true,
            });
            self.failure(&e);
            return Err(e);
        }
        let built = propose::build(
            self.tools.workspace(),
            request,
            &self.tools.config().engine,
            self.config.max_scan_file_bytes,
        );
        match built {
            Ok(propose::Built { stored, diff }) => {
                if let Err(e) = self.store.save(&stored) {
                    let err = state_error(".lspedit/patches", "storing the patch", &e);
                    self.emit(Event::ToolEnd {
                        tool: "propose_edit".into(),
                        is_error: true,
                    });
                    self.failure(&err);
                    return Err(err);
                }
                let evidence_id = stored.evidence_id().to_string();
                self.evidence.write_diff(&evidence_id, &stored.patch_text);
                if let Some(context) = &request.context {
                    let step = stored.step_id.as_deref().unwrap_or(&stored.patch_id);
                    self.evidence
                        .write_context(step, stored.created_ms, context);
                }
                self.evidence.write_manifest(&Manifest {
                    evidence_id,
                    patch_id: Some(stored.patch_id.clone()),
                    phase: "propose".into(),
                    source: stored.source.clone(),
                    outcome: "proposed".into(),
                    created_ms: now_ms(),
                    stages: stored.stages.clone(),
                    stats: stored.stats,
                    files: stored.files.clone(),
                });
                let proposal = Proposal::from_stored(&stored, diff);
                self.emit(Event::ToolEnd {
                    tool: "propose_edit".into(),
                    is_error: false,
                });
                self.emit(Event::DiffProposed {
                    diff_id: proposal.patch_id.clone(),
                    files_changed: proposal.affected_files(),
                    summary: proposal.summary.clone(),
                    evidence_id: proposal.evidence_id.clone(),
                });
                tracing::info!(patch = %proposal.patch_id, summary = %proposal.summary, "diff proposed");
                Ok(proposal)
            }
            Err(refused) => {
                let ev = new_id("refused", refused.raw.as_bytes());
                self.evidence.write_diff(&ev, &refused.raw);
                self.evidence.write_manifest(&Manifest {
                    evidence_id: ev.clone(),
                    patch_id: None,
                    phase: "propose".into(),
                    source: refused.source.into(),
                    outcome: "refused".into(),
                    created_ms: now_ms(),
                    stages: refused.stages.clone(),
                    stats: refused.stats,
                    files: refused.files.clone(),
                });
                self.emit(Event::ToolEnd {
                    tool: "propose_edit".into(),
                    is_error: true,
                });
                self.failure(&refused.error);
                let e = refused.error;
                Err(ToolError::new(
                    e.reason,
                    e.path.as_deref(),
                    format!("{} (evidence {ev})", e.message),
                ))
            }
        }
    }

    /// A stored proposal, to show it again (in this or another process). Its diff is planned
    /// again from the verified patch text on the files as they are; when they changed since the
    /// proposal, that is not the proposed diff any more and the answer is `stale_context`.
    pub fn proposal(&self, patch_id: &str) -> Result<Proposal, ToolError> {
        if !is_valid_id("patch", patch_id) {
            return Err(store::not_found(patch_id));
        }
        self.layout.verify()?;
        let stored = self.store.load(self.tools.workspace(), patch_id)?;
        let patch = parse_patch(&stored.patch_text).map_err(|e| ToolError::from_engine(None, e))?;
        let planned = plan_patch(self.tools.workspace(), &patch, &self.tools.config().engine)?;
        stale_check(&stored, |p| {
            Ok(util::state_sha(
                planned.bases.get(p).and_then(|b| b.as_deref()),
            ))
        })?;
        Ok(Proposal::from_stored(&stored, planned.diff))
    }

    fn failure(&self, e: &ToolError) {
        self.failure_with(e, FailureDetails::message(e.to_string()), None);
    }

    /// `failure_detected` with `details`, then `execution_paused` (naming the diff when known).
    fn failure_with(&self, e: &ToolError, details: FailureDetails, diff_id: Option<&str>) {
        self.emit(Event::FailureDetected {
            reason: e.reason.as_str().to_string(),
            details,
        });
        self.emit(Event::ExecutionPaused {
            reason: "needs_user_decision".into(),
            diff_id: diff_id.map(str::to_string),
        });
    }

    /// `apply_edit`: apply a stored patch under `plan`. Never panics on bad input; every
    /// refusal is an outcome with `is_error` and a reason code.
    pub fn apply_edit(&self, patch_id: &str, plan: &ApplyPlan) -> ApplyOutcome {
        self.apply_edit_with(patch_id, plan, self.config.approver.as_ref())
    }

    /// [`Workflow::apply_edit`], asking `approver` instead of the configured one (a CLI that
    /// asks the person at the terminal for this one apply).
    pub fn apply_edit_with(
        &self,
        patch_id: &str,
        plan: &ApplyPlan,
        approver: &dyn Approver,
    ) -> ApplyOutcome {
        // Checked before anything is emitted or written: an unknown id creates nothing, and an
        // id that is not one never becomes part of a path.
        if !is_valid_id("patch", patch_id) {
            return ApplyOutcome::not_found(patch_id);
        }
        let loaded = self.layout.verify().and_then(|()| {
            if self.store.exists(patch_id) {
                self.store.load(self.tools.workspace(), patch_id).map(Some)
            } else {
                Ok(None)
            }
        });
        let stored = match loaded {
            Ok(Some(p)) => p,
            Ok(None) => return ApplyOutcome::not_found(patch_id),
            Err(e) => {
                self.failure(&e);
                return ApplyOutcome::refused_unread(
                    patch_id,
                    e.reason,
                    format!("Error: {e}\nNothing was applied."),
                );
            }
        };
        let mut run = ApplyRun {
            stored: &stored,
            plan,
            pipeline: Pipeline::from_reports(&stored.stages),
            start: Instant::now(),
            checkpoint_id: None,
            validation: None,
            rolled_back: false,
            breach: None,
            rollback: None,
            kept: BTreeSet::new(),
        };
        let step_id = stored
            .step_id
            .clone()
            .unwrap_or_else(|| stored.patch_id.clone());
        self.emit(Event::ToolStart {
            tool: "apply_edit".into(),
        });
        self.emit(Event::StepStarted {
            step_id: step_id.clone(),
            diff_id: stored.patch_id.clone(),
        });
        self.emit(Event::StageChanged {
            step_id: step_id.clone(),
            stage: "edit".into(),
        });
        let out = match self.apply_inner(&mut run, approver) {
            Ok(out) => out,
            Err(e) => self.refuse(&run, e),
        };
        if matches!(
            out.status,
            ApplyStatus::Applied | ApplyStatus::PartiallyApplied
        ) {
            self.emit(Event::StepCompleted {
                step_id,
                diff_id: stored.patch_id.clone(),
                status: out.status.as_str().into(),
            });
        }
        if let Some(f) = out.files.iter().find(|f| !f.applied)
            && out.status == ApplyStatus::PartiallyApplied
        {
            self.emit(Event::FailureDetected {
                reason: f.reason.map_or("io_error", Reason::as_str).to_string(),
                details: FailureDetails::message(f.message.clone()),
            });
            self.emit(Event::ExecutionPaused {
                reason: "needs_user_decision".into(),
                diff_id: Some(stored.patch_id.clone()),
            });
        }
        self.emit(Event::ToolEnd {
            tool: "apply_edit".into(),
            is_error: out.is_error,
        });
        out
    }

    fn apply_inner(
        &self,
        run: &mut ApplyRun<'_>,
        approver: &dyn Approver,
    ) -> Result<ApplyOutcome, ToolError> {
        let stored = run.stored;
        let ws = self.tools.workspace();
        self.recover_if_needed()?;
        let patch = parse_patch(&stored.patch_text).map_err(|e| {
            run.pipeline.fail("parse", e.to_string());
            ToolError::from_engine(None, e)
        })?;
        // Stale and scope checks come before the approver is asked about anything. They, and
        // the approver, look at the patch text planned on the files as they are (which must be
        // the proposed ones), not at the stored description of it.
        let reviewed = plan_patch(ws, &patch, &self.tools.config().engine).inspect_err(|e| {
            run.pipeline.fail("hunk", e.to_string());
        })?;
        stale_check(stored, |p| {
            Ok(util::state_sha(
                reviewed.bases.get(p).and_then(|b| b.as_deref()),
            ))
        })
        .inspect_err(|e| {
            run.pipeline.fail("stale", e.to_string());
        })?;
        run.pipeline
            .pass("stale", "every file is as it was when proposed");
        self.check_same_plan(stored, &reviewed).inspect_err(|e| {
            run.pipeline.fail("hunk", e.to_string());
        })?;
        let changing: Vec<&ProposedFile> = reviewed
            .files
            .iter()
            .filter(|f| f.problem.is_none())
            .collect();
        let scope = match run.plan.check(&changing) {
            Ok(s) => s,
            Err(e) => {
                run.pipeline.fail("scope", e.to_string());
                run.breach = run.plan.breach(&changing);
                return Err(e);
            }
        };
        run.pipeline.pass("scope", scope);
        if run.plan.atomicity == Atomicity::AllOrNothing
            && let Some(f) = reviewed.files.iter().find(|f| f.problem.is_some())
            && let Some(p) = &f.problem
        {
            let e = ToolError::new(
                util::reason_from_code(&p.reason),
                Some(&f.path),
                format!(
                    "{}; all_or_nothing applies no file when one is refused",
                    p.message
                ),
            );
            run.pipeline.fail("hunk", e.to_string());
            return Err(e);
        }

        run.check_deadline("before approval")?;
        let approval_id = new_id("appr", stored.patch_id.as_bytes());
        self.emit(Event::ApprovalRequested {
            approval_id: approval_id.clone(),
            kind: "apply_diff".into(),
            diff_id: stored.patch_id.clone(),
        });
        let files = affected(&reviewed.files);
        let approved = approver.approve(&ApprovalRequest {
            approval_id: &approval_id,
            patch_id: &stored.patch_id,
            diff: &reviewed.diff,
            files: &files,
            summary: &stored.summary,
        });
        self.emit(Event::ApprovalResolved {
            approval_id,
            approved,
        });
        if !approved {
            return Ok(self.rejected(run));
        }
        run.check_deadline("after approval")?;

        let file_locks = self.file_locks(stored.base_shas.keys().cloned());
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();
        let _ws_lock = self.workspace_lock()?;
        self.recover_pending();
        // Under the locks: plan again on the files as they are now, and insist they are the
        // proposed ones so the result is exactly the reviewed diff.
        let mut planned = plan_patch(ws, &patch, &self.tools.config().engine)?;
        stale_check(stored, |p| {
            Ok(util::state_sha(
                planned.bases.get(p).and_then(|b| b.as_deref()),
            ))
        })
        .inspect_err(|e| {
            run.pipeline.fail("stale", e.to_string());
        })?;
        self.check_same_plan(stored, &planned).inspect_err(|e| {
            run.pipeline.fail("hunk", e.to_string());
        })?;
        if planned.diff != reviewed.diff {
            let e = ToolError::new(
                Reason::StaleContext,
                None,
                "the patch no longer plans as the diff that was approved; propose the edit again",
            );
            run.pipeline.fail("hunk", e.to_string());
            return Err(e);
        }
        if planned.units.is_empty() {
            let e = ToolError::new(Reason::EmptyDiff, None, "the patch changes nothing");
            run.pipeline.fail("empty", e.to_string());
            return Err(e);
        }

        if let Some(cmd) = &run.plan.validation
            && run.plan.validation_stage == ValidationStage::Isolated
        {
            let changes: Vec<(String, Option<&[u8]>)> = planned
                .units
                .iter()
                .flat_map(|u| &u.changes)
                .map(|c| (c.path.clone(), c.new.as_deref()))
                .collect();
            self.validate(run, cmd, &changes, "nothing was applied")?;
            run.check_deadline("after validation")?;
        }

        // The plan read the files under the locks just now; after a validation run (which can
        // take minutes) they are checked once more, right before the checkpoint and the writes.
        if run.validation.is_some() {
            check_fresh(ws, &planned.units).inspect_err(|e| {
                run.pipeline.fail("stale", e.to_string());
            })?;
        }
        let all: Vec<&PathChange> = planned.units.iter().flat_map(|u| &u.changes).collect();
        let checkpoint_id = new_id("ckpt", stored.patch_id.as_bytes());
        let manifest = self
            .checkpoints
            .create(&checkpoint_id, &stored.patch_id, &all)
            .map_err(|e| ToolError::io(".lspedit/checkpoints", "writing the checkpoint", &e))?;
        run.checkpoint_id = Some(checkpoint_id.clone());
        self.emit(Event::CheckpointCreated {
            checkpoint_id: checkpoint_id.clone(),
            files: all.iter().map(|c| c.path.clone()).collect(),
        });
        let result = self.commit(&mut planned.units, run.plan.atomicity, &manifest);
        if result.rolled_back {
            run.rollback = Some(RollbackStatus::Success);
        }
        if !result.rollback_errors.is_empty() {
            run.rollback = Some(RollbackStatus::Failed);
            // Files may be left new: keep the checkpoint so undo can still restore them.
            let e = ToolError::new(
                Reason::IoError,
                None,
                format!(
                    "the commit failed and restoring failed too ({}); checkpoint {checkpoint_id} holds the old contents",
                    result.rollback_errors.join("; ")
                ),
            );
            run.rolled_back = false;
            return Err(e);
        }
        if result.written().next().is_none() {
            self.checkpoints.remove(&checkpoint_id);
            run.checkpoint_id = None;
            run.rolled_back = result.rolled_back;
            let e = result.failures().next().map_or_else(
                || ToolError::new(Reason::IoError, None, "no file was written"),
                |(_, e)| e.clone(),
            );
            let e = ToolError::new(
                e.reason,
                e.path.as_deref(),
                if run.rolled_back {
                    format!("{}; every file already written was rolled back", e.message)
                } else {
                    e.message
                },
            );
            return Err(e);
        }
        let applied_paths: BTreeSet<String> = result
            .written()
            .flat_map(|i| planned.units[i].changes.iter().map(|c| c.path.clone()))
            .collect();
        let mut manifest = manifest;
        if result.failures().next().is_some() {
            if let Err(e) = self.checkpoints.retain(&manifest, &applied_paths) {
                tracing::warn!(checkpoint = %checkpoint_id, error = %e, "trimming the checkpoint failed");
            }
            manifest.entries.retain(|e| applied_paths.contains(&e.path));
        }
        if run.plan.timeout().is_some() || run.plan.validation_stage == ValidationStage::AfterCommit
        {
            self.after_commit(run, &manifest)?;
        }
        Ok(self.applied(run, &planned, &result, &applied_paths))
    }

    /// Run the plan's validation command on the workspace with `changes` applied, in a
    /// temporary copy, bounded by what remains of the plan's timeout (or the workflow's
    /// validation bound). `Err(validation_failed)` unless it passes; `after` ends the message.
    fn validate(
        &self,
        run: &mut ApplyRun<'_>,
        cmd: &ValidationCommand,
        changes: &[(String, Option<&[u8]>)],
        after: &str,
    ) -> Result<(), ToolError> {
        let timeout = run.remaining().unwrap_or(self.config.validation_timeout);
        let report = validate::run_isolated(self.tools.workspace().root(), changes, cmd, timeout)?;
        let passed = report.passed;
        let why = match (report.timed_out, run.plan.timeout()) {
            (true, Some(limit)) => {
                run.breach = Some(ScopeBreach {
                    limit_kind: LimitKind::TimeoutMs,
                    limit: usize::try_from(limit.as_millis()).unwrap_or(usize::MAX),
                    actual: usize::try_from(run.start.elapsed().as_millis()).unwrap_or(usize::MAX),
                });
                format!(
                    "timed out: the apply's timeout of {} s ran out",
                    limit.as_secs()
                )
            }
            (true, None) => format!("timed out after {} s", timeout.as_secs()),
            (false, _) => match report.exit_code {
                Some(c) => format!("exited with code {c}"),
                None => "was killed by a signal".to_string(),
            },
        };
        let tail = report.output_tail.clone();
        run.validation = Some(report);
        if passed {
            return Ok(());
        }
        Err(ToolError::new(
            Reason::ValidationFailed,
            None,
            format!(
                "the validation command `{}` {why}; {after}. Output (tail):\n{tail}",
                cmd.display()
            ),
        ))
    }

    /// After a commit: validation of the written workspace (when the plan asks for it there)
    /// and the plan's timeout. On a failure, the written files are restored from the checkpoint
    /// or kept, per the plan's rollback strategy. Callers hold the file and workspace locks.
    fn after_commit(
        &self,
        run: &mut ApplyRun<'_>,
        manifest: &CheckpointManifest,
    ) -> Result<(), ToolError> {
        let mut checked = run.check_deadline("after the commit");
        if checked.is_ok()
            && run.plan.validation_stage == ValidationStage::AfterCommit
            && let Some(cmd) = &run.plan.validation
        {
            let what = match run.plan.rollback {
                RollbackStrategy::RestoreCheckpoint => "the written files were restored",
                RollbackStrategy::KeepChanges => "the written files were kept; undo restores them",
            };
            checked = self.validate(run, cmd, &[], what);
        }
        let Err(e) = checked else {
            return Ok(());
        };
        match run.plan.rollback {
            RollbackStrategy::KeepChanges => {
                run.kept = manifest.entries.iter().map(|e| e.path.clone()).collect();
                Err(e)
            }
            RollbackStrategy::RestoreCheckpoint => match self.restore_locked(manifest) {
                Ok(redo) => {
                    self.checkpoints.remove(&redo.redo_checkpoint_id);
                    run.checkpoint_id = None;
                    run.rolled_back = true;
                    run.rollback = Some(RollbackStatus::Success);
                    Err(e)
                }
                Err(restore) => {
                    run.rollback = Some(RollbackStatus::Failed);
                    Err(ToolError::new(
                        e.reason,
                        e.path.as_deref(),
                        format!(
                            "{}; restoring the written files failed ({restore}); checkpoint {} holds the old contents",
                            e.message, manifest.checkpoint_id
                        ),
                    ))
                }
            },
        }
    }

    /// The plan made now must be the one that was proposed (same files, same results).
    fn check_same_plan(&self, stored: &StoredPatch, planned: &PatchPlan) -> Result<(), ToolError> {
        let same = planned.files.len() == stored.files.len()
            && planned.files.iter().zip(&stored.files).all(|(a, b)| {
                a.path == b.path
                    && a.new_path == b.new_path
                    && a.kind == b.kind
                    && a.base_sha == b.base_sha
                    && a.new_sha == b.new_sha
                    && (a.added, a.removed) == (b.added, b.removed)
                    && a.problem.is_some() == b.problem.is_some()
            });
        if !same {
            return Err(ToolError::new(
                Reason::StaleContext,
                None,
                "the patch no longer plans as it did when proposed; propose the edit again",
            ));
        }
        Ok(())
    }

    fn record(
        &self,
        run: &ApplyRun<'_>,
        status: ApplyStatus,
        reason: Option<Reason>,
        message: &str,
        files: &[FileApplyResult],
    ) {
        let stored = run.stored;
        self.evidence.write_manifest(&Manifest {
            evidence_id: stored.evidence_id().to_string(),
            patch_id: Some(stored.patch_id.clone()),
            phase: "apply".into(),
            source: stored.source.clone(),
            outcome: status.as_str().into(),
            created_ms: now_ms(),
            stages: run.pipeline.reports(),
            stats: stored.stats,
            files: stored.files.clone(),
        });
        self.evidence.write_apply(&ApplyRecord {
            patch_id: stored.patch_id.clone(),
            evidence_id: stored.evidence_id().to_string(),
            status: status.as_str().into(),
            reason: reason.map(|r| r.as_str().to_string()),
            message: message.to_string(),
            atomicity: run.plan.atomicity.as_str().into(),
            files: files
                .iter()
                .map(|f| FileRecord {
                    path: f.path.clone(),
                    applied: f.applied,
                    reason: f.reason.map(|r| r.as_str().to_string()),
                    message: f.message.clone(),
                })
                .collect(),
            checkpoint_id: run.checkpoint_id.clone(),
            validation: run.validation.clone(),
            rolled_back: run.rolled_back,
            duration_ms: u64::try_from(run.start.elapsed().as_millis()).unwrap_or(u64::MAX),
            finished_ms: now_ms(),
        });
    }

    fn refuse(&self, run: &ApplyRun<'_>, e: ToolError) -> ApplyOutcome {
        let stored = run.stored;
        tracing::info!(patch = %stored.patch_id, error = %e, "apply refused");
        let files: Vec<FileApplyResult> = stored
            .files
            .iter()
            .map(|f| {
                if run.kept.contains(&f.path) {
                    return FileApplyResult {
                        path: f.path.clone(),
                        applied: true,
                        reason: None,
                        message: "written and kept".into(),
                    };
                }
                FileApplyResult {
                    path: f.path.clone(),
                    applied: false,
                    reason: Some(
                        f.problem
                            .as_ref()
                            .map_or(e.reason, |p| util::reason_from_code(&p.reason)),
                    ),
                    message: "not applied".into(),
                }
            })
            .collect();
        let outcome = match (&run.checkpoint_id, run.kept.is_empty()) {
            (Some(ckpt), false) => format!(
                "The files written were kept ({}); undo checkpoint {ckpt} restores them",
                run.kept.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            _ if run.rolled_back => {
                "Nothing was applied; the files already written were rolled back".to_string()
            }
            _ => "Nothing was applied".to_string(),
        };
        let text = format!(
            "Error: {e}\n{outcome} (patch {}, evidence {}).",
            stored.patch_id,
            stored.evidence_id()
        );
        self.record(
            run,
            ApplyStatus::Refused,
            Some(e.reason),
            &e.to_string(),
            &files,
        );
        if !run.kept.is_empty() {
            // The files are written and stay so: the diff was applied, then something failed.
            self.emit(Event::DiffApplied {
                diff_id: stored.patch_id.clone(),
                files_changed: run.kept.iter().cloned().collect(),
                evidence_id: stored.evidence_id().to_string(),
            });
        }
        self.failure_with(
            &e,
            FailureDetails {
                message: e.to_string(),
                scope: run.breach,
                rollback: run.rollback,
            },
            Some(&stored.patch_id),
        );
        ApplyOutcome {
            patch_id: stored.patch_id.clone(),
            status: ApplyStatus::Refused,
            reason: Some(e.reason),
            display: text.clone(),
            llm_content: text,
            is_error: true,
            files,
            checkpoint_id: run.checkpoint_id.clone(),
            evidence_id: Some(stored.evidence_id().to_string()),
            validation: run.validation.clone(),
            rolled_back: run.rolled_back,
            diagnostics: Vec::new(),
        }
    }

    fn rejected(&self, run: &ApplyRun<'_>) -> ApplyOutcome {
        let stored = run.stored;
        let text = format!(
            "Patch '{}' was rejected; nothing was applied. Propose a different change or ask the user.",
            stored.patch_id
        );
        let files: Vec<FileApplyResult> = stored
            .files
            .iter()
            .map(|f| FileApplyResult {
                path: f.path.clone(),
                applied: false,
                reason: None,
                message: "rejected".into(),
            })
            .collect();
        self.record(run, ApplyStatus::Rejected, None, &text, &files);
        self.emit(Event::ExecutionPaused {
            reason: "diff_rejected".into(),
            diff_id: Some(stored.patch_id.clone()),
        });
        ApplyOutcome {
            patch_id: stored.patch_id.clone(),
            status: ApplyStatus::Rejected,
            reason: None,
            display: text.clone(),
            llm_content: text,
            is_error: true,
            files,
            checkpoint_id: None,
            evidence_id: Some(stored.evidence_id().to_string()),
            validation: None,
            rolled_back: false,
            diagnostics: Vec::new(),
        }
    }

    fn applied(
        &self,
        run: &ApplyRun<'_>,
        planned: &PatchPlan,
        result: &CommitResult,
        applied_paths: &BTreeSet<String>,
    ) -> ApplyOutcome {
        let stored = run.stored;
        let ws = self.tools.workspace();
        let failed_commit: Vec<(BTreeSet<String>, &ToolError)> = result
            .failures()
            .map(|(i, e)| {
                (
                    planned.units[i]
                        .changes
                        .iter()
                        .map(|c| c.path.clone())
                        .collect(),
                    e,
                )
            })
            .collect();
        let mut files = Vec::new();
        let mut summary = String::new();
        let mut sync = String::new();
        for fr in &planned.reports {
            let k = fr.path.clone();
            let commit_err = failed_commit
                .iter()
                .find(|(paths, _)| paths.contains(&k))
                .map(|(_, e)| *e);
            let (applied, reason, line) = match (&fr.status, commit_err) {
                (FileStatus::Failed(e), _) => (false, Some(e.reason), fr.summary_line()),
                (FileStatus::Applied(_), Some(e)) => (
                    false,
                    Some(e.reason),
                    format!("FAILED {}: {}: {}", fr.path, e.reason, e.message),
                ),
                (FileStatus::Applied(o), None) => {
                    sync.push_str(&sync_text(&o.path, &o.sync));
                    (true, None, fr.summary_line())
                }
            };
            // A section that changed nothing is not reported as a file of the apply.
            if applied && !applied_paths.contains(&k) {
                continue;
            }
            summary.push_str(&line);
            summary.push('\n');
            files.push(FileApplyResult {
                path: k,
                applied,
                reason,
                message: line,
            });
        }
        let checkpoint_id = run.checkpoint_id.clone().unwrap_or_default();
        let partial = files.iter().any(|f| !f.applied);
        let status = if partial {
            ApplyStatus::PartiallyApplied
        } else {
            ApplyStatus::Applied
        };
        for c in planned.units.iter().flat_map(|u| &u.changes) {
            if let (true, Some(new), Ok(abs)) =
                (applied_paths.contains(&c.path), &c.new, ws.resolve(&c.path))
            {
                self.tools.remember(&abs, new);
            }
        }
        let mut llm = format!(
            "Applied {} (checkpoint {checkpoint_id}; undo restores the files).\n{}",
            stored.patch_id,
            summary.trim_end()
        );
        llm.push_str(&sync);
        let written: Vec<crate::agent::WrittenFile> = planned
            .written
            .iter()
            .filter(|w| applied_paths.contains(&w.path))
            .cloned()
            .collect();
        let feedback = self.tools.diagnostics_feedback_with_status(&written);
        llm.push_str(&feedback.text);
        let display = format!("{summary}{}", planned.diff);
        let first_failure = files.iter().find(|f| !f.applied);
        let reason = first_failure.and_then(|f| f.reason);
        self.record(run, status, reason, &summary, &files);
        let changed: Vec<String> = applied_paths.iter().cloned().collect();
        self.emit(Event::DiffApplied {
            diff_id: stored.patch_id.clone(),
            files_changed: changed,
            evidence_id: stored.evidence_id().to_string(),
        });
        tracing::info!(patch = %stored.patch_id, status = status.as_str(), "diff applied");
        ApplyOutcome {
            patch_id: stored.patch_id.clone(),
            status,
            reason,
            llm_content: llm,
            display,
            is_error: partial,
            files,
            checkpoint_id: Some(checkpoint_id),
            evidence_id: Some(stored.evidence_id().to_string()),
            validation: run.validation.clone(),
            rolled_back: false,
            diagnostics: feedback.statuses,
        }
    }

    /// Commit `units` by the one commit path, as the workflow does: a file changed since the
    /// plan is refused (`stale_context`: the person approved that diff, not a new one),
    /// all-or-nothing runs under a journal naming `checkpoint`, and a put-back recreates a
    /// deleted file with the mode `checkpoint` recorded. Callers hold the file and workspace
    /// locks, have checked freshness, and `checkpoint` covers every path of `units`.
    fn commit(
        &self,
        units: &mut [CommitUnit],
        atomicity: Atomicity,
        checkpoint: &CheckpointManifest,
    ) -> CommitResult {
        for c in units.iter_mut().flat_map(|u| u.changes.iter_mut()) {
            c.old_mode = checkpoint
                .entries
                .iter()
                .find(|e| e.path == c.path)
                .and_then(|e| e.mode);
        }
        let ws = self.tools.workspace();
        let mut journal = JournalFile::new(ws, &self.layout, checkpoint);
        let policy = Policy {
            on_changed: OnChanged::Refuse,
            journal: match atomicity {
                Atomicity::PerFile => None,
                Atomicity::AllOrNothing => Some(&mut journal),
            },
            observer: self.config.commit_observer.as_deref(),
        };
        commit(ws, units, policy)
    }

    /// `undo`: restore the files of a checkpoint to their content before the apply, refusing
    /// (`stale_context`, nothing restored) when any of them changed since. The restore is
    /// all-or-nothing and itself checkpointed (`redo_checkpoint_id`).
    ///
    /// An unknown id (or one that is not a checkpoint id: it is never made into a path) is
    /// `checkpoint_not_found`; a checkpoint that is not what lspedit wrote is `tampered_state`
    /// naming its file, and nothing is restored.
    pub fn undo(&self, checkpoint_id: &str) -> Result<UndoOutcome, ToolError> {
        let manifest = self
            .layout
            .verify()
            .and_then(|()| self.checkpoints.load(self.tools.workspace(), checkpoint_id))
            .inspect_err(|e| {
                if e.reason != Reason::CheckpointNotFound {
                    self.failure(e);
                }
            })?;
        self.emit(Event::ToolStart {
            tool: "undo".into(),
        });
        let result = self.undo_inner(&manifest);
        self.emit(Event::ToolEnd {
            tool: "undo".into(),
            is_error: result.is_err(),
        });
        if let Err(e) = &result {
            self.failure(e);
        }
        result
    }

    fn undo_inner(&self, manifest: &CheckpointManifest) -> Result<UndoOutcome, ToolError> {
        let file_locks = self.file_locks(manifest.entries.iter().map(|e| e.path.clone()));
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();
        let _ws_lock = self.workspace_lock()?;
        self.recover_pending();
        let out = self.restore_locked(manifest)?;
        self.emit(Event::CheckpointCreated {
            checkpoint_id: out.redo_checkpoint_id.clone(),
            files: out.restored.clone(),
        });
        Ok(out)
    }

    /// Restore a checkpoint (see [`Workflow::undo`]); callers hold the file and workspace locks.
    fn restore_locked(&self, manifest: &CheckpointManifest) -> Result<UndoOutcome, ToolError> {
        let ws = self.tools.workspace();
        let id = &manifest.checkpoint_id;
        let mut changes = Vec::with_capacity(manifest.entries.len());
        for entry in &manifest.entries {
            let now = ws.read(&entry.path)?;
            let now_sha = util::state_sha(now.as_deref());
            if now_sha != entry.new_sha {
                return Err(ToolError::new(
                    Reason::StaleContext,
                    Some(&entry.path),
                    format!(
                        "the file changed since the apply (expected {}, now {}); undo refused, nothing was restored",
                        show_sha(entry.new_sha.as_deref()),
                        show_sha(now_sha.as_deref())
                    ),
                ));
            }
            let old = self.checkpoints.old_bytes(id, entry)?;
            changes.push(PathChange {
                path: entry.path.clone(),
                abs: ws.resolve(&entry.path)?,
                old: now,
                new: old,
                new_mode: entry.mode,
                old_mode: None,
            });
        }
        let mut units = vec![CommitUnit {
            label: id.clone(),
            changes,
            modes: Vec::new(),
        }];
        check_fresh(ws, &units)?;
        let redo_id = new_id("ckpt", id.as_bytes());
        let all: Vec<&PathChange> = units[0].changes.iter().collect();
        let redo = self
            .checkpoints
            .create(&redo_id, &manifest.patch_id, &all)
            .map_err(|e| ToolError::io(".lspedit/checkpoints", "writing the checkpoint", &e))?;
        let result = self.commit(&mut units, Atomicity::AllOrNothing, &redo);
        if let Some((_, e)) = result.failures().next() {
            self.checkpoints.remove(&redo_id);
            return Err(e.clone());
        }
        self.checkpoints.remove(id);
        let all = &units[0].changes;
        let restored: Vec<String> = all.iter().map(|c| c.path.clone()).collect();
        for c in all {
            if let Some(new) = &c.new {
                self.tools.remember(&c.abs, new);
            }
        }
        let llm_content = format!(
            "Restored {} file(s) from checkpoint {id}: {}. Undo checkpoint {redo_id} to redo.",
            restored.len(),
            restored.join(", ")
        );
        Ok(UndoOutcome {
            checkpoint_id: id.clone(),
            restored,
            redo_checkpoint_id: redo_id,
            llm_content,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The CLI and the MCP server share one workflow across threads and tasks.
    #[test]
    fn workflow_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Workflow>();
        check::<ApplyOutcome>();
    }
}
