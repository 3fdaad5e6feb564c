//! The propose → approve → apply workflow on real files in temp dirs: the acceptance matrix of
//! issue 5 (event order, refusals, scope, staleness, atomicity, undo, validation), the patch
//! store shared with a second process, and crash recovery after a kill -9 mid-commit.
//!
//! Child processes re-execute this test binary filtered to `workflow::child_process_entry`,
//! which acts only when `LSPEDIT_WF_CHILD` is set.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lspedit_tools::{DiagnosticsProvider, Event, EventSink, RecordingSink, Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, Atomicity, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_workflow::{ApprovalRequest, ChangeKind, CommitObserver, CopyScope, ValidationCommand};
use lspedit_write::{Reason, Workspace};

use crate::support::{Mock, bad_lines};

const CHILD_ENV: &str = "LSPEDIT_WF_CHILD";

struct Env {
    dir: tempfile::TempDir,
    wf: Workflow,
    rec: Arc<RecordingSink>,
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn open(
    root: &Path,
    provider: Option<Arc<Mock>>,
    cfg: WorkflowConfig,
) -> (Workflow, Arc<RecordingSink>) {
    let rec = Arc::new(RecordingSink::new());
    let provider = provider.map(|p| p as Arc<dyn DiagnosticsProvider>);
    let tools = Arc::new(Tools::new(
        Workspace::open(root).unwrap(),
        provider,
        ToolsConfig::default(),
    ));
    let mut cfg = cfg;
    cfg.sinks.push(rec.clone() as Arc<dyn EventSink>);
    (Workflow::open(tools, cfg).unwrap(), rec)
}

fn setup_with(files: &[(&str, &str)], provider: Option<Arc<Mock>>, cfg: WorkflowConfig) -> Env {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        write(dir.path(), rel, content.as_bytes());
    }
    let (wf, rec) = open(dir.path(), provider, cfg);
    Env { dir, wf, rec }
}

fn setup(files: &[(&str, &str)]) -> Env {
    setup_with(files, None, WorkflowConfig::unrestricted())
}

impl Env {
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root().join(rel)).unwrap()
    }
    fn names(&self) -> Vec<&'static str> {
        self.rec.names()
    }
    /// Every workspace file (outside `.lspedit/`) and its bytes.
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        snapshot(self.root())
    }
}

fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if rel == ".lspedit" {
                continue;
            }
            if e.file_type().unwrap().is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// A unified diff replacing line `from` by `to` in a three-line file `a\n<from>\nc\n`.
fn replace_diff(path: &str, from: &str, to: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n a\n-{from}\n+{to}\n c\n")
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn stage<'a>(manifest: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    manifest["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["stage"] == name)
        .unwrap()
}

