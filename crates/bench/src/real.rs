//! `lspedit-bench real`: what an agent gets from lspedit's diagnostics after an edit, on pinned
//! real projects (see `real_projects.rs`), through the agent tools over the real servers.
//!
//! Per (project, server), on a fresh copy: the first edit of the session (cold: pool created →
//! the edit's result), then warm edit → fix cycles, each result checked (an error in the edited
//! file after the break, none after the fix) and timed beside the server's own time for that
//! edit; the same edits at the pool level; and the cross-file score: for each edit to exported API, the files lspedit names
//! (the edit's result and the late section the next result would start with) against the files
//! the language's own checker finds new errors in.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use lspedit_fake_lsp::support::percentile;
use lspedit_lsp::{BlockingPool, ChangedFile, PoolConfig};
use lspedit_tools::{
    DiagnosticsProvider, DiagnosticsStatus, LspProvider, ToolResult, Tools, ToolsConfig,
};
use lspedit_write::Workspace;

use crate::real_projects::{Edit, PROJECTS, Project, apply};
use crate::timing::ms;

pub const HEADING: &str = "## Real projects";

/// How long a bounded wait for other files' late answers lasts.
const LATE_WAIT: Duration = Duration::from_secs(30);

/// One cross-file case's outcome.
struct Verdict {
    name: &'static str,
    expected: BTreeSet<String>,
    reported: BTreeSet<String>,
    /// The text said some dependents were not checked or the search hit its bounds.
    said_incomplete: bool,
    /// The files the edit's own result named (no late section): the callers a model that ends
    /// its turn after the edit would know of.
    in_result: BTreeSet<String>,
    /// The result said other files were still being checked and no late answer came within
    /// [`LATE_WAIT`].
    late_missing: bool,
}

impl Verdict {
    fn right(&self) -> bool {
        self.reported == self.expected
    }

    /// Right from the edit's own result alone.
    fn right_in_result(&self) -> bool {
        self.in_result == self.expected
    }

    fn incomplete_said_so(&self) -> bool {
        !self.right() && self.said_incomplete && self.reported.is_subset(&self.expected)
    }

    fn word(&self) -> &'static str {
        if self.right() {
            "right"
        } else if self.incomplete_said_so() {
            "incomplete, said so"
        } else {
            "WRONG"
        }
    }
}

struct Row {
    project: &'static str,
    server: &'static str,
    cold: Duration,
    warm: Vec<Duration>,
    /// The server's own time for the edited file in each warm edit.
    own: Vec<Duration>,
    /// Per warm edit, its result's time minus the server's own time for it.
    added: Vec<Duration>,
    /// The pool-level call's time minus the server's own (for the same kind of edit).
    pool_added: Vec<Duration>,
    wrong: usize,
    /// The same break → fix edits as an agent with the default configuration makes them.
    defaults: DefaultBudgets,
    verdicts: Vec<Verdict>,
}

/// Break → fix edits made through a `Tools` with the default `ToolsConfig` (3 s for a warm
/// server), each result counted.
#[derive(Default)]
pub(crate) struct DefaultBudgets {
    /// Checked, with the edit's error shown after the break and gone after the fix.
    pub(crate) right: usize,
    /// The edited file not checked within the budget.
    pub(crate) pending: usize,
    /// Checked, but the errors are not the edit's.
    pub(crate) wrong: usize,
    /// Results that start with a late block about the file they edit (an answer about an older
    /// text of it: never true once the edit changed it).
    pub(crate) stale_late: usize,
}

impl DefaultBudgets {
    pub(crate) fn total(&self) -> usize {
        self.right + self.pending + self.wrong
    }

    /// `cycles` break → fix cycles of `warm` (whose error is on `line`) through `tools`, each
    /// result counted; `label` names the measure in what is printed about a wrong result.
    pub(crate) fn measure(
        tools: &Tools,
        warm: &Edit,
        line: u32,
        cycles: usize,
        label: &str,
    ) -> Result<Self> {
        let mut counts = Self::default();
        let late = format!(
            "LSP errors detected in {} after your earlier change",
            warm.file
        );
        for i in 0..cycles {
            for forward in [true, false] {
                let r = edit(tools, warm, forward)?;
                let what = if forward { "break" } else { "fix" };
                if r.llm_content.contains(&late) {
                    counts.stale_late += 1;
                    eprintln!(
                        "{label}: default budgets, cycle {i} ({what}) starts with a late block for the file it edits:\n{}",
                        r.llm_content
                    );
                }
                let checked = r
                    .diagnostics
                    .iter()
                    .any(|s| s.path == warm.file && s.status == DiagnosticsStatus::Checked);
                if !checked {
                    counts.pending += 1;
                } else if right_result(&r, warm.file, line, forward) {
                    counts.right += 1;
                } else {
                    counts.wrong += 1;
                    eprintln!(
                        "{label}: default budgets, cycle {i} ({what}) got a wrong or stale result:\n{}",
                        r.llm_content
                    );
                }
            }
        }
        tools.take_late_feedback();
        Ok(counts)
    }
}

