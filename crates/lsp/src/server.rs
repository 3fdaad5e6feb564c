//! One running language server: its process, the async-lsp main loop, document sync, and the
//! per-strategy logic that decides when a file's diagnostics are settled.
//!
//! The main loop's router only records what the server says (publishes, progress, status,
//! registrations) in [`State`] and bumps a `watch` counter; waiters re-check their condition on
//! every bump. Nothing here sleeps for a fixed time: every wait is on a server event, bounded by
//! the caller's deadline, except the documented quiet window of the unversioned strategy.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant, SystemTime};

use async_lsp::lsp_types::notification::{
    Cancel, DidChangeConfiguration, DidChangeTextDocument, DidChangeWatchedFiles,
    DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit, Initialized,
};
use async_lsp::lsp_types::request::{Request, Shutdown};
use async_lsp::lsp_types::{self, NumberOrString, Url};
use async_lsp::panic::CatchUnwindLayer;
use async_lsp::{ErrorCode, MainLoop, ServerSocket};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};
use tower::ServiceBuilder;

use crate::LspError;
use crate::diagnostics::{FileDiagnostics, convert, each_diagnostic};
use crate::transport::{FrameReader, StdinWriter, sanitize};
use lspedit_process::{self as process, GroupGuard, Groups, StderrTail};
use lspedit_servers::{ServerConfig, Strategy};

mod router;

/// Event that stops the main loop (after flushing what is queued, e.g. `exit`).
struct Stop;

/// `initialize` with untyped params and result: we build the params as JSON and need nothing
/// typed back, so a server's unusual capability shapes can never fail deserialization.
enum RawInitialize {}
impl Request for RawInitialize {
    type Params = Value;
    type Result = Value;
    const METHOD: &'static str = "initialize";
}

/// `textDocument/diagnostic`, parsed leniently by hand.
enum RawDocumentDiagnostic {}
impl Request for RawDocumentDiagnostic {
    type Params = Value;
    type Result = Value;
    const METHOD: &'static str = "textDocument/diagnostic";
}

/// `workspace/executeCommand`, untyped (tsserver's answers through typescript-language-server,
/// see `tsserver.rs`).
enum RawExecuteCommand {}
impl Request for RawExecuteCommand {
    type Params = Value;
    type Result = Value;
    const METHOD: &'static str = "workspace/executeCommand";
}

/// `textDocument/hover`, untyped; only its arrival matters (see `hover_barrier`).
enum RawHover {}
impl Request for RawHover {
    type Params = Value;
    type Result = Value;
    const METHOD: &'static str = "textDocument/hover";
}

/// A request no server implements. Servers handle messages in order, so its answer (an error,
/// MethodNotFound) proves that everything the server emitted before has been received.
enum Barrier {}
impl Request for Barrier {
    type Params = Value;
    type Result = Value;
    const METHOD: &'static str = "lspedit/barrier";
}

/// When the host sent our `didSave` of a document on: the `seq` its word arrived at, and the
/// check counts then (the progress of our check comes after it).
#[derive(Debug, Clone, Copy)]
struct SaveStart {
    seq: u64,
    check_begins: u64,
    check_failures: u64,
}

#[derive(Debug, Clone)]
struct Published {
    version: Option<i32>,
    diagnostics: Vec<lsp_types::Diagnostic>,
    seq: u64,
    at: Instant,
}

/// What the server told us, updated by the main loop.
#[derive(Debug, Default)]
struct State {
    /// Bumped on every notification; orders publishes relative to our writes.
    seq: u64,
    publishes: HashMap<Url, Published>,
    /// Through the host: per document, what the server last published when the host last said
    /// so ([`crate::host::PUBLISHED`]), with the `seq` its word arrived at. Never a publish that
    /// follows a write; see [`State::latest`].
    relayed: HashMap<Url, (u64, Vec<lsp_types::Diagnostic>)>,
    /// Through the host: per document, the `seq` at which the host last said another client's
    /// text replaced ours in the server ([`crate::host::TEXT_REPLACED`]).
    replaced: HashMap<Url, u64>,
    /// Through the host: per document, when the host last sent our `didSave` on
    /// ([`crate::host::SAVE_STARTED`]).
    save_started: HashMap<Url, SaveStart>,
    /// Active `$/progress` tokens of the on-save check.
    check_active: HashSet<String>,
    /// Number of on-save checks begun.
    check_begins: u64,
    /// Active `$/progress` tokens other than the on-save check's (project loading, indexing).
    loading: HashSet<String>,
    /// Bumped on every notification of any kind: the server is doing something.
    heard: u64,
    /// What the latest `$/progress` said the server is doing: the title of the latest begin,
    /// the message of the latest begin or report.
    doing: (Option<String>, Option<String>),
    quiescent: Option<bool>,
    /// The latest `experimental/serverStatus` says the last on-save check could not run (its
    /// message holds the declaration's `check_failed_status`).
    check_failed: bool,
    /// Number of `experimental/serverStatus` notifications saying so.
    check_failures: u64,
    /// A `window/logMessage` matching the declaration's `loaded_log` was seen.
    loaded_log_seen: bool,
    registrations: HashSet<String>,
    /// Why the connection is gone, once it is.
    dead: Option<String>,
    /// Exit status, once the process exited.
    exited: Option<String>,
    /// The edits of the server's `workspace/applyEdit` requests, in arrival order, with the
    /// `seq` they arrived at: collected for the caller (see `requests.rs`), never applied here.
    applied_edits: Vec<(u64, Value)>,
}

impl State {
    /// The server's latest word on `uri`'s diagnostics: the newer of our latest publish and
    /// what the host relayed (`None`: the server never published for it). A server that
    /// publishes nothing when a text's diagnostics are unchanged leaves this as its result.
    fn latest(&self, uri: &Url) -> Option<Vec<lsp_types::Diagnostic>> {
        let published = self.publishes.get(uri).map(|p| (p.seq, &p.diagnostics));
        let relayed = self.relayed.get(uri).map(|(seq, d)| (*seq, d));
        match (published, relayed) {
            (Some(p), Some(r)) => Some(if p.0 > r.0 { p.1 } else { r.1 }.clone()),
            (p, r) => p.or(r).map(|(_, d)| d.clone()),
        }
    }
}

struct Shared {
    name: String,
    cfg: Arc<ServerConfig>,
    root_uri: Url,
    state: Mutex<State>,
    changed: watch::Sender<u64>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a panic elsewhere while holding it; the state stays usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    fn mark_dead(&self, reason: String) {
        {
            let mut st = self.lock();
            if st.dead.is_none() {
                tracing::debug!(server = %self.name, %reason, "connection ended");
                st.dead = Some(reason);
            }
        }
        self.bump();
    }

    fn mark_exited(&self, status: String) {
        {
            let mut st = self.lock();
            st.exited = Some(status.clone());
            if st.dead.is_none() {
                st.dead = Some(format!("process exited ({status})"));
            }
        }
        self.bump();
    }
}

/// One open document as the server knows it.
#[derive(Debug)]
pub(crate) struct Doc {
    opened: bool,
    version: i32,
    /// Shared with the caller that sent it (and with [`Synced`]): one allocation per text.
    text: Arc<str>,
    language: String,
    settled: Option<Settled>,
    /// The file on disk when its text was last sent, to notice other programs' writes.
    disk: Option<DiskStamp>,
    /// When a caller last asked for this document's diagnostics (not the pool itself, pulling
    /// other files for a change): idle documents are closed ([`Server::close_idle`]).
    asked: Instant,
}

/// Modification time and size of a file: what the per-call stat check compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DiskStamp {
    modified: Option<SystemTime>,
    len: u64,
}

impl DiskStamp {
    fn of(path: &Path) -> Option<DiskStamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(DiskStamp {
            modified: m.modified().ok(),
            len: m.len(),
        })
    }

    /// The file's stamp when the disk holds exactly `text` (the same stamp before and after
    /// reading it, so no write landed in between); `None` when it holds anything else.
    fn holding(path: &Path, text: &str) -> Option<DiskStamp> {
        let before = DiskStamp::of(path)?;
        let same = std::fs::read(path).is_ok_and(|b| b == text.as_bytes());
        (same && DiskStamp::of(path) == Some(before)).then_some(before)
    }
}

#[derive(Debug, Clone)]
struct Settled {
    version: i32,
    /// The server root's epoch the result was computed in: reused only while it is current.
    epoch: u64,
    lsp: Vec<lsp_types::Diagnostic>,
    result: FileDiagnostics,
}

/// A document whose new text has been sent, locked until its diagnostics are settled.
pub(crate) struct Synced {
    pub(crate) path: PathBuf,
    uri: Url,
    text: Arc<str>,
    doc: tokio::sync::OwnedMutexGuard<Doc>,
    seq0: u64,
    t0: Instant,
    /// The cached result, valid because nothing in the root changed since it was computed.
    cached: Option<FileDiagnostics>,
    /// The text was sent in this pass (else the server has had it, and only another file
    /// changed).
    sent: bool,
}

impl Synced {
    /// A caller asked for this document: it is not idle.
    pub(crate) fn mark_asked(&mut self) {
        self.doc.asked = Instant::now();
    }
}

/// How a wait ended.
struct Outcome {
    /// `None`: the server sent nothing new, the previous result holds.
    diagnostics: Option<Vec<lsp_types::Diagnostic>>,
    /// When the server's first answer for this version arrived.
    answered_at: Option<Instant>,
}

/// Sends `$/cancelRequest` for a request whose answer is no longer awaited.
struct CancelOnDrop<'a> {
    socket: &'a ServerSocket,
    id: Option<i32>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id {
            let _ = self.socket.notify::<Cancel>(lsp_types::CancelParams {
                id: NumberOrString::Number(id),
            });
        }
    }
}

