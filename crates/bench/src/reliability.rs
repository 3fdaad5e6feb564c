//! The edit-reliability suite under drift: every generated case (see [`crate::drift`]) is
//! applied by `lspedit apply` (plain and anchored patch), `git apply` and GNU `patch -p1`, each
//! in a fresh copy of the case's files, and classified per category as correct, refused
//! cleanly, misapplied or partial. The same cases also run through the engine in-process
//! (`engine_outcome`), which is what the unit test guards in CI.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
#[cfg(test)]
use lspedit_engine::{ApplyOptions, apply_file_patch, parse_patch};

use crate::child;
use crate::drift::{self, Case, Category, Outcome};
use crate::sources::Sources;

/// The seed of the published figures.
pub const SEED: u64 = 0x5eed_d71f;
/// Cases per category of a full run, and of `--quick`.
pub const PER_CATEGORY: usize = 300;
pub const PER_CATEGORY_QUICK: usize = 15;
/// Generous: the slowest tool takes milliseconds on these files.
const TOOL_TIMEOUT: Duration = Duration::from_secs(30);

/// The reason codes lspedit prints (README "Reason codes"), to find one in a message.
pub fn reasons() -> impl Iterator<Item = &'static str> {
    lspedit_write::Reason::ALL.iter().map(|r| r.as_str())
}

pub struct Options {
    pub per_category: usize,
    pub seed: u64,
    pub lspedit: PathBuf,
    pub registry: bool,
    /// Run this category only.
    pub only: Option<Category>,
    /// Where to save the cases lspedit gets wrong (before/, expected/, got/, the patches).
    pub failures_dir: PathBuf,
}

pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    /// lspedit's misses, one line per (category, tool, outcome) with example case ids.
    pub misses: Vec<String>,
    /// Whether lspedit met every target.
    pub met: bool,
    pub sources: String,
    pub cases: usize,
    pub elapsed: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tool {
    Lspedit,
    LspeditAnchored,
    GitApply,
    Patch,
}

impl Tool {
    const ALL: [Tool; 4] = [
        Tool::Lspedit,
        Tool::LspeditAnchored,
        Tool::GitApply,
        Tool::Patch,
    ];

    fn name(self) -> &'static str {
        match self {
            Tool::Lspedit => "lspedit apply",
            Tool::LspeditAnchored => "lspedit apply (anchored)",
            Tool::GitApply => "git apply",
            Tool::Patch => "GNU patch -p1",
        }
    }

    fn is_lspedit(self) -> bool {
        matches!(self, Tool::Lspedit | Tool::LspeditAnchored)
    }

    fn command(self, lspedit: &Path, dir: &Path, patch: &Path) -> Command {
        match self {
            Tool::Lspedit | Tool::LspeditAnchored => {
                let mut c = Command::new(lspedit);
                c.args(["apply", "--no-diagnostics", "--json"])
                    .arg(patch)
                    .arg("--root")
                    .arg(dir);
                c
            }
            Tool::GitApply => {
                let mut c = Command::new("git");
                c.arg("apply").arg(patch).current_dir(dir);
                // Never let git find a repository above the temp dir.
                if let Some(parent) = dir.parent() {
                    c.env("GIT_CEILING_DIRECTORIES", parent);
                }
                c
            }
            Tool::Patch => {
                let mut c = Command::new("patch");
                c.args([
                    "-p1",
                    "--batch",
                    "--forward",
                    "--silent",
                    "--no-backup-if-mismatch",
                    "--reject-file=-",
                    "-i",
                ])
                .arg(patch)
                .current_dir(dir);
                c
            }
        }
    }
}

/// Counts for one (category, tool).
#[derive(Debug, Default, Clone)]
struct Tally {
    cases: usize,
    outcomes: BTreeMap<Outcome, usize>,
    /// Files left in the tree that are not the case's files (temp, .orig, .rej).
    stray: usize,
    /// lspedit exits other than 0 (applied) and 1 (refused), or killed at the deadline.
    abnormal: usize,
    reasons: BTreeMap<String, usize>,
}

impl Tally {
    fn count(&self, o: Outcome) -> usize {
        self.outcomes.get(&o).copied().unwrap_or(0)
    }

