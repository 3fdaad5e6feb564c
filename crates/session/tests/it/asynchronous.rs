//! `AsyncSession` from tokio, on a current-thread and on a multi-thread runtime, with the
//! language servers (the scripted fake) on that same runtime: every kind of operation awaited
//! (the tools, `check_paths`, the `diagnostics` check, propose → apply → undo, a rename, the
//! lookups and a symbol edit), refusals typed as the blocking API types them, and a call that
//! waits never holding up the runtime's other tasks.

use std::sync::mpsc;
use std::time::Duration;

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp_edits::{
    EditOptions, FindQuery, LineRef, LspEditError, LspEditStatus, SymbolAt, SymbolEdit,
    SymbolEditKind,
};
use lspedit_session::{AsyncSession, Session};
use lspedit_tools::{DiagnosticsStatus, ToolResult, ToolsConfig};
use lspedit_workflow::{ApplyPlan, ProposeRequest};
use lspedit_write::{Reason, ToolError, Workspace};
use serde_json::{Value, json};

const A: &str = "export function add(a: number): number {\n  return a;\n}\n";
const B: &str = "import { add } from \"./a\";\nadd(1);\n";

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({ "start": { "line": l0, "character": c0 }, "end": { "line": l1, "character": c1 } })
}

/// A session over a workspace holding `a.ts` and `b.ts`, its servers on the current runtime:
/// the fake server checks `.ts` files (an error on each line holding `BAD`), renames `add` to
/// `plus` in both files, answers references with the call in b.ts and knows `add`'s symbol.
fn session() -> (tempfile::TempDir, AsyncSession) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.ts"), A).unwrap();
    std::fs::write(root.join("b.ts"), B).unwrap();
    let uri = |rel: &str| format!("file://{}", root.join(rel).display());
    let edit = |uri: String, edits: Value| json!({ "textDocument": { "uri": uri, "version": null }, "edits": edits });
    let script = Script {
        mode: Mode::Pull,
        marker: "BAD".to_string(),
        rename_edit: Some(json!({ "documentChanges": [
            edit(uri("a.ts"), json!([{ "range": range(0, 16, 0, 19), "newText": "plus" }])),
            edit(uri("b.ts"), json!([
                { "range": range(0, 9, 0, 12), "newText": "plus" },
                { "range": range(1, 0, 1, 3), "newText": "plus" },
            ])),
        ]})),
        locations: Some(json!([{ "uri": uri("b.ts"), "range": range(1, 0, 1, 3) }])),
        document_symbols: Some(json!([
            { "name": "add", "kind": 12, "range": range(0, 0, 2, 1), "selectionRange": range(0, 16, 0, 19) },
        ])),
        ..Script::default()
    };
    let pool = crate::fake_pool(&root, &script, Duration::from_secs(10), Vec::new());
    let session = Session::on_runtime(
        Workspace::open(&root).unwrap(),
        Some(pool),
        ToolsConfig::default(),
        tokio::runtime::Handle::current(),
    )
    .with_workflow_config(lspedit_workflow::WorkflowConfig::unrestricted());
    (dir, AsyncSession::new(session))
}

fn read(dir: &tempfile::TempDir, rel: &str) -> String {
    std::fs::read_to_string(dir.path().join(rel)).unwrap()
}

