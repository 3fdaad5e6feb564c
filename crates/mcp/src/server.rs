//! The MCP server: the agent tools as MCP tools, over stdio.
//!
//! Tool refusals (a hunk that does not match, a path outside the workspace, …) are results
//! with `isError: true` whose text is the tool's `llm_content`, so the model reads the reason
//! code and what to do. Every result, refusals included, also carries `structuredContent` of
//! the tool's declared `outputSchema` ([`crate::output`]); both schemas of every tool are
//! portable ([`crate::schema`]). Protocol errors are only for malformed requests (an unknown tool, a
//! broken message); arguments that do not fit the schema come back as an `isError` result
//! naming the field (the MCP rule for input validation, as rmcp implements it), so the model
//! can correct itself. The tools block (file I/O, waiting for language servers), so each
//! call runs on tokio's blocking pool.

use std::collections::BTreeMap;
use std::sync::Arc;

use lspedit_tools::{ApplyPlan, Atomicity, ProposeRequest, Session, ToolResult};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, ServerCapabilities, ServerConfig,
};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::output::{
    ApplyEditOutput, DiagnosticsOutput, ProposeOutput, ReadFileOutput, Reply, UndoOutput,
    WriteOutput,
};
use crate::schema::{lenient, portable};
use crate::transport::{DEFAULT_MAX_MESSAGE_BYTES, LineTransport};

/// The name the server announces in `initialize`.
pub const SERVER_NAME: &str = "lspedit";
/// The version the server announces in `initialize` (the crate's version).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

const INSTRUCTIONS: &str = "lspedit edits files safely and reports what an edit broke. \
Workflow: read_file shows each line as `<line><hash>|<content>` (e.g. `42abcd|  return x;`); \
`42abcd` is the line's anchor. Change files with apply_patch (a unified diff or a Codex \
`*** Begin Patch` envelope whose context and removal lines carry those anchors), edit \
(search/replace) or write_file (whole file). Every writing tool answers with the per-file result, \
the fresh anchors of the lines it changed, and the language server's errors for the files it \
wrote (`LSP errors detected in ..., please fix:` followed by `ERROR [line:col] message (code)`). \
Fix those errors before moving on. To review a change before it is made, use propose_edit \
(returns a patch_id and the diff), then apply_edit(patch_id) and, if needed, undo(checkpoint_id). \
With a language server, rename_symbol renames across files, code_actions / apply_code_action \
apply its quick fixes, and references / definition show where a symbol is used or defined, as \
read_file lines with anchors; name a symbol by path, line (number or anchor) and its text. \
A result with isError names a reason code \
(hunk_mismatch, ambiguous_match, stale_context, truncated_input, ...) and what to do: usually \
re-read the file and resend with fresh anchors. Nothing is written by a refused file.";

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    /// Workspace-relative path of the file to read (e.g. `src/main.ts`). Paths that leave the
    /// workspace are refused with `path_outside_workspace`.
    pub path: String,
    /// First line to show, 1-based (default 1).
    #[serde(default, deserialize_with = "lenient::offset")]
    pub offset: Option<usize>,
    /// Number of lines to show (default 2000). The result says when more lines follow.
    #[serde(default, deserialize_with = "lenient::limit")]
    pub limit: Option<usize>,
}

