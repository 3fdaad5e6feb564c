//! The workspace: every path confined to the root, atomic writes, file reads.
//!
//! Every file-system operation goes through an open handle of the root directory (`cap-std`,
//! which resolves beneath it with `openat2(RESOLVE_BENEATH)` where the kernel has it): a path is
//! checked by name, then used relative to that handle, so a directory swapped for a symlink
//! between the check and the use cannot move a read, write or delete outside the root. A write,
//! delete or mode change opens the directory it acts in one component at a time without
//! following any symlink, so a swapped-in link to a protected directory beneath the root (say
//! `.git/hooks`) makes it fail instead of being followed.
//!
//! Writes go to a temporary file in the target's directory, are fsynced, take the original
//! file's permissions and are renamed over the target, so after a crash at any point the file is
//! entirely old or entirely new. The temp file, the rename and the cleanup use one handle of that
//! directory.
//!
//! Protected paths (`.git/`, `.lspedit/` and a configurable list) are never written, created,
//! deleted or renamed; delete acts on a symlink itself, never on its target.

use std::ffi::OsString;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use rustix::fs::AtFlags;
use sha2::{Digest, Sha256};

use crate::error::{Reason, ToolError};

/// Names no tool ever writes under, whatever the configuration: the VCS's and lspedit's own.
pub const ALWAYS_PROTECTED: &[&str] = &[".git", ".lspedit"];

/// The default protected names: [`ALWAYS_PROTECTED`] and the other version-control systems'.
pub const DEFAULT_PROTECTED: &[&str] = &[".git", ".lspedit", ".hg", ".svn", ".jj"];

/// The workspace root and the file operations confined to it.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
    /// The root, opened once: every operation is relative to this handle.
    dir: Arc<Dir>,
    /// Path components under which nothing is written (any depth: a submodule's `.git` too).
    protected: Arc<[String]>,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `base_sha`: the first 12 hex characters of the SHA-256 of the file bytes.
