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
