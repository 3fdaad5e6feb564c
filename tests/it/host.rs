//! The server host from the command line (docs/host.md), with the real rust-analyzer: a second
//! `apply` finds the server of the first warm, two `lspedit mcp` sessions on one root share one
//! rust-analyzer, and `servers stop` leaves no server process. Each test has a runtime
//! directory of its own (`LSPEDIT_RUNTIME_DIR`), so its host is its own.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use lspedit::process;
use serde_json::{Value, json};

use crate::harness::{Mcp, Project, Run, bin, have_server};

const BREAK: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -8,1 +8,1 @@\n-    let value: i32 = add(40, 2);\n+    let value: i32 = \"no\";\n";
const FIX: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -8,1 +8,1 @@\n-    let value: i32 = \"no\";\n+    let value: i32 = add(40, 2);\n";

/// Deadlines a loaded test machine cannot miss: a cold rust-analyzer's first check there can
/// take longer than the default 10 s.
const PATIENT: [&str; 4] = [
    "--first-check-timeout-ms",
    "180000",
    "--check-timeout-ms",
    "60000",
];

/// `lspedit ARGS --root ROOT` with its host's sockets under `runtime`.
fn lspedit(root: &Path, runtime: &Path, args: &[&str], stdin: &str) -> Run {
    use std::io::Write;
    let mut child = Command::new(bin())
        .args(args)
        .arg("--root")
        .arg(root)
        .env("LSPEDIT_RUNTIME_DIR", runtime)
        .env_remove("LSPEDIT_NO_HOST")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The host's part of `servers status --json`.
fn host_status(root: &Path, runtime: &Path) -> Value {
    let run = lspedit(root, runtime, &["servers", "status", "--json"], "");
    run.assert_code(0);
    run.json()["host"].clone()
}

/// The one rust-analyzer the host runs: (pgid, clients attached, clients served).
fn hosted_rust_analyzer(host: &Value) -> (u64, u64, u64) {
    let servers = host["servers"].as_array().cloned().unwrap_or_default();
    let ra: Vec<&Value> = servers
        .iter()
        .filter(|s| s["server"] == "rust-analyzer")
        .collect();
    assert_eq!(ra.len(), 1, "one rust-analyzer in the host: {host}");
    let n = |k: &str| ra[0][k].as_u64().unwrap();
    (n("pgid"), n("clients"), n("served"))
}

#[test]
fn a_second_apply_finds_rust_analyzer_warm_and_servers_stop_leaves_none() {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let project = Project::copy("rust-basic");
    let runtime = tempfile::tempdir().unwrap();
    let (root, rt) = (project.root.as_path(), runtime.path());

    let apply: Vec<&str> = std::iter::once("apply").chain(PATIENT).collect();
    let first = lspedit(root, rt, &apply, BREAK);
    first.assert_code(0);
    assert!(first.stdout.contains("(E0308)"), "{}", first.stdout);
    let (pgid, clients, served) = hosted_rust_analyzer(&host_status(root, rt));
    assert_eq!((clients, served), (0, 1));

    let fixed = lspedit(root, rt, &apply, FIX);
    fixed.assert_code(0);
    assert!(!fixed.stdout.contains("E0308"), "{}", fixed.stdout);
    let again = lspedit(root, rt, &apply, BREAK);
    again.assert_code(0);
    assert!(again.stdout.contains("(E0308)"), "{}", again.stdout);
    // The same process answered all three.
    assert_eq!(hosted_rust_analyzer(&host_status(root, rt)), (pgid, 0, 3));

    let stop = lspedit(root, rt, &["servers", "stop"], "");
    stop.assert_code(0);
    assert!(
        stop.stdout.starts_with("Stopped the server host"),
        "{}",
        stop.stdout
    );
    assert!(
        process::wait_group_gone(pgid as u32, Duration::from_secs(10)),
        "rust-analyzer's group {pgid} outlived `servers stop`: {:?}",
        process::live_group_members(pgid as u32)
    );
    assert!(host_status(root, rt).is_null());
    let none = lspedit(root, rt, &["servers", "stop"], "");
    none.assert_code(0);
    assert!(
        none.stdout.starts_with("No server host runs"),
        "{}",
        none.stdout
    );

    // --no-host: the command's own server, and the host is not started.
    let own = lspedit(root, rt, &["apply", "--no-host"], FIX);
    own.assert_code(0);
    assert!(host_status(root, rt).is_null());
}

#[test]
fn two_mcp_sessions_on_one_root_run_one_rust_analyzer() {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let project = Project::copy("rust-basic");
    let runtime = tempfile::tempdir().unwrap();
    let (root, rt) = (project.root.as_path(), runtime.path());
    let rt_text = rt.display().to_string();
    let logs = tempfile::tempdir().unwrap();
    let env = [("LSPEDIT_RUNTIME_DIR", rt_text.as_str())];
    let mut sessions: Vec<Mcp> = (0..2)
        .map(|n| {
            let stderr = logs.path().join(format!("mcp{n}.stderr"));
            Mcp::start_with(root, &PATIENT, &env, &stderr)
        })
        .collect();
    for (n, mcp) in sessions.iter_mut().enumerate() {
        mcp.send(&json!({"jsonrpc":"2.0","id":10 + n,"method":"tools/call","params":{"name":"diagnostics","arguments":{"paths":["src/lib.rs"]}}}));
        let r = mcp.reply();
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("no errors"), "session {n}: {r}");
    }
    let (pgid, clients, served) = hosted_rust_analyzer(&host_status(root, rt));
    assert_eq!((clients, served), (2, 2));
    let members = process::live_group_members(pgid as u32);
    assert!(!members.is_empty());

    // Both sessions end; the server stays for the next, until stopped.
    for mut mcp in sessions {
        drop(mcp.stdin);
        assert!(mcp.child.wait().unwrap().success());
    }
    assert_eq!(hosted_rust_analyzer(&host_status(root, rt)), (pgid, 0, 2));
    lspedit(root, rt, &["servers", "stop"], "").assert_code(0);
    assert!(process::wait_group_gone(
        pgid as u32,
        Duration::from_secs(10)
    ));
}

