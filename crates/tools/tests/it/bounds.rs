//! Bounded work for any input: patch size and hunk caps, long lines cut in what comes back,
//! reads past the end and names the file system cannot hold, each a clear refusal.

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_write::{PatchLimits, Reason, Workspace};

fn env(config: ToolsConfig) -> (tempfile::TempDir, Tools) {
    let dir = tempfile::tempdir().unwrap();
    let tools = Tools::new(Workspace::open(dir.path()).unwrap(), None, config);
    (dir, tools)
}

// Regression: patch input was unbounded (`apply /dev/zero` grew to 4 GB) and 1M hunks ran for
// minutes.
#[test]
fn a_patch_over_the_size_or_hunk_limit_is_too_large_and_writes_nothing() {
    let config = ToolsConfig {
        patch_limits: PatchLimits {
            max_bytes: 200,
            max_hunks: 2,
            ..PatchLimits::default()
        },
        ..ToolsConfig::default()
    };
    let (dir, t) = env(config);
    std::fs::write(dir.path().join("f.txt"), "a\nb\nc\nd\ne\nf\ng\n").unwrap();
    let big = format!(
        "*** Begin Patch\n*** Add File: big.txt\n{}*** End Patch\n",
        "+x\n".repeat(100)
    );
    let r = t.apply_patch(&big);
    assert_eq!(r.reason, Some(Reason::TooLarge), "{}", r.llm_content);
    assert!(
        r.llm_content.contains("limit of 200 bytes"),
        "{}",
        r.llm_content
    );
    let hunks = "--- a/f.txt\n+++ b/f.txt\n@@ -1,1 +1,1 @@\n-a\n+A\n@@ -3,1 +3,1 @@\n-c\n+C\n@@ -5,1 +5,1 @@\n-e\n+E\n";
    let r = t.apply_patch(hunks);
    assert_eq!(r.reason, Some(Reason::TooLarge), "{}", r.llm_content);
    assert!(r.llm_content.contains("3 hunks"), "{}", r.llm_content);
    assert!(!dir.path().join("big.txt").exists());
    assert_eq!(
        std::fs::read_to_string(dir.path().join("f.txt")).unwrap(),
        "a\nb\nc\nd\ne\nf\ng\n"
    );
}

// Regression: a 5 MB changed line came back whole in the result.
#[test]
fn a_huge_changed_line_is_cut_in_the_result() {
    let (dir, t) = env(ToolsConfig::default());
    std::fs::write(dir.path().join("f.txt"), "a\nb\nc\n").unwrap();
    let long = "y".repeat(1_000_000);
    let r = t.edit("f.txt", "b", &long, false);
    assert!(!r.is_error, "{}", &r.llm_content[..200]);
    assert!(
        r.llm_content.len() < 10_000,
        "{} bytes",
        r.llm_content.len()
    );
    assert!(
        // `2xxxx|` and 1,000,000 characters, cut at 2,000.
        r.llm_content
            .contains(&format!("… [{} more chars]", 1_000_006 - 2000)),
        "{}",
        &r.llm_content[..300]
    );
    let written = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert_eq!(
        written,
        format!("a\n{long}\nc\n"),
        "the file itself is written whole"
    );
}

// Regression: `read --offset` past the end printed nothing (exit 0); a too-long file name on
// write said "reading failed".
#[test]
fn reads_past_the_end_and_overlong_names_say_what_is_wrong() {
    let (dir, t) = env(ToolsConfig::default());
    std::fs::write(dir.path().join("f.txt"), "a\nb\n").unwrap();
    let r = t.read_file("f.txt", Some(9), None);
    assert_eq!(r.reason, Some(Reason::OutOfBounds), "{}", r.llm_content);
    assert!(
        r.llm_content
            .contains("offset 9 is past the end of the file (2 lines)")
    );
    let name = "n".repeat(300);
    let r = t.write_file(&name, "x\n");
    assert!(r.is_error);
    assert!(
        r.llm_content.contains("file name is too long") && !r.llm_content.contains("reading"),
        "{}",
        r.llm_content
    );
}

// An overall bound on planning: past it the patch is refused whole, nothing written.
#[test]
fn planning_past_its_time_limit_is_too_large_and_writes_nothing() {
    let config = ToolsConfig {
        patch_limits: PatchLimits {
            max_plan_time: std::time::Duration::ZERO,
            ..PatchLimits::default()
        },
        ..ToolsConfig::default()
    };
    let (dir, t) = env(config);
    std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "b\n").unwrap();
    let r = t.apply_patch(
        "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n",
    );
    assert_eq!(r.reason, Some(Reason::TooLarge), "{}", r.llm_content);
    assert!(
        r.llm_content
            .contains("planning this patch took longer than"),
        "{}",
        r.llm_content
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "a\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b.txt")).unwrap(),
        "b\n"
    );
}
