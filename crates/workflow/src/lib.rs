//! The propose → approve → apply workflow (docs/design.md §9): `propose_edit` plans a change and
//! stores it as a patch under `.lspedit/patches/`; `apply_edit` re-checks it against the files,
//! the plan's limits and an [`Approver`], optionally validates it in a temporary copy, takes a
//! checkpoint and commits it per file or all-or-nothing; `undo` restores a checkpoint.
//!
//! Built beside the agent tools, through [`WorkflowTools`] (implemented by
//! [`Tools`](lspedit_tools::Tools)): it shares their workspace, per-file locks, read guard and
//! diagnostics feedback. Between processes, a lock file (`.lspedit/lock`) serializes commits, undos and the
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

mod apply;
mod approval;
mod checkpoint;
mod evidence;
mod excerpt;
mod fresh;
mod gate;
mod journal;
mod key;
mod model;
mod plan;
mod policy;
mod propose;
mod scan;
mod store;
mod tools;
mod util;
mod validate;

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use lspedit_engine::parse_patch;

pub use apply::{ApplyOutcome, ApplyStatus, FileApplyResult};
pub use approval::{ApprovalRequest, Approver, AutoApprove, Callback, Deny};
pub use evidence::{ApplyRecord, FileRecord, Manifest, Outcome, Phase};
pub use excerpt::{
    ContextError, ContextRequest, ExcerptCandidates, ExcerptFocus, ExcerptLimits, ExcerptSet,
    FileExcerpt, SkippedCandidate, select_excerpts, select_excerpts_focused,
};
pub use gate::PolicyGate;
pub use journal::RecoveryReport;
#[doc(hidden)]
pub use lspedit_write::commit::CommitObserver;
pub use model::{
    ChangeKind, FileProblem, ProposeStats, ProposedFile, STAGES, Stage, StageReport, StageStatus,
};
pub use plan::{ApplyPlan, Atomicity, RollbackStrategy, ValidationStage};
pub use policy::{Approve, Operation, PlanRequest, Policy, PolicyError, SetKeys};
pub use propose::{IdError, Proposal, ProposeRequest, ProposeSource, StepIdArg};
pub use scan::language_globs;
pub use tools::WorkflowTools;
pub use validate::{CopyScope, ValidationCommand, ValidationReport};

use self::checkpoint::{CheckpointManifest, Checkpoints};
use self::evidence::Evidence;
use self::fresh::{check_fresh, stale_check};
use self::journal::JournalFile;
use self::key::KeySource;
use self::propose::plan_patch;
use self::store::PatchStore;
use self::util::{
    Layout, WorkspaceLock, is_valid_id, lock_workspace, new_id, now_ms, show_sha, state_error,
};
use lspedit_tools::events::{
    Event, EventSink, FailureDetails, FanOut, JsonlSink, PauseReason, RollbackStatus,
};
use lspedit_write::commit::{
    CommitResult, CommitUnit, OnChanged, PathChange, Policy as CommitPolicy, Staging, commit,
};
use lspedit_write::{Reason, ToolError};

/// Configuration of a [`Workflow`].
#[derive(Clone)]
pub struct WorkflowConfig {
    /// The limits, forbidden operations and approval every apply is held to: an
    /// `apply_edit`'s plan is bounded by it ([`Policy::bound`]; the plan can tighten it, never
    /// lift it), a change lspedit computed ([`Workflow::apply_change`]) by what it binds the
    /// writers outside the workflow ([`Policy::writer_plan`], [`Policy::writer_approve`]).
    /// Default: the seeds' ([`Policy::default`]: 3 files, 100 changed lines, no create, delete
    /// or rename, nothing applied without approval).
    pub policy: Policy,
    /// Asked before an apply the policy leaves to a person ([`Approve::ElicitIfSupported`],
    /// [`Approve::Elicit`]). Default: none, and such an apply is refused as
    /// `approval_required`: set one ([`AutoApprove`], a [`Callback`] that asks), or loosen the
    /// whole configuration by name with [`WorkflowConfig::unrestricted`].
    pub approver: Option<Arc<dyn Approver>>,
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
    /// The directory of the key that signs proposals and checkpoints (`state.key`, created on
    /// first use; `docs/ids.md`). `None`: the person's lspedit config directory
    /// (`$XDG_CONFIG_HOME/lspedit`, else `~/.config/lspedit`). Never inside the workspace.
    pub key_dir: Option<PathBuf>,
    /// Test hook called after each file of a commit is written.
    #[doc(hidden)]
    pub commit_observer: Option<Arc<dyn CommitObserver>>,
}

