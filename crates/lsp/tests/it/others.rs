//! The other files of a change on a pull server (issue 48, "no self-inflicted queueing"). The
//! properties: the written file's check is the first request of its pass (never queued behind
//! lspedit's own checks of other files); at most a few checks of other files are in flight at
//! a time; while a pass shows the server a changed file's previous text (to get its importers'
//! "before"), a request about the files waits for the current text, and the pass gives up those
//! "before"s (counted unchecked) rather than compute them on the wrong text.

use std::path::Path;
use std::time::{Duration, Instant};

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp::{ChangedFile, OthersWait, Pool};
use serde_json::json;

use crate::harness::*;

/// The pool over `ws` with the fake server checking `.ts` files by pull, its `[diagnostics]`
/// as given (inline TOML).
fn ts_pool(ws: &FakeWs, diagnostics: &str) -> Pool {
    let server = ws.server_config_for(r#"ts = "typescript""#, diagnostics);
    Pool::new(ws.root(), ws.config_for(server)).unwrap()
}

const IMPORTER: &str = "import { a } from \"./a\";\nlet b = a;\n";

/// `a.ts`, `c.ts` (imports nothing) and `importers` files importing `a.ts`; the server warm from
/// a check of `c.ts`, which opens none of the others.
async fn project(script: Script, importers: &[&str]) -> (FakeWs, Pool) {
    project_declaring(script, importers, r#"strategy = "pull""#).await
}

/// [`project`] with the server's `[diagnostics]` as given.
async fn project_declaring(
    script: Script,
    importers: &[&str],
    diagnostics: &str,
) -> (FakeWs, Pool) {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        cross_file: true,
        marker: "BAD".to_string(),
        ..script
    });
    std::fs::write(ws.root().join("a.ts"), "export const a = 1;\n").unwrap();
    std::fs::write(ws.root().join("c.ts"), "let c = 1;\n").unwrap();
    for name in importers {
        std::fs::write(ws.root().join(name), IMPORTER).unwrap();
    }
    let pool = ts_pool(&ws, diagnostics);
    let c = ws.root().join("c.ts");
    pool.check_file(&c, "let c = 1;\n", deadline(20_000))
        .await
        .unwrap();
    (ws, pool)
}

/// `a.ts` broken on disk, as the check of a write sees it.
fn break_a(root: &Path) -> ChangedFile {
    let new = "export const a = BAD;\n";
    std::fs::write(root.join("a.ts"), new).unwrap();
    ChangedFile {
        path: root.join("a.ts"),
        text: new.into(),
        previous: Some("export const a = 1;\n".into()),
    }
}

/// `b.ts` is among the outcome's other files, with the error `a.ts`'s break gives it (`F002`).
fn assert_b_broken(out: &lspedit_lsp::CheckOutcome) {
    let b = out
        .others
        .iter()
        .find(|o| o.path.ends_with("b.ts"))
        .unwrap_or_else(|| panic!("b.ts is not in the outcome: {out:#?}"));
    assert!(
        b.after.iter().any(|d| d.code.as_deref() == Some("F002")),
        "{b:#?}"
    );
}

