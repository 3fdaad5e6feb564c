//! Engine benchmarks: parse and apply a 10-hunk patch in memory, no I/O.

use std::hint::black_box;

use anyhow::{Context, Result, bail, ensure};
use lspedit_engine::{
    ApplyOptions, Document, FileChange, FilePatch, apply_file_patch, apply_hunks, parse_patch,
};

use crate::generate::{self, Case};
use crate::timing::{Budget, Stats, bench, ms};

/// Seed of every engine input.
pub const SEED: u64 = 0x5eed_0001;
pub const HUNKS: usize = 10;
/// Lines inserted above every hunk in the spiral-search cases.
pub const DRIFT: usize = 95;

struct Row {
    name: String,
    lines: usize,
    bytes: usize,
    parse: Stats,
    apply: Stats,
    total: Stats,
    decode: Stats,
    relocate: Stats,
    encode: Stats,
}

/// The only file section of a parsed benchmark patch.
fn section(case: &Case) -> Result<FilePatch> {
    let patch = parse_patch(&case.patch).map_err(|e| anyhow::anyhow!("{e}"))?;
    ensure!(patch.files.len() == 1, "expected one file section");
    patch.files.into_iter().next().context("no file section")
}

/// Check once, untimed, that the engine produces the expected file and found every hunk where
/// the generator put it.
fn verify(case: &Case, drift: usize, opts: &ApplyOptions) -> Result<()> {
    let fp = section(case)?;
    let out = apply_file_patch(&fp, Some(case.old.as_bytes()), opts)
        .map_err(|e| anyhow::anyhow!("engine refused the benchmark patch: {e}"))?;
    ensure!(
        out.new_content.as_deref() == Some(case.expected.as_bytes()),
        "engine output differs from the expected file"
    );
    ensure!(out.hunks.len() == HUNKS, "expected {HUNKS} placements");
    for (h, p) in out.hunks.iter().enumerate() {
        let want = (drift * (h + 1)) as isize;
        ensure!(
            p.offset == want,
            "hunk {} found at offset {} (want {want})",
            h + 1,
            p.offset
        );
        let distance = p.found_line.abs_diff(p.target_line);
        ensure!(
            distance == drift,
            "hunk {} searched {distance} lines from its target (want {drift})",
            h + 1
        );
    }
    Ok(())
}

fn measure(name: &str, lines: usize, drift: usize, budget: Budget) -> Result<Row> {
    let case = generate::case(SEED ^ lines as u64, lines, HUNKS, drift);
    let opts = ApplyOptions::default();
    verify(&case, drift, &opts)?;
    let fp = section(&case)?;
    let FileChange::Update { hunks, .. } = &fp.change else {
        bail!("expected an update section");
    };
    let old = case.old.as_bytes();

    let parse = bench(budget, || parse_patch(black_box(&case.patch)));
    let apply = bench(budget, || {
        apply_file_patch(&fp, Some(black_box(old)), &opts)
    });
    let total = bench(budget, || {
        let patch = parse_patch(black_box(&case.patch)).map_err(|e| e.to_string())?;
        let fp = patch.files.first().ok_or("no file")?;
        apply_file_patch(fp, Some(black_box(old)), &opts).map_err(|e| e.to_string())
    });

    // The `Document` path, step by step: decoding the bytes, relocating the hunks and building
    // the new lines, and encoding the result (apply_file_patch itself borrows the lines instead).
    let decode = bench(budget, || Document::from_bytes(black_box(old)));
    let doc = Document::from_bytes(old).map_err(|e| anyhow::anyhow!("{e}"))?;
    let relocate = bench(budget, || apply_hunks(black_box(&doc), hunks, &opts));
    let applied = apply_hunks(&doc, hunks, &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
    let encode = bench(budget, || black_box(&applied.doc).to_bytes());

    Ok(Row {
        name: name.to_string(),
        lines: case.lines,
        bytes: old.len(),
        parse,
        apply,
        total,
        decode,
        relocate,
        encode,
    })
}

/// An untimed loop of parse + apply, for a profiler.
pub fn profile(lines: usize, drift: usize, iters: usize) -> Result<()> {
    let case = generate::case(SEED ^ lines as u64, lines, HUNKS, drift);
    let opts = ApplyOptions::default();
    verify(&case, drift, &opts)?;
    for _ in 0..iters {
        let patch = parse_patch(black_box(&case.patch)).map_err(|e| anyhow::anyhow!("{e}"))?;
        let fp = patch.files.first().context("no file section")?;
        black_box(
            apply_file_patch(fp, Some(black_box(case.old.as_bytes())), &opts)
                .map_err(|e| anyhow::anyhow!("{e}"))?,
        );
    }
    Ok(())
}

/// Results of the engine benchmark, as Markdown.
pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
}

