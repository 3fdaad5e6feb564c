//! `apply_edit`, step by step: the stored patch is parsed and planned again on the files as they
//! are (which must be the proposed ones), checked against the plan's limits, shown to the
//! approver, planned once more under the locks, optionally validated in a temporary copy,
//! checkpointed and committed; every step records its verdict in the pipeline report, the
//! evidence and the events.

use std::collections::BTreeSet;
use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use lspedit_engine::{Patch, parse_patch};
use serde::{Deserialize, Serialize};

use super::approval::{ApprovalRequest, Approver, AutoApprove, Deny};
use super::checkpoint::CheckpointManifest;
use super::evidence::{ApplyRecord, FileRecord, Manifest, Phase};
use super::fresh::{check_fresh, stale_check};
use super::model::{Pipeline, ProposedFile, Stage, affected};
use super::plan::{ApplyPlan, Atomicity, RollbackStrategy, ValidationStage};
use super::policy::Approve;
use super::propose::{self, Built, PatchPlan, ProposeRequest, plan_patch};
use super::store::{self, StoredPatch};
use super::util::{self, is_valid_id, new_id, now_ms};
use super::validate::{self, ValidationCommand, ValidationReport};
use super::{Workflow, lock};
use lspedit_tools::WrittenFile;
use lspedit_tools::diagnostics::FileDiagnosticsStatus;
use lspedit_tools::events::{
    Event, FailureDetails, LimitKind, PauseReason, RollbackStatus, ScopeBreach, StepStage,
    StepStatus,
};
use lspedit_tools::render::sync_text;
use lspedit_write::FileStatus;
use lspedit_write::commit::{CommitResult, PathChange};
use lspedit_write::{Reason, ToolError};

/// How an apply ended; serialized (evidence) as its [`ApplyStatus::as_str`] code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// Every status, in the order docs/design.md §9 lists them.
    pub const ALL: &'static [ApplyStatus] = &[
        ApplyStatus::Applied,
        ApplyStatus::PartiallyApplied,
        ApplyStatus::Rejected,
        ApplyStatus::Refused,
    ];

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
    /// [`lspedit_tools::ToolResult::diagnostics`]); empty when nothing was written or asked.
    pub diagnostics: Vec<FileDiagnosticsStatus>,
    /// The unified diff applied; for [`Workflow::apply_change`], the diff it planned whatever
    /// the outcome. Empty when there is none.
    pub diff: String,
}

/// An apply run from async code that did not complete (`lspedit_tools::run_blocking`): refused,
/// as one that never read its patch, naming why.
impl lspedit_tools::FromRefusal for ApplyOutcome {
    fn from_refusal(error: ToolError) -> ApplyOutcome {
        ApplyOutcome::refused_unread("", error.reason, format!("Error: {error}"))
    }
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
            diff: String::new(),
        }
    }
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

impl<'a> ApplyRun<'a> {
    /// A run of `stored` under `plan`, starting now, with the verdicts its proposal recorded.
    fn new(stored: &'a StoredPatch, plan: &'a ApplyPlan) -> ApplyRun<'a> {
        ApplyRun {
            stored,
            plan,
            pipeline: Pipeline::from_reports(&stored.stages),
            start: Instant::now(),
            checkpoint_id: None,
            validation: None,
            rolled_back: false,
            breach: None,
            rollback: None,
            kept: BTreeSet::new(),
        }
    }
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

    /// `e`, recorded as the verdict of `stage`.
    fn failed(&mut self, stage: Stage, e: ToolError) -> ToolError {
        self.pipeline.fail(stage, e.to_string());
        e
    }

    /// What remains of the plan's timeout (`None`: unbounded).
    fn remaining(&self) -> Option<Duration> {
        self.plan
            .timeout()
            .map(|t| t.saturating_sub(self.start.elapsed()))
    }

    /// Each proposed file's result when the apply is refused with `e`: not applied (for its
    /// own problem's reason, else `e`'s), or written and kept.
    fn refused_files(&self, e: &ToolError) -> Vec<FileApplyResult> {
        self.stored
            .files
            .iter()
            .map(|f| {
                if self.kept.contains(&f.path) {
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
                    reason: Some(f.problem.as_ref().map_or(e.reason, |p| p.reason)),
                    message: "not applied".into(),
                }
            })
            .collect()
    }

    /// What a refusal left on disk, for the model.
    fn refusal_outcome(&self) -> String {
        match (&self.checkpoint_id, self.kept.is_empty()) {
            (Some(ckpt), false) => format!(
                "The files written were kept ({}); undo checkpoint {ckpt} restores them",
                self.kept.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            _ if self.rolled_back => {
                "Nothing was applied; the files already written were rolled back".to_string()
            }
            _ => "Nothing was applied".to_string(),
        }
    }
}

