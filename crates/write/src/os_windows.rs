//! The write core's file-system primitives on Windows, the counterparts of `os_unix.rs` behind
//! the same functions (ARCHITECTURE.md, "Platforms", says what each does and what differs).
//!
//! - **The walk.** A directory is opened one component at a time by path, each with
//!   `FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS` (the component itself, never
//!   what a link or junction points to) and refused when it is a link (a name-surrogate
//!   reparse point: a symlink, junction or mount point) or not a directory. Every handle of the chain, the root's included, is held for as long as the
//!   directory is used, shared for reading and writing but not for deletion, so no component
//!   can be renamed, deleted or swapped for a junction under the write: the path the walk
//!   built keeps naming the directory it opened, and the entry operations below act on
//!   `path\name`. The root is checked to be the one the workspace opened (same identity).
//! - **No exchange.** Windows has no `RENAME_EXCHANGE`: [`rename_with`] answers `Unsupported`
//!   and the switch takes its plain-rename path (`MoveFileEx` with replace, from the temp file
//!   in the same directory). The file compared is opened without `FILE_SHARE_WRITE`
//!   ([`guard_options`]) and held until the switch is over: share modes are mandatory, so no
//!   other program can have it open for writing (the open fails if one has) or open it for
//!   writing meanwhile; there is no late write to catch, which is what the exchange, the lease
//!   and the re-reads catch on Linux.
//! - **No-replace** is `MoveFileExW` without `MOVEFILE_REPLACE_EXISTING`.
//! - **The directory lock** is a named mutex keyed by the directory's identity (a byte-range
//!   lock cannot be taken on a directory).
//! - **Identities** are the volume serial number and file index (`GetFileInformationByHandle`).
//! - **Modes** are the read-only attribute only ([`set_file_mode`]); **no directory fsync**
//!   ([`try_sync_dir`]).
//!
//! Checked to compile (`scripts/windows-check`), not run: no Windows machine runs the tests.

