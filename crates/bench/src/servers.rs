//! Real language servers through the pool: cold start to first diagnostics, warm write →
//! diagnostics latency next to the server's own time, and stale results over an
//! edit → fix → edit loop, per server; plus the pool process's own memory.
//!
//! Each server works on a fresh copy of its project under `test-projects/`. The loop alternates
//! a broken and a fixed version of one file; every result is checked against the text just
//! written: the broken text must report an error on the broken line, the fixed text none. A
//! result that does not match is counted as stale (the previous text's diagnostics) or wrong.
//! "Server's own time" is from sending the text to the server's first answer for it (the pull
//! reply, the versioned publish, rust-analyzer's on-save check end); the difference is what the
//! pool adds (settling and bookkeeping).
//!
//! Cross-file: where the project has a file importing the edited one, the broken text also
//! changes an exported signature, and after each edit the importer (not written) is checked
//! too: it must report an error on its call line after a break and none after a fix. Its time
//! and stale or wrong results are columns of their own.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use lspedit_fake_lsp::support::{copy_project, percentile};
use lspedit_lsp::{Pool, PoolConfig};

use crate::timing::ms;

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    /// Replacing `.0` by `.1` breaks the file with an error on that line (a type error, or a
    /// syntax error in the Dockerfile, PHP, Svelte and TOML cases).
    breakage: (&'static str, &'static str),
    /// A file importing `file` that the broken text breaks too.
    cross: Option<Cross>,
}

struct Cross {
    /// Also applied to `file` in its broken text: changes a signature the importer uses.
    change: (&'static str, &'static str),
    importer: &'static str,
    /// 1-based line of the importer that reports an error when `file` is broken.
    line: usize,
}

const TS_CROSS: Cross = Cross {
    change: (
        "export function add(a: number, b: number): number {",
        "export function add(a: number, b: number): string {",
    ),
    importer: "src/index.ts",
    line: 3,
};

const CASES: &[Case] = &[
    Case {
        server: "tsc7",
        project: "ts-basic",
        file: "src/util.ts",
        breakage: ("return `hello ${name}`;", "return 42;"),
        cross: Some(TS_CROSS),
    },
    Case {
        server: "typescript-language-server",
        project: "ts-basic",
        file: "src/util.ts",
        breakage: ("return `hello ${name}`;", "return 42;"),
        cross: Some(TS_CROSS),
    },
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/main.py",
        breakage: ("add(40, 2)", "\"forty-two\""),
        cross: Some(Cross {
            change: (
                "def add(a: int, b: int) -> int:",
                "def add(a: int, b: int) -> str:",
            ),
            importer: "app/report.py",
            line: 5,
        }),
    },
    Case {
        server: "clangd",
        project: "c-basic",
        file: "main.c",
        breakage: ("return 0;", "return missing_value;"),
        cross: None,
    },
    Case {
        server: "dockerfile-language-server",
        project: "dockerfile-basic",
        file: "clean/Dockerfile",
        breakage: ("COPY app.sh /app.sh", "COPY app.sh"),
        cross: None,
    },
    Case {
        server: "intelephense",
        project: "php-basic",
        file: "clean.php",
        breakage: ("$loud = $name . \"!\";", "$loud = $name . ;"),
        cross: None,
    },
    Case {
        server: "svelte-language-server",
        project: "svelte-basic",
        file: "src/Clean.svelte",
        breakage: ("<p>{count}</p>", "{#if count}<p>{count}</p>"),
        cross: None,
    },
    Case {
        server: "vue-typescript",
        project: "vue-basic",
        file: "src/Clean.vue",
        breakage: (
            "const label: string = \"basic\";",
            "const label: string = 1;",
        ),
        cross: None,
    },
    Case {
        server: "taplo",
        project: "toml-basic",
        file: "clean.toml",
        breakage: ("[owner]", "[owner"),
        cross: None,
    },
    Case {
        server: "gopls",
        project: "go-basic",
        file: "clean/clean.go",
        breakage: ("var n int = Add(1, 2)", "var n string = Add(1, 2)"),
        cross: None,
    },
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        breakage: ("add(40, 2)", "\"forty-two\""),
        cross: Some(Cross {
            change: (
                "pub fn add(a: i32, b: i32) -> i32 {",
                "pub fn add(a: i32, b: i32) -> i64 {",
            ),
            importer: "src/twice.rs",
            line: 6,
        }),
    },
];

/// One server's figures.
struct Row {
    server: &'static str,
    cold: Duration,
    total: Vec<Duration>,
    own: Vec<Duration>,
    diff: Vec<Duration>,
    stale: usize,
    /// Importer checks after each edit (empty without an importer).
    cross: Vec<Duration>,
    cross_stale: usize,
    rss_mib: u64,
}

