//! The server host (`lspedit_lsp::host`), run in-process on a thread of its own with the
//! pools' configuration, against the scripted fake server: pools of one workspace share one
//! server, each client's texts stay its own, a client that leaves leaves the server warm, a
//! stop leaves no process, and without a usable host a pool runs its server itself. The host
//! answers only hellos carrying its token, and a workspace removed and created again at the
//! same path gets a fresh server.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lspedit_fake_lsp::{Mode, Probe, Script};
use lspedit_lsp::host::daemon::{HostOptions, serve};
use lspedit_lsp::host::{self, HostError, HostStatus, Reply};
use lspedit_lsp::{HostConfig, LspError, Pool, PoolConfig};

use crate::harness::*;

const OK: &str = "fine line\nanother fine line\n";
const BAD: &str = "fine line\n  here is an ERROR\n";
const BAD2: &str = "ERROR first\nfine\nxx ERROR again\n";

/// A host serving a workspace from `config`, its sockets in a directory of its own.
pub(crate) struct TestHost {
    runtime: tempfile::TempDir,
    root: PathBuf,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The options of a host of `root` with its sockets in `runtime`.
fn options(root: &Path, runtime: &Path, config: PoolConfig) -> HostOptions {
    HostOptions {
        root: root.to_owned(),
        idle: Duration::from_secs(120),
        runtime_dir: Some(runtime.to_owned()),
        config: Some(config),
    }
}

impl TestHost {
    fn start(ws: &FakeWs, config: PoolConfig) -> TestHost {
        TestHost::start_at(&ws.root(), config)
    }

    /// A host of the workspace at `root` (a real server's project).
    pub(crate) fn start_at(root: &Path, config: PoolConfig) -> TestHost {
        let runtime = private_dir();
        let options = options(root, runtime.path(), config);
        let (ready_tx, ready) = std::sync::mpsc::channel();
        let thread = std::thread::spawn(move || {
            let served = serve(&options, |_| {
                let _ = ready_tx.send(());
            });
            assert!(served.is_ok(), "host: {served:?}");
        });
        ready
            .recv_timeout(Duration::from_secs(10))
            .expect("the host listens");
        TestHost {
            runtime,
            root: root.to_owned(),
            thread: Some(thread),
        }
    }

    /// `config` with its servers in this host (never started by a pool: the program is not
    /// there, so a pool that cannot attach runs the server itself).
    pub(crate) fn client_config(&self, mut config: PoolConfig) -> PoolConfig {
        config.host = Some(HostConfig {
            program: PathBuf::from("/nonexistent/lspedit"),
            args: Vec::new(),
            idle: Duration::from_secs(120),
            runtime_dir: Some(self.runtime.path().to_owned()),
        });
        config
    }

    fn socket(&self) -> PathBuf {
        host::socket_path(self.runtime.path(), &self.root)
    }

    fn token_file(&self) -> PathBuf {
        self.runtime.path().join(host::TOKEN_FILE)
    }

    pub(crate) fn status(&self) -> HostStatus {
        host::status(&self.root, Some(self.runtime.path())).unwrap()
    }

