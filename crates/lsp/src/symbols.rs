//! The requests that address code by symbol (issue 27, phase 1: the pool's side): a
//! document's symbols as a tree (`textDocument/documentSymbol`), symbols by name across the
//! workspace (`workspace/symbol`), hover text, the call hierarchy (`prepareCallHierarchy`,
//! `incomingCalls`, `outgoingCalls`), and implementations and type definitions.
//!
//! As in `requests.rs`, positions go in as byte offsets of the caller's text and come back as
//! LSP ranges in the server's negotiated encoding; answers vary in shape between servers (a
//! symbol tree or a flat list, markup or marked strings), so they are read item by item: an
//! item that does not read is skipped, never the whole answer.

use std::cmp::Ordering;
use std::path::Path;
use std::time::{Duration, Instant};

use async_lsp::lsp_types::request::Request;
use async_lsp::lsp_types::{Position, Range, SymbolKind, Url};
use serde_json::{Value, json};

use crate::pool::BusyGuard;
use crate::requests::{Locations, load_by, raw_request, retry, unsupported};
use crate::server::{Server, Viewed};
use crate::{BlockingPool, LspError, Pool, PositionEncoding, ServerKey};

raw_request!(RawDocumentSymbol, "textDocument/documentSymbol");
raw_request!(RawWorkspaceSymbol, "workspace/symbol");
raw_request!(RawHover, "textDocument/hover");
raw_request!(RawPrepareCalls, "textDocument/prepareCallHierarchy");
raw_request!(RawIncomingCalls, "callHierarchy/incomingCalls");
raw_request!(RawOutgoingCalls, "callHierarchy/outgoingCalls");
raw_request!(RawImplementation, "textDocument/implementation");
raw_request!(RawTypeDefinition, "textDocument/typeDefinition");

/// One symbol of a document and the symbols declared inside it, sorted by position.
#[derive(Debug, Clone, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// The server's detail (a signature or a type), when it gives one.
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// The whole declaration, comments and attributes as the server counts them.
    pub range: Range,
    /// The name within `range`. A server answering the flat shape gives no such range: it is
    /// the first occurrence of the name inside `range`, else `range` itself.
    pub selection_range: Range,
    pub children: Vec<Symbol>,
}

impl Symbol {
    /// Every symbol of `symbols` and below, depth first in position order, with its name path
    /// (the names from the top joined by `/`, as `Cart/total`). Names are the server's:
    /// rust-analyzer's impl blocks are `impl Cart`, so a method's path is `impl Cart/total`;
    /// a name holding a `/` (a quoted TypeScript key) is not escaped.
    pub fn walk(symbols: &[Symbol]) -> Vec<(String, &Symbol)> {
        fn go<'a>(prefix: &str, symbols: &'a [Symbol], out: &mut Vec<(String, &'a Symbol)>) {
            for s in symbols {
                let path = if prefix.is_empty() {
                    s.name.clone()
                } else {
                    format!("{prefix}/{}", s.name)
                };
                out.push((path.clone(), s));
                go(&path, &s.children, out);
            }
        }
        let mut out = Vec::new();
        go("", symbols, &mut out);
        out
    }
}

/// A document's symbols as a server answered them, with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct Symbols {
    pub server: String,
    /// The top-level symbols, sorted by position.
    pub symbols: Vec<Symbol>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server answered with no symbols and had not finished loading the project by two
    /// thirds of the deadline (a document's outline is otherwise complete whenever it comes).
    pub partial: bool,
}

/// A symbol found by name across the workspace (`workspace/symbol`).
#[derive(Debug, Clone, PartialEq)]
pub struct SymbolMatch {
    pub name: String,
    pub kind: SymbolKind,
    /// The name of the symbol it is declared in, as the server says (a hint: servers differ).
    pub container_name: Option<String>,
    pub uri: Url,
    /// `None` when the server gave the file only (a `WorkspaceSymbol` to be resolved).
    pub range: Option<Range>,
}

/// The answer to [`Pool::workspace_symbols`], with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct WorkspaceSymbols {
    pub server: String,
    /// In the server's order (its own ranking of the matches).
    pub symbols: Vec<SymbolMatch>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server had not finished loading the project: matches in files it had not read yet
    /// may be missing.
    pub partial: bool,
}

