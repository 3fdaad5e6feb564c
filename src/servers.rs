//! Language-server management: where installs live, what each configured server resolves to,
//! and installing the pinned versions (`lspedit servers status|install`).
//!
//! npm servers are installed with `npm ci` from the lockfile bundled in the binary (a copy of
//! `lsp-configs/package-lock.json`) into a user cache, `$LSPEDIT_SERVERS_DIR` or
//! `$XDG_CACHE_HOME/lspedit/servers` (`~/.cache/lspedit/servers`); rustup components with
//! `rustup component add`; Debian packages with `apt-get install`. The pool looks in
//! [`servers_dir`]: the user cache once it holds an install, otherwise the repository's
//! `lsp-configs/` where `scripts/install-servers` puts them during development.
//!
//! Nothing here prints: progress goes through a callback.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lspedit_lsp::config::{SERVERS_DIR_ENV, default_servers_dir};
use lspedit_lsp::{PoolConfig, ServerConfig};

/// The npm manifest of the pinned servers (`lsp-configs/package.json`).
pub const NPM_MANIFEST: &str = include_str!("../lsp-configs/package.json");
/// Its lockfile (`lsp-configs/package-lock.json`): every transitive version is pinned.
pub const NPM_LOCKFILE: &str = include_str!("../lsp-configs/package-lock.json");

/// How long `<server> --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(5);

/// Where `lspedit servers install` puts npm servers: `$LSPEDIT_SERVERS_DIR`, else
/// `$XDG_CACHE_HOME/lspedit/servers`, else `$HOME/.cache/lspedit/servers`.
pub fn install_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(SERVERS_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("lspedit").join("servers"))
}

/// The directory the pool resolves project-local server commands against:
/// `$LSPEDIT_SERVERS_DIR` when set; else the user cache once `servers install` put something
/// there; else the development default (the repository's `lsp-configs/`, or `lsp-configs/`
/// beside the executable).
pub fn servers_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(SERVERS_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    match install_dir() {
        Some(dir) if dir.join("node_modules").is_dir() => Some(dir),
        _ => default_servers_dir(),
    }
}

/// The pool configuration of the workspace at `root`, resolving servers in [`servers_dir`]
/// (unless a trusted configuration names its own `servers_dir`): the bundled servers, the
/// person's `$XDG_CONFIG_HOME/lspedit/config.toml`, then the workspace's `.lspedit/config.toml`,
/// which chooses no program to run unless the person ran `lspedit trust` (see
/// [`lspedit_lsp::trust`]). What was ignored is in [`PoolConfig::warnings`].
pub fn pool_config(root: &Path) -> Result<PoolConfig, lspedit_lsp::LspError> {
    lspedit_mcp::pool_config(root, servers_dir().as_deref())
}

/// What a configured server resolves to.
#[derive(Debug, Clone)]
pub struct ServerInfo {
    pub id: String,
    pub enabled: bool,
    /// Higher wins among servers for the same extension.
    pub priority: i32,
    /// File extensions it handles, sorted.
    pub extensions: Vec<String>,
    /// The program found, if any.
    pub binary: Option<PathBuf>,
    /// The installed version (from the npm package, else `--version`), if known.
    pub version: Option<String>,
    /// `kind package@version` of the install recipe.
    pub recipe: Option<String>,
    /// The pinned version, for recipes that pin one.
    pub pinned: Option<String>,
    /// Why the server cannot be used as configured: missing, or not the pinned version.
    pub problem: Option<String>,
}

impl ServerInfo {
    /// Installed and, where a version is pinned, at that version.
    pub fn is_ready(&self) -> bool {
        self.problem.is_none()
    }
}

/// Inspect every configured server of `config`.
pub fn inspect(config: &PoolConfig) -> Vec<ServerInfo> {
    config
        .servers
        .iter()
        .map(|s| inspect_one(config, s))
        .collect()
}

