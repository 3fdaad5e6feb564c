//! A scripted language server used by lspedit's fault and timing tests.
//!
//! The server speaks LSP over stdio with full-text document sync. A [`Script`] (JSON, from the
//! environment, see [`SCRIPT_ENV`] and [`SCRIPT_FILE_ENV`]) says how diagnostics are delivered
//! and how the server misbehaves. Diagnostics are derived from the text: every line containing
//! [`Script::marker`] yields one error at the marker's position, code `F001`, so a test controls
//! what is reported by what it writes.
//!
//! The server is deliberately synchronous and single-threaded: a slow answer blocks everything
//! behind it, exactly like a busy real server, and a hang is a hang.

pub mod support;

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Environment variable holding a script as inline JSON.
pub const SCRIPT_ENV: &str = "LSPEDIT_FAKE_SCRIPT";
/// Environment variable naming a file that holds the script as JSON. Read at every start, so a
/// test can change the behaviour of the next incarnation by rewriting the file.
pub const SCRIPT_FILE_ENV: &str = "LSPEDIT_FAKE_SCRIPT_FILE";

/// How diagnostics reach the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `textDocument/publishDiagnostics` carrying the document version.
    #[default]
    Push,
    /// `textDocument/publishDiagnostics` without a version (like typescript-language-server).
    PushUnversioned,
    /// `textDocument/diagnostic` requests only.
    Pull,
    /// No publishes: diagnostics are answered to typescript-language-server's
    /// `typescript.tsserverRequest` command (`workspace/executeCommand`), shaped as tsserver's
    /// `*DiagnosticsSync` responses (the marker's lines among the semantic ones).
    TsserverPull,
}

/// A point in the server's life at which a fault can be injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Event {
    Initialize,
    Initialized,
    DidOpen,
    DidChange,
    DidSave,
    Diagnostic,
    Shutdown,
}

/// What the fake server does. Every field has a harmless default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Script {
    pub mode: Mode,
    /// Substring that marks an error line.
    pub marker: String,
    /// Delay before each publish or pull answer (an intentionally slow server).
    pub delay_ms: u64,
    /// Delay before answering `initialize`.
    pub initialize_delay_ms: u64,
    /// Exit with status 101 when this event arrives.
    pub crash_on: Option<Event>,
    /// Stop reading and answering forever when this event arrives.
    pub hang_on: Option<Event>,
    /// The first time this event arrives, compute for [`Script::busy_ms`] without reading or
    /// answering (a server in its first analysis: busy, not hung), then go on as usual.
    pub busy_on: Option<Event>,
    /// How long [`Script::busy_on`] computes.
    pub busy_ms: u64,
    /// Write non-protocol bytes and malformed frames on stdout around every message.
    pub garbage: bool,
    /// Never answer `shutdown` and ignore `exit`.
    pub ignore_shutdown: bool,
    /// Publish a result for an older version (with a `STALE` diagnostic) before and after
    /// every correct publish.
    pub stale_versions: bool,
    /// Publish every result twice.
    pub publish_twice: bool,
    /// Publish nothing when the diagnostics did not change since the last publish.
    pub skip_unchanged: bool,
    /// Start a long-lived grandchild (`sleep`) in the server's process group.
    pub spawn_child: bool,
    /// Send the client requests and notifications a real server sends (configuration,
    /// registration, progress, unknown methods) after `initialized`, and log the answers.
    pub server_requests: bool,
    /// Append one line per received message and per answer to this file.
    pub log_file: Option<PathBuf>,
    /// Settings section asked for in `workspace/configuration`.
    pub config_section: String,
    /// Check on save, like rust-analyzer's `cargo check`: changes publish nothing; `didSave`
    /// sends `$/progress` begin and end with token [`CHECK_TOKEN`] and then the publish, but the
    /// publish is only queued, as rust-analyzer hands publishes to its worker pool: requests
    /// answered directly (such as an unknown method) overtake it, and it is written just before
    /// the answer to the next `textDocument/hover` (answered from that pool) or before the next
    /// document notification.
    pub check_on_save: bool,
    /// The answer to `textDocument/rename` (a `WorkspaceEdit`, sent as given); with it the
    /// server offers rename. `prepareRename` answers the position's range.
    pub rename_edit: Option<Value>,
    /// The answer to `textDocument/codeAction` (a list of actions, sent as given); with it the
    /// server offers code actions, and `codeAction/resolve` answers the action with
    /// [`Script::resolve_edit`] as its edit.
    pub code_actions: Option<Value>,
    /// The edit `codeAction/resolve` adds to the action it is sent.
    pub resolve_edit: Option<Value>,
    /// An edit sent as a `workspace/applyEdit` request while `workspace/executeCommand` runs.
    pub command_edit: Option<Value>,
    /// The answer to `textDocument/references` and `textDocument/definition`.
    pub locations: Option<Value>,
    /// The `positionEncoding` the server picks (e.g. `utf-8`); none by default (UTF-16).
    pub position_encoding: Option<String>,
    /// What the server tries once, right after answering `initialize`, to show what its
    /// sandbox lets it do; each logs one line (see [`Probe`]). The server serves normally
    /// whatever they return.
    pub probes: Vec<Probe>,
    /// Pull answers for documents whose URI ends with this wait [`Script::slow_ms`] more (a
    /// file that is slow to check; the server answers nothing else meanwhile).
    pub slow_suffix: Option<String>,
    /// See [`Script::slow_suffix`].
    pub slow_ms: u64,
    /// Pull answers also report, on each line `from "./name"`, an `F002` error when the open
    /// document `name.ts` has an error line: a dependency between files, for other-file checks.
    pub cross_file: bool,
}

