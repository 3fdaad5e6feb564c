//! No language-server process outlives its owner, even when the owner is SIGKILLed (no
//! shutdown, no drop, no `Groups::kill_all`) and the server is wedged (ignores `shutdown` and
//! `exit`) and has started a child of its own.

use std::process::Command;
use std::time::Duration;

use lspedit::process;
use lspedit::testing::fake;
use serde_json::json;

use crate::harness::Mcp;

/// The pids logged as `<prefix> <pid>` by the fake server.
fn logged(log: &str, prefix: &str) -> Vec<u32> {
    log.lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

#[test]
fn a_wedged_server_and_its_child_die_with_a_sigkilled_lspedit_mcp() {
    sigkilled_owner_leaves_no_server(false);
}

/// With the server host (docs/host.md), the server is the host's: it outlives the SIGKILLed
/// `lspedit mcp` (that is the point of the host), and dies with the SIGKILLed host.
#[test]
fn a_wedged_server_and_its_child_die_with_a_sigkilled_server_host() {
    sigkilled_owner_leaves_no_server(true);
}

fn sigkilled_owner_leaves_no_server(hosted: bool) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = tempfile::tempdir().unwrap();
    let runtime_dir = runtime.path().display().to_string();
    let root = dir.path().canonicalize().unwrap();
    let config = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let log = config.path().canonicalize().unwrap().join("fake.log");
    // The sandbox grants writing the log only if it exists when the server starts.
    std::fs::write(&log, "").unwrap();
    let script = fake::Script {
        mode: fake::Mode::Pull,
        marker: "BAD".to_string(),
        ignore_shutdown: true,
        spawn_child: true,
        log_file: Some(log.clone()),
        ..fake::Script::default()
    };
    let script_file = config.path().canonicalize().unwrap().join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    // The person's own config (trusted) adds the fake server for `.fak` files and lets it
    // read its script and write its log, both outside the workspace.
    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(
        config.path().join("lspedit/config.toml"),
        format!(
            "[pool]\nsandbox_allow = [{log:?}, {script:?}]\n\n\
             [servers.fake]\ncommand = {cmd:?}\nlanguages = {{ fak = \"fake\" }}\n\
             diagnostics = {{ strategy = \"pull\" }}\nenv = {{ {env} = {script:?} }}\n",
            log = log.display().to_string(),
            cmd = fake::binary().display().to_string(),
            env = fake::SCRIPT_FILE_ENV,
            script = script_file.display().to_string(),
        ),
    )
    .unwrap();
    let xdg_config = config.path().display().to_string();
    // Scratch dirs under a temp cache, not the person's.
    let xdg_cache = cache.path().display().to_string();
    let stderr = config.path().join("mcp.stderr");
    let mut env = vec![
        ("XDG_CONFIG_HOME", xdg_config.as_str()),
        ("XDG_CACHE_HOME", xdg_cache.as_str()),
        ("LSPEDIT_RUNTIME_DIR", runtime_dir.as_str()),
        ("LSPEDIT_LOG", "lspedit_lsp=debug"),
    ];
    if !hosted {
        env.push(("LSPEDIT_NO_HOST", "1"));
    }
    let mut mcp = Mcp::start(&root, &env, &stderr);
    mcp.send(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.fak","content":"x = BAD\n"}}}));
    let r = mcp.reply();
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        text.contains("LSP errors detected in this file"),
        "{r}\nlspedit mcp's stderr:\n{}\nthe server's log:\n{}",
        std::fs::read_to_string(&stderr).unwrap_or_default(),
        std::fs::read_to_string(&log).unwrap_or_default()
    );

    // The server logs its child before its own start line: both are in the log once the
    // check above has its answer.
    let logged_text = std::fs::read_to_string(&log).unwrap();
    let starts = logged(&logged_text, "start ");
    let children = logged(&logged_text, "child ");
    assert_eq!(starts.len(), 1, "one server started: {logged_text}");
    assert_eq!(children.len(), 1, "one child started: {logged_text}");
    let (pgid, child) = (starts[0], children[0]);
    // The group holds the server and its `sleep`, so that the wait below has something to see.
    let mut members = process::live_group_members(pgid);
    members.sort_unstable();
    let mut want = vec![pgid, child];
    want.sort_unstable();
    assert_eq!(members, want, "server group {pgid} before the kill");

    // SIGKILL: lspedit gets no chance to stop anything.
    mcp.child.kill().unwrap();
    let status = mcp.child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
    if hosted {
        let status = Command::new(crate::harness::bin())
            .args(["servers", "status", "--json", "--root"])
            .arg(&root)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let doc: serde_json::Value = serde_json::from_slice(&status.stdout).unwrap();
        let host = &doc["host"];
        assert_eq!(host["servers"][0]["pgid"], json!(pgid), "{doc}");
        assert_eq!(host["servers"][0]["clients"], json!(0), "{doc}");
        assert!(
            !process::live_group_members(pgid).is_empty(),
            "the host's server lives on without a client"
        );
        let host_pid = host["pid"].as_u64().unwrap().to_string();
        let killed = Command::new("kill")
            .args(["-KILL", &host_pid])
            .status()
            .unwrap();
        assert!(killed.success());
    }

    let gone = process::wait_group_gone(pgid, Duration::from_secs(10));
    let left = process::live_group_members(pgid);
    if !gone {
        // Do not leave them running past the test.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .status();
    }
    assert!(
        gone,
        "server group {pgid} (server {pgid}, child {child}) outlived the SIGKILLed `lspedit mcp`: still alive: {left:?}"
    );
}
