//! The one-line summaries `apply_patch` reports per file section (`M path (2 hunks, moved +3)`,
//! `A`, `D`, `R`, `FAILED`), which models read to learn what happened, and dry runs that write
//! nothing.

use lspedit_write::{ApplyPatchOptions, Workspace, apply_patch};

fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        std::fs::write(dir.path().join(rel), content).unwrap();
    }
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

/// `patch` over `files` reports exactly `expected`, one summary line per section.
fn check(files: &[(&str, &str)], patch: &str, dry_run: bool, expected: &[&str]) {
    let (dir, ws) = workspace(files);
    let opts = ApplyPatchOptions {
        dry_run,
        ..ApplyPatchOptions::default()
    };
    let report = apply_patch(&ws, patch, &opts).unwrap();
    let lines: Vec<String> = report.files.iter().map(|f| f.summary_line()).collect();
    assert_eq!(lines, expected, "{patch}");
    for f in &report.files {
        let failed = f.summary_line().starts_with("FAILED ");
        assert_eq!(f.is_applied(), !failed, "{}", f.summary_line());
    }
    assert_eq!(
        report.all_applied(),
        expected.iter().all(|l| !l.starts_with("FAILED ")),
        "{patch}"
    );
    if dry_run {
        for (rel, content) in files {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(rel)).unwrap(),
                *content,
                "dry run wrote {rel}"
            );
        }
    }
}

const TEN: &str = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

#[test]
fn hunks_found_away_from_their_header_report_how_far_they_moved() {
    // Stale headers: the first hunk's `1` is 2 lines above where its header says, the
    // second's `8` 3 lines below; each offset is listed once, in order.
    let patch = "--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-1\n+one\n@@ -5,1 +5,1 @@\n-8\n+eight\n";
    check(&[("f", TEN)], patch, true, &["M f (2 hunks, moved -2, +3)"]);
    let one = "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-1\n+one\n";
    check(&[("f", TEN)], one, false, &["M f (1 hunk)"]);
}

#[test]
fn each_kind_of_section_has_its_letter() {
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+a\n+b\n*** Delete File: old.txt\n*** Update File: f\n*** Move to: g\n@@\n-1\n+one\n*** End Patch\n";
    check(
        &[("old.txt", "x\n"), ("f", TEN)],
        patch,
        true,
        &["A new.txt (+2)", "D old.txt", "R f -> g (1 hunk)"],
    );
    let missing = "--- a/absent.txt\n+++ b/absent.txt\n@@ -1 +1 @@\n-a\n+b\n";
    check(
        &[],
        missing,
        true,
        &[
            "FAILED absent.txt: file_not_found: the patch changes this file but it does not exist; create it with `--- /dev/null` or `*** Add File:`",
        ],
    );
}
