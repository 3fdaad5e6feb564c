//! `lspedit-bench symbols`: the symbol tools (issue 27) on real servers, warm: per server and
//! tool, lspedit's end-to-end time beside the server's own time for its requests. The files are
//! `test-projects/fixtures/symbols/cart.*` (a class and its methods) in the test projects.
//!
//! Each tool is called once to warm the server (the project loaded), then `iterations` times.
//! `outline`, `find_symbol`, `hover` and `call_hierarchy` (both directions, `Cart/total` by
//! name path) are read-only; `replace_symbol_body` alternates two bodies of
//! `Cart/total`, and `insert_after_symbol` adds a method after it that `undo` then removes (not
//! timed), so every call sees the same file. Every edit is checked to apply and to leave no
//! error.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use lspedit_fake_lsp::support::percentile;
use lspedit_lsp_edits::{
    CallDirection, EditOptions, FindQuery, LookupAt, SymbolEdit, SymbolEditKind,
};

use crate::lsp_env::LspEnv;
use crate::timing::ms;

pub const HEADING: &str = "## Symbol tools";

struct Case {
    server: &'static str,
    project: &'static str,
    fixture: &'static str,
    file: &'static str,
    /// A line to add to an existing file so the new one is part of the project.
    register: Option<(&'static str, &'static str)>,
    /// Two bodies of `Cart/total`, and a method to insert after it.
    bodies: [&'static str; 2],
    method: &'static str,
}

const TS: Case = Case {
    server: "",
    project: "ts-basic",
    fixture: "cart.ts",
    file: "src/cart.ts",
    register: None,
    bodies: [
        "total(): number {\n  return add(this.items.length, 1);\n}",
        "total(): number {\n  return add(this.items.length, 0);\n}",
    ],
    method: "count(): number {\n  return this.items.length;\n}",
};

const CASES: &[Case] = &[
    Case {
        server: "tsc7",
        ..TS
    },
    Case {
        server: "typescript-language-server",
        ..TS
    },
    Case {
        server: "pyright",
        project: "python-basic",
        fixture: "cart.py",
        file: "app/cart.py",
        register: None,
        bodies: [
            "def total(self) -> int:\n    return add(len(self.items), 1)",
            "def total(self) -> int:\n    return add(len(self.items), 0)",
        ],
        method: "def count(self) -> int:\n    return len(self.items)",
    },
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        fixture: "cart.rs",
        file: "src/cart.rs",
        register: Some(("src/lib.rs", "\npub mod cart;\n")),
        bodies: [
            "pub fn total(&self) -> i32 {\n    add(self.items.len() as i32, 1)\n}",
            "pub fn total(&self) -> i32 {\n    add(self.items.len() as i32, 0)\n}",
        ],
        method: "pub fn count(&self) -> usize {\n    self.items.len()\n}",
    },
];

/// The tools measured, in the table's order.
const TOOLS: &[&str] = &[
    "outline (file)",
    "find_symbol Cart/total (workspace)",
    "hover Cart/total",
    "call_hierarchy incoming Cart/total",
    "call_hierarchy outgoing Cart/total",
    "replace_symbol_body",
    "insert_after_symbol",
];

/// One tool's times on one server.
#[derive(Default)]
struct Times {
    total: Vec<Duration>,
    server: Vec<Duration>,
}

