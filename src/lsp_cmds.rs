//! `lspedit rename`, `lspedit fix`, `lspedit refs`, `lspedit outline`, `lspedit
//! find-symbol` and `lspedit replace-symbol` / `insert-before` / `insert-after`: the LSP edit
//! tools from the shell, the same session methods ([`lspedit::session::Session::lsp_edits`])
//! and text as the MCP tools `rename_symbol`, `code_actions` / `apply_code_action`,
//! `references` / `definition`, `outline`, `find_symbol`, `replace_symbol_body`,
//! `insert_before_symbol`, `insert_after_symbol`.

use std::path::PathBuf;

use lspedit::lsp_edits::{
    ActionPick, CodeActionList, EditOptions, LineRef, LspEditError, SymbolAt,
};
use lspedit::lsp_edits::{FindQuery, FindReport, OutlineOptions, OutlineReport, SymbolEntry};
use lspedit::lsp_edits::{LocationsReport, LspEditResult, ServerFileOp};
use lspedit::lsp_edits::{SymbolEdit, SymbolEditKind};
use lspedit::tools::ToolsConfig;
use serde_json::{Value, json};

use crate::json::{DiagnosticsJson, Doc, DocReason, FileJson};
use crate::{Failure, err_text, open_session, out, print_json};

/// Where the symbol is: a file, a line and the symbol's text on it.
#[derive(clap::Args)]
pub struct SymbolInput {
    /// The file, relative to the root.
    path: String,
    /// The line: a 1-based number or an anchor from `lspedit read` (`42abcd`).
    line: String,
    /// The symbol's text as it appears on the line.
    symbol: String,
    /// Which appearance on the line (1-based) when the symbol appears more than once.
    #[arg(long)]
    occurrence: Option<usize>,
}

impl SymbolInput {
    fn at(&self) -> SymbolAt {
        SymbolAt {
            path: self.path.clone(),
            line: LineRef::parse(&self.line),
            symbol: self.symbol.clone(),
            occurrence: self.occurrence,
        }
    }
}

/// `lspedit rename PATH LINE SYMBOL NEW_NAME`.
#[derive(clap::Args)]
pub struct RenameInput {
    #[command(flatten)]
    at: SymbolInput,
    /// The new name.
    new_name: String,
    /// Store the rename as a proposal (prints its patch id; `lspedit apply-id` applies it).
    #[arg(long)]
    preview: bool,
    /// Write each file on its own instead of all files or none.
    #[arg(long)]
    per_file: bool,
}

/// `lspedit fix PATH LINE [--index N | --title T]`.
#[derive(clap::Args)]
pub struct FixInput {
    /// The file, relative to the root.
    path: String,
    /// The line: a 1-based number or an anchor (`42abcd`).
    line: String,
    /// Apply the action with this number (from the list `lspedit fix PATH LINE` prints).
    #[arg(long, conflicts_with = "title")]
    index: Option<usize>,
    /// Apply the action with this title (or the one title containing it).
    #[arg(long)]
    title: Option<String>,
    /// Store the edit as a proposal instead of applying it.
    #[arg(long)]
    preview: bool,
    /// Write each file on its own instead of all files or none.
    #[arg(long)]
    per_file: bool,
}

/// `lspedit refs PATH [LINE SYMBOL | --name-path P] [--definition]`.
#[derive(clap::Args)]
pub struct RefsInput {
    #[command(flatten)]
    at: crate::lookup_cmds::LookupInput,
    /// Show where the symbol is defined instead of its references.
    #[arg(long)]
    definition: bool,
    /// Leave the declaration out of the references.
    #[arg(long)]
    no_declaration: bool,
}

/// `lspedit outline FILE|DIR`.
#[derive(clap::Args)]
pub struct OutlineInput {
    /// A file (its declarations as a tree) or a directory (each file's top-level ones; not
    /// recursive), relative to the root.
    path: String,
    /// Every symbol the server gives: also import bindings, locals inside functions and the
    /// keys of object literals.
    #[arg(long)]
    all: bool,
}

/// `lspedit find-symbol NAME [--path P] [--kind K] [--exact] [--body]`.
#[derive(clap::Args)]
pub struct FindSymbolInput {
    /// A name (`total`) or a name path (`Cart/total`).
    name: String,
    /// Search this file or directory only (default: the workspace).
    #[arg(long)]
    path: Option<String>,
    /// Only symbols of this kind (`class`, `method`, `function`, `struct`, ...).
    #[arg(long)]
    kind: Option<String>,
    /// The name must be equal, not merely contain the text.
    #[arg(long)]
    exact: bool,
    /// Print each match's whole declaration (the first 5) as hashline lines.
    #[arg(long)]
    body: bool,
}

