//! Workspace trust: whether the person allowed a workspace's `.lspedit/config.toml` to choose
//! the programs lspedit runs (docs/design.md §6).
//!
//! The file is written by whoever can write the workspace: a model, or the authors of a cloned
//! repository. So it may tune servers, but `command`, `args`, `env`, `install` and `servers_dir`
//! (and new servers, which need a command) apply only while the person trusts it: `lspedit
//! trust` records the file's SHA-256 under the person's config directory, like direnv's
//! `allow`, and any change to the file needs trusting again. Records live in
//! `<config dir>/trusted/<sha256 of the canonical root path>.toml`, one per workspace, each
//! naming the root and the trusted file's hash.
//!
//! The person's own `<config dir>/config.toml` is trusted as it is, unless it lies inside the
//! workspace (then the workspace can write it, and it is ignored like the trust records).
//!
//! The workspace file is read through handles (root, then `.lspedit` without following a
//! symlink, then `config.toml` without following one), so a symlink cannot point the read, and
//! the hash, at a file outside the root. On Windows, which has no `openat`, both components are
//! checked not to be links and the file is opened by path without following a link at its end
//! (`FILE_FLAG_OPEN_REPARSE_POINT`): a `.lspedit` swapped for a junction between the check and
//! the open is not caught there.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::ServersError;

/// The workspace override file, relative to the workspace root.
pub const WORKSPACE_CONFIG: &str = ".lspedit/config.toml";

/// The person's own configuration file inside [`user_config_dir`].
pub const USER_CONFIG_FILE: &str = "config.toml";

/// The folder of trust records inside [`user_config_dir`].
pub const TRUST_DIR: &str = "trusted";

/// What a trust record holds for a workspace trusted without a `.lspedit/config.toml`: the
/// workspace's toolchain files and build scripts are trusted; a config file added later is not.
pub(crate) const NO_CONFIG: &str = "none";

/// Larger workspace config files are not read (a config file is a few hundred bytes).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// lspedit's directory of the person's configuration: `$XDG_CONFIG_HOME/lspedit` when that is
/// an absolute path (the XDG spec ignores relative ones), else `$HOME/.config/lspedit`. The
/// environment values are parameters so that tests need not change the process environment;
/// [`user_config_dir_from_env`] reads them.
pub fn user_config_dir(xdg_config_home: Option<&OsStr>, home: Option<&OsStr>) -> Option<PathBuf> {
    let absolute = |v: Option<&OsStr>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    let base = absolute(xdg_config_home).or_else(|| absolute(home).map(|h| h.join(".config")))?;
    Some(base.join("lspedit"))
}

/// [`user_config_dir`] of this process's `XDG_CONFIG_HOME` and `HOME`.
pub fn user_config_dir_from_env() -> Option<PathBuf> {
    user_config_dir(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        std::env::var_os("HOME").as_deref(),
    )
}

/// The workspace's `.lspedit/config.toml`, read without following symlinks.
#[derive(Debug, Clone)]
pub(crate) struct WorkspaceFile {
    /// `<root>/.lspedit/config.toml`.
    pub path: PathBuf,
    pub text: String,
    /// Lowercase hex SHA-256 of the bytes read.
    pub sha256: String,
}

/// What reading the workspace file found.
#[derive(Debug)]
pub(crate) enum WorkspaceRead {
    Absent,
    /// Present but not read (symlink, not a regular file, too large): the warning to show.
    Refused(String),
    Read(WorkspaceFile),
}

