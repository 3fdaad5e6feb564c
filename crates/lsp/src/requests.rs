//! The requests an editor makes of a server beyond diagnostics: rename (`prepareRename`, then
//! `rename`), code actions (`codeAction`, `codeAction/resolve`, and a command's
//! `workspace/executeCommand` whose edits come back as `workspace/applyEdit` requests), and
//! references and definition.
//!
//! Positions go in as byte offsets of the text the caller read and are converted here to the
//! encoding the server negotiated; what comes back is LSP-level data (`WorkspaceEdit`,
//! `CodeAction`, `Location`) with that encoding, for the caller to convert. Nothing here applies
//! an edit: a server's `workspace/applyEdit` is collected (server.rs) and returned.
//!
//! Before each request the server gets the caller's text of the file (the text the positions
//! are about), the stat check of its other open documents, and, for a server that reports
//! loading (rust-analyzer), the end of it: a rename right after a start must see the project.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_lsp::ErrorCode;
use async_lsp::lsp_types::request::Request;
use async_lsp::lsp_types::{CodeAction, CodeActionOrCommand, Location, Range, Url, WorkspaceEdit};
use serde_json::{Value, json};

use crate::pool::BusyGuard;
use crate::server::{Server, Viewed};
use crate::{BlockingPool, LspError, Pool, PositionEncoding};

/// A request with untyped params and result: servers' answers vary in shape (`null`, a
/// location or a list, links or locations), so they are read leniently here.
macro_rules! raw_request {
    ($name:ident, $method:literal) => {
        enum $name {}
        impl Request for $name {
            type Params = Value;
            type Result = Value;
            const METHOD: &'static str = $method;
        }
    };
}
pub(crate) use raw_request;

raw_request!(RawPrepareRename, "textDocument/prepareRename");
raw_request!(RawRename, "textDocument/rename");
raw_request!(RawCodeAction, "textDocument/codeAction");
raw_request!(RawResolve, "codeAction/resolve");
raw_request!(RawExecute, "workspace/executeCommand");
raw_request!(RawReferences, "textDocument/references");
raw_request!(RawDefinition, "textDocument/definition");

/// How many times a request the server dropped because its state moved on (content modified,
/// server cancelled) is sent again.
const RETRIES: usize = 10;

/// A server's edit for a rename or a code action: the `WorkspaceEdit`s in the order they are
/// to be applied (one for a rename or an action with an edit; a command may send several
/// `workspace/applyEdit` requests), with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct ServerEdit {
    pub server: String,
    pub edits: Vec<WorkspaceEdit>,
    pub encoding: PositionEncoding,
    /// The server's own time for the request(s) that produced the edit.
    pub server_time: Duration,
}

/// The code actions a server offers for a range, with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct CodeActions {
    pub server: String,
    pub actions: Vec<CodeActionOrCommand>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
}

/// Locations a server answered (references, definition), with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct Locations {
    pub server: String,
    pub locations: Vec<Location>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server had not finished loading the project when it answered (see
    /// `ServerConfig`'s loading signals): the list may miss locations in files it had not
    /// read yet.
    pub partial: bool,
}