fn self_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

async fn bench(repo: &Path, case: &Case, iterations: usize, sandbox: bool) -> Result<Option<Row>> {
    let mut cfg = PoolConfig::bundled()?.only(&[case.server]);
    cfg.sandbox = sandbox;
    // Without the sandbox, restricted mode would turn off or refuse what runs workspace code
    // (the Svelte server is not started at all): the bare runs trust the bench's own fixtures,
    // so the same server does the same work with Landlock the only difference.
    cfg.trusted = !sandbox;
    let decl = cfg
        .server(case.server)
        .with_context(|| format!("{} is not configured", case.server))?;
    if cfg.resolve_command(decl).is_none() {
        eprintln!("servers: {} is not installed, skipped", case.server);
        return Ok(None);
    }
    eprintln!(
        "servers: {} ({iterations} edits, {})",
        case.server,
        if sandbox { "sandboxed" } else { "no sandbox" }
    );
    let tmp = tempfile::tempdir()?;
    let project = repo.join("test-projects").join(case.project);
    copy_project(&project, tmp.path()).with_context(|| format!("copying {}", project.display()))?;
    let root = tmp.path().canonicalize()?;
    let path = root.join(case.file);
    let good = std::fs::read_to_string(&path)?;
    let mut bad = good.replacen(case.breakage.0, case.breakage.1, 1);
    let importer = match &case.cross {
        Some(c) => {
            if !good.contains(c.change.0) {
                bail!("{}: the cross-file change is not in the file", case.server);
            }
            bad = bad.replacen(c.change.0, c.change.1, 1);
            let path = root.join(c.importer);
            let text = std::fs::read_to_string(&path)?;
            Some((path, text, c.line))
        }
        None => None,
    };
    // 1-based line of the breakage: the error must be reported there.
    let bad_line = good
        .lines()
        .position(|l| l.contains(case.breakage.0))
        .context("the breakage text is not in the file")?
        + 1;
    let pool = Pool::new(&root, cfg)?;

    let start = Instant::now();
    std::fs::write(&path, &bad)?;
    let first = pool
        .check_file(&path, &bad, Instant::now() + Duration::from_secs(180))
        .await?;
    let cold = start.elapsed();
    if !first.errors().any(|d| d.line as usize == bad_line) {
        bail!("{}: no error on line {bad_line} after open", case.server);
    }

    let mut row = Row {
        server: case.server,
        cold,
        total: Vec::new(),
        own: Vec::new(),
        diff: Vec::new(),
        stale: 0,
        cross: Vec::new(),
        cross_stale: 0,
        rss_mib: 0,
    };
    for i in 0..iterations {
        let broken = i % 2 == 1;
        let text = if broken { &bad } else { &good };
        std::fs::write(&path, text)?;
        let t = Instant::now();
        let r = pool
            .check_file(&path, text, Instant::now() + Duration::from_secs(30))
            .await?;
        let took = t.elapsed();
        let right = if broken {
            r.errors().any(|d| d.line as usize == bad_line)
        } else {
            r.errors().count() == 0
        };
        if !right {
            row.stale += 1;
            eprintln!(
                "servers: {}: edit {i} ({}) got a stale or wrong result: {:?}",
                case.server,
                if broken { "broken" } else { "fixed" },
                r.diagnostics
            );
        }
        row.total.push(took);
        if let Some(own) = r.server_time {
            row.own.push(own);
            row.diff.push(took.saturating_sub(own));
        }
        if let Some((ipath, itext, iline)) = &importer {
            let t = Instant::now();
            let r = pool
                .check_file(ipath, itext, Instant::now() + Duration::from_secs(30))
                .await?;
            row.cross.push(t.elapsed());
            let right = if broken {
                r.errors().any(|d| d.line as usize == *iline)
            } else {
                r.errors().count() == 0
            };
            if !right {
                row.cross_stale += 1;
                eprintln!(
                    "servers: {}: importer after edit {i} ({}) got a stale or wrong result: {:?}",
                    case.server,
                    if broken { "broken" } else { "fixed" },
                    r.diagnostics
                );
            }
        }
    }
    row.rss_mib = pool.status().first().and_then(|s| s.rss_kib).unwrap_or(0) / 1024;
    pool.shutdown().await;
    row.total.sort();
    row.own.sort();
    row.diff.sort();
    row.cross.sort();
    Ok(Some(row))
}