/// Reads `<root>/.lspedit/config.toml` through handles, refusing symlinks (either component)
/// and anything but a regular file. `root` should be canonical (it is followed if a symlink).
pub(crate) fn read_workspace_file(root: &Path) -> Result<WorkspaceRead, ServersError> {
    let path = root.join(WORKSPACE_CONFIG);
    let io_err = |e: std::io::Error| ServersError::Config {
        path: path.clone(),
        message: e.to_string(),
    };
    let refused = |what: &str| {
        WorkspaceRead::Refused(format!(
            "{WORKSPACE_CONFIG} was not read: {what}; a workspace config must be a regular file inside the workspace"
        ))
    };
    // The clear message first; the handle-based open below closes the race with a swap.
    for (shown, p) in [
        (".lspedit", root.join(".lspedit")),
        (WORKSPACE_CONFIG, path.clone()),
    ] {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                return Ok(refused(&format!("{shown} is a symlink")));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(WorkspaceRead::Absent),
            Err(e) if is_not_dir(&e) => {
                return Ok(refused(".lspedit is not a directory"));
            }
            Err(e) => return Err(io_err(e)),
        }
    }
    let file = match open_no_follow(root).map_err(|e| ServersError::Config {
        path: root.to_owned(),
        message: e.to_string(),
    })? {
        Opened::File(file) => file,
        Opened::Absent => return Ok(WorkspaceRead::Absent),
        Opened::Link => return Ok(refused(".lspedit or its config.toml is a symlink")),
        Opened::Failed(e) => return Err(io_err(e)),
    };
    let meta = file.metadata().map_err(io_err)?;
    if !meta.is_file() {
        return Ok(refused("it is not a regular file"));
    }
    if meta.len() > MAX_CONFIG_BYTES {
        return Ok(refused(&format!(
            "it is larger than {MAX_CONFIG_BYTES} bytes"
        )));
    }
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io_err)?;
    let sha256 = sha256_hex(&bytes);
    let text = String::from_utf8(bytes).map_err(|_| ServersError::Config {
        path: path.clone(),
        message: "not UTF-8 text".into(),
    })?;
    Ok(WorkspaceRead::Read(WorkspaceFile { path, text, sha256 }))
}

/// How opening `<root>/.lspedit/config.toml` without following links ended.
enum Opened {
    File(std::fs::File),
    Absent,
    /// `.lspedit` or `config.toml` is a link.
    Link,
    /// Opening `.lspedit` or `config.toml` failed otherwise.
    Failed(std::io::Error),
}

/// ENOTDIR: a component on the way is a file.
#[cfg(unix)]
fn is_not_dir(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error())
}

/// `ERROR_DIRECTORY`: a name used as a directory is not one. Windows reports most paths
/// through a file as not found instead, which reads as no workspace config.
#[cfg(windows)]
fn is_not_dir(e: &std::io::Error) -> bool {
    use windows_sys::Win32::Foundation::ERROR_DIRECTORY;
    e.raw_os_error() == i32::try_from(ERROR_DIRECTORY).ok()
}

/// Opens the config through handles: `root` (`Err` when that fails), then `.lspedit` and
/// `config.toml`, neither followed if a symlink.
#[cfg(unix)]
fn open_no_follow(root: &Path) -> std::io::Result<Opened> {
    use rustix::fs::{Mode, OFlags};
    use rustix::io::Errno;
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root_fd = rustix::fs::openat(rustix::fs::CWD, root, dir_flags, Mode::empty())?;
    let opened = rustix::fs::openat(
        &root_fd,
        ".lspedit",
        dir_flags | OFlags::NOFOLLOW,
        Mode::empty(),
    )
    .and_then(|dir| {
        // NONBLOCK: a FIFO put there must not hang the open.
        rustix::fs::openat(
            &dir,
            "config.toml",
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        )
    });
    Ok(match opened {
        Ok(fd) => Opened::File(std::fs::File::from(fd)),
        Err(Errno::NOENT) => Opened::Absent,
        Err(Errno::LOOP | Errno::NOTDIR) => Opened::Link,
        Err(e) => Opened::Failed(e.into()),
    })
}

