//! Shared plumbing of the workflow: the `.lspedit/` layout, identifiers, atomic JSON files, the
//! cross-process workspace lock and the eviction of the oldest entries of a capped store.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use lspedit_engine::Reason;
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use crate::workspace::{base_sha, write_atomic_abs};

/// Where the workflow keeps its state under the workspace root. Nothing here is created until
/// something must be written: opening a workflow or naming an unknown patch creates no directory.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
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
            patches: dir.join("patches"),
            evidence: dir.join("evidence"),
            checkpoints: dir.join("checkpoints"),
            journal: dir.join("journal"),
            lock: dir.join("lock"),
            dir,
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

static ID_COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh identifier `<prefix>_<unix_ms>_<hash8>`. The hash covers `seed`, the process id and a
/// counter, so two ids minted in the same millisecond (here or in another process) differ.
pub(crate) fn new_id(prefix: &str, seed: &[u8]) -> String {
    let ms = now_ms();
    let mut h = Sha256::new();
    h.update(seed);
    h.update(std::process::id().to_le_bytes());
    h.update(ID_COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.update(ms.to_le_bytes());
    let hash8: String = h
        .finalize()
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{prefix}_{ms}_{hash8}")
}

/// Whether `id` has the exact shape `<prefix>_<digits>_<8 lowercase hex>`. Ids name files, so
/// anything else (a path, `..`) is treated as unknown before it reaches the file system.
pub(crate) fn is_valid_id(prefix: &str, id: &str) -> bool {
    let Some(rest) = id.strip_prefix(prefix).and_then(|r| r.strip_prefix('_')) else {
        return false;
    };
    let Some((ms, hash)) = rest.split_once('_') else {
        return false;
    };
    !ms.is_empty()
        && ms.bytes().all(|b| b.is_ascii_digit())
        && hash.len() == 8
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The millisecond part of an id, used to order a store by age.
pub(crate) fn id_ms(id: &str) -> u64 {
    id.split('_')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// `base_sha` of a file state: `None` when the file does not exist.
pub(crate) fn state_sha(bytes: Option<&[u8]>) -> Option<String> {
    bytes.map(base_sha)
}

/// How a file state is shown in messages.
pub(crate) fn show_sha(sha: Option<&str>) -> &str {
    sha.unwrap_or("(absent)")
}

/// Serialize `value` as pretty JSON and write it atomically (temp file, fsync, rename).
pub(crate) fn write_json_atomic<T: Serialize>(path: &Path, value: &T) -> io::Result<()> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(io::Error::other)?;
    bytes.push(b'\n');
    write_atomic_abs(path, &bytes)
}

/// Read and deserialize a JSON file; a malformed file is `InvalidData`.
pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> io::Result<T> {
    let bytes = fs::read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
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
    fs::create_dir_all(&layout.dir)?;
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&layout.lock)?;
    file.lock()?;
    Ok(WorkspaceLock { _file: file })
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
                let r = if p.is_dir() {
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


/// The [`Reason`] of a stored code (`io_error` for a code this build does not know).
pub(crate) fn reason_from_code(code: &str) -> Reason {
    Reason::from_code(code).unwrap_or(Reason::IoError)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_have_the_documented_shape() {
        let id = new_id("patch", b"x");
        assert!(is_valid_id("patch", &id), "{id}");
        assert_ne!(id, new_id("patch", b"x"));
        for bad in [
            "patch_1_abcdef0",
            "patch_1_ABCDEF01",
            "patch__abcdef01",
            "patch_1_abcdef01/../x",
            "ckpt_1_abcdef01",
            "../patch_1_abcdef01",
        ] {
            assert!(!is_valid_id("patch", bad), "{bad}");
        }
        assert_eq!(id_ms("patch_42_abcdef01"), 42);
    }

    #[test]
    fn every_reason_round_trips() {
        for r in Reason::ALL {
            assert_eq!(reason_from_code(r.as_str()), *r);
        }
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
