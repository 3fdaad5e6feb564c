//! The pool: one server process per (server id, root), started lazily and de-duplicated,
//! restarted after crashes with backoff, marked broken after repeated crashes, stopped when
//! idle, evicted least-recently-used past a cap, and restarted past a memory limit.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::LspError;
use crate::diagnostics::{
    CheckOutcome, Diagnostic, FileDiagnostics, OtherFileDiagnostics, convert,
};
use crate::root::detect_root;
use crate::server::Server;
use crate::watcher::{self, Watcher};
use lspedit_process::{self as process, Groups};
use lspedit_servers::{PoolConfig, ServerConfig};

/// Identity of a server process: which server, started in which root.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ServerKey {
    pub server: String,
    pub root: PathBuf,
}

/// Life state of a server slot, as shown by [`Pool::status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Not running (never started, stopped when idle or evicted, or after a crash).
    Stopped,
    Starting,
    Running,
    /// Crashed; restarts on next use once the backoff has passed.
    Backoff {
        retry_in: Duration,
    },
    /// Crashed too often; not restarted until the cooldown passes.
    Broken,
}

/// One row of [`Pool::status`].
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub key: ServerKey,
    pub state: ServerState,
    /// Process group id (= pid of the spawned process) while running.
    pub pgid: Option<u32>,
    /// Resident memory of the server's whole process group, KiB.
    pub rss_kib: Option<u64>,
    /// Consecutive crashes.
    pub crashes: u32,
    pub last_error: Option<String>,
    pub uptime: Option<Duration>,
    pub idle_for: Duration,
    pub open_documents: usize,
}

type StartResult = Option<Result<Arc<Server>, LspError>>;

enum SlotState {
    Idle,
    Starting(watch::Receiver<StartResult>),
    Running(Arc<Server>),
    Broken { since: Instant },
}

struct Slot {
    cfg: Arc<ServerConfig>,
    state: SlotState,
    crashes: u32,
    last_crash: Option<Instant>,
    last_error: Option<String>,
    last_used: Instant,
    /// Incremented on every start so a late start result cannot clobber a newer one.
    generation: u64,
}

struct Inner {
    root: PathBuf,
    config: PoolConfig,
    slots: Mutex<HashMap<ServerKey, Slot>>,
    closed: AtomicBool,
    maintenance_started: AtomicBool,
    /// Every process group spawned and not yet killed, starting ones included.
    groups: Arc<Groups>,
    late: Mutex<Late>,
    /// Bumped whenever a file's check generation changes (see [`Pool::superseded`]) and when
    /// a late answer is kept.
    generation_changed: watch::Sender<u64>,
    /// The file watcher, started with the first server (see `watcher.rs`); taken out (which
    /// stops it) when the pool closes.
    watcher: Mutex<Option<Arc<Watcher>>>,
    /// Batches of disk changes handed to the servers so far ([`Pool::disk_batches`]).
    disk_batches: watch::Sender<u64>,
    /// Check passes still running (a pass goes on after its caller stopped waiting).
    passes: watch::Sender<usize>,
    /// Per server, the serial of its newest pass, and the other files the pass before it is
    /// still checking (see [`Pool::check_group`]).
    serials: Mutex<HashMap<ServerKey, Serials>>,
    /// Per server, what its last dependents scan read (see `importers.rs`).
    scans: Mutex<HashMap<ServerKey, crate::importers::ScanCache>>,
}

/// See [`Inner::serials`].
#[derive(Default)]
struct Serials {
    newest: u64,
    /// (serial, files) of a pass checking other files right now.
    checking: Option<(u64, Vec<PathBuf>)>,
}

/// One file of a [`Pool::check_files`] call, grouped by server.
struct Item {
    index: usize,
    path: PathBuf,
    text: Arc<str>,
    previous: Option<Arc<str>>,
    generation: u64,
}

/// One file of a change: its new text (already on disk) and, when known, the text it had
/// before (`None` for a new file or when unknown). The texts are shared, not copied, on their
/// way to the server: the document the server is sent keeps the same allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: PathBuf,
    pub text: Arc<str>,
    pub previous: Option<Arc<str>>,
}

impl From<(PathBuf, String)> for ChangedFile {
    /// A file whose previous text is unknown.
    fn from((path, text): (PathBuf, String)) -> ChangedFile {
        ChangedFile {
            path,
            text: text.into(),
            previous: None,
        }
    }
}

/// At most this many other files are compared before and after a change on a pull server.
const MAX_OTHER_CANDIDATES: usize = 20;

/// At most this many checks of other files are asked of a server at a time. tsserver runs its
/// requests one after another and does not drop a cancelled one: 20 importers asked at once
/// were 60 requests that the next edit's verdict queued behind (issue 48). A few keep the
/// server busy between answers without building a backlog.
const OTHER_CHECKS_IN_FLIGHT: usize = 3;

/// How long a check waits for the other files (the changed files' dependents, the other open
/// documents) once the named files have their verdict ([`Pool::check_change_within`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OthersWait {
    /// For the files the change most likely broke (those that name what it touched,
    /// `likely.rs`; checked first), up to the server's declared `dependents_wait_ms` (its
    /// `[diagnostics]`); none when no file is likely. The other files finished by then come
    /// in the same result, the rest are counted and come later.
    #[default]
    Declared,
    /// Up to this long (`ZERO`: not at all).
    For(Duration),
    /// Up to the call's deadline (a one-shot command that has no later result).
    UntilDeadline,
}

/// How long one server's caller waits for its other files (from [`OthersWait`]).
#[derive(Debug, Clone, Copy)]
enum OthersBy {
    /// Until the likely broken files are checked, at most this long.
    Likely(Duration),
    /// At most this long.
    For(Duration),
    /// Until the call's deadline.
    Deadline,
}

/// A verdict's receiver: the file's index in the call, its path, the channel.
type VerdictRx = (
    usize,
    PathBuf,
    tokio::sync::oneshot::Receiver<Result<FileDiagnostics, LspError>>,
);

/// One server's share of a call, as the caller waits for it ([`Pool::check_change_within`]).
struct ServerWait {
    key: ServerKey,
    receivers: Vec<VerdictRx>,
    others_rx: tokio::sync::oneshot::Receiver<OthersReport>,
    plan: Arc<Mutex<Option<OthersPlan>>>,
    partial: Arc<Mutex<PartialOthers>>,
    likely_done: Arc<tokio::sync::Notify>,
    others_wait: OthersBy,
    /// Past the deadline, a working server's verdict is waited for up to this.
    limit: Instant,
}

/// Until when a caller waits for its other files once the named files are settled (`now`),
/// never past `bound`, and whether it stops once the likely files are checked. A pull server
/// with no likely file: not at all. A push server's other files come with the verdict (its
/// pass sends them right after): always waited for, up to `bound`, whatever `wait` says.
fn others_deadline(
    wait: OthersBy,
    planned: Option<OthersPlan>,
    bound: Instant,
    now: Instant,
) -> (Instant, bool) {
    match (wait, planned) {
        (OthersBy::Likely(_), Some(p)) if p.pulls > 0 && p.likely == 0 => (now, false),
        (OthersBy::Likely(wait), Some(p)) if p.pulls > 0 => (bound.min(now + wait), true),
        (OthersBy::For(wait), Some(p)) if p.pulls > 0 => (bound.min(now + wait), false),
        _ => (bound, false),
    }
}

/// Tells its `Notify` when dropped (once more is harmless: a permit is kept at most once).
struct TellOnDrop<'a>(&'a tokio::sync::Notify);

impl Drop for TellOnDrop<'_> {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

/// `candidates` with the files the change of `items` most likely broke first (`likely.rs`:
/// those naming an identifier of a changed line), and how many those are. Only the order
/// changes: every candidate is still checked.
fn likely_first(candidates: Vec<Candidate>, items: &[Item]) -> (Vec<Candidate>, usize) {
    let mut touched = HashSet::new();
    for it in items {
        touched.extend(crate::likely::touched_words(
            it.previous.as_deref(),
            &it.text,
        ));
    }
    let texts: Vec<&str> = candidates.iter().map(|(_, t, _)| &**t).collect();
    let (order, likely) = crate::likely::order(&texts, &touched);
    let mut slots: Vec<Option<Candidate>> = candidates.into_iter().map(Some).collect();
    let ordered = order.into_iter().filter_map(|i| slots[i].take()).collect();
    (ordered, likely)
}

/// A changed file of a pass: its path, its new text and its previous one (when known).
type ChangedText = (PathBuf, Arc<str>, Option<Arc<str>>);

/// A candidate other file: its path, the text it is checked with, its last known diagnostics.
type Candidate = (PathBuf, Arc<str>, Option<Vec<Diagnostic>>);

/// What [`Pool::check_others`] found.
struct CheckedOthers {
    /// The files with a "before", in the candidates' order.
    known: Vec<(PathBuf, Arc<str>, Vec<Diagnostic>)>,
    /// Their "after", in the same order (`None`: not checked); empty when superseded.
    afters: Vec<Option<FileDiagnostics>>,
    /// Files whose "before" could not be had.
    unchecked: usize,
    /// A newer pass of the server began and stopped this one.
    superseded: bool,
    /// The server's epoch the "after"s were computed in.
    epoch: u64,
}

/// Where a server's share of a check pass reports its other files.
struct OthersOut {
    tx: tokio::sync::oneshot::Sender<OthersReport>,
    /// What the pass will check of the other files, set before any named file's result is
    /// sent (`None` until then).
    plan: Arc<Mutex<Option<OthersPlan>>>,
    /// When the pass was asked for.
    asked: Instant,
    /// The other files checked so far, for a caller that stops waiting before the pass ends.
    partial: Arc<Mutex<PartialOthers>>,
    /// Told once the likely broken files ([`OthersPlan::likely`]) are checked, or the pass
    /// stopped checking.
    likely_done: Arc<tokio::sync::Notify>,
}

/// A pull server's other files as their checks finish: what a caller that stops waiting
/// reports in its own result (the rest are counted, and kept for a later one).
#[derive(Default)]
struct PartialOthers {
    /// Files whose "after" is known, not yet taken.
    files: Vec<OtherFileDiagnostics>,
    /// Files the caller took: reported, so not kept as late results.
    taken: HashSet<PathBuf>,
}

impl PartialOthers {
    /// What a caller stopping now reports: the finished files, each once.
    fn take(&mut self) -> Vec<OtherFileDiagnostics> {
        let files = std::mem::take(&mut self.files);
        self.taken.extend(files.iter().map(|f| f.path.clone()));
        files
    }
}

/// The other files a pass checks with requests of their own (pull servers), and what it
/// leaves unchecked: what a caller that stops waiting can already say.
#[derive(Debug, Clone, Copy, Default)]
struct OthersPlan {
    pulls: usize,
    /// Of which the first ones, the files the change most likely broke (`likely.rs`).
    likely: usize,
    unchecked: usize,
    bounded: bool,
}