    pub(crate) fn stop(mut self) -> HostStatus {
        let stopped = host::stop(&self.root, Some(self.runtime.path())).unwrap();
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
        stopped
    }
}

impl Drop for TestHost {
    fn drop(&mut self) {
        if self.thread.is_some() {
            let _ = host::stop(&self.root, Some(self.runtime.path()));
        }
    }
}

/// A temp directory only this user can enter (the host refuses any other).
fn private_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

/// Writes `text` to `path`, then checks it: what a tool does after a write.
async fn write_check(pool: &Pool, path: &Path, text: &str) -> Vec<String> {
    std::fs::write(path, text).unwrap();
    let r = check_timed(pool, path, text, 5000).await.unwrap();
    messages(&r)
}

async fn two_pools_share_one_server(strategy: &str, mode: Mode) {
    let ws = FakeWs::new(Script {
        mode,
        ..Script::default()
    });
    let host = TestHost::start(&ws, ws.config(strategy));
    let a = Pool::new(ws.root(), host.client_config(ws.config(strategy))).unwrap();
    let b = Pool::new(ws.root(), host.client_config(ws.config(strategy))).unwrap();
    let f = ws.file("a.fk");

    assert_eq!(
        write_check(&a, &f, BAD).await,
        vec!["2:14 found ERROR"],
        "{strategy}"
    );
    // B's text is the server's now; B never gets A's error as its own.
    assert!(write_check(&b, &f, OK).await.is_empty(), "{strategy}");
    // A's text again: sent again, since the server had B's.
    assert_eq!(
        write_check(&a, &f, BAD).await,
        vec!["2:14 found ERROR"],
        "{strategy}"
    );
    assert!(write_check(&b, &f, OK).await.is_empty(), "{strategy}");

    // One server process for both.
    assert_eq!(ws.started_pgids().len(), 1, "{strategy}: {}", ws.log());
    assert_eq!(pgids(&a), pgids(&b));
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    assert_eq!(
        (status.servers[0].clients, status.servers[0].served),
        (2, 2)
    );

    a.shutdown().await;
    b.shutdown().await;
    let group = status.servers[0].pgid;
    let stopped = host.stop();
    assert_eq!(stopped.servers.len(), 1);
    assert_gone(&[group]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pools_share_one_server_push_versioned() {
    two_pools_share_one_server("push-versioned", Mode::Push).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pools_share_one_server_pull() {
    two_pools_share_one_server("pull", Mode::Pull).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_pools_share_one_server_push_unversioned() {
    two_pools_share_one_server("push-unversioned", Mode::PushUnversioned).await;
}

/// The class of the check on save's defect, for a server that publishes only on change
/// (typescript-language-server publishes nothing when a text's diagnostics are the ones it
/// published last): B's latest publish says clean; A's broken text then reaches the server,
/// which publishes the error to A only; B's next text has the same error, so the server
/// publishes nothing. B's verdict is the server's last publish (the error), never B's own
/// older "clean" — which was a false "no errors".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_the_server_publishes_nothing_for_is_judged_by_its_last_publish() {
    judged_by_the_last_publish(false).await;
}

/// [`a_text_the_server_publishes_nothing_for_is_judged_by_its_last_publish`] when A sent that
/// same text first: the server holds it already, with nothing published for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_the_server_holds_unpublished_is_judged_by_its_last_publish() {
    judged_by_the_last_publish(true).await;
}

async fn judged_by_the_last_publish(a_sends_it_first: bool) {
    let ws = FakeWs::new(Script {
        mode: Mode::PushUnversioned,
        skip_unchanged: true,
        ..Script::default()
    });
    let config = ws.config("push-unversioned");
    let host = TestHost::start(&ws, config.clone());
    let a = Pool::new(ws.root(), host.client_config(config.clone())).unwrap();
    let b = Pool::new(ws.root(), host.client_config(config)).unwrap();
    let f = ws.file("a.fk");
    assert!(write_check(&b, &f, OK).await.is_empty());
    // A's texts only (B would follow a change on disk, and get the error that way).
    let r = check_timed(&a, &f, BAD, 5000).await.unwrap();
    assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    let same_error = format!("{BAD}one more fine line\n");
    if a_sends_it_first {
        let r = check_timed(&a, &f, &same_error, 5000).await.unwrap();
        assert_eq!(messages(&r), vec!["2:14 found ERROR"]);
    }
    let skips = ws.log().matches("skip ").count();
    assert_eq!(
        write_check(&b, &f, &same_error).await,
        vec!["2:14 found ERROR"],
        "{}",
        ws.log()
    );
    // B's text went in as a change the server published nothing for, or not at all.
    let skipped = usize::from(!a_sends_it_first);
    assert_eq!(
        ws.log().matches("skip ").count(),
        skips + skipped,
        "{}",
        ws.log()
    );
    end_sessions(host, &[&a, &b]).await;
}

/// A pool that shuts down detaches: the server stays up, warm, for the next client, with no
/// document of the first left open in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_leaves_the_server_warm_for_the_next() {
    let ws = FakeWs::new(Script::default());
    let host = TestHost::start(&ws, ws.config("push-versioned"));
    let f = ws.file("a.fk");

    let first = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    assert_eq!(write_check(&first, &f, BAD).await.len(), 1);
    let group = pgids(&first);
    first.shutdown().await;
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    assert_eq!(status.servers[0].clients, 0);

    let second = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    // Warm from the start: the host has served a client with this server.
    assert!(write_check(&second, &f, OK).await.is_empty());
    // The host closed the first pool's document when it left (before the status above said
    // no client was attached), so the server had it before the second pool's text.
    assert!(ws.log().contains("didClose"), "{}", ws.log());
    assert!(second.is_warm(&f));
    assert_eq!(pgids(&second), group);
    assert_eq!(ws.started_pgids().len(), 1, "{}", ws.log());
    second.shutdown().await;
    host.stop();
    assert_gone(&group);
}

/// A host whose launch of the server differs (another environment) refuses it, and a host
/// nobody listens on cannot be started from a missing program: either way the pool runs the
/// server itself and the check is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_usable_host_the_pool_runs_its_own_server() {
    let ws = FakeWs::new(Script::default());
    let mut other = ws.config("push-versioned");
    other.servers[0]
        .env
        .insert("SOMETHING_ELSE".into(), "1".into());
    let host = TestHost::start(&ws, other);
    let pool = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    let f = ws.file("a.fk");
    assert_eq!(write_check(&pool, &f, BAD).await.len(), 1);
    assert!(host.status().servers.is_empty(), "the host refused it");
    let mine = pgids(&pool);
    assert_eq!(mine.len(), 1);
    pool.shutdown().await;
    assert_gone(&mine);
    host.stop();

    // No host at all, and none can be started.
    let ws = FakeWs::new(Script::default());
    let runtime = private_dir();
    let mut config = ws.config("push-versioned");
    config.host = Some(HostConfig {
        program: PathBuf::from("/nonexistent/lspedit"),
        args: Vec::new(),
        idle: Duration::from_secs(60),
        runtime_dir: Some(runtime.path().to_owned()),
    });
    let pool = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    assert_eq!(write_check(&pool, &f, BAD).await.len(), 1);
    let mine = pgids(&pool);
    pool.shutdown().await;
    assert_gone(&mine);
}

/// The server dies in the host: the attached pool's check says so (no error text is
/// invented), and the next check starts it again through the host.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_in_the_host_is_started_again_through_it() {
    let ws = FakeWs::new(Script::default());
    let host = TestHost::start(&ws, ws.config("push-versioned"));
    let pool = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    let f = ws.file("a.fk");
    assert_eq!(write_check(&pool, &f, BAD).await.len(), 1);
    let first = host.status().servers[0].pgid;
    lspedit_process::kill_group(first);
    assert_gone(&[first]);
    // The death reaches the pool when its connection closes; the check after it restarts.
    let mut answered = None;
    for _ in 0..5 {
        std::fs::write(&f, OK).unwrap();
        if let Ok(r) = pool.check_file(&f, OK, deadline(5000)).await {
            answered = Some(r);
            break;
        }
    }
    let r = answered.expect("a check answered after the restart");
    assert!(r.diagnostics.is_empty());
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    assert_ne!(status.servers[0].pgid, first);
    pool.shutdown().await;
    let group = status.servers[0].pgid;
    host.stop();
    assert_gone(&[group]);
}

