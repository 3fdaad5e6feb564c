//! The `lspedit` command-line interface.
//!
//! Conventions:
//! - Exit codes: 0 success, 1 refused or failed (any file; `check`: any file with errors),
//!   2 usage or configuration error, 3 `check` could not check a file (`--help` lists them,
//!   and the environment variables read).
//! - Results on stdout; errors, human-readable, on stderr. A writing command's report (which
//!   files were written, which refused and why, fresh anchors, diagnostics) is a result: it is
//!   always on stdout, and each refusal is summarised on stderr too. With `--json`, stdout
//!   holds exactly one JSON document whatever happens (refusals and usage errors included),
//!   shaped as in `json.rs`: `ok`, `reason`, `llm_content`, `files[]`, then the command's own
//!   fields.
//! - `--root`, `--json` and `--color` are global: before or after the subcommand.
//! - Colour (`--color auto|always|never`; auto honours `NO_COLOR`, `CLICOLOR_FORCE` and
//!   `TERM=dumb`) changes only styles, never the text: output piped to a file is the same
//!   text as on a terminal.
//! - Progress lines and logs go to stderr (progress only when stderr is a terminal; `-v` for
//!   more logs).

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand};
use lspedit::lsp::PoolConfig;
use lspedit::lsp_edits::SymbolEditKind;
use lspedit::servers::ProgramFrom;
use lspedit::servers::install::{self, InstallError};
use lspedit::session::Session;
use lspedit::tools::front::Front;
use lspedit::tools::{DiagnosticsStatus, Feedback, ToolResult, Tools, ToolsConfig, render};
use lspedit::workflow::WorkflowConfig;
use lspedit::write::{ApplyPatchOptions, FileStatus, ToolError, Workspace, apply_patch};
use serde::Serialize;

mod demo;
mod flow;
mod host_cmds;
mod json;
mod lookup_cmds;
mod lsp_cmds;

/// What `--help` says after the options: exit codes and the environment lspedit reads.
const AFTER_HELP: &str = "\
Exit codes:
  0  success
  1  refused or failed (any file), or `check` found errors
  2  usage or configuration error (bad arguments, an invalid .lspedit/config.toml)
  3  `check` could not check a file (no server, timed out, failed)

Environment:
  LSPEDIT_SERVERS_DIR            where language servers are installed and looked up
                                 (default: $XDG_CACHE_HOME/lspedit/servers, else
                                 ~/.cache/lspedit/servers)
  LSPEDIT_NO_HOST                set and not 0: run language servers in this process,
                                 as --no-host
  LSPEDIT_LOG                    log filter for stderr, as RUST_LOG (`debug`,
                                 `lspedit_lsp=trace`); overrides -v
  LSPEDIT_MCP_MAX_MESSAGE_BYTES  largest message `lspedit mcp` reads (default 16 MiB)
  LSPEDIT_KEEP_ENV               NAME,NAME: variables `lspedit mcp` and the server host
                                 keep (they drop every variable lspedit does not use,
                                 API keys and tokens included)
  NO_COLOR, TERM=dumb            no colour under --color auto
  CLICOLOR_FORCE                 colour under --color auto, also when not a terminal
  LSPEDIT_RUNTIME_DIR            the server host's socket goes in its lspedit/ (default:
                                 /run/user/UID/lspedit, else /tmp/lspedit-UID, whatever
                                 the environment; set it for every lspedit process or none)
  XDG_CONFIG_HOME, HOME          your config directory (trusted workspaces, [policy])

With --json, stdout holds one JSON document: `ok`, `reason`, `llm_content`, `files`, then the
command's own fields (see README, \"Commands\").";

#[derive(Parser)]
#[command(
    name = "lspedit",
    version,
    about = "Safe, hash-anchored file edits for coding agents, with language-server diagnostics",
    after_help = AFTER_HELP
)]
struct Cli {
    /// More log output on stderr (repeat for more).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Workspace root (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Print exactly one JSON document on stdout (`ok`, `reason`, `llm_content`, `files`, then
    /// the command's own fields), refusals and errors included.
    #[arg(long, global = true)]
    json: bool,
    /// When to colour output: `auto` (a terminal, unless NO_COLOR is set or TERM=dumb;
    /// CLICOLOR_FORCE forces it), `always` or `never`. Only styles change, never the text.
    #[arg(
        long,
        global = true,
        value_enum,
        default_value_t = ColorWhen::Auto,
        value_name = "WHEN"
    )]
    color: ColorWhen,
    /// Run language servers in this process instead of the workspace's shared server host
    /// (also `LSPEDIT_NO_HOST=1`). The host keeps them warm between commands and shares them
    /// between `lspedit mcp` sessions; see `lspedit servers status`.
    #[arg(long, global = true)]
    no_host: bool,
    #[command(subcommand)]
    command: Command,
}

/// `--color`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ColorWhen {
    /// Colour when the stream is a terminal that supports it, unless NO_COLOR is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `--feedback`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum FeedbackArg {
    Full,
    Seed,
}

/// How long a call waits for diagnostics (over `[pool] check_timeout_ms` and
/// `first_check_timeout_ms` of the configuration). What an idle, silent server meets: past it,
/// `check`, `apply`, `edit` and `write` wait on while the server visibly works, up to its
/// `[diagnostics] verdict_cap_ms`; `mcp` keeps the deadline, cold or warm (a later verdict
/// comes with the next call).
#[derive(clap::Args, Clone, Copy)]
struct DeadlineOpts {
    /// Wait this long for diagnostics after a write when the file's server has answered a
    /// check before (default: `[pool] check_timeout_ms`, 3000).
    #[arg(long, value_name = "MS")]
    check_timeout_ms: Option<u64>,
    /// Wait this long when the server must start or finish indexing first (default: `[pool]
    /// first_check_timeout_ms`, 10000).
    #[arg(long, value_name = "MS")]
    first_check_timeout_ms: Option<u64>,
}

impl DeadlineOpts {
    /// `config` with these deadlines, where given.
    fn apply(self, mut config: ToolsConfig) -> ToolsConfig {
        if let Some(ms) = self.check_timeout_ms {
            config.diagnostics.timeout = Some(Duration::from_millis(ms));
        }
        if let Some(ms) = self.first_check_timeout_ms {
            config.diagnostics.start_timeout = Some(Duration::from_millis(ms));
        }
        config
    }
}

/// The operator's policy for the propose → apply workflow over MCP (`docs/policy.md`), over
/// `[policy]` of the configuration. A model's `apply_edit` arguments may only tighten it.
#[derive(clap::Args, Clone)]
struct PolicyOpts {
    /// At most N files changed by one apply_edit (default: `[policy] max_files`, else 3). A
    /// model may ask for fewer, never more.
    #[arg(long, value_name = "N")]
    max_files: Option<usize>,
    /// At most N added plus removed lines in one apply_edit (default: `[policy]
    /// max_changed_lines`, else 100).
    #[arg(long, value_name = "N")]
    max_changed_lines: Option<usize>,
    /// The operations apply_edit refuses, comma-separated: create, delete, rename, per-file
    /// (a model asking `all_or_nothing: false`), or `none` (default: `[policy] forbid`, else
    /// create,delete,rename).
    #[arg(long, value_name = "LIST", value_parser = parse_forbid)]
    forbid: Option<Forbidden>,
    /// Who approves an apply_edit: `auto` (the call itself), `elicit` (the person, asked
    /// through the client's MCP elicitation; refused as approval_required when the client
    /// cannot ask) or `deny` (nobody: apply with `lspedit apply-id`). Default: `[policy]
    /// approve`, else elicit when the client supports elicitation and auto when it does not.
    #[arg(long, value_name = "MODE", value_parser = parse_approve)]
    approve: Option<lspedit::workflow::Approve>,
}

