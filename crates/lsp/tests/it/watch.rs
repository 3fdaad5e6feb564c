//! The pool's file watcher: changes made by another program (here `std::fs::write` from the
//! test) reach the servers without any check in between, once, coalesced, and never for
//! skipped directories or for lspedit's own writes.

use std::time::Duration;

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp::{Pool, Severity};

use crate::harness::*;

const OK: &str = "fine line\n";
const BAD: &str = "fine line\n  here is an ERROR\n";

fn pull_ws() -> FakeWs {
    FakeWs::new(Script {
        mode: Mode::Pull,
        ..Script::default()
    })
}

/// The notifications of `method` the fake server received, as logged (`notification <method>
/// <params>`).
fn notifications(ws: &FakeWs, method: &str) -> Vec<String> {
    let prefix = format!("notification {method} ");
    ws.log()
        .lines()
        .filter_map(|l| l.strip_prefix(&prefix).map(str::to_owned))
        .collect()
}

/// Every `workspace/didChangeWatchedFiles` event the fake server received, as (file name,
/// type: 1 created, 2 changed, 3 deleted).
fn watched_events(ws: &FakeWs) -> Vec<(String, i64)> {
    notifications(ws, "workspace/didChangeWatchedFiles")
        .iter()
        .flat_map(|params| {
            let v: serde_json::Value = serde_json::from_str(params).unwrap();
            v["changes"].as_array().cloned().unwrap_or_default()
        })
        .map(|c| {
            let uri = c["uri"].as_str().unwrap_or_default();
            let name = uri.rsplit('/').next().unwrap_or_default().to_owned();
            (name, c["type"].as_i64().unwrap_or_default())
        })
        .collect()
}