fn bench(repo: &Path, case: &Case, iterations: usize) -> Result<Option<Vec<Times>>> {
    let Some(env) = LspEnv::open(repo, case.server, case.project, "symbols")? else {
        return Ok(None);
    };
    let root = &env.root;
    let fixture = repo
        .join("test-projects/fixtures/symbols")
        .join(case.fixture);
    std::fs::copy(&fixture, root.join(case.file))
        .with_context(|| format!("copying {}", fixture.display()))?;
    if let Some((path, line)) = case.register {
        let mut text = std::fs::read_to_string(root.join(path))?;
        text.push_str(line);
        std::fs::write(root.join(path), text)?;
    }
    let edits = env.edits();
    let find = FindQuery {
        name: "Cart/total".into(),
        exact: true,
        ..FindQuery::default()
    };
    let mut times: Vec<Times> = TOOLS.iter().map(|_| Times::default()).collect();
    // Round 0 warms the server (it starts and loads the project) and is not counted.
    for i in 0..=iterations {
        let mut took = Vec::new();

        let t0 = Instant::now();
        let o = edits.outline(case.file)?;
        took.push((t0.elapsed(), o.server_time));
        ensure!(!o.partial, "{}: outline was partial", case.server);

        let t0 = Instant::now();
        let f = edits.find_symbol(&find)?;
        took.push((t0.elapsed(), f.server_time));
        ensure!(
            f.matches.len() == 1,
            "{}: find_symbol Cart/total:\n{}",
            case.server,
            f.llm_content
        );

        // The lookups, by name path (the symbols read, then the request at the name).
        let total = LookupAt::NamePath {
            path: case.file.into(),
            name_path: "Cart/total".into(),
            anchor: None,
        };
        let t0 = Instant::now();
        let h = edits.hover(&total)?;
        took.push((t0.elapsed(), h.server_time));
        ensure!(
            h.text.as_deref().is_some_and(|t| t.contains("total")),
            "{}: hover Cart/total:\n{}",
            case.server,
            h.llm_content
        );
        for (direction, callee) in [
            (CallDirection::Incoming, "price"),
            (CallDirection::Outgoing, "add"),
        ] {
            let t0 = Instant::now();
            let c = edits.call_hierarchy(&total, direction)?;
            took.push((t0.elapsed(), c.server_time));
            ensure!(
                c.calls.iter().any(|c| c.item.name == callee),
                "{}: call_hierarchy {} Cart/total:\n{}",
                case.server,
                direction.as_str(),
                c.llm_content
            );
        }

        let edit = |kind, body: &str| SymbolEdit::new(kind, case.file, "Cart/total", body);
        let t0 = Instant::now();
        let r = edits.edit_symbol(
            &edit(SymbolEditKind::Replace, case.bodies[i % 2]),
            EditOptions::default(),
        );
        let elapsed = t0.elapsed();
        ensure!(
            !r.is_error && !r.llm_content.contains("LSP errors"),
            "{}: replace_symbol_body:\n{}",
            case.server,
            r.llm_content
        );
        took.push((elapsed, r.server_time.context("no server time")?));

        let t0 = Instant::now();
        let r = edits.edit_symbol(
            &edit(SymbolEditKind::InsertAfter, case.method),
            EditOptions::default(),
        );
        let elapsed = t0.elapsed();
        ensure!(
            !r.is_error && !r.llm_content.contains("LSP errors"),
            "{}: insert_after_symbol:\n{}",
            case.server,
            r.llm_content
        );
        took.push((elapsed, r.server_time.context("no server time")?));
        env.wf.undo(&r.checkpoint_id.context("no checkpoint")?)?;

        if i > 0 {
            for (t, (total, server)) in times.iter_mut().zip(took) {
                t.total.push(total);
                t.server.push(server);
            }
        }
    }
    for t in &mut times {
        t.total.sort();
        t.server.sort();
    }
    env.provider.pool().shutdown();
    Ok(Some(times))
}

/// The Markdown table of every installed server's figures.
pub fn run(repo: &Path, quick: bool) -> Result<String> {
    let iterations = if quick { 4 } else { 20 };
    let mut out = String::from(
        "| server | tool | end-to-end p50 ms | p95 ms | server's requests p50 ms | p95 ms |\n|---|---|---:|---:|---:|---:|\n",
    );
    for case in CASES {
        eprintln!("symbols: {} on {}", case.server, case.project);
        let Some(times) = bench(repo, case, iterations)? else {
            continue;
        };
        for (tool, t) in TOOLS.iter().zip(times) {
            out.push_str(&format!(
                "| {} | {tool} | {} | {} | {} | {} |\n",
                case.server,
                ms(percentile(&t.total, 0.5)),
                ms(percentile(&t.total, 0.95)),
                ms(percentile(&t.server, 0.5)),
                ms(percentile(&t.server, 0.95)),
            ));
        }
    }
    Ok(out)
}
