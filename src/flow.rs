//! `lspedit propose`, `lspedit apply-id` and `lspedit undo`: the propose → apply → undo
//! workflow from the shell. A proposal is stored under `.lspedit/patches/`, so `apply-id` may
//! run in another process (or on another day) than `propose`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use lspedit::lsp::PoolConfig;
use lspedit::tools::ToolsConfig;
use lspedit::workflow::{
    ApplyOutcome, ApprovalRequest, Callback, Proposal, UndoOutcome, ValidationCommand,
};
use lspedit::workflow::{
    ApplyPlan, ContextError, ContextRequest, ExcerptFocus, IdError, PlanRequest, Policy,
    ProposeRequest, StepIdArg,
};
use lspedit::write::ToolError;
use serde::Serialize;

use crate::json::{DiagnosticsJson, Doc, DocReason, FileJson};
use crate::{Failure, err_text, open_session, out, print_json, read_input};

/// Where a proposal comes from, as given on the command line.
#[derive(clap::Args)]
pub struct ProposeInput {
    /// Patch file, or `-` (the default) for standard input. Not with --pattern.
    patch: Option<String>,
    /// A regular expression to replace in every file of --scope.
    #[arg(long, requires = "replacement")]
    pattern: Option<String>,
    /// The replacement for --pattern (`$1`, `${name}` for capture groups).
    #[arg(long, requires = "pattern")]
    replacement: Option<String>,
    /// Globs of the files --pattern applies to (default: every file; .gitignored and binary
    /// files are skipped). Repeatable.
    #[arg(long)]
    scope: Vec<String>,
    /// Without --scope, apply --pattern only to this language's files, by extension (rust,
    /// typescript, javascript, python, go, java, c, cpp).
    #[arg(long, requires = "pattern")]
    language: Option<String>,
    /// Your task's id (1-64 letters, digits, `-`); with --step-id the evidence is named
    /// `diff_<TASK>_<STEP>_<ms>.*` under `.lspedit/evidence/`.
    #[arg(long, requires = "step_id")]
    task_id: Option<String>,
    /// This step's id (1-64 letters, digits, `-`): names the step in `apply-id`'s events and
    /// the context record.
    #[arg(long)]
    step_id: Option<String>,
    /// A file read as context for this change, most relevant first (repeatable): lspedit
    /// selects excerpts (at most 6 files, 400 lines) and records them as
    /// `context_<STEP>_<ms>.json` in the evidence.
    #[arg(long = "context", value_name = "FILE")]
    context_files: Vec<String>,
    /// A word whose lines the context excerpts show (repeatable).
    #[arg(long = "context-keyword", value_name = "WORD")]
    context_keywords: Vec<String>,
    /// Lines of a context file to show first, `PATH:START-END` (1-based, inclusive;
    /// repeatable).
    #[arg(long = "context-focus", value_name = "PATH:START-END")]
    context_focus: Vec<String>,
}

impl ProposeInput {
    /// The context the flags name (`None`: none), or the usage error naming the flag.
    fn context(&self) -> Result<Option<ContextRequest>, Failure> {
        let focus = self
            .context_focus
            .iter()
            .map(|f| parse_focus(f))
            .collect::<Result<Vec<_>, _>>()?;
        let context = ContextRequest {
            files: self.context_files.clone(),
            keywords: self.context_keywords.clone(),
            focus,
        };
        if let Err(e) = context.check() {
            let flag = match e {
                ContextError::NoFiles => "--context-keyword",
                _ => "--context-focus",
            };
            return Err(Failure::Usage(format!("{flag}: {e}")));
        }
        Ok((!context.is_empty()).then_some(context))
    }
}

/// `PATH:START-END` of `--context-focus`.
fn parse_focus(text: &str) -> Result<ExcerptFocus, Failure> {
    let bad = || {
        Failure::Usage(format!(
            "--context-focus: `{text}` is not PATH:START-END (e.g. src/a.rs:40-60)"
        ))
    };
    let (path, lines) = text.rsplit_once(':').ok_or_else(bad)?;
    let (start, end) = lines.split_once('-').unwrap_or((lines, lines));
    let number = |n: &str| n.trim().parse::<usize>().map_err(|_| bad());
    Ok(ExcerptFocus {
        path: path.to_string(),
        start_line: number(start)?,
        end_line: number(end)?,
    })
}