/// `--forbid`'s operations (one value: clap would read a `Vec` as repeated values).
#[derive(Clone)]
struct Forbidden(Vec<lspedit::workflow::Operation>);

fn parse_forbid(s: &str) -> Result<Forbidden, String> {
    lspedit::workflow::Operation::parse_list(s).map(Forbidden)
}

fn parse_approve(s: &str) -> Result<lspedit::workflow::Approve, String> {
    lspedit::workflow::Approve::parse(s)
}

impl PolicyOpts {
    /// `policy` with these flags applied (the operator's flags set, never merely tighten).
    fn apply(&self, mut policy: lspedit::workflow::Policy) -> lspedit::workflow::Policy {
        if let Some(n) = self.max_files {
            policy.set_max_files(n);
        }
        if let Some(n) = self.max_changed_lines {
            policy.set_max_changed_lines(n);
        }
        if let Some(Forbidden(ops)) = &self.forbid {
            policy.set_forbidden(ops);
        }
        if let Some(a) = self.approve {
            policy.set_approve(a);
        }
        policy
    }
}

/// The operator's policy from the configuration `pool` (the person's config, a trusted
/// workspace config; an untrusted one only tightens), with its warnings. A `[policy]` table of
/// a trusted file that does not parse is a usage error: the operator meant something.
fn policy_from(
    pool: Option<&PoolConfig>,
) -> Result<(lspedit::workflow::Policy, Vec<String>), Failure> {
    match pool {
        Some(cfg) => lspedit::workflow::Policy::from_config(cfg)
            .map_err(|e| Failure::Usage(format!("the workflow policy: {e}"))),
        None => Ok((
            lspedit::workflow::Policy::default(),
            vec!["the configuration could not be read, so the workflow runs under the default policy (3 files, 100 changed lines, no create, delete or rename)".to_string()],
        )),
    }
}

/// Options every writing command shares.
#[derive(clap::Args)]
struct WriteOpts {
    /// Do not ask language servers for diagnostics.
    #[arg(long)]
    no_diagnostics: bool,
    #[command(flatten)]
    deadlines: DeadlineOpts,
    /// Also print the change as a unified diff before the report (coloured per --color).
    #[arg(long)]
    diff: bool,
}

