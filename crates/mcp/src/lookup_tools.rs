//! The read-only lookups at a symbol over MCP: `hover`, `call_hierarchy`, `implementations`,
//! `type_definition` ([`lspedit_lsp_edits::LspEdits`] over the session, as `lsp_tools.rs` does
//! for `references` and `definition`), with their arguments, structured results and schemas.
//! The text is the library's `llm_content`; the CLI calls the same methods (`src/lookup_cmds.rs`).

use std::sync::Arc;

use lspedit_lsp_edits::{
    CallDirection, CalledItem, CallsReport, HoverReport, LocationsReport, LookupAt, LspEditError,
};
use lspedit_tools::ToolResult;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{ErrorData as McpError, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::lsp_tools::{LineArg, LocationsOutput, refusal};
use crate::output::{ReasonCode, Reply};
use crate::schema::tool_schema_pair;
use crate::server::LspeditServer;
use lspedit_session::Session;

/// Arguments of `hover`, `implementations` and `type_definition`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LookupArgs {
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
}

/// Which calls `call_hierarchy` lists.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    // The callers. (Plain comments: a doc comment on a variant would make the schema a `oneOf`
    // instead of one `enum`.)
    Incoming,
    // What the symbol calls.
    Outgoing,
}

impl From<Direction> for CallDirection {
    fn from(d: Direction) -> CallDirection {
        match d {
            Direction::Incoming => CallDirection::Incoming,
            Direction::Outgoing => CallDirection::Outgoing,
        }
    }
}

/// Arguments of `call_hierarchy`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallHierarchyArgs {
    pub path: String,
    /// `incoming`: who calls it; `outgoing`: what it calls.
    pub direction: Direction,
    /// Where `symbol` appears: a 1-based number or an anchor (`"42abcd"`).
    #[serde(default)]
    pub line: Option<LineArg>,
    /// Its text on that line (a declaration or a call).
    #[serde(default)]
    pub symbol: Option<String>,
    /// Which appearance on the line, 1-based.
    #[serde(default)]
    pub occurrence: Option<usize>,
    /// Instead of line and symbol (`Cart/total`).
    #[serde(default)]
    pub name_path: Option<String>,
}

pub(crate) fn lookup_at(
    path: &str,
    line: &Option<LineArg>,
    symbol: &Option<String>,
    occurrence: Option<usize>,
    name_path: &Option<String>,
) -> Result<LookupAt, String> {
    LookupAt::from_args(
        path,
        line.as_ref().map(LineArg::line_ref),
        symbol.as_deref(),
        occurrence,
        name_path.as_deref(),
    )
}

impl LookupArgs {
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

/// The structured result of `hover`.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct HoverOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// The file and the 1-based line asked at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The language server that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The server's text (markdown as it wrote it); absent when it has nothing to say there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hover: Option<String>,
    /// The text was cut (at 60 lines).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// The server was still loading the project: a type may show as unknown.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

impl HoverOutput {
    /// Nothing to show: refused with `reason` (or bad arguments).
    pub fn refused(reason: Option<ReasonCode>) -> HoverOutput {
        HoverOutput {
            reason,
            ..HoverOutput::default()
        }
    }

    fn new(r: &HoverReport) -> HoverOutput {
        HoverOutput {
            reason: None,
            path: Some(r.path.clone()),
            line: Some(r.line),
            server: Some(r.server.clone()),
            hover: r.text.clone(),
            truncated: r.truncated,
            partial: r.partial,
        }
    }
}

/// A function, method or constructor of a call hierarchy.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallItemOutput {
    pub name: String,
    /// Lowercase: `function`, `method`, `constructor`, ...
    pub kind: String,
    /// Workspace-relative path (absolute outside the workspace).
    pub path: String,
    /// The 1-based line holding its name, and that line's anchor (in the workspace).
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    pub in_workspace: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

fn item_output(i: &CalledItem) -> CallItemOutput {
    CallItemOutput {
        name: i.name.clone(),
        kind: i.kind.to_owned(),
        path: i.path.clone(),
        line: i.line,
        anchor: i.anchor.clone(),
        in_workspace: i.in_workspace,
        detail: i.detail.clone(),
    }
}

/// A caller (incoming) or callee (outgoing) with its call sites.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallOutput {
    /// The caller or callee.
    pub item: CallItemOutput,
    /// The file of the call sites: the caller's (incoming), the asked function's (outgoing).
    pub sites_path: String,
    /// The 1-based lines of the calls.
    pub sites: Vec<usize>,
    /// Which of `targets` it is a call of (0-based; servers usually give one target).
    pub target: usize,
}