/// `reviewed` within the plan's limits, and with no refused file under all-or-nothing.
fn within_plan(run: &mut ApplyRun<'_>, reviewed: &PatchPlan) -> Result<(), ToolError> {
    let changing: Vec<&ProposedFile> = reviewed
        .files
        .iter()
        .filter(|f| f.problem.is_none())
        .collect();
    let scope = run.plan.check(&changing).map_err(|e| {
        run.breach = run.plan.breach(&changing);
        run.failed(Stage::Scope, e)
    })?;
    run.pipeline.pass(Stage::Scope, scope);
    if run.plan.atomicity == Atomicity::AllOrNothing
        && let Some(f) = reviewed.files.iter().find(|f| f.problem.is_some())
        && let Some(p) = &f.problem
    {
        let e = ToolError::new(
            p.reason,
            Some(&f.path),
            format!(
                "{}; {} applies no file when one is refused",
                p.message,
                lspedit_tools::front::say(&lspedit_tools::front::Step::AllOrNothing)
            ),
        );
        return Err(run.failed(Stage::Hunk, e));
    }
    Ok(())
}

/// What became of the files a commit wrote and then put back, for `failure_detected`'s
/// `rollback`: `None` when it put nothing back (nothing was written before the failure, or
/// nothing failed). The invariant: a `failure_detected` after a write that the failure undid
/// (all-or-nothing, or a unit of several files under per-file atomicity) carries `rollback`.
pub(crate) fn rollback_status(result: &CommitResult) -> Option<RollbackStatus> {
    if !result.rollback_errors.is_empty() {
        Some(RollbackStatus::Failed)
    } else if result.put_back {
        Some(RollbackStatus::Success)
    } else {
        None
    }
}

/// The refusal of a commit that wrote nothing: the first failure, saying when every file
/// already written was rolled back.
fn nothing_written(result: &CommitResult) -> ToolError {
    let e = result.failures().next().map_or_else(
        || ToolError::new(Reason::IoError, None, "no file was written"),
        |(_, e)| e.clone(),
    );
    let message = if result.rolled_back {
        format!("{}; every file already written was rolled back", e.message)
    } else {
        e.message
    };
    ToolError::new(e.reason, e.path.as_deref(), message)
}

/// Each planned file's result after a commit (a section that changed nothing left out), with
/// the summary lines and the live-sync text of the files written.
fn file_results(
    planned: &PatchPlan,
    result: &CommitResult,
    applied_paths: &BTreeSet<String>,
) -> (Vec<FileApplyResult>, String, String) {
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
    (files, summary, sync)
}

impl Workflow {
    /// `apply_edit`: apply a stored patch under `plan`. Never panics on bad input; every
    /// refusal is an outcome with `is_error` and a reason code.
    ///
    /// The plan is held to the configured [`Policy`](crate::Policy) ([`Policy::bound`](crate::Policy::bound)), and
    /// approval is the policy's: `auto` approves, `deny` rejects, a person's approval asks the
    /// configured approver, or is refused as `approval_required` when there is none (the
    /// defaults: see [`WorkflowConfig::unrestricted`](crate::WorkflowConfig::unrestricted) for the named way out).
    pub fn apply_edit(&self, patch_id: &str, plan: &ApplyPlan) -> ApplyOutcome {
        match self.approver_for(self.config.policy.approve) {
            Ok(approver) => self.apply_edit_with(patch_id, plan, approver),
            Err(e) => ApplyOutcome::refused_unread(
                patch_id,
                e.reason,
                format!("Error: {e}\nNothing was applied."),
            ),
        }
    }

