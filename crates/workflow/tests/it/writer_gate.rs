//! The operator's policy over the writers outside the workflow, through the library
//! (`PolicyGate` with `Tools::gated`, `Workflow::undo_gated`; issue 47). The properties: every
//! direct writer, under a limit it exceeds, an operation the policy forbids, or an approver
//! that says no, writes nothing and answers the gate's reason; what the approver is shown is
//! the diff of exactly what is written; a policy with nothing set binds nothing.

use std::path::Path;
use std::sync::{Arc, Mutex};

use lspedit_tools::{ToolResult, Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, ApprovalRequest, Approve, AutoApprove, Callback, Deny, Operation, Policy,
    PolicyGate, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_write::{Reason, Workspace};

const A: &str = "one\ntwo\n";

fn setup() -> (tempfile::TempDir, Arc<Tools>, Workflow) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), A).unwrap();
    let tools = Arc::new(Tools::new(
        Workspace::open(dir.path()).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    let wf = Workflow::open(tools.clone(), WorkflowConfig::unrestricted()).unwrap();
    (dir, tools, wf)
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

/// The direct writers' calls: each changes a.txt's first line (+1 -1), but the last, which
/// creates a file of one line.
const WRITES: [&str; 4] = ["edit", "write_file", "apply_patch", "write_file (create)"];

fn write(tools: &Tools, gate: &PolicyGate<'_>, tool: &str) -> ToolResult {
    let g = tools.gated(Some(gate));
    match tool {
        "edit" => g.edit("a.txt", "one", "uno", false),
        "write_file" => g.write_file("a.txt", "uno\ntwo\n"),
        "apply_patch" => g.apply_patch(
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n two\n*** End Patch\n",
        ),
        _ => g.write_file("new.txt", "new\n"),
    }
}

#[test]
fn every_direct_writer_refused_by_the_gate_writes_nothing() {
    let small = ApplyPlan {
        max_changed_lines: Some(1),
        ..ApplyPlan::default()
    };
    let no_create = ApplyPlan {
        forbid_create: true,
        ..ApplyPlan::default()
    };
    let cases: [(&str, ApplyPlan, bool, Reason); 3] = [
        ("limit", small, true, Reason::ScopeViolation),
        ("forbidden create", no_create, true, Reason::UnsafeDiff),
        (
            "denied",
            ApplyPlan::default(),
            false,
            Reason::ApprovalRequired,
        ),
    ];
    for (name, plan, approve, reason) in cases {
        let approver: &dyn lspedit_workflow::Approver = if approve { &AutoApprove } else { &Deny };
        let gate = PolicyGate::new("tool", plan, approver, "declined here");
        for tool in WRITES {
            let (dir, tools, _wf) = setup();
            let r = write(&tools, &gate, tool);
            let create = tool.ends_with("(create)");
            // Modifying a.txt creates nothing; one added line is within a limit of 1.
            let passes = (name == "forbidden create" && !create) || (name == "limit" && create);
            if passes {
                assert!(!r.is_error, "{name}: {tool}: {}", r.llm_content);
                continue;
            }
            assert!(r.is_error, "{name}: {tool} wrote: {}", r.llm_content);
            assert_eq!(r.reason, Some(reason), "{name}: {tool}: {}", r.llm_content);
            assert_eq!(
                read(dir.path(), "a.txt").as_deref(),
                Some(A),
                "{name}: {tool}"
            );
            assert_eq!(read(dir.path(), "new.txt"), None, "{name}: {tool}");
        }
    }
}

#[test]
fn the_approver_sees_exactly_what_is_written() {
    let (dir, tools, _wf) = setup();
    let shown: Arc<Mutex<Vec<(String, Vec<String>)>>> = Arc::default();
    let seen = shown.clone();
    let approver = Callback(move |r: &ApprovalRequest<'_>| {
        seen.lock()
            .unwrap()
            .push((r.diff.to_string(), r.files.to_vec()));
        true
    });
    let gate = PolicyGate::new("edit", ApplyPlan::default(), &approver, "no");
    let r = tools.gated(Some(&gate)).edit("a.txt", "two", "deux", false);
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("one\ndeux\n"));
    let shown = shown.lock().unwrap();
    assert_eq!(shown.len(), 1);
    let (diff, files) = &shown[0];
    assert_eq!(files, &["a.txt".to_string()]);
    assert!(
        diff.contains("-two\n+deux\n") && !diff.contains("-one"),
        "{diff}"
    );
}

#[test]
fn undo_passes_the_gate() {
    let (dir, tools, wf) = setup();
    let proposal = wf
        .propose_edit(&ProposeRequest::patch(
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+uno\n two\n",
        ))
        .unwrap();
    let applied = wf.apply_edit(&proposal.patch_id, &ApplyPlan::default());
    let ckpt = applied.checkpoint_id.clone().unwrap();
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("uno\ntwo\n"));
    let gate = PolicyGate::new("undo", ApplyPlan::default(), &Deny, "undo declined");
    let e = wf.undo_gated(&ckpt, Some(&gate)).unwrap_err();
    assert_eq!(
        (e.reason, e.message.as_str()),
        (Reason::ApprovalRequired, "undo declined")
    );
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some("uno\ntwo\n"));
    // The checkpoint is still there: undone once the gate lets it.
    let open = PolicyGate::new("undo", ApplyPlan::default(), &AutoApprove, "no");
    wf.undo_gated(&ckpt, Some(&open)).unwrap();
    assert_eq!(read(dir.path(), "a.txt").as_deref(), Some(A));
    drop(tools);
}

#[test]
fn only_what_the_operator_set_binds_the_direct_writers() {
    let unset = Policy::default();
    assert!(!unset.binds_writers());
    let plan = unset.writer_plan();
    assert_eq!((plan.max_files, plan.max_changed_lines), (None, None));
    assert!(!plan.forbid_create && !plan.forbid_delete && !plan.forbid_rename);
    assert_eq!(unset.writer_approve(), Approve::Auto);
    // The workflow keeps the seeds' limits all the same.
    let workflow = unset
        .plan(&lspedit_workflow::PlanRequest::default())
        .unwrap();
    assert_eq!(workflow.max_files, Some(3));

    let mut set = Policy::default();
    set.set_max_files(7);
    set.set_forbidden(&[Operation::Delete]);
    set.set_approve(Approve::Deny);
    assert!(set.binds_writers());
    let plan = set.writer_plan();
    assert_eq!((plan.max_files, plan.max_changed_lines), (Some(7), None));
    assert!(plan.forbid_delete && !plan.forbid_create);
    assert_eq!(set.writer_approve(), Approve::Deny);
}
