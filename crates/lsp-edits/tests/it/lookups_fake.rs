//! `hover`, `call_hierarchy`, `implementations` and `type_definition` with the scripted fake
//! server through the real pool: the exact wording of each answer, positions by line and symbol
//! and by name path (an unknown and an ambiguous name refused), items and locations outside the
//! workspace named without being read, and a server without the request `lsp_unsupported`.

use std::path::Path;

use lspedit_engine::hashline;
use lspedit_lsp_edits::{CallDirection, LineRef, LookupAt, SymbolAt};
use serde_json::{Value, json};

use crate::lsp_edits_fake::{A, B, Env, env};

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({ "start": { "line": l0, "character": c0 }, "end": { "line": l1, "character": c1 } })
}

fn uri(root: &Path, rel: &str) -> String {
    format!("file://{}", root.join(rel).display())
}

/// The anchor of line `n` of `text`.
fn anchor(text: &str, n: usize) -> String {
    let line = text.lines().nth(n - 1).unwrap();
    hashline(n, line).split('|').next().unwrap().to_owned()
}

/// `add` in a.ts (its declaration) and `b.ts` (its call), as a call hierarchy item.
fn item(uri: &str, name: &str, line: u32, col: u32) -> Value {
    json!({
        "name": name, "kind": 12, "uri": uri,
        "range": range(line, 0, line + 2, 1),
        "selectionRange": range(line, col, line, col + name.len() as u32),
        "data": { "kept": true },
    })
}

const HOVER: &str = "```typescript\nfunction add(a: number): number\n```\nAdds.";

/// Every lookup scripted: `add` declared in a.ts, called on line 2 of b.ts and from a file
/// outside the workspace; `add` itself calls `log` outside the workspace on its line 2.
fn scripted() -> Env {
    env(|root, s| {
        let a = uri(root, "a.ts");
        let b = uri(root, "b.ts");
        s.document_symbols = Some(json!([
            { "name": "add", "kind": 12, "range": range(0, 0, 2, 1), "selectionRange": range(0, 16, 0, 19) },
        ]));
        s.hover = Some(json!({ "contents": { "kind": "markdown", "value": HOVER } }));
        s.call_items = Some(json!([item(&a, "add", 0, 16)]));
        s.incoming_calls = Some(json!([
            { "from": item("file:///elsewhere/far.ts", "far", 4, 9), "fromRanges": [range(5, 2, 5, 5)] },
            { "from": { "name": "b.ts", "kind": 2, "uri": b, "range": range(0, 0, 1, 7), "selectionRange": range(0, 0, 0, 0) },
              "fromRanges": [range(1, 0, 1, 3), range(1, 0, 1, 3)] },
        ]));
        s.outgoing_calls = Some(json!([
            { "to": item("file:///elsewhere/log.ts", "log", 0, 16), "fromRanges": [range(1, 2, 1, 8)] },
        ]));
        let loc = |uri: &str, line: u32| json!({ "uri": uri, "range": range(line, 0, line, 3) });
        s.implementations = Some(json!([loc(&b, 1), loc("file:///elsewhere/impl.ts", 9)]));
        s.type_definitions = Some(json!([loc(&a, 0)]));
    })
}

fn by_line() -> LookupAt {
    LookupAt::Text(SymbolAt::new("a.ts", LineRef::Number(1), "add"))
}

fn by_name() -> LookupAt {
    LookupAt::NamePath {
        path: "a.ts".into(),
        name_path: "add".into(),
        anchor: None,
    }
}

#[test]
fn hover_is_the_servers_text_by_line_and_by_name_path() {
    let env = scripted();
    let r = env.edits().hover(&by_line()).unwrap();
    assert_eq!(
        r.llm_content,
        format!("Hover on `add` at a.ts:1 (fake):\n{HOVER}")
    );
    assert_eq!((r.path.as_str(), r.line, r.truncated), ("a.ts", 1, false));
    assert_eq!(r.text.as_deref(), Some(HOVER));
    assert!(!env.asked("textDocument/documentSymbol"));
    // By name path: the symbols are read first, the same answer names the same place.
    let r = env.edits().hover(&by_name()).unwrap();
    assert_eq!(
        r.llm_content,
        format!("Hover on `add` at a.ts:1 (fake):\n{HOVER}")
    );
    assert!(env.asked("textDocument/documentSymbol"));
}

#[test]
fn nothing_to_hover_is_an_answer() {
    // A hover whose contents are empty (a `null` answer reads the same).
    let env = env(|_, s| s.hover = Some(json!({ "contents": [] })));
    let r = env.edits().hover(&by_line()).unwrap();
    assert_eq!(
        r.llm_content,
        "No hover for `add` at a.ts:1: fake has nothing to say there."
    );
    assert_eq!(r.text, None);
}