impl Default for WorkflowConfig {
    fn default() -> Self {
        WorkflowConfig {
            policy: Policy::default(),
            approver: None,
            sinks: Vec::new(),
            event_log: true,
            max_patches: 256,
            max_store_bytes: 64 * 1024 * 1024,
            max_checkpoints: 64,
            max_evidence: 512,
            max_scan_file_bytes: 4 * 1024 * 1024,
            validation_timeout: Duration::from_secs(300),
            key_dir: None,
            commit_observer: None,
        }
    }
}

impl WorkflowConfig {
    /// The defaults with no limit and no approval: every apply the caller asks for is made as
    /// its plan says ([`Policy::unrestricted`], [`AutoApprove`]). For an embedder whose caller
    /// is the person (a command they typed, a test suite) or that judges each change itself;
    /// never for a model's calls.
    pub fn unrestricted() -> WorkflowConfig {
        WorkflowConfig {
            policy: Policy::unrestricted(),
            approver: Some(Arc::new(AutoApprove)),
            ..WorkflowConfig::default()
        }
    }

    /// These settings, with `approver` asked where the policy leaves an apply to a person
    /// (by default, every `apply_edit`).
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> WorkflowConfig {
        self.approver = Some(approver);
        self
    }

    /// These settings, with every apply asking `approver`: the workflow's `apply_edit` and the
    /// changes lspedit computes ([`Workflow::apply_change`]) alike (the policy's `approve` set
    /// to [`Approve::Elicit`]).
    pub fn asking(mut self, approver: Arc<dyn Approver>) -> WorkflowConfig {
        self.approver = Some(approver);
        self.policy.set_approve(Approve::Elicit);
        self
    }
}