pub fn cmd_propose(input: ProposeInput, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let context = input.context()?;
    let (task_id, step_id) = (input.task_id.clone(), input.step_id.clone());
    let request = match (input.pattern, input.replacement) {
        (Some(pattern), Some(replacement)) => {
            if input.patch.is_some() {
                return Err(Failure::Usage(
                    "give either a patch or --pattern/--replacement, not both".into(),
                ));
            }
            let scope: Vec<&str> = input.scope.iter().map(String::as_str).collect();
            let request = ProposeRequest::regex(pattern, replacement, &scope);
            match input.language {
                Some(language) => request.with_language(language),
                None => request,
            }
        }
        (Some(_), None) | (None, Some(_)) => {
            return Err(Failure::Usage(
                "--pattern and --replacement go together".into(),
            ));
        }
        (None, None) => ProposeRequest::patch(read_input(input.patch.as_deref(), "patch")?),
    };
    let mut request = ProposeRequest {
        task_id,
        step_id,
        ..request
    };
    // The ids name files: refused before anything is read or stored.
    if let Err(e) = request.check_ids() {
        let (flag, hint) = match &e {
            IdError::Invalid {
                arg: StepIdArg::Task,
                ..
            } => ("--task-id", "; use letters, digits and `-`, e.g. task-7"),
            IdError::Invalid { .. } => ("--step-id", "; use letters, digits and `-`, e.g. step-2"),
            _ => ("--task-id", "; give --step-id too"),
        };
        return Err(Failure::Usage(format!("{flag}: {e}{hint}")));
    }
    // Proposing reads files only: no language servers.
    let session = open_session(root, false, ToolsConfig::default())?;
    if let Some(context) = context {
        request = request.with_context(context.select(session.tools().workspace()));
    }
    let workflow = session.workflow()?;
    match workflow.propose_edit(&request) {
        Ok(p) => {
            let text = format!("{}\n", p.llm_content().trim_end());
            // As `propose_edit`'s `success`: a proposal with a file that would be refused is
            // stored (for a per-file apply) but cannot apply all or nothing, so the command
            // did not succeed: exit 1, `reason` that file's.
            let refused = p
                .files
                .iter()
                .find_map(|f| f.problem.as_ref().map(|x| (f, x)));
            if json {
                let mut doc = Doc::ok(text, proposed_files(&p), ProposalJson::from(&p));
                if let Some((_, problem)) = refused {
                    doc.ok = false;
                    doc.reason = Some(problem.reason.into());
                }
                print_json(&doc)?;
            } else {
                out(&text);
                if let Some((f, problem)) = refused {
                    err_text(&format!(
                        "Error: {}: {}: {}\n",
                        f.path, problem.reason, problem.message
                    ));
                }
            }
            Ok(u8::from(refused.is_some()))
        }
        Err(e) => print_refusal(&e, json),
    }
}

/// A refusal outside a tool result: JSON, or `Error: ...` on stderr; exit 1.
fn print_refusal(e: &ToolError, json: bool) -> Result<u8, Failure> {
    if json {
        print_json(&Doc::tool_error(e))?;
    } else {
        err_text(&format!("Error: {e}\n"));
    }
    Ok(1)
}