    /// lspedit's target: every answer correct, every refusal clean, nothing else.
    fn target_met(&self, category: Category) -> bool {
        let want = if category.must_refuse() {
            Outcome::Refused
        } else {
            Outcome::Correct
        };
        self.count(want) == self.cases && self.stray == 0 && self.abnormal == 0
    }
}

#[cfg(test)]
/// The outcome of a case run through the engine in-process, with the refusal rules of the
/// README: a whole-patch refusal changes nothing, `truncated_input` from any file means the
/// patch was cut off and nothing applies, otherwise each file section applies or not.
pub fn engine_outcome(case: &Case, anchored: bool) -> Outcome {
    use lspedit_engine::Reason;
    let text = if anchored {
        &case.anchored
    } else {
        &case.patch
    };
    let mut after: Vec<Option<Vec<u8>>> =
        case.files.iter().map(|f| Some(f.before.clone())).collect();
    if let Ok(patch) = parse_patch(text) {
        let mut planned = Vec::new();
        for fp in &patch.files {
            let Some(i) = case.files.iter().position(|f| f.path == fp.path()) else {
                continue;
            };
            match apply_file_patch(fp, Some(&case.files[i].before), &ApplyOptions::default()) {
                Ok(o) => planned.push((i, o.new_content)),
                Err(e) if e.reason == Reason::TruncatedInput => {
                    planned.clear();
                    break;
                }
                Err(_) => {}
            }
        }
        for (i, bytes) in planned {
            after[i] = bytes;
        }
    }
    drift::classify(&case.files, &after)
}

