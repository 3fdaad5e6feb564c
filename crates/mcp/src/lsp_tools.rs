//! The LSP edit tools over MCP: `rename_symbol`, `code_actions`, `apply_code_action`,
//! `references`, `definition`, `outline`, `find_symbol`, `replace_symbol_body`,
//! `insert_before_symbol`, `insert_after_symbol` ([`lspedit_lsp_edits::LspEdits`] over the session's workflow and
//! pool, [`Session::lsp_edits`]), with their arguments, structured results and schemas. The
//! CLI calls the same session methods (`src/lsp_cmds.rs`), not this module.

use std::sync::Arc;

use lspedit_lsp_edits::{ActionPick, CodeActionList, EditOptions, LineRef, LookupAt, LspEditError};
use lspedit_lsp_edits::{
    CodeActionInfo, FoundLocation, LocationsReport, LspEditResult, LspEditStatus, ServerFileOp,
};
use lspedit_lsp_edits::{FindQuery, FindReport, OutlineOptions, OutlineReport, SymbolEntry};
use lspedit_lsp_edits::{LspEdits, SymbolEdit, SymbolEditKind};
use lspedit_tools::ToolResult;
use lspedit_workflow::PolicyGate;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::lookup_tools::{invalid, lookup_at};
use crate::output::{FileDiagnosticsState, ReasonCode, Reply};
use crate::schema::tool_schema_pair;
use crate::server::LspeditServer;
use lspedit_session::Session;

/// A line: its 1-based number (`42`) or its anchor from read_file (`"42abcd"`, which is also
/// checked: a line that changed since is refused as `stale_context`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LineArg {
    Number(usize),
    Text(String),
}

impl LineArg {
    pub fn line_ref(&self) -> LineRef {
        match self {
            LineArg::Number(n) => LineRef::Number(*n),
            LineArg::Text(s) => LineRef::parse(s),
        }
    }
}

/// Arguments of `rename_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RenameSymbolArgs {
    /// A file where the symbol appears (its definition or a use).
    pub path: String,
    /// Where `symbol` appears: a 1-based number or an anchor (`"42abcd"`).
    #[serde(default)]
    pub line: Option<LineArg>,
    /// Its text on that line (e.g. `add`), never a column.
    #[serde(default)]
    pub symbol: Option<String>,
    /// Which appearance on the line, 1-based.
    #[serde(default)]
    pub occurrence: Option<usize>,
    /// Instead of line and symbol (`Cart/total`).
    #[serde(default)]
    pub name_path: Option<String>,
    pub new_name: String,
    /// Store it as a proposal for apply_edit instead of writing (default false).
    #[serde(default)]
    pub preview: Option<bool>,
    /// Every file or none (default true).
    #[serde(default)]
    pub all_or_nothing: Option<bool>,
}

/// Arguments of `code_actions`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CodeActionsArgs {
    pub path: String,
    /// A 1-based number or an anchor (`"42abcd"`).
    pub line: LineArg,
}

/// Arguments of `apply_code_action`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyCodeActionArgs {
    pub path: String,
    /// The line given to code_actions.
    pub line: LineArg,
    /// The action's number from code_actions. Give index or title.
    #[serde(default)]
    pub index: Option<usize>,
    /// The action's title, or a part only one title contains.
    #[serde(default)]
    pub title: Option<String>,
    /// Store it as a proposal for apply_edit instead of writing (default false).
    #[serde(default)]
    pub preview: Option<bool>,
    /// Every file or none (default true).
    #[serde(default)]
    pub all_or_nothing: Option<bool>,
}

/// Arguments of `references` and `definition`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SymbolArgs {
    pub path: String,
    /// Where `symbol` appears: a 1-based number or an anchor (`"42abcd"`).
    #[serde(default)]
    pub line: Option<LineArg>,
    /// Its text on that line, never a column.
    #[serde(default)]
    pub symbol: Option<String>,
    /// Which appearance on the line, 1-based.
    #[serde(default)]
    pub occurrence: Option<usize>,
    /// Instead of line and symbol (`Cart/total`).
    #[serde(default)]
    pub name_path: Option<String>,
    /// references only: include the declaration (default true).
    #[serde(default)]
    pub include_declaration: Option<bool>,
}