/// One attempt the fake server makes at startup ([`Script::probes`]), logged to
/// [`Script::log_file`] as `probe <kind> <target> ok`, or `probe <kind> <target> denied <error
/// kind> [errno <n>]` when the attempt fails (an exec whose program ran but exited non-zero logs
/// `probe exec <target> exited <code>`). `<target>` is logged as given.
///
/// A path target may start with `$NAME/`: the server's environment variable `NAME` (`$HOME`,
/// `$TMPDIR`, the scratch directory lspedit gives it) replaces `$NAME`; an unset variable is
/// left in place (the probe then fails to find the path).
///
/// JSON: `{"kind": "write", "target": "$HOME/x"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "target")]
pub enum Probe {
    /// Create or truncate the file at this path and write a line into it.
    Write(String),
    /// Read the file at this path.
    Read(String),
    /// Run the program at this path (no arguments, stdio null) and wait for it.
    Exec(String),
    /// Open a TCP connection to this address (`127.0.0.1:4000`), then close it.
    Connect(String),
    /// Bind a TCP listener on this address (`127.0.0.1:0`), then close it.
    Bind(String),
}

impl Probe {
    fn kind(&self) -> &'static str {
        match self {
            Probe::Write(_) => "write",
            Probe::Read(_) => "read",
            Probe::Exec(_) => "exec",
            Probe::Connect(_) => "connect",
            Probe::Bind(_) => "bind",
        }
    }

    fn target(&self) -> &str {
        match self {
            Probe::Write(t)
            | Probe::Read(t)
            | Probe::Exec(t)
            | Probe::Connect(t)
            | Probe::Bind(t) => t,
        }
    }

    /// Makes the attempt; the outcome as logged after `probe <kind> <target> `.
    pub fn run(&self) -> String {
        let denied = |e: std::io::Error| match e.raw_os_error() {
            Some(n) => format!("denied {:?} errno {n}", e.kind()),
            None => format!("denied {:?}", e.kind()),
        };
        let result = match self {
            Probe::Write(t) => std::fs::write(expand(t), "written by a probe\n"),
            Probe::Read(t) => std::fs::read(expand(t)).map(drop),
            Probe::Exec(t) => {
                match std::process::Command::new(expand(t))
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .status()
                {
                    Ok(status) if status.success() => Ok(()),
                    Ok(status) => {
                        return match status.code() {
                            Some(code) => format!("exited {code}"),
                            None => "exited by a signal".to_owned(),
                        };
                    }
                    Err(e) => Err(e),
                }
            }
            Probe::Connect(t) => resolve(t).and_then(|addr| {
                std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
                    .map(drop)
            }),
            Probe::Bind(t) => std::net::TcpListener::bind(t.as_str()).map(drop),
        };
        match result {
            Ok(()) => "ok".to_owned(),
            Err(e) => denied(e),
        }
    }
}

