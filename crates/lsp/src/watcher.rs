//! The file watcher: what other programs change under the roots of running servers reaches
//! those servers at once (docs/design.md §7, "change seen on disk"), not only at the next call's
//! stat check of open documents.
//!
//! One `notify` watcher per pool, watching each directory of a server root non-recursively:
//! a recursive inotify watch would also walk `target/` and `node_modules/` (hundreds of
//! thousands of directories on a real project, past the kernel's watch limit). Directories are
//! found with the `ignore` walker, which skips [`SKIPPED_DIRS`] and what `.gitignore` excludes;
//! a directory created later is added when its creation is seen. At most
//! [`MAX_WATCHED_DIRS`] directories are watched; past that the stat check of open documents
//! still runs on every call.
//!
//! Events are coalesced: a batch is handed over once no event came for the debounce time
//! ([`crate::PoolConfig::watch_debounce`], a documented timer, not a synchronization), or at
//! the latest [`MAX_BATCH_DELAY`] after its first event, so a `git checkout` of 1,000 files is
//! one batch. Per path only the final state counts (gone = deleted; else created when a
//! creation was seen, changed otherwise).
//!
//! Nothing here can fail or slow an edit: the watcher runs on its own thread (notify's) and a
//! tokio task; errors are logged and dropped. Dropping the [`Watcher`] stops notify's thread,
//! which drops the event sender, which ends the task.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use notify::event::{EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher as _};
use tokio::sync::mpsc;

/// Directory names never watched nor reported, whatever `.gitignore` says.
pub(crate) const SKIPPED_DIRS: &[&str] = &[".git", "node_modules", "target", ".lspedit"];

/// At most this many directories are watched per pool (inotify's default per-user limit is
/// 8,192 on older kernels; other programs need some too).
pub(crate) const MAX_WATCHED_DIRS: usize = 4096;

/// A batch is handed over at the latest this long after its first event, even if events keep
/// coming (a long build writing files should not hold every change back).
const MAX_BATCH_DELAY: Duration = Duration::from_secs(1);

/// What happened to a file, as `workspace/didChangeWatchedFiles` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    Created,
    Changed,
    Deleted,
}

/// The pool's watcher. Dropping it stops watching.
pub(crate) struct Watcher {
    state: Mutex<State>,
}

struct State {
    notify: notify::RecommendedWatcher,
    /// Roots asked for (a root inside one of them adds nothing).
    roots: Vec<PathBuf>,
    dirs: HashSet<PathBuf>,
    /// Logged once when [`MAX_WATCHED_DIRS`] is reached.
    full: bool,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").finish_non_exhaustive()
    }
}

impl Watcher {
    /// Starts a watcher watching nothing yet. Each coalesced batch is passed to `on_batch` on a
    /// blocking thread of the current tokio runtime (must be called inside one). `on_batch`
    /// returns false once nobody needs the batches any more, which ends the task.
    pub(crate) fn start(
        debounce: Duration,
        on_batch: impl Fn(Vec<(PathBuf, Change)>) -> bool + Send + Sync + 'static,
    ) -> Result<Arc<Watcher>, notify::Error> {
        let (tx, rx) = mpsc::unbounded_channel::<notify::Event>();
        let notify =
            notify::recommended_watcher(move |res: notify::Result<notify::Event>| match res {
                Ok(event) => {
                    let _ = tx.send(event);
                }
                Err(e) => tracing::debug!("file watcher: {e}"),
            })?;
        let watcher = Arc::new(Watcher {
            state: Mutex::new(State {
                notify,
                roots: Vec::new(),
                dirs: HashSet::new(),
                full: false,
            }),
        });
        let weak = Arc::downgrade(&watcher);
        let on_batch = Arc::new(on_batch);
        tokio::spawn(async move {
            let mut rx = rx;
            while let Some(batch) = next_batch(&mut rx, debounce).await {
                // New directories are watched before the batch goes out, and what they
                // already hold (written before the watch was in place) joins the batch.
                let batch = match weak.upgrade() {
                    Some(w) => tokio::task::spawn_blocking(move || w.finish_batch(batch)).await,
                    None => return,
                };
                let Ok(changes) = batch else { return };
                if changes.is_empty() {
                    continue;
                }
                let on_batch = Arc::clone(&on_batch);
                match tokio::task::spawn_blocking(move || on_batch(changes)).await {
                    Ok(true) => {}
                    _ => return,
                }
            }
        });
        Ok(watcher)
    }