impl SymbolArgs {
    fn at(&self) -> Result<LookupAt, String> {
        lookup_at(
            &self.path,
            &self.line,
            &self.symbol,
            self.occurrence,
            &self.name_path,
        )
    }
}

/// Arguments of `outline`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OutlineArgs {
    /// A file, or a directory (the top-level symbols of its files, not recursive).
    pub path: String,
    /// Every symbol the server gives, also imports, locals and object-literal keys (default:
    /// the declarations only).
    #[serde(default)]
    pub all: Option<bool>,
}

/// Arguments of `find_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindSymbolArgs {
    /// A name (`total`) or a name path (`Cart/total`).
    pub name: String,
    /// Only this kind: `class`, `method`, `function`, `struct`, `interface`, ...
    #[serde(default)]
    pub kind: Option<String>,
    /// A file or directory to search (default the workspace).
    #[serde(default)]
    pub path: Option<String>,
    /// The name must be equal (default: contained, case-insensitive).
    #[serde(default)]
    pub exact: Option<bool>,
    /// Show the first 5 matches' declarations as read_file lines.
    #[serde(default)]
    pub include_body: Option<bool>,
}

/// Arguments of `replace_symbol_body`, `insert_before_symbol` and `insert_after_symbol`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SymbolBodyArgs {
    pub path: String,
    /// As outline shows it (`Cart/total`), or a name unique in the file; `/total` for the
    /// top-level one only.
    pub name_path: String,
    /// The whole new declaration (signature and body), or the code to insert, indented as
    /// at its first line (it is moved to the symbol's indentation).
    pub body: String,
    /// The symbol's anchor from outline or find_symbol: picks one of several, stale_context
    /// if it changed.
    #[serde(default)]
    pub anchor: Option<String>,
    /// Store it as a proposal for apply_edit instead of writing (default false).
    #[serde(default)]
    pub preview: Option<bool>,
}

/// What one operation of a server's edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ServerOpKind {
    Edit,
    Create,
    Rename,
    Delete,
}

/// How an LSP edit ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LspEditState {
    Applied,
    PartiallyApplied,
    // Preview: stored as a proposal, nothing written. (Plain comments: a doc comment on a
    // variant would make the schema a `oneOf` instead of one `enum`.)
    Proposed,
    Rejected,
    Refused,
}

impl From<LspEditStatus> for LspEditState {
    fn from(s: LspEditStatus) -> LspEditState {
        match s {
            LspEditStatus::Applied => LspEditState::Applied,
            LspEditStatus::PartiallyApplied => LspEditState::PartiallyApplied,
            LspEditStatus::Proposed => LspEditState::Proposed,
            LspEditStatus::Rejected => LspEditState::Rejected,
            LspEditStatus::Refused => LspEditState::Refused,
        }
    }
}

/// One operation of the server's edit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerOpOutput {
    /// `edit`, `create`, `rename` or `delete`.
    pub op: ServerOpKind,
    pub path: String,
    /// The destination of a rename.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Text edits of an `edit`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<usize>,
}

/// One file of an applied LSP edit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LspEditFileOutput {
    pub path: String,
    pub applied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// `M a.ts (1 hunk)` or the refusal.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<FileDiagnosticsState>,
}

