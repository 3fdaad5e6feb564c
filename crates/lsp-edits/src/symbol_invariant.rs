//! The symbol edits' invariant as a property (docs/design.md §13, "Range"): whatever range a
//! server claims for the target — its true one, one running to the end of the file, into the
//! next declaration, stopping inside the target or at any later line, with the swallowed
//! symbols dropped from its tree or kept — a replacement either is refused or leaves every
//! byte before the target's first line and after its last exactly as it was. Targets include
//! bodies with syntax errors and strings whose lines look like declarations; the code around
//! them includes statements and macros no server lists as symbols (Python, TypeScript, Rust,
//! C). And the true range of a whole target
//! is never refused.

use proptest::prelude::*;

use crate::position::{FileText, line_spans};
use crate::symbol_edits::{Resolved, SymbolEditKind, edit_target, plan};
use crate::symbols::SymbolEntry;

/// One top-level item of a generated file: its text (`NAME` for its name), whether a server lists
/// it as a symbol, whether its text is broken, and the line (0-based, in the item) of its name.
struct Item {
    text: &'static str,
    symbol: bool,
    broken: bool,
    name_line: usize,
}

const fn item(text: &'static str, symbol: bool, broken: bool, name_line: usize) -> Item {
    Item {
        text,
        symbol,
        broken,
        name_line,
    }
}

const PYTHON: &[Item] = &[
    item("def NAME(x):\n    return x", true, false, 0),
    item(
        "def NAME(x):\n    s = \"\"\"\ndef fake():\n    pass\n\"\"\"\n    return s",
        true,
        false,
        0,
    ),
    item(
        "@dec\n@other(\n    1,\n)\ndef NAME(x):\n    return (x +\n1)",
        true,
        false,
        4,
    ),
    item(
        "class NAME:\n    def m(self):\n        return 1\n\n    # note\n    x = 1",
        true,
        false,
        0,
    ),
    item("def NAME(x):\n    return add(x,", true, true, 0),
    item("def NAME(x):\n    if x:\n    return 1", true, true, 0),
    item("print(NAME)", false, false, 0),
    item("KEEP_NAME = 42", false, false, 0),
    item(
        "if __name__ == \"__main__\":\n    main(NAME)",
        false,
        false,
        0,
    ),
];

const TYPESCRIPT: &[Item] = &[
    item(
        "export function NAME(): number {\n  return 1;\n}",
        true,
        false,
        0,
    ),
    item(
        "export function NAME(): string {\n  const s = `\nexport function fake() {\n${1}`;\n  return s;\n}",
        true,
        false,
        0,
    ),
    item(
        "/** Doc. */\nexport function NAME(a: number): number {\n  return a / 2 / 3;\n}",
        true,
        false,
        1,
    ),
    item("type NAME =\n  | { a: 1 }\n  | { b: 2 };", true, false, 0),
    item(
        "export function NAME(x: number): number {\n  return add(x,\n}",
        true,
        true,
        0,
    ),
    item(
        "export function NAME(): number {\n  return 1;",
        true,
        true,
        0,
    ),
    item("console.log(NAME);", false, false, 0),
    item("const KEEP_NAME = 42;", false, false, 0),
];

const RUST: &[Item] = &[
    item("pub fn NAME() -> i32 {\n    1\n}", true, false, 0),
    item(
        "fn NAME() -> &'static str {\n    let c = '{';\n    r#\"\nfn fake() {\n\"#\n}",
        true,
        false,
        0,
    ),
    item(
        "/// Doc.\n#[inline]\nunsafe fn NAME<'a>(x: &'a str) -> &'a str {\n    x\n}",
        true,
        false,
        2,
    ),
    item("pub fn NAME(x: i32) -> i32 {\n    add(x,\n}", true, true, 0),
    item("pub fn NAME() -> i32 {\n    1", true, true, 0),
    item("extern \"C\" fn NAME() {}", true, false, 0),
    item("static KEEP_NAME: i32 = 42;", false, false, 0),
];

const C: &[Item] = &[
    item("int NAME(void) {\n    return 1;\n}", true, false, 0),
    item(
        "int\nNAME(void)\n{\n    char c = '}';\n    const char *s = \"{\";\n    return 0;\n}",
        true,
        false,
        1,
    ),
    item(
        "/* A comment { */\nstatic int NAME(int a) {\n    return a; // }\n}",
        true,
        false,
        1,
    ),
    item("int NAME(int x) {\n    return (x + 1;\n}", true, true, 0),
    item("int NAME(void) {\n    return 1;", true, true, 0),
    item("#define OPEN_NAME {", false, false, 0),
    item("static int KEEP_NAME = 42;", false, false, 0),
];

/// A generated file: its text, each item's byte range and whether it is listed.
struct File {
    text: String,
    items: Vec<(std::ops::Range<usize>, usize, bool, bool)>,
}

fn file(pool: &[Item], picks: &[usize]) -> File {
    let mut text = String::new();
    let mut items = Vec::new();
    for (n, &p) in picks.iter().enumerate() {
        let it = &pool[p % pool.len()];
        if n > 0 {
            text.push_str("\n\n");
        }
        let start = text.len();
        text.push_str(&it.text.replace("NAME", &format!("n{n}")));
        let name_line = text[..start].matches('\n').count() + it.name_line;
        items.push((start..text.len(), name_line, it.symbol, it.broken));
    }
    text.push('\n');
    File { text, items }
}

