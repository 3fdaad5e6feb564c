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
//! directory. A verified write (one that must not replace a version it did not plan from)
//! exchanges the files instead of renaming over, and checks the one it displaced, so another
//! program's write is never destroyed unseen (`switch_verified`).
//!
//! Protected paths (`.git/`, `.lspedit/` and a configurable list) are never written, created,
//! deleted or renamed; delete acts on a symlink itself, never on its target.
//!
//! The platform's primitives under this logic (the walk without following links, the renames,
//! the directory lock, file identities, modes, the directory fsync) are `os_unix.rs` and
//! `os_windows.rs`, behind the same functions. Windows has no exchanging rename: there the file
//! compared is held open without `FILE_SHARE_WRITE` until it is replaced, so nothing can be
//! written to it in between (see `switch_verified`).

use std::ffi::OsString;
use std::fs;
use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};
use sha2::{Digest, Sha256};

use crate::error::{Reason, ToolError};
use crate::os::{self, DirLock, Ident, Rename, WalkedDir};

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

/// How many times [`Workspace::set_mode`] copies a hard-linked file again when another program
/// changed it during the copy.
const MODE_RETRIES: usize = 3;

/// `base_sha`: the first 12 hex characters of the SHA-256 of the file bytes.
pub fn base_sha(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// `base_sha` of a file state: `None` when the file does not exist.
pub fn state_sha(bytes: Option<&[u8]>) -> Option<String> {
    bytes.map(base_sha)
}

/// How a file state's `base_sha` is shown in messages.
pub fn show_sha(sha: Option<&str>) -> &str {
    sha.unwrap_or("(absent)")
}

/// New content staged under a temp name in its target's directory, ready to be renamed over the
/// target by [`Workspace::install`] (or removed by [`Staged::discard`]). The directory handle was
/// opened beneath the root when staging, so the rename lands in the same directory whatever
/// happens to the path in between.
#[derive(Debug)]
pub struct Staged {
    dir: WalkedDir,
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
    /// atomicity, so it is not reported. (Its effect shows only across a power loss: the
    /// mutant that skips it is excluded in .cargo/mutants.toml.)
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
                .find(|p| os::same_name(n, p))
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

    /// [`Workspace::check_writable`] of `path` that a caller has already resolved to `abs`
    /// ([`Workspace::resolve`] of the same `path`), so its components are not walked again: the
    /// protected names are checked on the path as given and as resolved, by name (no I/O).
    /// What is written there later is opened one component at a time without following a
    /// symlink, so a link swapped in since the resolution fails the write.
    pub fn check_writable_resolved(&self, abs: &Path, path: &str) -> Result<(), ToolError> {
        let clean = self.lexical(path)?;
        self.refuse_protected(path, &clean)?;
        self.refuse_protected(path, self.rel(abs, path)?)
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
        // A top-level name's parent is the root itself (following its empty path gives the
        // root too: the guard only saves the walk, an equivalent mutant in mutants.toml).
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
    /// writing in it: one component at a time without following a link, missing ones created
    /// when `create` (`os::open_dir`). `rel` is a path already resolved (its symlinks followed)
    /// and checked by name, so it holds no link; one swapped in since (a directory exchanged
    /// with a link to `.git/hooks`) makes the open fail instead of being followed, and nothing
    /// is written.
    fn open_dir(&self, rel: &Path, create: bool) -> std::io::Result<WalkedDir> {
        os::open_dir(&self.dir, &self.root, rel, create)
    }

    /// Read a file; `Ok(None)` when it does not exist. Only regular files are read: a FIFO,
    /// socket or device is refused (reading one would block or never end).
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ToolError> {
        let abs = self.resolve(path)?;
        self.read_resolved(&abs, path)
    }

    /// [`Workspace::read`] of a path already resolved ([`Workspace::resolve`] or
    /// [`Workspace::check_writable`] of `path`, which names it in errors), so a caller that has
    /// resolved it does not walk its components again. The open is through the root handle, so
    /// the read stays beneath the root whatever changed since.
    pub fn read_resolved(&self, abs: &Path, path: &str) -> Result<Option<Vec<u8>>, ToolError> {
        let rel = self.rel(abs, path)?;
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
        stage_in(&dir, &name, tmp, bytes, new_mode, false)
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
    /// or sticky), through a descriptor opened beneath the root without following a symlink,
    /// so the change cannot be carried outside it or into a protected directory.
    ///
    /// A file with other hard links (`st_nlink > 1`) is not changed in place: its mode belongs
    /// to every name of it, and the other one may be `.git/config` or a file outside the root.
    /// It is replaced by a copy with the new mode instead, by the verified atomic switch: this
    /// name gets the mode, as `git checkout` of a mode change would do, and the other names
    /// keep their content and mode.
    pub fn set_mode(&self, path: &str, mode: u32) -> Result<(), ToolError> {
        let abs = self.check_writable(path)?;
        let rel = self.rel(&abs, path)?;
        let err = |e: &std::io::Error| ToolError::io(path, "changing the mode of", e);
        let name = rel
            .file_name()
            .ok_or_else(|| self.outside(path, "the path names no file"))?;
        let dir = self
            .open_dir(rel.parent().unwrap_or(Path::new("")), false)
            .map_err(|e| err(&e))?;
        let mode = mode & 0o777;
        for _ in 0..=MODE_RETRIES {
            let mut file = os::open_nofollow(&dir, name).map_err(|e| err(&e))?;
            let st = os::file_stat(&file).map_err(|e| err(&e))?;
            if !st.is_file {
                return Err(ToolError::new(
                    Reason::IoError,
                    Some(path),
                    "not a regular file; only a regular file's mode is changed",
                ));
            }
            if st.nlink <= 1 {
                return os::set_file_mode(&file, mode).map_err(|e| err(&e));
            }
            let bytes = read_from_start(&mut file).map_err(|e| err(&e))?;
            let tmp = temp_name(&name.to_string_lossy());
            stage_in(&dir, name, &tmp, &bytes, Some(mode), true).map_err(|e| err(&e))?;
            let switched = switch_verified(
                &dir,
                name,
                Some(&bytes),
                Switch::Install {
                    tmp: &tmp,
                    new: &bytes,
                },
                path,
                true,
            );
            if !matches!(switched, Ok(Replaced::Done)) {
                let _ = dir.remove_file(&tmp);
            }
            // Changed: another program wrote it between the read and the switch; copy again.
            if switched? == Replaced::Done {
                return Ok(());
            }
        }
        Err(ToolError::new(
            Reason::StaleContext,
            Some(path),
            "another program kept changing the file while its mode was changed; nothing was changed",
        ))
    }

    /// [`Workspace::install`] only if the target still holds `expected` (`None`: it must not
    /// exist), by the same compare-and-switch as [`Workspace::replace_verified`] (a late write
    /// to the old file is put back and answered [`Replaced::Changed`]). On
    /// [`Replaced::Changed`] the temp file may stay staged (the caller discards it). The
    /// directory fsync is the caller's ([`Staged::sync_dir`]). `new` is the content `staged`
    /// was staged with (the switch needs it only when it has to tell a later write to the new
    /// file from ours, and does not read the temp file back for it).
    pub fn install_if(
        &self,
        staged: &Staged,
        expected: Option<&[u8]>,
        new: &[u8],
    ) -> Result<Replaced, ToolError> {
        switch_verified(
            &staged.dir,
            &staged.name,
            expected,
            Switch::Install {
                tmp: &staged.tmp,
                new,
            },
            &staged.path,
            false,
        )
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
    /// cross-process lock (`DirLock`), so two lspedit processes never both replace the same
    /// version. `new_mode` is for a file that does not exist yet (masked to `0o777`).
    ///
    /// The new content is staged before the compare, so the compare and the switch are
    /// microseconds apart. Programs that do not take the lock (an editor's atomic save,
    /// `git checkout`, `echo >>`) are handled by the switch itself, which keeps their write
    /// whenever it lands and answers [`Replaced::Changed`] when theirs is in place instead of
    /// ours, so the caller re-plans from it; what it cannot see is written in
    /// `switch_verified`'s documentation.
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
        self.replace_resolved(&abs, path, expected, new, new_mode)
    }

    /// [`Workspace::replace_verified`] of a path already resolved: `abs` is what
    /// [`Workspace::check_writable`] (for a removal, [`Workspace::resolve_entry`]) gave for
    /// `path`, so its components are not walked by name again. Nothing is lost by that: the
    /// protected names are checked on `abs` again (by name, no I/O), and the directory is
    /// opened one component at a time without following a symlink, so a link swapped in since
    /// the path was resolved fails the write instead of being followed; the switch acts on the
    /// directory entry itself, never through a link.
    pub fn replace_resolved(
        &self,
        abs: &Path,
        path: &str,
        expected: Option<&[u8]>,
        new: Option<&[u8]>,
        new_mode: Option<u32>,
    ) -> Result<Replaced, ToolError> {
        let rel = self.rel(abs, path)?.to_path_buf();
        self.refuse_protected(path, &rel)?;
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
        let Some(bytes) = new else {
            return switch_verified(&dir, &name, expected, Switch::Remove, &shown, true);
        };
        let tmp = temp_name(&name.to_string_lossy());
        stage_in(&dir, &name, &tmp, bytes, new_mode, false).map_err(|e| io("writing", &e))?;
        let install = Switch::Install {
            tmp: &tmp,
            new: bytes,
        };
        let replaced = switch_verified(&dir, &name, expected, install, &shown, true);
        if !matches!(replaced, Ok(Replaced::Done)) {
            // Not installed (or installed and exchanged back): the temp file is ours.
            let _ = dir.remove_file(&tmp);
        }
        replaced
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

/// What a verified switch does to its target.
#[derive(Debug, Clone, Copy)]
enum Switch<'a> {
    /// The staged file `tmp` (in the same directory), which holds `new` as staged, replaces
    /// the target, or creates it.
    Install { tmp: &'a str, new: &'a [u8] },
    /// The target's entry is removed.
    Remove,
}

/// The moments of a switch at which another writer's timing matters; tests play one there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RacePoint {
    /// The entry's identity was read; the file is not opened yet.
    Identified,
    /// The target was compared with the expected bytes; nothing is switched yet.
    Compared,
    /// The new file is in place (or the old entry moved aside); the displaced file not checked.
    Switched,
    /// The displaced file was checked and removed; the last re-read through its descriptor not
    /// done yet.
    Checked,
}

/// Another writer a unit test plays at each [`RacePoint`] of this thread's switches, or an I/O
/// error it injects there.
#[cfg(test)]
type RaceHook = Box<dyn FnMut(RacePoint) -> std::io::Result<()>>;

#[cfg(test)]
thread_local! {
    static RACE: std::cell::RefCell<Option<RaceHook>> = const { std::cell::RefCell::new(None) };
    /// A unit test plays a file system without leases on this thread.
    static NO_LEASES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// A unit test plays a file system without `renameat2`'s flags on this thread.
    static NO_RENAME_FLAGS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a unit test plays a file system without leases on this thread.
fn no_leases() -> bool {
    #[cfg(test)]
    return NO_LEASES.with(std::cell::Cell::get);
    #[cfg(not(test))]
    false
}

/// Run `f` with `hook` played at each [`RacePoint`] of this thread's switches: another writer,
/// or an I/O error injected there (for the tests of the layers above the switch).
#[cfg(test)]
pub(crate) fn with_race_hook<T>(
    hook: impl FnMut(RacePoint) -> std::io::Result<()> + 'static,
    f: impl FnOnce() -> T,
) -> T {
    RACE.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
    let out = f();
    RACE.with(|h| *h.borrow_mut() = None);
    out
}

fn race_point(at: RacePoint) -> std::io::Result<()> {
    #[cfg(test)]
    return RACE.with(|hook| match hook.borrow_mut().as_mut() {
        Some(f) => f(at),
        None => Ok(()),
    });
    #[cfg(not(test))]
    {
        let _ = at;
        Ok(())
    }
}

/// Whether some descriptor (another program's, or another of ours) has `f` open for writing
/// (`os::open_for_writing_elsewhere`).
fn open_for_writing_elsewhere(f: &fs::File) -> bool {
    os::open_for_writing_elsewhere(f, no_leases())
}

/// The identity of the entry `name` in `dir` itself (a symlink is not followed).
fn entry_ident(
    dir: &WalkedDir,
    name: impl AsRef<std::ffi::OsStr>,
) -> std::io::Result<Option<Ident>> {
    os::entry_ident(dir, name.as_ref())
}

/// The kernel or file system does not do this rename (`os::unsupported`).
fn unsupported(e: &std::io::Error) -> bool {
    os::unsupported(e)
}

fn rename_with(
    dir: &WalkedDir,
    from: &std::ffi::OsStr,
    to: &std::ffi::OsStr,
    how: Rename,
) -> std::io::Result<()> {
    #[cfg(test)]
    let no_flags = NO_RENAME_FLAGS.with(std::cell::Cell::get);
    #[cfg(not(test))]
    let no_flags = false;
    os::rename_with(dir, from, to, how, no_flags)
}

/// The compare-and-switch every verified write ends in, under `dir`'s cross-process lock
/// ([`DirLock`]): if `name` holds `expected` (`None`: it must not exist), `switch` is done;
/// else nothing happens and the answer is [`Replaced::Changed`] with what it holds. `durable`:
/// fsync the directory before the last re-check (the caller does it otherwise). `shown` names
/// the file in errors.
///
/// Other lspedit processes take the lock; other programs do not, so the switch is made so that
/// their writes are kept whenever they land:
///
/// - The new file is swapped in with `renameat2(RENAME_EXCHANGE)`, which puts the file it
///   displaces under the temp name instead of destroying it. That file is then checked: it must
///   be the entry compared (same device and inode: an atomic save or `git checkout` in between
///   replaced the entry) holding the expected bytes, read through the descriptor opened at the
///   compare (an in-place write or an append in between changed them). If not, the exchange is
///   undone, their version stays in place and the answer is [`Replaced::Changed`] with it.
/// - While the exchange was in place, a writer opening `name` wrote into the new file. On the
///   undo, an append to it (the new bytes followed by more) is appended again to their file,
///   where it would have landed a moment earlier; a whole replacement or rewrite of it is
///   newer than their first write and takes the place, as it would have without lspedit.
/// - Before the displaced file is removed, a read lease on it asks whether anyone still has it
///   open for writing ([`open_for_writing_elsewhere`]): a writer that opened it before the
///   switch could write to it afterwards, where no one would read it again. Then the exchange
///   is undone as for a changed file, and the caller plans again.
/// - After the check the displaced file is removed, and read once more through the compare's
///   descriptor (after the directory fsync when `durable`, so a writer that opened it before
///   the switch has had that time to write): an append that arrived late is appended to the new
///   file (then both writes are in and the answer is [`Replaced::Done`]); any other late write
///   puts their version back in place and answers [`Replaced::Changed`].
/// - A file that did not exist is created with `RENAME_NOREPLACE`, so a file another program
///   created since the compare is never replaced; removal moves the entry aside under a temp
///   name first, checks it like a displaced file and moves it back (without replacing) if it
///   is not the one compared.
///
/// What remains:
///
/// - Where leases are not available (a file of another owner, a file system without them), a
///   write through a descriptor opened before the switch that lands after the last re-read goes
///   into the removed old file and is lost: a writer stopped between its open and its write
///   for longer than the check and the fsync take (against a continuous appender the
///   concurrency bench lost a line in 0-22 of 1,000 runs before the lease; 0 with it). Such a
///   writer would have to take the directory lock ([`DirLock`]) to be safe.
/// - An append moved to the other file (on the undo, or late) lands after appends that reached
///   that file first, so a continuous appender's lines can end up out of order, though none is
///   lost or doubled by the move.
/// - The last-resort put-backs (a late in-place rewrite; a removal's late write) rename over
///   the entry, so a third writer's replacement in that instant is lost.
/// - Where `RENAME_EXCHANGE` is unsupported the switch is a plain rename after the compare,
///   followed by the re-read through the old descriptor, so an atomic save in the microseconds
///   between the compare and the rename is lost there. Creation without `RENAME_NOREPLACE`
///   uses `link` + `unlink`, which never replaces either.
/// - On Windows (`os_windows.rs`) there is no exchange: the switch is that plain rename
///   (`MoveFileEx` with replace), but the file compared was opened without `FILE_SHARE_WRITE`
///   and is held until it is replaced, so no write through any handle reaches it between the
///   compare and the rename or after (the compare's open fails while another program has it
///   open for writing). A save by rename or a deletion by another program in the instant
///   between the compare and the rename is still replaced by ours, as above. Creation is
///   `MoveFileExW` without `MOVEFILE_REPLACE_EXISTING`.
fn switch_verified(
    dir: &WalkedDir,
    name: &std::ffi::OsStr,
    expected: Option<&[u8]>,
    switch: Switch<'_>,
    shown: &str,
    durable: bool,
) -> Result<Replaced, ToolError> {
    let io = |what: &str, e: &std::io::Error| ToolError::io(shown, what, e);
    let _lock = DirLock::exclusive(dir).map_err(|e| io("locking its directory", &e))?;
    let entry = entry_ident(dir, name).map_err(|e| io("reading", &e))?;
    race_point(RacePoint::Identified).map_err(|e| io("reading", &e))?;
    let mut old = open_guarded(dir, name).map_err(|e| io("reading", &e))?;
    let same = match (old.as_mut(), expected) {
        (Some(f), Some(expected)) => holds(f, expected).map_err(|e| io("reading", &e))?,
        (None, None) => true,
        _ => false,
    };
    if !same {
        let current = match old.as_mut() {
            Some(f) => Some(read_from_start(f).map_err(|e| io("reading", &e))?),
            None => None,
        };
        return Ok(Replaced::Changed { current });
    }
    // The entry and the opened file are one (unless the entry is a symlink): else it was
    // replaced between the two, and the bytes read are not the entry's. Whether the entry is
    // a symlink is asked only when they differ, so the usual switch looks the name up once.
    if let (Some(f), Some(e)) = (old.as_ref(), entry) {
        let st = os::file_stat(f).map_err(|e| io("reading", &e))?;
        let is_link = || os::entry_is_link(dir, name);
        if st.ident != e && !is_link() {
            return Ok(Replaced::Changed {
                current: read_entry(dir, name).map_err(|e| io("reading", &e))?,
            });
        }
    }
    race_point(RacePoint::Compared).map_err(|e| io("writing", &e))?;
    let sw = Switcher { dir, name, durable };
    let result = match (old, entry, expected, switch) {
        (Some(mut old), Some(entry), Some(expected), Switch::Install { tmp, new }) => {
            sw.exchange(tmp.as_ref(), new, entry, &mut old, expected)
        }
        (Some(mut old), Some(entry), Some(expected), Switch::Remove) => {
            sw.remove(entry, &mut old, expected)
        }
        (_, _, _, Switch::Install { tmp, .. }) => sw.create(tmp.as_ref()),
        (_, _, _, Switch::Remove) => Ok(Replaced::Done),
    };
    result.map_err(|e| io("writing", &e))
}

/// The steps of one verified switch of `name` in `dir` (see [`switch_verified`]).
struct Switcher<'a> {
    dir: &'a WalkedDir,
    name: &'a std::ffi::OsStr,
    durable: bool,
}

impl Switcher<'_> {
    /// Replace the existing entry `entry` (open as `old`, compared equal to `expected`) with
    /// the staged `tmp`, which holds `new`.
    fn exchange(
        &self,
        tmp: &std::ffi::OsStr,
        new: &[u8],
        entry: Ident,
        old: &mut fs::File,
        expected: &[u8],
    ) -> std::io::Result<Replaced> {
        let (dir, name) = (self.dir, self.name);
        let mut ours = open_existing(dir, tmp)?
            .ok_or_else(|| std::io::Error::other("the staged file is gone"))?;
        let ours_id = os::file_stat(&ours)?.ident;
        match rename_with(dir, tmp, name, Rename::Exchange) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                // Removed since the compare (`git checkout` unlinks, then creates).
                return Ok(Replaced::Changed {
                    current: read_entry(dir, name)?,
                });
            }
            Err(e) if unsupported(&e) => return self.rename_over(tmp, old, expected),
            Err(e) => return Err(e),
        }
        self.exchanged(tmp, entry, old, expected, &mut ours, ours_id, new)
            .inspect_err(|_| {
                // Failed after the exchange: a file displaced under the temp name (the old one,
                // or theirs) goes back in place rather than out with the temp file.
                if entry_ident(dir, tmp)
                    .ok()
                    .flatten()
                    .is_some_and(|id| id != ours_id)
                {
                    let _ = rename_with(dir, tmp, name, Rename::Exchange);
                }
            })
    }

    /// [`Switcher::exchange`] once the staged file (`ours`, holding `new`) is in place and the
    /// file it displaced is under the temp name.
    #[allow(clippy::too_many_arguments)] // The state of one switch, passed down once.
    fn exchanged(
        &self,
        tmp: &std::ffi::OsStr,
        entry: Ident,
        old: &mut fs::File,
        expected: &[u8],
        ours: &mut fs::File,
        ours_id: Ident,
        new: &[u8],
    ) -> std::io::Result<Replaced> {
        let (dir, name) = (self.dir, self.name);
        race_point(RacePoint::Switched)?;
        let displaced = entry_ident(dir, tmp)?;
        if displaced == Some(entry) && holds(old, expected)? && !open_for_writing_elsewhere(old) {
            os::unlink(dir, tmp)?;
            return self.settle(old, expected, ours_id);
        }
        // Their write came between the compare and the exchange, or may still come through a
        // descriptor opened before it: theirs goes back in place.
        rename_with(dir, tmp, name, Rename::Exchange)?;
        let back = entry_ident(dir, tmp)?;
        let now = read_from_start(ours)?;
        let removed = if back == Some(ours_id) && now == new {
            os::unlink(dir, tmp)?;
            true
        } else if let (Some(suffix), Some(theirs)) = (now.strip_prefix(new), displaced)
            && back == Some(ours_id)
            && append_to(dir, name, suffix, theirs)?
        {
            // Appended to the new file while it was in place: appended to theirs instead.
            os::unlink(dir, tmp)?;
            true
        } else {
            // Replaced or rewritten while the new file was in place: that later write wins.
            os::rename(dir, tmp, name)?;
            false
        };
        if self.durable {
            sync_dir(dir);
        }
        if let (true, Some(theirs)) = (removed, displaced) {
            // A writer that opened the name while the new file was in place may write to it
            // after the read above: once more, after the fsync, and an append goes to theirs.
            race_point(RacePoint::Checked)?;
            let late = read_from_start(ours)?;
            if let Some(suffix) = late.strip_prefix(now.as_slice())
                && !suffix.is_empty()
            {
                append_to(dir, name, suffix, theirs)?;
            }
        }
        Ok(Replaced::Changed {
            current: read_entry(dir, name)?,
        })
    }

    /// The displaced old file `old` is checked and removed: fsync when durable, then one last
    /// read of it for a write through a descriptor opened before the switch.
    fn settle(
        &self,
        old: &mut fs::File,
        expected: &[u8],
        ours_id: Ident,
    ) -> std::io::Result<Replaced> {
        if self.durable {
            sync_dir(self.dir);
        }
        race_point(RacePoint::Checked)?;
        if holds(old, expected)? {
            return Ok(Replaced::Done);
        }
        let late = read_from_start(old)?;
        if let Some(suffix) = late.strip_prefix(expected)
            && append_to(self.dir, self.name, suffix, ours_id)?
        {
            // An append to the old file: appended to the new one, both writes are in.
            return Ok(Replaced::Done);
        }
        self.put_back(&late, old)
    }

    /// Put `theirs` (written late to the old file `old`, now removed) back in place, with the
    /// old file's permissions.
    fn put_back(&self, theirs: &[u8], old: &fs::File) -> std::io::Result<Replaced> {
        let mode = os::file_mode(old)?;
        let tmp = temp_name(&self.name.to_string_lossy());
        stage_in(self.dir, self.name, &tmp, theirs, mode, true)?;
        if let Err(e) = self.dir.rename(&tmp, self.dir, self.name) {
            let _ = self.dir.remove_file(&tmp);
            return Err(e);
        }
        sync_dir(self.dir);
        Ok(Replaced::Changed {
            current: Some(theirs.to_vec()),
        })
    }

    /// Where `RENAME_EXCHANGE` is unsupported: a plain rename after the compare, then the
    /// re-read through the old descriptor.
    fn rename_over(
        &self,
        tmp: &std::ffi::OsStr,
        old: &mut fs::File,
        expected: &[u8],
    ) -> std::io::Result<Replaced> {
        self.dir.rename(tmp, self.dir, self.name)?;
        race_point(RacePoint::Switched)?;
        if !holds(old, expected)? {
            let late = read_from_start(old)?;
            return self.put_back(&late, old);
        }
        if self.durable {
            sync_dir(self.dir);
        }
        Ok(Replaced::Done)
    }

    /// Create the absent target from the staged `tmp`, never replacing a file created since.
    fn create(&self, tmp: &std::ffi::OsStr) -> std::io::Result<Replaced> {
        let (dir, name) = (self.dir, self.name);
        let created = match rename_with(dir, tmp, name, Rename::NoReplace) {
            Err(e) if unsupported(&e) => os::link(dir, tmp, name).map(|()| {
                let _ = os::unlink(dir, tmp);
            }),
            r => r,
        };
        match created {
            Ok(()) => {
                if self.durable {
                    sync_dir(dir);
                }
                Ok(Replaced::Done)
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Replaced::Changed {
                current: read_entry(dir, name)?,
            }),
            Err(e) => Err(e),
        }
    }

    /// Remove the entry `entry` (open as `old`, compared equal to `expected`): moved aside,
    /// checked, then removed; moved back when it is not the one compared.
    fn remove(
        &self,
        entry: Ident,
        old: &mut fs::File,
        expected: &[u8],
    ) -> std::io::Result<Replaced> {
        let (dir, name) = (self.dir, self.name);
        let aside = OsString::from(temp_name(&name.to_string_lossy()));
        let moved = match rename_with(dir, name, &aside, Rename::NoReplace) {
            // The temp name is fresh: a plain rename replaces nothing either.
            Err(e) if unsupported(&e) => os::rename(dir, name, &aside),
            r => r,
        };
        match moved {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Replaced::Changed {
                    current: read_entry(dir, name)?,
                });
            }
            Err(e) => return Err(e),
        }
        self.moved_aside(&aside, entry, old, expected)
            .inspect_err(|_| {
                // Failed after the move: the file goes back in place rather than staying under
                // a temp name (where the next write would remove it).
                if entry_ident(dir, &aside).ok().flatten().is_some() {
                    let _ = rename_with(dir, &aside, name, Rename::NoReplace);
                }
            })
    }

    /// [`Switcher::remove`] once the entry is moved aside to `aside`.
    fn moved_aside(
        &self,
        aside: &std::ffi::OsStr,
        entry: Ident,
        old: &mut fs::File,
        expected: &[u8],
    ) -> std::io::Result<Replaced> {
        let (dir, name) = (self.dir, self.name);
        race_point(RacePoint::Switched)?;
        if entry_ident(dir, aside)? == Some(entry) && holds(old, expected)? {
            os::unlink(dir, aside)?;
            if self.durable {
                sync_dir(dir);
            }
            race_point(RacePoint::Checked)?;
            if holds(old, expected)? {
                return Ok(Replaced::Done);
            }
            let late = read_from_start(old)?;
            return self.put_back(&late, old);
        }
        // Not the file compared: back in place, unless a newer one was created there since.
        match rename_with(dir, aside, name, Rename::NoReplace) {
            Err(e) if unsupported(&e) => {
                os::link(dir, aside, name).or_else(|e| {
                    if e.kind() == std::io::ErrorKind::AlreadyExists {
                        Ok(())
                    } else {
                        Err(e)
                    }
                })?;
                os::unlink(dir, aside)?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                os::unlink(dir, aside)?;
            }
            r => r?,
        }
        Ok(Replaced::Changed {
            current: read_entry(dir, name)?,
        })
    }
}