/// Arguments of `edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// Workspace-relative path of an existing file (create files with write_file).
    pub path: String,
    /// The exact text to replace: plain file text, WITHOUT the `42abcd|` anchors of the read_file
    /// view. Include enough surrounding lines to be unique. Matching tries the exact text first,
    /// then ignores trailing whitespace, indentation and unicode punctuation differences, but a
    /// fallback match must be unique and span the same number of lines.
    pub old_text: String,
    /// The replacement text (plain text, no anchors).
    pub new_text: String,
    /// Replace every occurrence instead of requiring exactly one (default false). Without it,
    /// several matches are refused as `ambiguous_match`.
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    /// Workspace-relative path; parent directories are created.
    pub path: String,
    /// The complete new content of the file (plain text, no anchors).
    pub content: String,
}

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// The patch, in one of two formats (auto-detected), possibly touching several files:
    ///
    /// 1. Unified diff (plain or `diff --git`): `--- a/path` / `+++ b/path`, hunks starting with
    ///    `@@ -12,3 +12,4 @@`. Context (` `) and removal (`-`) lines SHOULD carry the anchor
    ///    from read_file: `-42abcd|old text`, ` 43efgh|context`; with anchors the header may be a
    ///    bare `@@ @@`. Added (`+`) lines never carry an anchor. Create a file with
    ///    `--- /dev/null`, delete one with `+++ /dev/null`, rename with git's
    ///    `rename from` / `rename to`.
    /// 2. The Codex envelope: `*** Begin Patch`, then `*** Add File: path` (lines prefixed `+`),
    ///    `*** Delete File: path`, or `*** Update File: path` (optional `*** Move to: path`)
    ///    with `@@ [context]` chunks of ` `/`-`/`+` lines, and finally `*** End Patch`.
    ///
    /// Every context and removal line is verified; a hunk whose file drifted is searched for
    /// nearby. Each file applies entirely or not at all; other files of the patch still apply.
    pub patch: String,
}

/// Arguments of `diagnostics`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiagnosticsArgs {
    /// Workspace-relative paths of the files to check as they are on disk now, e.g.
    /// `["src/main.ts"]`. Nothing is edited.
    pub paths: Vec<String>,
}

/// Arguments of `propose_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProposeEditArgs {
    /// A patch to propose, in any format apply_patch reads (unified diff with or without
    /// `42abcd|` anchors, git diff, Codex `*** Begin Patch` envelope). Give either `patch`, or
    /// `pattern` + `replacement`.
    #[serde(default)]
    pub patch: Option<String>,
    /// A regular expression (Rust `regex` syntax) to replace in every file of `scope`.
    #[serde(default)]
    pub pattern: Option<String>,
    /// The replacement for `pattern`; `$1` or `${name}` refer to capture groups.
    #[serde(default)]
    pub replacement: Option<String>,
    /// Globs of the files `pattern` applies to, relative to the workspace root, e.g.
    /// `["backend/**/*.go"]`. Default: every file. .gitignored and binary files are skipped.
    #[serde(default)]
    pub scope: Vec<String>,
    /// base_sha each file is expected to have (the `base_sha` of read_file's structured
    /// result), e.g. `{"src/a.ts": "3f2a9c0b1d4e"}`; a file that differs is refused as
    /// `sha_mismatch`.
    #[serde(default)]
    pub base_shas: BTreeMap<String, String>,
}

/// Arguments of `apply_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyEditArgs {
    /// The `patch_id` propose_edit returned, e.g. `patch_1763900000000_1a2b3c4d5e6f708192a3b4c5d6e7f809`.
    pub patch_id: String,
    /// `mission_edit`: at most 3 files and 100 changed lines, no create/delete/rename, all or
    /// nothing. Explicit limits below override the preset's.
    #[serde(default)]
    pub preset: Option<String>,
    /// Refuse (`scope_violation`) when more files would change.
    #[serde(default, deserialize_with = "lenient::max_files")]
    pub max_files: Option<usize>,
    /// Refuse (`scope_violation`) when more lines would be added plus removed.
    #[serde(default, deserialize_with = "lenient::max_changed_lines")]
    pub max_changed_lines: Option<usize>,
    /// Refuse (`unsafe_diff`) a patch that creates a file.
    #[serde(default)]
    pub forbid_create: Option<bool>,
    /// Refuse (`unsafe_diff`) a patch that deletes a file.
    #[serde(default)]
    pub forbid_delete: Option<bool>,
    /// Refuse (`unsafe_diff`) a patch that renames a file.
    #[serde(default)]
    pub forbid_rename: Option<bool>,
    /// `per_file` (default: each file applies or not on its own) or `all_or_nothing` (any
    /// refused file → nothing is written).
    #[serde(default)]
    pub atomicity: Option<String>,
}