/// `apply-id`'s plan, as given on the command line. Its limits only tighten the operator's
/// policy (`[policy]` of your config: 3 files, 100 changed lines, no create, delete or rename
/// unless it says otherwise; `docs/policy.md`), since an agent may run this command too.
#[derive(clap::Args)]
pub struct PlanInput {
    /// The "mission edit" limits: at most 3 files and 100 changed lines, no create, delete or
    /// rename, all or nothing (never more than the policy allows).
    #[arg(long)]
    mission: bool,
    /// Refuse (`scope_violation`) when more files would change. At most the policy's limit
    /// (`[policy] max_files`, default 3); a larger value is refused.
    #[arg(long)]
    max_files: Option<usize>,
    /// Refuse (`scope_violation`) when more lines would be added plus removed. At most the
    /// policy's limit (`[policy] max_changed_lines`, default 100).
    #[arg(long)]
    max_changed_lines: Option<usize>,
    /// Refuse (`unsafe_diff`) a patch that creates a file (the policy's default already does).
    #[arg(long)]
    forbid_create: bool,
    /// Refuse (`unsafe_diff`) a patch that deletes a file (the policy's default already does).
    #[arg(long)]
    forbid_delete: bool,
    /// Refuse (`unsafe_diff`) a patch that renames a file (the policy's default already does).
    #[arg(long)]
    forbid_rename: bool,
    /// Write every file or none, the default (a journal under `.lspedit/` survives a crash).
    #[arg(long, conflicts_with = "per_file")]
    all_or_nothing: bool,
    /// Apply each file on its own: one refused file does not stop the others (unless the
    /// policy forbids per-file applies).
    #[arg(long)]
    per_file: bool,
    /// Apply in a temporary copy of the workspace first and run this command there (e.g.
    /// `--validate "cargo check"`; split on whitespace, no shell); write the workspace only if
    /// it exits 0.
    #[arg(long)]
    validate: Option<String>,
    /// Time limit of the whole apply, in seconds (approval and validation included); past it
    /// the apply is refused and files it wrote are restored.
    #[arg(long)]
    timeout: Option<u64>,
    /// Show the diff and ask on the terminal before writing (refused when standard input is
    /// not a terminal).
    #[arg(long)]
    confirm: bool,
}

impl PlanInput {
    /// The plan: `policy`'s limits tightened by these flags, or the refusal of a looser one
    /// (`scope_violation` naming the policy's limit).
    fn plan(&self, policy: &Policy) -> Result<ApplyPlan, ToolError> {
        let mut plan = policy.plan(&PlanRequest {
            mission_edit: self.mission,
            max_files: self.max_files,
            max_changed_lines: self.max_changed_lines,
            forbid_create: self.forbid_create.then_some(true),
            forbid_delete: self.forbid_delete.then_some(true),
            forbid_rename: self.forbid_rename.then_some(true),
            all_or_nothing: self.per_file.then_some(false),
        })?;
        plan.timeout_seconds = self.timeout;
        let words: Vec<&str> = self
            .validate
            .as_deref()
            .map(|v| v.split_whitespace().collect())
            .unwrap_or_default();
        if let Some((program, args)) = words.split_first() {
            plan.validation = Some(ValidationCommand::new(*program, args));
        }
        Ok(plan)
    }
}

