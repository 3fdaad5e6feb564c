//! The server host (docs/host.md) as the CLI and `lspedit mcp` use it, against the same calls
//! without it (`--no-host`):
//!
//! 1. *CLI cold and warm*: per installed server, the wall time of `lspedit apply` of a patch
//!    that breaks a file with a type error and of the patch that fixes it, every result
//!    checked (the error on the broken line after the break, none there after the fix). With
//!    `--no-host` every call starts its server; with the host the first call after
//!    `servers stop` starts the host and the server, and the calls after it find them warm.
//! 2. *Shared memory*: N concurrent `lspedit mcp` sessions on one project, each asked for one
//!    file's diagnostics, then the resident memory of every process they and the host run.
//!
//! Every lspedit process runs with the bench's own `LSPEDIT_RUNTIME_DIR` (so the host is the
//! bench's own, never a host another program uses) and `XDG_CONFIG_HOME` (the person's
//! configuration of the bench: the one place that may switch a server off, see [`Case`]). Each
//! case works in a temp directory of its own; after it, every host is stopped and any process
//! still naming that directory is reported as left behind.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader, Write as _};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use lspedit_fake_lsp::support::{copy_project, percentile};
use lspedit_lsp::PoolConfig;
use serde_json::{Value, json};

use crate::child;

pub const HEADING: &str = "## Server host: CLI cold and warm, shared memory";

/// The deadlines every `apply` and `mcp` gets: a cold server on a loaded machine (rust-analyzer's
/// first `cargo check`) can take far longer than the defaults.
const PATIENT: [&str; 4] = [
    "--first-check-timeout-ms",
    "120000",
    "--check-timeout-ms",
    "60000",
];

/// The bench's own bound on one `apply` (beyond lspedit's 120 s first-check deadline): killed
/// and counted as a timeout past it.
const APPLY_DEADLINE: Duration = Duration::from_secs(200);

/// The bound on one MCP reply (four cold rust-analyzers sharing two cores).
const REPLY_DEADLINE: Duration = Duration::from_secs(300);

/// The bound on a process's exit once asked to stop (`servers stop`, an MCP session's stdin
/// closed, a server group after its client left).
const EXIT_DEADLINE: Duration = Duration::from_secs(30);

/// One server's CLI case: `file` of `project`, broken by replacing `breakage.0` with
/// `breakage.1` (a type error on that line).
///
/// `disable`: the other server of the same language, switched off so that this one serves the
/// file. A workspace's `.lspedit/config.toml` cannot do it while untrusted (it never changes
/// which program serves a language, `trust.rs`), and trusting the copy would put it in trusted
/// mode, which changes how TypeScript is found; so it is the person's configuration, the
/// bench's private `XDG_CONFIG_HOME/lspedit/config.toml`, that says `enabled = false`.
struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    breakage: (&'static str, &'static str),
    disable: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/lib.rs",
        breakage: ("add(40, 2)", "\"forty-two\""),
        disable: None,
    },
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/main.py",
        breakage: ("add(40, 2)", "\"forty-two\""),
        disable: None,
    },
    Case {
        server: "tsc7",
        project: "ts-basic",
        file: "src/util.ts",
        breakage: ("return `hello ${name}`;", "return 42;"),
        disable: Some("typescript-language-server"),
    },
    Case {
        server: "typescript-language-server",
        project: "ts-basic",
        file: "src/util.ts",
        breakage: ("return `hello ${name}`;", "return 42;"),
        disable: Some("tsc7"),
    },
    Case {
        server: "clangd",
        project: "c-basic",
        file: "main.c",
        breakage: ("return 0;", "return missing_value;"),
        disable: None,
    },
    Case {
        server: "gopls",
        project: "go-basic",
        file: "clean/clean.go",
        breakage: ("var n int = Add(1, 2)", "var n string = Add(1, 2)"),
        disable: None,
    },
];

/// The memory part's sessions: a server, its project and the file each session asks about.
const MEMORY: &[(&str, &str, &str)] = &[
    ("rust-analyzer", "rust-basic", "src/lib.rs"),
    ("pyright", "python-basic", "app/main.py"),
];

const SESSIONS: [usize; 3] = [1, 2, 4];

