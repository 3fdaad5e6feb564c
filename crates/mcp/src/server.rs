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

use std::collections::BTreeSet;
use std::sync::Arc;

use lspedit_session::Session;
use lspedit_tools::ToolResult;
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, ApprovalRequest, Approver, AutoApprove, Callback, Deny, PolicyGate,
};
use lspedit_workflow::{
    Approve, ContextError, ContextRequest, ExcerptFocus, IdError, PlanRequest, Policy,
    ProposeRequest, StepIdArg,
};
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
use crate::profile::{SchemaProfile, ToolSet, instructions, tools_of};
use crate::schema::{lenient, make_strict, tool_schema_pair};
use crate::transport::{DEFAULT_MAX_MESSAGE_BYTES, LineTransport};

/// The name the server announces in `initialize`.
pub const SERVER_NAME: &str = "lspedit";
/// The version the server announces in `initialize` (the crate's version).
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Arguments of `read_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadFileArgs {
    pub path: String,
    /// First line, 1-based (default 1).
    #[serde(default, deserialize_with = "lenient::offset")]
    pub offset: Option<usize>,
    /// Lines to show (default 2000).
    #[serde(default, deserialize_with = "lenient::limit")]
    pub limit: Option<usize>,
}

/// Arguments of `edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    pub path: String,
    /// Text to replace, WITHOUT the `42abcd|` anchors, with enough lines to be unique.
    /// Differences in whitespace, indentation or unicode punctuation are tolerated when the
    /// match stays unique and spans as many lines.
    pub old_text: String,
    pub new_text: String,
    /// Replace every match (default false: several matches are ambiguous_match).
    #[serde(default)]
    pub replace_all: Option<bool>,
}

/// Arguments of `write_file`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteFileArgs {
    pub path: String,
    /// The whole new content.
    pub content: String,
}

/// Arguments of `apply_patch`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyPatchArgs {
    /// A unified diff (`--- a/path`, `+++ b/path`, `@@ -12,3 +12,4 @@` hunks; context and
    /// removal lines should carry anchors, ` 43efgh|ctx`, `-42abcd|old text`, and then `@@ @@`
    /// suffices; `+` lines never do; create with `--- /dev/null`, delete with `+++ /dev/null`,
    /// rename with git's `rename from`/`rename to`), or a Codex envelope: `*** Begin Patch`,
    /// `*** Add File: path` (`+` lines), `*** Delete File: path` or `*** Update File: path`
    /// (optional `*** Move to: path`) with `@@` chunks of ` `/`-`/`+` lines, `*** End Patch`.
    pub patch: String,
}

/// Arguments of `diagnostics`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiagnosticsArgs {
    /// Files to check, e.g. `["src/main.ts"]`.
    pub paths: Vec<String>,
}

/// Arguments of `propose_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProposeEditArgs {
    /// A patch in any format apply_patch reads. Give `patch`, or `pattern` and `replacement`.
    #[serde(default)]
    pub patch: Option<String>,
    /// A regular expression (Rust `regex` syntax) to replace in the files of `scope`.
    #[serde(default)]
    pub pattern: Option<String>,
    /// `$1` or `${name}` refer to capture groups.
    #[serde(default)]
    pub replacement: Option<String>,
    /// The files `pattern` applies to: a glob, e.g. `"backend/**/*.go"`, or a list, e.g.
    /// `["backend/**/*.go", "!backend/gen/**"]` (default every file; .gitignored and binary
    /// files are skipped).
    #[serde(default, deserialize_with = "lenient::scope")]
    #[schemars(schema_with = "crate::schema::string_or_list")]
    pub scope: Vec<String>,
    /// Only this language's files (`go`, `rust`, `typescript`, `javascript`, `python`, `java`,
    /// `c`, `cpp`): other files are left out of `pattern`; a `patch` touching one is
    /// scope_violation.
    #[serde(default)]
    pub language: Option<String>,
    /// The base_sha each file must still have (read_file's structured `base_sha`), else
    /// sha_mismatch.
    #[serde(default, deserialize_with = "lenient::base_shas")]
    pub base_shas: Vec<BaseShaArg>,
    /// Your task's id (1-64 letters, digits, `-`); with step_id it names the evidence.
    #[serde(default)]
    pub task_id: Option<String>,
    /// This step's id (1-64 letters, digits, `-`): names the step's events and evidence.
    #[serde(default)]
    pub step_id: Option<String>,
    /// Files you read for this change, most relevant first: their excerpts are kept as
    /// evidence.
    #[serde(default, deserialize_with = "lenient::context_files")]
    pub context_files: Vec<String>,
    /// Words whose lines the excerpts show.
    #[serde(default, deserialize_with = "lenient::context_keywords")]
    pub context_keywords: Vec<String>,
    /// Lines of context files to show first (1-based, inclusive).
    #[serde(default, deserialize_with = "lenient::context_focus")]
    pub context_focus: Vec<FocusArg>,
}

