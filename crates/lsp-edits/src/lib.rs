//! Edits and lookups a language server computes — rename a symbol, apply a quick fix, find
//! references or a definition, hover, callers and callees, implementations and type
//! definitions (`inspect.rs`) — through the same safe path as every other edit.
//!
//! The model names a position as a file, a line (number or anchor `42abcd`, stale anchors are
//! `stale_context`) and the symbol's text on it ([`SymbolAt`]); the server's `WorkspaceEdit` is
//! confined (every URI inside the workspace and writable, checked before anything is read),
//! turned into an ordinary patch (`convert.rs`) and handed to the workflow: `propose_edit` stores
//! it (`patch_id`) and, unless a preview was asked for, `apply_edit` applies it at once through
//! the one planner — all files or none by default ([`EditOptions::all_or_nothing`]), atomic
//! writes, a checkpoint `undo` restores, the per-file report with fresh anchors and the
//! diagnostics feedback, other files included.
//!
//! Servers are reached through [`LspEditProvider`] ([`LspProvider`](lspedit_tools::LspProvider) over the pool), so the
//! tools stay testable without servers.

mod convert;
mod extent;
mod inspect;
mod locations;
mod memory;
mod position;
mod symbol_edits;
#[cfg(test)]
mod symbol_invariant;
mod symbols;

use std::path::Path;
use std::time::{Duration, Instant};

use lspedit_lsp::lsp_types::{CodeActionOrCommand, NumberOrString};
use lspedit_lsp::{
    BlockingPool, CodeActions, Locations, LspError, ServerEdit, Symbols, WorkspaceSymbols,
};
use lspedit_lsp::{CallItem, CallItems, Calls, HoverText};
use lspedit_tools::front::{Step, say};

pub use convert::ServerFileOp;
pub use inspect::{
    CallDirection, CallSite, CalledItem, CallsReport, HoverReport, LookupAt, MAX_CALLS,
    MAX_HOVER_LINES, MAX_SITES,
};
pub use locations::{FoundLocation, LocationsReport};
pub use memory::SymbolMemory;
pub use position::{LineRef, SymbolAt};
pub use symbol_edits::{SymbolEdit, SymbolEditKind};
pub use symbols::{
    FindQuery, FindReport, MAX_BODIES, MAX_BODY_LINES, MAX_FILES, MAX_MATCHES, MAX_OUTLINE_FILES,
    MAX_OUTLINE_LINES, OutlineFile, OutlineOptions, OutlineReport, SymbolEntry, SymbolHit,
    container_name, is_declaration, is_import, kind_name, kind_names, matches as name_path_matches,
    suggest,
};

use lspedit_tools::Tools;
use lspedit_tools::diagnostics::FileDiagnosticsStatus;
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, Atomicity, FileApplyResult, PolicyGate, ProposeRequest, Workflow,
};
use lspedit_write::{Reason, ToolError};

