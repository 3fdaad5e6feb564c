//! The write core's file-system primitives on Unix: directories opened one component at a time
//! without following a link (`openat(O_NOFOLLOW | O_DIRECTORY)`), `renameat2`'s exchange and
//! no-replace, the directory's `flock`, file leases, device and inode identities, `fchmod` and
//! the directory fsync. `workspace.rs` holds the logic, once, over these; `os_windows.rs` is the
//! Windows counterpart of each (see ARCHITECTURE.md, "Platforms").

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::AtFlags;

/// A file's identity: device and inode.
pub(crate) type Ident = (u64, u64);

/// A directory opened beneath the root by [`open_dir`]: on Unix the handle alone (an `O_PATH`
/// descriptor, which holds the directory whatever happens to its path).
pub(crate) type WalkedDir = Dir;

/// The raw OS error of a name the file system cannot hold (`ENAMETOOLONG`).
pub(crate) const NAME_TOO_LONG: i32 = libc::ENAMETOOLONG;

/// Whether the path component `name` names the protected name `protected`: the same bytes.
pub(crate) fn same_name(name: &OsStr, protected: &str) -> bool {
    name == protected
}

/// What [`file_stat`] tells of an open file.
pub(crate) struct FileStat {
    pub(crate) ident: Ident,
    pub(crate) nlink: u64,
    pub(crate) is_file: bool,
}

/// Open the directory `rel` (relative to `root`, the workspace root's handle; empty = the root)
/// for writing in it: one component at a time, each `O_NOFOLLOW | O_DIRECTORY` relative to the
/// one before, missing ones created when `create`. `rel` is a path already resolved (its
/// symlinks followed) and checked by name, so it holds no symlink; one swapped in since (a
/// directory exchanged with a link to `.git/hooks`) makes the open fail (`ENOTDIR`) instead of
/// being followed, and nothing is written. (cap-std's own open follows symlinks that stay
/// beneath the root, protected directories included.) The root's path is not needed here: the
/// walk starts from its handle.
pub(crate) fn open_dir(root: &Dir, _root_path: &Path, rel: &Path, create: bool) -> io::Result<Dir> {
    use rustix::fs::{Mode, OFlags};
    // Flags are distinct bits here and in every open of this file: `^` of them is their
    // `|` (equivalent mutants, excluded in .cargo/mutants.toml).
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = rustix::fs::openat(root, ".", flags, Mode::empty())?;
    for comp in rel.components() {
        let Component::Normal(c) = comp else {
            return Err(io::Error::other("not a resolved path beneath the root"));
        };
        let opened = match rustix::fs::openat(&fd, c, flags, Mode::empty()) {
            Err(rustix::io::Errno::NOENT) if create => {
                match rustix::fs::mkdirat(&fd, c, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
                rustix::fs::openat(&fd, c, flags, Mode::empty())
            }
            r => r,
        };
        fd = opened.map_err(|e| match e {
            rustix::io::Errno::NOTDIR | rustix::io::Errno::LOOP => not_a_directory(c),
            e => e.into(),
        })?;
    }
    Ok(Dir::from_std_file(fs::File::from(fd)))
}

/// The error of a component that is not a directory (or was replaced by a link).
pub(crate) fn not_a_directory(c: &OsStr) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotADirectory,
        format!(
            "`{}` is not a directory (or was replaced by a symlink after the path was checked); nothing was written",
            c.to_string_lossy()
        ),
    )
}

/// An exclusive `flock` on a directory, held until dropped. Every lspedit process takes it for
/// the compare-and-switch of a file in that directory, so those never interleave across
/// processes; a directory (not the file) is locked because the switch replaces the file's inode
/// and a new file has none yet.
#[derive(Debug)]
pub(crate) struct DirLock {
    fd: rustix::fd::OwnedFd,
}

