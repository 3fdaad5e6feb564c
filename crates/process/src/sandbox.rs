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
//! - create no socket at all, of any family (the seccomp filter of [`crate::seccomp`]: Landlock
//!   alone sees TCP `bind`/`connect` only, not MPTCP, Fast Open, UDP or path Unix sockets),
//!   and, inside Landlock, neither bind nor connect TCP (ABI 4) nor reach abstract Unix sockets
//!   outside its sandbox (ABI 6);
//! - signal no process outside its sandbox (ABI 6 scoping; servers are told no client process
//!   id, so none probes lspedit with `kill(pid, 0)`), and trace or read the memory of none;
//! - read no secret a grant would otherwise cover: [`Confinement::hidden`] paths (credential
//!   files, lspedit's own key and trust records, the runtime directory) get no right at all,
//!   even beneath a directory granted whole.
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

/// Whether this kernel enforces Landlock, which ABI, and whether it takes the seccomp filter
/// that closes the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// Landlock with this ABI version (1 = Linux 5.13; 4 adds TCP, 6 scoping); `seccomp`:
    /// the network filter is installed too ([`crate::seccomp`]).
    Landlock { abi: u8, seccomp: bool },
    /// No Landlock: not built into the kernel, disabled at boot, or not Linux.
    Unavailable,
}

impl Support {
    /// `Landlock ABI 7, seccomp (no sockets)`, `Landlock ABI 7, no seccomp (network not
    /// closed)` or `unavailable`, as `servers status` prints it.
    pub fn describe(self) -> String {
        match self {
            Support::Landlock { abi, seccomp: true } => {
                format!("Landlock ABI {abi}, seccomp (no sockets)")
            }
            Support::Landlock {
                abi,
                seccomp: false,
            } => format!("Landlock ABI {abi}, no seccomp (network not closed)"),
            Support::Unavailable => "unavailable".into(),
        }
    }

    /// Servers run confined (Landlock at least).
    pub fn is_available(self) -> bool {
        matches!(self, Support::Landlock { .. })
    }

