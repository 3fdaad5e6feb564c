//! The workflow benchmark's tree and run, over lspedit-tools' public API: generate a tree of N source files, then time a
//! regex `propose_edit` over all of them and the `apply_edit` of the result (BENCHMARKS.md,
//! "propose over 1,000 files and apply").

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::{ApplyPlan, Atomicity, ProposeRequest, Workflow, WorkflowConfig};
use lspedit_write::{Reason, ToolError, Workspace};

/// The identifier the generated files use and the benchmark renames.
pub const OLD_NAME: &str = "old_name";
pub const NEW_NAME: &str = "new_name";

/// Timings of one propose + apply.
#[derive(Debug, Clone)]
pub struct ProposeApplyTimings {
    pub files_scanned: usize,
    pub files_changed: usize,
    pub total_changes: usize,
    pub propose: Duration,
    pub apply: Duration,
    /// Size of the stored patch on disk.
    pub stored_patch_bytes: u64,
}

/// Write `files` Rust files of `lines` lines each under `root/src/m<k>/` (100 per directory);
/// every `match_every`-th file (1 = all) uses [`OLD_NAME`] twice, the others never.
pub fn generate_tree(
    root: &Path,
    files: usize,
    lines: usize,
    match_every: usize,
) -> io::Result<()> {
    for i in 0..files {
        let dir = root.join("src").join(format!("m{}", i / 100));
        fs::create_dir_all(&dir)?;
        let matching = match_every > 0 && i % match_every == 0;
        let mut text = String::with_capacity(lines * 40);
        for l in 0..lines {
            if matching && (l == lines / 3 || l == 2 * lines / 3) {
                text.push_str(&format!("    let v{l} = {OLD_NAME}({l}, {i});\n"));
            } else {
                text.push_str(&format!("    let v{l} = compute({l}, {i});\n"));
            }
        }
        fs::write(dir.join(format!("f{i}.rs")), text)?;
    }
    Ok(())
}

/// Propose `\bold_name\b` → `new_name` over `src/**/*.rs` of `root` and apply it with
/// `atomicity`, without diagnostics; returns the timings.
pub fn propose_and_apply(
    root: &Path,
    atomicity: Atomicity,
) -> Result<ProposeApplyTimings, ToolError> {
    let tools = Arc::new(Tools::new(
        Workspace::open(root)?,
        None,
        ToolsConfig::default(),
    ));
    let wf = Workflow::open(tools, WorkflowConfig::unrestricted())?;
    let t0 = Instant::now();
    let proposal = wf.propose_edit(&ProposeRequest::regex(
        format!(r"\b{OLD_NAME}\b"),
        NEW_NAME,
        &["src/**/*.rs"],
    ))?;
    let propose = t0.elapsed();
    let stored_patch_bytes = fs::metadata(
        root.join(".lspedit/patches")
            .join(format!("{}.json", proposal.patch_id)),
    )
    .map_or(0, |m| m.len());
    let t1 = Instant::now();
    let outcome = wf.apply_edit(
        &proposal.patch_id,
        &ApplyPlan {
            atomicity,
            ..ApplyPlan::default()
        },
    );
    let apply = t1.elapsed();
    if outcome.is_error {
        return Err(ToolError::new(
            outcome.reason.unwrap_or(Reason::IoError),
            None,
            outcome.llm_content,
        ));
    }
    Ok(ProposeApplyTimings {
        files_scanned: proposal.stats.files_scanned,
        files_changed: proposal.stats.files_matched,
        total_changes: proposal.stats.total_changes,
        propose,
        apply,
        stored_patch_bytes,
    })
}

#[cfg(test)]
mod tests {
    // Test code: a failed unwrap is a failed test.
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn bench_propose_and_apply_renames_every_use_in_the_matching_files() {
        let dir = tempfile::tempdir().unwrap();
        // 7 files, every 3rd one (0, 3, 6) with two uses of the old name.
        generate_tree(dir.path(), 7, 12, 3).unwrap();
        let t = propose_and_apply(dir.path(), Atomicity::AllOrNothing).unwrap();
        assert_eq!(t.files_scanned, 7);
        assert_eq!(t.files_changed, 3);
        assert_eq!(t.total_changes, 6);
        assert!(t.stored_patch_bytes > 0);
        for i in 0..7 {
            let text = std::fs::read_to_string(dir.path().join(format!("src/m0/f{i}.rs"))).unwrap();
            assert!(!text.contains(OLD_NAME), "f{i}: {text}");
            let expected = if i % 3 == 0 { 2 } else { 0 };
            assert_eq!(text.matches(NEW_NAME).count(), expected, "f{i}");
        }
        // Nothing left to rename: the second proposal matches nothing and is refused.
        let err = propose_and_apply(dir.path(), Atomicity::AllOrNothing).unwrap_err();
        assert!(!err.message.is_empty(), "{err:?}");
    }
}