    /// Watches `root` and every directory below it that is not skipped (blocking: walks the
    /// tree). A root inside one already watched adds nothing.
    pub(crate) fn add_root(&self, root: &Path) {
        {
            let mut st = self.lock();
            if st.roots.iter().any(|r| root.starts_with(r)) {
                return;
            }
            st.roots.push(root.to_owned());
        }
        let dirs = walk(root, &mut |_| {});
        self.watch_dirs(dirs);
    }

    /// True when `path` is below a watched root and in no skipped directory.
    fn is_watched_path(&self, path: &Path) -> bool {
        let st = self.lock();
        st.roots
            .iter()
            .any(|r| path.strip_prefix(r).is_ok_and(|rel| !is_skipped(rel)))
    }

    fn watch_dirs(&self, dirs: Vec<PathBuf>) {
        let mut st = self.lock();
        for dir in dirs {
            if st.dirs.contains(&dir) {
                continue;
            }
            if st.dirs.len() >= MAX_WATCHED_DIRS {
                if !st.full {
                    st.full = true;
                    tracing::warn!(
                        limit = MAX_WATCHED_DIRS,
                        "file watcher: directory limit reached; changes in further directories \
                         are seen by the per-call stat check of open documents only"
                    );
                }
                return;
            }
            match st.notify.watch(&dir, RecursiveMode::NonRecursive) {
                Ok(()) => {
                    st.dirs.insert(dir);
                }
                Err(e) => tracing::debug!(dir = %dir.display(), "file watcher: {e}"),
            }
        }
    }

