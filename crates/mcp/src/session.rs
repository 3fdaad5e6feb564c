//! A session: the agent tools over one workspace, with the language-server pool as their
//! diagnostics provider, the `diagnostics` operation (check files without editing them), and
//! the propose → apply → undo workflow over the same tools.
//!
//! Shared by the MCP server and the CLI so that both report the same text. A pool that cannot
//! be opened, a server that is not installed or a check that times out never fails a tool: the
//! tool result says why diagnostics are absent.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use lspedit_lsp::{BlockingPool, PoolConfig, Severity};
use lspedit_tools::{
    ApplyPlan, DiagnosticsProvider, LspProvider, ProposeRequest, Reason, ToolError, ToolResult,
    Tools, ToolsConfig, Workflow, WorkflowConfig, Workspace, WrittenFile,
};

use crate::output::{
    ApplyEditOutput, DiagnosticOutput, DiagnosticsOutput, FileDiagnosticsOutput, ProposeOutput,
    Reply, UndoOutput,
};

/// The tools of one workspace and the pool behind their diagnostics.
pub struct Session {
    tools: Arc<Tools>,
    lsp: Option<Arc<LspProvider>>,
    /// Why there is no pool, when diagnostics were asked for but could not be set up.
    no_pool: Option<String>,
    /// What loading the pool configuration ignored ([`PoolConfig::warnings`]): an untrusted
    /// `.lspedit/config.toml` that names a program to run, a symlinked config.
    config_warnings: Vec<String>,
    /// The workflow, opened with the session so an all-or-nothing commit a crashed process
    /// left half done is rolled back before anything else touches the workspace.
    workflow: Result<Workflow, ToolError>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("root", &self.tools.workspace().root())
            .field("diagnostics", &self.lsp.is_some())
            .finish()
    }
}

