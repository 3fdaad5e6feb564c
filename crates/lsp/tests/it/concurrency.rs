//! Concurrency: many files on one server, concurrent first calls, one process per root, and
//! the cap on running servers.

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp::ServerState;

use crate::harness::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_files_in_parallel_on_one_server() {
    for (mode, strategy) in [(Mode::Push, "push-versioned"), (Mode::Pull, "pull")] {
        let ws = FakeWs::new(Script {
            mode,
            ..Script::default()
        });
        let pool = ws.pool(strategy);
        // All first calls race: exactly one process must be spawned.
        let tasks: Vec<_> = (0..20)
            .map(|i| {
                let pool = pool.clone();
                let f = ws.file(&format!("f{i}.fk"));
                tokio::spawn(async move {
                    let text = "ok\n".repeat(i) + "ERROR\n";
                    let r = check_timed(&pool, &f, &text, 10_000).await.unwrap();
                    assert_eq!(r.diagnostics.len(), 1);
                    assert_eq!(r.diagnostics[0].line as usize, i + 1);
                    // And a second round, changing every file.
                    let r = check_timed(&pool, &f, "ok\n", 5000).await.unwrap();
                    assert!(r.diagnostics.is_empty());
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
        assert_eq!(ws.started_pgids().len(), 1, "{strategy}: one process");
        let status = pool.status();
        assert_eq!(status.len(), 1);
        assert_eq!(status[0].open_documents, 20);
        pool.shutdown().await;
        assert_gone(&ws.started_pgids());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_roots_two_processes() {
    let ws = FakeWs::new(Script::default());
    let root = ws.root();
    for p in ["one", "two"] {
        std::fs::create_dir_all(root.join(p).join("src")).unwrap();
        std::fs::write(root.join(p).join("fake.root"), "").unwrap();
    }
    let pool = ws.pool("push-versioned");
    let a = root.join("one/src/a.fk");
    let b = root.join("two/src/b.fk");
    let (ra, rb) = tokio::join!(
        check_timed(&pool, &a, "ERROR\n", 5000),
        check_timed(&pool, &b, "ok\n", 5000)
    );
    assert_eq!(ra.unwrap().diagnostics.len(), 1);
    assert!(rb.unwrap().diagnostics.is_empty());
    let status = pool.status();
    assert_eq!(status.len(), 2);
    assert_eq!(status[0].key.root, root.join("one"));
    assert_eq!(status[1].key.root, root.join("two"));
    assert!(status.iter().all(|s| s.state == ServerState::Running));
    assert_ne!(status[0].pgid, status[1].pgid);
    // A file next to the workspace root, without a marker, gets a third root: the workspace.
    let c = root.join("c.fk");
    check_timed(&pool, &c, "ok\n", 5000).await.unwrap();
    assert_eq!(pool.status().len(), 3);
    pool.shutdown().await;
    assert_gone(&ws.started_pgids());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn running_cap_evicts_least_recently_used() {
    let ws = FakeWs::new(Script::default());
    let root = ws.root();
    for p in ["one", "two", "three"] {
        std::fs::create_dir_all(root.join(p)).unwrap();
        std::fs::write(root.join(p).join("fake.root"), "").unwrap();
    }
    let mut cfg = ws.config("push-versioned");
    cfg.max_running = 2;
    let pool = lspedit_lsp::Pool::new(&root, cfg).unwrap();
    for p in ["one", "two", "three"] {
        check_timed(&pool, &root.join(p).join("x.fk"), "ERROR\n", 5000)
            .await
            .unwrap();
    }
    let started = ws.started_pgids();
    assert_eq!(started.len(), 3);
    // "one" was least recently used when "three" started.
    assert_gone(&started[..1]);
    let running: Vec<_> = pool
        .status()
        .into_iter()
        .filter(|s| s.state == ServerState::Running)
        .map(|s| s.key.root)
        .collect();
    assert_eq!(running, vec![root.join("three"), root.join("two")]);
    // Using "one" again restarts it (and evicts "two").
    let r = check_timed(&pool, &root.join("one/x.fk"), "ok\n", 5000)
        .await
        .unwrap();
    assert!(r.diagnostics.is_empty());
    pool.shutdown().await;
    assert_gone(&ws.started_pgids());
}

// `max_processes`: a server's own cap; starting a root past it stops its least recently used
// idle process (the next use of that root restarts it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_processes_caps_one_server() {
    let ws = FakeWs::new(Script::default());
    let root = ws.root();
    for p in ["one", "two", "three"] {
        std::fs::create_dir_all(root.join(p)).unwrap();
        std::fs::write(root.join(p).join("fake.root"), "").unwrap();
    }
    let mut server = ws.server_config("push-versioned");
    server.max_processes = Some(2);
    let pool = lspedit_lsp::Pool::new(&root, ws.config_for(server)).unwrap();
    for p in ["one", "two", "three"] {
        let f = root.join(p).join("a.fk");
        let r = check_timed(&pool, &f, "ERROR\n", 5000).await.unwrap();
        assert_eq!(r.diagnostics.len(), 1, "{p}");
    }
    let running: Vec<_> = pool
        .status()
        .into_iter()
        .filter(|s| s.state == ServerState::Running)
        .map(|s| s.key.root)
        .collect();
    assert_eq!(running, vec![root.join("three"), root.join("two")]);
    pool.shutdown().await;
    assert_gone(&ws.started_pgids());
}