/// Two clients send different texts of one file at once to a slow server: each gets the
/// diagnostics of its own text, never the other's under its own version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_texts_of_one_file_each_get_their_own_diagnostics() {
    for mode in [Mode::Push, Mode::Pull] {
        let strategy = if mode == Mode::Push {
            "push-versioned"
        } else {
            "pull"
        };
        let ws = FakeWs::new(Script {
            mode,
            delay_ms: 200,
            ..Script::default()
        });
        let host = TestHost::start(&ws, ws.config(strategy));
        let a = Pool::new(ws.root(), host.client_config(ws.config(strategy))).unwrap();
        let b = Pool::new(ws.root(), host.client_config(ws.config(strategy))).unwrap();
        let f = ws.file("a.fk");
        std::fs::write(&f, BAD).unwrap();
        for round in 0..3 {
            let (ra, rb) = tokio::join!(
                a.check_file(&f, BAD, deadline(8000)),
                b.check_file(&f, OK, deadline(8000)),
            );
            // Versioned publishes route each answer to its text. A pull answer has no version:
            // while the other text reached the server it is ContentModified, asked again, and
            // may run out of retries; it is never the other text's answer.
            for (who, r, want) in [("a", ra, vec!["2:14 found ERROR"]), ("b", rb, vec![])] {
                match r {
                    Ok(r) => assert_eq!(messages(&r), want, "{strategy} round {round} {who}"),
                    Err(LspError::Request { code: -32801, .. }) if mode == Mode::Pull => {}
                    Err(e) => panic!("{strategy} round {round} {who}: {e:?}"),
                }
            }
        }
        // One at a time, a pull client always gets its own text's answer.
        assert_eq!(write_check(&a, &f, BAD).await, vec!["2:14 found ERROR"]);
        assert!(write_check(&b, &f, OK).await.is_empty());
        assert_eq!(ws.started_pgids().len(), 1, "{}", ws.log());
        end_sessions(host, &[&a, &b]).await;
    }
}