/// `$NAME/rest` with the environment variable `NAME` substituted, when it is set.
fn expand(target: &str) -> PathBuf {
    if let Some(rest) = target.strip_prefix('$') {
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if let Some(value) = std::env::var_os(name) {
            let mut path = PathBuf::from(value);
            if !tail.is_empty() {
                path.push(tail);
            }
            return path;
        }
    }
    PathBuf::from(target)
}

fn resolve(target: &str) -> std::io::Result<std::net::SocketAddr> {
    use std::net::ToSocketAddrs;
    target
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))
}

/// `$/progress` token of the on-save check (see [`Script::check_on_save`]).
pub const CHECK_TOKEN: &str = "fake/flycheck/0";

impl Default for Script {
    fn default() -> Self {
        Self {
            mode: Mode::Push,
            marker: "ERROR".to_owned(),
            delay_ms: 0,
            initialize_delay_ms: 0,
            crash_on: None,
            hang_on: None,
            busy_on: None,
            busy_ms: 0,
            garbage: false,
            ignore_shutdown: false,
            stale_versions: false,
            publish_twice: false,
            skip_unchanged: false,
            spawn_child: false,
            server_requests: true,
            log_file: None,
            config_section: "fake".to_owned(),
            check_on_save: false,
            rename_edit: None,
            code_actions: None,
            resolve_edit: None,
            command_edit: None,
            locations: None,
            position_encoding: None,
            probes: Vec::new(),
            slow_suffix: None,
            slow_ms: 0,
            cross_file: false,
        }
    }
}

impl Script {
    /// Reads the script from [`SCRIPT_FILE_ENV`] or [`SCRIPT_ENV`]; the default when neither is
    /// set.
    pub fn from_env() -> Result<Self, String> {
        if let Some(path) = std::env::var_os(SCRIPT_FILE_ENV) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", PathBuf::from(&path).display()))?;
            return serde_json::from_str(&text).map_err(|e| format!("script file: {e}"));
        }
        match std::env::var(SCRIPT_ENV) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("script: {e}")),
            Err(_) => Ok(Self::default()),
        }
    }

    /// The script as JSON, for [`SCRIPT_ENV`] or a script file.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

struct Doc {
    version: i64,
    text: String,
    last_published: Option<Vec<Value>>,
}

/// The fake server's state machine over a reader and a writer.
pub struct Server<R, W> {
    script: Script,
    input: R,
    output: W,
    docs: HashMap<String, Doc>,
    next_id: i64,
    log: Option<std::fs::File>,
    child: Option<std::process::Child>,
    /// Publishes queued by the on-save check, written by [`Server::flush_queued`].
    queued: Vec<(String, i64, Vec<Value>)>,
    /// [`Script::busy_on`] has fired.
    was_busy: bool,
}