impl DirLock {
    pub(crate) fn exclusive(dir: &WalkedDir) -> io::Result<DirLock> {
        // A descriptor of its own: flock belongs to the open file description, so two threads
        // of one process also exclude each other. (`.` of a directory handle is a directory.)
        let fd = rustix::fs::openat(
            dir,
            ".",
            rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?;
        rustix::fs::flock(&fd, rustix::fs::FlockOperation::LockExclusive)?;
        Ok(DirLock { fd })
    }
}

impl Drop for DirLock {
    /// Closing the descriptor would release the lock too, unless a child forked meanwhile
    /// holds a copy of it (an equivalent mutant otherwise, excluded in .cargo/mutants.toml).
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.fd, rustix::fs::FlockOperation::Unlock);
    }
}

/// Whether some descriptor (another program's, or another of ours) has the file `f` is open on
/// for writing: a write through it would land in that file after it is replaced, unseen. Asked
/// as Linux does it: a read lease can be taken only on a file no one has open for writing. The
/// lease is given back at once; it is only ever taken on a file no longer reachable by its name
/// (displaced by the exchange), so no one opens it meanwhile to break it. `false` where leases
/// are not available (a file of another owner, a file system or kernel without them): the
/// re-read after the switch is then the last word. `no_leases`: a unit test plays a file system
/// without them.
#[allow(unsafe_code)]
pub(crate) fn open_for_writing_elsewhere(f: &fs::File, no_leases: bool) -> bool {
    use std::os::fd::AsRawFd;
    if no_leases {
        return false;
    }
    let fd = f.as_raw_fd();
    // SAFETY: `fcntl(F_SETLEASE)` on a descriptor this function borrows for its whole run, with
    // integer arguments only; no memory is passed to the kernel.
    let taken = unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) };
    if taken == 0 {
        // SAFETY: as above.
        unsafe { libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK) };
        return false;
    }
    io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN)
}

/// The identity, link count and kind of the open file `f`.
pub(crate) fn file_stat(f: &fs::File) -> io::Result<FileStat> {
    let st = rustix::fs::fstat(f)?;
    // `nlink_t` is `u32` on some targets, `u64` on this one.
    #[allow(clippy::useless_conversion)]
    let nlink = u64::from(st.st_nlink);
    Ok(FileStat {
        ident: (st.st_dev, st.st_ino),
        nlink,
        is_file: rustix::fs::FileType::from_raw_mode(st.st_mode).is_file(),
    })
}

/// The identity of the entry `name` in `dir` itself (a symlink is not followed).
pub(crate) fn entry_ident(dir: &WalkedDir, name: &OsStr) -> io::Result<Option<Ident>> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some((st.st_dev, st.st_ino))),
        Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Whether the entry `name` in `dir` is a symlink.
pub(crate) fn entry_is_link(dir: &WalkedDir, name: &OsStr) -> bool {
    rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
        .is_ok_and(|s| rustix::fs::FileType::from_raw_mode(s.st_mode).is_symlink())
}

/// The permission bits of the entry `name` in `dir` when it is a regular file (a symlink is not
/// followed), for the file that replaces it.
pub(crate) fn entry_file_mode(dir: &Dir, name: &OsStr) -> Option<u32> {
    match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) if rustix::fs::FileType::from_raw_mode(st.st_mode).is_file() => {
            Some(st.st_mode & 0o7777)
        }
        _ => None,
    }
}

/// The permission bits of the open file `f`, for a file put back in its place.
pub(crate) fn file_mode(f: &fs::File) -> io::Result<Option<u32>> {
    Ok(Some(rustix::fs::fstat(f)?.st_mode & 0o7777))
}

/// Give the staged file `f` the permission bits `mode`.
pub(crate) fn set_staged_mode(f: &fs::File, mode: u32) -> io::Result<()> {
    f.set_permissions(fs::Permissions::from_mode(mode))
}