/// The structured result of `rename_symbol` and `apply_code_action`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LspEditOutput {
    /// The edit was applied to every file, or (preview) proposed; false when anything was
    /// refused. Seed 001's result shape, as `propose_edit` and `apply_edit` give it.
    pub success: bool,
    /// `applied`, `partially_applied`, `proposed` (preview: nothing written), `rejected` or
    /// `refused` (nothing written).
    pub status: LspEditState,
    /// The refusal's reason code (`stale_context`, `symbol_not_found`, `ambiguous_match`,
    /// `path_outside_workspace`, `protected_path`, `no_server`, `timed_out`, `lsp_declined`,
    /// `invalid_server_edit`, `action_not_found`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// The language server that computed the edit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The server's own time for the request(s), in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_time_ms: Option<u64>,
    /// What the server's edit does, in its order.
    pub server_edit: Vec<ServerOpOutput>,
    /// The proposal a preview stored: apply_edit(patch_id) applies it. Absent when the edit
    /// was applied at once (nothing is stored then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_id: Option<String>,
    /// Pass it to undo to restore the files; present when anything was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkpoint_id: Option<String>,
    /// What was done to each file.
    pub files: Vec<LspEditFileOutput>,
}

impl LspEditOutput {
    /// Nothing was written or proposed.
    pub fn refused(reason: Option<ReasonCode>) -> LspEditOutput {
        LspEditOutput {
            success: false,
            status: LspEditState::Refused,
            reason,
            server: None,
            server_time_ms: None,
            server_edit: Vec::new(),
            patch_id: None,
            checkpoint_id: None,
            files: Vec::new(),
        }
    }

    pub fn new(r: &LspEditResult) -> LspEditOutput {
        LspEditOutput {
            success: matches!(r.status, LspEditStatus::Applied | LspEditStatus::Proposed),
            status: r.status.into(),
            reason: r.reason.map(ReasonCode::from),
            server: r.server.clone(),
            server_time_ms: r
                .server_time
                .map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
            server_edit: r.server_edit.iter().map(op_output).collect(),
            patch_id: r.patch_id.clone(),
            checkpoint_id: r.checkpoint_id.clone(),
            files: r
                .files
                .iter()
                .map(|f| LspEditFileOutput {
                    path: f.path.clone(),
                    applied: f.applied,
                    reason: f.reason.map(ReasonCode::from),
                    message: f.message.clone(),
                    diagnostics: r
                        .diagnostics
                        .iter()
                        .find(|d| d.path == f.path)
                        .map(FileDiagnosticsState::new),
                })
                .collect(),
        }
    }
}

fn op_output(op: &ServerFileOp) -> ServerOpOutput {
    let (kind, path, to, edits) = match op {
        ServerFileOp::Edit { path, edits } => (ServerOpKind::Edit, path, None, Some(*edits)),
        ServerFileOp::Create { path } => (ServerOpKind::Create, path, None, None),
        ServerFileOp::Rename { from, to } => (ServerOpKind::Rename, from, Some(to.clone()), None),
        ServerFileOp::Delete { path } => (ServerOpKind::Delete, path, None, None),
    };
    ServerOpOutput {
        op: kind,
        path: path.clone(),
        to,
        edits,
    }
}

/// One code action of `code_actions`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CodeActionOutput {
    /// 1-based; pass it to apply_code_action as `index`.
    pub index: usize,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The diagnostics it fixes, as `message (code)`.
    pub fixes: Vec<String>,
    pub preferred: bool,
}

/// The structured result of `code_actions`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CodeActionsOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    pub actions: Vec<CodeActionOutput>,
}

impl CodeActionsOutput {
    /// Nothing listed: refused with `reason` (or bad arguments).
    pub fn refused(reason: Option<ReasonCode>) -> CodeActionsOutput {
        CodeActionsOutput {
            reason,
            actions: Vec::new(),
        }
    }

    fn new(list: &CodeActionList) -> CodeActionsOutput {
        CodeActionsOutput {
            reason: None,
            actions: list.actions.iter().map(action_output).collect(),
        }
    }
}

fn action_output(a: &CodeActionInfo) -> CodeActionOutput {
    CodeActionOutput {
        index: a.index,
        title: a.title.clone(),
        kind: a.kind.clone().filter(|k| !k.is_empty()),
        fixes: a.fixes.clone(),
        preferred: a.preferred,
    }
}

