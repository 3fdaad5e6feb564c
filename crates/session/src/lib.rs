//! lspedit-session: the agent tools over one workspace, with the language-server pool as their
//! diagnostics provider, the `diagnostics` operation (check files as they are on disk), and the
//! propose → apply → undo workflow over the same tools.
//!
//! The CLI and the MCP server both run on it, so both report the same text. Its results are
//! this crate's own ([`ToolResult`], [`Proposal`], [`ApplyOutcome`], [`UndoOutcome`],
//! [`DiagnosticsReport`]); a surface that serializes (the MCP crate's structured output, the
//! CLI's `--json`) builds its shapes from them. A pool that cannot be opened, a server that is
//! not installed or a check that times out never fails a tool: the result says why diagnostics
//! are absent.
//!
//! [`AsyncSession`] is every operation of the session for async callers.

mod asynchronous;

use std::sync::{Arc, OnceLock};
use std::time::Instant;

use lspedit_lsp::{BlockingPool, Diagnostic, PoolConfig};

use lspedit_lsp_edits::{LspEditError, LspEditProvider, LspEdits, LspEditsConfig, SymbolMemory};
use lspedit_tools::front::{Step, say};
use lspedit_tools::render::plural;
use lspedit_tools::{
    DiagnosticsFeedback, DiagnosticsProvider, DiagnosticsStatus, FileDiagnosticsStatus,
    LspProvider, ToolResult, Tools, ToolsConfig,
};
use lspedit_workflow::{
    ApplyOutcome, ApplyPlan, Approver, Proposal, ProposeRequest, UndoOutcome, Workflow,
    WorkflowConfig,
};
use lspedit_write::{Reason, ToolError, Workspace};

pub use asynchronous::AsyncSession;

/// The tools of one workspace and the pool behind their diagnostics.
pub struct Session {
    tools: Arc<Tools>,
    /// The pool: the diagnostics provider of the tools (unless `diagnostics` is off) and the
    /// language-server tools' provider.
    lsp: Option<Arc<LspProvider>>,
    /// Whether the tools check what they write (and `diagnostics` answers): off, the pool still
    /// serves the language-server tools ([`Session::on_runtime_without_diagnostics`]).
    diagnostics: bool,
    /// Why there is no pool, when diagnostics were asked for but could not be set up.
    no_pool: Option<String>,
    /// What loading the pool configuration ignored ([`PoolConfig::warnings`]): an untrusted
    /// `.lspedit/config.toml` that names a program to run, a symlinked config.
    config_warnings: Vec<String>,
    /// The workflow, opened on first use: by a workflow operation, or by the first use of the
    /// tools when a crashed all-or-nothing commit may have left a journal
    /// ([`Session::tools`]), so that commit is rolled back before anything else touches the
    /// workspace. A plain tool call in a workspace without a journal never opens it, and so
    /// looks under `.lspedit/` only by that one probe.
    workflow: OnceLock<Result<Workflow, ToolError>>,
    workflow_config: WorkflowConfig,
    /// Set once the tools' first use has checked for an interrupted commit.
    recovery_checked: OnceLock<()>,
    /// The symbol edits' memory of each file's last whole reading, across calls.
    symbols: SymbolMemory,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("root", &self.tools.workspace().root())
            .field("diagnostics", &self.unavailable().is_none())
            .field("language_servers", &self.lsp.is_some())
            .finish()
    }
}

/// A session operation's result: the text the model reads ([`ToolResult`], the late answers to
/// earlier timed-out checks in front) and what the operation produced, for callers that want
/// more than the text.
#[derive(Debug, Clone)]
pub struct Answer<T> {
    pub result: ToolResult,
    pub outcome: T,
}

/// [`Session::diagnostics_report`]: each file's result, and why the session has none at all.
#[derive(Debug, Clone, Default)]
pub struct DiagnosticsReport {
    /// One entry per distinct path, in path order.
    pub files: Vec<FileCheck>,
    /// Why this session has no diagnostics at all (turned off, an invalid
    /// `.lspedit/config.toml`, a pool that could not start); `None` when they are on.
    pub unavailable: Option<String>,
    /// What loading the language-server configuration ignored, one sentence each
    /// ([`Session::config_warnings`]).
    pub warnings: Vec<String>,
    /// The refusal of each path that could not be checked (outside the workspace, missing, not
    /// text), in the order the check refused them. Each also has its [`FileCheck`].
    pub refused: Vec<ToolError>,
}