/// `lspedit-bench host [--write] [--quick] [--no-build]`.
pub fn main(options: &[String]) -> Result<()> {
    let (mut write, mut quick, mut build) = (false, false, true);
    for o in options {
        match o.as_str() {
            "--write" => write = true,
            "--quick" => quick = true,
            "--no-build" => build = false,
            other => bail!(
                "unknown option `{other}`\nusage: lspedit-bench host [--write] [--quick] [--no-build]"
            ),
        }
    }
    ensure!(
        !(write && quick),
        "--quick figures are not written to BENCHMARKS.md"
    );
    // `LSPEDIT_BENCH_SERVERS=clangd,pyright`: only these servers (to look into one).
    let only: Option<Vec<String>> = std::env::var("LSPEDIT_BENCH_SERVERS")
        .ok()
        .map(|v| v.split(',').map(str::to_owned).collect());
    ensure!(
        !(write && only.is_some()),
        "figures of some servers only (LSPEDIT_BENCH_SERVERS) are not written to BENCHMARKS.md"
    );
    let wanted = |server: &str| only.as_ref().is_none_or(|o| o.iter().any(|x| x == server));
    let repo = crate::workspace_root();
    let bin = crate::lspedit_binary(&repo, build)?;
    ensure!(
        bin.is_file(),
        "no lspedit binary at {}: build it or set LSPEDIT_BIN",
        bin.display()
    );
    let (machine, date, start) = (crate::machine(&repo), crate::today(), crate::load());
    let (cold_pairs, warm_pairs) = if quick { (1, 2) } else { (5, 10) };
    let mut report = Report::default();
    let cli = cli_section(&repo, &bin, cold_pairs, warm_pairs, &wanted, &mut report)?;
    let memory = memory_section(&repo, &bin, &wanted, &mut report)?;
    let body = format!(
        "Command (after `scripts/install-servers`; release build):\n\n```\ncargo run --release -p lspedit-bench -- host --write\n```\n\n\
         Measured {date} on: {machine}; 1-minute load average {start:.2} at the start, {:.2} at \
         the end; servers as pinned in `lsp-configs/` (gopls from Debian), against copies of \
         `test-projects/`. Every lspedit process runs with the bench's own `LSPEDIT_RUNTIME_DIR` \
         (mode 0700), so the host is the bench's own, and `XDG_CONFIG_HOME`: for TypeScript the \
         person's configuration there switches the other TypeScript server off \
         (`[servers.<id>] enabled = false`; an untrusted `.lspedit/config.toml` may not, and \
         trusting the copy would change how TypeScript is found).\n\n\
         **CLI cold and warm.** `lspedit apply --first-check-timeout-ms 120000 \
         --check-timeout-ms 60000 PATCH` of a one-line patch that puts a type error in the \
         file, then of the patch that takes it out, as a whole process (spawn to exit). *No \
         host*: `--no-host`, every call starts its server ({cold} break/fix pairs). *Host*: \
         the first call after `lspedit servers stop` starts the host and the server (*first \
         apply*, a break); then the fix and {warm} more break/fix pairs find the server warm \
         (*warm*). Each result is checked: the patch applied, and an `ERROR` on the broken \
         line after a break and none there after a fix; any other result is a wrong result \
         (a call killed at {deadline} s counts as one and is listed as a timeout). After the \
         host's calls, `servers status --json` must show one server that served every call.\n\n\
         {cli}\n\
         **Shared memory.** N `lspedit mcp --root COPY` sessions started together on one copy, \
         each sent `initialize` and then `tools/call diagnostics` for one file (the reply \
         awaited, up to {reply} s; the file has no error). Then the resident memory (`VmRSS`) \
         of every process: the sessions and their descendants (each session's own servers and \
         watchdog with `--no-host`), and with the host the host process and its descendants \
         (its servers, `servers status --json`). Servers running: process groups of a \
         server.\n\n{memory}{defects}",
        crate::load(),
        cold = cold_pairs,
        warm = warm_pairs,
        deadline = APPLY_DEADLINE.as_secs(),
        reply = REPLY_DEADLINE.as_secs(),
        defects = report.markdown(),
    );
    println!("{HEADING}\n\n{body}");
    if write {
        let path = repo.join("BENCHMARKS.md");
        let doc = fs::read_to_string(&path).unwrap_or_default();
        fs::write(
            &path,
            crate::replace_section(&doc, HEADING, &body, Some(crate::SERVERS_HEADING)),
        )?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// What went wrong along the way, each with its evidence: wrong results, a server restarted
/// or not shared, a process left behind.
#[derive(Default)]
struct Report {
    findings: Vec<String>,
}

impl Report {
    fn add(&mut self, finding: String) {
        eprintln!("host: {finding}");
        self.findings.push(finding);
    }

    fn markdown(&self) -> String {
        if self.findings.is_empty() {
            return "\nNo wrong result, every hosted call served by one server, no process left \
                    behind.\n"
                .to_string();
        }
        let mut s = String::from("\nFound:\n\n");
        for f in &self.findings {
            let _ = writeln!(s, "- {f}");
        }
        s
    }
}

/// A case's private directory: the project copy, the runtime and config directories, the
/// patches. Removed on drop.
struct Sandbox {
    /// Held for its removal on drop, never read.
    _dir: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
    runtime: PathBuf,
    config: PathBuf,
    bin: PathBuf,
}

impl Sandbox {
    fn new(repo: &Path, bin: &Path, project: &str, disable: Option<&str>) -> Result<Sandbox> {
        let dir = tempfile::tempdir()?;
        let base = dir.path().canonicalize()?;
        let root = base.join("project");
        copy_project(&repo.join("test-projects").join(project), &root)?;
        let runtime = base.join("runtime");
        let config = base.join("config");
        for d in [&runtime, &config.join("lspedit")] {
            fs::create_dir_all(d)?;
            fs::set_permissions(d, fs::Permissions::from_mode(0o700))?;
        }
        fs::set_permissions(&config, fs::Permissions::from_mode(0o700))?;
        if let Some(off) = disable {
            fs::write(
                config.join("lspedit/config.toml"),
                format!("[servers.{off}]\nenabled = false\n"),
            )?;
        }
        Ok(Sandbox {
            _dir: dir,
            base,
            root,
            runtime,
            config,
            bin: bin.to_path_buf(),
        })
    }

    /// `lspedit ARGS... --root COPY` with the bench's runtime and config directories.
    fn lspedit(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.args(args)
            .arg("--root")
            .arg(&self.root)
            .env("LSPEDIT_RUNTIME_DIR", &self.runtime)
            .env("XDG_CONFIG_HOME", &self.config)
            .env_remove("LSPEDIT_NO_HOST");
        c
    }

    /// `servers status --json`'s host (`Null` when none runs).
    fn host_status(&self) -> Result<Value> {
        let run = child::run(
            &mut self.lspedit(&["--json", "servers", "status"]),
            EXIT_DEADLINE,
        )?;
        ensure!(
            run.status.is_some_and(|s| s.success()),
            "servers status failed: {}",
            String::from_utf8_lossy(&run.stdout)
        );
        let doc: Value =
            serde_json::from_slice(&run.stdout).context("servers status --json is not JSON")?;
        Ok(doc["host"].clone())
    }

    /// `servers stop`, then waits until every group the host ran is gone; a group still alive
    /// after that is a finding.
    fn stop_host(&self, report: &mut Report, what: &str) -> Result<()> {
        let host = self.host_status()?;
        let run = child::run(&mut self.lspedit(&["servers", "stop"]), EXIT_DEADLINE)?;
        ensure!(
            run.status.is_some_and(|s| s.success()),
            "servers stop failed: {}",
            String::from_utf8_lossy(&run.stdout)
        );
        for s in servers_of(&host) {
            if !lspedit_process::wait_group_gone(s.pgid, EXIT_DEADLINE) {
                report.add(format!(
                    "{what}: {}'s process group {} outlived `servers stop` by {} s: pids {:?}",
                    s.server,
                    s.pgid,
                    EXIT_DEADLINE.as_secs(),
                    lspedit_process::live_group_members(s.pgid)
                ));
            }
        }
        if let Some(pid) = host["pid"].as_u64().and_then(|p| u32::try_from(p).ok()) {
            let pgid = proc_stat(pid).map(|s| s.pgrp);
            if let Some(pgid) = pgid
                && !lspedit_process::wait_group_gone(pgid, EXIT_DEADLINE)
            {
                report.add(format!(
                    "{what}: the host (pid {pid}) outlived `servers stop` by {} s",
                    EXIT_DEADLINE.as_secs()
                ));
            }
        }
        Ok(())
    }

    /// Processes still running in, or naming, this case's directory: none should be.
    fn left_behind(&self, report: &mut Report, what: &str) {
        let mut stray = processes_naming(&self.base);
        // A process on its way out (a server's child finishing) gets the usual bound.
        for p in &stray {
            if let Some(st) = proc_stat(p.0) {
                lspedit_process::wait_group_gone(st.pgrp, EXIT_DEADLINE);
            }
        }
        stray = processes_naming(&self.base);
        for (pid, cmd) in stray {
            report.add(format!(
                "{what}: process {pid} left behind after its case ended: `{cmd}`"
            ));
            // The bench's own leftovers are its to end: by their id, after reporting them.
            if let Some(st) = proc_stat(pid) {
                lspedit_process::kill_group(st.pgrp);
            }
        }
    }
}

struct Hosted {
    server: String,
    pgid: u32,
    served: u64,
}

fn servers_of(host: &Value) -> Vec<Hosted> {
    host["servers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| {
                    Some(Hosted {
                        server: s["server"].as_str()?.to_string(),
                        pgid: u32::try_from(s["pgid"].as_u64()?).ok()?,
                        served: s["served"].as_u64().unwrap_or(0),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Whether `server` is declared and its program found (as the pool would find it).
fn installed(server: &str) -> Result<bool> {
    let cfg = PoolConfig::bundled()?.only(&[server]);
    Ok(cfg
        .server(server)
        .is_some_and(|d| cfg.resolve_command(d).is_some()))
}

/// A one-line unified diff of `file` from `old_line` to `new_line` (1-based `line`).
fn one_line_patch(file: &str, line: usize, old_line: &str, new_line: &str) -> String {
    format!("--- a/{file}\n+++ b/{file}\n@@ -{line},1 +{line},1 @@\n-{old_line}\n+{new_line}\n")
}

/// One `apply`'s outcome.
struct Applied {
    elapsed: Duration,
    /// Why the result is wrong; `None` when right.
    wrong: Option<String>,
}

/// The `ERROR` lines a tool text reports for `file`, as their 1-based line numbers.
fn error_lines(text: &str, file: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut current: Option<&str> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("<diagnostics file=\"") {
            current = rest.strip_suffix("\">");
            continue;
        }
        if line == "</diagnostics>" {
            current = None;
            continue;
        }
        if current != Some(file) {
            continue;
        }
        if let Some(rest) = line.trim_start().strip_prefix("ERROR [")
            && let Some(n) = rest.split(':').next().and_then(|n| n.parse().ok())
        {
            out.push(n);
        }
    }
    out
}

/// The first lines of a result, for a finding.
fn excerpt(text: &str) -> String {
    let lines: Vec<&str> = text.lines().take(12).collect();
    lines.join(" ⏎ ")
}

fn cli_section(
    repo: &Path,
    bin: &Path,
    cold_pairs: usize,
    warm_pairs: usize,
    wanted: &dyn Fn(&str) -> bool,
    report: &mut Report,
) -> Result<String> {
    let mut md = String::from(
        "| server | no host: apply p50 (ms) | host: first apply (ms) | host: warm apply p50 (ms) | p90 (ms) | warm p50 ÷ no-host p50 | wrong results |\n\
         |---|---:|---:|---:|---:|---:|---|\n",
    );
    for case in CASES.iter().filter(|c| wanted(c.server)) {
        if !installed(case.server)? {
            eprintln!("host: {} is not installed; skipped", case.server);
            let _ = writeln!(md, "| {} | not installed | | | | | |", case.server);
            continue;
        }
        let sb = Sandbox::new(repo, bin, case.project, case.disable)?;
        let text = fs::read_to_string(sb.root.join(case.file))?;
        let (index, old_line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(case.breakage.0))
            .with_context(|| format!("{}: no `{}`", case.file, case.breakage.0))?;
        let line = index + 1;
        let new_line = old_line.replacen(case.breakage.0, case.breakage.1, 1);
        let break_patch = sb.base.join("break.diff");
        let fix_patch = sb.base.join("fix.diff");
        fs::write(
            &break_patch,
            one_line_patch(case.file, line, old_line, &new_line),
        )?;
        fs::write(
            &fix_patch,
            one_line_patch(case.file, line, &new_line, old_line),
        )?;
        let apply = |broken: bool, host: bool| -> Result<Applied> {
            let patch = if broken { &break_patch } else { &fix_patch };
            let mut args: Vec<&str> = vec!["apply"];
            args.extend(PATIENT);
            if !host {
                args.push("--no-host");
            }
            let patch = patch.to_str().context("temp path is not UTF-8")?;
            args.push(patch);
            let run = child::run(&mut sb.lspedit(&args), APPLY_DEADLINE)?;
            let out = String::from_utf8_lossy(&run.stdout).into_owned();
            let now = fs::read_to_string(sb.root.join(case.file)).unwrap_or_default();
            let want: &str = if broken { &new_line } else { old_line };
            let errors = error_lines(&out, case.file);
            let wrong = if run.status.is_none() {
                Some(format!(
                    "timeout: killed after {} s",
                    APPLY_DEADLINE.as_secs()
                ))
            } else if now.lines().nth(index) != Some(want) {
                Some(format!("the patch did not apply: {}", excerpt(&out)))
            } else if broken && !errors.contains(&line) {
                Some(format!(
                    "no error on line {line} after the break: {}",
                    excerpt(&out)
                ))
            } else if !broken && errors.contains(&line) {
                Some(format!(
                    "an error on line {line} after the fix: {}",
                    excerpt(&out)
                ))
            } else {
                None
            };
            Ok(Applied {
                elapsed: run.elapsed,
                wrong,
            })
        };
        let mut wrong: Vec<String> = Vec::new();
        let mut note = |mode: &str, n: usize, broken: bool, a: &Applied| {
            let kind = if broken { "break" } else { "fix" };
            eprintln!(
                "host: {} {mode} call {n} ({kind}): {} ms{}",
                case.server,
                a.elapsed.as_millis(),
                a.wrong
                    .as_deref()
                    .map_or(String::new(), |w| format!(": {w}"))
            );
            if let Some(w) = &a.wrong {
                wrong.push(format!("{} {mode} call {n} ({kind}): {w}", case.server));
            }
        };

        // No host: every call starts its server and stops it on exit.
        let mut cold = Vec::new();
        for pair in 0..cold_pairs {
            for broken in [true, false] {
                let a = apply(broken, false)?;
                note("no-host", 2 * pair + usize::from(!broken) + 1, broken, &a);
                cold.push(a.elapsed);
            }
        }
        let cold_calls = cold.len();
        if !sb.host_status()?.is_null() {
            report.add(format!(
                "{}: a host runs after {cold_calls} `--no-host` calls",
                case.server
            ));
        }

        // The host: the first call starts it and the server, the others find them warm.
        sb.stop_host(report, case.server)?;
        let first = apply(true, true)?;
        note("host", 1, true, &first);
        let started = servers_of(&sb.host_status()?);
        let mut warm = Vec::new();
        let mut n = 1;
        for broken in std::iter::once(false).chain((0..warm_pairs).flat_map(|_| [true, false])) {
            n += 1;
            let a = apply(broken, true)?;
            note("host", n, broken, &a);
            warm.push(a.elapsed);
        }
        let ended = servers_of(&sb.host_status()?);
        let pgids = |v: &[Hosted]| v.iter().map(|s| s.pgid).collect::<Vec<_>>();
        let served: u64 = ended.iter().map(|s| s.served).sum();
        if ended.len() != 1 || pgids(&started) != pgids(&ended) || served != n as u64 {
            report.add(format!(
                "{}: after {n} hosted calls the host runs {} server(s) (process groups {:?}; \
                 after the first call {:?}) that served {served} call(s); one server serving \
                 every call expected",
                case.server,
                ended.len(),
                pgids(&ended),
                pgids(&started)
            ));
        }
        sb.stop_host(report, case.server)?;
        sb.left_behind(report, case.server);

        let warm_calls = warm.len() + 1;
        cold.sort_unstable();
        warm.sort_unstable();
        let cold_p50 = percentile(&cold, 0.5);
        let warm_p50 = percentile(&warm, 0.5);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {:.2} | {} of {cold_calls} no-host, {} of {warm_calls} host |",
            case.server,
            cold_p50.as_millis(),
            first.elapsed.as_millis(),
            warm_p50.as_millis(),
            percentile(&warm, 0.9).as_millis(),
            warm_p50.as_secs_f64() / cold_p50.as_secs_f64(),
            wrong
                .iter()
                .filter(|w| w.contains(" no-host call "))
                .count(),
            wrong.iter().filter(|w| w.contains(" host call ")).count(),
        );
        for w in wrong {
            report.add(w);
        }
    }
    Ok(md)
}

/// One `lspedit mcp` session over stdio: its stdout lines arrive on a channel, so a reply is
/// awaited with a deadline (no polling).
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Session {
    fn start(sb: &Sandbox, host: bool, log: &Path) -> Result<Session> {
        let mut args: Vec<&str> = vec!["mcp"];
        args.extend(PATIENT);
        if !host {
            args.push("--no-host");
        }
        let mut child = sb
            .lspedit(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(fs::File::create(log)?)
            .spawn()
            .context("cannot start lspedit mcp")?;
        let stdout = child.stdout.take().context("no stdout")?;
        let stdin = child.stdin.take();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut s = Session {
            child,
            stdin,
            lines,
        };
        s.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lspedit-bench","version":"0"}}}))?;
        s.reply(0, EXIT_DEADLINE)?;
        s.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}))?;
        Ok(s)
    }

    fn send(&mut self, v: &Value) -> Result<()> {
        let stdin = self.stdin.as_mut().context("session closed")?;
        stdin.write_all(format!("{v}\n").as_bytes())?;
        stdin.flush()?;
        Ok(())
    }

    /// The reply to request `id` (notifications in between are skipped).
    fn reply(&self, id: u64, timeout: Duration) -> Result<Value> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    bail!("no reply to request {id} within {} s", timeout.as_secs())
                }
                Err(RecvTimeoutError::Disconnected) => bail!("lspedit mcp closed its stdout"),
            };
            let v: Value = serde_json::from_str(&line)
                .with_context(|| format!("not JSON from lspedit mcp: {line}"))?;
            if v["id"].as_u64() == Some(id) {
                return Ok(v);
            }
        }
    }

    /// Ends the session as a client does, closing its stdin; false when it had to be killed.
    fn close(mut self) -> Result<bool> {
        drop(self.stdin.take());
        if child::wait_timeout(&mut self.child, EXIT_DEADLINE)?.is_some() {
            return Ok(true);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        Ok(false)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // A session the bench gave up on (an error on the way) is not left running.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One process from `/proc/PID/stat` and `status`.
#[derive(Clone)]
struct ProcStat {
    ppid: u32,
    pgrp: u32,
    comm: String,
    rss_kib: u64,
}

fn proc_stat(pid: u32) -> Option<ProcStat> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let mut f = stat.get(close + 1..)?.split_whitespace();
    let state = f.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    let ppid = f.next()?.parse().ok()?;
    let pgrp = f.next()?.parse().ok()?;
    let rss_kib = fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0);
    Some(ProcStat {
        ppid,
        pgrp,
        comm,
        rss_kib,
    })
}