// Happy path: propose changes nothing; apply emits the full event order, writes the evidence and
// appends the diagnostics exactly as the tools do.
#[test]
fn happy_path_full_event_order_evidence_and_diagnostics() {
    let e = setup_with(
        &[("a.ts", "let a = 1;\nlet b = 2;\nlet c = 3;\n")],
        Some(Mock::with(bad_lines)),
        WorkflowConfig::unrestricted(),
    );
    let before = e.snapshot();
    let patch = "--- a/a.ts\n+++ b/a.ts\n@@ -1,3 +1,3 @@\n let a = 1;\n-let b = 2;\n+let b = BAD;\n let c = 3;\n";
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    assert_eq!(e.snapshot(), before, "propose changed a file");
    let id_shape = regex::Regex::new(r"^patch_\d{13}_[0-9a-f]{32}$").unwrap();
    assert!(id_shape.is_match(&p.patch_id), "{}", p.patch_id);
    assert_eq!(p.affected_files(), ["a.ts"]);
    assert_eq!(
        p.base_shas["a.ts"].as_deref(),
        Some(lspedit_write::base_sha(&before["a.ts"]).as_str())
    );
    assert!(
        p.diff.contains("-let b = 2;\n+let b = BAD;\n"),
        "{}",
        p.diff
    );
    assert_eq!(
        (
            p.stats.files_scanned,
            p.stats.files_matched,
            p.stats.total_changes
        ),
        (1, 1, 1)
    );
    assert!(
        e.root()
            .join(format!(".lspedit/patches/{}.json", p.patch_id))
            .is_file()
    );

    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert!(!out.is_error);
    assert_eq!(e.read("a.ts"), "let a = 1;\nlet b = BAD;\nlet c = 3;\n");
    let expected_tail = "\n\nLSP errors detected in a.ts, please fix:\n<diagnostics file=\"a.ts\">\nERROR [2:1] Type 'string' is not assignable to type 'number'. (ts2322)\n</diagnostics>";
    assert!(
        out.llm_content.ends_with(expected_tail),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains("M a.ts (1 hunk)"),
        "{}",
        out.llm_content
    );

    assert_eq!(
        e.names(),
        [
            "tool_start",
            "tool_end",
            "diff_proposed",
            "tool_start",
            "step_started",
            "stage_changed",
            "approval_requested",
            "approval_resolved",
            "checkpoint_created",
            "diff_applied",
            "step_completed",
            "tool_end"
        ]
    );
    let events = e.rec.events();
    let ckpt = out.checkpoint_id.clone().unwrap();
    let mut approval = String::new();
    for ev in &events {
        match ev {
            Event::DiffProposed {
                diff_id,
                files_changed,
                evidence_id,
                summary,
            } => {
                assert_eq!(diff_id, &p.patch_id);
                assert_eq!(evidence_id, &p.patch_id);
                assert_eq!(files_changed, &["a.ts"]);
                assert!(summary.contains("1 file changed (+1 -1)"), "{summary}");
            }
            Event::ApprovalRequested {
                approval_id,
                kind,
                diff_id,
            } => {
                assert!(approval_id.starts_with("appr_"));
                approval = approval_id.clone();
                assert_eq!(kind, "apply_diff");
                assert_eq!(diff_id, &p.patch_id);
            }
            Event::ApprovalResolved {
                approval_id,
                approved,
            } => {
                assert_eq!(approval_id, &approval);
                assert!(approved);
            }
            Event::CheckpointCreated {
                checkpoint_id,
                files,
            } => {
                assert_eq!(checkpoint_id, &ckpt);
                assert_eq!(files, &["a.ts"]);
            }
            Event::DiffApplied {
                diff_id,
                files_changed,
                evidence_id,
            } => {
                assert_eq!(diff_id, &p.patch_id);
                assert_eq!(files_changed, &["a.ts"]);
                assert_eq!(evidence_id, &p.patch_id);
            }
            _ => {}
        }
    }
    // The JSONL log holds the same sequence.
    let log = std::fs::read_to_string(e.root().join(".lspedit/events.jsonl")).unwrap();
    let logged: Vec<String> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(logged, e.names());

    // Evidence: raw diff, manifest with all seven stages, apply result.
    let ev = e.root().join(".lspedit/evidence");
    assert_eq!(
        std::fs::read_to_string(ev.join(format!("{}.diff", p.patch_id))).unwrap(),
        patch
    );
    let manifest = json(&ev.join(format!("{}.manifest.json", p.patch_id)));
    let stages: Vec<&str> = manifest["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    // The stored codes, in order: evidence is read by other processes and people.
    assert_eq!(
        stages,
        [
            "parse",
            "safety",
            "sha_match",
            "scope",
            "empty",
            "stale",
            "hunk"
        ]
    );
    for s in ["parse", "safety", "scope", "empty", "stale", "hunk"] {
        assert_eq!(stage(&manifest, s)["status"], "pass", "{s}: {manifest}");
    }
    assert_eq!(stage(&manifest, "sha_match")["status"], "skipped");
    assert_eq!(manifest["stats"]["files_matched"], 1);
    let apply = json(&ev.join(format!("{}.apply.json", p.patch_id)));
    assert_eq!(apply["status"], "applied");
    assert_eq!(apply["checkpoint_id"], ckpt.as_str());
    assert_eq!(apply["files"][0]["applied"], true);
}

#[test]
fn invalid_diff_is_refused_with_evidence_and_failure_events() {
    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let err =
        e.wf.propose_edit(&ProposeRequest::patch(
            "*** Begin Patch\n*** Add File: new.txt\nno plus sign here\n*** End Patch\n",
        ))
        .unwrap_err();
    assert_eq!(err.reason, Reason::InvalidDiffFormat, "{err}");
    assert!(err.message.contains("patch line 3"), "{err}");
    assert!(err.message.contains("(evidence refused_"), "{err}");
    assert_eq!(
        e.names(),
        [
            "tool_start",
            "tool_end",
            "failure_detected",
            "execution_paused"
        ]
    );
    let events = e.rec.events();
    assert!(matches!(&events[1], Event::ToolEnd { is_error: true, .. }));
    assert!(
        matches!(&events[2], Event::FailureDetected { reason, .. } if reason.as_str() == "invalid_diff_format")
    );
    assert!(
        matches!(&events[3], Event::ExecutionPaused { reason, .. } if reason.as_str() == "needs_user_decision")
    );
    assert!(listing(&e.root().join(".lspedit/patches")).is_empty());
    let ev = e.root().join(".lspedit/evidence");
    let manifests: Vec<String> = listing(&ev)
        .into_iter()
        .filter(|n| n.ends_with(".manifest.json"))
        .collect();
    assert_eq!(manifests.len(), 1, "{manifests:?}");
    assert!(manifests[0].starts_with("refused_"));
    let m = json(&ev.join(&manifests[0]));
    assert_eq!(m["outcome"], "refused");
    assert_eq!(stage(&m, "parse")["status"], "fail");
    assert_eq!(stage(&m, "hunk")["status"], "skipped");
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    assert!(!e.root().join("new.txt").exists());
}

fn assert_refused_before_approval(e: &Env, reason: &str) {
    assert_eq!(
        e.names(),
        [
            "tool_start",
            "tool_end",
            "diff_proposed",
            "tool_start",
            "step_started",
            "stage_changed",
            "failure_detected",
            "execution_paused",
            "tool_end"
        ]
    );
    let events = e.rec.events();
    assert!(
        matches!(&events[6], Event::FailureDetected { reason: r, .. } if r.as_str() == reason),
        "{:?}",
        events[6]
    );
    assert!(
        matches!(&events[7], Event::ExecutionPaused { reason, diff_id: Some(_) } if reason.as_str() == "needs_user_decision")
    );
    assert!(
        matches!(&events[8], Event::ToolEnd { is_error: true, .. }),
        "{:?}",
        events[8]
    );
}

/// The event sequences README.md's events paragraph states, in order: each a span of
/// `a → b → c`, annotations like `(edit)` dropped; a leading `…` means "ends with".
fn readme_event_orders() -> Vec<(bool, Vec<String>)> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .unwrap();
    let start = readme
        .find("Events go to `.lspedit/events.jsonl`")
        .expect("README's events paragraph");
    let para = &readme[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let annotation = regex::Regex::new(r"\([^)]*\)|\{[^}]*\}").unwrap();
    para.split('`')
        .skip(1)
        .step_by(2)
        .filter(|span| span.contains('→'))
        .map(|span| {
            let span = annotation.replace_all(span, "");
            let suffix = span.trim_start().starts_with('…');
            let names = span
                .trim_start()
                .trim_start_matches('…')
                .split('→')
                .map(|n| n.trim().to_string())
                .collect();
            (suffix, names)
        })
        .collect()
}

/// README states the orders an apply emits: propose; a successful apply; a refusal, which
/// ends the step where it happens (before approval, and at the commit); an approver's no; a
/// partial apply. Each is checked against what the workflow emits.
// Regression: README said refusals "add" `failure_detected` and `execution_paused` to the
// successful order, and named `diff_proposed` as part of the apply's.
#[test]
fn readme_states_the_event_orders_the_workflow_emits() {
    let orders = readme_event_orders();
    let [propose, applied, refused, rejected, partial] = orders.as_slice() else {
        panic!("README's events paragraph should state five orders: {orders:?}");
    };
    let emitted = |e: &Env| -> Vec<String> { e.names().iter().map(|n| n.to_string()).collect() };
    let holds = |(suffix, names): &(bool, Vec<String>), got: &[String]| {
        if *suffix {
            got.ends_with(names)
        } else {
            got == names.as_slice()
        }
    };

    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let names = emitted(&e);
    assert!(holds(propose, &names), "{propose:?} vs {names:?}");
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    let names = emitted(&e);
    assert!(holds(applied, &names[3..]), "{applied:?} vs {names:?}");

    // Refused before approval (a limit) and at the commit (rolled back).
    let four: Vec<(String, String)> = (0..4)
        .map(|i| (format!("f{i}.txt"), "a\nb\nc\n".to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = four.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let e = setup(&refs);
    let patch: String = (0..4)
        .map(|i| replace_diff(&format!("f{i}.txt"), "b", "B"))
        .collect();
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::mission_edit());
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    let e2 = three_file_env(WorkflowConfig {
        commit_observer: Some(Arc::new(FailAt(2))),
        ..WorkflowConfig::unrestricted()
    });
    let p2 = e2
        .wf
        .propose_edit(&ProposeRequest::patch(three_file_patch()))
        .unwrap();
    let all_or_nothing = ApplyPlan {
        atomicity: Atomicity::AllOrNothing,
        ..ApplyPlan::default()
    };
    let out = e2.wf.apply_edit(&p2.patch_id, &all_or_nothing);
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    for names in [emitted(&e), emitted(&e2)] {
        assert!(holds(refused, &names), "{refused:?} vs {names:?}");
        for absent in ["diff_applied", "step_completed"] {
            assert!(!names.iter().any(|n| n == absent), "{names:?}");
        }
    }

    let e = setup_with(
        &[("a.txt", "a\nb\nc\n")],
        None,
        WorkflowConfig::unrestricted().asking(Arc::new(lspedit_workflow::Deny)),
    );
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    assert_eq!(
        e.wf.apply_edit(&p.patch_id, &ApplyPlan::default()).status,
        ApplyStatus::Rejected
    );
    let names = emitted(&e);
    assert!(holds(rejected, &names), "{rejected:?} vs {names:?}");
    assert!(!names.iter().any(|n| n == "failure_detected"), "{names:?}");

    // A partial apply: the stated events come right after `step_completed`.
    let e = three_file_env(WorkflowConfig {
        commit_observer: Some(Arc::new(FailAt(2))),
        ..WorkflowConfig::unrestricted()
    });
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &per_file);
    assert_eq!(out.status, ApplyStatus::PartiallyApplied);
    let names = emitted(&e);
    let at = names.iter().position(|n| n == "step_completed").unwrap() + 1;
    assert!(
        !partial.0 && names[at..].starts_with(&partial.1),
        "{partial:?} vs {names:?}"
    );
}

#[test]
fn scope_max_files_is_a_scope_violation() {
    let files: Vec<(String, String)> = (0..4)
        .map(|i| (format!("f{i}.txt"), "a\nb\nc\n".to_string()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let e = setup(&refs);
    let patch: String = (0..4)
        .map(|i| replace_diff(&format!("f{i}.txt"), "b", "B"))
        .collect();
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let before = e.snapshot();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::mission_edit());
    assert_eq!(out.status, ApplyStatus::Refused);
    assert_eq!(
        out.reason,
        Some(Reason::ScopeViolation),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content
            .contains("changes 4 files but the apply plan allows at most 3"),
        "{}",
        out.llm_content
    );
    assert_eq!(e.snapshot(), before);
    assert_refused_before_approval(&e, "scope_violation");
    let m = json(
        &e.root()
            .join(format!(".lspedit/evidence/{}.manifest.json", p.patch_id)),
    );
    assert_eq!(stage(&m, "scope")["status"], "fail");
    let a = json(
        &e.root()
            .join(format!(".lspedit/evidence/{}.apply.json", p.patch_id)),
    );
    assert_eq!(a["status"], "refused");
    assert_eq!(a["reason"], "scope_violation");
    // Without limits the same patch applies.
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
}

#[test]
fn scope_max_changed_lines_and_forbidden_operations() {
    let old: String = (0..60).map(|i| format!("line {i}\n")).collect();
    let e = setup(&[("big.txt", &old)]);
    let new: String = (0..60).map(|i| format!("LINE {i}\n")).collect();
    // 60 removed + 60 added = 120 changed lines > 100.
    let patch = lspedit_engine::unified_diff(
        &old,
        &new,
        Some("big.txt"),
        Some("big.txt"),
        &Default::default(),
    );
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::mission_edit());
    assert_eq!(
        out.reason,
        Some(Reason::ScopeViolation),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains("changes 120 lines"),
        "{}",
        out.llm_content
    );
    assert_eq!(e.read("big.txt"), old);
    assert_refused_before_approval(&e, "scope_violation");

    // Creating a file is forbidden by the mission preset (unsafe_diff), allowed by default.
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(
            "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+hello\n",
        ))
        .unwrap();
    assert_eq!(p.files[0].kind, ChangeKind::Create);
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::mission_edit());
    assert_eq!(out.reason, Some(Reason::UnsafeDiff), "{}", out.llm_content);
    assert!(!e.root().join("new.txt").exists());
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.read("new.txt"), "hello\n");
}

