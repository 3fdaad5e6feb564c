//! A truncation-safe edit step driven by a scripted model, then proposed and applied through
//! the workflow, on a throwaway workspace.
//!
//! `cargo run --example executor` shows how a framework plugs its model in: implement
//! [`EditModel`] (one call: an [`EditRequest`] in, the model's text and stop reason out), give
//! it to an [`EditExecutor`] with an [`EventSink`], and act on the [`EditOutcome`]. The
//! scripted model here runs out of output tokens on its first reply for `src/b.rs`, as a real
//! model does on a long file; the executor notices (`truncation_detected`), uses nothing of that
//! reply and asks again with the reason. The completed step's combined diff then goes through
//! `propose_edit` (with the task and step ids, and the excerpts the model was shown, recorded as
//! evidence) and `apply_edit`.

#![allow(clippy::print_stdout, reason = "an example shows its results")]

use std::sync::{Arc, Mutex};

use lspedit::tools::events::{Event, EventSink};
use lspedit::tools::{Tools, ToolsConfig};
use lspedit::truncation::{
    EditExecutor, EditModel, EditOutcome, EditRequest, EditTask, ModelError, ModelReply,
};
use lspedit::workflow::{
    ApplyPlan, ApprovalRequest, Callback, ExcerptCandidates, ExcerptLimits, ProposeRequest,
    Workflow, WorkflowConfig, select_excerpts,
};
use lspedit::write::Workspace;
use serde_json::json;

/// Stands in for a model API: renames `old_name` to `new_name` in every file it is sent, and
/// cuts its first reply for `src/b.rs` in half with `stop_reason: "max_tokens"`.
struct ScriptedModel {
    calls: Mutex<Vec<String>>,
}

impl EditModel for ScriptedModel {
    fn generate(&self, request: &EditRequest) -> Result<ModelReply, ModelError> {
        // A real model gets `request.prompt()`: the instruction, each file with its base_sha
        // and anchored lines, the context, the previous refusal, and the reply format.
        let mut calls = self.calls.lock().map_err(|_| ModelError {
            message: "the script's lock is poisoned".into(),
        })?;
        let mut diff = String::new();
        let mut touched = Vec::new();
        for f in &request.files {
            calls.push(f.path.clone());
            let old: String = f
                .view
                .lines()
                .filter_map(|l| l.split_once('|').map(|(_, text)| format!("{text}\n")))
                .collect();
            let new = old.replace("old_name", "new_name");
            diff.push_str(&lspedit::engine::unified_diff(
                &old,
                &new,
                Some(&f.path),
                Some(&f.path),
                &lspedit::engine::DiffOptions::default(),
            ));
            touched.push(json!({"path": f.path, "reason": "rename", "base_sha": f.base_sha}));
        }
        let content = json!({
            "unified_diff": diff,
            "touched_files": touched,
            "confidence": "high",
            "notes": "",
            "validation_status": "unchecked",
            "complete": true,
        })
        .to_string();
        let first_b = request.files.iter().any(|f| f.path == "src/b.rs")
            && calls.iter().filter(|p| *p == "src/b.rs").count() == 1;
        if first_b {
            return Ok(ModelReply {
                content: content[..content.len() / 2].to_string(),
                stop_reason: Some("max_tokens".into()),
            });
        }
        Ok(ModelReply {
            content,
            stop_reason: Some("end_turn".into()),
        })
    }
}

/// Prints each event as its JSON line, as `.lspedit/events.jsonl` holds them.
struct PrintSink;

impl EventSink for PrintSink {
    fn emit(&self, event: &Event) {
        println!(
            "event: {}",
            event.to_json(lspedit::tools::events::unix_ms())
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("src"))?;
    std::fs::write(dir.path().join("src/a.rs"), "pub fn a() { old_name(); }\n")?;
    std::fs::write(
        dir.path().join("src/b.rs"),
        "pub fn b() {\n    old_name();\n    old_name();\n}\n",
    )?;
    std::fs::write(dir.path().join("src/lib.rs"), "pub fn old_name() {}\n")?;
    let ws = Workspace::open(dir.path())?;

    // The model's read-only context: deterministic excerpts with anchors and base_sha.
    let excerpts = select_excerpts(
        &ws,
        &ExcerptCandidates {
            retrieval_hits: vec!["src/lib.rs".into()],
            ..ExcerptCandidates::default()
        },
        &["old_name".to_string()],
        &ExcerptLimits::default(),
    );
    let task = EditTask {
        // No targets: the preflight takes the files the instruction names.
        instruction: "Rename old_name to new_name in src/a.rs and src/b.rs.".into(),
        targets: Vec::new(),
        context: excerpts.render(),
    };
    let model = ScriptedModel {
        calls: Mutex::new(Vec::new()),
    };
    let outcome = EditExecutor::new(&ws, &model, Arc::new(PrintSink)).run(&task)?;
    println!("\nresult: {}\n", outcome.to_json());
    let EditOutcome::Completed { combined_diff, .. } = outcome else {
        println!("the step paused; nothing is applied");
        return Ok(());
    };

    // Propose the step's diff for review and apply it; nothing was written before this.
    let tools = Arc::new(Tools::new(ws, None, ToolsConfig::default()));
    // The library's defaults (the seeds' limits), with the person's approval: here, an approver
    // that says what it approves.
    let approver = Callback(|r: &ApprovalRequest<'_>| {
        println!("approving {} ({})\n", r.patch_id, r.files.join(", "));
        true
    });
    let wf = Workflow::open(
        tools,
        WorkflowConfig::default().with_approver(Arc::new(approver)),
    )?;
    let proposal = wf.propose_edit(
        &ProposeRequest::patch(combined_diff)
            .with_step(Some("rename-task"), "step-1")
            .with_context(excerpts),
    )?;
    println!("{}\n", proposal.llm_content());
    let applied = wf.apply_edit(&proposal.patch_id, &ApplyPlan::mission_edit());
    println!("{}\n", applied.llm_content);
    let mut evidence: Vec<String> = std::fs::read_dir(dir.path().join(".lspedit/evidence"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    evidence.sort();
    println!("evidence: {}", evidence.join(", "));
    Ok(())
}