    /// Who approves an apply under `approve`: see [`Workflow::apply_edit`].
    fn approver_for(&self, approve: Approve) -> Result<&dyn Approver, ToolError> {
        match approve {
            Approve::Auto => Ok(&AutoApprove),
            Approve::Deny => Ok(&Deny),
            Approve::Elicit | Approve::ElicitIfSupported => {
                self.config.approver.as_deref().ok_or_else(|| {
                    ToolError::new(
                        Reason::ApprovalRequired,
                        None,
                        format!(
                            "the workflow's policy (approve = {approve}) applies nothing without approval, and no approver is configured: set WorkflowConfig::approver (e.g. a Callback that asks the person), or use WorkflowConfig::unrestricted() to apply without asking"
                        ),
                    )
                })
            }
        }
    }

    /// [`Workflow::apply_edit`], asking `approver` instead of the configured one (a CLI that
    /// asks the person at the terminal for this one apply).
    pub fn apply_edit_with(
        &self,
        patch_id: &str,
        plan: &ApplyPlan,
        approver: &dyn Approver,
    ) -> ApplyOutcome {
        let plan = match self.config.policy.bound(plan) {
            Ok(plan) => plan,
            Err(e) => {
                let text = format!("Error: {e}\nNothing was applied.");
                return ApplyOutcome::refused_unread(patch_id, e.reason, text);
            }
        };
        let stored = match self.load_stored(patch_id) {
            Ok(stored) => stored,
            Err(refused) => return *refused,
        };
        let mut run = ApplyRun::new(&stored, &plan);
        self.emit(Event::ToolStart {
            tool: "apply_edit".into(),
        });
        let step_id = self.begin_step(&stored);
        let out = match self.apply_inner(&mut run, approver) {
            Ok(out) => out,
            Err(e) => self.refuse(&run, e),
        };
        self.emit_apply_end(&out, step_id, "apply_edit", run.rollback);
        out
    }

    /// Apply a change lspedit computed itself (a symbol edit, a server's rename or code action)
    /// at once, without storing a proposal: `request`'s patch is parsed and planned once, on
    /// the files as they are; each file the request gives a base_sha for must be in that state
    /// (else `sha_mismatch`, nothing written: the change was computed from other bytes). The
    /// plan's limits and the approver then judge that plan, and under the locks the files must
    /// still hold the bytes it was made from (else `stale_context`) before it is committed.
    /// Events, checkpoint and evidence are those of [`Workflow::apply_edit`] (`diff_proposed`
    /// in the seeds' place), under a patch id of its own that names no stored proposal
    /// (`apply_edit` of it is `patch_not_found`): nothing is stored to apply later.
    ///
    /// The plan is held to what the configured policy binds the writers outside the workflow
    /// ([`Policy::bound_writer`](crate::Policy::bound_writer)), and approval is
    /// [`Policy::writer_approve`](crate::Policy::writer_approve)'s: by default neither limits nor
    /// asks (a rename that touches 20 files is the server's answer, not a model's proposal).
    pub fn apply_change(&self, request: &ProposeRequest, plan: &ApplyPlan) -> ApplyOutcome {
        match self.approver_for(self.config.policy.writer_approve()) {
            Ok(approver) => self.apply_change_with(request, plan, approver),
            Err(e) => {
                self.emit(Event::ToolStart {
                    tool: "apply_change".into(),
                });
                self.change_refused(&e)
            }
        }
    }