#[test]
fn mission_edit_preset_and_plain_default() {
    let m = ApplyPlan::mission_edit();
    assert_eq!((m.max_files, m.max_changed_lines), (Some(3), Some(100)));
    assert!(m.forbid_create && m.forbid_delete && m.forbid_rename);
    let d = ApplyPlan::default();
    assert_eq!((d.max_files, d.max_changed_lines), (None, None));
    assert!(!d.forbid_create && !d.forbid_delete && !d.forbid_rename);
    // Issue 24: the workflow is all-or-nothing unless the caller asks for per file.
    assert_eq!(d.atomicity, Atomicity::AllOrNothing);
}

#[test]
fn user_rejects_nothing_applied() {
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen2 = seen.clone();
    let cfg = WorkflowConfig {
        ..WorkflowConfig::unrestricted().asking(Arc::new(lspedit_workflow::Callback(
            move |req: &ApprovalRequest<'_>| {
                seen2
                    .lock()
                    .unwrap()
                    .push(format!("{}|{}", req.patch_id, req.files.join(",")));
                assert!(req.diff.contains("+B"));
                false
            },
        )))
    };
    let e = setup_with(&[("a.txt", "a\nb\nc\n")], None, cfg);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Rejected);
    assert!(out.is_error);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    assert_eq!(*seen.lock().unwrap(), [format!("{}|a.txt", p.patch_id)]);
    assert_eq!(
        e.names(),
        [
            "tool_start",
            "tool_end",
            "diff_proposed",
            "tool_start",
            "step_started",
            "stage_changed",
            "approval_requested",
            "approval_resolved",
            "execution_paused",
            "tool_end"
        ]
    );
    let events = e.rec.events();
    assert!(matches!(
        &events[7],
        Event::ApprovalResolved {
            approved: false,
            ..
        }
    ));
    // The pause names the rejected diff; the apply ended as failed.
    assert!(matches!(
        &events[8],
        Event::ExecutionPaused { reason, diff_id: Some(d) } if reason.as_str() == "diff_rejected" && *d == p.patch_id
    ));
    assert_eq!(events[9].to_json(0)["status"], "failed", "{:?}", events[9]);
    assert!(listing(&e.root().join(".lspedit/checkpoints")).is_empty());
    let a = json(
        &e.root()
            .join(format!(".lspedit/evidence/{}.apply.json", p.patch_id)),
    );
    assert_eq!(a["status"], "rejected");

    // The Deny approver does the same.
    let e = setup_with(
        &[("a.txt", "a\nb\nc\n")],
        None,
        WorkflowConfig {
            ..WorkflowConfig::unrestricted().asking(Arc::new(lspedit_workflow::Deny))
        },
    );
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    assert_eq!(
        e.wf.apply_edit(&p.patch_id, &ApplyPlan::default()).status,
        ApplyStatus::Rejected
    );
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

