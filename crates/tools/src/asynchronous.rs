//! The blocking API for async callers, by one mechanism: [`run_blocking`] moves a call to
//! tokio's blocking pool (`spawn_blocking`) and awaits it, so file I/O, the locks and the
//! diagnostics wait never block a runtime worker. [`AsyncTools`] is the tools over it (its
//! [`AsyncTools::run`] takes any call of [`Tools`]; the common ones have their own method), and
//! the floors above use the same function (`lspedit_session::AsyncSession` for the workflow, the
//! LSP edits and the symbol tools). With an [`LspProvider`](crate::LspProvider) opened by
//! [`LspProvider::open_with_handle`](crate::LspProvider::open_with_handle), the language servers
//! run on the same runtime: one runtime per process.
//!
//! A call that never returns a value (it panicked, which is a bug, or the runtime shut down
//! before it ran) still gives the caller a value of the call's own type, never a panic: an
//! `io_error` refusal through [`FromRefusal`].

use std::sync::Arc;

use crate::agent::{DiagnosticsFeedback, ToolResult, Tools};
use lspedit_write::{Reason, ToolError};

/// A result type that can carry a refusal made before the call gave its own: the value
/// [`run_blocking`] returns when the blocking call panicked or never ran, and the value an
/// async facade returns when what the call needs could not be opened (the session's workflow).
/// Implemented for [`ToolResult`], for every `Result<T, E>` whose `E` is built from a
/// [`ToolError`] (`ToolError` itself, the LSP edits' `LspEditError`), and by the floors above
/// for their own results (the workflow's `ApplyOutcome`, the LSP edits' `LspEditResult`, the
/// session's `Answer`).
pub trait FromRefusal {
    /// The refusal `error` as this type's value: an error result naming its reason.
    fn from_refusal(error: ToolError) -> Self;
}

impl FromRefusal for ToolResult {
    fn from_refusal(error: ToolError) -> ToolResult {
        ToolResult::error(&error)
    }
}

impl<T, E: From<ToolError>> FromRefusal for Result<T, E> {
    fn from_refusal(error: ToolError) -> Result<T, E> {
        Err(error.into())
    }
}

/// Runs `f(&state)` on the current tokio runtime's blocking pool and awaits its value: the one
/// way lspedit's blocking calls are made from async code. The awaiting task yields meanwhile,
/// so other tasks of the runtime (the language servers' among them) go on, on a
/// current-thread runtime too. A call that panics or never runs gives
/// an `io_error` refusal ([`FromRefusal`]). Must be awaited inside a tokio runtime (`spawn_blocking`
/// panics outside one).
pub async fn run_blocking<S, R, F>(state: Arc<S>, f: F) -> R
where
    S: ?Sized + Send + Sync + 'static,
    R: FromRefusal + Send + 'static,
    F: FnOnce(&S) -> R + Send + 'static,
{
    match tokio::task::spawn_blocking(move || f(&state)).await {
        Ok(r) => r,
        // A panic in a call is a bug; the caller still gets a result of the call's type.
        Err(e) => R::from_refusal(ToolError::new(
            Reason::IoError,
            None,
            format!("the call did not complete: {e}"),
        )),
    }
}

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

    /// Any call of [`Tools`], on the blocking pool ([`run_blocking`]): `tools.run(|t|
    /// t.check_paths(&paths)).await`. The named methods below are this with their arguments
    /// moved in.
    pub async fn run<R, F>(&self, f: F) -> R
    where
        R: FromRefusal + Send + 'static,
        F: FnOnce(&Tools) -> R + Send + 'static,
    {
        run_blocking(Arc::clone(&self.tools), f).await
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

    /// [`Tools::check_paths`]: the diagnostics of files as they are on disk, no edit.
    pub async fn check_paths(&self, paths: Vec<String>) -> Result<DiagnosticsFeedback, ToolError> {
        self.run(move |t| t.check_paths(&paths)).await
    }
}