    /// [`Workflow::apply_change`], asking `approver` instead of the configured one (the plan
    /// is still held to the policy).
    pub fn apply_change_with(
        &self,
        request: &ProposeRequest,
        plan: &ApplyPlan,
        approver: &dyn Approver,
    ) -> ApplyOutcome {
        self.emit(Event::ToolStart {
            tool: "apply_change".into(),
        });
        let plan = &match self.config.policy.bound_writer(plan) {
            Ok(plan) => plan,
            Err(e) => return self.change_refused(&e),
        };
        let built = self.recover_if_needed().and_then(|()| {
            propose::build(
                self.tools.workspace(),
                request,
                self.tools.engine(),
                self.config.max_scan_file_bytes,
            )
            .map_err(|refused| self.refused_evidence(*refused))
        });
        let mut built = match built {
            Ok(b) => b,
            Err(e) => return self.change_refused(&e),
        };
        built.stored.patch_id = new_id("patch", built.stored.patch_text.as_bytes());
        let Built {
            stored,
            plan: mut planned,
            ..
        } = built;
        let mut run = ApplyRun::new(&stored, plan);
        let step_id = self.begin_step(&stored);
        self.evidence
            .write_diff(stored.evidence_id(), &stored.patch_text);
        self.emit(Event::DiffProposed {
            diff_id: stored.patch_id.clone(),
            files_changed: affected(&stored.files),
            summary: stored.summary.clone(),
            evidence_id: stored.evidence_id().to_string(),
        });
        let mut out = match self.change_inner(&mut run, approver, request, &mut planned) {
            Ok(out) => out,
            Err(e) => self.refuse(&run, e),
        };
        out.diff = planned.diff;
        self.emit_apply_end(&out, step_id, "apply_change", run.rollback);
        out
    }

    /// An `apply_change` refused before anything was planned: its failure and the end of the
    /// tool, nothing written.
    fn change_refused(&self, e: &ToolError) -> ApplyOutcome {
        self.failure(e);
        self.emit(Event::ToolEnd {
            tool: "apply_change".into(),
            is_error: true,
        });
        ApplyOutcome::refused_unread("", e.reason, format!("Error: {e}\nNothing was applied."))
    }

    /// The steps of [`Workflow::apply_change`] after its one plan; any refusal is `Err`.
    fn change_inner(
        &self,
        run: &mut ApplyRun<'_>,
        approver: &dyn Approver,
        request: &ProposeRequest,
        planned: &mut PatchPlan,
    ) -> Result<ApplyOutcome, ToolError> {
        // The plan's own reads are the bytes committed against: they must be the ones the
        // change was computed from (the build checked the files once before planning).
        for (path, expected) in &request.expected_base_shas {
            let key = propose::key(self.tools.workspace(), path)?;
            // A path the patch does not read is not written either.
            let Some(base) = planned.bases.get(&key) else {
                continue;
            };
            if util::state_sha(base.as_deref()).as_deref() != Some(expected.as_str()) {
                let e = ToolError::new(
                    Reason::StaleContext,
                    Some(&key),
                    "the file changed while the edit was planned; nothing was written: read it again and redo the edit",
                );
                return Err(run.failed(Stage::Stale, e));
            }
        }
        within_plan(run, planned)?;
        if !self.approve(run, approver, planned)? {
            return Ok(self.rejected(run));
        }
        let file_locks = self.file_locks(run.stored.base_shas.keys().cloned());
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();
        let _ws_lock = self.workspace_lock()?;
        self.recover_pending();
        if planned.units.is_empty() {
            let e = ToolError::new(Reason::EmptyDiff, None, "the change changes nothing");
            return Err(run.failed(Stage::Empty, e));
        }
        check_fresh(self.tools.workspace(), &planned.units)
            .map_err(|e| run.failed(Stage::Stale, e))?;
        run.pipeline
            .pass(Stage::Stale, "every file is as it was when planned");
        self.validate_isolated(run, planned)?;
        let manifest = self.checkpoint(run, planned)?;
        let (result, applied_paths, manifest) = self.commit_planned(run, planned, manifest)?;
        if run.plan.timeout().is_some() || run.plan.validation_stage == ValidationStage::AfterCommit
        {
            self.after_commit(run, &manifest)?;
        }
        Ok(self.applied(run, planned, &result, &applied_paths))
    }

