//! `lspedit-bench real --large`: cold start, warm edit → diagnostics latency and memory of each
//! server on large pinned projects (`LARGE_PROJECTS` in `real_projects.rs`), driven like
//! `real`: `Tools::edit` over `LspProvider`.
//!
//! The waits are bounded generously ([`COLD_BOUND`], [`WARM_BOUND`]) so the figures are the
//! servers' real times; each is then set beside the budget an agent gets by default (the pool's
//! `first_check_timeout` and `check_timeout`), which is what an edit's result would show
//! ("timed out") past it. Memory: the resident memory of the server's process group, sampled
//! while the session runs (peak) and once its work is done (settled), and beside it the same
//! with the processes the server started in groups of their own (rust-analyzer runs
//! `cargo check` in a new process group).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use lspedit_fake_lsp::support::percentile;
use lspedit_lsp::BlockingPool;
use lspedit_tools::{DiagnosticsProvider, DiagnosticsStatus, LspProvider, Tools, ToolsConfig};
use lspedit_write::Workspace;

use crate::real::{DefaultBudgets, edit, pool_config, right_result, warm_line};
use crate::real_projects::{Checker, LARGE_PROJECTS, Project};
use crate::timing::ms;

pub const HEADING: &str = "## Large repositories";

/// How long the first edit may wait for the server to start and load the project.
const COLD_BOUND: Duration = Duration::from_secs(900);
/// How long a warm edit may wait for its diagnostics.
const WARM_BOUND: Duration = Duration::from_secs(180);
/// How often the memory sampler reads `/proc`.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);
/// Break → fix cycles made again with the default budgets.
const DEFAULT_CYCLES: usize = 5;
/// How long the session waits for the server's work to finish before the settled reading.
const SETTLE_BOUND: Duration = Duration::from_secs(120);

struct Row {
    project: String,
    server: &'static str,
    cold: Duration,
    /// The first result's status for the edited file.
    cold_status: Option<DiagnosticsStatus>,
    /// The pool's default budgets for a first and a warm check.
    default_cold: Duration,
    default_warm: Duration,
    warm: Vec<Duration>,
    own: Vec<Duration>,
    /// Results whose edited file was checked but whose errors were not the edit's.
    wrong: usize,
    /// Results that were not `Checked` (timed out at [`WARM_BOUND`], or failed).
    unchecked: usize,
    /// The same edits with the default budgets, after the bounded ones.
    defaults: DefaultBudgets,
    peak: Rss,
    settled: Rss,
    settled_in_time: bool,
}

/// Resident memory, KiB: of the server's process groups, and with the processes they started
/// in groups of their own.
#[derive(Clone, Copy, Default)]
struct Rss {
    group: u64,
    tree: u64,
}

impl Rss {
    fn max(self, o: Rss) -> Rss {
        Rss {
            group: self.group.max(o.group),
            tree: self.tree.max(o.tree),
        }
    }
}

/// One pass over `/proc`: the summed `VmRSS` of the processes whose group is one of `groups`,
/// and of those plus every descendant of theirs wherever its group.
fn rss_of(groups: &[u32]) -> Rss {
    // pid → (ppid, pgrp)
    let mut procs: BTreeMap<u32, (u32, u32)> = BTreeMap::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // The fields after the command name (which may hold spaces): state ppid pgrp ...
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().take(3).collect();
        if let [state, ppid, pgrp] = f[..]
            && state != "Z"
            && let (Ok(ppid), Ok(pgrp)) = (ppid.parse(), pgrp.parse())
        {
            procs.insert(pid, (ppid, pgrp));
        }
    }
    let in_group: BTreeSet<u32> = procs
        .iter()
        .filter(|(_, (_, g))| groups.contains(g))
        .map(|(p, _)| *p)
        .collect();
    let mut tree = in_group.clone();
    loop {
        let more: Vec<u32> = procs
            .iter()
            .filter(|(p, (pp, _))| !tree.contains(p) && tree.contains(pp))
            .map(|(p, _)| *p)
            .collect();
        if more.is_empty() {
            break;
        }
        tree.extend(more);
    }
    let vm_rss = |pid: &u32| -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("VmRSS:"))
                    .and_then(|v| v.split_whitespace().next()?.parse().ok())
            })
            .unwrap_or(0)
    };
    Rss {
        group: in_group.iter().map(vm_rss).sum(),
        tree: tree.iter().map(vm_rss).sum(),
    }
}