/// Regression (issue 44, item 5): the host of one workspace could be stopped by any process of
/// the user, code a language server runs among them. `lspedit servers host` (as a command
/// starts it) refuses a `stop` without the token of its runtime directory and keeps running;
/// `servers status` and `servers stop`, which read the token, are answered.
#[test]
fn the_host_answers_only_hellos_with_its_token() {
    use std::io::{BufRead, BufReader, Write};
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::net::UnixStream;

    use lspedit::lsp::host;

    let project = crate::harness::Project::with_files(&[("notes.txt", "nothing\n")]);
    let runtime = tempfile::tempdir().unwrap();
    let (root, rt) = (project.root.as_path(), runtime.path());
    let mut child = Command::new(bin())
        .args(["servers", "host", "--idle-secs", "60", "--root"])
        .arg(root)
        .env("LSPEDIT_RUNTIME_DIR", rt)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    let socket = ready
        .trim()
        .strip_prefix("ready ")
        .expect(&ready)
        .to_owned();
    let token_file = rt.join("lspedit").join(host::TOKEN_FILE);
    let meta = std::fs::symlink_metadata(&token_file).unwrap();
    assert_eq!(meta.mode() & 0o7777, 0o600);
    let token = std::fs::read_to_string(&token_file).unwrap();

    let ask = |line: String| {
        let mut s = UnixStream::connect(&socket).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.write_all(format!("{line}\n").as_bytes()).unwrap();
        let mut answer = String::new();
        BufReader::new(s).read_line(&mut answer).unwrap();
        serde_json::from_str::<Value>(&answer).unwrap()
    };
    let wrong: String = token.chars().rev().collect();
    for hello in [
        json!({ "v": host::PROTOCOL, "op": "stop" }),
        json!({ "v": host::PROTOCOL, "op": "stop", "token": wrong }),
        json!({ "v": 1, "op": "stop" }),
    ] {
        let answer = ask(hello.to_string());
        assert!(
            answer["refused"].is_string(),
            "{hello} was answered {answer}"
        );
    }
    assert_eq!(child.try_wait().unwrap(), None, "the host exited");
    let status = host_status(root, rt);
    assert_eq!(status["pid"], child.id(), "{status}");

    let stop = lspedit(root, rt, &["servers", "stop"], "");
    stop.assert_code(0);
    assert!(
        stop.stdout.starts_with("Stopped the server host"),
        "{}",
        stop.stdout
    );
    assert!(child.wait().unwrap().success());
}

// Regression: Codex and the MCP SDKs start `lspedit mcp` with a whitelisted environment that
// drops `XDG_RUNTIME_DIR` (and `TMPDIR`); the socket was under `XDG_RUNTIME_DIR` when it was set,
// so such a session started a second host for a workspace the command line's host served. The
// socket's place now depends on the user id alone: a host started with both variables is the
// one a process with neither (only `PATH` and `HOME`) finds.
#[test]
fn a_host_started_with_xdg_runtime_dir_is_found_from_a_stripped_environment() {
    use std::io::{BufRead, BufReader};

    let project = Project::with_files(&[("notes.txt", "nothing\n")]);
    let root = project.root.as_path();
    let (xdg, tmp) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut child = Command::new(bin())
        .args(["servers", "host", "--idle-secs", "60", "--root"])
        .arg(root)
        .env("XDG_RUNTIME_DIR", xdg.path())
        .env("TMPDIR", tmp.path())
        .env_remove("LSPEDIT_RUNTIME_DIR")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    let socket = ready
        .trim()
        .strip_prefix("ready ")
        .expect(&ready)
        .to_owned();

    let stripped = |args: &[&str]| {
        let mut c = Command::new(bin());
        c.args(args).arg("--root").arg(root).env_clear();
        for keep in ["PATH", "HOME"] {
            if let Some(v) = std::env::var_os(keep) {
                c.env(keep, v);
            }
        }
        let out = c.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, status) = stripped(&["servers", "status", "--json"]);
    let (stop_code, stopped) = stripped(&["servers", "stop"]);
    // Bounded even when the stop missed it: a host with no client exits after its idle time.
    let exited = child.wait().unwrap();

    assert!(
        !socket.starts_with(&xdg.path().display().to_string())
            && !socket.starts_with(&tmp.path().display().to_string()),
        "the socket {socket} depends on the environment"
    );
    assert_eq!(code, Some(0), "{status}");
    let status: Value = serde_json::from_str(&status).unwrap();
    assert_eq!(status["host"]["pid"], child.id(), "{status}");
    assert_eq!(stop_code, Some(0), "{stopped}");
    assert!(exited.success(), "the host: {exited}");
}
