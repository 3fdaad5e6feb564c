//! Symbol edits against hostile ranges from the scripted fake server (docs/design.md §13,
//! "Range"): a range past the end of the file, one straddling the next symbol, one covering the
//! whole file, one stopping inside the body. Each is refused as `symbol_range_unreliable` with
//! the file byte for byte as it was; the same edit over the true range applies, so the refusals
//! are the ranges' doing. And a document's outline is asked without waiting for the project
//! to load.

use lspedit_lsp_edits::{EditOptions, LspEditStatus, SymbolEdit, SymbolEditKind};
use serde_json::{Value, json};

use crate::lsp_edits_fake::{env, env_with, stored_proposals};

const FILE: &str = "export function one(): number {\n  return 1;\n}\nconsole.log(one());\nexport function two(): number {\n  return 2;\n}\n";

fn range(l0: u32, c0: u32, l1: u32, c1: u32) -> Value {
    json!({ "start": { "line": l0, "character": c0 }, "end": { "line": l1, "character": c1 } })
}

/// `one` over `one_range`, `two` over its true range; replacing `one` with a new body.
fn replace_one(one_range: Value) -> (LspEditStatus, Option<&'static str>, String, String) {
    let e = env(|_, s| {
        s.document_symbols = Some(json!([
            { "name": "one", "kind": 12, "range": one_range, "selectionRange": range(0, 16, 0, 19) },
            { "name": "two", "kind": 12, "range": range(4, 0, 6, 1), "selectionRange": range(4, 16, 4, 19) },
        ]));
    });
    std::fs::write(e.root.join("c.ts"), FILE).unwrap();
    let r = e.edits().edit_symbol(
        &SymbolEdit::new(
            SymbolEditKind::Replace,
            "c.ts",
            "one",
            "export function one(): number {\n  return 11;\n}",
        ),
        EditOptions::default(),
    );
    let now = std::fs::read_to_string(e.root.join("c.ts")).unwrap();
    // Applied or refused, a symbol edit stores no proposal (only `preview` does).
    assert_eq!(stored_proposals(&e.root), 0, "{}", r.llm_content);
    assert_eq!(r.patch_id, None);
    (r.status, r.reason.map(|r| r.as_str()), r.llm_content, now)
}

#[test]
fn hostile_ranges_are_refused_and_the_true_one_applies() {
    for (what, one_range) in [
        ("past the end of the file", range(0, 0, 40, 1)),
        ("straddling `two`", range(0, 0, 5, 11)),
        ("the whole file", range(0, 0, 7, 0)),
        ("stopping inside the body", range(0, 0, 1, 11)),
    ] {
        let (status, reason, text, now) = replace_one(one_range);
        assert_eq!(status, LspEditStatus::Refused, "{what}: {text}");
        assert_eq!(reason, Some("symbol_range_unreliable"), "{what}: {text}");
        assert!(text.contains("Nothing was written"), "{what}: {text}");
        assert_eq!(now, FILE, "{what}: the file changed");
    }
    let (status, _, text, now) = replace_one(range(0, 0, 2, 1));
    assert_eq!(status, LspEditStatus::Applied, "{text}");
    assert_eq!(now, FILE.replace("return 1;", "return 11;"));
}

/// A server whose project never finishes loading (the log line that says so never comes)
/// still outlines a document at once: the answer arrives long before the two thirds of the
/// ten-minute deadline a load wait would take, complete (not partial).
#[test]
fn an_outline_does_not_wait_for_the_project_load() {
    let e = env_with(
        r#"{ strategy = "pull", loaded_log = ["a line this server never logs"] }"#,
        |_, s| {
            s.document_symbols = Some(json!([
                { "name": "one", "kind": 12, "range": range(0, 0, 2, 1), "selectionRange": range(0, 16, 0, 19) },
            ]));
        },
    );
    std::fs::write(e.root.join("c.ts"), FILE).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::scope(|scope| {
        scope.spawn(|| {
            let edits = e.edits_within(std::time::Duration::from_secs(600));
            tx.send(edits.outline("c.ts").map(|o| (o.partial, o.llm_content)))
                .unwrap();
        });
        let answer = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("the outline waited for the project load");
        let (partial, text) = answer.unwrap();
        assert!(!partial, "{text}");
        assert!(text.contains("function one"), "{text}");
    });
}