/// Arguments of `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UndoArgs {
    /// The `checkpoint_id` apply_edit returned. Refused as `stale_context` when a file changed
    /// since that apply.
    pub checkpoint_id: String,
}

impl ApplyEditArgs {
    /// The plan these arguments describe, or why they do not describe one.
    pub fn plan(&self) -> Result<ApplyPlan, String> {
        let mut plan = match self.preset.as_deref() {
            None => ApplyPlan::default(),
            Some("mission_edit") => ApplyPlan::mission_edit(),
            Some(other) => {
                return Err(format!(
                    "unknown preset `{other}`; the only preset is `mission_edit`"
                ));
            }
        };
        if self.max_files.is_some() {
            plan.max_files = self.max_files;
        }
        if self.max_changed_lines.is_some() {
            plan.max_changed_lines = self.max_changed_lines;
        }
        plan.forbid_create = self.forbid_create.unwrap_or(plan.forbid_create);
        plan.forbid_delete = self.forbid_delete.unwrap_or(plan.forbid_delete);
        plan.forbid_rename = self.forbid_rename.unwrap_or(plan.forbid_rename);
        match self.atomicity.as_deref() {
            None => {}
            Some("per_file") => plan.atomicity = Atomicity::PerFile,
            Some("all_or_nothing") => plan.atomicity = Atomicity::AllOrNothing,
            Some(other) => {
                return Err(format!(
                    "unknown atomicity `{other}`; use `per_file` or `all_or_nothing`"
                ));
            }
        }
        Ok(plan)
    }
}

impl ProposeEditArgs {
    /// The request these arguments describe, or why they do not describe one.
    pub fn request(self) -> Result<ProposeRequest, String> {
        let mut request = match (self.patch, self.pattern, self.replacement) {
            (Some(patch), None, None) => ProposeRequest::patch(patch),
            (None, Some(pattern), Some(replacement)) => {
                let scope: Vec<&str> = self.scope.iter().map(String::as_str).collect();
                ProposeRequest::regex(pattern, replacement, &scope)
            }
            (None, Some(_), None) => return Err("`pattern` needs a `replacement`".into()),
            _ => {
                return Err(
                    "give either `patch`, or `pattern` and `replacement` (not both)".into(),
                );
            }
        };
        request.expected_base_shas = self.base_shas;
        Ok(request)
    }
}

fn usage_error(text: String) -> ToolResult {
    let text = format!("Error: invalid arguments: {text}");
    ToolResult {
        reason: None,
        llm_content: text.clone(),
        display: text,
        files: Vec::new(),
        is_error: true,
        diagnostics: Vec::new(),
    }
}

/// Each tool's input and output schema, portable (see [`crate::schema`]).
fn tool_schemas(name: &str) -> Option<(Arc<JsonObject>, Arc<JsonObject>)> {
    Some(match name {
        "read_file" => (portable::<ReadFileArgs>(), portable::<ReadFileOutput>()),
        "edit" => (portable::<EditArgs>(), portable::<WriteOutput>()),
        "write_file" => (portable::<WriteFileArgs>(), portable::<WriteOutput>()),
        "apply_patch" => (portable::<ApplyPatchArgs>(), portable::<WriteOutput>()),
        "propose_edit" => (portable::<ProposeEditArgs>(), portable::<ProposeOutput>()),
        "apply_edit" => (portable::<ApplyEditArgs>(), portable::<ApplyEditOutput>()),
        "undo" => (portable::<UndoArgs>(), portable::<UndoOutput>()),
        "diagnostics" => (
            portable::<DiagnosticsArgs>(),
            portable::<DiagnosticsOutput>(),
        ),
        other => return crate::lsp_tools::tool_schemas(other),
    })
}

