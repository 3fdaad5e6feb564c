//! The client side of the main loop: what lspedit answers to the requests a server sends and
//! what it records of its notifications, as async-lsp typed handlers.
//!
//! Every typed handler takes [`Params`]: the params in their `lsp_types` shape when they fit
//! it, else the JSON as sent, read field by field. async-lsp answers a typed request whose
//! params do not deserialize with `InvalidParams`, and ends the main loop on such a
//! notification; a sloppy or hostile server must get neither. For params that fit, both
//! readings give the same values, so a server gets the same answer either way.
//!
//! A handler that panics all the same costs its message only: async-lsp's `CatchUnwindLayer`
//! answers a request whose handler panicked with an internal error, and
//! [`CatchNotificationUnwind`] drops a notification whose handler panicked (async-lsp's layer
//! passes notifications through unguarded: the panic would end the main loop, and with it the
//! connection, unnoticed).

use std::future::{Ready, ready};
use std::marker::PhantomData;
use std::ops::ControlFlow;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use async_lsp::lsp_types::notification::{
    LogMessage, Notification, Progress, PublishDiagnostics, ShowMessage,
};
use async_lsp::lsp_types::request::{
    ApplyWorkspaceEdit, CodeLensRefresh, InlayHintRefreshRequest, InlineValueRefreshRequest,
    RegisterCapability, Request, SemanticTokensRefresh, UnregisterCapability,
    WorkDoneProgressCreate, WorkspaceConfiguration, WorkspaceDiagnosticRefresh,
    WorkspaceFoldersRequest,
};
use async_lsp::lsp_types::{
    ApplyWorkspaceEditParams, ApplyWorkspaceEditResponse, ConfigurationParams, NumberOrString,
    ProgressParams, ProgressParamsValue, PublishDiagnosticsParams, RegistrationParams, Url,
    WorkDoneProgress, WorkspaceFolder,
};
use async_lsp::router::Router;
use async_lsp::{AnyEvent, AnyNotification, AnyRequest, ErrorCode, LspService, ResponseError};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Published, SaveStart, Shared, Stop};
use crate::diagnostics::each_diagnostic;

/// A server's params: `Typed` when they deserialize into `P`, else `Raw`, the JSON as sent.
/// Deserializing it never fails.
#[derive(Debug)]
pub(super) enum Params<P> {
    Typed(P),
    Raw(Value),
}

impl<'de, P: DeserializeOwned> Deserialize<'de> for Params<P> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        Ok(match P::deserialize(&raw) {
            Ok(p) => Params::Typed(p),
            Err(_) => Params::Raw(raw),
        })
    }
}

// `lsp_types` asks for it on params; only ever used to send, which the client never does.
impl<P: Serialize> Serialize for Params<P> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Params::Typed(p) => p.serialize(s),
            Params::Raw(v) => v.serialize(s),
        }
    }
}

/// The `lsp_types` request or notification `M`, routed under its method with [`Params`].
pub(super) struct Tolerant<M>(PhantomData<M>);

impl<R: Request> Request for Tolerant<R> {
    type Params = Params<R::Params>;
    type Result = R::Result;
    const METHOD: &'static str = R::METHOD;
}

impl<N: Notification> Notification for Tolerant<N> {
    type Params = Params<N::Params>;
    const METHOD: &'static str = N::METHOD;
}

/// rust-analyzer's `experimental/serverStatus` (not in `lsp_types`): `quiescent` says whether
/// it has loaded the project, `message` what is wrong (such as a check that could not run).
enum ServerStatus {}

#[derive(Debug, Serialize, Deserialize)]
struct ServerStatusParams {
    quiescent: Option<bool>,
    message: Option<String>,
}

impl Notification for ServerStatus {
    type Params = ServerStatusParams;
    const METHOD: &'static str = "experimental/serverStatus";
}

/// The host's word that another client's text of a document replaced this pool's in the
/// shared server ([`crate::host::TEXT_REPLACED`]).
enum TextReplaced {}

#[derive(Debug, Serialize, Deserialize)]
struct TextReplacedParams {
    uri: Url,
}

impl Notification for TextReplaced {
    type Params = TextReplacedParams;
    const METHOD: &'static str = crate::host::TEXT_REPLACED;
}

/// The host's word of what the server last published for a document, whichever client's text
/// it went to ([`crate::host::PUBLISHED`]).
enum Relayed {}