pub fn cmd_apply_id(
    patch_id: &str,
    plan: PlanInput,
    root: Option<PathBuf>,
    diagnostics: bool,
    json: bool,
) -> Result<u8, Failure> {
    let confirm = plan.confirm;
    if confirm && !std::io::stdin().is_terminal() {
        return Err(Failure::Usage(
            "--confirm asks on a terminal, but standard input is not one; run it interactively, or review the diff with `lspedit propose` and apply without --confirm".into(),
        ));
    }
    let began = std::time::Instant::now();
    let session = open_session(root, diagnostics, ToolsConfig::default())?;
    let workflow = session.workflow()?;
    let loaded = PoolConfig::load(session.tools().workspace().root());
    let (policy, warnings) = crate::policy_from(loaded.as_ref().ok())?;
    for w in warnings {
        err_text(&format!("warning: {w}\n"));
    }
    let plan = match plan.plan(&policy) {
        Ok(plan) => plan,
        Err(e) => {
            session.shutdown();
            return print_refusal(&e, json);
        }
    };
    let o = if confirm {
        // The diff and the question go to stderr: stdout stays the result (text or --json).
        let ask = Callback(|request: &ApprovalRequest<'_>| {
            ask_approval(
                request,
                &mut std::io::stdin().lock(),
                &mut std::io::stderr().lock(),
            )
        });
        workflow.apply_edit_with(patch_id, &plan, &ask)
    } else {
        let progress = crate::Progress::new();
        if diagnostics {
            progress.status("applying, then waiting for language-server diagnostics…");
        }
        let o = workflow.apply_edit(patch_id, &plan);
        progress.done();
        o
    };
    // Late answers to earlier checks come first, as in every tool result; none of this
    // command's own (its files' verdicts, or "pending", stand).
    let mut o = o;
    o.llm_content = session.with_late_feedback_for_call(&o.llm_content, began);
    // Explicitly, not on drop: a diagnostics thread abandoned at its deadline may still hold
    // the pool, and the process would exit before its drop killed the servers.
    session.shutdown();
    if json {
        print_json(&Doc {
            ok: !o.is_error,
            reason: o.reason.map(DocReason::Tool),
            llm_content: o.llm_content.clone(),
            files: o
                .files
                .iter()
                .map(|f| {
                    let status = if f.applied { "applied" } else { "failed" };
                    FileJson {
                        reason: f.reason,
                        message: Some(f.message.clone()),
                        ..FileJson::plain(&f.path, status, format!("{status} {}", f.path))
                    }
                })
                .collect(),
            data: ApplyJson::from(&o),
        })?;
    } else if o.is_error {
        err_text(&format!("{}\n", o.llm_content.trim_end()));
    } else {
        out(&format!("{}\n", o.llm_content.trim_end()));
    }
    Ok(if o.is_error { 1 } else { 0 })
}

/// Show the diff a person is asked to approve and read the answer: `y` or `yes` (any case)
/// approves; anything else, end of input or an I/O error rejects.
fn ask_approval(
    request: &ApprovalRequest<'_>,
    input: &mut dyn BufRead,
    prompt: &mut dyn Write,
) -> bool {
    let shown = write!(
        prompt,
        "{}\n\n{}\nApply {} to {}? [y/N] ",
        request.summary,
        request.diff.trim_end(),
        request.patch_id,
        request.files.join(", ")
    )
    .and_then(|()| prompt.flush());
    if shown.is_err() {
        return false;
    }
    let mut answer = String::new();
    match input.read_line(&mut answer) {
        Ok(_) => matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
        Err(_) => false,
    }
}

pub fn cmd_undo(checkpoint_id: &str, root: Option<PathBuf>, json: bool) -> Result<u8, Failure> {
    let session = open_session(root, false, ToolsConfig::default())?;
    let workflow = session.workflow()?;
    match workflow.undo(checkpoint_id) {
        Ok(u) => {
            if json {
                let files = u
                    .restored
                    .iter()
                    .map(|p| FileJson::plain(p, "restored", format!("restored {p}")))
                    .collect();
                print_json(&Doc::ok(u.llm_content.clone(), files, UndoJson::from(&u)))?;
            } else {
                out(&format!("{}\n", u.llm_content.trim_end()));
            }
            Ok(0)
        }
        Err(e) => print_refusal(&e, json),
    }
}

/// A proposal's files as `--json` lists them everywhere.
fn proposed_files(p: &Proposal) -> Vec<FileJson> {
    p.files
        .iter()
        .map(|f| {
            let (status, summary) = match &f.problem {
                Some(problem) => (
                    "failed",
                    format!("FAILED {}: {}: {}", f.path, problem.reason, problem.message),
                ),
                None => (
                    "proposed",
                    format!("{} (+{} -{})", f.path, f.added, f.removed),
                ),
            };
            FileJson {
                new_path: f.new_path.clone(),
                reason: f.problem.as_ref().map(|x| x.reason),
                message: f.problem.as_ref().map(|x| x.message.clone()),
                base_sha: f.base_sha.clone(),
                added: Some(f.added),
                removed: Some(f.removed),
                ..FileJson::plain(&f.path, status, summary)
            }
        })
        .collect()
}