/// The requests beyond diagnostics, as the tools need them: positions are byte offsets of the
/// text given (the file as read), answers LSP-level data with the server's position encoding.
/// Implemented by [`LspProvider`](lspedit_tools::LspProvider) over the pool; tests implement it with scripted answers.
pub trait LspEditProvider: Send + Sync {
    /// Whether a server is configured for `path`.
    fn handles(&self, path: &Path) -> bool;
    /// The id of the server configured for `path`.
    fn server_id(&self, path: &Path) -> Option<String>;
    /// The symbols of `path` as a tree (`textDocument/documentSymbol`).
    fn document_symbols(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Symbols, LspError>;
    /// The symbols matching `query` in the project of `path_hint` (`workspace/symbol`).
    fn workspace_symbols(
        &self,
        path_hint: &Path,
        query: &str,
        deadline: Instant,
    ) -> Result<WorkspaceSymbols, LspError>;
    fn rename(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        new_name: &str,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError>;
    fn code_actions(
        &self,
        path: &Path,
        text: &str,
        range: std::ops::Range<usize>,
        deadline: Instant,
    ) -> Result<CodeActions, LspError>;
    fn code_action_edit(
        &self,
        path: &Path,
        text: &str,
        action: CodeActionOrCommand,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError>;
    fn references(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        include_declaration: bool,
        deadline: Instant,
    ) -> Result<Locations, LspError>;
    fn definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError>;

    // The lookups of `inspect.rs`. Each defaults to `Unsupported` (a provider that answers
    // only what it was written for keeps compiling; the pool answers them all).

    /// `textDocument/hover` at `offset`; `None` when the server has nothing to say there.
    fn hover(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Option<HoverText>, LspError> {
        let _ = (text, offset, deadline);
        Err(unsupported_by(self, path, "textDocument/hover"))
    }
    /// `textDocument/prepareCallHierarchy` at `offset`.
    fn prepare_call_hierarchy(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<CallItems, LspError> {
        let _ = (text, offset, deadline);
        Err(unsupported_by(
            self,
            path,
            "textDocument/prepareCallHierarchy",
        ))
    }
    /// `callHierarchy/incomingCalls` of an item [`LspEditProvider::prepare_call_hierarchy`] gave.
    fn incoming_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        let _ = deadline;
        let path = item.uri.to_file_path().unwrap_or_default();
        Err(unsupported_by(self, &path, "callHierarchy/incomingCalls"))
    }
    /// `callHierarchy/outgoingCalls` of an item [`LspEditProvider::prepare_call_hierarchy`] gave.
    fn outgoing_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        let _ = deadline;
        let path = item.uri.to_file_path().unwrap_or_default();
        Err(unsupported_by(self, &path, "callHierarchy/outgoingCalls"))
    }
    /// `textDocument/implementation` at `offset`.
    fn implementations(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let _ = (text, offset, deadline);
        Err(unsupported_by(self, path, "textDocument/implementation"))
    }
    /// `textDocument/typeDefinition` at `offset`.
    fn type_definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let _ = (text, offset, deadline);
        Err(unsupported_by(self, path, "textDocument/typeDefinition"))
    }
}

/// `method` unsupported by the server configured for `path` (the defaults of the lookups).
fn unsupported_by<P: LspEditProvider + ?Sized>(
    provider: &P,
    path: &Path,
    method: &'static str,
) -> LspError {
    LspError::Unsupported {
        server: provider.server_id(path).unwrap_or_default(),
        method,
    }
}

/// The pool (what a session holds; an [`LspProvider`](lspedit_tools::LspProvider) hands its own out
/// with `pool()`).
impl LspEditProvider for BlockingPool {
    fn handles(&self, path: &Path) -> bool {
        self.server_for(path).is_some()
    }

    fn server_id(&self, path: &Path) -> Option<String> {
        self.server_for(path).map(|s| s.id.clone())
    }

    fn document_symbols(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Symbols, LspError> {
        BlockingPool::document_symbols(self, path, text, deadline)
    }

    fn workspace_symbols(
        &self,
        path_hint: &Path,
        query: &str,
        deadline: Instant,
    ) -> Result<WorkspaceSymbols, LspError> {
        BlockingPool::workspace_symbols(self, path_hint, query, deadline)
    }

    fn rename(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        new_name: &str,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        BlockingPool::rename(self, path, text, offset, new_name, deadline)
    }

    fn code_actions(
        &self,
        path: &Path,
        text: &str,
        range: std::ops::Range<usize>,
        deadline: Instant,
    ) -> Result<CodeActions, LspError> {
        BlockingPool::code_actions(self, path, text, range, deadline)
    }

    fn code_action_edit(
        &self,
        path: &Path,
        text: &str,
        action: CodeActionOrCommand,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        BlockingPool::code_action_edit(self, path, text, action, deadline)
    }

    fn references(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        include_declaration: bool,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        BlockingPool::references(self, path, text, offset, include_declaration, deadline)
    }

    fn definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        BlockingPool::definition(self, path, text, offset, deadline)
    }

    fn hover(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Option<HoverText>, LspError> {
        BlockingPool::hover(self, path, text, offset, deadline)
    }

    fn prepare_call_hierarchy(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<CallItems, LspError> {
        BlockingPool::prepare_call_hierarchy(self, path, text, offset, deadline)
    }

    fn incoming_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        BlockingPool::incoming_calls(self, item, deadline)
    }

    fn outgoing_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        BlockingPool::outgoing_calls(self, item, deadline)
    }

    fn implementations(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        BlockingPool::implementations(self, path, text, offset, deadline)
    }

    fn type_definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        BlockingPool::type_definition(self, path, text, offset, deadline)
    }
}

/// Why an LSP edit or lookup was refused: a reason of the write layer, or one of the LSP edit
/// tools' own. [`LspEditReason::as_str`] is the reason code of the wire (docs/design.md §9,
/// README "Reason codes"), printed verbatim by the CLI and the MCP server.
///
/// Closed on purpose (not `#[non_exhaustive]`): the MCP server and the CLI match it exhaustively,
/// so a reason added here does not compile until each of them gives it a place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LspEditReason {
    /// A refusal of the write layer: confinement, protected path, stale anchor, missing file,
    /// an ambiguous symbol (`ambiguous_match`), ...
    Tool(Reason),
    /// The symbol's text is not on the line.
    SymbolNotFound,
    /// No language server is configured or installed for the file. The diagnostics status of
    /// the same name states the same fact.
    NoServer,
    /// The server did not answer within the deadline. The diagnostics status of the same name
    /// states the same fact (both come from the pool's `LspError::Timeout`), so it has the same
    /// code; this code was `lsp_timeout` before.
    TimedOut,
    /// The server answered but declined: no symbol to rename there, an action with no edit.
    LspDeclined,
    /// The server does not offer the request.
    LspUnsupported,
    /// The server failed otherwise: it crashed, answered with an error, could not be started
    /// or was not started. The diagnostics status `failed` states the same fact; the reason
    /// keeps its prefix because the CLI's bare reason `failed` is its own failure, not a
    /// server's.
    LspFailed,
    /// The server's edit cannot be applied as given (overlapping edits, positions past the
    /// end, a file that does not exist).
    InvalidServerEdit,
    /// No code action of that title or index.
    ActionNotFound,
    /// The server's range of the symbol to edit is not one whole declaration of its own (it
    /// swallows code after it, stops inside it, ends past the file, overlaps another symbol):
    /// nothing is written.
    SymbolRangeUnreliable,
}

impl LspEditReason {
    /// The LSP edit tools' own reasons (every [`Reason`] is one too, as [`LspEditReason::Tool`]),
    /// in the order docs/design.md §9 lists them.
    pub const OWN: &'static [LspEditReason] = &[
        LspEditReason::SymbolNotFound,
        LspEditReason::NoServer,
        LspEditReason::TimedOut,
        LspEditReason::LspDeclined,
        LspEditReason::LspUnsupported,
        LspEditReason::LspFailed,
        LspEditReason::InvalidServerEdit,
        LspEditReason::ActionNotFound,
        LspEditReason::SymbolRangeUnreliable,
    ];

    /// Every reason: the write layer's, then [`LspEditReason::OWN`].
    pub fn all() -> impl Iterator<Item = LspEditReason> {
        Reason::ALL
            .iter()
            .map(|&r| LspEditReason::Tool(r))
            .chain(LspEditReason::OWN.iter().copied())
    }

    /// The stable reason code.
    pub fn as_str(self) -> &'static str {
        match self {
            LspEditReason::Tool(r) => r.as_str(),
            LspEditReason::SymbolNotFound => "symbol_not_found",
            LspEditReason::NoServer => "no_server",
            LspEditReason::TimedOut => "timed_out",
            LspEditReason::LspDeclined => "lsp_declined",
            LspEditReason::LspUnsupported => "lsp_unsupported",
            LspEditReason::LspFailed => "lsp_failed",
            LspEditReason::InvalidServerEdit => "invalid_server_edit",
            LspEditReason::ActionNotFound => "action_not_found",
            LspEditReason::SymbolRangeUnreliable => "symbol_range_unreliable",
        }
    }
}

impl From<Reason> for LspEditReason {
    fn from(r: Reason) -> LspEditReason {
        LspEditReason::Tool(r)
    }
}