/// The file names of the fake server's `pull` / `pulled` log lines from `from` on, in order:
/// (began, name).
fn pulls(log: &str, from: usize) -> Vec<(bool, String)> {
    log[from..]
        .lines()
        .filter_map(|l| {
            let (began, uri) = match l.split_once(' ')? {
                ("pull", uri) => (true, uri),
                ("pulled", uri) => (false, uri),
                _ => return None,
            };
            Some((began, uri.rsplit('/').next()?.to_string()))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_written_file_is_checked_first_and_other_files_a_few_at_a_time() {
    let importers: Vec<String> = (0..8).map(|i| format!("b{i}.ts")).collect();
    let names: Vec<&str> = importers.iter().map(String::as_str).collect();
    let (ws, pool) = project(
        Script {
            delay_ms: 100,
            ..Script::default()
        },
        &names,
    )
    .await;
    let from = ws.log().len();
    let out = pool
        .check_change(vec![break_a(&ws.root())], deadline(30_000))
        .await;

    let a = out.files[0].1.as_ref().unwrap();
    assert_eq!(messages(a), ["1:18 found BAD"], "{out:#?}");
    // Every importer, none of whose "before" was known, is reported with its new error.
    for name in &names {
        let other = out
            .others
            .iter()
            .find(|o| o.path.ends_with(name))
            .unwrap_or_else(|| panic!("{name} missing: {out:#?}"));
        let new = |d: &&lspedit_lsp::Diagnostic| d.code.as_deref() == Some("F002");
        assert!(
            other.before.iter().find(new).is_none() && other.after.iter().any(|d| new(&d)),
            "{name}: {other:#?}"
        );
    }
    assert_eq!(out.others_unchecked, 0, "{out:#?}");

    let log = pulls(&ws.log(), from);
    assert_eq!(log.first(), Some(&(true, "a.ts".to_string())), "{log:?}");
    let mut in_flight: i32 = 0;
    let mut most = 0;
    for (began, _) in &log {
        in_flight += if *began { 1 } else { -1 };
        most = most.max(in_flight);
    }
    assert!(most <= 3, "{most} checks in flight at once: {log:?}");
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_during_the_other_files_check_sees_the_current_text() {
    // b.ts takes the server long to check: its "before" is pulled while the server holds
    // a.ts's previous text.
    let (ws, pool) = project(
        Script {
            slow_suffix: Some("/b.ts".to_string()),
            slow_ms: 3000,
            document_symbols: Some(json!([])),
            ..Script::default()
        },
        &["b.ts"],
    )
    .await;
    let root = ws.root();
    let from = ws.log().len();
    let check = tokio::spawn({
        let pool = pool.clone();
        let changed = break_a(&root);
        async move { pool.check_change(vec![changed], deadline(30_000)).await }
    });
    // Wait for the pull of b.ts's "before": the server now has a.ts's previous text.
    let by = Instant::now() + Duration::from_secs(20);
    while !pulls(&ws.log(), from).contains(&(true, "b.ts".to_string())) {
        assert!(Instant::now() < by, "b.ts was never pulled: {}", ws.log());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let a = root.join("a.ts");
    let asked_at = ws.log().len();
    pool.document_symbols(&a, "export const a = BAD;\n", deadline(20_000))
        .await
        .unwrap();
    // The request reached the server after a.ts's current text did.
    let log = ws.log();
    let request = log[asked_at..]
        .find("request textDocument/documentSymbol")
        .map(|i| asked_at + i)
        .unwrap_or_else(|| panic!("no documentSymbol request: {log}"));
    let last_text = log[..request]
        .lines()
        .rev()
        .find(|l| {
            (l.starts_with("notification textDocument/didChange")
                || l.starts_with("notification textDocument/didOpen"))
                && l.contains("/a.ts\"")
        })
        .unwrap_or_else(|| panic!("a.ts never sent: {log}"));
    assert!(last_text.contains("BAD"), "the request saw: {last_text}");

    // b.ts's "before" was given up, not computed on a.ts's new text: it is counted as not
    // checked, never reported as checked with the change's error already in its "before".
    let out = check.await.unwrap();
    assert!(
        out.others
            .iter()
            .filter(|o| o.path.ends_with("b.ts"))
            .all(|o| !o.before.iter().any(|d| d.code.as_deref() == Some("F002"))),
        "{out:#?}"
    );
    assert_eq!(out.others_unchecked, 1, "{out:#?}");
    pool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_changes_late_other_files_are_kept_once_the_new_texts_are_back() {
    // The caller does not wait for other files; b.ts, never seen before, is checked against
    // a.ts's previous text and then its new one, after the call returned.
    let (ws, pool) = project(
        Script {
            slow_suffix: Some("/b.ts".to_string()),
            slow_ms: 300,
            ..Script::default()
        },
        &["b.ts"],
    )
    .await;
    let out = pool
        .check_change_within(
            vec![break_a(&ws.root())],
            deadline(20_000),
            OthersWait::For(Duration::ZERO),
        )
        .await;
    assert_eq!(out.others_pending, 2, "b.ts and c.ts: {out:#?}");
    assert!(pool.wait_for_late_others(deadline(20_000)).await);
    let late = pool.take_late_others(Instant::now());
    let b = late
        .iter()
        .find(|o| o.path.ends_with("b.ts"))
        .unwrap_or_else(|| panic!("b.ts's late result was dropped: {late:#?}"));
    let new = |d: &lspedit_lsp::Diagnostic| d.code.as_deref() == Some("F002");
    assert!(
        !b.before.iter().any(new) && b.after.iter().any(new),
        "{b:#?}"
    );
    pool.shutdown().await;
}

/// Item 2 of issue 48: the callers a change broke come in the result of the edit that broke
/// them. With the default wait ([`OthersWait::Declared`]) the caller waits for the files that
/// name what the change touched up to the server's declared `dependents_wait_ms` after the
/// written file's verdict: an importer whose check ends within it is in the same outcome.
/// (Before: the tools never waited, and the importer's error came a call late.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dependents_checked_within_the_servers_declared_wait_come_in_the_same_outcome() {
    let (ws, pool) = project_declaring(
        Script {
            slow_suffix: Some("/b.ts".to_string()),
            slow_ms: 300,
            ..Script::default()
        },
        &["b.ts"],
        r#"strategy = "pull", dependents_wait_ms = 20000"#,
    )
    .await;
    let out = pool
        .check_change_within(
            vec![break_a(&ws.root())],
            deadline(30_000),
            OthersWait::Declared,
        )
        .await;
    assert_b_broken(&out);
    // c.ts (an open document) names nothing the change touched: it is not waited for, so it
    // is in the outcome if its check (after b.ts's: the fake answers one request at a time)
    // finished by then, and counted pending otherwise. Nothing else is left.
    let c_in = out.others.iter().any(|o| o.path.ends_with("c.ts"));
    assert_eq!(out.others_pending, usize::from(!c_in), "{out:#?}");
    pool.shutdown().await;
}

/// Only the stragglers go to a later result: when the wait for other files ends, those whose
/// checks finished are in the outcome, the rest are counted as pending, and the later results
/// hold only the stragglers (a file is reported once). `d.ts` is slow to check; the server
/// answers one request at a time, so `c.ts` (an open document, checked after the dependents)
/// waits behind it; `b.ts` is checked first. (Before: the outcome had none of them and counted
/// all three pending.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_the_wait_ends_the_finished_other_files_come_and_only_the_stragglers_later() {
    let (ws, pool) = project(
        Script {
            slow_suffix: Some("/d.ts".to_string()),
            slow_ms: 4000,
            ..Script::default()
        },
        &["b.ts", "d.ts"],
    )
    .await;
    // d.ts's "before" is known (it was checked), so only its "after" is slow.
    let d = ws.root().join("d.ts");
    pool.check_file(&d, IMPORTER, deadline(20_000))
        .await
        .unwrap();
    let out = pool
        .check_change_within(
            vec![break_a(&ws.root())],
            deadline(30_000),
            OthersWait::For(Duration::from_secs(2)),
        )
        .await;
    let names = |files: &[lspedit_lsp::OtherFileDiagnostics]| -> Vec<String> {
        let mut n: Vec<String> = files
            .iter()
            .map(|o| o.path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(&out.others), ["b.ts"], "{out:#?}");
    assert_eq!(out.others_pending, 2, "c.ts and d.ts: {out:#?}");
    assert!(pool.wait_for_late_others(deadline(20_000)).await);
    let late = pool.take_late_others(Instant::now());
    assert_eq!(names(&late), ["c.ts", "d.ts"], "{late:#?}");
    assert!(
        late[1]
            .after
            .iter()
            .any(|d| d.code.as_deref() == Some("F002")),
        "{late:#?}"
    );
    pool.shutdown().await;
}

/// The other files' wait counts from the written file's verdict, not from the caller's
/// deadline: a one-shot caller (`VerdictWait::Cap`) that waited past its deadline for a server
/// reporting progress still gets the importer's result in the same outcome. (Before: the
/// others' wait ended at the deadline, already past, and the importer was left pending.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_verdict_past_the_deadline_leaves_the_other_files_their_wait() {
    let ws = FakeWs::new(Script {
        mode: Mode::Pull,
        cross_file: true,
        marker: "BAD".to_string(),
        delay_ms: 1_000,
        progress_ms: 200,
        ..Script::default()
    });
    std::fs::write(ws.root().join("a.ts"), "export const a = 1;\n").unwrap();
    std::fs::write(ws.root().join("b.ts"), IMPORTER).unwrap();
    let server = ws.server_config_for(
        r#"ts = "typescript""#,
        r#"strategy = "pull", verdict_cap_ms = 30000"#,
    );
    let config = lspedit_lsp::PoolConfig {
        verdict_wait: lspedit_lsp::VerdictWait::Cap,
        ..ws.config_for(server)
    };
    let pool = Pool::new(ws.root(), config).unwrap();
    let a = ws.root().join("a.ts");
    pool.check_file(&a, "export const a = 1;\n", deadline(20_000))
        .await
        .unwrap();
    let out = pool
        .check_change_within(
            vec![break_a(&ws.root())],
            deadline(300),
            OthersWait::UntilDeadline,
        )
        .await;
    assert!(out.files[0].1.is_ok(), "no verdict: {out:#?}");
    assert_eq!(out.others_pending, 0, "{out:#?}");
    assert_b_broken(&out);
    pool.shutdown().await;
}

/// `a.ts` (exporting `a` and `z`), `c.ts`, six importers of `a` (`b0.ts`..`b5.ts`) and
/// `y.ts`, which imports `z` and comes last in the importers' order (by path); every pull takes
/// the server `delay_ms`, and the caller's declared wait is 20 s.
async fn importers_of_a_and_z(delay_ms: u64) -> (FakeWs, Pool) {
    let names: Vec<String> = (0..6).map(|i| format!("b{i}.ts")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (ws, pool) = project_declaring(
        Script {
            delay_ms,
            ..Script::default()
        },
        &names,
        r#"strategy = "pull", dependents_wait_ms = 20000"#,
    )
    .await;
    std::fs::write(ws.root().join("a.ts"), A_AND_Z).unwrap();
    std::fs::write(
        ws.root().join("y.ts"),
        "import { z } from \"./a\";\nlet y = z;\n",
    )
    .unwrap();
    (ws, pool)
}

const A_AND_Z: &str = "export const a = 1;\nexport const z = 2;\n";

/// `a.ts` of [`importers_of_a_and_z`] changed to `new` on disk, as the check of a write sees it.
fn change_a(root: &Path, new: &str) -> ChangedFile {
    std::fs::write(root.join("a.ts"), new).unwrap();
    ChangedFile {
        path: root.join("a.ts"),
        text: new.into(),
        previous: Some(A_AND_Z.into()),
    }
}

/// The callers a change most likely broke (the files that name what it touched, `likely.rs`)
/// are checked first and waited for; the rest are checked after them and not waited for.
/// Breaking `z` touches `z`, which only `y.ts` names: `y.ts` is checked first although it comes
/// last by path, it is in the outcome with its error, and the call returns without waiting for
/// every importer of `a.ts`. (Before: the caller waited up to the declared 20 s for all seven,
/// `y.ts` checked last.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_files_that_name_what_a_change_touched_are_checked_first_and_waited_for() {
    let (ws, pool) = importers_of_a_and_z(300).await;
    let from = ws.log().len();
    let out = pool
        .check_change_within(
            vec![change_a(
                &ws.root(),
                "export const a = 1;\nexport const z = BAD;\n",
            )],
            deadline(30_000),
            OthersWait::Declared,
        )
        .await;
    let y = out
        .others
        .iter()
        .find(|o| o.path.ends_with("y.ts"))
        .unwrap_or_else(|| panic!("y.ts is not in the outcome: {out:#?}"));
    assert!(
        y.after.iter().any(|d| d.code.as_deref() == Some("F002")),
        "{y:#?}"
    );
    assert!(
        out.others_pending > 0,
        "every other file was waited for: {out:#?}"
    );
    // Of the other files, y.ts's check (its "before", then its "after") is sent first.
    let log = ws.log();
    let first_pull = |name: &str| {
        pulls(&log, from)
            .iter()
            .position(|(began, n)| *began && n == name)
            .unwrap_or_else(|| panic!("{name} never pulled:\n{}", &log[from..]))
    };
    let y_at = first_pull("y.ts");
    for i in 0..6 {
        assert!(y_at < first_pull(&format!("b{i}.ts")), "{}", &log[from..]);
    }
    assert!(pool.wait_passes_done(deadline(30_000)).await);
    pool.shutdown().await;
}

/// A change no other file names anything of is not waited for: adding `q`, which no file
/// uses, returns with the written file's verdict and counts every other file as still being
/// checked. (Before: the caller waited up to the declared 20 s for all of them.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_no_other_file_names_anything_of_waits_for_none() {
    let (ws, pool) = importers_of_a_and_z(1_000).await;
    let out = pool
        .check_change_within(
            vec![change_a(
                &ws.root(),
                "export const a = 1;\nexport const z = 2;\nexport const q = BAD;\n",
            )],
            deadline(30_000),
            OthersWait::Declared,
        )
        .await;
    assert_eq!(
        messages(out.files[0].1.as_ref().unwrap()),
        ["3:18 found BAD"],
        "{out:#?}"
    );
    // b0..b5, y and c: none finished when the call returned.
    assert!(out.others.is_empty(), "{out:#?}");
    assert_eq!(out.others_pending, 8, "{out:#?}");
    assert!(pool.wait_passes_done(deadline(60_000)).await);
    pool.shutdown().await;
}
