//! Validation commands at their edges: one that cannot start, one killed by a signal, a change
//! that deletes a file and a workspace holding a symlink (both as the sandbox must show them),
//! and output longer than the tail kept. Each failure leaves the workspace as it was.

use std::path::Path;
use std::sync::Arc;

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::ValidationCommand;
use lspedit_workflow::{ApplyPlan, ApplyStatus, ProposeRequest, Workflow, WorkflowConfig};
use lspedit_write::{Reason, Workspace};

fn workflow(root: &Path) -> Workflow {
    let tools = Arc::new(Tools::new(
        Workspace::open(root).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    Workflow::open(
        tools,
        WorkflowConfig {
            event_log: false,
            ..WorkflowConfig::unrestricted()
        },
    )
    .unwrap()
}

/// Propose `patch` in a workspace of `files` (and `link` → `a.txt`) and apply it with `cmd`;
/// the outcome, after checking a refused apply left every file as it was.
fn validate(patch: &str, cmd: ValidationCommand) -> lspedit_workflow::ApplyOutcome {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.txt"), "a\nb\nc\n").unwrap();
    std::fs::write(root.join("gone.txt"), "x\n").unwrap();
    std::os::unix::fs::symlink("a.txt", root.join("link")).unwrap();
    let wf = workflow(root);
    let p = wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let out = wf.apply_edit(
        &p.patch_id,
        &ApplyPlan {
            validation: Some(cmd),
            ..ApplyPlan::default()
        },
    );
    if out.status != ApplyStatus::Applied {
        assert_eq!(
            std::fs::read_to_string(root.join("a.txt")).unwrap(),
            "a\nb\nc\n"
        );
        assert!(root.join("gone.txt").exists());
    }
    out
}

const EDIT: &str = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
const DELETE: &str = "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";

fn sh(script: &str) -> ValidationCommand {
    ValidationCommand::new("sh", &["-c", script])
}

#[test]
fn a_command_that_cannot_start_fails_validation_naming_it() {
    let out = validate(
        EDIT,
        ValidationCommand::new("/nonexistent/lspedit-validator", &["--check"]),
    );
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains(
            "the validation command `/nonexistent/lspedit-validator --check` could not be started"
        ),
        "{}",
        out.llm_content
    );
}

#[test]
fn a_command_killed_by_a_signal_fails_validation() {
    let out = validate(EDIT, sh("kill -9 $$"));
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains("was killed by a signal"),
        "{}",
        out.llm_content
    );
    let v = out.validation.unwrap();
    assert_eq!((v.passed, v.exit_code), (false, None));
}

// The sandbox is the workspace after the change: a deleted file is absent there, and a symlink
// stays a symlink (its target is not copied in its place).
#[test]
fn the_sandbox_shows_deletions_and_keeps_symlinks() {
    let out = validate(
        DELETE,
        sh("test ! -e gone.txt && test -L link && test \"$(readlink link)\" = a.txt"),
    );
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert!(out.validation.unwrap().passed);
}

// The report keeps at most the last 40 lines and 8 KiB of output: here 50 lines of 302 bytes,
// so the byte cap cuts into the 40 kept lines.
#[test]
fn long_output_keeps_only_its_tail() {
    let out = validate(
        EDIT,
        sh("i=0; while [ $i -lt 50 ]; do printf 'L%0300d\\n' $i; i=$((i+1)); done; exit 1"),
    );
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    let tail = out.validation.unwrap().output_tail;
    let last = format!("L{:0300}", 49);
    assert!(tail.ends_with(&last), "{tail}");
    assert!(tail.len() <= 8 * 1024, "{} bytes kept", tail.len());
    assert!(tail.len() > 8 * 1024 - 302, "{} bytes kept", tail.len());
    assert!(
        !tail.contains(&format!("L{:0300}", 10)),
        "line 11 of 50 kept"
    );
    assert!(tail.lines().count() > 20, "{tail}");
}