/// The reason codes in `lspedit apply --json` output: per failed file, or the whole-patch
/// refusal's code found in its message.
pub fn reasons_of(stdout: &[u8]) -> Vec<String> {
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(stdout) else {
        return Vec::new();
    };
    let from_files: Vec<String> = v["files"]
        .as_array()
        .map(|files| {
            files
                .iter()
                .filter_map(|f| f["reason"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    // A whole-patch refusal has no file reports; its code leads the message. (A success's
    // message holds file content, which may mention any code.)
    if !from_files.is_empty() || v["ok"].as_bool() != Some(false) {
        return from_files;
    }
    for key in ["reason", "llm_content", "message"] {
        if let Some(text) = v[key].as_str()
            && let Some(code) = first_reason(text)
        {
            return vec![code.to_string()];
        }
    }
    Vec::new()
}

/// The reason code of a message shaped `Error: [path: ]code: message`, else the earliest code
/// named in it.
pub fn first_reason(text: &str) -> Option<&'static str> {
    text.split(": ")
        .find_map(|part| reasons().find(|r| *r == part.trim()))
        .or_else(|| {
            reasons()
                .filter_map(|r| text.find(r).map(|i| (i, r)))
                .min()
                .map(|(_, r)| r)
        })
}

/// Files under `dir` (relative paths), for spotting what a tool left behind.
pub fn list_files(dir: &Path) -> BTreeSet<String> {
    fn go(base: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(rd) = fs::read_dir(dir) else { return };
        for e in rd.flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                go(base, &p, out);
            } else if let Ok(rel) = p.strip_prefix(base) {
                out.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    go(dir, dir, &mut out);
    out
}

struct ToolRun {
    outcome: Outcome,
    after: Vec<Option<Vec<u8>>>,
    stray: Vec<String>,
    abnormal: bool,
    reasons: Vec<String>,
}

fn run_tool(tool: Tool, case: &Case, work: &Path, lspedit: &Path) -> Result<ToolRun> {
    let dir = work.join(format!("tree{}", tool as usize));
    if dir.exists() {
        fs::remove_dir_all(&dir).with_context(|| format!("cleaning {}", dir.display()))?;
    }
    for f in &case.files {
        let p = dir.join(&f.path);
        fs::create_dir_all(p.parent().context("no parent")?)?;
        fs::write(&p, &f.before)?;
    }
    let patch = work.join(format!("patch{}.diff", tool as usize));
    let text = if tool == Tool::LspeditAnchored {
        &case.anchored
    } else {
        &case.patch
    };
    fs::write(&patch, text)?;
    let run = child::run(&mut tool.command(lspedit, &dir, &patch), TOOL_TIMEOUT)
        .with_context(|| format!("cannot run {}", tool.name()))?;
    let after: Vec<Option<Vec<u8>>> = case
        .files
        .iter()
        .map(|f| fs::read(dir.join(&f.path)).ok())
        .collect();
    let known: BTreeSet<&str> = case.files.iter().map(|f| f.path.as_str()).collect();
    let stray = list_files(&dir)
        .into_iter()
        .filter(|p| !known.contains(p.as_str()))
        .collect();
    let abnormal = tool.is_lspedit() && !matches!(run.status.and_then(|s| s.code()), Some(0 | 1));
    let reasons = if tool.is_lspedit() {
        reasons_of(&run.stdout)
    } else {
        Vec::new()
    };
    Ok(ToolRun {
        outcome: drift::classify(&case.files, &after),
        after,
        stray,
        abnormal,
        reasons,
    })
}

/// Save a case lspedit got wrong, to reproduce it by hand.
fn save_failure(dir: &Path, case: &Case, tool: Tool, run: &ToolRun) -> Result<PathBuf> {
    let d = dir.join(format!("case-{}-{}", case.id, tool as usize));
    if d.exists() {
        fs::remove_dir_all(&d)?;
    }
    for f in &case.files {
        for (sub, bytes) in [
            ("before", Some(&f.before)),
            ("expected", Some(f.expected.as_ref().unwrap_or(&f.before))),
            ("intended", f.intended.as_ref()),
        ] {
            let p = d.join(sub).join(&f.path);
            fs::create_dir_all(p.parent().context("no parent")?)?;
            if let Some(b) = bytes {
                fs::write(p, b)?;
            }
        }
    }
    for (f, got) in case.files.iter().zip(&run.after) {
        if let Some(g) = got {
            let p = d.join("got").join(&f.path);
            fs::create_dir_all(p.parent().context("no parent")?)?;
            fs::write(p, g)?;
        }
    }
    fs::write(d.join("patch.diff"), &case.patch)?;
    fs::write(d.join("anchored.diff"), &case.anchored)?;
    let origins: Vec<String> = case
        .files
        .iter()
        .map(|f| format!("{} <- {}", f.path, f.origin))
        .collect();
    fs::write(
        d.join("info.txt"),
        format!(
            "case {} ({}), tool {}: {} (reasons {:?}, stray {:?}, abnormal exit {})\n{}\n",
            case.id,
            case.category.name(),
            tool.name(),
            run.outcome.name(),
            run.reasons,
            run.stray,
            run.abnormal,
            origins.join("\n")
        ),
    )?;
    Ok(d)
}

pub fn run(opts: &Options, root: &Path) -> Result<Report> {
    ensure!(
        opts.lspedit.is_file(),
        "no lspedit binary at {}: run `cargo build --release -p lspedit` or set LSPEDIT_BIN",
        opts.lspedit.display()
    );
    let start = Instant::now();
    let mut sources = Sources::collect(root, opts.registry);
    let (cases, redrawn) = drift::generate(&mut sources, opts.seed, opts.per_category, opts.only);
    eprintln!(
        "reliability: {} cases generated ({redrawn} draws rejected by the check and redrawn) from {}",
        cases.len(),
        sources.summary()
    );
    let work = tempfile::tempdir()?;
    let mut tallies: BTreeMap<(Category, Tool), Tally> = BTreeMap::new();
    // lspedit's misses: (category, tool, outcome, detail) → case ids.
    let mut failures: BTreeMap<(Category, Tool, Outcome, &str), Vec<usize>> = BTreeMap::new();
    for (n, case) in cases.iter().enumerate() {
        if n % 500 == 0 && n > 0 {
            eprintln!("reliability: {n}/{} cases", cases.len());
        }
        for tool in Tool::ALL {
            let r = run_tool(tool, case, work.path(), &opts.lspedit)?;
            let t = tallies.entry((case.category, tool)).or_default();
            t.cases += 1;
            *t.outcomes.entry(r.outcome).or_default() += 1;
            t.stray += r.stray.len();
            t.abnormal += usize::from(r.abnormal);
            for reason in &r.reasons {
                *t.reasons.entry(reason.clone()).or_default() += 1;
            }
            let want = if case.category.must_refuse() {
                Outcome::Refused
            } else {
                Outcome::Correct
            };
            if tool.is_lspedit() && (r.outcome != want || !r.stray.is_empty() || r.abnormal) {
                save_failure(&opts.failures_dir, case, tool, &r)?;
                // A cut patch applied anyway may still have produced what the whole patch would.
                let as_whole = r.outcome == Outcome::Misapplied
                    && case
                        .files
                        .iter()
                        .zip(&r.after)
                        .all(|(f, a)| f.intended.is_some() && a == &f.intended);
                let detail = match (r.abnormal, r.stray.is_empty(), as_whole) {
                    (true, _, _) => "abnormal exit",
                    (_, false, _) => "left files behind",
                    (_, _, true) => "the files equal the complete patch's result",
                    _ => "",
                };
                failures
                    .entry((case.category, tool, r.outcome, detail))
                    .or_default()
                    .push(case.id);
            }
        }
    }
    let elapsed = start.elapsed();
    let dir = opts
        .failures_dir
        .strip_prefix(root)
        .unwrap_or(&opts.failures_dir)
        .display()
        .to_string();
    let misses = failures
        .iter()
        .map(|((category, tool, outcome, detail), ids)| {
            let shown: Vec<String> = ids.iter().take(8).map(|i| i.to_string()).collect();
            format!(
                "{}, {}: {} {}{} (cases {}{}; saved as `{dir}/case-ID-{}`)",
                category.name(),
                tool.name(),
                ids.len(),
                outcome.name(),
                if detail.is_empty() {
                    String::new()
                } else {
                    format!(", {detail}")
                },
                shown.join(", "),
                if ids.len() > shown.len() { ", …" } else { "" },
                *tool as usize
            )
        })
        .collect();
    Ok(summarize(
        &cases,
        &tallies,
        misses,
        sources.summary(),
        elapsed,
    ))
}

fn summarize(
    cases: &[Case],
    tallies: &BTreeMap<(Category, Tool), Tally>,
    misses: Vec<String>,
    sources: String,
    elapsed: Duration,
) -> Report {
    let mut md = String::new();
    md.push_str("| category | tool | cases | correct | refused cleanly | misapplied | partial | stray files | target |\n");
    md.push_str("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    let mut totals: BTreeMap<Tool, Tally> = BTreeMap::new();
    let mut met = true;
    for category in Category::ALL {
        for tool in Tool::ALL {
            let Some(t) = tallies.get(&(category, tool)) else {
                continue;
            };
            let ok = t.target_met(category);
            if tool.is_lspedit() {
                met &= ok;
            }
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                category.name(),
                tool.name(),
                t.cases,
                t.count(Outcome::Correct),
                t.count(Outcome::Refused),
                t.count(Outcome::Misapplied),
                t.count(Outcome::Partial),
                t.stray,
                if ok { "met" } else { "missed" }
            );
            let total = totals.entry(tool).or_default();
            total.cases += t.cases;
            for (o, n) in &t.outcomes {
                *total.outcomes.entry(*o).or_default() += n;
            }
            total.stray += t.stray;
            total.abnormal += t.abnormal;
        }
    }
    md.push_str("\nTotals over all categories (target: correct where an answer exists, refused cleanly otherwise):\n\n");
    md.push_str("| tool | cases | target outcome | correct | refused cleanly | misapplied | partial | stray files |\n");
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for tool in Tool::ALL {
        let Some(t) = totals.get(&tool) else { continue };
        let on_target: usize = Category::ALL
            .iter()
            .filter_map(|&c| tallies.get(&(c, tool)).map(|x| (c, x)))
            .map(|(c, x)| {
                x.count(if c.must_refuse() {
                    Outcome::Refused
                } else {
                    Outcome::Correct
                })
            })
            .sum();
        let _ = writeln!(
            md,
            "| {} | {} | {} ({:.1}%) | {} | {} | {} | {} | {} |",
            tool.name(),
            t.cases,
            on_target,
            100.0 * on_target as f64 / t.cases.max(1) as f64,
            t.count(Outcome::Correct),
            t.count(Outcome::Refused),
            t.count(Outcome::Misapplied),
            t.count(Outcome::Partial),
            t.stray
        );
    }
    md.push_str("\nlspedit's refusals by reason code (plain / anchored patch):\n\n");
    md.push_str("| category | lspedit apply | lspedit apply (anchored) |\n|---|---|---|\n");
    for category in Category::ALL {
        let show = |tool: Tool| {
            tallies.get(&(category, tool)).map_or(String::new(), |t| {
                t.reasons
                    .iter()
                    .map(|(r, n)| format!("{r} {n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
        };
        let (a, b) = (show(Tool::Lspedit), show(Tool::LspeditAnchored));
        if !a.is_empty() || !b.is_empty() {
            let _ = writeln!(md, "| {} | {a} | {b} |", category.name());
        }
    }
    md.push_str("\nCategories:\n\n");
    for category in Category::ALL {
        let _ = writeln!(md, "- `{}`: {}.", category.name(), category.describe());
    }
    let mut verdicts = Vec::new();
    for tool in [Tool::Lspedit, Tool::LspeditAnchored] {
        if let Some(t) = totals.get(&tool) {
            verdicts.push(format!(
                "{}: {} misapplied, {} partial, {} stray files, {} abnormal exits over {} cases; every category on target: {}",
                tool.name(),
                t.count(Outcome::Misapplied),
                t.count(Outcome::Partial),
                t.stray,
                t.abnormal,
                t.cases,
                if Category::ALL
                    .iter()
                    .all(|&c| tallies.get(&(c, tool)).is_none_or(|x| x.target_met(c)))
                {
                    "yes"
                } else {
                    "NO"
                }
            ));
        }
    }
    Report {
        markdown: md,
        verdicts,
        misses,
        met,
        sources,
        cases: cases.len(),
        elapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression guard for the engine under drift: ~50 generated cases from the repository's
    /// own sources through parse + apply in-process, plain and anchored; nothing may be
    /// misapplied or partial, every answer must be found and every must-refuse case refused.
    #[test]
    fn engine_meets_the_reliability_targets_on_generated_cases() {
        let root = crate::workspace_root();
        let mut sources = Sources::collect(&root, false);
        let (cases, _) = drift::generate(&mut sources, SEED, 5, None);
        assert!(
            cases.len() >= 50,
            "only {} cases generated from {}",
            cases.len(),
            sources.summary()
        );
        // Every category is generated (a category whose draws all fail would vanish silently).
        for category in Category::ALL {
            let n = cases.iter().filter(|c| c.category == category).count();
            assert_eq!(n, 5, "{} cases of {}", n, category.name());
        }
        let mut wrong = Vec::new();
        for case in &cases {
            for anchored in [false, true] {
                let got = engine_outcome(case, anchored);
                let want = if case.category.must_refuse() {
                    Outcome::Refused
                } else {
                    Outcome::Correct
                };
                if got != want {
                    wrong.push(format!(
                        "case {} ({}, anchored {anchored}): {} instead of {}",
                        case.id,
                        case.category.name(),
                        got.name(),
                        want.name()
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn generation_is_deterministic() {
        // One source set for both runs: its cache pins file contents, which other work in the
        // repository may be changing while the test runs.
        let mut sources = Sources::collect(&crate::workspace_root(), false);
        let (a, _) = drift::generate(&mut sources, 7, 2, None);
        let (b, _) = drift::generate(&mut sources, 7, 2, None);
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.patch, y.patch);
            assert_eq!(x.anchored, y.anchored);
            assert_eq!(x.files.len(), y.files.len());
            for (f, g) in x.files.iter().zip(&y.files) {
                assert_eq!((&f.before, &f.expected), (&g.before, &g.expected));
            }
        }
    }

    #[test]
    fn reasons_are_read_from_file_reports_and_whole_patch_errors() {
        let per_file = br#"{"ok":false,"llm_content":"x","files":[{"path":"a","status":"failed","reason":"hunk_mismatch"}]}"#;
        assert_eq!(reasons_of(per_file), vec!["hunk_mismatch"]);
        let whole =
            br#"{"ok":false,"llm_content":"Error: truncated_input: patch line 9: cut","files":[]}"#;
        assert_eq!(reasons_of(whole), vec!["truncated_input"]);
        assert!(reasons_of(b"not json").is_empty());
    }
}