/// One location of `references` or `definition`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LocationOutput {
    /// Workspace-relative path (absolute outside the workspace).
    pub path: String,
    /// 1-based line and column (characters).
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub in_workspace: bool,
}

/// The structured result of `references` and `definition`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LocationsOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// Every location, sorted by path, line, column.
    pub locations: Vec<LocationOutput>,
    /// How many locations the text shows with their lines (the rest as `path:line:column`).
    pub with_context: usize,
    /// The server was still loading the project when it answered: the list may be incomplete.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl LocationsOutput {
    /// Nothing found: refused with `reason` (or bad arguments).
    pub fn refused(reason: Option<ReasonCode>) -> LocationsOutput {
        LocationsOutput {
            reason,
            locations: Vec::new(),
            with_context: 0,
            partial: false,
        }
    }

    pub(crate) fn new(r: &LocationsReport) -> LocationsOutput {
        LocationsOutput {
            reason: None,
            locations: r.locations.iter().map(location_output).collect(),
            with_context: r.with_context,
            partial: r.partial,
        }
    }
}

fn location_output(l: &FoundLocation) -> LocationOutput {
    LocationOutput {
        path: l.path.clone(),
        line: l.line,
        column: l.column,
        end_line: l.end_line,
        end_column: l.end_column,
        in_workspace: l.in_workspace,
    }
}

/// One symbol of `outline` or `find_symbol`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolOutput {
    /// Workspace-relative path of its file.
    pub path: String,
    /// `Cart/total` (a Rust impl block stands for its type).
    pub name_path: String,
    /// Its own name as the server gave it (`impl Priced for Cart`).
    pub name: String,
    /// Lowercase: `class`, `method`, `function`, ...
    pub kind: String,
    /// 0 for a top-level symbol.
    pub depth: usize,
    /// The 1-based line holding its name, and that line's anchor (`42abcd`).
    pub line: usize,
    pub anchor: String,
    /// The 1-based lines of the whole declaration.
    pub start_line: usize,
    pub end_line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

fn symbol_output(e: &SymbolEntry) -> SymbolOutput {
    SymbolOutput {
        path: e.path.clone(),
        name_path: e.name_path.clone(),
        name: e.name.clone(),
        kind: e.kind.to_owned(),
        depth: e.depth,
        line: e.line,
        anchor: e.anchor.clone(),
        start_line: e.start_line,
        end_line: e.end_line,
        detail: e.detail.clone(),
    }
}

/// The structured result of `outline`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OutlineOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// The symbols, depth first (a directory's: the top level of each file), by file.
    pub symbols: Vec<SymbolOutput>,
    /// Files of a directory not outlined (past the cap, or their server failed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// Symbols left out because they are not declarations (imports, locals, object-literal
    /// keys); `all` lists them.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden: usize,
    /// A server was still loading the project when it answered.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl OutlineOutput {
    /// Nothing outlined: refused with `reason`.
    pub fn refused(reason: Option<ReasonCode>) -> OutlineOutput {
        OutlineOutput {
            reason,
            symbols: Vec::new(),
            left_out: Vec::new(),
            hidden: 0,
            partial: false,
        }
    }

    fn new(r: &OutlineReport) -> OutlineOutput {
        OutlineOutput {
            reason: None,
            symbols: r
                .files
                .iter()
                .flat_map(|f| f.symbols.iter().map(symbol_output))
                .collect(),
            left_out: r.left_out.clone(),
            hidden: r.hidden,
            partial: r.partial,
        }
    }
}

/// The structured result of `find_symbol`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FindSymbolOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// The matches, by path and line (at most 50).
    pub matches: Vec<SymbolOutput>,
    /// Matches past the 50 listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
    /// When nothing matches: the nearest names seen, best first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// A server was still loading the project: the list may be incomplete.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl FindSymbolOutput {
    /// Nothing searched: refused with `reason`.
    pub fn refused(reason: Option<ReasonCode>) -> FindSymbolOutput {
        FindSymbolOutput {
            reason,
            matches: Vec::new(),
            more: 0,
            suggestions: Vec::new(),
            partial: false,
        }
    }

    fn new(r: &FindReport) -> FindSymbolOutput {
        FindSymbolOutput {
            reason: None,
            matches: r.matches.iter().map(|m| symbol_output(&m.symbol)).collect(),
            more: r.more,
            suggestions: r.suggestions.clone(),
            partial: r.partial,
        }
    }
}