pub fn base_sha(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// `base_sha` of a file state: `None` when the file does not exist.
pub(crate) fn state_sha(bytes: Option<&[u8]>) -> Option<String> {
    bytes.map(base_sha)
}

/// How a file state's `base_sha` is shown in messages.
pub(crate) fn show_sha(sha: Option<&str>) -> &str {
    sha.unwrap_or("(absent)")
}

/// New content staged under a temp name in its target's directory, ready to be renamed over the
/// target by [`Workspace::install`] (or removed by [`Staged::discard`]). The directory handle was
/// opened beneath the root when staging, so the rename lands in the same directory whatever
/// happens to the path in between.
#[derive(Debug)]
pub struct Staged {
    dir: Dir,
    name: OsString,
    tmp: String,
    /// The temp file relative to the root (what a journal records).
    rel_tmp: PathBuf,
    path: String,
}

impl Staged {
    /// The temp file's path relative to the workspace root.
    pub fn rel_tmp(&self) -> &Path {
        &self.rel_tmp
    }

    /// Remove the temp file (best effort: it is ours and must not stay).
    pub fn discard(self) {
        let _ = self.dir.remove_file(&self.tmp);
    }

    /// fsync the directory, so a rename in it is durable. Failure only weakens durability, not
    /// atomicity, so it is not reported.
    pub fn sync_dir(&self) {
        sync_dir(&self.dir);
    }
}

impl Workspace {
    /// Open a workspace rooted at `root` (which must be an existing directory), with the
    /// [`DEFAULT_PROTECTED`] names.
    pub fn open(root: impl AsRef<Path>) -> Result<Workspace, ToolError> {
        let shown = root.as_ref().display().to_string();
        let root = fs::canonicalize(root.as_ref())
            .map_err(|e| ToolError::io(&shown, "opening the workspace root", &e))?;
        if !root.is_dir() {
            return Err(ToolError::new(
                Reason::IoError,
                Some(&shown),
                "the workspace root is not a directory",
            ));
        }
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority())
            .map_err(|e| ToolError::io(&shown, "opening the workspace root", &e))?;
        Ok(Workspace {
            root,
            dir: Arc::new(dir),
            protected: DEFAULT_PROTECTED.iter().map(|s| s.to_string()).collect(),
        })
    }

    /// Replace the protected names (directory or file names, at any depth) with `names`; `.git`
    /// and `.lspedit` stay protected whatever the list says.
    pub fn with_protected<I, S>(mut self, names: I) -> Workspace
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list: Vec<String> = ALWAYS_PROTECTED.iter().map(|s| s.to_string()).collect();
        for n in names {
            let n = n.into();
            if !n.is_empty() && !list.contains(&n) {
                list.push(n);
            }
        }
        self.protected = list.into();
        self
    }

    /// The protected names.
    pub fn protected(&self) -> &[String] {
        &self.protected
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A path given by a caller, made relative to the root and cleaned of `.` and `..`, without
    /// touching the disk. `..` that leaves the root and absolute paths elsewhere are
    /// `path_outside_workspace`.
    fn lexical(&self, path: &str) -> Result<PathBuf, ToolError> {
        if path.is_empty() || path.contains('\0') {
            return Err(ToolError::new(
                Reason::PathOutsideWorkspace,
                Some(path),
                "empty or invalid path",
            ));
        }
        let given = Path::new(path);
        let relative: PathBuf = if given.is_absolute() {
            match given.strip_prefix(&self.root) {
                Ok(rel) => rel.to_path_buf(),
                Err(_) => return Err(self.outside(path, "absolute path outside the workspace")),
            }
        } else {
            given.to_path_buf()
        };
        let mut clean = PathBuf::new();
        for comp in relative.components() {
            match comp {
                Component::Normal(c) => clean.push(c),
                Component::CurDir => {}
                Component::ParentDir => {
                    if !clean.pop() {
                        return Err(self.outside(path, "the path climbs above the root with `..`"));
                    }
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(self.outside(path, "absolute path"));
                }
            }
        }
        if clean.as_os_str().is_empty() {
            return Err(self.outside(path, "the path names the root itself, not a file"));
        }
        Ok(clean)
    }

    fn outside(&self, path: &str, why: &str) -> ToolError {
        ToolError::new(
            Reason::PathOutsideWorkspace,
            Some(path),
            format!(
                "{why}; paths must stay inside the workspace root {}",
                self.root.display()
            ),
        )
    }

    /// `root/clean` with the symlinks along its existing part followed: the real location, which
    /// must be inside the root.
    fn follow(&self, clean: &Path, path: &str) -> Result<PathBuf, ToolError> {
        let full = self.root.join(clean);
        let mut existing = full.clone();
        let mut rest = Vec::new();
        while fs::symlink_metadata(&existing).is_err() {
            match (
                existing.file_name().map(|n| n.to_os_string()),
                existing.parent(),
            ) {
                (Some(name), Some(parent)) => {
                    rest.push(name);
                    existing = parent.to_path_buf();
                }
                _ => break,
            }
        }
        let real = fs::canonicalize(&existing)
            .map_err(|_| self.outside(path, "a symlink in the path points nowhere"))?;
        if !real.starts_with(&self.root) {
            return Err(self.outside(path, "a symlink in the path leads outside the workspace"));
        }
        let mut resolved = real;
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }

    /// Resolve a path given by a caller (relative to the root, or absolute inside it) to an
    /// absolute path inside the root, following symlinks that stay inside. `..` that leaves the
    /// root, absolute paths elsewhere and symlinks that escape are `path_outside_workspace`.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let clean = self.lexical(path)?;
        self.follow(&clean, path)
    }

    /// The protected name a workspace-relative path lies under (or is), if any, by name only:
    /// the one rule every tool and the workflow use. [`Workspace::check_writable`] also follows
    /// symlinks.
    pub fn protected_in(&self, rel: &Path) -> Option<&str> {
        rel.components().find_map(|c| match c {
            Component::Normal(n) => self
                .protected
                .iter()
                .find(|p| n == p.as_str())
                .map(String::as_str),
            _ => None,
        })
    }

    fn refuse_protected(&self, path: &str, rel: &Path) -> Result<(), ToolError> {
        match self.protected_in(rel) {
            Some(name) => Err(ToolError::new(
                Reason::ProtectedPath,
                Some(path),
                format!(
                    "`{name}` is protected: no tool writes, creates, deletes or renames anything under it; change the project's own files instead"
                ),
            )),
            None => Ok(()),
        }
    }

    /// Refuse (`protected_path`) a path that is, or leads through a symlink to, a protected one.
    /// Checked by every writing operation; callers that plan before writing call it to refuse
    /// early.
    pub fn check_writable(&self, path: &str) -> Result<PathBuf, ToolError> {
        let clean = self.lexical(path)?;
        self.refuse_protected(path, &clean)?;
        let abs = self.follow(&clean, path)?;
        self.refuse_protected(path, self.rel(&abs, path)?)?;
        Ok(abs)
    }

    /// Resolve a path to the directory entry it names: the parent's symlinks are followed, the
    /// last component is not. Delete and rename act on this entry, so a symlink is removed
    /// itself, never its target.
    pub fn resolve_entry(&self, path: &str) -> Result<PathBuf, ToolError> {
        let clean = self.lexical(path)?;
        self.refuse_protected(path, &clean)?;
        let name = clean
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?
            .to_os_string();
        let parent = match clean.parent() {
            Some(p) if !p.as_os_str().is_empty() => self.follow(p, path)?,
            _ => self.root.clone(),
        };
        let entry = parent.join(name);
        self.refuse_protected(path, self.rel(&entry, path)?)?;
        Ok(entry)
    }

    /// `abs` relative to the root (it was resolved inside it).
    fn rel<'a>(&self, abs: &'a Path, path: &str) -> Result<&'a Path, ToolError> {
        abs.strip_prefix(&self.root)
            .map_err(|_| self.outside(path, "the path resolves outside the workspace"))
    }

    /// The path relative to the root, with `/` separators, for reports.
    pub fn display_path(&self, abs: &Path) -> String {
        abs.strip_prefix(&self.root)
            .unwrap_or(abs)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// Open the directory `rel` (relative to the root; empty = the root) beneath the root, for
    /// writing in it: one component at a time, each `O_NOFOLLOW | O_DIRECTORY` relative to the
    /// one before, missing ones created when `create`. `rel` is a path already resolved (its
    /// symlinks followed) and checked by name, so it holds no symlink; one swapped in since (a
    /// directory exchanged with a link to `.git/hooks`) makes the open fail (`ENOTDIR`) instead of
    /// being followed, and nothing is written. (cap-std's own open follows symlinks that stay
    /// beneath the root, protected directories included.)
    fn open_dir(&self, rel: &Path, create: bool) -> std::io::Result<Dir> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut fd = rustix::fs::openat(&*self.dir, ".", flags, Mode::empty())?;
        for comp in rel.components() {
            let Component::Normal(c) = comp else {
                return Err(std::io::Error::other(
                    "not a resolved path beneath the root",
                ));
            };
            fd = match rustix::fs::openat(&fd, c, flags, Mode::empty()) {
                Err(rustix::io::Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, c, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                    rustix::fs::openat(&fd, c, flags, Mode::empty())?
                }
                r => r?,
            };
        }
        Ok(Dir::from_std_file(fs::File::from(fd)))
    }

    /// Read a file; `Ok(None)` when it does not exist. Only regular files are read: a FIFO,
    /// socket or device is refused (reading one would block or never end).
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ToolError> {
        let abs = self.resolve(path)?;
        let rel = self.rel(&abs, path)?;
        let file = match open_existing(&self.dir, rel) {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(None),
            Err(e) => return Err(ToolError::io(path, "reading", &e)),
        };
        let meta = file
            .metadata()
            .map_err(|e| ToolError::io(path, "reading", &e))?;
        if meta.is_dir() {
            return Err(ToolError::new(
                Reason::IoError,
                Some(path),
                "is a directory, not a file",
            ));
        }
        if !meta.is_file() {
            return Err(ToolError::new(
                Reason::IoError,
                Some(path),
                "not a regular file (a FIFO, socket or device); only regular files are read or patched",
            ));
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        (&file)
            .read_to_end(&mut bytes)
            .map_err(|e| ToolError::io(path, "reading", &e))?;
        Ok(Some(bytes))
    }

    /// Whether the entry `path` names exists (a symlink counts, whatever it points to).
    pub fn entry_exists(&self, path: &str) -> Result<bool, ToolError> {
        let abs = self.resolve_entry(path)?;
        let rel = self.rel(&abs, path)?;
        Ok(self.dir.symlink_metadata(rel).is_ok())
    }

    /// Write `bytes` atomically: temp file in the same directory, fsync, permissions of the old
    /// file, rename over the target, fsync of the directory. Parent directories are created.
    pub fn write_atomic(&self, path: &str, bytes: &[u8]) -> Result<(), ToolError> {
        self.write_atomic_mode(path, bytes, None)
    }

    /// [`Workspace::write_atomic`], giving a file that does not exist yet the permission bits
    /// `new_mode` (masked to `0o777`: never setuid, setgid or sticky).
    pub fn write_atomic_mode(
        &self,
        path: &str,
        bytes: &[u8],
        new_mode: Option<u32>,
    ) -> Result<(), ToolError> {
        let staged = self.stage(path, bytes, new_mode)?;
        self.install(&staged)?;
        staged.sync_dir();
        Ok(())
    }

    /// Stage `bytes` for `path` (refused when protected): written and fsynced under a temp name
    /// in the target's directory (created if missing), with the target's permissions, or
    /// `new_mode & 0o777` for a new file.
    pub fn stage(
        &self,
        path: &str,
        bytes: &[u8],
        new_mode: Option<u32>,
    ) -> Result<Staged, ToolError> {
        let abs = self.check_writable(path)?;
        let name = abs
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?;
        let tmp = temp_name(&name.to_string_lossy());
        self.stage_named(path, bytes, new_mode, &tmp)
    }

    /// [`Workspace::stage`] under a temp name chosen by the caller (a journal records it before
    /// staging), which must be [`temp_name`]'s pattern for the target's name.
    pub fn stage_named(
        &self,
        path: &str,
        bytes: &[u8],
        new_mode: Option<u32>,
        tmp: &str,
    ) -> Result<Staged, ToolError> {
        let abs = self.check_writable(path)?;
        let rel = self.rel(&abs, path)?;
        let name = rel
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?
            .to_os_string();
        let parent = rel.parent().unwrap_or(Path::new(""));
        if temp_owner_pid(tmp, &name.to_string_lossy()).is_none() {
            return Err(ToolError::new(
                Reason::IoError,
                Some(path),
                format!("`{tmp}` is not an lspedit temp-file name for this file"),
            ));
        }
        let dir = self
            .open_dir(parent, true)
            .map_err(|e| ToolError::io(path, "writing", &e))?;
        stage_in(&dir, &name, tmp, bytes, new_mode)
            .map_err(|e| ToolError::io(path, "writing", &e))?;
        let tmp = tmp.to_string();
        Ok(Staged {
            rel_tmp: parent.join(&tmp),
            dir,
            name,
            tmp,
            path: path.to_string(),
        })
    }

    /// Rename a staged temp file over its target. On failure the temp file is removed.
    pub fn install(&self, staged: &Staged) -> Result<(), ToolError> {
        staged
            .dir
            .rename(&staged.tmp, &staged.dir, &staged.name)
            .map_err(|e| {
                let _ = staged.dir.remove_file(&staged.tmp);
                ToolError::io(&staged.path, "writing", &e)
            })
    }

    /// Set the permission bits of the file `path` names to `mode & 0o777` (never setuid, setgid
    /// or sticky), through a descriptor opened in a directory opened without following a
    /// symlink ([`Workspace::open_dir`]), so a symlink cannot carry the change outside the root
    /// or into a protected directory.
    pub fn set_mode(&self, path: &str, mode: u32) -> Result<(), ToolError> {
        let abs = self.check_writable(path)?;
        let rel = self.rel(&abs, path)?;
        let name = rel
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?;
        let file = self
            .open_dir(rel.parent().unwrap_or(Path::new("")), false)
            .and_then(|dir| open_existing(&dir, name))
            .and_then(|f| f.ok_or_else(|| std::io::ErrorKind::NotFound.into()))
            .map_err(|e| ToolError::io(path, "changing the mode of", &e))?;
        file.set_permissions(fs::Permissions::from_mode(mode & 0o777))
            .map_err(|e| ToolError::io(path, "changing the mode of", &e))
    }

    /// [`Workspace::install`] only if the target still holds `expected` (`None`: it must not
    /// exist), by the same compare-and-switch as [`Workspace::replace_verified`] (a late write
    /// to the old file is put back and answered [`Replaced::Changed`]). On
    /// [`Replaced::Changed`] the temp file may stay staged (the caller discards it). The
    /// directory fsync is the caller's ([`Staged::sync_dir`]).
    pub fn install_if(
        &self,
        staged: &Staged,
        expected: Option<&[u8]>,
    ) -> Result<Replaced, ToolError> {
        switch_verified(&staged.dir, &staged.name, expected, &staged.path, |_| {
            self.install(staged)
        })
    }

    /// Remove the file `path` names. A symlink is removed itself, never its target; a directory
    /// is refused.
    pub fn remove(&self, path: &str) -> Result<(), ToolError> {
        let abs = self.resolve_entry(path)?;
        let rel = self.rel(&abs, path)?;
        let name = rel
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?;
        let dir = self
            .open_dir(rel.parent().unwrap_or(Path::new("")), false)
            .map_err(|e| ToolError::io(path, "deleting", &e))?;
        if dir.symlink_metadata(name).is_ok_and(|m| m.is_dir()) {
            return Err(ToolError::new(
                Reason::IoError,
                Some(path),
                "is a directory; only files are deleted",
            ));
        }
        dir.remove_file(name)
            .map_err(|e| ToolError::io(path, "deleting", &e))?;
        sync_dir(&dir);
        Ok(())
    }

    /// Replace the file `path` names with `new` (`None`: delete the entry) only if it still holds
    /// `expected` (`None`: it must not exist), the compare and the switch under the directory's
    /// cross-process lock ([`DirLock`]), so two lspedit processes never both replace the same
    /// version. `new_mode` is for a file that does not exist yet (masked to `0o777`).
    ///
    /// A program that does not take the lock (an editor, `echo >>`) may still write the old file
    /// through a descriptor it opened before the switch: the old file stays open from the
    /// compare on, and if its content changed by the time the new one is in place, that
    /// content is put back and the call answers [`Replaced::Changed`], so the caller re-plans
    /// from it instead of losing it.
    pub fn replace_verified(
        &self,
        path: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
        new_mode: Option<u32>,
    ) -> Result<Replaced, ToolError> {
        let abs = match new {
            Some(_) => self.check_writable(path)?,
            None => self.resolve_entry(path)?,
        };
        let rel = self.rel(&abs, path)?.to_path_buf();
        let shown = rel.to_string_lossy().into_owned();
        let name = rel
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?
            .to_os_string();
        let parent = rel.parent().unwrap_or(Path::new("")).to_path_buf();
        let io = |what: &str, e: &std::io::Error| ToolError::io(&shown, what, e);
        let dir = self
            .open_dir(&parent, new.is_some())
            .map_err(|e| io("writing", &e))?;
        let replaced = switch_verified(&dir, &name, expected, &shown, |exists| match new {
            Some(bytes) => replace_in(&dir, &name, bytes, new_mode).map_err(|e| io("writing", &e)),
            None if exists => dir.remove_file(&name).map_err(|e| io("deleting", &e)),
            None => Ok(()),
        })?;
        if replaced == Replaced::Done {
            sync_dir(&dir);
        }
        Ok(replaced)
    }

    /// Remove a temp file recorded relative to the root (a journal's staged file), only when its
    /// name is lspedit's temp-file pattern for a sibling `target` name. Returns whether it was
    /// removed.
    pub fn remove_temp(&self, rel_tmp: &Path, target: &str) -> Result<bool, ToolError> {
        let shown = rel_tmp.to_string_lossy().into_owned();
        let tmp_name = rel_tmp
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| self.outside(&shown, "the temp path names no file"))?;
        if temp_owner_pid(tmp_name, target).is_none() {
            return Err(ToolError::new(
                Reason::TamperedState,
                Some(&shown),
                format!("not an lspedit temp file of `{target}`"),
            ));
        }
        let clean = self.lexical(&shown)?;
        let abs = self.resolve_entry(&clean.to_string_lossy())?;
        let rel = self.rel(&abs, &shown)?;
        let dir = match self.open_dir(rel.parent().unwrap_or(Path::new("")), false) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(ToolError::io(&shown, "removing", &e)),
        };
        match dir.remove_file(tmp_name) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(ToolError::io(&shown, "removing", &e)),
        }
    }
}