/// The other files of one server's share of a pass.
#[derive(Default)]
struct OthersReport {
    files: Vec<OtherFileDiagnostics>,
    /// Still being checked when the caller stopped waiting.
    pending: usize,
    /// Dependents that were not checked.
    unchecked: usize,
    /// The search for dependents stopped at its bounds.
    bounded: bool,
}

/// Counts a check pass as running while it lives.
struct PassGuard(watch::Sender<usize>);

impl PassGuard {
    fn new(passes: &watch::Sender<usize>) -> PassGuard {
        passes.send_modify(|n| *n += 1);
        PassGuard(passes.clone())
    }
}

impl Drop for PassGuard {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// A named file's answer that came after its caller stopped waiting, with what it was
/// computed on: it is shown only while that is still the file's text ([`Pool::take_late`]).
struct LateAnswer {
    key: ServerKey,
    /// When the check that produced it was asked for.
    asked: Instant,
    /// The text the server checked.
    text: Arc<str>,
    /// Whether that text was the file's content on disk when the check began (a caller may
    /// check a text it has not saved): then it holds only while the disk still has it.
    saved: bool,
    result: FileDiagnostics,
}

/// An other file's result that came after its caller stopped waiting.
struct LateOther {
    key: ServerKey,
    /// The server's epoch it was computed in: it holds while the epoch does.
    epoch: u64,
    /// When the check that produced it was asked for.
    asked: Instant,
    /// The file's text its `after` was computed on: it holds while the file (on disk, and as
    /// the server holds it when open) still has it.
    text: Arc<str>,
    file: OtherFileDiagnostics,
}

/// Checks that went on after their caller's deadline.
#[derive(Default)]
struct Late {
    /// Per file, the generation of the newest check asked for: an older check's late answer is
    /// stale and dropped, and its text is never sent over the newer one.
    generation: HashMap<PathBuf, u64>,
    /// Answers that arrived after their caller gave up, until [`Pool::take_late`].
    ready: BTreeMap<PathBuf, LateAnswer>,
    /// Other files' results that arrived after their caller gave up, with the server and the
    /// epoch they hold in and when their check was asked for, until
    /// [`Pool::take_late_others`].
    others: Vec<LateOther>,
    /// Other files' results that no longer hold (something changed since, or a newer result
    /// of the file replaced them), the earliest per file, until
    /// [`Pool::take_outdated_others`]: never shown, but their `before` is what the file had
    /// before the change that asked for them.
    outdated: BTreeMap<PathBuf, OtherFileDiagnostics>,
}

impl Late {
    /// `file` no longer holds: only its `before` is kept, unless an earlier one is.
    fn outdate(&mut self, file: OtherFileDiagnostics) {
        self.outdated.entry(file.path.clone()).or_insert(file);
    }
}

/// The language-server pool. Cheap to clone (shared). Async: call from a tokio runtime (any
/// flavor); synchronous callers use [`crate::BlockingPool`].
///
/// Dropping the last clone kills every server's process group; [`Pool::shutdown`] stops them
/// politely first.
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
    /// Shared by the caller's handles only: the pool's own background tasks (a check going on
    /// past its caller's deadline, a start after `touch`) hold handles without it, so when the
    /// last caller handle is dropped the servers die at once instead of living as long as
    /// those tasks.
    _owner: Option<Arc<Owner>>,
}

/// Dropped with the last caller handle of a pool: closes it and kills every process group it
/// spawned, starting servers included.
struct Owner {
    inner: Weak<Inner>,
}

impl Drop for Owner {
    fn drop(&mut self) {
        if let Some(inner) = self.inner.upgrade() {
            inner.closed.store(true, Ordering::SeqCst);
            inner.stop_watching();
            for slot in inner
                .slots
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .values()
            {
                if let SlotState::Running(s) = &slot.state {
                    s.kill();
                }
            }
            inner.groups.kill_all();
        }
    }
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("root", &self.inner.root)
            .finish_non_exhaustive()
    }
}

enum Next {
    /// Wait for a start; `true` when this call began it.
    Wait(watch::Receiver<StartResult>, bool),
    Retry(Instant),
}

impl Pool {
    /// A pool for the workspace at `workspace_root` (must exist). Starts nothing.
    pub fn new(workspace_root: impl AsRef<Path>, config: PoolConfig) -> Result<Self, LspError> {
        let root = workspace_root.as_ref();
        let root = root.canonicalize().map_err(|e| LspError::Config {
            path: root.to_owned(),
            message: format!("workspace root: {e}"),
        })?;
        let inner = Arc::new(Inner {
            root,
            config,
            slots: Mutex::new(HashMap::new()),
            closed: AtomicBool::new(false),
            maintenance_started: AtomicBool::new(false),
            groups: Arc::new(Groups::default()),
            late: Mutex::new(Late::default()),
            generation_changed: watch::channel(0).0,
            watcher: Mutex::new(None),
            disk_batches: watch::channel(0).0,
            passes: watch::channel(0).0,
            serials: Mutex::default(),
            scans: Mutex::default(),
        });
        let owner = Some(Arc::new(Owner {
            inner: Arc::downgrade(&inner),
        }));
        Ok(Self {
            inner,
            _owner: owner,
        })
    }

    /// A handle for the pool's own background tasks: it does not keep the servers alive once
    /// every caller handle is gone (see [`Owner`]).
    fn background(&self) -> Pool {
        Pool {
            inner: Arc::clone(&self.inner),
            _owner: None,
        }
    }

    /// The canonical workspace root.
    pub fn workspace_root(&self) -> &Path {
        &self.inner.root
    }

    pub fn config(&self) -> &PoolConfig {
        &self.inner.config
    }

    /// The server that would check `path`, if any is configured and enabled.
    pub fn server_for(&self, path: &Path) -> Option<&ServerConfig> {
        self.inner.config.server_for(path)
    }

    /// Which process would serve `path`: the server id and the detected root.
    pub fn key_for(&self, path: &Path) -> Result<ServerKey, LspError> {
        let path = self.absolute(path)?;
        let cfg = self
            .server_for(&path)
            .ok_or_else(|| LspError::NoServer { path: path.clone() })?;
        Ok(ServerKey {
            server: cfg.id.clone(),
            root: detect_root(&self.inner.root, &path, cfg),
        })
    }

