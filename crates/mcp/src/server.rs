//! The MCP server: the agent tools as MCP tools, over stdio.
//!
//! Tool refusals (a hunk that does not match, a path outside the workspace, …) are results
//! with `isError: true` whose text is the tool's `llm_content`, so the model reads the reason
//! code and what to do. Every result, refusals included, also carries `structuredContent` of
//! the tool's declared `outputSchema` ([`crate::output`]); both schemas of every tool are
//! portable ([`crate::schema`]). Protocol errors are only for malformed requests: an unknown tool,
//! a broken message, and an argument the tool does not have (`-32602` naming it, so a
//! misspelled `maxFiles` is never silently ignored); an argument of the wrong type comes back
//! as an `isError` result naming the field (the MCP rule for input validation, as rmcp
//! implements it), so the model can correct itself. The tools block (file I/O, waiting for
//! language servers), so each call runs on tokio's blocking pool.
//!
//! `propose_edit` and `apply_edit` run under the operator's [`Policy`] (`docs/policy.md`): the
//! limits a model may only tighten, and who approves an apply (the call itself, the person
//! through MCP elicitation, or nobody).

use std::collections::BTreeMap;
use std::sync::Arc;

use lspedit_session::Session;
use lspedit_tools::ToolResult;
use lspedit_workflow::{ApplyStatus, ApprovalRequest, Callback, Deny};
use lspedit_workflow::{Approve, PlanRequest, Policy, ProposeRequest};
use lspedit_write::Reason;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientResult, ContentBlock,
    ElicitRequest, ElicitationAction, Implementation, JsonObject, ServerCapabilities, ServerConfig,
    ServerRequest,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{
    ErrorData as McpError, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
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
outline lists a file's symbols and find_symbol finds them by name or name path (`Cart/total`); \
replace_symbol_body, insert_before_symbol and insert_after_symbol change code by name path, \
applied and reported like apply_patch. \
hover, call_hierarchy, implementations and type_definition answer about a symbol named either \
way (path, line and text, or path and name_path). \
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
    /// Globs of the files `pattern` applies to, relative to the workspace root: one glob,
    /// e.g. `"backend/**/*.go"`, or a list, e.g. `["backend/**/*.go", "!backend/gen/**"]`.
    /// Default: every file. .gitignored and binary files are skipped.
    #[serde(default, deserialize_with = "lenient::scope")]
    #[schemars(schema_with = "crate::schema::string_or_list")]
    pub scope: Vec<String>,
    /// Change only this language's files, by extension: `go`, `rust`, `typescript`,
    /// `javascript`, `python`, `java`, `c`, `cpp`. With `pattern`, the scope's (or the
    /// workspace's) files of other languages are left out; a `patch` that touches another
    /// language's file is refused (`scope_violation`, naming the file).
    #[serde(default)]
    pub language: Option<String>,
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
    /// nothing (never more than the operator allows).
    #[serde(default)]
    pub preset: Option<String>,
    /// Refuse (`scope_violation`) when more files would change. Only tightens the operator's
    /// limit (default 3): a larger value is refused as `scope_violation` naming that limit.
    #[serde(default, deserialize_with = "lenient::max_files")]
    pub max_files: Option<usize>,
    /// Refuse (`scope_violation`) when more lines would be added plus removed. Only tightens
    /// the operator's limit (default 100).
    #[serde(default, deserialize_with = "lenient::max_changed_lines")]
    pub max_changed_lines: Option<usize>,
    /// Refuse (`unsafe_diff`) a patch that creates a file. The operator forbids it by default;
    /// `false` is refused (`scope_violation`) unless the operator allows creating files.
    #[serde(default)]
    pub forbid_create: Option<bool>,
    /// Refuse (`unsafe_diff`) a patch that deletes a file (forbidden by default, as create).
    #[serde(default)]
    pub forbid_delete: Option<bool>,
    /// Refuse (`unsafe_diff`) a patch that renames a file (forbidden by default, as create).
    #[serde(default)]
    pub forbid_rename: Option<bool>,
    /// Write every file or none (default true: one refused file and nothing is written).
    /// `false` applies each file on its own, unless the operator forbids per-file applies.
    #[serde(default)]
    pub all_or_nothing: Option<bool>,
    /// The same choice as a word: `all_or_nothing` (default) or `per_file`.
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
    /// What these arguments ask of the operator's [`Policy`] (which turns it into the plan, or
    /// refuses a looser one), or why they do not describe a request.
    pub fn request(&self) -> Result<PlanRequest, String> {
        let mission_edit = match self.preset.as_deref() {
            None => false,
            Some("mission_edit") => true,
            Some(other) => {
                return Err(format!(
                    "unknown preset `{other}`; the only preset is `mission_edit`"
                ));
            }
        };
        let atomicity = match self.atomicity.as_deref() {
            None => None,
            Some("per_file") => Some(false),
            Some("all_or_nothing") => Some(true),
            Some(other) => {
                return Err(format!(
                    "unknown atomicity `{other}`; use `all_or_nothing` (the default) or `per_file`"
                ));
            }
        };
        let all_or_nothing = match (self.all_or_nothing, atomicity) {
            (Some(a), Some(b)) if a != b => {
                return Err(format!(
                    "`all_or_nothing: {a}` and `atomicity: {}` disagree; give one of them",
                    self.atomicity.as_deref().unwrap_or_default()
                ));
            }
            (a, b) => a.or(b),
        };
        Ok(PlanRequest {
            mission_edit,
            max_files: self.max_files,
            max_changed_lines: self.max_changed_lines,
            forbid_create: self.forbid_create,
            forbid_delete: self.forbid_delete,
            forbid_rename: self.forbid_rename,
            all_or_nothing,
        })
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
        request.language = self.language;
        Ok(request)
    }
}

