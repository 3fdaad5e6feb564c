//! Applying a patch to the workspace: parse, plan every file in memory, then commit each file
//! atomically. A file whose section fails is left untouched; the other files still apply
//! (per-call granularity, DESIGN.md §4), and the report names every file's outcome.

use std::collections::{BTreeSet, HashMap};

use lspedit_engine::{
    ApplyOptions, Classification, FileAction, FileChange, FileOutcome, Patch, apply_file_patch,
    classify_patch_operations, parse_patch,
};

use crate::error::{Reason, ToolError};
use crate::workspace::Workspace;

/// Options of [`apply_patch`].
#[derive(Debug, Clone, Default)]
pub struct ApplyPatchOptions {
    pub engine: ApplyOptions,
    /// Plan and report, but write nothing.
    pub dry_run: bool,
}

/// The outcome of one file section.
#[derive(Debug, Clone)]
pub enum FileStatus {
    Applied(FileOutcome),
    Failed(ToolError),
}

/// One line of the per-file report.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The path the section names (its source path for renames).
    pub path: String,
    pub status: FileStatus,
}

impl FileReport {
    pub fn is_applied(&self) -> bool {
        matches!(self.status, FileStatus::Applied(_))
    }

    /// `M path (2 hunks, moved +3)`, `A path (+4)`, `D path`, `R old -> new`,
    /// `FAILED path: hunk_mismatch: …`.
    pub fn summary_line(&self) -> String {
        match &self.status {
            FileStatus::Failed(e) => format!("FAILED {}: {}: {}", self.path, e.reason, e.message),
            FileStatus::Applied(o) => {
                let mut detail = Vec::new();
                if !o.hunks.is_empty() {
                    let n = o.hunks.len();
                    detail.push(format!("{n} hunk{}", if n == 1 { "" } else { "s" }));
                }
                let moved: BTreeSet<isize> = o
                    .hunks
                    .iter()
                    .map(|h| h.offset)
                    .filter(|&d| d != 0)
                    .collect();
                if !moved.is_empty() {
                    let list: Vec<String> = moved.iter().map(|d| format!("{d:+}")).collect();
                    detail.push(format!("moved {}", list.join(", ")));
                }
                let (letter, name) = match &o.action {
                    FileAction::Added => {
                        detail.push(format!("+{}", o.added));
                        ("A", o.path.clone())
                    }
                    FileAction::Modified => ("M", o.path.clone()),
                    FileAction::Deleted => ("D", o.path.clone()),
                    FileAction::Renamed { from } => ("R", format!("{from} -> {}", o.path)),
                };
                if detail.is_empty() {
                    format!("{letter} {name}")
                } else {
                    format!("{letter} {name} ({})", detail.join(", "))
                }
            }
        }
    }
}

/// The report of a whole call.
#[derive(Debug, Clone)]
pub struct PatchReport {
    pub files: Vec<FileReport>,
    pub classification: Classification,
    /// The bytes each path the patch read had before it (`None`: it did not exist), as read
    /// once for the plan: callers show diffs from them instead of reading the files again.
    pub before: HashMap<String, Option<Vec<u8>>>,
}

impl PatchReport {
    pub fn all_applied(&self) -> bool {
        self.files.iter().all(FileReport::is_applied)
    }

    /// The summary lines, one per file, each ending with a newline.
    pub fn summary(&self) -> String {
        self.files.iter().map(|f| f.summary_line() + "\n").collect()
    }
}

struct Planned {
    report_path: String,
    /// Paths this section reads or writes (for per-file atomicity across sections).
    touches: Vec<String>,
    result: Result<FileOutcome, ToolError>,
}

/// Parse `text` and apply it. `Err` only when the patch as a whole cannot be read (then nothing
/// was touched); per-file refusals are in the report.
pub fn apply_patch(
    ws: &Workspace,
    text: &str,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    let patch = parse_patch(text).map_err(|e| ToolError::from_engine(None, e))?;
    apply_parsed(ws, &patch, opts)
}

/// Apply an already parsed patch.
pub fn apply_parsed(
    ws: &Workspace,
    patch: &Patch,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    // Each path as first read (`None` = does not exist), and its content as the plan proceeds
    // when an earlier section changed it.
    let mut before: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    let mut state: HashMap<String, Option<Vec<u8>>> = HashMap::new();
    let touches_of = |fp: &lspedit_engine::FilePatch| -> Vec<String> {
        let src = fp.path().to_string();
        match fp.new_path() {
            Some(n) if n != src => vec![src, n.to_string()],
            _ => vec![src],
        }
    };
    // How many sections not yet planned read each path: a section's result is kept for the
    // sections after it only when one of them reads it (a copy of the file otherwise).
    let mut pending: HashMap<String, usize> = HashMap::new();
    for fp in &patch.files {
        for t in touches_of(fp) {
            *pending.entry(t).or_default() += 1;
        }
    }
    let mut planned: Vec<Planned> = Vec::new();
    for fp in &patch.files {
        let src = fp.path().to_string();
        let touches = touches_of(fp);
        for t in &touches {
            if let Some(n) = pending.get_mut(t) {
                *n -= 1;
            }
        }
        let read_later = |path: &str| pending.get(path).is_some_and(|&n| n > 0);
        let result = plan_one(
            ws,
            fp,
            &src,
            &mut before,
            &mut state,
            &read_later,
            &opts.engine,
        );
        planned.push(Planned {
            report_path: src,
            touches,
            result,
        });
    }
    // A section found cut off means the patch text is: nothing of it is applied, whatever
    // other sections planned (the engine can only tell a cut from a mismatch when the cut
    // section is tried, so this is decided here, before anything is written).
    if let Some(cut) = planned.iter().find_map(|p| match &p.result {
        Err(e) if e.reason == Reason::TruncatedInput => Some(e.clone()),
        _ => None,
    }) {
        return Err(cut);
    }
    // Per-file atomicity: a failed section poisons every other section touching its paths.
    let failed: BTreeSet<String> = planned
        .iter()
        .filter(|p| p.result.is_err())
        .flat_map(|p| p.touches.iter().cloned())
        .collect();
    let mut files = Vec::new();
    for p in planned {
        let result = match p.result {
            Ok(outcome) if p.touches.iter().any(|t| failed.contains(t)) => Err(ToolError::new(
                Reason::HunkMismatch,
                Some(&outcome.path),
                "another section of this patch for the same file failed, so this file was left untouched",
            )),
            Ok(outcome) if opts.dry_run => Ok(outcome),
            Ok(outcome) => commit(ws, &p.report_path, &outcome).map(|()| outcome),
            Err(e) => Err(e),
        };
        let status = match result {
            Ok(o) => FileStatus::Applied(o),
            Err(e) => FileStatus::Failed(e),
        };
        files.push(FileReport {
            path: p.report_path,
            status,
        });
    }
    Ok(PatchReport {
        files,
        classification: classify_patch_operations(patch),
        before,
    })
}