#[derive(Debug, Serialize, Deserialize)]
struct RelayedParams {
    uri: Url,
    diagnostics: Value,
}

impl Notification for Relayed {
    type Params = RelayedParams;
    const METHOD: &'static str = crate::host::PUBLISHED;
}

/// The host's word that our `didSave` goes to the server now ([`crate::host::SAVE_STARTED`]).
enum SaveStarted {}

#[derive(Debug, Serialize, Deserialize)]
struct SaveStartedParams {
    uri: Url,
}

impl Notification for SaveStarted {
    type Params = SaveStartedParams;
    const METHOD: &'static str = crate::host::SAVE_STARTED;
}

type Answer<T> = Ready<Result<T, ResponseError>>;

/// The main loop's service: the requests servers block on get success, anything else
/// MethodNotFound as JSON-RPC requires; notifications are recorded or ignored, never an end
/// of the loop.
pub(super) fn router(shared: Arc<Shared>) -> Router<Arc<Shared>> {
    let mut router = Router::new(shared);
    router
        .request::<Tolerant<WorkspaceConfiguration>, _>(|st, p| ready(Ok(st.configuration(&p))))
        .request::<Tolerant<RegisterCapability>, _>(|st, p| {
            st.register(&p);
            ready(Ok(()))
        })
        .request::<Tolerant<ApplyWorkspaceEdit>, _>(|st, p| ready(Ok(st.apply_edit(p))))
        .request::<Tolerant<WorkspaceFoldersRequest>, _>(|st, _| {
            ready(Ok(Some(vec![st.workspace_folder()])))
        });
    acknowledge::<WorkDoneProgressCreate>(&mut router);
    acknowledge::<UnregisterCapability>(&mut router);
    acknowledge::<WorkspaceDiagnosticRefresh>(&mut router);
    acknowledge::<SemanticTokensRefresh>(&mut router);
    acknowledge::<InlayHintRefreshRequest>(&mut router);
    acknowledge::<InlineValueRefreshRequest>(&mut router);
    acknowledge::<CodeLensRefresh>(&mut router);
    router
        .unhandled_request(|st, req| -> Answer<Value> {
            tracing::debug!(server = %st.name, method = %req.method, "unhandled server request");
            ready(Err(ResponseError::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("lspedit does not handle {}", req.method),
            )))
        })
        .notification::<Tolerant<PublishDiagnostics>>(|st, p| {
            st.heard(None);
            st.on_publish(p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<Progress>>(|st, p| {
            st.heard(progress_doing(&p));
            st.on_progress(&p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<ServerStatus>>(|st, p| {
            st.heard(None);
            st.on_server_status(&p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<TextReplaced>>(|st, p| {
            st.on_text_replaced(&p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<SaveStarted>>(|st, p| {
            st.on_save_started(&p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<Relayed>>(|st, p| {
            st.on_relayed(&p);
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<LogMessage>>(|st, p| {
            st.heard(None);
            st.on_message(LogMessage::METHOD, message(&p, |p| &p.message));
            ControlFlow::Continue(())
        })
        .notification::<Tolerant<ShowMessage>>(|st, p| {
            st.heard(None);
            st.on_message(ShowMessage::METHOD, message(&p, |p| &p.message));
            ControlFlow::Continue(())
        })
        .unhandled_notification(|st, n| {
            st.heard(None);
            tracing::trace!(server = %st.name, method = %n.method, "ignored notification");
            ControlFlow::Continue(())
        })
        .event(|_, _: Stop| ControlFlow::Break(Ok(())))
        .unhandled_event(|_, _| ControlFlow::Continue(()));
    router
}

/// The layer under which every notification handler runs: a panic in one is logged and the
/// notification dropped; the main loop goes on. Requests and events pass through (requests
/// are `CatchUnwindLayer`'s; the only event is lspedit's own `Stop`).
#[derive(Clone)]
pub(super) struct CatchNotificationUnwindLayer {
    /// The server's name, for the log.
    pub(super) server: String,
}

impl<S> tower::Layer<S> for CatchNotificationUnwindLayer {
    type Service = CatchNotificationUnwind<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CatchNotificationUnwind {
            inner,
            server: self.server.clone(),
        }
    }
}

/// See [`CatchNotificationUnwindLayer`].
pub(super) struct CatchNotificationUnwind<S> {
    inner: S,
    server: String,
}

impl<S: LspService> tower::Service<AnyRequest> for CatchNotificationUnwind<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: AnyRequest) -> Self::Future {
        self.inner.call(req)
    }
}

impl<S: LspService> LspService for CatchNotificationUnwind<S> {
    fn notify(&mut self, notif: AnyNotification) -> ControlFlow<async_lsp::Result<()>> {
        let method = notif.method.clone();
        // Unwind safe enough: the handlers keep their state behind `Shared`'s mutex, whose
        // poisoning is ignored, and the router holds nothing a handler changes; a handler
        // stopped half-way costs what losing its notification would.
        match catch_unwind(AssertUnwindSafe(|| self.inner.notify(notif))) {
            Ok(flow) => flow,
            Err(payload) => {
                let why = payload
                    .downcast_ref::<&str>()
                    .copied()
                    .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
                    .unwrap_or("a panic");
                tracing::error!(server = %self.server, %method, "notification handler panicked; notification dropped: {why}");
                ControlFlow::Continue(())
            }
        }
    }

    fn emit(&mut self, event: AnyEvent) -> ControlFlow<async_lsp::Result<()>> {
        self.inner.emit(event)
    }
}

/// Answers `R` with success and nothing more: requests a server blocks on whose content
/// lspedit has no use for.
fn acknowledge<R: Request<Result = ()>>(router: &mut Router<Arc<Shared>>) {
    router.request::<Tolerant<R>, _>(|_, _| -> Answer<()> { ready(Ok(())) });
}

/// The `message` of a log or show message (`typed` reads it from the typed shape); empty when
/// there is none.
/// The `uri` of a host notification's params, typed or raw; `None` when it has none.
fn uri_param<P>(p: &Params<P>, typed: impl Fn(&P) -> &Url) -> Option<Url> {
    match p {
        Params::Typed(p) => Some(typed(p).clone()),
        Params::Raw(v) => v
            .get("uri")
            .and_then(Value::as_str)
            .and_then(|u| Url::parse(u).ok()),
    }
}

fn message<P>(p: &Params<P>, typed: impl Fn(&P) -> &String) -> &str {
    match p {
        Params::Typed(p) => typed(p),
        Params::Raw(v) => v.get("message").and_then(Value::as_str).unwrap_or_default(),
    }
}

impl Shared {
    /// One setting per item asked for (see [`lspedit_servers::ServerConfig::setting`]).
    fn configuration(&self, p: &Params<ConfigurationParams>) -> Vec<Value> {
        let sections: Vec<Option<&str>> = match p {
            Params::Typed(p) => p.items.iter().map(|i| i.section.as_deref()).collect(),
            Params::Raw(v) => v
                .get("items")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|item| item.get("section").and_then(Value::as_str))
                .collect(),
        };
        sections.into_iter().map(|s| self.cfg.setting(s)).collect()
    }

    /// Records the methods the server registered (dynamic registration).
    fn register(&self, p: &Params<RegistrationParams>) {
        let methods: Vec<&str> = match p {
            Params::Typed(p) => p.registrations.iter().map(|r| r.method.as_str()).collect(),
            Params::Raw(v) => v
                .get("registrations")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|r| r.get("method").and_then(Value::as_str))
                .collect(),
        };
        let mut st = self.lock();
        for m in methods {
            st.registrations.insert(m.to_owned());
        }
    }

    /// The edit goes through the caller's planner instead (requests.rs collects it): the
    /// server is told it was applied, as the caller applies it right after.
    fn apply_edit(&self, p: Params<ApplyWorkspaceEditParams>) -> ApplyWorkspaceEditResponse {
        let edit = match p {
            // Kept as JSON, as a malformed one is: requests.rs reads both the same way.
            Params::Typed(p) => serde_json::to_value(p.edit).unwrap_or(Value::Null),
            Params::Raw(v) => v.get("edit").cloned().unwrap_or(Value::Null),
        };
        {
            let mut st = self.lock();
            st.seq += 1;
            let seq = st.seq;
            // Bounded: a server that sends edits nobody asked for cannot grow it.
            if st.applied_edits.len() >= 64 {
                st.applied_edits.remove(0);
            }
            st.applied_edits.push((seq, edit));
        }
        self.bump();
        ApplyWorkspaceEditResponse {
            applied: true,
            failure_reason: None,
            failed_change: None,
        }
    }

    /// The one workspace folder: the server's root.
    fn workspace_folder(&self) -> WorkspaceFolder {
        let name = self
            .root_uri
            .path_segments()
            .and_then(|mut s| s.next_back())
            .unwrap_or("root");
        WorkspaceFolder {
            uri: self.root_uri.clone(),
            name: name.to_owned(),
        }
    }

    fn on_publish(&self, p: Params<PublishDiagnosticsParams>) {
        let (uri, version, diagnostics) = match p {
            Params::Typed(p) => (p.uri, p.version, p.diagnostics),
            Params::Raw(params) => {
                let Some(uri) = params
                    .get("uri")
                    .and_then(Value::as_str)
                    .and_then(|u| Url::parse(u).ok())
                else {
                    tracing::debug!(server = %self.name, "publishDiagnostics without a valid uri");
                    return;
                };
                let version = params
                    .get("version")
                    .and_then(Value::as_i64)
                    .and_then(|v| i32::try_from(v).ok());
                let diagnostics = each_diagnostic(params.get("diagnostics"));
                (uri, version, diagnostics)
            }
        };
        {
            let mut st = self.lock();
            st.seq += 1;
            let seq = st.seq;
            if let (Some(old), Some(new)) =
                (st.publishes.get(&uri).and_then(|p| p.version), version)
                && new < old
            {
                tracing::debug!(server = %self.name, %uri, old, new, "dropping publish for an older version");
                return;
            }
            tracing::trace!(server = %self.name, %uri, ?version, count = diagnostics.len(), "publish");
            st.publishes.insert(
                uri,
                Published {
                    version,
                    diagnostics,
                    seq,
                    at: Instant::now(),
                },
            );
        }
        self.bump();
    }

    /// Any notification: the server is doing something (what the pool's wait for a verdict past
    /// its deadline looks at, `Server::activity`); `doing` is what a `$/progress` says.
    fn heard(&self, doing: Option<(Option<String>, Option<String>)>) {
        let mut st = self.lock();
        st.heard = st.heard.wrapping_add(1);
        match doing {
            // A begin: new work, under its title.
            Some((Some(title), message)) => st.doing = (Some(title), message),
            // A report: the same work, further on.
            Some((None, Some(message))) => st.doing.1 = Some(message),
            _ => {}
        }
    }

    /// `$/progress`: the on-save check's tokens (the declaration's `check_progress` prefix)
    /// count checks begun and running; any other token is project loading or indexing.
    fn on_progress(&self, p: &Params<ProgressParams>) {
        tracing::trace!(server = %self.name, params = ?p, "progress");
        let (token, kind) = match p {
            Params::Typed(p) => {
                let token = match &p.token {
                    NumberOrString::String(s) => s.clone(),
                    NumberOrString::Number(n) => n.to_string(),
                };
                let ProgressParamsValue::WorkDone(value) = &p.value;
                let kind = match value {
                    WorkDoneProgress::Begin(_) => "begin",
                    WorkDoneProgress::Report(_) => "report",
                    WorkDoneProgress::End(_) => "end",
                };
                (token, kind)
            }
            Params::Raw(params) => {
                let token = match params.get("token") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Number(x)) => x.to_string(),
                    _ => return,
                };
                let kind = params
                    .pointer("/value/kind")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                (token, kind)
            }
        };
        let prefix = self.cfg.diagnostics.check_progress.as_deref();
        if !prefix.is_some_and(|p| token.starts_with(p)) {
            {
                let mut st = self.lock();
                match kind {
                    "begin" => {
                        st.loading.insert(token);
                    }
                    "end" => {
                        st.loading.remove(&token);
                    }
                    _ => return,
                }
            }
            self.bump();
            return;
        }
        {
            let mut st = self.lock();
            st.seq += 1;
            match kind {
                "begin" => {
                    st.check_begins += 1;
                    st.check_active.insert(token);
                }
                "end" => {
                    st.check_active.remove(&token);
                }
                _ => {}
            }
        }
        self.bump();
    }

    /// `experimental/serverStatus`: whether the server has loaded the project, and whether its
    /// last on-save check could not run (the declaration's `check_failed_status`).
    fn on_server_status(&self, p: &Params<ServerStatusParams>) {
        let (quiescent, message) = match p {
            Params::Typed(p) => (p.quiescent, p.message.as_deref()),
            Params::Raw(v) => (
                v.get("quiescent").and_then(Value::as_bool),
                v.get("message").and_then(Value::as_str),
            ),
        };
        let check_failed = self
            .cfg
            .diagnostics
            .check_failed_status
            .as_deref()
            .zip(message)
            .is_some_and(|(failed, message)| message.contains(failed));
        tracing::trace!(server = %self.name, ?quiescent, check_failed, "server status");
        {
            let mut st = self.lock();
            st.seq += 1;
            st.quiescent = quiescent;
            st.check_failed = check_failed;
            if check_failed {
                st.check_failures += 1;
            }
        }
        self.bump();
    }

    /// The host says another client's text of a document replaced ours in the server: recorded
    /// with the sequence number it arrived at (`Server::settle_on_save` compares).
    fn on_text_replaced(&self, p: &Params<TextReplacedParams>) {
        let Some(uri) = uri_param(p, |p| &p.uri) else {
            return;
        };
        tracing::trace!(server = %self.name, %uri, "another client's text replaced ours");
        {
            let mut st = self.lock();
            st.seq += 1;
            let seq = st.seq;
            st.replaced.insert(uri, seq);
        }
        self.bump();
    }

    /// The host says what the server last published for a document: recorded as the
    /// server's latest word on it (never as a publish that follows a write).
    fn on_relayed(&self, p: &Params<RelayedParams>) {
        let Some(uri) = uri_param(p, |p| &p.uri) else {
            return;
        };
        let diagnostics = each_diagnostic(match p {
            Params::Typed(p) => Some(&p.diagnostics),
            Params::Raw(v) => v.get("diagnostics"),
        });
        tracing::trace!(server = %self.name, %uri, count = diagnostics.len(), "the server's last publish, relayed");
        {
            let mut st = self.lock();
            st.seq += 1;
            let seq = st.seq;
            st.relayed.insert(uri, (seq, diagnostics));
        }
        self.bump();
    }

    /// The host says our `didSave` goes to the server now: recorded with the sequence number it
    /// arrived at and the check counts as they were (our check's progress follows it).
    fn on_save_started(&self, p: &Params<SaveStartedParams>) {
        let Some(uri) = uri_param(p, |p| &p.uri) else {
            return;
        };
        tracing::trace!(server = %self.name, %uri, "the host sent our save on");
        {
            let mut st = self.lock();
            st.seq += 1;
            let started = SaveStart {
                seq: st.seq,
                check_begins: st.check_begins,
                check_failures: st.check_failures,
            };
            st.save_started.insert(uri, started);
        }
        self.bump();
    }

    /// `window/logMessage` and `window/showMessage`: logged; a log line matching the
    /// declaration's `loaded_log` says the project is loaded.
    fn on_message(&self, method: &str, msg: &str) {
        tracing::debug!(server = %self.name, "{method}: {msg}");
        let loaded = &self.cfg.diagnostics.loaded_log;
        if method == LogMessage::METHOD && loaded.iter().any(|p| msg.starts_with(p.as_str())) {
            self.lock().loaded_log_seen = true;
            self.bump();
        }
    }
}

/// What a `$/progress` says the server is doing: a begin's title and message, a report's
/// message (each on one line, bounded); `None` for an end.
fn progress_doing(p: &Params<ProgressParams>) -> Option<(Option<String>, Option<String>)> {
    let (title, message) = match p {
        Params::Typed(p) => {
            let ProgressParamsValue::WorkDone(value) = &p.value;
            match value {
                WorkDoneProgress::Begin(b) => (Some(b.title.clone()), b.message.clone()),
                WorkDoneProgress::Report(r) => (None, r.message.clone()),
                WorkDoneProgress::End(_) => return None,
            }
        }
        Params::Raw(v) => {
            let text = |k: &str| {
                v.pointer(&format!("/value/{k}"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            if text("kind").as_deref() == Some("end") {
                return None;
            }
            (text("title"), text("message"))
        }
    };
    // A server's own words, shown on one line: bounded, without control characters.
    let line = |t: String| -> String {
        t.chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(60)
            .collect()
    };
    Some((title.map(line), message.map(line)))
}