impl std::fmt::Display for LspEditReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an LSP edit or lookup was refused. [`LspEditError::reason`] is its reason, by an
/// exhaustive match: closed on purpose (not `#[non_exhaustive]`), so a new refusal does not
/// compile until it has its reason code.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LspEditError {
    /// A refusal of the tools (confinement, protected path, stale anchor, missing file, ...).
    #[error("{0}")]
    Tool(#[from] ToolError),
    /// The symbol's text is not on the line.
    #[error(
        "{path}: `{symbol}` is not on line {line} (`{line_text}`); give the symbol's text exactly as it appears on the line, or re-read the file"
    )]
    SymbolNotFound {
        path: String,
        line: usize,
        symbol: String,
        line_text: String,
    },
    /// The symbol appears several times on the line and no occurrence was given.
    #[error(
        "{path}: `{symbol}` appears {count} times on line {line}; say which with {which} (1 to {count})",
        which = say(&Step::Arg(lspedit_tools::front::Arg::Occurrence))
    )]
    AmbiguousSymbol {
        path: String,
        line: usize,
        symbol: String,
        count: usize,
    },
    /// The server failed, timed out, declined or lacks the request.
    #[error("{path}: {error}")]
    Server { path: String, error: LspError },
    /// The server's edit cannot be applied as given (overlapping edits, positions past the end,
    /// a file that does not exist).
    #[error("{path}: {message}; nothing was written")]
    BadServerEdit { path: String, message: String },
    /// No symbol of the file has that name path.
    #[error("{path}: no symbol `{name_path}`{}", nearest_text(nearest))]
    NoSuchSymbol {
        path: String,
        name_path: String,
        /// The nearest name paths of the file, best first.
        nearest: Vec<String>,
    },
    /// The server's range of the symbol to edit is not one whole declaration of its own.
    #[error(
        "{path}: {message}. Nothing was written; change the lines with `edit` or `apply_patch`"
    )]
    RangeUnreliable { path: String, message: String },
    /// No code action of that title or index.
    #[error("{path}: no code action {wanted} on line {line}; the server offers: {available}")]
    ActionNotFound {
        path: String,
        line: usize,
        wanted: String,
        available: String,
    },
}

impl LspEditError {
    /// `Error: <code>: <message>`, the refusal as the model reads it.
    pub fn refusal_text(&self) -> String {
        match self {
            // A tool error names its path and reason itself.
            LspEditError::Tool(e) => format!("Error: {e}"),
            other => format!("Error: {}: {other}", other.code()),
        }
    }

    /// The reason: the tool error's (`stale_context`, `path_outside_workspace`,
    /// `protected_path`, ...), `ambiguous_match` for an ambiguous symbol, or one of the LSP edit
    /// tools' own ([`LspEditReason::OWN`]).
    pub fn reason(&self) -> LspEditReason {
        match self {
            LspEditError::Tool(e) => LspEditReason::Tool(e.reason),
            LspEditError::SymbolNotFound { .. } | LspEditError::NoSuchSymbol { .. } => {
                LspEditReason::SymbolNotFound
            }
            LspEditError::AmbiguousSymbol { .. } => LspEditReason::Tool(Reason::AmbiguousMatch),
            LspEditError::Server { error, .. } => match error {
                LspError::NoServer { .. } | LspError::CommandNotFound { .. } => {
                    LspEditReason::NoServer
                }
                LspError::Timeout { .. } => LspEditReason::TimedOut,
                LspError::Declined { .. } => LspEditReason::LspDeclined,
                LspError::Unsupported { .. } => LspEditReason::LspUnsupported,
                // Every other way the pool fails is the server failing, named one by one so a
                // new pool error does not compile until it is placed here.
                LspError::OutsideWorkspace { .. }
                | LspError::Refused { .. }
                | LspError::Spawn { .. }
                | LspError::ServerDied { .. }
                | LspError::Request { .. }
                | LspError::CheckFailed { .. }
                | LspError::Superseded { .. }
                | LspError::Broken { .. }
                | LspError::Backoff { .. }
                | LspError::Config { .. }
                | LspError::Runtime { .. }
                | LspError::PoolClosed
                | LspError::BlockedRuntime
                | LspError::BadPath { .. } => LspEditReason::LspFailed,
            },
            LspEditError::BadServerEdit { .. } => LspEditReason::InvalidServerEdit,
            LspEditError::ActionNotFound { .. } => LspEditReason::ActionNotFound,
            LspEditError::RangeUnreliable { .. } => LspEditReason::SymbolRangeUnreliable,
        }
    }

    /// The reason code ([`LspEditError::reason`]'s).
    pub fn code(&self) -> &'static str {
        self.reason().as_str()
    }
}

fn nearest_text(nearest: &[String]) -> String {
    if nearest.is_empty() {
        "; outline the file to see its symbols".to_owned()
    } else {
        format!("; nearest names: {}", nearest.join(", "))
    }
}

/// Configuration of [`LspEdits`].
#[derive(Debug, Clone)]
pub struct LspEditsConfig {
    /// Bound of one request, a server's start and loading included (rust-analyzer indexes a
    /// project before it can rename in it).
    pub timeout: Duration,
    /// Locations shown with their lines; the rest are listed as `path:line:column`.
    pub max_with_context: usize,
    /// Lines shown above and below each location.
    pub context_lines: usize,
}

impl Default for LspEditsConfig {
    fn default() -> Self {
        LspEditsConfig {
            timeout: Duration::from_secs(60),
            max_with_context: 50,
            context_lines: 2,
        }
    }
}

/// How a server's edit is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EditOptions {
    /// Store the edit as a proposal (`patch_id`) instead of applying it; `apply_edit` applies it.
    pub preview: bool,
    /// Every file or none (default). Off: each file atomically on its own, the others applying
    /// when one is refused.
    pub all_or_nothing: bool,
}

impl Default for EditOptions {
    fn default() -> Self {
        EditOptions {
            preview: false,
            all_or_nothing: true,
        }
    }
}