/// Waits (event-driven, bounded) for the watcher's next batch after `after`.
async fn next_batch(pool: &Pool, after: u64) {
    assert!(
        pool.wait_disk_batch(after, deadline(10_000)).await,
        "no batch of disk changes reached the servers"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_programs_changes_reach_the_server_before_any_check() {
    let ws = pull_ws();
    let pool = ws.pool("pull");
    let a = ws.file("a.fk");
    std::fs::write(&a, OK).unwrap();
    let r = check_timed(&pool, &a, OK, 5000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    // The first check started the server, and with it the watcher of its root.
    let n = pool.disk_batches();
    std::fs::create_dir_all(ws.file("node_modules/dep")).unwrap();
    std::fs::create_dir_all(ws.file("src/new")).unwrap();
    std::fs::write(&a, BAD).unwrap();
    std::fs::write(ws.file("src/new/b.fk"), OK).unwrap();
    std::fs::write(ws.file("node_modules/dep/c.fk"), BAD).unwrap();
    std::fs::write(ws.file("notes.txt"), "not a file of the server").unwrap();
    next_batch(&pool, n).await;

    // a is open: re-sent from the disk at once, no check asked for it.
    let changes = notifications(&ws, "textDocument/didChange");
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert!(changes[0].contains("ERROR"), "{changes:?}");
    let watched = notifications(&ws, "workspace/didChangeWatchedFiles").join("\n");
    assert!(!watched.contains("node_modules"), "skipped dir: {watched}");
    assert!(
        !watched.contains("notes.txt"),
        "not a file of the server: {watched}"
    );
    // A file in a directory created in the same burst is seen too (walked when found).
    if !watched.contains("b.fk") {
        next_batch(&pool, n + 1).await;
    }
    let events = watched_events(&ws);
    assert!(events.contains(&("a.fk".to_owned(), 2)), "{events:?}");
    assert!(events.contains(&("b.fk".to_owned(), 1)), "{events:?}");

    // The check that follows reflects the change, and the text is not sent a second time.
    let r = check_timed(&pool, &a, BAD, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1, "{r:?}");
    assert_eq!(
        notifications(&ws, "textDocument/didChange").len(),
        1,
        "the server had the text already"
    );

    // Deleted by another program: closed and announced.
    let n = pool.disk_batches();
    std::fs::remove_file(&a).unwrap();
    next_batch(&pool, n).await;
    assert_eq!(notifications(&ws, "textDocument/didClose").len(), 1);
    let events = watched_events(&ws);
    assert!(events.contains(&("a.fk".to_owned(), 3)), "{events:?}");
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

// lspedit's own write is seen by the watcher after the check sent the text: nothing is sent
// again, and nothing is announced (the server has that text already).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_writes_are_not_sent_twice() {
    let ws = pull_ws();
    let pool = ws.pool("pull");
    let a = ws.file("a.fk");
    std::fs::write(&a, OK).unwrap();
    check_timed(&pool, &a, OK, 5000).await.unwrap();
    let n = pool.disk_batches();
    // The tools' order: write, then check at once.
    std::fs::write(&a, BAD).unwrap();
    let r = check_timed(&pool, &a, BAD, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    // A second file changed by another program makes sure a batch goes out.
    std::fs::write(ws.file("z.fk"), OK).unwrap();
    next_batch(&pool, n).await;
    assert_eq!(notifications(&ws, "textDocument/didChange").len(), 1);
    let watched = notifications(&ws, "workspace/didChangeWatchedFiles").join("\n");
    assert!(!watched.contains("a.fk"), "{watched}");
    assert!(watched.contains("z.fk"), "{watched}");
    pool.shutdown().await;
}

// A `git checkout` of many files is one batch: one notification for all of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_changes_is_one_notification() {
    let ws = pull_ws();
    let mut cfg = ws.config("pull");
    // Generous, so that a slow machine writing the files still falls in one window.
    cfg.watch_debounce = Duration::from_millis(500);
    let pool = Pool::new(ws.root(), cfg).unwrap();
    let a = ws.file("a.fk");
    std::fs::write(&a, OK).unwrap();
    // Watched from the start (a directory created later is listed when its creation is seen;
    // files written after that listing come as events of their own, maybe in a later batch).
    std::fs::create_dir_all(ws.file("src")).unwrap();
    check_timed(&pool, &a, OK, 5000).await.unwrap();
    let n = pool.disk_batches();
    for i in 0..300 {
        std::fs::write(ws.file(&format!("src/f{i:03}.fk")), OK).unwrap();
    }
    next_batch(&pool, n).await;
    let watched = notifications(&ws, "workspace/didChangeWatchedFiles");
    assert_eq!(watched.len(), 1, "one notification");
    assert_eq!(watched[0].matches(".fk\"").count(), 300);
    pool.shutdown().await;
}

// Documents no caller asked about for the idle time are closed by maintenance.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_documents_are_closed() {
    let ws = pull_ws();
    let mut cfg = ws.config("pull");
    cfg.document_idle_timeout = Some(Duration::ZERO);
    let pool = Pool::new(ws.root(), cfg).unwrap();
    let a = ws.file("a.fk");
    std::fs::write(&a, BAD).unwrap();
    check_timed(&pool, &a, BAD, 5000).await.unwrap();
    pool.maintain().await;
    // A check of another file is a request: its answer proves the server has the `didClose`.
    let b = ws.file("b.fk");
    std::fs::write(&b, OK).unwrap();
    check_timed(&pool, &b, OK, 5000).await.unwrap();
    let closed = notifications(&ws, "textDocument/didClose");
    assert_eq!(closed.len(), 1);
    assert!(closed[0].contains("a.fk"), "{closed:?}");
    assert_eq!(
        pool.status()[0].open_documents,
        2,
        "a kept (closed), b open"
    );
    // Asked again: opened again with a newer version, and checked.
    let r = check_timed(&pool, &a, BAD, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    let opens = notifications(&ws, "textDocument/didOpen");
    assert_eq!(opens.iter().filter(|o| o.contains("a.fk")).count(), 2);
    pool.shutdown().await;
}

// Regression: a cached answer survived a change of a file the server had not opened (only
// open documents were stat-checked), and TypeScript 7 never re-read such a file (it reads
// changes only when the client announces them). A.ts uses b.ts; another program breaks b.ts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_server_sees_a_dependency_changed_on_disk() {
    for server in ["tsc7", "pyright"] {
        let Some(cfg) = require_server(server) else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        // (a, b, a's text, b before, b after, the line of a that breaks)
        let (a, b, a_text, b_ok, b_bad, line) = if server == "pyright" {
            std::fs::write(root.join("pyproject.toml"), "[project]\nname = \"w\"\n").unwrap();
            (
                root.join("a.py"),
                root.join("b.py"),
                "from b import value\n\ncount: int = value\n",
                "value: int = 1\n",
                "value: str = \"x\"\n",
                3,
            )
        } else {
            std::fs::write(root.join("package.json"), "{}").unwrap();
            std::fs::write(
                root.join("tsconfig.json"),
                r#"{"compilerOptions": {"strict": true, "noEmit": true}}"#,
            )
            .unwrap();
            (
                root.join("a.ts"),
                root.join("b.ts"),
                "import { value } from \"./b\";\nexport const count: number = value;\n",
                "export const value: number = 1;\n",
                "export const value: string = \"x\";\n",
                2,
            )
        };
        std::fs::write(&b, b_ok).unwrap();
        std::fs::write(&a, a_text).unwrap();
        let pool = Pool::new(&root, cfg).unwrap();
        let r = pool.check_file(&a, a_text, deadline(30_000)).await.unwrap();
        assert_eq!(r.errors().count(), 0, "{server}: {r:?}");
        let n = pool.disk_batches();
        std::fs::write(&b, b_bad).unwrap();
        next_batch(&pool, n).await;
        let r = pool.check_file(&a, a_text, deadline(10_000)).await.unwrap();
        assert!(
            r.diagnostics
                .iter()
                .any(|d| d.severity == Severity::Error && d.line == line),
            "{server}: a should see b's new type: {r:?}"
        );
        let groups = pgids(&pool);
        pool.shutdown().await;
        assert_gone(&groups);
    }
}
