//! Crash safety: a 5-file patch is applied and the applying process killed with SIGKILL after a
//! seeded random delay, over and over. After each run every file must be byte-identical to its
//! old or its new content, and whatever else the kill left in the tree is counted and named.
//!
//! Two modes: `lspedit apply` (per-file atomic writes, docs/design.md §6: files may end up some
//! old, some new; the same patch is then applied again, as an agent retrying would, and every file
//! must end new with no temp file left) and the all-or-nothing workflow (`propose_edit` + `apply_edit` with
//! `Atomicity::AllOrNothing`, run by this binary as a child), after which the workflow is
//! opened again, as the next process would, and its journal must leave every file old or every
//! file new.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, Atomicity, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_write::Workspace;

use crate::child::wait_timeout;
use crate::generate::{self, REL_PATH, Rng};
use crate::reliability::list_files;

pub const FILES: usize = 5;
pub const LINES: usize = 2_000;
const HUNKS: usize = 10;
pub const RUNS: usize = 1_000;
pub const RUNS_QUICK: usize = 60;
const CALIBRATION_RUNS: usize = 15;
/// The hidden subcommand the journal mode runs as its child.
pub const JOURNAL_CHILD: &str = "crash-journal-child";
/// The workflow's own state (patch store, checkpoints, evidence, journal, lock).
const STATE_DIR: &str = ".lspedit";

pub struct Options {
    pub runs: usize,
    pub seed: u64,
    pub lspedit: PathBuf,
}

pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    /// No torn file in any run, the journal left no run half applied, and applying the same
    /// patch again after a per-file run completed it and left nothing behind.
    pub ok: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `lspedit apply --no-diagnostics PATCH --root ROOT`.
    Apply,
    /// `propose_edit` + all-or-nothing `apply_edit`, then recovery on the next open.
    Journal,
}

impl Mode {
    fn title(self) -> &'static str {
        match self {
            Mode::Apply => "`lspedit apply` (per-file atomic writes)",
            Mode::Journal => {
                "all-or-nothing workflow (`propose_edit` + `apply_edit`, `Atomicity::AllOrNothing`), then the next open"
            }
        }
    }
}

struct Tree {
    root: PathBuf,
    patch: PathBuf,
    /// A private copy of this binary, the journal mode's child: a concurrent `cargo build`
    /// may replace the original while the suite runs.
    child_exe: PathBuf,
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
            let c = generate::case(seed ^ ((i as u64 + 1) * 0x1000_0001), LINES, HUNKS, 0);
            let rel = format!("src/f{i}.rs");
            patch.push_str(&c.patch.replace(REL_PATH, &rel));
            files.push((rel, c.old.into_bytes(), c.expected.into_bytes()));
        }
        let patch_path = dir.join("crash.diff");
        fs::write(&patch_path, patch)?;
        let child_exe = dir.join("lspedit-bench-child");
        // Through /proc: that names the running binary even after a rebuild unlinked it.
        fs::copy("/proc/self/exe", &child_exe).context("copying lspedit-bench")?;
        Ok(Tree {
            root,
            patch: patch_path,
            child_exe,
            files,
        })
    }

    /// Old content everywhere, no workflow state, nothing else in the tree.
    fn reset(&self) -> Result<()> {
        let state = self.root.join(STATE_DIR);
        if state.exists() {
            fs::remove_dir_all(&state)?;
        }
        for s in self.stray() {
            fs::remove_file(self.root.join(s))?;
        }
        for (rel, old, _) in &self.files {
            fs::write(self.root.join(rel), old)?;
        }
        Ok(())
    }

    /// Files in the tree that are neither the patched files nor the workflow's state.
    fn stray(&self) -> Vec<String> {
        let known: BTreeSet<&str> = self.files.iter().map(|(r, _, _)| r.as_str()).collect();
        list_files(&self.root)
            .into_iter()
            .filter(|p| !known.contains(p.as_str()) && !p.starts_with(STATE_DIR))
            .collect()
    }

    /// Journal files still present.
    fn journals(&self) -> usize {
        list_files(&self.root.join(STATE_DIR).join("journal")).len()
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

    fn command(&self, mode: Mode, lspedit: &Path) -> Command {
        let mut c = match mode {
            Mode::Apply => {
                let mut c = Command::new(lspedit);
                c.args(["apply", "--no-diagnostics"])
                    .arg(&self.patch)
                    .arg("--root")
                    .arg(&self.root);
                c
            }
            Mode::Journal => {
                let mut c = Command::new(&self.child_exe);
                c.arg(JOURNAL_CHILD).arg(&self.root).arg(&self.patch);
                c
            }
        };
        c.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        c
    }
}

