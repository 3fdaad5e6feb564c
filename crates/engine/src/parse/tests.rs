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

const ENVELOPE: &str = "*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n*** End Patch\n";

fn update_paths(patch: &str) -> Vec<String> {
    parse_patch(patch)
        .unwrap()
        .files
        .iter()
        .map(|f| f.path().to_string())
        .collect()
}

// Regression: a Codex envelope wrapped in the shell command that would run it was refused as
// `empty_diff` "the patch changes no file", which sent models looking for the wrong mistake.
#[test]
fn heredoc_wrapped_envelopes_are_unwrapped() {
    for (open, close) in [
        ("apply_patch <<'EOF'", "EOF"),
        ("apply_patch <<EOF", "EOF"),
        ("apply_patch <<\"EOF\"", "EOF"),
        ("apply_patch << 'PATCH'", "PATCH"),
        ("apply_patch <<-EOF", "  EOF"),
        ("cat <<'EOF' | apply_patch", "EOF"),
        ("  apply_patch <<'EOF'  ", "EOF  "),
    ] {
        let patch = format!("{open}\n{ENVELOPE}{close}\n");
        assert_eq!(update_paths(&patch), ["f.txt"], "{open}");
        // Inside a Markdown fence too, and with the delimiter as the unterminated last line.
        let fenced = format!("```bash\n{open}\n{ENVELOPE}{close}\n```\n");
        assert_eq!(update_paths(&fenced), ["f.txt"], "{open}");
        let unterminated = format!("{open}\n{ENVELOPE}{close}");
        assert_eq!(update_paths(&unterminated), ["f.txt"], "{open}");
    }
}

// The wrapper is stripped only when it is whole: a heredoc whose last line is not its
// delimiter is refused naming that line, never guessed at.
#[test]
fn heredoc_that_cannot_be_unwrapped_is_refused_naming_the_line() {
    for (patch, line) in [
        (format!("apply_patch <<'EOF'\n{ENVELOPE}"), 8),
        (format!("apply_patch <<'EOF'\n{ENVELOPE}END\n"), 9),
        (
            format!("apply_patch <<'EOF'\n{ENVELOPE}EOF\necho done\n"),
            10,
        ),
    ] {
        let err = parse_patch(&patch).unwrap_err();
        assert_eq!(err.reason, Reason::InvalidDiffFormat, "{patch}");
        assert_eq!(err.patch_line, Some(line), "{patch}");
        assert!(err.message.contains("heredoc"), "{}", err.message);
    }
    // Other text before the envelope: `invalid_diff_format` naming it (was `empty_diff`).
    let err = parse_patch(&format!("Here is the patch:\n{ENVELOPE}")).unwrap_err();
    assert_eq!(
        (err.reason, err.patch_line),
        (Reason::InvalidDiffFormat, Some(1))
    );
    // A unified diff whose content holds an envelope line is still a unified diff.
    let unified = "--- a/t.md\n+++ b/t.md\n@@ -1,2 +1,2 @@\n *** Begin Patch\n-x\n+y\n";
    assert_eq!(update_paths(unified), ["t.md"]);
}

// Regression: markers indented or followed by spaces were not markers: ` *** Begin Patch`
// sent the patch to the unified parser, `  *** Update File: x` was "unexpected", and a padded
// `*** End Patch` gave a false `truncated_input`.
#[test]
fn whitespace_padded_envelope_markers_are_markers() {
    let padded = " *** Begin Patch\n  *** Update File: f.txt\n@@\n a\n-b\n+B\n  *** End of File\n\t*** Add File: g.txt \n+new\n *** Delete File: h.txt\n*** Update File: i.txt\n  *** Move to: j.txt  \n*** End Patch   \n";
    let parsed = parse_patch(padded).unwrap();
    let paths: Vec<(&str, Option<&str>)> = parsed
        .files
        .iter()
        .map(|f| (f.path(), f.new_path()))
        .collect();
    assert_eq!(
        paths,
        [
            ("f.txt", Some("f.txt")),
            ("g.txt", Some("g.txt")),
            ("h.txt", None),
            ("i.txt", Some("j.txt"))
        ]
    );
    let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
        panic!("expected an update");
    };
    assert!(hunks[0].at_eof);
    let FileChange::Add { lines, .. } = &parsed.files[1].change else {
        panic!("expected an addition");
    };
    assert_eq!(lines, &["new"]);
    // A padded End Patch as the unterminated last line.
    for end in ["*** End Patch ", "  *** End Patch", " *** End Patch \t"] {
        let patch = format!("*** Begin Patch\n*** Update File: f.txt\n@@\n a\n-b\n+B\n{end}");
        assert_eq!(update_paths(&patch), ["f.txt"], "{end:?}");
    }
    // Still truncated when there is no End Patch at all.
    let err =
        parse_patch("*** Begin Patch\n *** Update File: f.txt\n@@\n a\n-b\n+B\n").unwrap_err();
    assert_eq!(err.reason, Reason::TruncatedInput);
}

