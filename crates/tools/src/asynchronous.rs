//! The agent tools for async callers. Every call runs on tokio's blocking pool
//! (`spawn_blocking`): file I/O, the locks and the diagnostics wait never block a runtime
//! worker. With an [`LspProvider`](crate::LspProvider) opened by
//! [`LspProvider::open_with_handle`](crate::LspProvider::open_with_handle), the language
//! servers run on the same runtime: one runtime per process.

use std::sync::Arc;

use crate::agent::{ToolResult, Tools};
use lspedit_write::{Reason, ToolError};

/// [`Tools`] with async methods; cheap to clone (one `Arc`).
#[derive(Debug, Clone)]
pub struct AsyncTools {
    tools: Arc<Tools>,
}

impl AsyncTools {
    pub fn new(tools: Arc<Tools>) -> AsyncTools {
        AsyncTools { tools }
    }

    /// The synchronous tools inside.
    pub fn tools(&self) -> &Arc<Tools> {
        &self.tools
    }

    /// [`Tools::read_file`].
    pub async fn read_file(
        &self,
        path: impl Into<String>,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> ToolResult {
        let path = path.into();
        self.run(move |t| t.read_file(&path, offset, limit)).await
    }

    /// [`Tools::edit`].
    pub async fn edit(
        &self,
        path: impl Into<String>,
        old_text: impl Into<String>,
        new_text: impl Into<String>,
        replace_all: bool,
    ) -> ToolResult {
        let (path, old_text, new_text) = (path.into(), old_text.into(), new_text.into());
        self.run(move |t| t.edit(&path, &old_text, &new_text, replace_all))
            .await
    }

    /// [`Tools::write_file`].
    pub async fn write_file(
        &self,
        path: impl Into<String>,
        content: impl Into<String>,
    ) -> ToolResult {
        let (path, content) = (path.into(), content.into());
        self.run(move |t| t.write_file(&path, &content)).await
    }

    /// [`Tools::apply_patch`].
    pub async fn apply_patch(&self, patch: impl Into<String>) -> ToolResult {
        let patch = patch.into();
        self.run(move |t| t.apply_patch(&patch)).await
    }

    async fn run<F>(&self, f: F) -> ToolResult
    where
        F: FnOnce(&Tools) -> ToolResult + Send + 'static,
    {
        let tools = Arc::clone(&self.tools);
        match tokio::task::spawn_blocking(move || f(&tools)).await {
            Ok(r) => r,
            // A panic in a tool is a bug; the caller still gets a result, not a panic.
            Err(e) => ToolResult::error(&ToolError::new(
                Reason::IoError,
                None,
                format!("the tool did not complete: {e}"),
            )),
        }
    }
}