/// The pools leave, the host stops, and its one server's processes are gone.
async fn end_sessions(host: TestHost, pools: &[&Pool]) {
    for pool in pools {
        pool.shutdown().await;
    }
    let group = host.status().servers[0].pgid;
    host.stop();
    assert_gone(&[group]);
}

/// A host of a new workspace whose fake server checks on save as rust-analyzer does, each check
/// taking `delay_ms`, and the configuration pools attach to it with.
fn on_save_host(delay_ms: u64) -> (FakeWs, TestHost, PoolConfig) {
    on_save_host_with(Script {
        delay_ms,
        ..Script::default()
    })
}

/// [`on_save_host`] with the rest of the fake's `script` as given.
fn on_save_host_with(script: Script) -> (FakeWs, TestHost, PoolConfig) {
    let ws = FakeWs::new(Script {
        check_on_save: true,
        ..script
    });
    let server = ws.server_config_with(
        r#"strategy = "push-versioned", save = true, wait_quiescent = true, check_progress = "fake/flycheck", hover_barrier = true"#,
    );
    let config = ws.config_for(server);
    let host = TestHost::start(&ws, config.clone());
    let client = host.client_config(config);
    (ws, host, client)
}

/// Regression (issue 48, item 5: two sessions editing one file through the host with
/// rust-analyzer, 7 of 20 results wrong): a server that checks on save reads the file from
/// disk, which the other session may have rewritten, and publishes under its own version of
/// the document, which the other session's text may have become (the host routes a publish to
/// the client whose text it is about). Two pools each write their text of one file and check
/// it at the same time, round after round, each going first in turn and each text broken in
/// turn: each answer is its own text's diagnostics or `Superseded`, never the other text's.
/// Alone, each gets its verdict again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_saving_one_file_get_their_own_verdict_or_none() {
    let (ws, host, config) = on_save_host(100);
    let a = Pool::new(ws.root(), config.clone()).unwrap();
    let b = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    let (mut verdicts, mut superseded) = (0, 0);
    for round in 0..8 {
        let (ta, tb) = if round % 4 < 2 { (BAD, OK) } else { (OK, BAD) };
        let (ra, rb) = if round % 2 == 0 {
            tokio::join!(save_check(&a, &f, ta, 8000), save_check(&b, &f, tb, 8000))
        } else {
            let (rb, ra) = tokio::join!(save_check(&b, &f, tb, 8000), save_check(&a, &f, ta, 8000));
            (ra, rb)
        };
        for (who, r, text) in [("a", ra, ta), ("b", rb, tb)] {
            let want = if text == BAD {
                vec!["2:14 found ERROR"]
            } else {
                vec![]
            };
            match r {
                Ok(r) => {
                    verdicts += 1;
                    assert_eq!(messages(&r), want, "round {round}, {who}: {}", ws.log());
                }
                Err(LspError::Superseded { .. }) => superseded += 1,
                Err(e) => panic!("round {round}, {who}: {e:?}\n{}", ws.log()),
            }
        }
    }
    // How many of each depends on timing (and a text checked before is answered from the
    // cache): what holds is that none was wrong.
    eprintln!("two sessions: {verdicts} verdicts, {superseded} superseded");
    assert_eq!(write_check(&a, &f, BAD).await, vec!["2:14 found ERROR"]);
    assert!(write_check(&b, &f, OK).await.is_empty());
    assert_eq!(write_check(&a, &f, OK).await, Vec::<String>::new());
    assert_eq!(write_check(&b, &f, BAD).await, vec!["2:14 found ERROR"]);
    assert_eq!(ws.started_pgids().len(), 1, "{}", ws.log());
    end_sessions(host, &[&a, &b]).await;
}