pub(crate) fn refusal(e: &LspEditError) -> ToolResult {
    let t = e.refusal_text();
    ToolResult::text(t.clone(), t, true)
}

fn edit_reply(r: LspEditResult) -> Reply {
    let out = LspEditOutput::new(&r);
    let mut t = ToolResult::text(r.llm_content, r.display, r.is_error);
    t.diagnostics = r.diagnostics;
    Reply::new(t, &out)
}

fn edit_refused(e: &LspEditError) -> Reply {
    Reply::new(refusal(e), &LspEditOutput::refused(Some(e.reason().into())))
}

fn options(preview: Option<bool>, all_or_nothing: Option<bool>) -> EditOptions {
    EditOptions {
        preview: preview.unwrap_or(false),
        all_or_nothing: all_or_nothing.unwrap_or(true),
    }
}

/// `rename_symbol` over `session`.
pub fn rename_symbol(
    session: &Session,
    a: &RenameSymbolArgs,
    gate: Option<&PolicyGate<'_>>,
) -> Reply {
    let at = match lookup_at(&a.path, &a.line, &a.symbol, a.occurrence, &a.name_path) {
        Ok(at) => at,
        Err(why) => return invalid(&why, &LspEditOutput::refused(None)),
    };
    match session.lsp_edits() {
        Ok(e) => edit_reply(under(e, gate).rename_symbol(
            &at,
            &a.new_name,
            options(a.preview, a.all_or_nothing),
        )),
        Err(e) => edit_refused(&e),
    }
}

/// `code_actions` over `session`.
pub fn code_actions(session: &Session, a: &CodeActionsArgs) -> Reply {
    match session
        .lsp_edits()
        .and_then(|e| e.code_actions(&a.path, &a.line.line_ref()))
    {
        Ok(list) => Reply::new(
            ToolResult::text(list.llm_content.clone(), list.llm_content.clone(), false),
            &CodeActionsOutput::new(&list),
        ),
        Err(e) => Reply::new(
            refusal(&e),
            &CodeActionsOutput::refused(Some(e.reason().into())),
        ),
    }
}

/// `apply_code_action` over `session`.
pub fn apply_code_action(
    session: &Session,
    a: &ApplyCodeActionArgs,
    gate: Option<&PolicyGate<'_>>,
) -> Reply {
    let pick = match (&a.index, &a.title) {
        (Some(i), None) => ActionPick::Index(*i),
        (None, Some(t)) => ActionPick::Title(t.clone()),
        _ => {
            let t = "Error: invalid arguments: give either `index` or `title`".to_string();
            return Reply::new(
                ToolResult::text(t.clone(), t, true),
                &LspEditOutput::refused(None),
            );
        }
    };
    match session.lsp_edits() {
        Ok(e) => edit_reply(under(e, gate).apply_code_action(
            &a.path,
            &a.line.line_ref(),
            &pick,
            options(a.preview, a.all_or_nothing),
        )),
        Err(e) => edit_refused(&e),
    }
}

/// `references` (`definition: false`) or `definition` over `session`.
pub fn locations(session: &Session, a: &SymbolArgs, definition: bool) -> Reply {
    let at = match a.at() {
        Ok(at) => at,
        Err(why) => return invalid(&why, &LocationsOutput::refused(None)),
    };
    let found = session.lsp_edits().and_then(|e| {
        if definition {
            e.definition(&at)
        } else {
            e.references(&at, a.include_declaration.unwrap_or(true))
        }
    });
    match found {
        Ok(r) => Reply::new(
            ToolResult::text(r.llm_content.clone(), r.llm_content.clone(), false),
            &LocationsOutput::new(&r),
        ),
        Err(e) => Reply::new(
            refusal(&e),
            &LocationsOutput::refused(Some(e.reason().into())),
        ),
    }
}