/// What a server says about the symbol at a position (`textDocument/hover`).
#[derive(Debug, Clone)]
pub struct HoverText {
    pub server: String,
    /// The contents as text: markdown kept as the server wrote it, code blocks of marked
    /// strings fenced with their language, several parts separated by a blank line.
    pub text: String,
    /// The range the hover is about, when the server gives it.
    pub range: Option<Range>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server had not finished loading the project: a type from a file it had not read
    /// yet may show as unknown.
    pub partial: bool,
}

/// An item of a call hierarchy: a function, method or constructor a server identified. Made
/// only by [`Pool::prepare_call_hierarchy`] and the calls it leads to, since it names the
/// server process to ask about it; its positions are in that server's encoding.
#[derive(Debug, Clone)]
pub struct CallItem {
    pub name: String,
    pub kind: SymbolKind,
    pub detail: Option<String>,
    pub uri: Url,
    pub range: Range,
    pub selection_range: Range,
    /// The item as the server sent it, sent back as is to ask for its calls (servers keep
    /// their own state in its `data`).
    pub raw: Value,
    /// The server process that identified it, which is asked for its calls.
    key: ServerKey,
}

/// Items of a call hierarchy, with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct CallItems {
    pub server: String,
    pub items: Vec<CallItem>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server had not finished loading the project when it answered.
    pub partial: bool,
}

/// One edge of a call hierarchy: for incoming calls `item` is the caller and `from_ranges`
/// the call sites in it; for outgoing calls `item` is the callee and `from_ranges` the call
/// sites in the item asked about (its file is that item's `uri`).
#[derive(Debug, Clone)]
pub struct Call {
    pub item: CallItem,
    pub from_ranges: Vec<Range>,
}

/// The calls into or out of a [`CallItem`], with positions in `encoding`.
#[derive(Debug, Clone)]
pub struct Calls {
    pub server: String,
    pub calls: Vec<Call>,
    pub encoding: PositionEncoding,
    pub server_time: Duration,
    /// The server had not finished loading the project when it answered.
    pub partial: bool,
}

/// Whether the server's `initialize` answer offers `capability` (anything but absent, `null`
/// or `false`), else [`LspError::Unsupported`] naming `method`.
fn require(server: &Server, capability: &str, method: &'static str) -> Result<(), LspError> {
    match server.capabilities().get(capability) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Err(unsupported(server, method)),
        Some(_) => Ok(()),
    }
}