/// Regression (issue 48, item 5; CI of stop 57: the real rust-analyzer gave a session the other
/// text's E0308 through the host): rust-analyzer publishes nothing when a check finds what it
/// published last for the document, so the verdict is the server's last publish — which, through
/// the host, may have gone to another client's text. A's latest publish is its own old error;
/// B's check then cleared it (published to B only); B's next text reaches the server, so A's
/// clean text goes in as a change, and its check publishes nothing new: A's verdict is the
/// server's last publish (clean), never A's own older one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_publishes_nothing_new_is_judged_by_the_servers_last_publish() {
    let (ws, host, config) = on_save_host_with(Script {
        skip_unchanged: true,
        ..Script::default()
    });
    let a = Pool::new(ws.root(), config.clone()).unwrap();
    let b = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    assert_eq!(write_check(&a, &f, BAD).await, vec!["2:14 found ERROR"]);
    assert!(write_check(&b, &f, OK).await.is_empty());
    // B's next text reaches the server; the disk does not hold it, so B gets no verdict.
    let r = check_timed(&b, &f, BAD2, 5000).await;
    assert!(matches!(r, Err(LspError::Superseded { .. })), "{r:?}");
    let skips = ws.log().matches("skip ").count();
    assert!(write_check(&a, &f, OK).await.is_empty(), "{}", ws.log());
    assert_eq!(ws.log().matches("skip ").count(), skips + 1, "{}", ws.log());
    end_sessions(host, &[&a, &b]).await;
}

/// A publish of the document during a client's check on save that goes to another client's
/// text (the server's late publish of an older version) may be the last the server makes, and
/// so the verdict of a check that finds the same: the client never saw it, and gets no verdict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_publish_during_a_check_that_goes_to_another_text_voids_it() {
    let (ws, host, config) = on_save_host_with(Script {
        stale_versions: true,
        ..Script::default()
    });
    let a = Pool::new(ws.root(), config.clone()).unwrap();
    let b = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    // Each check publishes its result, then one for the server's previous version: A's check,
    // for version 0 (no client's text); B's, for version 1 (A's text).
    for (pool, text, stale) in [(&a, BAD, " Some(0) 1\n"), (&b, OK, " Some(1) 1\n")] {
        std::fs::write(&f, text).unwrap();
        let r = check_timed(pool, &f, text, 5000).await;
        assert!(
            matches!(r, Err(LspError::Superseded { .. })),
            "{r:?}\n{}",
            ws.log()
        );
        assert!(ws.log().contains(stale), "{}", ws.log());
    }
    end_sessions(host, &[&a, &b]).await;
}

/// The host runs one client's check on save of a document at a time: a save that comes while
/// another client's check of the file runs reaches the server only once that client's check has
/// ended (its fence answered), and then gets its own verdict; the first, whose text the second
/// rewrote on disk meanwhile, gets none. Without the turn the second save reached the server
/// during the first check, and either could take the other's check for its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_during_another_sessions_check_waits_for_its_end() {
    let (ws, host, config) = on_save_host(400);
    let a = std::sync::Arc::new(Pool::new(ws.root(), config.clone()).unwrap());
    let b = Pool::new(ws.root(), config).unwrap();
    let f = ws.file("a.fk");
    assert!(write_check(&b, &f, OK).await.is_empty());
    let from = ws.log().len();

    std::fs::write(&f, BAD).unwrap();
    let first = tokio::spawn({
        let (a, f) = (a.clone(), f.clone());
        async move { a.check_file(&f, BAD, deadline(8000)).await }
    });
    ws.wait_log(
        "notification textDocument/didSave",
        ws.log()[..from]
            .matches("notification textDocument/didSave")
            .count()
            + 1,
    )
    .await;
    let second = save_check(&b, &f, BAD2, 8000).await.unwrap();
    assert_eq!(
        messages(&second),
        vec!["1:1 found ERROR", "3:4 found ERROR"],
        "{}",
        ws.log()
    );
    let first = first.await.unwrap();
    assert!(
        matches!(first, Err(LspError::Superseded { .. })),
        "{first:?}\n{}",
        ws.log()
    );
    // In the server's log: the first save, its check's fence, then the second save.
    let log = ws.log();
    let order: Vec<&str> = log[from..]
        .lines()
        .filter(|l| {
            l.starts_with("notification textDocument/didSave")
                || l.starts_with("request textDocument/hover")
        })
        .take(3)
        .collect();
    assert!(
        order.len() == 3
            && order[0].starts_with("notification textDocument/didSave")
            && order[1].starts_with("request textDocument/hover")
            && order[2].starts_with("notification textDocument/didSave"),
        "{order:?}\n{log}"
    );
    end_sessions(host, &[&a, &b]).await;
}

