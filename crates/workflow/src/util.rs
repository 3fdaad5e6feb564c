//! Shared plumbing of the workflow: the `.lspedit/` layout, identifiers, atomic JSON files, the
//! cross-process workspace lock, the eviction of the oldest entries of a capped store, and the
//! checks every value read back from `.lspedit/` passes before it is acted on.
//!
//! Stored state is not trusted: a model that writes files, or a cloned repository, can put
//! anything under `.lspedit/`. So ids must have their exact format and equal their file names,
//! blob names are plain hashes, workspace paths are resolved again inside the root and refused
//! in protected directories, and no entry of `.lspedit/` that lspedit opens may be a symlink.
//! A violation is `tampered_state` naming the stored file; nothing is acted on.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use lspedit_write::{Reason, ToolError};
use lspedit_write::{Workspace, write_atomic_abs};
pub(crate) use lspedit_write::{show_sha, state_sha};

/// Where the workflow keeps its state under the workspace root. Nothing here is created until
/// something must be written: opening a workflow or naming an unknown patch creates no directory.
///
/// None of these entries may be a symlink (or anything but a directory, `lock` a regular file):
/// [`Layout::verify`] refuses that as `tampered_state` (the state was put there by someone else,
/// and following the link would read or write outside the workspace), and every directory is
/// created through [`Layout::ensure_dir`], which checks before and after creating it.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    root: PathBuf,
    pub dir: PathBuf,
    pub patches: PathBuf,
    pub evidence: PathBuf,
    pub checkpoints: PathBuf,
    pub journal: PathBuf,
    pub lock: PathBuf,
}

impl Layout {
    pub fn new(root: &Path) -> Layout {
        let dir = root.join(".lspedit");
        Layout {
            root: root.to_path_buf(),
            patches: dir.join("patches"),
            evidence: dir.join("evidence"),
            checkpoints: dir.join("checkpoints"),
            journal: dir.join("journal"),
            lock: dir.join("lock"),
            dir,
        }
    }

    /// `path` (under the root) as reports name it: `.lspedit/patches/<id>.json`.
    pub fn rel(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// Refuse (`tampered_state`) a `.lspedit` entry lspedit opens that is a symlink or not what
    /// lspedit makes there. Entries that do not exist are fine. Cheap (a few `lstat`s): run
    /// before every operation, since the state can change between two.
    pub fn verify(&self) -> Result<(), ToolError> {
        let dirs = [
            &self.dir,
            &self.patches,
            &self.evidence,
            &self.checkpoints,
            &self.journal,
        ];
        for d in dirs {
            check_entry(d, &self.rel(d), true)
                .map_err(|e| state_error(&self.rel(d), "checking", &e))?;
        }
        check_entry(&self.lock, &self.rel(&self.lock), false)
            .map_err(|e| state_error(&self.rel(&self.lock), "checking", &e))
    }

    /// Whether `.lspedit/journal` may exist: `false` only when an `lstat` of it says it does
    /// not (see `Workflow::may_need_recovery`).
    pub fn journal_may_exist(&self) -> bool {
        !matches!(fs::symlink_metadata(&self.journal), Err(e) if e.kind() == io::ErrorKind::NotFound)
    }

    /// Create `dir` (`.lspedit` or a directory under it) if missing, refusing (`InvalidData`) a
    /// symlink in its place before and after: a link swapped in while creating is caught before
    /// anything is written into it.
    pub fn ensure_dir(&self, dir: &Path) -> io::Result<()> {
        check_entry(&self.dir, &self.rel(&self.dir), true)?;
        check_entry(dir, &self.rel(dir), true)?;
        fs::create_dir_all(dir)?;
        check_entry(&self.dir, &self.rel(&self.dir), true)?;
        check_entry(dir, &self.rel(dir), true)?;
        lspedit_tools::events::ignore_in_git(&self.dir);
        Ok(())
    }
}

/// An `InvalidData` error: what was found under `.lspedit/` is not what lspedit writes there.
/// [`state_error`] turns it into `tampered_state`.
pub(crate) fn invalid(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.into())
}

/// `Ok` when `path` does not exist or is a real directory (`dir`) / regular file (`!dir`), never
/// a symlink to one; otherwise `InvalidData` naming it as `shown`.
pub(crate) fn check_entry(path: &Path, shown: &str, dir: bool) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
        Ok(m) if m.file_type().is_symlink() => Err(invalid(format!(
            "`{shown}` is a symlink; lspedit never follows links in its own state"
        ))),
        Ok(m) if dir && !m.is_dir() => Err(invalid(format!("`{shown}` is not a directory"))),
        Ok(m) if !dir && !m.is_file() => Err(invalid(format!("`{shown}` is not a regular file"))),
        Ok(_) => Ok(()),
    }
}

