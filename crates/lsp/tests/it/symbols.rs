//! The symbol requests (`symbols.rs`) on real servers against `test-projects/`, with a file
//! holding a class and its methods written into the copy: document symbols as a tree,
//! workspace symbols, hover, the call hierarchy both ways, implementations and type
//! definitions. Skipped when a server is not installed (see `real.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_lsp::lsp_types::SymbolKind;
use lspedit_lsp::{LspError, Pool, Symbol};

use crate::harness::*;

/// What a server's answers about one project must show.
struct Case {
    server: &'static str,
    project: &'static str,
    /// Files written into the copy: (path, text); the first is the class's file.
    files: &'static [(&'static str, &'static str)],
    /// A replacement in a file of the project, to bring the written ones into it.
    edit: Option<(&'static str, &'static str, &'static str)>,
    /// Name paths the class's file must have, with their kind, in this order among its symbols.
    tree: Vec<(&'static str, SymbolKind)>,
    /// The file declaring `add(a, b)`, and what its hover must hold.
    add_file: &'static str,
    add_hover: &'static str,
    /// The name of `Cart.total` as a caller in the call hierarchy.
    total_caller: &'static str,
    /// Where implementations are asked for (the `Priced` interface or trait).
    priced: &'static str,
    /// Where an implementation of the `Priced` interface/trait is: `Some(needle)` (the line
    /// holding it in the class's file), `None` when the server does not offer the request.
    implementation: Option<&'static str>,
    /// The line of the class's file the type of `cart` is defined at (`None`: unsupported).
    type_definition: Option<&'static str>,
}

const TS_CART: &str = r#"import { add } from "./util";

export interface Priced {
  price(): number;
}

export class Cart implements Priced {
  items: number[] = [];

  total(): number {
    return add(this.items.length, 0);
  }

  price(): number {
    return this.total();
  }
}

export const cart: Cart = new Cart();
"#;

const PY_CART: &str = r#"from app.main import add


class Cart:
    def __init__(self) -> None:
        self.items: list[int] = []

    def total(self) -> int:
        return add(len(self.items), 0)

    class Line:
        def price(self) -> int:
            return 1


cart: Cart = Cart()
"#;

const RS_CART: &str = r#"use crate::add;

pub trait Priced {
    fn price(&self) -> i32;
}

pub struct Cart {
    pub items: Vec<i32>,
}

impl Cart {
    pub fn total(&self) -> i32 {
        add(self.items.len() as i32, 0)
    }
}

impl Priced for Cart {
    fn price(&self) -> i32 {
        self.total()
    }
}

pub fn cart() -> i32 {
    let cart: Cart = Cart { items: vec![] };
    cart.price()
}
"#;

fn ts(server: &'static str) -> Case {
    // typescript-language-server calls an exported `const` a constant, TypeScript 7 a variable.
    let cart = if server == "tsc7" {
        SymbolKind::VARIABLE
    } else {
        SymbolKind::CONSTANT
    };
    Case {
        server,
        project: "ts-basic",
        files: &[("src/cart.ts", TS_CART)],
        edit: None,
        tree: vec![
            ("Priced", SymbolKind::INTERFACE),
            ("Priced/price", SymbolKind::METHOD),
            ("Cart", SymbolKind::CLASS),
            ("Cart/items", SymbolKind::PROPERTY),
            ("Cart/total", SymbolKind::METHOD),
            ("Cart/price", SymbolKind::METHOD),
            ("cart", cart),
        ],
        add_file: "src/util.ts",
        add_hover: "add(a: number, b: number): number",
        total_caller: "total",
        priced: "Priced",
        implementation: Some("export class Cart implements Priced"),
        type_definition: Some("export class Cart implements Priced"),
    }
}

fn python() -> Case {
    Case {
        server: "pyright",
        project: "python-basic",
        files: &[("app/cart.py", PY_CART)],
        edit: None,
        tree: vec![
            ("Cart", SymbolKind::CLASS),
            ("Cart/__init__", SymbolKind::METHOD),
            ("Cart/total", SymbolKind::METHOD),
            ("Cart/Line", SymbolKind::CLASS),
            ("Cart/Line/price", SymbolKind::METHOD),
            ("cart", SymbolKind::VARIABLE),
        ],
        add_file: "app/main.py",
        add_hover: "-> int",
        total_caller: "total",
        priced: "Cart",
        implementation: None,
        type_definition: Some("class Cart:"),
    }
}

fn rust() -> Case {
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        files: &[("src/cart.rs", RS_CART)],
        edit: Some((
            "src/lib.rs",
            "pub mod twice;",
            "pub mod twice;\npub mod cart;",
        )),
        tree: vec![
            ("Priced", SymbolKind::INTERFACE),
            ("Priced/price", SymbolKind::METHOD),
            ("Cart", SymbolKind::STRUCT),
            ("Cart/items", SymbolKind::FIELD),
            ("impl Cart", SymbolKind::OBJECT),
            ("impl Cart/total", SymbolKind::METHOD),
            ("impl Priced for Cart", SymbolKind::OBJECT),
            ("impl Priced for Cart/price", SymbolKind::METHOD),
            ("cart", SymbolKind::FUNCTION),
        ],
        add_file: "src/lib.rs",
        add_hover: "pub fn add(a: i32, b: i32) -> i32",
        total_caller: "total",
        priced: "Priced",
        implementation: Some("impl Priced for Cart"),
        type_definition: Some("pub struct Cart"),
    }
}

/// The byte offset of the first `needle` in `text`.
fn at(text: &str, needle: &str) -> usize {
    text.find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in the fixture"))
}

/// The 0-based line of the first `needle` in `text`.
fn line_of(text: &str, needle: &str) -> u32 {
    text[..at(text, needle)].matches('\n').count() as u32
}

struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    pool: Pool,
}