/// The other files a result's text names: every `<diagnostics file="…">` block but the edited
/// file's, and the names of the "(not shown: …)" line.
fn named_files(text: &str, edited: &str) -> (BTreeSet<String>, bool) {
    let mut files = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find("<diagnostics file=\"") {
        rest = &rest[i + "<diagnostics file=\"".len()..];
        if let Some(end) = rest.find('"') {
            files.insert(rest[..end].to_string());
        }
    }
    let mut unnamed = false;
    for line in text.lines() {
        if let Some(i) = line.find("(not shown: ") {
            let names = line[i + "(not shown: ".len()..].trim_end_matches(").");
            let names = match names.rsplit_once(" and ") {
                Some((named, more)) if more.ends_with(" more") => {
                    unnamed = true;
                    named
                }
                _ => names,
            };
            files.extend(names.split(", ").map(str::to_string));
        }
    }
    files.remove(edited);
    (files, unnamed)
}

/// Whether the text says some dependents went unchecked.
fn says_incomplete(text: &str) -> bool {
    text.contains("not checked (too many for one change)") || text.contains("stopped at its bounds")
}

pub(crate) fn edit(tools: &Tools, e: &Edit, forward: bool) -> Result<ToolResult> {
    let (from, to) = if forward {
        (e.from, e.to)
    } else {
        (e.to, e.from)
    };
    let r = tools.edit(e.file, from, to, false);
    ensure!(!r.is_error, "{}: edit refused:\n{}", e.file, r.llm_content);
    Ok(r)
}

/// Whether a result is right for the warm edit: the edited file checked, with an error on
/// `line` shown after the break and none there after the fix. (The text shows all of a written
/// file's errors, those it had before the session too: requests' `utils.py` has 13.)
pub(crate) fn right_result(r: &ToolResult, file: &str, line: u32, broken: bool) -> bool {
    r.diagnostics
        .iter()
        .find(|s| s.path == file)
        .filter(|s| s.status == DiagnosticsStatus::Checked)
        .is_some_and(|s| s.reported.iter().any(|d| d.line == line) == broken)
}

/// Waits (bounded) for the other files a result left pending and returns the late section the
/// next result would start with.
fn late_section(tools: &Tools, provider: &LspProvider, text: &str) -> Option<String> {
    if !text.contains("Still checking") {
        return None;
    }
    provider
        .pool()
        .wait_for_late_others(Instant::now() + LATE_WAIT);
    tools.take_late_feedback()
}

/// The pool's configuration with only `server`; `None` (after saying so) when it is not
/// installed, an error then with `LSPEDIT_REQUIRE_SERVERS=1`.
pub(crate) fn pool_config(server: &str) -> Result<Option<PoolConfig>> {
    let cfg = PoolConfig::bundled()?.only(&[server]);
    let decl = cfg
        .server(server)
        .with_context(|| format!("{server} is not configured"))?;
    if cfg.resolve_command(decl).is_none() {
        if std::env::var("LSPEDIT_REQUIRE_SERVERS").is_ok_and(|v| v == "1") {
            bail!("{server} is not installed (LSPEDIT_REQUIRE_SERVERS=1)");
        }
        eprintln!("real: {server} is not installed (scripts/install-servers); skipped");
        return Ok(None);
    }
    Ok(Some(cfg))
}