#[test]
fn stale_file_between_propose_and_apply() {
    let e = setup(&[("a.txt", "a\nb\nc\n"), ("other.txt", "x\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    // Someone edits the file after the proposal, even in a way the hunk would still match.
    write(e.root(), "a.txt", b"a\nb\nc\nd\n");
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(
        out.reason,
        Some(Reason::StaleContext),
        "{}",
        out.llm_content
    );
    assert!(out.llm_content.contains("a.txt"), "{}", out.llm_content);
    assert_eq!(e.read("a.txt"), "a\nb\nc\nd\n");
    assert_refused_before_approval(&e, "stale_context");
    assert!(listing(&e.root().join(".lspedit/checkpoints")).is_empty());
    let m = json(
        &e.root()
            .join(format!(".lspedit/evidence/{}.manifest.json", p.patch_id)),
    );
    assert_eq!(stage(&m, "stale")["status"], "fail");

    // A base_sha the caller expected but the file does not have: sha_mismatch at propose.
    let err =
        e.wf.propose_edit(
            &ProposeRequest::patch(replace_diff("other.txt", "b", "B"))
                .with_base_sha("other.txt", "000000000000"),
        )
        .unwrap_err();
    assert_eq!(err.reason, Reason::ShaMismatch, "{err}");
}

fn three_file_env(cfg: WorkflowConfig) -> Env {
    setup_with(
        &[
            ("a.txt", "a\nb\nc\n"),
            ("b.txt", "a\nb\nc\n"),
            ("c.txt", "a\nb\nc\n"),
        ],
        None,
        cfg,
    )
}

fn three_file_patch() -> String {
    ["a.txt", "b.txt", "c.txt"]
        .iter()
        .map(|f| replace_diff(f, "b", "NEW"))
        .collect()
}

#[test]
fn all_or_nothing_with_a_mismatching_hunk_applies_nothing() {
    let e = three_file_env(WorkflowConfig::unrestricted());
    let mut patch = replace_diff("a.txt", "b", "NEW") + &replace_diff("b.txt", "b", "NEW");
    patch.push_str("--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n a\n-not in the file\n+NEW\n c\n");
    let p = e.wf.propose_edit(&ProposeRequest::patch(&patch)).unwrap();
    let problem = p
        .files
        .iter()
        .find(|f| f.path == "c.txt")
        .unwrap()
        .problem
        .clone()
        .unwrap();
    assert_eq!(problem.reason, Reason::HunkMismatch);
    assert!(
        p.llm_content().contains("FAILED c.txt: hunk_mismatch"),
        "{}",
        p.llm_content()
    );
    let before = e.snapshot();

    let plan = ApplyPlan {
        atomicity: Atomicity::AllOrNothing,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert_eq!(out.status, ApplyStatus::Refused);
    assert_eq!(
        out.reason,
        Some(Reason::HunkMismatch),
        "{}",
        out.llm_content
    );
    assert_eq!(e.snapshot(), before, "all-or-nothing wrote a file");
    assert_refused_before_approval(&e, "hunk_mismatch");

    // Asked for per file, the two good files apply and the third is reported.
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &per_file);
    assert_eq!(
        out.status,
        ApplyStatus::PartiallyApplied,
        "{}",
        out.llm_content
    );
    assert!(out.is_error);
    assert_eq!(e.read("a.txt"), "a\nNEW\nc\n");
    assert_eq!(e.read("b.txt"), "a\nNEW\nc\n");
    assert_eq!(e.read("c.txt"), "a\nb\nc\n");
    assert!(
        out.llm_content.contains("FAILED c.txt: hunk_mismatch"),
        "{}",
        out.llm_content
    );
    let names = e.names();
    assert_eq!(
        names[names.len() - 5..],
        [
            "diff_applied",
            "step_completed",
            "failure_detected",
            "execution_paused",
            "tool_end"
        ]
    );
}

/// Fails the commit after the `n`-th write, as an I/O error would.
struct FailAt(usize);
impl CommitObserver for FailAt {
    fn file_written(&self, _path: &str, index: usize, _total: usize) -> Result<(), String> {
        if index == self.0 {
            Err("injected write failure".into())
        } else {
            Ok(())
        }
    }
}

/// Issue 24: `ApplyPlan::default()` (what `apply-id` and `apply_edit` start from) is
/// all-or-nothing. A 3-file proposal whose third file has a hunk that no longer matches writes
/// nothing, and a write failing mid-commit rolls back the files already written.
#[test]
fn the_default_apply_is_all_or_nothing_and_rolls_back() {
    let e = three_file_env(WorkflowConfig::unrestricted());
    let mut patch = replace_diff("a.txt", "b", "NEW") + &replace_diff("b.txt", "b", "NEW");
    patch.push_str("--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n a\n-not in the file\n+NEW\n c\n");
    let p = e.wf.propose_edit(&ProposeRequest::patch(&patch)).unwrap();
    let before = e.snapshot();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert_eq!(out.reason, Some(Reason::HunkMismatch));
    assert_eq!(e.snapshot(), before, "the default apply wrote a file");

    let e = three_file_env(WorkflowConfig {
        commit_observer: Some(Arc::new(FailAt(2))),
        ..WorkflowConfig::unrestricted()
    });
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let before = e.snapshot();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert!(out.rolled_back, "{}", out.llm_content);
    assert_eq!(e.snapshot(), before, "files not restored byte for byte");
}

#[test]
fn all_or_nothing_failure_mid_commit_rolls_back_every_file() {
    let e = three_file_env(WorkflowConfig {
        commit_observer: Some(Arc::new(FailAt(2))),
        ..WorkflowConfig::unrestricted()
    });
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let before = e.snapshot();
    let plan = ApplyPlan {
        atomicity: Atomicity::AllOrNothing,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert!(out.rolled_back);
    assert_eq!(out.reason, Some(Reason::IoError));
    assert!(
        out.llm_content.contains("rolled back"),
        "{}",
        out.llm_content
    );
    assert_eq!(e.snapshot(), before, "files not restored byte for byte");
    assert!(!e.root().join(".lspedit/journal").exists());
    assert!(listing(&e.root().join(".lspedit/checkpoints")).is_empty());
    let a = json(
        &e.root()
            .join(format!(".lspedit/evidence/{}.apply.json", p.patch_id)),
    );
    assert_eq!(a["rolled_back"], true);
    let names = e.names();
    assert_eq!(
        names[3..],
        [
            "tool_start",
            "step_started",
            "stage_changed",
            "approval_requested",
            "approval_resolved",
            "checkpoint_created",
            "failure_detected",
            "execution_paused",
            "tool_end"
        ]
    );
    // The failure says the written files were restored.
    let failure = e
        .rec
        .events()
        .into_iter()
        .find(|ev| ev.name() == "failure_detected")
        .unwrap();
    assert_eq!(failure.to_json(0)["details"]["rollback"], "success");
}

#[test]
fn per_file_when_asked_a_failed_file_leaves_the_others_applied() {
    let e = three_file_env(WorkflowConfig {
        commit_observer: Some(Arc::new(FailAt(2))),
        ..WorkflowConfig::unrestricted()
    });
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &per_file);
    assert_eq!(
        out.status,
        ApplyStatus::PartiallyApplied,
        "{}",
        out.llm_content
    );
    assert_eq!(e.read("a.txt"), "a\nNEW\nc\n");
    assert_eq!(
        e.read("b.txt"),
        "a\nb\nc\n",
        "the failed file must be restored"
    );
    assert_eq!(e.read("c.txt"), "a\nNEW\nc\n");
    assert!(
        out.llm_content
            .contains("FAILED b.txt: io_error: injected write failure"),
        "{}",
        out.llm_content
    );
    // The checkpoint covers only what was written, so undo restores exactly that (through a
    // workflow without the failing observer).
    let (wf2, _rec) = open(e.root(), None, WorkflowConfig::unrestricted());
    let u = wf2.undo(out.checkpoint_id.as_deref().unwrap()).unwrap();
    assert_eq!(u.restored, ["a.txt", "c.txt"]);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    assert_eq!(e.read("c.txt"), "a\nb\nc\n");
}

// The invariant: a `failure_detected` after a write that the failure undid carries
// `details.rollback`. An all-or-nothing commit failing mid-way, a validation after the commit
// and a timeout after it are covered above and below; these are the other paths that write and
// put back.

/// A rename (a unit of two files: the new one written, the old one removed) failing after both
/// were switched, under per-file atomicity: the unit is put back, nothing is applied, and the
/// failure says the rollback succeeded.
// Regression: only an all-or-nothing commit's put-back was reported.
#[test]
fn per_file_a_rename_failing_part_way_is_put_back_and_says_so() {
    let e = setup_with(
        &[("old.txt", "x\n")],
        None,
        WorkflowConfig {
            commit_observer: Some(Arc::new(FailAt(2))),
            ..WorkflowConfig::unrestricted()
        },
    );
    let patch =
        "*** Begin Patch\n*** Update File: old.txt\n*** Move to: moved.txt\n*** End Patch\n";
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let before = e.snapshot();
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &per_file);
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert_eq!(e.snapshot(), before, "the rename was not put back");
    assert_eq!(failure_details(&e)["rollback"], "success");
}

/// Per-file: one file written and kept, then a rename that fails part-way and is put back. The
/// partial apply's `failure_detected` is about the rename, whose written file was put back.
// Regression: a partial apply's failure never carried `rollback`.
#[test]
fn per_file_a_partial_apply_reports_the_put_back_unit() {
    let e = setup_with(
        &[("keep.txt", "a\nb\nc\n"), ("old.txt", "x\n")],
        None,
        WorkflowConfig {
            commit_observer: Some(Arc::new(FailAt(3))),
            ..WorkflowConfig::unrestricted()
        },
    );
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n a\n-b\n+B\n c\n*** Update File: old.txt\n*** Move to: moved.txt\n*** End Patch\n";
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let per_file = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &per_file);
    assert_eq!(
        out.status,
        ApplyStatus::PartiallyApplied,
        "{}",
        out.llm_content
    );
    assert_eq!(e.read("keep.txt"), "a\nB\nc\n");
    assert_eq!(e.read("old.txt"), "x\n");
    assert!(!e.root().join("moved.txt").exists());
    assert_eq!(failure_details(&e)["rollback"], "success");
}

/// Undo restores all or nothing: a restore failing part-way puts back what it wrote, and its
/// failure says so.
// Regression: undo's failure never carried `rollback`.
#[test]
fn undo_failing_part_way_is_rolled_back_and_says_so() {
    let e = three_file_env(WorkflowConfig::unrestricted());
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    let applied = e.snapshot();
    let (wf2, rec2) = open(
        e.root(),
        None,
        WorkflowConfig {
            commit_observer: Some(Arc::new(FailAt(2))),
            ..WorkflowConfig::unrestricted()
        },
    );
    let err = wf2.undo(out.checkpoint_id.as_deref().unwrap()).unwrap_err();
    assert_eq!(err.reason, Reason::IoError, "{err}");
    assert_eq!(e.snapshot(), applied, "the restore was not put back");
    let failures: Vec<serde_json::Value> = rec2
        .events()
        .iter()
        .filter(|ev| ev.name() == "failure_detected")
        .map(|ev| ev.to_json(0)["details"].clone())
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0]["rollback"], "success", "{failures:?}");
}

#[test]
fn empty_diff_is_refused() {
    let e = setup(&[("a.txt", "a\nb\nc\n"), ("src/x.rs", "fn x() {}\n")]);
    // A hunk of context only.
    let err =
        e.wf.propose_edit(&ProposeRequest::patch(
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n b\n",
        ))
        .unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff, "{err}");
    // Nothing at all.
    let err = e.wf.propose_edit(&ProposeRequest::patch("\n")).unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff, "{err}");
    // A regex that matches nothing in scope.
    let err =
        e.wf.propose_edit(&ProposeRequest::regex("nothing_here", "x", &["src/**"]))
            .unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff, "{err}");
    assert!(err.message.contains("1 file of the scope"), "{err}");
    assert!(listing(&e.root().join(".lspedit/patches")).is_empty());
    let m: Vec<String> = listing(&e.root().join(".lspedit/evidence"))
        .into_iter()
        .filter(|n| n.ends_with(".manifest.json"))
        .collect();
    assert_eq!(m.len(), 3);
    for name in m {
        let m = json(&e.root().join(".lspedit/evidence").join(name));
        assert_eq!(stage(&m, "empty")["status"], "fail", "{m}");
    }
}

#[test]
fn unknown_patch_id_creates_nothing() {
    let e = setup(&[("a.txt", "a\n")]);
    assert!(
        !e.root().join(".lspedit").exists(),
        "open created .lspedit/"
    );
    for id in [
        "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "../../etc/passwd",
        "patch_x",
    ] {
        let out = e.wf.apply_edit(id, &ApplyPlan::default());
        assert_eq!(
            out.llm_content,
            format!("Patch '{id}' not found; call propose_edit again to get a patch id to apply")
        );
        assert!(out.is_error);
        assert_eq!(out.reason, Some(Reason::PatchNotFound));
    }
    assert!(
        !e.root().join(".lspedit").exists(),
        "an unknown id created .lspedit/"
    );
    assert!(e.names().is_empty());

    // With an existing store, nothing new appears either.
    e.wf.propose_edit(&ProposeRequest::patch(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n",
    ))
    .unwrap();
    let tree = |root: &Path| -> Vec<String> {
        let mut all = Vec::new();
        for d in ["", "patches", "evidence", "checkpoints"] {
            for n in listing(&root.join(".lspedit").join(d)) {
                all.push(format!("{d}/{n}"));
            }
        }
        all
    };
    let before = tree(e.root());
    let log_len = std::fs::metadata(e.root().join(".lspedit/events.jsonl"))
        .unwrap()
        .len();
    let out = e.wf.apply_edit(
        "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        &ApplyPlan::default(),
    );
    assert!(
        out.llm_content
            .starts_with("Patch 'patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef' not found;"),
        "{}",
        out.llm_content
    );
    assert_eq!(tree(e.root()), before);
    assert_eq!(
        std::fs::metadata(e.root().join(".lspedit/events.jsonl"))
            .unwrap()
            .len(),
        log_len
    );
    assert_eq!(e.read("a.txt"), "a\n");
}

