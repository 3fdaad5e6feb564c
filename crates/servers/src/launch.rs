//! How a server is launched: which program, with which environment and declaration, confined
//! how. The one place that decides, between "the pool wants server X for root R" and the spawn.
//!
//! Every server, trusted workspace or not:
//! - is refused when its program lies inside the workspace (a trusted config's
//!   `servers_dir = "tools/lsp"` that the model can write: trust covered the config's bytes, not
//!   the programs it points at);
//! - gets a scrubbed environment: `PATH` without relative entries or entries inside the
//!   workspace, `HOME`, `TMPDIR` and the XDG directories in its own scratch directory outside
//!   the workspace, the person's toolchain homes (`RUSTUP_HOME`, `CARGO_HOME`, `PYENV_ROOT`),
//!   locale variables, and the declaration's `env`; nothing else of lspedit's environment;
//! - runs under the Landlock ruleset of [`lspedit_process::sandbox`] where the kernel has it;
//! - finds the programs its declaration requires (`[[install.requires]]`, bash-language-server's
//!   `shellcheck`) in the servers dir's `bin/`, first on its `PATH`;
//! - gets the bundled TypeScript when its declaration names `tsserver.path` relative to the
//!   servers dir (typescript-language-server would otherwise load the workspace's
//!   `node_modules/typescript` or `.yarn/sdks`), and the bundled tsserver plugins its
//!   declaration names by a `plugins[].location` relative to the servers dir
//!   (`@vue/typescript-plugin` for `.vue` files).
//!
//! In restricted mode (the workspace is not trusted, [`PoolConfig::trusted`]), additionally, per
//! the declaration's `[restricted]` table:
//! - `toolchain = "rustup"`: rust-analyzer, cargo and rustc are the person's toolchain,
//!   resolved once outside the workspace (`rustup show active-toolchain` and `rustc --print
//!   sysroot` run from `/`), pinned with `RUSTUP_TOOLCHAIN`, `CARGO` and `RUSTC`; programs a
//!   workspace `.cargo/config.toml` names (`rustc`, `rustc-wrapper`, `rustc-workspace-wrapper`,
//!   the host `linker`, `rustflags` that could name a linker or plugin) are overridden by
//!   environment variables, which cargo ranks above config files;
//! - `without_sandbox`: where Landlock is unavailable, settings merged over the declaration that
//!   turn off what would run workspace code (rust-analyzer: cargo check on save, whose build
//!   scripts are workspace code), or, with `refuse`, the server is not started
//!   (svelte-language-server imports the workspace's `svelte.config.js`, and nothing turns
//!   that off).
//!
//! Both modes build in the scratch directory (`CARGO_TARGET_DIR`), never in the workspace.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde_json::Value;

use crate::config::{PoolConfig, ServerConfig, is_executable};
use crate::{ServersError, trust};
use lspedit_process::sandbox::{self, Confinement, Support};

/// Whether the workspace may choose what its servers run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Not trusted (`lspedit trust` not run, or the config changed since): nothing in the
    /// workspace chooses a program, and workspace code runs only inside the sandbox.
    Restricted,
    /// `lspedit trust` recorded this workspace: its config and toolchain files apply.
    Trusted,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Restricted => "restricted",
            Mode::Trusted => "trusted",
        }
    }
}

/// Everything [`lspedit_process::spawn`] needs to start one server.
#[derive(Debug)]
pub struct Launch {
    /// The declaration as the server gets it (initialization options and settings adjusted).
    pub cfg: Arc<ServerConfig>,
    pub program: PathBuf,
    /// The whole environment of the process (nothing else is inherited).
    pub env: BTreeMap<String, String>,
    /// `None` where the kernel has no Landlock.
    pub confinement: Option<Confinement>,
}

impl Launch {
    /// What [`lspedit_process::spawn`] starts for it.
    pub fn program(&self) -> lspedit_process::Program<'_> {
        lspedit_process::Program {
            path: &self.program,
            args: &self.cfg.args,
            env: &self.env,
            confinement: self.confinement.as_ref(),
        }
    }
}

/// What `servers status` shows of a server's launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchInfo {
    pub mode: Mode,
    pub sandbox: Support,
    /// What lspedit changes or turns off for this server here (restricted mode, the bundled
    /// TypeScript).
    pub limits: Vec<String>,
}

/// The mode and sandbox a server of `cfg` runs with under `pool`, and what restricted mode
/// turns off for it.
pub fn describe(pool: &PoolConfig, cfg: &ServerConfig) -> LaunchInfo {
    let mode = pool.mode();
    let sandbox = pool.sandbox_support();
    let mut limits = Vec::new();
    if mode == Mode::Restricted {
        if cfg.restricted.toolchain.as_deref() == Some("rustup") {
            limits.push(
                "toolchain pinned outside the workspace (rust-toolchain.toml ignored); programs named by .cargo/config.toml overridden"
                    .to_owned(),
            );
        }
        if let Some(w) = &cfg.restricted.without_sandbox {
            if sandbox.holds() {
                limits.push(format!("{} runs sandboxed", w.runs));
            } else if w.refuse {
                limits.push(format!(
                    "not started: it would run {} (no sandbox that holds on this kernel: {})",
                    w.runs,
                    sandbox.describe()
                ));
            } else {
                limits.push(format!(
                    "{} is off (no sandbox that holds on this kernel: {})",
                    w.runs,
                    sandbox.describe()
                ));
            }
        }
    }
    if tsserver_path(cfg).is_some() {
        limits.push("bundled TypeScript only (never the workspace's)".to_owned());
    }
    LaunchInfo {
        mode,
        sandbox,
        limits,
    }
}

/// The declaration's `initialization_options.tsserver.path`, when relative (to the servers dir).
fn tsserver_path(cfg: &ServerConfig) -> Option<&str> {
    cfg.initialization_options
        .as_ref()?
        .pointer("/tsserver/path")?
        .as_str()
        .filter(|p| !Path::new(p).is_absolute())
}

