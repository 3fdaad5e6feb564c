//! `lspedit-bench symbols --real`: the symbol edits on the pinned real projects (requests with
//! pyright, zod with tsc7, memchr with rust-analyzer; `real_projects.rs`), warm. Per project:
//! lspedit's end-to-end time beside the server's own time for the same `documentSymbol`
//! request, so what lspedit adds (reading the file, checking the range, fitting the body,
//! planning, checkpointing and writing) is the difference.
//!
//! Two sessions share the one pool: one with the diagnostics feedback (what an agent sees: the
//! edit's verdict included), one without (the symbol edit alone). Each round replaces a
//! function's body (two bodies in turn), inserts a function after it (undone untimed), asks
//! for an ambiguous name (a refusal naming the candidates) and reads the file's outline right
//! after an edit with the feedback (a lookup while the server checks the change).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use lspedit_fake_lsp::support::percentile;
use lspedit_lsp::{BlockingPool, PoolConfig};
use lspedit_lsp_edits::{
    EditOptions, LspEditProvider, LspEditReason, LspEdits, LspEditsConfig, SymbolEdit,
    SymbolEditKind,
};
use lspedit_tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig};
use lspedit_workflow::{Workflow, WorkflowConfig};
use lspedit_write::Workspace;

use crate::real_projects::PROJECTS;
use crate::timing::ms;

pub const HEADING: &str = "## Symbol edits on real projects";

/// One project's symbol, the bodies it takes in turn, a function to insert after it and a name
/// that is ambiguous in a file.
struct Target {
    project: &'static str,
    server: &'static str,
    file: &'static str,
    name_path: &'static str,
    bodies: [&'static str; 2],
    insert: &'static str,
    ambiguous: (&'static str, &'static str),
}

const TARGETS: &[Target] = &[
    Target {
        project: "requests",
        server: "pyright",
        file: "src/requests/utils.py",
        name_path: "dotted_netmask",
        bodies: [
            "def dotted_netmask(mask):\n    bits = 0xFFFFFFFF ^ (1 << 32 - mask) - 1\n    return socket.inet_ntoa(struct.pack(\">I\", bits))",
            "def dotted_netmask(mask):\n    \"\"\"Converts mask from /xx format to xxx.xxx.xxx.xxx\"\"\"\n    bits = 0xFFFFFFFF ^ (1 << 32 - mask) - 1\n    return socket.inet_ntoa(struct.pack(\">I\", bits & 0xFFFFFFFF))",
        ],
        insert: "def netmask_bits(mask):\n    return 32 - mask",
        ambiguous: ("src/requests/models.py", "__init__"),
    },
    Target {
        project: "zod",
        server: "tsc7",
        file: "src/v4/core/util.ts",
        name_path: "escapeRegex",
        bodies: [
            "export function escapeRegex(str: string): string {\n  // Every character a RegExp gives a meaning to.\n  return str.replace(/[.*+?^${}()|[\\]\\\\]/g, \"\\\\$&\");\n}",
            "export function escapeRegex(str: string): string {\n  const escaped = str.replace(/[.*+?^${}()|[\\]\\\\]/g, \"\\\\$&\");\n  return escaped;\n}",
        ],
        insert: "export function escapeRegexLength(str: string): number {\n  return escapeRegex(str).length;\n}",
        ambiguous: ("src/v4/core/util.ts", "issue"),
    },
    Target {
        project: "memchr",
        server: "rust-analyzer",
        file: "src/memchr.rs",
        name_path: "memrchr",
        bodies: [
            "pub fn memrchr(needle: u8, haystack: &[u8]) -> Option<usize> {\n    // SAFETY: memrchr_raw, when it finds a match, returns a valid pointer\n    // between start and end.\n    unsafe {\n        generic::search_slice_with_raw(haystack, |start, end| {\n            memrchr_raw(needle, start, end)\n        })\n    }\n}",
            "pub fn memrchr(needle: u8, haystack: &[u8]) -> Option<usize> {\n    // SAFETY: memrchr_raw returns a pointer between start and end.\n    unsafe {\n        generic::search_slice_with_raw(haystack, |start, end| {\n            memrchr_raw(needle, start, end)\n        })\n    }\n}",
        ],
        insert: "pub fn memrchr_exists(needle: u8, haystack: &[u8]) -> bool {\n    memrchr(needle, haystack).is_some()\n}",
        ambiguous: ("src/arch/all/memchr.rs", "new"),
    },
];

/// The rows of a project's table, in order.
const ROWS: &[&str] = &[
    "replace_symbol_body, no feedback",
    "insert_after_symbol, no feedback",
    "ambiguous name refused",
    "replace_symbol_body with the feedback",
    "outline right after that edit",
];

#[derive(Default)]
struct Times {
    total: Vec<Duration>,
    server: Vec<Duration>,
    /// End-to-end minus the server's time, round by round: what lspedit adds.
    own: Vec<Duration>,
}

/// A session over `root`: the tools (with or without the diagnostics feedback) and a workflow.
struct Side {
    tools: Arc<Tools>,
    wf: Workflow,
}

impl Side {
    fn open(root: &Path, provider: &Arc<LspProvider>, feedback: bool) -> Result<Side> {
        let mut tcfg = ToolsConfig::default();
        tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
        tcfg.diagnostics.start_timeout = Some(Duration::from_secs(180));
        let diagnostics = feedback.then(|| provider.clone() as Arc<dyn DiagnosticsProvider>);
        let tools = Arc::new(Tools::new(Workspace::open(root)?, diagnostics, tcfg));
        let wf = Workflow::open(
            tools.clone(),
            WorkflowConfig {
                event_log: false,
                ..WorkflowConfig::unrestricted()
            },
        )?;
        Ok(Side { tools, wf })
    }