/// Sends `line` as the first line on the host's socket, as any process of this user that can
/// reach the socket could, and returns the host's answer.
fn raw_hello(socket: &Path, line: &str) -> Reply {
    let mut stream = UnixStream::connect(socket).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(format!("{line}\n").as_bytes()).unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

/// The hellos a process without the token could send: none, a wrong one (the host's own with
/// its first digit changed), and protocol 1's shape; for `status`, `stop` and `connect`.
fn hellos_without_the_token(token: &str, root: &Path) -> Vec<String> {
    let first = if token.starts_with('0') { "1" } else { "0" };
    let wrong = format!("{first}{}", &token[1..]);
    let connect = serde_json::json!({
        "server": "fake", "root": root, "launch": "0", "session": "0",
    });
    let mut out = Vec::new();
    for op in ["status", "stop", "connect"] {
        let mut hello = connect.clone();
        hello["op"] = op.into();
        if op != "connect" {
            hello = serde_json::json!({ "op": op });
        }
        hello["v"] = host::PROTOCOL.into();
        out.push(hello.to_string());
        hello["token"] = wrong.clone().into();
        out.push(hello.to_string());
        hello["token"] = "not hex".into();
        out.push(hello.to_string());
        hello.as_object_mut().unwrap().remove("token");
        hello["v"] = 1.into();
        out.push(hello.to_string());
    }
    out
}

/// Regression (issue 44, item 5): the socket answered `status`, `stop` and `connect` to any
/// process of the user, a language server's code too. Now a hello without the token of the
/// runtime directory gets a refusal and nothing else: the host and its server keep running,
/// no server starts, and a genuine client is served as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hello_without_the_token_is_refused_and_the_host_keeps_serving() {
    let ws = FakeWs::new(Script::default());
    let host = TestHost::start(&ws, ws.config("push-versioned"));
    let f = ws.file("a.fk");
    let pool = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    assert_eq!(write_check(&pool, &f, BAD).await, vec!["2:14 found ERROR"]);
    let group = host.status().servers[0].pgid;

    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(host.token_file()).unwrap();
    assert!(meta.file_type().is_file());
    assert_eq!(meta.mode() & 0o7777, 0o600, "the token file is owner-only");
    let token = std::fs::read_to_string(host.token_file()).unwrap();
    assert_eq!(token.len(), 64);

    let hellos = hellos_without_the_token(&token, &ws.root());
    assert_eq!(hellos.len(), 12);
    for hello in &hellos {
        match raw_hello(&host.socket(), hello) {
            Reply::Refused(why) => {
                assert!(
                    !why.contains(&token[1..]),
                    "a refusal tells nothing of the token"
                )
            }
            other => panic!("{hello} was answered {other:?}"),
        }
    }

    // Still running, the same server, nothing else started; the pool still checks through it.
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    assert_eq!(
        (status.servers[0].pgid, status.servers[0].clients),
        (group, 1)
    );
    assert!(!lspedit_process::live_group_members(group).is_empty());
    assert!(write_check(&pool, &f, OK).await.is_empty());
    assert_eq!(ws.started_pgids(), vec![group], "{}", ws.log());

    // A genuine client (the token read from the file) is served: the line as `host::status`
    // sends it.
    let genuine = format!(
        r#"{{"v":{},"token":"{token}","op":"status"}}"#,
        host::PROTOCOL
    );
    assert!(matches!(
        raw_hello(&host.socket(), &genuine),
        Reply::Status(_)
    ));

    pool.shutdown().await;
    assert_eq!(host.stop().servers.len(), 1);
    assert_gone(&[group]);
}

