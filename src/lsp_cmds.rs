//! `lspedit rename`, `lspedit fix` and `lspedit refs`: the LSP edit tools from the shell, the
//! same functions (and text) as the MCP tools `rename_symbol`, `code_actions` /
//! `apply_code_action`, `references` / `definition`.

use std::path::PathBuf;

use lspedit::mcp::lsp_tools::{
    self, ApplyCodeActionArgs, CodeActionsArgs, LineArg, RenameSymbolArgs, SymbolArgs,
};
use lspedit::tools::ToolsConfig;
use serde_json::{Value, json};

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
    fn line(&self) -> LineArg {
        LineArg::Text(self.line.clone())
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

/// `lspedit refs PATH LINE SYMBOL [--definition]`.
#[derive(clap::Args)]
pub struct RefsInput {
    #[command(flatten)]
    at: SymbolInput,
    /// Show where the symbol is defined instead of its references.
    #[arg(long)]
    definition: bool,
    /// Leave the declaration out of the references.
    #[arg(long)]
    no_declaration: bool,
}

pub fn cmd_rename(input: RenameInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let args = RenameSymbolArgs {
        path: input.at.path.clone(),
        line: input.at.line(),
        symbol: input.at.symbol.clone(),
        occurrence: input.at.occurrence,
        new_name: input.new_name,
        preview: Some(input.preview),
        all_or_nothing: Some(!input.per_file),
    };
    let reply = lsp_tools::rename_symbol(&session, &args);
    finish(reply, json)
}

pub fn cmd_fix(input: FixInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let line = LineArg::Text(input.line);
    let reply = if input.index.is_none() && input.title.is_none() {
        lsp_tools::code_actions(
            &session,
            &CodeActionsArgs {
                path: input.path,
                line,
            },
        )
    } else {
        lsp_tools::apply_code_action(
            &session,
            &ApplyCodeActionArgs {
                path: input.path,
                line,
                index: input.index,
                title: input.title,
                preview: Some(input.preview),
                all_or_nothing: Some(!input.per_file),
            },
        )
    };
    finish(reply, json)
}

pub fn cmd_refs(input: RefsInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, true, ToolsConfig::default())?;
    let args = SymbolArgs {
        path: input.at.path.clone(),
        line: input.at.line(),
        symbol: input.at.symbol.clone(),
        occurrence: input.at.occurrence,
        include_declaration: Some(!input.no_declaration),
    };
    let reply = lsp_tools::locations(&session, &args, input.definition);
    finish(reply, json)
}

/// Prints the reply (the text, or with `--json` one document: `ok`, `reason`, `llm_content`,
/// `files`, then the tool's structured fields); exit 1 on a refusal.
fn finish(reply: lspedit::mcp::output::Reply, json: bool) -> Result<u8, Failure> {
    let r = &reply.result;
    if json {
        let mut data = match reply.structured.clone() {
            Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        let reason = data.remove("reason").unwrap_or(Value::Null);
        let files: Vec<Value> = data
            .remove("files")
            .and_then(|f| f.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .map(|f| {
                let applied = f["applied"].as_bool().unwrap_or(false);
                json!({
                    "path": f["path"],
                    "status": if applied { "applied" } else { "failed" },
                    "summary": f["message"],
                    "reason": f.get("reason").cloned().unwrap_or(Value::Null),
                })
            })
            .collect();
        let mut doc = serde_json::Map::new();
        doc.insert("ok".into(), Value::Bool(!r.is_error));
        doc.insert("reason".into(), reason);
        doc.insert("llm_content".into(), Value::String(r.llm_content.clone()));
        doc.insert("files".into(), Value::Array(files));
        doc.extend(data);
        print_json(&Value::Object(doc))?;
    } else if r.is_error {
        err_text(&format!("{}\n", r.llm_content.trim_end()));
    } else {
        out(&format!("{}\n", r.llm_content.trim_end()));
    }
    Ok(u8::from(r.is_error))
}