/// Set the permission bits of the open file `f` to `mode` (`fchmod`).
pub(crate) fn set_file_mode(f: &fs::File, mode: u32) -> io::Result<()> {
    rustix::fs::fchmod(f, rustix::fs::Mode::from_raw_mode(mode)).map_err(Into::into)
}

/// Open the entry `name` in `dir` for reading without following a symlink or blocking.
pub(crate) fn open_nofollow(dir: &WalkedDir, name: &OsStr) -> io::Result<fs::File> {
    let fd = rustix::fs::openat(
        dir,
        name,
        rustix::fs::OFlags::RDONLY
            | rustix::fs::OFlags::NOFOLLOW
            | rustix::fs::OFlags::NONBLOCK
            | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )?;
    Ok(fs::File::from(fd))
}

/// Open the entry `name` in `dir` for appending, without following a symlink or blocking;
/// `Ok(None)` when it is absent or a symlink.
pub(crate) fn open_append(dir: &WalkedDir, name: &OsStr) -> io::Result<Option<fs::File>> {
    use rustix::fs::{Mode, OFlags};
    match rustix::fs::openat(
        dir,
        name,
        OFlags::WRONLY | OFlags::APPEND | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
        Mode::empty(),
    ) {
        Ok(fd) => Ok(Some(fs::File::from(fd))),
        Err(rustix::io::Errno::NOENT | rustix::io::Errno::LOOP) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Options to open an existing file for reading without blocking (opening a FIFO for reading
/// would otherwise wait for a writer).
pub(crate) fn read_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    opts
}

/// Options to open the file a switch compares and replaces: on Unix a plain read
/// ([`read_options`]); a write through another descriptor is caught by the lease and the
/// re-reads.
pub(crate) fn guard_options() -> OpenOptions {
    read_options()
}

/// Options to create a temp file, readable and writable by its owner only until its mode is
/// set.
pub(crate) fn temp_options() -> OpenOptions {
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true).mode(0o600);
    opts
}

/// How [`rename_with`] renames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rename {
    /// `RENAME_EXCHANGE`: the two entries swap.
    Exchange,
    /// `RENAME_NOREPLACE`: fails (`AlreadyExists`) when the target exists.
    NoReplace,
}

/// Rename `from` to `to` in `dir` with `renameat2`'s `how`. `no_flags`: a unit test plays a
/// file system without them.
pub(crate) fn rename_with(
    dir: &WalkedDir,
    from: &OsStr,
    to: &OsStr,
    how: Rename,
    no_flags: bool,
) -> io::Result<()> {
    if no_flags {
        return Err(rustix::io::Errno::INVAL.into());
    }
    let flags = match how {
        Rename::Exchange => rustix::fs::RenameFlags::EXCHANGE,
        Rename::NoReplace => rustix::fs::RenameFlags::NOREPLACE,
    };
    rustix::fs::renameat_with(dir, from, dir, to, flags).map_err(Into::into)
}

/// The kernel or file system does not do this `renameat2` flag (some network and FUSE file
/// systems, kernels before 3.15). Taking the fallback on another error changes nothing (the
/// plain operation fails the same way): `true` for it is an equivalent mutant, in
/// .cargo/mutants.toml; `without_rename_flags_the_switch_falls_back_and_keeps_other_writes`
/// plays a file system without the flags.
pub(crate) fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP)
    )
}

/// Rename `from` over `to` in `dir` (`renameat`).
pub(crate) fn rename(dir: &WalkedDir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    rustix::fs::renameat(dir, from, dir, to).map_err(Into::into)
}

/// Remove the entry `name` in `dir` (`unlinkat`).
pub(crate) fn unlink(dir: &WalkedDir, name: &OsStr) -> io::Result<()> {
    rustix::fs::unlinkat(dir, name, AtFlags::empty()).map_err(Into::into)
}

