//! What the workflow needs of the agent tools it runs beside: their workspace, their engine
//! options, their per-file locks (so a tool's write and a workflow commit of the same file never
//! interleave), their read guard (a file the workflow wrote counts as read), and the diagnostics
//! of the files it wrote. Implemented by [`Tools`]; nothing else of them is reachable from here.

use std::path::Path;
use std::sync::{Arc, Mutex};

use lspedit_engine::ApplyOptions;
use lspedit_tools::{DiagnosticsFeedback, Tools, WrittenFile};
use lspedit_write::Workspace;

/// The tools, as the workflow uses them.
pub trait WorkflowTools: Send + Sync {
    /// The workspace every proposal, commit and undo works in.
    fn workspace(&self) -> &Workspace;
    /// How patches are located and applied, as the tools do.
    fn engine(&self) -> &ApplyOptions;
    /// The in-process lock of the file at `abs`, shared with the tools.
    fn file_lock(&self, abs: &Path) -> Arc<Mutex<()>>;
    /// Record that the file at `abs` now holds `bytes`, as if the agent had read it.
    fn remember(&self, abs: &Path, bytes: &[u8]);
    /// The diagnostics block and per-file statuses of the files an apply wrote.
    fn written_feedback(&self, written: &[WrittenFile]) -> DiagnosticsFeedback;
}

impl WorkflowTools for Tools {
    fn workspace(&self) -> &Workspace {
        Tools::workspace(self)
    }

    fn engine(&self) -> &ApplyOptions {
        &self.config().engine
    }

    fn file_lock(&self, abs: &Path) -> Arc<Mutex<()>> {
        Tools::file_lock(self, abs)
    }

    fn remember(&self, abs: &Path, bytes: &[u8]) {
        Tools::remember(self, abs, bytes);
    }

    fn written_feedback(&self, written: &[WrittenFile]) -> DiagnosticsFeedback {
        self.diagnostics_feedback_with_status(written)
    }
}