// The Win32 calls are foreign functions; each block says why its arguments are valid.
#![allow(unsafe_code)]

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::marker::PhantomData;
use std::ops::Deref;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::OpenOptionsExt as _;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::{Component, Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use windows_sys::Win32::Foundation::{
    ERROR_FILENAME_EXCED_RANGE, ERROR_INVALID_PARAMETER, STILL_ACTIVE, WAIT_ABANDONED,
    WAIT_OBJECT_0,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT,
    FILE_ATTRIBUTE_TAG_INFO, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT,
    FILE_GENERIC_READ, FILE_READ_ATTRIBUTES, FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE,
    FILE_WRITE_ATTRIBUTES, FileAttributeTagInfo, GetFileInformationByHandle,
    GetFileInformationByHandleEx, MoveFileExW,
};
use windows_sys::Win32::System::Threading::{
    CreateMutexW, GetExitCodeProcess, INFINITE, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    ReleaseMutex, WaitForSingleObject,
};

/// A file's identity: volume serial number and file index.
pub(crate) type Ident = (u64, u64);

/// The raw OS error of a name the file system cannot hold (`ERROR_FILENAME_EXCED_RANGE`).
pub(crate) const NAME_TOO_LONG: i32 = ERROR_FILENAME_EXCED_RANGE as i32;

/// Every share mode: an open that must not stand in anyone's way.
const SHARE_ALL: u32 = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE;

/// Whether the path component `name` names the protected name `protected` as Windows reads a
/// name: without case (`.GIT` is `.git`), without the trailing dots and spaces Win32 drops
/// (`.git.`), and without a stream suffix (`.git::$INDEX_ALLOCATION` is the directory `.git`
/// itself, `.git:x` a stream of it). A short (8.3) name is not recognized here; it exists only
/// for an existing entry, which the protected check also sees resolved to its long name.
pub(crate) fn same_name(name: &OsStr, protected: &str) -> bool {
    let key = |s: &str| {
        let base = s.split(':').next().unwrap_or_default();
        base.trim_end_matches(['.', ' ']).to_uppercase()
    };
    key(&name.to_string_lossy()) == key(protected)
}

/// What [`file_stat`] tells of an open file.
pub(crate) struct FileStat {
    pub(crate) ident: Ident,
    pub(crate) nlink: u64,
    pub(crate) is_file: bool,
}

/// A directory opened beneath the root by [`open_dir`]: its handle as a `Dir`, the path the walk
/// built to it, and the handles of every directory on the way, held so that none of them can
/// be renamed or deleted while this one is used (they are shared for reading and writing, not
/// for deletion).
#[derive(Debug)]
pub(crate) struct WalkedDir {
    dir: Dir,
    path: PathBuf,
    _chain: Vec<fs::File>,
}

impl Deref for WalkedDir {
    type Target = Dir;

    fn deref(&self) -> &Dir {
        &self.dir
    }
}

impl WalkedDir {
    /// The entry `name` of this directory, by path (the chain held keeps the path this
    /// directory's).
    fn entry(&self, name: &OsStr) -> io::Result<PathBuf> {
        let mut parts = Path::new(name).components();
        match (parts.next(), parts.next()) {
            (Some(Component::Normal(_)), None) => Ok(self.path.join(name)),
            _ => Err(io::Error::other(format!(
                "`{}` is not a name in one directory",
                name.to_string_lossy()
            ))),
        }
    }
}

/// `GetFileInformationByHandle` of an open handle.
fn info(h: &impl AsRawHandle) -> io::Result<BY_HANDLE_FILE_INFORMATION> {
    let mut out = BY_HANDLE_FILE_INFORMATION::default();
    // SAFETY: the handle is borrowed open for the call; `out` is a valid, writable struct of the
    // type the call fills.
    if unsafe { GetFileInformationByHandle(h.as_raw_handle(), &mut out) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(out)
}

fn ident(i: &BY_HANDLE_FILE_INFORMATION) -> Ident {
    (
        u64::from(i.dwVolumeSerialNumber),
        (u64::from(i.nFileIndexHigh) << 32) | u64::from(i.nFileIndexLow),
    )
}

/// What the write core asks of an open handle.
struct Stat {
    ident: Ident,
    nlink: u64,
    dir: bool,
    /// A link: a reparse point whose tag is a name surrogate (a symlink, a junction or mount
    /// point), which names another file. Other reparse points (cloud-file placeholders such as
    /// OneDrive's, deduplicated or compressed files) are the file itself and are not links.
    link: bool,
}

/// The name-surrogate bit of a reparse tag (`IsReparseTagNameSurrogate`).
const NAME_SURROGATE: u32 = 0x2000_0000;

fn stat(h: &impl AsRawHandle) -> io::Result<Stat> {
    let i = info(h)?;
    let link = if i.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT == 0 {
        false
    } else {
        let mut tag = FILE_ATTRIBUTE_TAG_INFO::default();
        // SAFETY: the handle is borrowed open for the call; `tag` is the struct of the class
        // asked, its size given.
        if unsafe {
            GetFileInformationByHandleEx(
                h.as_raw_handle(),
                FileAttributeTagInfo,
                (&raw mut tag).cast(),
                std::mem::size_of::<FILE_ATTRIBUTE_TAG_INFO>() as u32,
            )
        } == 0
        {
            return Err(io::Error::last_os_error());
        }
        tag.ReparseTag & NAME_SURROGATE != 0
    };
    Ok(Stat {
        ident: ident(&i),
        nlink: u64::from(i.nNumberOfLinks),
        dir: i.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY != 0,
        link,
    })
}

/// A component of the walk: the directory itself (a link or junction is opened as itself, not
/// followed), readable, shared for reading and writing but not for deletion.
fn open_component(path: &Path) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

/// Open the directory `rel` (relative to `root`, the workspace root's handle, opened from
/// `root_path`; empty = the root) for writing in it: one component at a time, each opened as
/// itself ([`open_component`]) and refused when it is a link ([`Stat::link`]: a symlink or
/// junction swapped in since the path was resolved) or not a directory, missing ones created when
/// `create`. Every handle of the chain is held in the answer.
pub(crate) fn open_dir(
    root: &Dir,
    root_path: &Path,
    rel: &Path,
    create: bool,
) -> io::Result<WalkedDir> {
    let mut path = root_path.to_path_buf();
    let mut current = open_component(&path)?;
    if ident(&info(&current)?) != ident(&info(root)?) {
        return Err(io::Error::other(
            "the workspace root was moved or replaced since it was opened; nothing was written",
        ));
    }
    let mut chain = Vec::new();
    for comp in rel.components() {
        let Component::Normal(c) = comp else {
            return Err(io::Error::other("not a resolved path beneath the root"));
        };
        path.push(c);
        let opened = match open_component(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && create => {
                match fs::create_dir(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(e),
                }
                open_component(&path)
            }
            r => r,
        }?;
        let st = stat(&opened)?;
        if st.link || !st.dir {
            return Err(not_a_directory(c));
        }
        chain.push(std::mem::replace(&mut current, opened));
    }
    Ok(WalkedDir {
        dir: Dir::from_std_file(current),
        path,
        _chain: chain,
    })
}

/// The error of a component that is not a directory (or was replaced by a link or junction).
fn not_a_directory(c: &OsStr) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotADirectory,
        format!(
            "`{}` is not a directory (or was replaced by a link or junction after the path was checked); nothing was written",
            c.to_string_lossy()
        ),
    )
}