/// The token file is read only when it is a regular file of this user with mode 0600, never
/// through a symlink: otherwise neither a host starts nor a client asks, and a pool runs its
/// server itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_file_that_is_a_symlink_or_open_to_others_is_refused() {
    let ws = FakeWs::new(Script::default());
    let elsewhere = private_dir();
    let target = elsewhere.path().join("token");
    std::fs::write(&target, "ab".repeat(32)).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();

    let linked = private_dir();
    std::os::unix::fs::symlink(&target, linked.path().join(host::TOKEN_FILE)).unwrap();
    let open = private_dir();
    let file = open.path().join(host::TOKEN_FILE);
    std::fs::write(&file, "ab".repeat(32)).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();

    for runtime in [&linked, &open] {
        let served = serve(
            &options(&ws.root(), runtime.path(), ws.config("push-versioned")),
            |_| panic!("a host listened with {:?}", runtime.path()),
        );
        assert!(matches!(served, Err(HostError::Token(_))), "{served:?}");
        let asked = host::status(&ws.root(), Some(runtime.path()));
        assert!(matches!(asked, Err(HostError::Token(_))), "{asked:?}");
        let mut config = ws.config("push-versioned");
        config.host = Some(HostConfig {
            program: PathBuf::from("/nonexistent/lspedit"),
            args: Vec::new(),
            idle: Duration::from_secs(60),
            runtime_dir: Some(runtime.path().to_owned()),
        });
        let pool = Pool::new(ws.root(), config).unwrap();
        assert_eq!(write_check(&pool, &ws.file("a.fk"), BAD).await.len(), 1);
        let mine = pgids(&pool);
        pool.shutdown().await;
        assert_gone(&mine);
    }
    // Neither file was replaced or followed.
    assert!(
        std::fs::symlink_metadata(linked.path().join(host::TOKEN_FILE))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "ab".repeat(32));
}

/// The sandbox grants a hosted server nothing in the runtime directory: it cannot read the
/// token (EACCES from Landlock), while it reads the workspace (the positive control).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosted_server_cannot_read_the_token() {
    if !matches!(
        lspedit_process::sandbox::support(),
        lspedit_process::sandbox::Support::Landlock { .. }
    ) {
        eprintln!("SKIPPED: this kernel has no Landlock; servers run unconfined here");
        return;
    }
    let ws = FakeWs::new(Script::default());
    let host = TestHost::start(&ws, ws.config("push-versioned"));
    let token = host.token_file().display().to_string();
    let control = ws.script_file.display().to_string();
    ws.set_script(Script {
        probes: vec![Probe::Read(token.clone()), Probe::Read(control.clone())],
        ..Script::default()
    });
    let pool = Pool::new(ws.root(), host.client_config(ws.config("push-versioned"))).unwrap();
    // The probes run before the server reads the document: logged once this is answered.
    assert_eq!(write_check(&pool, &ws.file("a.fk"), BAD).await.len(), 1);
    let log = ws.log();
    assert!(
        log.contains(&format!("probe read {control} ok")),
        "the control: {log}"
    );
    assert!(
        log.contains(&format!(
            "probe read {token} denied PermissionDenied errno 13"
        )),
        "{log}"
    );
    let group = host.status().servers[0].pgid;
    pool.shutdown().await;
    host.stop();
    assert_gone(&[group]);
}

/// Removes the workspace `root` and creates it again with other content, as `rm -rf ws` and a
/// new clone at the same path do; the fake's script and log are written afresh in it.
fn create_again(ws: &FakeWs, root: &Path) {
    std::fs::remove_dir_all(root).unwrap();
    std::fs::create_dir(root).unwrap();
    std::fs::write(root.join("other.fk"), "a file of the new tree\n").unwrap();
    std::fs::write(&ws.log_file, "").unwrap();
    ws.set_script(Script::default());
}

