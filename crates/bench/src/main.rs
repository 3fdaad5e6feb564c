//! `lspedit-bench`: the benchmarks of lspedit, one command each, results printed as Markdown and
//! (with `--write`) recorded in BENCHMARKS.md.
//!
//! ```text
//! cargo run --release -p lspedit-bench -- engine  [--write] [--quick]
//! cargo run --release -p lspedit-bench -- scaling [--write] [--quick]
//! cargo run --release -p lspedit-bench -- process [--write] [--runs N] [--no-build]
//! cargo run --release -p lspedit-bench -- all     [--write]
//! cargo run --release -p lspedit-bench -- reliability [--write] [--quick]
//! cargo run --release -p lspedit-bench -- corpus  [--write]
//! cargo run --release -p lspedit-bench -- crash   [--write] [--quick]
//! cargo run --release -p lspedit-bench -- concurrency [--write] [--quick]
//! cargo run --release -p lspedit-bench -- rename  [--write] [--quick]
//! cargo run --release -p lspedit-bench -- symbols [--write] [--quick]
//! cargo run --release -p lspedit-bench -- real    [--write] [--quick] [--burn N]
//! cargo run --release -p lspedit-bench -- real --large [--write] [--quick]
//! cargo run --release -p lspedit-bench -- retry   [--quick]
//! cargo run --release -p lspedit-bench -- large   [--quick]
//! cargo run --release -p lspedit-bench -- host    [--write] [--quick] [--no-build]
//! ```
//!
//! The reliability suites (`reliability`, `corpus`, `crash`; see `suites.rs`) record their
//! results in RELIABILITY.md and are not part of `all`: together they take about 2 minutes on an idle machine.
//!
//! `process` first runs `cargo build --release -p lspedit` itself (so the lspedit binary it
//! times is current), unless `LSPEDIT_BIN` names a binary to time or `--no-build` is given.
// A benchmark's output is its purpose: results go to stdout, progress to stderr.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod burners;
mod child;
mod concurrency;
mod corpus;
mod crash;
mod drift;
mod engine;
mod generate;
mod host;
mod large;
mod lsp_env;
mod process;
mod real;
mod real_large;
mod real_projects;
mod reliability;
mod rename;
mod servers;
mod sources;
mod suites;
mod symbols;
mod symbols_real;
mod timing;
mod workflow_tree;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail, ensure};

const USAGE: &str = "usage: lspedit-bench <engine|process|servers|workflow|rename|symbols|real|all|reliability|corpus|crash> [--write] [--quick] [--runs N] [--no-build]

  engine     parse + apply a 10-hunk patch in memory (1k..1M lines, spiral search)
  scaling    parse + apply one patch of 10k, 100k and 1M hunks in memory, numbered and
             numberless headers (--quick: 10k, 100k)
  process    `lspedit apply --no-diagnostics` vs `git apply` vs `patch` as whole processes
  servers    real language servers through the pool: cold start, warm write -> diagnostics
             latency next to the server's own time, stale results over an edit -> fix -> edit
             loop (100 iterations per server; --quick: 10), pool memory
  workflow   propose (regex over 1,000 files) and apply, per file and all or nothing
  rename     rename_symbol across two modules on real servers: end-to-end latency beside the
             server's own rename time (not part of `all`)
  symbols    outline, find_symbol, hover, call_hierarchy, replace_symbol_body,
             insert_after_symbol on real servers, warm: end-to-end latency beside the
             server's own time (not part of `all`); `symbols --real`: the symbol edits
             on the pinned real projects (requests, zod, memchr)
  real       pinned real projects (zod, requests, memchr) through the agent tools on real
             servers: cold start, warm edit -> result next to the server's own time, wrong or
             stale results, and the cross-file score against each language's own checker
             (not part of `all`; downloads the projects once into ~/.cache/lspedit/bench)
  real --large
             large pinned projects (tokio, django, effect): cold start, warm edit -> result
             over 10 break/fix cycles, each result checked, and the servers' memory
  retry      every drift case applied in process, then the same patch again (an agent's
             retry): doubled changes vs already_applied refusals (RELIABILITY.md)
  host       the server host: `lspedit apply` cold (--no-host) and warm through the host per
             server, and the memory of 1/2/4 `lspedit mcp` sessions with and without it
  large      write_file rewriting every line of 10k/20k/40k lines, a server rename of 20k/200k
             text edits, beside the code they replaced (BENCHMARKS.md)
  all        all four
  profile [LINES] [DRIFT] [ITERS]
             untimed loop of parse + apply (default 10000 0 2000), to run under
             perf or valgrind --tool=callgrind
  inputs DIR [LINES] [DRIFT]
             write the process benchmark's inputs (DIR/repo/src/generated.rs, DIR/bench.diff,
             DIR/expected.rs; default 10000 0) to reproduce or profile a run by hand

  --write     update the sections of the benchmarks run in BENCHMARKS.md at the workspace
              root (other sections are kept)
  --quick     short sampling (smoke test; do not --write these figures)
  --runs N    process runs per tool (default 50)
  --no-build  do not run `cargo build --release -p lspedit` before `process`

  LSPEDIT_BIN=path   time this lspedit binary (no build); default <target>/release/lspedit
  --burn N    real: beside N CPU burners, in a section of its own
  LSPEDIT_BENCH_SERVERS=a,b   real, host: only these servers (not for --write)
  LSPEDIT_BENCH_PROJECTS=a,b  real --large: only these projects (not for --write)";