impl<R: BufRead, W: Write> Server<R, W> {
    pub fn new(script: Script, input: R, output: W) -> Self {
        let log = script.log_file.as_ref().and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        });
        Self {
            script,
            input,
            output,
            docs: HashMap::new(),
            next_id: 1,
            log,
            child: None,
            queued: Vec::new(),
            was_busy: false,
        }
    }

    /// Serves until `exit` or end of input. Returns the process exit code.
    pub fn run(mut self) -> std::io::Result<i32> {
        if self.script.spawn_child {
            self.child = std::process::Command::new("sleep")
                .arg("3600")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .spawn()
                .ok();
            if let Some(child) = &self.child {
                self.log_line(&format!("child {}", child.id()));
            }
        }
        self.log_line(&format!("start {}", std::process::id()));
        let mut shutdown = false;
        while let Some(msg) = self.read_message()? {
            let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
            let id = msg.get("id").cloned();
            let params = msg.get("params").cloned().unwrap_or(Value::Null);
            let Some(method) = method else {
                // A response to one of our requests.
                self.log_line(&format!("response {msg}"));
                continue;
            };
            match &id {
                Some(id) => self.log_line(&format!("request {method} {id}")),
                None => self.log_line(&format!("notification {method} {params}")),
            }
            let event = match method.as_str() {
                "initialize" => Some(Event::Initialize),
                "initialized" => Some(Event::Initialized),
                "textDocument/didOpen" => Some(Event::DidOpen),
                "textDocument/didChange" => Some(Event::DidChange),
                "textDocument/didSave" => Some(Event::DidSave),
                "textDocument/diagnostic" => Some(Event::Diagnostic),
                "shutdown" => Some(Event::Shutdown),
                _ => None,
            };
            if method.starts_with("textDocument/did") || method == "textDocument/hover" {
                self.flush_queued()?;
            }
            if let Some(event) = event {
                if self.script.crash_on == Some(event) {
                    self.log_line(&format!("crash {method}"));
                    return Ok(101);
                }
                if self.script.busy_on == Some(event) && !self.was_busy {
                    self.was_busy = true;
                    self.log_line(&format!("busy {method}"));
                    let until = std::time::Instant::now()
                        + std::time::Duration::from_millis(self.script.busy_ms);
                    let mut spin = 0u64;
                    while std::time::Instant::now() < until {
                        spin = std::hint::black_box(spin.wrapping_add(1));
                    }
                    self.log_line(&format!("idle {method}"));
                }
                if self.script.hang_on == Some(event) {
                    self.log_line(&format!("hang {method}"));
                    loop {
                        std::thread::park();
                    }
                }
            }
            match (method.as_str(), id) {
                ("initialize", Some(id)) => {
                    self.pause(self.script.initialize_delay_ms);
                    let caps = self.capabilities();
                    self.respond(&id, json!({ "capabilities": caps, "serverInfo": { "name": "lspedit-fake-lsp" } }))?;
                    self.run_probes();
                }
                ("initialized", None) => {
                    if self.script.server_requests {
                        self.send_server_requests()?;
                    }
                }
                ("textDocument/didOpen", None) => {
                    let uri = str_at(&params, &["textDocument", "uri"]);
                    let version = params["textDocument"]["version"].as_i64().unwrap_or(0);
                    let text = str_at(&params, &["textDocument", "text"]);
                    self.docs.insert(
                        uri.clone(),
                        Doc {
                            version,
                            text,
                            last_published: None,
                        },
                    );
                    self.after_change(&uri)?;
                }
                ("textDocument/didChange", None) => {
                    let uri = str_at(&params, &["textDocument", "uri"]);
                    let version = params["textDocument"]["version"].as_i64().unwrap_or(0);
                    let text = params["contentChanges"]
                        .as_array()
                        .and_then(|c| c.last())
                        .and_then(|c| c["text"].as_str())
                        .unwrap_or_default()
                        .to_owned();
                    if let Some(doc) = self.docs.get_mut(&uri) {
                        doc.version = version;
                        doc.text = text;
                    }
                    self.after_change(&uri)?;
                }
                ("textDocument/didSave", None) => {
                    let uri = str_at(&params, &["textDocument", "uri"]);
                    self.on_save(&uri)?;
                }
                ("textDocument/hover", Some(id)) => {
                    self.respond(&id, Value::Null)?;
                }
                ("textDocument/didClose", None) => {
                    let uri = str_at(&params, &["textDocument", "uri"]);
                    self.docs.remove(&uri);
                }
                ("textDocument/diagnostic", Some(id)) => {
                    let uri = str_at(&params, &["textDocument", "uri"]);
                    self.pause(self.script.delay_ms);
                    if let Some(suffix) = &self.script.slow_suffix
                        && uri.ends_with(suffix.as_str())
                    {
                        self.pause(self.script.slow_ms);
                    }
                    let mut items = self
                        .docs
                        .get(&uri)
                        .map(|d| diagnostics_for(&d.text, &self.script.marker))
                        .unwrap_or_default();
                    if self.script.cross_file {
                        items.extend(self.import_errors(&uri));
                    }
                    self.respond(&id, json!({ "kind": "full", "items": items }))?;
                }
                ("textDocument/prepareRename", Some(id)) => {
                    let p = params["position"].clone();
                    self.respond(&id, json!({ "start": p, "end": p }))?;
                }
                ("textDocument/rename", Some(id)) => {
                    let edit = self.script.rename_edit.clone().unwrap_or(Value::Null);
                    self.respond(&id, edit)?;
                }
                ("textDocument/codeAction", Some(id)) => {
                    let actions = self.script.code_actions.clone().unwrap_or(Value::Null);
                    self.respond(&id, actions)?;
                }
                ("codeAction/resolve", Some(id)) => {
                    let mut action = params.clone();
                    if let Some(edit) = self.script.resolve_edit.clone() {
                        action["edit"] = edit;
                    }
                    self.respond(&id, action)?;
                }
                ("workspace/executeCommand", Some(id))
                    if params["command"] == "typescript.tsserverRequest" =>
                {
                    let command = params["arguments"][0]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    let uri = params["arguments"][1]["file"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    match self.docs.get(&uri).map(|d| d.text.clone()) {
                        // tsserver's failure for a file in no project, as the server wraps it.
                        None => self.respond_error(&id, 1, "No Project.")?,
                        Some(text) => {
                            let body = if command == "semanticDiagnosticsSync" {
                                self.pause(self.script.delay_ms);
                                diagnostics_for(&text, &self.script.marker)
                                    .iter()
                                    .map(tsserver_diagnostic)
                                    .collect()
                            } else {
                                Vec::new()
                            };
                            self.respond(
                                &id,
                                json!({ "seq": 0, "type": "response", "command": command,
                                        "success": true, "body": body }),
                            )?;
                        }
                    }
                }
                ("workspace/executeCommand", Some(id)) => {
                    if let Some(edit) = self.script.command_edit.clone() {
                        self.request("workspace/applyEdit", json!({ "edit": edit }))?;
                    }
                    self.respond(&id, Value::Null)?;
                }
                ("textDocument/references" | "textDocument/definition", Some(id)) => {
                    let locations = self.script.locations.clone().unwrap_or(Value::Null);
                    self.respond(&id, locations)?;
                }
                ("shutdown", Some(id)) => {
                    if !self.script.ignore_shutdown {
                        shutdown = true;
                        self.respond(&id, Value::Null)?;
                    }
                }
                ("exit", None) => {
                    if !self.script.ignore_shutdown {
                        self.log_line("exit");
                        if let Some(mut child) = self.child.take() {
                            let _ = child.kill();
                            let _ = child.wait();
                        }
                        return Ok(if shutdown { 0 } else { 1 });
                    }
                }
                (_, Some(id)) => {
                    self.respond_error(&id, -32601, &format!("no such method {method}"))?;
                }
                (_, None) => {}
            }
        }
        self.log_line("eof");
        Ok(1)
    }

    /// Runs [`Script::probes`], once per process.
    fn run_probes(&mut self) {
        for probe in std::mem::take(&mut self.script.probes) {
            let outcome = probe.run();
            self.log_line(&format!(
                "probe {} {} {outcome}",
                probe.kind(),
                probe.target()
            ));
        }
    }

    fn capabilities(&self) -> Value {
        let mut caps = json!({
            "textDocumentSync": { "openClose": true, "change": 1, "save": true },
        });
        if self.script.mode == Mode::Pull {
            caps["diagnosticProvider"] =
                json!({ "interFileDependencies": false, "workspaceDiagnostics": false });
        }
        if self.script.rename_edit.is_some() {
            caps["renameProvider"] = json!({ "prepareProvider": true });
        }
        if self.script.code_actions.is_some() {
            caps["codeActionProvider"] = json!({ "resolveProvider": true });
            caps["executeCommandProvider"] = json!({ "commands": ["fake.apply"] });
        }
        if self.script.locations.is_some() {
            caps["referencesProvider"] = json!(true);
            caps["definitionProvider"] = json!(true);
        }
        if let Some(enc) = &self.script.position_encoding {
            caps["positionEncoding"] = json!(enc);
        }
        caps
    }

    fn send_server_requests(&mut self) -> std::io::Result<()> {
        let section = self.script.config_section.clone();
        self.request(
            "workspace/configuration",
            json!({ "items": [ { "section": section }, { "section": "absent.section" }, {} ] }),
        )?;
        self.request(
            "client/registerCapability",
            json!({ "registrations": [ { "id": "1", "method": "workspace/didChangeWatchedFiles" } ] }),
        )?;
        self.request(
            "window/workDoneProgress/create",
            json!({ "token": "fake/progress" }),
        )?;
        self.request("workspace/workspaceFolders", Value::Null)?;
        self.request("workspace/diagnostic/refresh", Value::Null)?;
        self.request("fake/unknownRequest", json!({}))?;
        self.notify(
            "window/logMessage",
            json!({ "type": 3, "message": "fake server up" }),
        )?;
        self.notify(
            "experimental/serverStatus",
            json!({ "health": "ok", "quiescent": true }),
        )?;
        self.notify("fake/unknownNotification", json!({ "x": 1 }))?;
        self.notify(
            "$/progress",
            json!({ "token": "fake/progress", "value": { "kind": "begin", "title": "fake" } }),
        )?;
        self.notify(
            "$/progress",
            json!({ "token": "fake/progress", "value": { "kind": "end" } }),
        )
    }

    fn on_save(&mut self, uri: &str) -> std::io::Result<()> {
        if !self.script.check_on_save {
            return Ok(());
        }
        let Some(doc) = self.docs.get(uri) else {
            return Ok(());
        };
        let (version, diags) = (doc.version, diagnostics_for(&doc.text, &self.script.marker));
        self.notify(
            "$/progress",
            json!({ "token": CHECK_TOKEN, "value": { "kind": "begin", "title": "check" } }),
        )?;
        self.pause(self.script.delay_ms);
        self.notify(
            "$/progress",
            json!({ "token": CHECK_TOKEN, "value": { "kind": "end" } }),
        )?;
        self.log_line(&format!("queue {uri} {version} {}", diags.len()));
        self.queued.push((uri.to_owned(), version, diags));
        Ok(())
    }

    fn flush_queued(&mut self) -> std::io::Result<()> {
        for (uri, version, diags) in std::mem::take(&mut self.queued) {
            self.publish(&uri, Some(version), &diags)?;
        }
        Ok(())
    }

    fn after_change(&mut self, uri: &str) -> std::io::Result<()> {
        if matches!(self.script.mode, Mode::Pull | Mode::TsserverPull) || self.script.check_on_save
        {
            return Ok(());
        }
        let Some(doc) = self.docs.get(uri) else {
            return Ok(());
        };
        let version = doc.version;
        let diags = diagnostics_for(&doc.text, &self.script.marker);
        if self.script.skip_unchanged && doc.last_published.as_ref() == Some(&diags) {
            self.log_line(&format!("skip {uri} {version}"));
            return Ok(());
        }
        self.pause(self.script.delay_ms);
        let versioned = self.script.mode == Mode::Push;
        if self.script.stale_versions && versioned {
            self.publish(uri, Some(version - 1), &stale_diagnostics())?;
        }
        self.publish(uri, versioned.then_some(version), &diags)?;
        if self.script.publish_twice {
            self.publish(uri, versioned.then_some(version), &diags)?;
        }
        if self.script.stale_versions && versioned {
            self.publish(uri, Some(version - 1), &stale_diagnostics())?;
        }
        if let Some(doc) = self.docs.get_mut(uri) {
            doc.last_published = Some(diags);
        }
        Ok(())
    }

    fn publish(&mut self, uri: &str, version: Option<i64>, diags: &[Value]) -> std::io::Result<()> {
        let mut params = json!({ "uri": uri, "diagnostics": diags });
        if let Some(v) = version {
            params["version"] = json!(v);
        }
        self.log_line(&format!("publish {uri} {version:?} {}", diags.len()));
        self.notify("textDocument/publishDiagnostics", params)
    }

    fn pause(&self, ms: u64) {
        if ms > 0 {
            // The scripted slowness of the fake server itself, not synchronization.
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    }

    fn request(&mut self, method: &str, params: Value) -> std::io::Result<()> {
        let id = self.next_id;
        self.next_id += 1;
        self.log_line(&format!("sent-request {method} {id}"));
        let mut msg = json!({ "jsonrpc": "2.0", "id": id, "method": method });
        if !params.is_null() {
            msg["params"] = params;
        }
        self.write_message(&msg)
    }

    fn notify(&mut self, method: &str, params: Value) -> std::io::Result<()> {
        self.write_message(&json!({ "jsonrpc": "2.0", "method": method, "params": params }))
    }

    fn respond(&mut self, id: &Value, result: Value) -> std::io::Result<()> {
        self.write_message(&json!({ "jsonrpc": "2.0", "id": id, "result": result }))
    }

    fn respond_error(&mut self, id: &Value, code: i64, message: &str) -> std::io::Result<()> {
        self.write_message(&json!({
            "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message }
        }))
    }

    fn write_message(&mut self, msg: &Value) -> std::io::Result<()> {
        let body = msg.to_string();
        if self.script.garbage {
            // Non-protocol text, a header with a bad length, and a frame whose body is not
            // JSON-RPC: a client must skip all of it and keep the stream.
            self.output.write_all(b"garbage: not a header at all\n")?;
            self.output.write_all(b"Content-Length: nope\r\n\r\n")?;
            let junk = "{\"not\":\"jsonrpc\"}";
            write!(self.output, "Content-Length: {}\r\n\r\n{junk}", junk.len())?;
            self.output.write_all(b"\x00\xff random bytes\r\n")?;
        }
        write!(self.output, "Content-Length: {}\r\n\r\n{body}", body.len())?;
        self.output.flush()
    }

    fn read_message(&mut self) -> std::io::Result<Option<Value>> {
        loop {
            let mut len = None;
            loop {
                let mut line = String::new();
                if self.input.read_line(&mut line)? == 0 {
                    return Ok(None);
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    len = value.trim().parse::<usize>().ok();
                }
            }
            let Some(len) = len else { continue };
            let mut body = vec![0u8; len];
            self.input.read_exact(&mut body)?;
            if let Ok(value) = serde_json::from_slice(&body) {
                return Ok(Some(value));
            }
        }
    }

    fn log_line(&mut self, line: &str) {
        if let Some(log) = &mut self.log {
            let _ = writeln!(log, "{line}");
            let _ = log.flush();
        }
    }
}

fn str_at(v: &Value, path: &[&str]) -> String {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    cur.as_str().unwrap_or_default().to_owned()
}

impl<R, W> Server<R, W> {
    /// [`Script::cross_file`]: an `F002` error on each line of `uri` importing (`from "./name"`)
    /// an open document `name.ts` that has an error line.
    fn import_errors(&self, uri: &str) -> Vec<Value> {
        let Some(doc) = self.docs.get(uri) else {
            return Vec::new();
        };
        let dir = uri.rsplit_once('/').map_or("", |(d, _)| d);
        doc.text
            .lines()
            .enumerate()
            .filter_map(|(line, content)| {
                let at = content.find("from \"./")?;
                let rest = &content[at + "from \"./".len()..];
                let name = &rest[..rest.find('"')?];
                let target = self.docs.get(&format!("{dir}/{name}.ts"))?;
                if diagnostics_for(&target.text, &self.script.marker).is_empty() {
                    return None;
                }
                Some(json!({
                    "range": {
                        "start": { "line": line, "character": 0 },
                        "end": { "line": line, "character": content.encode_utf16().count() },
                    },
                    "severity": 1,
                    "code": "F002",
                    "source": "fake",
                    "message": format!("imports ./{name}, which has errors"),
                }))
            })
            .collect()
    }
}

/// The diagnostics the fake server reports for `text`: one per line containing `marker`.
/// Positions are 0-based LSP positions (UTF-16 columns).
pub fn diagnostics_for(text: &str, marker: &str) -> Vec<Value> {
    if marker.is_empty() {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .filter_map(|(line, content)| {
            let byte = content.find(marker)?;
            let col = content[..byte].encode_utf16().count();
            let end = col + marker.encode_utf16().count();
            Some(json!({
                "range": {
                    "start": { "line": line, "character": col },
                    "end": { "line": line, "character": end },
                },
                "severity": 1,
                "code": "F001",
                "source": "fake",
                "message": format!("found {marker}"),
            }))
        })
        .collect()
}

/// An LSP diagnostic of [`diagnostics_for`] as tsserver reports it: 1-based `line` and `offset`
/// (UTF-16), `text`, `category`.
fn tsserver_diagnostic(d: &Value) -> Value {
    let at = |key: &str| {
        let p = &d["range"][key];
        json!({
            "line": p["line"].as_u64().unwrap_or_default() + 1,
            "offset": p["character"].as_u64().unwrap_or_default() + 1,
        })
    };
    json!({
        "start": at("start"),
        "end": at("end"),
        "text": d["message"],
        "code": d["code"],
        "category": "error",
        "source": d["source"],
    })
}

fn stale_diagnostics() -> Vec<Value> {
    vec![json!({
        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } },
        "severity": 1,
        "code": "STALE",
        "message": "STALE result for an older version",
    })]
}