/// Every live process, by pid.
fn all_processes() -> BTreeMap<u32, ProcStat> {
    let mut out = BTreeMap::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return out;
    };
    for e in dir.flatten() {
        if let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok())
            && let Some(st) = proc_stat(pid)
        {
            out.insert(pid, st);
        }
    }
    out
}

/// Live processes whose working directory is under `base` or whose command line names it.
fn processes_naming(base: &Path) -> Vec<(u32, String)> {
    let needle = base.display().to_string();
    let me = std::process::id();
    all_processes()
        .into_keys()
        .filter(|&pid| pid != me)
        .filter_map(|pid| {
            let cmd = fs::read(format!("/proc/{pid}/cmdline"))
                .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
                .unwrap_or_default();
            let cwd = fs::read_link(format!("/proc/{pid}/cwd")).ok();
            (cmd.contains(&needle) || cwd.is_some_and(|c| c.starts_with(base)))
                .then(|| (pid, cmd.trim().to_string()))
        })
        .collect()
}

/// `roots` and every process below them.
fn descendants(procs: &BTreeMap<u32, ProcStat>, roots: &[u32]) -> BTreeSet<u32> {
    let mut seen: BTreeSet<u32> = roots
        .iter()
        .copied()
        .filter(|p| procs.contains_key(p))
        .collect();
    let mut frontier: Vec<u32> = seen.iter().copied().collect();
    while let Some(p) = frontier.pop() {
        for (&c, st) in procs {
            if st.ppid == p && seen.insert(c) {
                frontier.push(c);
            }
        }
    }
    seen
}

