//! One language server shared by the clients of a host.
//!
//! Every message is routed as JSON by hand (the host never interprets a server's answers
//! beyond what routing needs):
//! - a client's request gets a host id, unique per server, and its answer goes back under the
//!   client's own id; `$/cancelRequest` follows the renumbering. A request about a document,
//!   and a `didSave` of it, goes after the client's own text of it, and a request's answer
//!   becomes `ContentModified` when another text reached the server meanwhile (a pull answer
//!   has no version to route by);
//! - when a client's text of a document replaces another's in the server, each other client
//!   that has it open is told ([`super::TEXT_REPLACED`]): a check on save of theirs under way
//!   may have lost its publishes to this client's text;
//! - every text a client sends is answered with what the server last published for the
//!   document ([`super::PUBLISHED`]): a server that publishes nothing when the diagnostics are
//!   unchanged leaves those as this text's, and they may have gone to another client;
//! - one client's check on save of a document runs at a time: a `didSave` that comes while
//!   another client's check of the document runs waits until that client ends it
//!   ([`super::SAVE_ENDED`]) or leaves; the client is told ([`super::SAVE_STARTED`]) just
//!   before its save reaches the server, after what the server last published for the
//!   document ([`super::PUBLISHED`]: a check that finds the same publishes nothing, and that
//!   publish may have gone to another client's text); a publish of the document during the
//!   check that does not reach the client is as if another text replaced its own
//!   ([`super::TEXT_REPLACED`]);
//! - `initialize` reaches the server once, with no process id (the sandbox scopes signals, so a
//!   server could not probe one); later clients get the first answer, and `initialized`,
//!   `shutdown` and `exit` of a client never reach the server;
//! - documents: the server has at most one open document per URI, versioned by the host; a
//!   client's `didOpen` / `didChange` sends the server its text when it differs from the
//!   server's (a `didChange` with the host's next version), and the server's `didClose` goes
//!   when the last client that had the file open closes it. A `publishDiagnostics` of a
//!   document open in the server reaches only the clients whose current text it is about:
//!   versioned, under the client's own version, when that version's text is the client's;
//!   unversioned, when the server's current text is the client's. Never another client's text
//!   as its own, not even to a client about to open the file. Those of files not open in the
//!   server reach every client;
//! - the server's requests go to the client that sent the last request (the one a
//!   `workspace/applyEdit` of a command belongs to), else to any; with no client the host
//!   answers itself (the last answer a client gave to the same `workspace/configuration`);
//! - a client joining a running server is first told what it missed: the registrations, the
//!   active progress, the last `experimental/serverStatus`, the log lines saying the project
//!   is loaded, and the latest diagnostics of every file.
//!
//! While no client is attached, the server hears of changes on disk from the host's own
//! watcher (clients send their watchers' events themselves).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use async_lsp::lsp_types::Url;
use lspedit_process::{self as process, GroupGuard, Groups};
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, watch};

use super::daemon::Tree;
use super::{PUBLISHED, SAVE_ENDED, SAVE_STARTED, TEXT_REPLACED};
use crate::transport::sanitize;
use crate::watcher::{self, Watcher};

/// Messages to one client or to the server, as whole frames.
pub(super) type Outbox = mpsc::UnboundedSender<Vec<u8>>;

/// At most this many loaded-log lines are kept for late clients.
const MAX_LOGS: usize = 16;
/// Versions of a document whose text hash is remembered (a publish names one of them).
const MAX_VERSIONS: usize = 32;

/// A message as a frame.
pub(super) fn frame(msg: &Value) -> Vec<u8> {
    crate::transport::frame(msg.to_string().as_bytes())
}

/// The JSON body of a frame from [`sanitize`].
pub(super) fn body(frame: &[u8]) -> Option<Value> {
    let at = frame.windows(4).position(|w| w == b"\r\n\r\n")?;
    serde_json::from_slice(&frame[at + 4..]).ok()
}

fn text_hash(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut h);
    h.finish()
}

/// A request of a client or of the host in flight at the server.
enum Pending {
    /// `about`: the document the request is about, with its change count when it was sent.
    Client {
        client: u64,
        id: Value,
        about: Option<(String, u64)>,
    },
    Initialize,
    /// The host's own (`shutdown`): its answer is dropped.
    Host,
}

/// A server request handed to a client, awaiting its answer.
struct Forwarded {
    client: u64,
    id: Value,
    method: String,
    params: Value,
}

enum Init {
    NotSent,
    /// Sent; these clients wait for its answer (client, their id).
    Waiting(Vec<(u64, Value)>),
    /// The server's answer (`result` or `error`), as given to every later client.
    Done(Value),
}