#[test]
fn propose_over_a_scope_reports_statistics() {
    let e = setup(&[
        (".gitignore", "backend/gen/\n"),
        ("backend/a.go", "func OldName() {}\nvar x = OldName()\n"),
        ("backend/sub/b.go", "var y = OldName()\n"),
        ("backend/c.go", "func other() {}\n"),
        ("backend/gen/ignored.go", "var z = OldName()\n"),
        ("backend/readme.md", "OldName in docs\n"),
        ("frontend/x.go", "var w = OldName()\n"),
        (".lspedit/notes.go", "OldName\n"),
    ]);
    write(e.root(), "backend/blob.go", b"OldName\0binary\0");
    let before = e.snapshot();
    let p =
        e.wf.propose_edit(&ProposeRequest::regex(
            r"\bOldName\b",
            "NewName",
            &["backend/**/*.go"],
        ))
        .unwrap();
    assert_eq!(e.snapshot(), before, "propose changed a file");
    // a.go, sub/b.go, c.go searched; blob.go skipped as binary; gen/ ignored; readme.md and
    // frontend/ out of scope.
    assert_eq!(p.stats.files_scanned, 3, "{:?}", p.stats);
    assert_eq!(p.stats.files_matched, 2);
    assert_eq!(p.stats.total_changes, 3);
    assert_eq!(p.stats.files_skipped, 1);
    assert_eq!(p.affected_files(), ["backend/a.go", "backend/sub/b.go"]);
    assert_eq!(
        p.files
            .iter()
            .find(|f| f.path == "backend/a.go")
            .unwrap()
            .changes,
        2
    );
    assert!(p.diff.contains("+++ b/backend/sub/b.go"));
    assert!(!p.diff.contains("frontend"));
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(
        e.read("backend/a.go"),
        "func NewName() {}\nvar x = NewName()\n"
    );
    assert_eq!(e.read("backend/sub/b.go"), "var y = NewName()\n");
    assert_eq!(e.read("frontend/x.go"), "var w = OldName()\n");
    assert_eq!(e.read("backend/gen/ignored.go"), "var z = OldName()\n");
    assert_eq!(
        std::fs::read(e.root().join("backend/blob.go")).unwrap(),
        b"OldName\0binary\0"
    );

    // Capture groups, an exclusion and a plain directory scope.
    let p =
        e.wf.propose_edit(&ProposeRequest::regex(
            r"var (\w+) =",
            "let $1 =",
            &["backend", "!backend/sub/**"],
        ))
        .unwrap();
    assert_eq!(p.affected_files(), ["backend/a.go"]);
    assert!(p.diff.contains("+let x = NewName()"), "{}", p.diff);
}

#[test]
fn store_is_capped_and_evicts_the_oldest() {
    let e = setup_with(
        &[("a.txt", "a\nb\nc\n")],
        None,
        WorkflowConfig {
            max_patches: 2,
            ..WorkflowConfig::unrestricted()
        },
    );
    let ids: Vec<String> = ["B", "C", "D"]
        .iter()
        .map(|to| {
            e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", to)))
                .unwrap()
                .patch_id
        })
        .collect();
    assert_eq!(listing(&e.root().join(".lspedit/patches")).len(), 2);
    let stored: Vec<String> = listing(&e.root().join(".lspedit/patches"));
    assert!(
        stored.contains(&format!("{}.json", ids[2])),
        "the newest must stay: {stored:?}"
    );
    let evicted = ids
        .iter()
        .find(|id| !stored.contains(&format!("{id}.json")))
        .unwrap();
    assert_eq!(
        e.wf.apply_edit(evicted, &ApplyPlan::default()).reason,
        Some(Reason::PatchNotFound)
    );
}

/// Runs this test binary again, filtered to [`child_process_entry`], with `vars` set.
fn spawn_child(vars: &[(&str, &str)]) -> std::process::Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([
        "workflow::child_process_entry",
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ])
    .stdin(Stdio::null())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    for (k, v) in vars {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// Lines of a child's stdout, delivered over a channel so the parent can wait with a deadline.
fn lines_of(child: &mut std::process::Child) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

fn wait_for_line(rx: &mpsc::Receiver<String>, marker: &str, within: Duration) -> String {
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(line) if line.contains(marker) => return line,
            Ok(_) => continue,
            Err(e) => panic!("child never printed {marker:?}: {e}"),
        }
    }
}

/// Blocks the commit after the `n`-th write, telling the parent on stdout.
struct PauseAt(usize);
impl CommitObserver for PauseAt {
    #[allow(clippy::print_stdout, reason = "the parent process reads this line")]
    fn file_written(&self, path: &str, index: usize, total: usize) -> Result<(), String> {
        if index == self.0 {
            println!("COMMIT_PAUSED {index}/{total} {path}");
            std::io::stdout().flush().ok();
            // Wait to be killed; park can wake spuriously, hence the loop.
            loop {
                std::thread::park();
            }
        }
        Ok(())
    }
}

/// Child-process side of the cross-process tests; does nothing unless `LSPEDIT_WF_CHILD` is set
/// (when this binary runs normally it passes at once).
#[test]
#[allow(clippy::print_stdout, reason = "the parent process reads these lines")]
fn child_process_entry() {
    let Ok(mode) = std::env::var(CHILD_ENV) else {
        return;
    };
    let root = PathBuf::from(std::env::var("LSPEDIT_WF_ROOT").unwrap());
    let patch_id = std::env::var("LSPEDIT_WF_PATCH").unwrap();
    let (cfg, plan) = match mode.as_str() {
        "apply" => (WorkflowConfig::unrestricted(), ApplyPlan::default()),
        "crash" => (
            WorkflowConfig {
                commit_observer: Some(Arc::new(PauseAt(2))),
                ..WorkflowConfig::unrestricted()
            },
            ApplyPlan {
                atomicity: Atomicity::AllOrNothing,
                ..ApplyPlan::default()
            },
        ),
        other => panic!("unknown child mode {other}"),
    };
    let (wf, _rec) = open(&root, None, cfg);
    let out = wf.apply_edit(&patch_id, &plan);
    println!(
        "CHILD_DONE {} {}",
        out.status.as_str(),
        out.checkpoint_id.unwrap_or_default()
    );
}

#[test]
fn apply_from_a_second_process() {
    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let root = e.root().to_string_lossy().into_owned();
    let mut child = spawn_child(&[
        (CHILD_ENV, "apply"),
        ("LSPEDIT_WF_ROOT", &root),
        ("LSPEDIT_WF_PATCH", &p.patch_id),
    ]);
    let rx = lines_of(&mut child);
    let line = wait_for_line(&rx, "CHILD_DONE", Duration::from_secs(120));
    let status = child.wait().unwrap();
    assert!(status.success(), "child failed: {line}");
    assert!(line.contains("CHILD_DONE applied ckpt_"), "{line}");
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    // The child's events went to the shared log.
    let log = std::fs::read_to_string(e.root().join(".lspedit/events.jsonl")).unwrap();
    assert!(
        log.lines()
            .any(|l| l.contains("\"diff_applied\"") && l.contains(&p.patch_id)),
        "{log}"
    );
    // And this process sees the child's checkpoint: undo it here.
    let ckpt = line.split_whitespace().last().unwrap();
    e.wf.undo(ckpt).unwrap();
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

#[test]
fn crash_mid_commit_is_rolled_back_on_reopen() {
    let e = three_file_env(WorkflowConfig::unrestricted());
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    let before = e.snapshot();
    let root = e.root().to_string_lossy().into_owned();
    let mut child = spawn_child(&[
        (CHILD_ENV, "crash"),
        ("LSPEDIT_WF_ROOT", &root),
        ("LSPEDIT_WF_PATCH", &p.patch_id),
    ]);
    let rx = lines_of(&mut child);
    let line = wait_for_line(&rx, "COMMIT_PAUSED", Duration::from_secs(120));
    assert!(line.contains("COMMIT_PAUSED 2/3"), "{line}");
    // Mid-commit for real: two files new, one old, the journal present.
    let mid = e.snapshot();
    let new_count = ["a.txt", "b.txt", "c.txt"]
        .iter()
        .filter(|f| mid[**f] == b"a\nNEW\nc\n")
        .count();
    assert_eq!(new_count, 2);
    assert_eq!(listing(&e.root().join(".lspedit/journal")).len(), 1);
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());

    let (wf2, _rec) = open(e.root(), None, WorkflowConfig::unrestricted());
    let rec = wf2.recovered();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert_eq!(rec[0].patch_id, p.patch_id);
    assert_eq!(rec[0].restored.len(), 2);
    assert!(rec[0].conflicts.is_empty());
    for f in ["a.txt", "b.txt", "c.txt"] {
        let now = std::fs::read(e.root().join(f)).unwrap();
        assert!(
            now == before[f] || now == b"a\nNEW\nc\n",
            "{f} is neither old nor new"
        );
    }
    assert_eq!(e.snapshot(), before, "recovery rolls back");
    assert!(
        !e.root().join(".lspedit/journal").exists(),
        "journal not resolved"
    );
    assert!(listing(&e.root().join(".lspedit/checkpoints")).is_empty());
    // The patch is still applicable after recovery.
    let out = wf2.apply_edit(
        &p.patch_id,
        &ApplyPlan {
            atomicity: Atomicity::AllOrNothing,
            ..ApplyPlan::default()
        },
    );
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
}