/// An exclusive cross-process lock on a directory, held until dropped: a named mutex
/// (`Global\lspedit-dir-<volume>-<index>`, the directory's identity), because a byte-range lock
/// (`LockFileEx`) cannot be taken on a directory. Every lspedit process takes it for the
/// compare-and-switch of a file in that directory, as `flock` on Unix. A holder that dies
/// abandons it, and the next waiter takes it. A mutex belongs to the thread that took it, so
/// the lock is not `Send`: it is released by the thread that holds it. Unlike `flock`, one
/// thread taking it twice does not wait for itself; the switch never nests it.
#[derive(Debug)]
pub(crate) struct DirLock {
    mutex: OwnedHandle,
    _thread: PhantomData<*const ()>,
}

impl DirLock {
    pub(crate) fn exclusive(dir: &WalkedDir) -> io::Result<DirLock> {
        let (volume, index) = ident(&info(&dir.dir)?);
        let name: Vec<u16> = format!("Global\\lspedit-dir-{volume:08x}-{index:016x}")
            .encode_utf16()
            .chain(std::iter::once(0))
            .collect();
        // SAFETY: `name` is a NUL-terminated UTF-16 string alive for the call; no security
        // attributes (the default) and no initial ownership.
        let handle = unsafe { CreateMutexW(std::ptr::null(), 0, name.as_ptr()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `handle` was just returned open by `CreateMutexW` and is owned by no one else.
        let mutex = unsafe { OwnedHandle::from_raw_handle(handle) };
        // SAFETY: the mutex handle is open (owned above) for the call.
        match unsafe { WaitForSingleObject(mutex.as_raw_handle(), INFINITE) } {
            // Abandoned: its holder died mid-switch; the lock is this thread's now.
            WAIT_OBJECT_0 | WAIT_ABANDONED => Ok(DirLock {
                mutex,
                _thread: PhantomData,
            }),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // SAFETY: the mutex handle is open, and owned by this thread (the lock is not `Send`).
        unsafe { ReleaseMutex(self.mutex.as_raw_handle()) };
    }
}

/// Whether another handle has `f` open for writing. Never, on Windows: `f` is the file a
/// switch compared, opened without `FILE_SHARE_WRITE` ([`guard_options`]), so that open failed
/// if anyone had it open for writing and no one can open it so while it is held. `no_leases`
/// (a unit test's file system without leases) changes nothing.
pub(crate) fn open_for_writing_elsewhere(f: &fs::File, no_leases: bool) -> bool {
    let _ = (f, no_leases);
    false
}

/// The identity, link count and kind of the open file `f`.
pub(crate) fn file_stat(f: &fs::File) -> io::Result<FileStat> {
    let st = stat(f)?;
    Ok(FileStat {
        ident: st.ident,
        nlink: st.nlink,
        is_file: !st.dir && !st.link,
    })
}

/// The entry `name` of `dir` itself (a link is opened as itself), for its attributes only,
/// standing in no one's way; `Ok(None)` when it does not exist.
fn entry_stat(dir: &WalkedDir, name: &OsStr) -> io::Result<Option<Stat>> {
    let opened = fs::OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(dir.entry(name)?);
    match opened {
        Ok(f) => stat(&f).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The identity of the entry `name` in `dir` itself (a link is not followed).
pub(crate) fn entry_ident(dir: &WalkedDir, name: &OsStr) -> io::Result<Option<Ident>> {
    Ok(entry_stat(dir, name)?.map(|st| st.ident))
}

/// Whether the entry `name` in `dir` is a link (a name-surrogate reparse point, [`Stat::link`]).
pub(crate) fn entry_is_link(dir: &WalkedDir, name: &OsStr) -> bool {
    entry_stat(dir, name).is_ok_and(|st| st.is_some_and(|st| st.link))
}

/// The mode bits [`set_file_mode`] reads back from a read-only attribute: `0o444` when set,
/// `0o644` when not (Windows has no other bit to carry).
fn mode_of(readonly: bool) -> u32 {
    if readonly { 0o444 } else { 0o644 }
}

/// The mode of the entry `name` in `dir` when it is a regular file (a link is not followed):
/// its read-only attribute ([`mode_of`]), carried to the file that replaces it.
pub(crate) fn entry_file_mode(dir: &Dir, name: &OsStr) -> Option<u32> {
    match dir.symlink_metadata(name) {
        Ok(m) if m.is_file() => Some(mode_of(m.permissions().readonly())),
        _ => None,
    }
}

/// The mode of the open file `f`: its read-only attribute ([`mode_of`]), for a file put back
/// in its place.
pub(crate) fn file_mode(f: &fs::File) -> io::Result<Option<u32>> {
    Ok(Some(mode_of(f.metadata()?.permissions().readonly())))
}

/// Give the staged file `f` the permission bits `mode`, as [`set_file_mode`] does.
pub(crate) fn set_staged_mode(f: &fs::File, mode: u32) -> io::Result<()> {
    set_file_mode(f, mode)
}

/// Set the permission bits of the open file `f` (opened with `FILE_WRITE_ATTRIBUTES`) to
/// `mode` as far as Windows has them: its one bit is the read-only attribute, set when `mode`
/// has no owner write bit (`0o200`) and cleared when it has. The execute, group and other bits
/// have no Windows counterpart (a file runs by its extension; access is its ACL) and are not
/// applied, as git with `core.fileMode` false does; the ACL is the one the file inherits.
pub(crate) fn set_file_mode(f: &fs::File, mode: u32) -> io::Result<()> {
    let mut perms = f.metadata()?.permissions();
    perms.set_readonly(mode & 0o200 == 0);
    f.set_permissions(perms)
}

/// Open the entry `name` in `dir` for reading and for setting its attributes
/// ([`set_file_mode`]), a link opened as itself.
pub(crate) fn open_nofollow(dir: &WalkedDir, name: &OsStr) -> io::Result<fs::File> {
    fs::OpenOptions::new()
        .access_mode(FILE_GENERIC_READ | FILE_WRITE_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(dir.entry(name)?)
}

/// Open the entry `name` in `dir` for appending; `Ok(None)` when it is absent or a link.
pub(crate) fn open_append(dir: &WalkedDir, name: &OsStr) -> io::Result<Option<fs::File>> {
    let opened = fs::OpenOptions::new()
        .append(true)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(dir.entry(name)?);
    match opened {
        Ok(f) if stat(&f)?.link => Ok(None),
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Options to open an existing file for reading, standing in no one's way.
pub(crate) fn read_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.read(true).share_mode(SHARE_ALL);
    opts
}

/// Options to open the file a switch compares and replaces: shared for reading and deletion
/// (the replace renames over it) but not for writing. The open fails (a sharing violation,
/// reported as an I/O error naming it) while another program has the file open for writing,
/// and while it is held no one can open it for writing: nothing can be written to it between
/// the compare and the replace.
pub(crate) fn guard_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_DELETE);
    opts
}

/// Options to create a temp file.
pub(crate) fn temp_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true).share_mode(SHARE_ALL);
    opts
}

/// How [`rename_with`] renames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rename {
    /// The two entries swap: Windows has no such rename (always `Unsupported`).
    Exchange,
    /// Fails (`AlreadyExists`) when the target exists.
    NoReplace,
}

/// Rename `from` to `to` in `dir`: [`Rename::NoReplace`] is `MoveFileExW` without
/// `MOVEFILE_REPLACE_EXISTING`; [`Rename::Exchange`] does not exist on Windows and answers
/// `Unsupported`, so the switch takes its plain-rename path. `no_flags`: a unit test plays a
/// file system without either.
pub(crate) fn rename_with(
    dir: &WalkedDir,
    from: &OsStr,
    to: &OsStr,
    how: Rename,
    no_flags: bool,
) -> io::Result<()> {
    if no_flags || how == Rename::Exchange {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "Windows has no rename that exchanges two files",
        ));
    }
    let wide = |p: PathBuf| -> Vec<u16> {
        p.as_os_str()
            .encode_wide()
            .chain(std::iter::once(0))
            .collect()
    };
    let (from, to) = (wide(dir.entry(from)?), wide(dir.entry(to)?));
    // SAFETY: both are NUL-terminated UTF-16 paths alive for the call; flags 0: never replace.
    if unsafe { MoveFileExW(from.as_ptr(), to.as_ptr(), 0) } == 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// The rename is not available here ([`Rename::Exchange`] on Windows, or a file system without
/// the no-replace move).
pub(crate) fn unsupported(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
}

/// Rename `from` over `to` in `dir` (`MoveFileEx` with replace, through std).
pub(crate) fn rename(dir: &WalkedDir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    fs::rename(dir.entry(from)?, dir.entry(to)?)
}

/// Remove the entry `name` in `dir`.
pub(crate) fn unlink(dir: &WalkedDir, name: &OsStr) -> io::Result<()> {
    fs::remove_file(dir.entry(name)?)
}

/// A new name `to` for the file `from` in `dir` (`CreateHardLinkW`): fails (`AlreadyExists`)
/// when `to` exists, never replaces it.
pub(crate) fn link(dir: &WalkedDir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    fs::hard_link(dir.entry(from)?, dir.entry(to)?)
}

/// Whether the process `pid` (not this one) may still be running: gone only when no process
/// has that id (`OpenProcess` refuses it as an invalid parameter) or it has an exit code.
pub(crate) fn process_alive(pid: i32) -> bool {
    let Ok(pid) = u32::try_from(pid) else {
        return false;
    };
    if pid == 0 {
        return false;
    }
    // SAFETY: integer arguments only; the handle returned, if any, is owned below.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        // Denied (another user's process) is alive; only "no such process" is gone.
        return io::Error::last_os_error().raw_os_error() != Some(ERROR_INVALID_PARAMETER as i32);
    }
    // SAFETY: `handle` was just returned open by `OpenProcess` and is owned by no one else.
    let process = unsafe { OwnedHandle::from_raw_handle(handle) };
    let mut code = 0u32;
    // SAFETY: the process handle is open for the call; `code` is a valid `u32` to fill.
    let known = unsafe { GetExitCodeProcess(process.as_raw_handle(), &mut code) } != 0;
    !known || code == STILL_ACTIVE as u32
}

