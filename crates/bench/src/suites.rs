//! The reliability commands of `lspedit-bench` (`reliability`, `corpus`, `crash`): their
//! options, the report they print, and their sections of RELIABILITY.md.

use std::fs;
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::drift::Category;
use crate::{concurrency, corpus, crash, process, reliability};

pub const USAGE: &str = "
  reliability [--quick] [--cases N] [--seed N] [--no-registry] [--only CATEGORY]
             edit reliability under drift: generated cases applied by lspedit (plain and
             anchored), git apply and GNU patch, classified per category
  corpus     the bad-input corpus: every case refused with a typed reason, nothing changed
  crash [--quick] [--runs N] [--seed N]
             kill -9 `lspedit apply` of a 5-file patch at random points, 1000 runs
  concurrency [--quick] [--runs N]
             `lspedit apply` processes racing on one file (different lines, the same line)
             and an external append during an apply, 1000 runs each: lost updates
  (the three combine: `reliability corpus crash --write` runs them all, about 2 minutes on
   2 cores, so `all` leaves them out; each takes --write, updating its section of
   RELIABILITY.md, and --no-build)";

/// RELIABILITY.md when it does not exist yet.
const NEW_DOC: &str = "# Reliability

Measured facts about what lspedit does with patches that no longer fit, with bad input and when it is killed mid-write. Every section names the command that produced it; all three suites run with `cargo run --release -p lspedit-bench -- reliability corpus crash --write` (about 2 minutes on 2 cores when the machine is idle).
";

const DRIFT_HEADING: &str = "## Edit reliability under drift";
const CORPUS_HEADING: &str = "## Bad-input corpus";
const CRASH_HEADING: &str = "## Crash safety: kill -9 during apply";
const CONCURRENCY_HEADING: &str = "## Concurrent writers";

/// Which suites to run and how.
#[derive(Debug, Clone)]
pub struct Suites {
    pub reliability: bool,
    pub corpus: bool,
    pub crash: bool,
    pub concurrency: bool,
    pub quick: bool,
    pub write: bool,
    pub build: bool,
    pub cases: Option<usize>,
    pub runs: Option<usize>,
    pub seed: u64,
    pub registry: bool,
    pub only: Option<Category>,
}

impl Suites {
    /// Parse the command line when it names one of these suites; `None` otherwise.
    pub fn from_args(args: &[String]) -> Result<Option<Suites>> {
        let mut s = Suites {
            reliability: false,
            corpus: false,
            crash: false,
            concurrency: false,
            quick: false,
            write: false,
            build: true,
            cases: None,
            runs: None,
            seed: reliability::SEED,
            registry: true,
            only: None,
        };
        let mut it = args.iter().peekable();
        while let Some(word) = it.peek() {
            match word.as_str() {
                "reliability" => s.reliability = true,
                "corpus" => s.corpus = true,
                "crash" => s.crash = true,
                "concurrency" => s.concurrency = true,
                _ => break,
            }
            it.next();
        }
        if !(s.reliability || s.corpus || s.crash || s.concurrency) {
            return Ok(None);
        }
        let num = |name: &str, v: Option<&String>| -> Result<u64> {
            v.with_context(|| format!("{name} needs a number"))?
                .parse()
                .with_context(|| format!("{name} needs a number"))
        };
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--quick" => s.quick = true,
                "--write" => s.write = true,
                "--no-build" => s.build = false,
                "--no-registry" => s.registry = false,
                "--cases" => s.cases = Some(num("--cases", it.next())? as usize),
                "--runs" => s.runs = Some(num("--runs", it.next())? as usize),
                "--seed" => s.seed = num("--seed", it.next())?,
                "--only" => {
                    let name = it.next().context("--only needs a category")?;
                    s.only = Some(Category::from_name(name).with_context(|| {
                        let names: Vec<&str> = Category::ALL.iter().map(|c| c.name()).collect();
                        format!("unknown category `{name}`; one of {}", names.join(", "))
                    })?);
                }
                other => bail!("unknown option `{other}`{USAGE}"),
            }
        }
        if s.write && (s.quick || s.cases.is_some() || s.runs.is_some() || s.only.is_some()) {
            bail!("--write records full runs only: drop --quick, --cases, --runs and --only");
        }
        Ok(Some(s))
    }
}