pub fn run(quick: bool) -> Result<Report> {
    let budget = if quick {
        Budget::QUICK
    } else {
        Budget::DEFAULT
    };
    let mut rows = Vec::new();
    for &lines in &[1_000usize, 10_000, 100_000, 1_000_000] {
        let name = format!("{HUNKS} hunks, {} lines", human(lines));
        eprintln!("engine: {name}");
        rows.push(measure(&name, lines, 0, budget)?);
    }
    for &lines in &[10_000usize, 100_000] {
        let name = format!(
            "{HUNKS} hunks, {} lines + {DRIFT} drift above each hunk, stale headers (spiral ±{DRIFT})",
            human(lines)
        );
        eprintln!("engine: {name}");
        rows.push(measure(&name, lines, DRIFT, budget)?);
    }

    let mut md = String::new();
    md.push_str("| case | file lines | file KiB | parse median (ms) | parse p95 | apply median (ms) | apply p95 | apply min | total median (ms) | total p95 | total min | apply ns/line (median) | runs (apply) |\n");
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &rows {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.1} | {} |\n",
            r.name,
            r.lines,
            r.bytes / 1024,
            ms(r.parse.median),
            ms(r.parse.p95),
            ms(r.apply.median),
            ms(r.apply.p95),
            ms(r.apply.min),
            ms(r.total.median),
            ms(r.total.p95),
            ms(r.total.min),
            r.apply.median.as_nanos() as f64 / r.lines as f64,
            r.apply.runs,
        ));
    }
    md.push_str("\nThe `Document` path, for comparison (medians, ms): what an embedder holding a `Document` pays, step by step: decoding the bytes into lines (`Document::from_bytes`: binary sniff, UTF-8 check, one `String` per line), relocating the hunks and building the new line list (`apply_hunks`, including live sync), and encoding the result (`Document::to_bytes`). `apply_file_patch` above does not take this path: it reads the lines borrowed from the bytes (no `String` per line) and renders the result from them, copying unchanged lines in whole runs, which is why its total is a fraction of these three.\n\n");
    md.push_str("| case | decode | relocate + edit | encode | relocate ns/line |\n");
    md.push_str("|---|---:|---:|---:|---:|\n");
    for r in &rows {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {:.1} |\n",
            r.name,
            ms(r.decode.median),
            ms(r.relocate.median),
            ms(r.encode.median),
            r.relocate.median.as_nanos() as f64 / r.lines as f64,
        ));
    }

    let mut verdicts = Vec::new();
    if let Some(r) = rows.iter().find(|r| r.lines == 10_000) {
        let met = r.total.median.as_secs_f64() <= 1e-3;
        verdicts.push(format!(
            "10k lines, parse + apply: {} ms median, p95 {} ms (target ≤ 1 ms): {}",
            ms(r.total.median),
            ms(r.total.p95),
            if met { "met" } else { "MISSED" }
        ));
    }
    let plain: Vec<&Row> = rows.iter().filter(|r| !r.name.contains("drift")).collect();
    if let (Some(first), Some(last)) = (plain.first(), plain.last()) {
        let per = |r: &Row| r.apply.median.as_nanos() as f64 / r.lines as f64;
        let ratio = per(last) / per(first);
        verdicts.push(format!(
            "scaling: apply costs {:.1} ns/line at {} lines and {:.1} ns/line at {} lines ({ratio:.2}×; 1.0 = perfectly linear)",
            per(first),
            human(first.lines),
            per(last),
            human(last.lines),
        ));
    }
    if let (Some(plain10), Some(drift10)) = (
        rows.iter().find(|r| r.lines == 10_000),
        rows.iter()
            .find(|r| r.name.contains("drift") && r.name.contains("10k")),
    ) {
        verdicts.push(format!(
            "spiral search (10k lines): relocate + edit {} ms vs {} ms without drift (+{} ms for 10 hunks × ±{DRIFT} lines)",
            ms(drift10.relocate.median),
            ms(plain10.relocate.median),
            ms(drift10.relocate.median.saturating_sub(plain10.relocate.median)),
        ));
    }
    Ok(Report {
        markdown: md,
        verdicts,
    })
}