/// fsync a directory: nothing on Windows. NTFS journals its metadata, so a rename or removal is
/// entirely done or not done after a crash (atomicity holds); whether the very last one
/// survives a power loss is up to the journal's own flush, which lspedit does not force
/// (`FlushFileBuffers` needs a directory handle opened for writing, which the walk does not
/// hold).
pub(crate) fn try_sync_dir(dir: &Dir) -> io::Result<()> {
    let _ = dir;
    Ok(())
}

/// The identity of the regular file at `abs` (`entry`: the entry itself, a link not followed),
/// for telling two names of one file apart from two files; `None` for anything else.
pub(crate) fn path_ident(abs: &Path, entry: bool) -> Option<Ident> {
    let mut flags = FILE_FLAG_BACKUP_SEMANTICS;
    if entry {
        flags |= FILE_FLAG_OPEN_REPARSE_POINT;
    }
    let f = fs::OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(flags)
        .open(abs)
        .ok()?;
    let st = stat(&f).ok()?;
    (!st.dir && !st.link).then_some(st.ident)
}

/// The identity of the entry at `abs` itself (a link or junction is opened as itself).
pub(crate) fn entry_ident_at(abs: &Path) -> io::Result<Ident> {
    let f = fs::OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .share_mode(SHARE_ALL)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(abs)?;
    Ok(ident(&info(&f)?))
}
