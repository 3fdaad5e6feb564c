//! The `testing` feature, as a test suite of your own would use it.
//!
//! Add `lspedit = { version = "…", features = ["testing"] }` to your `[dev-dependencies]`, then
//! build a workspace from a fixture string (`//- /path` starts a file), edit it through the
//! agent tools, and assert on the diagnostics the real server sent back — by file, line and
//! code, parsed from the very text a model would read.
//!
//! This file uses nothing but `lspedit::testing`: copied into a crate of your own it compiles
//! as is.

// A skipped test says why on stderr.
#![allow(clippy::print_stderr)]

use std::time::Duration;

use lspedit::testing::{TYPESCRIPT_SERVERS, TestWorkspace, Timeouts, fake, servers_unavailable};

const FIXTURE: &str = r#"
//- /tsconfig.json
{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }
//- /src/math.ts
export function double(n: number): number {
  return n * 2;
}
//- /src/main.ts
import { double } from "./math";

export const four: number = double(2);
"#;

/// Example: a refactor that breaks a caller is reported in the edit's own result, and the fix
/// comes back clean.
#[test]
fn example_changing_a_signature_reports_the_broken_caller() {
    // Skips (with the reason on stderr) where TypeScript's servers are not installed; fails
    // instead under LSPEDIT_REQUIRE_SERVERS=1.
    if let Some(why) = servers_unavailable(TYPESCRIPT_SERVERS) {
        eprintln!("skipped: {why}");
        return;
    }
    // Timeouts are configurable: here 2 minutes for a cold start on a loaded machine.
    let timeouts = Timeouts {
        start: Duration::from_secs(120),
        ..Timeouts::default()
    };
    let ws =
        TestWorkspace::with_servers_and_timeouts(FIXTURE, TYPESCRIPT_SERVERS, timeouts).unwrap();

    // An anchored patch, as a model would write it after read_file.
    let patch = format!(
        "--- a/src/main.ts\n+++ b/src/main.ts\n@@ @@\n {}|\n-{}|export const four: number = double(2);\n+export const four: string = double(2);\n",
        ws.anchor("src/main.ts", 2),
        ws.anchor("src/main.ts", 3),
    );
    ws.apply_patch(&patch)
        .assert_applied()
        .assert_error("src/main.ts", 3, Some("ts2322"));

    // The tool result and a fresh check agree.
    ws.diagnostics(&["src/main.ts"])
        .assert_error("src/main.ts", 3, Some("ts2322"));

    ws.edit("src/main.ts", "four: string", "four: number")
        .assert_applied()
        .assert_no_diagnostics();
    assert!(ws.read("src/main.ts").contains("four: number = double(2)"));
}

/// Example: fault injection with the scripted fake server. A server that crashes as soon as it
/// sees the file never fails the edit; the result simply has no diagnostics.
#[test]
fn example_a_crashing_server_never_fails_an_edit() {
    let script = fake::Script {
        crash_on: Some(fake::Event::DidOpen),
        ..fake::Script::default()
    };
    let ws = TestWorkspace::with_fake_server("//- /a.fk\nfine\n", &script, "fk").unwrap();
    ws.edit("a.fk", "fine", "still fine ERROR")
        .assert_applied()
        .assert_no_diagnostics();
    assert_eq!(ws.read("a.fk"), "still fine ERROR\n");
}

/// Example: the fake server's diagnostics, one `F001` error per line holding its marker.
#[test]
fn example_fake_server_diagnostics_by_line_and_code() {
    let script = fake::Script::default();
    let ws = TestWorkspace::with_fake_server("//- /a.fk\none\ntwo\n", &script, "fk").unwrap();
    let marked = format!("two {}", script.marker);
    ws.edit("a.fk", "two", &marked)
        .assert_applied()
        .assert_error("a.fk", 2, Some("F001"));
}

const CALLER: &str = r#"
//- /a.fk
export function add(a: number): number {
  return a;
}
//- /b.fk
import { add } from "./a";
add(1);
"#;