/// The line (1-based) where the warm edit's broken text first differs from the original in the
/// copy under `root`: the error is reported there.
pub(crate) fn warm_line(root: &std::path::Path, warm: &Edit) -> Result<u32> {
    let original = std::fs::read_to_string(root.join(warm.file))?;
    let common = warm
        .from
        .bytes()
        .zip(warm.to.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    original
        .find(warm.from)
        .map(|at| original[..at + common].matches('\n').count() as u32 + 1)
        .context("the warm edit's text is not in the file")
}

fn session(
    project: &Project,
    server: &'static str,
    cycles: usize,
    cases: &[(&Edit, BTreeSet<String>)],
) -> Result<Option<Row>> {
    let Some(cfg) = pool_config(server)? else {
        return Ok(None);
    };
    let tmp = tempfile::tempdir()?;
    let root = project.unpack(tmp.path())?;
    eprintln!(
        "real: {} with {server}: {cycles} edit -> fix cycles",
        project.name
    );

    let started = Instant::now();
    let provider = Arc::new(LspProvider::from_pool(BlockingPool::new(&root, cfg)?));
    let mut tcfg = ToolsConfig::default();
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(300));
    // The cross-file cases run with an agent's budgets (the callers a change broke are judged
    // in the result the agent gets), every other file named.
    let mut xcfg = ToolsConfig::default();
    xcfg.diagnostics.max_other_files = 1000;
    let dyn_provider = || Some(provider.clone() as Arc<dyn DiagnosticsProvider>);
    let tools = Tools::new(Workspace::open(&root)?, dyn_provider(), tcfg);
    let tools_x = Tools::new(Workspace::open(&root)?, dyn_provider(), xcfg);

    let mut row = Row {
        project: project.name,
        server,
        cold: Duration::ZERO,
        warm: Vec::new(),
        own: Vec::new(),
        added: Vec::new(),
        pool_added: Vec::new(),
        wrong: 0,
        defaults: DefaultBudgets::default(),
        verdicts: Vec::new(),
    };
    let warm = &project.warm;
    let line = warm_line(&root, warm)?;
    let mut previous = String::new();
    for i in 0..cycles {
        for forward in [true, false] {
            let t = Instant::now();
            let r = edit(&tools, warm, forward)?;
            let took = t.elapsed();
            if i == 0 && forward {
                row.cold = started.elapsed();
            } else {
                row.warm.push(took);
                if let Some(Some(own)) = provider.last_server_times().first() {
                    row.own.push(*own);
                    row.added.push(took.saturating_sub(*own));
                }
            }
            if !right_result(&r, warm.file, line, forward) {
                row.wrong += 1;
                eprintln!(
                    "real: {server}: cycle {i} ({}) got a wrong or stale result:\n{}\n(the edit before it got:\n{previous})",
                    if forward { "break" } else { "fix" },
                    r.llm_content
                );
            }
            previous = r.llm_content;
        }
    }
    // The edits' late answers are not part of what follows.
    tools.take_late_feedback();

    // The same edits as an agent with the default configuration makes them: a verdict, or
    // "pending" when the warm server is slower than the budget (issue 48's "a verdict in
    // >= 95% of warm edits").
    let plain = Tools::new(
        Workspace::open(&root)?,
        dyn_provider(),
        ToolsConfig::default(),
    );
    row.defaults = DefaultBudgets::measure(&plain, warm, line, cycles, &format!("real: {server}"))?;

    // The server's own time for the same edits, at the pool level.
    let pool = provider.pool();
    let path = root.join(warm.file);
    let good = std::fs::read_to_string(&path)?;
    let bad = apply(&good, warm)?;
    for _ in 0..cycles {
        for (text, previous, broken) in [(&bad, &good, true), (&good, &bad, false)] {
            std::fs::write(&path, text)?;
            let t = Instant::now();
            let out = pool.check_change_within(
                vec![ChangedFile {
                    path: path.clone(),
                    text: text.as_str().into(),
                    previous: Some(previous.as_str().into()),
                }],
                Instant::now() + Duration::from_secs(60),
                lspedit_lsp::OthersWait::For(Duration::ZERO),
            );
            let took = t.elapsed();
            let file = out
                .files
                .into_iter()
                .next()
                .context("no result for the edited file")?
                .1?;
            // The pool reports every error, the file's earlier ones too.
            if file.errors().any(|d| d.line == line) != broken {
                row.wrong += 1;
                eprintln!(
                    "real: {server}: pool-level check got a wrong or stale result: {:?}",
                    file.diagnostics
                );
            }
            if let Some(own) = file.server_time {
                row.pool_added.push(took.saturating_sub(own));
            }
        }
    }
    // What the pool-level checks left for later is not part of what follows.
    pool.take_late_others(Instant::now());

    for (case, expected) in cases {
        let r = edit(&tools_x, case, true)?;
        let mut text = r.llm_content.clone();
        let said_incomplete = says_incomplete(&text);
        let (in_result, _) = named_files(&text, case.file);
        let mut late_missing = false;
        if text.contains("Still checking") {
            match late_section(&tools_x, &provider, &text) {
                Some(late) => {
                    text.push_str("\n\n");
                    text.push_str(&late);
                }
                // A later result was promised and did not come: not "said so".
                None => late_missing = true,
            }
        }
        let (reported, unnamed) = named_files(&text, case.file);
        let v = Verdict {
            name: case.name,
            expected: expected.clone(),
            reported,
            said_incomplete: said_incomplete || unnamed,
            in_result,
            late_missing,
        };
        println!(
            "- {} / {server} / {}: expected {:?}, reported {:?}: {}{}",
            project.name,
            v.name,
            v.expected,
            v.reported,
            v.word(),
            if v.right() && !v.right_in_result() {
                format!(" (the edit's own result named {:?})", v.in_result)
            } else {
                String::new()
            }
        );
        if !v.right() {
            eprintln!("real: the result's text was:\n{text}");
        }
        row.verdicts.push(v);
        // Revert, and let the server settle before the next case.
        let back = edit(&tools_x, case, false)?;
        late_section(&tools_x, &provider, &back.llm_content);
    }
    row.warm.sort();
    row.own.sort();
    row.added.sort();
    row.pool_added.sort();
    provider.pool().shutdown();
    Ok(Some(row))
}

