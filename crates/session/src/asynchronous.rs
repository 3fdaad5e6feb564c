//! The session for async callers: every operation of [`Session`] — the agent tools, the
//! propose → apply → undo workflow, the `diagnostics` check, the LSP edits (rename, code
//! actions), the lookups (references, definition, hover, call hierarchy, implementations, type
//! definitions) and the symbol tools (outline, find_symbol, replace_symbol_body,
//! insert_before/after_symbol) — awaited from tokio without blocking a runtime worker.
//!
//! One mechanism: [`AsyncSession::run`] moves a call of the blocking API to the runtime's
//! blocking pool ([`lspedit_tools::run_blocking`], `spawn_blocking`) and awaits it;
//! [`AsyncSession::lsp_edits`] is the same for a call of [`LspEdits`]. The named methods are
//! that with their arguments moved in, for the workflow calls that take references. A session
//! opened with [`Session::on_runtime`] on the caller's runtime runs its language servers there:
//! one runtime per process.

use std::sync::Arc;

use lspedit_lsp_edits::LspEdits;
use lspedit_tools::{FromRefusal, ToolResult, run_blocking};
use lspedit_workflow::{ApplyOutcome, ApplyPlan, Proposal, ProposeRequest, UndoOutcome};
use lspedit_write::ToolError;

use crate::{Answer, DiagnosticsReport, Session};

/// A [`Session`] with async methods; cheap to clone (one `Arc`).
///
/// ```no_run
/// use lspedit_lsp_edits::{EditOptions, LineRef, SymbolAt};
/// use lspedit_session::{AsyncSession, Session};
///
/// # async fn run(session: Session) {
/// let session = AsyncSession::new(session);
/// let at = SymbolAt::new("src/util.ts", LineRef::Number(1), "add");
/// let renamed = session
///     .lsp_edits(move |e| e.rename_symbol(&at, "sum", EditOptions::default()))
///     .await;
/// let checked = session.run(|s| s.tools().check_paths(&["src/index.ts".into()])).await;
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct AsyncSession {
    session: Arc<Session>,
}

impl From<Arc<Session>> for AsyncSession {
    fn from(session: Arc<Session>) -> AsyncSession {
        AsyncSession { session }
    }
}

impl AsyncSession {
    pub fn new(session: Session) -> AsyncSession {
        AsyncSession::from(Arc::new(session))
    }

    /// The synchronous session inside.
    pub fn session(&self) -> &Arc<Session> {
        &self.session
    }

    /// Any call of [`Session`] on the blocking pool, awaited:
    /// `session.run(|s| s.tools().edit("a.ts", "1", "2", false)).await`. The value is the call's
    /// own (errors typed as the blocking API types them); a call that panics or never runs is
    /// an `io_error` refusal of the same type ([`FromRefusal`]).
    pub async fn run<R, F>(&self, f: F) -> R
    where
        R: FromRefusal + Send + 'static,
        F: FnOnce(&Session) -> R + Send + 'static,
    {
        run_blocking(Arc::clone(&self.session), f).await
    }

    /// Any call of the LSP edits, lookups and symbol tools ([`Session::lsp_edits`]) on the
    /// blocking pool: `session.lsp_edits(move |e| e.references(&at, true)).await`. When the
    /// workflow they apply through cannot be opened, the value is that refusal.
    pub async fn lsp_edits<R, F>(&self, f: F) -> R
    where
        R: FromRefusal + Send + 'static,
        F: FnOnce(&LspEdits<'_>) -> R + Send + 'static,
    {
        self.run(move |s| match s.lsp_edits_opened() {
            Ok(edits) => f(&edits),
            Err(e) => R::from_refusal(e),
        })
        .await
    }

    /// [`Session::propose_edit`].
    pub async fn propose_edit(
        &self,
        request: ProposeRequest,
    ) -> Answer<Result<Proposal, ToolError>> {
        self.run(move |s| s.propose_edit(&request)).await
    }

    /// [`Session::apply_edit`].
    pub async fn apply_edit(
        &self,
        patch_id: impl Into<String>,
        plan: ApplyPlan,
    ) -> Answer<Result<ApplyOutcome, ToolError>> {
        let patch_id = patch_id.into();
        self.run(move |s| s.apply_edit(&patch_id, &plan)).await
    }

    /// [`Session::undo`].
    pub async fn undo(
        &self,
        checkpoint_id: impl Into<String>,
    ) -> Answer<Result<UndoOutcome, ToolError>> {
        let checkpoint_id = checkpoint_id.into();
        self.run(move |s| s.undo(&checkpoint_id)).await
    }

    /// [`Session::diagnostics_report`]: the files as they are on disk, no edit.
    pub async fn diagnostics(&self, paths: Vec<String>) -> Answer<DiagnosticsReport> {
        self.run(move |s| s.diagnostics_report(&paths)).await
    }
}

impl<T: FromRefusal> FromRefusal for Answer<T> {
    fn from_refusal(error: ToolError) -> Answer<T> {
        Answer {
            result: ToolResult::error(&error),
            outcome: T::from_refusal(error),
        }
    }
}

/// A check that never ran: the refusal names why, and no file has a result.
impl FromRefusal for DiagnosticsReport {
    fn from_refusal(error: ToolError) -> DiagnosticsReport {
        DiagnosticsReport {
            refused: vec![error],
            ..DiagnosticsReport::default()
        }
    }
}