/// Open the workflow over `root` as the next process would: an interrupted all-or-nothing
/// commit is rolled back. Returns how many commits were rolled back.
fn open_workflow(root: &Path) -> Result<(Workflow, usize)> {
    let ws = Workspace::open(root)?;
    let tools = Arc::new(Tools::new(ws, None, ToolsConfig::default()));
    let config = WorkflowConfig {
        event_log: false,
        ..WorkflowConfig::unrestricted()
    };
    let wf = Workflow::open(tools, config)?;
    let n = wf.recovered().len();
    Ok((wf, n))
}

/// The journal mode's child: propose the patch and apply it all-or-nothing.
pub fn journal_child(args: &[String]) -> Result<()> {
    let [root, patch] = args else {
        bail!("usage: lspedit-bench {JOURNAL_CHILD} ROOT PATCH");
    };
    let text = fs::read_to_string(patch).with_context(|| format!("reading {patch}"))?;
    let (wf, _) = open_workflow(Path::new(root))?;
    let proposal = wf.propose_edit(&ProposeRequest::patch(text))?;
    let plan = ApplyPlan {
        atomicity: Atomicity::AllOrNothing,
        ..ApplyPlan::default()
    };
    let out = wf.apply_edit(&proposal.patch_id, &plan);
    ensure!(
        out.status == ApplyStatus::Applied,
        "apply_edit: {}",
        out.llm_content
    );
    Ok(())
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
    rolled_back: usize,
    journals_left: usize,
    /// Apply mode, after the retry: runs where some file was not new.
    retry_not_new: usize,
    /// Apply mode, after the retry: files besides the patched ones still in the tree.
    retry_stray: Vec<String>,
}