/// A running server process with its connection.
pub(crate) struct Server {
    pub(crate) id: String,
    pub(crate) root: PathBuf,
    cfg: Arc<ServerConfig>,
    socket: ServerSocket,
    /// Mirror of async-lsp's outgoing request counter (see [`Server::request`]).
    next_id: Mutex<i32>,
    shared: Arc<Shared>,
    docs: Mutex<HashMap<Url, Arc<tokio::sync::Mutex<Doc>>>>,
    /// The text the server holds for each open document (what [`Doc::text`] says, readable
    /// without the document's lock): a request about a document the server already holds
    /// as asked does not wait for a check of it in progress.
    held: Mutex<HashMap<Url, Arc<str>>>,
    link: Link,
    started: Instant,
    /// Checks in flight; maintenance only stops servers at zero.
    pub(crate) busy: AtomicUsize,
    /// Held by a liveness probe after a timeout; checks wait for it.
    pub(crate) health: Arc<tokio::sync::Mutex<()>>,
    /// Push-unversioned: recent delays from the fence to the first publish.
    publish_delays: Mutex<PublishDelays>,
    /// Bumped by every change of a document's text (a write through lspedit, a change seen on
    /// disk): a cached result is reused only within the epoch it was computed in, since a
    /// change to one file can change every other file's diagnostics.
    epoch: AtomicU64,
    /// True once the server answered a check: alive is not warm (it may still be indexing).
    answered: AtomicBool,
    /// The `capabilities` of the server's `initialize` answer.
    capabilities: std::sync::OnceLock<Value>,
    /// Push servers: the publishes as the last check pass saw them at its end, the "before"
    /// of the next pass's other files, so that what was published between passes (a check
    /// that went on past its caller) still counts as changed.
    given: Mutex<Option<HashMap<PathBuf, Vec<lsp_types::Diagnostic>>>>,
    /// Held for writing while a check pass shows the server changed files' previous texts (the
    /// "before" of other files, `Pool::check_others`); every request about the files holds it
    /// for reading ([`Server::current_view`]), so none is answered from an older text.
    view: Arc<tokio::sync::RwLock<()>>,
    /// Requests waiting for [`Server::view`]: a pass showing previous texts stops for them.
    view_wanted: AtomicUsize,
    view_notify: tokio::sync::Notify,
}

/// A server whose view of the workspace's files is current while this is held: a check pass
/// does not show it older texts meanwhile ([`Server::current_view`]). Requests hold one through
/// their answer.
pub(crate) struct Viewed {
    server: Arc<Server>,
    _view: tokio::sync::OwnedRwLockReadGuard<()>,
}

impl Viewed {
    pub(crate) async fn of(server: Arc<Server>, deadline: Instant) -> Result<Viewed, LspError> {
        let view = server.current_view(deadline).await?;
        Ok(Viewed {
            server,
            _view: view,
        })
    }
}

impl std::ops::Deref for Viewed {
    type Target = Arc<Server>;

    fn deref(&self) -> &Arc<Server> {
        &self.server
    }
}

/// Where the server runs.
enum Link {
    /// A child of this process: its process group and the tail of its stderr.
    Local {
        guard: GroupGuard,
        stderr: Arc<Mutex<StderrTail>>,
    },
    /// In the server host (`crate::host`), shared with other clients; the connection is this
    /// client's only. `pgid` is the server's process group there.
    Hosted { pgid: u32 },
}

/// Tells the host our check on save of a document ended ([`crate::host::SAVE_ENDED`]).
enum HostSaveEnded {}
impl lsp_types::notification::Notification for HostSaveEnded {
    type Params = Value;
    const METHOD: &'static str = crate::host::SAVE_ENDED;
}

/// Through the host: our check on save of `uri` runs (or may, once the host answers) until
/// this is dropped, whatever way the check ends; then the host lets other clients' saves of
/// the document through again.
struct SaveTurn<'a> {
    server: &'a Server,
    uri: &'a Url,
}

impl Drop for SaveTurn<'_> {
    fn drop(&mut self) {
        let _ = self
            .server
            .notify::<HostSaveEnded>(json!({ "uri": self.uri.as_str() }));
    }
}

/// Asks the host to kill the server (a client found it hung, or over its memory limit).
enum HostKill {}
impl lsp_types::notification::Notification for HostKill {
    type Params = ();
    const METHOD: &'static str = "$/lspedit/kill";
}

/// Where a pool runs its servers: in the host of `workspace`, when one can be reached.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(unix),
    allow(
        dead_code,
        reason = "no host outside Unix: a link is only answered `Unsupported`"
    )
)]
pub(crate) struct HostLink {
    pub(crate) config: lspedit_servers::HostConfig,
    pub(crate) workspace: PathBuf,
}

/// The last few delays between a change's fence and the server's first publish for it, so the
/// "no publish = previous result holds" window follows how fast the server is right now
/// instead of a constant tuned on an idle machine.
#[derive(Debug, Default)]
struct PublishDelays {
    recent: std::collections::VecDeque<Duration>,
}

impl PublishDelays {
    const KEPT: usize = 8;
    const STRETCH: u32 = 3;
    const COLD_FACTOR: u32 = 5;

    fn record(&mut self, d: Duration) {
        if self.recent.len() == Self::KEPT {
            self.recent.pop_front();
        }
        self.recent.push_back(d);
    }