/// Append `bytes` to the regular file `name` in `dir` if it is still `want` and has no other
/// hard link (an append never reaches another name's file). Returns whether it did.
fn append_to(
    dir: &WalkedDir,
    name: &std::ffi::OsStr,
    bytes: &[u8],
    want: Ident,
) -> std::io::Result<bool> {
    let Some(mut f) = os::open_append(dir, name)? else {
        return Ok(false);
    };
    let st = os::file_stat(&f)?;
    if st.ident != want || st.nlink != 1 || !st.is_file {
        return Ok(false);
    }
    f.write_all(bytes)?;
    f.sync_data()?;
    Ok(true)
}

/// What the entry `name` in `dir` holds now (`None`: absent).
fn read_entry(dir: &Dir, name: impl AsRef<Path>) -> std::io::Result<Option<Vec<u8>>> {
    match open_existing(dir, name)? {
        Some(mut f) => read_from_start(&mut f).map(Some),
        None => Ok(None),
    }
}

/// Open `name` in `dir` for reading without blocking (opening a FIFO for reading would
/// otherwise wait for a writer); `Ok(None)` when it does not exist.
fn open_existing(dir: &Dir, name: impl AsRef<Path>) -> std::io::Result<Option<fs::File>> {
    open_if_there(dir, name, &os::read_options())
}