/// Opens the config by path, not following a link at its end; the caller checked that neither
/// component is a link (see the module docs for the race this leaves open on Windows). `Err`
/// when `root` cannot be read.
#[cfg(windows)]
fn open_no_follow(root: &Path) -> std::io::Result<Opened> {
    use std::os::windows::fs::OpenOptionsExt;
    use windows_sys::Win32::Storage::FileSystem::FILE_FLAG_OPEN_REPARSE_POINT;
    std::fs::metadata(root)?;
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(root.join(WORKSPACE_CONFIG));
    Ok(match opened {
        Ok(file) if file.metadata().is_ok_and(|m| m.file_type().is_symlink()) => Opened::Link,
        Ok(file) => Opened::File(file),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Opened::Absent,
        Err(e) => Opened::Failed(e),
    })
}

/// Whether the person trusts a workspace file with a given hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustState {
    /// `lspedit trust` recorded exactly this file.
    Trusted,
    /// `lspedit trust` recorded an earlier version: the file changed since.
    Changed,
    /// Never trusted (or revoked).
    Untrusted,
}

#[derive(Debug, Deserialize)]
struct TrustRecord {
    root: String,
    config_sha256: String,
}

/// The trust record of the workspace at canonical `root`.
fn record_path(user_config_dir: &Path, root: &Path) -> PathBuf {
    let key = sha256_hex(root.as_os_str().as_encoded_bytes());
    user_config_dir.join(TRUST_DIR).join(format!("{key}.toml"))
}

/// Whether the file of hash `sha256` in the workspace at canonical `root` is trusted.
pub(crate) fn trust_state(user_config_dir: &Path, root: &Path, sha256: &str) -> TrustState {
    let Ok(text) = std::fs::read_to_string(record_path(user_config_dir, root)) else {
        return TrustState::Untrusted;
    };
    match toml::from_str::<TrustRecord>(&text) {
        Ok(r) if r.root == root.to_string_lossy() => {
            if r.config_sha256 == sha256 {
                TrustState::Trusted
            } else {
                TrustState::Changed
            }
        }
        _ => TrustState::Untrusted,
    }
}

/// Whether `dir` is inside the workspace at canonical `root`, where whoever writes the
/// workspace could write the person's config and trust records too.
pub(crate) fn is_inside(dir: &Path, root: &Path) -> bool {
    // The nearest existing ancestor, canonical, with the missing rest appended.
    let mut rest = Vec::new();
    let mut cur = dir;
    loop {
        if let Ok(real) = cur.canonicalize() {
            let full = rest.iter().rev().fold(real, |p: PathBuf, c| p.join(c));
            return full.starts_with(root);
        }
        match (cur.parent(), cur.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                cur = parent;
            }
            _ => return dir.starts_with(root),
        }
    }
}

/// What [`trust`] recorded.
#[derive(Debug, Clone)]
pub struct Trusted {
    /// The canonical workspace root.
    pub root: PathBuf,
    /// The file trusted: `<root>/.lspedit/config.toml`.
    pub config: PathBuf,
    /// Its SHA-256 (lowercase hex).
    pub sha256: String,
    /// The record written.
    pub record: PathBuf,
    /// The keys it sets that only a trusted file may set (they choose programs to run), e.g.
    /// `servers.pyright.command`. Empty when trusting changes nothing.
    pub program_keys: Vec<String>,
}