    /// Diagnostics for `path` holding `text` (the content just written), settled per the
    /// server's strategy, or an error by `deadline`. A server that must start keeps starting in
    /// the background after a timeout. One file of [`Pool::check_files`].
    pub async fn check_file(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<FileDiagnostics, LspError> {
        self.check_files(vec![(path.to_owned(), text.to_owned())], deadline)
            .await
            .files
            .pop()
            .map_or(Err(LspError::PoolClosed), |(_, r)| r)
    }

    /// The diagnostics of every file of one change, as one settled pass under one deadline.
    ///
    /// Each file is `(path, text just written)`. Per server, the open documents are first
    /// compared with the disk (a stat check; a changed one is re-sent and announced with
    /// `workspace/didChangeWatchedFiles`), then every file's text is sent before any file's
    /// diagnostics are asked for, so a file is never checked against another's old text; then
    /// all are settled concurrently. Results come back in the order given, each `Ok` or its own
    /// error; past `deadline` a file's error is [`LspError::Timeout`], and its check goes on in
    /// the background: an answer that arrives later is kept for [`Pool::take_late`] unless a
    /// newer check of the file was asked for.
    ///
    /// Any change of a document's text (here, or seen on disk) invalidates every cached result
    /// of that server root: a cached answer is returned only when nothing in its root changed
    /// since it was computed.
    ///
    /// [`CheckOutcome::others`]: files the call did not name whose diagnostics changed, from a
    /// server that had answered before (so that "before" is known): for push servers every
    /// file it published for, before and after the pass; for pull servers the other open
    /// documents, pulled again after the pass and compared with their last settled result.
    pub async fn check_files(
        &self,
        files: Vec<(PathBuf, String)>,
        deadline: Instant,
    ) -> CheckOutcome {
        self.check_change(files.into_iter().map(ChangedFile::from).collect(), deadline)
            .await
    }

    /// [`Pool::check_files`] for files whose text before the change is known
    /// ([`ChangedFile::previous`]): a pull server then also reports the files that import a
    /// changed one (a textual scan, see `importers.rs`) even when they were never checked,
    /// since their "before" can be pulled against the previous texts first.
    pub async fn check_change(&self, files: Vec<ChangedFile>, deadline: Instant) -> CheckOutcome {
        self.check_change_within(files, deadline, OthersWait::UntilDeadline)
            .await
    }

    /// [`Pool::check_change`] that waits for the other files at most `others_wait` after the
    /// named files are settled (never past `deadline`). The named files' results never wait
    /// for the other files: a server is asked about the files of the change first. The other
    /// files whose checks finished by then are in [`CheckOutcome::others`]; those still being
    /// checked are counted in [`CheckOutcome::others_pending`] and their results kept for
    /// [`Pool::take_late_others`] as long as nothing in their root changes. Push servers'
    /// other files are known as soon as the named files are settled and are always waited for
    /// (up to `deadline`).
    pub async fn check_change_within(
        &self,
        files: Vec<ChangedFile>,
        deadline: Instant,
        others_wait: OthersWait,
    ) -> CheckOutcome {
        let asked = Instant::now();
        let n = files.len();
        let mut out: Vec<(PathBuf, Option<Result<FileDiagnostics, LspError>>)> =
            Vec::with_capacity(n);
        let mut groups: BTreeMap<ServerKey, Vec<Item>> = BTreeMap::new();
        // Per server, how long the other files are waited for.
        let mut waits_for: BTreeMap<ServerKey, OthersBy> = BTreeMap::new();
        for (
            i,
            ChangedFile {
                path,
                text,
                previous,
            },
        ) in files.into_iter().enumerate()
        {
            let resolved = self
                .absolute(&path)
                .and_then(|abs| self.key_for(&abs).map(|key| (abs, key)));
            match resolved {
                Ok((abs, key)) => {
                    let declared = self
                        .server_for(&abs)
                        .map(|c| Duration::from_millis(c.diagnostics.dependents_wait_ms));
                    waits_for
                        .entry(key.clone())
                        .or_insert(match (others_wait, declared) {
                            // Waiting for every other file cost the caller the whole wait when
                            // they did not fit in it (measured on zod and requests: 20 importers
                            // took seconds, every edit paid the full second): the wait is for the
                            // files the change most likely broke, checked first.
                            (OthersWait::Declared, Some(d)) => OthersBy::Likely(d),
                            (OthersWait::Declared, None) | (OthersWait::UntilDeadline, _) => {
                                OthersBy::Deadline
                            }
                            (OthersWait::For(d), _) => OthersBy::For(d),
                        });
                    let generation = self.next_generation(&abs);
                    out.push((abs.clone(), None));
                    groups.entry(key).or_default().push(Item {
                        index: i,
                        path: abs,
                        text,
                        previous,
                        generation,
                    });
                }
                Err(e) => out.push((path, Some(Err(e)))),
            }
        }
        for (key, items) in &groups {
            self.outdate_others_changed_by(key, items);
        }
        let mut waits = Vec::new();
        for (key, items) in groups {
            let mut receivers = Vec::with_capacity(items.len());
            let mut senders = Vec::with_capacity(items.len());
            // Past `deadline`, a working server's verdict is waited for up to this.
            let limit = self.verdict_limit(&key, deadline, asked, self.is_key_warm(&key));
            for item in &items {
                let (tx, rx) = tokio::sync::oneshot::channel();
                receivers.push((item.index, item.path.clone(), rx));
                senders.push(tx);
            }
            let (others_tx, others_rx) = tokio::sync::oneshot::channel();
            let plan: Arc<Mutex<Option<OthersPlan>>> = Arc::default();
            let partial: Arc<Mutex<PartialOthers>> = Arc::default();
            let likely_done = Arc::new(tokio::sync::Notify::new());
            let others_wait = waits_for.get(&key).copied().unwrap_or(OthersBy::Deadline);
            // The pass runs on its own task so that it goes on past the caller's deadline and
            // a late answer can still be kept (bounded by the startup timeout).
            let pool = self.background();
            let late_deadline = deadline
                .max(Instant::now() + self.inner.config.startup_timeout)
                .max(limit);
            let task_key = key.clone();
            let task_plan = Arc::clone(&plan);
            let task_partial = Arc::clone(&partial);
            let task_likely_done = Arc::clone(&likely_done);
            let running = PassGuard::new(&self.inner.passes);
            tokio::spawn(async move {
                let _running = running;
                pool.check_group(
                    task_key,
                    items,
                    senders,
                    OthersOut {
                        tx: others_tx,
                        plan: task_plan,
                        asked,
                        partial: task_partial,
                        likely_done: task_likely_done,
                    },
                    late_deadline,
                )
                .await;
            });
            waits.push(ServerWait {
                key,
                receivers,
                others_rx,
                plan,
                partial,
                likely_done,
                others_wait,
                limit,
            });
        }
        let since = Instant::now();
        let all = futures::future::join_all(waits.into_iter().map(|w: ServerWait| async move {
            let ServerWait {
                key,
                receivers,
                others_rx,
                plan,
                partial,
                likely_done,
                others_wait,
                limit,
            } = w;
            let results = futures::future::join_all(receivers.into_iter().map(|(i, path, rx)| {
                let key = key.clone();
                async move {
                    let r = self
                        .wait_verdict(&key, &path, rx, deadline, limit, since)
                        .await;
                    (i, r)
                }
            }))
            .await;
            // The named files are settled (or past the deadline): other files that need
            // requests of their own get `others_wait` more; a push server's are ready.
            // Counted from the verdict, bounded by how long the verdict itself could wait
            // (`limit`): a verdict that came past the deadline leaves the others their time.
            // A named file without one ends the wait at the deadline (the server is idle,
            // or gone).
            let planned = *plan.lock().unwrap_or_else(|e| e.into_inner());
            let bound = if results
                .iter()
                .any(|(_, r)| matches!(r, Err(LspError::Timeout { .. })))
            {
                deadline
            } else {
                limit
            };
            let (others_by, likely_only) =
                others_deadline(others_wait, planned, bound, Instant::now());
            let ended = tokio::select! {
                // The whole report when it is there, whatever else is.
                biased;
                o = others_rx => Some(o),
                () = tokio::time::sleep_until(others_by.into()) => None,
                () = likely_done.notified(), if likely_only => None,
            };
            let others = match ended {
                Some(Ok(o)) => o,
                Some(Err(_)) => OthersReport::default(),
                None => {
                    // What is finished comes now; the rest is counted, and kept for later.
                    let p = plan
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .unwrap_or_default();
                    let files = partial.lock().unwrap_or_else(|e| e.into_inner()).take();
                    OthersReport {
                        pending: p.pulls.saturating_sub(files.len()),
                        files,
                        unchecked: p.unchecked,
                        bounded: p.bounded,
                    }
                }
            };
            (key, results, others)
        }))
        .await;
        let mut others = Vec::new();
        let mut others_pending = 0;
        let mut others_unchecked = 0;
        let mut others_bounded = false;
        let mut timed_out_keys = Vec::new();
        for (key, results, report) in all {
            others_pending += report.pending;
            others_unchecked += report.unchecked;
            others_bounded |= report.bounded;
            let o = report.files;
            if results
                .iter()
                .any(|(_, r)| matches!(r, Err(LspError::Timeout { .. })))
            {
                timed_out_keys.push(key);
            }
            for (i, r) in results {
                if let Some(slot) = out.get_mut(i) {
                    slot.1 = Some(r);
                }
            }
            others.extend(o);
        }
        for key in timed_out_keys {
            let server = match self.slots().get(&key).map(|s| &s.state) {
                Some(SlotState::Running(s)) => Some(Arc::clone(s)),
                _ => None,
            };
            if let Some(server) = server {
                self.spawn_probe(key, server);
            }
        }
        others.sort_by(|a: &OtherFileDiagnostics, b| a.path.cmp(&b.path));
        CheckOutcome {
            files: out
                .into_iter()
                .map(|(p, r)| (p, r.unwrap_or(Err(LspError::PoolClosed))))
                .collect(),
            others,
            others_pending,
            others_unchecked,
            others_bounded,
        }
    }

    /// One server's share of [`Pool::check_files`]: start it if needed, the stat check of its
    /// open documents, send every text, then settle every file; each result goes to its
    /// sender, or, when the caller stopped waiting, to the late answers. Then the other files.
    async fn check_group(
        &self,
        key: ServerKey,
        items: Vec<Item>,
        senders: Vec<tokio::sync::oneshot::Sender<Result<FileDiagnostics, LspError>>>,
        others_out: OthersOut,
        deadline: Instant,
    ) {
        // What each file is checked with, and whether that is its content on disk (read first,
        // right after the caller's write): a late answer holds only while it is the file's text.
        let checked: HashMap<PathBuf, (Arc<str>, bool)> = items
            .iter()
            .map(|it| {
                let saved = std::fs::read(&it.path).is_ok_and(|b| b == it.text.as_bytes());
                (it.path.clone(), (Arc::clone(&it.text), saved))
            })
            .collect();
        let server = match self.get_server(&key, deadline).await {
            Ok(s) => s,
            Err(e) => {
                for tx in senders {
                    let _ = tx.send(Err(e.clone()));
                }
                return;
            }
        };
        let busy = BusyGuard::new(&server);
        // A newer pass makes an older one's other-file checks moot (their results would be
        // of an older state, and they hold the server up): it stops them and checks those
        // files itself, first after its own dependents.
        let (serial, carried) = self.next_pass(&key);
        // Their documents are locked while they stop, and a locked document's result is not
        // taken as a "before": wait for them to let go.
        self.older_passes_stopped(&key, serial, deadline).await;
        let skip: HashSet<PathBuf> = items.iter().map(|it| it.path.clone()).collect();
        if let Err(e) = server.refresh_from_disk(&skip) {
            for tx in senders {
                let _ = tx.send(Err(e.clone()));
            }
            return;
        }
        // "Before" of the other files. Push servers: their publishes, only once the server
        // has answered (a cold one's first results would all look new). Pull servers: the
        // other open documents and the importers of the changed files, with their last known
        // result where there is one; the others are pulled after the named files' verdict
        // (`Pool::check_others`), so that the verdict never waits behind them.
        let warm = server.has_answered();
        let pull = server.strategy().is_pull();
        let published_before = (warm && !pull).then(|| server.publishes_given());
        let (candidates, mut unchecked, bounded) = if pull {
            self.other_candidates(&server, &key, &items, &skip, &carried)
        } else {
            (Vec::new(), 0, false)
        };
        let (candidates, likely) = likely_first(candidates, &items);
        // Known before any named file is settled, so the caller can tell how many other
        // files are still being checked when it stops waiting for them.
        *others_out.plan.lock().unwrap_or_else(|e| e.into_inner()) = Some(OthersPlan {
            pulls: candidates.len(),
            likely,
            unchecked,
            bounded,
        });
        // The changed files' texts, new and previous, for the other files' "before".
        let changed: Vec<ChangedText> = items
            .iter()
            .map(|it| (it.path.clone(), Arc::clone(&it.text), it.previous.clone()))
            .collect();
        let generations: HashMap<PathBuf, u64> = items
            .iter()
            .map(|it| (it.path.clone(), it.generation))
            .collect();
        let current = |p: &Path| {
            generations
                .get(p)
                .is_some_and(|g| self.is_current_generation(p, *g))
        };
        // A changed file the server has not opened is opened with its previous text first,
        // then changed, as in an editor: opened straight with its new text, pyright kept its
        // dependents' results computed against the old text on disk (a long session's rename
        // never broke the importer, whose own check then said "no errors").
        let reopen: Vec<(PathBuf, Arc<str>)> = items
            .iter()
            .filter(|it| !server.is_open(&it.path))
            .filter_map(|it| Some((it.path.clone(), Arc::clone(it.previous.as_ref()?))))
            .collect();
        if !reopen.is_empty() {
            drop(server.sync_all(reopen, deadline, &current).await);
        }
        let mut synced = server
            .sync_all(
                items.into_iter().map(|it| (it.path, it.text)).collect(),
                deadline,
                &current,
            )
            .await;
        for s in synced.iter_mut().flatten() {
            s.mark_asked();
        }
        let settles = synced.into_iter().zip(senders).map(|(s, tx)| {
            let server = &server;
            let generations = &generations;
            let checked = &checked;
            let key = &key;
            let asked = others_out.asked;
            async move {
                let (path, res) = match s {
                    Ok(s) => {
                        let path = s.path.clone();
                        let generation = generations.get(&path).copied().unwrap_or_default();
                        // A newer check of the file makes this one moot: stop it (its request
                        // is cancelled) and free the document for the newer one.
                        let res = tokio::select! {
                            r = server.settle(s, deadline) => r,
                            () = self.superseded(&path, generation) => Err(LspError::Timeout {
                                server: server.id.clone(),
                                stage: "superseded by a newer check",
                                waited: Duration::ZERO,
                            }),
                        };
                        (Some(path), res)
                    }
                    Err(e) => (None, Err(e)),
                };
                let ok = res.is_ok();
                if let Err(Ok(result)) = tx.send(res)
                    && let Some(path) = path
                    && let Some(g) = generations.get(&path)
                    && let Some((text, saved)) = checked.get(&path)
                {
                    self.keep_late(
                        *g,
                        LateAnswer {
                            key: key.clone(),
                            asked,
                            text: Arc::clone(text),
                            saved: *saved,
                            result,
                        },
                    );
                }
                ok
            }
        });
        let oks = futures::future::join_all(settles).await;
        self.touch_slot(&key);
        if oks.contains(&true)
            && let Some(slot) = self.slots().get_mut(&key)
        {
            slot.crashes = 0;
        }
        let mut others = Vec::new();
        // The text each other file's `after` was computed on.
        let mut texts: HashMap<PathBuf, Arc<str>> = HashMap::new();
        // The "before" of other files whose check a newer pass stopped.
        let mut stopped: Vec<OtherFileDiagnostics> = Vec::new();
        if !pull {
            // Every file whose publish differs from what the previous pass saw (a cold
            // server's first pass has no "before": all of its results would look new).
            let now = server.publish_snapshot();
            server.set_publishes_given(now.clone());
            let before = published_before.unwrap_or_else(|| now.clone());
            for (path, after) in now {
                let old = before.get(&path).cloned().unwrap_or_default();
                if old == after || skip.contains(&path) {
                    continue;
                }
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                let overrides = &server.config().severity_overrides;
                others.push(OtherFileDiagnostics {
                    path: path.clone(),
                    server: key.server.clone(),
                    before: convert(&text, &old, overrides, server.encoding()),
                    after: convert(&text, &after, overrides, server.encoding()),
                });
                texts.insert(path, text.into());
            }
        }
        // Pull servers: every candidate's settled result after the change, changed or not
        // (the caller decides what it has not been told yet); those that could not be
        // checked are counted.
        let mut epoch = server.epoch();
        let mut superseded = false;
        if !candidates.is_empty() {
            self.checking_others(
                &key,
                serial,
                candidates.iter().map(|(p, _, _)| p.clone()).collect(),
            );
            let checked = self
                .check_others(
                    &server,
                    &key,
                    serial,
                    (candidates, likely),
                    &changed,
                    deadline,
                    &current,
                    (&others_out.partial, &others_out.likely_done),
                )
                .await;
            self.done_checking_others(&key, serial);
            epoch = checked.epoch;
            unchecked += checked.unchecked;
            superseded = checked.superseded;
            if superseded {
                stopped.extend(checked.known.iter().map(|(path, _, before)| {
                    OtherFileDiagnostics {
                        path: path.clone(),
                        server: key.server.clone(),
                        before: before.clone(),
                        after: Vec::new(),
                    }
                }));
            }
            for ((path, text, before), after) in checked.known.into_iter().zip(checked.afters) {
                let Some(after) = after else {
                    unchecked += 1;
                    continue;
                };
                others.push(OtherFileDiagnostics {
                    path: path.clone(),
                    server: key.server.clone(),
                    before,
                    after: after.diagnostics,
                });
                texts.insert(path, text);
            }
        }
        // Not busy any more before the caller hears the end, so that maintenance right after
        // a call sees the server idle.
        drop(busy);
        let report = OthersReport {
            files: others,
            pending: 0,
            unchecked,
            bounded,
        };
        if let Err(mut report) = others_out.tx.send(report) {
            // The caller stopped waiting: the results it did not report already hold while
            // nothing in the root changes and their files keep the text they were computed on
            // (a superseded pass's are partial: the newer pass reports those files). Those
            // that do not hold keep only their "before".
            {
                let partial = others_out.partial.lock().unwrap_or_else(|e| e.into_inner());
                report.files.retain(|f| !partial.taken.contains(&f.path));
            }
            if server.epoch() == epoch && !superseded {
                self.keep_late_others(&key, epoch, others_out.asked, report.files, &texts);
            } else {
                self.outdate_others(report.files.into_iter().chain(stopped));
            }
        } else {
            self.outdate_others(stopped);
        }
    }

    /// The other files of a pull server's pass: (path, text, last known diagnostics) of the
    /// changed files' dependents, nearest first, then those an older pass left unchecked
    /// (`carried`), then the other open documents, at most [`MAX_OTHER_CANDIDATES`]; and how
    /// many dependents go unchecked (past the cap, or unreadable). No request is sent: a file's
    /// last known result for its text is its "before" as is, whatever changed since elsewhere
    /// (the caller compares with what it has told; the "before" only seeds a file it never
    /// saw), and the others are pulled by [`Pool::check_others`], after the named files.
    fn other_candidates(
        &self,
        server: &Arc<Server>,
        key: &ServerKey,
        items: &[Item],
        skip: &HashSet<PathBuf>,
        carried: &[PathBuf],
    ) -> (Vec<Candidate>, usize, bool) {
        let mut open: BTreeMap<PathBuf, (Arc<str>, Option<Vec<Diagnostic>>)> = server
            .open_documents_settled(skip)
            .into_iter()
            .map(|(p, text, cached)| (p, (text, cached)))
            .collect();
        let cfg = server.config();
        let extensions: Vec<&str> = cfg.languages.keys().map(String::as_str).collect();
        let changed: Vec<PathBuf> = items.iter().map(|it| it.path.clone()).collect();
        let mut candidates: Vec<Candidate> = Vec::new();
        let dependents = {
            let mut scans = self.inner.scans.lock().unwrap_or_else(|e| e.into_inner());
            crate::importers::dependents(
                &key.root,
                &changed,
                &extensions,
                MAX_OTHER_CANDIDATES,
                scans.entry(key.clone()).or_default(),
            )
        };
        let mut unchecked = dependents.total.saturating_sub(dependents.files.len());
        let bounded = !dependents.complete;
        for p in dependents.files {
            if skip.contains(&p) {
                continue;
            }
            if let Some((text, cached)) = open.remove(&p) {
                candidates.push((p, text, cached));
            } else if let Ok(text) = std::fs::read_to_string(&p) {
                candidates.push((p, text.into(), None));
            } else {
                unchecked += 1;
            }
        }
        // Then the files an older pass left unchecked, then the other open documents.
        for p in carried {
            if candidates.len() == MAX_OTHER_CANDIDATES {
                break;
            }
            if let Some((text, cached)) = open.remove(p) {
                candidates.push((p.clone(), text, cached));
            }
        }
        let room = MAX_OTHER_CANDIDATES - candidates.len();
        candidates.extend(open.into_iter().take(room).map(|(p, (t, c))| (p, t, c)));
        (candidates, unchecked, bounded)
    }

    /// The other files of a pull server's pass, once the named files have their verdict: the
    /// "before" of those with no known result, pulled against the changed files' previous
    /// texts (sent, then the new ones sent back whatever happens, so the server never keeps an
    /// older text), then every file's "after". At most [`OTHER_CHECKS_IN_FLIGHT`] requests are
    /// in flight, nearest file first, and a newer pass of the server stops the rest unsent:
    /// the server's queue holds a few of lspedit's background requests, never a batch that
    /// the next edit's verdict would wait behind.
    ///
    /// The first `likely` candidates are the files the change most likely broke
    /// ([`likely_first`]): `likely_done` is told once their checks ended (or the pass stopped
    /// checking), so that a caller waiting for them stops.
    #[allow(clippy::too_many_arguments)]
    async fn check_others(
        &self,
        server: &Arc<Server>,
        key: &ServerKey,
        serial: u64,
        (candidates, likely): (Vec<Candidate>, usize),
        changed: &[ChangedText],
        deadline: Instant,
        current: &(dyn Fn(&Path) -> bool + Send + Sync),
        (partial, likely_done): (&Mutex<PartialOthers>, &tokio::sync::Notify),
    ) -> CheckedOthers {
        // Whatever way this ends, a caller waiting for the likely files stops waiting.
        let _told = TellOnDrop(likely_done);
        let likely_paths: HashSet<PathBuf> = candidates[..likely]
            .iter()
            .map(|(p, _, _)| p.clone())
            .collect();
        let unknown: Vec<(PathBuf, Arc<str>)> = candidates
            .iter()
            .filter(|(_, _, c)| c.is_none())
            .map(|(p, t, _)| (p.clone(), Arc::clone(t)))
            .collect();
        let mut pulled: HashMap<PathBuf, Vec<Diagnostic>> = HashMap::new();
        let mut superseded = false;
        if !unknown.is_empty() {
            // The server must see the changed files as they were: their previous texts (those
            // with none are new files or unknown, left as the server has them). A text a newer
            // check replaced is not sent (`current`).
            let previous: Vec<(PathBuf, Arc<str>)> = changed
                .iter()
                .filter_map(|(p, _, prev)| Some((p.clone(), Arc::clone(prev.as_ref()?))))
                .collect();
            // While they are shown, requests about the files wait ([`Server::current_view`]);
            // one that arrives stops the pulls (their files go unchecked, and are counted).
            // One already reading the view goes first: no "before" is pulled then.
            let must_revert = !previous.is_empty();
            let view = if must_revert {
                server.show_older_texts()
            } else {
                None
            };
            let reverted = view.is_some();
            // The changed files stay locked while their previous texts are shown: the file
            // watcher and the stat check leave a locked document alone, so neither sends the
            // new text from the disk under the "before" pulls.
            let shown = if reverted {
                server.sync_all(previous, deadline, current).await
            } else {
                Vec::new()
            };
            if reverted || !must_revert {
                tokio::select! {
                    results = self.check_each(server, unknown, deadline, &|_, _| {}) => {
                        for r in results.into_iter().flatten() {
                            pulled.insert(r.path.clone(), r.diagnostics);
                        }
                    }
                    () = self.pass_superseded(key, serial) => superseded = true,
                    () = server.view_wanted(), if reverted => {}
                }
            }
            drop(shown);
            if reverted {
                // Not cancellable: a newer pass waits for this one to stop checking others
                // (`Pool::older_passes_stopped`), so it never finds an older text sent.
                let new: Vec<(PathBuf, Arc<str>)> = changed
                    .iter()
                    .filter(|(_, _, prev)| prev.is_some())
                    .map(|(p, t, _)| (p.clone(), Arc::clone(t)))
                    .collect();
                drop(server.sync_all(new, deadline, current).await);
            }
            drop(view);
        }
        let mut unchecked = 0;
        let known: Vec<(PathBuf, Arc<str>, Vec<Diagnostic>)> = candidates
            .into_iter()
            .filter_map(|(p, t, cached)| {
                let before = cached.or_else(|| pulled.remove(&p));
                if before.is_none() && !superseded {
                    unchecked += 1;
                }
                Some((p, t, before?))
            })
            .collect();
        // The state the "after"s are computed in: the changed files' new texts are back.
        let epoch = server.epoch();
        let mut afters = Vec::new();
        // The likely files that have a "before" come first in `known`; their checks end first.
        let likely_known = known
            .iter()
            .filter(|(p, _, _)| likely_paths.contains(p))
            .count();
        if likely_known == 0 {
            likely_done.notify_one();
        }
        if !superseded {
            let files = known
                .iter()
                .map(|(p, t, _)| (p.clone(), Arc::clone(t)))
                .collect();
            let likely_ended = std::sync::atomic::AtomicUsize::new(0);
            // Each file as it finishes, for a caller that stops waiting before the rest.
            let finished = |i: usize, after: Option<&FileDiagnostics>| {
                if i < likely_known
                    && likely_ended.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1
                        == likely_known
                {
                    likely_done.notify_one();
                }
                let Some(after) = after else { return };
                let (path, _, before) = &known[i];
                partial
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .files
                    .push(OtherFileDiagnostics {
                        path: path.clone(),
                        server: key.server.clone(),
                        before: before.clone(),
                        after: after.diagnostics.clone(),
                    });
            };
            tokio::select! {
                results = self.check_each(server, files, deadline, &finished) => afters = results,
                () = self.pass_superseded(key, serial) => superseded = true,
            }
        }
        if superseded {
            // A newer change is being checked: what finished here is not reported now.
            partial
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .files
                .clear();
        }
        CheckedOthers {
            known,
            afters,
            unchecked,
            superseded,
            epoch,
        }
    }

    /// Each file's settled result (in order; `None` for one that could not be checked), with
    /// at most [`OTHER_CHECKS_IN_FLIGHT`] checks at a time: the rest are not sent until one
    /// answers, and are never sent when the caller drops this. `finished` hears each file's
    /// end (with its index, and its result if it has one) as soon as it is settled.
    async fn check_each(
        &self,
        server: &Arc<Server>,
        files: Vec<(PathBuf, Arc<str>)>,
        deadline: Instant,
        finished: &(dyn Fn(usize, Option<&FileDiagnostics>) + Send + Sync),
    ) -> Vec<Option<FileDiagnostics>> {
        use futures::StreamExt;
        futures::stream::iter(files.into_iter().enumerate())
            .map(|(i, file)| async move {
                let synced = server.sync_all(vec![file], deadline, &|_| true).await;
                let result = match synced.into_iter().next() {
                    Some(Ok(s)) => server.settle(s, deadline).await.ok(),
                    _ => None,
                };
                finished(i, result.as_ref());
                result
            })
            .buffered(OTHER_CHECKS_IN_FLIGHT)
            .collect()
            .await
    }

    fn serials(&self) -> MutexGuard<'_, HashMap<ServerKey, Serials>> {
        self.inner.serials.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new pass of `key`'s server: its serial, and the other files the pass before it was
    /// still checking (which stops: see [`Pool::pass_superseded`]).
    fn next_pass(&self, key: &ServerKey) -> (u64, Vec<PathBuf>) {
        let (serial, carried) = {
            let mut serials = self.serials();
            let s = serials.entry(key.clone()).or_default();
            s.newest += 1;
            (
                s.newest,
                s.checking
                    .as_ref()
                    .map(|(_, f)| f.clone())
                    .unwrap_or_default(),
            )
        };
        self.inner
            .generation_changed
            .send_modify(|n| *n = n.wrapping_add(1));
        (serial, carried)
    }

    fn checking_others(&self, key: &ServerKey, serial: u64, files: Vec<PathBuf>) {
        let mut serials = self.serials();
        let s = serials.entry(key.clone()).or_default();
        if s.newest == serial {
            s.checking = Some((serial, files));
        }
    }

    fn done_checking_others(&self, key: &ServerKey, serial: u64) {
        if let Some(s) = self.serials().get_mut(key)
            && s.checking.as_ref().is_some_and(|(n, _)| *n == serial)
        {
            s.checking = None;
        }
        self.inner
            .generation_changed
            .send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Waits (until `deadline`) until no pass of `key` older than `serial` is checking other
    /// files any more.
    async fn older_passes_stopped(&self, key: &ServerKey, serial: u64, deadline: Instant) {
        self.wait_state(Some(deadline), || {
            self.serials()
                .get(key)
                .and_then(|s| s.checking.as_ref())
                .is_none_or(|(n, _)| *n >= serial)
        })
        .await;
    }

    /// Resolves once a pass of `key` newer than `serial` began.
    async fn pass_superseded(&self, key: &ServerKey, serial: u64) {
        self.wait_state(None, || {
            self.serials().get(key).map_or(0, |s| s.newest) != serial
        })
        .await;
    }

    fn late(&self) -> MutexGuard<'_, Late> {
        self.inner.late.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new check of `path` begins: older checks' late answers are stale, its own and those
    /// of it as another file (its new verdict supersedes them; their "before" is kept).
    fn next_generation(&self, path: &Path) -> u64 {
        let g = {
            let mut late = self.late();
            late.ready.remove(path);
            let (gone, kept): (Vec<LateOther>, Vec<LateOther>) = std::mem::take(&mut late.others)
                .into_iter()
                .partition(|l| l.file.path == path);
            late.others = kept;
            for l in gone {
                late.outdate(l.file);
            }
            let g = late.generation.entry(path.to_owned()).or_default();
            *g += 1;
            *g
        };
        self.inner
            .generation_changed
            .send_modify(|n| *n = n.wrapping_add(1));
        g
    }

    /// Resolves once a check of `path` newer than `generation` was asked for.
    async fn superseded(&self, path: &Path, generation: u64) {
        self.wait_state(None, || !self.is_current_generation(path, generation))
            .await;
    }

    /// Waits until `ready()` holds, asking again whenever the pool's check state changes
    /// (`generation_changed`: generations, late answers, passes): true once it holds, false
    /// when `deadline` came first. Without a deadline it waits as long as it takes (for ever
    /// once the pool is closed and nothing changes any more).
    async fn wait_state(&self, deadline: Option<Instant>, ready: impl Fn() -> bool) -> bool {
        let mut changes = self.inner.generation_changed.subscribe();
        loop {
            changes.borrow_and_update();
            if ready() {
                return true;
            }
            let changed = match deadline {
                Some(d) => match tokio::time::timeout_at(d.into(), changes.changed()).await {
                    Ok(r) => r.is_ok(),
                    Err(_) => return ready(),
                },
                None => changes.changed().await.is_ok(),
            };
            if !changed {
                if deadline.is_some() {
                    return ready();
                }
                return std::future::pending().await;
            }
        }
    }

    fn is_current_generation(&self, path: &Path, generation: u64) -> bool {
        self.late().generation.get(path) == Some(&generation)
    }

    fn keep_late(&self, generation: u64, answer: LateAnswer) {
        let mut late = self.late();
        let path = answer.result.path.clone();
        if late.generation.get(&path) == Some(&generation) {
            tracing::debug!(path = %path.display(), "late diagnostics kept");
            late.ready.insert(path, answer);
            drop(late);
            self.inner
                .generation_changed
                .send_modify(|n| *n = n.wrapping_add(1));
        }
    }

    /// Waits until a late answer is kept for [`Pool::take_late`] (true) or `deadline` passes
    /// (false). Does not take it.
    pub async fn wait_for_late(&self, deadline: Instant) -> bool {
        self.wait_late(deadline, |late| !late.ready.is_empty())
            .await
    }

    /// Waits until no check pass is running any more (every pass that went on after its
    /// caller, other files included, has ended and kept what it had) (true) or `deadline`
    /// passes (false).
    pub async fn wait_passes_done(&self, deadline: Instant) -> bool {
        let mut rx = self.inner.passes.subscribe();
        tokio::time::timeout_at(deadline.into(), rx.wait_for(|n| *n == 0))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Waits until other files' late results are kept for [`Pool::take_late_others`] (true)
    /// or `deadline` passes (false). Does not take them.
    pub async fn wait_for_late_others(&self, deadline: Instant) -> bool {
        self.wait_late(deadline, |late| !late.others.is_empty())
            .await
    }

    async fn wait_late(&self, deadline: Instant, kept: impl Fn(&Late) -> bool) -> bool {
        self.wait_state(Some(deadline), || kept(&self.late())).await
    }

    /// The results of checks asked for before `asked_before` that timed out for their caller
    /// and settled later, each once, sorted by path: a late answer is true when shown.
    ///
    /// - It is of the text the file has now: it is dropped when the file's text changed since
    ///   the check was asked for: the text the server holds for it (the latest lspedit sent)
    ///   and, for a check of the file as saved, its content on disk (a foreign writer). So it
    ///   never shows an error the current text does not have.
    /// - A newer check of the file supersedes it (dropped when that check is asked for), and a
    ///   caller passes when its own call began, so that its own checks' late answers wait for
    ///   the next call: never shown in the result of a call that wrote or checked the file
    ///   (that call's own verdict, or "pending", stands there).
    pub fn take_late(&self, asked_before: Instant) -> Vec<FileDiagnostics> {
        let taken: Vec<LateAnswer> = {
            let mut late = self.late();
            let (taken, kept) = std::mem::take(&mut late.ready)
                .into_iter()
                .partition(|(_, a)| a.asked < asked_before);
            late.ready = kept;
            taken.into_values().collect()
        };
        taken
            .into_iter()
            .filter(|a| {
                let holds = self.still_has_text(&a.key, &a.result.path, &a.text, a.saved);
                if !holds {
                    tracing::debug!(path = %a.result.path.display(), "late diagnostics of an older text dropped");
                }
                holds
            })
            .map(|a| a.result)
            .collect()
    }

    /// Whether `path` still has the text `text` a check was of: as the server of `key` holds
    /// it when it is open there, and on disk when `on_disk` (the check was of the saved file).
    fn still_has_text(&self, key: &ServerKey, path: &Path, text: &str, on_disk: bool) -> bool {
        let server = match self.slots().get(key).map(|s| &s.state) {
            Some(SlotState::Running(s)) => Some(Arc::clone(s)),
            _ => None,
        };
        if server
            .and_then(|s| s.held_text(path))
            .is_some_and(|held| &*held != text)
        {
            return false;
        }
        !on_disk || std::fs::read(path).is_ok_and(|b| b == text.as_bytes())
    }

    /// Other files' results of checks asked for before `asked_before` whose caller stopped
    /// waiting for them ([`Pool::check_change_within`]), each once, sorted by path; only those
    /// still true: nothing in their server root changed since they were computed, and the file
    /// still has the text its result was computed on (on disk, and as the server holds it).
    /// A result of a file checked since is superseded by that check. A caller passes when its
    /// own call began, so that its own check's late results wait for the next call instead of
    /// being shown as "after your earlier change" in the same one. Each result has its `before`
    /// and `after`; what counts as caused by the change is the caller's to decide (against
    /// what it knew of the file first: see [`Pool::take_outdated_others`]). Those that no
    /// longer hold go to [`Pool::take_outdated_others`].
    pub fn take_late_others(&self, asked_before: Instant) -> Vec<OtherFileDiagnostics> {
        let taken: Vec<LateOther> = {
            let mut late = self.late();
            let (taken, kept) = std::mem::take(&mut late.others)
                .into_iter()
                .partition(|l| l.asked < asked_before);
            late.others = kept;
            taken
        };
        let (mut out, gone): (Vec<LateOther>, Vec<LateOther>) =
            taken.into_iter().partition(|l| self.late_other_holds(l));
        self.outdate_others(gone.into_iter().map(|l| l.file));
        out.sort_by(|a, b| a.file.path.cmp(&b.file.path));
        out.into_iter().map(|l| l.file).collect()
    }

    /// Whether a late other file's result still holds: its root's epoch is the one it was
    /// computed in and the file still has its text.
    fn late_other_holds(&self, l: &LateOther) -> bool {
        self.late_other_in_epoch(l) && self.still_has_text(&l.key, &l.file.path, &l.text, true)
    }

    /// Whether a late other file's root is still in the epoch its result was computed in.
    fn late_other_in_epoch(&self, l: &LateOther) -> bool {
        matches!(self.slots().get(&l.key).map(|s| &s.state),
            Some(SlotState::Running(s)) if s.epoch() == l.epoch)
    }

    /// Other files' results kept for [`Pool::take_late_others`] that no longer hold (a change
    /// since, a newer result of the file, or a pass stopped by a newer one), each once, sorted
    /// by path, the earliest per file: never to be shown, but their `before` is what the file
    /// had before the change that asked for them, which a caller that never saw the file
    /// takes as what it had first (a later "before" can be of a state a change had already
    /// altered: errors the change hid would then read as new once they come back). Results
    /// still kept whose root changed since are moved here first (a cheap check, no file read:
    /// [`Pool::take_late_others`] checks the texts).
    pub fn take_outdated_others(&self) -> Vec<OtherFileDiagnostics> {
        let held: Vec<LateOther> = std::mem::take(&mut self.late().others);
        let (holding, gone): (Vec<LateOther>, Vec<LateOther>) =
            held.into_iter().partition(|l| self.late_other_in_epoch(l));
        let mut late = self.late();
        // Back in front of those kept meanwhile, unless one of those replaced it.
        let newer = std::mem::take(&mut late.others);
        for l in holding {
            if newer
                .iter()
                .any(|n| n.key == l.key && n.file.path == l.file.path)
            {
                late.outdate(l.file);
            } else {
                late.others.push(l);
            }
        }
        late.others.extend(newer);
        for l in gone {
            late.outdate(l.file);
        }
        std::mem::take(&mut late.outdated).into_values().collect()
    }

    /// A change in `key`'s root is asked for: every other file's late result of that root
    /// kept so far is moot from now on, before the server has even been sent the change (its
    /// pass may wait behind others, and the caller builds its result meanwhile: the root's
    /// epoch alone would still say "current"). A file counts as changed unless the server
    /// already holds its text (a check of an open document, nothing changed).
    fn outdate_others_changed_by(&self, key: &ServerKey, items: &[Item]) {
        let server = match self.slots().get(key).map(|s| &s.state) {
            Some(SlotState::Running(s)) => Arc::clone(s),
            _ => return,
        };
        let changes = items.iter().any(|it| {
            server
                .held_text(&it.path)
                .is_none_or(|held| held != it.text)
        });
        if !changes {
            return;
        }
        let mut late = self.late();
        let (gone, kept): (Vec<LateOther>, Vec<LateOther>) = std::mem::take(&mut late.others)
            .into_iter()
            .partition(|l| &l.key == key);
        late.others = kept;
        for l in gone {
            late.outdate(l.file);
        }
    }

    /// Other files' results that no longer hold: their "before" is kept for
    /// [`Pool::take_outdated_others`].
    fn outdate_others(&self, files: impl IntoIterator<Item = OtherFileDiagnostics>) {
        let mut late = self.late();
        for f in files {
            late.outdate(f);
        }
    }

    fn keep_late_others(
        &self,
        key: &ServerKey,
        epoch: u64,
        asked: Instant,
        files: Vec<OtherFileDiagnostics>,
        texts: &HashMap<PathBuf, Arc<str>>,
    ) {
        if files.is_empty() {
            return;
        }
        let mut late = self.late();
        let (replaced, kept): (Vec<LateOther>, Vec<LateOther>) = std::mem::take(&mut late.others)
            .into_iter()
            .partition(|l| &l.key == key && files.iter().any(|f| f.path == l.file.path));
        late.others = kept;
        for l in replaced {
            late.outdate(l.file);
        }
        for file in files {
            let Some(text) = texts.get(&file.path) else {
                late.outdate(file);
                continue;
            };
            late.others.push(LateOther {
                key: key.clone(),
                epoch,
                asked,
                text: Arc::clone(text),
                file,
            });
        }
        drop(late);
        self.inner
            .generation_changed
            .send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Starts the server for `path` in the background if it is not running. Never waits.
    pub fn touch(&self, path: &Path) {
        let Ok(key) = self.key_for(path) else { return };
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let pool = self.background();
        let deadline = Instant::now() + self.inner.config.startup_timeout;
        handle.spawn(async move {
            if let Err(e) = pool.get_server(&key, deadline).await {
                tracing::debug!(server = %key.server, "touch: {e}");
            }
        });
    }

    /// How many batches of changes on disk the file watcher has handed to the servers so far
    /// (each after its debounce; see [`PoolConfig::watch`]). With [`Pool::wait_disk_batch`],
    /// lets a caller know that a change another program made has reached the servers.
    pub fn disk_batches(&self) -> u64 {
        *self.inner.disk_batches.borrow()
    }

    /// Waits until more than `after` batches of disk changes were handed to the servers (true)
    /// or `deadline` passes (false).
    pub async fn wait_disk_batch(&self, after: u64, deadline: Instant) -> bool {
        let mut rx = self.inner.disk_batches.subscribe();
        tokio::time::timeout_at(deadline.into(), rx.wait_for(|n| *n > after))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// True when the server process for `path` is running.
    pub fn is_alive(&self, path: &Path) -> bool {
        let Ok(key) = self.key_for(path) else {
            return false;
        };
        self.is_key_alive(&key)
    }

    /// True when the server for `path` is running and has answered a check: only then is it
    /// warm. A server that is up but still indexing has not answered yet and gets the cold
    /// budget ([`PoolConfig::first_check_timeout`]).
    pub fn is_warm(&self, path: &Path) -> bool {
        let Ok(key) = self.key_for(path) else {
            return false;
        };
        matches!(
            self.slots().get(&key).map(|s| &s.state),
            Some(SlotState::Running(s)) if s.is_alive() && s.has_answered()
        )
    }

    /// True when `key`'s server is running and has answered a check ([`Pool::is_warm`]).
    fn is_key_warm(&self, key: &ServerKey) -> bool {
        matches!(
            self.slots().get(key).map(|s| &s.state),
            Some(SlotState::Running(s)) if s.is_alive() && s.has_answered()
        )
    }

    /// What `key`'s server has done so far (see `crate::verdict`).
    pub(crate) fn activity(&self, key: &ServerKey) -> crate::verdict::Activity {
        let server = match self.slots().get(key).map(|s| &s.state) {
            Some(SlotState::Running(s)) => Some(Arc::clone(s)),
            _ => None,
        };
        crate::verdict::Activity::of(server.as_deref())
    }

    /// Process groups of every server process this pool spawned and has not killed yet,
    /// including those still starting.
    pub fn process_groups(&self) -> Vec<u32> {
        self.inner.groups.list()
    }

    /// True when the server process for `key` is running.
    pub fn is_key_alive(&self, key: &ServerKey) -> bool {
        matches!(
            self.slots().get(key).map(|s| &s.state),
            Some(SlotState::Running(s)) if s.is_alive()
        )
    }

    /// The latest diagnostics every running server has published, per file, sorted by path
    /// (files with none are left out). Positions are converted against the file's text on disk
    /// now, so a file that changed since its publish may show shifted columns; a file that can
    /// no longer be read is left out.
    pub fn published(&self) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        let servers: Vec<Arc<Server>> = self
            .slots()
            .values()
            .filter_map(|slot| match &slot.state {
                SlotState::Running(s) => Some(Arc::clone(s)),
                _ => None,
            })
            .collect();
        let mut out: Vec<(PathBuf, Vec<Diagnostic>)> = servers
            .iter()
            .flat_map(|s| {
                s.published()
                    .into_iter()
                    .map(move |(path, raw)| (path, raw, s))
            })
            .filter_map(|(path, raw, s)| {
                let text = std::fs::read_to_string(&path).ok()?;
                let overrides = &s.config().severity_overrides;
                Some((path, convert(&text, &raw, overrides, s.encoding())))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Every server the pool has known, sorted by key.
    pub fn status(&self) -> Vec<ServerStatus> {
        let cfg = &self.inner.config;
        let now = Instant::now();
        let slots = self.slots();
        let mut out: Vec<ServerStatus> = slots
            .iter()
            .map(|(key, slot)| {
                let mut st = ServerStatus {
                    key: key.clone(),
                    state: ServerState::Stopped,
                    pgid: None,
                    rss_kib: None,
                    crashes: slot.crashes,
                    last_error: slot.last_error.clone(),
                    uptime: None,
                    idle_for: now.saturating_duration_since(slot.last_used),
                    open_documents: 0,
                };
                match &slot.state {
                    SlotState::Running(s) if s.is_alive() => {
                        st.state = ServerState::Running;
                        st.pgid = Some(s.pgid());
                        st.rss_kib = process::group_rss_kib(s.pgid());
                        st.uptime = Some(s.uptime());
                        st.open_documents = s.open_documents();
                    }
                    SlotState::Running(s) => {
                        st.state = ServerState::Stopped;
                        st.last_error = s.death_reason();
                    }
                    SlotState::Starting(_) => st.state = ServerState::Starting,
                    SlotState::Broken { .. } => st.state = ServerState::Broken,
                    SlotState::Idle => {
                        if let Some(at) = slot.last_crash
                            && slot.crashes > 0
                        {
                            let retry = at + backoff(cfg, slot.crashes);
                            if retry > now {
                                st.state = ServerState::Backoff {
                                    retry_in: retry - now,
                                };
                            }
                        }
                    }
                }
                st
            })
            .collect();
        out.sort_by(|a, b| a.key.cmp(&b.key));
        out
    }

    /// Stops every server politely (`shutdown`, `exit`, grace, kill the group) and refuses
    /// further work.
    pub async fn shutdown(&self) {
        tracing::debug!("pool shutdown begins");
        self.inner.closed.store(true, Ordering::SeqCst);
        self.inner.stop_watching();
        let servers: Vec<Arc<Server>> = {
            let mut slots = self.slots();
            slots
                .values_mut()
                .filter_map(
                    |slot| match std::mem::replace(&mut slot.state, SlotState::Idle) {
                        SlotState::Running(s) => Some(s),
                        other => {
                            slot.state = other;
                            None
                        }
                    },
                )
                .collect()
        };
        let grace = self.inner.config.shutdown_grace;
        futures::future::join_all(servers.iter().map(|s| s.shutdown(grace))).await;
        // Starting servers: kill whatever finishes starting (see `start_task`).
        let starting: Vec<_> = self
            .slots()
            .values()
            .filter_map(|s| match &s.state {
                SlotState::Starting(rx) => Some(rx.clone()),
                _ => None,
            })
            .collect();
        for mut rx in starting {
            let _ = tokio::time::timeout(grace, rx.wait_for(Option::is_some)).await;
        }
        self.kill_all();
        // Whatever is left (a server hung in `initialize`, a start still running) dies with
        // the pool, and is gone when this returns.
        let left = self.inner.groups.kill_all();
        tracing::debug!(groups = ?left, "shutdown: killed the remaining process groups");
        let _ = tokio::task::spawn_blocking(move || {
            for pgid in left {
                process::wait_group_gone(pgid, Duration::from_secs(2));
            }
        })
        .await;
    }

    /// Stops one server process (politely), e.g. to apply new settings. Next use restarts it.
    pub async fn stop(&self, key: &ServerKey) {
        let server = {
            let mut slots = self.slots();
            let Some(slot) = slots.get_mut(key) else {
                return;
            };
            match std::mem::replace(&mut slot.state, SlotState::Idle) {
                SlotState::Running(s) => Some(s),
                other => {
                    slot.state = other;
                    None
                }
            }
        };
        if let Some(s) = server {
            s.shutdown(self.inner.config.shutdown_grace).await;
        }
    }

    fn kill_all(&self) {
        for slot in self.slots().values() {
            if let SlotState::Running(s) = &slot.state {
                s.kill();
            }
        }
    }

    fn slots(&self) -> MutexGuard<'_, HashMap<ServerKey, Slot>> {
        self.inner.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn absolute(&self, path: &Path) -> Result<PathBuf, LspError> {
        let joined = if path.is_absolute() {
            path.to_owned()
        } else {
            self.inner.root.join(path)
        };
        // Canonicalize what exists so symlinked roots compare equal; a new file's parent.
        let canonical = joined.canonicalize().ok().or_else(|| {
            let parent = joined.parent()?.canonicalize().ok()?;
            Some(parent.join(joined.file_name()?))
        });
        let path = canonical.unwrap_or(joined);
        if !path.starts_with(&self.inner.root) {
            return Err(LspError::OutsideWorkspace {
                path,
                root: self.inner.root.clone(),
            });
        }
        Ok(path)
    }

    pub(crate) fn touch_slot(&self, key: &ServerKey) {
        if let Some(slot) = self.slots().get_mut(key) {
            slot.last_used = Instant::now();
        }
    }

    /// The running server for `key`, starting it when needed (one start per key however many
    /// callers ask at once).
    pub(crate) async fn get_server(
        &self,
        key: &ServerKey,
        deadline: Instant,
    ) -> Result<Arc<Server>, LspError> {
        let since = Instant::now();
        let mut retried = false;
        self.ensure_maintenance();
        loop {
            if self.inner.closed.load(Ordering::SeqCst) {
                return Err(LspError::PoolClosed);
            }
            let next = self.next_step(key)?;
            let next = match next {
                Ok(server) => {
                    // A liveness probe after a timeout holds this; wait for its verdict.
                    let guard = tokio::time::timeout_at(deadline.into(), server.health.lock())
                        .await
                        .map_err(|_| LspError::Timeout {
                            server: key.server.clone(),
                            stage: "waiting for a liveness probe",
                            waited: since.elapsed(),
                        })?;
                    drop(guard);
                    if server.is_alive() {
                        return Ok(server);
                    }
                    continue;
                }
                Err(next) => next,
            };
            match next {
                Next::Wait(mut rx, began) => {
                    let res =
                        tokio::time::timeout_at(deadline.into(), rx.wait_for(Option::is_some))
                            .await;
                    match res {
                        Err(_) => {
                            return Err(LspError::Timeout {
                                server: key.server.clone(),
                                stage: "starting",
                                waited: since.elapsed(),
                            });
                        }
                        Ok(Err(_)) => return Err(LspError::PoolClosed),
                        Ok(Ok(r)) => match r.as_ref() {
                            Some(Ok(server)) => return Ok(server.clone()),
                            // A start this call joined failed: try once more on our own (a
                            // server that hung on a previous start may well start now).
                            Some(Err(_)) if !began && !retried => {
                                retried = true;
                                continue;
                            }
                            Some(Err(e)) => return Err(e.clone()),
                            None => continue,
                        },
                    }
                }
                Next::Retry(at) => {
                    if at > deadline {
                        return Err(LspError::Backoff {
                            server: key.server.clone(),
                            retry_in: at.saturating_duration_since(Instant::now()),
                        });
                    }
                    // The restart backoff: a deliberate delay, not a synchronization.
                    tokio::time::sleep_until(at.into()).await;
                }
            }
        }
    }

    /// Looks at the slot under the lock and decides: a live server, or what to wait for.
    #[allow(clippy::type_complexity, reason = "private two-level decision")]
    fn next_step(&self, key: &ServerKey) -> Result<Result<Arc<Server>, Next>, LspError> {
        let cfg = &self.inner.config;
        let now = Instant::now();
        let mut slots = self.slots();
        if !slots.contains_key(key) {
            let server_cfg =
                cfg.server(&key.server)
                    .cloned()
                    .ok_or_else(|| LspError::NoServer {
                        path: key.root.clone(),
                    })?;
            slots.insert(
                key.clone(),
                Slot {
                    cfg: Arc::new(server_cfg),
                    state: SlotState::Idle,
                    crashes: 0,
                    last_crash: None,
                    last_error: None,
                    last_used: now,
                    generation: 0,
                },
            );
        }
        let Some(slot) = slots.get_mut(key) else {
            return Err(LspError::PoolClosed);
        };
        slot.last_used = now;
        match &slot.state {
            SlotState::Running(s) if s.is_alive() => return Ok(Ok(s.clone())),
            SlotState::Running(s) => {
                // Died since last use: that is a crash.
                let reason = s.death_reason();
                tracing::warn!(server = %key.server, root = %key.root.display(), reason = ?reason, "server died");
                record_crash(cfg, slot, reason.unwrap_or_default());
            }
            SlotState::Starting(rx) => return Ok(Err(Next::Wait(rx.clone(), false))),
            SlotState::Broken { since } => {
                let broken_for = now.saturating_duration_since(*since);
                if broken_for < cfg.broken_cooldown {
                    return Err(LspError::Broken {
                        server: key.server.clone(),
                        crashes: slot.crashes,
                        retry_in: cfg.broken_cooldown - broken_for,
                    });
                }
                slot.state = SlotState::Idle;
                slot.crashes = cfg.max_crashes.saturating_sub(1);
            }
            SlotState::Idle => {}
        }
        if let SlotState::Broken { .. } = slot.state {
            return Err(LspError::Broken {
                server: key.server.clone(),
                crashes: slot.crashes,
                retry_in: cfg.broken_cooldown,
            });
        }
        if let Some(at) = slot.last_crash
            && slot.crashes > 0
        {
            let retry = at + backoff(cfg, slot.crashes);
            if retry > now {
                return Ok(Err(Next::Retry(retry)));
            }
        }
        let program = cfg
            .resolve_command(&slot.cfg)
            .ok_or_else(|| LspError::CommandNotFound {
                server: key.server.clone(),
                command: slot.cfg.command.clone(),
            })?;
        let launch =
            lspedit_servers::launch::prepare(cfg, &slot.cfg, &self.inner.root, &key.root, program)?;
        let (tx, rx) = watch::channel(None);
        slot.generation += 1;
        slot.state = SlotState::Starting(rx.clone());
        let generation = slot.generation;
        let evict = self.pick_eviction(&mut slots, key);
        drop(slots);
        if let Some(victim) = evict {
            let grace = cfg.shutdown_grace;
            tokio::spawn(async move { victim.shutdown(grace).await });
        }
        let pool = Arc::downgrade(&self.inner);
        let key = key.clone();
        let startup_timeout = cfg.startup_timeout;
        let groups = Arc::clone(&self.inner.groups);
        let host = cfg.host.clone().map(|config| crate::server::HostLink {
            config,
            workspace: self.inner.root.clone(),
        });
        // The start runs on its own task so it goes on after a caller's deadline.
        tokio::spawn(async move {
            let res = Server::start(
                launch,
                key.root.clone(),
                startup_timeout,
                &groups,
                host.as_ref(),
            )
            .await;
            // Running implies watched: a change made once the server is up is not missed.
            if res.is_ok() {
                let watcher = pool.upgrade().and_then(|inner| pool_watcher(&inner));
                if let Some(watcher) = watcher {
                    let root = key.root.clone();
                    // Walking the tree is blocking work.
                    let _ = tokio::task::spawn_blocking(move || watcher.add_root(&root)).await;
                }
            }
            finish_start(pool, &key, generation, res, tx);
        });
        Ok(Err(Next::Wait(rx, true)))
    }

    /// Past `max_running`, the least recently used running server that is not busy makes room;
    /// past the starting server's own `max_processes`, the least recently used of its kind.
    fn pick_eviction(
        &self,
        slots: &mut HashMap<ServerKey, Slot>,
        starting: &ServerKey,
    ) -> Option<Arc<Server>> {
        let live = |s: &Slot| matches!(s.state, SlotState::Running(_) | SlotState::Starting(_));
        let running = slots.values().filter(|s| live(s)).count();
        let same_kind = slots
            .iter()
            .filter(|(k, s)| k.server == starting.server && live(s))
            .count();
        let kind_cap = slots
            .get(starting)
            .and_then(|s| s.cfg.max_processes)
            .map(|m| m.max(1));
        let over_kind = kind_cap.is_some_and(|cap| same_kind > cap);
        if running <= self.inner.config.max_running && !over_kind {
            return None;
        }
        let victim_key = slots
            .iter()
            .filter(|(k, s)| {
                *k != starting
                    && (!over_kind || k.server == starting.server)
                    && matches!(&s.state, SlotState::Running(srv) if !srv.is_busy())
            })
            .min_by_key(|(_, s)| s.last_used)
            .map(|(k, _)| k.clone())?;
        let slot = slots.get_mut(&victim_key)?;
        match std::mem::replace(&mut slot.state, SlotState::Idle) {
            SlotState::Running(s) => {
                tracing::debug!(server = %victim_key.server, root = %victim_key.root.display(), "evicting least recently used server");
                Some(s)
            }
            other => {
                slot.state = other;
                None
            }
        }
    }

    /// After a timeout: is the server alive but slow, or hung? A hung server is killed, so the
    /// next call restarts it instead of timing out again. Busy is not hung: a server that does
    /// not answer the probe but computed meanwhile (pyright in its first analysis of a large
    /// project, on a loaded machine) is left alone; only one that neither answers nor computes
    /// is killed. Computing is a share of the probe's wait ([`computed_meanwhile`]), not any
    /// CPU time at all: a hung server's other threads still tick now and then, and one starved
    /// on a loaded machine may only now be reading what hung it.
    fn spawn_probe(&self, key: ServerKey, server: Arc<Server>) {
        let timeout = self
            .inner
            .config
            .request_timeout
            .min(Duration::from_secs(3));
        // Taken before returning, so the caller's next check waits for the verdict.
        let Ok(guard) = server.health.clone().try_lock_owned() else {
            return;
        };
        tokio::spawn(async move {
            let _guard = guard;
            let began = Instant::now();
            let before = process::group_cpu_ticks(server.pgid());
            if server.is_alive() && !server.probe(timeout).await {
                let after = process::group_cpu_ticks(server.pgid());
                if let (Some(b), Some(a)) = (before, after)
                    && computed_meanwhile(a.saturating_sub(b), began.elapsed())
                {
                    tracing::info!(server = %key.server, root = %key.root.display(), ticks = a - b, "server does not answer but is computing; left running");
                    return;
                }
                tracing::warn!(server = %key.server, root = %key.root.display(), "server neither answers nor computes; killing it");
                server.kill();
            }
        });
    }

    fn ensure_maintenance(&self) {
        if self.inner.maintenance_started.swap(true, Ordering::SeqCst) {
            return;
        }
        let weak = Arc::downgrade(&self.inner);
        let every = self.inner.config.maintenance_interval;
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                if inner.closed.load(Ordering::SeqCst) {
                    return;
                }
                Pool {
                    inner,
                    _owner: None,
                }
                .maintain()
                .await;
            }
        });
    }

    /// One maintenance pass: close documents no caller asked about for
    /// [`PoolConfig::document_idle_timeout`], stop idle servers, restart servers over the
    /// memory limit.
    pub async fn maintain(&self) {
        let cfg = &self.inner.config;
        let now = Instant::now();
        let mut to_stop = Vec::new();
        {
            let mut slots = self.slots();
            for (key, slot) in slots.iter_mut() {
                let SlotState::Running(server) = &slot.state else {
                    continue;
                };
                if !server.is_alive() || server.is_busy() {
                    continue;
                }
                if let Some(idle) = cfg.document_idle_timeout {
                    server.close_idle(idle);
                }
                let idle = now.saturating_duration_since(slot.last_used) >= cfg.idle_timeout;
                let over_memory = cfg.memory_limit_mb.is_some_and(|limit| {
                    process::group_rss_kib(server.pgid()).is_some_and(|kib| kib / 1024 > limit)
                });
                if idle || over_memory {
                    tracing::info!(server = %key.server, root = %key.root.display(), idle, over_memory, "stopping server");
                    if let SlotState::Running(s) =
                        std::mem::replace(&mut slot.state, SlotState::Idle)
                    {
                        to_stop.push((key.clone(), s, over_memory));
                    }
                }
            }
        }
        let grace = cfg.shutdown_grace;
        for (key, server, restart) in to_stop {
            server.shutdown(grace).await;
            if restart {
                // Restarted right away so the next check finds it warm.
                let deadline = Instant::now() + cfg.startup_timeout;
                let pool = self.background();
                tokio::spawn(async move {
                    let _ = pool.get_server(&key, deadline).await;
                });
            }
        }
    }
}

pub(crate) struct BusyGuard<'a>(&'a Server);

impl<'a> BusyGuard<'a> {
    pub(crate) fn new(server: &'a Server) -> Self {
        server.busy.fetch_add(1, Ordering::SeqCst);
        Self(server)
    }
}

impl Drop for BusyGuard<'_> {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether a server that did not answer a probe computed while it waited: `ticks` of CPU time
/// (10 ms each, see [`process::group_cpu_ticks`]) over `waited`. At least a fiftieth of one
/// core and two ticks: a busy server on a machine loaded fifty times over its cores still gets
/// that, while one tick may be the rounding of a few microseconds.
pub(crate) fn computed_meanwhile(ticks: u64, waited: Duration) -> bool {
    const TICK_MS: u128 = 10;
    ticks >= 2 && u128::from(ticks) * TICK_MS * 50 >= waited.as_millis()
}

fn backoff(cfg: &PoolConfig, crashes: u32) -> Duration {
    let exp = crashes.saturating_sub(1).min(10);
    cfg.restart_backoff
        .saturating_mul(1u32 << exp)
        .min(Duration::from_secs(30))
}

fn record_crash(cfg: &PoolConfig, slot: &mut Slot, reason: String) {
    slot.crashes += 1;
    slot.last_crash = Some(Instant::now());
    slot.last_error = Some(reason);
    slot.state = if slot.crashes >= cfg.max_crashes {
        SlotState::Broken {
            since: Instant::now(),
        }
    } else {
        SlotState::Idle
    };
}

fn finish_start(
    pool: Weak<Inner>,
    key: &ServerKey,
    generation: u64,
    res: Result<Arc<Server>, LspError>,
    tx: watch::Sender<StartResult>,
) {
    let Some(inner) = pool.upgrade() else {
        if let Ok(server) = &res {
            server.kill();
        }
        return;
    };
    let closed = inner.closed.load(Ordering::SeqCst);
    {
        let mut slots = inner.slots.lock().unwrap_or_else(|e| e.into_inner());
        match slots.get_mut(key) {
            Some(slot) if slot.generation == generation && !closed => match &res {
                Ok(server) => slot.state = SlotState::Running(server.clone()),
                Err(e) => {
                    tracing::warn!(server = %key.server, root = %key.root.display(), "start failed: {e}");
                    if matches!(
                        e,
                        LspError::CommandNotFound { .. }
                            | LspError::Spawn { .. }
                            | LspError::Refused { .. }
                    ) {
                        // Not a crash: nothing ran. Reported to the caller, tried again next time.
                        slot.state = SlotState::Idle;
                        slot.last_error = Some(e.to_string());
                    } else {
                        record_crash(&inner.config, slot, e.to_string());
                    }
                }
            },
            _ => {
                if let Ok(server) = &res {
                    server.kill();
                }
            }
        }
    }
    let res = if closed {
        if let Ok(server) = &res {
            server.kill();
        }
        Err(LspError::PoolClosed)
    } else {
        res
    };
    let _ = tx.send(Some(res));
}

impl Inner {
    /// Drops the watcher: notify's thread ends, then the batch task.
    fn stop_watching(&self) {
        let w = self
            .watcher
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        drop(w);
    }
}

/// The pool's watcher, started on first use (`None` when watching is off or it cannot start:
/// logged, and the stat check of open documents on every call remains).
fn pool_watcher(inner: &Arc<Inner>) -> Option<Arc<Watcher>> {
    if !inner.config.watch {
        return None;
    }
    let mut slot = inner.watcher.lock().unwrap_or_else(|e| e.into_inner());
    // Under the lock: `shutdown` sets `closed` before taking the watcher out, so none is
    // started after it.
    if inner.closed.load(Ordering::SeqCst) {
        return None;
    }
    if slot.is_none() {
        let weak = Arc::downgrade(inner);
        match Watcher::start(inner.config.watch_debounce, move |changes| {
            dispatch_disk_changes(&weak, &changes)
        }) {
            Ok(w) => *slot = Some(w),
            Err(e) => tracing::warn!("file watcher not started: {e}"),
        }
    }
    slot.clone()
}

/// Hands one batch of disk changes to every running server whose root it concerns, and waits
/// (bounded) until each has received it, so that [`Pool::disk_batches`] counts batches the
/// servers have. Runs on a blocking thread of the pool's runtime. False once the pool is gone
/// or closed (the watcher's task then ends).
fn dispatch_disk_changes(pool: &Weak<Inner>, changes: &[(PathBuf, watcher::Change)]) -> bool {
    let Some(inner) = pool.upgrade() else {
        return false;
    };
    if inner.closed.load(Ordering::SeqCst) {
        return false;
    }
    let servers: Vec<Arc<Server>> = inner
        .slots
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .values()
        .filter_map(|slot| match &slot.state {
            SlotState::Running(s) if s.is_alive() => Some(Arc::clone(s)),
            _ => None,
        })
        .collect();
    let mut told = Vec::new();
    for server in servers {
        let mine: Vec<(PathBuf, watcher::Change)> = changes
            .iter()
            .filter(|(p, _)| watcher::concerns(server.config(), &server.root, p))
            .cloned()
            .collect();
        if mine.is_empty() {
            continue;
        }
        tracing::debug!(server = %server.id, root = %server.root.display(), files = mine.len(), "changes on disk");
        match server.apply_watched(&mine) {
            Ok(()) => told.push(server),
            Err(e) => tracing::debug!(server = %server.id, "disk changes not delivered: {e}"),
        }
    }
    if !told.is_empty()
        && let Ok(handle) = tokio::runtime::Handle::try_current()
    {
        // A request's answer follows every notification sent before it; a hung server holds
        // the next batch back at most this long (its events are coalesced meanwhile).
        let timeout = inner.config.request_timeout.min(Duration::from_secs(2));
        handle.block_on(futures::future::join_all(
            told.iter().map(|s| s.probe(timeout)),
        ));
    }
    inner.disk_batches.send_modify(|n| *n = n.wrapping_add(1));
    true
}

impl Drop for Inner {
    fn drop(&mut self) {
        // No orphans even without `shutdown()`: kill every group we started.
        let slots = self.slots.get_mut().unwrap_or_else(|e| e.into_inner());
        for slot in slots.values() {
            if let SlotState::Running(s) = &slot.state {
                s.kill();
            }
        }
        // Starting servers too: their guards live in start tasks that may never be dropped.
        self.groups.kill_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A push server's other files are waited for up to the bound whatever the wait says
    /// (they come with the verdict); a pull server's by the wait, none with no likely file.
    #[test]
    fn push_servers_other_files_are_always_waited_for() {
        let now = Instant::now();
        let bound = now + Duration::from_secs(30);
        let plan = |pulls, likely| {
            Some(OthersPlan {
                pulls,
                likely,
                unchecked: 0,
                bounded: false,
            })
        };
        let second = Duration::from_secs(1);
        for wait in [
            OthersBy::Likely(second),
            OthersBy::For(second),
            OthersBy::Deadline,
        ] {
            assert_eq!(
                others_deadline(wait, plan(0, 0), bound, now),
                (bound, false)
            );
        }
        assert_eq!(
            others_deadline(OthersBy::Likely(second), plan(5, 0), bound, now),
            (now, false)
        );
        assert_eq!(
            others_deadline(OthersBy::Likely(second), plan(5, 2), bound, now),
            (now + second, true)
        );
        assert_eq!(
            others_deadline(OthersBy::For(second), plan(5, 0), bound, now),
            (now + second, false)
        );
        assert_eq!(
            others_deadline(OthersBy::Deadline, plan(5, 2), bound, now),
            (bound, false)
        );
    }

    #[test]
    fn computing_is_a_share_of_the_probes_wait_not_any_tick() {
        let two_s = Duration::from_secs(2);
        // A fiftieth of 2 s is 40 ms: four ticks.
        assert!(!computed_meanwhile(0, two_s));
        assert!(!computed_meanwhile(1, two_s));
        assert!(!computed_meanwhile(3, two_s));
        assert!(computed_meanwhile(4, two_s));
        assert!(computed_meanwhile(200, two_s));
        // Whatever the wait, one tick may be rounding.
        assert!(!computed_meanwhile(1, Duration::from_millis(100)));
        assert!(computed_meanwhile(2, Duration::from_millis(100)));
        assert!(!computed_meanwhile(5, Duration::from_secs(3)));
        assert!(computed_meanwhile(6, Duration::from_secs(3)));
    }
}
