//! End-to-end `edit` latency of the agent tools (issue: tools with diagnostics feedback).
//!
//! Two figures:
//! - `edit` on a 10,000-line file with no language server (no provider): the whole tool call
//!   (lock, read, search/replace, atomic write with fsync, success message, display diff).
//! - `edit` with a warm real server (tsc7, pyright, clangd, rust-analyzer; each only when
//!   installed): the whole tool call including the diagnostics block, next to the server's own
//!   time for that check (send → its first answer, as the pool measures it), and the difference
//!   (everything lspedit adds: the tool's own work plus the pool's settling and bookkeeping).
//!
//! Edits alternate a breaking and a fixing replacement, and every result is checked (the block
//! is present exactly when the file is broken), so a fast wrong answer cannot pass.
//!
//! Run: `cargo bench -p lspedit-tools --bench edit` (after `scripts/install-servers`).
//! `LSPEDIT_BENCH_EDITS=N` sets the number of warm edits per server (default 30);
//! `LSPEDIT_BENCH_NO_SERVERS=1` runs only the no-server case (e.g. under `perf record`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    reason = "a benchmark binary reports on stdout and fails loudly"
)]

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lspedit_fake_lsp::support::{copy_project, percentile};
use lspedit_lsp::{BlockingPool, PoolConfig};
use lspedit_tools::{
    ChangedFile, CheckError, CheckReport, DiagnosticsProvider, Tools, ToolsConfig,
};
use lspedit_write::Workspace;

/// The pool as a provider that also remembers the server's own time of its last check.
struct TimedPool {
    pool: BlockingPool,
    last_server_time: Mutex<Option<Duration>>,
}

impl DiagnosticsProvider for TimedPool {
    fn handles(&self, path: &Path) -> bool {
        self.pool.server_for(path).is_some()
    }

    fn is_warm(&self, path: &Path) -> bool {
        self.pool.is_warm(path)
    }

    fn check_files(&self, files: &[ChangedFile], deadline: Instant) -> CheckReport {
        // Without the previous texts, as this benchmark always measured: the edit's own check,
        // not the pull server's look at the files that import it.
        let files = files
            .iter()
            .map(|f| ChangedFile {
                previous: None,
                ..f.clone()
            })
            .collect();
        let outcome = self.pool.check_change(files, deadline);
        let mut report = CheckReport::default();
        for (_, r) in outcome.files {
            report.files.push(match r {
                Ok(r) => {
                    *self.last_server_time.lock().unwrap() = r.server_time;
                    Ok(r.diagnostics)
                }
                Err(e) => Err(CheckError::from(e)),
            });
        }
        report
    }

    fn touch(&self, path: &Path) {
        self.pool.touch(path);
    }
}

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    good: &'static str,
    bad: &'static str,
}

const CASES: &[Case] = &[
    Case {
        server: "tsc7",
        project: "ts-basic",
        file: "src/index.ts",
        good: "add(1, 2)",
        bad: "\"three\"",
    },
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/main.py",
        good: "add(40, 2)",
        bad: "\"forty-two\"",
    },
    Case {
        server: "clangd",
        project: "c-basic",
        file: "main.c",
        good: "return 0;",
        bad: "return missing_value;",
    },
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        good: "add(40, 2)",
        bad: "\"forty-two\"",
    },
];

fn ms(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1e3)
}

