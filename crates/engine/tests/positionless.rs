//! Where a Codex chunk lands: it has no line numbers and no anchors, so its `@@ <line>` hint
//! and the end of the previous chunk are all that place it (docs/design.md §4). Each rule is
//! pinned by an outcome a different rule would change.

use lspedit_engine::{ApplyOptions, Reason, apply_file_patch, parse_patch};

/// One Codex update section of `f` with `body` (chunks), applied to `current`.
fn apply(body: &str, current: &str) -> Result<String, lspedit_engine::EngineError> {
    let patch = format!("*** Begin Patch\n*** Update File: f\n{body}*** End Patch\n");
    let parsed = parse_patch(&patch).unwrap_or_else(|e| panic!("{patch:?}: {e}"));
    let out = apply_file_patch(
        &parsed.files[0],
        Some(current.as_bytes()),
        &ApplyOptions::default(),
    )?;
    let bytes = out
        .new_content
        .unwrap_or_else(|| panic!("an update has content"));
    Ok(String::from_utf8(bytes).unwrap_or_else(|e| panic!("the engine writes UTF-8: {e}")))
}

const FILE: &str = "def a():\n    x = 1\n\ndef b():\n    x = 1\n\ndef c():\n    x = 1\n";

#[test]
fn a_pure_insertion_lands_right_after_its_hint_line() {
    assert_eq!(
        apply("@@ def b():\n+    y = 2\n", FILE).unwrap(),
        "def a():\n    x = 1\n\ndef b():\n    y = 2\n    x = 1\n\ndef c():\n    x = 1\n"
    );
}

#[test]
fn a_pure_insertion_without_a_hint_or_at_the_end_marker_is_appended() {
    let appended = format!("{FILE}z = 3\n");
    assert_eq!(apply("@@\n+z = 3\n", FILE).unwrap(), appended);
    assert_eq!(
        apply("@@ def a():\n+z = 3\n*** End of File\n", FILE).unwrap(),
        appended,
        "the end marker wins over the hint's place"
    );
}

#[test]
fn a_repeated_body_after_a_hint_takes_the_first_match_after_it() {
    assert_eq!(
        apply("@@ def b():\n-    x = 1\n+    x = 2\n", FILE).unwrap(),
        "def a():\n    x = 1\n\ndef b():\n    x = 2\n\ndef c():\n    x = 1\n"
    );
    // Without the hint the same chunk has three places: refused, never guessed.
    let e = apply("@@\n-    x = 1\n+    x = 2\n", FILE).unwrap_err();
    assert_eq!(e.reason, Reason::AmbiguousMatch, "{e}");
    assert!(e.message.contains("matches at lines 2 and 5"), "{e}");
}

#[test]
fn the_hint_is_found_as_written_before_as_part_of_a_line() {
    // `def b():` is part of line 1's comment, and written as is on line 3: the line as written
    // places the chunk, not the first line that contains it.
    let file = "# calls def b(): below\nx = 1\ndef b():\nx = 1\n";
    assert_eq!(
        apply("@@ def b():\n-x = 1\n+x = 2\n", file).unwrap(),
        "# calls def b(): below\nx = 1\ndef b():\nx = 2\n"
    );
    // Only contained in a line: that line places it.
    assert_eq!(
        apply("@@ b():\n-x = 1\n+x = 2\n", "x = 1\ndef b():\nx = 1\n").unwrap(),
        "x = 1\ndef b():\nx = 2\n"
    );
}

#[test]
fn a_second_chunk_is_searched_after_the_first() {
    // Both chunks remove `    x = 1`; the second may not take the first one's line, nor one
    // above it.
    let body = "@@ def a():\n-    x = 1\n+    x = 10\n@@\n-    x = 1\n+    x = 20\n";
    let e = apply(body, FILE).unwrap_err();
    assert_eq!(
        e.reason,
        Reason::AmbiguousMatch,
        "lines 5 and 8 remain: {e}"
    );
    let body = "@@ def a():\n-    x = 1\n+    x = 10\n@@ def c():\n-    x = 1\n+    x = 30\n";
    assert_eq!(
        apply(body, FILE).unwrap(),
        "def a():\n    x = 10\n\ndef b():\n    x = 1\n\ndef c():\n    x = 30\n"
    );
    // A hint above the previous chunk's end is not found again.
    let body = "@@ def b():\n-    x = 1\n+    x = 2\n@@ def a():\n-    x = 1\n+    x = 3\n";
    let e = apply(body, FILE).unwrap_err();
    assert_eq!(e.reason, Reason::HunkMismatch, "{e}");
    assert!(
        e.message
            .contains("`@@ def a():` is not in the file after line"),
        "{e}"
    );
}