fn plan_one(
    ws: &Workspace,
    fp: &lspedit_engine::FilePatch,
    src: &str,
    before: &mut HashMap<String, Option<Vec<u8>>>,
    state: &mut HashMap<String, Option<Vec<u8>>>,
    read_later: &dyn Fn(&str) -> bool,
    opts: &ApplyOptions,
) -> Result<FileOutcome, ToolError> {
    // Read each path once; its content is then borrowed from `before` or `state`.
    let mut load = |path: &str| -> Result<(), ToolError> {
        if !state.contains_key(path) && !before.contains_key(path) {
            before.insert(path.to_string(), ws.read(path)?);
        }
        Ok(())
    };
    // Protected paths are refused before anything is planned, so no section of a patch can
    // half-happen (a rename out of `.git/` writing its destination, then failing the delete).
    // A deletion acts on the entry itself (a symlink, never its target).
    match &fp.change {
        FileChange::Delete { .. } => ws.resolve_entry(src).map(drop)?,
        _ => ws.check_writable(src).map(drop)?,
    }
    load(src)?;
    if let FileChange::Update {
        move_to: Some(dest),
        ..
    } = &fp.change
    {
        ws.check_writable(dest)?;
        load(dest)?;
        if current(before, state, dest).is_some() {
            return Err(ToolError::new(
                Reason::FileExists,
                Some(dest),
                format!("cannot move `{src}` to `{dest}`: the destination exists"),
            ));
        }
    }
    let outcome = apply_file_patch(fp, current(before, state, src), opts)
        .map_err(|e| ToolError::from_engine(Some(src), e))?;
    match &outcome.action {
        FileAction::Deleted => {
            state.insert(src.to_string(), None);
        }
        FileAction::Renamed { from } => {
            state.insert(from.clone(), None);
            if read_later(&outcome.path) {
                state.insert(outcome.path.clone(), outcome.new_content.clone());
            }
        }
        FileAction::Added | FileAction::Modified => {
            if read_later(&outcome.path) {
                state.insert(outcome.path.clone(), outcome.new_content.clone());
            }
        }
    }
    Ok(outcome)
}

/// A loaded path's content as the plan stands: an earlier section's result, else as read.
fn current<'a>(
    before: &'a HashMap<String, Option<Vec<u8>>>,
    state: &'a HashMap<String, Option<Vec<u8>>>,
    path: &str,
) -> Option<&'a [u8]> {
    state
        .get(path)
        .or_else(|| before.get(path))
        .and_then(|c| c.as_deref())
}

fn commit(ws: &Workspace, src: &str, outcome: &FileOutcome) -> Result<(), ToolError> {
    match (&outcome.action, &outcome.new_content) {
        (FileAction::Deleted, _) => ws.remove(src),
        (FileAction::Renamed { from }, Some(content)) => {
            ws.write_atomic(&outcome.path, content)?;
            ws.remove(from)
        }
        (_, Some(content)) if outcome.content_changed || outcome.action == FileAction::Added => {
            ws.write_atomic(&outcome.path, content)
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    /// Sections are planned in order: a later section for the same file patches what the
    /// earlier one made of it, and a later section for another file does not see it; `before`
    /// keeps the bytes as first read.
    #[test]
    fn later_sections_see_earlier_results() {
        let (dir, ws) = workspace(&[("a.txt", "one\ntwo\nthree\n"), ("b.txt", "b\n")]);
        let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\
                     --- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\
                     --- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n";
        let report = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap();
        assert!(report.all_applied(), "{}", report.summary());
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(read("a.txt"), "one\n2\nthree\n");
        assert_eq!(read("b.txt"), "B\n");
        assert_eq!(
            report.before["a.txt"].as_deref(),
            Some(&b"one\ntwo\nthree\n"[..])
        );
    }

    /// A file renamed by one section is patched at its new path by a later one, and its old
    /// path no longer exists for the plan.
    #[test]
    fn a_renamed_file_is_patched_at_its_new_path() {
        let (dir, ws) = workspace(&[("old.txt", "x\ny\n")]);
        let patch = "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n\
                     --- a/new.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n";
        let report = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap();
        assert!(report.all_applied(), "{}", report.summary());
        assert!(!dir.path().join("old.txt").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
            "x\nY\n"
        );
    }
}
