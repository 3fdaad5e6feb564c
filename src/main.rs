//! The `lspedit` command-line interface.
//!
//! Exit codes: 0 success, 1 refused or failed (any file), 2 usage or configuration error.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use lspedit::engine::{ViewOptions, hashline_view};
use lspedit::tools::{
    ApplyPatchOptions, DiagnosticsProvider, FileStatus, LspProvider, PatchReport, ToolError, Tools,
    ToolsConfig, Workspace, apply_patch, base_sha,
};
use serde::Serialize;

mod json;

#[derive(Parser)]
#[command(
    name = "lspedit",
    version,
    about = "Safe, hash-anchored file edits for coding agents"
)]
struct Cli {
    /// More log output on stderr (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
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
    /// Apply a patch (unified diff, git diff or Codex envelope) to files under the root.
    Apply {
        /// Patch file, or `-` (the default) for standard input.
        patch: Option<String>,
        /// Workspace root (default: current directory).
        #[arg(long)]
        root: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Do not ask language servers for diagnostics.
        #[arg(long)]
        no_diagnostics: bool,
        /// Plan and report without writing anything.
        #[arg(long)]
        dry_run: bool,
        /// How many lines away from its target a hunk is searched for.
        #[arg(long, default_value_t = 100)]
        search_radius: usize,
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
    match run(cli.command) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(msg)) => {
            eprintln!("lspedit: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Tool(e)) => {
            eprintln!("lspedit: {e}");
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
    Usage(String),
    Tool(ToolError),
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

#[allow(clippy::print_stdout)] // The CLI's output is its job.
fn out(text: &str) {
    print!("{text}");
}

fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::Usage(format!("cannot serialize the result: {e}")))?;
    out(&format!("{text}\n"));
    Ok(())
}

fn run(command: Command) -> Result<u8, Failure> {
    match command {
        Command::Read {
            file,
            offset,
            limit,
            root,
            json,
        } => {
            let ws = open_workspace(root)?;
            let bytes = ws.read(&file)?.ok_or_else(|| {
                ToolError::new(
                    lspedit::tools::Reason::FileNotFound,
                    Some(&file),
                    "no such file",
                )
            })?;
            let doc = lspedit::engine::Document::from_bytes(&bytes)
                .map_err(|e| ToolError::from_engine(Some(&file), e))?;
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
                    path: &file,
                    base_sha: base_sha(&bytes),
                    total_lines: texts.len(),
                    content: &view,
                })?;
            } else {
                out(&view);
            }
            Ok(0)
        }
        Command::Apply {
            patch,
            root,
            json,
            no_diagnostics,
            dry_run,
            search_radius,
        } => {
            let ws = open_workspace(root)?;
            let text = read_patch_input(patch.as_deref())?;
            if !no_diagnostics && !dry_run {
                return apply_with_diagnostics(ws, &text, json, search_radius);
            }
            let mut opts = ApplyPatchOptions {
                dry_run,
                ..ApplyPatchOptions::default()
            };
            opts.engine.search_radius = search_radius;
            let report = match apply_patch(&ws, &text, &opts) {
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
    }
}

/// `apply` through the agent tool: the same report, then the diagnostics of the files the patch
/// wrote, from the language servers configured for them. A missing or failing server only
/// means no diagnostics.
fn apply_with_diagnostics(
    ws: Workspace,
    text: &str,
    json: bool,
    search_radius: usize,
) -> Result<u8, Failure> {
    let provider = match LspProvider::open(ws.root()) {
        Ok(p) => Some(Arc::new(p) as Arc<dyn DiagnosticsProvider>),
        Err(e) => {
            tracing::warn!("language servers unavailable: {e}");
            None
        }
    };
    let mut config = ToolsConfig::default();
    config.engine.search_radius = search_radius;
    let tools = Tools::new(ws, provider, config);
    let result = tools.apply_patch(text);
    if json {
        print_json(&json::ToolJson::from(&result))?;
    } else {
        out(&format!("{}\n", result.llm_content.trim_end()));
    }
    Ok(if result.is_error { 1 } else { 0 })
}

fn read_patch_input(arg: Option<&str>) -> Result<String, Failure> {
    match arg {
        None | Some("-") => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map_err(|e| {
                Failure::Usage(format!("cannot read the patch from standard input: {e}"))
            })?;
            Ok(s)
        }
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Failure::Usage(format!("cannot read the patch file {path}: {e}"))),
    }
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
