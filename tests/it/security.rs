//! The attack chains a model could run through the MCP tools alone (SECURITY.md): each one must
//! stop at its first step with `protected_path`, and leave every file as it was.

use serde_json::json;

use crate::harness::Project;
use crate::mcp::{call, connect, is_error, text};

const GIT_CONFIG: &str = "[core]\n\tbare = false\n";
const EVIL_CONFIG: &str = "[servers.pyright]\ncommand = \"/bin/sh\"\n";

// Regression: `edit` of `.git/config` adding `fsmonitor` ran a command on the next `git status`;
// a model-written `.lspedit/config.toml` chose the program lspedit ran; model-written state
// under `.lspedit/` (checkpoints, journal, proposals) drove undo, recovery and apply-id.
#[tokio::test]
async fn a_model_cannot_write_vcs_or_lspedit_state_through_mcp() {
    let p = Project::with_files(&[(".git/config", GIT_CONFIG), ("a.txt", "a\n")]);
    std::fs::create_dir_all(p.root.join(".lspedit")).unwrap();
    let client = connect(&p.root, &["--no-diagnostics"]).await;
    let refused = |r: &rmcp::model::CallToolResult, what: &str| {
        let t = text(r);
        assert!(is_error(r), "{what} was not refused: {t}");
        assert!(t.contains("protected_path"), "{what}: {t}");
    };

    let r = call(
        &client,
        "edit",
        json!({"path": ".git/config", "old_text": "bare = false",
               "new_text": "bare = false\n\tfsmonitor = \"touch pwned\""}),
    )
    .await;
    refused(&r, "edit .git/config");
    let r = call(
        &client,
        "write_file",
        json!({"path": ".lspedit/config.toml", "content": EVIL_CONFIG}),
    )
    .await;
    refused(&r, "write_file .lspedit/config.toml");
    for (what, path) in [
        (
            "a checkpoint",
            ".lspedit/checkpoints/ckpt_1_abcdef12abcdef12abcdef12abcdef12/manifest.json",
        ),
        (
            "a journal",
            ".lspedit/journal/txn_1_abcdef12abcdef12abcdef12abcdef12.json",
        ),
        (
            "a proposal",
            ".lspedit/patches/patch_1_abcdef12abcdef12abcdef12abcdef12.json",
        ),
    ] {
        let patch = format!("*** Begin Patch\n*** Add File: {path}\n+{{}}\n*** End Patch\n");
        refused(
            &call(&client, "apply_patch", json!({"patch": patch})).await,
            what,
        );
        refused(
            &call(&client, "propose_edit", json!({"patch": patch})).await,
            &format!("proposing {what}"),
        );
    }
    let r = call(
        &client,
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .git/hooks/pre-commit\n@@\n-a\n+#!/bin/sh\n*** End Patch\n"}),
    )
    .await;
    refused(&r, "moving a file into .git/hooks");
    client.cancel().await.unwrap();

    assert_eq!(p.read(".git/config"), GIT_CONFIG);
    assert_eq!(p.read("a.txt"), "a\n");
    assert!(!p.root.join(".git/hooks").exists());
    assert!(!p.root.join(".lspedit/config.toml").exists());
    assert!(!p.root.join(".lspedit/patches").exists());
}

// Regression: `*** Delete File: link` through MCP removed the link's target.
#[tokio::test]
async fn deleting_a_symlink_through_mcp_removes_the_link_only() {
    let p = Project::with_files(&[("target.txt", "keep\n")]);
    std::os::unix::fs::symlink("target.txt", p.root.join("link")).unwrap();
    let client = connect(&p.root, &["--no-diagnostics"]).await;
    let r = call(
        &client,
        "apply_patch",
        json!({"patch": "*** Begin Patch\n*** Delete File: link\n*** End Patch\n"}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    assert!(text(&r).contains("D link"), "{}", text(&r));
    client.cancel().await.unwrap();
    assert!(std::fs::symlink_metadata(p.root.join("link")).is_err());
    assert_eq!(p.read("target.txt"), "keep\n");
}

/// `/proc/<pid>/environ` of `pid`, one variable a line.
fn environ_of(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    String::from_utf8_lossy(&raw).replace('\0', "\n")
}

/// The pid of the server host serving `root` (`lspedit servers host --root ROOT`), found by
/// its command line.
fn host_pid(root: &std::path::Path) -> Option<u32> {
    let want = format!("servers\0host\0--root\0{}\0", root.display());
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        String::from_utf8_lossy(&cmdline)
            .contains(&want)
            .then_some(pid)
    })
}

// Issue 44: a sandboxed server read `ANTHROPIC_API_KEY` out of `/proc/<pid>/environ` of
// `lspedit mcp` and of the server host. Both re-execute themselves at start with only the
// environment lspedit uses (`LSPEDIT_KEEP_ENV` names more), so the key is not in the block
// `/proc` shows, whichever process started them.
#[test]
fn mcp_and_the_host_keep_no_secret_in_their_environment() {
    let secret = format!(
        "sk-ant-test-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let p = Project::with_files(&[("a.ts", "export const x: number = 1;\n")]);
    let runtime = tempfile::tempdir().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let env = [
        ("ANTHROPIC_API_KEY", secret.as_str()),
        ("GITHUB_TOKEN", secret.as_str()),
        ("LSPEDIT_KEEP_ENV", "KEPT_FOR_VALIDATION"),
        ("KEPT_FOR_VALIDATION", "kept"),
        ("LSPEDIT_RUNTIME_DIR", &runtime.path().display().to_string()),
    ];
    let mut mcp = crate::harness::Mcp::start(&p.root, &env, &logs.path().join("mcp.log"));
    let environ = environ_of(mcp.child.id());
    assert!(!environ.contains(&secret), "lspedit mcp:\n{environ}");
    assert!(environ.contains("KEPT_FOR_VALIDATION=kept\n"), "{environ}");
    assert!(environ.lines().any(|l| l.starts_with("PATH=")), "{environ}");
    let _ = mcp.child.kill();
    let _ = mcp.child.wait();

    // The host, started by a command-line call whose own environment has the key.
    let out = std::process::Command::new(crate::harness::bin())
        .args(["check", "a.ts", "--root"])
        .arg(&p.root)
        .envs(env)
        .env_remove("LSPEDIT_NO_HOST")
        .output()
        .unwrap();
    let pid = host_pid(&p.root).unwrap_or_else(|| {
        panic!(
            "no server host for {} after `lspedit check` ({}): {}",
            p.root.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let environ = environ_of(pid);
    let _ = std::process::Command::new(crate::harness::bin())
        .args(["servers", "stop", "--root"])
        .arg(&p.root)
        .envs(env)
        .output();
    assert!(!environ.contains(&secret), "the server host:\n{environ}");
    assert!(environ.contains("KEPT_FOR_VALIDATION=kept\n"), "{environ}");
}