impl Pool {
    /// The running server for `path` (started when needed), with `text` as its document, the
    /// stat check of its other documents done and its loading finished: an edit computed on a
    /// project half loaded would change some files and miss others, so not loaded by
    /// `deadline` is a timeout.
    async fn ready_server(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<(Viewed, PathBuf, Url), LspError> {
        let since = Instant::now();
        let (server, abs, uri, loaded) = self.synced_server(path, text, deadline, deadline).await?;
        if !loaded {
            return Err(LspError::Timeout {
                server: server.id.clone(),
                stage: "waiting for the server to load the project",
                waited: since.elapsed(),
            });
        }
        Ok((server, abs, uri))
    }

    /// The running server for `path` with `text` as its document and the stat check done,
    /// waiting for its loading to finish until `load_by`; with whether it did. Its view of
    /// the files stays current while the returned server is held (no check pass shows it a
    /// changed file's older text meanwhile: [`Viewed`]).
    pub(crate) async fn synced_server(
        &self,
        path: &Path,
        text: &str,
        load_by: Instant,
        deadline: Instant,
    ) -> Result<(Viewed, PathBuf, Url, bool), LspError> {
        let abs = self.absolute(path)?;
        let key = self.key_for(&abs)?;
        let server = Viewed::of(self.get_server(&key, deadline).await?, deadline).await?;
        self.touch_slot(&key);
        let skip = std::iter::once(abs.clone()).collect();
        server.refresh_from_disk(&skip)?;
        let uri = server.sync_for_request(&abs, text, deadline).await?;
        let loaded = server.wait_loaded(&uri, load_by.min(deadline)).await?;
        Ok((server, abs, uri, loaded))
    }

    /// Rename the symbol at byte `offset` of `path` (whose text is `text`, as on disk) to
    /// `new_name`: `textDocument/prepareRename` first where the server offers it (a `null`
    /// answer: [`LspError::Declined`]), then `textDocument/rename`. The edit is returned, never
    /// applied.
    pub async fn rename(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        new_name: &str,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        let (server, _, uri) = self.ready_server(path, text, deadline).await?;
        let _busy = BusyGuard::new(&server);
        let encoding = server.encoding();
        let position = encoding.position(text, offset);
        let caps = server.capabilities();
        let rename_cap = caps.get("renameProvider").unwrap_or(&Value::Null);
        if rename_cap.is_null() || rename_cap == &Value::Bool(false) {
            return Err(unsupported(&server, RawRename::METHOD));
        }
        let at = json!({
            "textDocument": { "uri": uri.as_str() },
            "position": position,
        });
        let started = Instant::now();
        if rename_cap.get("prepareProvider").and_then(Value::as_bool) == Some(true) {
            let prepared = retry(&server, || {
                server.request::<RawPrepareRename>(
                    at.clone(),
                    deadline,
                    "textDocument/prepareRename",
                )
            })
            .await?;
            if prepared.is_null() {
                return Err(LspError::Declined {
                    server: server.id.clone(),
                    method: RawPrepareRename::METHOD,
                    message: "the server says there is no symbol to rename at this position"
                        .to_owned(),
                });
            }
        }
        let mut params = at;
        params["newName"] = Value::String(new_name.to_owned());
        let answer = retry(&server, || {
            server.request::<RawRename>(params.clone(), deadline, "textDocument/rename")
        })
        .await?;
        let server_time = started.elapsed();
        if answer.is_null() {
            return Err(LspError::Declined {
                server: server.id.clone(),
                method: RawRename::METHOD,
                message: "the server returned no edit for this rename".to_owned(),
            });
        }
        Ok(ServerEdit {
            server: server.id.clone(),
            edits: vec![parse(&server, RawRename::METHOD, answer)?],
            encoding,
            server_time,
        })
    }

    /// The code actions the server offers for bytes `range` of `path`, with the diagnostics
    /// there as their context (the file is checked first, so the server has computed them: a
    /// quick fix is offered for a diagnostic the request names).
    pub async fn code_actions(
        &self,
        path: &Path,
        text: &str,
        range: std::ops::Range<usize>,
        deadline: Instant,
    ) -> Result<CodeActions, LspError> {
        // The check settles the file's diagnostics; its own failure (a server that computes no
        // diagnostics) only means an empty context.
        if let Err(e) = self.check_file(path, text, deadline).await {
            tracing::debug!(path = %path.display(), error = %e, "diagnostics for code actions");
        }
        let (server, _, uri) = self.ready_server(path, text, deadline).await?;
        let _busy = BusyGuard::new(&server);
        let caps = server.capabilities();
        let cap = caps.get("codeActionProvider").unwrap_or(&Value::Null);
        if cap.is_null() || cap == &Value::Bool(false) {
            return Err(unsupported(&server, RawCodeAction::METHOD));
        }
        let encoding = server.encoding();
        let lsp_range = Range {
            start: encoding.position(text, range.start),
            end: encoding.position(text, range.end),
        };
        let diagnostics: Vec<_> = server
            .settled_raw(&uri)
            .await
            .into_iter()
            .filter(|d| {
                d.range.start.line <= lsp_range.end.line && d.range.end.line >= lsp_range.start.line
            })
            .collect();
        let params = json!({
            "textDocument": { "uri": uri.as_str() },
            "range": lsp_range,
            "context": { "diagnostics": diagnostics, "triggerKind": 1 },
        });
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<RawCodeAction>(params.clone(), deadline, "textDocument/codeAction")
        })
        .await?;
        let server_time = started.elapsed();
        // Item by item, so one odd action does not lose the others.
        let actions = answer
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| serde_json::from_value::<CodeActionOrCommand>(a.clone()).ok())
            .collect();
        Ok(CodeActions {
            server: server.id.clone(),
            actions,
            encoding,
            server_time,
        })
    }

    /// The edit of a code action [`Pool::code_actions`] returned for `path`: its `edit`, else
    /// the resolved action's (`codeAction/resolve` where the server offers it), then the edits
    /// of its command (`workspace/executeCommand`), which the server sends back as
    /// `workspace/applyEdit` requests. An action that yields no edit is
    /// [`LspError::Declined`].
    pub async fn code_action_edit(
        &self,
        path: &Path,
        text: &str,
        action: CodeActionOrCommand,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        let (server, _, _) = self.ready_server(path, text, deadline).await?;
        let _busy = BusyGuard::new(&server);
        let encoding = server.encoding();
        let started = Instant::now();
        let (mut edit, command) = match action {
            CodeActionOrCommand::Command(c) => (None, Some(c)),
            CodeActionOrCommand::CodeAction(a) => {
                let resolvable = server
                    .capabilities()
                    .pointer("/codeActionProvider/resolveProvider")
                    .and_then(Value::as_bool)
                    == Some(true);
                let a = if a.edit.is_none() && resolvable {
                    let params = serde_json::to_value(&a).unwrap_or(Value::Null);
                    let resolved = retry(&server, || {
                        server.request::<RawResolve>(params.clone(), deadline, "codeAction/resolve")
                    })
                    .await?;
                    serde_json::from_value::<CodeAction>(resolved)
                        .map_err(|e| bad_answer(&server, RawResolve::METHOD, &e.to_string()))?
                } else {
                    a
                };
                (a.edit, a.command)
            }
        };
        let mut edits: Vec<WorkspaceEdit> = edit.take().into_iter().collect();
        if let Some(command) = command {
            let seq = server.seq();
            let params = json!({
                "command": command.command,
                "arguments": command.arguments.unwrap_or_default(),
            });
            server
                .request::<RawExecute>(params, deadline, "workspace/executeCommand")
                .await?;
            for raw in server.applied_edits_since(seq) {
                edits.push(parse(&server, "workspace/applyEdit", raw)?);
            }
        }
        let server_time = started.elapsed();
        if edits.is_empty() {
            return Err(LspError::Declined {
                server: server.id.clone(),
                method: RawResolve::METHOD,
                message: "the code action changes no file".to_owned(),
            });
        }
        Ok(ServerEdit {
            server: server.id.clone(),
            edits,
            encoding,
            server_time,
        })
    }

    /// `textDocument/references` of the symbol at byte `offset` of `path`.
    pub async fn references(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        include_declaration: bool,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        self.locations::<RawReferences>(
            path,
            text,
            offset,
            json!({ "context": { "includeDeclaration": include_declaration } }),
            "referencesProvider",
            deadline,
        )
        .await
    }

    /// `textDocument/definition` of the symbol at byte `offset` of `path` (location links are
    /// read as their target's selection range).
    pub async fn definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        self.locations::<RawDefinition>(
            path,
            text,
            offset,
            json!({}),
            "definitionProvider",
            deadline,
        )
        .await
    }

    /// A request at a position whose answer is locations (`capability` offered, else
    /// [`LspError::Unsupported`]), `extra` merged into its params; see `symbols.rs` too.
    pub(crate) async fn locations<R>(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        extra: Value,
        capability: &str,
        deadline: Instant,
    ) -> Result<Locations, LspError>
    where
        R: Request<Params = Value, Result = Value>,
    {
        let (server, _, uri, loaded) = self
            .synced_server(path, text, load_by(deadline), deadline)
            .await?;
        let _busy = BusyGuard::new(&server);
        let cap = server
            .capabilities()
            .get(capability)
            .unwrap_or(&Value::Null);
        if cap.is_null() || cap == &Value::Bool(false) {
            return Err(unsupported(&server, R::METHOD));
        }
        let encoding = server.encoding();
        let mut params = json!({
            "textDocument": { "uri": uri.as_str() },
            "position": encoding.position(text, offset),
        });
        if let (Some(p), Value::Object(extra)) = (params.as_object_mut(), extra) {
            p.extend(extra);
        }
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<R>(params.clone(), deadline, R::METHOD)
        })
        .await?;
        Ok(Locations {
            server: server.id.clone(),
            locations: read_locations(&answer),
            encoding,
            server_time: started.elapsed(),
            partial: !loaded,
        })
    }
}