/// The lspedit MCP server over one [`Session`].
#[derive(Clone)]
pub struct LspeditServer {
    session: Arc<Session>,
    tool_router: ToolRouter<LspeditServer>,
}

impl std::fmt::Debug for LspeditServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspeditServer")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

/// A tool result as MCP: `llm_content` as the only text content, `isError` for refusals.
pub fn to_call_result(r: ToolResult) -> CallToolResult {
    let content = vec![ContentBlock::text(r.llm_content)];
    if r.is_error {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    }
}

/// A reply as MCP: [`to_call_result`] plus `structuredContent`.
fn reply_to_call_result(reply: Reply) -> CallToolResult {
    let mut result = to_call_result(reply.result);
    result.structured_content = Some(reply.structured);
    result
}

impl LspeditServer {
    pub fn new(session: Arc<Session>) -> LspeditServer {
        LspeditServer {
            session,
            tool_router: Self::router(),
        }
    }

    /// The tools with their portable input and output schemas.
    fn router() -> ToolRouter<LspeditServer> {
        let mut tool_router = Self::tool_router() + Self::lsp_tool_router();
        for route in tool_router.map.values_mut() {
            match tool_schemas(&route.attr.name) {
                Some((input, output)) => {
                    route.attr.input_schema = input;
                    route.attr.output_schema = Some(output);
                }
                None => tracing::error!(tool = %route.attr.name, "a tool without schemas"),
            }
        }
        tool_router
    }

    /// Runs a blocking tool call on tokio's blocking pool.
    pub(crate) async fn run<F>(&self, f: F) -> Result<CallToolResult, McpError>
    where
        F: FnOnce(&Session) -> Reply + Send + 'static,
    {
        let session = Arc::clone(&self.session);
        tokio::task::spawn_blocking(move || f(&session))
            .await
            .map(reply_to_call_result)
            .map_err(|e| McpError::internal_error(format!("the tool call failed: {e}"), None))
    }
}

