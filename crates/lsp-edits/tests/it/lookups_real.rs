//! `hover`, `call_hierarchy`, `implementations` and `type_definition` on real servers
//! (TypeScript both ways, Python, Rust) over copies of `test-projects/` with a file holding a
//! class (struct and impls in Rust) whose `total` calls the project's `add` and is called by
//! `price`: the signature on hover, by line and symbol and by name path; the caller and the
//! callee with their call sites as hashline lines; the implementation of the interface or
//! trait (pyright has none: `lsp_unsupported` naming it); the type of a value. Skipped with a
//! printed reason when a server is missing, unless `LSPEDIT_REQUIRE_SERVERS=1`.

use lspedit_engine::hashline;
use lspedit_lsp_edits::{CallDirection, CallsReport, LineRef, LookupAt, SymbolAt};

use crate::lsp_edits_real::{Real, open_real};
use crate::symbols_real::{PY_CART, RS_CART, TS_CART};

struct Case {
    server: &'static str,
    project: &'static str,
    file: &'static str,
    text: &'static str,
    /// A line to add to an existing file so the new one is part of the project.
    register: Option<(&'static str, &'static str)>,
    /// The file declaring `add`, and what the hover of `add` holds.
    add_file: &'static str,
    add_hover: &'static str,
    /// The line calling `total` (in `price`), and the line calling `add` (in `total`).
    calls_total: &'static str,
    calls_add: &'static str,
    /// The line implementing `Priced`; `None` when the server has no implementations.
    implementation: Option<&'static str>,
    /// The line declaring the value `cart`, and the line its type is declared at.
    cart_value: &'static str,
    cart_type: &'static str,
}

fn ts(server: &'static str) -> Case {
    Case {
        server,
        project: "ts-basic",
        file: "src/cart.ts",
        text: TS_CART,
        register: None,
        add_file: "src/util.ts",
        add_hover: "add(a: number, b: number): number",
        calls_total: "return this.total();",
        calls_add: "return add(this.items.length, 0);",
        implementation: Some("export class Cart implements Priced"),
        cart_value: "export const cart",
        cart_type: "export class Cart implements Priced",
    }
}

fn python() -> Case {
    Case {
        server: "pyright",
        project: "python-basic",
        file: "app/cart.py",
        text: PY_CART,
        register: None,
        add_file: "app/main.py",
        add_hover: "-> int",
        calls_total: "return self.total()",
        calls_add: "return add(len(self.items), 0)",
        implementation: None,
        cart_value: "cart = Cart()",
        cart_type: "class Cart(Priced):",
    }
}

fn rust() -> Case {
    Case {
        server: "rust-analyzer",
        project: "rust-basic",
        file: "src/cart.rs",
        text: RS_CART,
        register: Some(("src/lib.rs", "\npub mod cart;\n")),
        add_file: "src/lib.rs",
        add_hover: "pub fn add(a: i32, b: i32) -> i32",
        calls_total: "self.total()",
        calls_add: "add(self.items.len() as i32, 0)",
        implementation: Some("impl Priced for Cart"),
        cart_value: "let cart: Cart",
        cart_type: "pub struct Cart",
    }
}

fn setup(case: &Case) -> Option<Real> {
    let env = open_real(case.server, case.project)?;
    let root = env.dir.path();
    std::fs::write(root.join(case.file), case.text).unwrap();
    if let Some((path, line)) = case.register {
        let mut old = std::fs::read_to_string(root.join(path)).unwrap();
        old.push_str(line);
        std::fs::write(root.join(path), old).unwrap();
    }
    Some(env)
}