/// Source files and lines of the copy, in the checker's language.
fn size(root: &Path, checker: Checker) -> Result<(usize, usize)> {
    let ext = match checker {
        Checker::Tsc => "ts",
        Checker::Pyright => "py",
        Checker::Cargo => "rs",
    };
    let mut files = 0;
    let mut lines = 0;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                if entry.file_name() != "node_modules" && entry.file_name() != "target" {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == ext) {
                files += 1;
                lines += std::fs::read(&path)?
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
            }
        }
    }
    Ok((files, lines))
}

fn session(project: &Project, server: &'static str, cycles: usize) -> Result<Option<Row>> {
    let Some(cfg) = pool_config(server)? else {
        return Ok(None);
    };
    let (default_cold, default_warm) = (cfg.first_check_timeout, cfg.check_timeout);
    let tmp = tempfile::tempdir()?;
    let root = project.unpack(tmp.path())?;
    let (files, lines) = size(&root, project.checker)?;
    eprintln!(
        "real --large: {} ({files} files, {lines} lines) with {server}: {cycles} edit -> fix cycles",
        project.name
    );

    let started = Instant::now();
    let provider = Arc::new(LspProvider::from_pool(BlockingPool::new(&root, cfg)?));
    // The sampler reads the memory of the server's processes until told to stop.
    let (stop, stopped) = mpsc::channel::<()>();
    let sampled = provider.clone();
    let sampler = std::thread::spawn(move || {
        let mut peak = Rss::default();
        while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(SAMPLE_EVERY) {
            peak = peak.max(rss_of(&sampled.pool().process_groups()));
        }
        peak
    });

    let mut tcfg = ToolsConfig::default();
    tcfg.diagnostics.timeout = Some(WARM_BOUND);
    tcfg.diagnostics.start_timeout = Some(COLD_BOUND);
    let tools = Tools::new(
        Workspace::open(&root)?,
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        tcfg,
    );
    let warm = &project.warm;
    let line = warm_line(&root, warm)?;
    let mut row = Row {
        project: format!(
            "{} {} ({files} .{} files, {}k lines)",
            project.name,
            project.version,
            match project.checker {
                Checker::Tsc => "ts",
                Checker::Pyright => "py",
                Checker::Cargo => "rs",
            },
            lines / 1000
        ),
        server,
        cold: Duration::ZERO,
        cold_status: None,
        default_cold,
        default_warm,
        warm: Vec::new(),
        own: Vec::new(),
        wrong: 0,
        unchecked: 0,
        defaults: DefaultBudgets::default(),
        peak: Rss::default(),
        settled: Rss::default(),
        settled_in_time: false,
    };
    for i in 0..cycles {
        for forward in [true, false] {
            let t = Instant::now();
            let r = edit(&tools, warm, forward)?;
            let took = t.elapsed();
            let status = r
                .diagnostics
                .iter()
                .find(|s| s.path == warm.file)
                .map(|s| s.status);
            if i == 0 && forward {
                row.cold = started.elapsed();
                row.cold_status = status;
                eprintln!(
                    "real --large: {server}: first result after {} ms ({status:?})",
                    ms(row.cold)
                );
            } else {
                row.warm.push(took);
                if let Some(Some(own)) = provider.last_server_times().first() {
                    row.own.push(*own);
                }
            }
            if status != Some(DiagnosticsStatus::Checked) {
                row.unchecked += 1;
            } else if !right_result(&r, warm.file, line, forward) {
                row.wrong += 1;
                eprintln!(
                    "real --large: {server}: cycle {i} ({}) got a wrong or stale result after {} ms:\n{}",
                    if forward { "break" } else { "fix" },
                    ms(took),
                    r.llm_content
                );
            }
        }
    }
    // The same edits as an agent with the default configuration makes them (the server now
    // warm): what its results say when the server is slower than the budget.
    let plain = Tools::new(
        Workspace::open(&root)?,
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        ToolsConfig::default(),
    );
    row.defaults = DefaultBudgets::measure(
        &plain,
        warm,
        line,
        DEFAULT_CYCLES.min(cycles),
        &format!("real --large: {server}"),
    )?;

    // Settled: once the server has answered for everything it was sent.
    row.settled_in_time = provider
        .pool()
        .wait_passes_done(Instant::now() + SETTLE_BOUND);
    tools.take_late_feedback();
    row.settled = rss_of(&provider.pool().process_groups());
    // The sampler's channel closing (or a message) ends its loop.
    drop(stop);
    let peak = sampler
        .join()
        .map_err(|_| anyhow::anyhow!("the memory sampler panicked"))?;
    row.peak = peak.max(row.settled);
    row.warm.sort();
    row.own.sort();
    provider.pool().shutdown();
    Ok(Some(row))
}