/// How an LSP edit ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LspEditStatus {
    Applied,
    PartiallyApplied,
    /// Stored as a proposal (`preview`); nothing was written.
    Proposed,
    /// The approver said no; nothing was written.
    Rejected,
    /// Nothing was written.
    Refused,
}

impl LspEditStatus {
    /// Every status, in the order docs/design.md §9 lists them.
    pub const ALL: &'static [LspEditStatus] = &[
        LspEditStatus::Applied,
        LspEditStatus::PartiallyApplied,
        LspEditStatus::Proposed,
        LspEditStatus::Rejected,
        LspEditStatus::Refused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LspEditStatus::Applied => "applied",
            LspEditStatus::PartiallyApplied => "partially_applied",
            LspEditStatus::Proposed => "proposed",
            LspEditStatus::Rejected => "rejected",
            LspEditStatus::Refused => "refused",
        }
    }
}

/// The result of `rename_symbol` or `apply_code_action`.
#[derive(Debug, Clone)]
pub struct LspEditResult {
    /// What the model reads: what the server's edit does, then the apply's report (fresh
    /// anchors, diagnostics) or the proposal's diff, or the refusal.
    pub llm_content: String,
    /// A summary and the unified diff, for a person.
    pub display: String,
    pub is_error: bool,
    pub status: LspEditStatus,
    /// The refusal's reason ([`LspEditError::reason`] or the apply's reason).
    pub reason: Option<LspEditReason>,
    /// The server that computed the edit.
    pub server: Option<String>,
    /// The server's own time for the request(s).
    pub server_time: Option<Duration>,
    /// What the server's edit does, per file, in its order.
    pub server_edit: Vec<ServerFileOp>,
    /// The stored proposal the edit became (`preview`); `None` when it was applied at once
    /// (nothing is stored then).
    pub patch_id: Option<String>,
    pub checkpoint_id: Option<String>,
    /// The unified diff of the change.
    pub diff: String,
    /// What was done to each file.
    pub files: Vec<FileApplyResult>,
    pub diagnostics: Vec<FileDiagnosticsStatus>,
}

impl LspEditResult {
    fn refused(e: &LspEditError, server_edit: Vec<ServerFileOp>) -> LspEditResult {
        let text = format!("{}\nNothing was written.", e.refusal_text());
        LspEditResult {
            llm_content: text.clone(),
            display: text,
            is_error: true,
            status: LspEditStatus::Refused,
            reason: Some(e.reason()),
            server: None,
            server_time: None,
            server_edit,
            patch_id: None,
            checkpoint_id: None,
            diff: String::new(),
            files: Vec::new(),
            diagnostics: Vec::new(),
        }
    }
}

/// An LSP edit run from async code that did not complete (`lspedit_tools::run_blocking`):
/// refused, nothing written.
impl lspedit_tools::FromRefusal for LspEditResult {
    fn from_refusal(error: ToolError) -> LspEditResult {
        LspEditResult::refused(&LspEditError::Tool(error), Vec::new())
    }
}

/// One code action a server offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeActionInfo {
    /// 1-based, as `apply_code_action` takes it.
    pub index: usize,
    pub title: String,
    /// `quickfix`, `refactor.extract`, `source.organizeImports`, ...
    pub kind: Option<String>,
    /// The diagnostics it fixes, as `message (code)`.
    pub fixes: Vec<String>,
    pub preferred: bool,
    /// It only runs a server command (its edit comes back while the command runs).
    pub command_only: bool,
}

/// The answer of `code_actions`.
#[derive(Debug, Clone)]
pub struct CodeActionList {
    pub llm_content: String,
    pub path: String,
    pub line: usize,
    pub actions: Vec<CodeActionInfo>,
    pub server: String,
    pub server_time: Duration,
}

/// Which code action to apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActionPick {
    /// 1-based index from `code_actions`.
    Index(usize),
    /// The title, exactly, or a text only one title contains.
    Title(String),
}

/// The LSP edit tools over the agent tools (their workspace, the late diagnostics answers), the
/// workflow over them (its propose/apply path) and a provider, all borrowed: cheap to build for
/// each call.
pub struct LspEdits<'a> {
    tools: &'a Tools,
    workflow: &'a Workflow,
    provider: Option<&'a dyn LspEditProvider>,
    config: LspEditsConfig,
    memory: Option<&'a SymbolMemory>,
    /// The operator's policy over the edits these tools apply ([`LspEdits::gated`]).
    gate: Option<&'a PolicyGate<'a>>,
}

