//! The wait for a verdict past the caller's deadline (`crates/lsp/src/verdict.rs`): a server
//! visibly working on the check (`$/progress`, CPU time) is waited for up to its
//! `verdict_cap_ms`; an idle, silent one meets the deadline.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lspedit_fake_lsp::{Event, Mode, Script};
use lspedit_lsp::{LspError, Pool, PoolConfig, VerdictProgress, VerdictWait, VerdictWaiting};

use crate::harness::*;

const BAD: &str = "fine line\n  here is an ERROR\n";

/// A pull server's pool with `verdict_cap_ms = cap_ms` and `wait`, and the reports it gives.
fn pool(ws: &FakeWs, cap_ms: u64, wait: VerdictWait) -> (Pool, Arc<Mutex<Vec<VerdictWaiting>>>) {
    let server = ws.server_config_with(&format!(r#"strategy = "pull", verdict_cap_ms = {cap_ms}"#));
    let reports: Arc<Mutex<Vec<VerdictWaiting>>> = Arc::default();
    let seen = Arc::clone(&reports);
    let config = PoolConfig {
        verdict_wait: wait,
        verdict_progress: Some(VerdictProgress(Arc::new(move |w: &VerdictWaiting| {
            seen.lock().unwrap().push(w.clone());
        }))),
        ..ws.config_for(server)
    };
    (Pool::new(ws.root(), config).unwrap(), reports)
}

fn is_timeout(r: &Result<lspedit_lsp::FileDiagnostics, LspError>) -> bool {
    matches!(r, Err(LspError::Timeout { .. }))
}

/// A cold server that keeps reporting progress past the deadline gets its verdict (the
/// library's default); once warm, the caller's deadline holds again (MCP's late answers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cold_server_reporting_progress_is_waited_for_past_the_deadline() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        delay_ms: 2_500,
        progress_ms: 200,
        ..Script::default()
    });
    let (pool, reports) = pool(&ws, 30_000, VerdictWait::Cold);
    let f = ws.file("a.fk");
    std::fs::write(&f, BAD).unwrap();
    let start = Instant::now();
    let first = pool.check_file(&f, BAD, deadline(800)).await;
    let took = start.elapsed();
    let first = first.unwrap_or_else(|e| panic!("no verdict after {took:?}: {e}"));
    assert_eq!(messages(&first).len(), 1, "{first:?}");
    assert!(took >= Duration::from_millis(800), "{took:?}");
    let reports = reports.lock().unwrap().clone();
    let report = reports
        .first()
        .expect("a report of the wait past the deadline");
    assert_eq!(report.server, "fake");
    assert_eq!(report.path, f);
    assert!(report.waited >= Duration::from_millis(700), "{report:?}");
    assert!(
        reports
            .iter()
            .any(|r| r.doing.as_deref().is_some_and(|d| d.contains("fake work"))),
        "{reports:?}"
    );

    // Warm: the short deadline holds; the answer goes to the late answers.
    let text = format!("{BAD}more\n");
    std::fs::write(&f, &text).unwrap();
    let second = check_timed(&pool, &f, &text, 800).await;
    assert!(is_timeout(&second), "{second:?}");
    pool.shutdown().await;
}

/// A one-shot caller (`VerdictWait::Cap`) waits for a warm server that reports progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_shot_check_waits_for_a_warm_server_reporting_progress() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        delay_ms: 2_000,
        progress_ms: 200,
        ..Script::default()
    });
    let (pool, _) = pool(&ws, 30_000, VerdictWait::Cap);
    let f = ws.file("a.fk");
    std::fs::write(&f, "fine\n").unwrap();
    pool.check_file(&f, "fine\n", deadline(30_000))
        .await
        .unwrap();
    assert!(pool.is_warm(&f));
    std::fs::write(&f, BAD).unwrap();
    let start = Instant::now();
    let r = pool.check_file(&f, BAD, deadline(600)).await;
    let took = start.elapsed();
    let r = r.unwrap_or_else(|e| panic!("no verdict after {took:?}: {e}"));
    assert_eq!(messages(&r).len(), 1, "{r:?}");
    assert!(took >= Duration::from_millis(600), "{took:?}");
    pool.shutdown().await;
}