/// What [`Workspace::replace_verified`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replaced {
    /// The file held what was expected and now holds the new content (or is deleted).
    Done,
    /// The file no longer held what was expected; nothing of the call is on disk. `current` is
    /// what it holds now (`None`: it does not exist), to plan again from.
    Changed { current: Option<Vec<u8>> },
}

/// An exclusive `flock` on a directory, held until dropped. Every lspedit process takes it for
/// the compare-and-switch of a file in that directory, so those never interleave across
/// processes; a directory (not the file) is locked because the switch replaces the file's inode
/// and a new file has none yet.
#[derive(Debug)]
pub struct DirLock {
    fd: rustix::fd::OwnedFd,
}

impl DirLock {
    fn exclusive(dir: &Dir) -> std::io::Result<DirLock> {
        // A descriptor of its own: flock belongs to the open file description, so two threads
        // of one process also exclude each other.
        let fd = rustix::fs::openat(
            dir,
            ".",
            rustix::fs::OFlags::RDONLY
                | rustix::fs::OFlags::DIRECTORY
                | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )?;
        rustix::fs::flock(&fd, rustix::fs::FlockOperation::LockExclusive)?;
        Ok(DirLock { fd })
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(&self.fd, rustix::fs::FlockOperation::Unlock);
    }
}

