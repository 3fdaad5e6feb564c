//! The fake server on tower-lsp: a [`LanguageServer`] that answers as the [`Script`] says.
//!
//! tower-lsp runs it with a concurrency of one on a single-threaded runtime, so messages are
//! handled one at a time in the order they came: a slow answer blocks everything behind it,
//! exactly like a busy real server, a busy server computes without reading, and a hang is a
//! hang. The faults tied to a point in the server's life (crash, hang, busy at an [`Event`])
//! are injected in the handler of that event; those about the byte stream (garbage on stdout,
//! an ignored `exit`, reading nothing once hung) are below tower-lsp, in `transport.rs`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::ls_types::request::{
    GotoImplementationParams, GotoImplementationResponse, GotoTypeDefinitionParams,
    GotoTypeDefinitionResponse,
};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use crate::transport::{Control, Log};
use crate::{
    CHECK_FAILED_STATUS, CHECK_TOKEN, Event, Mode, Script, WORK_TOKEN, diagnostics_for,
    stale_diagnostics, tsserver_diagnostic,
};

/// A server-to-client message of any method, with its params as given (so the fake sends
/// exactly the JSON the tests expect, typed or not).
macro_rules! raw_message {
    ($name:ident, request $method:literal) => {
        enum $name {}
        impl Request for $name {
            type Params = Value;
            type Result = Value;
            const METHOD: &'static str = $method;
        }
    };
    ($name:ident, notification $method:literal) => {
        enum $name {}
        impl Notification for $name {
            type Params = Value;
            const METHOD: &'static str = $method;
        }
    };
}

raw_message!(Configuration, request "workspace/configuration");
raw_message!(RegisterCapability, request "client/registerCapability");
raw_message!(ProgressCreate, request "window/workDoneProgress/create");
raw_message!(WorkspaceFolders, request "workspace/workspaceFolders");
raw_message!(DiagnosticRefresh, request "workspace/diagnostic/refresh");
raw_message!(UnknownRequest, request "fake/unknownRequest");
raw_message!(ApplyEdit, request "workspace/applyEdit");
raw_message!(LogMessage, notification "window/logMessage");
raw_message!(ServerStatus, notification "experimental/serverStatus");
raw_message!(UnknownNotification, notification "fake/unknownNotification");
raw_message!(Progress, notification "$/progress");
raw_message!(Publish, notification "textDocument/publishDiagnostics");

struct Doc {
    version: i64,
    text: String,
    last_published: Option<Vec<Value>>,
}

/// What the handlers change.
#[derive(Default)]
struct State {
    docs: HashMap<String, Doc>,
    /// Publishes queued by the on-save check, written by [`FakeServer::flush_queued`].
    queued: Vec<(String, i64, Vec<Value>)>,
    /// [`Script::busy_on`] has fired.
    was_busy: bool,
    /// The last on-save check could not run ([`Script::check_fail_marker`]); the status says so.
    check_failed: bool,
    /// [`Script::probes`] have run.
    probed: bool,
}

pub(crate) struct FakeServer {
    client: Client,
    script: Script,
    log: Arc<Log>,
    control: Arc<Control>,
    state: Mutex<State>,
    /// Publishes handed to tower-lsp so far (see [`Control::wait_published`]).
    publishes: AtomicU64,
    /// `callHierarchy/incomingCalls` and `outgoingCalls` requests received so far (see
    /// [`Script::calls_answered`]).
    calls_asked: AtomicU64,
}

/// `value` as the typed answer tower-lsp sends (the script's JSON, which tests write as LSP).
fn typed<T: DeserializeOwned>(value: Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| Error {
        code: ErrorCode::InternalError,
        message: format!("the script's answer is not LSP: {e}").into(),
        data: None,
    })
}

