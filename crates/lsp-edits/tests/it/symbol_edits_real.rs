//! `replace_symbol_body`, `insert_before_symbol` and `insert_after_symbol` on real servers
//! (TypeScript both ways, Python, Rust), over the class-and-methods files of `symbols_real.rs`:
//! a body with a syntax error is written and its error reported in the same result; a fixed
//! body comes back clean at the method's indentation; an inserted method lands with one blank
//! line, a top-level Python definition with two; an ambiguous name, an unknown one and a stale
//! anchor are refused with nothing written; a CRLF file stays CRLF.

use lspedit_lsp_edits::{EditOptions, LspEditResult, LspEditStatus, SymbolEdit, SymbolEditKind};

use crate::lsp_edits_real::Real;
use crate::symbols_real::{Case, python, rust, setup, ts, ts_on};

fn edit(env: &Real, kind: SymbolEditKind, file: &str, name: &str, body: &str) -> LspEditResult {
    env.edits().edit_symbol(
        &SymbolEdit::new(kind, file, name, body),
        EditOptions::default(),
    )
}

/// What each language writes.
struct Bodies {
    /// `Cart/total` with a syntax error.
    broken: &'static str,
    /// `Cart/total` correct, written at column 0; and as the file then holds it.
    fixed: &'static str,
    fixed_in_file: &'static str,
    /// A method inserted after `Cart/total`, and the text around it in the file afterwards.
    method: &'static str,
    method_in_file: &'static str,
}

fn bodies(case: &Case) -> Bodies {
    match case.project {
        "ts-basic" => Bodies {
            broken: "total(): number {\n  return add(this.items.length, ;\n}",
            fixed: "total(): number {\n  return add(this.items.length, 1);\n}\n",
            fixed_in_file: "  total(): number {\n    return add(this.items.length, 1);\n  }\n",
            method: "count(): number {\n  return this.items.length;\n}",
            method_in_file: "    return add(this.items.length, 1);\n  }\n\n  count(): number {\n    return this.items.length;\n  }\n\n  price(): number {",
        },
        "python-basic" => Bodies {
            broken: "def total(self) -> int:\n    return add(len(self.items),\n",
            fixed: "def total(self) -> int:\n    return add(len(self.items), 1)\n",
            fixed_in_file: "    def total(self) -> int:\n        return add(len(self.items), 1)\n",
            method: "def count(self) -> int:\n    return len(self.items)",
            method_in_file: "        return add(len(self.items), 1)\n\n    def count(self) -> int:\n        return len(self.items)\n\n    def price(self) -> int:",
        },
        _ => Bodies {
            broken: "pub fn total(&self) -> i32 {\n    add(self.items.len() as i32,\n}",
            fixed: "pub fn total(&self) -> i32 {\n    add(self.items.len() as i32, 1)\n}\n",
            fixed_in_file: "    pub fn total(&self) -> i32 {\n        add(self.items.len() as i32, 1)\n    }\n",
            method: "pub fn count(&self) -> usize {\n    self.items.len()\n}",
            method_in_file: "        add(self.items.len() as i32, 1)\n    }\n\n    pub fn count(&self) -> usize {\n        self.items.len()\n    }\n}",
        },
    }
}

