//! The session (tools + workflow + pool) as the CLI and the MCP server use it: the
//! `diagnostics` operation's text and report, and the workflow's answers carrying their
//! outcomes.

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::{Mode, Script};
use lspedit_session::Session;
use lspedit_tools::{DiagnosticsStatus, Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, Atomicity, CommitObserver, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_write::{Reason, Workspace};

/// A session over `root` whose `.ts` files are checked by the fake server (pull; an error on
/// every line holding `BAD`).
fn fake_session(root: &Path, warnings: Vec<String>) -> Session {
    fake_session_with(
        root,
        warnings,
        Script {
            mode: Mode::Pull,
            marker: "BAD".to_string(),
            ..Script::default()
        },
    )
}

fn fake_session_with(root: &Path, warnings: Vec<String>, script: Script) -> Session {
    let pool = crate::fake_pool(root, &script, Duration::from_secs(5), warnings);
    let mut config = ToolsConfig::default();
    config.diagnostics.timeout = Some(Duration::from_secs(10));
    config.diagnostics.start_timeout = Some(Duration::from_secs(10));
    Session::new(Workspace::open(root).unwrap(), Some(pool), config)
}

fn temp_root() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

#[test]
fn diagnostics_say_per_file_what_the_server_found_or_why_not() {
    let (_dir, root) = temp_root();
    std::fs::write(root.join("bad.ts"), "let a = 1;\nlet b = BAD;\n").unwrap();
    std::fs::write(root.join("clean.ts"), "let a = 1;\n").unwrap();
    std::fs::write(root.join("notes.txt"), "text\n").unwrap();
    let session = fake_session(&root, vec!["servers.x.command was ignored".into()]);
    let paths: Vec<String> = [
        "notes.txt",
        "missing.ts",
        "clean.ts",
        "bad.ts",
        "./clean.ts",
    ]
    .map(String::from)
    .to_vec();
    let answer = session.diagnostics_report(&paths);
    session.shutdown();
    let (r, report) = (answer.result, answer.outcome);
    assert!(r.is_error, "a refused path makes the result an error");
    // One entry per distinct file, in path order, each with its own text.
    let shown: Vec<(&str, Option<DiagnosticsStatus>)> = report
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status))
        .collect();
    assert_eq!(
        shown,
        [
            ("bad.ts", Some(DiagnosticsStatus::Checked)),
            ("clean.ts", Some(DiagnosticsStatus::Checked)),
            ("missing.ts", None),
            ("notes.txt", Some(DiagnosticsStatus::NoServer)),
        ]
    );
    let bad = &report.files[0];
    assert_eq!(bad.server.as_deref(), Some("fake"));
    assert_eq!(bad.diagnostics.as_ref().map(Vec::len), Some(1));
    assert!(
        bad.text.starts_with(
            "LSP errors detected in bad.ts, please fix:\n<diagnostics file=\"bad.ts\">\nERROR [2:9] "
        ),
        "{}",
        bad.text
    );
    assert_eq!(report.files[1].text, "clean.ts: no errors (fake).");
    assert_eq!(report.files[2].reason, Some(Reason::FileNotFound));
    assert_eq!(
        report.files[3].text,
        "notes.txt: no diagnostics: no language server is configured for this file type."
    );
    assert_eq!(report.refused.len(), 1);
    assert_eq!(report.refused[0].reason, Reason::FileNotFound);
    assert_eq!(report.unavailable, None);
    assert_eq!(report.warnings, ["servers.x.command was ignored"]);
    // The text is the files' texts in the same order, then the configuration's warnings.
    let texts: Vec<&str> = report.files.iter().map(|f| f.text.as_str()).collect();
    assert_eq!(
        r.llm_content,
        format!(
            "{}\n\nWarning: servers.x.command was ignored",
            texts.join("\n\n")
        )
    );
    // Each checked file's status, as the tools report it.
    let statuses: Vec<(&str, DiagnosticsStatus)> = r
        .diagnostics
        .iter()
        .map(|s| (s.path.as_str(), s.status))
        .collect();
    assert!(
        statuses.contains(&("bad.ts", DiagnosticsStatus::Checked)),
        "{statuses:?}"
    );
}