/// Runs every project with each of its installed servers; the Markdown table, the notes and
/// the cross-file cases that were not right.
pub fn run(quick: bool) -> Result<String> {
    let cycles = if quick { 3 } else { 20 };
    // `LSPEDIT_BENCH_SERVERS=tsc7,pyright`: only these servers' sessions (to look into one).
    let only: Option<Vec<String>> = std::env::var("LSPEDIT_BENCH_SERVERS")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    let mut rows = Vec::new();
    let mut case_counts = Vec::new();
    for project in PROJECTS {
        let servers: Vec<&str> = project
            .servers
            .iter()
            .copied()
            .filter(|s| only.as_ref().is_none_or(|o| o.iter().any(|x| x == s)))
            .collect();
        if servers.is_empty() {
            continue;
        }
        let cases: Vec<&Edit> = project
            .cases
            .iter()
            .take(if quick { 3 } else { usize::MAX })
            .collect();
        let expected = project.expected(&cases)?;
        let cases: Vec<(&Edit, BTreeSet<String>)> = cases.into_iter().zip(expected).collect();
        case_counts.push((project.name, cases.len()));
        for server in servers {
            if let Some(row) = session(project, server, cycles, &cases)? {
                rows.push(row);
            }
        }
    }
    let mut s = String::from(
        "| project | server | cold: pool start → first edit's result (ms) | warm edit → result p50 (ms) | p90 | server's own time p50 (ms) | added by lspedit p50 (ms) | p90 | pool level: added p50 (ms) | wrong or stale | default budgets: checked and right / pending / wrong | late blocks about the edited file | cross-file right | of which in the edit's own result | incomplete, said so |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &rows {
        let right = r.verdicts.iter().filter(|v| v.right()).count();
        let said = r.verdicts.iter().filter(|v| v.incomplete_said_so()).count();
        let own = r.verdicts.iter().filter(|v| v.right_in_result()).count();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} / {} of {} | {} | {right}/{} | {own} | {said} |",
            r.project,
            r.server,
            ms(r.cold),
            ms(percentile(&r.warm, 0.5)),
            ms(percentile(&r.warm, 0.9)),
            ms(percentile(&r.own, 0.5)),
            ms(percentile(&r.added, 0.5)),
            ms(percentile(&r.added, 0.9)),
            ms(percentile(&r.pool_added, 0.5)),
            r.wrong,
            r.defaults.right,
            r.defaults.pending,
            r.defaults.wrong,
            r.defaults.total(),
            r.defaults.stale_late,
            r.verdicts.len(),
        );
    }
    let _ = writeln!(
        s,
        "\nCross-file cases per project: {}.",
        case_counts
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let failed: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.verdicts.iter().filter(|v| !v.right()).map(move |v| {
                let missed: Vec<&String> = v.expected.difference(&v.reported).collect();
                let extra: Vec<&String> = v.reported.difference(&v.expected).collect();
                format!(
                    "- {} / {} / {}: {} — missed {}, over-reported {}{}",
                    r.project,
                    r.server,
                    v.name,
                    v.word(),
                    list(&missed),
                    list(&extra),
                    if v.late_missing {
                        " (the result said other files were still being checked; no late answer came within 30 s)"
                    } else {
                        ""
                    }
                )
            })
        })
        .collect();
    if failed.is_empty() {
        s.push_str("\nEvery cross-file case was right.\n");
    } else {
        let _ = writeln!(s, "\nCross-file cases that were not right:\n");
        for f in failed {
            let _ = writeln!(s, "{f}");
        }
    }
    Ok(s)
}

fn list(files: &[&String]) -> String {
    if files.is_empty() {
        "none".to_string()
    } else {
        files
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_files_reads_blocks_and_the_not_shown_line() {
        let text = "LSP errors detected in this file, please fix:\n<diagnostics file=\"src/a.ts\">\nERROR [1:1] x\n</diagnostics>\n\n\
                    LSP errors detected in other files:\n<diagnostics file=\"src/b.ts\">\nERROR [2:1] y\n</diagnostics>\n\
                    3 other files have new errors; showing 1 of them (not shown: src/c.ts, src/d.ts).";
        let (files, unnamed) = named_files(text, "src/a.ts");
        assert_eq!(
            files.into_iter().collect::<Vec<_>>(),
            ["src/b.ts", "src/c.ts", "src/d.ts"]
        );
        assert!(!unnamed);
        let (files, unnamed) = named_files("(not shown: src/c.ts and 4 more).", "x");
        assert_eq!(files.into_iter().collect::<Vec<_>>(), ["src/c.ts"]);
        assert!(unnamed);
    }
}