fn inspect_one(config: &PoolConfig, s: &ServerConfig) -> ServerInfo {
    let binary = config.resolve_command(s);
    let mut extensions: Vec<String> = s.languages.keys().cloned().collect();
    extensions.sort();
    let recipe = s.install.as_ref().map(|r| match &r.version {
        Some(v) => format!("{} {}@{v}", r.kind, r.package),
        None => format!("{} {}", r.kind, r.package),
    });
    let pinned = s.install.as_ref().and_then(|r| r.version.clone());
    let version = binary.as_deref().and_then(|b| match &s.install {
        Some(r) if r.kind == "npm" => npm_package_version(b, &r.package),
        _ => command_version(b),
    });
    let problem = match (&binary, &pinned, &version) {
        (None, _, _) => Some(format!(
            "`{}` not found in {} or on PATH",
            s.command,
            config.servers_dir.as_deref().map_or_else(
                || "(no servers dir)".to_string(),
                |d| d.display().to_string()
            )
        )),
        (Some(_), Some(want), Some(have)) if want != have => {
            Some(format!("version {have} installed, {want} pinned"))
        }
        _ => None,
    };
    ServerInfo {
        id: s.id.clone(),
        enabled: s.enabled,
        priority: s.priority,
        extensions,
        binary,
        version,
        recipe,
        pinned,
        problem,
    }
}

/// The version in the `package.json` of the npm package `package` that `bin` belongs to.
fn npm_package_version(bin: &Path, package: &str) -> Option<String> {
    let real = bin.canonicalize().ok()?;
    for dir in real.ancestors().skip(1) {
        let manifest = dir.join("package.json");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if json.get("name").and_then(|n| n.as_str()) == Some(package) {
            return json
                .get("version")
                .and_then(|v| v.as_str())
                .map(str::to_string);
        }
        if dir.file_name().is_some_and(|n| n == "node_modules") {
            break;
        }
    }
    None
}

/// The first line of `bin --version`, bounded by [`VERSION_TIMEOUT`].
fn command_version(bin: &Path) -> Option<String> {
    let out = run_bounded(
        Command::new(bin).arg("--version").stdin(Stdio::null()),
        VERSION_TIMEOUT,
    )
    .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_string)
}

/// Output of a child process run to completion.
struct Output {
    success: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs `cmd` in a process group of its own with piped stdout and stderr, killing the group
/// past `timeout` (npm and apt-get run children of their own).
fn run_bounded(cmd: &mut Command, timeout: Duration) -> std::io::Result<Output> {
    use std::os::unix::process::CommandExt;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let stdout = child.stdout.take().map(drain);
    let stderr = child.stderr.take().map(drain);
    let (tx, rx) = mpsc::channel();
    let id = child.id();
    let waiter = std::thread::spawn(move || {
        let status = child.wait();
        let _ = tx.send(());
        status
    });
    if rx.recv_timeout(timeout).is_err() {
        // Still running: kill its group (the waiter still owns the handle and reaps it, so the
        // pid, which is also the group id, cannot have been reused yet).
        if let Some(pid) = i32::try_from(id)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
    let status = waiter
        .join()
        .map_err(|_| std::io::Error::other("waiter thread panicked"))??;
    let collect = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok()).unwrap_or_default()
    };
    Ok(Output {
        success: status.success(),
        stdout: collect(stdout),
        stderr: collect(stderr),
    })
}

fn drain<R: Read + Send + 'static>(mut r: R) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        buf
    })
}

/// A failed install.
#[derive(Debug)]
#[non_exhaustive]
pub enum InstallError {
    /// An id that no configuration declares.
    UnknownServer { id: String },
    /// The server has no install recipe, or one of a kind lspedit cannot run.
    NoRecipe { id: String, message: String },
    /// No user cache directory could be determined (no `$HOME`).
    NoInstallDir,
    /// A step failed (the tool is missing, or exited with an error).
    Step { step: String, message: String },
}