/// Decides how the server `cfg` starts for `root` inside `workspace` (both canonical or not;
/// they are canonicalized here). `program` is what [`PoolConfig::resolve_command`] found.
pub fn prepare(
    pool: &PoolConfig,
    cfg: &Arc<ServerConfig>,
    workspace: &Path,
    root: &Path,
    program: PathBuf,
) -> Result<Launch, ServersError> {
    let refuse = |reason: String| ServersError::Refused {
        server: cfg.id.clone(),
        reason,
    };
    let workspace = workspace
        .canonicalize()
        .unwrap_or_else(|_| workspace.to_owned());
    let real_program = program.canonicalize().unwrap_or_else(|_| program.clone());
    if real_program.starts_with(&workspace) {
        return Err(refuse(format!(
            "its program {} is inside the workspace, which the model and the repository can write (install servers outside it; see `lspedit servers status`)",
            program.display()
        )));
    }
    let mode = pool.mode();
    let support = pool.sandbox_support();
    let scratch = scratch_dir(pool, &cfg.id, root, &workspace)
        .map_err(|e| refuse(format!("scratch directory: {e}")))?;

    let person = PersonEnv::from_process();
    let mut env = BTreeMap::new();
    let path_dirs = clean_path(person.path.as_ref(), &workspace);
    for key in [
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_MESSAGES",
        "TZ",
        "USER",
        "LOGNAME",
    ] {
        if let Some(v) = std::env::var_os(key).and_then(|v| v.into_string().ok()) {
            env.insert(key.to_owned(), v);
        }
    }
    let dir = |name: &str| scratch.join(name).to_string_lossy().into_owned();
    env.insert("HOME".into(), dir("home"));
    env.insert("TMPDIR".into(), dir("tmp"));
    env.insert("XDG_CACHE_HOME".into(), dir("cache"));
    env.insert("XDG_CONFIG_HOME".into(), dir("config"));
    env.insert("XDG_DATA_HOME".into(), dir("data"));
    env.insert("XDG_STATE_HOME".into(), dir("state"));
    for (key, value) in [
        ("RUSTUP_HOME", &person.rustup_home),
        ("CARGO_HOME", &person.cargo_home),
        ("PYENV_ROOT", &person.pyenv_root),
    ] {
        if let Some(v) = value {
            env.insert(key.into(), v.to_string_lossy().into_owned());
        }
    }

    let mut decl = (**cfg).clone();
    let mut program = program;
    let mut exec_dirs: Vec<PathBuf> = Vec::new();
    let mut front_path: Vec<PathBuf> = Vec::new();
    #[cfg_attr(
        not(target_os = "linux"),
        allow(
            unused_mut,
            reason = "only the Landlock grant of Cargo.lock adds to it"
        )
    )]
    let mut rewrite: Vec<PathBuf> = Vec::new();
    if cfg.restricted.toolchain.as_deref() == Some("rustup") {
        // Both modes build outside the workspace.
        env.insert("CARGO_TARGET_DIR".into(), dir("target"));
        // The one file cargo writes in the workspace: a missing Cargo.lock is created empty
        // here (cargo reads an empty one as none, and would create it anyway), so the sandbox
        // can grant rewriting that file and nothing else of the workspace.
        // Landlock is Linux's: elsewhere nothing is granted, so nothing is created.
        #[cfg(target_os = "linux")]
        if support.is_available() {
            let lock = root.join("Cargo.lock");
            create_empty(&workspace, &lock);
            rewrite.push(lock);
        }
        if mode == Mode::Restricted {
            let tc = rust_toolchain().ok_or_else(|| {
                refuse("restricted mode: the Rust toolchain could not be resolved outside the workspace (is rustc installed?)".into())
            })?;
            let bin = tc.sysroot.join("bin");
            let direct = bin.join(
                program
                    .file_name()
                    .map_or_else(|| OsString::from("rust-analyzer"), ToOwned::to_owned),
            );
            if is_executable(&direct) {
                program = direct;
            }
            if let Some(name) = &tc.name {
                env.insert("RUSTUP_TOOLCHAIN".into(), name.clone());
            }
            let cargo = bin.join("cargo").to_string_lossy().into_owned();
            let rustc = bin.join("rustc").to_string_lossy().into_owned();
            env.insert("CARGO".into(), cargo);
            env.insert("RUSTC".into(), rustc.clone());
            env.insert("CARGO_BUILD_RUSTC".into(), rustc);
            for key in [
                "RUSTC_WRAPPER",
                "RUSTC_WORKSPACE_WRAPPER",
                "CARGO_BUILD_RUSTC_WRAPPER",
                "CARGO_BUILD_RUSTC_WORKSPACE_WRAPPER",
                // Set, even empty, it wins over every `rustflags` of a config file.
                "CARGO_ENCODED_RUSTFLAGS",
                "CARGO_ENCODED_RUSTDOCFLAGS",
            ] {
                env.insert(key.into(), String::new());
            }
            if let Some(host) = &tc.host {
                let triple = host.to_ascii_uppercase().replace(['-', '.'], "_");
                env.insert(format!("CARGO_TARGET_{triple}_LINKER"), "cc".into());
            }
            env.insert("CARGO_NET_OFFLINE".into(), "true".into());
            exec_dirs.push(tc.sysroot.clone());
            front_path.push(bin);
        }
    }
    if mode == Mode::Restricted
        && !support.holds()
        && let Some(w) = &cfg.restricted.without_sandbox
    {
        if w.refuse {
            return Err(refuse(format!(
                "restricted mode without a sandbox that holds (here: {}): it would run {} with no network filter or unconfined, and no setting turns that off (`lspedit trust` the workspace to run it)",
                support.describe(),
                w.runs
            )));
        }
        if let Some(over) = &w.initialization_options {
            let base = decl.initialization_options.get_or_insert(Value::Null);
            merge_json(base, over);
        }
        if let Some(over) = &w.settings {
            merge_json(&mut decl.settings, over);
        }
    }
    if let Some(rel) = tsserver_path(cfg) {
        // Left relative, the server would resolve it against its working directory, the
        // workspace; a servers dir inside the workspace is the model's to write.
        let abs = pool
            .servers_dir
            .as_ref()
            .map(|d| d.join(rel))
            .filter(|p| !trust::is_inside(p, &workspace))
            .ok_or_else(|| {
                refuse(format!(
                    "no TypeScript outside the workspace to give it ({rel} needs a servers dir outside the workspace; see `lspedit servers status`)"
                ))
            })?
            .to_string_lossy()
            .into_owned();
        if let Some(ts) = decl
            .initialization_options
            .as_mut()
            .and_then(|o| o.pointer_mut("/tsserver"))
            .and_then(Value::as_object_mut)
        {
            ts.insert("path".into(), Value::String(abs));
        }
    }
    // tsserver plugins the declaration names by a location relative to the servers dir
    // (vue-typescript's `@vue/typescript-plugin`), made absolute the same way: tsserver loads
    // a plugin from the locations it is given, and a relative one would be the workspace's.
    if let Some(plugins) = decl
        .initialization_options
        .as_mut()
        .and_then(|o| o.pointer_mut("/plugins"))
        .and_then(Value::as_array_mut)
    {
        for plugin in plugins {
            let Some(rel) = plugin
                .get("location")
                .and_then(Value::as_str)
                .filter(|l| Path::new(l).is_relative())
                .map(str::to_owned)
            else {
                continue;
            };
            let abs = pool
                .servers_dir
                .as_ref()
                .map(|d| d.join(&rel))
                .filter(|p| !trust::is_inside(p, &workspace))
                .ok_or_else(|| {
                    refuse(format!(
                        "no tsserver plugin outside the workspace to give it ({rel} needs a servers dir outside the workspace; see `lspedit servers status`)"
                    ))
                })?;
            plugin["location"] = Value::String(abs.to_string_lossy().into_owned());
        }
    }
    // Programs the server needs beside its own package (`[[install.requires]]`:
    // bash-language-server runs `shellcheck`) are linked in the servers dir's `bin/`, which
    // comes first on its PATH; never a servers dir inside the workspace.
    if cfg.install.as_ref().is_some_and(|r| !r.requires.is_empty())
        && let Some(bin) = pool
            .servers_dir
            .as_ref()
            .map(|d| d.join("bin"))
            .filter(|b| b.is_absolute() && !trust::is_inside(b, &workspace))
    {
        front_path.push(bin);
    }
    let all_path: Vec<PathBuf> = front_path.iter().chain(&path_dirs).cloned().collect();
    if let Ok(joined) = std::env::join_paths(&all_path) {
        env.insert("PATH".into(), joined.to_string_lossy().into_owned());
    }
    for (k, v) in &cfg.env {
        env.insert(k.clone(), v.clone());
    }

    let confinement = support.is_available().then(|| {
        let mut c = Confinement {
            read: vec![workspace.clone()],
            exec: sandbox::system_exec_dirs(),
            full: vec![scratch.clone()],
            devices: sandbox::device_paths(),
            allow: pool.sandbox_allow.clone(),
            rewrite,
            protected: vec![workspace.clone()],
            hidden: Vec::new(),
        };
        c.read.extend(sandbox::system_read_paths());
        c.exec.extend(exec_dirs);
        if let Some(d) = &pool.servers_dir {
            c.exec.push(d.clone());
        }
        c.exec.extend(person.toolchain_grants());
        let home = person.home.as_deref();
        for d in all_path
            .iter()
            .map(PathBuf::as_path)
            .chain(real_program.parent())
        {
            c.exec.extend(prefix_grants(d, home));
        }
        c.hidden = person.secrets(&c.exec, &host_runtime_dirs());
        c
    });
    Ok(Launch {
        cfg: Arc::new(decl),
        program,
        env,
        confinement,
    })
}