impl Session {
    /// Tools over `ws`. With `pool: Some(config)`, diagnostics come from a language-server pool
    /// with that configuration (servers start lazily, on the first file that needs one); with
    /// `None` the tools report no diagnostics.
    pub fn new(ws: Workspace, pool: Option<PoolConfig>, config: ToolsConfig) -> Session {
        let config_warnings = pool
            .as_ref()
            .map(|c| c.warnings.clone())
            .unwrap_or_default();
        let (lsp, no_pool) = match pool {
            None => (None, None),
            Some(cfg) => match BlockingPool::new(ws.root(), cfg) {
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
            .map(|p| Arc::clone(p) as Arc<dyn DiagnosticsProvider>);
        let mut session = Session::with_workflow(
            Arc::new(Tools::new(ws, provider, config)),
            lsp,
            no_pool,
            WorkflowConfig::default(),
        );
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
        let workflow = Workflow::open(Arc::clone(&tools), workflow);
        match &workflow {
            Ok(wf) => {
                for r in wf.recovered() {
                    tracing::warn!(?r, "rolled back an interrupted all-or-nothing commit");
                }
            }
            Err(e) => tracing::warn!("the propose/apply workflow is unavailable: {e}"),
        }
        Session {
            tools,
            lsp,
            no_pool,
            config_warnings: Vec::new(),
            workflow,
        }
    }

    /// What loading the pool configuration ignored, one sentence each (empty when nothing).
    /// The `diagnostics` result ends with them; `lspedit mcp` logs them once at start.
    pub fn config_warnings(&self) -> &[String] {
        &self.config_warnings
    }

    /// The agent tools (`read_file`, `edit`, `write_file`, `apply_patch`).
    pub fn tools(&self) -> &Tools {
        &self.tools
    }

    /// The propose → apply → undo workflow over the same tools (and so the same file locks
    /// and diagnostics).
    pub fn workflow(&self) -> Result<&Workflow, ToolError> {
        self.workflow.as_ref().map_err(Clone::clone)
    }

    /// `propose_edit` as a tool result: the proposal's text (patch id, summary, diff), or the
    /// refusal, with its structured twin.
    pub fn propose_edit(&self, request: &ProposeRequest) -> Reply {
        match self.workflow().and_then(|wf| wf.propose_edit(request)) {
            Ok(p) => Reply::new(
                text_result(p.llm_content(), p.summary.clone(), false),
                &ProposeOutput::from_proposal(&p),
            ),
            Err(e) => Reply::new(error_result(&e), &ProposeOutput::refused(Some(e.reason))),
        }
    }

    /// `apply_edit` as a tool result: the per-file outcome with diagnostics, or the refusal.
    pub fn apply_edit(&self, patch_id: &str, plan: &ApplyPlan) -> Reply {
        match self.workflow() {
            Ok(wf) => {
                let o = wf.apply_edit(patch_id, plan);
                let structured = ApplyEditOutput::new(&o);
                let mut r = text_result(o.llm_content, o.display, o.is_error);
                r.reason = o.reason;
                Reply::new(r, &structured)
            }
            Err(e) => Reply::new(
                error_result(&e),
                &ApplyEditOutput::unavailable(patch_id, Some(e.reason)),
            ),
        }
    }

    /// `undo` as a tool result.
    pub fn undo(&self, checkpoint_id: &str) -> Reply {
        match self.workflow().and_then(|wf| wf.undo(checkpoint_id)) {
            Ok(u) => Reply::new(
                text_result(u.llm_content.clone(), u.llm_content.clone(), false),
                &UndoOutput::new(&u),
            ),
            Err(e) => Reply::new(
                error_result(&e),
                &UndoOutput::refused(checkpoint_id, Some(e.reason)),
            ),
        }
    }

    /// The pool, when diagnostics are on.
    pub fn pool(&self) -> Option<&BlockingPool> {
        self.lsp.as_deref().map(LspProvider::pool)
    }

    /// `diagnostics`: the current errors of each file as the language servers see them, without
    /// editing anything. One line or block per file, in path order: the diagnostics block of
    /// DESIGN.md §7 when there are errors, `<path>: no errors (<server>)` when the server is
    /// clean, otherwise why there are no diagnostics (no server for the file type, server not
    /// installed, still starting). `is_error` when a path itself is refused (outside the workspace,
    /// missing, not text). Then one `Warning: ...` line per [`Session::config_warnings`], so
    /// the model learns that a server it configured was not used, and why.
    pub fn diagnostics(&self, paths: &[String]) -> ToolResult {
        self.diagnostics_report(paths).result
    }

    /// [`Session::diagnostics`] with its structured twin: per file the server, the
    /// diagnostics of the severities shown and the text; why the session has none at all.
    pub fn diagnostics_report(&self, paths: &[String]) -> Reply {
        let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        paths.sort_unstable();
        paths.dedup();
        let mut out = DiagnosticsOutput {
            unavailable: self.unavailable(),
            warnings: self.config_warnings.clone(),
            ..DiagnosticsOutput::default()
        };
        if paths.is_empty() {
            let text = "Error: no paths given; pass the workspace-relative paths of the files to check, e.g. [\"src/main.ts\"]".to_string();
            return Reply::new(text_result(text.clone(), text, true), &out);
        }
        let mut parts = Vec::new();
        let mut refused = false;
        for path in paths {
            let file = match self.check_one(path) {
                Ok(file) => file,
                Err(e) => {
                    refused = true;
                    FileDiagnosticsOutput {
                        path: e.path.clone().unwrap_or_else(|| path.to_string()),
                        server: None,
                        diagnostics: None,
                        text: format!("Error: {e}"),
                        reason: Some(e.reason.as_str().to_string()),
                    }
                }
            };
            parts.push(file.text.clone());
            out.files.push(file);
        }
        let mut text = parts.join("\n\n");
        if !self.config_warnings.is_empty() {
            text.push('\n');
            for w in &self.config_warnings {
                text.push_str(&format!("\nWarning: {w}"));
            }
        }
        Reply::new(text_result(text.clone(), text, refused), &out)
    }

    /// Why this session has no diagnostics, when it has none.
    fn unavailable(&self) -> Option<String> {
        if self.lsp.is_some() {
            return None;
        }
        Some(match &self.no_pool {
            Some(why) => why.clone(),
            None => "diagnostics are turned off for this session".to_string(),
        })
    }

    fn check_one(&self, path: &str) -> Result<FileDiagnosticsOutput, ToolError> {
        let ws = self.tools.workspace();
        let abs = ws.resolve(path)?;
        let shown = ws.display_path(&abs);
        let bytes = ws
            .read(path)?
            .ok_or_else(|| ToolError::new(Reason::FileNotFound, Some(&shown), "no such file"))?;
        let text = String::from_utf8(bytes).map_err(|_| {
            ToolError::new(
                Reason::NotUtf8,
                Some(&shown),
                "not UTF-8 text; language servers check text files only",
            )
        })?;
        let only_text = |server: Option<String>, text: String| FileDiagnosticsOutput {
            path: shown.clone(),
            server,
            diagnostics: None,
            text,
            reason: None,
        };
        let Some(lsp) = &self.lsp else {
            let why = self.unavailable().unwrap_or_default();
            return Ok(only_text(None, format!("{shown}: no diagnostics: {why}.")));
        };
        let pool = lsp.pool();
        let Some(server) = pool.server_for(&abs) else {
            return Ok(only_text(
                None,
                format!(
                    "{shown}: no diagnostics: no language server is configured for this file type."
                ),
            ));
        };
        let id = server.id.clone();
        if pool.pool().config().resolve_command(server).is_none() {
            return Ok(only_text(
                Some(id.clone()),
                format!(
                    "{shown}: no diagnostics: language server '{id}' is not installed (run `lspedit servers install {id}`)."
                ),
            ));
        }
        let cfg = &self.tools.config().diagnostics;
        let timeout = if pool.is_alive(&abs) {
            cfg.timeout
        } else {
            cfg.start_timeout
        };
        match pool.check_file(&abs, &text, Instant::now() + timeout) {
            Err(e) => Ok(only_text(
                Some(id.clone()),
                format!(
                    "{shown}: no diagnostics from '{id}': {e}; the server may still be starting, call diagnostics again shortly."
                ),
            )),
            Ok(fd) => {
                let shown_diags: Vec<DiagnosticOutput> = fd
                    .diagnostics
                    .iter()
                    .filter(|d| cfg.severities.contains(&d.severity))
                    .map(|d| DiagnosticOutput {
                        line: d.line,
                        column: d.column,
                        severity: severity_name(d.severity).to_string(),
                        code: d.code.clone(),
                        message: d.message.clone(),
                    })
                    .collect();
                let counted = shown_diags.len();
                let text = if counted == 0 {
                    format!("{shown}: no errors ({id}).")
                } else {
                    // Format through the tools so the block is byte-identical to the one the
                    // writing tools append; the text is unchanged, so the pool answers from
                    // its settled state.
                    let block = self.tools.diagnostics_feedback(&[WrittenFile {
                        path: shown.clone(),
                        old_text: None,
                        new_text: text,
                    }]);
                    let block = block.trim();
                    if block.is_empty() {
                        format!(
                            "{shown}: {counted} errors reported by '{id}', but they could not be re-read; call diagnostics again."
                        )
                    } else {
                        block.to_string()
                    }
                };
                Ok(FileDiagnosticsOutput {
                    path: shown.clone(),
                    server: Some(id),
                    diagnostics: Some(shown_diags),
                    text,
                    reason: None,
                })
            }
        }
    }

    /// Stops the language servers (also done on drop).
    pub fn shutdown(&self) {
        if let Some(p) = self.pool() {
            p.shutdown();
        }
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information => "info",
        Severity::Hint => "hint",
    }
}

fn text_result(llm_content: String, display: String, is_error: bool) -> ToolResult {
    ToolResult {
        reason: None,
        llm_content,
        display,
        files: Vec::new(),
        is_error,
        diagnostics: Vec::new(),
    }
}

fn error_result(e: &ToolError) -> ToolResult {
    let text = format!("Error: {e}");
    let mut r = text_result(text.clone(), text, true);
    r.reason = Some(e.reason);
    r
}

/// The pool configuration of a workspace: the bundled servers, the person's config, then its
/// `.lspedit/config.toml` (choosing no program unless trusted; see
/// [`lspedit_lsp::config`]), and `servers_dir` (where project-local installs live) replaced by
/// `servers_dir` unless a trusted configuration names one itself. What was ignored is in
/// [`PoolConfig::warnings`].
pub fn pool_config(
    root: &Path,
    servers_dir: Option<&Path>,
) -> Result<PoolConfig, lspedit_lsp::LspError> {
    let mut cfg = PoolConfig::load(root)?;
    if let Some(dir) = servers_dir
        && cfg.servers_dir == lspedit_lsp::config::default_servers_dir()
    {
        cfg.servers_dir = Some(dir.to_path_buf());
    }
    Ok(cfg)
}