impl Pool {
    /// The symbols of `path` (whose text is `text`) as a tree, by
    /// `textDocument/documentSymbol`; either answer shape, a `null` answer being no symbols.
    pub async fn document_symbols(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Symbols, LspError> {
        // A document's outline is its own syntax: asked at once, without waiting for the
        // project to load (rust-analyzer's first load takes tens of seconds). Only an empty
        // answer from a server still loading is asked again once it has loaded (or by two
        // thirds of the deadline), and is partial if it still has not.
        let (server, _, uri, mut loaded) = self
            .synced_server(path, text, Instant::now(), deadline)
            .await?;
        let _busy = BusyGuard::new(&server);
        require(&server, "documentSymbolProvider", RawDocumentSymbol::METHOD)?;
        let encoding = server.encoding();
        let params = json!({ "textDocument": { "uri": uri.as_str() } });
        let started = Instant::now();
        let ask = || {
            retry(&server, || {
                server.request::<RawDocumentSymbol>(
                    params.clone(),
                    deadline,
                    RawDocumentSymbol::METHOD,
                )
            })
        };
        let mut answer = ask().await?;
        let mut server_time = started.elapsed();
        let mut symbols = read_document_symbols(&answer, text, encoding);
        if symbols.is_empty() && !loaded {
            loaded = server.wait_loaded(&uri, load_by(deadline)).await?;
            let again = Instant::now();
            answer = ask().await?;
            server_time += again.elapsed();
            symbols = read_document_symbols(&answer, text, encoding);
        }
        Ok(Symbols {
            server: server.id.clone(),
            partial: symbols.is_empty() && !loaded,
            symbols,
            encoding,
            server_time,
        })
    }

    /// The symbols matching `query` across the project of `path_hint`, by `workspace/symbol`
    /// on the server for that file (the pool picks servers per file). The file, when it exists,
    /// is opened from the disk first: typescript-language-server answers only for projects
    /// with an open file. What matches `query` is the server's choice (most match fuzzily).
    pub async fn workspace_symbols(
        &self,
        path_hint: &Path,
        query: &str,
        deadline: Instant,
    ) -> Result<WorkspaceSymbols, LspError> {
        let abs = self.absolute(path_hint)?;
        let (server, loaded) = match std::fs::read_to_string(&abs) {
            Ok(text) => {
                let (server, _, _, loaded) = self
                    .synced_server(&abs, &text, load_by(deadline), deadline)
                    .await?;
                (server, loaded)
            }
            // Not a readable text file (a directory, a file not written yet): the server for
            // its name, without a document.
            Err(_) => {
                let key = self.key_for(&abs)?;
                let server = Viewed::of(self.get_server(&key, deadline).await?, deadline).await?;
                self.touch_slot(&key);
                server.refresh_from_disk(&Default::default())?;
                let uri = Url::from_file_path(&abs).map_err(|()| LspError::OutsideWorkspace {
                    path: abs.clone(),
                    root: key.root.clone(),
                })?;
                let loaded = server.wait_loaded(&uri, load_by(deadline)).await?;
                (server, loaded)
            }
        };
        let _busy = BusyGuard::new(&server);
        require(
            &server,
            "workspaceSymbolProvider",
            RawWorkspaceSymbol::METHOD,
        )?;
        let params = json!({ "query": query });
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<RawWorkspaceSymbol>(
                params.clone(),
                deadline,
                RawWorkspaceSymbol::METHOD,
            )
        })
        .await?;
        Ok(WorkspaceSymbols {
            server: server.id.clone(),
            symbols: read_workspace_symbols(&answer),
            encoding: server.encoding(),
            server_time: started.elapsed(),
            partial: !loaded,
        })
    }

    /// The hover of the symbol at byte `offset` of `path` (`textDocument/hover`) as text;
    /// `None` when the server has nothing to say there.
    pub async fn hover(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Option<HoverText>, LspError> {
        let (server, _, uri, loaded) = self
            .synced_server(path, text, load_by(deadline), deadline)
            .await?;
        let _busy = BusyGuard::new(&server);
        require(&server, "hoverProvider", RawHover::METHOD)?;
        let encoding = server.encoding();
        let params = json!({
            "textDocument": { "uri": uri.as_str() },
            "position": encoding.position(text, offset),
        });
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<RawHover>(params.clone(), deadline, RawHover::METHOD)
        })
        .await?;
        let server_time = started.elapsed();
        Ok(read_hover(&answer).map(|(text, range)| HoverText {
            server: server.id.clone(),
            text,
            range,
            encoding,
            server_time,
            partial: !loaded,
        }))
    }

    /// The call hierarchy items at byte `offset` of `path`
    /// (`textDocument/prepareCallHierarchy`): usually one, none where there is no function.
    pub async fn prepare_call_hierarchy(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<CallItems, LspError> {
        let abs = self.absolute(path)?;
        let key = self.key_for(&abs)?;
        let (server, _, uri, loaded) = self
            .synced_server(&abs, text, load_by(deadline), deadline)
            .await?;
        let _busy = BusyGuard::new(&server);
        require(&server, "callHierarchyProvider", RawPrepareCalls::METHOD)?;
        let encoding = server.encoding();
        let params = json!({
            "textDocument": { "uri": uri.as_str() },
            "position": encoding.position(text, offset),
        });
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<RawPrepareCalls>(params.clone(), deadline, RawPrepareCalls::METHOD)
        })
        .await?;
        Ok(CallItems {
            server: server.id.clone(),
            items: as_items(&answer)
                .filter_map(|i| read_call_item(i, &key))
                .collect(),
            encoding,
            server_time: started.elapsed(),
            partial: !loaded,
        })
    }

    /// The calls of `item` (`callHierarchy/incomingCalls`): each caller with its call sites.
    pub async fn incoming_calls(
        &self,
        item: &CallItem,
        deadline: Instant,
    ) -> Result<Calls, LspError> {
        self.calls::<RawIncomingCalls>(item, "from", deadline).await
    }

    /// The calls `item` makes (`callHierarchy/outgoingCalls`): each callee with the call sites
    /// in `item`.
    pub async fn outgoing_calls(
        &self,
        item: &CallItem,
        deadline: Instant,
    ) -> Result<Calls, LspError> {
        self.calls::<RawOutgoingCalls>(item, "to", deadline).await
    }

    /// An item's calls, asked of the server process that identified it; `field` names the
    /// other end of each call in the answer (`from` for incoming, `to` for outgoing).
    async fn calls<R>(
        &self,
        item: &CallItem,
        field: &str,
        deadline: Instant,
    ) -> Result<Calls, LspError>
    where
        R: Request<Params = Value, Result = Value>,
    {
        let server = Viewed::of(self.get_server(&item.key, deadline).await?, deadline).await?;
        self.touch_slot(&item.key);
        // The files changed on disk since the item was found reach the server first.
        server.refresh_from_disk(&Default::default())?;
        let loaded = server.wait_loaded(&item.uri, load_by(deadline)).await?;
        let _busy = BusyGuard::new(&server);
        require(&server, "callHierarchyProvider", R::METHOD)?;
        let params = json!({ "item": item.raw });
        let started = Instant::now();
        let answer = retry(&server, || {
            server.request::<R>(params.clone(), deadline, R::METHOD)
        })
        .await?;
        Ok(Calls {
            server: server.id.clone(),
            calls: read_calls(&answer, field, &item.key),
            encoding: server.encoding(),
            server_time: started.elapsed(),
            partial: !loaded,
        })
    }

    /// `textDocument/implementation` of the symbol at byte `offset` of `path` (location links
    /// are read as their target's selection range).
    pub async fn implementations(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        self.locations::<RawImplementation>(
            path,
            text,
            offset,
            json!({}),
            "implementationProvider",
            deadline,
        )
        .await
    }

    /// `textDocument/typeDefinition` of the symbol at byte `offset` of `path` (location links
    /// are read as their target's selection range).
    pub async fn type_definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        self.locations::<RawTypeDefinition>(
            path,
            text,
            offset,
            json!({}),
            "typeDefinitionProvider",
            deadline,
        )
        .await
    }
}

