//! Write → diagnostics latency of one bundled server on any project, through the pool: the
//! cold check (server start, project load, first result) and warm one-line edits that
//! alternate a broken and a fixed text, each result checked against the text just written.
//!
//! ```text
//! cargo run -p lspedit-lsp --example latency -- <server> <root> <file> <broken line> [edits [strategy]]
//! ```
//!
//! `strategy` (as spelled in a config: `push-unversioned`) replaces the bundled one, to compare.
//!
//! `<broken line>` is appended to `<file>` for the broken text and must produce an error on
//! that line (`export const probe: number = "x";` for TypeScript); the fixed text appends a
//! comment instead. The file is restored at the end. "own" is the server's answer for the file
//! itself (`server_time`); the call also waits for the other files the pool checks with it (a
//! pull server's open documents and importers, see `Pool::check_files`).

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a measuring tool: its report is its output"
)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use lspedit_lsp::{Pool, PoolConfig};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [server, root, file, broken, rest @ ..] = args.as_slice() else {
        bail!("usage: latency <server> <root> <file> <broken line> [edits [strategy]]");
    };
    let edits: usize = rest.first().map_or(Ok(30), |n| n.parse())?;
    let strategy = rest.get(1);
    let root = PathBuf::from(root).canonicalize()?;
    let path = root.join(file);
    let original = std::fs::read_to_string(&path).with_context(|| path.display().to_string())?;
    let base = format!("{}\n", original.trim_end());
    let bad_line = u32::try_from(base.lines().count() + 1)?;
    let bad = format!("{base}{broken}\n");
    let mut cfg = PoolConfig::bundled()?.only(&[server.as_str()]);
    if let Some(name) = strategy {
        let decl = cfg
            .servers
            .iter_mut()
            .find(|s| s.id == *server)
            .context("no such server")?;
        decl.diagnostics.strategy = toml::Value::String(name.clone()).try_into()?;
    }
    let pool = Pool::new(&root, cfg)?;
    let restore = || std::fs::write(&path, &original);

    let right = |r: &lspedit_lsp::FileDiagnostics, broken: bool| {
        r.errors().any(|d| d.line == bad_line) == broken
    };
    std::fs::write(&path, &bad)?;
    let t = Instant::now();
    let r = pool
        .check_file(&path, &bad, Instant::now() + Duration::from_secs(120))
        .await?;
    let cold = t.elapsed();
    let mut wrong = usize::from(!right(&r, true));
    let mut warm = Vec::with_capacity(edits);
    let mut own = Vec::with_capacity(edits);
    for i in 0..edits {
        let broken = i % 2 == 1;
        let text = if broken {
            bad.clone()
        } else {
            format!("{base}// edit {i}\n")
        };
        std::fs::write(&path, &text)?;
        let t = Instant::now();
        let r = pool
            .check_file(&path, &text, Instant::now() + Duration::from_secs(60))
            .await?;
        warm.push(t.elapsed());
        own.extend(r.server_time);
        if !right(&r, broken) {
            wrong += 1;
            eprintln!(
                "edit {i} (broken: {broken}): wrong result {:?}",
                r.diagnostics
            );
        }
    }
    pool.shutdown().await;
    restore()?;
    warm.sort();
    own.sort();
    let ms = |v: &[Duration], p: f64| {
        let i = ((v.len().max(1) - 1) as f64 * p).round() as usize;
        v.get(i).copied().unwrap_or_default().as_secs_f64() * 1e3
    };
    println!(
        "{server} ({}) {file}: cold {:.0} ms; {edits} warm edits p50 {:.0} ms, p95 {:.0} ms \
         (own p50 {:.0} ms, p95 {:.0} ms); wrong results {wrong}",
        strategy.map_or("bundled strategy", String::as_str),
        cold.as_secs_f64() * 1e3,
        ms(&warm, 0.5),
        ms(&warm, 0.95),
        ms(&own, 0.5),
        ms(&own, 0.95),
    );
    Ok(())
}