/// One memory measurement.
struct Memory {
    servers: usize,
    rss_kib: u64,
    /// Replies that were not a clean file's diagnostics, or did not come.
    wrong: Vec<String>,
}

fn memory_section(
    repo: &Path,
    bin: &Path,
    wanted: &dyn Fn(&str) -> bool,
    report: &mut Report,
) -> Result<String> {
    let mut md = String::from(
        "| server | sessions | servers running (no host / host) | RSS MiB no host | RSS MiB host |\n\
         |---|---:|---:|---:|---:|\n",
    );
    for &(server, project, file) in MEMORY.iter().filter(|m| wanted(m.0)) {
        if !installed(server)? {
            eprintln!("host: {server} is not installed; skipped");
            let _ = writeln!(md, "| {server} | | not installed | | |");
            continue;
        }
        let sb = Sandbox::new(repo, bin, project, None)?;
        // One warm-up session builds what a first check builds once per copy (rust-analyzer's
        // `cargo check` of the crate), so no row pays for it and the others not.
        let warm_up = sessions(&sb, server, file, 1, false, report)?;
        ensure!(
            warm_up.wrong.is_empty(),
            "{server}: the warm-up session failed: {:?}",
            warm_up.wrong
        );
        for n in SESSIONS {
            let own = sessions(&sb, server, file, n, false, report)?;
            sb.stop_host(report, server)?;
            let shared = sessions(&sb, server, file, n, true, report)?;
            sb.stop_host(report, server)?;
            let _ = writeln!(
                md,
                "| {server} | {n} | {} / {} | {:.0} | {:.0} |",
                own.servers,
                shared.servers,
                own.rss_kib as f64 / 1024.0,
                shared.rss_kib as f64 / 1024.0
            );
            for w in own.wrong.into_iter().chain(shared.wrong) {
                report.add(w);
            }
        }
        sb.left_behind(report, server);
    }
    Ok(md)
}