/// The items of an answer that should be a list: none for `null` or any other shape.
fn as_items(answer: &Value) -> impl Iterator<Item = &Value> {
    answer.as_array().into_iter().flatten()
}

fn read_range(v: Option<&Value>) -> Option<Range> {
    serde_json::from_value(v?.clone()).ok()
}

fn read_kind(v: Option<&Value>) -> Option<SymbolKind> {
    serde_json::from_value(v?.clone()).ok()
}

fn read_string(v: Option<&Value>) -> Option<String> {
    Some(v?.as_str()?.to_owned())
}

/// A `textDocument/documentSymbol` answer as one tree sorted by position: `DocumentSymbol[]`
/// as it nests, `SymbolInformation[]` nested by range containment (see [`nest_flat`]); the
/// two shapes are told apart item by item (`location` is the flat one's), an item that reads
/// as neither is skipped with its children.
fn read_document_symbols(answer: &Value, text: &str, encoding: PositionEncoding) -> Vec<Symbol> {
    let mut tree = Vec::new();
    let mut flat = Vec::new();
    for item in as_items(answer) {
        if item.get("location").is_some() {
            flat.extend(read_flat_symbol(item, text, encoding));
        } else {
            tree.extend(read_tree_symbol(item));
        }
    }
    tree.extend(nest_flat(flat));
    sort_tree(&mut tree);
    tree
}

/// A `DocumentSymbol` with the children that read.
fn read_tree_symbol(item: &Value) -> Option<Symbol> {
    let range = read_range(item.get("range"))?;
    Some(Symbol {
        name: read_string(item.get("name"))?,
        detail: read_string(item.get("detail")).filter(|d| !d.is_empty()),
        kind: read_kind(item.get("kind"))?,
        selection_range: read_range(item.get("selectionRange")).unwrap_or(range),
        range,
        children: as_items(item.get("children").unwrap_or(&Value::Null))
            .filter_map(read_tree_symbol)
            .collect(),
    })
}

/// A flat symbol before nesting, with the container its server named.
struct FlatSymbol {
    symbol: Symbol,
    container: Option<String>,
}

/// A `SymbolInformation`. It has no selection range: the name's first occurrence in its range
/// stands for it.
fn read_flat_symbol(item: &Value, text: &str, encoding: PositionEncoding) -> Option<FlatSymbol> {
    let name = read_string(item.get("name"))?;
    let range = read_range(item.get("location")?.get("range"))?;
    let selection_range = name_range(text, encoding, range, &name).unwrap_or(range);
    Some(FlatSymbol {
        symbol: Symbol {
            detail: None,
            kind: read_kind(item.get("kind"))?,
            range,
            selection_range,
            children: Vec::new(),
            name,
        },
        container: read_string(item.get("containerName")).filter(|c| !c.is_empty()),
    })
}