/// Run the chosen suites, print their reports and (with `--write`) record them. Returns
/// whether every target was met.
pub fn run(s: &Suites, root: &Path) -> Result<bool> {
    // Run a private copy: a concurrent `cargo build` may replace the binary mid-run.
    let built = crate::lspedit_binary(root, s.build)?;
    let bin_dir = tempfile::tempdir()?;
    let lspedit = bin_dir.path().join("lspedit");
    fs::copy(&built, &lspedit).with_context(|| format!("copying {}", built.display()))?;
    let date = crate::today();
    let machine = crate::machine(root);
    let mut tools = Vec::new();
    for program in ["git", "patch"] {
        if let Ok(v) = process::version(program) {
            tools.push(v);
        }
    }
    let tools = tools.join("; ");
    println!("# lspedit reliability, {date}\n\nMachine: {machine}; {tools}\n");
    let mut sections: Vec<(&str, String)> = Vec::new();
    let mut all_met = true;

    if s.reliability {
        let per_category = s.cases.unwrap_or(if s.quick {
            reliability::PER_CATEGORY_QUICK
        } else {
            reliability::PER_CATEGORY
        });
        let r = reliability::run(
            &reliability::Options {
                per_category,
                seed: s.seed,
                lspedit: lspedit.clone(),
                registry: s.registry,
                only: s.only,
                failures_dir: root.join("target").join("reliability-failures"),
            },
            root,
        )?;
        all_met &= r.met;
        print_report(DRIFT_HEADING, &r.markdown, &r.verdicts);
        let misses = if r.misses.is_empty() {
            String::new()
        } else {
            format!(
                "\nlspedit's misses:\n\n{}",
                r.misses
                    .iter()
                    .map(|m| format!("- {m}\n"))
                    .collect::<String>()
            )
        };
        println!("{misses}");
        let body = format!(
            "Command (release build; about {secs:.0} s here):\n\n```\ncargo run --release -p lspedit-bench -- reliability --write\n```\n\n\
             Measured {date} on: {machine}; {tools}.\n\n\
             {cases} cases ({per_category} per category, seed `{seed:#x}`), generated from real \
             files picked by seeded draws over sorted paths ({sources}; 60–4,000 lines, UTF-8, LF). \
             Each case makes 1–4 edits (hunks with 3 lines of context, 0–3 lines removed, 0–3 \
             added) across 1–3 files and renders the patch `diff -u` would have written; then \
             the files on disk move away from it as the category says. The right outcome is \
             known by construction (the files are modelled as unrelated text plus the hunk \
             windows) and confirmed by an independent block search that is looser than the \
             engine's (normalized lines, blank runs collapsed): the intended block is the only \
             copy within reach, or the nearest by ≥ 3 lines, or equidistant, or gone; a draw \
             that fails the check is redrawn. Every answerable hunk lies within the engine's \
             search radius (100) of where it is looked for, and where it is looked for lies inside \
             the file (a header past the end is `out_of_bounds` unless anchors prove the place: \
             seed 002, scenarios 091 and 092).\n\n\
             Each tool runs on its own fresh copy: `lspedit apply --no-diagnostics --json` with \
             the plain patch and with the same patch carrying `42abcd|` anchors on context and \
             removed lines; `git apply` (outside any repository); `patch -p1 --batch --forward \
             --no-backup-if-mismatch --reject-file=-` (default fuzz 2). *correct*: every file \
             holds the expected bytes; *refused cleanly*: nothing changed (the target when the \
             category must be refused); *misapplied*: a file changed into anything else (or \
             changed at all when it had to be refused); *partial*: some files hold the patch's \
             result and others are unchanged, which is not the answer. *stray files*: files a \
             tool left beside the case's files. lspedit's cases that miss the target are saved \
             under `target/reliability-failures/`.\n\n{}\n{}{misses}",
            r.markdown,
            bullets(&r.verdicts),
            secs = r.elapsed.as_secs_f64(),
            cases = r.cases,
            seed = s.seed,
            sources = r.sources,
        );
        sections.push((DRIFT_HEADING, body));
    }

    if s.corpus {
        let start = Instant::now();
        let r = corpus::run(&lspedit)?;
        all_met &= r.ok;
        print_report(CORPUS_HEADING, &r.markdown, &r.verdicts);
        println!();
        let body = format!(
            "Command (about {secs:.0} s here):\n\n```\ncargo run --release -p lspedit-bench -- corpus --write\n```\n\n\
             Measured {date} on: {machine}.\n\n\
             Each case runs `lspedit apply --no-diagnostics --json PATCH --root ROOT` on a fresh \
             tree: `ROOT/src/…` text files, a binary file, a PNG, a Latin-1 file, symlinks \
             `escape -> ../outside`, `link.txt -> ../outside/victim.txt`, a dangling one and \
             `zero -> /dev/zero`, next to an `outside/` directory holding `victim.txt` (patches \
             that escape are written to match it, so a confinement bug would change it). The whole \
             tree, `outside/` included, is hashed before and after (paths, kinds, modes, symlink \
             targets, SHA-256 of contents). A case passes when lspedit exits 1, every reason \
             code in its JSON is one the case accepts, and the hash is unchanged.\n\n{}\n{}",
            r.markdown,
            bullets(&r.verdicts),
            secs = start.elapsed().as_secs_f64(),
        );
        sections.push((CORPUS_HEADING, body));
    }

    if s.crash {
        let start = Instant::now();
        let runs = s.runs.unwrap_or(if s.quick {
            crash::RUNS_QUICK
        } else {
            crash::RUNS
        });
        let r = crash::run(&crash::Options {
            runs,
            seed: s.seed,
            lspedit: lspedit.clone(),
        })?;
        all_met &= r.ok;
        print_report(CRASH_HEADING, &r.markdown, &r.verdicts);
        println!();
        let body = format!(
            "Command (about {secs:.0} s here):\n\n```\ncargo run --release -p lspedit-bench -- crash --write\n```\n\n\
             Measured {date} on: {machine}; temp dir on {fs}.\n\n\
             A patch of {files} files × {lines} lines, 10 hunks each (the engine benchmark's \
             generator), applied from the old files {runs} times in each of two ways: by \
             `lspedit apply --no-diagnostics` (per-file atomic writes), and by the all-or-nothing \
             workflow in a child process (this binary: `Workflow::open`, `propose_edit` of the \
             patch, `apply_edit` with `Atomicity::AllOrNothing`), after which the workflow is \
             opened again in-process, as the next process would, which rolls an interrupted \
             commit back from its journal. Each run is killed with SIGKILL after a seeded random \
             delay measured from spawn, up to the slow end of an uninterrupted run (the wait \
             returns early when the process exits first). After each run every file is compared \
             with its old and its new bytes and every other file in the tree is recorded (the \
             workflow's own `.lspedit/` state apart, whose journal must be gone). In the \
             `lspedit apply` mode the same patch is then applied again, as an agent retrying \
             would, and every file must end new with nothing else left in the tree. Then the \
             tree is reset.\n\n{}\n{}",
            r.markdown,
            bullets(&r.verdicts),
            secs = start.elapsed().as_secs_f64(),
            fs = process::temp_fs(&std::env::temp_dir()),
            files = crash::FILES,
            lines = crash::LINES,
        );
        sections.push((CRASH_HEADING, body));
    }

    if s.concurrency {
        let start = Instant::now();
        let runs = s.runs.unwrap_or(if s.quick {
            concurrency::RUNS_QUICK
        } else {
            concurrency::RUNS
        });
        let r = concurrency::run(&concurrency::Options {
            runs,
            lspedit: lspedit.clone(),
        })?;
        all_met &= r.ok;
        print_report(CONCURRENCY_HEADING, &r.markdown, &r.verdicts);
        println!();
        let body = format!(
            "Command (about {secs:.0} s here):\n\n```\ncargo run --release -p lspedit-bench -- concurrency --write\n```\n\n\
             Measured {date} on: {machine}; temp dir on {fs}.\n\n\
             A {lines}-line file; per run it is reset, then two `lspedit apply --no-diagnostics` \
             processes are started at once with bare-header patches changing different lines \
             (both must apply) or the same line to different text (exactly one may apply, the \
             other must be refused), or one process applies while a thread appends a line the \
             way `echo >> f.txt` does (open for appending, write, close) at a moment spread \
             over 0–4 ms after the spawn. A *lost update* is a change whose process exited 0, \
             or an appended line, missing from the file afterwards.\n\n{}\n{}",
            r.markdown,
            bullets(&r.verdicts),
            secs = start.elapsed().as_secs_f64(),
            fs = process::temp_fs(&std::env::temp_dir()),
            lines = 200,
        );
        sections.push((CONCURRENCY_HEADING, body));
    }

    if s.write {
        let path = root.join("RELIABILITY.md");
        let mut doc = fs::read_to_string(&path).unwrap_or_else(|_| NEW_DOC.to_string());
        // Keep the sections in a fixed order, each after the previous one when it exists.
        let order = [
            DRIFT_HEADING,
            CORPUS_HEADING,
            CRASH_HEADING,
            CONCURRENCY_HEADING,
        ];
        for (heading, body) in &sections {
            let pos = order.iter().position(|h| h == heading).unwrap_or(0);
            let after = order[..pos]
                .iter()
                .rev()
                .find(|h| doc.lines().any(|l| l.trim_end() == **h))
                .copied();
            doc = crate::replace_section(&doc, heading, body, after);
        }
        fs::write(&path, doc).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("updated {}", path.display());
    }
    Ok(all_met)
}

/// Verdicts as a Markdown list, one `- ` line each.
fn bullets(verdicts: &[String]) -> String {
    verdicts.iter().map(|v| format!("- {v}\n")).collect()
}

/// A suite's section on stdout: heading, table, verdicts.
fn print_report(heading: &str, markdown: &str, verdicts: &[String]) {
    println!("{heading}\n\n{markdown}");
    print!("{}", bullets(verdicts));
}