/// Path of the `lspedit-fake-lsp` binary, built through cargo on first use in a process (a
/// no-op when it is fresh). Cargo builds only a package's own binaries for its tests, so other
/// packages' tests find the fake server here. Panics with cargo's output if the build fails:
/// it is test support.
pub fn binary() -> &'static std::path::Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let out = std::process::Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "--message-format=json",
                "--bin",
                "lspedit-fake-lsp",
                "--manifest-path",
            ])
            .arg(&manifest)
            .output();
        let out = match out {
            Ok(out) if out.status.success() => out,
            Ok(out) => panic!(
                "building lspedit-fake-lsp failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => panic!("cannot run cargo to build lspedit-fake-lsp: {e}"),
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .unwrap_or_else(|| panic!("cargo reported no executable for lspedit-fake-lsp"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_report_what_happened_and_expand_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        let file_s = file.display().to_string();
        assert_eq!(Probe::Write(file_s.clone()).run(), "ok");
        assert_eq!(Probe::Read(file_s).run(), "ok");
        assert_eq!(
            Probe::Read(dir.path().join("missing").display().to_string()).run(),
            "denied NotFound errno 2"
        );
        assert_eq!(Probe::Exec("/bin/true".into()).run(), "ok");
        assert_eq!(Probe::Exec("/bin/false".into()).run(), "exited 1");
        assert_eq!(Probe::Bind("127.0.0.1:0".into()).run(), "ok");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        assert_eq!(Probe::Connect(addr).run(), "ok");
        assert!(listener.accept().is_ok());
        // `$PATH` is set wherever tests run; an unset name stays as written.
        let path = std::env::var_os("PATH").unwrap();
        assert_eq!(expand("$PATH/x"), PathBuf::from(path).join("x"));
        assert_eq!(
            expand("$LSPEDIT_FAKE_NO_SUCH_VAR/x"),
            PathBuf::from("$LSPEDIT_FAKE_NO_SUCH_VAR/x")
        );
        assert_eq!(expand("/abs/p"), PathBuf::from("/abs/p"));
    }

    #[test]
    fn probes_are_tagged_json_and_off_by_default() {
        assert!(Script::default().probes.is_empty());
        let script: Script =
            serde_json::from_str(r#"{"probes": [{"kind": "exec", "target": "/bin/true"}]}"#)
                .unwrap();
        assert_eq!(script.probes, vec![Probe::Exec("/bin/true".into())]);
        let back: Script = serde_json::from_str(&script.to_json()).unwrap();
        assert_eq!(back.probes, script.probes);
    }
}
