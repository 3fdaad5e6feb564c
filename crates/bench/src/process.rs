//! Whole-process benchmark: `lspedit apply --no-diagnostics PATCH --root DIR` vs `git apply PATCH`
//! (in a `git init`ed directory) vs GNU `patch -p1` on the same patch and file, each run
//! starting from the original file.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};

use crate::engine::{DRIFT, HUNKS, SEED};
use crate::generate::{self, Case, REL_PATH};
use crate::timing::{Stats, ms};

/// Builds the command that applies `patch` (second argument) inside `dir` (first argument).
type MakeCommand = Box<dyn Fn(&Path, &Path) -> Command>;

/// What the file must hold after a run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    Patched,
    Unchanged,
    Anything,
}

/// A contender: a name, how to run it on `patch` inside `dir`, and what it must leave.
struct Tool {
    name: &'static str,
    command: MakeCommand,
    expect: Expect,
}

pub struct Options {
    pub runs: usize,
    pub warmup: usize,
    pub lspedit: PathBuf,
}

/// Results of the process benchmark, as Markdown.
pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    pub versions: String,
}

fn tools(lspedit: &Path) -> Result<Vec<Tool>> {
    let bin = lspedit.to_path_buf();
    let mut tools = vec![
        Tool {
            name: "lspedit apply --no-diagnostics",
            command: Box::new(move |dir, patch| {
                let mut c = Command::new(&bin);
                c.arg("apply")
                    .arg("--no-diagnostics")
                    .arg(patch)
                    .arg("--root")
                    .arg(dir);
                c
            }),
            expect: Expect::Patched,
        },
        Tool {
            name: "git apply",
            command: Box::new(|dir, patch| {
                let mut c = Command::new("git");
                c.arg("apply").arg(patch).current_dir(dir);
                c
            }),
            expect: Expect::Patched,
        },
    ];
    // Everything lspedit does but write the file and what follows the write.
    let bin = lspedit.to_path_buf();
    tools.insert(
        1,
        Tool {
            name: "lspedit apply --no-diagnostics --dry-run",
            command: Box::new(move |dir, patch| {
                let mut c = Command::new(&bin);
                c.arg("apply")
                    .arg("--no-diagnostics")
                    .arg("--dry-run")
                    .arg(patch)
                    .arg("--root")
                    .arg(dir);
                c
            }),
            expect: Expect::Unchanged,
        },
    );
    if version("patch").is_ok() {
        tools.push(Tool {
            name: "GNU patch -p1",
            command: Box::new(|dir, patch| {
                let mut c = Command::new("patch");
                c.args(["-p1", "-s", "--no-backup-if-mismatch", "-i"])
                    .arg(patch)
                    .current_dir(dir);
                c
            }),
            expect: Expect::Patched,
        });
    }
    tools.push(Tool {
        name: "`true` (process spawn floor)",
        command: Box::new(|dir, _| {
            let mut c = Command::new("true");
            c.current_dir(dir);
            c
        }),
        expect: Expect::Anything,
    });
    Ok(tools)
}

/// The filesystem type holding `dir` (`ext4`, `tmpfs`, …) from /proc/mounts (the longest
/// mount point that contains it): fsync's cost depends on it.
pub fn temp_fs(dir: &Path) -> String {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mounts = fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, point, kind) = (f.next()?, f.next()?, f.next()?);
            dir.starts_with(point)
                .then(|| (point.len(), kind.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map_or_else(|| "?".to_string(), |(_, kind)| kind)
}

/// First line of `<program> --version`.
pub fn version(program: &str) -> Result<String> {
    let out = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {program}"))?;
    ensure!(out.status.success(), "{program} --version failed");
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .trim()
        .to_string())
}