    /// The stored patch `patch_id`, or the outcome refusing it. Checked before anything is
    /// emitted or written: an unknown id creates nothing, and an id that is not one never
    /// becomes part of a path.
    fn load_stored(&self, patch_id: &str) -> Result<StoredPatch, Box<ApplyOutcome>> {
        if !is_valid_id("patch", patch_id) {
            return Err(Box::new(ApplyOutcome::not_found(patch_id)));
        }
        let loaded = self.layout.verify().and_then(|()| {
            if self.store.exists(patch_id) {
                self.store.load(self.tools.workspace(), patch_id).map(Some)
            } else {
                Ok(None)
            }
        });
        match loaded {
            Ok(Some(p)) => Ok(p),
            Ok(None) => Err(Box::new(ApplyOutcome::not_found(patch_id))),
            Err(e) => {
                self.failure(&e);
                Err(Box::new(ApplyOutcome::refused_unread(
                    patch_id,
                    e.reason,
                    format!("Error: {e}\nNothing was applied."),
                )))
            }
        }
    }

    /// `step_started` and `stage_changed(edit)` of `stored`'s step (the caller's step id, else
    /// the patch id), which it returns.
    fn begin_step(&self, stored: &StoredPatch) -> String {
        let step_id = stored
            .step_id
            .clone()
            .unwrap_or_else(|| stored.patch_id.clone());
        self.emit(Event::StepStarted {
            step_id: step_id.clone(),
            diff_id: stored.patch_id.clone(),
        });
        self.emit(Event::StageChanged {
            step_id: step_id.clone(),
            stage: StepStage::Edit,
        });
        step_id
    }

    /// The events that end an apply step: `step_completed` when files were written, the first
    /// refused file of a partial apply, `tool_end`.
    fn emit_apply_end(
        &self,
        out: &ApplyOutcome,
        step_id: String,
        tool: &str,
        rollback: Option<RollbackStatus>,
    ) {
        let completed = match out.status {
            ApplyStatus::Applied => Some(StepStatus::Applied),
            ApplyStatus::PartiallyApplied => Some(StepStatus::PartiallyApplied),
            // Nothing was written: the step did not complete.
            ApplyStatus::Rejected | ApplyStatus::Refused => None,
        };
        if let Some(status) = completed {
            self.emit(Event::StepCompleted {
                step_id,
                diff_id: out.patch_id.clone(),
                status,
            });
        }
        if let Some(f) = out.files.iter().find(|f| !f.applied)
            && out.status == ApplyStatus::PartiallyApplied
        {
            self.emit(Event::FailureDetected {
                // Every file an apply refuses has its reason; io_error only if one had none.
                reason: f.reason.unwrap_or(Reason::IoError),
                // The failed unit's files written before it failed were put back.
                details: FailureDetails {
                    rollback,
                    ..FailureDetails::message(f.message.clone())
                },
            });
            self.emit(Event::ExecutionPaused {
                reason: PauseReason::NeedsUserDecision,
                diff_id: Some(out.patch_id.clone()),
            });
        }
        self.emit(Event::ToolEnd {
            tool: tool.into(),
            is_error: out.is_error,
        });
    }

    /// The steps of an apply, in order; any refusal is `Err` (turned into the outcome by
    /// [`Workflow::refuse`]).
    fn apply_inner(
        &self,
        run: &mut ApplyRun<'_>,
        approver: &dyn Approver,
    ) -> Result<ApplyOutcome, ToolError> {
        self.recover_if_needed()?;
        let patch = parse_patch(&run.stored.patch_text)
            .map_err(|e| run.failed(Stage::Parse, ToolError::from_engine(None, e)))?;
        let reviewed = self.review(run, &patch)?;
        if !self.approve(run, approver, &reviewed)? {
            return Ok(self.rejected(run));
        }
        let file_locks = self.file_locks(run.stored.base_shas.keys().cloned());
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();
        let _ws_lock = self.workspace_lock()?;
        self.recover_pending();
        let mut planned = self.plan_locked(run, &patch, &reviewed)?;
        self.validate_isolated(run, &planned)?;
        let manifest = self.checkpoint(run, &planned)?;
        let (result, applied_paths, manifest) = self.commit_planned(run, &mut planned, manifest)?;
        if run.plan.timeout().is_some() || run.plan.validation_stage == ValidationStage::AfterCommit
        {
            self.after_commit(run, &manifest)?;
        }
        Ok(self.applied(run, &planned, &result, &applied_paths))
    }

