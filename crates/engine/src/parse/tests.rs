//! Regression tests of the parsers for inputs the property tests and the fuzzer found.

use super::parse_patch;
use crate::error::Reason;
use crate::patch::{FileChange, LineKind};

// Regression (fuzz target `apply`): an anchored hunk whose last line is an addition that looks
// like the start of an anchor (`+55`, `+2024`) was refused as `truncated_input`, although
// additions never carry anchors. `unified_diff(.., anchored)` produces such patches.
#[test]
fn anchored_hunk_ending_with_a_numeric_addition_is_not_truncated() {
    for last in ["55", "2024", "7ab", "12abcd"] {
        let patch = format!("--- a/f\n+++ b/f\n@@ -1,2 +1,1 @@\n-1aaaa|\n-2aaaa|\n+{last}\n");
        let parsed = parse_patch(&patch).unwrap();
        let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
            panic!("expected an update");
        };
        let added = hunks[0].lines.last().unwrap();
        assert_eq!((added.kind, added.text.as_str()), (LineKind::Add, last));
    }
}

// The rule the regression narrowed still holds for context and removal lines.
#[test]
fn anchored_hunk_cut_mid_anchor_is_truncated() {
    for last in ["-2aa", " 2aaa", "-2"] {
        let patch = format!("--- a/f\n+++ b/f\n@@ @@\n-1aaaa|x\n{last}\n");
        let err = parse_patch(&patch).unwrap_err();
        assert_eq!(err.reason, Reason::TruncatedInput, "{last}: {err}");
        assert_eq!(err.patch_line, Some(5));
    }
    // An unterminated addition is still refused, whatever it looks like.
    let err = parse_patch("--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-1aaaa|x\n+55").unwrap_err();
    assert_eq!(err.reason, Reason::TruncatedInput);
}