/// The person's environment lspedit passes on to servers, read once per launch.
struct PersonEnv {
    home: Option<PathBuf>,
    path: Option<OsString>,
    rustup_home: Option<PathBuf>,
    cargo_home: Option<PathBuf>,
    pyenv_root: Option<PathBuf>,
}

impl PersonEnv {
    fn from_process() -> Self {
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .filter(|h| h.is_absolute());
        let var_or_home = |var: &str, dflt: &str| {
            std::env::var_os(var)
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .or_else(|| home.as_ref().map(|h| h.join(dflt)))
                .filter(|p| p.is_dir())
        };
        Self {
            rustup_home: var_or_home("RUSTUP_HOME", ".rustup"),
            cargo_home: var_or_home("CARGO_HOME", ".cargo"),
            pyenv_root: var_or_home("PYENV_ROOT", ".pyenv"),
            path: std::env::var_os("PATH"),
            home,
        }
    }
}

/// What of a toolchain home a server may read and execute: what the toolchain runs from,
/// never the whole home (`docs/sandbox.md`, "What a server may read").
const CARGO_HOME_GRANTS: &[&str] = &[
    "bin",
    "registry",
    "git",
    "config.toml",
    "config",
    // Cargo's cache bookkeeping and locks, opened on every build (read-only here: cargo then
    // works offline from what is cached).
    ".global-cache",
    ".package-cache",
    ".package-cache-mutate",
];

/// What of an install prefix inside the person's home a server may read and execute (`~/.local`
/// for `~/.local/bin`): its programs and libraries, not `share/` or `etc/` (shell history,
/// keyrings, settings live there).
const HOME_PREFIX_GRANTS: &[&str] = &["bin", "sbin", "lib", "lib32", "lib64", "libexec", "include"];

/// Files and directories that hold secrets, relative to the person's home: never granted,
/// even beneath a directory a server may read ([`Confinement::hidden`]).
const HOME_SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".password-store",
    ".config/gh",
    ".config/gcloud",
    ".config/git/credentials",
    ".config/lspedit",
    ".local/share/keyrings",
];