/// Open `name` in `dir` as the file a switch compares and replaces (`os::guard_options`: on
/// Windows no other program can write it while it is open); `Ok(None)` when it does not exist.
fn open_guarded(dir: &Dir, name: impl AsRef<Path>) -> std::io::Result<Option<fs::File>> {
    open_if_there(dir, name, &os::guard_options())
}

fn open_if_there(
    dir: &Dir,
    name: impl AsRef<Path>,
    opts: &OpenOptions,
) -> std::io::Result<Option<fs::File>> {
    match dir.open_with(name, opts) {
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

/// Bytes [`holds`] reads at a time: below malloc's mmap threshold (128 KiB), so the buffer
/// comes from the heap already mapped instead of fresh pages the kernel must zero.
// (Its size changes how many reads `holds` takes, not its answer: `64 + 1024` is an
// equivalent mutant, excluded in .cargo/mutants.toml.)
const HOLDS_CHUNK: usize = 64 * 1024;

/// Whether the open file `f` holds exactly `want`, from its start (whatever its position):
/// the verdict of reading it whole and comparing, without a buffer the file's size. The
/// checks of a switch ask this three times of the old file; only a file that differs is read
/// whole (for what it holds now).
fn holds(f: &mut (impl Read + std::io::Seek), want: &[u8]) -> std::io::Result<bool> {
    f.seek(std::io::SeekFrom::Start(0))?;
    let mut buf = vec![0u8; HOLDS_CHUNK.min(want.len() + 1)];
    let mut at = 0;
    loop {
        let n = match f.read(&mut buf) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(at == want.len());
        }
        if want.get(at..at + n) != Some(&buf[..n]) {
            return Ok(false);
        }
        at += n;
    }
}

/// The pid in `.<target>.lspedit-<pid>-<n>.tmp` ([`temp_name`]'s pattern), when `name` is
/// that pattern: both numbers plain decimal digits (`parse` alone would take a sign), as
/// `temp_name` writes them. The one reading of the pattern: what it accepts may be removed.
pub fn temp_owner_pid(name: &str, target: &str) -> Option<i32> {
    let rest = name
        .strip_prefix('.')?
        .strip_prefix(target)?
        .strip_prefix(".lspedit-")?
        .strip_suffix(".tmp")?;
    let (pid, n) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
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
        let alive = pid == std::process::id() as i32 || os::process_alive(pid);
        if !alive {
            tracing::info!(temp = ?file_name, "removing a temp file left by a dead process");
            let _ = dir.remove_file(&file_name);
        }
    }
}