impl std::fmt::Debug for WorkflowConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowConfig")
            .field("policy", &self.policy.describe())
            .field("approver", &self.approver.is_some())
            .field("sinks", &self.sinks.len())
            .field("event_log", &self.event_log)
            .field("max_patches", &self.max_patches)
            .field("max_store_bytes", &self.max_store_bytes)
            .field("max_checkpoints", &self.max_checkpoints)
            .field("max_evidence", &self.max_evidence)
            .field("validation_timeout", &self.validation_timeout)
            .field("key_dir", &self.key_dir)
            .finish_non_exhaustive()
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
    tools: Arc<dyn WorkflowTools>,
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Workflow {
    /// Open the workflow over `tools`' workspace, rolling back any all-or-nothing commit a
    /// crashed process left half done (see [`Workflow::recovered`]).
    ///
    /// Refused (`tampered_state`) when `.lspedit` or an entry under it is a symlink: before the
    /// event log is opened, so nothing is written through it.
    pub fn open(
        tools: Arc<dyn WorkflowTools>,
        config: WorkflowConfig,
    ) -> Result<Workflow, ToolError> {
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
        let key = Arc::new(KeySource::new(config.key_dir.clone(), &root));
        let wf = Workflow {
            store: PatchStore::new(
                &layout,
                Arc::clone(&key),
                config.max_patches,
                config.max_store_bytes,
            ),
            evidence: Evidence::new(&layout, config.max_evidence),
            checkpoints: Checkpoints::new(&layout, key, config.max_checkpoints),
            tools,
            config,
            layout,
            events,
            recovered: Mutex::new(Vec::new()),
        };
        // The layout was verified above, and nothing under `.lspedit` was touched since.
        wf.recover_journal()?;
        Ok(wf)
    }

    /// Whether a crashed all-or-nothing commit may have left a journal in the workspace at
    /// `root`, in one `lstat` of `.lspedit/journal`: `false` only when it does not exist, so a
    /// caller that does not need the workflow otherwise (a plain `apply_patch`) opens it, and
    /// so recovers, only when this says `true`. Anything but "not found" (a journal, a symlink,
    /// a `.lspedit` that is not a directory, an I/O error) is `true`: [`Workflow::open`] then
    /// checks the layout and refuses or recovers.
    pub fn may_need_recovery(root: &std::path::Path) -> bool {
        Layout::new(root).journal_may_exist()
    }

    /// The interrupted commits this workflow rolled back (when opened, or before a commit).
    pub fn recovered(&self) -> Vec<RecoveryReport> {
        lock(&self.recovered).clone()
    }

    /// Roll back what a crashed process left half committed before reading the workspace
    /// (open, propose, apply): otherwise a half-new set of files would be read as current.
    fn recover_if_needed(&self) -> Result<(), ToolError> {
        self.layout.verify()?;
        self.recover_journal()
    }

    /// [`Workflow::recover_if_needed`] once the layout is verified.
    fn recover_journal(&self) -> Result<(), ToolError> {
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
            self.tools.engine(),
            self.config.max_scan_file_bytes,
        );
        match built {
            Ok(built) => self.store_proposal(request, built),
            Err(refused) => Err(self.refuse_proposal(*refused)),
        }
    }

    /// Store a built proposal and its evidence, then report it.
    fn store_proposal(
        &self,
        request: &ProposeRequest,
        propose::Built {
            mut stored, diff, ..
        }: propose::Built,
    ) -> Result<Proposal, ToolError> {
        if let Err(err) = self.store.save(&mut stored) {
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
            phase: Phase::Propose,
            source: stored.source.clone(),
            outcome: Outcome::Proposed,
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

    /// Record a refused proposal's evidence and report it; the error names the evidence.
    fn refuse_proposal(&self, refused: propose::Refused) -> ToolError {
        let e = self.refused_evidence(refused);
        self.emit(Event::ToolEnd {
            tool: "propose_edit".into(),
            is_error: true,
        });
        self.failure(&e);
        e
    }

    /// Record a refused proposal's evidence; the error names the evidence.
    fn refused_evidence(&self, refused: propose::Refused) -> ToolError {
        let ev = new_id("refused", refused.raw.as_bytes());
        self.evidence.write_diff(&ev, &refused.raw);
        self.evidence.write_manifest(&Manifest {
            evidence_id: ev.clone(),
            patch_id: None,
            phase: Phase::Propose,
            source: refused.source.into(),
            outcome: Outcome::Refused,
            created_ms: now_ms(),
            stages: refused.stages,
            stats: refused.stats,
            files: refused.files,
        });
        let e = refused.error;
        ToolError::new(
            e.reason,
            e.path.as_deref(),
            format!("{} (evidence {ev})", e.message),
        )
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
        let planned = plan_patch(self.tools.workspace(), &patch, self.tools.engine())?;
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
            reason: e.reason,
            details,
        });
        self.emit(Event::ExecutionPaused {
            reason: PauseReason::NeedsUserDecision,
            diff_id: diff_id.map(str::to_string),
        });
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
        gate: Option<&dyn lspedit_write::WriteGate>,
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
        let policy = CommitPolicy {
            on_changed: OnChanged::Refuse,
            staging: Staging::Ahead,
            journal: match atomicity {
                Atomicity::PerFile => None,
                Atomicity::AllOrNothing => Some(&mut journal),
            },
            observer: self.config.commit_observer.as_deref(),
            gate,
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
        self.undo_gated(checkpoint_id, None)
    }

    /// [`Workflow::undo`] with the restore passing `gate` (the operator's policy over the
    /// writers outside the workflow, [`PolicyGate`]) before anything is restored.
    pub fn undo_gated(
        &self,
        checkpoint_id: &str,
        gate: Option<&dyn lspedit_write::WriteGate>,
    ) -> Result<UndoOutcome, ToolError> {
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
        let mut rollback = None;
        let result = self.undo_inner(&manifest, gate, &mut rollback);
        self.emit(Event::ToolEnd {
            tool: "undo".into(),
            is_error: result.is_err(),
        });
        if let Err(e) = &result {
            let details = FailureDetails {
                rollback,
                ..FailureDetails::message(e.to_string())
            };
            self.failure_with(e, details, None);
        }
        result
    }

    fn undo_inner(
        &self,
        manifest: &CheckpointManifest,
        gate: Option<&dyn lspedit_write::WriteGate>,
        rollback: &mut Option<RollbackStatus>,
    ) -> Result<UndoOutcome, ToolError> {
        let file_locks = self.file_locks(manifest.entries.iter().map(|e| e.path.clone()));
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();
        let _ws_lock = self.workspace_lock()?;
        self.recover_pending();
        let out = self.restore_locked(manifest, gate, rollback)?;
        self.emit(Event::CheckpointCreated {
            checkpoint_id: out.redo_checkpoint_id.clone(),
            files: out.restored.clone(),
        });
        Ok(out)
    }

    /// Restore a checkpoint (see [`Workflow::undo`]); callers hold the file and workspace locks.
    /// When the restore's commit fails after writing, `rollback` says whether what it wrote
    /// was put back.
    fn restore_locked(
        &self,
        manifest: &CheckpointManifest,
        gate: Option<&dyn lspedit_write::WriteGate>,
        rollback: &mut Option<RollbackStatus>,
    ) -> Result<UndoOutcome, ToolError> {
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
        let result = self.commit(&mut units, Atomicity::AllOrNothing, &redo, gate);
        *rollback = apply::rollback_status(&result);
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
            "Restored {} from checkpoint {id}: {}. Undo checkpoint {redo_id} to redo.",
            lspedit_tools::render::plural(restored.len(), "file", "files"),
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