/// One file of a [`DiagnosticsReport`].
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// Workspace-relative path.
    pub path: String,
    /// The id of the language server for the file, when one is configured.
    pub server: Option<String>,
    /// The file's diagnostics status; `None` when the path itself was refused.
    pub status: Option<DiagnosticsStatus>,
    /// When [`DiagnosticsStatus::Checked`]: the diagnostics of the severities shown (errors by
    /// default), sorted.
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// The text for this file: the diagnostics block, `no errors`, or why there are no
    /// diagnostics (in words the model can act on, never the server's own error text).
    pub text: String,
    /// The reason code when the path itself was refused (`file_not_found`, ...).
    pub reason: Option<Reason>,
}

impl Session {
    /// Tools over `ws`. With `pool: Some(config)`, diagnostics come from a language-server pool
    /// with that configuration (servers start lazily, on the first file that needs one; see
    /// [`PoolConfig::load`] for a workspace's configuration); with `None` the tools report no
    /// diagnostics.
    ///
    /// The pool runs on a two-thread runtime of its own; an async program passes its runtime
    /// with [`Session::on_runtime`] instead.
    pub fn new(ws: Workspace, pool: Option<PoolConfig>, config: ToolsConfig) -> Session {
        Session::build(ws, pool, config, None, true)
    }

    /// [`Session::new`] with the language servers on the caller's tokio runtime (`handle`): one
    /// runtime per process. The session's methods block, so an async caller awaits them
    /// through [`AsyncSession`] (on `spawn_blocking` threads, as the MCP server runs them),
    /// never straight on a runtime worker.
    pub fn on_runtime(
        ws: Workspace,
        pool: Option<PoolConfig>,
        config: ToolsConfig,
        handle: tokio::runtime::Handle,
    ) -> Session {
        Session::build(ws, pool, config, Some(handle), true)
    }

    /// [`Session::on_runtime`] whose tools check nothing they write (`lspedit mcp
    /// --no-diagnostics`): no diagnostics are appended to a write's result and `diagnostics`
    /// says they are turned off, while the pool serves the language-server tools
    /// ([`Session::lsp_edits`]: outline, references, rename, ...), starting a server when one
    /// of them first needs it.
    pub fn on_runtime_without_diagnostics(
        ws: Workspace,
        pool: PoolConfig,
        config: ToolsConfig,
        handle: tokio::runtime::Handle,
    ) -> Session {
        Session::build(ws, Some(pool), config, Some(handle), false)
    }

    /// [`Session::on_runtime_without_diagnostics`] on a runtime of the pool's own, as
    /// [`Session::new`].
    pub fn new_without_diagnostics(
        ws: Workspace,
        pool: PoolConfig,
        config: ToolsConfig,
    ) -> Session {
        Session::build(ws, Some(pool), config, None, false)
    }

    fn build(
        ws: Workspace,
        pool: Option<PoolConfig>,
        config: ToolsConfig,
        handle: Option<tokio::runtime::Handle>,
        diagnostics: bool,
    ) -> Session {
        let config_warnings = pool
            .as_ref()
            .map(|c| c.warnings.clone())
            .unwrap_or_default();
        let open = |cfg| match handle {
            Some(h) => BlockingPool::with_handle(ws.root(), cfg, h),
            None => BlockingPool::new(ws.root(), cfg),
        };
        let (lsp, no_pool) = match pool {
            None => (None, None),
            Some(cfg) => match open(cfg) {
                Ok(p) => (Some(Arc::new(LspProvider::from_pool(p))), None),
                Err(e) => {
                    tracing::warn!("language servers unavailable: {e}");
                    (
                        None,
                        Some(format!("the language-server pool could not start: {e}")),
                    )
                }
            },
        };
        let provider = lsp
            .as_ref()
            .filter(|_| diagnostics)
            .map(|p| Arc::clone(p) as Arc<dyn DiagnosticsProvider>);
        let mut session = Session::with_workflow(
            Arc::new(Tools::new(ws, provider, config)),
            lsp,
            no_pool,
            WorkflowConfig::default(),
        );
        session.diagnostics = diagnostics;
        session.config_warnings = config_warnings;
        session
    }

    /// Tools over `ws` with diagnostics off for a reason the person should fix (an invalid
    /// `.lspedit/config.toml`): the tools work, and the `diagnostics` result says `why`.
    pub fn without_diagnostics(ws: Workspace, config: ToolsConfig, why: String) -> Session {
        let tools = Arc::new(Tools::new(ws, None, config));
        Session::with_workflow(tools, None, Some(why), WorkflowConfig::default())
    }