/// fsync a directory, so a rename or removal in it is durable. A `Dir` is an `O_PATH` handle,
/// which `fsync` refuses (`EBADF`): the directory is opened for reading through it first
/// (`"."`, so nothing outside it is reached). Failure only weakens durability, not atomicity,
/// so it is not reported. Its effect shows only across a power loss, so the mutants that skip
/// it (or open `"."` without `O_DIRECTORY`, which it always is) are excluded in
/// .cargo/mutants.toml; `a_workspace_directory_is_really_fsynced` checks the fsync succeeds.
fn sync_dir(dir: &Dir) {
    let _ = try_sync_dir(dir);
}

fn try_sync_dir(dir: &Dir) -> std::io::Result<()> {
    os::try_sync_dir(dir)
}

/// Write `bytes` to a new temp file next to `name` in `dir` and fsync it; the permissions are
/// `name`'s (a regular file's, symlinks are not followed) or `new_mode & 0o777`, or exactly
/// `new_mode` when `exact`. On failure nothing is left.
fn stage_in(
    dir: &Dir,
    name: &std::ffi::OsStr,
    tmp: &str,
    bytes: &[u8],
    new_mode: Option<u32>,
    exact: bool,
) -> std::io::Result<()> {
    remove_orphaned_temps(dir, &name.to_string_lossy());
    let opts = os::temp_options();
    let result = (|| {
        let mut f = dir.open_with(tmp, &opts)?.into_std();
        f.write_all(bytes)?;
        let mode = match os::entry_file_mode(dir, name) {
            _ if exact => new_mode,
            Some(mode) => Some(mode),
            None => new_mode.map(|m| m & 0o777),
        };
        if let Some(mode) = mode {
            os::set_staged_mode(&f, mode)?;
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
    stage_in(dir, name, &tmp, bytes, new_mode, false)?;
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

/// A file's identity, to tell whether two opens reached the same file: device and inode on
/// Unix, volume serial number and file index on Windows.
pub fn file_identity(f: &fs::File) -> std::io::Result<(u64, u64)> {
    Ok(os::file_stat(f)?.ident)
}

/// The identity ([`file_identity`]) of the entry at `abs` itself: a symlink (on Windows any
/// reparse point) is not followed.
pub fn entry_identity(abs: &Path) -> std::io::Result<(u64, u64)> {
    os::entry_ident_at(abs)
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
    /// `holds` answers what reading the file whole and comparing would, from the start whatever
    /// the position, across chunk edges: a file one byte longer, shorter or different at any
    /// chunk's end is not the content, and an empty file holds only the empty content.
    #[test]
    fn holds_is_a_whole_file_compare() {
        use std::io::{Seek, Write};
        let chunk = super::HOLDS_CHUNK;
        let long: Vec<u8> = (0..3 * chunk + 7).map(|i| (i % 251) as u8).collect();
        let mut flipped = long.clone();
        flipped[2 * chunk - 1] ^= 1;
        let mut longer = long.clone();
        longer.push(b'x');
        let cases: [(&[u8], &[u8], bool); 9] = [
            (b"", b"", true),
            (b"", b"a", false),
            (b"a", b"", false),
            (b"abc", b"abc", true),
            (b"abc", b"abd", false),
            (&long, &long, true),
            (&long, &flipped, false),
            (&long, &longer, false),
            (&longer, &long, false),
        ];
        for (i, (file, want, holds)) in cases.into_iter().enumerate() {
            let mut f = tempfile::tempfile().unwrap();
            f.write_all(file).unwrap();
            f.seek(std::io::SeekFrom::Start(1.min(file.len() as u64)))
                .unwrap();
            assert_eq!(super::holds(&mut f, want).unwrap(), holds, "case {i}");
            assert_eq!(super::read_from_start(&mut f).unwrap() == want, holds);
        }
    }

    /// A read that fails (here a directory's, `EISDIR`) is the answer of `holds`, not retried
    /// (only an interrupted read is: a signal arriving mid-read on a network file system).
    #[cfg(unix)]
    #[test]
    fn holds_answers_a_failed_read_with_its_error() {
        let dir = tempfile::tempdir().unwrap();
        let mut f = std::fs::File::open(dir.path()).unwrap();
        let e = super::holds(&mut f, b"x").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
    }

    /// An interrupted read (a signal arriving mid-read, on a network file system) is read
    /// again: `holds` answers as if it had not happened.
    #[test]
    fn holds_reads_again_after_an_interrupted_read() {
        struct Interrupting {
            inner: std::io::Cursor<Vec<u8>>,
            interrupt: bool,
        }
        impl std::io::Read for Interrupting {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                self.interrupt = !self.interrupt;
                if self.interrupt {
                    return Err(std::io::ErrorKind::Interrupted.into());
                }
                self.inner.read(buf)
            }
        }
        impl std::io::Seek for Interrupting {
            fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
                self.inner.seek(to)
            }
        }
        let mut f = Interrupting {
            inner: std::io::Cursor::new(b"abc".to_vec()),
            interrupt: false,
        };
        assert!(super::holds(&mut f, b"abc").unwrap());
        assert!(!super::holds(&mut f, b"abd").unwrap());
    }

    /// Only a name that is not there is absent: an open that fails otherwise (a name too long
    /// for the file system) is an error, never taken for "absent" (which a write would create).
    #[test]
    fn only_a_missing_name_is_absent() {
        let tmp = tempfile::tempdir().unwrap();
        let dir =
            cap_std::fs::Dir::open_ambient_dir(tmp.path(), cap_std::ambient_authority()).unwrap();
        assert!(super::open_existing(&dir, "gone").unwrap().is_none());
        let e = super::open_existing(&dir, "n".repeat(300)).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(super::os::NAME_TOO_LONG));
    }

    /// A new file takes the mode asked for, less setuid, setgid and sticky.
    #[cfg(unix)]
    #[test]
    fn a_new_files_mode_never_has_the_special_bits() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let ws = super::Workspace::open(tmp.path()).unwrap();
        for (asked, got) in [(0o4755, 0o755), (0o7640, 0o640), (0o600, 0o600)] {
            let name = format!("f{asked:o}");
            ws.replace_verified(&name, None, Some(b"x"), Some(asked))
                .unwrap();
            let mode = std::fs::metadata(tmp.path().join(&name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o7777, got, "asked {asked:o}");
        }
    }

    /// The identities other crates compare: two files differ; an open and its entry agree; a
    /// symlink's entry is its own, not the file an open of it reaches.
    #[test]
    fn identities_tell_files_and_links_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "b").unwrap();
        let opened =
            |p: &std::path::Path| super::file_identity(&std::fs::File::open(p).unwrap()).unwrap();
        let entry = |p: &std::path::Path| super::entry_identity(p).unwrap();
        assert_ne!(opened(&a), opened(&b));
        assert_ne!(entry(&a), entry(&b));
        assert_eq!(opened(&a), entry(&a));
        #[cfg(unix)]
        {
            let l = tmp.path().join("l");
            std::os::unix::fs::symlink("a", &l).unwrap();
            assert_eq!(opened(&l), entry(&a));
            assert_ne!(entry(&l), entry(&a));
        }
    }

    /// What `temp_name` makes, `temp_owner_pid` reads back (with this process's pid); a name
    /// it would never make (a signed number, another target) is not a temp name.
    #[test]
    fn temp_names_are_read_back_only_in_the_form_they_are_made() {
        let pid = i32::try_from(std::process::id()).expect("pid fits");
        assert_eq!(
            super::temp_owner_pid(&super::temp_name("a.txt"), "a.txt"),
            Some(pid)
        );
        assert_eq!(
            super::temp_owner_pid(&super::temp_name("a.txt"), "b.txt"),
            None
        );
        for bad in [
            ".a.txt.lspedit-+12-0.tmp",
            ".a.txt.lspedit-12-+0.tmp",
            ".a.txt.lspedit-12-0",
        ] {
            assert_eq!(super::temp_owner_pid(bad, "a.txt"), None, "{bad}");
        }
    }

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

    /// A file state's sha is its bytes' `base_sha`, or none for an absent file, which
    /// messages show as `(absent)`.
    #[test]
    fn a_state_sha_shows_an_absent_file_as_absent() {
        assert_eq!(state_sha(Some(b"")).as_deref(), Some("e3b0c44298fc"));
        assert_eq!(state_sha(None), None);
        assert_eq!(show_sha(Some("e3b0c44298fc")), "e3b0c44298fc");
        assert_eq!(show_sha(None), "(absent)");
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
        for bad in ["../x", "a/../../x", "/etc/passwd", "", "a\0b"] {
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

    /// The protected list is `.git` and `.lspedit` and then the configured names, each once;
    /// an empty name protects nothing.
    #[test]
    fn the_protected_list_always_has_the_vcs_and_lspedit_and_no_repeats() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        assert_eq!(ws.protected(), DEFAULT_PROTECTED);
        let ws = ws.with_protected(["", "build", ".git", "build"]);
        assert_eq!(ws.protected(), [".git", ".lspedit", "build"]);
        assert_eq!(ws.protected_in(Path::new("a/build/x")), Some("build"));
        assert_eq!(ws.protected_in(Path::new("a/.hg/x")), None);
    }

    /// A caller's resolution is checked by name on both spellings: the path as given and the
    /// path it resolved to; the entry a deletion removes is found through its parent's
    /// symlinks (not its own) and refused when that leads under a protected name.
    #[test]
    fn protected_names_are_checked_on_the_path_as_given_and_as_resolved() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let root = ws.root().to_path_buf();
        let refused = |r: Result<(), ToolError>| r.err().map(|e| e.reason);
        assert_eq!(
            refused(ws.check_writable_resolved(&root.join("a.txt"), "a.txt")),
            None
        );
        for (abs, path) in [(".git/f.txt", "a.txt"), ("a.txt", ".git/f.txt")] {
            assert_eq!(
                refused(ws.check_writable_resolved(&root.join(abs), path)),
                Some(Reason::ProtectedPath),
                "{path} at {abs}"
            );
        }
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir(root.join("real")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("inside")).unwrap();
        std::os::unix::fs::symlink(root.join(".git"), root.join("git")).unwrap();
        std::os::unix::fs::symlink(root.join("real"), root.join("link")).unwrap();
        assert_eq!(
            ws.resolve_entry("inside/f.txt").unwrap(),
            root.join("real/f.txt")
        );
        assert_eq!(ws.resolve_entry("link").unwrap(), root.join("link"));
        assert_eq!(
            ws.resolve_entry("git/f.txt").unwrap_err().reason,
            Reason::ProtectedPath
        );
    }

    /// Directories are created only by a write: a deletion, a mode change or a temp file's
    /// removal under a missing directory fails (or finds nothing) and creates none; a file
    /// where a directory is expected is named in the error.
    #[test]
    fn only_a_write_creates_directories_and_only_directories_are_walked() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let root = ws.root().to_path_buf();
        assert_eq!(ws.remove("gone/f.txt").unwrap_err().reason, Reason::IoError);
        assert_eq!(
            ws.set_mode("gone/f.txt", 0o644).unwrap_err().reason,
            Reason::IoError
        );
        let tmp = format!(".f.txt.lspedit-{}-0.tmp", std::process::id());
        assert!(
            !ws.remove_temp(&Path::new("gone").join(&tmp), "f.txt")
                .unwrap()
        );
        assert!(!root.join("gone").exists(), "a directory was created");
        fs::write(root.join("a.txt"), "a\n").unwrap();
        let e = ws.write_atomic("a.txt/b.txt", b"b\n").unwrap_err();
        assert!(e.message.contains("`a.txt` is not a directory"), "{e}");
        ws.write_atomic("made/f.txt", b"f\n").unwrap();
        assert_eq!(fs::read(root.join("made/f.txt")).unwrap(), b"f\n");
    }

    /// A temp file recorded by a journal is removed only under lspedit's temp-file name for
    /// its target: removed once (`true`), then found gone (`false`); another name is
    /// tampered state; what cannot be removed (a directory under that name, a file where a
    /// directory is) is an error, never "gone".
    #[test]
    fn a_recorded_temp_file_is_removed_only_under_its_pattern() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let root = ws.root().to_path_buf();
        let tmp = format!(".f.txt.lspedit-{}-0.tmp", std::process::id());
        fs::write(root.join(&tmp), "staged").unwrap();
        assert!(ws.remove_temp(Path::new(&tmp), "f.txt").unwrap());
        assert!(!root.join(&tmp).exists());
        assert!(!ws.remove_temp(Path::new(&tmp), "f.txt").unwrap());
        fs::write(root.join("f.txt"), "f\n").unwrap();
        let e = ws.remove_temp(Path::new("f.txt"), "f.txt").unwrap_err();
        assert_eq!(e.reason, Reason::TamperedState);
        assert!(root.join("f.txt").exists());
        fs::create_dir(root.join(&tmp)).unwrap();
        assert_eq!(
            ws.remove_temp(Path::new(&tmp), "f.txt").unwrap_err().reason,
            Reason::IoError
        );
        let under_file = Path::new("f.txt").join(&tmp);
        assert_eq!(
            ws.remove_temp(&under_file, "f.txt").unwrap_err().reason,
            Reason::IoError
        );
    }

    /// `remove` deletes the file the path names; a directory is refused and stays.
    #[test]
    fn remove_deletes_a_file_and_refuses_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        fs::write(ws.root().join("f.txt"), "f\n").unwrap();
        fs::create_dir(ws.root().join("d")).unwrap();
        ws.remove("f.txt").unwrap();
        assert!(!ws.root().join("f.txt").exists());
        assert_eq!(ws.remove("d").unwrap_err().reason, Reason::IoError);
        assert!(ws.root().join("d").is_dir());
    }

    /// An entry exists when its name is there, whatever it points to: a dangling symlink
    /// exists, a missing name does not.
    #[test]
    fn an_entry_exists_by_its_name() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        fs::write(ws.root().join("f.txt"), "f\n").unwrap();
        std::os::unix::fs::symlink("nowhere", ws.root().join("dangling")).unwrap();
        let exists = |p: &str| ws.entry_exists(p).unwrap();
        assert_eq!(
            [exists("f.txt"), exists("dangling"), exists("missing")],
            [true, true, false]
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
        // Process 1 is alive whoever runs the test: its temp file is another writer's.
        let live = dir.path().join(".a.txt.lspedit-1-0.tmp");
        for p in [&orphan, &ours, &other, &live] {
            fs::write(p, b"partial").unwrap();
        }
        write_atomic_abs(&dir.path().join("a.txt"), b"new\n").unwrap();
        assert!(!orphan.exists(), "the dead process's temp file stayed");
        // The same through a workspace directory (opened without following symlinks).
        let ws = Workspace::open(dir.path()).unwrap();
        fs::create_dir(dir.path().join("sub")).unwrap();
        let sub_orphan = dir.path().join(format!("sub/.a.txt.lspedit-{dead}-0.tmp"));
        fs::write(&sub_orphan, b"partial").unwrap();
        ws.write_atomic("sub/a.txt", b"new\n").unwrap();
        assert!(
            !sub_orphan.exists(),
            "the dead process's temp file stayed in sub/"
        );
        assert!(ours.exists(), "this process's temp file was removed");
        assert!(live.exists(), "a live process's temp file was removed");
        assert!(
            other.exists(),
            "another file's temp file is not this write's business"
        );
        assert_eq!(fs::read(dir.path().join("a.txt")).unwrap(), b"new\n");
    }
}

