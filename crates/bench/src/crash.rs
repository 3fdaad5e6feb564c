//! Crash safety: `lspedit apply` of a 5-file patch is killed with SIGKILL after a seeded random
//! delay, over and over; after each run every file must be byte-identical to its old or its new
//! content (the per-file atomic write, DESIGN.md §6), and whatever else the kill left in the
//! tree (temp files) is counted and named.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};

use crate::child::wait_timeout;
use crate::generate::{self, REL_PATH, Rng};
use crate::reliability::list_files;

pub const FILES: usize = 5;
pub const LINES: usize = 2_000;
const HUNKS: usize = 10;
pub const RUNS: usize = 1_000;
pub const RUNS_QUICK: usize = 60;
const CALIBRATION_RUNS: usize = 15;

pub struct Options {
    pub runs: usize,
    pub seed: u64,
    pub lspedit: PathBuf,
}

pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    /// No torn file in any run.
    pub ok: bool,
}

struct Tree {
    root: PathBuf,
    patch: PathBuf,
    /// (relative path, old bytes, new bytes)
    files: Vec<(String, Vec<u8>, Vec<u8>)>,
}

impl Tree {
    fn create(dir: &Path, seed: u64) -> Result<Tree> {
        let root = dir.join("root");
        fs::create_dir_all(root.join("src"))?;
        let mut patch = String::new();
        let mut files = Vec::new();
        for i in 0..FILES {
            let c = generate::case(
                seed ^ ((i as u64 + 1) * 0x1000_0001),
                LINES,
                HUNKS,
                0,
            );
            let rel = format!("src/f{i}.rs");
            patch.push_str(&c.patch.replace(REL_PATH, &rel));
            files.push((rel, c.old.into_bytes(), c.expected.into_bytes()));
        }
        let patch_path = dir.join("crash.diff");
        fs::write(&patch_path, patch)?;
        Ok(Tree {
            root,
            patch: patch_path,
            files,
        })
    }

    /// Old content everywhere and nothing else in the tree; returns what was removed.
    fn reset(&self) -> Result<Vec<String>> {
        let stray = self.stray();
        for s in &stray {
            fs::remove_file(self.root.join(s))?;
        }
        for (rel, old, _) in &self.files {
            fs::write(self.root.join(rel), old)?;
        }
        Ok(stray)
    }

    fn stray(&self) -> Vec<String> {
        let known: BTreeSet<&str> = self.files.iter().map(|(r, _, _)| r.as_str()).collect();
        list_files(&self.root)
            .into_iter()
            .filter(|p| !known.contains(p.as_str()))
            .collect()
    }

    /// Per file: `Some(false)` old, `Some(true)` new, `None` neither.
    fn states(&self) -> Vec<Option<bool>> {
        self.files
            .iter()
            .map(|(rel, old, new)| match fs::read(self.root.join(rel)) {
                Ok(b) if &b == new => Some(true),
                Ok(b) if &b == old => Some(false),
                _ => None,
            })
            .collect()
    }

    fn command(&self, lspedit: &Path) -> Command {
        let mut c = Command::new(lspedit);
        c.args(["apply", "--no-diagnostics"])
            .arg(&self.patch)
            .arg("--root")
            .arg(&self.root)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }
}

#[derive(Default)]
struct Tally {
    runs: usize,
    killed: usize,
    exited: usize,
    files_old: usize,
    files_new: usize,
    torn: Vec<String>,
    /// Runs by how many files were new afterwards.
    new_count: [usize; FILES + 1],
    runs_with_stray: usize,
    stray: Vec<String>,
}

