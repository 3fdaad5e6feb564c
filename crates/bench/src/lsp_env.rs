//! The LSP edit tools over a copy of a test project with one real server, as the `rename` and
//! `symbols` sections measure them: the pool, the tools with diagnostics, the workflow.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use lspedit_fake_lsp::support::copy_project;
use lspedit_lsp::{BlockingPool, PoolConfig};
use lspedit_lsp_edits::{LspEditProvider, LspEdits, LspEditsConfig};
use lspedit_tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig};
use lspedit_workflow::{Workflow, WorkflowConfig};
use lspedit_write::Workspace;

pub struct LspEnv {
    /// The copy of the project, removed on drop (held, never read).
    _dir: tempfile::TempDir,
    pub root: std::path::PathBuf,
    pub provider: Arc<LspProvider>,
    pub tools: Arc<Tools>,
    pub wf: Workflow,
}

impl LspEnv {
    /// `server` alone over a copy of `test-projects/<project>`; `None` (said on stderr, as
    /// `what` skipped it) when the server is not installed.
    pub fn open(repo: &Path, server: &str, project: &str, what: &str) -> Result<Option<LspEnv>> {
        let cfg = PoolConfig::bundled()?.only(&[server]);
        let Some(decl) = cfg.server(server) else {
            return Ok(None);
        };
        if cfg.resolve_command(decl).is_none() {
            eprintln!("{what}: {server} is not installed; skipped");
            return Ok(None);
        }
        let dir = tempfile::tempdir()?;
        copy_project(&repo.join("test-projects").join(project), dir.path())?;
        let root = dir.path().canonicalize()?;
        let provider = Arc::new(LspProvider::from_pool(BlockingPool::new(&root, cfg)?));
        let mut tcfg = ToolsConfig::default();
        tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
        tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
        let tools = Arc::new(Tools::new(
            Workspace::open(&root)?,
            Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
            tcfg,
        ));
        let wf = Workflow::open(
            tools.clone(),
            WorkflowConfig {
                event_log: false,
                ..WorkflowConfig::unrestricted()
            },
        )?;
        Ok(Some(LspEnv {
            _dir: dir,
            root,
            provider,
            tools,
            wf,
        }))
    }

    /// The LSP edit tools over the copy, with a request bound long enough for a cold start.
    pub fn edits(&self) -> LspEdits<'_> {
        LspEdits::new(
            &self.tools,
            &self.wf,
            Some(self.provider.pool() as &dyn LspEditProvider),
            LspEditsConfig {
                timeout: Duration::from_secs(120),
                ..LspEditsConfig::default()
            },
        )
    }
}