/// Other programs writing a file while lspedit switches it, played at each [`RacePoint`]: their
/// write is never lost, and ours is either in with theirs or answered `Changed`.
#[cfg(test)]
mod foreign_writer_tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    struct Case {
        _tmp: tempfile::TempDir,
        ws: Workspace,
        file: PathBuf,
    }

    fn case(old: Option<&str>) -> Case {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::open(tmp.path()).unwrap();
        let file = ws.root().join("f.txt");
        if let Some(old) = old {
            fs::write(&file, old).unwrap();
        }
        Case {
            _tmp: tmp,
            ws,
            file,
        }
    }

    impl Case {
        /// `replace_verified` from "old\n" to `new` (`None`: delete), with `writer` run at each
        /// race point of the switch.
        fn switch(
            &self,
            expected: Option<&str>,
            new: Option<&str>,
            writer: impl FnMut(RacePoint) + 'static,
        ) -> Replaced {
            let mut writer = writer;
            self.switch_or_fail(expected, new, move |at| {
                writer(at);
                Ok(())
            })
            .unwrap()
        }

        /// [`Case::switch`] with a hook that may also fail the switch at a point.
        fn switch_or_fail(
            &self,
            expected: Option<&str>,
            new: Option<&str>,
            hook: impl FnMut(RacePoint) -> std::io::Result<()> + 'static,
        ) -> Result<Replaced, ToolError> {
            RACE.with(|h| *h.borrow_mut() = Some(Box::new(hook)));
            let r = self.ws.replace_verified(
                "f.txt",
                expected.map(str::as_bytes),
                new.map(str::as_bytes),
                None,
            );
            RACE.with(|h| *h.borrow_mut() = None);
            r
        }

        fn now(&self) -> Option<String> {
            fs::read_to_string(&self.file).ok()
        }

        /// Every name in the root but `f.txt`: temp files left behind.
        fn litter(&self) -> Vec<String> {
            fs::read_dir(self.ws.root())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "f.txt")
                .collect()
        }

        /// The switch answered `want`, left `now` in place and no temp file behind.
        fn assert_end(&self, r: Replaced, want: Replaced, now: Option<&str>) {
            assert_eq!(r, want);
            assert_eq!(self.now().as_deref(), now);
            assert_eq!(self.litter(), Vec::<String>::new());
        }
    }

    fn changed(s: &str) -> Replaced {
        Replaced::Changed {
            current: Some(s.as_bytes().to_vec()),
        }
    }

    /// An editor's save: write a temp file, rename it over the target.
    fn atomic_save(file: &Path, text: &str) {
        let tmp = file.with_file_name(".f.txt.swp");
        fs::write(&tmp, text).unwrap();
        fs::rename(&tmp, file).unwrap();
    }

    /// `git checkout -- f`: unlink, then create anew.
    fn unlink_create(file: &Path, text: &str) {
        fs::remove_file(file).unwrap();
        fs::write(file, text).unwrap();
    }

    fn append(f: &mut fs::File, text: &str) {
        f.write_all(text.as_bytes()).unwrap();
    }

    fn open_append(file: &Path) -> fs::File {
        fs::OpenOptions::new().append(true).open(file).unwrap()
    }

    // Regression (issue 25): a save by rename between the compare and the rename was replaced
    // by lspedit's content (301 of 1,000 runs).
    #[test]
    fn an_atomic_save_after_the_compare_is_kept() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                atomic_save(&file, "theirs\n");
            }
        });
        c.assert_end(r, changed("theirs\n"), Some("theirs\n"));
    }

    // Regression (issue 25): `git checkout -- f` (unlink, create) between the compare and the
    // rename was lost (239 of 1,000 runs).
    #[test]
    fn an_unlink_and_create_after_the_compare_is_kept() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                unlink_create(&file, "theirs\n");
            }
        });
        c.assert_end(r, changed("theirs\n"), Some("theirs\n"));
    }

    /// A save between the read of the entry's identity and the open: the bytes read are not
    /// those of the entry first seen, even when they are the same bytes. Nothing is switched
    /// (not even for a moment, to be undone after: a reader would see the new bytes), and the
    /// caller plans again.
    #[test]
    fn a_save_between_the_identity_and_the_open_is_not_switched() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let points = std::rc::Rc::clone(&seen);
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            points.borrow_mut().push(at);
            if at == RacePoint::Identified {
                atomic_save(&file, "old\n");
            }
        });
        c.assert_end(r, changed("old\n"), Some("old\n"));
        assert_eq!(*seen.borrow(), [RacePoint::Identified]);
    }

    #[test]
    fn a_removal_after_the_compare_is_not_undone() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                fs::remove_file(&file).unwrap();
            }
        });
        c.assert_end(r, Replaced::Changed { current: None }, None);
    }

    #[test]
    fn a_file_created_after_the_compare_is_never_replaced() {
        let c = case(None);
        let file = c.file.clone();
        let r = c.switch(None, Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                fs::write(&file, "theirs\n").unwrap();
            }
        });
        c.assert_end(r, changed("theirs\n"), Some("theirs\n"));
    }

    /// A create whose staged file is gone when it is renamed into place fails as a write: it
    /// is not "changed by another writer" (nothing was created at the name).
    #[test]
    fn a_create_whose_staged_file_vanished_is_an_error() {
        let c = case(None);
        let root = c.ws.root().to_path_buf();
        let r = c.switch_or_fail(None, Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                for e in fs::read_dir(&root).unwrap() {
                    fs::remove_file(e.unwrap().path()).unwrap();
                }
            }
            Ok(())
        });
        let e = r.unwrap_err();
        assert!(e.to_string().contains("writing"), "{e}");
        assert_eq!(c.now(), None);
        assert_eq!(c.litter(), Vec::<String>::new());
    }

    /// A delete of a file removed after the compare: changed (to absent), not an error.
    #[test]
    fn a_delete_of_a_file_removed_after_the_compare_is_changed() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), None, move |at| {
            if at == RacePoint::Compared {
                fs::remove_file(&file).unwrap();
            }
        });
        c.assert_end(r, Replaced::Changed { current: None }, None);
    }

    /// A delete that cannot move the file aside (the temp name is too long for the file
    /// system) fails, and the file stays: it is not taken for a file removed by another.
    #[test]
    fn a_delete_that_cannot_move_the_file_aside_fails_and_keeps_it() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = Workspace::open(tmp.path()).unwrap();
        let name = "n".repeat(240);
        fs::write(tmp.path().join(&name), "old\n").unwrap();
        let e = ws
            .replace_verified(&name, Some(b"old\n"), None, None)
            .unwrap_err();
        assert!(
            e.message
                .contains("240 bytes in one name, and the temp file written beside it"),
            "{e}"
        );
        assert_eq!(fs::read(tmp.path().join(&name)).unwrap(), b"old\n");
    }

    /// A delete that moved aside a file saved after the compare puts it back; when a newer
    /// file was created at the name meanwhile, that one stays and the one aside goes.
    #[test]
    fn a_delete_keeps_the_newest_file_at_the_name() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), None, move |at| match at {
            RacePoint::Compared => atomic_save(&file, "theirs\n"),
            RacePoint::Switched => fs::write(&file, "newest\n").unwrap(),
            RacePoint::Identified | RacePoint::Checked => {}
        });
        c.assert_end(r, changed("newest\n"), Some("newest\n"));
    }

    #[test]
    fn a_delete_keeps_a_save_made_after_the_compare() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), None, move |at| {
            if at == RacePoint::Compared {
                atomic_save(&file, "theirs\n");
            }
        });
        c.assert_end(r, changed("theirs\n"), Some("theirs\n"));
    }

    #[test]
    fn a_delete_keeps_a_write_to_the_file_moved_aside() {
        let c = case(Some("old\n"));
        let mut held = Some(open_append(&c.file));
        let r = c.switch(Some("old\n"), None, move |at| {
            if at == RacePoint::Switched
                && let Some(mut f) = held.take()
            {
                append(&mut f, "theirs\n");
            }
        });
        c.assert_end(r, changed("old\ntheirs\n"), Some("old\ntheirs\n"));
    }

    // A descriptor opened before the switch, written while the new file is in place: the
    // displaced file's check sees it.
    #[test]
    fn a_write_to_the_displaced_file_is_kept() {
        let c = case(Some("old\n"));
        let mut held = Some(open_append(&c.file));
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            if at == RacePoint::Switched
                && let Some(mut f) = held.take()
            {
                append(&mut f, "theirs\n");
            }
        });
        c.assert_end(r, changed("old\ntheirs\n"), Some("old\ntheirs\n"));
    }

    // A continuous appender: one line to the old file before the exchange, the next one to the
    // new file while it is in place. Undoing the exchange keeps both, in order.
    #[test]
    fn appends_on_both_sides_of_the_exchange_are_both_kept() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| match at {
            RacePoint::Compared => append(&mut open_append(&file), "a1\n"),
            RacePoint::Switched => append(&mut open_append(&file), "a2\n"),
            RacePoint::Identified | RacePoint::Checked => {}
        });
        c.assert_end(r, changed("old\na1\na2\n"), Some("old\na1\na2\n"));
    }

    /// A switch of "old\n" to "new\n" with a late appender: "a1" appended to the old file
    /// before the exchange, the name opened while the new file is in place, "a2" written
    /// through it once the exchange is undone, then `after` run on the name.
    fn late_append(c: &Case, after: impl FnOnce(&Path) + 'static) -> Replaced {
        let file = c.file.clone();
        let mut held = None;
        let mut after = Some(after);
        c.switch(Some("old\n"), Some("new\n"), move |at| match at {
            RacePoint::Compared => append(&mut open_append(&file), "a1\n"),
            RacePoint::Switched => held = Some(open_append(&file)),
            RacePoint::Checked => {
                append(held.as_mut().unwrap(), "a2\n");
                if let Some(after) = after.take() {
                    after(&file);
                }
            }
            RacePoint::Identified => {}
        })
    }

    // The name opened while the new file is in place, written after the exchange is undone:
    // the append reaches the new file, now removed, and is moved to theirs.
    #[test]
    fn an_append_to_the_new_file_after_the_undo_is_kept() {
        let c = case(Some("old\n"));
        let r = late_append(&c, |_| {});
        c.assert_end(r, changed("old\na1\na2\n"), Some("old\na1\na2\n"));
    }

    // As above, but the name holds another file (a save) when the late append is carried over:
    // the append goes nowhere else than the file it was meant for, which is gone.
    #[test]
    fn a_late_append_is_never_carried_to_another_file() {
        let c = case(Some("old\n"));
        let r = late_append(&c, |file| atomic_save(file, "editor\n"));
        c.assert_end(r, changed("editor\n"), Some("editor\n"));
    }

    // As above, but the file it was meant for got a second name meanwhile: an append never
    // reaches a file another name shares (it may be outside the workspace, or `.git/`'s).
    #[test]
    fn a_late_append_never_reaches_a_file_with_another_name() {
        let c = case(Some("old\n"));
        let other = c.ws.root().join("other");
        let link = other.clone();
        let r = late_append(&c, move |file| fs::hard_link(file, &link).unwrap());
        assert_eq!(r, changed("old\na1\n"));
        assert_eq!(c.now().as_deref(), Some("old\na1\n"));
        assert_eq!(fs::read_to_string(&other).unwrap(), "old\na1\n");
        assert_eq!(c.litter(), ["other"]);
    }

    // An in-place write before the exchange, then a save by rename while the new file is in
    // place: the save is the later write and stays.
    #[test]
    fn a_save_over_the_new_file_while_it_is_in_place_wins() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| match at {
            RacePoint::Compared => append(&mut open_append(&file), "a1\n"),
            RacePoint::Switched => atomic_save(&file, "editor\n"),
            RacePoint::Identified | RacePoint::Checked => {}
        });
        c.assert_end(r, changed("editor\n"), Some("editor\n"));
    }

    // An append through a descriptor opened before the switch that lands after the check:
    // where leases tell that the file is open for writing, the switch is undone and the append
    // lands in the file in place; where they do not, it is appended to the new file. Both
    // writes are in either way.
    #[test]
    fn a_late_append_to_the_old_file_lands_in_the_new_one() {
        for leases in [true, false] {
            NO_LEASES.with(|n| n.set(!leases));
            let c = case(Some("old\n"));
            let mut held = Some(open_append(&c.file));
            let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
                if at == RacePoint::Checked
                    && let Some(mut f) = held.take()
                {
                    append(&mut f, "late\n");
                }
            });
            NO_LEASES.with(|n| n.set(false));
            if leases {
                c.assert_end(r, changed("old\nlate\n"), Some("old\nlate\n"));
            } else {
                c.assert_end(r, Replaced::Done, Some("new\nlate\n"));
            }
        }
    }

    // Regression (issue 25, the continuous appender): a program that opened the file for
    // appending before the switch and writes after it is over wrote into the replaced file,
    // which no one reads again. A file still open for writing elsewhere is not replaced: the
    // exchange is undone and the caller plans again, so the append lands in the file in place.
    #[test]
    fn a_file_held_open_for_writing_is_not_replaced_under_its_writer() {
        let c = case(Some("old\n"));
        let file = c.file.clone();
        let held = std::sync::Arc::new(std::sync::Mutex::new(None));
        let holder = std::sync::Arc::clone(&held);
        let r = c.switch(Some("old\n"), Some("new\n"), move |at| {
            if at == RacePoint::Compared {
                *holder.lock().unwrap() = Some(open_append(&file));
            }
        });
        let mut writer = held.lock().unwrap().take().unwrap();
        append(&mut writer, "late\n");
        drop(writer);
        c.assert_end(r, changed("old\n"), Some("old\nlate\n"));
        // Once it is closed, the switch goes through.
        let r = c.switch(Some("old\nlate\n"), Some("new\n"), |_| {});
        c.assert_end(r, Replaced::Done, Some("new\n"));
    }

    // A late rewrite in place through an old descriptor (not an append): theirs is put back,
    // with the old file's permissions, and ours is answered `Changed`, to be planned again
    // from it.
    #[test]
    fn a_late_rewrite_of_the_old_file_is_put_back() {
        late_write_is_put_back_with_its_mode(Some("new\n"));
    }

    /// A write through a descriptor opened before the switch, made after its check, to a file
    /// being replaced by `new` (`None`: deleted): the file is put back with that write and its
    /// permissions, and the switch answers `Changed`.
    fn late_write_is_put_back_with_its_mode(new: Option<&str>) {
        let c = case(Some("old\n"));
        fs::set_permissions(&c.file, fs::Permissions::from_mode(0o640)).unwrap();
        let mut held = Some(fs::OpenOptions::new().write(true).open(&c.file).unwrap());
        let r = c.switch(Some("old\n"), new, move |at| {
            if at == RacePoint::Checked
                && let Some(mut f) = held.take()
            {
                f.write_all(b"OLD\n").unwrap();
            }
        });
        c.assert_end(r, changed("OLD\n"), Some("OLD\n"));
        let mode = fs::metadata(&c.file).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
    }

    // A write through an old descriptor to a file being deleted, after its check: the file is
    // put back with what they wrote and the permissions it had, and the deletion is answered
    // `Changed`.
    #[test]
    fn a_late_write_to_a_deleted_file_is_put_back_with_its_mode() {
        late_write_is_put_back_with_its_mode(None);
    }

    // Where `renameat2`'s flags are unsupported (some network and FUSE file systems, old
    // kernels) the switch falls back to a rename after the compare, to link and unlink for a
    // creation and to a plain rename aside for a removal: each is still done, a file created
    // since the compare is never replaced, a late rewrite of the old file is put back, and a
    // file removed by another program's save keeps the newest save.
    #[test]
    fn without_rename_flags_the_switch_falls_back_and_keeps_other_writes() {
        NO_RENAME_FLAGS.with(|n| n.set(true));
        let c = case(Some("old\n"));
        assert_eq!(
            c.switch(Some("old\n"), Some("new\n"), |_| {}),
            Replaced::Done
        );
        assert_eq!(c.switch(Some("new\n"), None, |_| {}), Replaced::Done);
        assert_eq!(c.now(), None);
        assert_eq!(c.switch(None, Some("made\n"), |_| {}), Replaced::Done);
        c.assert_end(Replaced::Done, Replaced::Done, Some("made\n"));

        fs::remove_file(&c.file).unwrap();
        let file = c.file.clone();
        let r = c.switch(None, Some("ours\n"), move |at| {
            if at == RacePoint::Compared {
                fs::write(&file, "theirs\n").unwrap();
            }
        });
        c.assert_end(r, changed("theirs\n"), Some("theirs\n"));

        let mut held = Some(fs::OpenOptions::new().write(true).open(&c.file).unwrap());
        let r = c.switch(Some("theirs\n"), Some("new\n"), move |at| {
            if at == RacePoint::Switched
                && let Some(mut f) = held.take()
            {
                f.write_all(b"THEIRS\n").unwrap();
            }
        });
        c.assert_end(r, changed("THEIRS\n"), Some("THEIRS\n"));

        let file = c.file.clone();
        let r = c.switch(Some("THEIRS\n"), None, move |at| match at {
            RacePoint::Compared => atomic_save(&file, "save 1\n"),
            RacePoint::Switched => atomic_save(&file, "save 2\n"),
            RacePoint::Identified | RacePoint::Checked => {}
        });
        c.assert_end(r, changed("save 2\n"), Some("save 2\n"));
        let file = c.file.clone();
        let r = c.switch(Some("save 2\n"), None, move |at| {
            if at == RacePoint::Compared {
                atomic_save(&file, "save 3\n");
            }
        });
        c.assert_end(r, changed("save 3\n"), Some("save 3\n"));
        NO_RENAME_FLAGS.with(|n| n.set(false));
    }

    // A write or delete that fails after the switch began puts the file back as it was: the
    // displaced file is not removed with the temp file.
    #[test]
    fn a_switch_that_fails_half_way_leaves_the_file_as_it_was() {
        let fail = |at| {
            if at == RacePoint::Switched {
                Err(std::io::Error::other("injected"))
            } else {
                Ok(())
            }
        };
        for new in [Some("new\n"), None] {
            let c = case(Some("old\n"));
            let r = c.switch_or_fail(Some("old\n"), new, fail);
            assert!(r.is_err(), "{new:?}: {r:?}");
            assert_eq!(c.now().as_deref(), Some("old\n"), "{new:?}");
            assert_eq!(c.litter(), Vec::<String>::new(), "{new:?}");
        }
    }

    #[test]
    fn without_another_writer_the_switch_is_done() {
        let c = case(Some("old\n"));
        assert_eq!(
            c.switch(Some("old\n"), Some("new\n"), |_| {}),
            Replaced::Done
        );
        assert_eq!(c.now().as_deref(), Some("new\n"));
        assert_eq!(c.switch(Some("new\n"), None, |_| {}), Replaced::Done);
        assert_eq!(c.now(), None);
        assert_eq!(c.switch(None, Some("made\n"), |_| {}), Replaced::Done);
        assert_eq!(c.now().as_deref(), Some("made\n"));
        assert_eq!(c.litter(), Vec::<String>::new());
    }

    /// A mode change of a hard-linked file (a copy switched in) that another program writes
    /// during the switch copies again from their bytes: the mode is set, their write kept,
    /// the other link untouched. One that fails half-way leaves the file and its links as
    /// they were, with no temp file.
    #[test]
    fn a_mode_change_of_a_hard_linked_file_keeps_a_write_made_during_it() {
        use std::os::unix::fs::MetadataExt;
        let c = case(Some("x\n"));
        let other = c.ws.root().join("other");
        fs::hard_link(&c.file, &other).unwrap();
        fs::set_permissions(&other, fs::Permissions::from_mode(0o600)).unwrap();
        let file = c.file.clone();
        let mut once = true;
        let writer = move |at| {
            if at == RacePoint::Compared && std::mem::take(&mut once) {
                append(&mut open_append(&file), "theirs\n");
            }
            Ok(())
        };
        with_race_hook(writer, || c.ws.set_mode("f.txt", 0o755)).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!((mode(&c.file), mode(&other)), (0o755, 0o600));
        assert_eq!(c.now().as_deref(), Some("x\ntheirs\n"));
        assert_eq!(fs::metadata(&c.file).unwrap().nlink(), 1);
        assert_eq!(c.litter(), vec!["other".to_string()]);

        let c = case(Some("x\n"));
        let other = c.ws.root().join("other");
        fs::hard_link(&c.file, &other).unwrap();
        let fail = |at| match at {
            RacePoint::Switched => Err(std::io::Error::other("injected")),
            _ => Ok(()),
        };
        assert!(with_race_hook(fail, || c.ws.set_mode("f.txt", 0o755)).is_err());
        assert_eq!(fs::metadata(&c.file).unwrap().nlink(), 2);
        assert_eq!(c.litter(), vec!["other".to_string()]);
    }

    // Regression (issue 25): `set_mode` chmodded through a descriptor, so a file hard-linked
    // to `.git/config` or to a file outside the root got its mode changed there.
    #[test]
    fn a_mode_change_never_reaches_another_hard_link() {
        use std::os::unix::fs::MetadataExt;
        let c = case(Some("[core]\n"));
        let other = c.ws.root().join("other");
        fs::write(&other, "x\n").unwrap();
        fs::set_permissions(&other, fs::Permissions::from_mode(0o600)).unwrap();
        fs::set_permissions(&c.file, fs::Permissions::from_mode(0o644)).unwrap();
        fs::remove_file(&c.file).unwrap();
        fs::hard_link(&other, &c.file).unwrap();
        c.ws.set_mode("f.txt", 0o755).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&other), 0o600, "the other link's mode changed");
        assert_eq!(mode(&c.file), 0o755);
        assert_eq!(fs::read_to_string(&c.file).unwrap(), "x\n");
        assert_eq!(fs::metadata(&c.file).unwrap().nlink(), 1);
        assert_eq!(fs::metadata(&other).unwrap().nlink(), 1);
        assert_eq!(c.litter(), vec!["other".to_string()]);
    }
}