#[test]
fn incoming_calls_name_each_caller_with_its_call_sites() {
    let env = scripted();
    for at in [by_line(), by_name()] {
        let r = env
            .edits()
            .call_hierarchy(&at, CallDirection::Incoming)
            .unwrap();
        let want = format!(
            "2 callers of `add` (a.ts:1 function add {}) (fake), each with its call sites:\n\
             b.ts:1 module b.ts {}\n{}\n\
             /elsewhere/far.ts:5 function far (outside the workspace)\n\
             calls at /elsewhere/far.ts line 6",
            anchor(A, 1),
            anchor(B, 1),
            hashline(2, "add(1);"),
        );
        assert_eq!(r.llm_content, want);
        assert_eq!(r.calls.len(), 2);
        assert_eq!(r.calls[0].sites, [2], "one line, once");
        assert!(!r.calls[1].item.in_workspace);
        assert_eq!(r.targets[0].anchor, Some(anchor(A, 1)));
    }
    assert!(env.asked("callHierarchy/incomingCalls"));
}

#[test]
fn outgoing_calls_show_the_call_sites_in_the_asked_function() {
    let env = scripted();
    let r = env
        .edits()
        .call_hierarchy(&by_line(), CallDirection::Outgoing)
        .unwrap();
    assert_eq!(
        r.llm_content,
        format!(
            "1 callee of `add` (a.ts:1 function add {}) (fake), each with its call sites in a.ts:\n\
             /elsewhere/log.ts:1 function log (outside the workspace)\n{}",
            anchor(A, 1),
            hashline(2, "  return a;"),
        )
    );
    assert_eq!(r.calls[0].sites_path, "a.ts");
}

#[test]
fn no_function_at_the_position_is_an_answer() {
    let env = env(|_, s| s.call_items = Some(json!([])));
    let r = env
        .edits()
        .call_hierarchy(&by_line(), CallDirection::Incoming)
        .unwrap();
    assert_eq!(
        r.llm_content,
        "No call hierarchy for `add` at a.ts:1: fake finds no function, method or constructor there."
    );
    assert!(!env.asked("callHierarchy/incomingCalls"));
}

#[test]
fn implementations_and_type_definitions_are_worded_as_references() {
    let env = scripted();
    let r = env.edits().implementations(&by_name()).unwrap();
    assert_eq!(
        r.llm_content,
        format!(
            "2 implementations of `add` in 2 files:\n\nb.ts (line 2):\n{}\n{}\n\n1 more:\n/elsewhere/impl.ts:10:1 (outside the workspace)",
            hashline(1, "import { add } from \"./a\";"),
            hashline(2, "add(1);"),
        )
    );
    let r = env.edits().type_definition(&by_line()).unwrap();
    assert!(
        r.llm_content
            .starts_with("1 type definition of `add` in 1 file:\n\na.ts (line 1):\n"),
        "{}",
        r.llm_content
    );
}

#[test]
fn a_server_without_the_request_is_lsp_unsupported_naming_it() {
    let env = env(|_, _| {});
    let e = env.edits();
    let errors = [
        ("textDocument/hover", e.hover(&by_line()).unwrap_err()),
        (
            "textDocument/prepareCallHierarchy",
            e.call_hierarchy(&by_line(), CallDirection::Outgoing)
                .unwrap_err(),
        ),
        (
            "textDocument/implementation",
            e.implementations(&by_line()).unwrap_err(),
        ),
        (
            "textDocument/typeDefinition",
            e.type_definition(&by_line()).unwrap_err(),
        ),
    ];
    for (method, err) in errors {
        assert_eq!(err.code(), "lsp_unsupported", "{err}");
        assert_eq!(
            err.refusal_text(),
            format!(
                "Error: lsp_unsupported: a.ts: language server `fake` does not support {method}"
            )
        );
    }
}

#[test]
fn a_name_path_is_resolved_or_refused_before_the_request() {
    let env = env(|_, s| {
        s.hover = Some(json!({ "contents": "x" }));
        // Two `add`s: an overload signature and the implementation.
        s.document_symbols = Some(json!([
            { "name": "add", "kind": 12, "range": range(0, 0, 0, 10), "selectionRange": range(0, 16, 0, 19) },
            { "name": "add", "kind": 12, "range": range(1, 0, 2, 1), "selectionRange": range(1, 2, 1, 5) },
        ]));
    });
    let at = |name_path: &str, anchor: Option<String>| LookupAt::NamePath {
        path: "a.ts".into(),
        name_path: name_path.into(),
        anchor,
    };
    let e = env.edits().hover(&at("ad", None)).unwrap_err();
    assert_eq!(e.code(), "symbol_not_found", "{e}");
    assert!(e.to_string().contains("nearest names: add"), "{e}");
    let e = env.edits().hover(&at("add", None)).unwrap_err();
    assert_eq!(e.code(), "ambiguous_match", "{e}");
    assert!(!env.asked("textDocument/hover"));
    // The anchor picks one.
    let r = env.edits().hover(&at("add", Some(anchor(A, 2)))).unwrap();
    assert_eq!(r.line, 2, "{}", r.llm_content);
    assert!(env.asked("textDocument/hover"));
}