impl std::fmt::Debug for LspEdits<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspEdits")
            .field("provider", &self.provider.is_some())
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<'a> LspEdits<'a> {
    /// The LSP edit tools over `tools` and the `workflow` opened over them, asking `provider`
    /// (none: every request is `no_server`).
    pub fn new(
        tools: &'a Tools,
        workflow: &'a Workflow,
        provider: Option<&'a dyn LspEditProvider>,
        config: LspEditsConfig,
    ) -> LspEdits<'a> {
        LspEdits {
            tools,
            workflow,
            provider,
            config,
            memory: None,
            gate: None,
        }
    }

    /// Symbol edits remember each file's last whole reading in `memory`, which outlives the
    /// call (one per session): a symbol whose body has a syntax error, where the server's range
    /// cannot be trusted, can then be fixed by name when every change since that reading lies
    /// inside it. Without one such an edit is refused (`symbol_range_unreliable`).
    pub fn remembering(mut self, memory: &'a SymbolMemory) -> LspEdits<'a> {
        self.memory = Some(memory);
        self
    }

    /// Every edit these tools apply (renames, code actions, symbol edits) judged by `gate`:
    /// its limits and forbidden operations as an `apply_edit` plan's, its approver asked
    /// before anything is written (`docs/policy.md`). A preview writes nothing and is not
    /// judged; the `apply_edit` of it is, under the workflow's policy.
    pub fn gated(mut self, gate: &'a PolicyGate<'a>) -> LspEdits<'a> {
        self.gate = Some(gate);
        self
    }

    pub fn workflow(&self) -> &'a Workflow {
        self.workflow
    }

    /// `rename_symbol`: `textDocument/prepareRename`, then `textDocument/rename`, and the
    /// server's edit applied (or, with `preview`, proposed) through the workflow.
    pub fn rename_symbol(
        &self,
        at: impl Into<LookupAt>,
        new_name: &str,
        opts: EditOptions,
    ) -> LspEditResult {
        let began = Instant::now();
        let at = at.into();
        let deadline = Instant::now() + self.config.timeout;
        let r = self.locate(&at, deadline).and_then(|(provider, spot)| {
            let edit = provider
                .rename(
                    &spot.file.abs,
                    &spot.file.text,
                    spot.offset,
                    new_name,
                    deadline,
                )
                .map_err(|error| server_error(&spot.file.rel, error))?;
            Ok((spot.what, edit))
        });
        let r = match r {
            Ok((what, edit)) => {
                self.apply_server_edit(&edit, &format!("Rename `{what}` to `{new_name}`"), opts)
            }
            Err(e) => LspEditResult::refused(&e, Vec::new()),
        };
        self.with_late(r, began)
    }

    /// `code_actions`: the server's actions for a line (the diagnostics there as context).
    pub fn code_actions(&self, path: &str, line: &LineRef) -> Result<CodeActionList, LspEditError> {
        self.list_actions(path, line)
            .map(|(list, _, _)| list)
            .map(|mut list| {
                if let Some(late) = self.tools.take_late_feedback() {
                    list.llm_content = format!("{late}\n\n{}", list.llm_content);
                }
                list
            })
    }

    /// `apply_code_action`: the action `pick` names on `line` (listed afresh), resolved
    /// (`codeAction/resolve`, or its command's `workspace/applyEdit`), and its edit applied (or
    /// proposed) through the workflow.
    pub fn apply_code_action(
        &self,
        path: &str,
        line: &LineRef,
        pick: &ActionPick,
        opts: EditOptions,
    ) -> LspEditResult {
        let began = Instant::now();
        let r = self
            .list_actions(path, line)
            .and_then(|(list, actions, file)| {
                let i = choose(&list, pick)?;
                let info = &list.actions[i];
                let action = actions.actions[i].clone();
                let deadline = Instant::now() + self.config.timeout;
                let provider = self.provider()?;
                let edit = provider
                    .code_action_edit(&file.abs, &file.text, action, deadline)
                    .map_err(|error| server_error(&file.rel, error))?;
                Ok((info.title.clone(), edit))
            });
        let r = match r {
            Ok((title, edit)) => {
                self.apply_server_edit(&edit, &format!("Code action \"{title}\""), opts)
            }
            Err(e) => LspEditResult::refused(&e, Vec::new()),
        };
        self.with_late(r, began)
    }

    /// `references` (read-only): every reference to the symbol, as hashline excerpts grouped
    /// by file.
    pub fn references(
        &self,
        at: impl Into<LookupAt>,
        include_declaration: bool,
    ) -> Result<LocationsReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let (provider, spot) = self.locate(&at.into(), deadline)?;
        let file = &spot.file;
        let found = provider
            .references(
                &file.abs,
                &file.text,
                spot.offset,
                include_declaration,
                deadline,
            )
            .map_err(|error| server_error(&file.rel, error))?;
        Ok(self.report(
            &found,
            (
                &format!("reference to `{}`", spot.what),
                &format!("references to `{}`", spot.what),
            ),
        ))
    }

    /// `definition` (read-only): where the symbol is defined, as hashline excerpts.
    pub fn definition(&self, at: impl Into<LookupAt>) -> Result<LocationsReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let (provider, spot) = self.locate(&at.into(), deadline)?;
        let file = &spot.file;
        let found = provider
            .definition(&file.abs, &file.text, spot.offset, deadline)
            .map_err(|error| server_error(&file.rel, error))?;
        Ok(self.report(
            &found,
            (
                &format!("definition of `{}`", spot.what),
                &format!("definitions of `{}`", spot.what),
            ),
        ))
    }

    /// `outline` (read-only): a file's declarations as a tree, or the top-level ones of each
    /// file of a directory a server reads (non-recursive, capped), with name paths, anchors and
    /// line ranges (`symbols.rs`). Import bindings, locals and object-literal keys are left out
    /// ([`is_declaration`]); [`LspEdits::outline_with`] lists them too.
    pub fn outline(&self, path: &str) -> Result<OutlineReport, LspEditError> {
        self.outline_with(path, OutlineOptions::default())
    }

    /// [`LspEdits::outline`] with `options` (`all`: every symbol the server gives).
    pub fn outline_with(
        &self,
        path: &str,
        options: OutlineOptions,
    ) -> Result<OutlineReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let mut r = symbols::outline(
            self.tools.workspace(),
            self.provider,
            path,
            options,
            deadline,
            self.memory,
        )?;
        if let Some(late) = self.tools.take_late_feedback() {
            r.llm_content = format!("{late}\n\n{}", r.llm_content);
        }
        Ok(r)
    }

    /// `find_symbol` (read-only): symbols by name or name path (`Cart/total`), in a file, a
    /// directory or the workspace, as anchored locations, optionally with their text; nothing
    /// found names the nearest names seen (`symbols.rs`).
    pub fn find_symbol(&self, query: &FindQuery) -> Result<FindReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let mut r = symbols::find(
            self.tools.workspace(),
            self.provider,
            query,
            deadline,
            self.memory,
        )?;
        if let Some(late) = self.tools.take_late_feedback() {
            r.llm_content = format!("{late}\n\n{}", r.llm_content);
        }
        Ok(r)
    }

    /// `replace_symbol_body`, `insert_before_symbol`, `insert_after_symbol`: the symbol found by
    /// name path in the file's `documentSymbol` tree, the change computed (indentation, line
    /// endings, BOM and blank lines fitted to the place, `symbol_edits.rs`) and applied (or,
    /// with `preview`, proposed) through the workflow as an anchored patch.
    pub fn edit_symbol(&self, edit: &SymbolEdit, opts: EditOptions) -> LspEditResult {
        let began = Instant::now();
        let deadline = Instant::now() + self.config.timeout;
        let r = symbol_edits::resolve(
            self.tools.workspace(),
            self.provider,
            &edit.path,
            &edit.name_path,
            edit.anchor.as_deref(),
            deadline,
        )
        .and_then(|found| {
            let checked = symbol_edits::edit_target(&found, self.memory)?;
            let new = symbol_edits::plan(edit.kind, &found.file.text, &checked.target, &edit.body)
                .map_err(|e| match e {
                    symbol_edits::PlanError::Empty => LspEditError::Tool(ToolError::new(
                        Reason::EmptyDiff,
                        Some(&found.file.rel),
                        "the body is empty; give the code to write",
                    )),
                    symbol_edits::PlanError::NotOwn(message) => LspEditError::RangeUnreliable {
                        path: found.file.rel.clone(),
                        message,
                    },
                })?;
            Ok((found, checked, new))
        });
        let r = match r {
            Ok((found, checked, new)) => {
                let e = &found.entry;
                let target = &checked.target;
                let mut head = format!(
                    "{} `{}` ({}, {} {}).",
                    match edit.kind {
                        SymbolEditKind::Replace => "Replace",
                        SymbolEditKind::InsertBefore => "Insert before",
                        SymbolEditKind::InsertAfter => "Insert after",
                    },
                    e.name_path,
                    e.kind,
                    found.file.rel,
                    symbols::line_range(e)
                );
                if let Some(why) = &checked.recalled {
                    let spans = position::line_spans(&found.file.text);
                    let (a, b) = symbol_edits::line_numbers(&spans, &target.range);
                    head.push_str(&format!(
                        " {why}; its lines as lspedit last read them, with the changes since (all inside it), are lines {a}-{b}."
                    ));
                }
                if edit.kind == SymbolEditKind::Replace
                    && let Some((a, b)) =
                        symbol_edits::kept_leading(&found.file.text, target, &edit.body)
                {
                    let what = if a == b {
                        format!("line {a}")
                    } else {
                        format!("lines {a}-{b}")
                    };
                    head.push_str(&format!(
                        " Kept {what} above it (its comments, attributes or decorators): the body brings none of its own."
                    ));
                }
                let patch = lspedit_engine::unified_diff(
                    &found.file.text,
                    &new,
                    Some(&found.file.rel),
                    Some(&found.file.rel),
                    &lspedit_engine::DiffOptions {
                        context: 3,
                        anchored: true,
                    },
                );
                let ops = vec![ServerFileOp::Edit {
                    path: found.file.rel.clone(),
                    edits: 1,
                }];
                let mut r = if patch.is_empty() {
                    let e = LspEditError::Tool(ToolError::new(
                        Reason::EmptyDiff,
                        Some(&found.file.rel),
                        "the body is the symbol's text as it is; nothing to change",
                    ));
                    LspEditResult::refused(&e, ops)
                } else {
                    let base = lspedit_write::base_sha(found.file.text.as_bytes());
                    self.propose_and_apply(
                        patch,
                        &[(found.file.rel.clone(), base)],
                        &head,
                        ops,
                        opts,
                    )
                };
                r.server = Some(found.server);
                r.server_time = Some(found.server_time);
                r
            }
            Err(e) => LspEditResult::refused(&e, Vec::new()),
        };
        self.with_late(r, began)
    }

    /// `what`: the singular and plural forms of what was asked for.
    fn report(&self, found: &Locations, what: (&str, &str)) -> LocationsReport {
        let mut r = locations::report(self.tools.workspace(), found, what, &self.config);
        if let Some(late) = self.tools.take_late_feedback() {
            r.llm_content = format!("{late}\n\n{}", r.llm_content);
        }
        r
    }

    fn provider(&self) -> Result<&'a dyn LspEditProvider, LspEditError> {
        self.provider.ok_or_else(|| LspEditError::Server {
            path: String::new(),
            error: LspError::NoServer {
                path: std::path::PathBuf::new(),
            },
        })
    }

    /// The provider, if it serves `path`, and the file as read.
    fn prepare(
        &self,
        path: &str,
    ) -> Result<(&'a dyn LspEditProvider, position::FileText), LspEditError> {
        let file = position::read_text(self.tools.workspace(), path)?;
        let provider = self
            .provider
            .filter(|p| p.handles(&file.abs))
            .ok_or_else(|| LspEditError::Server {
                path: file.rel.clone(),
                error: LspError::NoServer {
                    path: file.abs.clone(),
                },
            })?;
        Ok((provider, file))
    }

    fn list_actions(
        &self,
        path: &str,
        line: &LineRef,
    ) -> Result<(CodeActionList, CodeActions, position::FileText), LspEditError> {
        let (provider, file) = self.prepare(path)?;
        let span = position::resolve_line(&file, line)?;
        // The line without its indentation: servers offer their assists for what the range
        // starts at (rust-analyzer's import assist needs it to start on the unresolved name).
        let content = &file.text[span.start..span.end];
        let start = span.start + (content.len() - content.trim_start().len());
        let end = (span.start + content.trim_end().len()).max(start);
        let deadline = Instant::now() + self.config.timeout;
        let actions = provider
            .code_actions(&file.abs, &file.text, start..end, deadline)
            .map_err(|error| server_error(&file.rel, error))?;
        let infos: Vec<CodeActionInfo> = actions
            .actions
            .iter()
            .enumerate()
            .map(|(i, a)| info(i + 1, a))
            .collect();
        let mut llm = if infos.is_empty() {
            format!("No code actions on {} line {}.", file.rel, span.number)
        } else {
            format!(
                "{} code action{} on {} line {}:",
                infos.len(),
                if infos.len() == 1 { "" } else { "s" },
                file.rel,
                span.number
            )
        };
        for a in &infos {
            llm.push_str(&format!("\n{}. {}", a.index, a.title));
            let mut notes = Vec::new();
            if let Some(k) = a.kind.as_ref().filter(|k| !k.is_empty()) {
                notes.push(k.clone());
            }
            if a.preferred {
                notes.push("preferred".to_string());
            }
            if !a.fixes.is_empty() {
                notes.push(format!("fixes: {}", a.fixes.join("; ")));
            }
            if !notes.is_empty() {
                llm.push_str(&format!(" [{}]", notes.join(", ")));
            }
        }
        if !infos.is_empty() {
            llm.push_str(&format!(
                "\n\nApply one with {}.",
                say(&Step::ApplyCodeAction {
                    path: &file.rel,
                    line: span.number
                })
            ));
        }
        let list = CodeActionList {
            llm_content: llm,
            path: file.rel.clone(),
            line: span.number,
            actions: infos,
            server: actions.server.clone(),
            server_time: actions.server_time,
        };
        Ok((list, actions, file))
    }

    /// The server's edit through the workflow: confined and converted to a patch, proposed
    /// (stored), then applied unless `opts.preview`.
    fn apply_server_edit(&self, edit: &ServerEdit, what: &str, opts: EditOptions) -> LspEditResult {
        let ws = self.tools.workspace();
        // Converting is linear in the edits and files; the bound is the planner's (§6), for a
        // server that sends millions of edits.
        let deadline = Instant::now() + lspedit_write::PatchLimits::default().max_plan_time;
        let converted = match convert::to_patch(ws, &edit.edits, edit.encoding, deadline) {
            Ok(c) => c,
            Err(e) => return with_server(LspEditResult::refused(&e, Vec::new()), edit),
        };
        let ops = converted.ops.clone();
        let said: Vec<String> = ops.iter().map(ToString::to_string).collect();
        let head = format!(
            "{what}: {} sent {}.",
            edit.server,
            if said.is_empty() {
                "no change".to_string()
            } else {
                said.join(", ")
            }
        );
        if converted.patch.is_empty() {
            let e = LspEditError::Tool(ToolError::new(
                lspedit_write::Reason::EmptyDiff,
                None,
                "the server's edit changes nothing",
            ));
            return with_server(LspEditResult::refused(&e, ops), edit);
        }
        with_server(
            self.propose_and_apply(converted.patch, &converted.bases, &head, ops, opts),
            edit,
        )
    }

    /// `patch`, made by lspedit from files whose shas were `bases`, applied at once (planned
    /// once, nothing stored: `Workflow::apply_change`), or with `opts.preview` stored as a
    /// proposal for `apply_edit`; either way refused when a file is no longer as it was read.
    /// `head` goes in front of the workflow's text.
    fn propose_and_apply(
        &self,
        patch: String,
        bases: &[(String, String)],
        head: &str,
        ops: Vec<ServerFileOp>,
        opts: EditOptions,
    ) -> LspEditResult {
        let mut request = ProposeRequest::patch(patch);
        for (path, sha) in bases {
            request = request.with_base_sha(path.clone(), sha.clone());
        }
        if opts.preview {
            return self.propose(&request, head, ops);
        }
        let plan = ApplyPlan {
            atomicity: if opts.all_or_nothing {
                Atomicity::AllOrNothing
            } else {
                Atomicity::PerFile
            },
            ..self.gate.map(|g| g.plan().clone()).unwrap_or_default()
        };
        let mut out = match self.gate {
            Some(g) => self
                .workflow
                .apply_change_with(&request, &plan, g.approver()),
            None => self.workflow.apply_change(&request, &plan),
        };
        if let (Some(g), ApplyStatus::Rejected) = (self.gate, out.status) {
            // The operator's approval was not given: the same reason the direct writers give.
            out.llm_content = format!("{}\n{}", out.llm_content.trim_end(), g.declined());
            out.reason = Some(lspedit_write::Reason::ApprovalRequired);
        }
        let status = match out.status {
            ApplyStatus::Applied => LspEditStatus::Applied,
            ApplyStatus::PartiallyApplied => LspEditStatus::PartiallyApplied,
            ApplyStatus::Rejected => LspEditStatus::Rejected,
            ApplyStatus::Refused => LspEditStatus::Refused,
        };
        LspEditResult {
            llm_content: format!("{head}\n{}", out.llm_content),
            display: format!("{head}\n{}", out.display),
            is_error: out.is_error,
            status,
            reason: out.reason.map(LspEditReason::Tool),
            server: None,
            server_time: None,
            server_edit: ops,
            patch_id: None,
            checkpoint_id: out.checkpoint_id,
            diff: out.diff,
            files: out.files,
            diagnostics: out.diagnostics,
        }
    }

    /// `request` stored as a proposal (`preview`): nothing is written.
    fn propose(
        &self,
        request: &ProposeRequest,
        head: &str,
        ops: Vec<ServerFileOp>,
    ) -> LspEditResult {
        let proposal = match self.workflow.propose_edit(request) {
            Ok(p) => p,
            Err(e) => {
                let mut r = LspEditResult::refused(&LspEditError::Tool(e), ops);
                r.llm_content = format!("{head}\n{}", r.llm_content);
                return r;
            }
        };
        let llm = format!("{head}\n{}", proposal.llm_content());
        LspEditResult {
            display: format!("{head}\n{}", proposal.diff),
            llm_content: llm,
            is_error: false,
            status: LspEditStatus::Proposed,
            reason: None,
            server: None,
            server_time: None,
            server_edit: ops,
            patch_id: Some(proposal.patch_id.clone()),
            checkpoint_id: None,
            diff: proposal.diff,
            files: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// `r`, the result of a call that began at `began`, with the late answers in front.
    fn with_late(&self, mut r: LspEditResult, began: Instant) -> LspEditResult {
        if let Some(late) = self.tools.take_late_feedback_for_call(began) {
            r.llm_content = format!("{late}\n\n{}", r.llm_content);
        }
        r
    }
}

fn with_server(mut r: LspEditResult, edit: &ServerEdit) -> LspEditResult {
    r.server = Some(edit.server.clone());
    r.server_time = Some(edit.server_time);
    r
}

fn server_error(path: &str, error: LspError) -> LspEditError {
    LspEditError::Server {
        path: path.to_string(),
        error,
    }
}

fn info(index: usize, a: &CodeActionOrCommand) -> CodeActionInfo {
    match a {
        CodeActionOrCommand::Command(c) => CodeActionInfo {
            index,
            title: c.title.clone(),
            kind: None,
            fixes: Vec::new(),
            preferred: false,
            command_only: true,
        },
        CodeActionOrCommand::CodeAction(a) => CodeActionInfo {
            index,
            title: a.title.clone(),
            kind: a.kind.as_ref().map(|k| k.as_str().to_string()),
            fixes: a
                .diagnostics
                .iter()
                .flatten()
                .map(|d| match &d.code {
                    Some(NumberOrString::Number(n)) => format!("{} ({n})", one_line(&d.message)),
                    Some(NumberOrString::String(s)) => format!("{} ({s})", one_line(&d.message)),
                    None => one_line(&d.message),
                })
                .collect(),
            preferred: a.is_preferred == Some(true),
            command_only: a.edit.is_none() && a.command.is_some(),
        },
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The index (0-based) of the action `pick` names.
fn choose(list: &CodeActionList, pick: &ActionPick) -> Result<usize, LspEditError> {
    let found = match pick {
        ActionPick::Index(k) => k.checked_sub(1).filter(|&i| i < list.actions.len()),
        ActionPick::Title(t) => list.actions.iter().position(|a| &a.title == t).or_else(|| {
            let lower = t.to_lowercase();
            let hits: Vec<usize> = list
                .actions
                .iter()
                .enumerate()
                .filter(|(_, a)| a.title.to_lowercase().contains(&lower))
                .map(|(i, _)| i)
                .collect();
            (hits.len() == 1).then(|| hits[0])
        }),
    };
    found.ok_or_else(|| LspEditError::ActionNotFound {
        path: list.path.clone(),
        line: list.line,
        wanted: match pick {
            ActionPick::Index(k) => format!("#{k}"),
            ActionPick::Title(t) => format!("\"{t}\""),
        },
        available: if list.actions.is_empty() {
            "none".to_string()
        } else {
            list.actions
                .iter()
                .map(|a| format!("{}. {}", a.index, a.title))
                .collect::<Vec<_>>()
                .join("; ")
        },
    })
}

#[cfg(test)]
mod reason_tests {
    use super::*;
    use lspedit_tools::DiagnosticsStatus;

    #[test]
    fn every_reason_has_its_own_code() {
        let codes: std::collections::BTreeSet<&str> =
            LspEditReason::all().map(LspEditReason::as_str).collect();
        assert_eq!(
            codes.len(),
            LspEditReason::all().count(),
            "two reasons share a code"
        );
        for r in Reason::ALL {
            assert_eq!(LspEditReason::from(*r).as_str(), r.as_str());
        }
    }

    /// One name per fact: a server that did not answer in time, or none for the file, is said
    /// the same way by a refused LSP edit and by a write's diagnostics status.
    #[test]
    fn the_facts_diagnostics_also_report_have_their_names() {
        assert_eq!(
            LspEditReason::TimedOut.as_str(),
            DiagnosticsStatus::TimedOut.as_str()
        );
        assert_eq!(
            LspEditReason::NoServer.as_str(),
            DiagnosticsStatus::NoServer.as_str()
        );
        let timeout = LspEditError::Server {
            path: "a.rs".into(),
            error: LspError::Timeout {
                server: "s".into(),
                stage: "rename",
                waited: Duration::from_secs(1),
            },
        };
        assert_eq!(timeout.code(), "timed_out");
    }

    /// Every pool error has its reason, named in the exhaustive match of
    /// [`LspEditError::reason`]: the missing server and the deadline by the diagnostics' names,
    /// a declined or unsupported request by their own, everything else the server failing.
    #[test]
    fn every_pool_error_has_its_reason() {
        use std::path::PathBuf;
        let server = || "s".to_owned();
        let path = || PathBuf::from("a.rs");
        let cases = [
            (LspError::NoServer { path: path() }, "no_server"),
            (
                LspError::CommandNotFound {
                    server: server(),
                    command: "c".into(),
                },
                "no_server",
            ),
            (
                LspError::Timeout {
                    server: server(),
                    stage: "rename",
                    waited: Duration::from_secs(1),
                },
                "timed_out",
            ),
            (
                LspError::Declined {
                    server: server(),
                    method: "textDocument/rename",
                    message: "no symbol".into(),
                },
                "lsp_declined",
            ),
            (
                LspError::Unsupported {
                    server: server(),
                    method: "textDocument/rename",
                },
                "lsp_unsupported",
            ),
            (
                LspError::OutsideWorkspace {
                    path: path(),
                    root: PathBuf::from("/w"),
                },
                "lsp_failed",
            ),
            (
                LspError::Refused {
                    server: server(),
                    reason: "no sandbox".into(),
                },
                "lsp_failed",
            ),
            (
                LspError::Spawn {
                    server: server(),
                    message: "ENOENT".into(),
                },
                "lsp_failed",
            ),
            (
                LspError::ServerDied {
                    server: server(),
                    reason: "exit 1".into(),
                    stderr_tail: String::new(),
                },
                "lsp_failed",
            ),
            (
                LspError::Request {
                    server: server(),
                    method: "textDocument/rename",
                    code: -32603,
                    message: "internal".into(),
                },
                "lsp_failed",
            ),
            (
                LspError::Broken {
                    server: server(),
                    crashes: 3,
                    retry_in: Duration::from_secs(60),
                },
                "lsp_failed",
            ),
            (
                LspError::Backoff {
                    server: server(),
                    retry_in: Duration::from_secs(1),
                },
                "lsp_failed",
            ),
            (
                LspError::Config {
                    path: path(),
                    message: "bad toml".into(),
                },
                "lsp_failed",
            ),
            (
                LspError::Runtime {
                    message: "no threads".into(),
                },
                "lsp_failed",
            ),
            (LspError::PoolClosed, "lsp_failed"),
            (LspError::BlockedRuntime, "lsp_failed"),
            (LspError::BadPath { path: path() }, "lsp_failed"),
        ];
        for (error, code) in cases {
            let what = format!("{error:?}");
            let e = LspEditError::Server {
                path: "a.rs".into(),
                error,
            };
            assert_eq!(e.code(), code, "{what}");
        }
    }
}