/// The compare-and-switch every verified write ends in, under `dir`'s cross-process lock
/// ([`DirLock`]): if `name` holds `expected` (`None`: it must not exist), `switch` runs (told
/// whether the file exists); else nothing happens and the answer is [`Replaced::Changed`].
///
/// The old file stays open from the compare on: if a program that does not take the lock wrote
/// to it through a descriptor opened before the switch, its content is put back in place and
/// the answer is [`Replaced::Changed`] too, so the caller plans again from it instead of losing
/// it. `shown` names the file in errors.
fn switch_verified(
    dir: &Dir,
    name: &std::ffi::OsStr,
    expected: Option<&[u8]>,
    shown: &str,
    switch: impl FnOnce(bool) -> Result<(), ToolError>,
) -> Result<Replaced, ToolError> {
    let io = |what: &str, e: &std::io::Error| ToolError::io(shown, what, e);
    let _lock = DirLock::exclusive(dir).map_err(|e| io("locking its directory", &e))?;
    let mut old = open_existing(dir, name).map_err(|e| io("reading", &e))?;
    let current = match old.as_mut() {
        Some(f) => Some(read_from_start(f).map_err(|e| io("reading", &e))?),
        None => None,
    };
    if current.as_deref() != expected {
        return Ok(Replaced::Changed { current });
    }
    switch(current.is_some())?;
    let late = match old.as_mut() {
        Some(f) => read_from_start(f)
            .ok()
            .filter(|now| Some(now.as_slice()) != expected),
        None => None,
    };
    if let Some(theirs) = late {
        // Their write reached the old file after the compare: put it back in place and let
        // the caller plan again from it.
        replace_in(dir, name, &theirs, None).map_err(|e| io("writing", &e))?;
        sync_dir(dir);
        return Ok(Replaced::Changed {
            current: Some(theirs),
        });
    }
    Ok(Replaced::Done)
}