// Regression: a server marked broken (3 crashes) for a 300 s cooldown was reported as "failed;
// call diagnostics again shortly", and every call for the next five minutes said the same.
#[test]
fn a_broken_server_is_reported_with_its_real_cooldown() {
    let (_dir, root) = temp_root();
    std::fs::write(root.join("a.ts"), "let a = 1;\n").unwrap();
    let session = fake_session_with(
        &root,
        Vec::new(),
        Script {
            mode: Mode::Pull,
            crash_on: Some(lspedit_fake_lsp::Event::Initialize),
            ..Script::default()
        },
    );
    let paths = vec!["a.ts".to_string()];
    let mut texts = Vec::new();
    for _ in 0..4 {
        texts.push(session.diagnostics_report(&paths).result.llm_content);
    }
    session.shutdown();
    let last = texts.last().unwrap();
    assert!(
        last.contains("a.ts: not checked: lspedit did not start language server 'fake': it crashed 3 times in a row; lspedit starts it again in "),
        "{texts:#?}"
    );
    assert!(!last.contains("shortly"), "{last}");
}

#[test]
fn a_session_without_diagnostics_says_why_in_every_file() {
    let (_dir, root) = temp_root();
    std::fs::write(root.join("a.ts"), "let a = 1;\n").unwrap();
    let ws = || Workspace::open(&root).unwrap();
    let paths = vec!["a.ts".to_string()];

    let off = Session::new(ws(), None, ToolsConfig::default());
    assert!(off.pool().is_none());
    let answer = off.diagnostics_report(&paths);
    assert!(!answer.result.is_error);
    assert_eq!(
        answer.result.llm_content,
        "a.ts: no diagnostics: diagnostics are turned off for this session."
    );
    assert_eq!(
        answer.outcome.unavailable.as_deref(),
        Some("diagnostics are turned off for this session")
    );

    let why = "the configuration is invalid".to_string();
    let broken = Session::without_diagnostics(ws(), ToolsConfig::default(), why.clone());
    let answer = broken.diagnostics_report(&paths);
    assert_eq!(
        answer.result.llm_content,
        format!("a.ts: no diagnostics: {why}.")
    );
    assert_eq!(answer.outcome.unavailable, Some(why));

    let none = broken.diagnostics(&[]);
    assert!(none.is_error);
    assert!(
        none.llm_content.starts_with("Error: no paths given"),
        "{}",
        none.llm_content
    );
}

/// Regression: a session without diagnostics kept no pool, so every language-server tool was
/// `no_server`. Turned off by [`Session::new_without_diagnostics`], the checks after a write are
/// gone (an error line written is not reported) while the pool answers the symbol tools.
#[test]
fn without_diagnostics_the_language_server_tools_still_answer() {
    let (_dir, root) = temp_root();
    std::fs::write(
        root.join("a.ts"),
        "export function add() {}
",
    )
    .unwrap();
    let script = Script {
        mode: Mode::Pull,
        marker: "BAD".to_string(),
        document_symbols: Some(serde_json::json!([{
            "name": "add",
            "kind": 12,
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 24 } },
            "selectionRange": { "start": { "line": 0, "character": 16 }, "end": { "line": 0, "character": 19 } }
        }])),
        ..Script::default()
    };
    let pool = crate::fake_pool(&root, &script, Duration::from_secs(5), Vec::new());
    let session = Session::new_without_diagnostics(
        Workspace::open(&root).unwrap(),
        pool,
        ToolsConfig::default(),
    );
    let outline = session.lsp_edits().and_then(|e| e.outline("a.ts"));
    let written = session.tools().write_file("b.ts", "let b = BAD;\n");
    let checked = session.diagnostics_report(&["a.ts".to_string()]);
    session.shutdown();
    let outline = outline.unwrap();
    assert_eq!(
        outline.files[0].symbols[0].name_path, "add",
        "{}",
        outline.llm_content
    );
    assert!(!written.is_error, "{}", written.llm_content);
    assert!(
        written.diagnostics.is_empty() && !written.llm_content.contains("BAD"),
        "{written:?}"
    );
    assert_eq!(
        checked.outcome.unavailable.as_deref(),
        Some("diagnostics are turned off for this session")
    );
}