// Lines of a file in `propose_edit`'s `context_focus` (no doc comment: it would be sent as the
// schema's description on every turn, and the field's says it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct FocusArg {
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// One file's expected base_sha in `propose_edit`'s `base_shas`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct BaseShaArg {
    pub path: String,
    pub sha: String,
}

/// Arguments of `apply_edit`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ApplyEditArgs {
    pub patch_id: String,
    /// `mission_edit`: at most 3 files and 100 changed lines, no create/delete/rename, all or
    /// nothing.
    #[serde(default)]
    pub preset: Option<String>,
    /// Refuse (scope_violation) when more files would change.
    #[serde(default, deserialize_with = "lenient::max_files")]
    pub max_files: Option<usize>,
    /// Refuse (scope_violation) when more lines would be added plus removed.
    #[serde(default, deserialize_with = "lenient::max_changed_lines")]
    pub max_changed_lines: Option<usize>,
    /// Refuse (unsafe_diff) a patch that creates a file.
    #[serde(default)]
    pub forbid_create: Option<bool>,
    /// Refuse (unsafe_diff) a patch that deletes a file.
    #[serde(default)]
    pub forbid_delete: Option<bool>,
    /// Refuse (unsafe_diff) a patch that renames a file.
    #[serde(default)]
    pub forbid_rename: Option<bool>,
    /// Every file or none (default true); false applies each file on its own.
    #[serde(default)]
    pub all_or_nothing: Option<bool>,
    /// The same as a word: `all_or_nothing` or `per_file`.
    #[serde(default)]
    pub atomicity: Option<String>,
}

/// Arguments of `undo`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct UndoArgs {
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
    /// The request these arguments describe and the context it names (`None`: none), or why
    /// they do not describe one: an id that cannot name files, or a focus range that is not
    /// one, is refused here, naming the argument, before anything is read or stored.
    pub fn request(self) -> Result<(ProposeRequest, Option<ContextRequest>), String> {
        let context = ContextRequest {
            files: self.context_files,
            keywords: self.context_keywords,
            focus: self
                .context_focus
                .into_iter()
                .map(|f| ExcerptFocus {
                    path: f.path,
                    start_line: f.start_line,
                    end_line: f.end_line,
                })
                .collect(),
        };
        if let Err(e) = context.check() {
            let arg = match e {
                ContextError::NoFiles => "context_keywords",
                _ => "context_focus",
            };
            return Err(format!("`{arg}`: {e}"));
        }
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
        request.expected_base_shas = self
            .base_shas
            .into_iter()
            .map(|b| (b.path, b.sha))
            .collect();
        request.language = self.language;
        request.task_id = self.task_id;
        request.step_id = self.step_id;
        if let Err(e) = request.check_ids() {
            let arg = match &e {
                IdError::Invalid {
                    arg: StepIdArg::Task,
                    ..
                } => "task_id",
                IdError::Invalid { .. } => "step_id",
                _ => "task_id",
            };
            let hint = match e {
                IdError::Invalid { .. } => "; use letters, digits and `-`, e.g. `task-7`",
                _ => "; give `step_id` too",
            };
            return Err(format!("`{arg}`: {e}{hint}"));
        }
        Ok((request, (!context.is_empty()).then_some(context)))
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
        "read_file" => tool_schema_pair::<ReadFileArgs, ReadFileOutput>(),
        "edit" => tool_schema_pair::<EditArgs, WriteOutput>(),
        "write_file" => tool_schema_pair::<WriteFileArgs, WriteOutput>(),
        "apply_patch" => tool_schema_pair::<ApplyPatchArgs, WriteOutput>(),
        "propose_edit" => tool_schema_pair::<ProposeEditArgs, ProposeOutput>(),
        "apply_edit" => tool_schema_pair::<ApplyEditArgs, ApplyEditOutput>(),
        "undo" => tool_schema_pair::<UndoArgs, UndoOutput>(),
        "diagnostics" => tool_schema_pair::<DiagnosticsArgs, DiagnosticsOutput>(),
        other => {
            return crate::lsp_tools::tool_schemas(other)
                .or_else(|| crate::lookup_tools::tool_schemas(other));
        }
    })
}