    /// The whole sandbox holds: Landlock, signal scoping (ABI 6) and the network filter.
    /// Restricted mode runs workspace code only where this is true.
    pub fn holds(self) -> bool {
        matches!(self, Support::Landlock { abi, seccomp: true } if abi >= 6)
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
        Ok(abi) if abi > 0 => Support::Landlock {
            abi,
            seccomp: crate::seccomp::available(),
        },
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
    /// Never granted anything but a listing, even beneath a directory granted whole: secrets
    /// (credential files, lspedit's key and trust records, the runtime directory). A directory
    /// on the way to one keeps only its listing; its other entries get the directory's rights.
    pub hidden: Vec<PathBuf>,
}

/// A ruleset ready to apply in the child, or why none could be built.
#[cfg(target_os = "linux")]
pub(crate) struct Prepared {
    pub ruleset: RulesetCreated,
    /// The seccomp program, where the kernel takes one.
    pub filter: Option<Vec<libc::sock_filter>>,
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
            // Abstract Unix sockets and signals: a server signals nothing outside its sandbox.
            // Servers get no client `processId`, so none probes lspedit with `kill(pid, 0)`
            // (typescript-language-server and vscode-languageserver exit when that fails).
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
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
        let hidden: Vec<PathBuf> = self
            .hidden
            .iter()
            .map(|h| h.canonicalize().unwrap_or_else(|_| h.clone()))
            .collect();
        for (path, access) in hide(grants, &hidden) {
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
        let filter = crate::seccomp::available().then(crate::seccomp::program);
        Ok(Prepared { ruleset, filter })
    }
}

/// The paths [`hide`] leaves readable (file contents, not only a listing) of `granted` once
/// `hidden` is cut out: what a server may still read, for the launch tests of
/// `lspedit-servers`, which decide both lists.
#[cfg(target_os = "linux")]
#[doc(hidden)]
pub fn hide_for_test(granted: &[PathBuf], hidden: &[PathBuf]) -> Vec<PathBuf> {
    let read = AccessFs::from_read(WANTED);
    let hidden: Vec<PathBuf> = hidden
        .iter()
        .map(|h| h.canonicalize().unwrap_or_else(|_| h.clone()))
        .collect();
    hide(granted.iter().map(|g| (g.clone(), read)).collect(), &hidden)
        .into_iter()
        .filter(|(_, a)| a.contains(AccessFs::ReadFile))
        .map(|(p, _)| p)
        .collect()
}

#[cfg(target_os = "linux")]
/// `grants` with every [`Confinement::hidden`] path taken out: a grant inside a hidden path is
/// dropped; a grant that contains one is split like [`grant_except`], except that the
/// directories on the way keep only their listing (`ReadDir`, inherited beneath: names, never
/// a file's contents) and the hidden path itself gets nothing more. A file created later
/// beneath such a directory cannot be read either.
pub(crate) fn hide(
    grants: Vec<(PathBuf, BitFlags<AccessFs>)>,
    hidden: &[PathBuf],
) -> Vec<(PathBuf, BitFlags<AccessFs>)> {
    fn split(
        dir: &Path,
        access: BitFlags<AccessFs>,
        hidden: &[PathBuf],
        out: &mut Vec<(PathBuf, BitFlags<AccessFs>)>,
    ) {
        if hidden.iter().any(|h| dir.starts_with(h)) {
            return;
        }
        if !hidden.iter().any(|h| h.starts_with(dir)) {
            out.push((dir.to_owned(), access));
            return;
        }
        // On the way: its listing only (names, never a file's contents), where it had one.
        if access.contains(AccessFs::ReadDir) && is_dir(dir) {
            out.push((dir.to_owned(), BitFlags::from(AccessFs::ReadDir)));
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            split(&entry.path(), access, hidden, out);
        }
    }
    let mut out = Vec::new();
    for (path, access) in grants {
        let path = path.canonicalize().unwrap_or(path);
        split(&path, access, hidden, &mut out);
    }
    out
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
/// Then, as root, drops every capability, and installs the seccomp filter last (it would refuse
/// nothing the steps before need, but last is the order that cannot get in their way).
pub(crate) fn restrict_self(prepared: Prepared) -> std::io::Result<()> {
    let Prepared { ruleset, filter } = prepared;
    // The program's memory is the parent's allocation: never freed here (exec drops it).
    let filter = std::mem::ManuallyDrop::new(filter);
    if ruleset.restrict_self().is_err() {
        return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    }
    crate::seccomp::drop_capabilities_if_root()?;
    if let Some(filter) = filter.as_ref() {
        crate::seccomp::install(filter)?;
    }
    Ok(())
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

    /// A hidden path gets no right but a listing, whatever grant covers it: the directories on
    /// the way keep only their listing (so a secret created later beneath them cannot be read),
    /// their other entries keep the grant's rights, and a grant inside a hidden path is dropped.
    #[test]
    fn hidden_paths_are_cut_out_of_every_grant() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        for d in [
            "home/.cargo/registry",
            "home/.cargo/bin",
            "home/.ssh",
            "other",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        std::fs::write(base.join("home/.cargo/credentials.toml"), "token").unwrap();
        std::fs::write(base.join("home/.cargo/config.toml"), "").unwrap();
        let r = AccessFs::from_read(WANTED) & !BitFlags::from(AccessFs::Execute);
        let x = r | AccessFs::Execute;
        let hidden = vec![
            base.join("home/.cargo/credentials.toml"),
            base.join("home/.cargo/credentials"),
            base.join("home/.ssh"),
        ];
        let grants = vec![
            (base.join("home"), r),
            (base.join("home/.cargo"), x),
            (base.join("home/.ssh/id_ed25519"), r),
            (base.join("other"), r),
        ];
        let list = BitFlags::from(AccessFs::ReadDir);
        let mut got: Vec<(String, &str)> = hide(grants, &hidden)
            .into_iter()
            .map(|(p, a)| {
                let what = match a {
                    a if a == x => "exec",
                    a if a == r => "read",
                    a if a == list => "list",
                    _ => "other",
                };
                (p.strip_prefix(&base).unwrap().display().to_string(), what)
            })
            .collect();
        got.sort();
        let want: Vec<(String, &str)> = [
            ("home", "list"),
            ("home/.cargo", "list"),
            ("home/.cargo", "list"),
            ("home/.cargo/bin", "exec"),
            ("home/.cargo/bin", "read"),
            ("home/.cargo/config.toml", "exec"),
            ("home/.cargo/config.toml", "read"),
            ("home/.cargo/registry", "exec"),
            ("home/.cargo/registry", "read"),
            ("other", "read"),
        ]
        .into_iter()
        .map(|(p, w)| (p.to_owned(), w))
        .collect();
        assert_eq!(got, want);
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
        if let Support::Landlock { abi, .. } = support() {
            assert!(abi >= 1);
        }
    }
}