/// One row of the hunks-per-patch scaling benchmark.
struct ScalingRow {
    headers: &'static str,
    hunks: usize,
    lines: usize,
    patch_mib: f64,
    parse: std::time::Duration,
    apply: std::time::Duration,
}

/// Hunk counts of the scaling benchmark (`quick`: the first two only).
pub const SCALING_HUNKS: &[usize] = &[10_000, 100_000, 1_000_000];

/// The two header forms the scaling benchmark runs: numbered, and Aider's numberless form
/// (every hunk located by content after the previous one).
const SCALING_HEADERS: [(bool, &str); 2] = [(true, "`@@ -a,3 +a,3 @@`"), (false, "`@@ ... @@`")];

/// Planning work against hunks per patch: parse and apply one patch of 10k, 100k and 1M hunks
/// (one per 4-line function of the file), numbered and numberless, each timed once after a
/// check that the output is the expected file. Linear planning keeps the time per hunk flat; a
/// quadratic step (a list of claimed ranges rebuilt per hunk) made 1M hunks run for more than
/// 300 s.
pub fn scaling(quick: bool) -> Result<Report> {
    let sizes = if quick {
        &SCALING_HUNKS[..2]
    } else {
        SCALING_HUNKS
    };
    let opts = ApplyOptions::default();
    let mut rows = Vec::new();
    for (numbered, headers) in SCALING_HEADERS {
        for &hunks in sizes {
            eprintln!("engine scaling: {} hunks, {headers}", human(hunks));
            rows.push(scaling_row(hunks, numbered, headers, &opts)?);
        }
    }
    let mut md = String::from(
        "| headers | hunks | file lines | patch MiB | parse (ms) | apply (ms) | total (ms) | total µs/hunk |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for r in &rows {
        let total = r.parse + r.apply;
        md.push_str(&format!(
            "| {} | {} | {} | {:.1} | {} | {} | {} | {:.2} |\n",
            r.headers,
            r.hunks,
            r.lines,
            r.patch_mib,
            ms(r.parse),
            ms(r.apply),
            ms(total),
            total.as_nanos() as f64 / 1000.0 / r.hunks as f64,
        ));
    }
    let per = |r: &ScalingRow| (r.parse + r.apply).as_nanos() as f64 / r.hunks as f64;
    let mut verdicts = Vec::new();
    for (_, headers) in SCALING_HEADERS {
        let of: Vec<&ScalingRow> = rows.iter().filter(|r| r.headers == headers).collect();
        if let (Some(first), Some(last)) = (of.first(), of.last()) {
            verdicts.push(format!(
                "{headers}: {:.2} µs per hunk at {} hunks, {:.2} µs at {} hunks ({:.2}×; 1.0 = linear)",
                per(first) / 1000.0,
                human(first.hunks),
                per(last) / 1000.0,
                human(last.hunks),
                per(last) / per(first)
            ));
        }
    }
    Ok(Report {
        markdown: md,
        verdicts,
    })
}

/// One timed parse + apply of a `hunks`-hunk patch, checked against the expected file.
fn scaling_row(
    hunks: usize,
    numbered: bool,
    headers: &'static str,
    opts: &ApplyOptions,
) -> Result<ScalingRow> {
    let case = generate::many_hunks_with(hunks, numbered);
    let start = std::time::Instant::now();
    let patch = parse_patch(black_box(&case.patch)).map_err(|e| anyhow::anyhow!("{e}"))?;
    let parse = start.elapsed();
    let fp = patch.files.first().context("no file section")?;
    let start = std::time::Instant::now();
    let out = apply_file_patch(fp, Some(black_box(case.old.as_bytes())), opts)
        .map_err(|e| anyhow::anyhow!("engine refused the scaling patch: {e}"))?;
    let apply = start.elapsed();
    ensure!(
        out.new_content.as_deref() == Some(case.expected.as_bytes()),
        "engine output differs from the expected file ({hunks} hunks, {headers})"
    );
    ensure!(out.hunks.len() == hunks, "expected {hunks} placements");
    Ok(ScalingRow {
        headers,
        hunks,
        lines: case.lines,
        patch_mib: case.patch.len() as f64 / (1024.0 * 1024.0),
        parse,
        apply,
    })
}

/// `1k`, `10k`, `1M`.
pub fn human(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}M", n / 1_000_000)
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}