/// Starts an all-or-nothing commit of the three-file patch in a child and kills it (-9) after
/// its second file is written.
fn crash_child_mid_commit(root: &Path, patch_id: &str) {
    let root = root.to_string_lossy().into_owned();
    let mut child = spawn_child(&[
        (CHILD_ENV, "crash"),
        ("LSPEDIT_WF_ROOT", &root),
        ("LSPEDIT_WF_PATCH", patch_id),
    ]);
    let rx = lines_of(&mut child);
    let line = wait_for_line(&rx, "COMMIT_PAUSED", Duration::from_secs(120));
    assert!(line.contains("COMMIT_PAUSED 2/3"), "{line}");
    child.kill().unwrap();
    child.wait().unwrap();
}

// A workflow opened before another process crashed recovers under the lock before it commits.
#[test]
fn crash_is_recovered_by_a_workflow_opened_before_it() {
    let e = three_file_env(WorkflowConfig::unrestricted());
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
            .unwrap();
    crash_child_mid_commit(e.root(), &p.patch_id);
    assert!(e.root().join(".lspedit/journal").exists());
    assert!(e.wf.recovered().is_empty());
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.wf.recovered().len(), 1);
    assert!(!e.root().join(".lspedit/journal").exists());
    for f in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(e.read(f), "a\nNEW\nc\n");
    }
}

#[test]
fn undo_restores_created_deleted_and_renamed_files() {
    let e = setup(&[
        ("keep.txt", "a\nb\nc\n"),
        ("gone.sh", "#!/bin/sh\necho hi\n"),
        ("old.txt", "x\n"),
    ]);
    std::fs::set_permissions(
        e.root().join("gone.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let before = e.snapshot();
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n a\n-b\n+B\n c\n*** Add File: made.txt\n+made\n*** Delete File: gone.sh\n*** Update File: old.txt\n*** Move to: moved.txt\n*** End Patch\n";
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let kinds: Vec<ChangeKind> = p.files.iter().map(|f| f.kind).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Modify,
            ChangeKind::Create,
            ChangeKind::Delete,
            ChangeKind::Rename
        ]
    );
    assert_eq!(p.base_shas["made.txt"], None);
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert!(!e.root().join("gone.sh").exists());
    assert_eq!(e.read("moved.txt"), "x\n");
    assert_eq!(e.read("made.txt"), "made\n");

    let u = e.wf.undo(out.checkpoint_id.as_deref().unwrap()).unwrap();
    assert_eq!(u.restored.len(), 5, "{:?}", u.restored);
    assert_eq!(e.snapshot(), before);
    let mode = std::fs::metadata(e.root().join("gone.sh"))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o755, "undo must restore the deleted file's mode");
    // The checkpoint is consumed; its redo checkpoint re-applies.
    let again =
        e.wf.undo(out.checkpoint_id.as_deref().unwrap())
            .unwrap_err();
    assert_eq!(again.reason, Reason::CheckpointNotFound);
    e.wf.undo(&u.redo_checkpoint_id).unwrap();
    assert_eq!(e.read("made.txt"), "made\n");
    assert!(!e.root().join("old.txt").exists());
}

#[test]
fn undo_is_refused_when_a_file_changed_since_the_apply() {
    let e = setup(&[("a.txt", "a\nb\nc\n"), ("b.txt", "a\nb\nc\n")]);
    let patch = replace_diff("a.txt", "b", "B") + &replace_diff("b.txt", "b", "B");
    let p = e.wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    let ckpt = out.checkpoint_id.unwrap();
    write(e.root(), "b.txt", b"edited by hand\n");
    let err = e.wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::StaleContext, "{err}");
    assert_eq!(err.path.as_deref(), Some("b.txt"));
    // Nothing restored, not even the unchanged file.
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    assert_eq!(e.read("b.txt"), "edited by hand\n");
    let names = e.names();
    assert_eq!(
        names[names.len() - 4..],
        [
            "tool_start",
            "tool_end",
            "failure_detected",
            "execution_paused"
        ]
    );
}

fn sh(script: &str) -> ValidationCommand {
    ValidationCommand::new("sh", &["-c", script])
}

#[test]
fn validation_passing_commits_failing_leaves_the_workspace_untouched() {
    let e = setup(&[
        ("a.txt", "a\nb\nc\n"),
        ("target/big.bin", "build output"),
        ("sub/x.txt", "x\n"),
    ]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let marker = e.root().join("sandbox-path");
    let before = e.snapshot();
    // The command sees the change in its copy; `target/` and `.lspedit/` are not copied.
    let script = format!(
        "pwd > '{}'; test ! -e target && test ! -e .lspedit && test -f sub/x.txt && grep -q '^B$' a.txt || {{ echo sandbox wrong; exit 9; }}; echo 'error[E0308]: mismatched types'; echo 'compile failed' >&2; exit 3",
        marker.display()
    );
    let plan = ApplyPlan {
        validation: Some(sh(&script)),
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains("exited with code 3"),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content
            .contains("error[E0308]: mismatched types\ncompile failed"),
        "{}",
        out.llm_content
    );
    let v = out.validation.unwrap();
    assert_eq!(
        (v.passed, v.exit_code, v.timed_out),
        (false, Some(3), false)
    );
    let mut after = e.snapshot();
    let sandbox = PathBuf::from(
        String::from_utf8(after.remove("sandbox-path").unwrap())
            .unwrap()
            .trim(),
    );
    assert_eq!(after, before, "the workspace changed");
    assert!(
        sandbox.starts_with(std::env::temp_dir()),
        "{}",
        sandbox.display()
    );
    assert!(
        !sandbox.exists(),
        "the sandbox {} was not removed",
        sandbox.display()
    );
    assert!(listing(&e.root().join(".lspedit/checkpoints")).is_empty());
    let names = e.names();
    assert_eq!(
        names[names.len() - 3..],
        ["failure_detected", "execution_paused", "tool_end"]
    );
    std::fs::remove_file(&marker).unwrap();

    let ok = ApplyPlan {
        validation: Some(ValidationCommand {
            copy: CopyScope::Affected,
            ..sh("grep -q '^B$' a.txt")
        }),
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &ok);
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(out.validation.unwrap().exit_code, Some(0));
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
}

/// Waits (with a deadline) for a process that is not our child to exit, through a pidfd.
fn wait_gone(pid: i32, within: Duration) -> bool {
    let Some(pid) = rustix::process::Pid::from_raw(pid) else {
        return true;
    };
    let Ok(fd) = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()) else {
        return true; // already reaped
    };
    let mut fds = [rustix::event::PollFd::new(
        &fd,
        rustix::event::PollFlags::IN,
    )];
    let timeout = rustix::event::Timespec::try_from(within).unwrap();
    rustix::event::poll(&mut fds, Some(&timeout)).is_ok_and(|n| n == 1)
}

#[test]
fn validation_timeout_kills_the_process_group() {
    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let pidfile = tempfile::NamedTempFile::new().unwrap();
    // A grandchild in the same group: killing only the shell would leave it running.
    let script = format!(
        "sleep 300 & echo $! > '{}'; echo started; wait",
        pidfile.path().display()
    );
    let plan = ApplyPlan {
        timeout_seconds: Some(1),
        validation: Some(sh(&script)),
        ..ApplyPlan::default()
    };
    let t = Instant::now();
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content
            .contains("timed out: the apply's timeout of 1 s ran out"),
        "{}",
        out.llm_content
    );
    assert!(out.llm_content.contains("started"), "{}", out.llm_content);
    assert!(out.validation.unwrap().timed_out);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    let pid: i32 = std::fs::read_to_string(pidfile.path())
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_gone(pid, Duration::from_secs(10)),
        "sleep {pid} survived the timeout"
    );
}