    fn edits<'a>(&'a self, provider: &'a Arc<LspProvider>) -> LspEdits<'a> {
        LspEdits::new(
            &self.tools,
            &self.wf,
            Some(provider.pool() as &dyn LspEditProvider),
            LspEditsConfig {
                timeout: Duration::from_secs(180),
                ..LspEditsConfig::default()
            },
        )
    }
}

fn bench(t: &Target, rounds: usize) -> Result<Option<Vec<Times>>> {
    let project = PROJECTS
        .iter()
        .find(|p| p.name == t.project)
        .context("no such project")?;
    let cfg = PoolConfig::bundled()?.only(&[t.server]);
    let Some(decl) = cfg.server(t.server) else {
        return Ok(None);
    };
    if cfg.resolve_command(decl).is_none() {
        eprintln!("symbols --real: {} is not installed; skipped", t.server);
        return Ok(None);
    }
    let dir = tempfile::tempdir()?;
    let root = project.unpack(dir.path())?;
    let provider = Arc::new(LspProvider::from_pool(BlockingPool::new(&root, cfg)?));
    let quiet = Side::open(&root, &provider, false)?;
    let loud = Side::open(&root, &provider, true)?;
    let (qe, le) = (quiet.edits(&provider), loud.edits(&provider));
    let mut times: Vec<Times> = ROWS.iter().map(|_| Times::default()).collect();
    // Round 0 starts the server and loads the project: not counted.
    for round in 0..=rounds {
        let mut took: Vec<(Duration, Duration)> = Vec::new();
        let edit = |kind, body: &str| SymbolEdit::new(kind, t.file, t.name_path, body);
        let applied = |r: &lspedit_lsp_edits::LspEditResult, what: &str| -> Result<Duration> {
            ensure!(!r.is_error, "{} {what}: {}", t.project, r.llm_content);
            r.server_time.context("no server time")
        };

        let t0 = Instant::now();
        let r = qe.edit_symbol(
            &edit(SymbolEditKind::Replace, t.bodies[0]),
            EditOptions::default(),
        );
        let e = t0.elapsed();
        took.push((e, applied(&r, "replace")?));

        let t0 = Instant::now();
        let r = qe.edit_symbol(
            &edit(SymbolEditKind::InsertAfter, t.insert),
            EditOptions::default(),
        );
        let e = t0.elapsed();
        took.push((e, applied(&r, "insert_after")?));
        quiet.wf.undo(&r.checkpoint_id.context("no checkpoint")?)?;

        let t0 = Instant::now();
        let r = qe.edit_symbol(
            &SymbolEdit::new(SymbolEditKind::Replace, t.ambiguous.0, t.ambiguous.1, "x"),
            EditOptions::default(),
        );
        let e = t0.elapsed();
        ensure!(
            r.reason == Some(LspEditReason::Tool(lspedit_write::Reason::AmbiguousMatch)),
            "{}: `{}` in {} was not refused as ambiguous: {}",
            t.project,
            t.ambiguous.1,
            t.ambiguous.0,
            r.llm_content
        );
        took.push((e, r.server_time.unwrap_or_default()));

        // The other body: each round goes from the second body to the first and back.
        let t0 = Instant::now();
        let r = le.edit_symbol(
            &edit(SymbolEditKind::Replace, t.bodies[1]),
            EditOptions::default(),
        );
        let e = t0.elapsed();
        took.push((e, applied(&r, "replace with the feedback")?));

        let t0 = Instant::now();
        let o = le.outline(t.file)?;
        took.push((t0.elapsed(), o.server_time));

        if round > 0 {
            for (t, (total, server)) in times.iter_mut().zip(took) {
                t.total.push(total);
                t.server.push(server);
                t.own.push(total.saturating_sub(server));
            }
        }
    }
    for t in &mut times {
        t.total.sort();
        t.server.sort();
        t.own.sort();
    }
    provider.pool().shutdown();
    Ok(Some(times))
}

/// The Markdown table of every project whose server is installed.
pub fn run(quick: bool) -> Result<String> {
    let rounds = if quick { 4 } else { 20 };
    let mut out = String::from(
        "| project (server) | call | end-to-end p50 ms | p95 ms | server's documentSymbol p50 ms | lspedit's own p50 ms |\n|---|---|---:|---:|---:|---:|\n",
    );
    for t in TARGETS {
        eprintln!("symbols --real: {} with {}", t.project, t.server);
        let Some(times) = bench(t, rounds)? else {
            continue;
        };
        for (row, m) in ROWS.iter().zip(times) {
            out.push_str(&format!(
                "| {} ({}) | {row} | {} | {} | {} | {} |\n",
                t.project,
                t.server,
                ms(percentile(&m.total, 0.5)),
                ms(percentile(&m.total, 0.95)),
                ms(percentile(&m.server, 0.5)),
                ms(percentile(&m.own, 0.5)),
            ));
        }
    }
    Ok(out)
}