/// `tampered_state` about the stored file `file` (as [`Layout::rel`] names it).
pub(crate) fn tampered(file: &str, message: impl Into<String>) -> ToolError {
    ToolError::new(Reason::TamperedState, Some(file), message)
}

/// The error of `doing` something with the stored file `file`: `tampered_state` when what was
/// found is not what lspedit writes (`InvalidData`), else `io_error`.
pub(crate) fn state_error(file: &str, doing: &str, e: &io::Error) -> ToolError {
    if e.kind() == io::ErrorKind::InvalidData {
        tampered(
            file,
            format!("{e}; this is not what lspedit stores, so nothing was done with it"),
        )
    } else {
        ToolError::io(file, doing, e)
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

static ID_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Hex digits of the random or keyed part of every id: 128 bits (`docs/ids.md`).
pub(crate) const ID_HEX: usize = 32;

/// A fresh identifier `<prefix>_<unix_ms>_<32 hex>`: 128 bits of a SHA-256 over random bytes,
/// `seed`, the process id and a counter, so two ids minted in the same millisecond (here or in
/// another process) differ and none can be guessed.
pub(crate) fn new_id(prefix: &str, seed: &[u8]) -> String {
    let ms = now_ms();
    let mut random = [0u8; 16];
    if let Err(e) = getrandom::fill(&mut random) {
        // The counter, pid and clock still keep ids distinct; stored state is bound by its MAC,
        // not by the id's randomness.
        tracing::warn!(error = %e, "no random bytes for an id");
    }
    let mut h = Sha256::new();
    h.update(random);
    h.update(seed);
    h.update(std::process::id().to_le_bytes());
    h.update(ID_COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.update(ms.to_le_bytes());
    let tag: String = h
        .finalize()
        .iter()
        .take(ID_HEX / 2)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{prefix}_{ms}_{tag}")
}

/// Whether `id` has the exact shape `<prefix>_<digits>_<32 lowercase hex>`. Ids name files, so
/// anything else (a path, `..`, an id of fewer bits) is treated as unknown before it reaches
/// the file system.
pub(crate) fn is_valid_id(prefix: &str, id: &str) -> bool {
    id_tag(prefix, id).is_some_and(|tag| is_hex(tag, ID_HEX))
}

/// The part of `<prefix>_<ms>_<tag>` after the second `_`, when the shape is right up to it.
fn id_tag<'a>(prefix: &str, id: &'a str) -> Option<&'a str> {
    let rest = id.strip_prefix(prefix)?.strip_prefix('_')?;
    let (ms, tag) = rest.split_once('_')?;
    (!ms.is_empty() && ms.len() <= 20 && ms.bytes().all(|b| b.is_ascii_digit())).then_some(tag)
}

/// Why `id` is not a `prefix` id, when it has the shape of one with fewer bits (the 8 hex
/// digits lspedit used before ids were keyed): said so the caller knows to propose again.
pub(crate) fn short_id_note(prefix: &str, id: &str) -> Option<String> {
    let tag = id_tag(prefix, id)?;
    (tag.len() < ID_HEX && is_hex(tag, tag.len()) && !tag.is_empty()).then(|| {
        format!(
            " (`{id}` carries {} bits; ids carry {} hex digits, 128 bits, since they became unforgeable, and older ids are not accepted)",
            tag.len() * 4,
            ID_HEX
        )
    })
}

/// Whether `s` is exactly `len` lowercase hex digits.
fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Whether `name` is a checkpoint blob name: a SHA-256 in 64 lowercase hex digits, so it can
/// only ever name a file directly inside `blobs/`.
pub(crate) fn is_blob_name(name: &str) -> bool {
    is_hex(name, 64)
}

/// The blob name of the `index`-th entry of a checkpoint, for `path`: unique within it.
pub(crate) fn blob_name(index: usize, path: &str) -> String {
    let mut h = Sha256::new();
    h.update(index.to_le_bytes());
    h.update(path.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `sha` is a `base_sha` (12 lowercase hex digits) or `None` (no file).
pub(crate) fn is_valid_sha(sha: Option<&str>) -> bool {
    sha.is_none_or(|s| is_hex(s, 12))
}

/// Only permission bits survive from a stored mode: never setuid, setgid or sticky.
pub(crate) const MODE_MASK: u32 = 0o777;

/// A workspace path read back from the stored file `file`, resolved: it must be a plain relative
/// path (names only: no `..`, no root) as lspedit stores them, resolve inside the root
/// ([`Workspace::resolve`]: symlinks that escape are `path_outside_workspace`) and lie outside
/// the protected directories. Anything else is `tampered_state`.
pub(crate) fn stored_path(ws: &Workspace, file: &str, path: &str) -> Result<PathBuf, ToolError> {
    let plain = !path.is_empty()
        && !path.contains('\0')
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
    if !plain {
        return Err(tampered(
            file,
            format!(
                "it names the path `{path}`, which is not a workspace-relative path as lspedit stores them"
            ),
        ));
    }
    let abs = ws.resolve(path)?;
    let rel = ws.display_path(&abs);
    if let Some(dir) = ws
        .protected_in(Path::new(path))
        .or_else(|| ws.protected_in(Path::new(&rel)))
    {
        return Err(tampered(
            file,
            format!("it names `{path}`, inside `{dir}`, where lspedit never writes"),
        ));
    }
    Ok(abs)
}

/// The millisecond part of an id, used to order a store by age.
pub(crate) fn id_ms(id: &str) -> u64 {
    id.split('_')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Whether the file opened as `f` (its metadata `opened`) is the entry at `path` that was checked
/// not to be a symlink (its metadata `checked`): the same device and inode.
#[cfg(unix)]
fn same_file(
    f: &File,
    opened: &fs::Metadata,
    path: &Path,
    checked: &fs::Metadata,
) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let _ = (f, path);
    Ok((opened.dev(), opened.ino()) == (checked.dev(), checked.ino()))
}

/// Whether the file opened as `f` is the entry at `path` that was checked not to be a symlink:
/// the same volume and file index. std's Windows metadata carries no file index, so the entry
/// is opened again as itself (a link not followed) for it: a link swapped in before that open
/// is its own file, a file swapped in after it is another one, and either differs from `f`.
#[cfg(windows)]
fn same_file(
    f: &File,
    opened: &fs::Metadata,
    path: &Path,
    checked: &fs::Metadata,
) -> io::Result<bool> {
    let _ = (opened, checked);
    Ok(lspedit_write::entry_identity(path)? == lspedit_write::file_identity(f)?)
}

/// Serialize `value` as pretty JSON and write it atomically (temp file, fsync, rename).
pub(crate) fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic_abs(path, &bytes)
}

/// The largest JSON file lspedit reads back from its state; a larger one is refused unread.
const MAX_JSON_BYTES: u64 = 256 * 1024 * 1024;

/// Read a file of lspedit's state without following a symlink: `InvalidData` when `path` is a
/// symlink, not a regular file, larger than `max`, or replaced between the check and the open
/// (the opened file must be the inode that was checked). `NotFound` passes through.
pub(crate) fn read_state_file(path: &Path, shown: &str, max: u64) -> io::Result<Vec<u8>> {
    let checked = fs::symlink_metadata(path)?;
    check_entry(path, shown, false)?;
    if checked.len() > max {
        return Err(invalid(format!(
            "`{shown}` is {} bytes, more than lspedit ever stores there",
            checked.len()
        )));
    }
    let f = File::open(path)?;
    let opened = f.metadata()?;
    if !same_file(&f, &opened, path, &checked)? {
        return Err(invalid(format!(
            "`{shown}` was replaced while being opened"
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
    f.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > max {
        return Err(invalid(format!(
            "`{shown}` grew past what lspedit stores there"
        )));
    }
    Ok(bytes)
}

/// Read and deserialize a JSON file of lspedit's state (see [`read_state_file`]); a malformed
/// file is `InvalidData` naming it as `shown`.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path, shown: &str) -> io::Result<T> {
    let bytes = read_state_file(path, shown, MAX_JSON_BYTES)?;
    serde_json::from_slice(&bytes).map_err(|e| invalid(format!("`{shown}` is not valid: {e}")))
}

/// fsync a directory so the entries created or renamed in it are durable.
pub(crate) fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        // Failure weakens durability only; the operation itself succeeded.
        let _ = d.sync_all();
    }
}

/// An exclusive lock on `.lspedit/lock` (flock), held while a commit, an undo or a journal
/// recovery runs, so two processes never interleave them and a recovery never rolls back a
/// commit another process is still making. The kernel drops it when the holder dies (kill -9
/// included), so a crashed holder never blocks the next one.
#[derive(Debug)]
pub(crate) struct WorkspaceLock {
    _file: File,
}

pub(crate) fn lock_workspace(layout: &Layout) -> io::Result<WorkspaceLock> {
    layout.ensure_dir(&layout.dir)?;
    let file = open_lock_file(&layout.lock, &layout.rel(&layout.lock))?;
    file.lock()?;
    Ok(WorkspaceLock { _file: file })
}

/// Open (creating it if missing) the lock file without ever following a symlink: a new file is
/// created exclusively (which refuses a link in its place), an existing one must be the regular
/// file that was checked.
fn open_lock_file(path: &Path, shown: &str) -> io::Result<File> {
    // A file appearing between the check and the exclusive create is checked on the next round.
    for _ in 0..3 {
        match fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                match OpenOptions::new().write(true).create_new(true).open(path) {
                    Ok(f) => return Ok(f),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                    Err(e) => return Err(e),
                }
            }
            Err(e) => return Err(e),
            Ok(checked) => {
                check_entry(path, shown, false)?;
                let f = OpenOptions::new().write(true).open(path)?;
                let opened = f.metadata()?;
                if !same_file(&f, &opened, path, &checked)? {
                    return Err(invalid(format!(
                        "`{shown}` was replaced while being opened"
                    )));
                }
                return Ok(f);
            }
        }
    }
    Err(invalid(format!(
        "`{shown}` keeps changing while being opened"
    )))
}

/// Keep at most `max_count` entries of `dir` whose names start with one of `prefixes` (and at
/// most `max_bytes` in total when given), removing the oldest first by the id's millisecond
/// stamp. Entries are grouped by `group_of(name)` (an evidence id owns three files); the group
/// `protect` is never removed. Errors are logged: eviction only bounds disk use.
pub(crate) fn evict_oldest(
    dir: &Path,
    prefixes: &[&str],
    max_count: usize,
    max_bytes: Option<u64>,
    protect: &str,
    group_of: impl Fn(&str) -> String,
) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut groups: std::collections::BTreeMap<String, (u64, Vec<PathBuf>)> =
        std::collections::BTreeMap::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !prefixes.iter().any(|p| name.starts_with(p)) {
            continue;
        }
        let size = entry_size(&entry.path());
        let g = groups.entry(group_of(&name)).or_default();
        g.0 += size;
        g.1.push(entry.path());
    }
    let mut order: Vec<(u64, String)> = groups.keys().map(|k| (id_ms(k), k.clone())).collect();
    order.sort();
    let mut count = groups.len();
    let mut bytes: u64 = groups.values().map(|g| g.0).sum();
    for (_, key) in order {
        let over_count = count > max_count;
        let over_bytes = max_bytes.is_some_and(|m| bytes > m);
        if !over_count && !over_bytes {
            break;
        }
        if key == protect {
            continue;
        }
        if let Some((size, paths)) = groups.remove(&key) {
            for p in paths {
                // An entry is removed itself, a symlink never followed.
                let r = if fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
                    fs::remove_dir_all(&p)
                } else {
                    fs::remove_file(&p)
                };
                if let Err(e) = r {
                    tracing::warn!(path = %p.display(), error = %e, "evicting an old entry failed");
                }
            }
            count -= 1;
            bytes = bytes.saturating_sub(size);
            tracing::debug!(entry = %key, "evicted the oldest store entry");
        }
    }
}