// Regression: `*** Add File: newdir/` created a file named `newdir`.
#[test]
fn file_markers_must_name_a_file() {
    for (patch, line) in [
        (
            "*** Begin Patch\n*** Add File: newdir/\n+x\n*** End Patch\n",
            2,
        ),
        ("*** Begin Patch\n*** Add File:\n+x\n*** End Patch\n", 2),
        ("*** Begin Patch\n*** Add File:   \n+x\n*** End Patch\n", 2),
        (
            "*** Begin Patch\n*** Update File: src/\n@@\n-a\n+b\n*** End Patch\n",
            2,
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** Move to: b/\n*** End Patch\n",
            3,
        ),
        ("--- /dev/null\n+++ b/newdir/\n@@ -0,0 +1 @@\n+x\n", 1),
    ] {
        let err = parse_patch(patch).unwrap_err();
        assert_eq!(
            (err.reason, err.patch_line),
            (Reason::InvalidDiffFormat, Some(line)),
            "{patch}: {err}"
        );
    }
    let err =
        parse_patch("*** Begin Patch\n*** Add File: newdir/\n+x\n*** End Patch\n").unwrap_err();
    assert!(err.message.contains("names a directory"), "{}", err.message);
}

// Aider's udiff writes `@@ ... @@` headers: numberless like `@@ @@`, located by content.
#[test]
fn aider_ellipsis_headers_are_numberless() {
    for header in ["@@ ... @@", "@@ \u{2026} @@", "@@ ...@@", "@@ @@", "@@"] {
        let patch = format!("--- f\n+++ f\n{header}\n a\n-b\n+B\n c\n");
        let parsed = parse_patch(&patch).unwrap();
        let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
            panic!("expected an update");
        };
        assert_eq!(hunks[0].old_start, None, "{header}");
        assert_eq!(hunks[0].context_hint, None, "{header}");
    }
    // Anything else between the `@@` is still a malformed header.
    let err = parse_patch("--- f\n+++ f\n@@ .. @@\n a\n").unwrap_err();
    assert_eq!(err.reason, Reason::InvalidDiffFormat);
}

// Regression: `old mode` / `new mode` lines were dropped, so a chmod in a git patch was lost
// without a word; they are kept on the file section for the caller to apply.
#[test]
fn git_mode_lines_are_kept_on_the_file_section() {
    let patch = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-a\n+b\n";
    let fp = &parse_patch(patch).unwrap().files[0];
    assert_eq!((fp.old_mode, fp.new_mode), (Some(0o100644), Some(0o100755)));
    assert_eq!(fp.mode_change(), Some(0o100755));
    // A mode change alone is an update without hunks (it was refused as having no hunks).
    let only = "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\ndiff --git a/x b/x\nnew file mode 100755\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+x\n";
    let parsed = parse_patch(only).unwrap();
    let FileChange::Update { hunks, move_to, .. } = &parsed.files[0].change else {
        panic!("expected an update");
    };
    assert!(hunks.is_empty() && move_to.is_none());
    assert_eq!(parsed.files[0].mode_change(), Some(0o100755));
    assert!(matches!(parsed.files[1].change, FileChange::Add { .. }));
    assert_eq!(
        (parsed.files[1].old_mode, parsed.files[1].new_mode),
        (None, Some(0o100755))
    );
    let deleted =
        "diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n";
    let fp = &parse_patch(deleted).unwrap().files[0];
    assert_eq!(
        (fp.old_mode, fp.new_mode, fp.mode_change()),
        (Some(0o100644), None, None)
    );
    // Same mode on both sides: no change, and a section without hunks is still refused.
    let same = "diff --git a/x b/x\nold mode 100644\nnew mode 100644\n";
    assert_eq!(
        parse_patch(same).unwrap_err().reason,
        Reason::InvalidDiffFormat
    );
    // Codex sections and plain unified diffs say nothing about modes.
    let fp = &parse_patch(ENVELOPE).unwrap().files[0];
    assert_eq!((fp.old_mode, fp.new_mode), (None, None));
    // A mode that is not octal is refused naming its line.
    let bad = "diff --git a/x b/x\nold mode 100644\nnew mode 10075x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let err = parse_patch(bad).unwrap_err();
    assert_eq!(
        (err.reason, err.patch_line),
        (Reason::InvalidDiffFormat, Some(3))
    );
}