/// Trusts the current `.lspedit/config.toml` of the workspace at `workspace_root`: records its
/// SHA-256 under `user_config_dir` (see [`user_config_dir`]); without the file, trusts the
/// workspace as it is (its toolchain files and cargo config, see `crate::launch`), and a
/// config file that appears later is not trusted. Refused when the file is a symlink, does
/// not parse, or when `user_config_dir` is inside the workspace.
pub fn trust(workspace_root: &Path, user_config_dir: &Path) -> Result<Trusted, ServersError> {
    let root = canonical_root(workspace_root)?;
    let path = root.join(WORKSPACE_CONFIG);
    let refuse = |message: String| ServersError::Config {
        path: path.clone(),
        message,
    };
    if is_inside(user_config_dir, &root) {
        return Err(refuse(format!(
            "cannot trust it: your config directory {} is inside the workspace, which could then write its own trust",
            user_config_dir.display()
        )));
    }
    let file = match read_workspace_file(&root)? {
        WorkspaceRead::Read(f) => f,
        // Trusting a workspace without a config lifts restricted mode (its toolchain files,
        // cargo config); a config file that appears later is not trusted.
        WorkspaceRead::Absent => WorkspaceFile {
            path: path.clone(),
            text: String::new(),
            sha256: NO_CONFIG.to_owned(),
        },
        WorkspaceRead::Refused(why) => return Err(refuse(format!("cannot trust it: {why}"))),
    };
    let program_keys = crate::config::program_keys(Some(user_config_dir), &file)?;
    let record = record_path(user_config_dir, &root);
    let text = format!(
        "# `lspedit trust`: {WORKSPACE_CONFIG} of this workspace may choose the programs lspedit\n\
         # runs while its SHA-256 is config_sha256. `lspedit trust --revoke` removes this file.\n\
         root = {}\nconfig_sha256 = {}\n",
        toml::Value::String(root.to_string_lossy().into_owned()),
        toml::Value::String(file.sha256.clone()),
    );
    write_atomically(&record, text.as_bytes())?;
    Ok(Trusted {
        root,
        config: file.path,
        sha256: file.sha256,
        record,
        program_keys,
    })
}

/// Removes the trust of the workspace at `workspace_root`; the record removed, or `None` when
/// it was not trusted.
pub fn revoke(
    workspace_root: &Path,
    user_config_dir: &Path,
) -> Result<Option<PathBuf>, ServersError> {
    let root = canonical_root(workspace_root)?;
    let record = record_path(user_config_dir, &root);
    match std::fs::remove_file(&record) {
        Ok(()) => Ok(Some(record)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ServersError::Config {
            path: record,
            message: e.to_string(),
        }),
    }
}

fn canonical_root(workspace_root: &Path) -> Result<PathBuf, ServersError> {
    workspace_root
        .canonicalize()
        .map_err(|e| ServersError::Config {
            path: workspace_root.to_owned(),
            message: format!("workspace root: {e}"),
        })
}

/// Writes `bytes` to a temp file beside `path` and renames it over `path`, so a concurrent
/// reader sees the old record or the new one, never half of one.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), ServersError> {
    let err = |e: std::io::Error| ServersError::Config {
        path: path.to_owned(),
        message: e.to_string(),
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(err)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}