    fn with_workflow(
        tools: Arc<Tools>,
        lsp: Option<Arc<LspProvider>>,
        no_pool: Option<String>,
        workflow: WorkflowConfig,
    ) -> Session {
        Session {
            tools,
            lsp,
            diagnostics: true,
            no_pool,
            config_warnings: Vec::new(),
            workflow: OnceLock::new(),
            workflow_config: workflow,
            recovery_checked: OnceLock::new(),
            symbols: SymbolMemory::new(),
        }
    }

    /// This session with the propose → apply workflow configured by `config`: its
    /// [`Policy`](lspedit_workflow::Policy) bounds every `apply_edit` and every change the
    /// language-server edits apply, its approver is asked where the policy leaves an apply to
    /// a person. Without it the workflow runs under [`WorkflowConfig::default`]: the seeds'
    /// limits, and nothing applied without an approver.
    pub fn with_workflow_config(mut self, config: WorkflowConfig) -> Session {
        self.workflow_config = config;
        // A workflow already opened under the old configuration is opened again on next use.
        self.workflow = OnceLock::new();
        self
    }

    /// The workflow, opened (which rolls back an interrupted all-or-nothing commit) the first
    /// time it is asked for.
    fn opened(&self) -> &Result<Workflow, ToolError> {
        self.workflow.get_or_init(|| {
            let workflow = Workflow::open(self.tools.clone(), self.workflow_config.clone());
            match &workflow {
                Ok(wf) => {
                    for r in wf.recovered() {
                        tracing::warn!(?r, "rolled back an interrupted all-or-nothing commit");
                    }
                }
                Err(e) => tracing::warn!("the propose/apply workflow is unavailable: {e}"),
            }
            workflow
        })
    }

    /// Once per session, before the tools first touch the workspace: roll back what a crashed
    /// all-or-nothing commit left half done, so no tool reads or patches a half-new set of
    /// files. One `lstat` when there is no journal ([`Workflow::may_need_recovery`]); otherwise
    /// the workflow is opened now, which verifies `.lspedit/` and recovers. (The workflow's own
    /// operations recover before each of them as well.)
    fn recover_first(&self) {
        self.recovery_checked.get_or_init(|| {
            if self.workflow.get().is_none()
                && Workflow::may_need_recovery(self.tools.workspace().root())
            {
                let _ = self.opened();
            }
        });
    }

    /// What loading the pool configuration ignored, one sentence each (empty when nothing).
    /// The `diagnostics` result ends with them; `lspedit mcp` logs them once at start.
    pub fn config_warnings(&self) -> &[String] {
        &self.config_warnings
    }

    /// The agent tools (`read_file`, `edit`, `write_file`, `apply_patch`). The first call rolls
    /// back an all-or-nothing commit a crashed process left half done, if there is one: one
    /// `lstat` of `.lspedit/journal` when there is none ([`Workflow::may_need_recovery`]).
    pub fn tools(&self) -> &Tools {
        self.recover_first();
        &self.tools
    }

    /// The propose → apply → undo workflow over the same tools (and so the same file locks
    /// and diagnostics).
    pub fn workflow(&self) -> Result<&Workflow, ToolError> {
        self.opened().as_ref().map_err(Clone::clone)
    }

    /// `propose_edit` as a tool result: the proposal's text (patch id, summary, diff), or the
    /// refusal; the outcome is the proposal or the refusal.
    pub fn propose_edit(&self, request: &ProposeRequest) -> Answer<Result<Proposal, ToolError>> {
        let began = Instant::now();
        let outcome = self.workflow().and_then(|wf| wf.propose_edit(request));
        let result = match &outcome {
            Ok(p) => text_result(p.llm_content(), p.summary.clone(), false),
            Err(e) => ToolResult::error(e),
        };
        self.late_first(Answer { result, outcome }, began)
    }

    /// `apply_edit` as a tool result: the per-file outcome with diagnostics, or the refusal. The
    /// outcome is an error only when the workflow could not be opened (nothing was tried).
    pub fn apply_edit(
        &self,
        patch_id: &str,
        plan: &ApplyPlan,
    ) -> Answer<Result<ApplyOutcome, ToolError>> {
        self.apply_edit_asking(patch_id, plan, None)
    }