/// `propose`'s own fields.
#[derive(Serialize)]
struct ProposalJson<'a> {
    /// `propose_edit`'s `success`: stored, and every file of it applies (a file that would be
    /// refused makes an all-or-nothing apply impossible; `reason` is that file's).
    success: bool,
    patch_id: &'a str,
    summary: &'a str,
    diff: &'a str,
    affected_files: Vec<String>,
    /// As `propose_edit` takes them: a list of `{path, sha}`, `sha` null for a file the patch
    /// creates. No map, the same as every JSON document lspedit reads or prints.
    base_shas: Vec<BaseShaJson<'a>>,
    stats: &'a lspedit::workflow::ProposeStats,
    evidence_id: &'a str,
}

/// One file's base in `propose`'s `base_shas`.
#[derive(Serialize)]
struct BaseShaJson<'a> {
    path: &'a str,
    sha: Option<&'a str>,
}

impl<'a> From<&'a Proposal> for ProposalJson<'a> {
    fn from(p: &'a Proposal) -> Self {
        ProposalJson {
            success: p.files.iter().all(|f| f.problem.is_none()),
            patch_id: &p.patch_id,
            summary: &p.summary,
            diff: &p.diff,
            affected_files: p.affected_files(),
            base_shas: p
                .base_shas
                .iter()
                .map(|(path, sha)| BaseShaJson {
                    path,
                    sha: sha.as_deref(),
                })
                .collect(),
            stats: &p.stats,
            evidence_id: &p.evidence_id,
        }
    }
}

/// `apply-id`'s own fields.
#[derive(Serialize)]
struct ApplyJson<'a> {
    patch_id: &'a str,
    status: &'static str,
    checkpoint_id: Option<&'a str>,
    evidence_id: Option<&'a str>,
    rolled_back: bool,
    validation: Option<&'a lspedit::workflow::ValidationReport>,
    /// Each written text file's diagnostics status, as `edit`, `write` and `apply` give it.
    diagnostics: Vec<DiagnosticsJson>,
}

impl<'a> From<&'a ApplyOutcome> for ApplyJson<'a> {
    fn from(o: &'a ApplyOutcome) -> Self {
        ApplyJson {
            patch_id: &o.patch_id,
            status: o.status.as_str(),
            checkpoint_id: o.checkpoint_id.as_deref(),
            evidence_id: o.evidence_id.as_deref(),
            rolled_back: o.rolled_back,
            validation: o.validation.as_ref(),
            diagnostics: DiagnosticsJson::list(&o.diagnostics),
        }
    }
}

/// `undo`'s own fields.
#[derive(Serialize)]
struct UndoJson<'a> {
    checkpoint_id: &'a str,
    restored: &'a [String],
    redo_checkpoint_id: &'a str,
}

impl<'a> From<&'a UndoOutcome> for UndoJson<'a> {
    fn from(u: &'a UndoOutcome) -> Self {
        UndoJson {
            checkpoint_id: &u.checkpoint_id,
            restored: &u.restored,
            redo_checkpoint_id: &u.redo_checkpoint_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn approval_shows_the_diff_and_reads_yes_or_no() {
        let files = vec!["a.txt".to_string()];
        let request = ApprovalRequest {
            approval_id: "appr_1_00000000000000000000000000000000",
            patch_id: "patch_1_00000000000000000000000000000000",
            diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
            files: &files,
            summary: "1 file changed (+1 -1)",
        };
        // (answer, approved)
        for (answer, approved) in [
            ("y\n", true),
            ("YES\n", true),
            (" yes \n", true),
            ("n\n", false),
            ("\n", false),
            ("", false),
            ("yep\n", false),
        ] {
            let mut shown = Vec::new();
            let got = ask_approval(&request, &mut answer.as_bytes(), &mut shown);
            assert_eq!(got, approved, "{answer:?}");
            let shown = String::from_utf8(shown).unwrap_or_default();
            assert!(shown.contains("+b\n"), "{shown}");
            assert!(
                shown.ends_with("Apply patch_1_00000000000000000000000000000000 to a.txt? [y/N] "),
                "{shown}"
            );
        }
    }
}
