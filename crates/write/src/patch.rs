//! Applying a patch to the workspace: parse, plan every file in memory, then commit each file
//! atomically. A file whose section fails is left untouched; the other files still apply
//! (per-call granularity, docs/design.md §4), and the report names every file's outcome.

use std::collections::{BTreeSet, HashMap};

use lspedit_engine::{
    ApplyOptions, Classification, FileAction, FileChange, FileOutcome, Patch,
    classify_patch_operations, parse_patch,
};

use crate::commit::{CommitUnit, OnChanged, Policy, Staging, UnitOutcome, WriteGate, commit};
use crate::error::{Reason, ToolError};
use crate::plan::{Planned, Resolved, Section, plan_sections};
use crate::workspace::Workspace;

/// Options of [`apply_patch`].
#[derive(Debug, Clone, Default)]
pub struct ApplyPatchOptions {
    pub engine: ApplyOptions,
    /// Plan and report, but write nothing.
    pub dry_run: bool,
    pub limits: PatchLimits,
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

/// Bounds on the patch text a call accepts, so hostile input means a clear refusal
/// (`too_large`), never unbounded memory or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLimits {
    /// Largest patch text, in bytes (default 64 MiB).
    pub max_bytes: usize,
    /// Most hunks in one patch (default 200,000).
    pub max_hunks: usize,
    /// Longest a patch is planned, checked between file sections (default 60 s; planning is
    /// linear in hunks and lines, so only a hostile patch over huge files gets near it).
    pub max_plan_time: std::time::Duration,
}

impl Default for PatchLimits {
    fn default() -> Self {
        PatchLimits {
            max_bytes: 64 << 20,
            max_hunks: 200_000,
            max_plan_time: std::time::Duration::from_secs(60),
        }
    }
}