fn run(case: Case) {
    let Some(env) = setup(&case) else {
        return;
    };
    let (server, file) = (case.server, case.file);
    let b = bodies(&case);

    // A syntax error is written, and reported in the same result.
    let r = edit(&env, SymbolEditKind::Replace, file, "Cart/total", b.broken);
    eprintln!("{server} broken:\n{}", r.llm_content);
    assert_eq!(
        r.status,
        LspEditStatus::Applied,
        "{server}: {}",
        r.llm_content
    );
    assert!(
        r.llm_content.contains("LSP errors"),
        "{server}: the syntax error is not reported:\n{}",
        r.llm_content
    );
    let reported: usize = r.diagnostics.iter().map(|d| d.reported.len()).sum();
    assert!(reported > 0, "{server}: {:?}", r.diagnostics);
    assert!(r.checkpoint_id.is_some());

    // The fix: at the method's indentation, clean.
    let r = edit(&env, SymbolEditKind::Replace, file, "Cart/total", b.fixed);
    eprintln!("{server} fixed:\n{}", r.llm_content);
    assert_eq!(
        r.status,
        LspEditStatus::Applied,
        "{server}: {}",
        r.llm_content
    );
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{server}: {}",
        r.llm_content
    );
    let text = env.read(file);
    assert!(text.contains(b.fixed_in_file), "{server}:\n{text}");
    // The rest of the file is as it was.
    let untouched = text.replace(b.fixed_in_file, "");
    assert!(
        case.text
            .lines()
            .filter(|l| !l.contains("total") && !l.contains("add(") && *l != "  }" && *l != "    }")
            .all(|l| untouched.contains(l)),
        "{server}:\n{text}"
    );

    // A method after it: one blank line on each side.
    let r = edit(
        &env,
        SymbolEditKind::InsertAfter,
        file,
        "Cart/total",
        b.method,
    );
    eprintln!("{server} insert after:\n{}", r.llm_content);
    assert_eq!(
        r.status,
        LspEditStatus::Applied,
        "{server}: {}",
        r.llm_content
    );
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{server}: {}",
        r.llm_content
    );
    let text = env.read(file);
    assert!(text.contains(b.method_in_file), "{server}:\n{text}");
    let o = env.edits().outline(file).unwrap();
    assert!(
        o.files[0]
            .symbols
            .iter()
            .any(|s| s.name_path == "Cart/count"),
        "{server}: {}",
        o.llm_content
    );

    // Refusals write nothing.
    let before = env.read(file);
    let r = edit(&env, SymbolEditKind::Replace, file, "price", b.fixed);
    assert_eq!(r.status, LspEditStatus::Refused);
    assert_eq!(
        r.reason.unwrap().as_str(),
        "ambiguous_match",
        "{}",
        r.llm_content
    );
    assert!(
        r.llm_content.contains("Priced/price") && r.llm_content.contains("Cart/price"),
        "{server}: {}",
        r.llm_content
    );
    let r = edit(
        &env,
        SymbolEditKind::InsertAfter,
        file,
        "Cart/totl",
        b.method,
    );
    assert_eq!(
        r.reason.unwrap().as_str(),
        "symbol_not_found",
        "{}",
        r.llm_content
    );
    assert!(r.llm_content.contains("Cart/total"), "{}", r.llm_content);
    // An anchor of the line as it was before the edits: the symbol changed since.
    let total = o.files[0]
        .symbols
        .iter()
        .find(|s| s.name_path == "Cart/total")
        .unwrap();
    let stale = format!(
        "{}{}",
        total.line,
        if total.anchor.ends_with("aaaa") {
            "bbbb"
        } else {
            "aaaa"
        }
    );
    let r = env.edits().edit_symbol(
        &SymbolEdit::new(SymbolEditKind::Replace, file, "Cart/total", b.fixed).anchor(stale),
        EditOptions::default(),
    );
    assert_eq!(
        r.reason.unwrap().as_str(),
        "stale_context",
        "{}",
        r.llm_content
    );
    // The fresh anchor is accepted.
    let r = env.edits().edit_symbol(
        &SymbolEdit::new(SymbolEditKind::Replace, file, "Cart/total", b.fixed)
            .anchor(total.anchor.clone()),
        EditOptions {
            preview: true,
            ..EditOptions::default()
        },
    );
    assert_eq!(r.status, LspEditStatus::Refused, "{}", r.llm_content);
    assert_eq!(
        r.reason.unwrap().as_str(),
        "empty_diff",
        "{}",
        r.llm_content
    );
    assert_eq!(env.read(file), before, "{server}: a refusal wrote");
    env.provider.pool().shutdown();
}

#[test]
fn typescript_language_server_symbol_edits() {
    run(ts());
}

#[test]
fn tsc7_symbol_edits() {
    run(ts_on("tsc7"));
}

#[test]
fn pyright_symbol_edits() {
    run(python());
}

#[test]
fn rust_analyzer_symbol_edits() {
    run(rust());
}