    /// [`Session::apply_edit`], asking `approver` instead of the workflow's own (the MCP
    /// server's approval policy: a person through elicitation, or a refusal).
    pub fn apply_edit_with(
        &self,
        patch_id: &str,
        plan: &ApplyPlan,
        approver: &dyn Approver,
    ) -> Answer<Result<ApplyOutcome, ToolError>> {
        self.apply_edit_asking(patch_id, plan, Some(approver))
    }

    fn apply_edit_asking(
        &self,
        patch_id: &str,
        plan: &ApplyPlan,
        approver: Option<&dyn Approver>,
    ) -> Answer<Result<ApplyOutcome, ToolError>> {
        let began = Instant::now();
        let outcome = self.workflow().map(|wf| match approver {
            Some(a) => wf.apply_edit_with(patch_id, plan, a),
            None => wf.apply_edit(patch_id, plan),
        });
        let result = match &outcome {
            Ok(o) => {
                let mut r = text_result(o.llm_content.clone(), o.display.clone(), o.is_error);
                r.reason = o.reason;
                r.diagnostics = o.diagnostics.clone();
                r
            }
            Err(e) => ToolResult::error(e),
        };
        self.late_first(Answer { result, outcome }, began)
    }

    /// `undo` as a tool result; the outcome is what was restored, or the refusal.
    pub fn undo(&self, checkpoint_id: &str) -> Answer<Result<UndoOutcome, ToolError>> {
        self.undo_gated(checkpoint_id, None)
    }

    /// [`Session::undo`] with the restore passing `gate` first (the operator's policy over the
    /// writers outside the workflow: [`lspedit_workflow::PolicyGate`]).
    pub fn undo_gated(
        &self,
        checkpoint_id: &str,
        gate: Option<&dyn lspedit_write::WriteGate>,
    ) -> Answer<Result<UndoOutcome, ToolError>> {
        let began = Instant::now();
        let outcome = self
            .workflow()
            .and_then(|wf| wf.undo_gated(checkpoint_id, gate));
        let result = match &outcome {
            Ok(u) => text_result(u.llm_content.clone(), u.llm_content.clone(), false),
            Err(e) => ToolResult::error(e),
        };
        self.late_first(Answer { result, outcome }, began)
    }

    /// The pool, when the session has language servers (with diagnostics on, or off by
    /// [`Session::on_runtime_without_diagnostics`]).
    pub fn pool(&self) -> Option<&BlockingPool> {
        self.lsp.as_deref().map(LspProvider::pool)
    }

    /// `diagnostics`: the current errors of each file as the language servers see them, without
    /// editing anything, all files in one pass under one deadline ([`Tools::check_paths`]). One
    /// line or block per file, in path order: the diagnostics block of docs/design.md §7 when there
    /// are errors, `<path>: no errors (<server>).` when the server is clean, otherwise why there
    /// are no diagnostics (no server for the file type, server not installed, no answer in
    /// time, server failed). `is_error` when a path itself is refused (outside the workspace,
    /// missing, not text). Then one `Warning: ...` line per [`Session::config_warnings`], so
    /// the model learns that a server it configured was not used, and why. A late answer to an
    /// earlier check comes first. `diagnostics` of the result holds each file's status.
    pub fn diagnostics(&self, paths: &[String]) -> ToolResult {
        self.diagnostics_report(paths).result
    }

    /// [`Session::diagnostics`] with its report: per file the server, the status, the
    /// diagnostics of the severities shown and the text; why the session has none at all.
    pub fn diagnostics_report(&self, paths: &[String]) -> Answer<DiagnosticsReport> {
        let began = Instant::now();
        self.late_first(self.diagnostics_checked(paths), began)
    }