/// `outline` over `session`.
pub fn outline(session: &Session, a: &OutlineArgs) -> Reply {
    let options = OutlineOptions {
        all: a.all.unwrap_or(false),
    };
    match session
        .lsp_edits()
        .and_then(|e| e.outline_with(&a.path, options))
    {
        Ok(r) => Reply::new(
            ToolResult::text(r.llm_content.clone(), r.llm_content.clone(), false),
            &OutlineOutput::new(&r),
        ),
        Err(e) => Reply::new(
            refusal(&e),
            &OutlineOutput::refused(Some(e.reason().into())),
        ),
    }
}

/// `find_symbol` over `session`.
pub fn find_symbol(session: &Session, a: &FindSymbolArgs) -> Reply {
    let q = FindQuery {
        name: a.name.clone(),
        kind: a.kind.clone(),
        path: a.path.clone(),
        exact: a.exact.unwrap_or(false),
        include_body: a.include_body.unwrap_or(false),
    };
    match session.lsp_edits().and_then(|e| e.find_symbol(&q)) {
        Ok(r) => Reply::new(
            ToolResult::text(r.llm_content.clone(), r.llm_content.clone(), false),
            &FindSymbolOutput::new(&r),
        ),
        Err(e) => Reply::new(
            refusal(&e),
            &FindSymbolOutput::refused(Some(e.reason().into())),
        ),
    }
}

/// `replace_symbol_body`, `insert_before_symbol` or `insert_after_symbol` over `session`.
pub fn symbol_edit(
    session: &Session,
    kind: SymbolEditKind,
    a: &SymbolBodyArgs,
    gate: Option<&PolicyGate<'_>>,
) -> Reply {
    let mut edit = SymbolEdit::new(kind, &a.path, &a.name_path, &a.body);
    edit.anchor = a.anchor.clone();
    match session.lsp_edits() {
        Ok(e) => edit_reply(under(e, gate).edit_symbol(&edit, options(a.preview, Some(true)))),
        Err(e) => edit_refused(&e),
    }
}

/// `edits` judged by the operator's `gate`, when one binds this call's writes.
fn under<'a>(edits: LspEdits<'a>, gate: Option<&'a PolicyGate<'a>>) -> LspEdits<'a> {
    match gate {
        Some(g) => edits.gated(g),
        None => edits,
    }
}

/// The schemas of the LSP edit tools (see `server.rs`'s `tool_schemas`).
pub(crate) fn tool_schemas(name: &str) -> Option<(Arc<JsonObject>, Arc<JsonObject>)> {
    Some(match name {
        "rename_symbol" => tool_schema_pair::<RenameSymbolArgs, LspEditOutput>(),
        "code_actions" => tool_schema_pair::<CodeActionsArgs, CodeActionsOutput>(),
        "apply_code_action" => tool_schema_pair::<ApplyCodeActionArgs, LspEditOutput>(),
        "references" | "definition" => tool_schema_pair::<SymbolArgs, LocationsOutput>(),
        "outline" => tool_schema_pair::<OutlineArgs, OutlineOutput>(),
        "find_symbol" => tool_schema_pair::<FindSymbolArgs, FindSymbolOutput>(),
        "replace_symbol_body" | "insert_before_symbol" | "insert_after_symbol" => {
            tool_schema_pair::<SymbolBodyArgs, LspEditOutput>()
        }
        _ => return None,
    })
}

#[tool_router(router = lsp_tool_router, vis = "pub(crate)")]
impl LspeditServer {
    /// Rename a symbol everywhere with the language server. Use it instead of editing each
    /// use. Writes every file or none (none when the server's edit reaches outside the
    /// workspace or into a protected path). Returns per file the outcome, anchors and errors.
    #[tool(annotations(destructive_hint = true))]
    async fn rename_symbol(
        &self,
        Parameters(a): Parameters<RenameSymbolArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("rename_symbol", &context);
        self.run(move |s| writes.judge(|g| rename_symbol(s, &a, g)))
            .await
    }