struct Client {
    out: Outbox,
    /// Open documents: URI → (the client's version, its text's hash).
    docs: HashMap<String, (Value, u64)>,
    /// Their texts, to give the server back a client's text before a request about it.
    texts: HashMap<String, String>,
    /// The client's request ids (as JSON text) → host ids, for `$/cancelRequest`.
    requests: HashMap<String, i64>,
}

/// The server's view of one document.
struct Doc {
    version: i64,
    hash: u64,
    /// Recent versions and their text's hash, newest last.
    versions: Vec<(i64, u64)>,
    open_by: HashSet<u64>,
    /// An unversioned publish came after the server got the current text: it is of that text.
    published: bool,
    /// Times the server's text changed: a request's answer is about the client's text only if
    /// this did not move while it was pending.
    changes: u64,
}

struct Mux {
    clients: BTreeMap<u64, Client>,
    next_client: u64,
    /// Clients served since the start.
    served: u64,
    next_id: i64,
    pending: HashMap<i64, Pending>,
    next_forward: u64,
    forwarded: HashMap<String, Forwarded>,
    init: Init,
    initialized: bool,
    settings: Option<Value>,
    docs: HashMap<String, Doc>,
    /// The last document version the server was sent, for any document: versions only grow,
    /// so a late publish of a closed document's version never names a version of its reopening.
    last_version: i64,
    /// The client that sent the last request.
    active: Option<u64>,
    registrations: Vec<Value>,
    status: Option<Value>,
    progress: BTreeMap<String, Value>,
    logs: Vec<Value>,
    publishes: BTreeMap<String, Value>,
    config_answers: HashMap<String, Value>,
    no_clients_since: Option<Instant>,
    /// Documents with a check on save running: URI → the client whose save started it.
    saving: HashMap<String, u64>,
    /// Saves waiting for another client's check of their document to end, in arrival order:
    /// (URI, client, the `didSave`).
    waiting_saves: Vec<(String, u64, Value)>,
}

/// One server of the host and the clients attached to it.
pub(super) struct Instance {
    pub(super) server: String,
    pub(super) root: PathBuf,
    pub(super) launch: String,
    /// Its directories as they were when it started (`Tree::unchanged` tells when they were
    /// re-created).
    pub(super) tree: Tree,
    /// The `initialize` fingerprint of the first client; later ones must match it.
    session: Mutex<Option<String>>,
    pub(super) started: Instant,
    loaded_log: Vec<String>,
    root_uri: Option<Url>,
    to_server: Outbox,
    guard: GroupGuard,
    mux: Mutex<Mux>,
    dead: AtomicBool,
    gone: watch::Sender<bool>,
    watcher: Mutex<Option<Arc<Watcher>>>,
    cfg: Arc<crate::ServerConfig>,
}

