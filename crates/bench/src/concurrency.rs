//! The concurrency suite: `lspedit apply` processes racing on one file, and a program appending
//! to it during an apply. Target: no lost update, ever; every refusal is a clean one.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::child;

/// Runs per scenario in a full run, and with `--quick`.
pub const RUNS: usize = 1_000;
pub const RUNS_QUICK: usize = 50;

/// Lines of the raced file.
const LINES: usize = 200;

/// A child that takes longer than this is killed and counted as hung.
const TIMEOUT: Duration = Duration::from_secs(30);

pub struct Options {
    pub runs: usize,
    pub lspedit: PathBuf,
}

pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    pub ok: bool,
}

/// One scenario's counts.
#[derive(Default)]
struct Counts {
    runs: usize,
    /// A change some process reported applied (exit 0) is not in the file.
    lost: usize,
    /// A process exited 1 (a refusal with a reason).
    refused: usize,
    /// Runs whose result is what the scenario allows (see each scenario).
    right: usize,
    /// A process crashed, hung or exited with another code.
    broken: usize,
    /// Temp files left in the directory.
    stray: usize,
}

fn numbered() -> String {
    (1..=LINES).map(|i| format!("line {i}\n")).collect()
}

/// A patch changing line `at` to `with` (bare header, found by its context).
fn patch(at: usize, with: &str) -> String {
    format!(
        "--- a/f.txt\n+++ b/f.txt\n@@ @@\n line {}\n-line {at}\n+{with}\n line {}\n",
        at - 1,
        at + 1
    )
}

fn apply(lspedit: &Path, root: &Path, patch_file: &Path) -> Command {
    let mut cmd = Command::new(lspedit);
    cmd.arg("apply")
        .arg("--no-diagnostics")
        .arg(patch_file)
        .arg("--root")
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Exit code of a finished child, or `None` when it crashed or hung.
fn finish(mut c: std::process::Child) -> Option<i32> {
    match child::wait_timeout(&mut c, TIMEOUT) {
        Ok(Some(status)) => status.code(),
        _ => {
            let _ = c.kill();
            let _ = c.wait();
            None
        }
    }
}

fn stray(root: &Path) -> usize {
    fs::read_dir(root).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".lspedit-"))
            .count()
    })
}

/// Two processes at once on one file. `overlap`: both change line 100 (exactly one may apply,
/// the other must be refused); else lines 50 and 150 (both must apply).
fn race(opts: &Options, overlap: bool) -> Result<Counts> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("ws");
    fs::create_dir_all(&root)?;
    let (at_a, at_b) = if overlap { (100, 100) } else { (50, 150) };
    let (pa, pb) = (dir.path().join("a.diff"), dir.path().join("b.diff"));
    fs::write(&pa, patch(at_a, "CHANGED BY A"))?;
    fs::write(&pb, patch(at_b, "CHANGED BY B"))?;
    let mut c = Counts::default();
    for _ in 0..opts.runs {
        fs::write(root.join("f.txt"), numbered())?;
        let a = apply(&opts.lspedit, &root, &pa).spawn()?;
        let b = apply(&opts.lspedit, &root, &pb).spawn()?;
        let (ca, cb) = (finish(a), finish(b));
        let now = fs::read_to_string(root.join("f.txt"))?;
        let (has_a, has_b) = (
            now.contains("CHANGED BY A\n"),
            now.contains("CHANGED BY B\n"),
        );
        c.runs += 1;
        c.stray += stray(&root);
        for code in [ca, cb] {
            match code {
                Some(0) => {}
                Some(1) => c.refused += 1,
                _ => c.broken += 1,
            }
        }
        c.lost += usize::from(ca == Some(0) && !has_a) + usize::from(cb == Some(0) && !has_b);
        let right = if overlap {
            // One applied and the other refused, and the file holds the winner's line.
            matches!((ca, cb), (Some(0), Some(1)) if has_a && !has_b)
                || matches!((ca, cb), (Some(1), Some(0)) if has_b && !has_a)
        } else {
            ca == Some(0) && cb == Some(0) && has_a && has_b
        };
        c.right += usize::from(right);
    }
    Ok(c)
}

/// An apply while another program appends to the file (`echo >> f.txt`: open for appending,
/// write, close) at a varying moment.
fn append(opts: &Options) -> Result<Counts> {
    let dir = tempfile::tempdir()?;
    let root = dir.path().join("ws");
    fs::create_dir_all(&root)?;
    let pa = dir.path().join("a.diff");
    fs::write(&pa, patch(100, "CHANGED BY A"))?;
    let file = root.join("f.txt");
    let mut c = Counts::default();
    for run in 0..opts.runs {
        fs::write(&file, numbered())?;
        let barrier = Arc::new(Barrier::new(2));
        let appender = {
            let (barrier, file) = (Arc::clone(&barrier), file.clone());
            std::thread::spawn(move || -> std::io::Result<()> {
                barrier.wait();
                // Jitter, not synchronisation: spread the append over the apply's lifetime
                // (process start, read, plan, write).
                let until = Instant::now() + Duration::from_micros((run as u64 * 7_919) % 4_000);
                while Instant::now() < until {
                    std::hint::spin_loop();
                }
                let mut f = fs::OpenOptions::new().append(true).open(&file)?;
                f.write_all(format!("appended {run}\n").as_bytes())
            })
        };
        let a = apply(&opts.lspedit, &root, &pa).spawn()?;
        barrier.wait();
        let code = finish(a);
        appender
            .join()
            .map_err(|_| anyhow::anyhow!("the appender panicked"))?
            .context("appending")?;
        let now = fs::read_to_string(&file)?;
        let (has_a, has_append) = (
            now.contains("CHANGED BY A\n"),
            now.contains(&format!("appended {run}\n")),
        );
        c.runs += 1;
        c.stray += stray(&root);
        match code {
            Some(0) => {}
            Some(1) => c.refused += 1,
            _ => c.broken += 1,
        }
        c.lost += usize::from(!has_append) + usize::from(code == Some(0) && !has_a);
        c.right += usize::from(code == Some(0) && has_a && has_append);
    }
    Ok(c)
}

pub fn run(opts: &Options) -> Result<Report> {
    let scenarios = [
        (
            "two processes, different lines",
            "both apply, both changes in the file",
            race(opts, false)?,
        ),
        (
            "two processes, the same line",
            "one applies, the other is refused; the file holds the winner's line",
            race(opts, true)?,
        ),
        (
            "one process, an external append",
            "the patch applies and the appended line is kept",
            append(opts)?,
        ),
    ];
    let mut markdown = String::from(
        "| scenario | runs | lost updates | right outcome | refusals | crashed or hung | temp files left | right means |\n|---|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut verdicts = Vec::new();
    let mut ok = true;
    for (name, means, c) in &scenarios {
        markdown.push_str(&format!(
            "| {name} | {} | {} | {} | {} | {} | {} | {means} |\n",
            c.runs, c.lost, c.right, c.refused, c.broken, c.stray
        ));
        let met = c.lost == 0 && c.broken == 0 && c.stray == 0 && c.right == c.runs;
        ok &= met;
        verdicts.push(format!(
            "{name}: {} (target: 0 lost, 0 crashed, 0 temp files, every run right)",
            if met { "MET" } else { "MISSED" }
        ));
    }
    Ok(Report {
        markdown,
        verdicts,
        ok,
    })
}