/// `lspedit replace-symbol|insert-before|insert-after PATH NAME_PATH [BODY]`.
#[derive(clap::Args)]
pub struct SymbolEditInput {
    /// The file holding the symbol, relative to the root.
    path: String,
    /// The symbol's name path as `outline` prints it (`Cart/total`), or a name unique in the
    /// file; `/` first for a path from the top (`/total`).
    name_path: String,
    /// Where the code comes from: a file, or `-` (the default) for standard input.
    body: Option<String>,
    /// The anchor `outline` or `find-symbol` printed for the symbol (`12abcd`): refused as
    /// `stale_context` when the symbol changed since; picks one of several of the same name.
    #[arg(long)]
    anchor: Option<String>,
    /// Store the edit as a proposal (prints its patch id; `lspedit apply-id` applies it).
    #[arg(long)]
    preview: bool,
}

/// `replace-symbol`, `insert-before`, `insert-after`: the body read, then the session's
/// `edit_symbol`.
pub fn cmd_symbol_edit(
    kind: SymbolEditKind,
    input: SymbolEditInput,
    root: Option<PathBuf>,
    json: bool,
) -> Result<u8, Failure> {
    let body = crate::read_input(input.body.as_deref(), "body")?;
    let session = open_session(root, true, ToolsConfig::default())?;
    let mut edit = SymbolEdit::new(kind, input.path, input.name_path, body);
    edit.anchor = input.anchor;
    let opts = EditOptions {
        preview: input.preview,
        all_or_nothing: true,
    };
    let result = session.lsp_edits().map(|e| e.edit_symbol(&edit, opts));
    finish_edit(result, json)
}

pub fn cmd_outline(input: OutlineInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let options = OutlineOptions { all: input.all };
    let r = session
        .lsp_edits()
        .and_then(|e| e.outline_with(&input.path, options));
    finish_outline(r, json)
}

pub fn cmd_find_symbol(
    input: FindSymbolInput,
    root: Option<PathBuf>,
    json: bool,
) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let q = FindQuery {
        name: input.name,
        kind: input.kind,
        path: input.path,
        exact: input.exact,
        include_body: input.body,
    };
    let r = session.lsp_edits().and_then(|e| e.find_symbol(&q));
    finish_find(r, json)
}

fn symbol_json(e: &SymbolEntry) -> Value {
    json!({
        "path": e.path,
        "name_path": e.name_path,
        "name": e.name,
        "kind": e.kind,
        "depth": e.depth,
        "line": e.line,
        "anchor": e.anchor,
        "start_line": e.start_line,
        "end_line": e.end_line,
        "detail": e.detail,
    })
}

/// `lspedit outline`: the text, or `symbols`, `left_out`, `hidden`, `partial` in JSON.
fn finish_outline(r: Result<OutlineReport, LspEditError>, json: bool) -> Result<u8, Failure> {
    let r = match r {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "symbols": [] })),
    };
    let symbols: Vec<Value> = r
        .files
        .iter()
        .flat_map(|f| f.symbols.iter().map(symbol_json))
        .collect();
    let data = json!({
        "symbols": symbols,
        "left_out": r.left_out,
        "hidden": r.hidden,
        "partial": r.partial,
    });
    print(false, None, &r.llm_content, Vec::new(), data, json)
}

/// `lspedit find-symbol`: the text, or `matches`, `more`, `suggestions`, `partial` in JSON.
fn finish_find(r: Result<FindReport, LspEditError>, json: bool) -> Result<u8, Failure> {
    let r = match r {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "matches": [] })),
    };
    let matches: Vec<Value> = r.matches.iter().map(|m| symbol_json(&m.symbol)).collect();
    let data = json!({
        "matches": matches,
        "more": r.more,
        "suggestions": r.suggestions,
        "partial": r.partial,
    });
    print(false, None, &r.llm_content, Vec::new(), data, json)
}

pub fn cmd_rename(input: RenameInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let opts = EditOptions {
        preview: input.preview,
        all_or_nothing: !input.per_file,
    };
    let result = session
        .lsp_edits()
        .map(|e| e.rename_symbol(input.at.at(), &input.new_name, opts));
    finish_edit(result, json)
}

pub fn cmd_fix(input: FixInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let line = LineRef::parse(&input.line);
    let pick = match (input.index, input.title) {
        (Some(i), _) => ActionPick::Index(i),
        (None, Some(t)) => ActionPick::Title(t),
        (None, None) => {
            let list = session
                .lsp_edits()
                .and_then(|e| e.code_actions(&input.path, &line));
            return finish_list(list, json);
        }
    };
    let opts = EditOptions {
        preview: input.preview,
        all_or_nothing: !input.per_file,
    };
    let result = session
        .lsp_edits()
        .map(|e| e.apply_code_action(&input.path, &line, &pick, opts));
    finish_edit(result, json)
}

pub fn cmd_refs(input: RefsInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let at = input.at.at()?;
    let session = open_session(root, true, ToolsConfig::default())?;
    let found = session.lsp_edits().and_then(|e| {
        if input.definition {
            e.definition(&at)
        } else {
            e.references(&at, !input.no_declaration)
        }
    });
    finish_locations(found, json)
}

