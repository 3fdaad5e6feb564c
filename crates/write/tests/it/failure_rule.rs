//! The failure rule of a patch (plan.rs): sections that share a file, by any of its names or
//! through a rename, succeed or fail together; a section cut off refuses the whole patch; a
//! move never replaces a file. Each case checks the report and the files on disk.

use lspedit_write::{ApplyPatchOptions, FileStatus, PatchReport, Reason, Workspace, apply_patch};

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        std::fs::write(dir.path().join(rel), content).unwrap();
    }
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

fn apply(ws: &Workspace, patch: &str) -> PatchReport {
    apply_patch(ws, patch, &ApplyPatchOptions::default()).unwrap()
}

/// Per section: `None` when applied, else the reason it failed.
fn reasons(report: &PatchReport) -> Vec<Option<Reason>> {
    report
        .files
        .iter()
        .map(|f| match &f.status {
            FileStatus::Applied(_) => None,
            FileStatus::Failed(e) => Some(e.reason),
        })
        .collect()
}

fn read(dir: &tempfile::TempDir, rel: &str) -> Option<String> {
    std::fs::read_to_string(dir.path().join(rel)).ok()
}

/// A failed section fails the other sections of its file, which is left untouched, and
/// nothing else: another file's section is written.
#[test]
fn a_failed_section_fails_its_files_other_sections_only() {
    let (dir, ws) = workspace(&[("a.txt", "1\n"), ("b.txt", "b\n")]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-1\n+2\n\
                 --- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\
                 --- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-9\n+x\n";
    let report = apply(&ws, patch);
    let mismatch = Some(Reason::HunkMismatch);
    assert_eq!(
        reasons(&report),
        [mismatch, None, mismatch],
        "{}",
        report.summary()
    );
    assert!(
        report.summary().starts_with(
            "FAILED a.txt: hunk_mismatch: another section of this patch for the same file failed"
        ),
        "{}",
        report.summary()
    );
    assert_eq!(
        (read(&dir, "a.txt"), read(&dir, "b.txt")),
        (Some("1\n".into()), Some("B\n".into()))
    );
}

/// A rename links its two ends: a failed section of the new path fails the rename too, and
/// the file stays where it was.
#[test]
fn a_failed_section_after_a_rename_fails_the_rename() {
    let (dir, ws) = workspace(&[("c.txt", "c\n")]);
    let patch = "diff --git a/c.txt b/d.txt\nsimilarity index 100%\nrename from c.txt\nrename to d.txt\n\
                 --- a/d.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-no such line\n+D\n";
    let report = apply(&ws, patch);
    let mismatch = Some(Reason::HunkMismatch);
    assert_eq!(
        reasons(&report),
        [mismatch, mismatch],
        "{}",
        report.summary()
    );
    assert_eq!(
        (read(&dir, "c.txt"), read(&dir, "d.txt")),
        (Some("c\n".into()), None)
    );
}

/// One file by every name it has (a cleaned-up spelling, a symlink to it, a hard link) is
/// one file: each section patches what the one before made of it.
#[test]
fn every_name_of_a_file_is_one_file() {
    let (dir, ws) = workspace(&[("a.txt", "1\n")]);
    std::os::unix::fs::symlink("a.txt", dir.path().join("l")).unwrap();
    std::fs::hard_link(dir.path().join("a.txt"), dir.path().join("h.txt")).unwrap();
    let step = |path: &str, from: u8, to: u8| {
        format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-{from}\n+{to}\n")
    };
    let patch = [
        step("a.txt", 1, 2),
        step("./x/../a.txt", 2, 3),
        step("l", 3, 4),
        step("h.txt", 4, 5),
    ]
    .concat();
    let report = apply(&ws, &patch);
    assert_eq!(reasons(&report), [None; 4], "{}", report.summary());
    assert_eq!(read(&dir, "a.txt").as_deref(), Some("5\n"));
    assert_eq!(read(&dir, "l").as_deref(), Some("5\n"));
}

/// A move onto a file that exists is refused (`file_exists`) and neither file changes.
#[test]
fn a_move_never_replaces_a_file() {
    let (dir, ws) = workspace(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let patch =
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+A\n*** End Patch\n";
    let report = apply(&ws, patch);
    assert_eq!(
        reasons(&report),
        [Some(Reason::FileExists)],
        "{}",
        report.summary()
    );
    assert_eq!(
        (read(&dir, "a.txt"), read(&dir, "b.txt")),
        (Some("a\n".into()), Some("b\n".into()))
    );
}

/// A rename or a deletion acts on the entry the patch names: a symlink is moved or removed
/// itself, and the file it points to stays.
#[test]
fn a_renamed_or_deleted_symlink_leaves_its_target() {
    let (dir, ws) = workspace(&[("f.txt", "f\n")]);
    std::os::unix::fs::symlink("f.txt", dir.path().join("l")).unwrap();
    std::os::unix::fs::symlink("f.txt", dir.path().join("k")).unwrap();
    let patch = "*** Begin Patch\n*** Update File: l\n*** Move to: m.txt\n@@\n-f\n+F\n*** Delete File: k\n*** End Patch\n";
    let report = apply(&ws, patch);
    assert_eq!(reasons(&report), [None, None], "{}", report.summary());
    assert_eq!(read(&dir, "f.txt").as_deref(), Some("f\n"));
    assert_eq!(read(&dir, "m.txt").as_deref(), Some("F\n"));
    for link in ["l", "k"] {
        assert!(
            std::fs::symlink_metadata(dir.path().join(link)).is_err(),
            "{link} stayed"
        );
    }
}

/// A section cut off (`truncated_input`) means the patch text is: nothing of it is applied,
/// not even the sections before it that planned cleanly.
#[test]
fn a_cut_off_section_refuses_the_whole_patch() {
    let (dir, ws) = workspace(&[("b.txt", "b\n"), ("f.txt", "a\nb\nc\n")]);
    let patch = "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\
                 --- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-x\n+X\n c";
    let e = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap_err();
    assert_eq!(e.reason, Reason::TruncatedInput, "{e}");
    assert_eq!(read(&dir, "b.txt").as_deref(), Some("b\n"));
}

/// A deleted or renamed symlink's content is read through its name, as a read of it would be:
/// one that points nowhere is refused (`path_outside_workspace`) and stays.
#[test]
fn a_symlink_pointing_nowhere_is_not_deleted() {
    let (dir, ws) = workspace(&[]);
    std::os::unix::fs::symlink("nowhere", dir.path().join("d")).unwrap();
    let report = apply(&ws, "*** Begin Patch\n*** Delete File: d\n*** End Patch\n");
    assert_eq!(
        reasons(&report),
        [Some(Reason::PathOutsideWorkspace)],
        "{}",
        report.summary()
    );
    assert!(std::fs::symlink_metadata(dir.path().join("d")).is_ok());
}

/// Two names of one symlink (hard links of the link itself) are two entries: deleting both
/// deletes both, and the file they point to stays.
#[test]
fn two_names_of_one_symlink_are_two_entries() {
    let (dir, ws) = workspace(&[("f.txt", "f\n")]);
    std::os::unix::fs::symlink("f.txt", dir.path().join("l1")).unwrap();
    std::fs::hard_link(dir.path().join("l1"), dir.path().join("l2")).unwrap();
    let meta = |p: &str| std::fs::symlink_metadata(dir.path().join(p));
    assert!(
        meta("l2").unwrap().file_type().is_symlink(),
        "the link itself was linked"
    );
    let patch = "*** Begin Patch\n*** Delete File: l1\n*** Delete File: l2\n*** End Patch\n";
    let report = apply(&ws, patch);
    assert_eq!(reasons(&report), [None, None], "{}", report.summary());
    assert!(meta("l1").is_err() && meta("l2").is_err());
    assert_eq!(read(&dir, "f.txt").as_deref(), Some("f\n"));
}