impl PersonEnv {
    /// The read-and-execute grants of the toolchain homes: Cargo's programs, registry and git
    /// sources, config and cache bookkeeping (never `credentials.toml`); rustup's and pyenv's
    /// homes whole (toolchains, settings, shims: the rustup proxies open more of it than the
    /// toolchains, and neither holds credentials).
    fn toolchain_grants(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(h) = &self.cargo_home {
            out.extend(CARGO_HOME_GRANTS.iter().map(|e| h.join(e)));
        }
        out.extend(self.rustup_home.clone());
        out.extend(self.pyenv_root.clone());
        out
    }

    /// Every secret a grant could cover: Cargo's credentials, the person's credential files
    /// ([`HOME_SECRETS`]), lspedit's own configuration directory (the state key, trust records),
    /// the runtime directory (`/run/user/UID`, and `XDG_RUNTIME_DIR` when elsewhere) and the
    /// server host's `runtime_dirs` (its socket and token, an ssh-agent's socket), and a
    /// global `etc/npmrc` (registry tokens) found in a granted prefix.
    fn secrets(&self, granted: &[PathBuf], runtime_dirs: &[PathBuf]) -> Vec<PathBuf> {
        let mut out = runtime_dirs.to_vec();
        if let Some(h) = &self.cargo_home {
            out.push(h.join("credentials.toml"));
            out.push(h.join("credentials"));
        }
        if let Some(home) = &self.home {
            out.extend(HOME_SECRETS.iter().map(|s| home.join(s)));
        }
        out.extend(crate::trust::user_config_dir_from_env());
        // The user's runtime directory (agents' sockets) by the user id, as the host's socket
        // is found: a client started with a stripped environment (no `XDG_RUNTIME_DIR`, as
        // Codex starts `lspedit mcp`) must compute the same launch as the command line, or the
        // host would not share its server. `XDG_RUNTIME_DIR` too when it names another place.
        #[cfg(unix)]
        let run = Some(PathBuf::from(format!(
            "/run/user/{}",
            rustix::process::getuid().as_raw()
        )));
        #[cfg(not(unix))]
        let run: Option<PathBuf> = None;
        let xdg = std::env::var_os("XDG_RUNTIME_DIR")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute() && Some(p) != run.as_ref());
        out.extend(run);
        out.extend(xdg);
        for g in granted {
            let npmrc = g.join("etc/npmrc");
            if npmrc.exists() {
                out.push(npmrc);
            }
        }
        out
    }
}

/// The server host's default runtime directories (its socket and token), so that no grant (a
/// workspace or a `PATH` prefix under `/tmp`) covers them: the one
/// [`crate::default_host_runtime_dir`] chooses and the `/tmp` fallback, whichever this machine
/// uses. Not the directory a pool's host config names: the launch, confinement included, must
/// be the same in a client and in the host, whose own config names none.
fn host_runtime_dirs() -> Vec<PathBuf> {
    #[cfg(unix)]
    {
        let fallback = PathBuf::from(format!(
            "/tmp/lspedit-{}",
            rustix::process::getuid().as_raw()
        ));
        let chosen = crate::default_host_runtime_dir();
        let mut out = vec![chosen];
        if out[0] != fallback {
            out.push(fallback);
        }
        out
    }
    #[cfg(not(unix))]
    Vec::new()
}

/// The grants for a binary directory `dir` on `PATH`: its install prefix ([`prefix_of`]) whole
/// when that lies outside the person's home (`/usr/local`); when inside it, `dir` itself and the
/// prefix's program and library directories ([`HOME_PREFIX_GRANTS`]).
fn prefix_grants(dir: &Path, home: Option<&Path>) -> Vec<PathBuf> {
    let prefix = prefix_of(dir, home);
    let home = home.map(|h| h.canonicalize().unwrap_or_else(|_| h.to_owned()));
    if !home.is_some_and(|h| prefix.starts_with(h)) {
        return vec![prefix];
    }
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let mut out = vec![dir.clone()];
    if prefix != dir {
        out.extend(HOME_PREFIX_GRANTS.iter().map(|e| prefix.join(e)));
    }
    out
}

/// `PATH` without relative entries, entries that do not exist, and entries inside the
/// workspace: no lookup by name resolves to a workspace file.
pub(crate) fn clean_path(path: Option<&OsString>, workspace: &Path) -> Vec<PathBuf> {
    let Some(path) = path else { return Vec::new() };
    let mut out: Vec<PathBuf> = Vec::new();
    for d in std::env::split_paths(path) {
        if !d.is_absolute() {
            continue;
        }
        let Ok(real) = d.canonicalize() else { continue };
        if real.starts_with(workspace) || out.contains(&d) {
            continue;
        }
        out.push(d);
    }
    out
}

/// The install prefix of a binary directory: `/usr/local` for `/usr/local/bin`,
/// `~/.nvm/versions/node/v20` for its `bin`, the directory itself when its parent is `/` or
/// the person's home (never grant the whole home).
fn prefix_of(dir: &Path, home: Option<&Path>) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let name = dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match dir.parent() {
        Some(parent)
            if matches!(name, "bin" | "sbin" | "shims")
                && parent != Path::new("/")
                && Some(parent) != home =>
        {
            parent.to_owned()
        }
        _ => dir,
    }
}

/// The person's Rust toolchain, resolved outside any workspace, once per process.
#[derive(Debug)]
pub(crate) struct RustToolchain {
    /// The rustup toolchain name (`1.95.0-x86_64-unknown-linux-gnu`), when rustup manages it.
    pub name: Option<String>,
    pub sysroot: PathBuf,
    /// The host triple (`rustc -vV`).
    pub host: Option<String>,
}

pub(crate) fn rust_toolchain() -> Option<&'static RustToolchain> {
    static RESOLVED: OnceLock<Option<RustToolchain>> = OnceLock::new();
    RESOLVED.get_or_init(resolve_rust_toolchain).as_ref()
}