impl WriteOpts {
    /// The tools' configuration for one writing command: its deadlines, and the display diff
    /// rendered only when `--diff` prints it.
    fn tools_config(&self) -> ToolsConfig {
        let mut config = self.deadlines.apply(ToolsConfig::default());
        config.display_diff = self.diff;
        config
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print a file as hashline view: `42abcd|content`, one line per file line.
    Read {
        /// The file to show, relative to the root.
        file: String,
        /// First line to show (1-based).
        #[arg(long, default_value_t = 1)]
        offset: usize,
        /// Number of lines to show.
        #[arg(long)]
        limit: Option<usize>,
    },
    /// Replace text in a file (exact, then safe fallbacks), then report its diagnostics.
    Edit {
        /// The file to edit, relative to the root.
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
        /// The file to create or overwrite, relative to the root.
        file: String,
        /// Where the new content comes from: a file, or `-` (the default) for standard input.
        content: Option<String>,
        /// Write the file even when standard input is empty (an empty standard input is
        /// otherwise refused: a closed or forgotten pipe must not empty a file).
        #[arg(long)]
        allow_empty: bool,
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
        /// The files to check, relative to the root.
        #[arg(required = true)]
        files: Vec<String>,
        #[command(flatten)]
        deadlines: DeadlineOpts,
    },
    /// Propose a change without making it: from a patch (file or `-`), or a regex over files.
    /// Prints the patch id and the diff; the proposal is stored under `.lspedit/patches/`.
    Propose {
        #[command(flatten)]
        input: flow::ProposeInput,
    },
    /// Apply a proposed change by its patch id (from `propose`, possibly in another process),
    /// after re-checking that no file changed since. Prints a checkpoint id for `undo`.
    ApplyId {
        /// The id `propose` printed (`patch_<unix_ms>_<32 hex>`, docs/ids.md).
        patch_id: String,
        #[command(flatten)]
        plan: flow::PlanInput,
        /// Do not ask language servers for diagnostics.
        #[arg(long)]
        no_diagnostics: bool,
    },
    /// Rename a symbol across the workspace with its language server: the server's edit is
    /// applied like a patch (confined, all files or none, report, diagnostics afterwards).
    Rename {
        #[command(flatten)]
        input: lsp_cmds::RenameInput,
    },
    /// The language server's code actions (quick fixes) for a line; with --index or --title,
    /// apply one.
    Fix {
        #[command(flatten)]
        input: lsp_cmds::FixInput,
    },
    /// The references to a symbol (or, with --definition, its definition), as hashline
    /// excerpts grouped by file.
    Refs {
        #[command(flatten)]
        input: lsp_cmds::RefsInput,
    },
    /// A file's declarations as a tree (kind, name path, anchor, line range), or the top-level
    /// ones of each file of a directory; --all adds imports, locals and object-literal keys.
    Outline {
        #[command(flatten)]
        input: lsp_cmds::OutlineInput,
    },
    /// Find symbols by name or name path (`Cart/total`), as anchored locations; with --body,
    /// their text.
    FindSymbol {
        #[command(flatten)]
        input: lsp_cmds::FindSymbolInput,
    },
    /// Replace a symbol's whole declaration (as `outline` shows its lines) with BODY, found by
    /// its name path; indentation and line endings fitted, applied like a patch, then its
    /// diagnostics.
    ReplaceSymbol {
        #[command(flatten)]
        input: lsp_cmds::SymbolEditInput,
    },
    /// Insert BODY above a symbol (and its doc comments and attributes), found by its name path.
    InsertBefore {
        #[command(flatten)]
        input: lsp_cmds::SymbolEditInput,
    },
    /// Insert BODY below a symbol, found by its name path.
    InsertAfter {
        #[command(flatten)]
        input: lsp_cmds::SymbolEditInput,
    },
    /// The language server's type and signature of a symbol (LINE and SYMBOL, or
    /// --name-path), as it writes them.
    Hover {
        #[command(flatten)]
        input: lookup_cmds::LookupInput,
    },
    /// The callers of a function (or, with --direction outgoing, what it calls), each with its
    /// call sites as hashline lines.
    Calls {
        #[command(flatten)]
        input: lookup_cmds::CallsInput,
    },
    /// Where an interface, trait or abstract method is implemented, as hashline excerpts.
    Implementations {
        #[command(flatten)]
        input: lookup_cmds::LookupInput,
    },
    /// Where the type of a symbol is declared, as hashline excerpts.
    TypeDefinition {
        #[command(flatten)]
        input: lookup_cmds::LookupInput,
    },
    /// Undo an `apply-id` by its checkpoint id (refused when a file changed since).
    Undo {
        /// The checkpoint id `apply-id` printed.
        checkpoint_id: String,
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
        /// Remove the trust instead.
        #[arg(long)]
        revoke: bool,
    },
    /// Serve the tools over MCP on stdin/stdout (for agents).
    Mcp {
        /// Append no diagnostics to the writing tools' results and check nothing after a
        /// write; the language-server tools (outline, references, rename, ...) still run.
        #[arg(long)]
        no_diagnostics: bool,
        /// How much the writing tools' text says about diagnostics: `full` (the written files'
        /// errors, other files the change broke, a line for every missing verdict, late
        /// answers) or `seed` (the written files' errors only; nothing when a check failed).
        #[arg(long, value_enum, default_value = "full")]
        feedback: FeedbackArg,
        /// The tools to list: `core` (read_file, edit, write_file, apply_patch, diagnostics),
        /// `lsp` (core and the language-server tools), `workflow` (core and propose_edit,
        /// apply_edit, undo) or `all`; several, comma-separated, list their union
        /// (docs/mcp.md).
        #[arg(long, value_delimiter = ',', value_parser = str::parse::<lspedit::mcp::ToolSet>, default_value = "all")]
        tools: Vec<lspedit::mcp::ToolSet>,
        /// The tools' input schemas: `default` (portable: Gemini's function parameters accept
        /// it) or `strict` (OpenAI strict function calling and Anthropic strict tool use:
        /// closed objects, every argument required, an optional one nullable, no bounds).
        #[arg(long, value_parser = str::parse::<lspedit::mcp::SchemaProfile>, default_value = "default")]
        schema_profile: lspedit::mcp::SchemaProfile,
        #[command(flatten)]
        deadlines: DeadlineOpts,
        #[command(flatten)]
        policy: PolicyOpts,
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

#[derive(Subcommand)]
enum ServersCommand {
    /// Configured servers: binary found and where, version, pinned version, install recipe.
    Status {
        /// Start the servers for these files (checking them) and show the running processes
        /// per root: state, process group, memory, open documents, crashes, last error.
        #[arg(long, num_args = 1..)]
        probe: Vec<String>,
    },
    /// Install the pinned versions of the servers named (default: every enabled server with an
    /// install recipe) into the user cache. Idempotent.
    Install {
        /// Server ids (see `servers status`); default: every enabled server with a recipe.
        ids: Vec<String>,
    },
    /// Stop the workspace's server host and every server it runs (the next command that needs
    /// one starts it again).
    Stop,
    /// Run the server host of the workspace (`--root`; started by lspedit itself on first
    /// use).
    #[command(hide = true)]
    Host {
        /// Stop a server no client used for this long, and exit once idle for this long.
        #[arg(long, default_value_t = 600)]
        idle_secs: u64,
        /// Where its socket goes (default: `$LSPEDIT_RUNTIME_DIR/lspedit`, else `/run/user/UID/lspedit`,
        /// else `/tmp/lspedit-UID`).
        #[arg(long, value_name = "DIR")]
        runtime_dir: Option<PathBuf>,
    },
}

/// `--color` as given on the command line, for clap's own help and errors (which it prints
/// before the options are parsed).
fn color_arg() -> Option<clap::ColorChoice> {
    let args: Vec<String> = std::env::args().collect();
    let value = args.iter().enumerate().find_map(|(i, a)| {
        a.strip_prefix("--color=")
            .map(str::to_string)
            .or_else(|| (a == "--color").then(|| args.get(i + 1).cloned()).flatten())
    })?;
    match value.as_str() {
        "always" => Some(clap::ColorChoice::Always),
        "never" => Some(clap::ColorChoice::Never),
        _ => None,
    }
}

fn main() -> ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    let mut command = Cli::command();
    if let Some(color) = color_arg() {
        command = command.color(color);
    }
    let parsed = command
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            if !e.use_stderr() {
                // --help, --version: under --json, the one JSON document too, the text as its
                // `llm_content` (what the command prints without --json).
                if std::env::args_os().any(|a| a == "--json") {
                    let _ = print_json(&json::Doc::ok(
                        e.render().to_string(),
                        Vec::new(),
                        json::NoData {},
                    ));
                } else {
                    let _ = e.print();
                }
                return ExitCode::SUCCESS;
            }
            // Under --json, even a usage error is the one JSON document on stdout.
            if std::env::args_os().any(|a| a == "--json") {
                let doc = json::Doc::error(
                    json::CliReason::UsageError,
                    None,
                    e.render().to_string().trim_end().to_string(),
                );
                let _ = print_json(&doc);
            }
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    // The long-lived processes a sandboxed server could look at (`docs/sandbox.md`, "lspedit's
    // own processes"): only the environment lspedit uses, and not dumpable. Before any thread.
    let long_lived = matches!(
        cli.command,
        Command::Mcp { .. }
            | Command::Servers {
                command: ServersCommand::Host { .. }
            }
    );
    let shed = if long_lived {
        lspedit::process::own::keep_needed_environment()
    } else {
        Ok(())
    };
    COLOR.get_or_init(|| match cli.color {
        ColorWhen::Auto => (
            anstream::AutoStream::choice(&std::io::stdout()),
            anstream::AutoStream::choice(&std::io::stderr()),
        ),
        ColorWhen::Always => (anstream::ColorChoice::Always, anstream::ColorChoice::Always),
        ColorWhen::Never => (anstream::ColorChoice::Never, anstream::ColorChoice::Never),
    });
    init_logging(cli.verbose);
    if let Err(e) = shed {
        tracing::warn!(
            "could not re-execute with only the environment lspedit uses ({e}); variables it does not use stay readable in /proc"
        );
    }
    if long_lived && let Err(e) = lspedit::process::own::make_undumpable() {
        tracing::warn!("could not make this process non-dumpable: {e}");
    }
    // Every command but `mcp` speaks to a shell: hints name `lspedit` commands, not tools.
    if !matches!(cli.command, Command::Mcp { .. }) {
        Front::set(Front::Cli);
    }
    host_cmds::set_enabled(
        !cli.no_host
            && std::env::var_os("LSPEDIT_NO_HOST").is_none_or(|v| v.is_empty() || v == "0"),
    );
    let ctx = Ctx {
        root: cli.root,
        json: cli.json,
    };
    let json = ctx.json;
    let (code, reason, path, msg) = match run(cli.command, ctx) {
        Ok(code) => return ExitCode::from(code),
        Err(Failure::Usage(msg)) => (
            2,
            json::DocReason::Cli(json::CliReason::UsageError),
            None,
            msg,
        ),
        // A refusal before any tool ran (the input is not UTF-8, ...): its reason code.
        Err(Failure::Tool(e)) => (
            1,
            json::DocReason::Tool(e.reason),
            e.path.clone(),
            e.to_string(),
        ),
        Err(Failure::Failed(msg)) => (1, json::DocReason::Cli(json::CliReason::Failed), None, msg),
    };
    if json {
        let _ = print_json(&json::Doc::error(reason, path, msg.clone()));
    }
    err_line(&msg);
    ExitCode::from(code)
}

/// The colour choices for stdout and stderr, decided once from `--color` and the environment.
static COLOR: std::sync::OnceLock<(anstream::ColorChoice, anstream::ColorChoice)> =
    std::sync::OnceLock::new();

fn color_choice(stderr: bool) -> anstream::ColorChoice {
    COLOR.get().map_or(
        anstream::ColorChoice::Never,
        |c| {
            if stderr { c.1 } else { c.0 }
        },
    )
}

/// What every command gets from the global options.
struct Ctx {
    root: Option<PathBuf>,
    json: bool,
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
        .with_ansi(color_choice(true) != anstream::ColorChoice::Never)
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
    mut config: ToolsConfig,
) -> Result<Session, Failure> {
    // A one-shot command has no later result to carry other files' late answers: it waits for
    // them (up to the deadline).
    config.diagnostics.other_files_wait = lspedit_lsp::OthersWait::UntilDeadline;
    let ws = open_workspace(root)?;
    let pool = if diagnostics {
        let pool = PoolConfig::load(ws.root())
            .map_err(|e| Failure::Usage(format!("language-server configuration: {e}")))?;
        Some(host_cmds::with_host(waits_for_verdicts(pool, ws.root())))
    } else {
        None
    };
    // The CLI's commands are the person's own: nothing is asked and no limit is added here.
    // `apply-id` holds its plan to the operator's [policy] itself (`flow::PlanInput::plan`).
    Ok(Session::new(ws, pool, config).with_workflow_config(WorkflowConfig::unrestricted()))
}

/// A one-shot command's pool: it has no later result to give a late verdict in, so every check
/// waits while its server visibly works, up to the server's `verdict_cap_ms`
/// (`VerdictWait::Cap`), saying on stderr what it waits for, at most every few seconds.
fn waits_for_verdicts(mut pool: PoolConfig, root: &Path) -> PoolConfig {
    let root = root.to_path_buf();
    pool.verdict_wait = lspedit::lsp::VerdictWait::Cap;
    pool.verdict_progress = Some(lspedit::lsp::VerdictProgress(Arc::new(
        move |w: &lspedit::lsp::VerdictWaiting| {
            let file = w.path.strip_prefix(&root).unwrap_or(&w.path);
            let doing = w
                .doing
                .as_deref()
                .map(|d| format!("{d}, "))
                .unwrap_or_default();
            verdict_wait_line(&format!(
                "lspedit: waiting for {}'s verdict on {} ({doing}{} s)…",
                w.server,
                file.display(),
                w.waited.as_secs()
            ));
        },
    )));
    pool
}

/// A line on stderr, over the terminal's status line if there is one.
#[allow(clippy::print_stderr)] // Progress for the person: the command waits on purpose.
fn verdict_wait_line(text: &str) {
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
    eprintln!("{text}");
}

/// A result on stdout: the same text whatever the colour, each line styled by its kind
/// ([`styled`]) when stdout is coloured.
fn out(text: &str) {
    out_raw(&styled(text, color_choice(false)));
}

/// Text on stdout, byte for byte (JSON, the host's handshake).
#[allow(clippy::print_stdout)] // The CLI's output is its job.
fn out_raw(text: &str) {
    print!("{text}");
    let _ = std::io::stdout().flush();
}

/// A refusal or an error for the person, on stderr, styled by line kind as [`out`].
#[allow(clippy::print_stderr)] // Refusals and errors are for the person at the terminal.
fn err_text(text: &str) {
    eprint!("{}", styled(text, color_choice(true)));
    let _ = std::io::stderr().flush();
}

/// The style of a result line, by the word it starts with: refusals and errors red, warnings
/// yellow, what was written green; `None` for every other line (hashline views, diffs, which
/// are styled where they are made, or plain prose). Returns the length of the styled prefix.
fn line_style(line: &str) -> Option<(usize, anstyle::Style)> {
    use anstyle::AnsiColor::{Green, Red, Yellow};
    const KINDS: &[(&str, anstyle::AnsiColor, bool)] = &[
        ("Error:", Red, true),
        ("FAILED", Red, true),
        ("ERROR", Red, false),
        ("LSP errors detected", Yellow, true),
        ("Warning:", Yellow, false),
        ("warning:", Yellow, false),
        ("WARNING", Yellow, false),
        ("Created", Green, false),
        ("Overwrote", Green, false),
        ("Edited", Green, false),
        ("Applied", Green, false),
        ("Proposed", Green, false),
    ];
    KINDS.iter().find_map(|(word, color, bold)| {
        let style = color.on_default();
        line.starts_with(word)
            .then_some((word.len(), if *bold { style.bold() } else { style }))
    })
}

/// `text` with each line's leading word styled by its kind ([`line_style`]) when `choice`
/// colours, else `text` unchanged: the characters are the same either way.
fn styled(text: &str, choice: anstream::ColorChoice) -> String {
    if choice == anstream::ColorChoice::Never {
        return text.to_string();
    }
    let mut s = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match line_style(line) {
            Some((n, style)) => {
                s.push_str(&paint(&line[..n], style, choice));
                s.push_str(&line[n..]);
            }
            None => s.push_str(line),
        }
    }
    s
}

/// `lspedit: <message>` on stderr, the prefix in bold red when colour is on.
fn err_line(msg: &str) {
    let style = anstyle::AnsiColor::Red.on_default().bold();
    err_text(&format!(
        "{} {msg}\n",
        paint("lspedit:", style, color_choice(true))
    ));
}

fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Failure::Usage(format!("cannot serialize the result: {e}")))?;
    out_raw(&format!("{text}\n"));
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

