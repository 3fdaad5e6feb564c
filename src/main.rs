//! The `lspedit` command-line interface.
//!
//! Exit codes: 0 success, 1 refused or failed (any file; `check`: any file with errors),
//! 2 usage or configuration error. Human output on stdout (a coloured diff when stdout is a
//! terminal, the per-file report, diagnostics); `--json` for machines. Progress and logs go to
//! stderr (progress only when stderr is a terminal; `-v` for more logs).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use lspedit::engine::{ViewOptions, hashline_view};
use lspedit::mcp::Session;
use lspedit::tools::{
    ApplyPatchOptions, FileStatus, PatchReport, ToolError, ToolResult, ToolsConfig, Workspace,
    apply_patch, base_sha,
};
use serde::Serialize;

mod demo;
mod flow;
mod json;

#[derive(Parser)]
#[command(
    name = "lspedit",
    version,
    about = "Safe, hash-anchored file edits for coding agents, with language-server diagnostics"
)]
struct Cli {
    /// More log output on stderr (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

/// Options every writing command shares.
#[derive(clap::Args)]
struct WriteOpts {
    /// Workspace root (default: current directory).
    #[arg(long)]
    root: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Do not ask language servers for diagnostics.
    #[arg(long)]
    no_diagnostics: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Print a file as hashline view: `42abcd|content`, one line per file line.
    Read {
        file: String,
        /// First line to show (1-based).
        #[arg(long, default_value_t = 1)]
        offset: usize,
        /// Number of lines to show.
        #[arg(long)]
        limit: Option<usize>,
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Replace text in a file (exact, then safe fallbacks), then report its diagnostics.
    Edit {
        file: String,
        /// The text to replace (plain text, no anchors).
        #[arg(long)]
        old: String,
        /// The replacement.
        #[arg(long)]
        new: String,
        /// Replace every occurrence (default: exactly one must match).
        #[arg(long)]
        all: bool,
        #[command(flatten)]
        opts: WriteOpts,
    },
    /// Create or overwrite a file with the content of CONTENT (a file, or `-` for standard
    /// input), then report its diagnostics.
    Write {
        file: String,
        /// Where the new content comes from: a file, or `-` (the default) for standard input.
        content: Option<String>,
        #[command(flatten)]
        opts: WriteOpts,
    },
    /// Apply a patch (unified diff, git diff or Codex envelope) to files under the root.
    Apply {
        /// Patch file, or `-` (the default) for standard input.
        patch: Option<String>,
        #[command(flatten)]
        opts: WriteOpts,
        /// Plan and report without writing anything (no diagnostics).
        #[arg(long)]
        dry_run: bool,
        /// How many lines away from its target a hunk is searched for.
        #[arg(long, default_value_t = 100)]
        search_radius: usize,
    },
    /// Report the language servers' diagnostics for files as they are (no edit). Exit 1 when
    /// any file has errors.
    Check {
        #[arg(required = true)]
        files: Vec<String>,
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Propose a change without making it: from a patch (file or `-`), or a regex over files.
    /// Prints the patch id and the diff; the proposal is stored under `.lspedit/patches/`.
    Propose {
        #[command(flatten)]
        input: flow::ProposeInput,
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Apply a proposed change by its patch id (from `propose`, possibly in another process),
    /// after re-checking that no file changed since. Prints a checkpoint id for `undo`.
    ApplyId {
        patch_id: String,
        #[command(flatten)]
        plan: flow::PlanInput,
        #[command(flatten)]
        opts: WriteOpts,
    },
    /// Undo an `apply-id` by its checkpoint id (refused when a file changed since).
    Undo {
        checkpoint_id: String,
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Language servers: what is configured and installed, and installing pinned versions.
    Servers {
        #[command(subcommand)]
        command: ServersCommand,
    },
    /// Trust the workspace's `.lspedit/config.toml` to choose the programs lspedit runs (server
    /// `command`, `args`, `env`, `servers_dir`, new servers): records its SHA-256 in your config
    /// directory. Any change to the file needs trusting again.
    Trust {
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Remove the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Serve the tools over MCP on stdin/stdout (for agents).
    Mcp {
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Do not ask language servers for diagnostics.
        #[arg(long)]
        no_diagnostics: bool,
    },
    /// The main job, end to end on copies of two small projects (TypeScript and Rust):
    /// installs the servers if missing, introduces a type error with an anchored patch, shows
    /// the real diagnostics, then the fix and the clean result.
    Demo {
        /// Keep the temp directory and print its path.
        #[arg(long)]
        keep: bool,
    },
}

impl Command {
    /// Whether the command was asked for JSON output.
    fn json(&self) -> bool {
        match self {
            Command::Read { json, .. }
            | Command::Check { json, .. }
            | Command::Propose { json, .. }
            | Command::Undo { json, .. } => *json,
            Command::Edit { opts, .. }
            | Command::Write { opts, .. }
            | Command::Apply { opts, .. }
            | Command::ApplyId { opts, .. } => opts.json,
            Command::Servers { command } => match command {
                ServersCommand::Status { json, .. } | ServersCommand::Install { json, .. } => *json,
            },
            Command::Mcp { .. } | Command::Demo { .. } | Command::Trust { .. } => false,
        }
    }
}

#[derive(Subcommand)]
enum ServersCommand {
    /// Configured servers: binary found and where, version, pinned version, install recipe.
    Status {
        /// Workspace whose `.lspedit/config.toml` applies (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
        /// Start the servers for these files (checking them) and show the running processes
        /// per root: state, process group, memory, open documents, crashes, last error.
        #[arg(long, num_args = 1..)]
        probe: Vec<String>,
    },
    /// Install the pinned versions of the servers named (default: every enabled server with an
    /// install recipe) into the user cache. Idempotent.
    Install {
        ids: Vec<String>,
        #[arg(long)]
        json: bool,
    },
}

#[allow(clippy::print_stderr)] // Errors for the person at the terminal.
fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(cli.verbose);
    let json = cli.command.json();
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(msg)) => {
            eprintln!("lspedit: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Tool(e)) => {
            // A refusal before any tool ran (the input is not UTF-8, ...): under `--json` it
            // is a JSON document with its reason code like every other refusal.
            if json {
                let _ = print_json(&json::ErrorJson::from(&e));
            }
            eprintln!("lspedit: {e}");
            ExitCode::from(1)
        }
        Err(Failure::Failed(msg)) => {
            eprintln!("lspedit: {msg}");
            ExitCode::from(1)
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("LSPEDIT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .init();
}

enum Failure {
    /// Exit 2: bad arguments or configuration.
    Usage(String),
    /// Exit 1: a tool error outside a tool result.
    Tool(ToolError),
    /// Exit 1: the command ran and failed (the MCP session broke down).
    Failed(String),
}

impl From<ToolError> for Failure {
    fn from(e: ToolError) -> Self {
        Failure::Tool(e)
    }
}

fn open_workspace(root: Option<PathBuf>) -> Result<Workspace, Failure> {
    let root = match root {
        Some(r) => r,
        None => std::env::current_dir()
            .map_err(|e| Failure::Usage(format!("cannot read the current directory: {e}")))?,
    };
    Workspace::open(&root).map_err(|e| Failure::Usage(e.to_string()))
}

/// A session over the workspace, with the language-server pool unless `diagnostics` is false.
/// A pool configuration error (a bad `.lspedit/config.toml`) is a configuration error.
fn open_session(
    root: Option<PathBuf>,
    diagnostics: bool,
    config: ToolsConfig,
) -> Result<Session, Failure> {
    let ws = open_workspace(root)?;
    let pool = if diagnostics {
        Some(
            lspedit::servers::pool_config(ws.root())
                .map_err(|e| Failure::Usage(format!("language-server configuration: {e}")))?,
        )
    } else {
        None
    };
    Ok(Session::new(ws, pool, config))
}

#[allow(clippy::print_stdout)] // The CLI's output is its job.
fn out(text: &str) {
    print!("{text}");
    let _ = std::io::stdout().flush();
}

fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::Usage(format!("cannot serialize the result: {e}")))?;
    out(&format!("{text}\n"));
    Ok(())
}

/// Progress on stderr, only when it is a terminal; `done` clears the line.
struct Progress {
    on: bool,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            on: std::io::stderr().is_terminal(),
        }
    }

    #[allow(clippy::print_stderr)] // Progress for the person at the terminal.
    fn line(&self, text: &str) {
        if self.on {
            eprintln!("{text}");
        }
    }

    #[allow(clippy::print_stderr)]
    fn status(&self, text: &str) {
        if self.on {
            eprint!("\r\x1b[K{text}");
            let _ = std::io::stderr().flush();
        }
    }

    #[allow(clippy::print_stderr)]
    fn done(&self) {
        if self.on {
            eprint!("\r\x1b[K");
            let _ = std::io::stderr().flush();
        }
    }
}

fn run(command: Command) -> Result<u8, Failure> {
    match command {
        Command::Read {
            file,
            offset,
            limit,
            root,
            json,
        } => cmd_read(&file, offset, limit, root, json),
        Command::Edit {
            file,
            old,
            new,
            all,
            opts,
        } => {
            let json = opts.json;
            let session = open_session(opts.root, !opts.no_diagnostics, ToolsConfig::default())?;
            let r = with_progress(!opts.no_diagnostics, || {
                session.tools().edit(&file, &old, &new, all)
            });
            print_tool(&r, json)
        }
        Command::Write {
            file,
            content,
            opts,
        } => {
            let text = read_input(content.as_deref(), "content")?;
            let json = opts.json;
            let session = open_session(opts.root, !opts.no_diagnostics, ToolsConfig::default())?;
            let r = with_progress(!opts.no_diagnostics, || {
                session.tools().write_file(&file, &text)
            });
            print_tool(&r, json)
        }
        Command::Apply {
            patch,
            opts,
            dry_run,
            search_radius,
        } => {
            let text = read_input(patch.as_deref(), "patch")?;
            if dry_run {
                return apply_dry_run(opts.root, &text, opts.json, search_radius);
            }
            let mut config = ToolsConfig::default();
            config.engine.search_radius = search_radius;
            let json = opts.json;
            let session = open_session(opts.root, !opts.no_diagnostics, config)?;
            let r = with_progress(!opts.no_diagnostics, || session.tools().apply_patch(&text));
            print_tool(&r, json)
        }
        Command::Check { files, root, json } => {
            let session = open_session(root, true, ToolsConfig::default())?;
            // One pass under one deadline for all files gives each file's status; the text is
            // then the `diagnostics` tool's, for the files that were checked (answered from the
            // pool's settled results, so nothing waits twice).
            let progress = Progress::new();
            progress.status("waiting for language-server diagnostics…");
            let statuses = match session.tools().check_paths(&files) {
                Ok(fb) => fb.statuses,
                Err(e) => {
                    progress.done();
                    session.shutdown();
                    return Err(e.into());
                }
            };
            let unchecked: Vec<lspedit::tools::FileDiagnosticsStatus> = statuses
                .iter()
                .filter(|s| s.status != lspedit::tools::DiagnosticsStatus::Checked)
                .cloned()
                .collect();
            let checked: Vec<String> = files
                .iter()
                .filter(|f| {
                    let shown = session
                        .tools()
                        .workspace()
                        .resolve(f)
                        .map(|abs| session.tools().workspace().display_path(&abs));
                    !shown.is_ok_and(|p| unchecked.iter().any(|s| s.path == p))
                })
                .cloned()
                .collect();
            let mut r = if checked.is_empty() {
                let warnings: String = session
                    .config_warnings()
                    .iter()
                    .map(|w| format!("\n\nWarning: {w}"))
                    .collect();
                ToolResult {
                    reason: None,
                    llm_content: warnings,
                    display: String::new(),
                    files: Vec::new(),
                    is_error: false,
                    diagnostics: Vec::new(),
                }
            } else {
                session.diagnostics(&checked)
            };
            progress.done();
            let has_errors = r.llm_content.contains("<diagnostics file=");
            for s in &unchecked {
                let line = format!(
                    "{}: not checked: {}{}",
                    s.path,
                    s.status.as_str(),
                    s.detail
                        .as_deref()
                        .map(|d| format!(" ({d})"))
                        .unwrap_or_default()
                );
                r.llm_content = if r.llm_content.trim().is_empty() {
                    format!("{line}{}", r.llm_content)
                } else {
                    format!("{}\n\n{line}", r.llm_content.trim_end())
                };
            }
            r.diagnostics = statuses;
            // Explicitly, not on drop: a diagnostics thread abandoned at its deadline may still
            // hold the pool, and the process would exit before its drop killed the servers.
            session.shutdown();
            if json {
                let mut v = serde_json::to_value(json::ToolJson::from(&r))
                    .map_err(|e| Failure::Failed(e.to_string()))?;
                if let Some(map) = v.as_object_mut() {
                    map.insert(
                        "diagnostics".into(),
                        serde_json::Value::Array(
                            r.diagnostics
                                .iter()
                                .map(|s| {
                                    serde_json::json!({
                                        "path": s.path,
                                        "status": s.status.as_str(),
                                        "detail": s.detail,
                                    })
                                })
                                .collect(),
                        ),
                    );
                }
                print_json(&v)?;
            } else {
                out(&format!("{}\n", r.llm_content.trim_end()));
            }
            // 1: a refusal or errors found; 3: a file could not be checked (takes precedence
            // over errors found: the answer is incomplete).
            Ok(if r.is_error {
                1
            } else if !unchecked.is_empty() {
                3
            } else if has_errors {
                1
            } else {
                0
            })
        }
        Command::Propose { input, root, json } => flow::cmd_propose(input, root, json),
        Command::ApplyId {
            patch_id,
            plan,
            opts,
        } => flow::cmd_apply_id(&patch_id, plan, opts.root, !opts.no_diagnostics, opts.json),
        Command::Undo {
            checkpoint_id,
            root,
            json,
        } => flow::cmd_undo(&checkpoint_id, root, json),
        Command::Servers { command } => match command {
            ServersCommand::Status { root, json, probe } => cmd_servers_status(root, json, &probe),
            ServersCommand::Install { ids, json } => cmd_servers_install(&ids, json),
        },
        Command::Trust { root, revoke } => cmd_trust(root, revoke),
        Command::Mcp {
            root,
            no_diagnostics,
        } => cmd_mcp(root, no_diagnostics),
        Command::Demo { keep } => demo::run(keep),
    }
}

fn cmd_read(
    file: &str,
    offset: usize,
    limit: Option<usize>,
    root: Option<PathBuf>,
    json: bool,
) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let bytes = ws.read(file)?.ok_or_else(|| {
        ToolError::new(
            lspedit::tools::Reason::FileNotFound,
            Some(file),
            "no such file",
        )
    })?;
    let doc = lspedit::engine::Document::from_bytes(&bytes)
        .map_err(|e| ToolError::from_engine(Some(file), e))?;
    let texts = doc.texts();
    let view = hashline_view(
        &texts,
        ViewOptions {
            offset,
            limit,
            ..ViewOptions::default()
        },
    );
    if json {
        print_json(&json::ReadJson {
            path: file,
            base_sha: base_sha(&bytes),
            total_lines: texts.len(),
            content: &view,
        })?;
    } else {
        out(&view);
    }
    Ok(0)
}

/// Runs a tool call that may wait for language servers, with a progress line meanwhile.
fn with_progress(diagnostics: bool, f: impl FnOnce() -> ToolResult) -> ToolResult {
    let progress = Progress::new();
    if diagnostics {
        progress.status("waiting for language-server diagnostics…");
    }
    let r = f();
    progress.done();
    r
}

/// A tool result for a person (the coloured diff when stdout is a terminal, then what the
/// model would read: report, fresh anchors, diagnostics) or as JSON. Exit 1 on refusal.
fn print_tool(r: &ToolResult, json: bool) -> Result<u8, Failure> {
    if json {
        print_json(&json::ToolJson::from(r))?;
    } else {
        if std::io::stdout().is_terminal() {
            out(&coloured_diff(&r.display));
        }
        out(&format!("{}\n", r.llm_content.trim_end()));
    }
    Ok(if r.is_error { 1 } else { 0 })
}

/// The unified diff part of a tool's `display`, coloured for a terminal.
fn coloured_diff(display: &str) -> String {
    let mut s = String::new();
    let mut in_diff = false;
    for line in display.lines() {
        if line.starts_with("--- ") {
            in_diff = true;
        }
        if !in_diff {
            continue;
        }
        let colour = if line.starts_with("+++ ") || line.starts_with("--- ") {
            "\x1b[1m"
        } else if line.starts_with('+') {
            "\x1b[32m"
        } else if line.starts_with('-') {
            "\x1b[31m"
        } else if line.starts_with("@@") {
            "\x1b[36m"
        } else {
            ""
        };
        if colour.is_empty() {
            s.push_str(line);
        } else {
            s.push_str(&format!("{colour}{line}\x1b[0m"));
        }
        s.push('\n');
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

fn apply_dry_run(
    root: Option<PathBuf>,
    text: &str,
    json: bool,
    search_radius: usize,
) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let mut opts = ApplyPatchOptions {
        dry_run: true,
        ..ApplyPatchOptions::default()
    };
    opts.engine.search_radius = search_radius;
    let report = match apply_patch(&ws, text, &opts) {
        Ok(r) => r,
        Err(e) => {
            if json {
                print_json(&json::ErrorJson::from(&e))?;
            } else {
                out(&format!("FAILED: {}: {}\n", e.reason, e.message));
            }
            return Ok(1);
        }
    };
    if json {
        print_json(&json::ReportJson::from(&report))?;
    } else {
        out(&render_report(&report));
    }
    Ok(if report.all_applied() { 0 } else { 1 })
}

/// The text of a patch or content argument: a file, or `-` / nothing for standard input. Text
/// that is not UTF-8 is bad input (exit 1, `invalid_diff_format` / `not_utf8`), not a usage
/// error.
fn read_input(arg: Option<&str>, what: &str) -> Result<String, Failure> {
    let (bytes, source) = match arg {
        None | Some("-") => {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map_err(|e| {
                Failure::Usage(format!("cannot read the {what} from standard input: {e}"))
            })?;
            (b, "standard input".to_string())
        }
        Some(path) => (
            std::fs::read(path)
                .map_err(|e| Failure::Usage(format!("cannot read the {what} file {path}: {e}")))?,
            path.to_string(),
        ),
    };
    String::from_utf8(bytes).map_err(|e| {
        let reason = if what == "patch" {
            lspedit::tools::Reason::InvalidDiffFormat
        } else {
            lspedit::tools::Reason::NotUtf8
        };
        Failure::Tool(ToolError::new(
            reason,
            None,
            format!(
                "the {what} from {source} is not UTF-8 text (invalid byte at offset {}); nothing was applied",
                e.utf8_error().valid_up_to()
            ),
        ))
    })
}

/// The per-file report, then the fresh anchors of every modified block (live sync).
fn render_report(report: &PatchReport) -> String {
    let mut s = report.summary();
    for f in &report.files {
        let FileStatus::Applied(o) = &f.status else {
            continue;
        };
        for block in &o.sync {
            if block.line_count == 0 {
                continue;
            }
            let end = block.start_line + block.line_count - 1;
            match &block.lines {
                Some(lines) => {
                    s.push_str(&format!(
                        "\n{} lines {}-{}:\n",
                        o.path, block.start_line, end
                    ));
                    for l in lines {
                        s.push_str(&format!("{l}\n"));
                    }
                }
                None => s.push_str(&format!(
                    "\n{} lines {}-{}: changed; re-read for fresh anchors\n",
                    o.path, block.start_line, end
                )),
            }
        }
    }
    s
}

fn cmd_servers_status(root: Option<PathBuf>, json: bool, probe: &[String]) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let config = lspedit::servers::pool_config(ws.root())
        .map_err(|e| Failure::Usage(format!("language-server configuration: {e}")))?;
    let infos = lspedit::servers::inspect(&config);
    let dir = config.servers_dir.clone();
    let warnings = config.warnings.clone();
    // Servers live inside the process that uses them: to show processes, start them here.
    let (processes, probed) = if probe.is_empty() {
        (Vec::new(), None)
    } else {
        let session = Session::new(ws, Some(config), ToolsConfig::default());
        let r = with_progress(true, || session.diagnostics(probe));
        let rows = session.pool().map(|p| p.status()).unwrap_or_default();
        (rows, Some(r))
    };
    if json {
        let mut v =
            serde_json::to_value(json::ServersJson::new(dir.as_deref(), &infos, &processes))
                .map_err(|e| Failure::Usage(format!("cannot serialize the result: {e}")))?;
        if let Some(map) = v.as_object_mut() {
            map.insert("warnings".into(), serde_json::json!(warnings));
        }
        print_json(&v)?;
        return Ok(0);
    }
    let mut s: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    if !s.is_empty() {
        s.push('\n');
    }
    s.push_str(&format!(
        "servers dir: {}\ninstall dir: {}\n\n",
        dir.as_deref()
            .map_or_else(|| "(none)".to_string(), |d| d.display().to_string()),
        lspedit::servers::install_dir()
            .map_or_else(|| "(none)".to_string(), |d| d.display().to_string()),
    ));
    let rows: Vec<[String; 5]> = infos
        .iter()
        .map(|i| {
            let state = if !i.enabled {
                "disabled".to_string()
            } else if let Some(p) = &i.problem {
                if i.binary.is_some() {
                    format!("outdated: {p}")
                } else {
                    "missing".to_string()
                }
            } else {
                "ready".to_string()
            };
            [
                i.id.clone(),
                state,
                i.version.clone().unwrap_or_else(|| "-".into()),
                i.binary
                    .as_deref()
                    .map_or_else(|| "-".into(), |b| b.display().to_string()),
                i.recipe.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    s.push_str(&table(
        &["SERVER", "STATE", "VERSION", "BINARY", "INSTALL"],
        &rows,
    ));
    let missing: Vec<&str> = infos
        .iter()
        .filter(|i| i.enabled && i.problem.is_some())
        .map(|i| i.id.as_str())
        .collect();
    if !missing.is_empty() {
        s.push_str(&format!(
            "\nNot usable: {}. Files of their types get no diagnostics (tools still work); run `lspedit servers install {}`.\n",
            missing.join(", "),
            missing.join(" ")
        ));
    }
    match probed {
        None => s.push_str(
            "\nServers run inside the process that needs them (`lspedit mcp`, or a command that reports diagnostics) and stop with it; `--probe FILE...` starts them here and lists their processes.\n",
        ),
        Some(r) => {
            s.push_str(&format!("\nProbe:\n{}\n\n", r.llm_content.trim_end()));
            let rows: Vec<[String; 5]> = processes
                .iter()
                .map(|p| {
                    [
                        p.key.server.clone(),
                        json::state_name(&p.state).to_string(),
                        p.pgid.map_or_else(|| "-".into(), |g| g.to_string()),
                        format!(
                            "{} docs, {} crashes{}",
                            p.open_documents,
                            p.crashes,
                            p.rss_kib
                                .map_or_else(String::new, |k| format!(", {} MiB", k / 1024))
                        ),
                        match &p.last_error {
                            Some(e) => format!("{} (last error: {e})", p.key.root.display()),
                            None => p.key.root.display().to_string(),
                        },
                    ]
                })
                .collect();
            s.push_str(&table(&["SERVER", "STATE", "PGID", "LOAD", "ROOT"], &rows));
        }
    }
    out(&s);
    Ok(0)
}

fn table(header: &[&str], rows: &[[String; 5]]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let fmt_row = |cells: Vec<&str>| {
        let mut line = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i + 1 == cells.len() {
                line.push_str(c);
            } else {
                line.push_str(&format!("{c:<w$}  "));
            }
        }
        line.trim_end().to_string() + "\n"
    };
    let mut s = fmt_row(header.to_vec());
    for r in rows {
        s.push_str(&fmt_row(r.iter().map(String::as_str).collect()));
    }
    s
}

fn cmd_servers_install(ids: &[String], json: bool) -> Result<u8, Failure> {
    let progress = Progress::new();
    let result = lspedit::servers::install(ids, &mut |line| progress.line(line));
    match result {
        Ok(done) => {
            if json {
                print_json(&json::InstalledJson::list(&done))?;
            } else {
                let mut s = String::new();
                for d in &done {
                    s.push_str(&format!(
                        "{}: {} {} at {}\n",
                        d.id,
                        if d.changed {
                            "installed"
                        } else {
                            "already installed"
                        },
                        d.info.version.as_deref().unwrap_or("(version unknown)"),
                        d.info
                            .binary
                            .as_deref()
                            .map_or_else(|| "-".into(), |b| b.display().to_string())
                    ));
                }
                out(&s);
            }
            Ok(0)
        }
        Err(lspedit::servers::InstallError::UnknownServer { id }) => Err(Failure::Usage(format!(
            "no server named '{id}' is configured (see `lspedit servers status`)"
        ))),
        Err(e) => {
            if json {
                print_json(&serde_json::json!({ "ok": false, "message": e.to_string() }))?;
            } else {
                out(&format!("install failed: {e}\n"));
            }
            Ok(1)
        }
    }
}

/// `lspedit trust [--revoke]`: what was trusted (path, SHA-256, record) on stdout, and on
/// stderr the warning that the file now chooses programs to run.
#[allow(clippy::print_stderr)] // The warning is for the person at the terminal.
fn cmd_trust(root: Option<PathBuf>, revoke: bool) -> Result<u8, Failure> {
    use lspedit::lsp::trust;
    let ws = open_workspace(root)?;
    let dir = trust::user_config_dir_from_env().ok_or_else(|| {
        Failure::Usage(
            "cannot find your config directory to record the trust in: set XDG_CONFIG_HOME or HOME"
                .into(),
        )
    })?;
    if revoke {
        let shown = ws.root().join(trust::WORKSPACE_CONFIG);
        match trust::revoke(ws.root(), &dir).map_err(|e| Failure::Usage(e.to_string()))? {
            Some(record) => out(&format!(
                "No longer trusted: {} (removed {})\n",
                shown.display(),
                record.display()
            )),
            None => out(&format!("{} was not trusted\n", shown.display())),
        }
        return Ok(0);
    }
    let t = trust::trust(ws.root(), &dir).map_err(|e| Failure::Usage(e.to_string()))?;
    out(&format!(
        "Trusted {}\nsha256 {}\nrecorded in {}\n",
        t.config.display(),
        t.sha256,
        t.record.display()
    ));
    let sets = if t.program_keys.is_empty() {
        "It sets nothing of that kind now".to_string()
    } else {
        format!("It sets {}", t.program_keys.join(", "))
    };
    eprintln!(
        "warning: this file now chooses programs lspedit runs (server command, args, env, servers_dir, new servers). {sets}. Any change to it needs 'lspedit trust' again; 'lspedit trust --revoke' undoes this."
    );
    Ok(0)
}

#[allow(clippy::print_stderr)] // Configuration warnings, once, for the person who started it.
fn cmd_mcp(root: Option<PathBuf>, no_diagnostics: bool) -> Result<u8, Failure> {
    let session = Arc::new(open_session(root, !no_diagnostics, ToolsConfig::default())?);
    // stdout is the protocol: warnings go to stderr, whatever the log filter.
    for w in session.config_warnings() {
        eprintln!("lspedit: warning: {w}");
    }
    tracing::info!(root = %session.tools().workspace().root().display(), "MCP server on stdio");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start the async runtime: {e}")))?;
    let result = rt.block_on(lspedit::mcp::serve_stdio(Arc::clone(&session)));
    // Drop the runtime (and every task holding the session) before the session, whose pool
    // shuts its servers down on drop with a blocking wait.
    drop(rt);
    session.shutdown();
    match result {
        Ok(()) => Ok(0),
        Err(e) => Err(Failure::Failed(e.to_string())),
    }
}

/// Used by the demo: the session for a root with the given diagnostics timeouts.
fn demo_session(root: &Path, config: ToolsConfig) -> Result<Session, Failure> {
    open_session(Some(root.to_path_buf()), true, config)
}
