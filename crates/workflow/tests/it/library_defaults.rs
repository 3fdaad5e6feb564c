//! The library's workflow defaults are the seeds' (issue 47): [`WorkflowConfig::default`] holds
//! every `apply_edit` to 3 files, 100 changed lines, no create, delete or rename, and applies
//! nothing without an approver; [`WorkflowConfig::unrestricted`] is the one named way out. The
//! properties: a caller's plan can tighten the configured policy, never lift it; a refusal
//! leaves every file as it was; a change lspedit computed (`apply_change`) is held only to what
//! the policy binds the writers outside the workflow.

use std::path::Path;
use std::sync::{Arc, Mutex};

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, ApprovalRequest, Approve, Atomicity, Callback, Operation, Policy,
    ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_write::{Reason, Workspace, base_sha};

const TEXT: &str = "a\nb\nc\n";
const FILES: [&str; 4] = ["f1.txt", "f2.txt", "f3.txt", "f4.txt"];

struct Env {
    dir: tempfile::TempDir,
    wf: Workflow,
    /// The patch ids the approver was asked about.
    asked: Arc<Mutex<Vec<String>>>,
}

/// Four files of [`TEXT`], and a workflow under `cfg`; with `approver`, `cfg` gets one that
/// approves and records what it was asked.
fn setup(cfg: WorkflowConfig, approver: bool) -> Env {
    let dir = tempfile::tempdir().unwrap();
    for f in FILES {
        std::fs::write(dir.path().join(f), TEXT).unwrap();
    }
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = asked.clone();
    let mut cfg = cfg;
    if approver {
        cfg.approver = Some(Arc::new(Callback(move |r: &ApprovalRequest<'_>| {
            seen.lock().unwrap().push(r.patch_id.to_string());
            true
        })));
    }
    let tools = Arc::new(Tools::new(
        Workspace::open(dir.path()).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    let wf = Workflow::open(tools, cfg).unwrap();
    Env { dir, wf, asked }
}

impl Env {
    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Every file of the workspace but lspedit's state, with its content.
    fn snapshot(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(self.root())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        out.sort();
        out
    }

    fn propose(&self, patch: &str) -> String {
        self.wf
            .propose_edit(&ProposeRequest::patch(patch))
            .unwrap()
            .patch_id
    }

    fn asked(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

/// `b` → `B` in each of `files`.
fn change_lines(files: &[&str]) -> String {
    files
        .iter()
        .map(|f| format!("--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"))
        .collect()
}

/// A new file of `lines` lines.
fn create(path: &str, lines: usize) -> String {
    let body: String = (0..lines).map(|i| format!("+line {i}\n")).collect();
    format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1,{lines} @@\n{body}")
}

/// 60 lines of each of two files replaced: 240 changed lines over 2 files.
fn large_change() -> String {
    let old: String = (0..60).map(|i| format!("old {i}\n")).collect();
    let new: String = (0..60).map(|i| format!("new {i}\n")).collect();
    let minus: String = old.lines().map(|l| format!("-{l}\n")).collect();
    let plus: String = new.lines().map(|l| format!("+{l}\n")).collect();
    ["f1.txt", "f2.txt"]
        .iter()
        .map(|f| format!("--- a/{f}\n+++ b/{f}\n@@ -1,60 +1,60 @@\n{minus}{plus}"))
        .collect()
}

#[test]
fn the_default_configuration_applies_nothing_without_an_approver_and_says_how_to_set_one() {
    let e = setup(WorkflowConfig::default(), false);
    let before = e.snapshot();
    let id = e.propose(&change_lines(&["f1.txt"]));
    for plan in [ApplyPlan::default(), ApplyPlan::mission_edit()] {
        let out = e.wf.apply_edit(&id, &plan);
        assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
        assert_eq!(out.reason, Some(Reason::ApprovalRequired));
        assert!(
            out.llm_content.contains("WorkflowConfig::approver")
                && out.llm_content.contains("WorkflowConfig::unrestricted()"),
            "{}",
            out.llm_content
        );
        assert_eq!(e.snapshot(), before);
    }
}

#[test]
fn the_default_limits_are_the_seeds_and_a_plan_cannot_lift_them() {
    // An approver is configured: every refusal below is the limits', never the approval's.
    let cases: [(&str, String, Reason); 3] = [
        ("4 files", change_lines(&FILES), Reason::ScopeViolation),
        ("240 lines", large_change(), Reason::ScopeViolation),
        ("a created file", create("new.txt", 1), Reason::UnsafeDiff),
    ];
    let lifting = ApplyPlan {
        max_files: Some(10),
        max_changed_lines: Some(1000),
        ..ApplyPlan::default()
    };
    for (name, patch, reason) in cases {
        for plan in [ApplyPlan::default(), lifting.clone()] {
            let e = setup(WorkflowConfig::default(), true);
            if name == "240 lines" {
                let old: String = (0..60).map(|i| format!("old {i}\n")).collect();
                std::fs::write(e.root().join("f1.txt"), &old).unwrap();
                std::fs::write(e.root().join("f2.txt"), &old).unwrap();
            }
            let before = e.snapshot();
            let id = e.propose(&patch);
            let out = e.wf.apply_edit(&id, &plan);
            assert_eq!(
                (out.status, out.reason),
                (ApplyStatus::Refused, Some(reason)),
                "{name} under {plan:?}: {}",
                out.llm_content
            );
            assert_eq!(e.snapshot(), before, "{name}");
            assert_eq!(e.asked(), 0, "{name}: refused before anyone is asked");
        }
    }
    // Within the limits, the approver is asked and the change applied.
    let e = setup(WorkflowConfig::default(), true);
    let id = e.propose(&change_lines(&FILES[..3]));
    let out = e.wf.apply_edit(&id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.asked(), 1);
}

/// A plan tightens the policy (one file where it allows any number), and a per-file plan under a
/// policy that forbids per-file applies is refused: both `scope_violation`, nothing written.
#[test]
fn a_plan_tightens_the_policy_and_a_forbidden_per_file_plan_is_refused() {
    let mut no_per_file = WorkflowConfig::unrestricted();
    no_per_file.policy.set_forbidden(&[Operation::PerFile]);
    let one_file = ApplyPlan {
        max_files: Some(1),
        ..ApplyPlan::default()
    };
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    for (config, plan, files, says) in [
        (
            WorkflowConfig::unrestricted(),
            one_file,
            &FILES[..2],
            "at most 1",
        ),
        (no_per_file, per_file, &FILES[..1], "per-file"),
    ] {
        let e = setup(config, false);
        let before = e.snapshot();
        let id = e.propose(&change_lines(files));
        let out = e.wf.apply_edit(&id, &plan);
        assert_eq!(
            out.reason,
            Some(Reason::ScopeViolation),
            "{}",
            out.llm_content
        );
        assert!(out.llm_content.contains(says), "{}", out.llm_content);
        assert_eq!(e.snapshot(), before);
    }
}

#[test]
fn unrestricted_applies_what_the_seeds_refuse_without_asking() {
    let e = setup(WorkflowConfig::unrestricted(), false);
    let mut patch = change_lines(&FILES);
    patch.push_str(&create("new.txt", 1));
    let id = e.propose(&patch);
    let out = e.wf.apply_edit(&id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(
        std::fs::read_to_string(e.root().join("new.txt")).unwrap(),
        "line 0\n"
    );
}

/// A change lspedit computed, as a symbol edit or a rename hands it over: `b` → `B` in `files`,
/// made from [`TEXT`].
fn computed(files: &[&str]) -> ProposeRequest {
    let mut request = ProposeRequest::patch(change_lines(files));
    for f in files {
        request = request.with_base_sha(*f, base_sha(TEXT.as_bytes()));
    }
    request
}

/// The default configuration, with `set` done to its policy.
fn defaults_with(set: impl FnOnce(&mut Policy)) -> WorkflowConfig {
    let mut config = WorkflowConfig::default();
    set(&mut config.policy);
    config
}

#[test]
fn a_computed_change_is_held_only_to_what_the_policy_sets() {
    // Under the seeds' defaults, a rename over 4 files is the server's answer: applied, and no
    // approver asked (the defaults bind the workflow's proposals, not the writers).
    let e = setup(WorkflowConfig::default(), true);
    let out = e.wf.apply_change(&computed(&FILES), &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.asked(), 0);

    // What the operator set binds it: a limit...
    let e = setup(defaults_with(|p| p.set_max_files(1)), true);
    let before = e.snapshot();
    let out =
        e.wf.apply_change(&computed(&FILES[..2]), &ApplyPlan::default());
    assert_eq!(
        out.reason,
        Some(Reason::ScopeViolation),
        "{}",
        out.llm_content
    );
    assert_eq!(e.snapshot(), before);

    // ... and the approval: `deny` rejects, `elicit` asks the approver, or refuses without one.
    for (approve, approver, status) in [
        (Approve::Deny, true, ApplyStatus::Rejected),
        (Approve::Elicit, true, ApplyStatus::Applied),
        (Approve::Elicit, false, ApplyStatus::Refused),
    ] {
        let e = setup(defaults_with(|p| p.set_approve(approve)), approver);
        let before = e.snapshot();
        let out =
            e.wf.apply_change(&computed(&["f1.txt"]), &ApplyPlan::default());
        assert_eq!(out.status, status, "{approve}: {}", out.llm_content);
        if status == ApplyStatus::Applied {
            assert_eq!(e.asked(), 1, "{approve}: the approver was asked");
        } else {
            assert_eq!(e.snapshot(), before, "{approve}");
        }
        if status == ApplyStatus::Refused {
            assert_eq!(out.reason, Some(Reason::ApprovalRequired));
        }
    }
}