#[tool_router]
impl LspeditServer {
    /// Read a file as a hashline view: one line per file line, `<line><hash>|<content>`, e.g.
    /// `42abcd|  return x;` (line 42, hash `abcd`, then the content verbatim). The `42abcd` part
    /// is the line's anchor: put it on the context and removal lines of apply_patch hunks so
    /// the edit lands exactly where you read it, even if the file shifted since. Use offset and
    /// limit for long files. Reading also starts the file's language server in the background.
    #[tool(annotations(read_only_hint = true))]
    async fn read_file(
        &self,
        Parameters(a): Parameters<ReadFileArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let r = s.tools().read_file(&a.path, a.offset, a.limit);
            let limit = a.limit.unwrap_or(s.tools().config().default_read_limit);
            let out = ReadFileOutput::new(&r, &a.path, a.offset.unwrap_or(1), limit);
            Reply::new(r, &out)
        })
        .await
    }

    /// Replace text in one file (search/replace). old_text must match exactly one place unless
    /// replace_all is set. Answers with the changed lines' fresh anchors and the language
    /// server's errors for the file. Refusals: `hunk_mismatch` (old_text not found: re-read the
    /// file), `ambiguous_match` (found in several places: add surrounding lines),
    /// `file_not_found`, `path_outside_workspace`, `binary_file`.
    #[tool(annotations(destructive_hint = true))]
    async fn edit(&self, Parameters(a): Parameters<EditArgs>) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let r = s.tools().edit(
                &a.path,
                &a.old_text,
                &a.new_text,
                a.replace_all.unwrap_or(false),
            );
            let out = WriteOutput::new(&r, Some(&a.path));
            Reply::new(r, &out)
        })
        .await
    }

    /// Create or overwrite a whole file. Answers with the language server's errors for the file
    /// and, when other files now have errors (e.g. their imports broke), up to 5 of them.
    /// Prefer apply_patch or edit for changes to existing files.
    #[tool(annotations(destructive_hint = true))]
    async fn write_file(
        &self,
        Parameters(a): Parameters<WriteFileArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let r = s.tools().write_file(&a.path, &a.content);
            let out = WriteOutput::new(&r, Some(&a.path));
            Reply::new(r, &out)
        })
        .await
    }

    /// Apply a patch (unified diff, git diff or Codex `*** Begin Patch` envelope; see the
    /// `patch` field) to one or more files. The result lists every file (`M path (2 hunks,
    /// moved +3)` or `FAILED path: reason: message`), the fresh anchors of every changed block,
    /// and one `LSP errors detected in <path>, please fix:` block per written file with errors.
    /// isError when any file was refused; refused files are untouched, the others applied.
    /// Reasons: `hunk_mismatch` (context/removal lines not found: re-read, resend with fresh
    /// anchors), `ambiguous_match` (two equally near places: anchor the hunk), `out_of_bounds`,
    /// `truncated_input` (the patch was cut off; nothing applied: resend it whole),
    /// `anchored_addition` (`+` lines must not carry anchors), `invalid_diff_format`,
    /// `file_not_found`, `file_exists`, `path_outside_workspace`, `binary_file`, `not_utf8`.
    #[tool(annotations(destructive_hint = true))]
    async fn apply_patch(
        &self,
        Parameters(a): Parameters<ApplyPatchArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let r = s.tools().apply_patch(&a.patch);
            let out = WriteOutput::new(&r, None);
            Reply::new(r, &out)
        })
        .await
    }

    /// Propose a change without making it: from a patch (any apply_patch format), or from a
    /// regex `pattern` + `replacement` over the files of `scope` (globs). Nothing is written;
    /// the answer has a `patch_id`, a summary (files scanned / matched, changes) and the unified
    /// diff to review. Apply it later with apply_edit(patch_id) — from this or another session.
    /// Refusals: `invalid_diff_format`, `empty_diff` (nothing would change), `sha_mismatch` (a
    /// base_sha you gave differs: re-read), `truncated_input`, `path_outside_workspace`.
    #[tool]
    async fn propose_edit(
        &self,
        Parameters(a): Parameters<ProposeEditArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| match a.request() {
            Ok(request) => {
                let a = s.propose_edit(&request);
                Reply::new(a.result, &ProposeOutput::from_outcome(&a.outcome))
            }
            Err(e) => Reply::new(usage_error(e), &ProposeOutput::refused(None)),
        })
        .await
    }

    /// Apply a proposed change by its patch_id, after re-checking that no file changed since it
    /// was proposed. Answers with each file's outcome, a `checkpoint_id` for undo, and the
    /// language servers' errors for the files written. Refusals (nothing written):
    /// `patch_not_found` (unknown id), `stale_context` (a file changed since the proposal:
    /// propose again), `scope_violation` (more files or lines than the limits), `unsafe_diff`
    /// (a forbidden create/delete/rename), `hunk_mismatch`.
    #[tool(annotations(destructive_hint = true))]
    async fn apply_edit(
        &self,
        Parameters(a): Parameters<ApplyEditArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| match a.plan() {
            Ok(plan) => {
                let answer = s.apply_edit(&a.patch_id, &plan);
                let out = ApplyEditOutput::from_outcome(&a.patch_id, &answer.outcome);
                Reply::new(answer.result, &out)
            }
            Err(e) => Reply::new(
                usage_error(e),
                &ApplyEditOutput::unavailable(&a.patch_id, None),
            ),
        })
        .await
    }

    /// Undo an apply_edit: restore every file it touched to its content before (deleting files
    /// it created). Refused as `stale_context` when a file changed after that apply.
    #[tool(annotations(destructive_hint = true))]
    async fn undo(&self, Parameters(a): Parameters<UndoArgs>) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let answer = s.undo(&a.checkpoint_id);
            let out = UndoOutput::from_outcome(&a.checkpoint_id, &answer.outcome);
            Reply::new(answer.result, &out)
        })
        .await
    }

    /// The language servers' current errors for files as they are on disk, without editing:
    /// per file the block `ERROR [line:col] message (code)` (TypeScript codes as `ts2322`,
    /// rustc's as `E0308`), or `no errors`, or why there are none (no server for the file
    /// type, server not installed, still starting: call again shortly).
    #[tool(annotations(read_only_hint = true))]
    async fn diagnostics(
        &self,
        Parameters(a): Parameters<DiagnosticsArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| {
            let answer = s.diagnostics_report(&a.paths);
            Reply::new(answer.result, &DiagnosticsOutput::new(&answer.outcome))
        })
        .await
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LspeditServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(SERVER_NAME, SERVER_VERSION)
                    .with_title("lspedit: anchored edits with language-server diagnostics"),
            )
            .with_instructions(INSTRUCTIONS)
    }
}