fn resolve_rust_toolchain() -> Option<RustToolchain> {
    let run = |program: &str, args: &[&str], toolchain: Option<&str>| -> Option<String> {
        let mut cmd = std::process::Command::new(program);
        // From `/`: no rust-toolchain.toml of a workspace is in the way up.
        cmd.args(args).current_dir("/");
        if let Some(tc) = toolchain {
            cmd.env("RUSTUP_TOOLCHAIN", tc);
        }
        let r = lspedit_process::run_bounded(
            &mut cmd,
            Duration::from_secs(30),
            lspedit_process::Capture::StdoutOnly,
            64 * 1024,
        )
        .ok()?;
        r.success()
            .then(|| String::from_utf8_lossy(&r.stdout).into_owned())
    };
    let name = run("rustup", &["show", "active-toolchain"], None)
        .and_then(|s| s.split_whitespace().next().map(str::to_owned));
    let sysroot = run("rustc", &["--print", "sysroot"], name.as_deref())?;
    let sysroot = PathBuf::from(sysroot.trim());
    if !sysroot.join("bin").join("rustc").exists() {
        return None;
    }
    let host = run("rustc", &["-vV"], name.as_deref()).and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("host: ").map(|h| h.trim().to_owned()))
    });
    Some(RustToolchain {
        name,
        sysroot,
        host,
    })
}

/// The server's scratch directory: `<scratch base>/<hash of the root>/<server id>`, with
/// `home`, `tmp`, `cache`, `config`, `data`, `state` inside, owner-only. Kept across runs (the
/// build dir stays warm). Never inside the workspace: a base that is falls back to the system
/// temp dir.
fn scratch_dir(
    pool: &PoolConfig,
    id: &str,
    root: &Path,
    workspace: &Path,
) -> std::io::Result<PathBuf> {
    let base = pool
        .scratch_dir
        .clone()
        .filter(|b| !trust::is_inside(b, workspace))
        .unwrap_or_else(|| std::env::temp_dir().join("lspedit-scratch"));
    collect_scratch(&base);
    let key = trust::sha256_hex(root.as_os_str().as_encoded_bytes());
    let per_root = base.join(&key[..16]);
    let dir = per_root.join(sanitize_id(id));
    for sub in ["home", "tmp", "cache", "config", "data", "state", "target"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    write_root_file(&per_root, root)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for d in [&base, &dir] {
            let _ = std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700));
        }
    }
    Ok(dir)
}

/// The file of a root's scratch directory naming the root it serves.
const ROOT_FILE: &str = "root";

/// Names the root in `per_root`'s [`ROOT_FILE`]: left alone when it already does, else written
/// whole under another name and renamed over it. Another process's [`sweep_scratch`] reads it at
/// any moment: a file rewritten in place is empty for a while, and an empty name is no root.
fn write_root_file(per_root: &Path, root: &Path) -> std::io::Result<()> {
    let bytes = root.as_os_str().as_encoded_bytes();
    let file = per_root.join(ROOT_FILE);
    if std::fs::read(&file).is_ok_and(|old| old == bytes) {
        return Ok(());
    }
    static STAGED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = STAGED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let staged = per_root.join(format!(".{ROOT_FILE}.{}-{n}.tmp", std::process::id()));
    std::fs::write(&staged, bytes)?;
    std::fs::rename(&staged, &file).inspect_err(|_| {
        let _ = std::fs::remove_file(&staged);
    })
}

/// Removes, once per process, the scratch directories of roots that no longer exist
/// ([`sweep_scratch`]).
fn collect_scratch(base: &Path) {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| sweep_scratch(base));
}

