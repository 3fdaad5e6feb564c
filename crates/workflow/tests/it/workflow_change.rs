//! `apply_change`: a change lspedit computed itself (a symbol edit, a server's rename or code
//! action) applied at once. The properties: nothing is stored to apply later; the change lands
//! only on the bytes it was computed from; the plan's limits and the approver judge it as they
//! judge `apply_edit`; the events are the seeds' order; undo restores it.

use std::path::Path;
use std::sync::Arc;

use lspedit_tools::{EventSink, RecordingSink, Tools, ToolsConfig};
use lspedit_workflow::{ApplyPlan, ApplyStatus, ProposeRequest, Workflow, WorkflowConfig};
use lspedit_write::{Reason, Workspace, base_sha};

struct Env {
    dir: tempfile::TempDir,
    wf: Workflow,
    rec: Arc<RecordingSink>,
}

fn setup(files: &[(&str, &str)], cfg: WorkflowConfig) -> Env {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        std::fs::write(dir.path().join(rel), content).unwrap();
    }
    let rec = Arc::new(RecordingSink::new());
    let tools = Arc::new(Tools::new(
        Workspace::open(dir.path()).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    let mut cfg = cfg;
    cfg.sinks.push(rec.clone() as Arc<dyn EventSink>);
    let wf = Workflow::open(tools, cfg).unwrap();
    Env { dir, wf, rec }
}

impl Env {
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }
    /// The stored proposals: none, whatever `apply_change` did.
    fn stored(&self) -> usize {
        std::fs::read_dir(self.root().join(".lspedit/patches")).map_or(0, |d| d.count())
    }
}

fn diff(path: &str, from: &str, to: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n a\n-{from}\n+{to}\n c\n")
}

/// The change as a tool makes it: its patch and the sha of the bytes it was computed from.
fn change(path: &str, computed_from: &str, from: &str, to: &str) -> ProposeRequest {
    ProposeRequest::patch(diff(path, from, to))
        .with_base_sha(path, base_sha(computed_from.as_bytes()))
}

#[test]
fn a_change_applies_at_once_stores_nothing_and_undo_restores_it() {
    let e = setup(&[("a.txt", "a\nb\nc\n")], WorkflowConfig::unrestricted());
    let out = e.wf.apply_change(
        &change("a.txt", "a\nb\nc\n", "b", "B"),
        &ApplyPlan::default(),
    );
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    assert!(out.diff.contains("+B"), "{}", out.diff);
    assert_eq!(e.stored(), 0, "a change applied at once is not stored");
    // The id names no proposal: apply_edit of it finds nothing to apply again.
    let again = e.wf.apply_edit(&out.patch_id, &ApplyPlan::default());
    assert_eq!(again.reason, Some(Reason::PatchNotFound));
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    assert_eq!(
        e.rec.names()[..10],
        [
            "tool_start",
            "step_started",
            "stage_changed",
            "diff_proposed",
            "approval_requested",
            "approval_resolved",
            "checkpoint_created",
            "diff_applied",
            "step_completed",
            "tool_end",
        ]
    );
    e.wf.undo(out.checkpoint_id.as_deref().unwrap()).unwrap();
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

/// The file is not the one the change was computed from (another writer came in between):
/// nothing is written, whatever the patch would still match.
#[test]
fn a_change_computed_from_other_bytes_writes_nothing() {
    let e = setup(&[("a.txt", "a\nb\nc\nd\n")], WorkflowConfig::unrestricted());
    // The patch still applies to the file as it is; the change was made from other bytes.
    let out = e.wf.apply_change(
        &change("a.txt", "a\nb\nc\n", "b", "B"),
        &ApplyPlan::default(),
    );
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert_eq!(out.reason, Some(Reason::ShaMismatch));
    assert!(out.is_error);
    assert_eq!(e.read("a.txt"), "a\nb\nc\nd\n");
    assert_eq!(e.stored(), 0);
    let names = e.rec.names();
    assert_eq!(names.first(), Some(&"tool_start"));
    assert!(names.contains(&"failure_detected"), "{names:?}");
    assert_eq!(names.last(), Some(&"tool_end"));
}

#[test]
fn the_plan_and_the_approver_judge_a_change_as_they_judge_apply_edit() {
    let files = [("a.txt", "a\nb\nc\n"), ("b.txt", "a\nb\nc\n")];
    let both = ProposeRequest::patch(format!(
        "{}{}",
        diff("a.txt", "b", "B"),
        diff("b.txt", "b", "B")
    ))
    .with_base_sha("a.txt", base_sha(b"a\nb\nc\n"))
    .with_base_sha("b.txt", base_sha(b"a\nb\nc\n"));
    let e = setup(&files, WorkflowConfig::unrestricted());
    let out = e.wf.apply_change(
        &both,
        &ApplyPlan {
            max_files: Some(1),
            ..ApplyPlan::default()
        },
    );
    assert_eq!(
        out.reason,
        Some(Reason::ScopeViolation),
        "{}",
        out.llm_content
    );
    assert_eq!(
        (e.read("a.txt"), e.read("b.txt")),
        (files[0].1.into(), files[1].1.into())
    );

    let e = setup(
        &files,
        WorkflowConfig {
            ..WorkflowConfig::unrestricted().asking(Arc::new(lspedit_workflow::Deny))
        },
    );
    let out = e.wf.apply_change(&both, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Rejected, "{}", out.llm_content);
    assert_eq!(
        (e.read("a.txt"), e.read("b.txt")),
        (files[0].1.into(), files[1].1.into())
    );
    assert_eq!(e.stored(), 0);
    assert!(
        !e.root().join(".lspedit/checkpoints").exists()
            || std::fs::read_dir(e.root().join(".lspedit/checkpoints"))
                .unwrap()
                .count()
                == 0
    );
}