/// Errors of [`serve_stdio`].
#[derive(Debug)]
#[non_exhaustive]
pub enum ServeError {
    /// The client never completed `initialize`, or the transport failed.
    Initialize(String),
    /// The service stopped with an error.
    Run(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Initialize(m) => write!(f, "MCP initialization failed: {m}"),
            ServeError::Run(m) => write!(f, "MCP service failed: {m}"),
        }
    }
}

impl std::error::Error for ServeError {}

/// The environment variable that sets the largest message `lspedit mcp` reads, in bytes
/// (default [`DEFAULT_MAX_MESSAGE_BYTES`], 16 MiB).
pub const MAX_MESSAGE_BYTES_ENV: &str = "LSPEDIT_MCP_MAX_MESSAGE_BYTES";

/// The message size limit: [`MAX_MESSAGE_BYTES_ENV`] when it holds a positive number, else
/// the default (a bad value is logged, never fatal).
pub fn max_message_bytes() -> usize {
    match std::env::var(MAX_MESSAGE_BYTES_ENV) {
        Err(_) => DEFAULT_MAX_MESSAGE_BYTES,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => {
                tracing::warn!(
                    "{MAX_MESSAGE_BYTES_ENV}={v:?} is not a positive number of bytes; using {DEFAULT_MAX_MESSAGE_BYTES}"
                );
                DEFAULT_MAX_MESSAGE_BYTES
            }
        },
    }
}

/// Serves `session` over stdin/stdout until the client disconnects. Call it inside a tokio
/// runtime; stdout carries nothing but protocol messages. Messages over
/// [`max_message_bytes`] are answered with a JSON-RPC error, malformed ones with the
/// JSON-RPC error they call for (see [`LineTransport`]).
pub async fn serve_stdio(session: Arc<Session>) -> Result<(), ServeError> {
    let server = LspeditServer::new(session);
    let transport =
        LineTransport::new(tokio::io::stdin(), tokio::io::stdout(), max_message_bytes());
    let running = server
        .serve(transport)
        .await
        .map_err(|e| ServeError::Initialize(e.to_string()))?;
    let reason = running
        .waiting()
        .await
        .map_err(|e| ServeError::Run(e.to_string()))?;
    tracing::info!(?reason, "MCP client disconnected");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::portability_problems;

    #[test]
    fn every_tool_has_portable_input_and_output_schemas() {
        let tools = LspeditServer::router().list_all();
        assert_eq!(tools.len(), 13);
        for tool in tools {
            let input = serde_json::Value::Object(tool.input_schema.as_ref().clone());
            assert_eq!(
                portability_problems(&input),
                Vec::<String>::new(),
                "{}",
                tool.name
            );
            let output = tool
                .output_schema
                .as_ref()
                .map(|o| serde_json::Value::Object(o.as_ref().clone()));
            let output = output.unwrap_or_else(|| panic!("{} has no output schema", tool.name));
            assert_eq!(
                portability_problems(&output),
                Vec::<String>::new(),
                "{}",
                tool.name
            );
            assert_eq!(output["type"], "object", "{}", tool.name);
        }
    }
}