pub fn run(opts: &Options) -> Result<Report> {
    ensure!(
        opts.lspedit.is_file(),
        "no lspedit binary at {}: run `cargo build --release -p lspedit` or set LSPEDIT_BIN",
        opts.lspedit.display()
    );
    let tmp = tempfile::tempdir()?;
    let tree = Tree::create(tmp.path(), opts.seed)?;

    // Calibrate: how long an uninterrupted apply takes here, so kills land across all of it.
    let mut times = Vec::with_capacity(CALIBRATION_RUNS);
    for _ in 0..CALIBRATION_RUNS {
        tree.reset()?;
        let start = Instant::now();
        let mut child = tree.command(&opts.lspedit).spawn()?;
        let status = wait_timeout(&mut child, Duration::from_secs(60))?
            .context("lspedit apply did not finish within 60 s")?;
        times.push(start.elapsed());
        ensure!(status.success(), "lspedit apply failed: {status}");
        ensure!(
            tree.states().iter().all(|s| *s == Some(true)),
            "an uninterrupted apply did not produce the new files"
        );
        ensure!(tree.stray().is_empty(), "an uninterrupted apply left files");
    }
    times.sort_unstable();
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    // Past the slowest uninterrupted run a little, so some runs finish before the kill.
    let max_delay = p90 + p90 / 4;

    let mut rng = Rng::new(opts.seed);
    let mut t = Tally::default();
    for _ in 0..opts.runs {
        tree.reset()?;
        let delay = Duration::from_micros(rng.below(max_delay.as_micros() as u64 + 1));
        let mut child = tree.command(&opts.lspedit).spawn()?;
        // The deliberate kill delay, measured from spawn: the wait returns early if it exits.
        match wait_timeout(&mut child, delay)? {
            Some(_) => t.exited += 1,
            None => {
                child.kill()?;
                child.wait()?;
                t.killed += 1;
            }
        }
        t.runs += 1;
        let states = tree.states();
        let mut new = 0;
        for (s, (rel, _, _)) in states.iter().zip(&tree.files) {
            match s {
                Some(true) => {
                    t.files_new += 1;
                    new += 1;
                }
                Some(false) => t.files_old += 1,
                None => t.torn.push(rel.clone()),
            }
        }
        t.new_count[new] += 1;
        let stray = tree.stray();
        if !stray.is_empty() {
            t.runs_with_stray += 1;
            t.stray.extend(stray);
        }
    }
    tree.reset()?;

    let mixed: usize = t.new_count[1..FILES].iter().sum();
    let mut md = format!(
        "Uninterrupted apply: median {:.1} ms, p90 {:.1} ms ({CALIBRATION_RUNS} runs); kill delays \
         uniform in 0–{:.1} ms from spawn.\n\n",
        median.as_secs_f64() * 1e3,
        p90.as_secs_f64() * 1e3,
        max_delay.as_secs_f64() * 1e3
    );
    md.push_str("| runs | killed | exited before the kill | files old | files new | files torn (neither) | runs with some files new, others old | runs leaving files behind | files left behind |\n");
    md.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    let _ = writeln!(
        md,
        "| {} | {} | {} | {} | {} | {} | {mixed} | {} | {} |",
        t.runs,
        t.killed,
        t.exited,
        t.files_old,
        t.files_new,
        t.torn.len(),
        t.runs_with_stray,
        t.stray.len()
    );
    let hist: Vec<String> = t
        .new_count
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{k} new: {n}"))
        .collect();
    let _ = writeln!(
        md,
        "\nRuns by how many of the {FILES} files were new afterwards: {}.",
        hist.join(", ")
    );
    if !t.stray.is_empty() {
        let examples: Vec<&str> = t.stray.iter().take(3).map(String::as_str).collect();
        let _ = writeln!(
            md,
            "\nLeft behind (examples): {}. These are the atomic write's temp files \
             (`.NAME.lspedit-PID-N.tmp`, next to the target), written and fsynced but not yet \
             renamed when the process died; the target itself was untouched.",
            examples
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let ok = t.torn.is_empty();
    let verdicts = vec![
        format!(
            "{} kill -9 runs of a {FILES}-file patch: {} torn files (target 0): {}",
            t.runs,
            t.torn.len(),
            if ok { "met" } else { "MISSED" }
        ),
        format!(
            "{mixed} runs ended with some files new and others old (per-file atomicity, no cross-file transaction)"
        ),
        format!(
            "{} runs left {} files behind in the tree",
            t.runs_with_stray,
            t.stray.len()
        ),
    ];
    Ok(Report {
        markdown: md,
        verdicts,
        ok,
    })
}