fn entry(name: &str, text: &str, range: &std::ops::Range<usize>, name_line: usize) -> SymbolEntry {
    let line = |at: usize| text[..at].matches('\n').count() + 1;
    SymbolEntry {
        path: "f".into(),
        name_path: name.into(),
        name: name.into(),
        kind: "function",
        depth: 0,
        line: name_line + 1,
        anchor: String::new(),
        start_line: line(range.start),
        end_line: line(range.end.saturating_sub(1).max(range.start)),
        detail: None,
    }
}

/// The target's claimed range: 0 its own, 1 to the end of the file, 2 to the end of the next
/// item, 3 to a line end inside it, 4 to a later line's end.
fn claimed(f: &File, target: usize, how: usize, pick: usize) -> std::ops::Range<usize> {
    let (own, ..) = f.items[target].clone();
    let line_ends: Vec<usize> = f.text.match_indices('\n').map(|(i, _)| i).collect();
    let inside: Vec<usize> = line_ends
        .iter()
        .copied()
        .filter(|&e| e > own.start && e < own.end)
        .collect();
    let later: Vec<usize> = line_ends.iter().copied().filter(|&e| e > own.end).collect();
    let end = match how {
        1 => f.text.len(),
        2 => f.items.get(target + 1).map_or(own.end, |n| n.0.end),
        3 if !inside.is_empty() => inside[pick % inside.len()],
        4 if !later.is_empty() => later[pick % later.len()],
        _ => own.end,
    };
    own.start..end
}

/// The item a case edits and the range the server claims for it ([`claimed`]); `keep`: the
/// symbols the claim swallows stay in the tree.
struct Claim {
    target: usize,
    how: usize,
    pick: usize,
    keep: bool,
}

fn check(ext: &str, pool: &[Item], picks: &[usize], claim: Claim, body: &str) {
    let Claim {
        target,
        how,
        pick,
        keep,
    } = claim;
    let f = file(pool, picks);
    let target = target % f.items.len();
    if !f.items[target].2 {
        return;
    }
    let range = claimed(&f, target, how, pick);
    let mut tree = Vec::new();
    let mut index = 0;
    for (i, (r, name_line, symbol, _)) in f.items.iter().enumerate() {
        if !symbol {
            continue;
        }
        let name = format!("n{i}");
        if i == target {
            index = tree.len();
            tree.push((
                entry(&name, &f.text, &range, *name_line),
                Some(range.clone()),
            ));
        } else if keep || r.start >= range.end || r.end <= range.start {
            // A symbol the claimed range swallowed is dropped from the tree unless `keep`.
            tree.push((entry(&name, &f.text, r, *name_line), Some(r.clone())));
        }
    }
    let found = Resolved {
        file: FileText {
            rel: format!("f.{ext}"),
            abs: format!("/w/f.{ext}").into(),
            text: f.text.clone(),
        },
        entry: tree[index].0.clone(),
        range: range.clone(),
        tree,
        index,
        server: "s".into(),
        server_time: std::time::Duration::ZERO,
    };
    let (own, _, _, broken) = f.items[target].clone();
    let spans = line_spans(&f.text);
    let first = spans
        .iter()
        .rev()
        .find(|l| l.start <= own.start)
        .unwrap()
        .start;
    let checked = edit_target(&found, None);
    if how == 0 && !broken {
        assert!(
            checked.is_ok(),
            "its true range refused:\n{}\n{:?}",
            f.text,
            checked.err()
        );
    }
    let Ok(checked) = checked else {
        return;
    };
    let Ok(new) = plan(SymbolEditKind::Replace, &f.text, &checked.target, body) else {
        return;
    };
    assert!(
        new.starts_with(&f.text[..first]) && new.ends_with(&f.text[own.end..]),
        "claimed {:?} ({how}) of item {target} changed code outside it:\n{}\n--- became ---\n{new}",
        &f.text[range.clone()],
        f.text
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn python_edits_change_only_the_target(
        picks in proptest::collection::vec(0usize..64, 1..6),
        target in 0usize..6, how in 0usize..5, pick in 0usize..16, keep: bool,
    ) {
        check("py", PYTHON, &picks, Claim { target, how, pick, keep }, "def x(y):\n    return 2\n");
    }

    #[test]
    fn typescript_edits_change_only_the_target(
        picks in proptest::collection::vec(0usize..64, 1..6),
        target in 0usize..6, how in 0usize..5, pick in 0usize..16, keep: bool,
    ) {
        check("ts", TYPESCRIPT, &picks, Claim { target, how, pick, keep }, "export function x(): number {\n  return 2;\n}\n");
    }

    #[test]
    fn rust_edits_change_only_the_target(
        picks in proptest::collection::vec(0usize..64, 1..6),
        target in 0usize..6, how in 0usize..5, pick in 0usize..16, keep: bool,
    ) {
        check("rs", RUST, &picks, Claim { target, how, pick, keep }, "pub fn x() -> i32 {\n    2\n}\n");
    }

    #[test]
    fn c_edits_change_only_the_target(
        picks in proptest::collection::vec(0usize..64, 1..6),
        target in 0usize..6, how in 0usize..5, pick in 0usize..16, keep: bool,
    ) {
        check("c", C, &picks, Claim { target, how, pick, keep }, "int x(void) {\n    return 2;\n}\n");
    }
}