fn mib(kib: u64) -> String {
    format!("{}", kib / 1024)
}

/// Runs every large project with each of its installed servers: the Markdown table and notes.
pub fn run(quick: bool) -> Result<String> {
    let cycles = if quick { 2 } else { 10 };
    let only: Option<Vec<String>> = std::env::var("LSPEDIT_BENCH_SERVERS")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let projects: Option<Vec<String>> = std::env::var("LSPEDIT_BENCH_PROJECTS")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let mut rows = Vec::new();
    for project in LARGE_PROJECTS {
        if projects
            .as_ref()
            .is_some_and(|p| !p.iter().any(|x| x == project.name))
        {
            continue;
        }
        for server in project.servers {
            if only
                .as_ref()
                .is_some_and(|o| !o.iter().any(|x| x == server))
            {
                continue;
            }
            let row = session(project, server, cycles)
                .with_context(|| format!("{} with {server}", project.name))?;
            rows.extend(row);
        }
    }
    let mut s = String::from(
        "| project | server | cold: pool start → first edit's result (ms) | first result | warm edit → result p50 (ms) | p90 | max | server's own time p50 (ms) | warm edits over the default budget | wrong or stale | not checked | default budgets: checked and right / pending / wrong | peak RSS, group (MiB) | peak, with its own-group children (MiB) | settled RSS, group (MiB) |\n\
         |---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &rows {
        let over = r.warm.iter().filter(|&&d| d > r.default_warm).count();
        let first = match r.cold_status {
            Some(DiagnosticsStatus::Checked) if r.cold > r.default_cold => {
                format!("checked; over the default {} s", r.default_cold.as_secs())
            }
            Some(DiagnosticsStatus::Checked) => "checked".to_string(),
            Some(other) => format!("{other:?}"),
            None => "no status".to_string(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {first} | {} | {} | {} | {} | {over}/{} (> {} s) | {} | {} | {} / {} / {} of {} | {} | {} | {}{} |",
            r.project,
            r.server,
            ms(r.cold),
            ms(percentile(&r.warm, 0.5)),
            ms(percentile(&r.warm, 0.9)),
            ms(r.warm.last().copied().unwrap_or_default()),
            ms(percentile(&r.own, 0.5)),
            r.warm.len(),
            r.default_warm.as_secs(),
            r.wrong,
            r.unchecked,
            r.defaults.right,
            r.defaults.pending,
            r.defaults.wrong,
            r.defaults.total(),
            mib(r.peak.group),
            mib(r.peak.tree),
            mib(r.settled.group),
            if r.settled_in_time {
                ""
            } else {
                " (still working)"
            },
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_of_counts_this_process_group() {
        let me = rustix::process::getpgrp().as_raw_nonzero().get() as u32;
        let r = rss_of(&[me]);
        assert!(r.group > 0 && r.tree >= r.group);
        assert_eq!(rss_of(&[]).group, 0);
    }
}