impl PatchLimits {
    /// Refuse (`too_large`) a patch text longer than [`PatchLimits::max_bytes`].
    pub fn check_len(&self, len: usize) -> Result<(), ToolError> {
        if len > self.max_bytes {
            return Err(ToolError::new(
                Reason::TooLarge,
                None,
                format!(
                    "the patch is {len} bytes, more than the limit of {} bytes; nothing was applied: split it into smaller patches",
                    self.max_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Refuse (`too_large`) a parsed patch with more than [`PatchLimits::max_hunks`] hunks.
    pub fn check_patch(&self, patch: &Patch) -> Result<(), ToolError> {
        let hunks: usize = patch
            .files
            .iter()
            .map(|fp| match &fp.change {
                FileChange::Add { .. } => 1,
                FileChange::Delete { hunks, .. } | FileChange::Update { hunks, .. } => hunks.len(),
            })
            .sum();
        if hunks > self.max_hunks {
            return Err(ToolError::new(
                Reason::TooLarge,
                None,
                format!(
                    "the patch has {hunks} hunks, more than the limit of {}; nothing was applied: split it into smaller patches",
                    self.max_hunks
                ),
            ));
        }
        Ok(())
    }

    /// Parse `text` within these limits.
    pub fn parse(&self, text: &str) -> Result<Patch, ToolError> {
        self.check_len(text.len())?;
        let patch = parse_patch(text).map_err(|e| ToolError::from_engine(None, e))?;
        self.check_patch(&patch)?;
        Ok(patch)
    }
}

/// How many times a file that changed on disk between the plan and the write is planned again
/// from its new bytes before the sections touching it are refused (`stale_context`).
pub const MAX_REPLANS: usize = 3;

/// Parse `text` and apply it. `Err` only when the patch as a whole cannot be read (then nothing
/// was touched); per-file refusals are in the report.
pub fn apply_patch(
    ws: &Workspace,
    text: &str,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    let patch = opts.limits.parse(text)?;
    apply_parsed(ws, &patch, opts)
}

/// Apply an already parsed patch.
///
/// Sections are planned in memory against each file's bytes as read once, in patch order
/// (a later section for the same file patches what the earlier made of it). Sections name
/// files by their resolved identity, so `src/f.txt`, `./src//f.txt` and a path through a
/// symlinked directory are one file. A failed section fails every section sharing a file with
/// it, transitively; the files of the remaining sections are committed once each, with their
/// final content, by the one commit path (`commit.rs`): only if the file still holds the bytes
/// the plan read. A file another writer changed in between is planned again from its new bytes
/// (its sections only, up to [`MAX_REPLANS`] times), else its sections are `stale_context`.
pub fn apply_parsed(
    ws: &Workspace,
    patch: &Patch,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    apply_resolved(ws, patch, opts, &Resolved::new(), None)
}

/// [`apply_parsed`] with the paths the caller has already resolved ([`Workspace::resolve`]
/// of the patch's spelling, as `apply_patch` does to lock the files): each is resolved once
/// per call, not again by every pass. `gate`, when given, is asked about the planned files
/// before each commit; its refusal fails every section and writes nothing.
pub fn apply_resolved(
    ws: &Workspace,
    patch: &Patch,
    opts: &ApplyPatchOptions,
    resolved: &Resolved,
    gate: Option<&dyn WriteGate>,
) -> Result<PatchReport, ToolError> {
    let all: Vec<usize> = (0..patch.files.len()).collect();
    let mut run = run_sections(ws, patch, &all, opts, resolved, gate)?;
    let mut tries = 0;
    while !run.conflicted.is_empty() && tries < MAX_REPLANS {
        tries += 1;
        let again = match run_sections(ws, patch, &run.conflicted, opts, resolved, gate) {
            Ok(r) => r,
            Err(e) => {
                // Other files may be written already: the refusal is these sections', not the
                // whole patch's.
                for &i in &run.conflicted {
                    run.files[i] = Some(failed(patch, i, e.clone()));
                }
                run.conflicted.clear();
                break;
            }
        };
        for (i, f) in again.files.into_iter().enumerate() {
            if let Some(f) = f {
                run.files[i] = Some(f);
            }
        }
        run.before.extend(again.before);
        run.conflicted = again.conflicted;
    }
    for &i in &run.conflicted {
        let e = ToolError::new(
            Reason::StaleContext,
            Some(patch.files[i].path()),
            format!(
                "the file changed on disk while this patch was being applied ({} tries); nothing of this section was written: re-read the file and resend",
                MAX_REPLANS + 1
            ),
        );
        run.files[i] = Some(failed(patch, i, e));
    }
    Ok(PatchReport {
        files: run.files.into_iter().flatten().collect(),
        classification: classify_patch_operations(patch),
        before: run.before,
    })
}

fn failed(patch: &Patch, i: usize, e: ToolError) -> FileReport {
    FileReport {
        path: patch.files[i].path().to_string(),
        status: FileStatus::Failed(e),
    }
}

/// One pass over some sections of a patch: plan, then commit.
struct Run {
    /// Per section of the whole patch: its report when this pass ran it.
    files: Vec<Option<FileReport>>,
    /// Sections whose files changed on disk between the plan and the write (nothing of them
    /// written).
    conflicted: Vec<usize>,
    before: HashMap<String, Option<Vec<u8>>>,
}

fn run_sections(
    ws: &Workspace,
    patch: &Patch,
    indices: &[usize],
    opts: &ApplyPatchOptions,
    resolved: &Resolved,
    gate: Option<&dyn WriteGate>,
) -> Result<Run, ToolError> {
    let planned = plan_sections(
        ws,
        patch,
        indices,
        &opts.engine,
        opts.limits.max_plan_time,
        resolved,
    )?;
    // Commit each healthy unit's files once, with their final state.
    let mut outcomes: HashMap<usize, UnitOutcome> = HashMap::new();
    if !opts.dry_run {
        let (ids, units): (Vec<usize>, Vec<CommitUnit>) =
            planned.commit_units(ws).into_iter().unzip();
        let policy = Policy {
            on_changed: OnChanged::Replan,
            staging: Staging::AtSwitch,
            journal: None,
            observer: None,
            gate,
        };
        outcomes = ids
            .into_iter()
            .zip(commit(ws, &units, policy).units)
            .collect();
    }
    let Planned {
        sections,
        plan,
        units,
        bad_units,
    } = planned;
    let mut files: Vec<Option<FileReport>> = vec![None; patch.files.len()];
    let mut conflicted = Vec::new();
    for Section {
        index: i,
        keys,
        result,
    } in sections
    {
        let path = patch.files[i].path().to_string();
        let u = keys.as_ref().map(|k| units.of(&k.src));
        let status = match (result, u) {
            (Err(e), _) => FileStatus::Failed(e),
            (Ok(o), Some(u)) if bad_units.contains(&u) => FileStatus::Failed(ToolError::new(
                Reason::HunkMismatch,
                Some(&o.path),
                "another section of this patch for the same file failed, so this file was left untouched",
            )),
            (Ok(o), Some(u)) => match outcomes.get(&u) {
                Some(UnitOutcome::Changed) => {
                    conflicted.push(i);
                    continue;
                }
                Some(UnitOutcome::Failed(e)) => FileStatus::Failed(e.clone()),
                Some(UnitOutcome::RolledBack) => FileStatus::Failed(ToolError::new(
                    Reason::IoError,
                    Some(&o.path),
                    "another file of this commit failed, so this one was put back",
                )),
                Some(UnitOutcome::Written) | None => FileStatus::Applied(o),
            },
            (Ok(o), None) => FileStatus::Applied(o),
        };
        files[i] = Some(FileReport { path, status });
    }
    Ok(Run {
        files,
        conflicted,
        before: plan.before,
    })
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

    /// The limits refuse (`too_large`, nothing parsed further) a patch text longer than
    /// `max_bytes` and a patch with more than `max_hunks` hunks (an added file counts as one),
    /// and accept one exactly at them; the defaults are the documented 64 MiB and 200,000.
    #[test]
    fn limits_refuse_just_past_them_and_accept_at_them() {
        let defaults = PatchLimits::default();
        assert_eq!(
            (defaults.max_bytes, defaults.max_hunks),
            (64 * 1024 * 1024, 200_000)
        );
        let text = "*** Begin Patch\n*** Add File: n.txt\n+n\n*** Update File: f\n@@\n-a\n+b\n@@\n-c\n+d\n*** End Patch\n";
        let hunks = 3;
        let limits = |max_bytes, max_hunks| PatchLimits {
            max_bytes,
            max_hunks,
            ..PatchLimits::default()
        };
        assert!(limits(text.len(), hunks).parse(text).is_ok());
        for (l, what) in [
            (limits(text.len() - 1, hunks), "bytes"),
            (limits(text.len(), hunks - 1), "hunks"),
        ] {
            let e = l.parse(text).unwrap_err();
            assert_eq!(e.reason, Reason::TooLarge, "{what}: {e}");
            assert!(e.message.contains(what), "{e}");
        }
    }

    /// A file another program writes between the plan and its switch is planned again from
    /// its new bytes, up to [`MAX_REPLANS`] times; one that changes at every try is
    /// `stale_context`, with nothing of the patch in it and every foreign write kept.
    #[test]
    fn a_file_changed_under_the_plan_is_planned_again_then_refused() {
        use crate::workspace::{RacePoint, with_race_hook};
        use std::io::Write;
        for (foreign, applied) in [(MAX_REPLANS, true), (MAX_REPLANS + 1, false)] {
            let (dir, ws) = workspace(&[("f.txt", "a\n")]);
            let file = dir.path().join("f.txt");
            let mut writes = 0;
            let writer = move |at| {
                if at == RacePoint::Compared && writes < foreign {
                    writes += 1;
                    let mut f = std::fs::OpenOptions::new().append(true).open(&file)?;
                    writeln!(f, "foreign {writes}")?;
                }
                Ok(())
            };
            let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
            let report = with_race_hook(writer, || {
                apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap()
            });
            let theirs: String = (1..=foreign).map(|i| format!("foreign {i}\n")).collect();
            let on_disk = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
            if applied {
                assert!(report.all_applied(), "{foreign}: {}", report.summary());
                assert_eq!(on_disk, format!("b\n{theirs}"));
            } else {
                match &report.files[..] {
                    [
                        FileReport {
                            status: FileStatus::Failed(e),
                            ..
                        },
                    ] => {
                        assert_eq!(e.reason, Reason::StaleContext, "{e}")
                    }
                    _ => panic!("{foreign}: {}", report.summary()),
                }
                assert_eq!(on_disk, format!("a\n{theirs}"));
            }
        }
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

    /// Regression (issue 25): `cd DIR && apply_patch <<'EOF'` wrote the envelope's files at the
    /// root. They land under DIR now, and a DIR leaving the workspace is refused per file as
    /// `path_outside_workspace` by the workspace's confinement, never dropped.
    #[test]
    fn a_cd_wrapper_places_files_under_its_directory_and_is_confined() {
        let (dir, ws) = workspace(&[]);
        std::fs::create_dir(dir.path().join("my dir")).unwrap();
        std::fs::write(dir.path().join("my dir/f.txt"), "a\n").unwrap();
        for open in [
            "cd 'my dir' && apply_patch <<'EOF'",
            "cd \"my dir\"; apply_patch <<EOF",
            "cd my\\ dir && cat <<'EOF' | apply_patch",
        ] {
            let patch = format!(
                "{open}\n*** Begin Patch\n*** Add File: new.txt\n+n\n*** Update File: f.txt\n@@\n-a\n+b\n*** End Patch\nEOF\n"
            );
            let opts = ApplyPatchOptions {
                dry_run: true,
                ..ApplyPatchOptions::default()
            };
            let report = apply_patch(&ws, &patch, &opts).unwrap();
            assert_eq!(
                report.summary(),
                "A my dir/new.txt (+1)\nM my dir/f.txt (1 hunk)\n",
                "{open}"
            );
        }
        assert!(!dir.path().join("new.txt").exists());
        let outside = tempfile::tempdir().unwrap();
        let shown = outside.path().display().to_string();
        for open in [
            "cd .. && apply_patch <<'EOF'",
            &format!("cd '{shown}' && apply_patch <<'EOF'"),
        ] {
            let patch = format!(
                "{open}\n*** Begin Patch\n*** Add File: escaped.txt\n+x\n*** End Patch\nEOF\n"
            );
            let report = apply_patch(&ws, &patch, &ApplyPatchOptions::default()).unwrap();
            let [file] = &report.files[..] else {
                panic!("{open}: {}", report.summary());
            };
            match &file.status {
                FileStatus::Failed(e) => {
                    assert_eq!(e.reason, Reason::PathOutsideWorkspace, "{open}")
                }
                FileStatus::Applied(_) => panic!("{open}: applied"),
            }
        }
        assert!(!dir.path().parent().unwrap().join("escaped.txt").exists());
        assert!(!outside.path().join("escaped.txt").exists());
    }

    /// A caller's resolution of a path (`apply_patch`'s, made to lock the file) is checked as
    /// the plan's own would be: one that leads under a protected name is refused, and a
    /// directory replaced by a symlink since it was resolved is not followed by the write.
    #[cfg(unix)]
    #[test]
    fn a_callers_resolution_is_checked_like_the_plans_own() {
        let (dir, ws) = workspace(&[("a.txt", "a\n")]);
        let root = ws.root().to_path_buf();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/f.txt"), "a\n").unwrap();
        let patch = |path: &str| {
            parse_patch(&format!(
                "--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
            ))
            .unwrap()
        };
        let opts = ApplyPatchOptions::default();
        let status = |report: &PatchReport| match &report.files[..] {
            [
                FileReport {
                    status: FileStatus::Failed(e),
                    ..
                },
            ] => Some(e.reason),
            _ => None,
        };

        let mut resolved = Resolved::new();
        resolved.insert("a.txt".to_string(), root.join(".git/f.txt"));
        let report = apply_resolved(&ws, &patch("a.txt"), &opts, &resolved, None).unwrap();
        assert_eq!(status(&report), Some(Reason::ProtectedPath));

        std::fs::create_dir(root.join("d")).unwrap();
        std::fs::write(root.join("d/f.txt"), "a\n").unwrap();
        let mut resolved = Resolved::new();
        resolved.insert("d/f.txt".to_string(), ws.resolve("d/f.txt").unwrap());
        std::fs::rename(root.join("d"), root.join("d.old")).unwrap();
        std::os::unix::fs::symlink(".git", root.join("d")).unwrap();
        let report = apply_resolved(&ws, &patch("d/f.txt"), &opts, &resolved, None).unwrap();
        assert_eq!(status(&report), Some(Reason::IoError));
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!([read(".git/f.txt"), read("a.txt")], ["a\n", "a\n"]);
    }

    /// Regression (issue 25): a mode-only git section took the `---`/`+++` of the plain section
    /// after it, so the new mode and the hunk went to the second file and the first vanished
    /// from the report. Each file gets its own change and its own line in the report.
    #[cfg(unix)]
    #[test]
    fn a_mode_only_section_changes_its_own_file() {
        use std::os::unix::fs::PermissionsExt;
        let (dir, ws) = workspace(&[("run.sh", "#!/bin/sh\n"), ("z.txt", "a\n")]);
        for f in ["run.sh", "z.txt"] {
            let perms = std::fs::Permissions::from_mode(0o644);
            std::fs::set_permissions(dir.path().join(f), perms).unwrap();
        }
        let patch = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/z.txt\n+++ b/z.txt\n@@ -1 +1 @@\n-a\n+b\n";
        let report = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap();
        let paths: Vec<&str> = report.files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["run.sh", "z.txt"], "{}", report.summary());
        assert!(report.all_applied(), "{}", report.summary());
        let mode = |f: &str| {
            std::fs::metadata(dir.path().join(f))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!((mode("run.sh"), mode("z.txt")), (0o755, 0o644));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("z.txt")).unwrap(),
            "b\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("run.sh")).unwrap(),
            "#!/bin/sh\n"
        );
    }
}
