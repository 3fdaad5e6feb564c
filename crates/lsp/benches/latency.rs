//! Write → diagnostics latency of the pool per real server.
//!
//! For every installed server: cold start to first diagnostics (fresh pool), then ≥ 30 warm
//! edits alternating a broken and a fixed version of a file from `test-projects/`, reporting
//! p50/p95 of the whole `check_file` call next to the server's own time (send → its first
//! answer: the publish or pull reply) and the difference (pool overhead + settling). Also the
//! pool process's own resident memory. Prints a Markdown table.
//!
//! Run: `cargo bench -p lspedit-lsp --bench latency` (after `scripts/install-servers`).
//! `LSPEDIT_BENCH_EDITS=N` changes the number of warm edits (default 30).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    reason = "a benchmark binary reports on stdout and fails loudly"
)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_lsp::{Pool, PoolConfig};

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    breakage: (&'static str, &'static str),
}

const CASES: &[Case] = &[
    Case {
        server: "tsc7",
        project: "ts-basic",
        file: "src/index.ts",
        breakage: ("add(1, 2)", "\"three\""),
    },
    Case {
        server: "typescript-language-server",
        project: "ts-basic",
        file: "src/index.ts",
        breakage: ("add(1, 2)", "\"three\""),
    },
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/main.py",
        breakage: ("add(40, 2)", "\"forty-two\""),
    },
    Case {
        server: "clangd",
        project: "c-basic",
        file: "main.c",
        breakage: ("return 0;", "return missing_value;"),
    },
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        breakage: ("add(40, 2)", "\"forty-two\""),
    },
];

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for entry in std::fs::read_dir(src).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "node_modules" {
            continue;
        }
        let to = dst.join(&name);
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[idx]
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}

fn self_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

async fn bench(case: &Case, edits: usize) -> Option<String> {
    let cfg = PoolConfig::bundled().unwrap().only(&[case.server]);
    let decl = cfg.server(case.server).unwrap();
    if cfg.resolve_command(decl).is_none() {
        eprintln!("{}: not installed, skipped", case.server);
        return None;
    }
    let tmp = tempfile::tempdir().unwrap();
    let src: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(case.project);
    copy_dir(&src, tmp.path());
    let root = tmp.path().canonicalize().unwrap();
    let path = root.join(case.file);
    let good = std::fs::read_to_string(&path).unwrap();
    let bad = good.replacen(case.breakage.0, case.breakage.1, 1);
    let pool = Pool::new(&root, cfg).unwrap();

    let start = Instant::now();
    std::fs::write(&path, &bad).unwrap();
    let first = pool
        .check_file(&path, &bad, Instant::now() + Duration::from_secs(120))
        .await
        .unwrap();
    let cold = start.elapsed();
    assert!(first.errors().count() > 0, "{}: no error on open", case.server);

    let mut total = Vec::new();
    let mut server = Vec::new();
    let mut overhead = Vec::new();
    for i in 0..edits {
        let text = if i % 2 == 0 { &good } else { &bad };
        std::fs::write(&path, text).unwrap();
        let t = Instant::now();
        let r = pool
            .check_file(&path, text, Instant::now() + Duration::from_secs(30))
            .await
            .unwrap();
        let took = t.elapsed();
        assert_eq!(r.errors().count() == 0, i % 2 == 0, "{}: wrong result", case.server);
        total.push(took);
        if let Some(s) = r.server_time {
            server.push(s);
            overhead.push(took.saturating_sub(s));
        }
    }
    let rss = pool
        .status()
        .first()
        .and_then(|s| s.rss_kib)
        .unwrap_or(0);
    pool.shutdown().await;
    total.sort();
    server.sort();
    overhead.sort();
    Some(format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
        case.server,
        ms(cold),
        edits,
        ms(percentile(&total, 0.5)),
        ms(percentile(&total, 0.95)),
        ms(percentile(&server, 0.5)),
        ms(percentile(&server, 0.95)),
        ms(percentile(&overhead, 0.5)),
        ms(percentile(&overhead, 0.95)),
        rss / 1024,
    ))
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else to parse.
    let edits: usize = std::env::var("LSPEDIT_BENCH_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let rss_before = self_rss_kib();
    let rows: Vec<String> = CASES
        .iter()
        .filter_map(|c| rt.block_on(bench(c, edits)))
        .collect();
    let rss_after = self_rss_kib();
    println!(
        "| server | cold start → first diagnostics (ms) | warm edits | write → result p50 (ms) | p95 | server's own time p50 (ms) | p95 | difference p50 (ms) | p95 | server RSS (MiB) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        println!("{r}");
    }
    println!();
    println!(
        "Pool process resident memory (bench binary, servers excluded): {} MiB before, {} MiB after all runs.",
        rss_before / 1024,
        rss_after / 1024
    );
}