/// Removes the scratch directories under `base` of roots that no longer exist (each temp
/// workspace of a test suite would otherwise leave its build dir behind). Only entries lspedit
/// made are touched: 16 hex digits holding a [`ROOT_FILE`]. A directory is removed only when
/// its root file names an absolute path that is certainly gone: a server of a live root runs in
/// it (its Landlock rules hold the directory itself, so one made again later is closed to it), and
/// a root file being written, unreadable or odd is no proof of anything.
fn sweep_scratch(base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let ours = name.len() == 16
            && name
                .to_str()
                .is_some_and(|n| n.bytes().all(|b| b.is_ascii_hexdigit()));
        if !ours || !e.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let Ok(root) = std::fs::read(e.path().join(ROOT_FILE)) else {
            continue;
        };
        let Some(root) = root_path(root) else {
            continue;
        };
        let gone = root.is_absolute()
            && std::fs::symlink_metadata(&root)
                .is_err_and(|err| err.kind() == std::io::ErrorKind::NotFound);
        if gone {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

/// The path a scratch directory's [`ROOT_FILE`] names (written as the path's encoded bytes).
#[cfg(unix)]
fn root_path(bytes: Vec<u8>) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// The path a scratch directory's [`ROOT_FILE`] names; `None` (the directory is kept) when it
/// is not UTF-8, the one encoding Windows' bytes can be turned back from safely.
#[cfg(windows)]
fn root_path(bytes: Vec<u8>) -> Option<PathBuf> {
    String::from_utf8(bytes).ok().map(PathBuf::from)
}

fn sanitize_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Creates `path` empty unless something (a file, a symlink) is already there, through a
/// handle of `workspace` that no symlink on the way leads out of.
#[cfg(target_os = "linux")]
fn create_empty(workspace: &Path, path: &Path) {
    use rustix::fs::{Mode, OFlags};
    let _ = sandbox::open_beneath(
        workspace,
        path,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW,
        Mode::from_raw_mode(0o644),
    );
}

/// JSON deep merge: objects key by key, anything else replaced.
fn merge_json(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                merge_json(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_keeps_absolute_entries_outside_the_workspace() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("ws/bin")).unwrap();
        let ws = t.path().join("ws").canonicalize().unwrap();
        std::fs::create_dir_all(t.path().join("tools")).unwrap();
        let path = std::env::join_paths([
            PathBuf::from("."),
            PathBuf::from("node_modules/.bin"),
            ws.join("bin"),
            t.path().join("tools"),
            PathBuf::from("/no/such/dir"),
            PathBuf::from("/usr/bin"),
        ])
        .unwrap();
        assert_eq!(
            clean_path(Some(&path), &ws),
            vec![t.path().join("tools"), PathBuf::from("/usr/bin")]
        );
    }

    #[test]
    fn prefixes_never_grant_the_home_or_the_root() {
        let home = Path::new("/home/u");
        assert_eq!(
            prefix_of(Path::new("/x/y/bin"), Some(home)),
            Path::new("/x/y")
        );
        assert_eq!(
            prefix_of(Path::new("/home/u/bin"), Some(home)),
            Path::new("/home/u/bin")
        );
        assert_ne!(prefix_of(Path::new("/bin"), Some(home)), Path::new("/"));
        assert_eq!(
            prefix_of(Path::new("/x/lib"), Some(home)),
            Path::new("/x/lib")
        );
    }

    /// What a server may read of the person's home: the toolchain homes' named parts and a
    /// home prefix's program and library directories, never a credential file or lspedit's
    /// own state, whichever grant would cover it (`PATH` holding `~/.cargo/bin` and
    /// `~/.local/bin` included). Checked on the grants after `hide`, as the sandbox applies
    /// them.
    #[cfg(target_os = "linux")]
    #[test]
    fn no_grant_covers_a_credential_file() {
        let t = tempfile::tempdir().unwrap();
        let home = t.path().canonicalize().unwrap();
        for d in [
            ".cargo/bin",
            ".cargo/registry",
            ".rustup/toolchains",
            ".local/bin",
            ".local/lib",
            ".local/share/keyrings",
            ".local/share/fish",
            ".ssh",
            ".config/lspedit/trust",
        ] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        for f in [
            ".cargo/credentials.toml",
            ".cargo/config.toml",
            ".config/lspedit/state.key",
            ".npmrc",
        ] {
            std::fs::write(home.join(f), "").unwrap();
        }
        let person = PersonEnv {
            home: Some(home.clone()),
            path: None,
            rustup_home: Some(home.join(".rustup")),
            cargo_home: Some(home.join(".cargo")),
            pyenv_root: None,
        };
        let mut granted = person.toolchain_grants();
        for d in [".cargo/bin", ".local/bin"] {
            granted.extend(prefix_grants(&home.join(d), Some(&home)));
        }
        granted.push(home.join(".config"));
        // A host runtime directory beneath a granted one (`/tmp/lspedit-<uid>` under a
        // workspace or a `PATH` prefix in `/tmp`).
        std::fs::create_dir_all(home.join("tmp/lspedit-0")).unwrap();
        std::fs::write(home.join("tmp/lspedit-0/token"), "").unwrap();
        granted.push(home.join("tmp"));
        let mut secrets = person.secrets(&granted, &[home.join("tmp/lspedit-0")]);
        secrets.push(home.join(".config/lspedit"));
        let read = lspedit_process::sandbox::hide_for_test(&granted, &secrets);
        let covered = |rel: &str| read.iter().any(|g| home.join(rel).starts_with(g));
        for reachable in [
            ".cargo/bin",
            ".cargo/registry",
            ".cargo/config.toml",
            ".rustup/toolchains",
            ".local/bin",
            ".local/lib",
        ] {
            assert!(covered(reachable), "{reachable} is granted: {read:?}");
        }
        for secret in [
            ".cargo/credentials.toml",
            ".config/lspedit/state.key",
            ".config/lspedit/trust",
            ".local/share/keyrings",
            ".local/share/fish",
            ".ssh",
            ".npmrc",
            "tmp/lspedit-0/token",
            "",
        ] {
            assert!(!covered(secret), "{secret} must not be granted: {read:?}");
        }
    }

    fn prepared(
        id: &str,
        trusted: bool,
        program: &Path,
    ) -> (tempfile::TempDir, Result<Launch, ServersError>) {
        prepared_with(id, trusted, program, |_| ())
    }

    fn prepared_with(
        id: &str,
        trusted: bool,
        program: &Path,
        adjust: impl FnOnce(&mut PoolConfig),
    ) -> (tempfile::TempDir, Result<Launch, ServersError>) {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("ws")).unwrap();
        let ws = t.path().join("ws").canonicalize().unwrap();
        let mut pool = PoolConfig::bundled().unwrap();
        pool.trusted = trusted;
        adjust(&mut pool);
        pool.scratch_dir = Some(t.path().join("scratch"));
        pool.servers_dir = Some(t.path().join("servers"));
        let cfg = Arc::new(pool.server(id).unwrap().clone());
        let launch = prepare(&pool, &cfg, &ws, &ws, program.to_owned());
        (t, launch)
    }

    #[test]
    fn restricted_mode_pins_the_rust_toolchain_and_trust_lifts_it() {
        if rust_toolchain().is_none() {
            eprintln!("skipped: no Rust toolchain resolvable here");
            return;
        }
        let (_t, l) = prepared("rust-analyzer", false, Path::new("/bin/true"));
        let l = l.unwrap();
        for key in ["RUSTUP_TOOLCHAIN", "CARGO", "RUSTC", "CARGO_BUILD_RUSTC"] {
            if key == "RUSTUP_TOOLCHAIN" && rust_toolchain().unwrap().name.is_none() {
                continue;
            }
            assert!(l.env.contains_key(key), "{key} missing: {:?}", l.env);
        }
        for key in [
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_ENCODED_RUSTFLAGS",
        ] {
            assert_eq!(l.env.get(key).map(String::as_str), Some(""), "{key}");
        }
        assert!(l.env["CARGO_TARGET_DIR"].ends_with("/rust-analyzer/target"));
        let (_t, l) = prepared("rust-analyzer", true, Path::new("/bin/true"));
        let l = l.unwrap();
        assert!(!l.env.contains_key("RUSTUP_TOOLCHAIN"));
        assert!(!l.env.contains_key("RUSTC_WRAPPER"));
        // Both modes build outside the workspace.
        assert!(l.env.contains_key("CARGO_TARGET_DIR"));
    }

    /// Restricted mode's fallbacks follow the sandbox servers get, not the kernel: with the
    /// pool's sandbox off (an embedder measuring its cost) a server that would run workspace
    /// code unconfined is not started, or runs with that part turned off, on any kernel.
    #[test]
    fn restricted_mode_without_the_pools_sandbox_takes_the_unsandboxed_fallbacks() {
        let off = |p: &mut PoolConfig| p.sandbox = false;
        let (_t, l) = prepared_with("svelte-language-server", false, Path::new("/bin/true"), off);
        let err = l.expect_err("started unconfined").to_string();
        assert!(
            err.contains("it would run workspace JavaScript (svelte.config.js"),
            "{err}"
        );
        let (_t, l) = prepared_with("svelte-language-server", true, Path::new("/bin/true"), off);
        assert!(l.unwrap().confinement.is_none(), "trusted, not sandboxed");
        if rust_toolchain().is_some() {
            let (_t, l) = prepared_with("rust-analyzer", false, Path::new("/bin/true"), off);
            let l = l.unwrap();
            assert!(l.confinement.is_none());
            let check = |v: &Value| v.pointer("/checkOnSave").cloned();
            let opts = l.cfg.initialization_options.as_ref().unwrap();
            assert_eq!(check(opts), Some(Value::Bool(false)), "{opts}");
        }
        let mut pool = PoolConfig::bundled().unwrap();
        pool.sandbox = false;
        let svelte = pool.server("svelte-language-server").unwrap().clone();
        let info = describe(&pool, &svelte);
        assert_eq!(info.sandbox, Support::Unavailable);
        assert!(
            info.limits
                .iter()
                .any(|l| l.starts_with("not started: it would run")),
            "{:?}",
            info.limits
        );
    }

    #[test]
    fn the_vue_plugin_is_the_bundled_one_at_an_absolute_path() {
        let (t, l) = prepared("vue-typescript", false, Path::new("/bin/true"));
        let l = l.unwrap();
        let opts = l.cfg.initialization_options.as_ref().unwrap();
        assert_eq!(
            opts.pointer("/plugins/0/location").and_then(Value::as_str),
            Some(
                t.path()
                    .join("servers/node_modules/@vue/typescript-plugin")
                    .to_str()
                    .unwrap()
            )
        );
        assert_eq!(
            opts.pointer("/plugins/0/name").and_then(Value::as_str),
            Some("@vue/typescript-plugin")
        );
        assert_eq!(
            opts.pointer("/tsserver/path").and_then(Value::as_str),
            Some(
                t.path()
                    .join("servers/node_modules/typescript/lib/tsserver.js")
                    .to_str()
                    .unwrap()
            )
        );
    }

    #[test]
    fn every_server_gets_a_scrubbed_environment_and_the_bundled_tsserver() {
        let (t, l) = prepared("typescript-language-server", false, Path::new("/bin/true"));
        let l = l.unwrap();
        let path = l
            .cfg
            .initialization_options
            .as_ref()
            .and_then(|o| o.pointer("/tsserver/path"))
            .and_then(Value::as_str)
            .unwrap();
        assert_eq!(
            Path::new(path),
            t.path()
                .join("servers/node_modules/typescript/lib/tsserver.js")
        );
        let home = PathBuf::from(&l.env["HOME"]);
        assert!(home.starts_with(t.path().join("scratch")) && home.is_dir());
        let allowed = [
            "PATH",
            "HOME",
            "TMPDIR",
            "XDG_CACHE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_DATA_HOME",
            "XDG_STATE_HOME",
            "LANG",
            "LANGUAGE",
            "LC_ALL",
            "LC_CTYPE",
            "LC_MESSAGES",
            "TZ",
            "USER",
            "LOGNAME",
            "RUSTUP_HOME",
            "CARGO_HOME",
            "PYENV_ROOT",
        ];
        for k in l.env.keys() {
            assert!(allowed.contains(&k.as_str()), "{k} reached the server");
        }
    }

    #[test]
    fn a_required_program_is_found_in_the_servers_bin_first() {
        let (t, l) = prepared("bash-language-server", false, Path::new("/bin/true"));
        let path = l.unwrap().env["PATH"].clone();
        let first = std::env::split_paths(&path).next();
        assert_eq!(first, Some(t.path().join("servers/bin")), "{path}");
        // Only servers that require a program get it.
        let (t, l) = prepared("pyright", false, Path::new("/bin/true"));
        let path = l.unwrap().env["PATH"].clone();
        assert!(
            !std::env::split_paths(&path).any(|d| d == t.path().join("servers/bin")),
            "{path}"
        );
        // Never a servers dir inside the workspace.
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        let mut pool = PoolConfig::bundled().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        pool.scratch_dir = Some(scratch.path().to_owned());
        pool.servers_dir = Some(ws.join("tools"));
        let cfg = Arc::new(pool.server("bash-language-server").unwrap().clone());
        let l = prepare(&pool, &cfg, &ws, &ws, PathBuf::from("/bin/true")).unwrap();
        assert!(
            !std::env::split_paths(&l.env["PATH"]).any(|d| d.starts_with(&ws)),
            "{}",
            l.env["PATH"]
        );
    }

    #[test]
    fn the_bundled_tsserver_never_comes_from_the_workspace() {
        let t = tempfile::tempdir().unwrap();
        let ws = t.path().canonicalize().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let mut pool = PoolConfig::bundled().unwrap();
        pool.scratch_dir = Some(scratch.path().to_owned());
        let cfg = Arc::new(pool.server("typescript-language-server").unwrap().clone());
        for dir in [None, Some(ws.join("tools/lsp"))] {
            pool.servers_dir = dir.clone();
            let err = prepare(&pool, &cfg, &ws, &ws, PathBuf::from("/bin/true"))
                .unwrap_err()
                .to_string();
            assert!(
                err.contains("no TypeScript outside the workspace"),
                "{dir:?}: {err}"
            );
        }
    }

    #[test]
    fn a_program_inside_the_workspace_is_refused_in_every_mode() {
        for trusted in [false, true] {
            let t = tempfile::tempdir().unwrap();
            let ws = t.path().canonicalize().unwrap();
            std::fs::create_dir_all(ws.join("tools/lsp/bin")).unwrap();
            let prog = ws.join("tools/lsp/bin/clangd");
            std::fs::write(&prog, "#!/bin/sh\n").unwrap();
            let mut pool = PoolConfig::bundled().unwrap();
            pool.trusted = trusted;
            pool.scratch_dir = Some(ws.join("x").join("scratch"));
            let cfg = Arc::new(pool.server("clangd").unwrap().clone());
            let err = prepare(&pool, &cfg, &ws, &ws, prog)
                .unwrap_err()
                .to_string();
            assert!(err.contains("inside the workspace"), "{err}");
            // A link from outside into the workspace is the same program.
            let out = tempfile::tempdir().unwrap();
            let link = out.path().join("clangd");
            std::os::unix::fs::symlink(ws.join("tools/lsp/bin/clangd"), &link).unwrap();
            let err = prepare(&pool, &cfg, &ws, &ws, link)
                .unwrap_err()
                .to_string();
            assert!(err.contains("inside the workspace"), "{err}");
        }
    }

    // The native TypeScript 7 runs from its platform package, below the servers dir, and
    // reads its `lib.*.d.ts` beside it: the confinement lets it do both.
    #[test]
    fn a_native_program_in_the_servers_dir_may_run_and_read_beside_it() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("ws")).unwrap();
        let ws = t.path().join("ws").canonicalize().unwrap();
        let mut pool = PoolConfig::bundled().unwrap();
        pool.scratch_dir = Some(t.path().join("scratch"));
        pool.servers_dir = Some(t.path().canonicalize().unwrap().join("servers"));
        let native = pool
            .servers_dir
            .as_ref()
            .unwrap()
            .join("node_modules/@typescript/typescript-linux-x64/lib/tsc");
        std::fs::create_dir_all(native.parent().unwrap()).unwrap();
        std::fs::write(&native, "").unwrap();
        let cfg = Arc::new(pool.server("tsc7").unwrap().clone());
        let l = prepare(&pool, &cfg, &ws, &ws, native.clone()).unwrap();
        assert_eq!(l.program, native);
        let Some(c) = l.confinement else {
            assert!(!sandbox::support().is_available());
            return;
        };
        assert!(
            c.exec.iter().any(|d| native.starts_with(d)),
            "{native:?} not beneath any of {:?}",
            c.exec
        );
        assert!(c.protected.contains(&ws));
    }

    #[test]
    fn json_merge_is_deep() {
        let mut a = serde_json::json!({"a": {"b": 1, "c": 2}, "d": 3});
        merge_json(&mut a, &serde_json::json!({"a": {"b": 9}, "e": true}));
        assert_eq!(
            a,
            serde_json::json!({"a": {"b": 9, "c": 2}, "d": 3, "e": true})
        );
    }

    /// A scratch directory as [`scratch_dir`] leaves it: `<base>/<16 hex>/root` naming `root`.
    fn scratch_of(base: &Path, key: &str, root: &[u8]) -> PathBuf {
        let dir = base.join(key);
        std::fs::create_dir_all(dir.join("rust-analyzer").join("target")).unwrap();
        std::fs::write(dir.join(ROOT_FILE), root).unwrap();
        dir
    }

    #[test]
    fn the_sweep_removes_only_the_scratch_of_roots_certainly_gone() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("scratch");
        let live = t.path().join("live");
        std::fs::create_dir(&live).unwrap();
        let gone = t.path().join("gone");
        let keep_live = scratch_of(
            &base,
            "0123456789abcdef",
            live.as_os_str().as_encoded_bytes(),
        );
        let removed = scratch_of(
            &base,
            "1123456789abcdef",
            gone.as_os_str().as_encoded_bytes(),
        );
        // A root file being written (empty), a relative name, no root file: no proof.
        let empty = scratch_of(&base, "2123456789abcdef", b"");
        let relative = scratch_of(&base, "3123456789abcdef", b"gone");
        let unnamed = base.join("4123456789abcdef");
        std::fs::create_dir_all(&unnamed).unwrap();
        // Not lspedit's: another name, or a file.
        let foreign = scratch_of(&base, "not-ours", gone.as_os_str().as_encoded_bytes());
        sweep_scratch(&base);
        assert!(!removed.exists());
        for kept in [&keep_live, &empty, &relative, &unnamed, &foreign] {
            assert!(kept.exists(), "{kept:?} was removed");
        }
    }

    // Regression: a root file was rewritten in place at every launch, so another process's
    // sweep could read it empty, take the root for gone and remove a live server's scratch
    // (rust-analyzer's `cargo check` then failed for want of its build dir, and the check's end
    // read as "no errors").
    #[test]
    fn a_live_roots_scratch_survives_launches_and_sweeps_running_side_by_side() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir(t.path().join("ws")).unwrap();
        let ws = t.path().join("ws").canonicalize().unwrap();
        let mut pool = PoolConfig::bundled().unwrap();
        pool.scratch_dir = Some(t.path().join("scratch"));
        let base = t.path().join("scratch");
        let dir = scratch_dir(&pool, "rust-analyzer", &ws, &ws).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        let lost = std::thread::scope(|s| {
            let sweeper = s.spawn(|| {
                let mut sweeps = 0u32;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    sweep_scratch(&base);
                    sweeps += 1;
                }
                sweeps
            });
            let lost = (0..2000).find_map(|i| {
                let launched = scratch_dir(&pool, "rust-analyzer", &ws, &ws);
                (launched.is_err() || !dir.join("target").is_dir()).then_some((i, launched))
            });
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
            assert!(sweeper.join().unwrap() > 0);
            lost
        });
        assert!(
            lost.is_none(),
            "the live root's scratch was removed: {lost:?}"
        );
        assert_eq!(
            std::fs::read(dir.parent().unwrap().join(ROOT_FILE)).unwrap(),
            ws.as_os_str().as_encoded_bytes()
        );
    }
}