/// The structured result of `call_hierarchy`.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct CallHierarchyOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<ReasonCode>,
    /// What the server identified at the position (usually one function).
    pub targets: Vec<CallItemOutput>,
    /// The callers or callees, workspace files first (at most 50).
    pub calls: Vec<CallOutput>,
    /// Calls not listed: past the 50 listed, or not read by the deadline.
    #[serde(skip_serializing_if = "is_zero")]
    pub more: usize,
    /// The list may be incomplete: the server was still loading the project, did not answer
    /// for a target in time, or the deadline passed before every call was read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl CallHierarchyOutput {
    /// Nothing listed: refused with `reason` (or bad arguments).
    pub fn refused(reason: Option<ReasonCode>) -> CallHierarchyOutput {
        CallHierarchyOutput {
            reason,
            ..CallHierarchyOutput::default()
        }
    }

    fn new(r: &CallsReport) -> CallHierarchyOutput {
        CallHierarchyOutput {
            reason: None,
            targets: r.targets.iter().map(item_output).collect(),
            calls: r
                .calls
                .iter()
                .map(|c| CallOutput {
                    item: item_output(&c.item),
                    sites_path: c.sites_path.clone(),
                    sites: c.sites.clone(),
                    target: c.target,
                })
                .collect(),
            more: r.more,
            partial: r.partial,
        }
    }
}

pub(crate) fn invalid<T: Serialize>(why: &str, empty: &T) -> Reply {
    let t = format!("Error: invalid arguments: {why}");
    Reply::new(ToolResult::text(t.clone(), t, true), empty)
}

fn text(llm: &str) -> ToolResult {
    ToolResult::text(llm.to_owned(), llm.to_owned(), false)
}

fn refused<T: Serialize>(e: &LspEditError, out: &T) -> Reply {
    Reply::new(refusal(e), out)
}

/// `hover` over `session`.
pub fn hover(session: &Session, a: &LookupArgs) -> Reply {
    let at = match a.at() {
        Ok(at) => at,
        Err(why) => return invalid(&why, &HoverOutput::refused(None)),
    };
    match session.lsp_edits().and_then(|e| e.hover(&at)) {
        Ok(r) => Reply::new(text(&r.llm_content), &HoverOutput::new(&r)),
        Err(e) => refused(&e, &HoverOutput::refused(Some(e.reason().into()))),
    }
}

/// `call_hierarchy` over `session`.
pub fn call_hierarchy(session: &Session, a: &CallHierarchyArgs) -> Reply {
    let at = match lookup_at(&a.path, &a.line, &a.symbol, a.occurrence, &a.name_path) {
        Ok(at) => at,
        Err(why) => return invalid(&why, &CallHierarchyOutput::refused(None)),
    };
    match session
        .lsp_edits()
        .and_then(|e| e.call_hierarchy(&at, a.direction.into()))
    {
        Ok(r) => Reply::new(text(&r.llm_content), &CallHierarchyOutput::new(&r)),
        Err(e) => refused(&e, &CallHierarchyOutput::refused(Some(e.reason().into()))),
    }
}

/// `implementations` (`type_definition: false`) or `type_definition` over `session`.
pub fn lookup_locations(session: &Session, a: &LookupArgs, type_definition: bool) -> Reply {
    let at = match a.at() {
        Ok(at) => at,
        Err(why) => return invalid(&why, &LocationsOutput::refused(None)),
    };
    let found: Result<LocationsReport, LspEditError> = session.lsp_edits().and_then(|e| {
        if type_definition {
            e.type_definition(&at)
        } else {
            e.implementations(&at)
        }
    });
    match found {
        Ok(r) => Reply::new(text(&r.llm_content), &LocationsOutput::new(&r)),
        Err(e) => refused(&e, &LocationsOutput::refused(Some(e.reason().into()))),
    }
}

/// The schemas of the lookups (see `server.rs`'s `tool_schemas`).
pub(crate) fn tool_schemas(name: &str) -> Option<(Arc<JsonObject>, Arc<JsonObject>)> {
    Some(match name {
        "hover" => tool_schema_pair::<LookupArgs, HoverOutput>(),
        "call_hierarchy" => tool_schema_pair::<CallHierarchyArgs, CallHierarchyOutput>(),
        "implementations" | "type_definition" => tool_schema_pair::<LookupArgs, LocationsOutput>(),
        _ => return None,
    })
}

#[tool_router(router = lookup_tool_router, vis = "pub(crate)")]
impl LspeditServer {
    /// A symbol's type, signature and documentation from the language server. Use it to learn
    /// a type without reading the declaration. Returns the server's text.
    #[tool(annotations(read_only_hint = true))]
    async fn hover(
        &self,
        Parameters(a): Parameters<LookupArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| hover(s, &a)).await
    }

    /// Who calls a function (incoming) or what it calls (outgoing). Use it to see what a
    /// change to a function affects. Returns each caller or callee as
    /// `path:line kind name anchor` with its call sites as read_file lines.
    #[tool(annotations(read_only_hint = true))]
    async fn call_hierarchy(
        &self,
        Parameters(a): Parameters<CallHierarchyArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| call_hierarchy(s, &a)).await
    }

    /// Where an interface, trait or abstract method is implemented. Use it to find the code
    /// behind an abstraction. Returns each place with its lines as read_file shows them.
    #[tool(annotations(read_only_hint = true))]
    async fn implementations(
        &self,
        Parameters(a): Parameters<LookupArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| lookup_locations(s, &a, false)).await
    }

    /// Where the type of a variable, parameter or result is declared. Use it to read a type
    /// you only see used. Returns the place with its lines as read_file shows them.
    #[tool(annotations(read_only_hint = true))]
    async fn type_definition(
        &self,
        Parameters(a): Parameters<LookupArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| lookup_locations(s, &a, true)).await
    }
}