/// A rename or code action: its text, or with `--json` one document (`ok`, `reason`,
/// `llm_content`, `files`, then `status`, `server`, `server_time_ms`, `server_edit`, `patch_id`,
/// `checkpoint_id`); exit 1 on a refusal.
fn finish_edit(result: Result<LspEditResult, LspEditError>, json: bool) -> Result<u8, Failure> {
    let r = match result {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "status": "refused" })),
    };
    let files: Vec<FileJson> = r
        .files
        .iter()
        .map(|f| match f.reason {
            Some(reason) if !f.applied => FileJson {
                summary: f.message.clone(),
                ..FileJson::failed(&f.path, reason, f.message.clone())
            },
            _ => FileJson::plain(&f.path, "applied", f.message.clone()),
        })
        .collect();
    let server_edit: Vec<Value> = r.server_edit.iter().map(op_json).collect();
    let data = json!({
        "status": r.status.as_str(),
        "server": r.server,
        "server_time_ms": r.server_time.map(|t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX)),
        "server_edit": server_edit,
        "patch_id": r.patch_id,
        "checkpoint_id": r.checkpoint_id,
        "diagnostics": DiagnosticsJson::list(&r.diagnostics),
    });
    print(
        r.is_error,
        r.reason.map(|r| r.as_str()),
        &r.llm_content,
        files,
        data,
        json,
    )
}

fn op_json(op: &ServerFileOp) -> Value {
    match op {
        ServerFileOp::Edit { path, edits } => json!({ "op": "edit", "path": path, "edits": edits }),
        ServerFileOp::Create { path } => json!({ "op": "create", "path": path }),
        ServerFileOp::Rename { from, to } => json!({ "op": "rename", "path": from, "to": to }),
        ServerFileOp::Delete { path } => json!({ "op": "delete", "path": path }),
    }
}

/// `lspedit fix PATH LINE`: the numbered actions (`actions` in JSON).
fn finish_list(list: Result<CodeActionList, LspEditError>, json: bool) -> Result<u8, Failure> {
    let list = match list {
        Ok(l) => l,
        Err(e) => return refused(&e, json, json!({ "actions": [] })),
    };
    let actions: Vec<Value> = list
        .actions
        .iter()
        .map(|a| {
            json!({
                "index": a.index,
                "title": a.title,
                "kind": a.kind.clone().filter(|k| !k.is_empty()),
                "fixes": a.fixes,
                "preferred": a.preferred,
            })
        })
        .collect();
    let data = json!({ "actions": actions });
    print(false, None, &list.llm_content, Vec::new(), data, json)
}

/// `lspedit refs`: the excerpts (`locations` and `with_context` in JSON).
pub(crate) fn finish_locations(
    found: Result<LocationsReport, LspEditError>,
    json: bool,
) -> Result<u8, Failure> {
    let r = match found {
        Ok(r) => r,
        Err(e) => return refused(&e, json, json!({ "locations": [], "with_context": 0 })),
    };
    let locations: Vec<Value> = r
        .locations
        .iter()
        .map(|l| {
            json!({
                "path": l.path,
                "line": l.line,
                "column": l.column,
                "end_line": l.end_line,
                "end_column": l.end_column,
                "in_workspace": l.in_workspace,
            })
        })
        .collect();
    let data = json!({ "locations": locations, "with_context": r.with_context });
    print(false, None, &r.llm_content, Vec::new(), data, json)
}

/// A refusal; one about a file lists it in `files` as `failed`.
pub(crate) fn refused(e: &LspEditError, json: bool, data: Value) -> Result<u8, Failure> {
    let files = match e {
        LspEditError::Tool(t) => t
            .path
            .as_deref()
            .map(|p| vec![FileJson::failed(p, t.reason, t.message.clone())])
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    print(true, Some(e.code()), &e.refusal_text(), files, data, json)
}

/// The text (stdout, or stderr for a refusal), or with `--json` one document: `ok`, `reason`,
/// `llm_content`, `files`, then the command's own fields. Exit 1 on a refusal.
pub(crate) fn print(
    is_error: bool,
    reason: Option<&'static str>,
    llm: &str,
    files: Vec<FileJson>,
    data: Value,
    json: bool,
) -> Result<u8, Failure> {
    if json {
        // A `Doc`, not a JSON map: the map sorts its keys, the document keeps the four first.
        print_json(&Doc {
            ok: !is_error,
            reason: reason.map(DocReason::Code),
            llm_content: llm.to_string(),
            files,
            data,
        })?;
    } else if is_error {
        err_text(&format!("{}\n", llm.trim_end()));
    } else {
        out(&format!("{}\n", llm.trim_end()));
    }
    Ok(u8::from(is_error))
}