impl Project {
    fn new(case: &Case, cfg: lspedit_lsp::PoolConfig) -> Self {
        let dir = copy_project(case.project);
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in case.files {
            std::fs::write(root.join(path), text).unwrap();
        }
        if let Some((path, from, to)) = case.edit {
            let old = std::fs::read_to_string(root.join(path)).unwrap();
            assert!(old.contains(from), "fixture drifted");
            std::fs::write(root.join(path), old.replacen(from, to, 1)).unwrap();
        }
        let pool = Pool::new(&root, cfg).unwrap();
        Self {
            _dir: dir,
            root,
            pool,
        }
    }

    fn file(&self, path: &str) -> (PathBuf, String) {
        let path = self.root.join(path);
        let text = std::fs::read_to_string(&path).unwrap();
        (path, text)
    }
}

/// Name paths and kinds of a tree, depth first.
fn tree(symbols: &[Symbol]) -> Vec<(String, SymbolKind)> {
    Symbol::walk(symbols)
        .into_iter()
        .map(|(p, s)| (p, s.kind))
        .collect()
}

fn file_name(uri: &lspedit_lsp::lsp_types::Url) -> String {
    uri.path().rsplit('/').next().unwrap_or_default().to_owned()
}

async fn run(case: Case) {
    let Some(cfg) = require_server(case.server) else {
        return;
    };
    let p = Project::new(&case, cfg);
    let server = case.server;
    let (cart_path, cart) = p.file(case.files[0].0);

    // Document symbols: the class with its methods as children, in position order.
    let symbols = p
        .pool
        .document_symbols(&cart_path, &cart, deadline(90_000))
        .await
        .unwrap();
    assert_eq!(symbols.server, server);
    let got = tree(&symbols.symbols);
    let want: Vec<(String, SymbolKind)> =
        case.tree.iter().map(|(p, k)| (p.to_string(), *k)).collect();
    let kept: Vec<_> = got.iter().filter(|g| want.contains(g)).cloned().collect();
    assert_eq!(kept, want, "{server}: the tree was {got:#?}");
    for (name_path, s) in Symbol::walk(&symbols.symbols) {
        let sel = &s.selection_range;
        assert!(
            (s.range.start.line, s.range.start.character) <= (sel.start.line, sel.start.character)
                && (sel.end.line, sel.end.character) <= (s.range.end.line, s.range.end.character),
            "{server}: the selection of {name_path} is outside its range: {s:?}"
        );
    }
    let total = Symbol::walk(&symbols.symbols)
        .into_iter()
        .find(|(path, _)| path.ends_with("/total"))
        .map(|(_, s)| s.clone())
        .unwrap();
    assert_eq!(
        total.selection_range.start.line,
        line_of(&cart, "total("),
        "{server}: {total:?}"
    );

    // Workspace symbols: `add` by name, in the file that declares it.
    let found = p
        .pool
        .workspace_symbols(&cart_path, "add", deadline(60_000))
        .await
        .unwrap();
    let add_name = Path::new(case.add_file)
        .file_name()
        .unwrap()
        .to_string_lossy();
    assert!(
        found
            .symbols
            .iter()
            .any(|s| s.name == "add" && file_name(&s.uri) == add_name),
        "{server}: `add` not found: {found:#?}"
    );

    // Hover: the signature of `add`.
    let (add_path, add_text) = p.file(case.add_file);
    let add_at = at(&add_text, "add(");
    let hover = p
        .pool
        .hover(&add_path, &add_text, add_at, deadline(30_000))
        .await
        .unwrap()
        .unwrap_or_else(|| panic!("{server}: no hover on `add`"));
    assert!(
        hover.text.contains(case.add_hover),
        "{server}: hover lacks {:?}: {hover:#?}",
        case.add_hover
    );
    // Nothing to say on a blank line.
    let blank = at(&cart, "\n\n") + 1;
    let none = p
        .pool
        .hover(&cart_path, &cart, blank, deadline(30_000))
        .await
        .unwrap();
    assert!(none.is_none(), "{server}: hover on a blank line: {none:?}");

    // Call hierarchy: `add` is called by `Cart.total`, which calls `add`.
    let items = p
        .pool
        .prepare_call_hierarchy(&add_path, &add_text, add_at, deadline(30_000))
        .await
        .unwrap();
    assert_eq!(
        items
            .items
            .iter()
            .map(|i| i.name.as_str())
            .collect::<Vec<_>>(),
        ["add"],
        "{server}: {items:#?}"
    );
    let incoming = p
        .pool
        .incoming_calls(&items.items[0], deadline(30_000))
        .await
        .unwrap();
    let cart_name = cart_path.file_name().unwrap().to_string_lossy();
    let from_total = incoming
        .calls
        .iter()
        .find(|c| c.item.name == case.total_caller && file_name(&c.item.uri) == cart_name)
        .unwrap_or_else(|| panic!("{server}: `total` is not among the callers: {incoming:#?}"));
    let calls_add = |r: &lspedit_lsp::lsp_types::Range| {
        cart.lines()
            .nth(r.start.line as usize)
            .is_some_and(|l| l.contains("add("))
    };
    assert!(
        !from_total.from_ranges.is_empty() && from_total.from_ranges.iter().all(calls_add),
        "{server}: the call site is not the line calling `add`: {from_total:#?}"
    );
    let outgoing = p
        .pool
        .outgoing_calls(&from_total.item, deadline(30_000))
        .await
        .unwrap();
    assert!(
        outgoing
            .calls
            .iter()
            .any(|c| c.item.name == "add" && c.from_ranges.iter().all(calls_add)),
        "{server}: `total` does not call `add`: {outgoing:#?}"
    );

    // Implementations of the interface/trait, type definition of the `cart` value.
    let priced = at(&cart, case.priced);
    let implementations = p
        .pool
        .implementations(&cart_path, &cart, priced, deadline(30_000))
        .await;
    check_locations(
        server,
        "implementations",
        implementations,
        &cart,
        case.implementation,
    );
    let cart_value = cart.rfind("cart").unwrap();
    let type_definition = p
        .pool
        .type_definition(&cart_path, &cart, cart_value, deadline(30_000))
        .await;
    check_locations(
        server,
        "type definition",
        type_definition,
        &cart,
        case.type_definition,
    );

    p.pool.shutdown().await;
}