const ENGINE_HEADING: &str = "## Engine";
const SCALING_HEADING: &str = "## Engine: hunks per patch";
const PROCESS_HEADING: &str = "## Whole process: lspedit apply vs git apply";
const SERVERS_HEADING: &str = "## Language-server pool";
const WORKFLOW_HEADING: &str = "## Propose and apply";

struct Args {
    engine: bool,
    scaling: bool,
    process: bool,
    servers: bool,
    workflow: bool,
    write: bool,
    quick: bool,
    runs: usize,
    build: bool,
}

fn parse_args() -> Result<Args> {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    let scaling = first.as_deref() == Some("scaling");
    let (engine, process, servers, workflow) = match first.as_deref() {
        Some("scaling") => (false, false, false, false),
        Some("engine") => (true, false, false, false),
        Some("process") => (false, true, false, false),
        Some("servers") => (false, false, true, false),
        Some("workflow") => (false, false, false, true),
        Some("all") => (true, true, true, true),
        Some("profile") => {
            let mut num = |default: usize| -> Result<usize> {
                args.next()
                    .map_or(Ok(default), |a| a.parse().context("profile takes numbers"))
            };
            let (lines, drift, iters) = (num(10_000)?, num(0)?, num(2_000)?);
            engine::profile(lines, drift, iters)?;
            std::process::exit(0);
        }
        Some("inputs") => {
            let dir = PathBuf::from(args.next().context("inputs needs a directory")?);
            let mut num = |default: usize| -> Result<usize> {
                args.next()
                    .map_or(Ok(default), |a| a.parse().context("inputs takes numbers"))
            };
            let (lines, drift) = (num(10_000)?, num(0)?);
            let case = generate::case(engine::SEED ^ lines as u64, lines, engine::HUNKS, drift);
            let file = dir.join("repo").join(generate::REL_PATH);
            fs::create_dir_all(file.parent().context("no parent")?)?;
            fs::write(&file, &case.old)?;
            fs::write(dir.join("bench.diff"), &case.patch)?;
            fs::write(dir.join("expected.rs"), &case.expected)?;
            eprintln!(
                "wrote {}, bench.diff and expected.rs in {}",
                file.display(),
                dir.display()
            );
            std::process::exit(0);
        }
        Some("-h" | "--help") | None => bail!("{USAGE}{}", suites::USAGE),
        Some(other) => bail!("unknown command `{other}`\n{USAGE}{}", suites::USAGE),
    };
    let mut a = Args {
        engine,
        scaling,
        process,
        servers,
        workflow,
        write: false,
        quick: false,
        runs: 50,
        build: true,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--write" => a.write = true,
            "--quick" => a.quick = true,
            "--no-build" => a.build = false,
            "--runs" => {
                a.runs = args
                    .next()
                    .context("--runs needs a number")?
                    .parse()
                    .context("--runs needs a number")?;
                ensure!(a.runs > 0, "--runs must be positive");
            }
            other => bail!("unknown option `{other}`\n{USAGE}"),
        }
    }
    Ok(a)
}

fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = here.join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The lspedit binary to time, built first unless `LSPEDIT_BIN` is set or `--no-build`.
fn lspedit_binary(root: &Path, build: bool) -> Result<PathBuf> {
    if let Some(bin) = std::env::var_os("LSPEDIT_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let target = if target.is_absolute() {
        target
    } else {
        root.join(target)
    };
    if build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        eprintln!("process: cargo build --release -p lspedit --bin lspedit");
        let status = Command::new(cargo)
            .args(["build", "--release", "-p", "lspedit", "--bin", "lspedit"])
            .current_dir(root)
            .status()
            .context("cannot run cargo")?;
        ensure!(
            status.success(),
            "building lspedit failed; fix the build, or time an existing binary with --no-build or LSPEDIT_BIN=path"
        );
    }
    Ok(target.join("release").join("lspedit"))
}

/// nproc, CPU model, memory, kernel, rustc: what the figures were measured on.
fn machine(root: &Path) -> String {
    let nproc = std::thread::available_parallelism().map_or(0, |n| n.get());
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .and_then(|l| l.split_once(':'))
        .map_or("unknown CPU".to_string(), |(_, m)| m.trim().to_string());
    let mem_gib = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or("? GiB".to_string(), |kb| {
            format!("{:.0} GiB", kb as f64 / 1024.0 / 1024.0)
        });
    let kernel = fs::read_to_string("/proc/sys/kernel/osrelease")
        .map_or("?".to_string(), |k| k.trim().to_string());
    let rustc = Command::new("rustc")
        .arg("--version")
        .current_dir(root)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "rustc ?".to_string());
    format!("{nproc} CPUs ({cpu}), {mem_gib} RAM, Linux {kernel}, {rustc}, release profile")
}

/// The 1-minute load average: figures taken on a busy machine are not comparable.
fn load() -> f64 {
    fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0)
}