/// A new name `to` for the file `from` in `dir` (`linkat`): fails (`AlreadyExists`) when `to`
/// exists, never replaces it.
pub(crate) fn link(dir: &WalkedDir, from: &OsStr, to: &OsStr) -> io::Result<()> {
    rustix::fs::linkat(dir, from, dir, to, AtFlags::empty()).map_err(Into::into)
}

/// Whether the process `pid` (not this one) may still be running: only a signal 0 answered
/// "no such process" says it is gone.
pub(crate) fn process_alive(pid: i32) -> bool {
    rustix::process::Pid::from_raw(pid).is_some_and(|p| {
        !matches!(
            rustix::process::test_kill_process(p),
            Err(rustix::io::Errno::SRCH)
        )
    })
}

/// fsync a directory. A `Dir` is an `O_PATH` handle, which `fsync` refuses (`EBADF`): the
/// directory is opened for reading through it first (`"."`, so nothing outside it is reached).
pub(crate) fn try_sync_dir(dir: &Dir) -> io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    rustix::fs::fsync(&fd).map_err(Into::into)
}

/// The identity of the regular file at `abs` (`entry`: the entry itself, a symlink not
/// followed), for telling two names of one file apart from two files; `None` for anything else.
pub(crate) fn path_ident(abs: &Path, entry: bool) -> Option<Ident> {
    use std::os::unix::fs::MetadataExt;
    let meta = if entry {
        fs::symlink_metadata(abs)
    } else {
        fs::metadata(abs)
    };
    match meta {
        Ok(m) if m.is_file() => Some((m.dev(), m.ino())),
        _ => None,
    }
}