/// The lspedit MCP server over one [`Session`], under the operator's [`Policy`], listing
/// the tools of its [`ToolSet`]s with input schemas of its [`SchemaProfile`].
#[derive(Clone)]
pub struct LspeditServer {
    session: Arc<Session>,
    policy: Arc<Policy>,
    tools: BTreeSet<&'static str>,
    profile: SchemaProfile,
    tool_router: ToolRouter<LspeditServer>,
}

impl std::fmt::Debug for LspeditServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LspeditServer")
            .field("session", &self.session)
            .field("policy", &self.policy)
            .field("tools", &self.tools)
            .field("profile", &self.profile)
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
    /// Every tool ([`ToolSet::All`]) with the default schemas ([`SchemaProfile::Default`]).
    pub fn new(session: Arc<Session>) -> LspeditServer {
        LspeditServer {
            session,
            policy: Arc::new(Policy::default()),
            tools: tools_of(&[ToolSet::All]),
            profile: SchemaProfile::Default,
            tool_router: Self::router(),
        }
    }

    /// The server listing only the tools of `sets` (their union; each includes
    /// [`ToolSet::Core`]; none is [`ToolSet::All`]). A tool not listed cannot be called.
    pub fn with_tools(mut self, sets: &[ToolSet]) -> LspeditServer {
        self.tools = tools_of(sets);
        self.tool_router = Self::routes(&self.tools, self.profile);
        self
    }

    /// The server with input schemas of `profile`.
    pub fn with_schema_profile(mut self, profile: SchemaProfile) -> LspeditServer {
        self.profile = profile;
        self.tool_router = Self::routes(&self.tools, self.profile);
        self
    }

    /// The tools listed, by name.
    pub fn tools(&self) -> &BTreeSet<&'static str> {
        &self.tools
    }

    /// The listed tools (name, description, schemas), as `tools/list` gives them.
    pub fn list_tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// The routes of `tools`, their input schemas in `profile`.
    pub(crate) fn routes(
        tools: &BTreeSet<&'static str>,
        profile: SchemaProfile,
    ) -> ToolRouter<LspeditServer> {
        let mut router = Self::router();
        let names: Vec<String> = router.map.keys().map(|k| k.to_string()).collect();
        for name in names {
            if !tools.iter().any(|t| *t == name) {
                router.remove_route(&name);
            }
        }
        if profile == SchemaProfile::Strict {
            for route in router.map.values_mut() {
                let mut input = serde_json::Value::Object(route.attr.input_schema.as_ref().clone());
                make_strict(&mut input);
                if let serde_json::Value::Object(map) = input {
                    route.attr.input_schema = Arc::new(map);
                }
            }
        }
        router
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

    /// Every tool with its portable input and output schemas.
    pub(crate) fn router() -> ToolRouter<LspeditServer> {
        let mut tool_router =
            Self::tool_router() + Self::lsp_tool_router() + Self::lookup_tool_router();
        for route in tool_router.map.values_mut() {
            match tool_schemas(&route.attr.name) {
                Some((mut input, output)) => {
                    // The arguments struct's doc ("Arguments of `edit`.") tells a model nothing
                    // the tool's description does not, and costs it every turn.
                    Arc::make_mut(&mut input).remove("description");
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
    /// Read a file as anchored lines, `42abcd|<content>`. Use it before changing a file, and
    /// offset/limit to page through a long one. Returns the lines, saying when more follow.
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

    /// Replace text in one existing file: old_text must match one place, or every place with
    /// replace_all. Use it for a small change when you know the exact text. Returns the
    /// outcome, the changed lines' anchors and the file's errors.
    #[tool(annotations(destructive_hint = true))]
    async fn edit(
        &self,
        Parameters(a): Parameters<EditArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("edit", &context);
        self.run(move |s| {
            let r = writes.judge(|gate| {
                s.tools().gated(gate.map(|g| g as _)).edit(
                    &a.path,
                    &a.old_text,
                    &a.new_text,
                    a.replace_all.unwrap_or(false),
                )
            });
            let out = WriteOutput::new(&r, Some(&a.path));
            Reply::new(r, &out)
        })
        .await
    }

    /// Create a file, or replace all of one (parent directories are created). Use it for new
    /// files; change existing ones with apply_patch or edit. Returns the outcome and errors.
    #[tool(annotations(destructive_hint = true))]
    async fn write_file(
        &self,
        Parameters(a): Parameters<WriteFileArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("write_file", &context);
        self.run(move |s| {
            let r = writes.judge(|gate| {
                s.tools()
                    .gated(gate.map(|g| g as _))
                    .write_file(&a.path, &a.content)
            });
            let out = WriteOutput::new(&r, Some(&a.path));
            Reply::new(r, &out)
        })
        .await
    }

    /// Apply a patch to one or more files. Use it for multi-line or multi-file changes, with
    /// anchors from read_file. Returns per file `M path (2 hunks)` or `FAILED path: reason:
    /// message`, fresh anchors and errors; isError when a file was refused (the others apply).
    /// Also: out_of_bounds, anchored_addition (`+` lines carry no anchor), invalid_diff_format.
    #[tool(annotations(destructive_hint = true))]
    async fn apply_patch(
        &self,
        Parameters(a): Parameters<ApplyPatchArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("apply_patch", &context);
        self.run(move |s| {
            let r =
                writes.judge(|gate| s.tools().gated(gate.map(|g| g as _)).apply_patch(&a.patch));
            let out = WriteOutput::new(&r, None);
            Reply::new(r, &out)
        })
        .await
    }

    /// Propose a change without making it, from a patch or a regex over files. Use it when the
    /// change should be reviewed, or is a rename-like replacement across many files. Returns a
    /// patch_id, a summary and the diff; nothing is written. Refusals: empty_diff,
    /// sha_mismatch, invalid_diff_format, scope_violation.
    #[tool]
    async fn propose_edit(
        &self,
        Parameters(a): Parameters<ProposeEditArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.run(move |s| match a.request() {
            Ok((mut request, context)) => {
                if let Some(context) = context {
                    request = request.with_context(context.select(s.tools().workspace()));
                }
                let a = s.propose_edit(&request);
                Reply::new(a.result, &ProposeOutput::from_outcome(&a.outcome))
            }
            Err(e) => Reply::new(usage_error(e), &ProposeOutput::refused(None)),
        })
        .await
    }

    /// Apply a proposal by patch_id, after checking no file changed since (else
    /// stale_context: propose again); a person may be asked to approve. Use it once the
    /// diff is right. Returns each file's
    /// outcome, a checkpoint_id for undo, and errors. Refusals: patch_not_found,
    /// scope_violation (over the limits), unsafe_diff, approval_required; status `rejected`
    /// when the person said no.
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
        let approve = self.policy.approve;
        let approval = match Approval::of(approve, &context) {
            Some(approval) => approval,
            None => {
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
            let mut answer =
                approval.asking(|approver| s.apply_edit_with(&a.patch_id, &plan, approver));
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

    /// Undo an apply_edit by its checkpoint_id: restores every file it touched (deleting the
    /// ones it created). Use it when an applied change was wrong. Returns the files
    /// restored; stale_context if one changed since.
    #[tool(annotations(destructive_hint = true))]
    async fn undo(
        &self,
        Parameters(a): Parameters<UndoArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, McpError> {
        let writes = self.writes("undo", &context);
        self.run(move |s| {
            let answer = writes.judge(|gate| s.undo_gated(&a.checkpoint_id, gate.map(|g| g as _)));
            let out = UndoOutput::from_outcome(&a.checkpoint_id, &answer.outcome);
            Reply::new(answer.result, &out)
        })
        .await
    }

    /// The language servers' errors for files as they are on disk. Use it to check files you
    /// did not just write. Returns per file the errors block, `no errors`, or why there are
    /// none (e.g. still starting: call again shortly).
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

impl LspeditServer {
    /// The server instructions: the tools' conventions, the workflow's policy when
    /// `apply_edit` is listed, and what binds the direct writers when the operator set it.
    fn instructions(&self) -> String {
        let mut text = instructions(&self.tools, &policy_sentence(&self.policy));
        if let Some(w) = writers_sentence(&self.policy) {
            text.push(' ');
            text.push_str(&w);
        }
        text
    }
}

/// What the operator set over the tools that write directly, in a sentence for the model
/// (`None` when nothing binds them): so it works within the limits instead of learning them
/// from refusals.
fn writers_sentence(policy: &Policy) -> Option<String> {
    if !policy.binds_writers() {
        return None;
    }
    let plan = policy.writer_plan();
    let mut rules = Vec::new();
    if let Some(n) = plan.max_files {
        rules.push(format!("at most {n} files per call"));
    }
    if let Some(n) = plan.max_changed_lines {
        rules.push(format!("at most {n} changed lines per call"));
    }
    for (forbidden, what) in [
        (plan.forbid_create, "no creating files"),
        (plan.forbid_delete, "no deleting files"),
        (plan.forbid_rename, "no renaming files"),
    ] {
        if forbidden {
            rules.push(what.to_string());
        }
    }
    match policy.writer_approve() {
        Approve::Elicit => rules.push("the user approves each write".into()),
        Approve::Deny => rules.push("every write is refused: the user makes changes".into()),
        Approve::Auto | Approve::ElicitIfSupported => {}
    }
    Some(format!(
        "The user running lspedit also binds every tool that writes (edit, write_file, apply_patch, undo, the symbol edits): {}.",
        rules.join(", ")
    ))
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

/// How the writes of one tool call outside the workflow (`edit`, `write_file`, `apply_patch`,
/// `undo`, the language-server edits) are judged: by what the operator set
/// ([`Policy::writer_plan`], [`Policy::writer_approve`]) and who approves (`docs/policy.md`).
pub(crate) struct Writes {
    tool: &'static str,
    /// `None`: nothing the operator set binds these writers.
    plan: Option<ApplyPlan>,
    approval: Approval,
    /// Why a write the approver refused was not made, for the model.
    declined: String,
}

impl LspeditServer {
    /// The operator's judgement over `tool`'s writes in this call.
    pub(crate) fn writes(
        &self,
        tool: &'static str,
        context: &RequestContext<RoleServer>,
    ) -> Writes {
        let policy = &self.policy;
        if !policy.binds_writers() {
            return Writes {
                tool,
                plan: None,
                approval: Approval::Auto,
                declined: String::new(),
            };
        }
        let (approval, declined) = match Approval::of(policy.writer_approve(), context) {
            Some(Approval::Auto) => (Approval::Auto, String::new()),
            Some(Approval::Deny) => (
                Approval::Deny,
                format!(
                    "the operator's policy (approve = \"deny\") refuses every change a model makes in this session, {tool} included; nothing was written. The user makes changes themselves (a proposal with `lspedit apply-id`)."
                ),
            ),
            Some(elicit @ Approval::Elicit(..)) => (
                elicit,
                format!(
                    "the user declined this {tool}; nothing was written. Ask them what they want changed."
                ),
            ),
            // An explicit `elicit` and a client that cannot ask: refused, never approved.
            None => (
                Approval::Deny,
                format!(
                    "the operator's policy (approve = \"elicit\") asks the person to approve every change, {tool} included, and this MCP client cannot ask one (it did not declare the `elicitation` capability); nothing was written. Ask the user to make the change, or to apply a proposal with `lspedit apply-id`."
                ),
            ),
        };
        Writes {
            tool,
            plan: Some(policy.writer_plan()),
            approval,
            declined,
        }
    }
}

impl Writes {
    /// Runs `f` with the gate of this call's writes (`None` when nothing binds them), on the
    /// call's blocking thread.
    pub(crate) fn judge<R>(&self, f: impl FnOnce(Option<&PolicyGate<'_>>) -> R) -> R {
        let Some(plan) = &self.plan else {
            return f(None);
        };
        self.approval.asking(|approver| {
            let gate = PolicyGate::new(self.tool, plan.clone(), approver, self.declined.clone());
            f(Some(&gate))
        })
    }
}

/// How one apply is approved.
enum Approval {
    /// The call approves (the workflow's own approver).
    Auto,
    /// Nobody may approve: rejected.
    Deny,
    /// The person, through an MCP elicitation sent to the client on the session's runtime.
    Elicit(Peer<RoleServer>, tokio::runtime::Handle),
}

impl Approval {
    /// Who approves under `approve` for the client of `context`; `None` when the operator
    /// asked for a person (`elicit`) and this client cannot ask one (it did not declare the
    /// `elicitation` capability): refused, never approved.
    fn of(approve: Approve, context: &RequestContext<RoleServer>) -> Option<Approval> {
        let can_elicit = context
            .peer
            .peer_info()
            .is_some_and(|info| info.capabilities.elicitation.is_some());
        match (approve, can_elicit) {
            (Approve::Auto, _) | (Approve::ElicitIfSupported, false) => Some(Approval::Auto),
            (Approve::Deny, _) => Some(Approval::Deny),
            (Approve::Elicit | Approve::ElicitIfSupported, true) => Some(Approval::Elicit(
                context.peer.clone(),
                tokio::runtime::Handle::current(),
            )),
            (Approve::Elicit, false) => None,
        }
    }

    /// Runs `f` with the approver this approval stands for, on the call's blocking thread.
    fn asking<R>(&self, f: impl FnOnce(&dyn Approver) -> R) -> R {
        match self {
            Approval::Auto => f(&AutoApprove),
            Approval::Deny => f(&Deny),
            Approval::Elicit(peer, handle) => f(&Callback(move |request: &ApprovalRequest<'_>| {
                elicit_approval(peer, handle, request)
            })),
        }
    }
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
            .with_instructions(self.instructions())
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

/// What a tool list costs a model in characters: for each tool, its description plus its
/// input schema as compact JSON (`serde_json::to_string`), counted in `char`s. `docs/mcp.md`
/// records it per tool set and profile.
pub fn tool_characters(tools: &[rmcp::model::Tool]) -> usize {
    tools
        .iter()
        .map(|t| {
            let description = t.description.as_deref().unwrap_or_default().chars().count();
            let schema = serde_json::to_string(t.input_schema.as_ref())
                .map(|s| s.chars().count())
                .unwrap_or_default();
            description + schema
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::portability_problems;

    use crate::lookup_tools::{CallHierarchyArgs, LookupArgs};
    use crate::lsp_tools::{
        ApplyCodeActionArgs, CodeActionsArgs, FindSymbolArgs, OutlineArgs, RenameSymbolArgs,
        SymbolArgs, SymbolBodyArgs,
    };
    use crate::profile::{CORE_TOOLS, LSP_TOOLS, WORKFLOW_TOOLS};
    use serde_json::{Value, json};

    fn listed(sets: &[ToolSet], profile: SchemaProfile) -> Vec<rmcp::model::Tool> {
        LspeditServer::routes(&tools_of(sets), profile).list_all()
    }

    /// Every tool the server has is in exactly one of core, workflow and lsp: a new tool
    /// that is in no set fails here (and would be listed by no server).
    #[test]
    fn every_tool_is_in_exactly_one_set() {
        let names = |tools: Vec<rmcp::model::Tool>| {
            let mut names: Vec<String> = tools.into_iter().map(|t| t.name.to_string()).collect();
            names.sort_unstable();
            names
        };
        let mut all: Vec<&str> = [CORE_TOOLS, WORKFLOW_TOOLS, LSP_TOOLS].concat();
        all.sort_unstable();
        assert_eq!(names(LspeditServer::router().list_all()), all);
        let mut core = CORE_TOOLS.to_vec();
        core.sort_unstable();
        for profile in [SchemaProfile::Default, SchemaProfile::Strict] {
            assert_eq!(names(listed(&[ToolSet::Core], profile)), core);
            assert_eq!(names(listed(&[ToolSet::All], profile)), all);
            let mut review = crate::profile::REVIEW_TOOLS.to_vec();
            review.sort_unstable();
            assert_eq!(names(listed(&[ToolSet::Review], profile)), review);
        }
    }

    /// `--tools core` fits in 5,000 characters of descriptions and input schemas (counted by
    /// [`tool_characters`]) in both profiles; every set's count is printed for `docs/mcp.md`.
    #[test]
    fn the_core_tools_fit_the_budget() {
        for profile in [SchemaProfile::Default, SchemaProfile::Strict] {
            for set in [ToolSet::Core, ToolSet::Workflow, ToolSet::Lsp, ToolSet::All] {
                let tools = listed(&[set], profile);
                eprintln!(
                    "{profile} {set}: {} tools, {} characters",
                    tools.len(),
                    tool_characters(&tools)
                );
                for t in &tools {
                    eprintln!("  {}: {}", t.name, tool_characters(std::slice::from_ref(t)));
                }
            }
            let core = tool_characters(&listed(&[ToolSet::Core], profile));
            assert!(core <= 5000, "{profile}: {core} characters");
        }
    }

    /// Every description says what the tool does, when to use it and what it returns, and
    /// leaves the conventions the instructions state to them.
    #[test]
    fn every_description_says_when_and_what_it_returns_and_no_shared_convention() {
        let all = instructions(&tools_of(&[ToolSet::All]), "");
        for tool in listed(&[ToolSet::All], SchemaProfile::Default) {
            let d = tool
                .description
                .as_deref()
                .unwrap_or_default()
                .replace('\n', " ");
            assert!(
                d.contains("Use it") && d.contains("Returns"),
                "{}: {d}",
                tool.name
            );
            let schema = serde_json::to_string(tool.input_schema.as_ref()).unwrap();
            for shared in [
                "orkspace-relative",
                "LSP errors detected",
                "path_outside_workspace",
                "<line><hash>",
            ] {
                assert!(!d.contains(shared), "{}: {shared} in {d}", tool.name);
                assert!(
                    !schema.contains(shared),
                    "{}: {shared} in {schema}",
                    tool.name
                );
            }
        }
        for shared in [
            "relative to the workspace root",
            "LSP errors detected",
            "path_outside_workspace",
            "<line><hash>",
        ] {
            assert!(all.contains(shared), "{shared} not in the instructions");
        }
    }

    /// An example value for a required argument of `schema`.
    fn example(schema: &Value) -> Value {
        if let Some(first) = schema.get("enum").and_then(|e| e.get(0)) {
            return first.clone();
        }
        if let Some(first) = schema.get("anyOf").and_then(|a| a.get(0)) {
            return example(first);
        }
        match schema["type"].as_str() {
            Some("integer") => json!(1),
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("x"),
        }
    }

    /// A strict model sends every argument, `null` for the ones it leaves out: every tool's
    /// arguments read such a call (the required ones given, every other one null).
    #[test]
    fn strict_calls_with_every_optional_argument_null_are_read() {
        fn reads<T: serde::de::DeserializeOwned>(tool: &str) {
            let default = listed(&[ToolSet::All], SchemaProfile::Default);
            let schema = default.iter().find(|t| t.name == tool).unwrap();
            let required: Vec<&Value> = schema
                .input_schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().collect())
                .unwrap_or_default();
            let mut args = serde_json::Map::new();
            for (name, property) in schema.input_schema["properties"].as_object().unwrap() {
                let value = if required.contains(&&json!(name)) {
                    example(property)
                } else {
                    Value::Null
                };
                args.insert(name.clone(), value);
            }
            let args = Value::Object(args);
            if let Err(e) = serde_json::from_value::<T>(args.clone()) {
                panic!("{tool} does not read {args}: {e}");
            }
        }
        reads::<ReadFileArgs>("read_file");
        reads::<EditArgs>("edit");
        reads::<WriteFileArgs>("write_file");
        reads::<ApplyPatchArgs>("apply_patch");
        reads::<DiagnosticsArgs>("diagnostics");
        reads::<ProposeEditArgs>("propose_edit");
        reads::<ApplyEditArgs>("apply_edit");
        reads::<UndoArgs>("undo");
        reads::<RenameSymbolArgs>("rename_symbol");
        reads::<CodeActionsArgs>("code_actions");
        reads::<ApplyCodeActionArgs>("apply_code_action");
        reads::<SymbolArgs>("references");
        reads::<SymbolArgs>("definition");
        reads::<OutlineArgs>("outline");
        reads::<FindSymbolArgs>("find_symbol");
        reads::<SymbolBodyArgs>("replace_symbol_body");
        reads::<SymbolBodyArgs>("insert_before_symbol");
        reads::<SymbolBodyArgs>("insert_after_symbol");
        reads::<LookupArgs>("hover");
        reads::<CallHierarchyArgs>("call_hierarchy");
        reads::<LookupArgs>("implementations");
        reads::<LookupArgs>("type_definition");
    }

    #[test]
    fn base_shas_is_a_list_and_the_old_map_is_refused_naming_the_list() {
        let parse = |base_shas: Value| {
            serde_json::from_value::<ProposeEditArgs>(
                json!({ "patch": "p", "base_shas": base_shas }),
            )
            .map(|a| a.base_shas)
            .map_err(|e| e.to_string())
        };
        assert_eq!(
            parse(json!([{ "path": "src/a.ts", "sha": "3f2a9c0b1d4e" }])),
            Ok(vec![BaseShaArg {
                path: "src/a.ts".into(),
                sha: "3f2a9c0b1d4e".into()
            }])
        );
        assert_eq!(parse(Value::Null), Ok(Vec::new()));
        let old = parse(json!({ "src/a.ts": "3f2a9c0b1d4e" })).unwrap_err();
        assert!(
            old.contains(r#"`base_shas` must be a list of {"path", "sha"} objects, e.g. [{"path": "src/a.ts", "sha": "3f2a9c0b1d4e"}]"#)
                && old.contains("a map of path to sha"),
            "{old}"
        );
        for bad in [
            json!([{ "path": "a.ts" }]),
            json!([{ "path": "a.ts", "base_sha": "1" }]),
            json!([{ "path": "a.ts", "sha": "1", "extra": 1 }]),
            json!(["a.ts"]),
            json!("a.ts"),
        ] {
            let e = parse(bad.clone()).unwrap_err();
            assert!(e.contains("`base_shas` must be a list"), "{bad}: {e}");
        }
        let twice = parse(json!([{ "path": "a.ts", "sha": "1" }, { "path": "a.ts", "sha": "2" }]));
        assert!(twice.unwrap_err().contains("`a.ts` is named twice"));
    }

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