/// The range of the first occurrence of `name` inside `range` of `text`.
fn name_range(text: &str, encoding: PositionEncoding, range: Range, name: &str) -> Option<Range> {
    if name.is_empty() {
        return None;
    }
    let start = encoding.offset(text, range.start)?;
    let end = encoding.offset(text, range.end)?;
    let at = start + text.get(start..end)?.find(name)?;
    Some(Range {
        start: encoding.position(text, at),
        end: encoding.position(text, at + name.len()),
    })
}

fn contains(outer: &Range, inner: &Range) -> bool {
    pos_le(outer.start, inner.start) && pos_le(inner.end, outer.end)
}

fn pos_le(a: Position, b: Position) -> bool {
    (a.line, a.character) <= (b.line, b.character)
}

fn pos_key(p: Position) -> (u32, u32) {
    (p.line, p.character)
}

/// Nests flat symbols by range containment: each goes under the innermost symbol whose range
/// contains its own. `containerName` decides only between symbols of the same range (the one
/// another names as its container is the outer one): servers fill it differently (a module
/// path, a class, nothing), and ranges are what the tree is about.
fn nest_flat(mut flat: Vec<FlatSymbol>) -> Vec<Symbol> {
    // Outer before inner: by start, then the longer first, then the named container first.
    flat.sort_by(|a, b| {
        let (ra, rb) = (&a.symbol.range, &b.symbol.range);
        pos_key(ra.start)
            .cmp(&pos_key(rb.start))
            .then_with(|| pos_key(rb.end).cmp(&pos_key(ra.end)))
            .then_with(|| {
                if b.container.as_deref() == Some(a.symbol.name.as_str()) {
                    Ordering::Less
                } else if a.container.as_deref() == Some(b.symbol.name.as_str()) {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                }
            })
    });
    // The open chain of enclosing symbols, outermost first; closed into its parent when a
    // symbol outside it comes.
    let mut roots: Vec<Symbol> = Vec::new();
    let mut chain: Vec<Symbol> = Vec::new();
    fn close(chain: &mut Vec<Symbol>, roots: &mut Vec<Symbol>) {
        if let Some(done) = chain.pop() {
            match chain.last_mut() {
                Some(parent) => parent.children.push(done),
                None => roots.push(done),
            }
        }
    }
    for f in flat {
        while chain
            .last()
            .is_some_and(|open| !contains(&open.range, &f.symbol.range))
        {
            close(&mut chain, &mut roots);
        }
        chain.push(f.symbol);
    }
    while !chain.is_empty() {
        close(&mut chain, &mut roots);
    }
    roots
}

fn sort_tree(symbols: &mut [Symbol]) {
    symbols.sort_by_key(|s| (pos_key(s.range.start), pos_key(s.selection_range.start)));
    for s in symbols {
        sort_tree(&mut s.children);
    }
}

/// A `workspace/symbol` answer: `SymbolInformation[]` or `WorkspaceSymbol[]` (whose location
/// may be a URI alone), item by item.
fn read_workspace_symbols(answer: &Value) -> Vec<SymbolMatch> {
    as_items(answer)
        .filter_map(|item| {
            let location = item.get("location")?;
            Some(SymbolMatch {
                name: read_string(item.get("name"))?,
                kind: read_kind(item.get("kind"))?,
                container_name: read_string(item.get("containerName")).filter(|c| !c.is_empty()),
                uri: Url::parse(location.get("uri")?.as_str()?).ok()?,
                range: read_range(location.get("range")),
            })
        })
        .collect()
}

/// A hover answer's contents as text and its range; `None` for `null` or empty contents.
fn read_hover(answer: &Value) -> Option<(String, Option<Range>)> {
    let contents = answer.get("contents")?;
    let parts: Vec<String> = match contents {
        Value::Array(items) => items.iter().filter_map(marked_text).collect(),
        one => marked_text(one).into_iter().collect(),
    };
    let text = parts
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    if text.trim().is_empty() {
        return None;
    }
    Some((text, read_range(answer.get("range"))))
}

/// A `MarkupContent` (its value, markdown or plain), or a `MarkedString`: a string (markdown)
/// or a `{ language, value }` code block, fenced.
fn marked_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let value = o.get("value")?.as_str()?;
            match o.get("language").and_then(Value::as_str) {
                Some(lang) if o.get("kind").is_none() => Some(format!("```{lang}\n{value}\n```")),
                _ => Some(value.to_owned()),
            }
        }
        _ => None,
    }
}