/// Lowercase hex SHA-256.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PoolConfig;
    use crate::config::default_servers_dir;

    /// A workspace and a config directory of its own (passed explicitly: tests run in parallel
    /// and never read or change the process environment).
    struct Setup {
        tmp: tempfile::TempDir,
        root: PathBuf,
        user: PathBuf,
    }

    impl Setup {
        fn new() -> Setup {
            let tmp = tempfile::tempdir().unwrap();
            let base = tmp.path().canonicalize().unwrap();
            let root = base.join("ws");
            std::fs::create_dir_all(root.join(".lspedit")).unwrap();
            let user = base.join("config").join("lspedit");
            Setup { tmp, root, user }
        }

        fn with(text: &str) -> Setup {
            let s = Setup::new();
            s.write(text);
            s
        }

        fn write(&self, text: &str) {
            std::fs::write(self.root.join(WORKSPACE_CONFIG), text).unwrap();
        }

        fn write_user(&self, text: &str) {
            std::fs::create_dir_all(&self.user).unwrap();
            std::fs::write(self.user.join(USER_CONFIG_FILE), text).unwrap();
        }

        fn load(&self) -> PoolConfig {
            PoolConfig::load_with(&self.root, Some(&self.user)).unwrap()
        }
    }

    /// The bundled declaration of `id`.
    fn bundled(id: &str) -> crate::ServerConfig {
        PoolConfig::bundled().unwrap().server(id).unwrap().clone()
    }

    #[track_caller]
    fn assert_one_warning(cfg: &PoolConfig, parts: &[&str]) {
        assert_eq!(cfg.warnings.len(), 1, "{:?}", cfg.warnings);
        for p in parts {
            assert!(
                cfg.warnings[0].contains(p),
                "{p:?} not in {:?}",
                cfg.warnings
            );
        }
    }

    /// A workspace file that tries every way to choose a program, beside settings it may set.
    const HOSTILE: &str = r#"
        [pool]
        servers_dir = "evil-bin"
        max_running = 2

        [servers.pyright]
        command = "/bin/sh"
        args = ["-c", "touch /tmp/pwned"]
        env = { LD_PRELOAD = "/tmp/evil.so", PATH = "/tmp" }
        install = { kind = "npm", package = "evil" }
        priority = 7
        root_markers = ["setup.cfg"]

        [servers.pyright.settings.python]
        pythonPath = "/bin/sh"
        analysis = { typeCheckingMode = "strict", extraPaths = ["lib"] }

        [servers.rust-analyzer.settings.rust-analyzer.check]
        overrideCommand = ["/bin/sh", "-c", "id"]

        [servers.clangd]
        enabled = false

        [servers.evil]
        command = "/bin/sh"
        languages = { py = "python" }
        priority = 100
        diagnostics = { strategy = "pull" }
    "#;

    #[test]
    fn user_config_dir_from_values() {
        let check = |xdg: Option<&str>, home: Option<&str>, want: Option<&str>| {
            let got = user_config_dir(xdg.map(OsStr::new), home.map(OsStr::new));
            assert_eq!(
                got.as_deref(),
                want.map(Path::new),
                "xdg={xdg:?} home={home:?}"
            );
        };
        check(Some("/x"), Some("/h"), Some("/x/lspedit"));
        check(None, Some("/h"), Some("/h/.config/lspedit"));
        // The XDG spec: a relative (or empty) value is ignored.
        check(Some("rel"), Some("/h"), Some("/h/.config/lspedit"));
        check(Some(""), Some("/h"), Some("/h/.config/lspedit"));
        check(None, None, None);
        check(None, Some("rel"), None);
    }

    // Regression: `[servers.x] command = "/bin/sh"` in a workspace file ran on the next session.
    #[test]
    fn untrusted_workspace_config_chooses_no_program() {
        let s = Setup::with(HOSTILE);
        let cfg = s.load();
        let py = cfg.server("pyright").unwrap();
        let orig = bundled("pyright");
        assert_eq!(py.command, orig.command);
        assert_eq!(py.args, orig.args);
        assert!(py.env.is_empty(), "{:?}", py.env);
        assert_eq!(py.install.as_ref().unwrap().package, "pyright");
        assert_ne!(
            cfg.resolve_command(py).as_deref(),
            Some(Path::new("/bin/sh"))
        );
        assert!(cfg.server("evil").is_none());
        assert_eq!(cfg.server_for(Path::new("a.py")).unwrap().id, "pyright");
        assert_eq!(cfg.servers_dir, default_servers_dir());
        assert_eq!(
            py.setting(Some("python.pythonPath")),
            serde_json::Value::Null
        );
        let ra = cfg.server("rust-analyzer").unwrap();
        assert_eq!(
            ra.setting(Some("rust-analyzer.check.overrideCommand")),
            serde_json::Value::Null
        );
        // Nor which server serves a language (switching one off lets another take over).
        assert_eq!(py.priority, orig.priority);
        assert!(cfg.server("clangd").unwrap().enabled);
        // What does not choose a program still applies.
        assert_eq!(cfg.max_running, 2);
        assert_eq!(py.root_markers, ["setup.cfg"]);
        assert_eq!(
            py.setting(Some("python.analysis.typeCheckingMode")),
            serde_json::json!("strict")
        );
        assert_eq!(
            py.setting(Some("python.analysis.extraPaths")),
            serde_json::json!(["lib"])
        );
        assert_one_warning(
            &cfg,
            &[
                ".lspedit/config.toml sets ",
                "pool.servers_dir",
                "servers.pyright.priority",
                "servers.clangd.enabled",
                "servers.pyright.command",
                "servers.pyright.args",
                "servers.pyright.env",
                "servers.pyright.install",
                "servers.pyright.settings.python.pythonPath",
                "servers.rust-analyzer.settings.rust-analyzer.check.overrideCommand",
                "servers.evil (a new server)",
                "is not trusted (run 'lspedit trust' to allow it); ignored",
            ],
        );
    }

    // The per-platform programs choose what runs as `command` does: an untrusted file naming
    // one for this very platform changes nothing, and trusting it lets it apply.
    #[test]
    fn untrusted_workspace_config_chooses_no_platform_program() {
        let platform = crate::node_platform();
        let text = format!("[servers.tsc7.platform_commands]\n{platform} = \"/bin/sh\"\n");
        let s = Setup::with(&text);
        let cfg = s.load();
        let tsc7 = cfg.server("tsc7").unwrap();
        assert_eq!(tsc7.platform_commands, bundled("tsc7").platform_commands);
        assert_ne!(
            cfg.resolve_command(tsc7).as_deref(),
            Some(Path::new("/bin/sh"))
        );
        assert_one_warning(&cfg, &["servers.tsc7.platform_commands", "is not trusted"]);
        // Nor by setting `command` alone, which drops the table only for a trusted file.
        let s = Setup::with("[servers.tsc7]\ncommand = \"/bin/sh\"\n");
        let tsc7 = s.load().server("tsc7").unwrap().clone();
        assert_eq!(tsc7.platform_commands, bundled("tsc7").platform_commands);
        assert_eq!(tsc7.command, bundled("tsc7").command);

        let s = Setup::with(&text);
        let t = trust(&s.root, &s.user).unwrap();
        assert!(
            t.program_keys
                .contains(&"servers.tsc7.platform_commands".to_string()),
            "{:?}",
            t.program_keys
        );
        let cfg = s.load();
        assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
        let tsc7 = cfg.server("tsc7").unwrap();
        assert_eq!(tsc7.platform_commands[&platform], "/bin/sh");
        assert_eq!(
            cfg.resolve_program(tsc7),
            Some(crate::Program {
                path: PathBuf::from("/bin/sh"),
                from: crate::ProgramFrom::Platform(platform),
            })
        );
    }

    #[test]
    fn untrusted_file_without_program_keys_warns_nothing() {
        let cfg =
            Setup::with("[servers.clangd]\nroot_markers = [\"x\"]\n[pool]\nmax_running = 3\n")
                .load();
        assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
        assert_eq!(cfg.server("clangd").unwrap().root_markers, ["x"]);
        assert_eq!(cfg.max_running, 3);
    }

    // The class of "a workspace file changes which program serves a language": for every
    // extension, the server chosen under any untrusted file that switches servers off, raises
    // priorities or re-maps extensions is the server chosen without it.
    #[test]
    fn an_untrusted_file_never_changes_which_server_serves_a_language() {
        let bundled = PoolConfig::bundled().unwrap();
        let exts: Vec<String> = bundled
            .servers
            .iter()
            .flat_map(|s| s.languages.keys().cloned())
            .collect();
        let ids: Vec<String> = bundled.servers.iter().map(|s| s.id.clone()).collect();
        let mut files = Vec::new();
        for id in &ids {
            files.push(format!("[servers.{id}]\nenabled = false\n"));
            files.push(format!("[servers.{id}]\npriority = 1000\n"));
            files.push(format!("[servers.{id}]\nlanguages = {{ ts = \"typescript\", py = \"python\", rs = \"rust\" }}\n"));
            files.push(format!(
                "[servers.{id}]\nrestricted = {{ toolchain = \"none\" }}\n"
            ));
        }
        for text in files {
            let s = Setup::with(&text);
            let cfg = s.load();
            let before = PoolConfig::load_with(&s.root, None).unwrap();
            for ext in &exts {
                let path = PathBuf::from(format!("a.{ext}"));
                let base = bundled.server_for(&path).map(|s| s.id.clone());
                assert_eq!(
                    cfg.server_for(&path).map(|s| s.id.clone()),
                    base,
                    "{text} changed the server of .{ext}"
                );
                assert_eq!(before.server_for(&path).map(|s| s.id.clone()), base);
            }
            for id in &ids {
                assert_eq!(
                    cfg.server(id).unwrap().restricted.toolchain,
                    bundled.server(id).unwrap().restricted.toolchain
                );
            }
            assert_eq!(cfg.warnings.len(), 1, "{text}: {:?}", cfg.warnings);
        }
    }

    #[test]
    fn trusted_file_applies_until_one_byte_changes() {
        let s = Setup::with(HOSTILE);
        let t = trust(&s.root, &s.user).unwrap();
        assert_eq!(t.root, s.root);
        assert_eq!(t.config, s.root.join(WORKSPACE_CONFIG));
        assert_eq!(t.sha256, sha256_hex(HOSTILE.as_bytes()));
        assert!(t.record.starts_with(s.user.join(TRUST_DIR)));
        assert!(
            t.program_keys
                .contains(&"servers.pyright.command".to_string())
        );
        assert!(
            t.program_keys
                .contains(&"servers.evil (a new server)".to_string())
        );

        let cfg = s.load();
        assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
        let py = cfg.server("pyright").unwrap();
        assert_eq!(py.command, "/bin/sh");
        assert_eq!(py.env["LD_PRELOAD"], "/tmp/evil.so");
        assert_eq!(cfg.server("evil").unwrap().command, "/bin/sh");
        assert_eq!(cfg.servers_dir, Some(s.root.join("evil-bin")));

        // One byte changed: untrusted again, and the warning says why.
        s.write(&HOSTILE.replacen("max_running = 2", "max_running = 3", 1));
        let cfg = s.load();
        assert_eq!(
            cfg.server("pyright").unwrap().command,
            bundled("pyright").command
        );
        assert!(cfg.server("evil").is_none());
        assert_eq!(cfg.max_running, 3);
        assert_one_warning(
            &cfg,
            &["changed since it was trusted", "servers.pyright.command"],
        );

        // Trusted again, then revoked.
        trust(&s.root, &s.user).unwrap();
        assert_eq!(s.load().server("pyright").unwrap().command, "/bin/sh");
        assert_eq!(revoke(&s.root, &s.user).unwrap(), Some(t.record));
        assert_one_warning(&s.load(), &["is not trusted"]);
        assert_eq!(revoke(&s.root, &s.user).unwrap(), None);
    }

    #[test]
    fn trust_is_per_workspace_and_needs_a_config_dir() {
        let a = Setup::with(HOSTILE);
        trust(&a.root, &a.user).unwrap();
        // The same bytes in another workspace are not trusted by it.
        let other = a.tmp.path().canonicalize().unwrap().join("other");
        std::fs::create_dir_all(other.join(".lspedit")).unwrap();
        std::fs::write(other.join(WORKSPACE_CONFIG), HOSTILE).unwrap();
        let cfg = PoolConfig::load_with(&other, Some(&a.user)).unwrap();
        assert!(cfg.server("evil").is_none());
        // Without a config directory nothing is trusted.
        let cfg = PoolConfig::load_with(&a.root, None).unwrap();
        assert!(cfg.server("evil").is_none());
        assert_one_warning(&cfg, &["is not trusted"]);
    }

    #[test]
    fn the_persons_config_applies_without_trust() {
        let s = Setup::new();
        s.write_user(
            "[pool]\nservers_dir = \"bin\"\n\
             [servers.pyright]\ncommand = \"/bin/sh\"\nenv = { A = \"1\" }\n\
             [servers.mine]\ncommand = \"my-server\"\nlanguages = { ml = \"ml\" }\n\
             diagnostics = { strategy = \"pull\" }\n",
        );
        // The workspace may tune the person's server, but not choose its program.
        s.write("[servers.mine]\nroot_markers = [\"m\"]\ncommand = \"/bin/sh\"\n");
        let cfg = s.load();
        assert_eq!(cfg.server("pyright").unwrap().command, "/bin/sh");
        assert_eq!(cfg.servers_dir, Some(s.user.join("bin")));
        let mine = cfg.server("mine").unwrap();
        assert_eq!(mine.command, "my-server");
        assert_eq!(mine.root_markers, ["m"]);
        assert_one_warning(&cfg, &["servers.mine.command"]);
    }

    #[test]
    fn symlinked_or_special_workspace_config_is_not_read() {
        let check = |s: &Setup, why: &str| {
            let cfg = s.load();
            assert!(
                cfg.server("clangd").unwrap().enabled,
                "{why}: the file was read"
            );
            assert_one_warning(&cfg, &[".lspedit/config.toml was not read", why]);
            assert!(trust(&s.root, &s.user).is_err(), "{why}: trusted");
        };
        let outside = |s: &Setup| {
            let dir = s.tmp.path().join("outside");
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(
                dir.join("config.toml"),
                "[servers.clangd]\nenabled = false\n",
            )
            .unwrap();
            dir
        };

        let s = Setup::new();
        let dir = outside(&s);
        std::os::unix::fs::symlink(dir.join("config.toml"), s.root.join(WORKSPACE_CONFIG)).unwrap();
        check(&s, "config.toml is a symlink");

        let s = Setup::new();
        let dir = outside(&s);
        std::fs::remove_dir(s.root.join(".lspedit")).unwrap();
        std::os::unix::fs::symlink(&dir, s.root.join(".lspedit")).unwrap();
        check(&s, ".lspedit is a symlink");

        // A FIFO must neither be read nor hang the load.
        let s = Setup::new();
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            s.root.join(WORKSPACE_CONFIG),
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        check(&s, "not a regular file");

        let s = Setup::new();
        std::fs::remove_dir(s.root.join(".lspedit")).unwrap();
        std::fs::write(s.root.join(".lspedit"), "x").unwrap();
        check(&s, ".lspedit is not a directory");
    }

    #[test]
    fn config_dir_inside_the_workspace_is_not_trusted() {
        let s = Setup::with(HOSTILE);
        let inside = s.root.join("home/.config/lspedit");
        std::fs::create_dir_all(&inside).unwrap();
        std::fs::write(
            inside.join(USER_CONFIG_FILE),
            "[pool]\nservers_dir = \"x\"\n",
        )
        .unwrap();
        let err = trust(&s.root, &inside).unwrap_err().to_string();
        assert!(err.contains("inside the workspace"), "{err}");
        let cfg = PoolConfig::load_with(&s.root, Some(&inside)).unwrap();
        assert_eq!(cfg.servers_dir, default_servers_dir());
        assert!(cfg.server("evil").is_none());
        assert_eq!(cfg.warnings.len(), 2, "{:?}", cfg.warnings);
        assert!(cfg.warnings[0].contains("inside the workspace"));
    }

    #[test]
    fn trust_refuses_what_it_cannot_vouch_for() {
        let s = Setup::new();
        s.write("[servers.new]\ncommand = \"x\"\n");
        let err = trust(&s.root, &s.user).unwrap_err().to_string();
        assert!(err.contains("servers.new"), "{err}");
        assert!(!s.user.join(TRUST_DIR).exists());
    }

    #[test]
    fn a_workspace_without_config_is_trusted_until_one_appears() {
        let s = Setup::new();
        assert!(
            !PoolConfig::load_with(&s.root, Some(&s.user))
                .unwrap()
                .trusted
        );
        let t = trust(&s.root, &s.user).unwrap();
        assert_eq!(t.sha256, NO_CONFIG);
        assert!(t.program_keys.is_empty());
        assert!(
            PoolConfig::load_with(&s.root, Some(&s.user))
                .unwrap()
                .trusted
        );
        s.write("[pool]\nmax_running = 2\n");
        let cfg = PoolConfig::load_with(&s.root, Some(&s.user)).unwrap();
        assert!(
            !cfg.trusted,
            "a config written after the trust is not trusted"
        );
        revoke(&s.root, &s.user).unwrap();
    }
}
