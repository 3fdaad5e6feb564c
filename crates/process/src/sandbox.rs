//! The kernel side of running a language server: a Landlock ruleset built in the parent and
//! applied between fork and exec, so the server and everything it starts (tsserver, cargo,
//! rustc, build scripts) can
//!
//! - read the workspace, the servers dir, the toolchains and the system directories, nothing
//!   else (a `#include "/home/me/secret"` or an import of a file outside the root fails to open);
//! - write only its own scratch directory, outside the workspace (its `HOME`, `TMPDIR` and
//!   Cargo's build dir), and a few device files (`/dev/null`, ...);
//! - execute only from the servers dir, the toolchains, the system binary and library
//!   directories and its scratch directory (build scripts compiled there), never a file the
//!   workspace holds;
//! - neither bind nor connect a TCP socket (Landlock ABI 4), nor reach abstract Unix sockets
//!   outside its sandbox (ABI 6). Signals are not scoped: servers probe their client with
//!   `kill(processId, 0)` and exit when it fails.
//!
//! Landlock rules are hierarchical: a right granted on `/usr` holds beneath it. A directory that
//! contains the workspace (a checkout under `/opt`, say) is therefore never granted execute or
//! write as a whole: `grant_except` grants its other entries instead, down the path to the
//! workspace.
//!
//! Where the kernel has no Landlock the server runs without it, and the pool says so
//! ([`support`]); restricted mode then also turns off what would run workspace code
//! (`docs/sandbox.md`). Landlock is Linux's: on every other system [`support`] is
//! [`Support::Unavailable`], and a [`Confinement`] handed to the spawner anyway is refused
//! (the server is not started unconfined).

#[cfg(target_os = "linux")]
use std::path::Path;
use std::path::PathBuf;
use std::sync::OnceLock;

#[cfg(target_os = "linux")]
use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, Scope,
};

/// The newest Landlock ABI whose rights lspedit asks for. Older kernels get what they support
/// (best effort); [`support`] tells which ABI is in force.
#[cfg(target_os = "linux")]
const WANTED: ABI = ABI::V7;

/// Whether this kernel enforces Landlock, and which ABI.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Landlock with this ABI version (1 = Linux 5.13; 4 adds TCP, 6 scoping).
    Landlock { abi: u8 },
    /// No Landlock: not built into the kernel, disabled at boot, or not Linux.
    Unavailable,
}

impl Support {
    /// `Landlock ABI 7` or `unavailable`, as `servers status` prints it.
    pub fn describe(self) -> String {
        match self {
            Support::Landlock { abi } => format!("Landlock ABI {abi}"),
            Support::Unavailable => "unavailable".into(),
        }
    }

    pub fn is_available(self) -> bool {
        matches!(self, Support::Landlock { .. })
    }
}

/// The kernel's Landlock support, probed once per process.
pub fn support() -> Support {
    static PROBED: OnceLock<Support> = OnceLock::new();
    *PROBED.get_or_init(probe)
}