/// Today's UTC date, `YYYY-MM-DD` (civil-from-days, no time zone database needed).
fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Replace the body of the section headed `heading` (up to the next `## `), or insert the
/// section: after the section headed `after` when present, else before the first `## ` section,
/// else at the end. Every other section is kept as it is.
fn replace_section(doc: &str, heading: &str, body: &str, after: Option<&str>) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let section_end = |start: usize| {
        (start + 1..lines.len())
            .find(|&i| lines[i].starts_with("## "))
            .unwrap_or(lines.len())
    };
    let new_section = format!("{heading}\n\n{}\n", body.trim_end());
    let (from, to) = if let Some(s) = lines.iter().position(|l| l.trim_end() == heading) {
        (s, section_end(s))
    } else if let Some(a) = after.and_then(|h| lines.iter().position(|l| l.trim_end() == h)) {
        let e = section_end(a);
        (e, e)
    } else if let Some(f) = lines.iter().position(|l| l.starts_with("## ")) {
        (f, f)
    } else {
        (lines.len(), lines.len())
    };
    let mut out = String::new();
    for l in &lines[..from] {
        out.push_str(l);
        out.push('\n');
    }
    if !out.is_empty() && !out.ends_with("\n\n") {
        out.push('\n');
    }
    out.push_str(&new_section);
    if to < lines.len() {
        out.push('\n');
        for l in &lines[to..] {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

/// `[--write] [--quick]` of `rename` and `real`; any other option is an error.
fn write_quick(options: &[String]) -> Result<(bool, bool)> {
    if let Some(other) = options
        .iter()
        .find(|o| !["--write", "--quick"].contains(&o.as_str()))
    {
        bail!("unknown option `{other}`\n{USAGE}");
    }
    Ok((
        options.iter().any(|o| o == "--write"),
        options.iter().any(|o| o == "--quick"),
    ))
}

/// `rename [--write] [--quick]`: the LSP rename section (see `rename.rs`).
fn run_rename(options: &[String]) -> Result<()> {
    let (write, quick) = write_quick(options)?;
    let root = workspace_root();
    let (machine, date, start) = (machine(&root), today(), load());
    let table = rename::run(&root, quick)?;
    let body = format!(
        "Command (release build):\n\n```\ncargo run --release -p lspedit-bench -- rename --write\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end.\n\n\
         `rename_symbol` of the exported function `add` (defined in one module, used in the \
         other) of each test project, renamed back and forth 20 times after a first, cold rename \
         (the server starts and loads the project). *End-to-end*: the whole call as an agent \
         sees it: the file read, the position, the server's `prepareRename` and `rename`, the \
         edit confined and turned into a patch, proposed and applied all or nothing through the \
         workflow (checkpoint, atomic writes), and the diagnostics of both files. *Server's \
         rename*: the server's own time for `prepareRename` + `rename`. Every rename is checked \
         to change both files and leave no error.\n\n{table}",
        load()
    );
    publish(&root, write, rename::HEADING, &body, SERVERS_HEADING)
}

/// A section printed, and with `write` put into BENCHMARKS.md (after the section `after`
/// when it is new there).
fn publish(root: &Path, write: bool, heading: &str, body: &str, after: &str) -> Result<()> {
    println!("{heading}\n\n{body}");
    if write {
        let path = root.join("BENCHMARKS.md");
        let doc = fs::read_to_string(&path).unwrap_or_default();
        fs::write(&path, replace_section(&doc, heading, body, Some(after)))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// `symbols [--write] [--quick]`: the symbol tools section (see `symbols.rs`).
fn run_symbols(options: &[String]) -> Result<()> {
    if options.iter().any(|o| o == "--real") {
        let rest: Vec<String> = options.iter().filter(|o| *o != "--real").cloned().collect();
        return run_symbols_real(&rest);
    }
    let (write, quick) = write_quick(options)?;
    let root = workspace_root();
    let (machine, date, start) = (machine(&root), today(), load());
    let table = symbols::run(&root, quick)?;
    let body = format!(
        "Command (release build):\n\n```\ncargo run --release -p lspedit-bench -- symbols --write\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end.\n\n\
         The symbol tools on `test-projects/fixtures/symbols/cart.*` (a class and its methods) \
         in each test project, warm (a first round, which starts the server and loads the \
         project, is not counted), 20 rounds. *End-to-end*: the whole call as an agent sees \
         it. `outline`: the file read, `documentSymbol`, the tree worded. `find_symbol`: \
         `workspace/symbol` for the name and its parent, then `documentSymbol` of the files \
         named. `hover` and `call_hierarchy` (`Cart/total` by name path): `documentSymbol` \
         to resolve it, then `hover`, or `prepareCallHierarchy` and `incomingCalls` / \
         `outgoingCalls`, worded with the call sites read. \
         `replace_symbol_body` (two bodies of `Cart/total` in turn) and \
         `insert_after_symbol` (a method after it, undone untimed after each round): \
         `documentSymbol`, the change fitted and proposed and applied through the workflow \
         (checkpoint, atomic write) and the file's diagnostics, which are most of the time. \
         *Server's requests*: the server's own time for the symbol requests (not the \
         diagnostics). Every edit is checked to apply and to leave no error.\n\n{table}",
        load()
    );
    publish(&root, write, symbols::HEADING, &body, rename::HEADING)
}

/// `symbols --real [--write] [--quick]`: the symbol edits on real projects (see
/// `symbols_real.rs`).
fn run_symbols_real(options: &[String]) -> Result<()> {
    let (write, quick) = write_quick(options)?;
    ensure!(
        !(write && quick),
        "--quick figures are not written to BENCHMARKS.md"
    );
    let root = workspace_root();
    let (machine, date, start) = (machine(&root), today(), load());
    let table = symbols_real::run(quick)?;
    let body = format!(
        "Command (release build):\n\n```\ncargo run --release -p lspedit-bench -- symbols --real --write\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end.\n\n\
         The pinned real projects of the `real` section (requests 2.32.3 with pyright, zod \
         4.1.12 with tsc7, memchr 2.7.4 with rust-analyzer), warm: a first round, which starts \
         the server and loads the project, is not counted; then 20 rounds. Two sessions share \
         the one server: one without the diagnostics feedback (the symbol edit alone), one with \
         it (what an agent sees). Each round: `replace_symbol_body` of one function (two bodies \
         in turn), `insert_after_symbol` of a new function (undone untimed), \
         `replace_symbol_body` of a name that is ambiguous in its file (refused with the \
         candidates), `replace_symbol_body` with the feedback (the edit's verdict included), \
         and `outline` of the file right after it. *Server's documentSymbol*: the server's own \
         time for the request the call makes (the feedback's diagnostics not included). \
         *lspedit's own*: end-to-end minus the server's time, round by round (with the \
         feedback, that includes waiting for the verdict). A refusal carries no server time, so \
         its server column is 0 and its own time includes the `documentSymbol` request.\n\n{table}",
        load()
    );
    publish(&root, write, symbols_real::HEADING, &body, symbols::HEADING)
}

/// `real --large [--write] [--quick]`: the large-repositories section (see `real_large.rs`).
fn run_real_large(options: &[String]) -> Result<()> {
    let (write, quick) = write_quick(options)?;
    ensure!(
        !(write && quick),
        "--quick figures are not written to BENCHMARKS.md"
    );
    let root = workspace_root();
    let (machine, date, start) = (machine(&root), today(), load());
    let table = real_large::run(quick)?;
    let body = format!(
        "Command (after `scripts/install-servers`; release build):\n\n```\ncargo run --release -p lspedit-bench -- real --large --write\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end; servers as pinned in `lsp-configs/`.\n\n\
         Pinned like the `real` projects (downloaded once into `~/.cache/lspedit/bench/`, \
         checked against a pinned SHA-256, each session on a fresh copy): tokio 1.41.1 \
         (crates.io; its lock file made once and kept beside the archive, dependencies \
         fetched from crates.io once; default features, as rust-analyzer loads it), django \
         5.1.4 (PyPI sdist with its tests), effect 3.19.0 (npm; `src/` with a strict \
         `nodenext` tsconfig and its two imports, fast-check 3.23.2 with pure-rand 6.1.0 and \
         @standard-schema/spec 1.0.0, pinned the same way; 61 errors from node's globals \
         before any edit, `@types/node` not being installed). Driven like `real`: \
         `Tools::edit` over `LspProvider` on a pool of the one server, with the waits bounded \
         generously (15 min for the first edit, 3 min for the others) so the figures are the \
         servers' own. *Cold*: from creating the pool to the first edit's result, the server \
         starting and loading the project; *first result*: its status, and whether it came \
         later than the default first-check budget (`first_check_timeout`, 10 s), past which \
         an agent's first edit returns \"pending\" (status `timed_out`), its errors left for a \
         later result. \
         *Warm*: 10 break → fix cycles of a type error inside a function body (tokio \
         `ReadBuf::remaining`, django `utils.text.capfirst`, effect `Chunk.size`), both edits \
         timed (the first break is the cold one), each result checked: an error on the broken \
         line after the break, none there after the fix; *over the default budget*: warm edits \
         slower than `check_timeout` (3 s), which an agent with the default configuration \
         gets as \"pending\"; *default budgets*: after the bounded cycles, 5 more \
         cycles on the same (warm) server through a `Tools` with the default `ToolsConfig`, \
         each result counted as checked and right, pending (the edited file not checked \
         within the budget; the text says its errors come in a later result) or checked but \
         wrong. *Memory*: the summed `VmRSS` of the server's process group \
         (`BlockingPool::process_groups`), sampled every 250 ms from the pool's creation \
         (peak) and read once the server has answered everything (settled); beside the peak, \
         the same with every descendant of the group's processes wherever its group \
         (rust-analyzer runs `cargo check` in a process group of its own).\n\n{table}",
        load()
    );
    publish(&root, write, real_large::HEADING, &body, real::HEADING)
}

/// `real [--write] [--quick]`: the real-projects section (see `real.rs`).
fn run_real(options: &[String]) -> Result<()> {
    if options.iter().any(|o| o == "--large") {
        let rest: Vec<String> = options
            .iter()
            .filter(|o| *o != "--large")
            .cloned()
            .collect();
        return run_real_large(&rest);
    }
    // `--burn N`: beside N CPU burners (busy loops in processes of their own, as
    // `scripts/burn` runs them), in a section of their own.
    let (burn, options) = burners_option(options)?;
    let (write, quick) = write_quick(&options)?;
    ensure!(
        !(write && quick),
        "--quick figures are not written to BENCHMARKS.md"
    );
    let root = workspace_root();
    let _burners = burners::Burners::start(burn)?;
    let (machine, date, start) = (machine(&root), today(), load());
    let table = real::run(quick)?;
    let (heading, command, beside) = if burn == 0 {
        (
            real::HEADING.to_string(),
            "real --write".to_string(),
            String::new(),
        )
    } else {
        (
            format!("{} beside {burn} CPU burners", real::HEADING),
            format!("real --burn {burn} --write"),
            format!(
                "The same measure as in \"Real projects\", beside {burn} CPU burners (busy loops \
                 at normal priority, each a process of its own, as `scripts/burn` runs them), \
                 as agents' machines are.\n\n"
            ),
        )
    };
    let body = format!(
        "Command (after `scripts/install-servers`; release build):\n\n```\ncargo run --release -p lspedit-bench -- {command}\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end; servers as pinned in `lsp-configs/`.\n\n{beside}\
         Pinned projects, downloaded once into `~/.cache/lspedit/bench/` and checked against a \
         pinned SHA-256, each run on a fresh copy: zod 4.1.12 (npm; `src/` without its tests, \
         which need vitest, and a strict `nodenext` tsconfig), requests 2.32.3 (PyPI sdist, \
         tests included, dependencies as the machine has them), memchr 2.7.4 (crates.io; its \
         lock file made once and kept beside the archive). Driven as an agent drives them: \
         `Tools::edit` over `LspProvider` on a pool of the one server (the result returns \
         once the edited file is checked and the other files checked within the server's \
         `dependents_wait_ms` after it; the rest come as late results). *Cold*: from creating the pool to the first edit's result (the server \
         starts and loads the project; rust-analyzer's first `cargo check` builds memchr's \
         dependencies); the cold edit and the timed warm cycles wait for the edited file's \
         verdict up to 5 min and 60 s, so their times are the server's. *Warm*: 20 edit → fix cycles of a type error inside a function body \
         (no exported type changes), both edits timed, each result checked: an error on the \
         broken line after the break, none there after the fix (a written file's other errors \
         are shown too: requests' `utils.py` has 13 from before the session). *Server's own time*: in the same \
         edits, from sending the text to the server's first answer for it; *added by lspedit* \
         = per edit, its result's time minus that edit's own time (what lspedit adds: \
         writing, planning, waiting for the server's queue, formatting); *pool level*: the \
         same per-edit difference for the same edits made at the pool level \
         (`check_change_within`, other files not waited for) after the warm cycles. *Default \
         budgets*: the same 20 cycles again through a `Tools` with the default `ToolsConfig` \
         (an agent's: 3 s for a warm server), each result counted as checked and right, \
         pending (the edited file not checked within the budget) or checked but wrong; *late \
         blocks about the edited file*: those results that start with a late block about the \
         file they edit (an answer about an older text of it). *Cross-file* (default \
         `ToolsConfig` too): edits \
         to exported API (rename, parameter type or count, return type, a removed export, a \
         re-export through a barrel, `__init__.py` or `pub use`), each reverted (and its \
         result awaited) before the next. Expected: the files other than the edited one in \
         which the language's own checker (`tsc --noEmit -p .` of typescript 5, the \
         `pyright` CLI, `cargo check --all-targets`) finds errors it did not find before the \
         edit. Reported: the files the edit's result names (`max_other_files = 1000`, so none \
         is left unnamed) plus those of the late section the next result starts with (waited \
         for up to 30 s when the result says other files are still being checked). A case is \
         right when the sets are equal; *of which in the edit's own result* when the edit's \
         result alone named them all (what a model that ends its turn after the edit knows); \
         *incomplete, said so* when lspedit named a subset and \
         its text said some dependents were not checked or the search hit its bounds.\n\n{table}",
        load()
    );
    let after = if burn == 0 {
        rename::HEADING
    } else {
        real::HEADING
    };
    publish(&root, write, &heading, &body, after)
}

/// `--burn N` taken out of `options`: N (0 without it) and the other options.
fn burners_option(options: &[String]) -> Result<(usize, Vec<String>)> {
    let mut rest = Vec::new();
    let mut burn = 0;
    let mut it = options.iter();
    while let Some(o) = it.next() {
        if o == "--burn" {
            let n = it
                .next()
                .with_context(|| format!("--burn needs a number\n{USAGE}"))?;
            burn = n
                .parse()
                .map_err(|_| anyhow::anyhow!("--burn {n}: not a number of burners\n{USAGE}"))?;
        } else {
            rest.push(o.clone());
        }
    }
    Ok((burn, rest))
}

/// The retry measure: every drift case applied in process, then the same patch again.
fn run_retry(options: &[String]) -> Result<()> {
    let (_, quick) = write_quick(options)?;
    let per = if quick {
        reliability::PER_CATEGORY_QUICK
    } else {
        reliability::PER_CATEGORY
    };
    let mut sources = sources::Sources::collect(&workspace_root(), true);
    let (cases, _) = drift::generate(&mut sources, reliability::SEED, per, None);
    eprintln!("retry: {} cases from {}", cases.len(), sources.summary());
    let tallies = drift::retry_measure(&cases);
    println!(
        "| category | patch | cases | right first applies | retried: doubled | refused already_applied | refused otherwise | unchanged | first apply refused | misapplied | partial |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut total = drift::RetryTally::default();
    for ((category, anchored), t) in &tallies {
        let get = |o: drift::Outcome| t.first.get(&o).copied().unwrap_or(0);
        let other: Vec<String> = t.other.iter().map(|(r, n)| format!("{r} {n}")).collect();
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            category.name(),
            if *anchored { "anchored" } else { "plain" },
            t.cases,
            get(drift::Outcome::Correct),
            t.doubled,
            t.already_applied,
            if other.is_empty() {
                "0".to_string()
            } else {
                other.join(", ")
            },
            t.unchanged,
            get(drift::Outcome::Refused),
            get(drift::Outcome::Misapplied),
            get(drift::Outcome::Partial),
        );
        if !t.doubled_cases.is_empty() {
            eprintln!(
                "retry: doubled in {} ({}): cases {:?}",
                category.name(),
                if *anchored { "anchored" } else { "plain" },
                &t.doubled_cases[..t.doubled_cases.len().min(10)]
            );
        }
        total.cases += t.cases;
        for (o, n) in &t.first {
            *total.first.entry(*o).or_default() += n;
        }
        total.doubled += t.doubled;
        total.already_applied += t.already_applied;
        total.unchanged += t.unchanged;
        for (r, n) in &t.other {
            *total.other.entry(r).or_default() += n;
        }
    }
    let get = |o: drift::Outcome| total.first.get(&o).copied().unwrap_or(0);
    println!(
        "\nTotal: {} applies ({} cases, plain and anchored); first apply {} correct, {} refused, {} misapplied, {} partial; of the {} right first applies (must-refuse categories aside), retried: {} doubled, {} refused already_applied, {:?} refused otherwise, {} unchanged",
        total.cases,
        cases.len(),
        get(drift::Outcome::Correct),
        get(drift::Outcome::Refused),
        get(drift::Outcome::Misapplied),
        get(drift::Outcome::Partial),
        total.doubled
            + total.already_applied
            + total.unchanged
            + total.other.values().sum::<usize>(),
        total.doubled,
        total.already_applied,
        total.other,
        total.unchanged
    );
    Ok(())
}

fn run() -> Result<()> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some(crash::JOURNAL_CHILD) {
        return crash::journal_child(&argv[1..]);
    }
    if let Some(s) = suites::Suites::from_args(&argv)? {
        ensure!(
            suites::run(&s, &workspace_root())?,
            "a reliability target was missed (see the report above)"
        );
        return Ok(());
    }
    if argv.first().map(String::as_str) == Some("rename") {
        return run_rename(&argv[1..]);
    }
    if argv.first().map(String::as_str) == Some("symbols") {
        return run_symbols(&argv[1..]);
    }
    if argv.first().map(String::as_str) == Some("real") {
        return run_real(&argv[1..]);
    }
    if argv.first().map(String::as_str) == Some("large") {
        let (_, quick) = write_quick(&argv[1..])?;
        println!("{}\n\n{}", large::HEADING, large::run(quick)?);
        return Ok(());
    }
    if argv.first().map(String::as_str) == Some("host") {
        return host::main(&argv[1..]);
    }
    if argv.first().map(String::as_str) == Some("retry") {
        return run_retry(&argv[1..]);
    }
    let args = parse_args()?;
    let root = workspace_root();
    let lspedit = if args.process {
        Some(lspedit_binary(&root, args.build)?)
    } else {
        None
    };
    let machine = machine(&root);
    let date = today();
    let nproc = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load_start = load();
    println!("# lspedit benchmarks, {date}\n\nMachine: {machine}; load average {load_start:.2}\n");
    if load_start > nproc as f64 / 2.0 {
        eprintln!(
            "warning: 1-minute load average is {load_start:.2} on {nproc} CPUs: other work will distort these figures"
        );
    }
    let loads = |start: f64| {
        format!(
            "1-minute load average {start:.2} at the start, {:.2} at the end",
            load()
        )
    };

    let mut sections: Vec<(&str, String, Option<&str>)> = Vec::new();
    if args.engine {
        let report = engine::run(args.quick)?;
        println!("{ENGINE_HEADING}\n\n{}", report.markdown);
        for v in &report.verdicts {
            println!("- {v}");
        }
        println!();
        let body = format!(
            "Command (release build):\n\n```\ncargo run --release -p lspedit-bench -- engine --write\n```\n\n\
             Measured {date} on: {machine}; {load}.\n\n\
             In memory, no I/O. Inputs are generated from a fixed seed: Rust-like code (functions with \
             doc comments, `let`/`if`/`for`/`match` statements, blank lines; ~40 bytes a line), a \
             git-style patch of {h} hunks spread evenly over the file, each 3 context + 2 removed + \
             3 context lines with 3 added lines, every hunk's old side unique in the file (no decoys). \
             *parse* = `parse_patch`; *apply* = `apply_file_patch` from the file's bytes to the new \
             bytes (decode, relocate, edit, live sync, encode); *total* = both, as one call sequence. \
             The spiral rows insert {d} unrelated lines above every hunk and keep the undrifted \
             headers, so every hunk is found {d} lines from where the engine first looks (the \
             previous hunk's offset is carried). Each figure: warm-up, then each iteration timed \
             on its own (≥ 30 iterations, ~1.5 s per figure); median and nearest-rank p95. Every \
             input is checked once (untimed) to produce the expected file with every hunk at the \
             expected offset.\n\n{}\n{}\n\
             To profile: `cargo build --release -p lspedit-bench`, then \
             `perf record --call-graph dwarf target/release/lspedit-bench profile 10000 0 1000` or \
             `valgrind --tool=callgrind target/release/lspedit-bench profile 10000 0 20` (an untimed \
             loop of parse + apply; arguments: lines, drift, iterations). \
             `lspedit-bench inputs DIR` writes the 10k-line file and patch to run a tool by hand.\n",
            report.markdown,
            report
                .verdicts
                .iter()
                .map(|v| format!("- {v}\n"))
                .collect::<String>(),
            h = engine::HUNKS,
            d = engine::DRIFT,
            load = loads(load_start),
        );
        sections.push((ENGINE_HEADING, body, None));
    }
    if args.scaling {
        let load_scaling = load();
        let report = engine::scaling(args.quick)?;
        println!("{SCALING_HEADING}\n\n{}", report.markdown);
        for v in &report.verdicts {
            println!("- {v}");
        }
        println!();
        let body = format!(
            "Command (release build):\n\n```\ncargo run --release -p lspedit-bench -- scaling --write\n```\n\n\
             Measured {date} on: {machine}; {load}.\n\n\
             Bounded work for hostile input: one patch of many hunks, parsed and applied in \
             memory. The file is one 4-line function per hunk (`fn fK() {{`, a `let`, `}}`, a \
             blank line); each hunk is `@@ -a,3 +a,3 @@` with a context line, one removal, one \
             addition and a context line, at its exact position, so the work is planning, not \
             searching. The same patch with Aider's numberless `@@ ... @@` headers has every \
             hunk located by content after the previous one: the engine looks only where the \
             hunk's first line is (an index by normal form), not at every line after it. Each size is run once, after which the output is checked against the \
             expected file. With the list of claimed ranges rebuilt and scanned per hunk (before this benchmark \
             existed), the issue that prompted it reported 10k hunks at 0.17 s, 80k at 9.25 s \
             and 1M not finished after 300 s.\n\n{}\n{}",
            report.markdown,
            report
                .verdicts
                .iter()
                .map(|v| format!("- {v}\n"))
                .collect::<String>(),
            load = loads(load_scaling),
        );
        sections.push((SCALING_HEADING, body, Some(ENGINE_HEADING)));
    }
    if let Some(bin) = lspedit {
        let load_process = load();
        let report = process::run(&process::Options {
            runs: args.runs,
            warmup: 5,
            lspedit: bin.clone(),
        })?;
        println!("{PROCESS_HEADING}\n\n{}", report.markdown);
        for v in &report.verdicts {
            println!("- {v}");
        }
        println!();
        let build_note = if std::env::var_os("LSPEDIT_BIN").is_some() {
            format!("the binary named by `LSPEDIT_BIN` ({})", bin.display())
        } else {
            "`target/release/lspedit`, which the command first builds with `cargo build --release -p lspedit` (pass `--no-build` to skip, or `LSPEDIT_BIN=path` to time another binary)".to_string()
        };
        let body = format!(
            "Command:\n\n```\ncargo run --release -p lspedit-bench -- process --write\n```\n\n\
             Measured {date} on: {machine}; {versions}; temp dir on {fs}; {load}.\n\n\
             Wall time from spawn to exit of each tool applying the same {h}-hunk patch to the \
             same 10,000-line file (the engine benchmark's inputs) in a `git init`ed temp directory: \
             `lspedit apply --no-diagnostics PATCH --root DIR` ({build_note}), the same with `--dry-run` (everything but the write and what follows it), `git apply PATCH`, \
             `patch -p1 -s -i PATCH`, and `true` as the floor (spawning any process). The file is \
             rewritten to its original bytes before every run (untimed) and checked against the \
             expected result after it; 5 warm-up runs per tool, then {runs} runs with the tools \
             interleaved run by run; stdout/stderr go to /dev/null. lspedit writes durably \
             (temp file, fsync of the file and of its directory, rename; docs/design.md §6) \
             while git apply and patch do not fsync; the tmpfs row (same inputs in /dev/shm, \
             where fsync returns at once) shows the cost without the durable write.\n\n{}\n{}",
            report.markdown,
            report
                .verdicts
                .iter()
                .map(|v| format!("- {v}\n"))
                .collect::<String>(),
            versions = report.versions,
            fs = process::temp_fs(&std::env::temp_dir()),
            h = engine::HUNKS,
            runs = args.runs,
            load = loads(load_process),
        );
        sections.push((PROCESS_HEADING, body, Some(ENGINE_HEADING)));
    }

    if args.servers {
        let load_servers = load();
        let iterations = if args.quick { 10 } else { 100 };
        let report = servers::run(&root, iterations)?;
        println!("{SERVERS_HEADING}\n\n{report}");
        let body = format!(
            "Command (after `scripts/install-servers`):\n\n```\ncargo run --release -p lspedit-bench -- servers --write\n```\n\n\
             Measured {date} on: {machine}; {load}; servers as pinned in `lsp-configs/`, against \
             copies of `test-projects/`.\n\n\
             Per server: a fresh pool, the broken file written and checked (cold start → first \
             diagnostics, including the server's start and indexing), then {iterations} warm edits \
             alternating the fixed and the broken text (edit → fix → edit). Every result is \
             checked against the text just written: the broken text must report an error on the \
             broken line, the fixed text none; any other result counts as stale or wrong. \
             \"Server's own time\" is from sending the text to the server's first answer for it \
             (the pull reply, the versioned publish, rust-analyzer's on-save `cargo check` end); \
             \"difference\" is what the pool adds on top (settling and bookkeeping). \
             typescript-language-server publishes without a version, so the pool does not wait \
             for its publishes: it asks tsserver for the file's diagnostics through the server's \
             `typescript.tsserverRequest` command (strategy `tsserver-pull`). OpenCode, for \
             comparison, waits a fixed 150 ms debounce after each publish (5 s cap).\n\n{report}",
            load = loads(load_servers),
        );
        sections.push((SERVERS_HEADING, body, None));
    }
    if args.workflow {
        let load_workflow = load();
        let report = workflow_bench(args.quick)?;
        println!("{WORKFLOW_HEADING}\n\n{report}");
        let body = format!(
            "Command:\n\n```\ncargo run --release -p lspedit-bench -- workflow --write\n```\n\n\
             Measured {date} on: {machine}; {load}; temp dir on {fs}.\n\n\
             A generated tree of Rust files of 50 lines each (100 per directory), every file \
             using `old_name` twice. *propose* = `Workflow::propose_edit` of the regex \
             `\\bold_name\\b` → `new_name` over `src/**/*.rs` (scan, plan every file in memory, \
             render the diff, store the patch atomically under `.lspedit/patches/`, evidence, \
             events); *apply* = `Workflow::apply_edit` of that id (re-check every base_sha, \
             checkpoint, durable writes; all or nothing adds the journal), no diagnostics. Peak \
             RSS is the benchmark process's high-water mark after all runs.\n\n{report}",
            fs = process::temp_fs(&std::env::temp_dir()),
            load = loads(load_workflow),
        );
        sections.push((WORKFLOW_HEADING, body, None));
    }

    if args.write {
        ensure!(
            !args.quick,
            "--quick figures are not written to BENCHMARKS.md"
        );
        let path = root.join("BENCHMARKS.md");
        let mut doc = fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmarks\n".to_string());
        for (heading, body, after) in &sections {
            doc = replace_section(&doc, heading, body, *after);
        }
        fs::write(&path, doc).with_context(|| format!("cannot write {}", path.display()))?;
        eprintln!("updated {}", path.display());
    }
    Ok(())
}

/// Propose over 1,000 files (10 with `quick`) and apply, per file and all or nothing.
fn workflow_bench(quick: bool) -> Result<String> {
    use crate::workflow_tree::{generate_tree, propose_and_apply};
    use lspedit_workflow::Atomicity;
    let files = if quick { 10 } else { 1_000 };
    let mut out = String::from(
        "| files | atomicity | files changed | changes | propose (ms) | apply (ms) | stored patch (KiB) |\n|---:|---|---:|---:|---:|---:|---:|\n",
    );
    let mut verdicts = Vec::new();
    for (atomicity, name) in [
        (Atomicity::PerFile, "per file"),
        (Atomicity::AllOrNothing, "all or nothing"),
    ] {
        let dir = tempfile::tempdir()?;
        generate_tree(dir.path(), files, 50, 1)?;
        eprintln!("workflow: {files} files, {name}");
        let t = propose_and_apply(dir.path(), atomicity).map_err(|e| anyhow::anyhow!("{e}"))?;
        ensure!(
            t.files_scanned == files && t.files_changed == files,
            "workflow: {} of {files} files scanned, {} changed",
            t.files_scanned,
            t.files_changed
        );
        let total = t.propose + t.apply;
        out.push_str(&format!(
            "| {files} | {name} | {} | {} | {} | {} | {} |\n",
            t.files_changed,
            t.total_changes,
            timing::ms(t.propose),
            timing::ms(t.apply),
            t.stored_patch_bytes / 1024,
        ));
        verdicts.push(format!(
            "- {name}: propose + apply of {files} files {} ms (target: well under 2,000 ms): {}",
            timing::ms(total),
            if total.as_millis() < 2_000 {
                "MET"
            } else {
                "MISSED"
            }
        ));
    }
    let peak = peak_rss_mib();
    out.push('\n');
    for v in verdicts {
        out.push_str(&v);
        out.push('\n');
    }
    out.push_str(&format!(
        "- peak RSS of the benchmark process: {peak} MiB (target for the patch store: < 100 MB): {}\n",
        if peak < 100 { "MET" } else { "MISSED" }
    ));
    Ok(out)
}

/// The process's resident-memory high-water mark, MiB.
fn peak_rss_mib() -> u64 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |kib| kib / 1024)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lspedit-bench: {e:#}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "# Benchmarks\n\n## Language-server pool\n\npool text\n";

    #[test]
    fn sections_are_inserted_before_others_then_replaced_in_place() {
        let a = replace_section(DOC, ENGINE_HEADING, "engine v1", None);
        assert_eq!(
            a,
            "# Benchmarks\n\n## Engine\n\nengine v1\n\n## Language-server pool\n\npool text\n"
        );
        let b = replace_section(&a, PROCESS_HEADING, "proc v1", Some(ENGINE_HEADING));
        assert_eq!(
            b,
            "# Benchmarks\n\n## Engine\n\nengine v1\n\n## Whole process: lspedit apply vs git apply\n\nproc v1\n\n## Language-server pool\n\npool text\n"
        );
        let c = replace_section(&b, ENGINE_HEADING, "engine v2\n\nmore", None);
        assert_eq!(c, b.replace("engine v1", "engine v2\n\nmore"));
        let d = replace_section(&c, PROCESS_HEADING, "proc v2", Some(ENGINE_HEADING));
        assert_eq!(d, c.replace("proc v1", "proc v2"));
    }

    #[test]
    fn sections_are_appended_when_there_is_no_other_section() {
        let a = replace_section("# Benchmarks\n", ENGINE_HEADING, "x", None);
        assert_eq!(a, "# Benchmarks\n\n## Engine\n\nx\n");
    }

    #[test]
    fn generated_cases_are_deterministic_and_consistent() {
        let a = generate::case(7, 2_000, 10, 0);
        let b = generate::case(7, 2_000, 10, 0);
        assert_eq!(
            (a.old.as_str(), a.patch.as_str()),
            (b.old.as_str(), b.patch.as_str())
        );
        assert_eq!(a.lines, 2_000);
        let d = generate::case(7, 2_000, 10, 95);
        assert_eq!(d.lines, 2_000 + 950);
        assert_eq!(d.patch, a.patch, "drift keeps the undrifted patch");
    }

    #[test]
    fn civil_date_is_well_formed() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