/// The answer names the line of `text` holding `want`, or is `Unsupported` when `want` is none.
fn check_locations(
    server: &str,
    what: &str,
    got: Result<lspedit_lsp::Locations, LspError>,
    text: &str,
    want: Option<&str>,
) {
    match (want, got) {
        (None, Err(LspError::Unsupported { .. })) => {}
        (Some(needle), Ok(found)) => {
            let line = line_of(text, needle);
            assert!(
                found.locations.iter().any(|l| l.range.start.line == line),
                "{server}: {what} does not name line {line} ({needle:?}): {found:#?}"
            );
        }
        (want, got) => panic!("{server}: {what}: expected {want:?}, got {got:#?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_language_server_symbols() {
    run(ts("typescript-language-server")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_7_symbols() {
    run(ts("tsc7")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_symbols() {
    run(python()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rust_analyzer_symbols() {
    run(rust()).await;
}

/// The server's own time of an answer.
trait ServerTime {
    fn server_time(&self) -> Option<Duration>;
}

macro_rules! server_time {
    ($($t:ty),*) => {$(
        impl ServerTime for $t {
            fn server_time(&self) -> Option<Duration> {
                Some(self.server_time)
            }
        }
    )*};
}
server_time!(
    lspedit_lsp::Symbols,
    lspedit_lsp::WorkspaceSymbols,
    lspedit_lsp::HoverText,
    lspedit_lsp::CallItems,
    lspedit_lsp::Calls,
    lspedit_lsp::Locations
);

impl<T: ServerTime> ServerTime for Option<T> {
    fn server_time(&self) -> Option<Duration> {
        self.as_ref()?.server_time()
    }
}

/// Warm latency of each symbol request (p50 and p95 of 20 calls, after one warm-up), printed
/// for the bench. Run with `cargo test -p lspedit-lsp --test it symbol_latency -- --ignored
/// --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement, not a check"]
async fn symbol_latency() {
    for case in [
        ts("typescript-language-server"),
        ts("tsc7"),
        python(),
        rust(),
    ] {
        let Some(cfg) = require_server(case.server) else {
            continue;
        };
        let p = Project::new(&case, cfg);
        let (cart_path, cart) = p.file(case.files[0].0);
        let (add_path, add_text) = p.file(case.add_file);
        let add_at = at(&add_text, "add(");
        let pool = &p.pool;
        // Warm: the project loaded and the item to ask about.
        pool.document_symbols(&cart_path, &cart, deadline(90_000))
            .await
            .unwrap();
        let item = pool
            .prepare_call_hierarchy(&add_path, &add_text, add_at, deadline(30_000))
            .await
            .unwrap()
            .items
            .remove(0);
        // Each call's whole time, and the server's own (`server_time`: the request alone,
        // without the text sync and the loading check before it).
        macro_rules! measure {
            ($name:literal, $call:expr) => {{
                let _ = $call;
                let (mut took, mut own) = (Vec::new(), Vec::new());
                for _ in 0..20 {
                    let start = Instant::now();
                    let answer = $call;
                    took.push(start.elapsed());
                    own.extend(answer.ok().and_then(|a| a.server_time()));
                }
                took.sort();
                own.sort();
                eprintln!(
                    "latency {:<28} {:<22} p50 {:>9.1?} p95 {:>9.1?} server p50 {:>9}",
                    case.server,
                    $name,
                    lspedit_fake_lsp::support::percentile(&took, 0.5),
                    lspedit_fake_lsp::support::percentile(&took, 0.95),
                    // No answer (the request unsupported): no server time.
                    if own.is_empty() {
                        "-".to_owned()
                    } else {
                        format!("{:.1?}", lspedit_fake_lsp::support::percentile(&own, 0.5))
                    },
                );
            }};
        }
        let d = || deadline(30_000);
        measure!(
            "documentSymbol",
            pool.document_symbols(&cart_path, &cart, d()).await
        );
        measure!(
            "workspace/symbol",
            pool.workspace_symbols(&cart_path, "add", d()).await
        );
        measure!("hover", pool.hover(&add_path, &add_text, add_at, d()).await);
        measure!(
            "prepareCallHierarchy",
            pool.prepare_call_hierarchy(&add_path, &add_text, add_at, d())
                .await
        );
        measure!("incomingCalls", pool.incoming_calls(&item, d()).await);
        measure!(
            "implementation",
            pool.implementations(&cart_path, &cart, at(&cart, case.priced), d())
                .await
        );
        measure!(
            "typeDefinition",
            pool.type_definition(&cart_path, &cart, cart.rfind("cart").unwrap(), d())
                .await
        );
        pool.shutdown().await;
    }
}

/// A server that offers none of the symbol requests (the scripted fake offers diagnostics
/// only): each is `Unsupported`, named by its method.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_a_server_does_not_offer_are_unsupported() {
    let ws = FakeWs::new(lspedit_fake_lsp::Script::default());
    std::fs::write(ws.file("fake.root"), "").unwrap();
    let path = ws.file("a.fk");
    let text = "one two\n";
    std::fs::write(&path, text).unwrap();
    let pool = ws.pool("push-versioned");
    let d = || deadline(5_000);
    let method = |r: Result<(), LspError>| match r {
        Err(LspError::Unsupported { method, .. }) => method,
        other => panic!("expected Unsupported, got {other:?}"),
    };
    assert_eq!(
        method(pool.document_symbols(&path, text, d()).await.map(drop)),
        "textDocument/documentSymbol"
    );
    assert_eq!(
        method(pool.workspace_symbols(&path, "one", d()).await.map(drop)),
        "workspace/symbol"
    );
    assert_eq!(
        method(pool.hover(&path, text, 0, d()).await.map(drop)),
        "textDocument/hover"
    );
    assert_eq!(
        method(
            pool.prepare_call_hierarchy(&path, text, 0, d())
                .await
                .map(drop)
        ),
        "textDocument/prepareCallHierarchy"
    );
    assert_eq!(
        method(pool.implementations(&path, text, 0, d()).await.map(drop)),
        "textDocument/implementation"
    );
    assert_eq!(
        method(pool.type_definition(&path, text, 0, d()).await.map(drop)),
        "textDocument/typeDefinition"
    );
    pool.shutdown().await;
}

/// The blocking facade hands the pool's answer through, error included.
#[test]
fn blocking_pool_answers_the_symbol_requests() {
    let ws = FakeWs::new(lspedit_fake_lsp::Script::default());
    std::fs::write(ws.file("fake.root"), "").unwrap();
    let path = ws.file("a.fk");
    std::fs::write(&path, "one\n").unwrap();
    let pool = lspedit_lsp::BlockingPool::new(ws.root(), ws.config("push-versioned")).unwrap();
    let got = pool.document_symbols(&path, "one\n", deadline(5_000));
    assert!(
        matches!(
            got,
            Err(LspError::Unsupported {
                method: "textDocument/documentSymbol",
                ..
            })
        ),
        "{got:?}"
    );
    let got = pool.hover(&path, "one\n", 0, deadline(5_000));
    assert!(matches!(got, Err(LspError::Unsupported { .. })), "{got:?}");
    pool.shutdown();
}

/// clangd on the C project as it is (no classes in C): the functions as symbols, `add` found by
/// name, its signature on hover, `main` as its caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clangd_symbols() {
    let Some(cfg) = require_server("clangd") else {
        return;
    };
    let dir = copy_project("c-basic");
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("main.c");
    let text = std::fs::read_to_string(&path).unwrap();
    let pool = Pool::new(&root, cfg).unwrap();

    let symbols = pool
        .document_symbols(&path, &text, deadline(60_000))
        .await
        .unwrap();
    assert_eq!(
        tree(&symbols.symbols),
        [
            ("add".to_owned(), SymbolKind::FUNCTION),
            ("main".to_owned(), SymbolKind::FUNCTION)
        ],
        "{symbols:#?}"
    );
    let found = pool
        .workspace_symbols(&path, "add", deadline(30_000))
        .await
        .unwrap();
    assert!(
        found
            .symbols
            .iter()
            .any(|s| s.name == "add" && file_name(&s.uri) == "main.c"),
        "{found:#?}"
    );
    let add_at = at(&text, "add(");
    let hover = pool
        .hover(&path, &text, add_at, deadline(30_000))
        .await
        .unwrap()
        .unwrap();
    assert!(hover.text.contains("int add(int a, int b)"), "{hover:#?}");
    let items = pool
        .prepare_call_hierarchy(&path, &text, add_at, deadline(30_000))
        .await
        .unwrap();
    assert_eq!(items.items.len(), 1, "{items:#?}");
    let incoming = pool
        .incoming_calls(&items.items[0], deadline(30_000))
        .await
        .unwrap();
    let callers: Vec<(&str, Vec<u32>)> = incoming
        .calls
        .iter()
        .map(|c| {
            let lines = c.from_ranges.iter().map(|r| r.start.line).collect();
            (c.item.name.as_str(), lines)
        })
        .collect();
    assert_eq!(callers, [("main", vec![line_of(&text, "add(40")])]);
    pool.shutdown().await;
}