    /// Before the approver is asked about anything: the patch text planned on the files as they
    /// are (which must be the proposed ones, planning as proposed), within the plan's limits,
    /// and with no refused file under all-or-nothing. The approver sees this plan, not the
    /// stored description of it.
    fn review(&self, run: &mut ApplyRun<'_>, patch: &Patch) -> Result<PatchPlan, ToolError> {
        let ws = self.tools.workspace();
        let reviewed =
            plan_patch(ws, patch, self.tools.engine()).map_err(|e| run.failed(Stage::Hunk, e))?;
        self.check_still_proposed(run, &reviewed)?;
        within_plan(run, &reviewed)?;
        Ok(reviewed)
    }

    /// `stale_context` unless `planned` was made from the proposed files and plans as the
    /// proposal did.
    fn check_still_proposed(
        &self,
        run: &mut ApplyRun<'_>,
        planned: &PatchPlan,
    ) -> Result<(), ToolError> {
        stale_check(run.stored, |p| {
            Ok(util::state_sha(
                planned.bases.get(p).and_then(|b| b.as_deref()),
            ))
        })
        .map_err(|e| run.failed(Stage::Stale, e))?;
        run.pipeline
            .pass(Stage::Stale, "every file is as it was when proposed");
        self.check_same_plan(run.stored, planned)
            .map_err(|e| run.failed(Stage::Hunk, e))
    }

    /// Ask `approver` about the reviewed diff (within the plan's timeout), with its events.
    fn approve(
        &self,
        run: &mut ApplyRun<'_>,
        approver: &dyn Approver,
        reviewed: &PatchPlan,
    ) -> Result<bool, ToolError> {
        let stored = run.stored;
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
        if approved {
            run.check_deadline("after approval")?;
        }
        Ok(approved)
    }

    /// Under the locks: plan again on the files as they are now, and insist they are the
    /// proposed ones, so what is written is exactly the approved diff.
    fn plan_locked(
        &self,
        run: &mut ApplyRun<'_>,
        patch: &Patch,
        reviewed: &PatchPlan,
    ) -> Result<PatchPlan, ToolError> {
        let planned = plan_patch(self.tools.workspace(), patch, self.tools.engine())?;
        self.check_still_proposed(run, &planned)?;
        if planned.diff != reviewed.diff {
            let e = ToolError::new(
                Reason::StaleContext,
                None,
                "the patch no longer plans as the diff that was approved; propose the edit again",
            );
            return Err(run.failed(Stage::Hunk, e));
        }
        if planned.units.is_empty() {
            let e = ToolError::new(Reason::EmptyDiff, None, "the patch changes nothing");
            return Err(run.failed(Stage::Empty, e));
        }
        Ok(planned)
    }

    /// The plan's isolated validation, when it asks for one; then, since a validation run can
    /// take minutes, the files are checked once more right before the checkpoint and the
    /// writes.
    fn validate_isolated(
        &self,
        run: &mut ApplyRun<'_>,
        planned: &PatchPlan,
    ) -> Result<(), ToolError> {
        let Some(cmd) = &run.plan.validation else {
            return Ok(());
        };
        if run.plan.validation_stage != ValidationStage::Isolated {
            return Ok(());
        }
        let changes: Vec<(String, Option<&[u8]>)> = planned
            .units
            .iter()
            .flat_map(|u| &u.changes)
            .map(|c| (c.path.clone(), c.new.as_deref()))
            .collect();
        self.validate(run, cmd, &changes, "nothing was applied")?;
        run.check_deadline("after validation")?;
        check_fresh(self.tools.workspace(), &planned.units).map_err(|e| run.failed(Stage::Stale, e))
    }