/// The identity of the entry at `abs` itself (a symlink is not followed).
pub(crate) fn entry_ident_at(abs: &Path) -> io::Result<Ident> {
    use std::os::unix::fs::MetadataExt;
    let m = fs::symlink_metadata(abs)?;
    Ok((m.dev(), m.ino()))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::time::Duration;

    use rustix::fs::{FileType, FlockOperation, Mode};
    use rustix::io::{Errno, FdFlags};

    /// A temp directory and its handle, as the walk opens one.
    fn root() -> (tempfile::TempDir, Dir) {
        let tmp = tempfile::tempdir().unwrap();
        let dir = walked(tmp.path());
        (tmp, dir)
    }

    /// The directory `path`'s handle, as the walk opens one.
    fn walked(path: &Path) -> Dir {
        let ambient = Dir::open_ambient_dir(path, cap_std::ambient_authority()).unwrap();
        open_dir(&ambient, path, Path::new(""), false).unwrap()
    }

    fn inherited(fd: impl rustix::fd::AsFd) -> bool {
        !rustix::io::fcntl_getfd(fd)
            .unwrap()
            .contains(FdFlags::CLOEXEC)
    }

    fn mkfifo(dir: &Path, name: &str) {
        let mode = Mode::from_raw_mode(0o600);
        rustix::fs::mknodat(rustix::fs::CWD, dir.join(name), FileType::Fifo, mode, 0).unwrap();
    }

    /// `f`'s answer, run on a thread of its own, or `None` when it has not answered in 10 s:
    /// it blocked.
    fn answers<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(10)).ok()
    }

    /// The open of a file to read: a symlink at the name is refused, not followed; a FIFO
    /// does not wait for a writer; the descriptor is not inherited by a program started later.
    #[test]
    fn the_reading_open_never_follows_a_link_nor_blocks_nor_is_inherited() {
        let (tmp, dir) = root();
        fs::write(tmp.path().join("f"), "a").unwrap();
        std::os::unix::fs::symlink("f", tmp.path().join("l")).unwrap();
        mkfifo(tmp.path(), "p");
        let f = open_nofollow(&dir, OsStr::new("f")).unwrap();
        assert!(!inherited(&f));
        let link = open_nofollow(&dir, OsStr::new("l")).unwrap_err();
        assert_eq!(link.raw_os_error(), Some(libc::ELOOP));
        let path = tmp.path().to_path_buf();
        let fifo = answers(move || {
            let dir = walked(&path);
            open_nofollow(&dir, OsStr::new("p")).is_ok()
        });
        assert_eq!(
            fifo,
            Some(true),
            "opening a FIFO to read waited for a writer"
        );
    }

    /// The open of a file to append to: `None` for a symlink or a missing name; the bytes go
    /// after the file's; a FIFO without a reader is an error at once, not a wait; the
    /// descriptor is not inherited.
    #[test]
    fn the_appending_open_appends_never_follows_a_link_nor_blocks_nor_is_inherited() {
        let (tmp, dir) = root();
        fs::write(tmp.path().join("f"), "a").unwrap();
        std::os::unix::fs::symlink("f", tmp.path().join("l")).unwrap();
        mkfifo(tmp.path(), "p");
        assert!(open_append(&dir, OsStr::new("l")).unwrap().is_none());
        assert!(open_append(&dir, OsStr::new("gone")).unwrap().is_none());
        let mut f = open_append(&dir, OsStr::new("f")).unwrap().unwrap();
        assert!(!inherited(&f));
        io::Write::write_all(&mut f, b"b").unwrap();
        assert_eq!(fs::read_to_string(tmp.path().join("f")).unwrap(), "ab");
        let path = tmp.path().to_path_buf();
        let fifo = answers(move || {
            let dir = walked(&path);
            open_append(&dir, OsStr::new("p"))
                .map(|f| f.is_some())
                .map_err(|e| e.raw_os_error())
        });
        assert_eq!(
            fifo,
            Some(Err(Some(libc::ENXIO))),
            "opening a FIFO to append waited"
        );
    }

    /// The directory lock excludes another descriptor's lock until it is dropped, and its
    /// descriptor is not inherited.
    #[test]
    fn the_directory_lock_excludes_others_until_dropped() {
        let (tmp, dir) = root();
        let lock = DirLock::exclusive(&dir).unwrap();
        assert!(!inherited(&lock.fd));
        let other = fs::File::open(tmp.path()).unwrap();
        let try_lock = || rustix::fs::flock(&other, FlockOperation::NonBlockingLockExclusive);
        assert_eq!(try_lock(), Err(Errno::WOULDBLOCK));
        drop(lock);
        assert_eq!(try_lock(), Ok(()));
    }

    /// The identity of an entry itself: a symlink's is its own, not its target's, which is the
    /// identity of the file an open reaches.
    #[test]
    fn an_entrys_identity_is_its_own() {
        let (tmp, _dir) = root();
        let (f, l) = (tmp.path().join("f"), tmp.path().join("l"));
        fs::write(&f, "a").unwrap();
        std::os::unix::fs::symlink("f", &l).unwrap();
        let opened = file_stat(&fs::File::open(&l).unwrap()).unwrap().ident;
        assert_eq!(entry_ident_at(&f).unwrap(), opened);
        assert_ne!(entry_ident_at(&l).unwrap(), opened);
        assert!(entry_ident_at(&tmp.path().join("gone")).is_err());
    }

    /// The mode a replacement takes over: only a regular file's, never a symlink's (whose own
    /// bits are 0o777) or a directory's.
    #[test]
    fn only_a_regular_files_mode_is_taken_over() {
        let (tmp, dir) = root();
        let f = tmp.path().join("f");
        fs::write(&f, "a").unwrap();
        fs::set_permissions(&f, fs::Permissions::from_mode(0o640)).unwrap();
        std::os::unix::fs::symlink("f", tmp.path().join("l")).unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        let mode = |name: &str| entry_file_mode(&dir, OsStr::new(name));
        assert_eq!(mode("f"), Some(0o640));
        assert_eq!(mode("l"), None);
        assert_eq!(mode("d"), None);
        assert_eq!(mode("gone"), None);
    }
}