fn entry_size(path: &Path) -> u64 {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::read_dir(path)
            .map(|rd| rd.flatten().map(|e| entry_size(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) => m.len(),
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_documented_shape() {
        let id = new_id("patch", b"x");
        assert!(is_valid_id("patch", &id), "{id}");
        assert_eq!(id.rsplit('_').next().map(str::len), Some(32), "{id}");
        assert_ne!(id, new_id("patch", b"x"));
        let t = "0123456789abcdef0123456789abcdef";
        assert!(is_valid_id("patch", &format!("patch_1_{t}")));
        for bad in [
            format!("patch_1_{}", &t[..31]),
            format!("patch_1_{t}0"),
            format!("patch_1_{}", t.to_uppercase()),
            format!("patch__{t}"),
            format!("patch_1_{t}/../x"),
            format!("ckpt_1_{t}"),
            format!("../patch_1_{t}"),
            // Regression: 32-bit ids were searchable; an id of fewer bits is no id.
            "patch_1_abcdef01".to_string(),
        ] {
            assert!(!is_valid_id("patch", &bad), "{bad}");
        }
        assert!(short_id_note("patch", "patch_1_abcdef01").is_some_and(|n| n.contains("32 bits")));
        assert_eq!(short_id_note("patch", &format!("patch_1_{t}")), None);
        assert_eq!(short_id_note("patch", "../x"), None);
        assert_eq!(id_ms("patch_42_abcdef01"), 42);
    }

    #[test]
    fn eviction_removes_the_oldest_groups_first() {
        let dir = tempfile::tempdir().unwrap();
        for ms in [1, 2, 3, 4] {
            fs::write(dir.path().join(format!("ev_{ms}_abcdef01.diff")), "x").unwrap();
            fs::write(dir.path().join(format!("ev_{ms}_abcdef01.apply.json")), "x").unwrap();
        }
        let group = |n: &str| n.split('.').next().unwrap_or(n).to_string();
        evict_oldest(dir.path(), &["ev_"], 2, None, "ev_1_abcdef01", group);
        let mut left: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            [
                "ev_1_abcdef01.apply.json",
                "ev_1_abcdef01.diff",
                "ev_4_abcdef01.apply.json",
                "ev_4_abcdef01.diff"
            ]
        );
    }
}