/// Open `name` in `dir` for reading without blocking (opening a FIFO for reading would
/// otherwise wait for a writer); `Ok(None)` when it does not exist.
fn open_existing(dir: &Dir, name: impl AsRef<Path>) -> std::io::Result<Option<fs::File>> {
    let mut opts = OpenOptions::new();
    opts.read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    match dir.open_with(name, &opts) {
        Ok(f) => Ok(Some(f.into_std())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The whole content of an open file from its start (whatever its position).
fn read_from_start(f: &mut fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Seek;
    f.seek(std::io::SeekFrom::Start(0))?;
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The pid in `.<target>.lspedit-<pid>-<n>.tmp`, when `name` is that pattern.
pub fn temp_owner_pid(name: &str, target: &str) -> Option<i32> {
    let rest = name
        .strip_prefix('.')?
        .strip_prefix(target)?
        .strip_prefix(".lspedit-")?
        .strip_suffix(".tmp")?;
    let (pid, n) = rest.split_once('-')?;
    n.parse::<u64>().ok()?;
    pid.parse::<i32>().ok()
}

/// Remove the temp files of earlier writes to `name` in `dir` whose process is gone: a process
/// killed between creating its temp file and renaming it (kill -9, power loss) leaves one
/// behind, and nothing else would ever remove it. Temp files of live processes (a concurrent
/// writer) are left alone. Best effort: errors only mean the litter stays.
fn remove_orphaned_temps(dir: &Dir, name: &str) {
    let Ok(entries) = dir.entries() else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(pid) = file_name.to_str().and_then(|n| temp_owner_pid(n, name)) else {
            continue;
        };
        let alive = pid == std::process::id() as i32
            || rustix::process::Pid::from_raw(pid).is_some_and(|p| {
                !matches!(
                    rustix::process::test_kill_process(p),
                    Err(rustix::io::Errno::SRCH)
                )
            });
        if !alive {
            tracing::info!(temp = ?file_name, "removing a temp file left by a dead process");
            let _ = dir.remove_file(&file_name);
        }
    }
}

/// fsync a directory, so a rename or removal in it is durable. A `Dir` is an `O_PATH` handle,
/// which `fsync` refuses (`EBADF`): the directory is opened for reading through it first
/// (`"."`, so nothing outside it is reached). Failure only weakens durability, not atomicity,
/// so it is not reported.
fn sync_dir(dir: &Dir) {
    let _ = try_sync_dir(dir);
}

fn try_sync_dir(dir: &Dir) -> rustix::io::Result<()> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::openat(
        dir,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    rustix::fs::fsync(&fd)
}

/// Write `bytes` to a new temp file next to `name` in `dir` and fsync it; the permissions are
/// `name`'s (a regular file's, symlinks are not followed) or `new_mode & 0o777`. Returns the
/// temp file's name; on failure nothing is left.
fn stage_in(
    dir: &Dir,
    name: &std::ffi::OsStr,
    tmp: &str,
    bytes: &[u8],
    new_mode: Option<u32>,
) -> std::io::Result<()> {
    remove_orphaned_temps(dir, &name.to_string_lossy());
    let mut opts = OpenOptions::new();
    opts.write(true).create_new(true).mode(0o600);
    let result = (|| {
        let mut f = dir.open_with(tmp, &opts)?.into_std();
        f.write_all(bytes)?;
        let mode = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) if rustix::fs::FileType::from_raw_mode(st.st_mode).is_file() => {
                Some(st.st_mode & 0o7777)
            }
            _ => new_mode.map(|m| m & 0o777),
        };
        if let Some(mode) = mode {
            f.set_permissions(fs::Permissions::from_mode(mode))?;
        }
        f.sync_all()
    })();
    if result.is_err() {
        // The temp file is ours and must not be left behind.
        let _ = dir.remove_file(tmp);
    }
    result
}

/// Stage `bytes` under a fresh temp name next to `name` in `dir` and rename it over `name`;
/// on any failure the temp file is removed. The directory fsync is the caller's.
fn replace_in(
    dir: &Dir,
    name: &std::ffi::OsStr,
    bytes: &[u8],
    new_mode: Option<u32>,
) -> std::io::Result<()> {
    let tmp = temp_name(&name.to_string_lossy());
    stage_in(dir, name, &tmp, bytes, new_mode)?;
    if let Err(e) = dir.rename(&tmp, dir, name) {
        let _ = dir.remove_file(&tmp);
        return Err(e);
    }
    Ok(())
}

/// A fresh temp-file name for a write to `target` (a file name, not a path):
/// `.<target>.lspedit-<pid>-<n>.tmp`, hidden, recognizably lspedit's, unique in this process.
pub fn temp_name(target: &str) -> String {
    format!(
        ".{target}.lspedit-{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// An atomic write of lspedit's own state (under `.lspedit/`, outside any tool's reach), on an
/// absolute path: the same staging and rename as the workspace's writes, through a handle of the
/// parent directory (created if missing).
pub fn write_atomic_abs(abs: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let parent = abs
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent directory"))?;
    let name = abs
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?;
    fs::create_dir_all(parent)?;
    let dir = Dir::open_ambient_dir(parent, cap_std::ambient_authority())?;
    replace_in(&dir, name, bytes, None)?;
    sync_dir(&dir);
    Ok(())
}

#[cfg(test)]
mod tests {
    // Regression: the directory fsync after a rename was `fsync` of cap-std's `O_PATH` handle,
    // which fails with EBADF, so no rename was ever made durable.
    #[test]
    fn a_workspace_directory_is_really_fsynced() {
        let tmp = tempfile::tempdir().expect("temp dir");
        let dir =
            super::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).expect("open");
        assert!(
            rustix::fs::fsync(&dir).is_err(),
            "cap-std handles are O_PATH"
        );
        super::try_sync_dir(&dir).expect("the directory fsync succeeds");
    }

    use super::*;

    #[test]
    fn base_sha_is_12_hex() {
        assert_eq!(base_sha(b""), "e3b0c44298fc");
    }

    #[test]
    fn confinement() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let root = ws.root().to_path_buf();
        assert_eq!(ws.resolve("a/b.txt").unwrap(), root.join("a/b.txt"));
        assert_eq!(ws.resolve("a/../b.txt").unwrap(), root.join("b.txt"));
        assert_eq!(
            ws.resolve(root.join("x").to_str().unwrap()).unwrap(),
            root.join("x")
        );
        for bad in ["../x", "a/../../x", "/etc/passwd", ""] {
            assert_eq!(
                ws.resolve(bad).unwrap_err().reason,
                Reason::PathOutsideWorkspace,
                "{bad}"
            );
        }
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("escape")).unwrap();
        assert_eq!(
            ws.resolve("escape/x").unwrap_err().reason,
            Reason::PathOutsideWorkspace
        );
        std::fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("inside")).unwrap();
        assert_eq!(
            ws.resolve("inside/new.txt").unwrap(),
            root.join("real/new.txt")
        );
    }

    #[test]
    fn atomic_write_keeps_permissions_and_leaves_no_temp() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let p = ws.root().join("run.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        ws.write_atomic("run.sh", b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o755
        );
        ws.write_atomic("deep/er/f.txt", b"x").unwrap();
        let names: Vec<_> = fs::read_dir(ws.root())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
    }

    // Regression (kill -9 suite, RELIABILITY.md): a process killed before its rename left
    // `.<name>.lspedit-<pid>-<n>.tmp` behind for good.
    #[test]
    fn temp_files_of_dead_processes_are_removed_on_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let orphan = dir.path().join(format!(".a.txt.lspedit-{dead}-0.tmp"));
        let ours = dir
            .path()
            .join(format!(".a.txt.lspedit-{}-999.tmp", std::process::id()));
        let other = dir.path().join(format!(".b.txt.lspedit-{dead}-0.tmp"));
        for p in [&orphan, &ours, &other] {
            fs::write(p, b"partial").unwrap();
        }
        write_atomic_abs(&dir.path().join("a.txt"), b"new\n").unwrap();
        assert!(!orphan.exists(), "the dead process's temp file stayed");
        assert!(ours.exists(), "a live process's temp file was removed");
        assert!(
            other.exists(),
            "another file's temp file is not this write's business"
        );
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"new\n");
    }
}
