//! The workspace: every path confined to the root, atomic writes, file reads.
//!
//! Writes go to a temporary file in the target's directory, are fsynced, take the original
//! file's permissions and are renamed over the target, so after a crash at any point the file is
//! entirely old or entirely new.

use std::fs;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::error::{Reason, ToolError};

/// The workspace root and the file operations confined to it.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// `base_sha`: the first 12 hex characters of the SHA-256 of the file bytes.
pub fn base_sha(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

impl Workspace {
    /// Open a workspace rooted at `root` (which must be an existing directory).
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
        Ok(Workspace { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Resolve a path given by a caller (relative to the root, or absolute inside it) to an
    /// absolute path inside the root, following symlinks that stay inside. `..` that leaves the
    /// root, absolute paths elsewhere and symlinks that escape are `path_outside_workspace`.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let outside = |why: &str| {
            ToolError::new(
                Reason::PathOutsideWorkspace,
                Some(path),
                format!(
                    "{why}; paths must stay inside the workspace root {}",
                    self.root.display()
                ),
            )
        };
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
                Err(_) => return Err(outside("absolute path outside the workspace")),
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
                        return Err(outside("the path climbs above the root with `..`"));
                    }
                }
                Component::RootDir | Component::Prefix(_) => return Err(outside("absolute path")),
            }
        }
        if clean.as_os_str().is_empty() {
            return Err(outside("the path names the root itself, not a file"));
        }
        let full = self.root.join(&clean);
        // Follow symlinks along the existing part of the path: the real location must be inside.
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
            .map_err(|_| outside("a symlink in the path points nowhere"))?;
        if !real.starts_with(&self.root) {
            return Err(outside("a symlink in the path leads outside the workspace"));
        }
        let mut resolved = real;
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }

    /// The path relative to the root, with `/` separators, for reports.
    pub fn display_path(&self, abs: &Path) -> String {
        abs.strip_prefix(&self.root)
            .unwrap_or(abs)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// Read a file; `Ok(None)` when it does not exist.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ToolError> {
        let abs = self.resolve(path)?;
        // Only regular files: reading a FIFO or a device would block or never end.
        match fs::metadata(&abs) {
            Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                return Err(ToolError::new(
                    Reason::IoError,
                    Some(path),
                    "not a regular file (a FIFO, socket or device); only regular files are read or patched",
                ));
            }
            _ => {}
        }
        match fs::read(&abs) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) if abs.is_dir() => Err(ToolError::new(
                Reason::IoError,
                Some(path),
                format!("is a directory: {e}"),
            )),
            Err(e) => Err(ToolError::io(path, "reading", &e)),
        }
    }

    /// Write `bytes` atomically: temp file in the same directory, fsync, permissions of the old
    /// file, rename over the target, fsync of the directory. Parent directories are created.
    pub fn write_atomic(&self, path: &str, bytes: &[u8]) -> Result<(), ToolError> {
        let abs = self.resolve(path)?;
        write_atomic_abs(&abs, bytes).map_err(|e| ToolError::io(path, "writing", &e))
    }

    /// Remove a file.
    pub fn remove(&self, path: &str) -> Result<(), ToolError> {
        let abs = self.resolve(path)?;
        fs::remove_file(&abs).map_err(|e| ToolError::io(path, "deleting", &e))?;
        if let Some(dir) = abs.parent() {
            sync_dir(dir);
        }
        Ok(())
    }
}

/// Remove the temp files of earlier writes to `name` in `dir` whose process is gone: a process
/// killed between creating its temp file and renaming it (kill -9, power loss) leaves one
/// behind, and nothing else would ever remove it. Temp files of live processes (a concurrent
/// writer) are left alone. Best effort: errors only mean the litter stays.
fn remove_orphaned_temps(dir: &Path, name: &str) {
    let prefix = format!(".{name}.lspedit-");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name
            .to_str()
            .and_then(|n| n.strip_prefix(prefix.as_str()))
            .and_then(|r| r.strip_suffix(".tmp"))
        else {
            continue;
        };
        let Some(pid) = rest
            .split_once('-')
            .and_then(|(pid, n)| n.parse::<u64>().ok().and(pid.parse::<i32>().ok()))
        else {
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
            tracing::info!(path = %entry.path().display(), "removing a temp file left by a dead process");
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The atomic write itself, on an already resolved absolute path.
pub fn write_atomic_abs(abs: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = abs
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent directory"))?;
    fs::create_dir_all(dir)?;
    let name = abs
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    remove_orphaned_temps(dir, &name);
    let tmp = dir.join(format!(
        ".{name}.lspedit-{}-{}.tmp",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        if let Ok(meta) = fs::metadata(abs) {
            f.set_permissions(meta.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, abs)
    })();
    if result.is_err() {
        // Best effort: the temp file is ours and must not be left behind.
        let _ = fs::remove_file(&tmp);
    }
    result?;
    sync_dir(dir);
    Ok(())
}

/// fsync a directory so a rename in it is durable. Failure only weakens durability, not
/// atomicity, so it is not reported.
fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
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