#[cfg(target_os = "linux")]
fn probe() -> Support {
    // LANDLOCK_CREATE_RULESET_VERSION: returns the highest ABI, creates nothing.
    const VERSION: libc::c_uint = 1;
    // SAFETY: a null attribute with size 0 and the VERSION flag only queries the ABI.
    #[allow(unsafe_code)]
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            VERSION,
        )
    };
    match u8::try_from(abi) {
        Ok(abi) if abi > 0 => Support::Landlock { abi },
        _ => Support::Unavailable,
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Support {
    Support::Unavailable
}

/// What one server process may reach. Paths that do not exist are left out when the rules are
/// built; duplicates are harmless.
#[derive(Debug, Clone, Default)]
pub struct Confinement {
    /// Read (files and directory listings).
    pub read: Vec<PathBuf>,
    /// Read and execute (binaries, shared libraries, interpreters).
    pub exec: Vec<PathBuf>,
    /// Everything: read, write, create, remove, execute (the scratch directory).
    pub full: Vec<PathBuf>,
    /// Device files opened for reading and writing (`/dev/null`, ...).
    pub devices: Vec<PathBuf>,
    /// Read and write, no execute, granted as given (the operator's `sandbox_allow`).
    pub allow: Vec<PathBuf>,
    /// Single files inside the workspace (beneath a `protected` path) the server may rewrite in
    /// place (Cargo's `Cargo.lock`): granted only when each is a regular file with one link,
    /// opened beneath the workspace without following any symlink on the way
    /// (`open_beneath`), so the grant lands on that file and nothing it points at.
    pub rewrite: Vec<PathBuf>,
    /// Never granted execute or write, even beneath a directory granted them: the workspace.
    pub protected: Vec<PathBuf>,
}

/// A ruleset ready to apply in the child, or why none could be built.
#[cfg(target_os = "linux")]
pub(crate) struct Prepared {
    pub ruleset: RulesetCreated,
}

/// No ruleset exists without Landlock: nothing can be prepared, so nothing is applied.
#[cfg(not(target_os = "linux"))]
pub(crate) enum Prepared {}

#[cfg(not(target_os = "linux"))]
impl Confinement {
    /// Always `Err`: Landlock is Linux's, and the caller refuses to start the server rather than
    /// run it unconfined.
    pub(crate) fn prepare(&self) -> Result<Prepared, String> {
        Err("Landlock exists only on Linux".into())
    }
}

#[cfg(target_os = "linux")]
impl Confinement {
    /// Builds the Landlock ruleset (in the parent: it opens a handle per path). `Err` names
    /// what failed; the caller refuses to start the server then rather than run it unconfined.
    pub(crate) fn prepare(&self) -> Result<Prepared, String> {
        let fs_all = AccessFs::from_all(WANTED);
        let read = AccessFs::from_read(WANTED) & !BitFlags::from(AccessFs::Execute);
        let exec = read | AccessFs::Execute;
        let device = AccessFs::from_file(WANTED) & !BitFlags::from(AccessFs::Execute);
        let err = |what: &str, e: &dyn std::fmt::Display| format!("{what}: {e}");
        let mut ruleset = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(fs_all)
            .map_err(|e| err("landlock (fs)", &e))?
            .handle_access(AccessNet::from_all(WANTED))
            .map_err(|e| err("landlock (net)", &e))?
            // Abstract Unix sockets only: signals stay unscoped, since servers check that
            // their client lives with `kill(processId, 0)` and exit when that fails
            // (typescript-language-server does, on EPERM too).
            .scope(Scope::AbstractUnixSocket)
            .map_err(|e| err("landlock (scope)", &e))?
            .create()
            .map_err(|e| err("landlock ruleset", &e))?;
        let mut grants: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
        for p in &self.read {
            grants.push((p.clone(), read));
        }
        for p in &self.exec {
            grant_except(p, &self.protected, exec, read, &mut grants);
        }
        for p in &self.full {
            grant_except(p, &self.protected, fs_all, read, &mut grants);
        }
        for p in &self.devices {
            grants.push((p.clone(), device));
        }
        let read_write = fs_all & !BitFlags::from(AccessFs::Execute);
        for p in &self.allow {
            grants.push((p.clone(), read_write));
        }
        for path in &self.rewrite {
            let Some(fd) = self
                .protected
                .iter()
                .find(|w| path.starts_with(w))
                .and_then(|w| open_plain_file(w, path))
            else {
                continue;
            };
            let access = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate;
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| err(&format!("landlock rule for {}", path.display()), &e))?;
        }
        for (path, access) in grants {
            let Ok(fd) = PathFd::new(&path) else { continue };
            let access = if is_dir(&path) {
                access
            } else {
                access & AccessFs::from_file(WANTED)
            };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(|e| err(&format!("landlock rule for {}", path.display()), &e))?;
        }
        Ok(Prepared { ruleset })
    }
}