    /// How long to wait for a first publish before the previous result holds.
    fn hold(&self, floor: Duration) -> Duration {
        match self.recent.iter().max() {
            Some(slowest) => floor.max(*slowest * Self::STRETCH),
            None => floor * Self::COLD_FACTOR,
        }
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("id", &self.id)
            .field("root", &self.root)
            .field("pgid", &self.pgid())
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Starts and initializes a server: attached in the host when `host` is given and the
    /// host takes it, else spawned here. `startup_timeout` bounds `initialize`.
    pub(crate) async fn start(
        launch: lspedit_servers::launch::Launch,
        root: PathBuf,
        startup_timeout: Duration,
        groups: &Arc<Groups>,
        host: Option<&HostLink>,
    ) -> Result<Arc<Server>, LspError> {
        let cfg = launch.cfg.clone();
        let id = cfg.id.clone();
        let root_uri = Url::from_directory_path(&root)
            .map_err(|()| LspError::BadPath { path: root.clone() })?;
        let params = initialize_params(&cfg, &root, &root_uri);
        let hosted = match host {
            Some(link) => attach_in_host(link, &launch, &root, &params).await,
            None => None,
        };
        let (link, input, output, served, child): (Link, Input, Output, u64, _) = match hosted {
            Some((input, output, attached)) => (
                Link::Hosted {
                    pgid: attached.pgid,
                },
                input,
                output,
                attached.served,
                None,
            ),
            None => {
                let spawned = process::spawn(&id, launch.program(), &root, groups)
                    .map_err(|e| LspError::from_process(&id, e))?;
                (
                    Link::Local {
                        guard: spawned.guard,
                        stderr: spawned.stderr,
                    },
                    Box::new(spawned.stdout),
                    Box::new(spawned.stdin),
                    0,
                    Some(spawned.child),
                )
            }
        };
        let hosted = matches!(link, Link::Hosted { .. });
        let (changed, _) = watch::channel(0u64);
        let shared = Arc::new(Shared {
            name: id.clone(),
            cfg: cfg.clone(),
            root_uri: root_uri.clone(),
            state: Mutex::new(State::default()),
            changed,
        });

        let (frames_tx, frames_rx) = mpsc::channel(256);
        let name = id.clone();
        tokio::spawn(async move { sanitize(&name, input, frames_tx).await });

        let router_state = shared.clone();
        let guard = router::CatchNotificationUnwindLayer { server: id.clone() };
        let (mainloop, socket) = MainLoop::new_client(move |_| {
            // A panic in a handler never unwinds through the main loop: a request's is
            // answered as an internal error, a notification's drops the notification.
            ServiceBuilder::new()
                .layer(CatchUnwindLayer::default())
                .layer(guard)
                .service(router::router(router_state))
        });
        let loop_shared = shared.clone();
        // async-lsp's loop panics when every socket is gone while it runs; this clone lives
        // as long as the loop, which ends when the process's stdout closes (it is killed when
        // the `Server` is dropped).
        let loop_socket = socket.clone();
        tokio::spawn(async move {
            let _socket = loop_socket;
            let res = mainloop
                .run_buffered(FrameReader::new(frames_rx), StdinWriter(output))
                .await;
            loop_shared.mark_dead(match res {
                Ok(()) => "connection closed".to_owned(),
                Err(e) => format!("connection failed: {e}"),
            });
            if hosted {
                // The connection was the whole of it here (the host runs the process).
                loop_shared.mark_exited("detached from the server host".to_owned());
            }
        });
        if let Some(mut child) = child {
            let wait_shared = shared.clone();
            tokio::spawn(async move {
                let status = match child.wait().await {
                    Ok(s) => s.to_string(),
                    Err(e) => format!("wait failed: {e}"),
                };
                wait_shared.mark_exited(status);
            });
        }

        let server = Arc::new(Server {
            id,
            root: root.clone(),
            cfg: cfg.clone(),
            socket,
            next_id: Mutex::new(0),
            shared,
            docs: Mutex::new(HashMap::new()),
            held: Mutex::new(HashMap::new()),
            link,
            started: Instant::now(),
            busy: AtomicUsize::new(0),
            health: Arc::new(tokio::sync::Mutex::new(())),
            publish_delays: Mutex::new(PublishDelays::default()),
            given: Mutex::new(None),
            epoch: AtomicU64::new(0),
            // A server the host has served other clients with has loaded its project.
            answered: AtomicBool::new(served > 0),
            capabilities: std::sync::OnceLock::new(),
            view: Arc::default(),
            view_wanted: AtomicUsize::new(0),
            view_notify: tokio::sync::Notify::new(),
        });

        let deadline = Instant::now() + startup_timeout;
        match server
            .request::<RawInitialize>(params, deadline, "initialize")
            .await
        {
            Ok(result) => {
                let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
                let _ = server.capabilities.set(caps);
            }
            Err(e) => {
                server.abandon();
                return Err(e);
            }
        }
        server.notify::<Initialized>(lsp_types::InitializedParams {})?;
        if !cfg.settings.is_null() {
            server.notify::<DidChangeConfiguration>(lsp_types::DidChangeConfigurationParams {
                settings: cfg.settings.clone(),
            })?;
        }
        tracing::debug!(server = %server.id, root = %root.display(), "initialized");
        Ok(server)
    }

    pub(crate) fn pgid(&self) -> u32 {
        match &self.link {
            Link::Local { guard, .. } => guard.pgid(),
            Link::Hosted { pgid } => *pgid,
        }
    }

    /// True when the server runs in the host, shared with other clients.
    pub(crate) fn is_hosted(&self) -> bool {
        matches!(self.link, Link::Hosted { .. })
    }

    /// Gives the server up at once: a local one is killed; from a hosted one this client
    /// detaches (others may be using it).
    fn abandon(&self) {
        match &self.link {
            Link::Local { guard, .. } => guard.kill(),
            Link::Hosted { .. } => {
                let _ = self.socket.emit(Stop);
            }
        }
    }

    pub(crate) fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    pub(crate) fn is_alive(&self) -> bool {
        self.shared.lock().dead.is_none()
    }

    /// The server's `capabilities` from its `initialize` answer (`null` before it).
    pub(crate) fn capabilities(&self) -> &Value {
        static NONE: Value = Value::Null;
        self.capabilities.get().unwrap_or(&NONE)
    }

    /// The position encoding the server chose (`capabilities.positionEncoding`; UTF-16 when it
    /// says nothing).
    pub(crate) fn encoding(&self) -> crate::PositionEncoding {
        crate::PositionEncoding::from_kind(
            self.capabilities()
                .get("positionEncoding")
                .and_then(Value::as_str),
        )
    }

    pub(crate) fn strategy(&self) -> Strategy {
        self.cfg.diagnostics.strategy
    }

    /// How many notifications the server has sent (of any kind), and what its latest
    /// `$/progress` said it is doing: signs of work for the wait past a check's deadline
    /// (`crate::verdict`).
    pub(crate) fn heard(&self) -> (u64, Option<String>) {
        let st = self.shared.lock();
        let doing = match &st.doing {
            (Some(title), Some(message)) => Some(format!("{title}: {message}")),
            (Some(text), None) | (None, Some(text)) => Some(text.clone()),
            (None, None) => None,
        };
        (st.heard, doing)
    }

    /// True once the server answered a check (see [`Server::answered`]).
    pub(crate) fn has_answered(&self) -> bool {
        self.answered.load(Ordering::SeqCst)
    }

    /// The current epoch (see the field): results computed within it are current.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Invalidates every cached result of this root.
    fn bump_epoch(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn death_reason(&self) -> Option<String> {
        self.shared.lock().dead.clone()
    }

    /// The latest non-empty publish of every file, as (path, raw diagnostics), for files with a
    /// `file:` URI. Servers such as rust-analyzer publish for files nobody opened.
    pub(crate) fn published(&self) -> Vec<(PathBuf, Vec<lsp_types::Diagnostic>)> {
        self.shared
            .lock()
            .publishes
            .iter()
            .filter(|(_, p)| !p.diagnostics.is_empty())
            .filter_map(|(uri, p)| Some((uri.to_file_path().ok()?, p.diagnostics.clone())))
            .collect()
    }

    /// The latest publish of every file (empty ones included), keyed by path.
    pub(crate) fn publish_snapshot(&self) -> HashMap<PathBuf, Vec<lsp_types::Diagnostic>> {
        self.shared
            .lock()
            .publishes
            .iter()
            .filter_map(|(uri, p)| Some((uri.to_file_path().ok()?, p.diagnostics.clone())))
            .collect()
    }

    /// Whether `path` is open in the server (a document being checked right now counts as
    /// open).
    pub(crate) fn is_open(&self, path: &Path) -> bool {
        let Ok(uri) = Url::from_file_path(path) else {
            return false;
        };
        self.open_doc(&uri)
            .is_some_and(|d| d.try_lock().map_or(true, |d| d.opened))
    }

    /// The document of `uri`, if lspedit ever sent it.
    fn open_doc(&self, uri: &Url) -> Option<Arc<tokio::sync::Mutex<Doc>>> {
        self.docs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(uri)
            .cloned()
    }

    /// The publishes as the previous check pass left them (see the field), or, before the
    /// first pass, as they are now.
    pub(crate) fn publishes_given(&self) -> HashMap<PathBuf, Vec<lsp_types::Diagnostic>> {
        let given = self.given.lock().map(|g| g.clone()).unwrap_or_default();
        given.unwrap_or_else(|| self.publish_snapshot())
    }

    /// Records what a check pass saw at its end ([`Server::publishes_given`]).
    pub(crate) fn set_publishes_given(&self, seen: HashMap<PathBuf, Vec<lsp_types::Diagnostic>>) {
        if let Ok(mut g) = self.given.lock() {
            *g = Some(seen);
        }
    }

    /// The open documents, copied out of the map so its lock is not held while each
    /// document's own lock is awaited.
    fn open_docs(&self) -> Vec<(Url, Arc<tokio::sync::Mutex<Doc>>)> {
        self.docs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(u, d)| (u.clone(), d.clone()))
            .collect()
    }

    /// The open documents other than `skip` with the text the server has and, when a result
    /// for that text is kept (of any epoch: the file's diagnostics as last known), their
    /// diagnostics: the "before" of a change's other files, with no request. A document being
    /// checked right now is left out.
    pub(crate) fn open_documents_settled(
        &self,
        skip: &HashSet<PathBuf>,
    ) -> Vec<(PathBuf, Arc<str>, Option<Vec<crate::Diagnostic>>)> {
        let docs = self.open_docs();
        let mut out = Vec::new();
        for (uri, doc) in docs {
            let Ok(path) = uri.to_file_path() else {
                continue;
            };
            if skip.contains(&path) {
                continue;
            }
            let Ok(doc) = doc.try_lock() else { continue };
            if doc.opened {
                let cached = doc
                    .settled
                    .as_ref()
                    .filter(|s| s.version == doc.version)
                    .map(|s| s.result.diagnostics.clone());
                out.push((path, Arc::clone(&doc.text), cached));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    pub(crate) fn config(&self) -> &ServerConfig {
        &self.cfg
    }

    pub(crate) fn open_documents(&self) -> usize {
        self.docs.lock().map(|d| d.len()).unwrap_or(0)
    }

    pub(crate) fn stderr_tail(&self, lines: usize) -> String {
        match &self.link {
            Link::Local { stderr, .. } => stderr.lock().map(|t| t.last(lines)).unwrap_or_default(),
            // The host keeps it; it never reaches a client.
            Link::Hosted { .. } => String::new(),
        }
    }

    /// Kills the process group at once (a hosted server by its host, which detaches every
    /// client; their pools start it again).
    pub(crate) fn kill(&self) {
        match &self.link {
            Link::Local { guard, .. } => guard.kill(),
            Link::Hosted { .. } => {
                let _ = self.socket.notify::<HostKill>(());
                let _ = self.socket.emit(Stop);
            }
        }
        self.shared.mark_dead("killed".to_owned());
    }

    fn died(&self) -> LspError {
        LspError::ServerDied {
            server: self.id.clone(),
            reason: self
                .death_reason()
                .unwrap_or_else(|| "connection lost".to_owned()),
            stderr_tail: self.stderr_tail(5),
        }
    }

    fn timeout(&self, stage: &'static str, since: Instant) -> LspError {
        LspError::Timeout {
            server: self.id.clone(),
            stage,
            waited: since.elapsed(),
        }
    }

    fn notify<N: lsp_types::notification::Notification>(
        &self,
        params: N::Params,
    ) -> Result<(), LspError> {
        self.socket.notify::<N>(params).map_err(|_| self.died())
    }

    /// Sends a request and waits for its answer until `deadline`; on timeout the request is
    /// cancelled with `$/cancelRequest`. Fails at once when the server dies.
    pub(crate) async fn request<R: Request>(
        &self,
        params: R::Params,
        deadline: Instant,
        stage: &'static str,
    ) -> Result<R::Result, LspError> {
        let since = Instant::now();
        let (id, mut fut) = {
            let mut next = self.next_id.lock().unwrap_or_else(|e| e.into_inner());
            let id = *next;
            *next += 1;
            let mut fut = Box::pin(self.socket.request::<R>(params));
            // async-lsp numbers outgoing requests 0, 1, 2, … in the order they are queued and
            // does not expose the number. The first poll queues the request; doing it under this
            // lock keeps our counter equal to its number, which `$/cancelRequest` must name.
            if let Poll::Ready(res) = fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
                return self.map_response::<R>(res);
            }
            (id, fut)
        };
        let mut changes = self.shared.changed.subscribe();
        // Cancels the request when this future is dropped before its answer (a check that was
        // superseded), as at the deadline.
        let mut cancel = CancelOnDrop {
            socket: &self.socket,
            id: Some(id),
        };
        let res = tokio::select! {
            res = &mut fut => self.map_response::<R>(res),
            () = tokio::time::sleep_until(deadline.into()) => {
                tracing::debug!(server = %self.id, method = R::METHOD, id, "request timed out; cancelled");
                return Err(self.timeout(stage, since));
            }
            () = self.wait_dead(&mut changes) => Err(self.died()),
        };
        cancel.id = None;
        res
    }

    fn map_response<R: Request>(
        &self,
        res: async_lsp::Result<R::Result>,
    ) -> Result<R::Result, LspError> {
        match res {
            Ok(v) => Ok(v),
            Err(async_lsp::Error::Response(e)) => Err(LspError::Request {
                server: self.id.clone(),
                method: R::METHOD,
                code: e.code.0,
                message: e.message,
            }),
            Err(async_lsp::Error::Deserialize(e)) => Err(LspError::Request {
                server: self.id.clone(),
                method: R::METHOD,
                code: ErrorCode::PARSE_ERROR.0,
                message: e.to_string(),
            }),
            Err(_) => Err(self.died()),
        }
    }

    async fn wait_dead(&self, changes: &mut watch::Receiver<u64>) {
        loop {
            changes.borrow_and_update();
            if self.shared.lock().dead.is_some() {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
        }
    }

    /// Waits until `pred` yields a value, the server dies (error), or `limit` passes (`None`).
    async fn wait_for<T>(
        &self,
        limit: Instant,
        mut pred: impl FnMut(&State) -> Option<T>,
    ) -> Result<Option<T>, LspError> {
        let mut changes = self.shared.changed.subscribe();
        loop {
            changes.borrow_and_update();
            {
                let st = self.shared.lock();
                if let Some(v) = pred(&st) {
                    return Ok(Some(v));
                }
                if st.dead.is_some() {
                    drop(st);
                    return Err(self.died());
                }
            }
            tokio::select! {
                res = changes.changed() => {
                    if res.is_err() {
                        return Err(self.died());
                    }
                }
                () = tokio::time::sleep_until(limit.into()) => return Ok(None),
            }
        }
    }

    /// Proves the server has emitted everything it emitted before this call.
    async fn barrier(&self, deadline: Instant) -> Result<(), LspError> {
        match self
            .request::<Barrier>(Value::Null, deadline, "barrier")
            .await
        {
            Ok(_) | Err(LspError::Request { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Liveness probe: true when the server answers a request within `timeout`.
    pub(crate) async fn probe(&self, timeout: Duration) -> bool {
        self.barrier(Instant::now() + timeout).await.is_ok()
    }

    fn doc(&self, uri: &Url, language: &str) -> Arc<tokio::sync::Mutex<Doc>> {
        let mut docs = self.docs.lock().unwrap_or_else(|e| e.into_inner());
        docs.entry(uri.clone())
            .or_insert_with(|| {
                Arc::new(tokio::sync::Mutex::new(Doc {
                    opened: false,
                    version: 0,
                    text: Arc::from(""),
                    language: language.to_owned(),
                    settled: None,
                    disk: None,
                    asked: Instant::now(),
                }))
            })
            .clone()
    }

    /// Sends `text` as the document's whole content (`didOpen` the first time, else a
    /// full-text `didChange` with the next version) and records the file's disk stamp.
    fn send_text(
        &self,
        doc: &mut Doc,
        path: &Path,
        uri: &Url,
        text: &Arc<str>,
    ) -> Result<(), LspError> {
        tracing::trace!(server = %self.id, %uri, version = doc.version + 1, "sync");
        // Versions only grow, also across a close and reopen: a publish for an older
        // incarnation of the document can never pass for the result of this text.
        doc.version += 1;
        if doc.opened {
            self.notify::<DidChangeTextDocument>(lsp_types::DidChangeTextDocumentParams {
                text_document: lsp_types::VersionedTextDocumentIdentifier {
                    uri: uri.clone(),
                    version: doc.version,
                },
                content_changes: vec![lsp_types::TextDocumentContentChangeEvent {
                    range: None,
                    range_length: None,
                    text: text.to_string(),
                }],
            })?;
        } else {
            self.notify::<DidOpenTextDocument>(lsp_types::DidOpenTextDocumentParams {
                text_document: lsp_types::TextDocumentItem {
                    uri: uri.clone(),
                    language_id: doc.language.clone(),
                    version: doc.version,
                    text: text.to_string(),
                },
            })?;
            doc.opened = true;
        }
        doc.text = Arc::clone(text);
        doc.disk = DiskStamp::of(path);
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(uri.clone(), Arc::clone(text));
        Ok(())
    }

    /// The text the server holds for `path` as an open document (the latest lspedit sent),
    /// `None` when it is not open.
    pub(crate) fn held_text(&self, path: &Path) -> Option<Arc<str>> {
        let uri = Url::from_file_path(path).ok()?;
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&uri)
            .cloned()
    }

    /// Whether the server holds exactly `text` as `uri`'s open document.
    fn holds(&self, uri: &Url, text: &str) -> bool {
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(uri)
            .is_some_and(|t| &**t == text)
    }

    /// Makes the server hold `text` as `path`'s document before a request about it (`didOpen`
    /// the first time, `didChange` when the text differs; a change voids the root's cached
    /// answers). Waits for a check of the document in progress.
    pub(crate) async fn sync_for_request(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Url, LspError> {
        let since = Instant::now();
        let uri = Url::from_file_path(path).map_err(|()| LspError::BadPath {
            path: path.to_owned(),
        })?;
        let language = self.cfg.language_for(path).unwrap_or("plaintext");
        let doc = self.doc(&uri, language);
        // The server holds this text already: nothing to send, so nothing to wait for (a check
        // of the document in progress holds its lock until the server's verdict, seconds on a
        // real project, and a lookup right after an edit would queue behind it). The lock is
        // no guarantee past this call either way: it is released before the request is sent.
        if self.holds(&uri, text) {
            if let Ok(mut d) = doc.try_lock() {
                d.asked = Instant::now();
            }
            return Ok(uri);
        }
        let mut doc = tokio::time::timeout_at(deadline.into(), doc.lock_owned())
            .await
            .map_err(|_| self.timeout("waiting for an earlier check of the file", since))?;
        doc.asked = Instant::now();
        if !(doc.opened && &*doc.text == text) {
            self.send_text(&mut doc, path, &uri, &Arc::from(text))?;
            self.bump_epoch();
        }
        Ok(uri)
    }

    /// The raw diagnostics of the document's latest settled check, when it is of the text the
    /// server holds now (what a `textDocument/codeAction` request sends as its context).
    pub(crate) async fn settled_raw(&self, uri: &Url) -> Vec<lsp_types::Diagnostic> {
        let doc = self
            .docs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(uri)
            .cloned();
        let Some(doc) = doc else {
            return Vec::new();
        };
        let doc = doc.lock().await;
        doc.settled
            .as_ref()
            .filter(|s| s.version == doc.version)
            .map(|s| s.lsp.clone())
            .unwrap_or_default()
    }

    /// The `workspace/applyEdit` edits that arrived after `seq` (see `requests.rs`).
    pub(crate) fn applied_edits_since(&self, seq: u64) -> Vec<Value> {
        self.shared
            .lock()
            .applied_edits
            .iter()
            .filter(|(s, _)| *s > seq)
            .map(|(_, e)| e.clone())
            .collect()
    }

    /// The server's notification counter now (orders `workspace/applyEdit` requests).
    pub(crate) fn seq(&self) -> u64 {
        self.shared.lock().seq
    }

    /// Waits until the server has loaded the project of `uri`, so a request about it (a rename,
    /// references) sees every file and not only the open ones: a server that reports loading
    /// (`wait_quiescent`: rust-analyzer) until it is quiescent; with `hover_barrier`, a
    /// `textDocument/hover` round trip (typescript-language-server answers it only once
    /// tsserver has loaded the project; before that, a rename from `util.ts` edited `util.ts`
    /// alone, missing its importer); a server that says it in its log (`loaded_log`: pyright)
    /// until it has. True once loaded; false when `limit` came first (the caller decides
    /// whether an answer now is worth having, marked partial).
    pub(crate) async fn wait_loaded(&self, uri: &Url, limit: Instant) -> Result<bool, LspError> {
        let d = &self.cfg.diagnostics;
        if d.wait_quiescent
            && self
                .wait_for(limit, |st| (st.quiescent == Some(true)).then_some(()))
                .await?
                .is_none()
        {
            return Ok(false);
        }
        if d.hover_barrier {
            match self.publish_fence(uri, limit).await {
                Ok(()) => {}
                Err(LspError::Timeout { .. }) => return Ok(false),
                Err(e) => return Err(e),
            }
            // typescript-language-server reports tsserver's project loading as work-done
            // progress ("Initializing JS/TS language features"), which begins before the hover
            // is answered and may end after it.
            if self
                .wait_for(limit, |st| st.loading.is_empty().then_some(()))
                .await?
                .is_none()
            {
                return Ok(false);
            }
        }
        if !d.loaded_log.is_empty()
            && self
                .wait_for(limit, |st| st.loaded_log_seen.then_some(()))
                .await?
                .is_none()
        {
            return Ok(false);
        }
        Ok(true)
    }

    /// Waits (until `deadline`) until no check pass shows the server older texts than the
    /// current ones, stopping one that does; the server's view stays current while the guard
    /// is held. Every request about the workspace's files holds it through its answer.
    pub(crate) async fn current_view(
        &self,
        deadline: Instant,
    ) -> Result<tokio::sync::OwnedRwLockReadGuard<()>, LspError> {
        let since = Instant::now();
        self.view_wanted.fetch_add(1, Ordering::SeqCst);
        self.view_notify.notify_waiters();
        let guard =
            tokio::time::timeout_at(deadline.into(), Arc::clone(&self.view).read_owned()).await;
        self.view_wanted.fetch_sub(1, Ordering::SeqCst);
        guard.map_err(|_| self.timeout("waiting for a check to restore the current texts", since))
    }

    /// The right to show the server older texts for a while, unless a request is reading or
    /// waiting to read its view (then `None`: the request goes first, and the caller does
    /// without).
    pub(crate) fn show_older_texts(&self) -> Option<tokio::sync::OwnedRwLockWriteGuard<()>> {
        if self.view_wanted.load(Ordering::SeqCst) > 0 {
            return None;
        }
        Arc::clone(&self.view).try_write_owned().ok()
    }

    /// Resolves once a request wants the server's current view ([`Server::current_view`]).
    pub(crate) async fn view_wanted(&self) {
        loop {
            let notified = self.view_notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.view_wanted.load(Ordering::SeqCst) > 0 {
                return;
            }
            notified.await;
        }
    }

    /// The stat check of docs/design.md §7: every open document (except `skip`, which the caller is
    /// about to send) whose file changed on disk since its text was sent is re-sent from the
    /// disk, announced with `workspace/didChangeWatchedFiles`, and the epoch is bumped. A file
    /// that is gone is closed. A document being checked right now is left alone (its check
    /// holds its lock and sends its text itself).
    pub(crate) fn refresh_from_disk(&self, skip: &HashSet<PathBuf>) -> Result<(), LspError> {
        let docs = self.open_docs();
        let mut events = Vec::new();
        for (uri, doc) in docs {
            let Ok(path) = uri.to_file_path() else {
                continue;
            };
            if skip.contains(&path) {
                continue;
            }
            let Ok(mut doc) = doc.try_lock() else {
                continue;
            };
            // A document whose file did not exist when its text was sent (a caller checking
            // text it has not saved) has nothing on disk to follow.
            if !doc.opened || doc.disk.is_none() {
                continue;
            }
            let stamp = DiskStamp::of(&path);
            if stamp.is_some() && stamp == doc.disk {
                continue;
            }
            if let Some(typ) = self.resync_from_disk(&mut doc, &path, &uri)? {
                events.push(lsp_types::FileEvent { uri, typ });
            }
        }
        self.announce(events)
    }

    /// The file watcher's batch for this server's root (see `watcher.rs`): open documents whose
    /// file now differs from the text the server has are re-sent (`didChange`) or closed when
    /// gone; every change is announced in one `workspace/didChangeWatchedFiles` and voids the
    /// root's cached answers. A document whose disk text is the one already sent (lspedit's
    /// own write, seen after its check sent it) is neither re-sent nor announced, and one being
    /// checked right now is left to its check.
    pub(crate) fn apply_watched(
        &self,
        changes: &[(PathBuf, crate::watcher::Change)],
    ) -> Result<(), LspError> {
        let mut events = Vec::new();
        for (path, change) in changes {
            let Ok(uri) = Url::from_file_path(path) else {
                continue;
            };
            if let Some(doc) = self.open_doc(&uri) {
                let Ok(mut doc) = doc.try_lock() else {
                    continue;
                };
                if doc.opened {
                    if let Some(typ) = self.resync_from_disk(&mut doc, path, &uri)? {
                        events.push(lsp_types::FileEvent { uri, typ });
                    }
                    continue;
                }
            }
            let typ = match change {
                crate::watcher::Change::Created => lsp_types::FileChangeType::CREATED,
                crate::watcher::Change::Changed => lsp_types::FileChangeType::CHANGED,
                crate::watcher::Change::Deleted => lsp_types::FileChangeType::DELETED,
            };
            events.push(lsp_types::FileEvent { uri, typ });
        }
        self.announce(events)
    }

    /// An open document against its file on disk: re-sent when the text differs (`CHANGED`),
    /// closed when the file is gone (`DELETED`), nothing when the server already has the disk
    /// text (only the stamp is updated) or the file cannot be read as text.
    fn resync_from_disk(
        &self,
        doc: &mut Doc,
        path: &Path,
        uri: &Url,
    ) -> Result<Option<lsp_types::FileChangeType>, LspError> {
        match std::fs::read_to_string(path) {
            Ok(text) if *text == *doc.text => {
                doc.disk = DiskStamp::of(path);
                Ok(None)
            }
            Ok(text) => {
                tracing::debug!(server = %self.id, %uri, "changed on disk; re-sending");
                self.send_text(doc, path, uri, &Arc::from(text))?;
                Ok(Some(lsp_types::FileChangeType::CHANGED))
            }
            Err(_) if std::fs::symlink_metadata(path).is_err() => {
                tracing::debug!(server = %self.id, %uri, "gone from disk; closing");
                self.close(doc, uri)?;
                Ok(Some(lsp_types::FileChangeType::DELETED))
            }
            Err(_) => Ok(None),
        }
    }

    /// `didClose`; the document is forgotten but keeps its version counter.
    fn close(&self, doc: &mut Doc, uri: &Url) -> Result<(), LspError> {
        self.notify::<DidCloseTextDocument>(lsp_types::DidCloseTextDocumentParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: uri.clone() },
        })?;
        doc.opened = false;
        doc.settled = None;
        doc.disk = None;
        doc.text = Arc::from("");
        self.held
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(uri);
        Ok(())
    }

    /// Closes (`didClose`) the open documents no caller asked about for `idle`, except those
    /// being checked right now; the server reads them from the disk from then on, and the
    /// watcher and the stat check no longer follow them. Returns how many were closed.
    pub(crate) fn close_idle(&self, idle: Duration) -> usize {
        let docs = self.open_docs();
        let mut closed = 0;
        for (uri, doc) in docs {
            let Ok(mut doc) = doc.try_lock() else {
                continue;
            };
            if !doc.opened || doc.asked.elapsed() < idle {
                continue;
            }
            if self.close(&mut doc, &uri).is_err() {
                break;
            }
            closed += 1;
        }
        if closed > 0 {
            tracing::debug!(server = %self.id, closed, "closed idle documents");
            // The server now reads them from the disk, which may differ from the text it had.
            self.bump_epoch();
        }
        closed
    }

    /// One `workspace/didChangeWatchedFiles` for `events` (unless the server watches on its
    /// own: `watched_files = false`), and the epoch bumped: no cached answer of this root
    /// survives a change on disk. Nothing when there are none.
    fn announce(&self, events: Vec<lsp_types::FileEvent>) -> Result<(), LspError> {
        if events.is_empty() {
            return Ok(());
        }
        self.bump_epoch();
        if self.cfg.watched_files {
            self.notify::<DidChangeWatchedFiles>(lsp_types::DidChangeWatchedFilesParams {
                changes: events,
            })?;
        }
        Ok(())
    }

    /// Sends every file's new text before any of them is checked (a change to one file can
    /// change another's diagnostics), and returns each file locked for [`Server::settle`], in
    /// the order given. Documents are locked in URI order, so two batches cannot deadlock.
    /// `current` says whether a file's text is still the newest one asked for: a batch that
    /// goes on in the background after its caller gave up must not send an older text over a
    /// newer one.
    pub(crate) async fn sync_all(
        &self,
        files: Vec<(PathBuf, Arc<str>)>,
        deadline: Instant,
        current: &(dyn Fn(&Path) -> bool + Send + Sync),
    ) -> Vec<Result<Synced, LspError>> {
        let since = Instant::now();
        let mut order: Vec<(usize, Url, PathBuf, Arc<str>)> = Vec::with_capacity(files.len());
        let mut out: Vec<Option<Result<Synced, LspError>>> = Vec::new();
        for (i, (path, text)) in files.into_iter().enumerate() {
            out.push(None);
            match Url::from_file_path(&path) {
                Ok(uri) => order.push((i, uri, path, text)),
                Err(()) => out[i] = Some(Err(LspError::BadPath { path })),
            }
        }
        order.sort_by(|a, b| a.1.as_str().cmp(b.1.as_str()));
        let mut locked = Vec::with_capacity(order.len());
        for (i, uri, path, text) in order {
            let language = self.cfg.language_for(&path).unwrap_or("plaintext");
            let doc = self.doc(&uri, language);
            match tokio::time::timeout_at(deadline.into(), doc.lock_owned()).await {
                Ok(doc) => locked.push((i, uri, path, text, doc)),
                Err(_) => {
                    out[i] = Some(Err(
                        self.timeout("waiting for an earlier check of the file", since)
                    ));
                }
            }
        }
        // Send the changed texts first, all of them, then decide what the cache may answer.
        let mut pending = Vec::with_capacity(locked.len());
        let mut changed_any = false;
        for (i, uri, path, text, mut doc) in locked {
            if !current(&path) {
                out[i] = Some(Err(self.timeout("superseded by a newer check", since)));
                continue;
            }
            let seq0 = self.shared.lock().seq;
            let t0 = Instant::now();
            let unchanged = doc.opened && doc.text == text;
            if !unchanged {
                if let Err(e) = self.send_text(&mut doc, &path, &uri, &text) {
                    out[i] = Some(Err(e));
                    continue;
                }
                changed_any = true;
            }
            pending.push((i, uri, path, text, doc, seq0, t0, unchanged));
        }
        if changed_any {
            self.bump_epoch();
        }
        let epoch = self.epoch();
        for (i, uri, path, text, mut doc, seq0, t0, unchanged) in pending {
            let cached = doc
                .settled
                .as_ref()
                .filter(|s| unchanged && s.version == doc.version && s.epoch == epoch)
                .map(|s| {
                    let mut r = s.result.clone();
                    r.server_time = None;
                    r
                });
            // The unversioned server's only signal is the publish that follows a change, so
            // an unchanged text it must answer for again is sent again.
            if unchanged
                && cached.is_none()
                && self.cfg.diagnostics.strategy == Strategy::PushUnversioned
                && let Err(e) = self.send_text(&mut doc, &path, &uri, &text)
            {
                out[i] = Some(Err(e));
                continue;
            }
            let sent = !unchanged || self.cfg.diagnostics.strategy == Strategy::PushUnversioned;
            out[i] = Some(Ok(Synced {
                path,
                uri,
                text,
                doc,
                seq0,
                t0,
                cached,
                sent,
            }));
        }
        out.into_iter()
            .map(|r| r.unwrap_or(Err(LspError::PoolClosed)))
            .collect()
    }

    /// The settled diagnostics of a document [`Server::sync_all`] sent, or an error by
    /// `deadline`.
    pub(crate) async fn settle(
        &self,
        synced: Synced,
        deadline: Instant,
    ) -> Result<FileDiagnostics, LspError> {
        let Synced {
            path,
            uri,
            text,
            mut doc,
            seq0,
            t0,
            cached,
            sent,
        } = synced;
        if let Some(result) = cached {
            return Ok(result);
        }
        let epoch = self.epoch();
        let version = doc.version;
        let strategy = self.cfg.diagnostics.strategy;
        let outcome = match strategy {
            Strategy::Pull => self.settle_pull(&uri, deadline).await?,
            Strategy::TsserverPull => self.settle_tsserver(&uri, deadline).await?,
            Strategy::PushVersioned if self.cfg.diagnostics.save => {
                self.settle_on_save(&path, &uri, &text, seq0, deadline)
                    .await?
            }
            Strategy::PushVersioned if !sent => {
                self.settle_republish(&uri, version, seq0, deadline).await?
            }
            Strategy::PushVersioned => self.settle_versioned(&uri, version, seq0, deadline).await?,
            Strategy::PushUnversioned => {
                let first_check = doc.settled.is_none();
                self.settle_unversioned(&uri, seq0, t0, deadline, first_check)
                    .await?
            }
        };
        let lsp = match outcome.diagnostics {
            Some(d) => d,
            None => doc
                .settled
                .as_ref()
                .map(|s| s.lsp.clone())
                .unwrap_or_default(),
        };
        // tsserver counts UTF-16 code units whatever the LSP side negotiated.
        let encoding = match strategy {
            Strategy::TsserverPull => crate::PositionEncoding::Utf16,
            _ => self.encoding(),
        };
        let result = FileDiagnostics {
            path,
            server: self.id.clone(),
            version,
            diagnostics: convert(&text, &lsp, &self.cfg.severity_overrides, encoding),
            server_time: outcome.answered_at.map(|a| a.saturating_duration_since(t0)),
        };
        doc.settled = Some(Settled {
            version,
            epoch,
            lsp,
            result: result.clone(),
        });
        self.answered.store(true, Ordering::SeqCst);
        Ok(result)
    }

    async fn settle_pull(&self, uri: &Url, deadline: Instant) -> Result<Outcome, LspError> {
        let params = json!({ "textDocument": { "uri": uri.as_str() } });
        let mut retries = 0;
        loop {
            match self
                .request::<RawDocumentDiagnostic>(
                    params.clone(),
                    deadline,
                    "textDocument/diagnostic",
                )
                .await
            {
                Ok(report) => {
                    let answered_at = Some(Instant::now());
                    let diagnostics = match report.get("kind").and_then(Value::as_str) {
                        Some("unchanged") => None,
                        _ => Some(each_diagnostic(report.get("items"))),
                    };
                    return Ok(Outcome {
                        diagnostics,
                        answered_at,
                    });
                }
                Err(e) if retries < MAX_RETRIES && asks_again(&e) => retries += 1,
                Err(e) => return Err(e),
            }
        }
    }

    /// typescript-language-server with [`Strategy::TsserverPull`]: tsserver's syntactic,
    /// semantic and suggestion diagnostics of the document (see `tsserver.rs`), asked for at
    /// once (tsserver runs one request at a time, in order: sending them together saves the
    /// round trips, measured no slower than one after the other). Each is asked again when it
    /// is cancelled, as [`Server::settle_pull`] does.
    async fn settle_tsserver(&self, uri: &Url, deadline: Instant) -> Result<Outcome, LspError> {
        let ask = |command: &'static str| async move {
            let mut retries = 0;
            loop {
                let refusal = match self
                    .request::<RawExecuteCommand>(
                        crate::tsserver::params(command, uri),
                        deadline,
                        "tsserver diagnostics",
                    )
                    .await
                {
                    Ok(answer) => match crate::tsserver::diagnostics(&answer) {
                        Ok(d) => return Ok(d),
                        Err(r) => r,
                    },
                    Err(e) if retries < MAX_RETRIES && asks_again(&e) => {
                        crate::tsserver::Refusal::Cancelled
                    }
                    // typescript-language-server wraps tsserver's failure with its stack trace:
                    // the first line says it ("No Project.").
                    Err(LspError::Request {
                        server,
                        method,
                        code,
                        message,
                    }) => {
                        return Err(LspError::Request {
                            server,
                            method,
                            code,
                            message: format!(
                                "{command}: {}",
                                message.split("\n    at ").next().unwrap_or_default()
                            ),
                        });
                    }
                    Err(e) => return Err(e),
                };
                match refusal {
                    crate::tsserver::Refusal::Cancelled if retries < MAX_RETRIES => retries += 1,
                    crate::tsserver::Refusal::Cancelled => {
                        return Err(self.request_failed(command, "cancelled".into()));
                    }
                    crate::tsserver::Refusal::Failed(why) => {
                        return Err(self.request_failed(command, why));
                    }
                }
            }
        };
        let [syntactic, semantic, suggestion] = crate::tsserver::COMMANDS;
        let (syntactic, semantic, suggestion) =
            tokio::try_join!(ask(syntactic), ask(semantic), ask(suggestion))?;
        let answered_at = Some(Instant::now());
        let mut diagnostics = syntactic;
        diagnostics.extend(semantic);
        diagnostics.extend(suggestion);
        Ok(Outcome {
            diagnostics: Some(diagnostics),
            answered_at,
        })
    }

    /// An answer to `workspace/executeCommand` for tsserver's `command` that holds no result.
    fn request_failed(&self, command: &str, why: String) -> LspError {
        LspError::Request {
            server: self.id.clone(),
            method: RawExecuteCommand::METHOD,
            code: ErrorCode::INTERNAL_ERROR.0,
            message: format!("{command}: {why}"),
        }
    }

    /// Push-versioned, text unchanged but another file of the root changed: the server's next
    /// publish for the file (a server republishes dependents when a file they use changes);
    /// none within `first_publish_timeout_ms` means its latest publish still holds.
    async fn settle_republish(
        &self,
        uri: &Url,
        version: i32,
        seq0: u64,
        deadline: Instant,
    ) -> Result<Outcome, LspError> {
        let hold = Duration::from_millis(self.cfg.diagnostics.first_publish_timeout_ms);
        let limit = deadline.min(Instant::now() + hold);
        let next = self
            .wait_for(limit, |st| {
                st.publishes
                    .get(uri)
                    .filter(|p| p.seq > seq0 && p.version.is_none_or(|v| v >= version))
                    .cloned()
            })
            .await?;
        Ok(match next {
            Some(p) => Outcome {
                diagnostics: Some(p.diagnostics),
                answered_at: Some(p.at),
            },
            // The latest publish holds, when it is of this version. Of an older one (or none),
            // this version was never settled (its first check timed out while the server was
            // busy): wait for its own publish. Regression: the previous version's errors were
            // returned as this version's.
            None => {
                let latest = self.shared.lock().publishes.get(uri).cloned();
                match latest {
                    Some(p) if p.version.is_none_or(|v| v >= version) => Outcome {
                        diagnostics: Some(p.diagnostics),
                        answered_at: None,
                    },
                    _ => {
                        return self.settle_versioned(uri, version, seq0, deadline).await;
                    }
                }
            }
        })
    }

    async fn settle_versioned(
        &self,
        uri: &Url,
        version: i32,
        seq0: u64,
        deadline: Instant,
    ) -> Result<Outcome, LspError> {
        let since = Instant::now();
        let found = self
            .wait_for(deadline, |st| {
                st.publishes
                    .get(uri)
                    .filter(|p| match p.version {
                        Some(v) => v >= version,
                        // A server that forgets the version: only what follows our write.
                        None => p.seq > seq0,
                    })
                    .cloned()
            })
            .await?;
        let p = found.ok_or_else(|| self.timeout("waiting for diagnostics", since))?;
        Ok(Outcome {
            diagnostics: Some(p.diagnostics),
            answered_at: Some(p.at),
        })
    }

    /// rust-analyzer: native diagnostics follow the change, rustc's come from the check that
    /// `didSave` starts. Unchanged diagnostics are not republished, so "settled" is: server
    /// quiescent, a check begun after our save has ended, and then a fence proving that every
    /// publish the server made up to that end has arrived. The latest publish is then the
    /// server's current view (no publish at all = no diagnostics).
    ///
    /// The fence matters because rust-analyzer does not write publishes from its main loop: it
    /// hands each one to its worker pool (serialization off the main thread), so a publish made
    /// when the check ends can reach us after the progress `end` and after the answer to any
    /// request the main loop answers itself (such as the unknown-method [`Barrier`]). On a loaded
    /// machine that publish came late and the previous result was taken: diagnostics older than
    /// the write. With `hover_barrier` the fence is a `textDocument/hover`, which rust-analyzer
    /// answers from that same pool; its config pins the pool to one thread (`numThreads = 1`), so
    /// the pool runs jobs in order and the hover's answer follows every publish queued before it.
    /// Without `hover_barrier` the fence is the [`Barrier`] (servers that publish in order).
    ///
    /// A check that begins while the fence is in flight (rust-analyzer restarts its check when a
    /// save arrives during an earlier one, e.g. its initial check after loading), or a server
    /// that stops being quiescent (its answers may then bypass the pool), voids the fence: wait
    /// for the checks to end again and fence again. Every wait is on a server event, bounded by
    /// `deadline`.
    ///
    /// The check reads the file from disk, not the text the server was sent, so its result is
    /// this text's only if the disk held exactly this text, unwritten, from before the save to
    /// after the fence: the check that counts began after the save, and nothing could have
    /// read another text in between. Through the host, the check is ours only from when the
    /// host says it sent our save on ([`crate::host::SAVE_STARTED`]; it runs one client's check
    /// on save of a document at a time), and holds only if no other client's text replaced
    /// ours in the shared server from then to the fence ([`crate::host::TEXT_REPLACED`]):
    /// publishes go to the client whose text they are about.
    /// A check that finds what the server last published for the document publishes nothing
    /// (rust-analyzer), so the verdict is the server's latest publish: ours, or, through the
    /// host, the one the host says the server had made when our save went on, which may have
    /// gone to another client's text.
    /// Otherwise (another session wrote the file, an editor saved, the text was never saved)
    /// the answer is [`LspError::Superseded`], never the diagnostics of the other text as this
    /// one's.
    async fn settle_on_save(
        &self,
        path: &Path,
        uri: &Url,
        text: &str,
        seq0: u64,
        deadline: Instant,
    ) -> Result<Outcome, LspError> {
        let changed = || LspError::Superseded {
            server: self.id.clone(),
            path: path.to_owned(),
        };
        let since = Instant::now();
        let d = &self.cfg.diagnostics;
        if d.wait_quiescent {
            self.wait_for(deadline, |st| (st.quiescent == Some(true)).then_some(()))
                .await?
                .ok_or_else(|| self.timeout("waiting for the server to finish loading", since))?;
        }
        let (mut begins0, mut failures0, asked) = {
            let st = self.shared.lock();
            (st.check_begins, st.check_failures, st.seq)
        };
        let Some(stamp) = DiskStamp::holding(path, text) else {
            return Err(changed());
        };
        tracing::trace!(server = %self.id, %uri, begins0, "didSave");
        self.notify::<DidSaveTextDocument>(lsp_types::DidSaveTextDocumentParams {
            text_document: lsp_types::TextDocumentIdentifier { uri: uri.clone() },
            text: None,
        })?;
        // Through the host, another client's check on save of the document may be running:
        // its progress would pass for ours. The host runs one at a time and says when our save
        // goes on, so the checks counted from then on are ours, and another client's text that
        // replaces ours from then on voids the result.
        let mut replaced_after = seq0;
        let _turn = self.is_hosted().then_some(SaveTurn { server: self, uri });
        if self.is_hosted() {
            let started = self
                .wait_for(deadline, |st| {
                    st.save_started.get(uri).filter(|s| s.seq > asked).copied()
                })
                .await?
                .ok_or_else(|| {
                    self.timeout("waiting for another session's check on save to end", since)
                })?;
            (begins0, failures0) = (started.check_begins, started.check_failures);
            replaced_after = started.seq;
        }
        let mut answered_at = None;
        loop {
            let mut begins = begins0;
            if d.check_progress.is_some() {
                begins = self
                    .wait_for(deadline, |st| {
                        // A check that could not even start shows no progress, only the status.
                        let not_started = st.check_failures > failures0;
                        ((st.check_begins > begins0 || not_started)
                            && st.check_active.is_empty()
                            && st.quiescent != Some(false))
                        .then_some(st.check_begins)
                    })
                    .await?
                    .ok_or_else(|| self.timeout("waiting for the on-save check", since))?;
                answered_at = Some(Instant::now());
            }
            self.publish_fence(uri, deadline).await?;
            let st = self.shared.lock();
            let voided = (d.check_progress.is_some()
                && (st.check_begins != begins || !st.check_active.is_empty()))
                || (d.wait_quiescent && st.quiescent != Some(true));
            if !voided {
                break;
            }
            tracing::trace!(
                server = %self.id,
                %uri,
                begins = st.check_begins,
                active = st.check_active.len(),
                quiescent = ?st.quiescent,
                "check restarted or server busy during the fence; waiting again"
            );
        }
        if DiskStamp::holding(path, text) != Some(stamp) {
            return Err(changed());
        }
        let st = self.shared.lock();
        // Through the host: another session's text was the server's meanwhile, so a publish
        // of the check may have gone to that session (it is routed by text) and the latest one
        // here is older than the check.
        if st.replaced.get(uri).is_some_and(|at| *at > replaced_after) {
            return Err(changed());
        }
        // The check ended without running: what was published before says nothing of this
        // text, and neither does the silence.
        if d.check_failed_status.is_some() && st.check_failed {
            return Err(LspError::CheckFailed {
                server: self.id.clone(),
            });
        }
        // A check that finds what the server published last publishes nothing: the verdict is
        // the server's latest publish. Through the host, that may have gone to another client's
        // text before our save went on (the host said what it was); from then on, every publish
        // of the document comes here (else the host says another text took it: `replaced`).
        let diagnostics = st.latest(uri).unwrap_or_default();
        let latest = st.publishes.get(uri);
        if answered_at.is_none() {
            answered_at = latest.filter(|p| p.seq > seq0).map(|p| p.at);
        }
        Ok(Outcome {
            diagnostics: Some(diagnostics),
            answered_at,
        })
    }

    /// Proves that every publish the server queued before this call has arrived: a
    /// `textDocument/hover` at the file's start with `hover_barrier` (answered from the
    /// server's worker pool, see [`Server::settle_on_save`]), else the [`Barrier`]. An error
    /// answer is as good as a result.
    async fn publish_fence(&self, uri: &Url, deadline: Instant) -> Result<(), LspError> {
        if !self.cfg.diagnostics.hover_barrier {
            return self.barrier(deadline).await;
        }
        let params = json!({
            "textDocument": { "uri": uri.as_str() },
            "position": { "line": 0, "character": 0 },
        });
        match self
            .request::<RawHover>(params, deadline, "publish fence (hover)")
            .await
        {
            Ok(_) | Err(LspError::Request { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// typescript-language-server: publishes carry no version and nothing is published while
    /// the result stays empty. Take the publishes that follow the write, settled after a quiet
    /// window without another; nothing within the hold (see [`PublishDelays::hold`]) = the
    /// previous result holds.
    ///
    /// `first_check`: the document's first check. typescript-language-server reports tsserver's
    /// syntactic, semantic and suggestion diagnostics as separate updates and publishes each
    /// after a 50 ms debounce; once a document is open, an unchanged kind is skipped, so an edit
    /// yields one publish, but right after `didOpen` every kind is new and a loaded machine
    /// spreads them over several publishes, the first often the empty syntactic one. So the
    /// first check waits for the publishes to go quiet for the hold (at most twice its floor),
    /// not the quiet window.
    async fn settle_unversioned(
        &self,
        uri: &Url,
        seq0: u64,
        t0: Instant,
        deadline: Instant,
        first_check: bool,
    ) -> Result<Outcome, LspError> {
        let d = &self.cfg.diagnostics;
        let mut window_start = t0;
        if d.hover_barrier {
            let params = json!({
                "textDocument": { "uri": uri.as_str() },
                "position": { "line": 0, "character": 0 },
            });
            match self
                .request::<RawHover>(params, deadline, "hover barrier")
                .await
            {
                Ok(_) | Err(LspError::Request { .. }) => window_start = Instant::now(),
                Err(e) => return Err(e),
            }
        }
        let hold = self
            .publish_delays
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .hold(Duration::from_millis(d.first_publish_timeout_ms));
        let first_limit = deadline.min(window_start + hold);
        let first = self
            .wait_for(first_limit, |st| {
                st.publishes
                    .get(uri)
                    .filter(|p| p.seq > seq0)
                    .map(|p| (p.seq, p.at))
            })
            .await?;
        let Some((mut last, answered_at)) = first else {
            if first_limit >= deadline && Instant::now() >= deadline {
                return Err(self.timeout("waiting for the first publish", t0));
            }
            // Nothing new: the server's latest publish for the file holds, which may be newer
            // than this document's last settled result. Regression: after an imported file was
            // fixed, tsserver republished the importer clean right away (before the importer's
            // own check began), published nothing for the unchanged importer, and the check
            // returned the importer's previous error (bench `servers`, 4 of 10 fixes).
            // Through the host, the server's latest publish may have gone to another client's
            // text: the host answers every text we send with it, so wait for that word.
            if self.is_hosted() {
                self.wait_for(deadline, |st| {
                    st.relayed
                        .get(uri)
                        .is_some_and(|(seq, _)| *seq > seq0)
                        .then_some(())
                })
                .await?
                .ok_or_else(|| {
                    self.timeout("waiting for the host's word on the last publish", t0)
                })?;
            }
            let latest = self.shared.lock().latest(uri);
            return Ok(Outcome {
                diagnostics: latest,
                answered_at: None,
            });
        };
        self.publish_delays
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .record(answered_at.saturating_duration_since(window_start));
        let quiet = if first_check {
            // Long enough for the semantic pass after the syntactic one on a loaded machine,
            // short enough that a cold start plus this stays inside the tools' 10 s.
            hold.min(Duration::from_millis(2 * d.first_publish_timeout_ms))
        } else {
            Duration::from_millis(d.quiet_window_ms)
        };
        loop {
            let limit = deadline.min(Instant::now() + quiet);
            let next = self
                .wait_for(limit, |st| {
                    st.publishes
                        .get(uri)
                        .filter(|p| p.seq > last)
                        .map(|p| p.seq)
                })
                .await?;
            match next {
                Some(seq) => last = seq,
                None => break,
            }
        }
        let st = self.shared.lock();
        Ok(Outcome {
            diagnostics: Some(
                st.publishes
                    .get(uri)
                    .map(|p| p.diagnostics.clone())
                    .unwrap_or_default(),
            ),
            answered_at: Some(answered_at),
        })
    }

    /// `shutdown` → `exit` → close stdin → wait up to `grace` → kill the group. A hosted
    /// server is left running in the host: this client detaches.
    pub(crate) async fn shutdown(&self, grace: Duration) {
        if self.is_hosted() {
            let _ = self.socket.emit(Stop);
            let _ = self
                .wait_for(Instant::now() + grace, |st| st.exited.as_ref().map(|_| ()))
                .await;
            self.shared.mark_dead("detached".to_owned());
            return;
        }
        if self.is_alive() {
            let deadline = Instant::now() + grace;
            let _ = self.request::<Shutdown>((), deadline, "shutdown").await;
            let _ = self.socket.notify::<Exit>(());
            // Stops the main loop after flushing `exit`; dropping the writer closes stdin.
            let _ = self.socket.emit(Stop);
            let exit_deadline = Instant::now() + grace;
            let _ = self
                .wait_for(exit_deadline, |st| st.exited.as_ref().map(|_| ()))
                .await;
        }
        self.abandon();
        self.shared.mark_dead("shut down".to_owned());
        // SIGKILL is asynchronous: return once the group is really gone.
        let pgid = self.pgid();
        let _ = tokio::task::spawn_blocking(move || {
            process::wait_group_gone(pgid, Duration::from_secs(2))
        })
        .await;
    }

    /// True while some check is running.
    pub(crate) fn is_busy(&self) -> bool {
        self.busy.load(Ordering::SeqCst) > 0
    }
}

/// How often a pull request dropped by the server is asked again before its error is the result.
const MAX_RETRIES: u32 = 10;

/// The server dropped a pull request because the document moved on or it was busy; the spec
/// asks the client to ask again.
fn asks_again(e: &LspError) -> bool {
    matches!(e, LspError::Request { code, .. }
        if *code == ErrorCode::CONTENT_MODIFIED.0
            || *code == ErrorCode::SERVER_CANCELLED.0
            || *code == ErrorCode::REQUEST_CANCELLED.0)
}

/// The server's stdout, or the host connection's read half.
type Input = Box<dyn tokio::io::AsyncRead + Send + Unpin>;
/// The server's stdin, or the host connection's write half.
type Output = Box<dyn tokio::io::AsyncWrite + Send + Unpin>;

/// The server in the host, when the host takes it (`None`: spawn it here; why is logged).
#[cfg(unix)]
async fn attach_in_host(
    link: &HostLink,
    launch: &lspedit_servers::launch::Launch,
    root: &Path,
    params: &Value,
) -> Option<(Input, Output, crate::host::Attached)> {
    let mut session = params.clone();
    if let Some(o) = session.as_object_mut() {
        o.remove("processId");
    }
    let connect = crate::host::Request::Connect {
        server: launch.cfg.id.clone(),
        root: root.to_owned(),
        launch: crate::host::launch_fingerprint(launch),
        session: crate::host::fingerprint(session.to_string().as_bytes()),
    };
    let link = link.clone();
    let attached = tokio::task::spawn_blocking(move || {
        crate::host::client::attach(&link.config, &link.workspace, connect)
    })
    .await;
    let server = &launch.cfg.id;
    let attached = match attached {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => return not_used(server, &e),
        Err(e) => return not_used(server, &e),
    };
    let (stream, attached) = attached;
    match stream
        .set_nonblocking(true)
        .and_then(|()| tokio::net::UnixStream::from_std(stream))
    {
        Ok(s) => {
            tracing::debug!(%server, pgid = attached.pgid, served = attached.served, "attached in the server host");
            let (read, write) = s.into_split();
            Some((Box::new(read), Box::new(write), attached))
        }
        Err(e) => not_used(server, &e),
    }
}

/// The host listens on a Unix socket: elsewhere every server is spawned here (why is logged).
#[cfg(not(unix))]
async fn attach_in_host(
    _link: &HostLink,
    launch: &lspedit_servers::launch::Launch,
    _root: &Path,
    _params: &Value,
) -> Option<(Input, Output, crate::host::Attached)> {
    not_used(&launch.cfg.id, &crate::host::HostError::Unsupported)
}

/// Logs why the host is not used for `server` (it then runs here).
fn not_used<T>(server: &str, why: &dyn std::fmt::Display) -> Option<T> {
    tracing::debug!(%server, "server host not used: {why}");
    None
}

fn initialize_params(cfg: &ServerConfig, root: &Path, root_uri: &Url) -> Value {
    let name = root.file_name().and_then(|n| n.to_str()).unwrap_or("root");
    let mut capabilities = json!({
        // UTF-8 first: a server that can count bytes saves both sides a conversion.
        "general": { "positionEncodings": ["utf-8", "utf-16"] },
        "window": { "workDoneProgress": true },
        "workspace": {
            // Edits a server sends (`workspace/applyEdit`) are collected for the caller's
            // planner (requests.rs); resource operations become file sections of its patch.
            "applyEdit": true,
            "workspaceEdit": {
                "documentChanges": true,
                "resourceOperations": ["create", "rename", "delete"],
                "failureHandling": "abort",
            },
            "configuration": true,
            "workspaceFolders": true,
            "didChangeConfiguration": { "dynamicRegistration": true },
            // The pool's file watcher sends these (watcher.rs). TypeScript 7 re-reads a changed
            // file it has not opened only when the client announces it.
            "didChangeWatchedFiles": {
                "dynamicRegistration": cfg.watched_files,
                "relativePatternSupport": true,
            },
            "diagnostics": { "refreshSupport": true },
            "symbol": {
                "dynamicRegistration": false,
                "symbolKind": { "valueSet": (1..=26).collect::<Vec<u32>>() },
            },
        },
        "textDocument": {
            "synchronization": { "dynamicRegistration": false, "didSave": true },
            "publishDiagnostics": {
                "relatedInformation": false,
                "versionSupport": true,
                "codeDescriptionSupport": true,
                "tagSupport": { "valueSet": [1, 2] },
            },
            // pyright answers pull requests only when this is advertised.
            "diagnostic": { "dynamicRegistration": true, "relatedDocumentSupport": false },
            "rename": { "dynamicRegistration": false, "prepareSupport": true },
            "codeAction": {
                "dynamicRegistration": false,
                "isPreferredSupport": true,
                "dataSupport": true,
                "resolveSupport": { "properties": ["edit"] },
                "codeActionLiteralSupport": {
                    "codeActionKind": {
                        "valueSet": [
                            "", "quickfix", "refactor", "refactor.extract", "refactor.inline",
                            "refactor.rewrite", "source", "source.organizeImports", "source.fixAll",
                        ],
                    },
                },
            },
            "references": { "dynamicRegistration": false },
            "definition": { "dynamicRegistration": false, "linkSupport": true },
            // The symbol requests (symbols.rs). Without `hierarchicalDocumentSymbolSupport`
            // servers answer the flat list, which has no selection ranges; without the kinds
            // listed, a server may fold those past `Array` (struct, type parameter) into others.
            "documentSymbol": {
                "dynamicRegistration": false,
                "hierarchicalDocumentSymbolSupport": true,
                "symbolKind": { "valueSet": (1..=26).collect::<Vec<u32>>() },
            },
            "hover": { "dynamicRegistration": false, "contentFormat": ["markdown", "plaintext"] },
            "callHierarchy": { "dynamicRegistration": false },
            "implementation": { "dynamicRegistration": false, "linkSupport": true },
            "typeDefinition": { "dynamicRegistration": false, "linkSupport": true },
        },
    });
    if let Some(exp) = &cfg.experimental_capabilities {
        capabilities["experimental"] = exp.clone();
    }
    let mut params = json!({
        // No process id: servers that get one probe it with `kill(pid, 0)` and exit when that
        // fails, and the sandbox scopes signals, so the probe would fail. Servers die with
        // lspedit through the parent-death signal and the watchdog (lspedit-process).
        "processId": null,
        "clientInfo": { "name": "lspedit", "version": env!("CARGO_PKG_VERSION") },
        "rootUri": root_uri.as_str(),
        "rootPath": root.to_string_lossy(),
        "workspaceFolders": [{ "uri": root_uri.as_str(), "name": name }],
        "capabilities": capabilities,
        "trace": "off",
    });
    if let Some(opts) = &cfg.initialization_options {
        params["initializationOptions"] = opts.clone();
    }
    params
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::PublishDelays;

    // Regression: with a constant 1 s hold, typescript-language-server's first result on a
    // loaded machine (its publish came after 1-4 s) was taken as "clean, previous result holds".
    #[test]
    fn publish_hold_is_long_when_cold_and_follows_the_slowest_recent_delay() {
        let floor = Duration::from_millis(1000);
        let mut d = PublishDelays::default();
        assert_eq!(d.hold(floor).as_millis(), 5000);
        d.record(Duration::from_millis(200));
        assert_eq!(d.hold(floor).as_millis(), 1000, "never below the floor");
        d.record(Duration::from_millis(900));
        assert_eq!(d.hold(floor).as_millis(), 2700);
        for _ in 0..8 {
            d.record(Duration::from_millis(400));
        }
        assert_eq!(d.hold(floor).as_millis(), 1200, "old delays age out");
    }
}