// ---------------------------------------------------------------------------------------------
// Seed contracts: failure details, the apply's timeout and rollback, language scope, step ids.

/// The `details` of the (single) `failure_detected` event, in its JSON form.
fn failure_details(e: &Env) -> serde_json::Value {
    let failures: Vec<serde_json::Value> = e
        .rec
        .events()
        .iter()
        .filter(|ev| ev.name() == "failure_detected")
        .map(|ev| ev.to_json(0)["details"].clone())
        .collect();
    assert_eq!(failures.len(), 1, "{failures:?}");
    failures[0].clone()
}

#[test]
fn scope_violations_name_the_limit_and_the_numbers() {
    // (max_files, max_changed_lines) -> (type, limit, actual); the patch changes 3 files and
    // 6 lines.
    for (max_files, max_lines, kind, limit, actual) in [
        (Some(2), None, "max_files", 2, 3),
        (Some(0), Some(1), "max_files", 0, 3),
        (None, Some(5), "max_changed_lines", 5, 6),
        (Some(3), Some(0), "max_changed_lines", 0, 6),
    ] {
        let e = three_file_env(WorkflowConfig::unrestricted());
        let before = e.snapshot();
        let p =
            e.wf.propose_edit(&ProposeRequest::patch(three_file_patch()))
                .unwrap();
        let plan = ApplyPlan {
            max_files,
            max_changed_lines: max_lines,
            ..ApplyPlan::default()
        };
        let out = e.wf.apply_edit(&p.patch_id, &plan);
        assert_eq!(out.reason, Some(Reason::ScopeViolation), "{kind}");
        assert_eq!(e.snapshot(), before);
        let d = failure_details(&e);
        assert_eq!(
            (
                d["type"].as_str(),
                d["limit"].as_u64(),
                d["actual"].as_u64()
            ),
            (Some(kind), Some(limit), Some(actual)),
            "{d}"
        );
        assert!(
            d["message"].as_str().unwrap().contains("scope_violation"),
            "{d}"
        );
        assert!(d.get("rollback").is_none(), "{d}");
    }
}

#[test]
fn the_timeout_bounds_the_whole_apply() {
    // Zero seconds have passed before the approver would be asked: refused, nothing asked,
    // nothing written.
    let asked = Arc::new(Mutex::new(0));
    let asked2 = asked.clone();
    let cfg = WorkflowConfig {
        ..WorkflowConfig::unrestricted().asking(Arc::new(lspedit_workflow::Callback(
            move |_: &ApprovalRequest<'_>| {
                *asked2.lock().unwrap() += 1;
                true
            },
        )))
    };
    let e = setup_with(&[("a.txt", "a\nb\nc\n")], None, cfg);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let plan = ApplyPlan {
        timeout_seconds: Some(0),
        ..ApplyPlan::default()
    };
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert_eq!(
        out.reason,
        Some(Reason::ScopeViolation),
        "{}",
        out.llm_content
    );
    assert!(
        out.llm_content.contains("timeout of 0 s"),
        "{}",
        out.llm_content
    );
    assert_eq!(*asked.lock().unwrap(), 0);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    let d = failure_details(&e);
    assert_eq!(d["type"], "timeout_ms");
    assert_eq!(d["limit"], 0);
}

#[test]
fn validation_after_the_commit_rolls_back_or_keeps_per_the_strategy() {
    use lspedit_workflow::{RollbackStrategy, ValidationStage};
    // (command, strategy) -> (applied, file content after, rollback detail)
    for (script, strategy, applied, content, rollback) in [
        (
            "exit 0",
            RollbackStrategy::RestoreCheckpoint,
            true,
            "a\nB\nc\n",
            None,
        ),
        (
            "exit 3",
            RollbackStrategy::RestoreCheckpoint,
            false,
            "a\nb\nc\n",
            Some("success"),
        ),
        (
            "exit 3",
            RollbackStrategy::KeepChanges,
            false,
            "a\nB\nc\n",
            None,
        ),
    ] {
        let e = setup(&[("a.txt", "a\nb\nc\n")]);
        let p =
            e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
                .unwrap();
        // The command sees the workspace as written.
        let check = format!("grep -q '^B$' a.txt && {script}");
        let plan = ApplyPlan {
            validation: Some(sh(&check)),
            validation_stage: ValidationStage::AfterCommit,
            rollback: strategy,
            ..ApplyPlan::default()
        };
        let out = e.wf.apply_edit(&p.patch_id, &plan);
        let label = format!("{script} {strategy:?}");
        assert_eq!(
            out.status == ApplyStatus::Applied,
            applied,
            "{label}: {}",
            out.llm_content
        );
        assert_eq!(e.read("a.txt"), content, "{label}");
        if applied {
            continue;
        }
        assert_eq!(out.reason, Some(Reason::ValidationFailed), "{label}");
        assert_eq!(out.rolled_back, rollback.is_some(), "{label}");
        let d = failure_details(&e);
        assert_eq!(d["rollback"].as_str(), rollback, "{label}: {d}");
        let checkpoints = listing(&e.root().join(".lspedit/checkpoints"));
        match strategy {
            RollbackStrategy::RestoreCheckpoint => {
                assert!(
                    out.llm_content.contains(
                        "Nothing was applied; the files already written were rolled back"
                    ),
                    "{}",
                    out.llm_content
                );
                assert!(checkpoints.is_empty(), "{label}: {checkpoints:?}");
                assert!(!e.names().contains(&"diff_applied"), "{:?}", e.names());
                assert!(out.checkpoint_id.is_none());
            }
            RollbackStrategy::KeepChanges => {
                assert!(
                    out.llm_content
                        .contains("The files written were kept (a.txt); undo checkpoint"),
                    "{}",
                    out.llm_content
                );
                assert!(out.files.iter().all(|f| f.applied), "{:?}", out.files);
                let names = e.names();
                assert_eq!(
                    names[names.len() - 5..],
                    [
                        "checkpoint_created",
                        "diff_applied",
                        "failure_detected",
                        "execution_paused",
                        "tool_end"
                    ]
                );
                // The kept change can still be undone from its checkpoint.
                let id = out.checkpoint_id.clone().unwrap();
                e.wf.undo(&id).unwrap();
                assert_eq!(e.read("a.txt"), "a\nb\nc\n");
            }
        }
    }
}

#[test]
fn a_validation_that_outlasts_the_timeout_after_the_commit_is_rolled_back() {
    use lspedit_workflow::ValidationStage;
    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let plan = ApplyPlan {
        timeout_seconds: Some(1),
        validation: Some(sh("exec sleep 300")),
        validation_stage: ValidationStage::AfterCommit,
        ..ApplyPlan::default()
    };
    let t = Instant::now();
    let out = e.wf.apply_edit(&p.patch_id, &plan);
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert_eq!(
        out.reason,
        Some(Reason::ValidationFailed),
        "{}",
        out.llm_content
    );
    assert!(out.rolled_back);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    let d = failure_details(&e);
    assert_eq!(
        (d["type"].as_str(), d["rollback"].as_str()),
        (Some("timeout_ms"), Some("success"))
    );
    assert_eq!(d["limit"], 1000);
}

#[test]
fn a_language_picks_files_by_extension_when_no_scope_is_given() {
    let files = [
        ("src/a.rs", "old_name();\n"),
        ("web/b.ts", "old_name();\n"),
        ("web/c.tsx", "old_name();\n"),
        ("tools/d.py", "old_name()\n"),
        ("README.md", "old_name\n"),
    ];
    // (language, scope) -> files proposed
    for (language, scope, want) in [
        ("rust", &[][..], &["src/a.rs"][..]),
        ("typescript", &[], &["web/b.ts", "web/c.tsx"]),
        ("Python", &[], &["tools/d.py"]),
        // Issue 24: with a scope too, only the scope's files of the language change.
        ("rust", &["**"], &["src/a.rs"]),
        ("typescript", &["web/*.tsx", "src/**"], &["web/c.tsx"]),
    ] {
        let e = setup(&files);
        let req = ProposeRequest::regex("old_name", "new_name", scope).with_language(language);
        let p = e.wf.propose_edit(&req).unwrap();
        assert_eq!(p.affected_files(), want, "{language} {scope:?}");
    }
    // A scope with no file of the language changes nothing.
    let e = setup(&files);
    let req = ProposeRequest::regex("old_name", "new_name", &["README.md"]).with_language("rust");
    let err = e.wf.propose_edit(&req).unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff, "{err}");
    let e = setup(&files);
    let err = e
        .wf
        .propose_edit(&ProposeRequest::regex("old_name", "new_name", &[]).with_language("cobol"))
        .unwrap_err();
    assert!(
        err.message.contains("`cobol`") && err.message.contains("rust"),
        "{err}"
    );
    assert!(listing(&e.root().join(".lspedit/patches")).is_empty());
}