fn run_once(tool: &Tool, dir: &Path, patch: &Path, file: &Path, case: &Case) -> Result<Duration> {
    fs::write(file, &case.old)?;
    let mut cmd = (tool.command)(dir, patch);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let start = Instant::now();
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", tool.name))?;
    let elapsed = start.elapsed();
    if !status.success() {
        let out = (tool.command)(dir, patch).output()?;
        bail!(
            "{} failed ({status}): {}{}",
            tool.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let want = match tool.expect {
        Expect::Patched => Some(&case.expected),
        Expect::Unchanged => Some(&case.old),
        Expect::Anything => None,
    };
    if let Some(want) = want {
        let got = fs::read(file)?;
        ensure!(
            got == want.as_bytes(),
            "{} left a different file than expected",
            tool.name
        );
    }
    Ok(elapsed)
}

struct Row {
    case: String,
    tool: &'static str,
    stats: Stats,
}

fn measure_case(
    name: &str,
    case: &Case,
    base: Option<&Path>,
    opts: &Options,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let tmp = match base {
        Some(b) => tempfile::tempdir_in(b)?,
        None => tempfile::tempdir()?,
    };
    let dir = tmp.path().join("repo");
    fs::create_dir_all(dir.join("src"))?;
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&dir)
        .status()?;
    ensure!(git.success(), "git init failed");
    let patch = tmp.path().join("bench.diff");
    fs::write(&patch, &case.patch)?;
    let file = dir.join(REL_PATH);
    let tools = tools(&opts.lspedit)?;

    for tool in &tools {
        for _ in 0..opts.warmup {
            run_once(tool, &dir, &patch, &file, case)?;
        }
    }
    // Interleave the tools run by run, so a slow phase of the machine hits all of them alike.
    let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(opts.runs); tools.len()];
    for _ in 0..opts.runs {
        for (tool, s) in tools.iter().zip(&mut samples) {
            s.push(run_once(tool, &dir, &patch, &file, case)?);
        }
    }
    for (tool, s) in tools.iter().zip(samples) {
        rows.push(Row {
            case: name.to_string(),
            tool: tool.name,
            stats: Stats::of(s),
        });
    }
    Ok(())
}

pub fn run(opts: &Options) -> Result<Report> {
    ensure!(
        opts.lspedit.is_file(),
        "no lspedit binary at {}: run `cargo build --release -p lspedit` or set LSPEDIT_BIN",
        opts.lspedit.display()
    );
    let fs = temp_fs(&std::env::temp_dir());
    let plain = generate::case(SEED ^ 10_000, 10_000, HUNKS, 0);
    let mut cases: Vec<(String, Case, Option<PathBuf>)> = vec![
        (
            format!("{HUNKS} hunks, 10k lines ({fs})"),
            plain.clone(),
            None,
        ),
        (
            format!("{HUNKS} hunks, 10k lines + {DRIFT} drift above each hunk ({fs})"),
            generate::case(SEED ^ 10_000, 10_000, HUNKS, DRIFT),
            None,
        ),
    ];
    // The same on tmpfs, where fsync costs nothing: what lspedit costs without its durable write.
    let shm = Path::new("/dev/shm");
    if fs != "tmpfs" && temp_fs(shm) == "tmpfs" {
        cases.push((
            format!("{HUNKS} hunks, 10k lines (tmpfs: fsync is free)"),
            plain,
            Some(shm.to_path_buf()),
        ));
    }
    let mut rows = Vec::new();
    for (name, case, base) in &cases {
        eprintln!("process: {name} ({} runs per tool)", opts.runs);
        measure_case(name, case, base.as_deref(), opts, &mut rows)?;
    }

    let mut md = String::new();
    md.push_str(
        "| case | tool | runs | median (ms) | p95 (ms) | min (ms) | median ÷ git apply |\n",
    );
    md.push_str("|---|---|---:|---:|---:|---:|---:|\n");
    let mut verdicts = Vec::new();
    for (name, _, _) in &cases {
        let git = rows
            .iter()
            .find(|r| &r.case == name && r.tool == "git apply")
            .map(|r| r.stats.median)
            .context("no git row")?;
        for r in rows.iter().filter(|r| &r.case == name) {
            let ratio = r.stats.median.as_secs_f64() / git.as_secs_f64();
            md.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {:.2} |\n",
                r.case,
                r.tool,
                r.stats.runs,
                ms(r.stats.median),
                ms(r.stats.p95),
                ms(r.stats.min),
                ratio
            ));
            if r.tool == "lspedit apply --no-diagnostics" {
                // What the durable write costs on top: the same run without the write.
                let dry = rows
                    .iter()
                    .find(|d| &d.case == name && d.tool.ends_with("--dry-run"))
                    .map(|d| d.stats.median);
                let without_write = dry.map_or(String::new(), |d| {
                    format!(
                        "; without the write and what follows it (--dry-run) {:.2}",
                        d.as_secs_f64() / git.as_secs_f64()
                    )
                });
                verdicts.push(format!(
                    "{name}: lspedit {} ms vs git apply {} ms median, ratio {ratio:.2} (target ≤ 1.0): {}{without_write}",
                    ms(r.stats.median),
                    ms(git),
                    if ratio <= 1.0 { "met" } else { "MISSED" }
                ));
            }
        }
    }
    let mut versions = format!("git: {}", version("git")?);
    if let Ok(v) = version("patch") {
        versions.push_str(&format!("; patch: {v}"));
    }
    Ok(Report {
        markdown: md,
        verdicts,
        versions,
    })
}