/// A server that computes without a word (reanalysing after a change) is working too: its
/// CPU time says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_computing_silently_is_waited_for() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        busy_on: Some(Event::DidChange),
        busy_ms: 3_000,
        // Not a word at start either.
        server_requests: false,
        ..Script::default()
    });
    let (pool, reports) = pool(&ws, 30_000, VerdictWait::Cap);
    let f = ws.file("a.fk");
    std::fs::write(&f, "fine\n").unwrap();
    pool.check_file(&f, "fine\n", deadline(30_000))
        .await
        .unwrap();
    std::fs::write(&f, BAD).unwrap();
    let start = Instant::now();
    let r = pool.check_file(&f, BAD, deadline(800)).await;
    let took = start.elapsed();
    let r = r.unwrap_or_else(|e| panic!("no verdict after {took:?}: {e}\n{}", ws.log()));
    assert_eq!(messages(&r).len(), 1, "{r:?}");
    assert!(took >= Duration::from_millis(800), "{took:?}");
    // Nothing was said: no progress to show, only the wait.
    let reports = reports.lock().unwrap().clone();
    assert!(
        !reports.is_empty() && reports.iter().all(|r| r.doing.is_none()),
        "{reports:?}"
    );
    pool.shutdown().await;
}

/// An idle, silent server meets the short deadline even when the caller could wait for the cap.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_silent_server_meets_the_short_deadline() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        slow_suffix: Some("slow.fk".to_owned()),
        slow_ms: 60_000,
        ..Script::default()
    });
    let (pool, reports) = pool(&ws, 30_000, VerdictWait::Cap);
    let warm = ws.file("a.fk");
    std::fs::write(&warm, "fine\n").unwrap();
    pool.check_file(&warm, "fine\n", deadline(30_000))
        .await
        .unwrap();
    let f = ws.file("b_slow.fk");
    std::fs::write(&f, BAD).unwrap();
    let r = check_timed(&pool, &f, BAD, 600).await;
    let Err(LspError::Timeout { stage, .. }) = &r else {
        panic!("{r:?}");
    };
    assert!(stage.contains("idle"), "{stage}");
    assert!(reports.lock().unwrap().is_empty());
    pool.shutdown().await;
}

/// The cap bounds the wait for a server that reports progress for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cap_bounds_the_wait_for_a_working_server() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        delay_ms: 60_000,
        progress_ms: 200,
        ..Script::default()
    });
    let (pool, _) = pool(&ws, 2_500, VerdictWait::Cap);
    let f = ws.file("a.fk");
    std::fs::write(&f, BAD).unwrap();
    let start = Instant::now();
    let r = pool.check_file(&f, BAD, deadline(600)).await;
    let took = start.elapsed();
    let Err(LspError::Timeout { stage, .. }) = &r else {
        panic!("{r:?}");
    };
    assert!(stage.contains("cap"), "{stage}");
    assert!(
        took >= Duration::from_millis(2_400) && took <= Duration::from_millis(2_500) + SLACK,
        "{took:?}"
    );
    pool.shutdown().await;
}

/// `VerdictWait::Deadline`: the caller's deadline holds even for a cold, working server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deadline_mode_never_waits_past_the_deadline() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        delay_ms: 5_000,
        progress_ms: 200,
        ..Script::default()
    });
    let (pool, _) = pool(&ws, 30_000, VerdictWait::Deadline);
    let f = ws.file("a.fk");
    std::fs::write(&f, BAD).unwrap();
    let r = check_timed(&pool, &f, BAD, 800).await;
    assert!(is_timeout(&r), "{r:?}");
    pool.shutdown().await;
}