    /// Turns a coalesced batch into changes: the final state of each path, skipped
    /// directories left out, new directories watched and their files reported as created.
    fn finish_batch(&self, batch: Batch) -> Vec<(PathBuf, Change)> {
        let mut out: BTreeMap<PathBuf, Change> = BTreeMap::new();
        for (path, created) in batch.paths {
            if !self.is_watched_path(&path) {
                continue;
            }
            match std::fs::symlink_metadata(&path) {
                Err(_) => {
                    out.insert(path, Change::Deleted);
                }
                Ok(m) if m.is_dir() => {
                    // Watched before it is listed: a file written in between is either listed
                    // or seen by the watch (then in the next batch).
                    self.watch_dirs(vec![path.clone()]);
                    let mut files = Vec::new();
                    let dirs = walk(&path, &mut |f| files.push(f));
                    self.watch_dirs(dirs);
                    for f in files {
                        out.insert(f, Change::Created);
                    }
                }
                Ok(_) => {
                    out.insert(
                        path,
                        if created {
                            Change::Created
                        } else {
                            Change::Changed
                        },
                    );
                }
            }
        }
        out.into_iter().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Paths seen in one burst of events; `true` when a creation of the path was among them.
#[derive(Default)]
struct Batch {
    paths: BTreeMap<PathBuf, bool>,
}

impl Batch {
    fn add(&mut self, event: notify::Event) {
        let created = match event.kind {
            // A rename's source is gone by the time the batch is read; its target exists.
            EventKind::Create(_) | EventKind::Modify(ModifyKind::Name(_)) => true,
            // `touch`, `chmod`, reads: the text did not change.
            EventKind::Modify(ModifyKind::Metadata(_)) | EventKind::Access(_) => return,
            _ => false,
        };
        for path in event.paths {
            let seen = self.paths.entry(path).or_insert(false);
            *seen |= created;
        }
    }
}

/// Waits for the next event, then gathers events until none came for `debounce` or
/// [`MAX_BATCH_DELAY`] passed. `None` once the sender is gone and nothing is left.
async fn next_batch(
    rx: &mut mpsc::UnboundedReceiver<notify::Event>,
    debounce: Duration,
) -> Option<Batch> {
    let first = rx.recv().await?;
    let mut batch = Batch::default();
    batch.add(first);
    let end = Instant::now() + MAX_BATCH_DELAY;
    loop {
        let limit = end.min(Instant::now() + debounce);
        match tokio::time::timeout_at(limit.into(), rx.recv()).await {
            Ok(Some(event)) => batch.add(event),
            Ok(None) | Err(_) => return Some(batch),
        }
    }
}

/// Files that are not source files of any server but change how servers see the project.
const CONFIG_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "package.json",
    "jsconfig.json",
    "pyproject.toml",
    "pyrightconfig.json",
    "setup.cfg",
    "compile_commands.json",
    "compile_flags.txt",
    ".clangd",
];

/// True when a change of `path` concerns the server `cfg` running in `root`: below the root,
/// in no skipped directory, and a file of one of its languages, one of its root markers or a
/// project configuration file (`tsconfig*.json`, `Cargo.toml`, ...).
pub(crate) fn concerns(cfg: &crate::ServerConfig, root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    if is_skipped(rel) {
        return false;
    }
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    cfg.language_for(path).is_some()
        || cfg.root_markers.iter().any(|m| m == name)
        || CONFIG_FILES.contains(&name)
        || (name.starts_with("tsconfig") && name.ends_with(".json"))
}

/// True when a component of `rel` (a path relative to a root) is a skipped directory.
pub(crate) fn is_skipped(rel: &Path) -> bool {
    rel.components().any(|c| {
        c.as_os_str()
            .to_str()
            .is_some_and(|s| SKIPPED_DIRS.contains(&s))
    })
}

/// The directories under `dir` (itself included) that are not skipped nor git-ignored, at most
/// [`MAX_WATCHED_DIRS`]; every file found is passed to `on_file`. Symlinks are not followed.
fn walk(dir: &Path, on_file: &mut dyn FnMut(PathBuf)) -> Vec<PathBuf> {
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(false)
        .parents(true)
        .ignore(false)
        .git_global(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && e.file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        })
        .build();
    let mut dirs = Vec::new();
    for entry in walker.flatten() {
        match entry.file_type() {
            Some(t) if t.is_dir() => {
                dirs.push(entry.into_path());
                if dirs.len() >= MAX_WATCHED_DIRS {
                    break;
                }
            }
            Some(t) if t.is_file() => on_file(entry.into_path()),
            _ => {}
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skipped_components() {
        assert!(is_skipped(Path::new("node_modules/x/a.ts")));
        assert!(is_skipped(Path::new("pkg/target/debug/a.rs")));
        assert!(is_skipped(Path::new(".git/HEAD")));
        assert!(!is_skipped(Path::new("src/targets/a.rs")));
        assert!(!is_skipped(Path::new("src/a.ts")));
    }

    #[test]
    fn walk_skips_fixed_dirs_and_gitignored_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for d in [
            "src/deep",
            "node_modules/p",
            "target/debug",
            "build",
            ".lspedit/x",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::write(root.join("src/a.ts"), "").unwrap();
        let mut files = Vec::new();
        let mut dirs = walk(&root, &mut |f| files.push(f));
        dirs.sort();
        assert_eq!(
            dirs,
            vec![root.clone(), root.join("src"), root.join("src/deep")]
        );
        assert!(files.contains(&root.join("src/a.ts")));
    }

    /// Dropped with the batch callback, which the watcher's task owns.
    struct Dropped(Option<tokio::sync::oneshot::Sender<()>>);
    impl Drop for Dropped {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                let _ = tx.send(());
            }
        }
    }

    // The watcher stops with its owner: dropping it ends notify's thread (which holds the
    // event sender), hence the batch task, hence the callback. No thread or task is left.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_watcher_ends_its_thread_and_task() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel();
        let guard = Dropped(Some(tx));
        let w = Watcher::start(Duration::from_millis(20), move |changes| {
            let _ = &guard;
            let _ = seen_tx.send(changes);
            true
        })
        .unwrap();
        w.add_root(&root);
        std::fs::write(root.join("a.rs"), "x").unwrap();
        let batch = tokio::time::timeout(Duration::from_secs(10), seen_rx.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(batch, vec![(root.join("a.rs"), Change::Created)]);
        drop(w);
        tokio::time::timeout(Duration::from_secs(10), rx)
            .await
            .expect("the watcher's task did not end")
            .unwrap();
    }
}