/// Runs every installed server and returns the Markdown table and notes.
pub fn run(repo: &Path, iterations: usize) -> Result<String> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let rss_before = self_rss_kib();
    let mut rows = Vec::new();
    // The sandbox's cost: each server again with Landlock off (trusted, so that restricted
    // mode's no-sandbox fallbacks change nothing else), interleaved so a loaded machine weighs on both alike.
    let mut bare = Vec::new();
    for case in CASES {
        if let Some(row) = rt.block_on(bench(repo, case, iterations, true))? {
            rows.push(row);
        }
        if let Some(row) = rt.block_on(bench(repo, case, iterations, false))? {
            bare.push(row);
        }
    }
    let rss_after = self_rss_kib();
    let mut s = String::new();
    s.push_str(
        "| server | cold start → first diagnostics (ms) | warm edits | write → result p50 (ms) | p95 | server's own time p50 (ms) | p95 | difference p50 (ms) | p95 | stale or wrong results | importer result p50 (ms) | p95 | importer stale or wrong | server RSS (MiB) |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for r in &rows {
        let (cross_p50, cross_p95, cross_stale) = if r.cross.is_empty() {
            ("-".to_owned(), "-".to_owned(), "-".to_owned())
        } else {
            (
                ms(percentile(&r.cross, 0.5)),
                ms(percentile(&r.cross, 0.95)),
                r.cross_stale.to_string(),
            )
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.server,
            ms(r.cold),
            r.total.len(),
            ms(percentile(&r.total, 0.5)),
            ms(percentile(&r.total, 0.95)),
            ms(percentile(&r.own, 0.5)),
            ms(percentile(&r.own, 0.95)),
            ms(percentile(&r.diff, 0.5)),
            ms(percentile(&r.diff, 0.95)),
            r.stale,
            cross_p50,
            cross_p95,
            cross_stale,
            r.rss_mib,
        );
    }
    let stale: usize = rows.iter().map(|r| r.stale).sum();
    let cross_stale: usize = rows.iter().map(|r| r.cross_stale).sum();
    let _ = writeln!(
        s,
        "\nPool process resident memory (bench binary, servers excluded): {} MiB before, {} MiB after all runs.",
        rss_before / 1024,
        rss_after / 1024
    );
    let _ = writeln!(
        s,
        "\n- stale or wrong results over {} edit → fix → edit iterations per server: {stale} in total (target 0): {}",
        iterations,
        if stale == 0 { "MET" } else { "MISSED" }
    );
    let _ = writeln!(
        s,
        "- cross-file: after each edit the file importing the edited one (not written; the broken \
         text also changes a signature it calls) is checked; an error on its call line after a \
         break and none after a fix are expected (clangd's project has no importer): {cross_stale} \
         stale or wrong in total (target 0): {}. For the pull servers (tsc7, typescript-language-server, \
         pyright) the edit's own call already pulled the importer (the other files of a change) and its check is \
         answered from that pass; for the push servers it is a settle of its own.",
        if cross_stale == 0 { "MET" } else { "MISSED" }
    );
    for r in &rows {
        let p50 = percentile(&r.diff, 0.5);
        let _ = writeln!(
            s,
            "- {}: the pool adds {} ms at p50 beyond the server's own time",
            r.server,
            ms(p50)
        );
    }
    let _ = writeln!(
        s,
        "\nThe sandbox's cost ({}): the same runs with Landlock off (`PoolConfig::sandbox = false`, \
         run as trusted so that restricted mode's no-sandbox fallbacks turn nothing off; the \
         scrubbed environment and the scratch directory unchanged). Cold \
         start is one sample per run.\n",
        lspedit_process::sandbox::support().describe()
    );
    s.push_str(
        "| server | cold start → first diagnostics, sandboxed (ms) | without (ms) | warm write → result p50, sandboxed (ms) | without (ms) | p95 sandboxed | p95 without |\n",
    );
    s.push_str("|---|---:|---:|---:|---:|---:|---:|\n");
    for r in &rows {
        let Some(b) = bare.iter().find(|b| b.server == r.server) else {
            continue;
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.server,
            ms(r.cold),
            ms(b.cold),
            ms(percentile(&r.total, 0.5)),
            ms(percentile(&b.total, 0.5)),
            ms(percentile(&r.total, 0.95)),
            ms(percentile(&b.total, 0.95)),
        );
    }
    for r in &rows {
        let Some(b) = bare.iter().find(|b| b.server == r.server) else {
            continue;
        };
        let (with, without) = (percentile(&r.total, 0.5), percentile(&b.total, 0.5));
        let (sign, d) = if with >= without {
            ("+", with - without)
        } else {
            ("-", without - with)
        };
        let _ = writeln!(
            s,
            "- {}: the sandbox changes warm write → result p50 by {sign}{} ms",
            r.server,
            ms(d)
        );
    }
    Ok(s)
}