#[cfg(target_os = "linux")]
/// Opens `path`, which must lie beneath the directory `base`, through a handle of `base` with
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`: no symlink on the way (a workspace
/// directory swapped for a link to elsewhere) and no `..` leads it out of `base`. `None` when
/// `path` is not beneath `base` or the open fails.
pub fn open_beneath(
    base: &Path,
    path: &Path,
    flags: rustix::fs::OFlags,
    mode: rustix::fs::Mode,
) -> Option<rustix::fd::OwnedFd> {
    use rustix::fs::{OFlags, ResolveFlags};
    let rel = path.strip_prefix(base).ok()?;
    let dir = rustix::fs::open(
        base,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .ok()?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    rustix::fs::openat2(&dir, rel, flags | OFlags::CLOEXEC, mode, resolve).ok()
}

#[cfg(target_os = "linux")]
/// An `O_PATH` handle of `path`, beneath `base` ([`open_beneath`]), when it is a regular file
/// with a single link.
fn open_plain_file(base: &Path, path: &Path) -> Option<rustix::fd::OwnedFd> {
    use rustix::fs::{FileType, Mode, OFlags};
    let fd = open_beneath(base, path, OFlags::PATH | OFlags::NOFOLLOW, Mode::empty())?;
    let st = rustix::fs::fstat(&fd).ok()?;
    (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile && st.st_nlink == 1).then_some(fd)
}

#[cfg(target_os = "linux")]
fn is_dir(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_dir())
}

#[cfg(target_os = "linux")]
/// Grants `access` on `dir`, except beneath any of `protected`, which gets `fallback` (read)
/// only: when a protected path lies inside `dir`, every entry of `dir` off the way to it is
/// granted `access`, and the entry on the way is split the same way, down to the protected
/// path itself.
pub(crate) fn grant_except(
    dir: &Path,
    protected: &[PathBuf],
    access: BitFlags<AccessFs>,
    fallback: BitFlags<AccessFs>,
    out: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    if protected.iter().any(|p| dir.starts_with(p)) {
        out.push((dir, fallback));
        return;
    }
    let inside: Vec<&PathBuf> = protected.iter().filter(|p| p.starts_with(&dir)).collect();
    if inside.is_empty() {
        out.push((dir, access));
        return;
    }
    // Beneath `dir` but not the protected paths: reads everywhere, `access` off their way.
    out.push((dir.clone(), fallback));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let child = entry.path();
        if inside.iter().any(|p| p.starts_with(&child)) {
            grant_except(&child, protected, access, fallback, out);
        } else {
            out.push((child, access));
        }
    }
}

#[cfg(target_os = "linux")]
/// Applies the ruleset to the calling process; runs in the child between fork and exec, so it
/// allocates nothing (the ruleset was built in the parent). Also sets `no_new_privs`.
pub(crate) fn restrict_self(prepared: Prepared) -> std::io::Result<()> {
    match prepared.ruleset.restrict_self() {
        Ok(_) => Ok(()),
        Err(_) => Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
pub(crate) fn restrict_self(prepared: Prepared) -> std::io::Result<()> {
    match prepared {}
}

/// The system directories a server may read and execute from, those of them that exist.
pub fn system_exec_dirs() -> Vec<PathBuf> {
    existing(&[
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/opt",
        "/nix/store",
    ])
}

/// What a server may read of `/etc` (loader, name service, time zone, certificates, the
/// alternatives links), not all of it: as root, `/etc` holds secrets (`shadow`, keys).
pub fn system_read_paths() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = [
        "/etc/ld.so.cache",
        "/etc/ld.so.conf",
        "/etc/ld.so.conf.d",
        "/etc/localtime",
        "/etc/timezone",
        "/etc/passwd",
        "/etc/group",
        "/etc/nsswitch.conf",
        "/etc/hosts",
        "/etc/host.conf",
        "/etc/resolv.conf",
        "/etc/gai.conf",
        "/etc/ssl",
        "/etc/ca-certificates",
        "/etc/pki",
        "/etc/alternatives",
        "/etc/os-release",
        "/etc/debian_version",
        "/etc/mime.types",
        "/etc/locale.alias",
        "/etc/gitconfig",
        "/proc",
        "/sys",
        "/dev",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    // Debian's pythons read /etc/python3.x (sitecustomize).
    if let Ok(entries) = std::fs::read_dir("/etc") {
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with("python") {
                out.push(e.path());
            }
        }
    }
    out.retain(|p| p.exists());
    out
}

/// The paths of `paths` that exist.
fn existing(paths: &[&str]) -> Vec<PathBuf> {
    paths
        .iter()
        .map(PathBuf::from)
        .filter(|p| p.exists())
        .collect()
}

/// The device files a server may write.
pub fn device_paths() -> Vec<PathBuf> {
    existing(&[
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    ])
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn grant_except_splits_the_way_to_the_protected_path() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        for d in ["a/ws/src", "a/sib", "b"] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::fs::write(base.join("a/file"), "x").unwrap();
        let ws = base.join("a/ws");
        let rw = AccessFs::from_all(WANTED);
        let r = AccessFs::from_read(WANTED);
        let mut out = Vec::new();
        grant_except(&base, std::slice::from_ref(&ws), rw, r, &mut out);
        out.sort_by(|a, b| a.0.cmp(&b.0));
        let got: Vec<(String, bool)> = out
            .iter()
            .map(|(p, a)| {
                (
                    p.strip_prefix(&base).unwrap().display().to_string(),
                    *a == rw,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (String::new(), false),
                ("a".into(), false),
                ("a/file".into(), true),
                ("a/sib".into(), true),
                ("a/ws".into(), false),
                ("b".into(), true),
            ]
        );
        // A directory inside the protected path gets the fallback whole.
        let mut out = Vec::new();
        grant_except(&ws.join("src"), std::slice::from_ref(&ws), rw, r, &mut out);
        assert_eq!(out, vec![(ws.join("src"), r)]);
    }

    // A file granted for rewriting (Cargo.lock) is reached only beneath the workspace: a
    // symlinked directory on the way, a symlinked file, `..`, or a path elsewhere gives nothing.
    #[test]
    fn rewritable_files_are_opened_beneath_the_workspace_only() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let ws = base.join("ws");
        let outside = base.join("outside");
        std::fs::create_dir_all(ws.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        for d in [&ws, &ws.join("sub"), &outside] {
            std::fs::write(d.join("Cargo.lock"), "").unwrap();
        }
        std::os::unix::fs::symlink(&outside, ws.join("link")).unwrap();
        std::os::unix::fs::symlink(outside.join("Cargo.lock"), ws.join("sub/Lock.link")).unwrap();
        std::fs::hard_link(outside.join("Cargo.lock"), ws.join("hard.lock")).unwrap();
        assert!(open_plain_file(&ws, &ws.join("Cargo.lock")).is_some());
        assert!(open_plain_file(&ws, &ws.join("sub/Cargo.lock")).is_some());
        for bad in [
            ws.join("link/Cargo.lock"),
            ws.join("sub/Lock.link"),
            ws.join("sub/../../outside/Cargo.lock"),
            outside.join("Cargo.lock"),
            ws.join("hard.lock"),
        ] {
            assert!(open_plain_file(&ws, &bad).is_none(), "{}", bad.display());
        }
    }

    #[test]
    fn support_is_probed_once_and_consistent() {
        assert_eq!(support(), support());
        if let Support::Landlock { abi } = support() {
            assert!(abi >= 1);
        }
    }
}