fn raw<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Uses CPU time on the calling thread for `wall` (at most that much CPU time: less when the
/// machine is loaded).
fn compute(wall: Duration) {
    let until = Instant::now() + wall;
    let mut spin = 0u64;
    while Instant::now() < until {
        spin = std::hint::black_box(spin.wrapping_add(1));
    }
}

impl FakeServer {
    /// The answer to a `textDocument/diagnostic` of `uri`.
    async fn diagnostic_answer(&self, uri: &str) -> Result<DocumentDiagnosticReportResult> {
        let uri = uri.to_owned();
        self.working().await;
        if let Some(suffix) = &self.script.slow_suffix
            && uri.ends_with(suffix.as_str())
        {
            self.pause(self.script.slow_ms).await;
        }
        self.send_hostile().await;
        let mut items = self
            .diagnostics_of(&uri)
            .map(|(_, d)| d)
            .unwrap_or_default();
        if self.script.cross_file {
            items.extend(self.import_errors(&uri));
        }
        typed(json!({ "kind": "full", "items": items }))
    }

    pub(crate) fn new(
        client: Client,
        script: Script,
        log: Arc<Log>,
        control: Arc<Control>,
    ) -> FakeServer {
        // tower-lsp numbers the server's requests from 0; the fake always numbered them from 1
        // (its tests name them by number).
        let _ = client.next_request_id();
        FakeServer {
            client,
            script,
            log,
            control,
            state: Mutex::new(State::default()),
            publishes: AtomicU64::new(0),
            calls_asked: AtomicU64::new(0),
        }
    }

    /// Past [`Script::calls_answered`] calls requests, never answers (a server still working
    /// through a huge hierarchy); the request is logged first, so a test can wait for it.
    async fn calls_limit(&self, method: &str) {
        let n = self.calls_asked.fetch_add(1, Ordering::SeqCst);
        if self
            .script
            .calls_answered
            .is_some_and(|answered| n >= answered as u64)
        {
            self.log.line(&format!("unanswered {method}"));
            std::future::pending::<()>().await;
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The scripted faults at `event` (`method` names it in the log): crash, busy, hang.
    async fn at(&self, event: Event, method: &str) {
        if self.script.crash_on == Some(event) {
            self.log.line(&format!("crash {method}"));
            std::process::exit(101);
        }
        if self.script.busy_on == Some(event)
            && !std::mem::replace(&mut self.state().was_busy, true)
        {
            self.log.line(&format!("busy {method}"));
            // Computes on the server's only thread: nothing is read or answered meanwhile, and
            // the process uses CPU time (busy, not hung).
            compute(Duration::from_millis(self.script.busy_ms));
            self.log.line(&format!("idle {method}"));
        }
        if self.script.hang_on == Some(event) {
            self.log.line(&format!("hang {method}"));
            self.control.hang();
            let tick = Duration::from_millis(self.script.hang_tick_ms);
            if !tick.is_zero() {
                // The scripted behaviour of a hung server's other threads, not synchronization.
                std::thread::spawn(move || {
                    loop {
                        compute(tick);
                        std::thread::sleep(Duration::from_millis(200).saturating_sub(tick));
                    }
                });
            }
            std::future::pending::<()>().await;
        }
    }

    /// The scripted slowness of the fake server itself, not synchronization.
    async fn pause(&self, ms: u64) {
        if ms > 0 {
            tokio::time::sleep(Duration::from_millis(ms)).await;
        }
    }

    /// The scripted wait before an answer ([`Script::delay_ms`]), shown as work in progress
    /// with [`Script::progress_ms`]: the fake server's own slowness, not synchronization.
    async fn working(&self) {
        let every = self.script.progress_ms;
        if every == 0 || self.script.delay_ms == 0 {
            return self.pause(self.script.delay_ms).await;
        }
        let until = Instant::now() + Duration::from_millis(self.script.delay_ms);
        self.notify::<Progress>(
            json!({ "token": WORK_TOKEN, "value": { "kind": "begin", "title": "fake work" } }),
        )
        .await;
        let mut n = 0u64;
        while Instant::now() < until {
            let step = Duration::from_millis(every).min(until - Instant::now());
            tokio::time::sleep(step).await;
            n += 1;
            self.notify::<Progress>(json!({ "token": WORK_TOKEN,
                "value": { "kind": "report", "message": format!("step {n}") } }))
                .await;
        }
        self.notify::<Progress>(json!({ "token": WORK_TOKEN, "value": { "kind": "end" } }))
            .await;
    }

    async fn notify<N: Notification<Params = Value>>(&self, params: Value) {
        self.client.send_notification::<N>(params).await;
    }

    /// The notifications of [`Script::hostile_text`], if any.
    async fn send_hostile(&self) {
        let Some(text) = &self.script.hostile_text else {
            return;
        };
        self.log.line("hostile");
        self.notify::<Progress>(
            json!({ "token": text, "value": { "kind": "begin", "title": "hostile" } }),
        )
        .await;
        self.notify::<Progress>(json!({ "token": text, "value": { "kind": "end" } }))
            .await;
        self.notify::<LogMessage>(json!({ "type": 3, "message": text }))
            .await;
        self.notify::<Publish>(json!({ "uri": format!("file:///{text}"), "diagnostics": [] }))
            .await;
    }

    async fn publish(&self, uri: &str, version: Option<i64>, diags: &[Value]) {
        self.send_hostile().await;
        let mut params = json!({ "uri": uri, "diagnostics": diags });
        if self.script.malformed_params
            && let Some(items) = params["diagnostics"].as_array_mut()
        {
            items.push(json!({ "message": "a diagnostic without a range" }));
        }
        if let Some(v) = version {
            params["version"] = json!(v);
        }
        self.log
            .line(&format!("publish {uri} {version:?} {}", diags.len()));
        self.publishes.fetch_add(1, Ordering::SeqCst);
        self.notify::<Publish>(params).await;
    }

    /// Writes the publishes the on-save check queued (see [`Script::check_on_save`]).
    async fn flush_queued(&self) {
        let queued = std::mem::take(&mut self.state().queued);
        for (uri, version, diags) in queued {
            self.publish(&uri, Some(version), &diags).await;
            if self.script.stale_versions {
                self.publish(&uri, Some(version - 1), &stale_diagnostics())
                    .await;
            }
        }
    }

    fn diagnostics_of(&self, uri: &str) -> Option<(i64, Vec<Value>)> {
        let state = self.state();
        let doc = state.docs.get(uri)?;
        Some((doc.version, diagnostics_for(&doc.text, &self.script.marker)))
    }

    async fn after_change(&self, uri: &str) {
        if matches!(self.script.mode, Mode::Pull | Mode::TsserverPull) || self.script.check_on_save
        {
            return;
        }
        let Some((version, diags)) = self.diagnostics_of(uri) else {
            return;
        };
        let unchanged = self
            .state()
            .docs
            .get(uri)
            .is_some_and(|d| d.last_published.as_ref() == Some(&diags));
        if self.script.skip_unchanged && unchanged {
            self.log.line(&format!("skip {uri} {version}"));
            return;
        }
        self.working().await;
        let versioned = self.script.mode == Mode::Push;
        if self.script.stale_versions && versioned {
            self.publish(uri, Some(version - 1), &stale_diagnostics())
                .await;
        }
        self.publish(uri, versioned.then_some(version), &diags)
            .await;
        if self.script.publish_twice {
            self.publish(uri, versioned.then_some(version), &diags)
                .await;
        }
        if self.script.stale_versions && versioned {
            self.publish(uri, Some(version - 1), &stale_diagnostics())
                .await;
        }
        if let Some(doc) = self.state().docs.get_mut(uri) {
            doc.last_published = Some(diags);
        }
    }

    async fn on_save(&self, uri: &str) {
        if !self.script.check_on_save {
            return;
        }
        let Some((version, diags)) = self.diagnostics_of(uri) else {
            return;
        };
        let fails = self.script.check_fail_marker.as_deref().is_some_and(|m| {
            self.state()
                .docs
                .get(uri)
                .is_some_and(|d| d.text.contains(m))
        });
        if !(fails && self.script.check_fail_silently) {
            self.notify::<Progress>(
                json!({ "token": CHECK_TOKEN, "value": { "kind": "begin", "title": "check" } }),
            )
            .await;
            self.pause(self.script.delay_ms).await;
            self.notify::<Progress>(json!({ "token": CHECK_TOKEN, "value": { "kind": "end" } }))
                .await;
        }
        // Like `cargo check`, the check reads the file from disk, as it is when the check has
        // run (a text never saved is checked as sent); the publish carries the version of the
        // document the save was for, as rust-analyzer's carries its in-memory version.
        let diags = match file_path(uri).and_then(|p| std::fs::read_to_string(p).ok()) {
            Some(text) => diagnostics_for(&text, &self.script.marker),
            None => diags,
        };
        // Like rust-analyzer: the status follows the check's end, and only when it changes.
        let was_failed = std::mem::replace(&mut self.state().check_failed, fails);
        if fails {
            self.log.line(&format!("check failed {uri} {version}"));
            if !was_failed {
                self.notify::<ServerStatus>(json!({
                    "health": "warning", "quiescent": true,
                    "message": format!("{CHECK_FAILED_STATUS}: the build dir cannot be made"),
                }))
                .await;
            }
            return;
        }
        if was_failed {
            self.notify::<ServerStatus>(json!({ "health": "ok", "quiescent": true }))
                .await;
        }
        // Like rust-analyzer, with `skip_unchanged`: a check whose result is the one published
        // last for the document (whoever's text that was) publishes nothing.
        let mut state = self.state();
        if let Some(doc) = state.docs.get_mut(uri) {
            if self.script.skip_unchanged && doc.last_published.as_ref() == Some(&diags) {
                drop(state);
                self.log.line(&format!("skip {uri} {version}"));
                return;
            }
            doc.last_published = Some(diags.clone());
        }
        state.queued.push((uri.to_owned(), version, diags.clone()));
        drop(state);
        self.log
            .line(&format!("queue {uri} {version} {}", diags.len()));
    }

    /// The requests and notifications a real server sends after `initialized`. The requests
    /// are sent by a task of their own, numbered 1 to 6 in this order (then 7 to 12, see
    /// [`Script::malformed_params`]), without holding up the messages behind this one; their
    /// answers are logged as they arrive (by the in pump) and otherwise dropped.
    async fn send_server_requests(&self) {
        let section = self.script.config_section.clone();
        let malformed = self.script.malformed_params;
        let c = self.client.clone();
        tokio::spawn(async move {
            // `join_all` polls them in order: each takes its id and queues its message.
            type Sent<'a> = Pin<Box<dyn Future<Output = Result<Value>> + Send + 'a>>;
            let mut requests: Vec<Sent<'_>> = vec![
                Box::pin(c.send_request::<Configuration>(
                    json!({ "items": [ { "section": section }, { "section": "absent.section" }, {} ] }),
                )),
                Box::pin(c.send_request::<RegisterCapability>(
                    json!({ "registrations": [ { "id": "1", "method": "workspace/didChangeWatchedFiles" } ] }),
                )),
                Box::pin(c.send_request::<ProgressCreate>(json!({ "token": "fake/progress" }))),
                Box::pin(c.send_request::<WorkspaceFolders>(Value::Null)),
                Box::pin(c.send_request::<DiagnosticRefresh>(Value::Null)),
                Box::pin(c.send_request::<UnknownRequest>(json!({}))),
            ];
            if malformed {
                requests.extend::<[Sent<'_>; 6]>([
                    Box::pin(c.send_request::<Configuration>(
                        json!({ "items": [ { "section": 5 }, { "section": section } ] }),
                    )),
                    Box::pin(c.send_request::<Configuration>(json!({ "items": "none" }))),
                    Box::pin(c.send_request::<RegisterCapability>(
                        json!({ "registrations": [ { "method": "workspace/didChangeWatchedFiles" } ] }),
                    )),
                    Box::pin(c.send_request::<WorkspaceFolders>(json!({ "unexpected": true }))),
                    Box::pin(c.send_request::<ProgressCreate>(json!({}))),
                    Box::pin(c.send_request::<ApplyEdit>(json!({ "label": 5 }))),
                ]);
            }
            futures::future::join_all(requests).await
        });
        self.notify::<LogMessage>(json!({ "type": 3, "message": "fake server up" }))
            .await;
        self.notify::<ServerStatus>(json!({ "health": "ok", "quiescent": true }))
            .await;
        self.notify::<UnknownNotification>(json!({ "x": 1 })).await;
        self.notify::<Progress>(
            json!({ "token": "fake/progress", "value": { "kind": "begin", "title": "fake" } }),
        )
        .await;
        self.notify::<Progress>(json!({ "token": "fake/progress", "value": { "kind": "end" } }))
            .await;
        if self.script.malformed_params {
            self.notify::<LogMessage>(json!({ "message": "fake server up, untyped" }))
                .await;
            self.notify::<ServerStatus>(json!({ "quiescent": "yes" }))
                .await;
            self.notify::<Progress>(
                json!({ "token": "fake/untyped", "value": { "kind": "begin" } }),
            )
            .await;
            self.notify::<Progress>(json!({ "token": "fake/untyped", "value": { "kind": "end" } }))
                .await;
            self.notify::<Publish>(json!({ "uri": "not a uri", "diagnostics": [] }))
                .await;
            self.notify::<Publish>(json!("garbage")).await;
        }
    }

    /// Runs [`Script::probes`], once per process.
    fn run_probes(&self) {
        if std::mem::replace(&mut self.state().probed, true) {
            return;
        }
        for probe in &self.script.probes {
            let outcome = probe.run();
            self.log.line(&format!(
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
        let offers = [
            (
                self.script.document_symbols.is_some(),
                "documentSymbolProvider",
            ),
            (self.script.hover.is_some(), "hoverProvider"),
            (self.script.call_items.is_some(), "callHierarchyProvider"),
            (
                self.script.implementations.is_some(),
                "implementationProvider",
            ),
            (
                self.script.type_definitions.is_some(),
                "typeDefinitionProvider",
            ),
        ];
        for (offered, capability) in offers {
            if offered {
                caps[capability] = json!(true);
            }
        }
        if let Some(enc) = &self.script.position_encoding {
            caps["positionEncoding"] = json!(enc);
        }
        caps
    }

    /// [`Script::cross_file`]: an `F002` error on each line of `uri` importing (`from "./name"`)
    /// an open document `name.ts` that has an error line.
    fn import_errors(&self, uri: &str) -> Vec<Value> {
        let state = self.state();
        let Some(doc) = state.docs.get(uri) else {
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
                let target = state.docs.get(&format!("{dir}/{name}.ts"))?;
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

    /// typescript-language-server's `typescript.tsserverRequest`, answered as tsserver's
    /// `*DiagnosticsSync` responses.
    async fn tsserver_request(&self, arguments: &[Value]) -> Result<Option<Value>> {
        let command = arguments
            .first()
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let uri = arguments
            .get(1)
            .and_then(|a| a["file"].as_str())
            .unwrap_or_default();
        let text = self.state().docs.get(uri).map(|d| d.text.clone());
        let Some(text) = text else {
            // tsserver's failure for a file in no project, as the server wraps it.
            return Err(Error {
                code: ErrorCode::ServerError(1),
                message: "No Project.".into(),
                data: None,
            });
        };
        let body: Vec<Value> = if command == "semanticDiagnosticsSync" {
            self.working().await;
            diagnostics_for(&text, &self.script.marker)
                .iter()
                .map(tsserver_diagnostic)
                .collect()
        } else {
            Vec::new()
        };
        Ok(Some(
            json!({ "seq": 0, "type": "response", "command": command,
                        "success": true, "body": body }),
        ))
    }
}

impl LanguageServer for FakeServer {
    async fn initialize(&self, _: InitializeParams) -> Result<InitializeResult> {
        self.at(Event::Initialize, "initialize").await;
        self.pause(self.script.initialize_delay_ms).await;
        typed(json!({
            "capabilities": self.capabilities(),
            "serverInfo": { "name": "lspedit-fake-lsp" },
        }))
    }

    async fn initialized(&self, _: InitializedParams) {
        // Right after the answer to `initialize`, as a server's first work.
        self.run_probes();
        self.at(Event::Initialized, "initialized").await;
        if self.script.server_requests {
            self.send_server_requests().await;
        }
    }

    async fn shutdown(&self) -> Result<()> {
        self.at(Event::Shutdown, "shutdown").await;
        if self.script.ignore_shutdown {
            // Never answered: the client must give up and kill the server, or close its input,
            // which ends the server as any end of input does.
            self.control.input_closed().await;
            self.log.line("eof");
            std::process::exit(1);
        }
        self.control.shutdown_answered.store(true, Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.flush_queued().await;
        self.at(Event::DidOpen, "textDocument/didOpen").await;
        let doc = params.text_document;
        let uri = doc.uri.as_str().to_owned();
        self.state().docs.insert(
            uri.clone(),
            Doc {
                version: i64::from(doc.version),
                text: doc.text,
                last_published: None,
            },
        );
        self.after_change(&uri).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.flush_queued().await;
        self.at(Event::DidChange, "textDocument/didChange").await;
        let uri = params.text_document.uri.as_str().to_owned();
        let text = params
            .content_changes
            .into_iter()
            .last()
            .map(|c| c.text)
            .unwrap_or_default();
        if let Some(doc) = self.state().docs.get_mut(&uri) {
            doc.version = i64::from(params.text_document.version);
            doc.text = text;
        }
        self.after_change(&uri).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.flush_queued().await;
        self.at(Event::DidSave, "textDocument/didSave").await;
        self.on_save(params.text_document.uri.as_str()).await;
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.flush_queued().await;
        self.state().docs.remove(params.text_document.uri.as_str());
    }

    async fn hover(&self, _: HoverParams) -> Result<Option<Hover>> {
        // Answered from rust-analyzer's worker pool in the emulation of `check_on_save`: the
        // queued publishes go first, and are on the wire before this answer.
        self.flush_queued().await;
        self.control
            .wait_published(self.publishes.load(Ordering::SeqCst))
            .await;
        typed(self.script.hover.clone().unwrap_or(Value::Null))
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        self.at(Event::Diagnostic, "textDocument/diagnostic").await;
        let uri = params.text_document.uri.as_str().to_owned();
        // Logged as it begins and as it ends: a test counts the pulls in flight. A pull that is
        // cancelled (dropped) logs no end.
        self.log.line(&format!("pull {uri}"));
        let answer = self.diagnostic_answer(&uri).await;
        self.log.line(&format!("pulled {uri}"));
        answer
    }

    async fn prepare_rename(
        &self,
        params: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        let p = raw(&params.position);
        typed(json!({ "start": p, "end": p }))
    }

    async fn rename(&self, _: RenameParams) -> Result<Option<WorkspaceEdit>> {
        typed(self.script.rename_edit.clone().unwrap_or(Value::Null))
    }

    async fn code_action(&self, _: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        typed(self.script.code_actions.clone().unwrap_or(Value::Null))
    }

    async fn code_action_resolve(&self, action: CodeAction) -> Result<CodeAction> {
        let mut action = raw(&action);
        if let Some(edit) = self.script.resolve_edit.clone() {
            action["edit"] = edit;
        }
        typed(action)
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == "typescript.tsserverRequest" {
            return self.tsserver_request(&params.arguments).await;
        }
        if let Some(edit) = self.script.command_edit.clone() {
            // Sent before the command's answer, as servers do; the client's answer is not used.
            let _ = self
                .client
                .send_request::<ApplyEdit>(json!({ "edit": edit }))
                .await;
        }
        Ok(None)
    }

    async fn references(&self, _: ReferenceParams) -> Result<Option<Vec<Location>>> {
        typed(self.script.locations.clone().unwrap_or(Value::Null))
    }

    async fn goto_definition(
        &self,
        _: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        typed(self.script.locations.clone().unwrap_or(Value::Null))
    }

    async fn document_symbol(
        &self,
        _: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        typed(self.script.document_symbols.clone().unwrap_or(Value::Null))
    }

    async fn prepare_call_hierarchy(
        &self,
        _: CallHierarchyPrepareParams,
    ) -> Result<Option<Vec<CallHierarchyItem>>> {
        typed(self.script.call_items.clone().unwrap_or(Value::Null))
    }

    async fn incoming_calls(
        &self,
        _: CallHierarchyIncomingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyIncomingCall>>> {
        self.calls_limit("callHierarchy/incomingCalls").await;
        typed(self.script.incoming_calls.clone().unwrap_or(Value::Null))
    }

    async fn outgoing_calls(
        &self,
        _: CallHierarchyOutgoingCallsParams,
    ) -> Result<Option<Vec<CallHierarchyOutgoingCall>>> {
        self.calls_limit("callHierarchy/outgoingCalls").await;
        typed(self.script.outgoing_calls.clone().unwrap_or(Value::Null))
    }

    async fn goto_implementation(
        &self,
        _: GotoImplementationParams,
    ) -> Result<Option<GotoImplementationResponse>> {
        typed(self.script.implementations.clone().unwrap_or(Value::Null))
    }

    async fn goto_type_definition(
        &self,
        _: GotoTypeDefinitionParams,
    ) -> Result<Option<GotoTypeDefinitionResponse>> {
        typed(self.script.type_definitions.clone().unwrap_or(Value::Null))
    }
}

/// The path of a `file://` URI, percent-decoded; `None` for any other URI or a path that is
/// not UTF-8.
fn file_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?.as_bytes();
    let mut bytes = Vec::with_capacity(rest.len());
    let mut i = 0;
    while i < rest.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            rest[i],
            rest.get(i + 1).and_then(|b| hex(*b)),
            rest.get(i + 2).and_then(|b| hex(*b)),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                bytes.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                bytes.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(bytes).ok().map(std::path::PathBuf::from)
}