    /// The language server's code actions for a line (quick fixes such as a missing import,
    /// refactorings). Use it on a line with an error. Returns them numbered, with the
    /// diagnostics each fixes, for apply_code_action.
    #[tool(annotations(read_only_hint = true))]
    async fn code_actions(
        &self,
        Parameters(a): Parameters<CodeActionsArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| code_actions(s, &a)).await
    }

    /// Apply one of code_actions' actions, by index or title. Use it after code_actions.
    /// Writes like rename_symbol. Returns the same as rename_symbol.
    #[tool(annotations(destructive_hint = true))]
    async fn apply_code_action(
        &self,
        Parameters(a): Parameters<ApplyCodeActionArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("apply_code_action", &context);
        self.run(move |s| writes.judge(|g| apply_code_action(s, &a, g)))
            .await
    }

    /// Every reference to a symbol. Use it before changing a signature. Returns them by file,
    /// each with its lines as read_file shows them (past 50, as `path:line:column`).
    #[tool(annotations(read_only_hint = true))]
    async fn references(
        &self,
        Parameters(a): Parameters<SymbolArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| locations(s, &a, false)).await
    }

    /// Where a symbol is defined. Use it to read the code a name refers to. Returns the place
    /// with its lines as read_file shows them.
    #[tool(annotations(read_only_hint = true))]
    async fn definition(
        &self,
        Parameters(a): Parameters<SymbolArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| locations(s, &a, true)).await
    }

    /// A file's declarations as a tree, or a directory's per file (all: also imports, locals,
    /// object-literal keys). Use it instead of reading a whole file. Returns per symbol its
    /// kind, name_path, anchor and `lines A-B`.
    #[tool(annotations(read_only_hint = true))]
    async fn outline(
        &self,
        Parameters(a): Parameters<OutlineArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| outline(s, &a)).await
    }

    /// Find symbols by name or name path in the workspace or under path. Use it to locate
    /// code by name. Returns `path:line kind name_path anchor lines A-B` per match (the
    /// nearest names when none).
    #[tool(annotations(read_only_hint = true))]
    async fn find_symbol(
        &self,
        Parameters(a): Parameters<FindSymbolArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| find_symbol(s, &a)).await
    }

    /// Replace a symbol's whole declaration, found by name_path, with body. Use it to rewrite
    /// a function or class without a patch. Returns the same as apply_patch; an ambiguous
    /// name is refused with the candidates.
    #[tool(annotations(destructive_hint = true))]
    async fn replace_symbol_body(
        &self,
        Parameters(a): Parameters<SymbolBodyArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("replace_symbol_body", &context);
        self.run(move |s| writes.judge(|g| symbol_edit(s, SymbolEditKind::Replace, &a, g)))
            .await
    }

    /// Insert body above a symbol (and its doc comments), found by name_path. Use it to add
    /// code before a declaration. Returns the same as replace_symbol_body.
    #[tool(annotations(destructive_hint = true))]
    async fn insert_before_symbol(
        &self,
        Parameters(a): Parameters<SymbolBodyArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("insert_before_symbol", &context);
        self.run(move |s| writes.judge(|g| symbol_edit(s, SymbolEditKind::InsertBefore, &a, g)))
            .await
    }

    /// Insert body below a symbol, found by name_path. Use it to add code after a
    /// declaration. Returns the same as replace_symbol_body.
    #[tool(annotations(destructive_hint = true))]
    async fn insert_after_symbol(
        &self,
        Parameters(a): Parameters<SymbolBodyArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("insert_after_symbol", &context);
        self.run(move |s| writes.judge(|g| symbol_edit(s, SymbolEditKind::InsertAfter, &a, g)))
            .await
    }
}