async fn every_operation_awaits() {
    let (dir, session) = session();

    // The agent tools and `check_paths`, through `run`.
    let r = session
        .run(|s| s.tools().edit("b.ts", "add(1);", "add(1); BAD", false))
        .await;
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked);
    assert!(r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let fb = session
        .run(|s| s.tools().check_paths(&["b.ts".to_string()]))
        .await
        .unwrap();
    assert!(fb.blocks.contains_key("b.ts"), "{fb:?}");
    let checked = session.diagnostics(vec!["b.ts".into()]).await;
    assert_eq!(
        checked.outcome.files[0].status,
        Some(DiagnosticsStatus::Checked)
    );
    assert!(
        checked.result.llm_content.contains("ERROR [2:"),
        "{}",
        checked.result.llm_content
    );

    // The workflow: propose, apply, undo.
    let proposed = session
        .propose_edit(ProposeRequest::patch(
            "--- a/b.ts\n+++ b/b.ts\n@@ -2 +2 @@\n-add(1); BAD\n+add(1);\n",
        ))
        .await;
    let patch_id = proposed.outcome.unwrap().patch_id;
    assert_eq!(
        read(&dir, "b.ts"),
        "import { add } from \"./a\";\nadd(1); BAD\n"
    );
    let applied = session.apply_edit(patch_id, ApplyPlan::default()).await;
    assert!(!applied.result.is_error, "{}", applied.result.llm_content);
    assert_eq!(read(&dir, "b.ts"), B);
    let checkpoint = applied.outcome.unwrap().checkpoint_id.unwrap();
    let undone = session.undo(checkpoint).await;
    assert_eq!(undone.outcome.unwrap().restored, ["b.ts"]);
    assert_eq!(
        read(&dir, "b.ts"),
        "import { add } from \"./a\";\nadd(1); BAD\n"
    );

    // The lookups and the symbol tools, through `lsp_edits`.
    let at = SymbolAt::new("a.ts", LineRef::Number(1), "add");
    let refs = {
        let at = at.clone();
        session.lsp_edits(move |e| e.references(at, true)).await
    };
    let refs = refs.unwrap();
    assert_eq!(refs.locations[0].path, "b.ts", "{}", refs.llm_content);
    let outline = session.lsp_edits(|e| e.outline("a.ts")).await.unwrap();
    assert_eq!(outline.files[0].symbols[0].name_path, "add");
    let found = session
        .lsp_edits(|e| {
            e.find_symbol(&FindQuery {
                name: "add".into(),
                path: Some("a.ts".into()),
                ..FindQuery::default()
            })
        })
        .await
        .unwrap();
    assert_eq!(found.matches.len(), 1, "{}", found.llm_content);
    let edited = session
        .lsp_edits(|e| {
            let edit = SymbolEdit::new(
                SymbolEditKind::InsertAfter,
                "a.ts",
                "add",
                "export const one = 1;\n",
            );
            e.edit_symbol(&edit, EditOptions::default())
        })
        .await;
    assert_eq!(
        edited.status,
        LspEditStatus::Applied,
        "{}",
        edited.llm_content
    );
    assert!(read(&dir, "a.ts").contains("export const one = 1;"));

    // An LSP edit: the rename, applied through the workflow.
    let renamed = session
        .lsp_edits(move |e| e.rename_symbol(at, "plus", EditOptions::default()))
        .await;
    assert_eq!(
        renamed.status,
        LspEditStatus::Applied,
        "{}",
        renamed.llm_content
    );
    assert!(renamed.checkpoint_id.is_some());
    assert!(read(&dir, "b.ts").starts_with("import { plus } from \"./a\";\nplus(1);"));

    // Refusals come through typed, as the blocking API types them.
    let missing = SymbolAt::new("a.ts", LineRef::Number(2), "nothing");
    match session.lsp_edits(move |e| e.definition(missing)).await {
        Err(LspEditError::SymbolNotFound { line: 2, .. }) => {}
        other => panic!("expected symbol_not_found, got {other:?}"),
    }
    let e = session
        .run(|s| s.tools().check_paths(&["gone.ts".to_string()]))
        .await
        .unwrap_err();
    assert_eq!(e.reason, Reason::FileNotFound);
    let undo = session
        .undo("ckpt_1_00000000000000000000000000000000")
        .await;
    assert_eq!(undo.result.reason, Some(undo.outcome.unwrap_err().reason));
}

#[tokio::test(flavor = "current_thread")]
async fn every_operation_awaits_on_a_current_thread_runtime() {
    every_operation_awaits().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_awaits_on_a_multi_thread_runtime() {
    every_operation_awaits().await;
}

/// While an awaited call waits, another task of the runtime runs: the call waits for a signal
/// that only that task sends. Were the call run on the thread of the task awaiting it (a
/// blocking call straight in the future), the signal could never come: on a current-thread
/// runtime, or on a multi-thread runtime with one worker (both tasks are spawned, so neither
/// runs on the test's own `block_on` thread). The bound on the wait turns that into a failure
/// instead of a hang.
async fn a_waiting_call_lets_other_tasks_run() {
    let (_dir, session) = session();
    tokio::spawn(async move { waiting_call_with_another_task(&session).await })
        .await
        .unwrap();
}

async fn waiting_call_with_another_task(session: &AsyncSession) {
    let (release, released) = mpsc::channel::<()>();
    let (started, has_started) = tokio::sync::oneshot::channel::<()>();
    let other_task = tokio::spawn(async move {
        has_started.await.unwrap();
        release.send(()).unwrap();
    });
    let r = session
        .lsp_edits(move |e| -> Result<_, LspEditError> {
            started.send(()).unwrap();
            released
                .recv_timeout(Duration::from_secs(30))
                .map_err(|_| ToolError::new(Reason::IoError, None, "the runtime was blocked"))?;
            e.outline("a.ts")
        })
        .await;
    assert!(r.is_ok(), "{r:?}");
    other_task.await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn a_waiting_call_does_not_block_a_current_thread_runtime() {
    a_waiting_call_lets_other_tasks_run().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_waiting_call_does_not_block_a_multi_thread_runtime() {
    a_waiting_call_lets_other_tasks_run().await;
}

/// A call that panics is a bug, yet the awaiting caller gets a refusal of the call's own type,
/// not a panic: `io_error`, nothing written.
#[tokio::test(flavor = "current_thread")]
async fn a_call_that_panics_is_an_io_error_of_its_own_type() {
    let (dir, session) = session();
    let r: ToolResult = session
        .run(|_| panic!("a bug in the call (expected by this test)"))
        .await;
    assert!(r.is_error);
    assert_eq!(r.reason, Some(Reason::IoError), "{}", r.llm_content);
    let edit = session
        .lsp_edits(|_| -> lspedit_lsp_edits::LspEditResult {
            panic!("a bug in the edit (expected by this test)")
        })
        .await;
    assert_eq!(edit.status, LspEditStatus::Refused);
    assert_eq!(edit.reason.map(|r| r.as_str()), Some("io_error"));
    assert_eq!(read(&dir, "a.ts"), A);
}