/// `n` sessions on the copy, each asked for `file`'s diagnostics; then the memory of every
/// process they (and the host) run, measured before they end.
fn sessions(
    sb: &Sandbox,
    server: &str,
    file: &str,
    n: usize,
    host: bool,
    report: &mut Report,
) -> Result<Memory> {
    let mode = if host { "host" } else { "no host" };
    eprintln!("host: {server}, {n} mcp session(s), {mode}");
    let mut all = Vec::new();
    for i in 0..n {
        let log = sb.base.join(format!("mcp-{mode}-{n}-{i}.stderr"));
        all.push(Session::start(sb, host, &log)?);
    }
    for (i, s) in all.iter_mut().enumerate() {
        s.send(&json!({"jsonrpc":"2.0","id":10 + i,"method":"tools/call","params":{"name":"diagnostics","arguments":{"paths":[file]}}}))?;
    }
    let mut wrong = Vec::new();
    for (i, s) in all.iter().enumerate() {
        let started = Instant::now();
        match s.reply(10 + i as u64, REPLY_DEADLINE) {
            Ok(r) => {
                let text = r["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                if !text.contains("no errors") {
                    wrong.push(format!(
                        "{server}, {n} sessions, {mode}: session {i}'s diagnostics of the clean \
                         {file} are not \"no errors\": {}",
                        excerpt(&r.to_string())
                    ));
                }
            }
            Err(e) => wrong.push(format!(
                "{server}, {n} sessions, {mode}: session {i}: {e} (waited {} s)",
                started.elapsed().as_secs()
            )),
        }
    }

    let procs = all_processes();
    let mut roots: Vec<u32> = all.iter().map(|s| s.child.id()).collect();
    let status = sb.host_status()?;
    let hosted = servers_of(&status);
    let own_pgids: BTreeSet<u32> = roots
        .iter()
        .filter_map(|p| procs.get(p).map(|s| s.pgrp))
        .collect();
    let servers = if host {
        if let Some(pid) = status["pid"].as_u64().and_then(|p| u32::try_from(p).ok()) {
            roots.push(pid);
        } else {
            wrong.push(format!(
                "{server}, {n} sessions, host: no host runs after the replies"
            ));
        }
        let clients: u64 = status["servers"]
            .as_array()
            .map_or(0, |a| a.iter().filter_map(|s| s["clients"].as_u64()).sum());
        if hosted.len() != 1 || clients != n as u64 {
            wrong.push(format!(
                "{server}, {n} sessions, host: the host runs {} server(s) with {clients} client(s) \
                 attached; one server with {n} expected: {status}",
                hosted.len()
            ));
        }
        hosted.len()
    } else {
        if !status.is_null() {
            wrong.push(format!(
                "{server}, {n} sessions, no host: a host runs: {status}"
            ));
        }
        0
    };
    let tree = descendants(&procs, &roots);
    let rss_kib = tree
        .iter()
        .filter_map(|p| procs.get(p))
        .map(|s| s.rss_kib)
        .sum();
    // A session's own servers: process groups its children lead, but for its watchdog (`sh`)
    // and the host (`lspedit`); the groups a server starts below it (rust-analyzer's `cargo
    // check`) are the server's.
    let own_servers: BTreeSet<u32> = tree
        .iter()
        .filter_map(|&p| procs.get(&p).map(|s| (p, s)))
        .filter(|(p, s)| {
            s.pgrp == *p
                && roots.contains(&s.ppid)
                && !own_pgids.contains(&s.pgrp)
                && s.comm != "sh"
                && s.comm != "lspedit"
                && !hosted.iter().any(|h| h.pgid == s.pgrp)
        })
        .map(|(p, _)| p)
        .collect();
    let servers = if host {
        if !own_servers.is_empty() {
            wrong.push(format!(
                "{server}, {n} sessions, host: server process groups outside the host: {own_servers:?}"
            ));
        }
        servers
    } else {
        own_servers.len()
    };

    // The sessions end as clients do; with --no-host their servers go with them.
    let groups: Vec<u32> = own_servers.iter().copied().collect();
    for (i, s) in all.into_iter().enumerate() {
        if !s.close()? {
            report.add(format!(
                "{server}, {n} sessions, {mode}: session {i} did not exit within {} s of its \
                 stdin closing (killed)",
                EXIT_DEADLINE.as_secs()
            ));
        }
    }
    for g in groups {
        if !lspedit_process::wait_group_gone(g, EXIT_DEADLINE) {
            report.add(format!(
                "{server}, {n} sessions, {mode}: server group {g} outlived its session by {} s: \
                 pids {:?}",
                EXIT_DEADLINE.as_secs(),
                lspedit_process::live_group_members(g)
            ));
        }
    }
    Ok(Memory {
        servers,
        rss_kib,
        wrong,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_are_read_per_file() {
        let text = "Applied.\n<diagnostics file=\"src/lib.rs\">\nERROR [8:22] mismatched types (E0308)\nWARNING [3:1] unused\n</diagnostics>\n<diagnostics file=\"src/twice.rs\">\nERROR [6:5] x\n</diagnostics>\n";
        assert_eq!(error_lines(text, "src/lib.rs"), [8]);
        assert_eq!(error_lines(text, "src/twice.rs"), [6]);
        assert!(error_lines(text, "src/main.rs").is_empty());
    }

    #[test]
    fn one_line_patches_name_the_line() {
        assert_eq!(
            one_line_patch("a.py", 6, "x = 1", "x = \"1\""),
            "--- a/a.py\n+++ b/a.py\n@@ -6,1 +6,1 @@\n-x = 1\n+x = \"1\"\n"
        );
    }
}