/// Example: the LSP edits, lookups and symbol tools against the scripted fake server, whose
/// answers name files by URI (built once the workspace root is known).
#[test]
fn example_lsp_edits_and_symbol_tools_on_the_fake_server() {
    let ws = TestWorkspace::with_fake_server_for(CALLER, "fk", |root| {
        let uri = |rel: &str| format!("file://{}", root.join(rel).display());
        let range = |l0: u32, c0: u32, l1: u32, c1: u32| {
            serde_json::json!({ "start": { "line": l0, "character": c0 }, "end": { "line": l1, "character": c1 } })
        };
        let edit = |rel: &str, edits: serde_json::Value| {
            serde_json::json!({ "textDocument": { "uri": uri(rel), "version": null }, "edits": edits })
        };
        fake::Script {
            rename_edit: Some(serde_json::json!({ "documentChanges": [
                edit("a.fk", serde_json::json!([{ "range": range(0, 16, 0, 19), "newText": "plus" }])),
                edit("b.fk", serde_json::json!([
                    { "range": range(0, 9, 0, 12), "newText": "plus" },
                    { "range": range(1, 0, 1, 3), "newText": "plus" },
                ])),
            ]})),
            locations: Some(serde_json::json!([{ "uri": uri("b.fk"), "range": range(1, 0, 1, 3) }])),
            document_symbols: Some(serde_json::json!([
                { "name": "add", "kind": 12, "range": range(0, 0, 2, 1), "selectionRange": range(0, 16, 0, 19) },
            ])),
            code_actions: Some(serde_json::json!([{ "title": "Add a comment", "kind": "quickfix" }])),
            resolve_edit: Some(serde_json::json!({ "changes": {
                uri("b.fk"): [{ "range": range(2, 0, 2, 0), "newText": "// checked\n" }],
            } })),
            ..fake::Script::default()
        }
    })
    .unwrap();

    // Lookups: the call in b.fk, by line and symbol text; a symbol not on the line is refused.
    ws.references("a.fk", 1, "add").assert_location("b.fk", 2);
    ws.definition("b.fk", 2, "add").assert_location("b.fk", 2);
    ws.references("a.fk", 2, "add")
        .assert_refused("symbol_not_found");

    // The symbol tools: by name path.
    let outline = ws.outline("a.fk");
    assert_eq!(outline.report().files[0].symbols[0].name_path, "add");
    ws.find_symbol("add", Some("a.fk")).assert_contains("a.fk");
    ws.insert_after_symbol("a.fk", "add", "export const one = 1;\n")
        .assert_applied();
    let a = ws.read("a.fk");
    assert!(
        a.starts_with("export function add(") && a.ends_with("export const one = 1;\n"),
        "{a}"
    );

    // A code action, listed then applied by its title.
    let actions = ws.code_actions("b.fk", 2);
    assert_eq!(actions.report().actions[0].title, "Add a comment");
    ws.fix("b.fk", 2, "comment").assert_applied();
    assert_eq!(
        ws.read("b.fk"),
        "import { add } from \"./a\";\nadd(1);\n// checked\n"
    );

    // The rename, in every file the server names; undone through the session's workflow.
    let renamed = ws.rename("a.fk", 1, "add", "plus");
    renamed.assert_applied();
    assert!(ws.read("a.fk").starts_with("export function plus("));
    assert_eq!(
        ws.read("b.fk"),
        "import { plus } from \"./a\";\nplus(1);\n// checked\n"
    );
    let checkpoint = renamed.0.checkpoint_id.clone().unwrap();
    ws.session().undo(&checkpoint).outcome.unwrap();
    assert!(ws.read("b.fk").starts_with("import { add }"));
}

/// Example: a real server's rename, references and symbol edit (pyright, fast to start).
#[test]
fn example_rename_references_and_symbol_edit_with_pyright() {
    if let Some(why) = servers_unavailable(&["pyright"]) {
        eprintln!("skipped: {why}");
        return;
    }
    let fixture = r#"
//- /pyproject.toml
[project]
name = "demo"
//- /app/__init__.py
//- /app/math.py
def double(n: int) -> int:
    return n * 2
//- /app/main.py
from app.math import double

print(double(2))
"#;
    let timeouts = Timeouts {
        start: Duration::from_secs(120),
        ..Timeouts::default()
    };
    let ws = TestWorkspace::with_servers_and_timeouts(fixture, &["pyright"], timeouts).unwrap();

    ws.references("app/math.py", 1, "double")
        .assert_location("app/math.py", 1)
        .assert_location("app/main.py", 3);
    ws.rename("app/math.py", 1, "double", "twice")
        .assert_applied()
        .assert_no_diagnostics();
    assert_eq!(
        ws.read("app/main.py"),
        "from app.math import twice\n\nprint(twice(2))\n"
    );
    // The body changes to return a string: the caller still type-checks, a new error in the
    // file itself is reported with the edit.
    ws.replace_symbol_body(
        "app/math.py",
        "twice",
        "def twice(n: int) -> int:\n    return str(n)\n",
    )
    .assert_applied()
    .assert_error("app/math.py", 2, None);
}