impl Instance {
    /// Spawns the server of `launch` in `root` (the host's runtime must be current).
    pub(super) fn start(
        launch: &lspedit_servers::launch::Launch,
        fingerprint: String,
        root: PathBuf,
        tree: Tree,
        groups: &Arc<Groups>,
        watch_debounce: Duration,
    ) -> Result<Arc<Instance>, process::ProcessError> {
        let id = launch.cfg.id.clone();
        let spawned = process::spawn(&id, launch.program(), &root, groups)?;
        let (to_server, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
        let mut stdin = spawned.stdin;
        tokio::spawn(async move {
            while let Some(f) = outbox.recv().await {
                if stdin.write_all(&f).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
        });
        let (frames_tx, mut frames) = mpsc::channel(256);
        let name = id.clone();
        tokio::spawn(async move { sanitize(&name, spawned.stdout, frames_tx).await });
        let mut child = spawned.child;
        tokio::spawn(async move {
            let _ = child.wait().await;
        });
        let (gone, _) = watch::channel(false);
        let instance = Arc::new(Instance {
            server: id,
            root_uri: Url::from_directory_path(&root).ok(),
            root,
            launch: fingerprint,
            tree,
            session: Mutex::new(None),
            started: Instant::now(),
            loaded_log: launch.cfg.diagnostics.loaded_log.clone(),
            to_server,
            guard: spawned.guard,
            mux: Mutex::new(Mux {
                clients: BTreeMap::new(),
                next_client: 0,
                served: 0,
                next_id: 0,
                pending: HashMap::new(),
                next_forward: 0,
                forwarded: HashMap::new(),
                init: Init::NotSent,
                initialized: false,
                settings: None,
                docs: HashMap::new(),
                last_version: 0,
                active: None,
                registrations: Vec::new(),
                status: None,
                progress: BTreeMap::new(),
                logs: Vec::new(),
                publishes: BTreeMap::new(),
                config_answers: HashMap::new(),
                no_clients_since: Some(Instant::now()),
                saving: HashMap::new(),
                waiting_saves: Vec::new(),
            }),
            dead: AtomicBool::new(false),
            gone,
            watcher: Mutex::new(None),
            cfg: launch.cfg.clone(),
        });
        let weak = Arc::downgrade(&instance);
        tokio::spawn(async move {
            while let Some(frame) = frames.recv().await {
                let Some(instance) = weak.upgrade() else {
                    return;
                };
                if let Some(msg) = body(&frame) {
                    instance.on_server(msg);
                }
            }
            if let Some(instance) = weak.upgrade() {
                instance.died("its output ended");
            }
        });
        instance.watch(watch_debounce);
        Ok(instance)
    }

    /// The host's own watcher of the server's root: its batches reach the server only while
    /// no client is attached.
    fn watch(self: &Arc<Self>, debounce: Duration) {
        let weak = Arc::downgrade(self);
        let started = Watcher::start(debounce, move |changes| {
            let Some(instance) = weak.upgrade() else {
                return false;
            };
            instance.clientless_changes(&changes);
            !instance.is_dead()
        });
        match started {
            Ok(w) => {
                let root = self.root.clone();
                let walker = Arc::clone(&w);
                tokio::task::spawn_blocking(move || walker.add_root(&root));
                *self.watcher.lock().unwrap_or_else(|e| e.into_inner()) = Some(w);
            }
            Err(e) => tracing::debug!(server = %self.server, "host watcher not started: {e}"),
        }
    }

    fn clientless_changes(&self, changes: &[(PathBuf, watcher::Change)]) {
        let m = self.lock();
        if !m.clients.is_empty() {
            return;
        }
        let events: Vec<Value> = changes
            .iter()
            .filter(|(p, _)| watcher::concerns(&self.cfg, &self.root, p))
            .filter_map(|(p, change)| {
                let uri = Url::from_file_path(p).ok()?;
                let typ = match change {
                    watcher::Change::Created => 1,
                    watcher::Change::Changed => 2,
                    watcher::Change::Deleted => 3,
                };
                Some(json!({ "uri": uri.as_str(), "type": typ }))
            })
            .collect();
        if !events.is_empty() {
            self.send_server(&json!({
                "jsonrpc": "2.0",
                "method": "workspace/didChangeWatchedFiles",
                "params": { "changes": events },
            }));
        }
    }

    fn lock(&self) -> MutexGuard<'_, Mux> {
        self.mux.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn pgid(&self) -> u32 {
        self.guard.pgid()
    }

    pub(super) fn is_dead(&self) -> bool {
        self.dead.load(Ordering::SeqCst)
    }

    /// Clients attached now, clients served, and since when none is attached.
    pub(super) fn clients(&self) -> (usize, u64, Option<Instant>) {
        let m = self.lock();
        (m.clients.len(), m.served, m.no_clients_since)
    }

    /// Checks the client's `initialize` fingerprint against the first client's.
    pub(super) fn admits(&self, session: &str) -> bool {
        let mut s = self.session.lock().unwrap_or_else(|e| e.into_inner());
        match &*s {
            Some(first) => first == session,
            None => {
                *s = Some(session.to_owned());
                true
            }
        }
    }

    /// Attaches a client whose messages go to `out`; returns its number and how many clients
    /// were served before it.
    pub(super) fn join(&self, out: Outbox) -> (u64, u64) {
        let mut m = self.lock();
        let id = m.next_client;
        m.next_client += 1;
        let before = m.served;
        m.served += 1;
        m.no_clients_since = None;
        m.clients.insert(
            id,
            Client {
                out,
                docs: HashMap::new(),
                texts: HashMap::new(),
                requests: HashMap::new(),
            },
        );
        (id, before)
    }

    /// Detaches a client: its documents are closed where no other client has them open, and
    /// the server's requests it had not answered are answered by the host.
    pub(super) fn leave(&self, client: u64) {
        let mut m = self.lock();
        let Some(c) = m.clients.remove(&client) else {
            return;
        };
        for uri in c.docs.keys() {
            self.close_for(&mut m, client, uri);
        }
        m.waiting_saves.retain(|(_, c, _)| *c != client);
        let ended: Vec<String> = m
            .saving
            .iter()
            .filter(|(_, c)| **c == client)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in ended {
            m.saving.remove(&uri);
            self.next_save(&mut m, &uri);
        }
        let unanswered: Vec<String> = m
            .forwarded
            .iter()
            .filter(|(_, f)| f.client == client)
            .map(|(k, _)| k.clone())
            .collect();
        for key in unanswered {
            if let Some(f) = m.forwarded.remove(&key) {
                let result = self.own_answer(&m, &f.method, &f.params);
                self.send_server(&json!({ "jsonrpc": "2.0", "id": f.id, "result": result }));
            }
        }
        if m.active == Some(client) {
            m.active = None;
        }
        if m.clients.is_empty() {
            m.no_clients_since = Some(Instant::now());
        }
    }

    fn send_server(&self, msg: &Value) {
        let _ = self.to_server.send(frame(msg));
    }

    fn send_client(m: &Mux, client: u64, msg: &Value) {
        if let Some(c) = m.clients.get(&client) {
            let _ = c.out.send(frame(msg));
        }
    }

    /// A message from client `client`.
    pub(super) fn on_client(&self, client: u64, mut msg: Value) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned();
        let mut m = self.lock();
        match (method.as_deref(), id) {
            (Some("initialize"), Some(id)) => match &mut m.init {
                Init::Done(answer) => {
                    let answer = answer.clone();
                    self.replay(&mut m, client);
                    Self::answer_initialize(&m, client, id, &answer);
                }
                Init::Waiting(waiting) => waiting.push((client, id)),
                Init::NotSent => {
                    // None, as from a pool (`server.rs`, `initialize_params`).
                    msg["params"]["processId"] = Value::Null;
                    let hid = Self::next_id(&mut m);
                    m.pending.insert(hid, Pending::Initialize);
                    m.init = Init::Waiting(vec![(client, id)]);
                    msg["id"] = json!(hid);
                    self.send_server(&msg);
                }
            },
            (Some("shutdown"), Some(id)) => {
                Self::send_client(
                    &m,
                    client,
                    &json!({ "jsonrpc": "2.0", "id": id, "result": null }),
                );
            }
            (Some(_), Some(id)) => {
                let about = self.own_text_first(&mut m, client, &msg);
                let hid = Self::next_id(&mut m);
                m.pending.insert(
                    hid,
                    Pending::Client {
                        client,
                        id: id.clone(),
                        about,
                    },
                );
                if let Some(c) = m.clients.get_mut(&client) {
                    c.requests.insert(id.to_string(), hid);
                }
                m.active = Some(client);
                msg["id"] = json!(hid);
                self.send_server(&msg);
            }
            (Some(method), None) => self.client_notification(&mut m, client, method, msg),
            (None, Some(id)) => {
                // The answer to a server request the host handed this client.
                let key = id.as_str().unwrap_or_default().to_owned();
                if let Some(f) = m.forwarded.remove(&key) {
                    if f.method == "workspace/configuration"
                        && let Some(result) = msg.get("result")
                    {
                        m.config_answers
                            .insert(f.params.to_string(), result.clone());
                    }
                    msg["id"] = f.id;
                    self.send_server(&msg);
                }
            }
            (None, None) => {}
        }
    }

    fn next_id(m: &mut Mux) -> i64 {
        m.next_id += 1;
        m.next_id
    }

    fn answer_initialize(m: &Mux, client: u64, id: Value, answer: &Value) {
        let mut msg = answer.clone();
        msg["jsonrpc"] = json!("2.0");
        msg["id"] = id;
        Self::send_client(m, client, &msg);
    }

    fn client_notification(&self, m: &mut Mux, client: u64, method: &str, mut msg: Value) {
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "initialized" => {
                if !m.initialized {
                    m.initialized = true;
                    self.send_server(&msg);
                }
            }
            "exit" => {}
            "$/cancelRequest" => {
                let hid = m
                    .clients
                    .get(&client)
                    .and_then(|c| c.requests.get(&params["id"].to_string()))
                    .copied();
                if let Some(hid) = hid {
                    msg["params"]["id"] = json!(hid);
                    self.send_server(&msg);
                }
            }
            "workspace/didChangeConfiguration" => {
                if m.settings.as_ref() != Some(&params) {
                    m.settings = Some(params);
                    self.send_server(&msg);
                }
            }
            "textDocument/didOpen" => {
                let doc = &params["textDocument"];
                let (Some(uri), Some(text)) = (doc["uri"].as_str(), doc["text"].as_str()) else {
                    return;
                };
                let language = doc["languageId"].clone();
                self.set_text(m, client, uri, doc["version"].clone(), text, language);
            }
            "textDocument/didChange" => {
                let uri = params["textDocument"]["uri"].as_str().unwrap_or_default();
                let changes = params["contentChanges"].as_array();
                // lspedit's clients send whole texts; a ranged change cannot be followed here.
                let text = changes
                    .and_then(|c| c.last())
                    .filter(|c| c.get("range").is_none())
                    .and_then(|c| c["text"].as_str());
                match text {
                    Some(text) => {
                        let version = params["textDocument"]["version"].clone();
                        self.set_text(m, client, uri, version, text, Value::Null);
                    }
                    None => {
                        tracing::debug!(server = %self.server, "ranged didChange from a client; dropped");
                    }
                }
            }
            "textDocument/didClose" => {
                let uri = params["textDocument"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                if let Some(c) = m.clients.get_mut(&client)
                    && c.docs.remove(&uri).is_some()
                {
                    c.texts.remove(&uri);
                    self.close_for(m, client, &uri);
                }
            }
            "textDocument/didSave" => {
                let uri = params["textDocument"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                // One client's check on save of a document at a time: the server's progress
                // of a check does not say whose save started it, so a client could take
                // another's check (of another text on disk) for its own.
                if m.saving.get(&uri).is_none_or(|c| *c == client) {
                    self.start_save(m, client, uri, &msg);
                } else {
                    m.waiting_saves.push((uri, client, msg));
                }
            }
            SAVE_ENDED => {
                let uri = params["uri"].as_str().unwrap_or_default().to_owned();
                m.waiting_saves
                    .retain(|(u, c, _)| !(*u == uri && *c == client));
                if m.saving.get(&uri) == Some(&client) {
                    m.saving.remove(&uri);
                    self.next_save(m, &uri);
                }
            }
            "$/lspedit/kill" => {
                tracing::debug!(server = %self.server, "killed at a client's request");
                self.guard.kill();
            }
            _ => self.send_server(&msg),
        }
    }

    /// `client`'s save of `uri` goes to the server: its check on save runs until it says it
    /// ended. The client is told first; its own text goes before the save, since the check's
    /// publishes carry the server's version of the document and are routed by its text.
    fn start_save(&self, m: &mut Mux, client: u64, uri: String, msg: &Value) {
        // A check that finds what the server last published publishes nothing, and that
        // publish may have gone to another client's text: the client hears what it was.
        Self::relay_published(m, client, &uri);
        Self::send_client(
            m,
            client,
            &json!({ "jsonrpc": "2.0", "method": SAVE_STARTED, "params": { "uri": uri } }),
        );
        m.saving.insert(uri, client);
        self.own_text_first(m, client, msg);
        self.send_server(msg);
    }

    /// Tells `client` what the server last published for `uri` ([`super::PUBLISHED`]).
    fn relay_published(m: &Mux, client: u64, uri: &str) {
        let diagnostics = m
            .publishes
            .get(uri)
            .map_or_else(|| json!([]), |p| p["diagnostics"].clone());
        Self::send_client(
            m,
            client,
            &json!({
                "jsonrpc": "2.0",
                "method": PUBLISHED,
                "params": { "uri": uri, "diagnostics": diagnostics },
            }),
        );
    }

    /// The check on save of `uri` ended: the first save of it that waited goes on.
    fn next_save(&self, m: &mut Mux, uri: &str) {
        if let Some(at) = m.waiting_saves.iter().position(|(u, ..)| u == uri) {
            let (uri, client, msg) = m.waiting_saves.remove(at);
            self.start_save(m, client, uri, &msg);
        }
    }

    /// Client `client` now has `text` as version `version` of `uri`.
    fn set_text(
        &self,
        m: &mut Mux,
        client: u64,
        uri: &str,
        version: Value,
        text: &str,
        language: Value,
    ) {
        let hash = text_hash(text);
        let Some(c) = m.clients.get_mut(&client) else {
            return;
        };
        let language = if language.is_null() {
            json!(self.cfg.language_for(&uri_path(uri)).unwrap_or("plaintext"))
        } else {
            language
        };
        c.docs.insert(uri.to_owned(), (version.clone(), hash));
        c.texts.insert(uri.to_owned(), text.to_owned());
        let next = m.last_version + 1;
        match m.docs.get_mut(uri) {
            Some(doc) => {
                doc.open_by.insert(client);
                if doc.hash != hash {
                    // The other clients that have it open no longer have their text in the
                    // server: a check on save of theirs in progress reads nothing of it any
                    // more (`Server::settle_on_save` ends with `Superseded`).
                    let others: Vec<u64> = doc
                        .open_by
                        .iter()
                        .copied()
                        .filter(|o| *o != client)
                        .collect();
                    for other in others {
                        Self::send_client(
                            m,
                            other,
                            &json!({
                                "jsonrpc": "2.0",
                                "method": TEXT_REPLACED,
                                "params": { "uri": uri },
                            }),
                        );
                    }
                    let Some(doc) = m.docs.get_mut(uri) else {
                        return;
                    };
                    doc.version = next;
                    doc.hash = hash;
                    doc.published = false;
                    doc.changes += 1;
                    doc.versions.push((doc.version, hash));
                    if doc.versions.len() > MAX_VERSIONS {
                        doc.versions.remove(0);
                    }
                    self.send_server(&json!({
                        "jsonrpc": "2.0",
                        "method": "textDocument/didChange",
                        "params": {
                            "textDocument": { "uri": uri, "version": doc.version },
                            "contentChanges": [{ "text": text }],
                        },
                    }));
                    m.last_version = next;
                } else {
                    // The server has this text already: its diagnostics of it, if they are
                    // in, are this version's too. If not, its next publish will be; none
                    // (unchanged) leaves its last one as this text's.
                    let (current, fresh) = m
                        .docs
                        .get(uri)
                        .map_or((None, false), |d| (Some(d.version), d.published));
                    if let Some(p) = m.publishes.get(uri).cloned()
                        && p.get("version")
                            .and_then(Value::as_i64)
                            .map_or(fresh, |of| Some(of) == current)
                    {
                        Self::publish_to(m, client, p, Some(version));
                    }
                }
            }
            None => {
                m.last_version = next;
                m.docs.insert(
                    uri.to_owned(),
                    Doc {
                        version: next,
                        hash,
                        versions: vec![(next, hash)],
                        open_by: HashSet::from([client]),
                        published: false,
                        changes: 0,
                    },
                );
                self.send_server(&json!({
                    "jsonrpc": "2.0",
                    "method": "textDocument/didOpen",
                    "params": { "textDocument": {
                        "uri": uri, "languageId": language, "version": next, "text": text,
                    }},
                }));
            }
        }
        // A server that publishes nothing for a text whose diagnostics are the ones it
        // published last leaves those as this text's, and they may have gone to another
        // client. Every text a client sends is answered so: its pool, seeing nothing
        // published, waits for this word before it takes "unchanged" for an answer.
        Self::relay_published(m, client, uri);
    }

    /// Before a request about a document the client has open: when the server has another
    /// client's text of it, the client's own goes first (the server handles messages in
    /// order). Returns the document and its change count, to tell at the answer whether the
    /// text moved meanwhile.
    fn own_text_first(&self, m: &mut Mux, client: u64, msg: &Value) -> Option<(String, u64)> {
        let params = &msg["params"];
        let uri = params["textDocument"]["uri"]
            .as_str()
            // typescript-language-server's `typescript.tsserverRequest` names it as `file`.
            .or_else(|| params["arguments"][1]["file"].as_str())?
            .to_owned();
        let c = m.clients.get(&client)?;
        let (version, hash) = c.docs.get(&uri)?.clone();
        let text = c.texts.get(&uri)?.clone();
        if m.docs.get(&uri).is_some_and(|d| d.hash != hash) {
            self.set_text(m, client, &uri, version, &text, Value::Null);
        }
        m.docs.get(&uri).map(|d| (uri, d.changes))
    }

    /// `client` closed `uri` (or left): the server's document closes with its last client.
    fn close_for(&self, m: &mut Mux, client: u64, uri: &str) {
        let Some(doc) = m.docs.get_mut(uri) else {
            return;
        };
        doc.open_by.remove(&client);
        if doc.open_by.is_empty() {
            m.docs.remove(uri);
            self.send_server(&json!({
                "jsonrpc": "2.0",
                "method": "textDocument/didClose",
                "params": { "textDocument": { "uri": uri } },
            }));
        }
    }

    /// Sends `params` of a publish to `client` under `version` (`None`: unversioned).
    fn publish_to(m: &Mux, client: u64, mut params: Value, version: Option<Value>) {
        match version {
            Some(v) if !v.is_null() => params["version"] = v,
            _ => {
                if let Some(o) = params.as_object_mut() {
                    o.remove("version");
                }
            }
        }
        Self::send_client(
            m,
            client,
            &json!({ "jsonrpc": "2.0", "method": "textDocument/publishDiagnostics", "params": params }),
        );
    }

    /// What a client joining a running server has missed, sent before its `initialize` answer:
    /// its pool has recorded all of it before it sends any text, so nothing replayed can pass
    /// for the answer to a text it sends.
    fn replay(&self, m: &mut Mux, client: u64) {
        for (n, params) in m.registrations.clone().into_iter().enumerate() {
            Self::send_client(
                m,
                client,
                &json!({
                    "jsonrpc": "2.0", "id": format!("lspedit-host-replay-{n}"),
                    "method": "client/registerCapability", "params": params,
                }),
            );
        }
        let mut told: Vec<Value> = Vec::new();
        told.extend(m.status.clone());
        told.extend(m.progress.values().cloned());
        told.extend(m.logs.iter().cloned());
        for msg in told {
            Self::send_client(m, client, &msg);
        }
        // Those of documents open in the server are of another client's text: this client
        // gets them when it sends the same text (`set_text`).
        let closed: Vec<Value> = m
            .publishes
            .iter()
            .filter(|(uri, _)| !m.docs.contains_key(*uri))
            .map(|(_, p)| p.clone())
            .collect();
        for params in closed {
            Self::publish_to(m, client, params, None);
        }
    }

    /// A message from the server.
    fn on_server(&self, msg: Value) {
        let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
        let id = msg.get("id").cloned();
        let mut m = self.lock();
        match (method, id) {
            (None, Some(id)) => {
                let Some(pending) = id.as_i64().and_then(|hid| m.pending.remove(&hid)) else {
                    return;
                };
                match pending {
                    Pending::Client { client, id, about } => {
                        if let Some(c) = m.clients.get_mut(&client) {
                            c.requests.remove(&id.to_string());
                        }
                        let moved = about.is_some_and(|(uri, changes)| {
                            m.docs.get(&uri).is_none_or(|d| d.changes != changes)
                        });
                        let msg = if moved {
                            // Another client's text reached the server meanwhile: the answer
                            // may be about it. The client asks again (LSP's ContentModified).
                            json!({ "jsonrpc": "2.0", "id": id, "error": {
                                "code": -32801,
                                "message": "the document changed while the request was pending",
                            }})
                        } else {
                            let mut msg = msg;
                            msg["id"] = id;
                            msg
                        };
                        Self::send_client(&m, client, &msg);
                    }
                    Pending::Initialize => {
                        let mut answer = json!({});
                        for key in ["result", "error"] {
                            if let Some(v) = msg.get(key) {
                                answer[key] = v.clone();
                            }
                        }
                        let waiting =
                            match std::mem::replace(&mut m.init, Init::Done(answer.clone())) {
                                Init::Waiting(w) => w,
                                _ => Vec::new(),
                            };
                        for (client, id) in waiting {
                            self.replay(&mut m, client);
                            Self::answer_initialize(&m, client, id, &answer);
                        }
                    }
                    Pending::Host => {}
                }
            }
            (Some(method), Some(id)) => self.server_request(&mut m, &method, id, msg),
            (Some(method), None) => self.server_notification(&mut m, &method, msg),
            (None, None) => {}
        }
    }

    fn server_request(&self, m: &mut Mux, method: &str, id: Value, mut msg: Value) {
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "client/registerCapability" => m.registrations.push(params.clone()),
            "client/unregisterCapability" => {
                let gone: HashSet<String> = params["unregisterations"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|u| u["id"].as_str().map(str::to_owned))
                    .collect();
                for reg in &mut m.registrations {
                    if let Some(list) = reg["registrations"].as_array_mut() {
                        list.retain(|r| !r["id"].as_str().is_some_and(|i| gone.contains(i)));
                    }
                }
            }
            _ => {}
        }
        let target = m
            .active
            .filter(|c| m.clients.contains_key(c))
            .or_else(|| m.clients.keys().next().copied());
        match target {
            Some(client) => {
                m.next_forward += 1;
                let key = format!("lspedit-host-{}", m.next_forward);
                m.forwarded.insert(
                    key.clone(),
                    Forwarded {
                        client,
                        id,
                        method: method.to_owned(),
                        params,
                    },
                );
                msg["id"] = json!(key);
                Self::send_client(m, client, &msg);
            }
            None => {
                let result = self.own_answer(m, method, &params);
                self.send_server(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
            }
        }
    }

    /// The host's answer to a server request no client can take.
    fn own_answer(&self, m: &Mux, method: &str, params: &Value) -> Value {
        match method {
            "workspace/configuration" => m
                .config_answers
                .get(&params.to_string())
                .cloned()
                .unwrap_or_else(|| {
                    let n = params["items"].as_array().map_or(0, Vec::len);
                    Value::Array(vec![Value::Null; n])
                }),
            "workspace/workspaceFolders" => match &self.root_uri {
                Some(uri) => json!([{ "uri": uri.as_str(), "name": "root" }]),
                None => Value::Null,
            },
            "workspace/applyEdit" => json!({ "applied": false }),
            _ => Value::Null,
        }
    }

    fn server_notification(&self, m: &mut Mux, method: &str, msg: Value) {
        let params = msg.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "textDocument/publishDiagnostics" => {
                let Some(uri) = params["uri"].as_str().map(str::to_owned) else {
                    return;
                };
                m.publishes.insert(uri.clone(), params.clone());
                let of = params.get("version").and_then(Value::as_i64);
                if let Some(doc) = m.docs.get_mut(&uri)
                    && (of.is_none() || of == Some(doc.version))
                {
                    doc.published = true;
                }
                let hash_of = of.and_then(|v| {
                    m.docs
                        .get(&uri)
                        .and_then(|d| d.versions.iter().find(|(n, _)| *n == v).map(|(_, h)| *h))
                });
                // A document open in the server: its publishes are of some client's text, and
                // go only to the clients whose text that is (a client about to open it would
                // otherwise take another's result, unversioned, as its own). Any other file's
                // go to every client.
                let current = m.docs.get(&uri).map(|d| d.hash);
                let clients: Vec<(u64, Option<(Value, u64)>)> = m
                    .clients
                    .iter()
                    .map(|(id, c)| (*id, c.docs.get(&uri).cloned()))
                    .collect();
                let mut told = HashSet::new();
                for (client, doc) in clients {
                    match (current, of, doc) {
                        (Some(_), Some(_), Some((version, hash))) if hash_of == Some(hash) => {
                            Self::publish_to(m, client, params.clone(), Some(version));
                        }
                        (Some(now), None, Some((_, hash))) if now == hash => {
                            Self::publish_to(m, client, params.clone(), None);
                        }
                        (Some(_), _, _) => continue,
                        (None, _, _) => Self::publish_to(m, client, params.clone(), None),
                    }
                    told.insert(client);
                }
                // The server's latest publish of a document during a client's check on save is
                // the check's verdict when nothing follows it: one that went to another text
                // (an older version's, late) leaves that client without it.
                if let Some(saver) = m.saving.get(&uri).copied()
                    && !told.contains(&saver)
                {
                    Self::send_client(
                        m,
                        saver,
                        &json!({ "jsonrpc": "2.0", "method": TEXT_REPLACED, "params": { "uri": uri } }),
                    );
                }
                return;
            }
            "$/progress" => {
                let token = params["token"].to_string();
                match params["value"]["kind"].as_str() {
                    Some("begin") => {
                        m.progress.insert(token, msg.clone());
                    }
                    Some("end") => {
                        m.progress.remove(&token);
                    }
                    _ => {}
                }
            }
            "experimental/serverStatus" => m.status = Some(msg.clone()),
            "window/logMessage" => {
                let text = params["message"].as_str().unwrap_or_default();
                if self.loaded_log.iter().any(|l| text.contains(l.as_str()))
                    && m.logs.len() < MAX_LOGS
                {
                    m.logs.push(msg.clone());
                }
            }
            // The host's own word to its clients: a server cannot speak it.
            method if method.starts_with("$/lspedit/") => return,
            _ => {}
        }
        for client in m.clients.keys().copied().collect::<Vec<_>>() {
            Self::send_client(m, client, &msg);
        }
    }

    /// The server is gone: every client is detached (its connection closes, and its pool
    /// starts the server again through the host).
    pub(super) fn died(&self, why: &str) {
        if self.dead.swap(true, Ordering::SeqCst) {
            return;
        }
        tracing::debug!(server = %self.server, root = %self.root.display(), why, "hosted server gone");
        self.guard.kill();
        self.lock().clients.clear();
        self.watcher
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        self.gone.send_replace(true);
    }

    /// `shutdown`, `exit`, then the process group is killed after `grace` at the latest.
    pub(super) async fn shutdown(&self, grace: Duration) {
        if !self.is_dead() {
            let hid = {
                let mut m = self.lock();
                let hid = Self::next_id(&mut m);
                m.pending.insert(hid, Pending::Host);
                hid
            };
            self.send_server(&json!({ "jsonrpc": "2.0", "id": hid, "method": "shutdown" }));
            self.send_server(&json!({ "jsonrpc": "2.0", "method": "exit" }));
            let mut gone = self.gone.subscribe();
            let _ = tokio::time::timeout(grace, gone.wait_for(|g| *g)).await;
        }
        self.died("shut down");
        let pgid = self.pgid();
        let _ = tokio::task::spawn_blocking(move || {
            process::wait_group_gone(pgid, Duration::from_secs(2))
        })
        .await;
    }
}

fn uri_path(uri: &str) -> PathBuf {
    Url::parse(uri)
        .ok()
        .and_then(|u| u.to_file_path().ok())
        .unwrap_or_default()
}
