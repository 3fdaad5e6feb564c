//! Propose → approve → apply → undo, in-process, on a throwaway workspace.
//!
//! `cargo run --example workflow` proposes a rename by regex over `backend/**`, prints the diff
//! (nothing is written yet), applies it under the library's defaults (the seeds' limits: at most
//! 3 files and 100 changed lines, no create, delete or rename, all or nothing; an approver
//! asked, here one that prints what it is asked and approves), then undoes it from the
//! checkpoint.

#![allow(clippy::print_stdout, reason = "an example shows its results")]

use std::sync::Arc;

use lspedit::tools::{Tools, ToolsConfig};
use lspedit::workflow::{
    ApplyPlan, ApprovalRequest, Callback, ProposeRequest, Workflow, WorkflowConfig,
};
use lspedit::write::{ToolError, Workspace};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    std::fs::create_dir_all(dir.path().join("backend"))?;
    std::fs::create_dir_all(dir.path().join("frontend"))?;
    std::fs::write(dir.path().join("backend/a.go"), "func a() { old_name() }\n")?;
    std::fs::write(dir.path().join("frontend/b.ts"), "old_name();\n")?;

    let tools = Arc::new(Tools::new(
        Workspace::open(dir.path())?,
        None,
        ToolsConfig::default(),
    ));
    // Without an approver the defaults apply nothing (`approval_required`); a real one asks the
    // person.
    let approver = Callback(|r: &ApprovalRequest<'_>| {
        println!("approving {} ({})\n", r.patch_id, r.files.join(", "));
        true
    });
    let wf = Workflow::open(
        tools,
        WorkflowConfig::default().with_approver(Arc::new(approver)),
    )?;
    let p = wf.propose_edit(&ProposeRequest::regex(
        r"\bold_name\b",
        "new_name",
        &["backend/**/*.go"],
    ))?;
    println!("{}\n", p.llm_content());

    let done = wf.apply_edit(&p.patch_id, &ApplyPlan::mission_edit());
    println!("{}\n", done.llm_content);
    let checkpoint = done.checkpoint_id.ok_or_else(|| {
        ToolError::new(
            lspedit::write::Reason::IoError,
            None,
            "the apply made no checkpoint",
        )
    })?;
    println!("{}", wf.undo(&checkpoint)?.llm_content);
    println!(
        "backend/a.go is back to: {}",
        std::fs::read_to_string(dir.path().join("backend/a.go"))?.trim_end()
    );
    Ok(())
}
