//! Whole-file refusals of `apply_file_patch`: each with its reason code and the message a model
//! acts on, and no output (a refused section yields no new content).

use lspedit_engine::{ApplyOptions, Reason, apply_file_patch, parse_patch};

/// `patch` (one file section) applied to `current` is refused with `reason`, the message
/// containing `needle`.
fn check(patch: &str, current: Option<&str>, reason: Reason, needle: &str) {
    let parsed = parse_patch(patch).unwrap_or_else(|e| panic!("{patch:?} did not parse: {e}"));
    let err = match apply_file_patch(
        &parsed.files[0],
        current.map(str::as_bytes),
        &ApplyOptions::default(),
    ) {
        Ok(out) => panic!("{patch:?} applied: {:?}", out.new_content),
        Err(e) => e,
    };
    assert_eq!(err.reason, reason, "{patch:?}: {err}");
    assert!(err.message.contains(needle), "{needle:?} not in {err}");
}

#[test]
fn a_creation_of_an_existing_file_is_refused() {
    check(
        "--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+x\n",
        Some("old\n"),
        Reason::FileExists,
        "the patch creates this file but it already exists",
    );
}

#[test]
fn a_deletion_must_cover_the_whole_file_and_the_file_must_exist() {
    check(
        "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
        Some("a\nb\n"),
        Reason::HunkMismatch,
        "the deletion's hunks cover only part of the file (1 of 2 lines would remain)",
    );
    check(
        "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n",
        None,
        Reason::FileNotFound,
        "create it with `--- /dev/null` or `*** Add File:`",
    );
}

#[test]
fn a_codex_context_line_missing_from_the_file_is_named() {
    check(
        "*** Begin Patch\n*** Update File: f\n@@ fn missing\n-a\n+b\n*** End Patch\n",
        Some("a\n"),
        Reason::HunkMismatch,
        "hunk 1: its context line `@@ fn missing` is not in the file after line 0",
    );
}

// Two hunks may not claim the same line: the second is refused, not applied over the first.
#[test]
fn a_hunk_overlapping_an_earlier_one_is_refused() {
    check(
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -2,2 +2,2 @@\n-b\n+B\n c\n",
        Some("a\nb\nc\n"),
        Reason::HunkMismatch,
        "hunk 2 does not match at line 2",
    );
}

// A hunk whose last line is a bare blank without a newline is a patch cut off mid-line.
#[test]
fn a_hunk_ending_in_an_unterminated_blank_line_is_truncation() {
    check(
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+A\n ",
        Some("a\n\nc\n"),
        Reason::TruncatedInput,
        "hunk 1 ends with a blank line without a terminating newline",
    );
}

#[test]
fn a_no_newline_hunk_only_applies_at_the_end_and_says_what_differs() {
    let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+C\n";
    // check(file, detail)
    let cases = [
        ("x\nb\nc", "line 1 is `x` where the hunk expects `a`"),
        ("a\nb", "the file has 2 lines, the hunk expects 3"),
        ("a\nb\nc\nd", "line 2 is `b` where the hunk expects `a`"),
    ];
    for (file, detail) in cases {
        check(
            patch,
            Some(file),
            Reason::HunkMismatch,
            "can only apply at the end of the file (its old side ends with `\\ No newline at end of file`)",
        );
        check(patch, Some(file), Reason::HunkMismatch, detail);
    }
}

#[test]
fn a_hunk_past_the_end_of_the_file_is_out_of_bounds() {
    check(
        "--- a/f\n+++ b/f\n@@ -500,1 +500,1 @@\n-a\n+b\n",
        Some("x\n"),
        Reason::OutOfBounds,
        "hunk 1 targets line 500 but the file has 1 lines",
    );
}