/// `r` with the late answers to earlier timed-out checks in front, as every result has them.
fn late_first(session: &Session, mut r: ToolResult) -> ToolResult {
    r.llm_content = session.with_late_feedback(&r.llm_content);
    r
}

/// A refusal with `reason` whose text the model reads is `text`.
fn refusal(reason: Reason, text: String) -> ToolResult {
    ToolResult {
        reason: Some(reason),
        ..ToolResult::text(text.clone(), text, true)
    }
}

fn usage_error(text: String) -> ToolResult {
    let text = format!("Error: invalid arguments: {text}");
    ToolResult::text(text.clone(), text, true)
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
        other => {
            return crate::lsp_tools::tool_schemas(other)
                .or_else(|| crate::lookup_tools::tool_schemas(other));
        }
    })
}

/// The lspedit MCP server over one [`Session`], under the operator's [`Policy`].
#[derive(Clone)]
pub struct LspeditServer {
    session: Arc<Session>,
    policy: Arc<Policy>,
    tool_router: ToolRouter<LspeditServer>,
}

impl std::fmt::Debug for LspeditServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspeditServer")
            .field("session", &self.session)
            .field("policy", &self.policy)
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
    /// The server under the default policy (the seeds' limits; see [`Policy::default`]).
    pub fn new(session: Arc<Session>) -> LspeditServer {
        LspeditServer {
            session,
            policy: Arc::new(Policy::default()),
            tool_router: Self::router(),
        }
    }

    /// The server under the operator's `policy` (`lspedit mcp` flags and config).
    pub fn with_policy(mut self, policy: Policy) -> LspeditServer {
        self.policy = Arc::new(policy);
        self
    }

    /// The policy `apply_edit` runs under.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The tools with their portable input and output schemas.
    fn router() -> ToolRouter<LspeditServer> {
        let mut tool_router =
            Self::tool_router() + Self::lsp_tool_router() + Self::lookup_tool_router();
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
            let out = ReadFileOutput::new(&r, &a.path);
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
    /// `file_not_found`, `file_exists`, `already_applied` (the change is already in place, e.g. a
    /// retried patch: nothing written), `path_outside_workspace`, `binary_file`, `not_utf8`.
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
    /// regex `pattern` + `replacement` over the files of `scope` (one glob or a list), kept to
    /// one `language`'s files when given. Nothing is written;
    /// the answer has a `patch_id`, a summary (files scanned / matched, changes) and the unified
    /// diff to review. Apply it later with apply_edit(patch_id) — from this or another session.
    /// Refusals: `invalid_diff_format`, `empty_diff` (nothing would change), `sha_mismatch` (a
    /// base_sha you gave differs: re-read), `truncated_input`, `path_outside_workspace`,
    /// `scope_violation` (the patch touches a file outside `language`).
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
    /// was proposed: every file or none (unless all_or_nothing is false). The person running
    /// lspedit may have to approve it first (they are asked through the client). Answers with
    /// each file's outcome, a `checkpoint_id` for undo, and the language servers' errors for
    /// the files written. Refusals (nothing written): `patch_not_found` (unknown id),
    /// `stale_context` (a file changed since the proposal: propose again), `scope_violation`
    /// (more files or lines than the operator's limits, 3 and 100 by default, or a limit
    /// argument looser than them), `unsafe_diff` (a forbidden create/delete/rename),
    /// `hunk_mismatch`, `approval_required` (a person must approve and this client cannot ask
    /// one); `rejected` when the person (or the operator's policy) said no.
    #[tool(annotations(destructive_hint = true))]
    async fn apply_edit(
        &self,
        Parameters(a): Parameters<ApplyEditArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let plan = match a.request() {
            Ok(request) => self.policy.plan(&request),
            Err(e) => {
                let out = ApplyEditOutput::unavailable(&a.patch_id, None);
                return self.run(move |_| Reply::new(usage_error(e), &out)).await;
            }
        };
        let plan = match plan {
            Ok(plan) => plan,
            Err(e) => {
                let out = ApplyEditOutput::unavailable(&a.patch_id, Some(e.reason));
                let r = refusal(e.reason, format!("Error: {e}\nNothing was applied."));
                return self.run(move |s| Reply::new(late_first(s, r), &out)).await;
            }
        };
        let can_elicit = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some());
        let approve = self.policy.approve;
        let approval = match (approve, can_elicit) {
            (Approve::Auto, _) | (Approve::ElicitIfSupported, false) => Approval::Auto,
            (Approve::Deny, _) => Approval::Deny,
            (Approve::Elicit | Approve::ElicitIfSupported, true) => {
                Approval::Elicit(context.peer.clone(), tokio::runtime::Handle::current())
            }
            (Approve::Elicit, false) => {
                let text = format!(
                    "Error: approval_required: the operator's policy (approve = \"elicit\") asks the person to approve every apply_edit, and this MCP client cannot ask one (it did not declare the `elicitation` capability). Nothing was applied. Ask the user to apply it themselves: `lspedit apply-id {}`.",
                    a.patch_id
                );
                let r = refusal(Reason::ApprovalRequired, text);
                let out = ApplyEditOutput::unavailable(&a.patch_id, Some(Reason::ApprovalRequired));
                return self.run(move |s| Reply::new(late_first(s, r), &out)).await;
            }
        };
        self.run(move |s| {
            let mut answer = match approval {
                Approval::Auto => s.apply_edit(&a.patch_id, &plan),
                Approval::Deny => s.apply_edit_with(&a.patch_id, &plan, &Deny),
                Approval::Elicit(peer, handle) => {
                    let ask = Callback(move |request: &ApprovalRequest<'_>| {
                        elicit_approval(&peer, &handle, request)
                    });
                    s.apply_edit_with(&a.patch_id, &plan, &ask)
                }
            };
            let rejected = matches!(&answer.outcome, Ok(o) if o.status == ApplyStatus::Rejected);
            if approve == Approve::Deny && rejected {
                answer.result.llm_content.push_str(
                    " The operator's policy (approve = \"deny\") refuses every apply_edit over MCP: the user applies proposals with `lspedit apply-id`.",
                );
            }
            let out = ApplyEditOutput::from_outcome(&a.patch_id, &answer.outcome);
            Reply::new(answer.result, &out)
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

/// The operator's policy in a sentence for the model: what `apply_edit` may do in this
/// session (so it proposes changes that fit instead of learning the limits from refusals).
fn policy_sentence(policy: &Policy) -> String {
    let forbidden: Vec<&str> = policy
        .forbidden()
        .iter()
        .map(|o| match o {
            lspedit_workflow::Operation::Create => "creating files",
            lspedit_workflow::Operation::Delete => "deleting files",
            lspedit_workflow::Operation::Rename => "renaming files",
            lspedit_workflow::Operation::PerFile => "per-file applies",
        })
        .collect();
    let forbidden = if forbidden.is_empty() {
        String::new()
    } else {
        format!(", and forbids {}", forbidden.join(", "))
    };
    let approval = match policy.approve {
        Approve::Auto => "",
        Approve::ElicitIfSupported => " The user may be asked to approve each apply_edit.",
        Approve::Elicit => " The user is asked to approve each apply_edit.",
        Approve::Deny => " apply_edit is refused in this session: the user applies proposals.",
    };
    format!(
        "The user running lspedit limits each apply_edit to {} files and {} changed lines{forbidden}; apply_edit writes every file or none (your limit arguments may only be stricter).{approval}",
        policy.max_files, policy.max_changed_lines
    )
}

/// How one `apply_edit` is approved.
enum Approval {
    /// The call approves (the workflow's own approver).
    Auto,
    /// Nobody may approve: rejected.
    Deny,
    /// The person, through an MCP elicitation sent to the client on the session's runtime.
    Elicit(Peer<RoleServer>, tokio::runtime::Handle),
}

/// The longest diff shown in an approval request; past it the person is told how to see the
/// whole diff.
const MAX_ELICIT_DIFF_BYTES: usize = 16 * 1024;

/// Asks the person, through the client (`elicitation/create`), whether `request`'s diff may be
/// applied: `accept` approves; `decline`, `cancel` or a failed request rejects. Runs on the
/// apply's blocking thread and waits on the runtime for the answer.
fn elicit_approval(
    peer: &Peer<RoleServer>,
    handle: &tokio::runtime::Handle,
    request: &ApprovalRequest<'_>,
) -> bool {
    let mut diff = request.diff.trim_end().to_string();
    if diff.len() > MAX_ELICIT_DIFF_BYTES {
        let mut cut = MAX_ELICIT_DIFF_BYTES;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str(
            "\n... (diff cut; the whole diff is in propose_edit's result and `.lspedit/evidence/`)",
        );
    }
    let message = format!(
        "Apply {} to {}? {}\n\n{diff}",
        request.patch_id,
        request.files.join(", "),
        request.summary
    );
    let params = serde_json::from_value(serde_json::json!({
        "mode": "form",
        "message": message,
        "requestedSchema": { "type": "object", "properties": {} },
    }));
    let params = match params {
        Ok(p) => p,
        Err(e) => {
            tracing::error!("cannot build the approval request: {e}");
            return false;
        }
    };
    let asked = handle
        .block_on(peer.send_request(ServerRequest::ElicitRequest(ElicitRequest::new(params))));
    match asked {
        Ok(ClientResult::ElicitResult(answer)) => {
            tracing::info!(patch = %request.patch_id, action = ?answer.action, "approval answered");
            answer.action == ElicitationAction::Accept
        }
        Ok(other) => {
            tracing::warn!(
                ?other,
                "the client answered the approval request with something else"
            );
            false
        }
        Err(e) => {
            tracing::warn!("the approval request failed: {e}");
            false
        }
    }
}

/// `-32602` for an argument `tool` does not have (by its input schema), naming it and, when
/// the name differs only in case or `_`, the one meant (`maxFiles` → `max_files`).
fn unknown_argument(tool: &str, schema: &JsonObject, arguments: &JsonObject) -> Option<McpError> {
    let known: Vec<&str> = schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|p| p.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let unknown: Vec<&str> = arguments
        .keys()
        .map(String::as_str)
        .filter(|k| !known.contains(k))
        .collect();
    let first = unknown.first()?;
    let fold = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let meant = known
        .iter()
        .find(|k| fold(k) == fold(first))
        .map(|k| format!("; did you mean `{k}`?"))
        .unwrap_or_default();
    let names = unknown
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    Some(McpError::invalid_params(
        format!(
            "Invalid params: unknown argument {names} for tool `{tool}`{meant} Its arguments are: {}. Nothing was done.",
            known.join(", ")
        ),
        Some(serde_json::json!({ "unknown_arguments": unknown, "tool": tool })),
    ))
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for LspeditServer {
    /// Every argument must be one the tool has: an unknown one (a misspelling, an option of
    /// another tool) is refused as `-32602` before the tool runs, never silently ignored.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if let (Some(tool), Some(arguments)) =
            (self.tool_router.get(&request.name), &request.arguments)
            && let Some(e) = unknown_argument(&request.name, &tool.input_schema, arguments)
        {
            return Err(e);
        }
        let tcc = ToolCallContext::new(self, request, context);
        self.tool_router.call(tcc).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(SERVER_NAME, SERVER_VERSION)
                    .with_title("lspedit: anchored edits with language-server diagnostics"),
            )
            .with_instructions(format!("{INSTRUCTIONS} {}", policy_sentence(&self.policy)))
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
    serve_stdio_with(LspeditServer::new(session)).await
}

/// [`serve_stdio`] for a server built by the caller (with the operator's policy:
/// [`LspeditServer::with_policy`]).
pub async fn serve_stdio_with(server: LspeditServer) -> Result<(), ServeError> {
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
        assert_eq!(tools.len(), 22);
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