#[test]
fn the_workflow_answers_carry_their_outcomes() {
    let (_dir, root) = temp_root();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let session = Session::new(
        Workspace::open(&root).unwrap(),
        None,
        ToolsConfig::default(),
    );

    let proposed = session.propose_edit(&ProposeRequest::patch(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n",
    ));
    let p = proposed.outcome.as_ref().unwrap();
    assert!(!proposed.result.is_error);
    assert_eq!(proposed.result.llm_content, p.llm_content());
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );

    // The library's defaults are the seeds': nothing is applied without an approver, and the
    // refusal names the way to configure one.
    let refused = session.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert!(refused.result.is_error);
    assert_eq!(refused.result.reason, Some(Reason::ApprovalRequired));
    assert!(
        refused
            .result
            .llm_content
            .contains("WorkflowConfig::unrestricted()"),
        "{}",
        refused.result.llm_content
    );
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );

    // Loosened by name, another session applies the stored proposal.
    let session = Session::new(
        Workspace::open(&root).unwrap(),
        None,
        ToolsConfig::default(),
    )
    .with_workflow_config(WorkflowConfig::unrestricted());
    let applied = session.apply_edit(&p.patch_id, &ApplyPlan::default());
    let o = applied.outcome.as_ref().unwrap();
    assert!(!applied.result.is_error, "{}", applied.result.llm_content);
    assert_eq!(applied.result.llm_content, o.llm_content);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\nthree\n"
    );

    let checkpoint = o.checkpoint_id.clone().unwrap();
    let undone = session.undo(&checkpoint);
    assert_eq!(undone.outcome.as_ref().unwrap().restored, ["a.txt"]);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );

    // Refusals: an unknown patch is an outcome of its own; an unknown checkpoint an error.
    let unknown = session.apply_edit(
        "patch_1_00000000000000000000000000000000",
        &ApplyPlan::default(),
    );
    assert!(unknown.result.is_error);
    assert_eq!(unknown.result.reason, Some(Reason::PatchNotFound));
    assert_eq!(
        unknown.outcome.as_ref().unwrap().reason,
        Some(Reason::PatchNotFound)
    );
    let refused = session.undo("ckpt_1_00000000000000000000000000000000");
    let e = refused.outcome.unwrap_err();
    assert_eq!(refused.result.reason, Some(e.reason));
    assert_eq!(refused.result.llm_content, format!("Error: {e}"));
}

/// Dies (panics, unwinding out of the commit without closing its journal) after the commit's
/// first file is written: a process killed mid-commit, as far as the workspace can tell.
struct DieAfterFirstFile;

impl CommitObserver for DieAfterFirstFile {
    fn file_written(&self, _path: &str, index: usize, _total: usize) -> Result<(), String> {
        assert!(index != 1, "the simulated crash mid-commit");
        Ok(())
    }
}

/// Regression (issue 26): the session opens the workflow only when it is needed, yet an
/// all-or-nothing commit a crashed process left half done is still rolled back before a plain
/// `apply_patch` touches the workspace; the patch then applies to the files as they were.
#[test]
fn a_crashed_commit_is_rolled_back_before_a_plain_apply() {
    let (_dir, root) = temp_root();
    for f in ["a.txt", "b.txt"] {
        std::fs::write(root.join(f), "a\nb\nc\n").unwrap();
    }
    let tools = Arc::new(Tools::new(
        Workspace::open(&root).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    let crashing = WorkflowConfig {
        commit_observer: Some(Arc::new(DieAfterFirstFile)),
        ..WorkflowConfig::unrestricted()
    };
    let wf = Workflow::open(tools, crashing).unwrap();
    let patch = ["a.txt", "b.txt"]
        .map(|f| format!("--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n a\n-b\n+NEW\n c\n"))
        .concat();
    let p = wf.propose_edit(&ProposeRequest::patch(&patch)).unwrap();
    let all_or_nothing = ApplyPlan {
        atomicity: Atomicity::AllOrNothing,
        ..ApplyPlan::default()
    };
    let crashed = std::panic::catch_unwind(AssertUnwindSafe(|| {
        wf.apply_edit(&p.patch_id, &all_or_nothing)
    }));
    assert!(crashed.is_err(), "the commit was to die mid-way");
    drop(wf);
    let read = |f: &str| std::fs::read_to_string(root.join(f)).unwrap();
    // Half done: one file new, the journal left behind.
    assert_eq!([read("a.txt"), read("b.txt")], ["a\nNEW\nc\n", "a\nb\nc\n"]);
    assert!(
        root.join(".lspedit/journal")
            .read_dir()
            .unwrap()
            .next()
            .is_some()
    );

    let session = Session::new(
        Workspace::open(&root).unwrap(),
        None,
        ToolsConfig::default(),
    );
    let r = session
        .tools()
        .apply_patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!([read("a.txt"), read("b.txt")], ["a\nB\nc\n", "a\nb\nc\n"]);
    let left = std::fs::read_dir(root.join(".lspedit/journal")).map_or(0, Iterator::count);
    assert_eq!(left, 0, "the journal was resolved");
}

/// A plain `apply_patch` in a workspace without lspedit state leaves none behind: the
/// session's check for an interrupted commit only looks.
#[test]
fn a_plain_apply_creates_no_state() {
    let (_dir, root) = temp_root();
    std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
    let session = Session::new(
        Workspace::open(&root).unwrap(),
        None,
        ToolsConfig::default(),
    );
    let r = session
        .tools()
        .apply_patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "one\nthree\n"
    );
    assert!(!root.join(".lspedit").exists());
}