/// A server that answers the calls of the first of two targets and never those of the second:
/// at the deadline the answer lists what came, names the target without an answer, and is
/// partial, instead of failing as a timeout.
#[test]
fn calls_not_answered_by_the_deadline_leave_what_came_marked_partial() {
    let env = env(|root, s| {
        let a = uri(root, "a.ts");
        s.call_items = Some(json!([item(&a, "add", 0, 16), item(&a, "add", 0, 16)]));
        s.incoming_calls = Some(json!([
            { "from": item(&uri(root, "b.ts"), "main", 1, 0), "fromRanges": [range(1, 0, 1, 3)] },
        ]));
        s.calls_answered = Some(1);
    });
    let r = env
        .edits_within(std::time::Duration::from_secs(3))
        .call_hierarchy(&by_line(), CallDirection::Incoming)
        .unwrap();
    assert!(env.logged("unanswered callHierarchy/incomingCalls"));
    assert!(r.partial, "{}", r.llm_content);
    assert_eq!(r.targets.len(), 2);
    assert_eq!(r.calls.len(), 1, "{}", r.llm_content);
    let a = anchor(A, 1);
    assert_eq!(
        r.llm_content,
        format!(
            "1 caller of `add` (a.ts:1 function add {a}) (fake), each with its call sites:\n\
             b.ts:2 function main {}\n{}\n\n\
             No answer from fake about the callers of `add` (a.ts:1 function add {a}) by the deadline; ask again shortly.",
            anchor(B, 2),
            hashline(2, B.lines().nth(1).unwrap())
        )
    );
}

#[test]
fn long_call_lists_are_capped_and_say_what_was_left_out() {
    let c: String = (1..=15).map(|i| format!("add({i});\n")).collect();
    let env = env(|root, s| {
        let c_uri = uri(root, "c.ts");
        let mut calls = vec![json!({
            "from": item(&c_uri, "many", 0, 0),
            "fromRanges": (0..12).map(|l| range(l, 0, l, 3)).collect::<Vec<_>>(),
        })];
        calls.extend((0..54).map(|i| {
            json!({ "from": item(&format!("file:///elsewhere/f{i:02}.ts"), "far", 0, 9), "fromRanges": [] })
        }));
        s.call_items = Some(json!([item(&uri(root, "a.ts"), "add", 0, 16)]));
        s.incoming_calls = Some(json!(calls));
    });
    std::fs::write(env.root.join("c.ts"), &c).unwrap();
    let r = env
        .edits()
        .call_hierarchy(&by_line(), CallDirection::Incoming)
        .unwrap();
    assert_eq!((r.calls.len(), r.more), (50, 5));
    let text = &r.llm_content;
    assert!(text.starts_with("55 callers of `add` ("), "{}", &text[..80]);
    // The workspace's caller first, its first 10 call sites, the rest by line.
    assert!(
        text.contains(&format!(
            "\nc.ts:1 function many {}\n{}\n",
            anchor(&c, 1),
            hashline(1, "add(1);")
        )),
        "{text}"
    );
    assert!(text.contains(&hashline(10, "add(10);")), "{text}");
    assert!(!text.contains(&hashline(11, "add(11);")), "{text}");
    assert!(
        text.contains("\n... 2 more call sites at line 11, 12\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\n... and 5 more callers; ask about a narrower symbol."),
        "{text}"
    );
}

#[test]
fn positions_outside_the_workspace_or_in_protected_paths_are_refused() {
    let env = scripted();
    let e = env.edits();
    let name = |path: &str| LookupAt::NamePath {
        path: path.into(),
        name_path: "add".into(),
        anchor: None,
    };
    let text = |path: &str| LookupAt::Text(SymbolAt::new(path, LineRef::Number(1), "add"));
    assert_eq!(
        e.hover(&name("../a.ts")).unwrap_err().code(),
        "path_outside_workspace"
    );
    assert_eq!(
        e.hover(&text("../a.ts")).unwrap_err().code(),
        "path_outside_workspace"
    );
    assert_eq!(
        e.call_hierarchy(&name(".git/config"), CallDirection::Incoming)
            .unwrap_err()
            .code(),
        "protected_path"
    );
    assert!(!env.asked("textDocument/hover"));
    assert!(!env.asked("textDocument/prepareCallHierarchy"));
}