/// Regression (issue 44, item 6): after `rm -rf ws` and a new clone at the same path, the
/// hosted server kept answering for the old directory. Now a connect finds the directory
/// changed and gets a fresh server, the old one stops, a client attached to the old one is
/// detached and comes back to the fresh one; and a request of an attached client, with no
/// connect in between, also finds the tree changed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_created_again_at_the_same_path_gets_a_fresh_server() {
    let ws = FakeWs::new(Script::default());
    let root = ws.root();
    let host = TestHost::start(&ws, ws.config("push-versioned"));
    let f = root.join("a.fk");
    let a = Pool::new(
        root.clone(),
        host.client_config(ws.config("push-versioned")),
    )
    .unwrap();
    assert_eq!(write_check(&a, &f, BAD).await.len(), 1);
    let old = host.status().servers[0].pgid;
    assert_eq!(ws.started_pgids(), vec![old]);

    create_again(&ws, &root);
    // A new client's connect: a fresh server, started in the new tree (its log is the new
    // tree's), and the old one is gone.
    let b = Pool::new(
        root.clone(),
        host.client_config(ws.config("push-versioned")),
    )
    .unwrap();
    assert!(write_check(&b, &f, OK).await.is_empty());
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    let fresh = status.servers[0].pgid;
    assert_ne!(fresh, old, "the old tree's server answered");
    assert_eq!(ws.started_pgids(), vec![fresh], "{}", ws.log());
    assert_eq!(pgids(&b), vec![fresh]);
    assert_gone(&[old]);

    // The pool attached to the old server was detached: its next check, after its pool
    // starts the server again, is the fresh server's.
    let answered = check_until_answered(&a, &f, BAD).await;
    assert_eq!(messages(&answered), vec!["2:14 found ERROR"]);
    assert_eq!(pgids(&a), vec![fresh]);
    b.shutdown().await;

    // Again, with only the attached client: its next request finds the tree changed.
    create_again(&ws, &root);
    let answered = check_until_answered(&a, &f, OK).await;
    assert!(answered.diagnostics.is_empty());
    let status = host.status();
    assert_eq!(status.servers.len(), 1, "{status:?}");
    let third = status.servers[0].pgid;
    assert_ne!(third, fresh, "the old tree's server answered");
    assert_eq!(ws.started_pgids(), vec![third], "{}", ws.log());
    assert_eq!(pgids(&a), vec![third]);
    assert_gone(&[fresh]);

    a.shutdown().await;
    host.stop();
    assert_gone(&[third]);
}

/// Checks `text` of `path`, asking again while the pool's server connection was just closed
/// under it (a detached client's pool starts its server again on the next check).
async fn check_until_answered(
    pool: &Pool,
    path: &Path,
    text: &str,
) -> lspedit_lsp::FileDiagnostics {
    std::fs::write(path, text).unwrap();
    for _ in 0..5 {
        if let Ok(r) = pool.check_file(path, text, deadline(5000)).await {
            return r;
        }
    }
    panic!("no check of {} answered", path.display());
}

/// A host that exits removes its socket only when the file there is still the one it bound:
/// a newer host's socket at the same path (bound after a stop, or while this one was exiting)
/// stays, or that host could be reached by no client.
#[test]
fn an_exiting_host_leaves_a_newer_hosts_socket() {
    use std::os::unix::fs::MetadataExt;
    let ws = FakeWs::new(Script::default());
    let runtime = private_dir();
    let options = options(&ws.root(), runtime.path(), ws.config("push-versioned"));
    let (ready_tx, ready) = std::sync::mpsc::channel();
    let thread = std::thread::spawn(move || {
        serve(&options, |socket| {
            let _ = ready_tx.send(socket.to_owned());
        })
    });
    let socket = ready.recv_timeout(Duration::from_secs(10)).unwrap();
    // A newer host's socket takes the path; then the workspace goes, and the host exits at its
    // next look (every 5 s).
    std::fs::remove_file(&socket).unwrap();
    let newer = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let newer_ino = std::fs::symlink_metadata(&socket).unwrap().ino();
    std::fs::remove_dir_all(ws.root()).unwrap();
    assert!(thread.join().unwrap().is_ok());
    let meta = std::fs::symlink_metadata(&socket).expect("the newer host's socket is left");
    assert_eq!(meta.ino(), newer_ino);
    drop(newer);
}