/// The 1-based line of the first `needle` in `text`, and that line in the hashline view.
fn line_of(text: &str, needle: &str) -> (usize, String) {
    let (i, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in the fixture"));
    (i + 1, hashline(i + 1, line))
}

fn by_name(case: &Case, name_path: &str) -> LookupAt {
    LookupAt::NamePath {
        path: case.file.into(),
        name_path: name_path.into(),
        anchor: None,
    }
}

fn at_text(case: &Case, needle: &str, symbol: &str) -> LookupAt {
    let (line, _) = line_of(case.text, needle);
    LookupAt::Text(SymbolAt::new(case.file, LineRef::Number(line), symbol))
}

/// The call of `calls` to or from `name` in `path`, whose call sites are exactly `site`.
fn assert_call(server: &str, r: &CallsReport, name: &str, path: &str, site: usize) {
    let call = r
        .calls
        .iter()
        .find(|c| c.item.name == name && c.item.path == path)
        .unwrap_or_else(|| panic!("{server}: no `{name}` in {path}:\n{}", r.llm_content));
    assert_eq!(call.sites, [site], "{server}: {}", r.llm_content);
    assert!(
        call.item.in_workspace && call.item.anchor.is_some(),
        "{call:?}"
    );
}

fn run(case: Case) {
    let Some(env) = setup(&case) else {
        return;
    };
    let server = case.server;
    let e = env.edits();

    // Hover: the signature of `add` where `total` calls it, by line and symbol.
    let h = e.hover(&at_text(&case, case.calls_add, "add")).unwrap();
    eprintln!("{server} hover add:\n{}", h.llm_content);
    assert!(!h.partial, "{server}: {}", h.llm_content);
    assert!(
        h.llm_content.contains(case.add_hover)
            && h.llm_content.starts_with(&format!(
                "Hover on `add` at {}:{} ({server}):\n",
                case.file,
                line_of(case.text, case.calls_add).0
            )),
        "{server}: {}",
        h.llm_content
    );
    // By name path: `Cart/total` at its name.
    let h = e.hover(&by_name(&case, "Cart/total")).unwrap();
    eprintln!("{server} hover Cart/total:\n{}", h.llm_content);
    assert!(
        h.text.as_deref().is_some_and(|t| t.contains("total")),
        "{server}: {}",
        h.llm_content
    );

    // Who calls `total`: `price`, at its call.
    let (total_call, total_call_view) = line_of(case.text, case.calls_total);
    let r = e
        .call_hierarchy(&by_name(&case, "Cart/total"), CallDirection::Incoming)
        .unwrap();
    eprintln!("{server} incoming Cart/total:\n{}", r.llm_content);
    assert_call(server, &r, "price", case.file, total_call);
    assert!(
        r.llm_content.contains(&total_call_view),
        "{server}: {}",
        r.llm_content
    );
    // What `total` calls: `add` in its file, at the call in `total`.
    let (add_call, add_call_view) = line_of(case.text, case.calls_add);
    let r = e
        .call_hierarchy(&by_name(&case, "Cart/total"), CallDirection::Outgoing)
        .unwrap();
    eprintln!("{server} outgoing Cart/total:\n{}", r.llm_content);
    assert_call(server, &r, "add", case.add_file, add_call);
    assert!(
        r.llm_content
            .contains(&format!("call sites in {}:", case.file))
            && r.llm_content.contains(&add_call_view),
        "{server}: {}",
        r.llm_content
    );

    // The implementation of `Priced`.
    let priced = if case.implementation.is_some() {
        by_name(&case, "Priced")
    } else {
        at_text(&case, "class Cart", "Cart")
    };
    match (case.implementation, e.implementations(&priced)) {
        (Some(needle), Ok(r)) => {
            eprintln!("{server} implementations:\n{}", r.llm_content);
            let (line, view) = line_of(case.text, needle);
            assert!(
                r.locations
                    .iter()
                    .any(|l| l.path == case.file && l.line == line),
                "{server}: {}",
                r.llm_content
            );
            assert!(
                r.llm_content
                    .starts_with("1 implementation of `Priced` in 1 file:")
                    && r.llm_content.contains(&view),
                "{server}: {}",
                r.llm_content
            );
        }
        (None, Err(err)) => {
            assert_eq!(err.code(), "lsp_unsupported", "{server}: {err}");
            assert!(
                err.to_string().contains(&format!("`{server}`"))
                    && err.to_string().contains("textDocument/implementation"),
                "{err}"
            );
        }
        (want, got) => panic!("{server}: implementations: expected {want:?}, got {got:?}"),
    }

    // The type of the value `cart`: the class.
    let r = e
        .type_definition(&at_text(&case, case.cart_value, "cart"))
        .unwrap();
    eprintln!("{server} type definition:\n{}", r.llm_content);
    let (line, view) = line_of(case.text, case.cart_type);
    assert!(
        r.locations
            .iter()
            .any(|l| l.path == case.file && l.line == line),
        "{server}: {}",
        r.llm_content
    );
    assert!(
        r.llm_content
            .contains("1 type definition of `cart` in 1 file:")
            && r.llm_content.contains(&view),
        "{server}: {}",
        r.llm_content
    );
    env.provider.pool().shutdown();
}

#[test]
fn typescript_language_server_lookups() {
    run(ts("typescript-language-server"));
}

#[test]
fn tsc7_lookups() {
    run(ts("tsc7"));
}

#[test]
fn pyright_lookups() {
    run(python());
}

#[test]
fn rust_analyzer_lookups() {
    run(rust());
}
