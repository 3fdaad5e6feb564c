//! Fault and protocol tests against the scripted fake server. Each fault test checks that the
//! call returns within its deadline (+ slack), that a later call works, and that no process of
//! the server's group is left behind.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use lspedit_fake_lsp::{Event, Mode, Script};
use lspedit_lsp::{BlockingPool, LspError, Pool, ServerState, Severity};
use tracing_subscriber::layer::SubscriberExt;

use crate::harness::*;

const OK: &str = "fine line\nanother fine line\n";
const BAD: &str = "fine line\n  here is an ERROR\n";
const BAD2: &str = "ERROR first\nfine\nxx ERROR again\n";

fn script(mode: Mode) -> Script {
    Script {
        mode,
        ..Script::default()
    }
}

/// open → error; fix → gone in the very next result; break → back. For one strategy.
async fn cycle(strategy: &str, mode: Mode) {
    let ws = FakeWs::new(script(mode));
    let pool = ws.pool(strategy);
    let f = ws.file("a.fk");

    let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"], "{strategy}");
    let d = &r.diagnostics[0];
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.code.as_deref(), Some("F001"));
    assert_eq!(d.source.as_deref(), Some("fake"));
    assert_eq!((d.end_line, d.end_column), (2, 19));

    let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
    assert!(r.diagnostics.is_empty(), "{strategy}: {r:?}");

    let r = check_timed(&pool, &f, BAD2, 3000).await.unwrap();
    assert_eq!(messages(&r), vec!["1:1 found ERROR", "3:4 found ERROR"]);
    assert_eq!(r.version, 3);

    // Same text again: answered from the settled result, nothing sent.
    let r = check_timed(&pool, &f, BAD2, 3000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 2);
    assert_eq!(r.version, 3);

    let groups = pgids(&pool);
    assert_eq!(groups.len(), 1);
    pool.shutdown().await;
    assert_gone(&groups);
    assert!(!pool.is_alive(&f));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_versioned_cycle() {
    cycle("push-versioned", Mode::Push).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_cycle() {
    cycle("pull", Mode::Pull).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_unversioned_cycle() {
    cycle("push-unversioned", Mode::PushUnversioned).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsserver_pull_cycle() {
    cycle("tsserver-pull", Mode::TsserverPull).await;
}

/// The on-save strategy as rust-analyzer needs it (`lsp-configs/rust-analyzer.toml`), over a fake that
/// checks on save and, like rust-analyzer, hands the check's publish to a worker: it reaches
/// the client after the progress `end` and after answers to requests the main loop gives itself.
fn on_save_config(ws: &FakeWs, hover_barrier: bool) -> lspedit_lsp::PoolConfig {
    on_save_config_with(ws, hover_barrier, "")
}

/// [`on_save_config`] with more `diagnostics` keys (`extra`: `, key = value`…).
fn on_save_config_with(ws: &FakeWs, hover_barrier: bool, extra: &str) -> lspedit_lsp::PoolConfig {
    ws.config_for(ws.server_config_with(&format!(
        r#"strategy = "push-versioned", save = true, wait_quiescent = true, check_progress = "fake/flycheck", hover_barrier = {hover_barrier}{extra}"#
    )))
}

/// A text whose on-save check cannot run (the fake's `check_fail_marker` is `NOCHECK`).
const UNCHECKED: &str = "fine line\nNOCHECK\n";

fn on_save_script() -> Script {
    Script {
        check_on_save: true,
        ..Script::default()
    }
}

/// Regression (rust-analyzer under load, `real::rust_analyzer_e0308`): the publish a check makes
/// when it ends arrives after the progress `end` and after the unknown-method barrier; the
/// result must still be that publish, never the one before the write. break → fix → break.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_save_check_publish_after_end_is_not_missed() {
    let ws = FakeWs::new(on_save_script());
    let pool = Pool::new(ws.root(), on_save_config(&ws, true)).unwrap();
    let f = ws.file("a.fk");
    for (text, want) in [
        (BAD, vec!["2:14 found ERROR"]),
        (OK, vec![]),
        (BAD2, vec!["1:1 found ERROR", "3:4 found ERROR"]),
        (OK, vec![]),
        (BAD, vec!["2:14 found ERROR"]),
    ] {
        let r = save_check(&pool, &f, text, 5000).await.unwrap();
        assert_eq!(messages(&r), want, "{text:?}\n{}", ws.log());
    }
    // Every result came after a save, a finished check and the hover fence.
    let log = ws.log();
    assert_eq!(
        log.matches("notification textDocument/didSave").count(),
        5,
        "{log}"
    );
    assert!(
        log.matches("request textDocument/hover").count() >= 5,
        "{log}"
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// The fake really models the race: with only the unknown-method barrier as the fence (what
/// the pool used before), the fix is answered with the errors from before the write. If this
/// ever passes with fresh results, the regression test above no longer tests anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_save_fake_models_the_late_publish() {
    let ws = FakeWs::new(on_save_script());
    let pool = Pool::new(ws.root(), on_save_config(&ws, false)).unwrap();
    let f = ws.file("a.fk");
    let r = save_check(&pool, &f, BAD, 5000).await.unwrap();
    assert!(
        r.diagnostics.is_empty(),
        "first publish not yet flushed: {r:?}"
    );
    let r = save_check(&pool, &f, OK, 5000).await.unwrap();
    assert_eq!(
        messages(&r),
        vec!["2:14 found ERROR"],
        "stale by construction"
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// Regression (issue 48: two sessions on one file through the host, rust-analyzer, 7 of 20
/// results wrong): a check on save reads the file from disk, so a result is the checked text's
/// only while the disk holds that text from the save to the check's end. A text rewritten on
/// disk during its check (another session, an editor), or never saved, gets
/// `Superseded`, never the other text's diagnostics: here the other text is clean, so the
/// old answer was a false "no errors" for a broken file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_on_save_check_of_a_text_the_disk_no_longer_holds_is_no_verdict() {
    let ws = FakeWs::new(Script {
        delay_ms: 300,
        ..on_save_script()
    });
    let pool = Arc::new(Pool::new(ws.root(), on_save_config(&ws, true)).unwrap());
    let f = ws.file("a.fk");
    let changed = |r: &Result<lspedit_lsp::FileDiagnostics, LspError>| matches!(r, Err(LspError::Superseded { server, path }) if server == "fake" && *path == f);
    assert!(
        save_check(&pool, &f, OK, 5000)
            .await
            .unwrap()
            .diagnostics
            .is_empty()
    );

    // Rewritten while the server checks it: the save was sent, the check reads the disk.
    std::fs::write(&f, BAD).unwrap();
    let check = tokio::spawn({
        let (pool, f) = (pool.clone(), f.clone());
        async move { pool.check_file(&f, BAD, deadline(5000)).await }
    });
    ws.wait_log("notification textDocument/didSave", 2).await;
    std::fs::write(&f, OK).unwrap();
    let r = check.await.unwrap();
    assert!(changed(&r), "{r:?}\n{}", ws.log());

    // Never saved: the disk has another text from the start.
    std::fs::write(&f, OK).unwrap();
    let r = check_timed(&pool, &f, BAD, 5000).await;
    assert!(changed(&r), "{r:?}\n{}", ws.log());

    // Saved and left alone, the same text has its verdict.
    let r = save_check(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// A check that ends without having run (rust-analyzer when `cargo check` cannot start: its
/// build dir was removed, the toolchain is broken) publishes nothing, so the latest publish is
/// the previous text's, or none: "no errors". With `check_failed_status` the server's status
/// says so and the file's result is an error, also when the status does not change between two
/// such checks; the next check that runs answers again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_on_save_check_that_could_not_run_is_an_error_not_a_verdict() {
    unchecked_then_checked(false).await;
}

/// The same when the check could not even begin: no progress, only the status (a check that
/// never comes is not waited for until the deadline).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_on_save_check_that_could_not_begin_is_an_error_at_once() {
    unchecked_then_checked(true).await;
}

async fn unchecked_then_checked(silently: bool) {
    let ws = FakeWs::new(Script {
        check_fail_marker: Some("NOCHECK".to_owned()),
        check_fail_silently: silently,
        ..on_save_script()
    });
    let config = on_save_config_with(
        &ws,
        true,
        &format!(
            ", check_failed_status = {:?}",
            lspedit_fake_lsp::CHECK_FAILED_STATUS
        ),
    );
    let pool = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    let r = save_check(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    // A second silent failure changes nothing the server says: that one would time out.
    let texts = if silently {
        vec![UNCHECKED]
    } else {
        vec![UNCHECKED, "NOCHECK again\n"]
    };
    for text in texts {
        let r = save_check(&pool, &f, text, 5000).await;
        assert!(
            matches!(r, Err(LspError::CheckFailed { ref server }) if server == "fake"),
            "{text:?}: {r:?}\n{}",
            ws.log()
        );
    }
    let r = save_check(&pool, &f, OK, 5000).await.unwrap();
    assert!(r.diagnostics.is_empty(), "{r:?}");
    let r = save_check(&pool, &f, BAD2, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["1:1 found ERROR", "3:4 found ERROR"]);
    let failed = if silently { 1 } else { 2 };
    assert_eq!(
        ws.log().matches("check failed").count(),
        failed,
        "{}",
        ws.log()
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// The fake really models the check that could not run: without `check_failed_status`, the
/// unchecked text is answered with the previous text's errors. If this ever passes with an
/// error or fresh results, the test above no longer tests anything.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_save_fake_models_the_check_that_could_not_run() {
    let ws = FakeWs::new(Script {
        check_fail_marker: Some("NOCHECK".to_owned()),
        ..on_save_script()
    });
    let pool = Pool::new(ws.root(), on_save_config(&ws, true)).unwrap();
    let f = ws.file("a.fk");
    save_check(&pool, &f, BAD, 5000).await.unwrap();
    let r = save_check(&pool, &f, UNCHECKED, 5000).await.unwrap();
    assert_eq!(
        messages(&r),
        vec!["2:14 found ERROR"],
        "stale by construction"
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_requests_are_answered_and_unknown_notifications_ignored() {
    let ws = FakeWs::new(script(Mode::Push));
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    check_timed(&pool, &f, BAD, 5000).await.unwrap();
    // The unknown notifications did not stop anything: a second check works. It also fences
    // the log: the client answers the server's requests as it reads them, before it sends this
    // didChange, and the server reads its stdin in order, so once this check is answered every
    // response has been logged (reading the log right after the first check raced with them).
    let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    let log = ws.log();
    let responses: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| l.strip_prefix("response "))
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no response to request {id}; log:\n{log}"))
    };
    // 1: workspace/configuration → one answer per item: the section, null, everything.
    assert_eq!(
        by_id(1)["result"],
        serde_json::json!([{ "answer": 42 }, null, { "fake": { "answer": 42 } }])
    );
    // 2..5: registerCapability, workDoneProgress/create, workspaceFolders, diagnostic/refresh.
    assert!(by_id(2).get("error").is_none());
    assert!(by_id(3).get("error").is_none());
    assert_eq!(
        by_id(4)["result"][0]["uri"],
        format!("file://{}/", ws.root().display())
    );
    assert!(by_id(5).get("error").is_none());
    // 6: an unknown request → MethodNotFound.
    assert_eq!(by_id(6)["error"]["code"], -32601);
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

// Regression: params that do not fit their LSP types (a sloppy or hostile server) are read
// field by field as they always were: the same answers, no INVALID_PARAMS, the main loop goes
// on, and a publish with one malformed diagnostic keeps the well-formed ones.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_server_params_get_the_same_answers() {
    let ws = FakeWs::new(Script {
        malformed_params: true,
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    // As in `server_requests_are_answered_and_unknown_notifications_ignored`, this second check
    // fences the log.
    let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    let log = ws.log();
    let responses: Vec<serde_json::Value> = log
        .lines()
        .filter_map(|l| l.strip_prefix("response "))
        .map(|j| serde_json::from_str(j).unwrap())
        .collect();
    let by_id = |id: i64| {
        responses
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("no response to request {id}; log:\n{log}"))
    };
    // 7: a numeric section reads as none (everything); the next item still gets its section.
    assert_eq!(
        by_id(7)["result"],
        serde_json::json!([{ "fake": { "answer": 42 } }, { "answer": 42 }])
    );
    // 8: no item list, no items.
    assert_eq!(by_id(8)["result"], serde_json::json!([]));
    // 9, 11: a registration without an id, a progress token missing: acknowledged.
    assert!(by_id(9).get("error").is_none(), "{}", by_id(9));
    assert!(by_id(11).get("error").is_none(), "{}", by_id(11));
    // 10: odd params do not hide the folders.
    assert_eq!(
        by_id(10)["result"][0]["uri"],
        format!("file://{}/", ws.root().display())
    );
    // 12: an edit request without an edit is still answered as applied (nothing is applied).
    assert_eq!(by_id(12)["result"], serde_json::json!({ "applied": true }));
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// The fake's [`Script::hostile_text`] in these tests: a handler that logs it panics.
const HOSTILE: &str = "lspedit-hostile-params";

/// A tracing layer that panics on every event one of whose fields shows `text`, counting the
/// panics: a bug in the very handler that reads a server's params, set off by what the server
/// put there (no handler of the client has such a bug today; this one lets a test plant it).
struct PanicOn {
    text: &'static str,
    panics: Arc<AtomicUsize>,
}

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for PanicOn {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Shows<'a>(&'a str, bool);
        impl tracing::field::Visit for Shows<'_> {
            fn record_debug(&mut self, _: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.1 |= format!("{value:?}").contains(self.0);
            }
        }
        let mut shows = Shows(self.text, false);
        event.record(&mut shows);
        if shows.1 {
            self.panics.fetch_add(1, Ordering::SeqCst);
            panic!("a notification handler choked on its params");
        }
    }
}

/// A server whose notifications make the client's handlers panic (`$/progress`,
/// `window/logMessage`, `publishDiagnostics`, before every result): each panic is dropped with
/// its notification, the connection stays up, and the result right behind them arrives (for
/// `strategy`, a publish or the answer to a pull request), from the one server started.
async fn hostile_notifications(strategy: &str, mode: Mode) {
    let ws = FakeWs::new(Script {
        hostile_text: Some(HOSTILE.to_owned()),
        ..script(mode)
    });
    let panics = Arc::new(AtomicUsize::new(0));
    // Set for this thread only, which runs the pool (a single-threaded test runtime): no
    // other test meets it.
    let _planted = tracing::subscriber::set_default(tracing_subscriber::registry().with(PanicOn {
        text: HOSTILE,
        panics: panics.clone(),
    }));
    let pool = ws.pool(strategy);
    let f = ws.file("a.fk");
    let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"], "{strategy}");
    let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
    assert!(r.diagnostics.is_empty(), "{strategy}: {r:?}");
    let r = check_timed(&pool, &f, BAD2, 3000).await.unwrap();
    assert_eq!(
        messages(&r),
        vec!["1:1 found ERROR", "3:4 found ERROR"],
        "{strategy}"
    );
    // Not vacuous: the server sent them before every result and the handlers did panic.
    let log = ws.log();
    assert!(
        log.lines().filter(|l| *l == "hostile").count() >= 3,
        "{log}"
    );
    assert!(
        panics.load(Ordering::SeqCst) >= 3,
        "{strategy}: no handler panicked"
    );
    let status = pool.status();
    assert_eq!(status.len(), 1);
    assert_eq!(status[0].state, ServerState::Running, "{strategy}");
    pool.shutdown().await;
    let started = ws.started_pgids();
    assert_eq!(started.len(), 1, "{strategy}: the server was restarted");
    assert_gone(&started);
}

// Regression: async-lsp's `CatchUnwindLayer` guards request handlers only; a panic in a
// notification handler unwound through the main loop and ended the connection unnoticed, so
// the publish right behind it was lost and the check waited out its deadline.
#[tokio::test]
async fn a_panicking_notification_handler_loses_no_publish() {
    hostile_notifications("push-versioned", Mode::Push).await;
}

// As above, with the result as the answer to a request (`textDocument/diagnostic`).
#[tokio::test]
async fn a_panicking_notification_handler_loses_no_later_request() {
    hostile_notifications("pull", Mode::Pull).await;
}

/// A crash at `event` fails the pending call fast; after the script is fixed, the next call
/// restarts the server and works.
async fn crash_at(event: Event, mode: Mode, strategy: &str, calls_before: usize) {
    let ws = FakeWs::new(Script {
        crash_on: Some(event),
        ..script(mode)
    });
    let pool = ws.pool(strategy);
    let f = ws.file("a.fk");
    for _ in 0..calls_before {
        check_timed(&pool, &f, OK, 5000).await.unwrap();
    }
    let start = Instant::now();
    let err = check_timed(&pool, &f, BAD, 5000).await.unwrap_err();
    assert!(
        matches!(err, LspError::ServerDied { .. }),
        "{event:?}: expected a death, got {err:?}"
    );
    // Death is noticed at once, not at the deadline.
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    assert_gone(&ws.started_pgids());

    ws.set_script(script(mode));
    let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    let status = pool.status();
    assert_eq!(status.len(), 1);
    assert_eq!(status[0].state, ServerState::Running);
    pool.shutdown().await;
    let all = ws.started_pgids();
    assert_eq!(all.len(), 2, "one crashed, one restarted");
    assert_gone(&all);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_on_initialize() {
    crash_at(Event::Initialize, Mode::Push, "push-versioned", 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_on_initialized() {
    crash_at(Event::Initialized, Mode::Push, "push-versioned", 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_on_did_open() {
    crash_at(Event::DidOpen, Mode::Push, "push-versioned", 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_on_did_change() {
    crash_at(Event::DidChange, Mode::Push, "push-versioned", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_on_pull() {
    crash_at(Event::Diagnostic, Mode::Pull, "pull", 0).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_after_open_times_out_then_recovers() {
    hang_then_recover(0).await;
}

// Regression: the probe took any CPU time during its wait as "busy", so a hung server whose
// other threads ticked (or one that, starved on a loaded machine, was only then reading what
// hung it) was left running and the next check timed out on it too (a CI run failed so).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_server_whose_threads_still_tick_is_killed() {
    hang_then_recover(2).await;
}

/// A server hung since a change, whose other threads compute `tick_ms` of every 200 ms: the
/// check times out, the liveness probe kills it, the next check restarts it.
async fn hang_then_recover(tick_ms: u64) {
    let ws = FakeWs::new(Script {
        hang_on: Some(Event::DidChange),
        hang_tick_ms: tick_ms,
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    check_timed(&pool, &f, BAD, 5000).await.unwrap();
    let first = pgids(&pool);
    let err = check_timed(&pool, &f, OK, 800).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // The liveness probe after the timeout finds it hung and kills it; the next call waits
    // for that verdict and restarts the server.
    ws.set_script(script(Mode::Push));
    let r = check_timed(&pool, &f, OK, 8000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    assert_gone(&first);
    let groups = pgids(&pool);
    assert_ne!(groups, first);
    pool.shutdown().await;
    assert_gone(&groups);
}

// Regressions: under load pyright, still in its first analysis, missed the liveness probe and
// was killed three times, then marked broken (a server that computes is busy, not hung); and the
// version whose check timed out while the server was busy was later answered with the previous
// version's errors (the "unchanged text" path took an older publish as this version's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_server_that_misses_the_probe_is_not_killed() {
    // Each strategy as the bundled servers use it (typescript-language-server's tsserver-pull
    // keeps the hover barrier for its other requests), and push-unversioned behind one.
    for (mode, strategy) in [
        (Mode::Push, r#"strategy = "push-versioned""#),
        (Mode::Pull, r#"strategy = "pull""#),
        (
            Mode::TsserverPull,
            r#"strategy = "tsserver-pull", hover_barrier = true"#,
        ),
        (
            Mode::PushUnversioned,
            r#"strategy = "push-unversioned", hover_barrier = true, quiet_window_ms = 30, first_publish_timeout_ms = 400"#,
        ),
    ] {
        let ws = FakeWs::new(Script {
            busy_on: Some(Event::DidChange),
            busy_ms: 4500,
            ..script(mode)
        });
        let pool = Pool::new(ws.root(), ws.config_for(ws.server_config_with(strategy))).unwrap();
        let f = ws.file("a.fk");
        check_timed(&pool, &f, BAD, 5000).await.unwrap();
        let first = pgids(&pool);
        let err = check_timed(&pool, &f, OK, 800).await.unwrap_err();
        assert!(err.is_timeout(), "{strategy}: {err:?}");
        // The probe (2 s here) is not answered while the server computes; it is left running
        // and answers once done, for this version, never with the previous version's errors.
        let r = check_timed(&pool, &f, OK, 10_000).await.unwrap();
        assert!(r.diagnostics.is_empty(), "{strategy}: {r:?}\n{}", ws.log());
        assert_eq!(
            pgids(&pool),
            first,
            "{strategy}: the busy server was restarted"
        );
        assert_eq!(ws.started_pgids().len(), 1, "{strategy}: {}", ws.log());
        assert!(
            ws.log().contains("idle textDocument/didChange"),
            "{strategy}: {}",
            ws.log()
        );
        assert_eq!(pool.status()[0].crashes, 0, "{strategy}");
        pool.shutdown().await;
        assert_gone(&first);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_on_initialize_times_out_then_recovers() {
    let ws = FakeWs::new(Script {
        hang_on: Some(Event::Initialize),
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    let err = check_timed(&pool, &f, BAD, 800).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert_eq!(pool.status()[0].state, ServerState::Starting);
    // Startup goes on in the background until the startup timeout (3 s) kills it.
    ws.set_script(script(Mode::Push));
    let r = check_timed(&pool, &f, BAD, 8000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
    let all = ws.started_pgids();
    assert_eq!(all.len(), 2);
    assert_gone(&all);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_on_stdout_is_skipped() {
    for (mode, strategy) in [(Mode::Push, "push-versioned"), (Mode::Pull, "pull")] {
        let ws = FakeWs::new(Script {
            garbage: true,
            ..script(mode)
        });
        let pool = ws.pool(strategy);
        let f = ws.file("a.fk");
        let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
        assert_eq!(r.diagnostics.len(), 1);
        let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
        assert!(r.diagnostics.is_empty());
        let groups = pgids(&pool);
        pool.shutdown().await;
        assert_gone(&groups);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_answer_times_out_with_cancel_then_works() {
    let ws = FakeWs::new(Script {
        delay_ms: 400,
        ..script(Mode::Pull)
    });
    let pool = ws.pool("pull");
    let f = ws.file("a.fk");
    // Start the server first so the deadline below measures only the slow answer.
    check_timed(&pool, &f, OK, 5000).await.unwrap();
    let err = check_timed(&pool, &f, BAD, 100).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    // A later call with enough time works, and sees the newest text.
    let r = check_timed(&pool, &f, BAD2, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 2);
    // The abandoned request was cancelled by its own id.
    let log = ws.log();
    let requests: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("request textDocument/diagnostic "))
        .collect();
    assert_eq!(requests.len(), 3, "{log}");
    let timed_out_id = requests[1].rsplit(' ').next().unwrap();
    assert!(
        log.contains(&format!(
            "notification $/cancelRequest {{\"id\":{timed_out_id}}}"
        )),
        "no cancel for request {timed_out_id}:\n{log}"
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ignored_shutdown_is_killed_after_grace() {
    let ws = FakeWs::new(Script {
        ignore_shutdown: true,
        spawn_child: true,
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    check_timed(&pool, &f, BAD, 5000).await.unwrap();
    let groups = pgids(&pool);
    assert_eq!(
        lspedit_process::live_group_members(groups[0]).len(),
        2,
        "server and its grandchild"
    );
    let start = Instant::now();
    pool.shutdown().await;
    // shutdown request (grace) + exit wait (grace) + kill.
    assert!(start.elapsed() < Duration::from_millis(800) + SLACK * 2);
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stale_versions_and_double_publishes_are_dropped() {
    let ws = FakeWs::new(Script {
        stale_versions: true,
        publish_twice: true,
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    for (text, want) in [(BAD, 1), (OK, 0), (BAD2, 2), (OK, 0)] {
        let r = check_timed(&pool, &f, text, 3000).await.unwrap();
        assert_eq!(r.diagnostics.len(), want, "{r:?}");
        assert!(r.diagnostics.iter().all(|d| !d.message.contains("STALE")));
    }
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unversioned_without_publish_keeps_previous_result() {
    // Regression: a server that skips unchanged results must not turn "no news" into
    // "no errors".
    let ws = FakeWs::new(Script {
        skip_unchanged: true,
        ..script(Mode::PushUnversioned)
    });
    let pool = ws.pool("push-unversioned");
    let f = ws.file("a.fk");
    let r = check_timed(&pool, &f, BAD, 3000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    // Different text, same diagnostics: the fake publishes nothing.
    let r = check_timed(&pool, &f, &format!("{BAD}more fine text\n"), 3000)
        .await
        .unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    assert!(r.server_time.is_none());
    assert!(ws.log().contains("skip "));
    let r = check_timed(&pool, &f, OK, 3000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_crashes_mark_the_server_broken() {
    let ws = FakeWs::new(Script {
        crash_on: Some(Event::Initialize),
        ..script(Mode::Push)
    });
    let pool = ws.pool("push-versioned");
    let f = ws.file("a.fk");
    for _ in 0..3 {
        let err = check_timed(&pool, &f, BAD, 3000).await.unwrap_err();
        assert!(matches!(err, LspError::ServerDied { .. }), "{err:?}");
    }
    let err = check_timed(&pool, &f, BAD, 3000).await.unwrap_err();
    assert!(
        matches!(err, LspError::Broken { crashes: 3, retry_in, .. }
            if retry_in > Duration::ZERO && retry_in <= lspedit_lsp::PoolConfig::default().broken_cooldown),
        "{err:?}"
    );
    let status = pool.status();
    assert_eq!(status[0].state, ServerState::Broken);
    assert_eq!(status[0].crashes, 3);
    assert!(status[0].last_error.is_some());
    pool.shutdown().await;
    assert_gone(&ws.started_pgids());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_servers_are_stopped_and_restarted_on_use() {
    let ws = FakeWs::new(script(Mode::Push));
    let mut cfg = ws.config("push-versioned");
    cfg.idle_timeout = Duration::ZERO;
    let pool = lspedit_lsp::Pool::new(ws.root(), cfg).unwrap();
    let f = ws.file("a.fk");
    check_timed(&pool, &f, BAD, 5000).await.unwrap();
    let groups = pgids(&pool);
    pool.maintain().await;
    assert!(!pool.is_alive(&f));
    assert_gone(&groups);
    assert_eq!(pool.status()[0].crashes, 0, "an idle stop is not a crash");
    let r = check_timed(&pool, &f, BAD, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_limit_restarts_between_requests() {
    let ws = FakeWs::new(script(Mode::Push));
    let mut cfg = ws.config("push-versioned");
    // Any process is above 0 MiB... after rounding down, so use a limit it must exceed.
    cfg.memory_limit_mb = Some(0);
    let pool = lspedit_lsp::Pool::new(ws.root(), cfg).unwrap();
    let f = ws.file("a.fk");
    check_timed(&pool, &f, BAD, 5000).await.unwrap();
    let first = pgids(&pool);
    assert!(pool.status()[0].rss_kib.unwrap_or(0) > 0);
    pool.maintain().await;
    assert_gone(&first);
    let r = check_timed(&pool, &f, OK, 5000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    let second = pgids(&pool);
    assert_eq!(second.len(), 1);
    assert_ne!(second, first);
    pool.shutdown().await;
    assert_gone(&second);
}

#[test]
fn blocking_pool_works_and_drop_leaves_nothing_behind() {
    let ws = FakeWs::new(Script {
        spawn_child: true,
        ..script(Mode::Pull)
    });
    let pool = BlockingPool::new(ws.root(), ws.config("pull")).unwrap();
    let f = ws.file("sub/b.fk");
    assert!(pool.server_for(&f).is_some());
    assert!(pool.server_for(&ws.file("x.txt")).is_none());
    let r = pool.check_file(&f, BAD, deadline(5000)).unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    assert!(pool.is_alive(&f));
    let groups: Vec<u32> = pool.status().iter().filter_map(|s| s.pgid).collect();
    assert_eq!(groups.len(), 1);
    drop(pool);
    assert_gone(&groups);
}

#[test]
fn blocking_pool_drop_without_shutdown_kills_from_inside_a_runtime() {
    // Regression: callers inside an async runtime (the MCP server) use the blocking pool
    // from `spawn_blocking`; that must not panic.
    let ws = FakeWs::new(script(Mode::Push));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let root = ws.root();
    let cfg = ws.config("push-versioned");
    let f = ws.file("c.fk");
    let groups = rt.block_on(async move {
        tokio::task::spawn_blocking(move || {
            let pool = BlockingPool::new(root, cfg).unwrap();
            pool.touch(&f);
            let r = pool.check_file(&f, BAD, deadline(5000)).unwrap();
            assert_eq!(r.diagnostics.len(), 1);
            let g: Vec<u32> = pool.status().iter().filter_map(|s| s.pgid).collect();
            drop(pool);
            g
        })
        .await
        .unwrap()
    });
    assert_gone(&groups);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_outside_the_workspace_or_unconfigured_are_refused() {
    let ws = FakeWs::new(script(Mode::Push));
    let pool = ws.pool("push-versioned");
    let err = pool
        .check_file(std::path::Path::new("/etc/x.fk"), OK, deadline(1000))
        .await
        .unwrap_err();
    assert!(matches!(err, LspError::OutsideWorkspace { .. }), "{err:?}");
    let err = pool
        .check_file(&ws.file("x.txt"), OK, deadline(1000))
        .await
        .unwrap_err();
    assert!(matches!(err, LspError::NoServer { .. }), "{err:?}");
    assert!(pool.status().is_empty(), "nothing started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_binary_is_reported() {
    let ws = FakeWs::new(script(Mode::Push));
    let mut cfg = ws.config("push-versioned");
    cfg.servers[0].command = "/nonexistent/lspedit-no-such-server".to_owned();
    let pool = lspedit_lsp::Pool::new(ws.root(), cfg).unwrap();
    let err = pool
        .check_file(&ws.file("a.fk"), OK, deadline(1000))
        .await
        .unwrap_err();
    assert!(matches!(err, LspError::CommandNotFound { .. }), "{err:?}");
}

// Regression: a server that never answered `initialize` was left running (parent pid 1) when
// a short-lived owner (the CLI) ended: its group guard lived in a start task that a runtime
// shut down in the background never dropped. Eight short owners, as in the report.
#[test]
fn a_server_hung_in_initialize_dies_with_a_short_lived_owner() {
    let ws = FakeWs::new(Script {
        hang_on: Some(Event::Initialize),
        spawn_child: true,
        ..script(Mode::Pull)
    });
    let mut cfg = ws.config("pull");
    // The start would go on far longer than the owner lives.
    cfg.startup_timeout = Duration::from_secs(60);
    let f = ws.file("a.fk");
    for run in 0..8 {
        let pool = BlockingPool::new(ws.root(), cfg.clone()).unwrap();
        let err = pool.check_file(&f, BAD, deadline(200)).unwrap_err();
        assert!(err.is_timeout(), "run {run}: {err:?}");
        let listed = pool.process_groups();
        assert_eq!(listed.len(), 1, "run {run}: the starting server is listed");
        drop(pool);
        assert_gone(&listed);
    }
    let started = ws.started_pgids();
    assert_eq!(started.len(), 8, "{}", ws.log());
    assert_gone(&started);
}

// The async pool dropped without `shutdown()` while a server hangs in `initialize`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_pool_kills_a_server_still_in_initialize() {
    let ws = FakeWs::new(Script {
        hang_on: Some(Event::Initialize),
        ..script(Mode::Pull)
    });
    let mut cfg = ws.config("pull");
    cfg.startup_timeout = Duration::from_secs(60);
    let pool = Pool::new(ws.root(), cfg).unwrap();
    let err = check_timed(&pool, &ws.file("a.fk"), BAD, 200)
        .await
        .unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    let listed = pool.process_groups();
    assert_eq!(listed.len(), 1);
    drop(pool);
    assert_gone(&listed);
}

// One deadline per call: six files on a server that hangs at the first diagnostics request
// cost one deadline, not six; every file says it timed out. (The deadline holds: the cold
// server's talk at start would otherwise earn it one more look, see verdict.rs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_deadline_for_all_files_of_a_call() {
    let ws = FakeWs::new(Script {
        hang_on: Some(Event::Diagnostic),
        ..script(Mode::Pull)
    });
    let pool = Pool::new(
        ws.root(),
        lspedit_lsp::PoolConfig {
            verdict_wait: lspedit_lsp::VerdictWait::Deadline,
            ..ws.config("pull")
        },
    )
    .unwrap();
    let files: Vec<(std::path::PathBuf, String)> = (0..6)
        .map(|i| (ws.file(&format!("f{i}.fk")), BAD.to_string()))
        .collect();
    let limit = Duration::from_millis(1500);
    let t = Instant::now();
    let out = pool.check_files(files, Instant::now() + limit).await;
    let took = t.elapsed();
    assert!(took < limit + SLACK, "took {took:?} for 6 files");
    assert_eq!(out.files.len(), 6);
    for (path, r) in &out.files {
        assert!(
            matches!(r, Err(e) if e.is_timeout()),
            "{}: {r:?}",
            path.display()
        );
    }
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

// A timed-out check goes on; its answer is kept once for `take_late`; a newer check of the
// same file drops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_is_kept_once_unless_superseded() {
    let ws = FakeWs::new(Script {
        delay_ms: 600,
        ..script(Mode::Pull)
    });
    let pool = ws.pool("pull");
    let f = ws.file("a.fk");
    check_timed(&pool, &f, OK, 5000).await.unwrap();
    let err = check_timed(&pool, &f, BAD, 100).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(pool.wait_for_late(deadline(5000)).await, "no late answer");
    let late = pool.take_late(Instant::now());
    assert_eq!(late.len(), 1);
    assert_eq!(late[0].path, f);
    assert_eq!(late[0].diagnostics.len(), 1);
    assert!(
        pool.take_late(Instant::now()).is_empty(),
        "each late answer once"
    );

    // Superseded: the newer check of the file wins and the older answer is never kept.
    let err = check_timed(&pool, &f, BAD2, 100).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    let r = check_timed(&pool, &f, OK, 5000).await.unwrap();
    assert!(r.diagnostics.is_empty());
    assert!(pool.take_late(Instant::now()).is_empty());
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

// A late answer is true when shown: it is handed out only to a call that began after its check
// was asked for (the call that asked shows its own verdict, or "pending"), and only while the
// file still has the text it was computed on; a saved file changed on disk since (another
// program's write) drops it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_answer_is_handed_out_only_while_its_text_is_the_files() {
    let ws = FakeWs::new(Script {
        delay_ms: 600,
        ..script(Mode::Pull)
    });
    let pool = ws.pool("pull");
    let f = ws.file("a.fk");
    std::fs::write(&f, OK).unwrap();
    check_timed(&pool, &f, OK, 5000).await.unwrap();

    // Not to the call that asked for it; to the next one, while the file has that text.
    let began = Instant::now();
    std::fs::write(&f, BAD).unwrap();
    let err = check_timed(&pool, &f, BAD, 100).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(pool.wait_for_late(deadline(5000)).await, "no late answer");
    assert!(pool.take_late(began).is_empty(), "shown to its own call");
    let late = pool.take_late(Instant::now());
    assert_eq!(late.len(), 1, "{late:?}");
    assert_eq!(late[0].diagnostics.len(), 1);

    // Another program rewrites the file before the answer is taken: it is never shown.
    std::fs::write(&f, BAD2).unwrap();
    let err = check_timed(&pool, &f, BAD2, 100).await.unwrap_err();
    assert!(err.is_timeout(), "{err:?}");
    assert!(pool.wait_for_late(deadline(5000)).await, "no late answer");
    std::fs::write(&f, OK).unwrap();
    assert!(pool.take_late(Instant::now()).is_empty());
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

// Truth: a cached answer is not reused once another file of the root changed, and a change
// on disk by another program reaches the server on the next call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cache_follows_the_root_epoch_and_the_disk() {
    let ws = FakeWs::new(script(Mode::Pull));
    let pool = ws.pool("pull");
    let a = ws.file("a.fk");
    let b = ws.file("b.fk");
    std::fs::write(&a, OK).unwrap();
    std::fs::write(&b, OK).unwrap();
    check_timed(&pool, &a, OK, 5000).await.unwrap();
    check_timed(&pool, &b, OK, 5000).await.unwrap();
    let pulls = |ws: &FakeWs| {
        ws.log()
            .lines()
            .filter(|l| l.starts_with("request textDocument/diagnostic "))
            .count()
    };
    let before = pulls(&ws);
    // Nothing changed: answered from the cache.
    check_timed(&pool, &a, OK, 5000).await.unwrap();
    assert_eq!(pulls(&ws), before);
    // b changed through the pool: a's cached answer is void, so the call pulls a again (to
    // compare it with its "before": a is an other open document of the change); a's next
    // check is answered from that new result.
    std::fs::write(&b, BAD).unwrap();
    let before = pulls(&ws);
    check_timed(&pool, &b, BAD, 5000).await.unwrap();
    assert_eq!(pulls(&ws), before + 2, "b, and a again");
    check_timed(&pool, &a, OK, 5000).await.unwrap();
    assert_eq!(
        pulls(&ws),
        before + 2,
        "a's result of the new epoch is reused"
    );
    // Another program rewrites a: the next call re-sends it from the disk.
    std::fs::write(&a, BAD2).unwrap();
    let r = check_timed(&pool, &b, BAD, 5000).await.unwrap();
    assert_eq!(r.diagnostics.len(), 1);
    let log = ws.log();
    assert!(
        log.contains("workspace/didChangeWatchedFiles"),
        "no didChangeWatchedFiles:\n{log}"
    );
    let groups = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&groups);
}

/// A lookup about a document the server already holds as asked does not wait for a check of
/// that document in progress (which holds the document until the server's verdict: seconds on
/// a real project, right after every edit): its request reaches the server while the check
/// still waits for its answer. Before, `outline` right after an edit was not even sent until
/// the edit's own diagnostics had come back. (The fake, like most servers, then answers in
/// order: when the lookup is answered is the server's business.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lookup_does_not_wait_for_a_check_of_the_same_text() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        // The check's pull is answered only after this.
        delay_ms: 5_000,
        document_symbols: Some(serde_json::json!([{
            "name": "fine", "kind": 12,
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 9 } },
            "selectionRange": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 4 } }
        }])),
        ..Script::default()
    });
    let pool = Arc::new(ws.pool("pull"));
    let f = ws.file("a.fk");
    std::fs::write(&f, BAD).unwrap();
    let check = {
        let (pool, f) = (pool.clone(), f.clone());
        tokio::spawn(async move { pool.check_file(&f, BAD, deadline(60_000)).await })
    };
    // The check has sent the text and waits for the server's answer to its pull.
    ws.wait_log("request textDocument/diagnostic", 1).await;
    let lookup = {
        let (pool, f) = (pool.clone(), f.clone());
        tokio::spawn(async move { pool.document_symbols(&f, BAD, deadline(30_000)).await })
    };
    ws.wait_log("request textDocument/documentSymbol", 1).await;
    assert!(
        !check.is_finished(),
        "the lookup waited for the check: {}",
        ws.log()
    );
    let symbols = lookup.await.unwrap().unwrap();
    assert_eq!(symbols.symbols.len(), 1, "{symbols:?}");
    check.await.unwrap().unwrap();
    pool.shutdown().await;
}