impl std::fmt::Display for InstallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InstallError::UnknownServer { id } => write!(f, "no server named '{id}' is configured"),
            InstallError::NoRecipe { id, message } => write!(f, "{id}: {message}"),
            InstallError::NoInstallDir => write!(
                f,
                "cannot determine the install directory: set {SERVERS_DIR_ENV} or HOME"
            ),
            InstallError::Step { step, message } => write!(f, "{step} failed: {message}"),
        }
    }
}

impl std::error::Error for InstallError {}

/// What `install` did for one server.
#[derive(Debug, Clone)]
pub struct Installed {
    pub id: String,
    /// `false` when it was already installed at the pinned version.
    pub changed: bool,
    pub info: ServerInfo,
}

/// One install step, grouped so that one `npm ci` installs every npm server at once.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Npm,
    Rustup(String),
    Apt(String),
}

/// Installs the servers `ids` (all enabled servers with a recipe when empty) that are missing
/// or not at their pinned version, then re-inspects them. Idempotent: servers already
/// installed are not touched. `progress` receives one line per step.
pub fn install(
    ids: &[String],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Installed>, InstallError> {
    let config = pool_config_for_install()?;
    let wanted: Vec<&ServerConfig> = if ids.is_empty() {
        config
            .servers
            .iter()
            .filter(|s| s.enabled && s.install.is_some())
            .collect()
    } else {
        ids.iter()
            .map(|id| {
                config
                    .server(id)
                    .ok_or_else(|| InstallError::UnknownServer { id: id.clone() })
            })
            .collect::<Result<_, _>>()?
    };
    let mut steps: Vec<Step> = Vec::new();
    let mut already = Vec::new();
    for s in &wanted {
        let info = inspect_one(&config, s);
        if info.is_ready() {
            progress(&format!(
                "{}: already installed ({})",
                s.id,
                info.version.as_deref().unwrap_or("version unknown")
            ));
            already.push(s.id.clone());
            continue;
        }
        let recipe = s.install.as_ref().ok_or_else(|| InstallError::NoRecipe {
            id: s.id.clone(),
            message: "no install recipe; install it yourself and put it on PATH".into(),
        })?;
        let step = match recipe.kind.as_str() {
            "npm" => Step::Npm,
            "rustup" => Step::Rustup(recipe.package.clone()),
            "apt" => Step::Apt(recipe.package.clone()),
            other => {
                return Err(InstallError::NoRecipe {
                    id: s.id.clone(),
                    message: format!("install kind '{other}' is not supported"),
                });
            }
        };
        if !steps.contains(&step) {
            steps.push(step);
        }
    }
    for step in &steps {
        match step {
            Step::Npm => install_npm(progress)?,
            Step::Rustup(component) => install_rustup(component, progress)?,
            Step::Apt(package) => install_apt(package, progress)?,
        }
    }
    // Re-inspect with the directory the pool will now use.
    let after = PoolConfig {
        servers_dir: servers_dir(),
        ..config.clone()
    };
    let mut out = Vec::new();
    for s in wanted {
        let info = inspect_one(&after, s);
        if let Some(problem) = &info.problem {
            return Err(InstallError::Step {
                step: format!("installing {}", s.id),
                message: format!("still not usable after install: {problem}"),
            });
        }
        out.push(Installed {
            id: s.id.clone(),
            changed: !already.contains(&s.id),
            info,
        });
    }
    Ok(out)
}

/// The bundled servers resolved against [`servers_dir`] (no workspace overrides: installs are
/// per user).
fn pool_config_for_install() -> Result<PoolConfig, InstallError> {
    let mut config = PoolConfig::bundled().map_err(|e| InstallError::Step {
        step: "reading the bundled server configurations".into(),
        message: e.to_string(),
    })?;
    config.servers_dir = servers_dir();
    Ok(config)
}

fn install_npm(progress: &mut dyn FnMut(&str)) -> Result<(), InstallError> {
    let dir = install_dir().ok_or(InstallError::NoInstallDir)?;
    let step = |what: &str| format!("{what} in {}", dir.display());
    std::fs::create_dir_all(&dir).map_err(|e| InstallError::Step {
        step: step("creating the install directory"),
        message: e.to_string(),
    })?;
    for (name, text) in [
        ("package.json", NPM_MANIFEST),
        ("package-lock.json", NPM_LOCKFILE),
    ] {
        std::fs::write(dir.join(name), text).map_err(|e| InstallError::Step {
            step: step(&format!("writing {name}")),
            message: e.to_string(),
        })?;
    }
    let pins = npm_pins();
    progress(&format!(
        "npm ci: {} into {} (pinned by the bundled lockfile)",
        pins.join(", "),
        dir.display()
    ));
    let started = Instant::now();
    run_step(
        Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(&dir),
        "npm ci",
        Duration::from_secs(900),
    )?;
    progress(&format!(
        "npm ci: done in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `name@version` of every dependency in the bundled manifest.
fn npm_pins() -> Vec<String> {
    serde_json::from_str::<serde_json::Value>(NPM_MANIFEST)
        .ok()
        .and_then(|m| m.get("dependencies").and_then(|d| d.as_object()).cloned())
        .map(|deps| {
            deps.iter()
                .map(|(k, v)| format!("{k}@{}", v.as_str().unwrap_or("?")))
                .collect()
        })
        .unwrap_or_default()
}

fn install_rustup(component: &str, progress: &mut dyn FnMut(&str)) -> Result<(), InstallError> {
    progress(&format!("rustup component add {component} rust-src"));
    let started = Instant::now();
    run_step(
        Command::new("rustup").args(["component", "add", component, "rust-src"]),
        "rustup component add",
        Duration::from_secs(900),
    )?;
    progress(&format!(
        "rustup: done in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

fn install_apt(package: &str, progress: &mut dyn FnMut(&str)) -> Result<(), InstallError> {
    let root = rustix::process::getuid().is_root();
    let prefix: &[&str] = if root { &[] } else { &["sudo", "-n"] };
    for args in [
        vec!["apt-get", "update", "-qq"],
        vec!["apt-get", "install", "-y", "-qq", package],
    ] {
        let mut full: Vec<&str> = prefix.to_vec();
        full.extend(args);
        progress(&full.join(" "));
        let (prog, rest) = full.split_first().ok_or_else(|| InstallError::Step {
            step: "apt-get".into(),
            message: "empty command".into(),
        })?;
        run_step(
            Command::new(prog)
                .args(rest)
                .env("DEBIAN_FRONTEND", "noninteractive"),
            &full.join(" "),
            Duration::from_secs(900),
        )?;
    }
    Ok(())
}

fn run_step(cmd: &mut Command, step: &str, timeout: Duration) -> Result<(), InstallError> {
    let out = run_bounded(cmd.stdin(Stdio::null()), timeout).map_err(|e| InstallError::Step {
        step: step.to_string(),
        message: format!("cannot run it: {e}"),
    })?;
    if out.success {
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let tail: Vec<&str> = stderr.lines().rev().take(15).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    Err(InstallError::Step {
        step: step.to_string(),
        message: format!("it exited with an error:\n{}", tail.join("\n")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_manifest_pins_every_npm_server() {
        let pins = npm_pins();
        let config = PoolConfig::bundled().unwrap();
        for s in &config.servers {
            let Some(r) = s.install.as_ref().filter(|r| r.kind == "npm") else {
                continue;
            };
            let version = r.version.as_deref().unwrap();
            assert!(
                pins.iter().any(|p| p.ends_with(&format!("@{version}"))
                    || p.ends_with(&format!("@npm:{}@{version}", r.package))),
                "{} {}@{version} not pinned in {pins:?}",
                s.id,
                r.package
            );
        }
    }
}
