//! `lspedit hover`, `lspedit calls`, `lspedit implementations` and `lspedit type-definition`:
//! the read-only lookups at a symbol from the shell, the same session methods
//! ([`lspedit::session::Session::lsp_edits`]) and text as the MCP tools `hover`,
//! `call_hierarchy`, `implementations`, `type_definition`.

use std::path::PathBuf;

use lspedit::lsp_edits::{CallDirection, CalledItem, LineRef, LookupAt};
use lspedit::tools::ToolsConfig;
use serde_json::{Value, json};

use crate::lsp_cmds::{finish_locations, print, refused};
use crate::{Failure, open_session};

/// Where the symbol is: a file and a line with the symbol's text on it, or a name path.
#[derive(clap::Args)]
pub struct LookupInput {
    /// The file, relative to the root.
    path: String,
    /// The line: a 1-based number or an anchor from `lspedit read` (`42abcd`); with
    /// --name-path, the anchor `outline` gave, to pick one of several symbols of that name.
    line: Option<String>,
    /// The symbol's text as it appears on the line.
    symbol: Option<String>,
    /// Which appearance on the line (1-based) when the symbol appears more than once.
    #[arg(long)]
    occurrence: Option<usize>,
    /// Instead of LINE and SYMBOL: the symbol's name path in the file (`Cart/total`).
    #[arg(long)]
    name_path: Option<String>,
}

impl LookupInput {
    pub(crate) fn at(&self) -> Result<LookupAt, Failure> {
        LookupAt::from_args(
            &self.path,
            self.line.as_deref().map(LineRef::parse),
            self.symbol.as_deref(),
            self.occurrence,
            self.name_path.as_deref(),
        )
        .map_err(Failure::Usage)
    }
}

/// `incoming` (the callers) or `outgoing` (what it calls).
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum DirectionArg {
    Incoming,
    Outgoing,
}

/// `lspedit calls PATH [LINE SYMBOL | --name-path P] [--direction incoming|outgoing]`.
#[derive(clap::Args)]
pub struct CallsInput {
    #[command(flatten)]
    at: LookupInput,
    /// `incoming`: the callers; `outgoing`: what the function calls.
    #[arg(long, value_enum, default_value = "incoming")]
    direction: DirectionArg,
}

/// Which locations `lspedit implementations` / `type-definition` asks for.
pub enum LocationsKind {
    Implementations,
    TypeDefinition,
}

pub fn cmd_hover(input: LookupInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let at = input.at()?;
    let session = open_session(root, true, ToolsConfig::default())?;
    let r = match session.lsp_edits().and_then(|e| e.hover(&at)) {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "hover": null })),
    };
    let data = json!({
        "path": r.path,
        "line": r.line,
        "server": r.server,
        "hover": r.text,
        "truncated": r.truncated,
        "partial": r.partial,
    });
    print(false, None, &r.llm_content, Vec::new(), data, json)
}

fn item_json(i: &CalledItem) -> Value {
    json!({
        "name": i.name,
        "kind": i.kind,
        "path": i.path,
        "line": i.line,
        "anchor": i.anchor,
        "in_workspace": i.in_workspace,
        "detail": i.detail,
    })
}

pub fn cmd_calls(input: CallsInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let at = input.at.at()?;
    let direction = match input.direction {
        DirectionArg::Incoming => CallDirection::Incoming,
        DirectionArg::Outgoing => CallDirection::Outgoing,
    };
    let session = open_session(root, true, ToolsConfig::default())?;
    let r = match session
        .lsp_edits()
        .and_then(|e| e.call_hierarchy(&at, direction))
    {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "targets": [], "calls": [] })),
    };
    let calls: Vec<Value> = r
        .calls
        .iter()
        .map(|c| {
            json!({
                "item": item_json(&c.item),
                "sites_path": c.sites_path,
                "sites": c.sites,
                "target": c.target,
            })
        })
        .collect();
    let data = json!({
        "direction": r.direction.as_str(),
        "targets": r.targets.iter().map(item_json).collect::<Vec<_>>(),
        "calls": calls,
        "more": r.more,
        "partial": r.partial,
    });
    print(false, None, &r.llm_content, Vec::new(), data, json)
}

pub fn cmd_locations(
    input: LookupInput,
    kind: LocationsKind,
    root: Option<PathBuf>,
    json: bool,
) -> Result<u8, Failure> {
    let at = input.at()?;
    let session = open_session(root, true, ToolsConfig::default())?;
    let found = session.lsp_edits().and_then(|e| match kind {
        LocationsKind::Implementations => e.implementations(&at),
        LocationsKind::TypeDefinition => e.type_definition(&at),
    });
    finish_locations(found, json)
}