    /// The checkpoint of every file the commit writes, with its event.
    fn checkpoint(
        &self,
        run: &mut ApplyRun<'_>,
        planned: &PatchPlan,
    ) -> Result<CheckpointManifest, ToolError> {
        let all: Vec<&PathChange> = planned.units.iter().flat_map(|u| &u.changes).collect();
        let checkpoint_id = new_id("ckpt", run.stored.patch_id.as_bytes());
        let manifest = self
            .checkpoints
            .create(&checkpoint_id, &run.stored.patch_id, &all)
            .map_err(|e| ToolError::io(".lspedit/checkpoints", "writing the checkpoint", &e))?;
        run.checkpoint_id = Some(checkpoint_id.clone());
        self.emit(Event::CheckpointCreated {
            checkpoint_id,
            files: all.iter().map(|c| c.path.clone()).collect(),
        });
        Ok(manifest)
    }

    /// Commit the planned units. `Err` when nothing was written (or a put-back failed: then
    /// the checkpoint is kept so undo can still restore); otherwise the result, the paths
    /// written and the checkpoint trimmed to them.
    fn commit_planned(
        &self,
        run: &mut ApplyRun<'_>,
        planned: &mut PatchPlan,
        mut manifest: CheckpointManifest,
    ) -> Result<(CommitResult, BTreeSet<String>, CheckpointManifest), ToolError> {
        let checkpoint_id = manifest.checkpoint_id.clone();
        let result = self.commit(&mut planned.units, run.plan.atomicity, &manifest, None);
        run.rollback = rollback_status(&result);
        if !result.rollback_errors.is_empty() {
            run.rolled_back = false;
            return Err(ToolError::new(
                Reason::IoError,
                None,
                format!(
                    "the commit failed and restoring failed too ({}); checkpoint {checkpoint_id} holds the old contents",
                    result.rollback_errors.join("; ")
                ),
            ));
        }
        if result.written().next().is_none() {
            self.checkpoints.remove(&checkpoint_id);
            run.checkpoint_id = None;
            run.rolled_back = result.rolled_back;
            return Err(nothing_written(&result));
        }
        let applied_paths: BTreeSet<String> = result
            .written()
            .flat_map(|i| planned.units[i].changes.iter().map(|c| c.path.clone()))
            .collect();
        if result.failures().next().is_some() {
            if let Err(e) = self.checkpoints.retain(&manifest, &applied_paths) {
                tracing::warn!(checkpoint = %checkpoint_id, error = %e, "trimming the checkpoint failed");
            }
            manifest.entries.retain(|e| applied_paths.contains(&e.path));
        }
        Ok((result, applied_paths, manifest))
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
            RollbackStrategy::RestoreCheckpoint => {
                match self.restore_locked(manifest, None, &mut None) {
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
                }
            }
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
            phase: Phase::Apply,
            source: stored.source.clone(),
            outcome: status.into(),
            created_ms: now_ms(),
            stages: run.pipeline.reports(),
            stats: stored.stats,
            files: stored.files.clone(),
        });
        self.evidence.write_apply(&ApplyRecord {
            patch_id: stored.patch_id.clone(),
            evidence_id: stored.evidence_id().to_string(),
            status,
            reason,
            message: message.to_string(),
            atomicity: run.plan.atomicity.as_str().into(),
            files: files
                .iter()
                .map(|f| FileRecord {
                    path: f.path.clone(),
                    applied: f.applied,
                    reason: f.reason,
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
        let files = run.refused_files(&e);
        let text = format!(
            "Error: {e}\n{} (patch {}, evidence {}).",
            run.refusal_outcome(),
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
            diff: String::new(),
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
            reason: PauseReason::DiffRejected,
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
            diff: String::new(),
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
        let (files, summary, sync) = file_results(planned, result, applied_paths);
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
        let written: Vec<WrittenFile> = planned
            .written
            .iter()
            .filter(|w| applied_paths.contains(&w.path))
            .cloned()
            .collect();
        let feedback = self.tools.written_feedback(&written);
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
            diff: planned.diff.clone(),
        }
    }
}