/// When to stop waiting for a server to load the project, for a request whose answer is still
/// worth having before (marked partial): the loading may take two thirds of the time left, the
/// request the rest.
pub(crate) fn load_by(deadline: Instant) -> Instant {
    let now = Instant::now();
    now + deadline.saturating_duration_since(now) * 2 / 3
}

/// `Location`, `Location[]` or `LocationLink[]` (or `null`), each item read on its own.
fn read_locations(answer: &Value) -> Vec<Location> {
    let items: Vec<&Value> = match answer {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        one => vec![one],
    };
    items
        .into_iter()
        .filter_map(|item| {
            if let Ok(l) = serde_json::from_value::<Location>(item.clone()) {
                return Some(l);
            }
            let uri = item.get("targetUri")?.as_str()?;
            let range = item
                .get("targetSelectionRange")
                .or_else(|| item.get("targetRange"))?;
            Some(Location {
                uri: Url::parse(uri).ok()?,
                range: serde_json::from_value(range.clone()).ok()?,
            })
        })
        .collect()
}

/// Sends a request again while the server drops it because its state moved on (it is still
/// loading or the document changed under it); the spec asks the client to ask again.
pub(crate) async fn retry<F, Fut>(server: &Server, mut send: F) -> Result<Value, LspError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Value, LspError>>,
{
    let mut tries = 0;
    loop {
        match send().await {
            Err(LspError::Request { code, .. })
                if tries < RETRIES
                    && (code == ErrorCode::CONTENT_MODIFIED.0
                        || code == ErrorCode::SERVER_CANCELLED.0
                        || code == ErrorCode::REQUEST_CANCELLED.0) =>
            {
                tries += 1;
                tracing::debug!(server = %server.id, tries, "request dropped by the server; asking again");
            }
            other => return other,
        }
    }
}