/// PEP 8: a top-level definition inserted between two others has two blank lines on each side;
/// before the first method of a class, none between the class line and it.
#[test]
fn pyright_inserts_keep_pep8_blank_lines() {
    let case = python();
    let Some(env) = setup(&case) else {
        return;
    };
    let r = edit(
        &env,
        SymbolEditKind::InsertAfter,
        case.file,
        "Priced",
        "def helper() -> int:\n    return 1\n",
    );
    assert_eq!(r.status, LspEditStatus::Applied, "{}", r.llm_content);
    assert!(!r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let text = env.read(case.file);
    assert!(
        text.contains(
            "        return 0\n\n\ndef helper() -> int:\n    return 1\n\n\nclass Cart(Priced):\n"
        ),
        "{text}"
    );
    let r = edit(
        &env,
        SymbolEditKind::InsertBefore,
        case.file,
        "Cart/__init__",
        "    CAP = 10",
    );
    assert_eq!(r.status, LspEditStatus::Applied, "{}", r.llm_content);
    let text = env.read(case.file);
    assert!(
        text.contains("class Cart(Priced):\n    CAP = 10\n\n    def __init__(self) -> None:\n"),
        "{text}"
    );
    env.provider.pool().shutdown();
}

/// A CRLF file stays CRLF through every symbol edit (no bare `\n` written).
#[test]
fn symbol_edits_keep_a_crlf_file_crlf() {
    for case in [ts(), python()] {
        let Some(env) = setup(&case) else {
            continue;
        };
        let crlf = case.text.replace('\n', "\r\n");
        std::fs::write(env.dir.path().join(case.file), &crlf).unwrap();
        let b = bodies(&case);
        for (kind, body) in [
            (SymbolEditKind::Replace, b.fixed),
            (SymbolEditKind::InsertAfter, b.method),
            (
                SymbolEditKind::InsertBefore,
                b.method.replace("count", "first").leak() as &str,
            ),
        ] {
            let r = edit(&env, kind, case.file, "Cart/total", body);
            assert_eq!(
                r.status,
                LspEditStatus::Applied,
                "{}: {}",
                case.server,
                r.llm_content
            );
        }
        let text = env.read(case.file);
        let bare = text
            .match_indices('\n')
            .filter(|(i, _)| !text[..*i].ends_with('\r'))
            .count();
        assert_eq!(bare, 0, "{}: bare newlines written:\n{text:?}", case.server);
        assert!(
            text.contains(&b.fixed_in_file.replace('\n', "\r\n")),
            "{}: {text:?}",
            case.server
        );
        env.provider.pool().shutdown();
    }
}

/// clangd: a C prototype and its definition share the name path, so the name alone is
/// ambiguous and the refusal asks for the anchor; with it, a broken body's error comes back in
/// the same result, the fix clean, and a function inserted after another gets one blank line.
#[test]
fn clangd_symbol_edits_pick_by_anchor() {
    let Some(env) = crate::lsp_edits_real::open_real("clangd", "c-basic") else {
        return;
    };
    let text = include_str!("../../../../test-projects/fixtures/symbols/cart.c");
    std::fs::write(env.dir.path().join("cart.c"), text).unwrap();
    let r = edit(
        &env,
        SymbolEditKind::Replace,
        "cart.c",
        "cart_total",
        "int x;",
    );
    assert_eq!(
        r.reason.unwrap().as_str(),
        "ambiguous_match",
        "{}",
        r.llm_content
    );
    assert!(
        r.llm_content
            .contains("give the anchor of the one you mean")
            && !r.llm_content.contains("full name path"),
        "{}",
        r.llm_content
    );
    assert_eq!(env.read("cart.c"), text);

    let o = env.edits().outline("cart.c").unwrap();
    let definition = o.files[0]
        .symbols
        .iter()
        .find(|s| s.name_path == "cart_total" && s.end_line > s.line)
        .unwrap()
        .anchor
        .clone();
    let by_anchor = |body: &str| {
        env.edits().edit_symbol(
            &SymbolEdit::new(SymbolEditKind::Replace, "cart.c", "cart_total", body)
                .anchor(definition.clone()),
            EditOptions::default(),
        )
    };
    let r = by_anchor("int cart_total(const struct cart *c) {\n    return c->count +;\n}");
    assert_eq!(r.status, LspEditStatus::Applied, "{}", r.llm_content);
    assert!(r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let r = by_anchor("int cart_total(const struct cart *c) {\n    return (int)c->count;\n}");
    assert_eq!(r.status, LspEditStatus::Applied, "{}", r.llm_content);
    assert!(!r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let r = edit(
        &env,
        SymbolEditKind::InsertAfter,
        "cart.c",
        "cart_price",
        "int cart_empty(const struct cart *c) {\n    return c->count == 0;\n}\n",
    );
    assert_eq!(r.status, LspEditStatus::Applied, "{}", r.llm_content);
    assert!(!r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    assert!(
        env.read("cart.c").ends_with(
            "int cart_total(const struct cart *c);\n\nint cart_total(const struct cart *c) {\n    return (int)c->count;\n}\n\nint cart_price(const struct cart *c) {\n    return cart_total(c);\n}\n\nint cart_empty(const struct cart *c) {\n    return c->count == 0;\n}\n"
        ),
        "{}",
        env.read("cart.c")
    );
    env.provider.pool().shutdown();
}

/// `references`, `definition` and `rename_symbol` take a name path as the lookups do: asked at
/// the symbol's name, so `Cart/total` finds the call in `price` and renames both.
#[test]
fn rename_references_and_definition_by_name_path() {
    use lspedit_lsp_edits::LookupAt;
    for case in [ts(), python(), rust()] {
        let Some(env) = setup(&case) else {
            continue;
        };
        let at = LookupAt::NamePath {
            path: case.file.into(),
            name_path: "Cart/total".into(),
            anchor: None,
        };
        let server = case.server;
        let refs = env.edits().references(&at, true).unwrap();
        eprintln!("{server} refs:\n{}", refs.llm_content);
        assert!(
            refs.llm_content.starts_with("2 references to `Cart/total`"),
            "{server}: {}",
            refs.llm_content
        );
        let def = env.edits().definition(&at).unwrap();
        let total_line = case
            .text
            .lines()
            .position(|l| {
                l.contains("fn total") || l.contains("def total") || l.contains("total(): number")
            })
            .unwrap()
            + 1;
        assert!(
            def.locations
                .iter()
                .any(|l| l.path == case.file && l.line == total_line),
            "{server}: {}",
            def.llm_content
        );
        let r = env
            .edits()
            .rename_symbol(&at, "sum", EditOptions::default());
        assert_eq!(
            r.status,
            LspEditStatus::Applied,
            "{server}: {}",
            r.llm_content
        );
        assert!(
            r.llm_content.starts_with("Rename `Cart/total` to `sum`"),
            "{}",
            r.llm_content
        );
        let text = env.read(case.file);
        assert!(!text.contains("total"), "{server}:\n{text}");
        assert_eq!(text.matches("sum").count(), 2, "{server}:\n{text}");
        env.provider.pool().shutdown();
    }
}