/// A `CallHierarchyItem`, kept whole in `raw` to send back.
fn read_call_item(item: &Value, key: &ServerKey) -> Option<CallItem> {
    let range = read_range(item.get("range"))?;
    Some(CallItem {
        name: read_string(item.get("name"))?,
        kind: read_kind(item.get("kind"))?,
        detail: read_string(item.get("detail")).filter(|d| !d.is_empty()),
        uri: Url::parse(item.get("uri")?.as_str()?).ok()?,
        selection_range: read_range(item.get("selectionRange")).unwrap_or(range),
        range,
        raw: item.clone(),
        key: key.clone(),
    })
}

/// `CallHierarchyIncomingCall[]` (`field` = `from`) or `CallHierarchyOutgoingCall[]` (`to`):
/// a call whose item does not read is skipped, a call site that does not read is left out.
fn read_calls(answer: &Value, field: &str, key: &ServerKey) -> Vec<Call> {
    as_items(answer)
        .filter_map(|call| {
            Some(Call {
                item: read_call_item(call.get(field)?, key)?,
                from_ranges: as_items(call.get("fromRanges").unwrap_or(&Value::Null))
                    .filter_map(|r| read_range(Some(r)))
                    .collect(),
            })
        })
        .collect()
}

/// The symbol requests for synchronous callers, on the pool's runtime.
impl BlockingPool {
    /// See [`Pool::document_symbols`].
    pub fn document_symbols(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<Symbols, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "document symbols", move |pool| async move {
            pool.document_symbols(&path, &text, deadline).await
        })
    }

    /// See [`Pool::workspace_symbols`].
    pub fn workspace_symbols(
        &self,
        path_hint: &Path,
        query: &str,
        deadline: Instant,
    ) -> Result<WorkspaceSymbols, LspError> {
        let (path, query) = (path_hint.to_owned(), query.to_owned());
        self.request(deadline, "workspace symbols", move |pool| async move {
            pool.workspace_symbols(&path, &query, deadline).await
        })
    }

    /// See [`Pool::hover`].
    pub fn hover(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Option<HoverText>, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "hover", move |pool| async move {
            pool.hover(&path, &text, offset, deadline).await
        })
    }

    /// See [`Pool::prepare_call_hierarchy`].
    pub fn prepare_call_hierarchy(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<CallItems, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "call hierarchy", move |pool| async move {
            pool.prepare_call_hierarchy(&path, &text, offset, deadline)
                .await
        })
    }

    /// See [`Pool::incoming_calls`].
    pub fn incoming_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        let item = item.clone();
        self.request(deadline, "incoming calls", move |pool| async move {
            pool.incoming_calls(&item, deadline).await
        })
    }

    /// See [`Pool::outgoing_calls`].
    pub fn outgoing_calls(&self, item: &CallItem, deadline: Instant) -> Result<Calls, LspError> {
        let item = item.clone();
        self.request(deadline, "outgoing calls", move |pool| async move {
            pool.outgoing_calls(&item, deadline).await
        })
    }

    /// See [`Pool::implementations`].
    pub fn implementations(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "implementations", move |pool| async move {
            pool.implementations(&path, &text, offset, deadline).await
        })
    }

    /// See [`Pool::type_definition`].
    pub fn type_definition(
        &self,
        path: &Path,
        text: &str,
        offset: usize,
        deadline: Instant,
    ) -> Result<Locations, LspError> {
        let (path, text) = (path.to_owned(), text.to_owned());
        self.request(deadline, "type definition", move |pool| async move {
            pool.type_definition(&path, &text, offset, deadline).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
        json!({"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}})
    }

    fn flat(name: &str, kind: u32, range: Value, container: Option<&str>) -> Value {
        let mut v = json!({
            "name": name, "kind": kind,
            "location": {"uri": "file:///w/cart.ts", "range": range},
        });
        if let Some(c) = container {
            v["containerName"] = json!(c);
        }
        v
    }

    /// The tree as `path kind` lines, depth first.
    fn paths(symbols: &[Symbol]) -> Vec<String> {
        Symbol::walk(symbols)
            .into_iter()
            .map(|(p, s)| format!("{p} {:?}", s.kind))
            .collect()
    }

    const CART: &str =
        "class Cart {\n  total() { return 1; }\n  add(x) {}\n}\nfunction main() {}\n";

    #[test]
    fn hierarchical_symbols_nest_as_given_and_sort_by_position() {
        let answer = json!([
            {"name": "main", "kind": 12, "range": r(4, 0, 4, 18), "selectionRange": r(4, 9, 4, 13)},
            {"name": "Cart", "kind": 5, "detail": "", "range": r(0, 0, 3, 1), "selectionRange": r(0, 6, 0, 10),
             "children": [
                {"name": "add", "kind": 6, "detail": "(x)", "range": r(2, 2, 2, 11), "selectionRange": r(2, 2, 2, 5)},
                {"name": "total", "kind": 6, "range": r(1, 2, 1, 23), "selectionRange": r(1, 2, 1, 7)},
             ]},
        ]);
        let got = read_document_symbols(&answer, CART, PositionEncoding::Utf16);
        assert_eq!(
            paths(&got),
            [
                "Cart Class",
                "Cart/total Method",
                "Cart/add Method",
                "main Function"
            ]
        );
        assert_eq!(got[0].detail, None, "an empty detail is none");
        assert_eq!(got[0].children[1].detail.as_deref(), Some("(x)"));
        assert_eq!(
            got[0].selection_range,
            serde_json::from_value(r(0, 6, 0, 10)).unwrap()
        );
    }

    #[test]
    fn flat_symbols_are_nested_by_range_containment() {
        // Nested classes and methods, listed out of order, with container names that are only
        // hints (a module path for the top level, nothing for one method).
        let text = "class Cart {\n  total() {}\n  class Line {\n    price() {}\n  }\n  add() {}\n}\nfunction main() {}\n";
        let answer = json!([
            flat("price", 6, r(3, 4, 3, 14), Some("Line")),
            flat("main", 12, r(7, 0, 7, 18), Some("cart")),
            flat("Cart", 5, r(0, 0, 6, 1), Some("cart")),
            flat("add", 6, r(5, 2, 5, 10), None),
            flat("Line", 5, r(2, 2, 4, 3), Some("Cart")),
            flat("total", 6, r(1, 2, 1, 12), Some("Cart")),
        ]);
        let got = read_document_symbols(&answer, text, PositionEncoding::Utf16);
        assert_eq!(
            paths(&got),
            [
                "Cart Class",
                "Cart/total Method",
                "Cart/Line Class",
                "Cart/Line/price Method",
                "Cart/add Method",
                "main Function",
            ]
        );
        // The name's first occurrence in the range stands for the selection range.
        let line = &got[0].children[1];
        assert_eq!(
            line.selection_range,
            serde_json::from_value(r(2, 8, 2, 12)).unwrap()
        );
    }

    #[test]
    fn flat_selection_range_counts_in_the_negotiated_encoding() {
        // "é" is two UTF-8 bytes and one UTF-16 unit; "😀" four bytes and two units.
        let text = "/* é😀 */ class Cart {}\n";
        let (utf8, utf16) = (PositionEncoding::Utf8, PositionEncoding::Utf16);
        for (encoding, end, name_at) in [(utf8, 26, 19), (utf16, 23, 16)] {
            let answer = json!([flat("Cart", 5, r(0, 0, 0, end), None)]);
            let got = read_document_symbols(&answer, text, encoding);
            assert_eq!(
                got[0].selection_range,
                serde_json::from_value(r(0, name_at, 0, name_at + 4)).unwrap(),
                "{encoding:?}"
            );
        }
        // A name the range does not hold: the range stands for it.
        let answer = json!([flat("Other", 5, r(0, 0, 0, 26), None)]);
        let got = read_document_symbols(&answer, text, utf8);
        assert_eq!(got[0].selection_range, got[0].range);
    }

    #[test]
    fn flat_symbols_of_the_same_range_nest_by_container_name() {
        // A module and the one class it holds, both spanning the whole text.
        let text = "class A {}\n";
        for answer in [
            json!([
                flat("A", 5, r(0, 0, 0, 10), Some("m")),
                flat("m", 2, r(0, 0, 0, 10), None)
            ]),
            json!([
                flat("m", 2, r(0, 0, 0, 10), None),
                flat("A", 5, r(0, 0, 0, 10), Some("m"))
            ]),
        ] {
            let got = read_document_symbols(&answer, text, PositionEncoding::Utf8);
            assert_eq!(paths(&got), ["m Module", "m/A Class"]);
        }
    }

    #[test]
    fn malformed_items_are_skipped_not_the_answer() {
        let answer = json!([
            {"name": "ok", "kind": 12, "range": r(0, 0, 0, 5), "selectionRange": r(0, 0, 0, 2),
             "children": [
                {"name": "no kind", "range": r(0, 1, 0, 2)},
                {"name": "child", "kind": 13, "range": r(0, 1, 0, 2)},
             ]},
            {"name": 7, "kind": 12, "range": r(1, 0, 1, 1)},
            {"name": "bad range", "kind": 12, "range": {"start": 3}},
            "junk",
            null,
            flat("flat ok", 12, r(2, 0, 2, 4), None),
            {"name": "flat bad", "kind": 12, "location": {"uri": "file:///a"}},
        ]);
        let got = read_document_symbols(&answer, "", PositionEncoding::Utf16);
        assert_eq!(
            paths(&got),
            ["ok Function", "ok/child Variable", "flat ok Function"]
        );
        assert_eq!(got[0].children[0].selection_range, got[0].children[0].range);
        assert!(read_document_symbols(&Value::Null, "", PositionEncoding::Utf16).is_empty());
        assert!(read_document_symbols(&json!({"x": 1}), "", PositionEncoding::Utf16).is_empty());
    }

    #[test]
    fn workspace_symbols_in_both_shapes() {
        let answer = json!([
            {"name": "add", "kind": 12, "containerName": "util",
             "location": {"uri": "file:///w/util.ts", "range": r(0, 16, 0, 19)}},
            {"name": "Cart", "kind": 5, "location": {"uri": "file:///w/cart.ts"}},
            {"name": "no location", "kind": 5},
            {"name": "bad uri", "kind": 5, "location": {"uri": "not a uri"}},
        ]);
        let got = read_workspace_symbols(&answer);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].container_name.as_deref(), Some("util"));
        assert_eq!(
            got[0].range,
            serde_json::from_value(r(0, 16, 0, 19)).unwrap()
        );
        assert_eq!((got[1].name.as_str(), got[1].range), ("Cart", None));
        assert_eq!(got[1].uri.as_str(), "file:///w/cart.ts");
        assert!(read_workspace_symbols(&Value::Null).is_empty());
    }

    #[test]
    fn hover_shapes() {
        let text = |v: Value| read_hover(&v).map(|(t, _)| t);
        // MarkupContent, markdown as is.
        let md = "```typescript\nfunction add(a: number): number\n```";
        assert_eq!(
            text(json!({"contents": {"kind": "markdown", "value": md}, "range": r(0, 0, 0, 3)})),
            Some(md.to_owned())
        );
        assert_eq!(
            read_hover(
                &json!({"contents": {"kind": "plaintext", "value": "x"}, "range": r(0, 0, 0, 3)})
            )
            .and_then(|(_, range)| range),
            serde_json::from_value(r(0, 0, 0, 3)).ok()
        );
        // A MarkedString: a string, or a code block with its language.
        assert_eq!(text(json!({"contents": "plain"})), Some("plain".to_owned()));
        assert_eq!(
            text(json!({"contents": {"language": "rust", "value": "fn add()"}})),
            Some("```rust\nfn add()\n```".to_owned())
        );
        // An array of them, empty parts left out.
        assert_eq!(
            text(json!({"contents": [{"language": "python", "value": "def add()"}, "", "Adds."]})),
            Some("```python\ndef add()\n```\n\nAdds.".to_owned())
        );
        // Nothing to say.
        assert_eq!(text(Value::Null), None);
        assert_eq!(text(json!({"contents": []})), None);
        assert_eq!(
            text(json!({"contents": {"kind": "markdown", "value": ""}})),
            None
        );
        assert_eq!(text(json!({"contents": 3})), None);
    }

    #[test]
    fn calls_keep_the_raw_item_and_skip_unreadable_ones() {
        let key = ServerKey {
            server: "s".to_owned(),
            root: "/w".into(),
        };
        let item = json!({"name": "answer", "kind": 12, "uri": "file:///w/a.py",
            "range": r(4, 0, 6, 16), "selectionRange": r(4, 4, 4, 10), "data": {"id": 7}});
        let answer = json!([
            {"from": item, "fromRanges": [r(5, 17, 5, 20), {"bad": 1}]},
            {"from": {"name": "no uri", "kind": 12, "range": r(0, 0, 0, 1)}, "fromRanges": []},
            {"to": item},
        ]);
        let got = read_calls(&answer, "from", &key);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].item.name, "answer");
        assert_eq!(
            got[0].item.raw["data"]["id"], 7,
            "sent back as the server gave it"
        );
        assert_eq!(got[0].from_ranges.len(), 1);
        let out = read_calls(&answer, "to", &key);
        assert_eq!((out.len(), out[0].from_ranges.len()), (1, 0));
        assert!(read_calls(&Value::Null, "from", &key).is_empty());
    }
}