/// `edit` with no provider on a 10,000-line file.
fn no_server(edits: usize) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..10_000 {
        text.push_str(&format!(
            "    let value_{i} = compute({i}, \"item {i}\");\n"
        ));
    }
    std::fs::write(tmp.path().join("big.rs"), &text).unwrap();
    let tools = Tools::new(
        Workspace::open(tmp.path()).unwrap(),
        None,
        ToolsConfig::default(),
    );
    let (a, b) = (
        "let value_5000 = compute(5000, \"item 5000\");",
        "let value_5000 = compute(5000, \"changed\");",
    );
    for _ in 0..5 {
        assert!(!tools.edit("big.rs", a, b, false).is_error);
        assert!(!tools.edit("big.rs", b, a, false).is_error);
    }
    let mut times = Vec::with_capacity(edits);
    for i in 0..edits {
        let (old, new) = if i % 2 == 0 { (a, b) } else { (b, a) };
        let t = Instant::now();
        let r = tools.edit("big.rs", old, new, false);
        times.push(t.elapsed());
        assert!(!r.is_error, "{}", r.llm_content);
    }
    times.sort();
    // The durable write alone (temp file, fsync, rename, directory fsync) of the same bytes:
    // the floor under any `edit` that keeps docs/design.md §6's crash guarantee.
    let bytes = std::fs::read(tmp.path().join("big.rs")).unwrap();
    let mut writes = Vec::with_capacity(edits);
    for _ in 0..edits {
        let t = Instant::now();
        tools.workspace().write_atomic("big.rs", &bytes).unwrap();
        writes.push(t.elapsed());
    }
    writes.sort();
    // The engine's part alone: the search and the new bytes, in memory.
    let opts = lspedit_engine::ApplyOptions::default();
    let mut engine = Vec::with_capacity(edits);
    for _ in 0..edits {
        let t = Instant::now();
        let r = lspedit_engine::search_replace_bytes(&bytes, a, b, false, &opts);
        engine.push(t.elapsed());
        assert!(r.is_ok());
    }
    engine.sort();
    let row = |name: &str, t: &[Duration]| {
        format!(
            "| {name} | {edits} | {} | {} | {} |",
            ms(percentile(t, 0.5)),
            ms(percentile(t, 0.95)),
            ms(t[0])
        )
    };
    [
        row("`edit`, no server, 10,000-line file", &times),
        row("`Workspace::write_atomic` alone, same file", &writes),
        row(
            "`search_replace_bytes` alone (engine, in memory), same file",
            &engine,
        ),
    ]
    .join("\n")
}

/// `edit` with a warm real server; `None` when the server is not installed.
fn warm(case: &Case, edits: usize) -> Option<String> {
    let cfg = PoolConfig::bundled().unwrap().only(&[case.server]);
    if cfg
        .resolve_command(cfg.server(case.server).unwrap())
        .is_none()
    {
        eprintln!("{}: not installed, skipped", case.server);
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(case.project);
    copy_project(&src, tmp.path()).unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let provider = Arc::new(TimedPool {
        pool: BlockingPool::new(&root, cfg).unwrap(),
        last_server_time: Mutex::new(None),
    });
    let mut config = ToolsConfig::default();
    // Cold starts (rust-analyzer indexing the sysroot) may take longer than the tools' default;
    // the warm-up below waits for them, the measured edits then run against a warm server.
    config.diagnostics.start_timeout = Some(Duration::from_secs(120));
    config.diagnostics.timeout = Some(Duration::from_secs(30));
    let tools = Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        config,
    );
    let has_block = |s: &str| s.contains("LSP errors detected in this file");
    // Warm up until the server answers with the error (cold start, indexing).
    let r = tools.edit(case.file, case.good, case.bad, false);
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        has_block(&r.llm_content),
        "{}: no error on warm-up",
        case.server
    );
    let r = tools.edit(case.file, case.bad, case.good, false);
    assert!(!has_block(&r.llm_content), "{}: stale error", case.server);

    let (mut total, mut server, mut diff) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..edits {
        let breaking = i % 2 == 0;
        let (old, new) = if breaking {
            (case.good, case.bad)
        } else {
            (case.bad, case.good)
        };
        *provider.last_server_time.lock().unwrap() = None;
        let t = Instant::now();
        let r = tools.edit(case.file, old, new, false);
        let took = t.elapsed();
        assert!(!r.is_error, "{}", r.llm_content);
        assert_eq!(
            has_block(&r.llm_content),
            breaking,
            "{}: wrong result on edit {i}:\n{}",
            case.server,
            r.llm_content
        );
        total.push(took);
        if let Some(s) = *provider.last_server_time.lock().unwrap() {
            server.push(s);
            diff.push(took.saturating_sub(s));
        }
    }
    provider.pool.shutdown();
    total.sort();
    server.sort();
    diff.sort();
    Some(format!(
        "| `edit`, warm {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        case.server,
        edits,
        ms(percentile(&total, 0.5)),
        ms(percentile(&total, 0.95)),
        ms(percentile(&server, 0.5)),
        ms(percentile(&server, 0.95)),
        ms(percentile(&diff, 0.5)),
        ms(percentile(&diff, 0.95)),
        server.len(),
    ))
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    let edits: usize = std::env::var("LSPEDIT_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    println!("| case | edits | total p50 (ms) | p95 | min |");
    println!("|---|---:|---:|---:|---:|");
    println!("{}", no_server(edits.max(100)));
    if std::env::var_os("LSPEDIT_BENCH_NO_SERVERS").is_some() {
        return;
    }
    println!();
    println!(
        "| case | edits | total p50 (ms) | p95 | server's own time p50 (ms) | p95 | difference p50 (ms) | p95 | edits with a server time |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for case in CASES {
        if let Some(row) = warm(case, edits) {
            println!("{row}");
        }
    }
}