/// Issue 24: a proposal limited to a language refuses patch text that changes another
/// language's file, naming it, and stores nothing.
#[test]
fn a_language_refuses_a_patch_touching_other_files() {
    let e = setup(&[
        ("backend/api.go", "a\nvar x = 1\nc\n"),
        ("frontend/api.ts", "a\nexport const x = 1;\nc\n"),
    ]);
    let patch = replace_diff("backend/api.go", "var x = 1", "var x = 2")
        + &replace_diff(
            "frontend/api.ts",
            "export const x = 1;",
            "export const x = 2;",
        );
    let err =
        e.wf.propose_edit(&ProposeRequest::patch(&patch).with_language("go"))
            .unwrap_err();
    assert_eq!(err.reason, Reason::ScopeViolation, "{err}");
    assert_eq!(err.path.as_deref(), Some("frontend/api.ts"), "{err}");
    assert!(err.message.contains("not a go file"), "{err}");
    assert!(listing(&e.root().join(".lspedit/patches")).is_empty());
    let ok =
        e.wf.propose_edit(
            &ProposeRequest::patch(replace_diff("backend/api.go", "var x = 1", "var x = 2"))
                .with_language("go"),
        )
        .unwrap();
    assert_eq!(ok.affected_files(), ["backend/api.go"]);
}

#[test]
fn step_ids_name_the_evidence_the_events_and_the_context_record() {
    use lspedit_workflow::{ExcerptCandidates, ExcerptLimits, select_excerpts};
    let e = setup(&[("a.txt", "a\nb\nc\n"), ("ctx.txt", "context\n")]);
    let ws = Workspace::open(e.root()).unwrap();
    let excerpts = select_excerpts(
        &ws,
        &ExcerptCandidates {
            retrieval_hits: vec!["ctx.txt".into()],
            ..ExcerptCandidates::default()
        },
        &[],
        &ExcerptLimits::default(),
    );
    let req = ProposeRequest::patch(replace_diff("a.txt", "b", "B"))
        .with_step(Some("task-7"), "step-2")
        .with_context(excerpts);
    let p = e.wf.propose_edit(&req).unwrap();
    let shape = regex::Regex::new(r"^diff_task-7_step-2_\d{13}$").unwrap();
    assert!(shape.is_match(&p.evidence_id), "{}", p.evidence_id);
    let out = e.wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(out.evidence_id.as_deref(), Some(p.evidence_id.as_str()));
    let ev = listing(&e.root().join(".lspedit/evidence"));
    for suffix in [".diff", ".manifest.json", ".apply.json"] {
        let name = format!("{}{suffix}", p.evidence_id);
        assert!(ev.contains(&name), "{name} not in {ev:?}");
    }
    let ms = p.evidence_id.rsplit('_').next().unwrap();
    let context = json(
        &e.root()
            .join(format!(".lspedit/evidence/context_step-2_{ms}.json")),
    );
    assert_eq!(context["files"][0]["path"], "ctx.txt");
    assert!(!ev.iter().any(|n| n.starts_with("patch_")), "{ev:?}");
    let events = e.rec.events();
    assert!(events.iter().any(|ev| matches!(ev,
        Event::StepStarted { step_id, diff_id } if step_id == "step-2" && *diff_id == p.patch_id)));
    assert!(events.iter().any(|ev| matches!(ev,
        Event::DiffApplied { evidence_id, .. } if *evidence_id == p.evidence_id)));

    // Without ids: named by the patch id, no context record.
    let p2 =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "B", "b")))
            .unwrap();
    assert_eq!(p2.evidence_id, p2.patch_id);

    // Ids that could leave the evidence directory are refused before anything is stored.
    for bad in ["../x", "a_b", "", "x/y"] {
        let err =
            e.wf.propose_edit(
                &ProposeRequest::patch(replace_diff("a.txt", "B", "b")).with_step(Some("t"), bad),
            )
            .unwrap_err();
        assert_eq!(err.reason, Reason::InvalidDiffFormat, "{bad}");
    }
}

// `apply_edit_with` asks the approver given for this apply (a CLI's terminal prompt), not the
// configured one.
/// What the CLI and the MCP server check before anything is stored, and the context they
/// have the selector build: named files in order, focused files after them, focus lines first.
#[test]
fn front_ends_check_ids_and_name_the_context_the_selector_builds() {
    use lspedit_workflow::{ContextError, ContextRequest, ExcerptFocus, IdError, StepIdArg};
    let req = |task: Option<&str>, step: Option<&str>| ProposeRequest {
        task_id: task.map(str::to_string),
        step_id: step.map(str::to_string),
        ..ProposeRequest::patch("")
    };
    assert_eq!(req(Some("task-7"), Some("step-2")).check_ids(), Ok(()));
    assert_eq!(req(None, Some("step-2")).check_ids(), Ok(()));
    let long = "x".repeat(65);
    for (task, step, arg) in [
        (Some("a_b"), Some("s"), StepIdArg::Task),
        (Some("t"), Some("../x"), StepIdArg::Step),
        (None, Some(""), StepIdArg::Step),
        (None, Some(long.as_str()), StepIdArg::Step),
    ] {
        match req(task, step).check_ids() {
            Err(IdError::Invalid { arg: a, .. }) => assert_eq!(a, arg, "{task:?} {step:?}"),
            other => panic!("{task:?} {step:?}: {other:?}"),
        }
    }
    assert_eq!(
        req(Some("t"), None).check_ids(),
        Err(IdError::TaskWithoutStep)
    );

    let e = setup(&[
        ("a.rs", "use x;\nfn one() {}\nfn two() {}\n"),
        ("b.txt", "1\n2\n3\n4\n5\n"),
    ]);
    let ws = Workspace::open(e.root()).unwrap();
    let focus = |path: &str, start_line, end_line| ExcerptFocus {
        path: path.into(),
        start_line,
        end_line,
    };
    let context = ContextRequest {
        files: vec!["a.rs".into(), "gone.rs".into()],
        keywords: vec!["two".into()],
        focus: vec![focus("./b.txt", 4, 9)],
    };
    assert_eq!(context.check(), Ok(()));
    let set = context.select(&ws);
    let paths: Vec<&str> = set.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.rs", "b.txt"]);
    assert_eq!(set.files[1].ranges, [(4, 5)]);
    assert_eq!(set.skipped[0].path, "gone.rs");
    assert!(matches!(
        ContextRequest {
            focus: vec![focus("b.txt", 3, 2)],
            ..ContextRequest::default()
        }
        .check(),
        Err(ContextError::BadFocus { .. })
    ));
    assert_eq!(
        ContextRequest {
            keywords: vec!["two".into()],
            ..ContextRequest::default()
        }
        .check(),
        Err(ContextError::NoFiles)
    );
}

#[test]
fn apply_edit_with_asks_the_given_approver() {
    let e = setup(&[("a.txt", "a\nb\nc\n")]);
    let p =
        e.wf.propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
    let out =
        e.wf.apply_edit_with(&p.patch_id, &ApplyPlan::default(), &lspedit_workflow::Deny);
    assert_eq!(out.status, ApplyStatus::Rejected);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    let seen = Arc::new(Mutex::new(String::new()));
    let seen2 = seen.clone();
    let ask = lspedit_workflow::Callback(move |r: &ApprovalRequest<'_>| {
        *seen2.lock().unwrap() = r.diff.to_string();
        true
    });
    let out =
        e.wf.apply_edit_with(&p.patch_id, &ApplyPlan::default(), &ask);
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert!(seen.lock().unwrap().contains("+B"));
}

// Regression: `old mode`/`new mode` lines were silently dropped. The reviewed workflow refuses
// them (a mode is not in the diff a person approves); `apply_patch` applies them.
#[test]
fn a_mode_change_is_refused_as_unsafe_by_propose() {
    let e = setup(&[("run.sh", "echo a\n")]);
    let err =
        e.wf.propose_edit(&ProposeRequest::patch(
            "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n",
        ))
        .unwrap_err();
    assert_eq!(err.reason, Reason::UnsafeDiff, "{err}");
    assert!(err.message.contains("file mode"), "{err}");
    assert_eq!(e.read("run.sh"), "echo a\n");
}