    /// [`Session::diagnostics_report`] without the late answers to earlier checks in front (the
    /// `check` command puts them in front of its own text, and refuses the whole call for a
    /// path in [`DiagnosticsReport::refused`]).
    pub fn diagnostics_checked(&self, paths: &[String]) -> Answer<DiagnosticsReport> {
        let ws = self.tools().workspace();
        let mut report = DiagnosticsReport {
            unavailable: self.unavailable(),
            warnings: self.config_warnings.clone(),
            ..DiagnosticsReport::default()
        };
        if paths.is_empty() {
            let text = "Error: no paths given; pass the workspace-relative paths of the files to check, e.g. [\"src/main.ts\"]".to_string();
            return Answer {
                result: text_result(text.clone(), text, true),
                outcome: report,
            };
        }
        // Each distinct file once, under the path it is shown as (as given when it cannot be
        // resolved: the check refuses it).
        let mut pending: Vec<(String, String)> = paths
            .iter()
            .map(|p| {
                let shown = ws
                    .resolve(p)
                    .map_or_else(|_| p.clone(), |abs| ws.display_path(&abs));
                (shown, p.clone())
            })
            .collect();
        pending.sort();
        pending.dedup_by(|a, b| a.0 == b.0);
        // `check_paths` refuses the whole call for the first path it cannot check: take that
        // path out as refused and check the rest (reading files only, nothing is asked of the
        // servers until every path is readable).
        let mut refused: Vec<(String, ToolError)> = Vec::new();
        let feedback = loop {
            if pending.is_empty() {
                break DiagnosticsFeedback::default();
            }
            let given: Vec<String> = pending.iter().map(|(_, p)| p.clone()).collect();
            match self.tools.check_paths(&given) {
                Ok(fb) => break fb,
                Err(e) => {
                    let at = pending.iter().position(|(shown, given)| {
                        e.path.as_deref().is_some_and(|p| p == shown || p == given)
                    });
                    match at {
                        Some(i) => refused.push((pending.remove(i).0, e)),
                        // An error naming none of the paths: every remaining path is refused.
                        None => {
                            refused.extend(pending.drain(..).map(|(shown, _)| (shown, e.clone())))
                        }
                    }
                }
            }
        };
        let mut files: Vec<FileCheck> = refused
            .iter()
            .map(|(shown, e)| FileCheck {
                path: e.path.clone().unwrap_or_else(|| shown.clone()),
                server: None,
                status: None,
                diagnostics: None,
                text: format!("Error: {e}"),
                reason: Some(e.reason),
            })
            .collect();
        let is_error = !files.is_empty();
        for (shown, _) in &pending {
            let status = feedback.statuses.iter().find(|s| &s.path == shown);
            files.push(self.file_check(shown, status, feedback.blocks.get(shown)));
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        let mut text = files
            .iter()
            .map(|f| f.text.as_str())
            .collect::<Vec<_>>()
            .join("\n\n");
        if !self.config_warnings.is_empty() {
            text.push('\n');
            for w in &self.config_warnings {
                text.push_str(&format!("\nWarning: {w}"));
            }
        }
        report.files = files;
        report.refused = refused.into_iter().map(|(_, e)| e).collect();
        let mut result = text_result(text.clone(), text, is_error);
        result.diagnostics = feedback.statuses;
        Answer {
            result,
            outcome: report,
        }
    }

    /// One checked (or not) file of [`Session::diagnostics`]: its text says why it has no
    /// diagnostics in words the model can act on, never the server's own error text.
    fn file_check(
        &self,
        shown: &str,
        status: Option<&FileDiagnosticsStatus>,
        block: Option<&String>,
    ) -> FileCheck {
        let pool = self.pool();
        let server = pool.and_then(|p| {
            let abs = self.tools.workspace().resolve(shown).ok()?;
            p.server_for(&abs)
                .map(|s| (s.id.clone(), p.pool().config().resolve_command(s).is_some()))
        });
        let id = server.as_ref().map(|(id, _)| id.clone());
        let state = status.map_or(DiagnosticsStatus::NoServer, |s| s.status);
        let reported: &[Diagnostic] = status.map_or(&[], |s| &s.reported);
        let text = match (state, &server) {
            (DiagnosticsStatus::Checked, _) if reported.is_empty() => format!(
                "{shown}: no errors ({}).",
                id.as_deref().unwrap_or("language server")
            ),
            (DiagnosticsStatus::Checked, _) => match block {
                Some(block) => block.clone(),
                None => format!(
                    "{shown}: {} reported, but they could not be shown; {} again.",
                    plural(reported.len(), "error", "errors"),
                    say(&Step::Diagnostics { path: None })
                ),
            },
            (DiagnosticsStatus::NoServer, _) if self.unavailable().is_some() => format!(
                "{shown}: no diagnostics: {}.",
                self.unavailable().unwrap_or_default()
            ),
            (DiagnosticsStatus::NoServer, None) => format!(
                "{shown}: no diagnostics: no language server is configured for this file type."
            ),
            (DiagnosticsStatus::NoServer, Some((id, false))) => format!(
                "{shown}: no diagnostics: language server '{id}' is not installed (run `lspedit servers install {id}`)."
            ),
            (DiagnosticsStatus::NoServer, Some((id, true))) => {
                format!("{shown}: no diagnostics: language server '{id}' does not check this file.")
            }
            (DiagnosticsStatus::TimedOut, _) => format!(
                "{shown}: no diagnostics from '{}' in time; the server may still be starting: {} again shortly.",
                id.as_deref().unwrap_or("the language server"),
                say(&Step::Diagnostics { path: None })
            ),
            (DiagnosticsStatus::Failed, _) => match status.and_then(|s| s.refused.as_deref()) {
                Some(reason) => format!(
                    "{shown}: not checked: lspedit did not start language server '{}': {reason}.",
                    id.as_deref().unwrap_or("the language server")
                ),
                None => format!(
                    "{shown}: no diagnostics: language server '{}' failed; {} again shortly.",
                    id.as_deref().unwrap_or("the language server"),
                    say(&Step::Diagnostics { path: None })
                ),
            },
        };
        FileCheck {
            path: shown.to_string(),
            server: id,
            status: Some(state),
            diagnostics: (state == DiagnosticsStatus::Checked).then(|| reported.to_vec()),
            text,
            reason: None,
        }
    }

    /// `answer` with the late answers to earlier checks in front of its text, once
    /// ([`Tools::take_late_feedback`]): the tools do it for their own results; this does it for
    /// the session's (`propose_edit`, `apply_edit`, `undo`, `diagnostics`).
    fn late_first<T>(&self, mut answer: Answer<T>, began: Instant) -> Answer<T> {
        answer.result.llm_content = self.late_in_front(&answer.result.llm_content, began);
        answer
    }

    /// `text` with the late answers to earlier checks in front, taken once; `text` unchanged
    /// when there are none. For callers that run the workflow themselves (the CLI).
    pub fn with_late_feedback(&self, text: &str) -> String {
        self.late_in_front(text, Instant::now())
    }

    /// [`Session::with_late_feedback`] for the result of a call that began at `began`: the
    /// late answers of checks that call asked for itself are not its to show (a one-shot
    /// command passes when it began: its own file's verdict, or "pending", stands).
    pub fn with_late_feedback_for_call(&self, text: &str, began: Instant) -> String {
        self.late_in_front(text, began)
    }

    /// `text`, the result of a call that began at `began`, with the late answers in front.
    fn late_in_front(&self, text: &str, began: Instant) -> String {
        match self.tools.take_late_feedback_for_call(began) {
            Some(late) => format!("{late}\n\n{text}"),
            None => text.to_string(),
        }
    }

    /// Why this session has no diagnostics, when it has none.
    fn unavailable(&self) -> Option<String> {
        if self.lsp.is_some() && self.diagnostics {
            return None;
        }
        Some(match &self.no_pool {
            Some(why) => why.clone(),
            None => "diagnostics are turned off for this session".to_string(),
        })
    }

    /// The LSP edit tools (`rename_symbol`, `code_actions`, `apply_code_action`, `references`,
    /// `definition`, `outline`, `find_symbol`, and the lookups `hover`, `call_hierarchy`,
    /// `implementations`, `type_definition`) over this session's workflow and pool: the server's edits go through the
    /// same planner, commit and diagnostics as a patch. Without a pool, every call is refused
    /// as `no_server`; with diagnostics turned off they still run (the edits' results then
    /// carry no diagnostics).
    pub fn lsp_edits(&self) -> Result<LspEdits<'_>, LspEditError> {
        self.lsp_edits_opened().map_err(LspEditError::from)
    }

    /// [`Session::lsp_edits`], refused with the workflow's own error when it cannot be opened
    /// (its only way to fail).
    fn lsp_edits_opened(&self) -> Result<LspEdits<'_>, ToolError> {
        let wf = self.workflow()?;
        let provider = self.pool().map(|p| p as &dyn LspEditProvider);
        Ok(
            LspEdits::new(&self.tools, wf, provider, LspEditsConfig::default())
                .remembering(&self.symbols),
        )
    }

    /// Stops the language servers (also done on drop).
    pub fn shutdown(&self) {
        if let Some(p) = self.pool() {
            p.shutdown();
        }
    }
}

fn text_result(llm_content: String, display: String, is_error: bool) -> ToolResult {
    ToolResult::text(llm_content, display, is_error)
}