fn run(command: Command, ctx: Ctx) -> Result<u8, Failure> {
    let Ctx { root, json } = ctx;
    match command {
        Command::Read {
            file,
            offset,
            limit,
        } => cmd_read(&file, offset, limit, root, json),
        Command::Edit {
            file,
            old,
            new,
            all,
            opts,
        } => {
            let session = open_session(root, !opts.no_diagnostics, opts.tools_config())?;
            let r = with_progress(!opts.no_diagnostics, || {
                session.tools().edit(&file, &old, &new, all)
            });
            finish_tool(&session, &r, Some(&file), json, opts.diff)
        }
        Command::Write {
            file,
            content,
            allow_empty,
            opts,
        } => {
            let text = read_input(content.as_deref(), "content")?;
            let from_stdin = matches!(content.as_deref(), None | Some("-"));
            if from_stdin && text.is_empty() && !allow_empty {
                return Err(Failure::Usage(format!(
                    "standard input is empty: nothing was written to {file}; pass --allow-empty to make it an empty file"
                )));
            }
            let session = open_session(root, !opts.no_diagnostics, opts.tools_config())?;
            let r = with_progress(!opts.no_diagnostics, || {
                session.tools().write_file(&file, &text)
            });
            finish_tool(&session, &r, Some(&file), json, opts.diff)
        }
        Command::Apply {
            patch,
            opts,
            dry_run,
            search_radius,
        } => {
            let text = read_input(patch.as_deref(), "patch")?;
            if dry_run {
                return apply_dry_run(root, &text, json, search_radius);
            }
            let mut config = opts.tools_config();
            config.engine.search_radius = search_radius;
            let session = open_session(root, !opts.no_diagnostics, config)?;
            let r = with_progress(!opts.no_diagnostics, || session.tools().apply_patch(&text));
            finish_tool(&session, &r, None, json, opts.diff)
        }
        Command::Check { files, deadlines } => {
            let began = std::time::Instant::now();
            let session = open_session(root, true, deadlines.apply(ToolsConfig::default()))?;
            // One pass under one deadline for all files (the `diagnostics` tool's): each file's
            // status, and the text of those that were checked.
            let progress = Progress::new();
            progress.status("waiting for language-server diagnostics…");
            let checked = session.diagnostics_checked(&files);
            let (result, report) = (checked.result, checked.outcome);
            progress.done();
            if let Some(e) = report.refused.into_iter().next() {
                session.shutdown();
                return Err(e.into());
            }
            let statuses = result.diagnostics;
            let unchecked: Vec<lspedit::tools::FileDiagnosticsStatus> = statuses
                .iter()
                .filter(|s| s.status != lspedit::tools::DiagnosticsStatus::Checked)
                .cloned()
                .collect();
            let mut text: String = report
                .files
                .iter()
                .filter(|f| f.status == Some(lspedit::tools::DiagnosticsStatus::Checked))
                .map(|f| f.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n");
            if !session.config_warnings().is_empty() {
                text.push('\n');
                for w in session.config_warnings() {
                    text.push_str(&format!("\nWarning: {w}"));
                }
            }
            let has_errors = text.contains("<diagnostics file=");
            // Each file not checked in the session's words (the `diagnostics` tool's: what to
            // install, when to ask again), then for a person the provider's own reason, which a
            // model never reads.
            for f in report
                .files
                .iter()
                .filter(|f| f.status != Some(lspedit::tools::DiagnosticsStatus::Checked))
            {
                let detail = unchecked
                    .iter()
                    .find(|s| s.path == f.path && s.status != DiagnosticsStatus::NoServer)
                    .and_then(|s| s.detail.as_deref());
                let line = format!(
                    "{}{}",
                    f.text,
                    detail.map(|d| format!(" ({d})")).unwrap_or_default()
                );
                text = if text.trim().is_empty() {
                    format!("{line}{text}")
                } else {
                    format!("{}\n\n{line}", text.trim_end())
                };
            }
            let r = ToolResult {
                diagnostics: statuses,
                ..ToolResult::text(
                    session.with_late_feedback_for_call(&text, began),
                    String::new(),
                    false,
                )
            };
            // Explicitly, not on drop: a diagnostics thread abandoned at its deadline may still
            // hold the pool, and the process would exit before its drop killed the servers.
            session.shutdown();
            // 1: a refusal or errors found; 3: a file could not be checked (takes precedence
            // over errors found: the answer is incomplete).
            let code = if r.is_error {
                1
            } else if !unchecked.is_empty() {
                3
            } else if has_errors {
                1
            } else {
                0
            };
            if json {
                let mut doc = json::Doc::tool(&r, None);
                // The files looked at, checked or not, with the session's words for each.
                doc.files = report
                    .files
                    .iter()
                    .map(|f| {
                        let checked = f.status == Some(DiagnosticsStatus::Checked);
                        json::FileJson::plain(
                            &f.path,
                            if checked { "checked" } else { "not_checked" },
                            f.text.lines().next().unwrap_or_default().to_string(),
                        )
                    })
                    .collect();
                // `ok` is the exit code's verdict, as for every command.
                doc.ok = code == 0;
                // Not a tool refusal: the check's own verdicts.
                if !r.is_error && code != 0 {
                    let reason = if code == 3 {
                        json::CliReason::NotChecked
                    } else {
                        json::CliReason::LspErrors
                    };
                    doc.reason = Some(reason.into());
                }
                print_json(&doc)?;
            } else if r.is_error {
                err_text(&format!("{}\n", r.llm_content.trim_end()));
            } else {
                out(&format!("{}\n", r.llm_content.trim_end()));
            }
            Ok(code)
        }
        Command::Propose { input } => flow::cmd_propose(input, root, json),
        Command::ApplyId {
            patch_id,
            plan,
            no_diagnostics,
        } => flow::cmd_apply_id(&patch_id, plan, root, !no_diagnostics, json),
        Command::Undo { checkpoint_id } => flow::cmd_undo(&checkpoint_id, root, json),
        Command::Rename { input } => lsp_cmds::cmd_rename(input, root, json),
        Command::Fix { input } => lsp_cmds::cmd_fix(input, root, json),
        Command::Refs { input } => lsp_cmds::cmd_refs(input, root, json),
        Command::Outline { input } => lsp_cmds::cmd_outline(input, root, json),
        Command::FindSymbol { input } => lsp_cmds::cmd_find_symbol(input, root, json),
        Command::ReplaceSymbol { input } => {
            lsp_cmds::cmd_symbol_edit(SymbolEditKind::Replace, input, root, json)
        }
        Command::InsertBefore { input } => {
            lsp_cmds::cmd_symbol_edit(SymbolEditKind::InsertBefore, input, root, json)
        }
        Command::InsertAfter { input } => {
            lsp_cmds::cmd_symbol_edit(SymbolEditKind::InsertAfter, input, root, json)
        }
        Command::Hover { input } => lookup_cmds::cmd_hover(input, root, json),
        Command::Calls { input } => lookup_cmds::cmd_calls(input, root, json),
        Command::Implementations { input } => lookup_cmds::cmd_locations(
            input,
            lookup_cmds::LocationsKind::Implementations,
            root,
            json,
        ),
        Command::TypeDefinition { input } => lookup_cmds::cmd_locations(
            input,
            lookup_cmds::LocationsKind::TypeDefinition,
            root,
            json,
        ),
        Command::Servers { command } => match command {
            ServersCommand::Status { probe } => cmd_servers_status(root, json, &probe),
            ServersCommand::Install { ids } => cmd_servers_install(&ids, json),
            ServersCommand::Stop => host_cmds::cmd_stop(root, json),
            ServersCommand::Host {
                idle_secs,
                runtime_dir,
            } => host_cmds::cmd_host(root, idle_secs, runtime_dir),
        },
        Command::Trust { revoke } => cmd_trust(root, revoke, json),
        Command::Mcp {
            no_diagnostics,
            feedback,
            tools,
            schema_profile,
            deadlines,
            policy,
        } => {
            if json {
                return Err(Failure::Usage(
                    "`mcp` speaks MCP on stdout; --json does not apply".into(),
                ));
            }
            let mut config = deadlines.apply(ToolsConfig::default());
            config.diagnostics.feedback = match feedback {
                FeedbackArg::Full => Feedback::Full,
                FeedbackArg::Seed => Feedback::Seed,
            };
            let listed = McpListing {
                tools,
                profile: schema_profile,
            };
            let root = match root {
                Some(r) => r,
                None => implied_mcp_root()?,
            };
            cmd_mcp(Some(root), no_diagnostics, config, &policy, &listed)
        }
        Command::Demo { keep } => {
            if json || root.is_some() {
                return Err(Failure::Usage(
                    "`demo` runs in a temp directory of its own and prints text; --root and --json do not apply".into(),
                ));
            }
            demo::run(keep)
        }
    }
}

fn cmd_read(
    file: &str,
    offset: usize,
    limit: Option<usize>,
    root: Option<PathBuf>,
    json: bool,
) -> Result<u8, Failure> {
    // The agent's `read_file` without servers: the same view in the same words, the whole
    // file unless `--limit` says otherwise.
    let config = ToolsConfig {
        default_read_limit: usize::MAX,
        ..ToolsConfig::default()
    };
    let tools = Tools::new(open_workspace(root)?, None, config);
    let (read, view) = tools.try_read_file(file, Some(offset), limit)?;
    let text = render::read_text(view.clone(), &read);
    if json {
        print_json(&json::Doc::ok(
            text.clone(),
            vec![json::FileJson {
                base_sha: Some(read.base_sha.clone()),
                ..json::FileJson::plain(
                    &read.path,
                    "read",
                    format!(
                        "{} ({})",
                        read.path,
                        render::plural(read.total_lines, "line", "lines")
                    ),
                )
            }],
            json::ReadData {
                path: &read.path,
                base_sha: read.base_sha.clone(),
                total_lines: read.total_lines,
                content: &view,
            },
        ))?;
    } else {
        out(&text);
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

/// The end of a writing command: the servers stopped explicitly, not on drop (a diagnostics
/// thread abandoned at its deadline may still hold the pool, and the process would exit before
/// its drop killed the servers), then the result printed.
fn finish_tool(
    session: &Session,
    r: &ToolResult,
    about: Option<&str>,
    json: bool,
    diff: bool,
) -> Result<u8, Failure> {
    session.shutdown();
    print_tool(r, about, json, diff)
}

/// A tool result: as JSON, or for a person what the model would read (report, fresh anchors,
/// diagnostics), after the unified diff with `--diff`, on stdout whatever happened; refusals
/// summarised on stderr too. Exit 1 on refusal.
/// `about` is the one file the call is about (`edit`, `write`), listed when refused.
fn print_tool(r: &ToolResult, about: Option<&str>, json: bool, diff: bool) -> Result<u8, Failure> {
    if json {
        print_json(&json::Doc::tool(r, about))?;
    } else {
        let mut text = String::new();
        if diff {
            text.push_str(&coloured_diff(&r.display, color_choice(r.is_error)));
        }
        text.push_str(r.llm_content.trim_end());
        text.push('\n');
        out(&text);
        if r.is_error {
            err_summary(&r.files, r.reason, &r.llm_content);
        }
    }
    Ok(if r.is_error { 1 } else { 0 })
}

/// What was refused, for the person, on stderr: one line per refused file (or the call's own
/// refusal), and how many files were written anyway. The whole report is on stdout.
fn err_summary(
    files: &[lspedit::write::FileReport],
    reason: Option<lspedit::write::Reason>,
    text: &str,
) {
    let first_line = |s: &str| s.lines().next().unwrap_or("").to_string();
    let refused: Vec<String> = files
        .iter()
        .filter_map(|f| match &f.status {
            FileStatus::Failed(e) => Some(format!(
                "{}: {}: {}",
                f.path,
                e.reason,
                first_line(&e.message)
            )),
            FileStatus::Applied(_) => None,
        })
        .collect();
    if refused.is_empty() {
        let reason = reason.map_or("refused", |r| r.as_str());
        // The report's text already names the reason (`Error: anchored_addition: …`): said
        // once here, not `anchored_addition: anchored_addition: …`.
        let text = text.trim_start_matches("Error: ");
        let text = first_line(
            text.strip_prefix(reason)
                .and_then(|t| t.strip_prefix(": "))
                .unwrap_or(text),
        );
        err_line(&format!("{reason}: {text}"));
        return;
    }
    for line in &refused {
        err_line(line);
    }
    let written = files.len() - refused.len();
    if written > 0 {
        err_line(&format!(
            "{} of {} files refused; the other {written} were written (the report is on standard output)",
            refused.len(),
            files.len()
        ));
    }
}

/// `text` in `style` when `choice` colours, else `text` unchanged.
fn paint(text: &str, style: anstyle::Style, choice: anstream::ColorChoice) -> String {
    if choice == anstream::ColorChoice::Never {
        text.to_string()
    } else {
        format!("{style}{text}{style:#}")
    }
}

/// The unified diff part of a tool's `display`, followed by a blank line; coloured per
/// `choice`, the same text either way.
fn coloured_diff(display: &str, choice: anstream::ColorChoice) -> String {
    use anstyle::{AnsiColor, Style};
    let mut s = String::new();
    let mut in_diff = false;
    for line in display.lines() {
        if line.starts_with("--- ") {
            in_diff = true;
        }
        if !in_diff {
            continue;
        }
        let style = if line.starts_with("+++ ") || line.starts_with("--- ") {
            Style::new().bold()
        } else if line.starts_with('+') {
            AnsiColor::Green.on_default()
        } else if line.starts_with('-') {
            AnsiColor::Red.on_default()
        } else if line.starts_with("@@") {
            AnsiColor::Cyan.on_default()
        } else {
            Style::new()
        };
        s.push_str(&paint(line, style, choice));
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
            let text = format!("FAILED: {}: {}\n", e.reason, e.message);
            if json {
                print_json(&json::Doc::error(
                    e.reason,
                    e.path.clone(),
                    text.trim_end().to_string(),
                ))?;
            } else {
                err_text(&text);
            }
            return Ok(1);
        }
    };
    let text = render::patch_text(&report);
    let ok = report.all_applied();
    if json {
        let reason = report.files.iter().find_map(|f| match &f.status {
            FileStatus::Failed(e) => Some(json::DocReason::Tool(e.reason)),
            FileStatus::Applied(_) => None,
        });
        print_json(&json::Doc {
            ok,
            reason,
            llm_content: text,
            files: json::files_json(&report.files),
            data: json::DryRunData {
                content_write_files: report.classification.content_write_files.clone(),
            },
        })?;
    } else {
        out(&format!("{text}\n"));
        if !ok {
            err_summary(&report.files, None, &text);
        }
    }
    Ok(if ok { 0 } else { 1 })
}

/// The text of a patch or content argument: a file, or `-` / nothing for standard input. Text
/// that is not UTF-8 is bad input (exit 1, `invalid_diff_format` / `not_utf8`), not a usage
/// error.
fn read_input(arg: Option<&str>, what: &str) -> Result<String, Failure> {
    // Bounded: `lspedit apply /dev/zero` must be a refusal, not 4 GB of memory.
    let limit = lspedit::write::PatchLimits::default().max_bytes;
    let mut bytes = Vec::new();
    let (read, source) = match arg {
        None | Some("-") => (
            std::io::stdin()
                .take(limit as u64 + 1)
                .read_to_end(&mut bytes),
            "standard input".to_string(),
        ),
        Some(path) => (
            std::fs::File::open(path)
                .and_then(|f| f.take(limit as u64 + 1).read_to_end(&mut bytes)),
            path.to_string(),
        ),
    };
    read.map_err(|e| Failure::Usage(format!("cannot read the {what} from {source}: {e}")))?;
    if bytes.len() > limit {
        return Err(Failure::Tool(ToolError::new(
            lspedit::write::Reason::TooLarge,
            None,
            format!(
                "the {what} from {source} is larger than the limit of {limit} bytes; nothing was applied"
            ),
        )));
    }
    String::from_utf8(bytes).map_err(|e| {
        let reason = if what == "patch" {
            lspedit::write::Reason::InvalidDiffFormat
        } else {
            lspedit::write::Reason::NotUtf8
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

fn cmd_servers_status(root: Option<PathBuf>, json: bool, probe: &[String]) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let ws_root = ws.root().to_path_buf();
    let config = PoolConfig::load(ws.root())
        .map_err(|e| Failure::Usage(format!("language-server configuration: {e}")))?;
    let infos = install::inspect(&config);
    let dir = config.servers_dir.clone();
    let mode = config.mode();
    let warnings = config.warnings.clone();
    // Servers live inside the process that uses them: to show processes, start them here.
    let (processes, probed) = if probe.is_empty() {
        (Vec::new(), None)
    } else {
        let session = Session::new(
            ws,
            Some(host_cmds::with_host(config)),
            ToolsConfig::default(),
        );
        let r = with_progress(true, || session.diagnostics(probe));
        let rows = session.pool().map(|p| p.status()).unwrap_or_default();
        (rows, Some(r))
    };
    let mut s: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
    if !s.is_empty() {
        s.push('\n');
    }
    s.push_str(&format!(
        "servers dir: {}\n\n",
        dir.as_deref()
            .map_or_else(|| "(none)".to_string(), |d| d.display().to_string()),
    ));
    let rows: Vec<[String; 5]> = infos
        .iter()
        .map(|i| {
            let state = i.state.as_str().to_string();
            [
                i.id.clone(),
                state,
                i.version.clone().unwrap_or_else(|| "-".into()),
                match (&i.binary, &i.binary_from) {
                    (None, _) => "-".into(),
                    (Some(b), None | Some(ProgramFrom::Command)) => b.display().to_string(),
                    (Some(b), Some(from)) => format!("{} [{}]", b.display(), from.describe()),
                },
                i.recipe.clone().unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    s.push_str(&table(
        &["SERVER", "STATE", "VERSION", "BINARY", "INSTALL"],
        &rows,
    ));
    s.push_str(&launch_section(mode, &infos));
    let unusable: Vec<(&str, &str)> = infos
        .iter()
        .filter(|i| i.enabled)
        .filter_map(|i| i.problem.as_deref().map(|p| (i.id.as_str(), p)))
        .collect();
    if !unusable.is_empty() {
        s.push_str("\nNot usable:\n");
        for (id, problem) in &unusable {
            s.push_str(&format!("  {id}: {problem}\n"));
        }
        let ids: Vec<&str> = unusable.iter().map(|(id, _)| *id).collect();
        s.push_str(&format!(
            "Files of their types get no diagnostics (tools still work); run `lspedit servers install {}`.\n",
            ids.join(" ")
        ));
    }
    let host = host_cmds::status_section(ws_root.as_path());
    s.push_str(&host.text);
    match probed {
        None => s.push_str(
            "\n`--probe FILE...` starts the servers of those files and lists their processes.\n",
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
    if json {
        print_json(&json::Doc::ok(
            s,
            Vec::new(),
            json::ServersJson::new(dir.as_deref(), mode, &infos, &processes, &warnings)
                .with_host(host.status),
        ))?;
    } else {
        out(&s);
    }
    Ok(0)
}

/// How the servers run here: the workspace's mode, the sandbox, and per server what restricted
/// mode changes.
fn launch_section(mode: lspedit::servers::launch::Mode, infos: &[install::ServerInfo]) -> String {
    use lspedit::servers::launch::Mode;
    let sandbox = lspedit::process::sandbox::support();
    let mut s = String::new();
    s.push_str(&match mode {
        Mode::Restricted => "\nmode: restricted (this workspace is not trusted: nothing in it chooses a program, and its code runs only sandboxed; `lspedit trust` lifts it)\n".to_string(),
        Mode::Trusted => "\nmode: trusted (`lspedit trust`: the workspace's config, toolchain file and cargo config apply; `lspedit trust --revoke` ends it)\n".to_string(),
    });
    s.push_str(&if sandbox.holds() {
        format!(
            "sandbox: {} (every server and what it starts: reads the workspace, toolchains and system dirs, never credential files; writes only its scratch dir; runs nothing from the workspace; creates no socket; signals and reads no process outside it)\n",
            sandbox.describe()
        )
    } else if sandbox.is_available() {
        format!(
            "sandbox: {} (servers are confined by Landlock, but the sandbox does not hold whole here: restricted mode turns off what would run workspace code)\n",
            sandbox.describe()
        )
    } else {
        "sandbox: unavailable (this kernel has no Landlock: servers run unconfined, and restricted mode turns off what would run workspace code)\n".to_string()
    });
    let rows: Vec<[String; 4]> = infos
        .iter()
        .filter(|i| i.enabled)
        .map(|i| {
            [
                i.id.clone(),
                i.launch.mode.as_str().to_string(),
                i.launch.sandbox.describe(),
                if i.launch.limits.is_empty() {
                    "-".to_string()
                } else {
                    i.launch.limits.join("; ")
                },
            ]
        })
        .collect();
    s.push('\n');
    s.push_str(&table(
        &["SERVER", "MODE", "SANDBOX", "RESTRICTED MODE"],
        &rows,
    ));
    s
}

fn table<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
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

#[allow(clippy::print_stderr)] // Install steps can take minutes: say what runs, on stderr.
fn cmd_servers_install(ids: &[String], json: bool) -> Result<u8, Failure> {
    let result = install::install(ids, &mut |line| err_line(line));
    match result {
        Ok(done) => {
            // Every server's line, installed or not: one failing install leaves the others
            // installed, and the exit code says whether all are usable.
            let mut s = String::new();
            for d in &done {
                match &d.failure {
                    None => s.push_str(&format!(
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
                    )),
                    Some(e) => s.push_str(&format!("{}: install failed: {e}\n", d.id)),
                }
            }
            let failed: Vec<&str> = done
                .iter()
                .filter(|d| d.failure.is_some())
                .map(|d| d.id.as_str())
                .collect();
            if json {
                let mut doc =
                    json::Doc::ok(s.clone(), Vec::new(), json::InstalledJson::list(&done));
                if !failed.is_empty() {
                    doc.ok = false;
                    doc.reason = Some(json::CliReason::InstallFailed.into());
                }
                print_json(&doc)?;
            } else {
                out(&s);
            }
            if failed.is_empty() {
                Ok(0)
            } else {
                err_line(&format!("install failed: {}", failed.join(", ")));
                Ok(1)
            }
        }
        Err(InstallError::UnknownServer { id }) => Err(Failure::Usage(format!(
            "no server named '{id}' is configured (see `lspedit servers status`)"
        ))),
        Err(e) => {
            let text = format!("install failed: {e}");
            if json {
                print_json(&json::Doc::error(
                    json::CliReason::InstallFailed,
                    None,
                    text.clone(),
                ))?;
            }
            err_line(&text);
            Ok(1)
        }
    }
}

/// `lspedit trust [--revoke]`: what was trusted (path, SHA-256, record) on stdout, and on
/// stderr the warning that the file now chooses programs to run.
#[allow(clippy::print_stderr)] // The warning is for the person at the terminal.
fn cmd_trust(root: Option<PathBuf>, revoke: bool, json: bool) -> Result<u8, Failure> {
    use lspedit::servers::trust;
    let ws = open_workspace(root)?;
    let dir = trust::user_config_dir_from_env().ok_or_else(|| {
        Failure::Usage(
            "cannot find your config directory to record the trust in: set XDG_CONFIG_HOME or HOME"
                .into(),
        )
    })?;
    if revoke {
        let shown = ws.root().join(trust::WORKSPACE_CONFIG);
        let text =
            match trust::revoke(ws.root(), &dir).map_err(|e| Failure::Usage(e.to_string()))? {
                Some(record) => format!(
                    "No longer trusted: {} (removed {})\n",
                    shown.display(),
                    record.display()
                ),
                None => format!("{} was not trusted\n", shown.display()),
            };
        print_text(text, json)?;
        return Ok(0);
    }
    let t = trust::trust(ws.root(), &dir).map_err(|e| Failure::Usage(e.to_string()))?;
    let what = if t.config.exists() {
        format!("Trusted {}\nsha256 {}\n", t.config.display(), t.sha256)
    } else {
        format!(
            "Trusted {} (no {} yet: one written later is not trusted)\n",
            t.root.display(),
            trust::WORKSPACE_CONFIG
        )
    };
    print_text(
        format!(
            "{what}Restricted mode is lifted: its toolchain file and cargo config apply.\nrecorded in {}\n",
            t.record.display()
        ),
        json,
    )?;
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

/// A command's plain-text result: on stdout, or as the `llm_content` of its JSON document.
fn print_text(text: String, json: bool) -> Result<(), Failure> {
    if json {
        print_json(&json::Doc::ok(text, Vec::new(), json::NoData {}))
    } else {
        out(&text);
        Ok(())
    }
}

/// What `lspedit mcp` lists: `--tools` and `--schema-profile`.
struct McpListing {
    tools: Vec<lspedit::mcp::ToolSet>,
    profile: lspedit::mcp::SchemaProfile,
}

/// `lspedit mcp`'s workspace without `--root`: the current directory, unless that is the file
/// system's root or the home directory. A host that starts its servers there (an editor or app
/// launched from the desktop starts them in `/` or `~`) would give the model every file of the
/// machine or of the person (`read_file etc/passwd`), so the server refuses and names `--root`.
/// An explicit `--root /` is the person's choice and is served.
fn implied_mcp_root() -> Result<PathBuf, Failure> {
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::Usage(format!("cannot read the current directory: {e}")))?;
    let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
    let here = canonical(&cwd);
    let home = std::env::home_dir()
        .filter(|h| h.is_absolute())
        .map(|h| canonical(&h));
    let what = if here.parent().is_none() {
        "the file system's root"
    } else if home.as_ref() == Some(&here) {
        "the home directory"
    } else {
        return Ok(cwd);
    };
    Err(Failure::Usage(format!(
        "`lspedit mcp` started in {} ({what}) without --root: it will not serve that as the \
         workspace, the model would reach every file in it. Name the project with --root DIR \
         (in the host's configuration: \"args\": [\"mcp\", \"--root\", \"/path/to/project\"]; \
         docs/hosts.md shows each host's entry)",
        here.display()
    )))
}

#[allow(clippy::print_stderr)] // Configuration warnings, once, for the person who started it.
fn cmd_mcp(
    root: Option<PathBuf>,
    no_diagnostics: bool,
    config: ToolsConfig,
    policy_opts: &PolicyOpts,
    listed: &McpListing,
) -> Result<u8, Failure> {
    // One runtime for the process: the MCP server and the language servers run on it.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Usage(format!("cannot start the async runtime: {e}")))?;
    // A bad `.lspedit/config.toml` must not take the tools away: serve them with diagnostics
    // off, say why once here and in every `diagnostics` result.
    let ws = open_workspace(root)?;
    // The configuration is read even without diagnostics: its `[policy]` is the operator's.
    // A tool call keeps the operator's deadline, cold or warm (`VerdictWait::Deadline`): MCP
    // clients time tool calls out (Codex after 60 s), and an edit that was written must not
    // come back as a failed call; a later verdict comes with the next call.
    let loaded = PoolConfig::load(ws.root()).map(|mut pool| {
        pool.verdict_wait = lspedit::lsp::VerdictWait::Deadline;
        pool
    });
    let (policy, policy_warnings) = policy_from(loaded.as_ref().ok())?;
    let policy = policy_opts.apply(policy);
    // `--no-diagnostics` turns off the checks after writes, not the language servers: the
    // language-server tools (outline, references, rename, ...) keep their pool.
    let session = match (no_diagnostics, loaded) {
        (true, Ok(pool)) => Session::on_runtime_without_diagnostics(
            ws,
            host_cmds::with_host(pool),
            config.clone(),
            rt.handle().clone(),
        ),
        (false, Ok(pool)) => Session::on_runtime(
            ws,
            Some(host_cmds::with_host(pool)),
            config.clone(),
            rt.handle().clone(),
        ),
        (_, Err(e)) => {
            let why = format!(
                "diagnostics are off because the language-server configuration is invalid ({e}); fix it and restart `lspedit mcp`"
            );
            eprintln!("lspedit: warning: {why}");
            Session::without_diagnostics(ws, config.clone(), why)
        }
    };
    for w in &policy_warnings {
        eprintln!("lspedit: warning: {w}");
    }
    // The operator's policy bounds the workflow's applies and the language-server edits in
    // the library too, not only in the server's checks: a plan the server built is held to it
    // again, never loosened. No approver: the server passes the one its policy names.
    let session = Arc::new(session.with_workflow_config(WorkflowConfig {
        policy: policy.clone(),
        ..WorkflowConfig::default()
    }));
    // stdout is the protocol: warnings go to stderr, whatever the log filter.
    for w in session.config_warnings() {
        eprintln!("lspedit: warning: {w}");
    }
    let sandbox = lspedit::process::sandbox::support();
    if session.pool().is_some() && !sandbox.holds() {
        eprintln!(
            "lspedit: warning: language servers have no sandbox that holds here ({}): restricted mode turns off what would run workspace code (see `lspedit servers status`)",
            sandbox.describe()
        );
    }
    tracing::info!(root = %session.tools().workspace().root().display(), policy = %policy.describe(), tools = ?listed.tools, schema_profile = %listed.profile, "MCP server on stdio");
    let server = lspedit::mcp::LspeditServer::new(Arc::clone(&session))
        .with_policy(policy)
        .with_tools(&listed.tools)
        .with_schema_profile(listed.profile);
    let result = rt.block_on(lspedit::mcp::serve_stdio_with(server));
    // Stop the servers politely while their runtime still runs (a blocking wait, so on a
    // blocking thread); then drop the runtime and every task holding the session.
    let stopping = Arc::clone(&session);
    let _ = rt.block_on(rt.spawn_blocking(move || stopping.shutdown()));
    drop(rt);
    drop(session);
    match result {
        Ok(()) => Ok(0),
        Err(e) => Err(Failure::Failed(e.to_string())),
    }
}

/// Used by the demo: the session for a root with the given diagnostics timeouts.
fn demo_session(root: &Path, config: ToolsConfig) -> Result<Session, Failure> {
    open_session(Some(root.to_path_buf()), true, config)
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every subcommand and every option or argument says what it is for in `--help`.
    #[test]
    fn every_option_has_help_text() {
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for arg in cmd.get_arguments() {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    missing.push(format!("{path} {id}"));
                }
            }
            for sub in cmd.get_subcommands() {
                let sub_path = format!("{path} {}", sub.get_name());
                if sub.get_about().is_none() && sub.get_name() != "help" {
                    missing.push(sub_path.clone());
                }
                walk(sub, &sub_path, missing);
            }
        }
        let cmd = Cli::command();
        cmd.clone().debug_assert();
        let mut missing = Vec::new();
        walk(&cmd, "lspedit", &mut missing);
        assert!(missing.is_empty(), "no help text: {missing:?}");
    }
}