fn run_mode(mode: Mode, tree: &Tree, opts: &Options) -> Result<(String, Vec<String>, bool)> {
    // Calibrate: how long an uninterrupted run takes here, so kills land across all of it.
    let mut times = Vec::with_capacity(CALIBRATION_RUNS);
    for _ in 0..CALIBRATION_RUNS {
        tree.reset()?;
        let start = Instant::now();
        let mut child = tree.command(mode, &opts.lspedit).spawn()?;
        let status = wait_timeout(&mut child, Duration::from_secs(60))?
            .context("an uninterrupted run did not finish within 60 s")?;
        times.push(start.elapsed());
        ensure!(status.success(), "an uninterrupted run failed: {status}");
        ensure!(
            tree.states().iter().all(|s| *s == Some(true)),
            "an uninterrupted run did not produce the new files"
        );
        ensure!(tree.stray().is_empty(), "an uninterrupted run left files");
    }
    times.sort_unstable();
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    // Up to the slow end of an uninterrupted run: most runs are killed, some finish first.
    let max_delay = p90;

    let mut rng = Rng::new(opts.seed ^ mode as u64);
    let mut t = Tally::default();
    for _ in 0..opts.runs {
        tree.reset()?;
        let delay = Duration::from_micros(rng.below(max_delay.as_micros() as u64 + 1));
        let mut child = tree.command(mode, &opts.lspedit).spawn()?;
        // The deliberate kill delay, measured from spawn; the wait returns early on exit.
        match wait_timeout(&mut child, delay)? {
            Some(_) => t.exited += 1,
            None => {
                child.kill()?;
                child.wait()?;
                t.killed += 1;
            }
        }
        t.runs += 1;
        if mode == Mode::Journal {
            let (_, rolled_back) = open_workflow(&tree.root)?;
            t.rolled_back += rolled_back;
            t.journals_left += tree.journals();
        }
        let mut new = 0;
        for (s, (rel, _, _)) in tree.states().iter().zip(&tree.files) {
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
        if mode == Mode::Apply {
            // The agent's recovery: the same patch again. Files already new are refused
            // (their context is gone), the old ones are written, and those writes remove the
            // temp files the killed process left next to them.
            let mut child = tree.command(mode, &opts.lspedit).spawn()?;
            wait_timeout(&mut child, Duration::from_secs(60))?
                .context("the retry did not finish within 60 s")?;
            if !tree.states().iter().all(|s| *s == Some(true)) {
                t.retry_not_new += 1;
            }
            t.retry_stray.extend(tree.stray());
        }
    }
    tree.reset()?;

    let mixed: usize = t.new_count[1..FILES].iter().sum();
    let mut md = format!(
        "### {}\n\nUninterrupted run: median {:.1} ms, p90 {:.1} ms ({CALIBRATION_RUNS} runs); kill \
         delays uniform in 0–{:.1} ms from spawn.\n\n",
        mode.title(),
        median.as_secs_f64() * 1e3,
        p90.as_secs_f64() * 1e3,
        max_delay.as_secs_f64() * 1e3
    );
    md.push_str("| runs | killed | exited before the kill | files old | files new | files torn (neither) | runs with some files new, others old | runs leaving files behind | files left behind |");
    match mode {
        Mode::Apply => {
            md.push_str(" after a retry: runs not all new | after a retry: files left behind |")
        }
        Mode::Journal => md.push_str(" commits rolled back on open | journals left after open |"),
    }
    md.push_str("\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let _ = write!(
        md,
        "\n| {} | {} | {} | {} | {} | {} | {mixed} | {} | {} |",
        t.runs,
        t.killed,
        t.exited,
        t.files_old,
        t.files_new,
        t.torn.len(),
        t.runs_with_stray,
        t.stray.len()
    );
    match mode {
        Mode::Apply => {
            let _ = write!(md, " {} | {} |", t.retry_not_new, t.retry_stray.len());
        }
        Mode::Journal => {
            let _ = write!(md, " {} | {} |", t.rolled_back, t.journals_left);
        }
    }
    let hist: Vec<String> = t
        .new_count
        .iter()
        .enumerate()
        .map(|(k, n)| format!("{k} new: {n}"))
        .collect();
    let _ = write!(
        md,
        "\n\nRuns by how many of the {FILES} files were new afterwards: {}.\n",
        hist.join(", ")
    );
    if !t.stray.is_empty() {
        let examples: Vec<String> = t.stray.iter().take(3).map(|s| format!("`{s}`")).collect();
        let _ = write!(
            md,
            "\nLeft behind (examples): {}. These are the atomic write's temp files \
             (`.NAME.lspedit-PID-N.tmp`, next to their target), created but not yet renamed \
             when the process died; the target itself was untouched. The next atomic write \
             to the same file removes them (their process is gone): see the retry columns.\n",
            examples.join(", ")
        );
    }
    let name = match mode {
        Mode::Apply => "lspedit apply",
        Mode::Journal => "all-or-nothing workflow",
    };
    let mut ok = t.torn.is_empty();
    let mut verdicts = vec![format!(
        "{name}: {} kill -9 runs of a {FILES}-file patch, {} torn files (target 0): {}",
        t.runs,
        t.torn.len(),
        if t.torn.is_empty() { "met" } else { "MISSED" }
    )];
    match mode {
        Mode::Apply => {
            verdicts.push(format!(
                "{name}: {mixed} runs ended with some files new and others old (per-file atomicity, by design)"
            ));
        }
        Mode::Journal => {
            ok &= mixed == 0 && t.journals_left == 0;
            verdicts.push(format!(
                "{name}: {mixed} runs half applied after the next open (target 0), {} commits rolled back, {} journals left: {}",
                t.rolled_back,
                t.journals_left,
                if mixed == 0 && t.journals_left == 0 {
                    "met"
                } else {
                    "MISSED"
                }
            ));
        }
    }
    verdicts.push(format!(
        "{name}: {} runs left {} files behind in the tree",
        t.runs_with_stray,
        t.stray.len()
    ));
    if mode == Mode::Apply {
        let retry_ok = t.retry_not_new == 0 && t.retry_stray.is_empty();
        ok &= retry_ok;
        verdicts.push(format!(
            "{name}: after applying the same patch again, {} runs not all new and {} files left behind (target 0): {}",
            t.retry_not_new,
            t.retry_stray.len(),
            if retry_ok { "met" } else { "MISSED" }
        ));
    }
    Ok((md, verdicts, ok))
}

pub fn run(opts: &Options) -> Result<Report> {
    ensure!(
        opts.lspedit.is_file(),
        "no lspedit binary at {}: run `cargo build --release -p lspedit` or set LSPEDIT_BIN",
        opts.lspedit.display()
    );
    let tmp = tempfile::tempdir()?;
    let tree = Tree::create(tmp.path(), opts.seed)?;
    let mut markdown = String::new();
    let mut verdicts = Vec::new();
    let mut ok = true;
    for mode in [Mode::Apply, Mode::Journal] {
        eprintln!("crash: {} runs, {}", opts.runs, mode.title());
        let (md, v, good) = run_mode(mode, &tree, opts)?;
        markdown.push_str(&md);
        markdown.push('\n');
        verdicts.extend(v);
        ok &= good;
    }
    Ok(Report {
        markdown: format!("{}\n", markdown.trim_end()),
        verdicts,
        ok,
    })
}
