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