// Regression (issue 25): ` *** Update File: b` inside a chunk is a context line the file must
// hold, not the start of a section for `b`: a file without it is refused, where the section
// used to end before it and apply without its change lines.
#[test]
fn a_context_line_that_reads_like_a_marker_must_be_in_the_file() {
    check(
        "*** Begin Patch\n*** Update File: a\n@@\n a\n *** Update File: b\n-c\n+C\n*** End Patch\n",
        Some("a\nc\n"),
        Reason::HunkMismatch,
        "hunk 1 does not match the file",
    );
}

// A hunk that does not match and whose last line has no newline is a cut-off patch, said so
// (`truncated_input`, resend it), not a mismatch to re-read the file for; the same hunk with
// its newline is a plain mismatch, and an unterminated hunk that matches applies.
#[test]
fn a_mismatch_cut_off_without_its_last_newline_is_truncated_input() {
    let file = "a\nb\nc\n";
    check(
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-x\n+X\n c",
        Some(file),
        Reason::TruncatedInput,
        "the patch's last line has no terminating newline: the patch was probably cut off",
    );
    // Past the end of the file (out of bounds when complete): cut off too.
    check(
        "--- a/f\n+++ b/f\n@@ -9,2 +9,2 @@\n-x\n+X\n y",
        Some(file),
        Reason::TruncatedInput,
        "probably cut off",
    );
    check(
        "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-x\n+X\n c\n",
        Some(file),
        Reason::HunkMismatch,
        "hunk 1 does not match at line 1",
    );
    let parsed = parse_patch("--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c").unwrap();
    let out = apply_file_patch(
        &parsed.files[0],
        Some(file.as_bytes()),
        &ApplyOptions::default(),
    )
    .unwrap();
    assert_eq!(out.new_content.unwrap(), b"a\nB\nc\n");
}

// The mismatch names the nearest place that matches best within the radius, how many of the
// hunk's lines match there, and the first line that differs: the model's way back.
#[test]
fn a_mismatch_names_the_closest_place_and_its_first_difference() {
    // Target line 2; lines 5-7 match 2 of 3 (the best), lines 1-3 match 1.
    let file = "p\nq\nr\nz\nk\nl\nm\n";
    check(
        "--- a/f\n+++ b/f\n@@ -2,3 +2,3 @@\n k\n-l\n+L\n n\n",
        Some(file),
        Reason::HunkMismatch,
        "hunk 1 does not match at line 2 or within 100 lines of it; closest is line 5 (2 of 3 lines match; line 7 is `m` where the hunk expects `n`); re-read the file",
    );
    // Equal scores: the one nearer the target wins (line 2 over line 6).
    let file = "o\nk\nl\nx\no\nk\nl\ny\n";
    check(
        "--- a/f\n+++ b/f\n@@ -3,3 +3,3 @@\n k\n-l\n+L\n n\n",
        Some(file),
        Reason::HunkMismatch,
        "closest is line 2 (2 of 3 lines match; line 4 is `x` where the hunk expects `n`)",
    );
    // Nothing matches anywhere: no closest line.
    check(
        "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n u\n-v\n+V\n",
        Some("a\nb\n"),
        Reason::HunkMismatch,
        "does not match at line 1 or within 100 lines of it; re-read the file",
    );
}

// Blank lines past the end of the file stand in only for context a generator padded; a blank
// line the patch removes must be in the file.
#[test]
fn a_removed_blank_line_past_the_end_of_the_file_is_not_there() {
    let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,1 @@\n a\n-b\n-\n";
    let parsed = parse_patch(patch).unwrap();
    let r = apply_file_patch(&parsed.files[0], Some(b"a\nb\n"), &ApplyOptions::default());
    match r {
        Ok(out) => panic!("applied: {:?}", out.new_content),
        Err(e) => assert_eq!(e.reason, Reason::HunkMismatch, "{e}"),
    }
    // The same blank line as context past the end matches.
    let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n a\n-b\n \n";
    let parsed = parse_patch(patch).unwrap();
    let out = apply_file_patch(&parsed.files[0], Some(b"a\nb\n"), &ApplyOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out.new_content.as_deref(), Some(&b"a\n"[..]));
}