fn parse(server: &Server, method: &'static str, raw: Value) -> Result<WorkspaceEdit, LspError> {
    serde_json::from_value(raw).map_err(|e| bad_answer(server, method, &e.to_string()))
}

fn bad_answer(server: &Server, method: &'static str, message: &str) -> LspError {
    LspError::Request {
        server: server.id.clone(),
        method,
        code: ErrorCode::PARSE_ERROR.0,
        message: format!("unreadable answer: {message}"),
    }
}

pub(crate) fn unsupported(server: &Server, method: &'static str) -> LspError {
    LspError::Unsupported {
        server: server.id.clone(),
        method,
    }
}

/// The requests for synchronous callers, on the pool's runtime.
impl BlockingPool {
    /// See [`Pool::rename`].
    pub fn rename(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        new_name: &str,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        let (path, text, new_name) = (path.to_owned(), text.to_owned(), new_name.to_owned());
        self.request(deadline, "rename", move |pool| async move {
            pool.rename(&path, &text, offset, &new_name, deadline).await
        })
    }

    /// See [`Pool::code_actions`].
    pub fn code_actions(
        &self,
        path: &Path,
        text: &str,
        range: std::ops::Range<usize>,
        deadline: Instant,
    ) -> Result<CodeActions, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "code actions", move |pool| async move {
            pool.code_actions(&path, &text, range, deadline).await
        })
    }

    /// See [`Pool::code_action_edit`].
    pub fn code_action_edit(
        &self,
        path: &Path,
        text: &str,
        action: CodeActionOrCommand,
        deadline: Instant,
    ) -> Result<ServerEdit, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "code action", move |pool| async move {
            pool.code_action_edit(&path, &text, action, deadline).await
        })
    }

    /// See [`Pool::references`].
    pub fn references(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        include_declaration: bool,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "references", move |pool| async move {
            pool.references(&path, &text, offset, include_declaration, deadline)
                .await
        })
    }

    /// See [`Pool::definition`].
    pub fn definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "definition", move |pool| async move {
            pool.definition(&path, &text, offset, deadline).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_lsp::lsp_types::Position;

    #[test]
    fn locations_links_and_null() {
        let loc = json!({"uri": "file:///a.ts", "range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 5}}});
        assert_eq!(read_locations(&loc).len(), 1);
        assert_eq!(read_locations(&json!([loc, loc])).len(), 2);
        assert!(read_locations(&Value::Null).is_empty());
        let link = json!([{
            "targetUri": "file:///b.ts",
            "targetRange": {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 1}},
            "targetSelectionRange": {"start": {"line": 0, "character": 16}, "end": {"line": 0, "character": 19}},
        }]);
        let got = read_locations(&link);
        assert_eq!(got[0].uri.as_str(), "file:///b.ts");
        assert_eq!(
            got[0].range.start,
            Position {
                line: 0,
                character: 16
            }
        );
    }
}
