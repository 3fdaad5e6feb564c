//! `lspedit-bench rename`: a symbol renamed across two files through the LSP edit tools, on real
//! servers and the test projects: lspedit's end-to-end latency (read, position, the server's
//! prepareRename + rename, confinement, the patch proposed and applied all or nothing, the
//! diagnostics feedback of both files) beside the server's own time for its requests.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use lspedit_fake_lsp::support::percentile;
use lspedit_lsp_edits::{EditOptions, LineRef, SymbolAt};

use crate::lsp_env::LspEnv;
use crate::timing::ms;

pub const HEADING: &str = "## LSP rename";

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    line: usize,
}

const CASES: &[Case] = &[
    Case {
        server: "tsc7",
        project: "ts-basic",
        file: "src/util.ts",
        line: 1,
    },
    Case {
        server: "typescript-language-server",
        project: "ts-basic",
        file: "src/util.ts",
        line: 1,
    },
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/main.py",
        line: 1,
    },
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        line: 3,
    },
];

struct Row {
    server: &'static str,
    project: &'static str,
    first: Duration,
    total: Vec<Duration>,
    server_time: Vec<Duration>,
}

fn bench(repo: &Path, case: &Case, iterations: usize) -> Result<Option<Row>> {
    let Some(env) = LspEnv::open(repo, case.server, case.project, "rename")? else {
        return Ok(None);
    };
    let edits = env.edits();
    let names = ["add", "plus"];
    let mut row = Row {
        server: case.server,
        project: case.project,
        first: Duration::ZERO,
        total: Vec::new(),
        server_time: Vec::new(),
    };
    // Iteration 0 (cold: the server starts and loads the project) is reported on its own.
    for i in 0..=iterations {
        let (from, to) = (names[i % 2], names[(i + 1) % 2]);
        let at = SymbolAt::new(case.file, LineRef::Number(case.line), from);
        let t0 = Instant::now();
        let r = edits.rename_symbol(&at, to, EditOptions::default());
        let took = t0.elapsed();
        ensure!(
            !r.is_error && r.files.len() == 2,
            "{}: rename {from} -> {to} failed:\n{}",
            case.server,
            r.llm_content
        );
        ensure!(
            !r.llm_content.contains("LSP errors"),
            "{}: the rename left errors:\n{}",
            case.server,
            r.llm_content
        );
        if i == 0 {
            row.first = took;
            continue;
        }
        row.total.push(took);
        row.server_time
            .push(r.server_time.context("no server time in the result")?);
    }
    row.total.sort();
    row.server_time.sort();
    env.provider.pool().shutdown();
    Ok(Some(row))
}

/// The Markdown table of every installed server's figures.
pub fn run(repo: &Path, quick: bool) -> Result<String> {
    let iterations = if quick { 4 } else { 20 };
    let mut out = String::from(
        "| server | project | first rename (cold start) ms | end-to-end p50 ms | p95 ms | server's rename p50 ms | p95 ms |\n|---|---|---:|---:|---:|---:|---:|\n",
    );
    for case in CASES {
        eprintln!("rename: {} on {}", case.server, case.project);
        if let Some(r) = bench(repo, case, iterations)? {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                r.server,
                r.project,
                ms(r.first),
                ms(percentile(&r.total, 0.5)),
                ms(percentile(&r.total, 0.95)),
                ms(percentile(&r.server_time, 0.5)),
                ms(percentile(&r.server_time, 0.95)),
            ));
        }
    }
    Ok(out)
}
