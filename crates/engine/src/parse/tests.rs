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

// Regression (issue 49): the heredoc without a command to run it was refused as
// `invalid_diff_format`, though the peers' own tests accept it: Codex's lenient parser takes a
// bare `<<EOF`, `<<'EOF'` or `<<"EOF"` first line (models send the heredoc as the tool's
// argument), OpenCode takes `cat <<'EOF'` without a pipe. The tool receiving the text is what
// applies it, so these ask for nothing else; a `cd DIR &&` before them is honoured as before.
#[test]
fn a_heredoc_without_apply_patch_is_unwrapped_as_the_peers_do() {
    for (open, dir) in [
        ("<<EOF", ""),
        ("<<'EOF'", ""),
        ("<<\"EOF\"", ""),
        ("<< 'EOF'", ""),
        ("<<-EOF", ""),
        ("cat <<'EOF'", ""),
        ("cat <<EOF", ""),
        ("cat <<\"EOF\"", ""),
        ("  cat<<'PATCH'  ", ""),
        ("cd src && cat <<'EOF'", "src/"),
        ("cd src && <<'EOF'", "src/"),
    ] {
        let close = if open.contains("PATCH") {
            "PATCH"
        } else {
            "EOF"
        };
        // As the peers' tests send it (no newline after the delimiter), and with one.
        for patch in [
            format!("{open}\n{ENVELOPE}{close}"),
            format!("{open}\n{ENVELOPE}{close}\n"),
        ] {
            assert_eq!(update_paths(&patch), [format!("{dir}f.txt")], "{patch}");
        }
    }
    // Codex's own cases: an add-file envelope in each bare form.
    for open in ["<<EOF", "<<'EOF'", "<<\"EOF\"", "cat <<'EOF'"] {
        let patch =
            format!("{open}\n*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\nEOF");
        assert_eq!(
            sections(&patch),
            [("a.txt".into(), Some("a.txt".into()), 0)],
            "{open}"
        );
    }
    // What Codex refuses stays refused: mismatched quotes, a heredoc not closed by its
    // delimiter. And a heredoc whose body goes anywhere but the patch tool is not honoured.
    for (open, close, line, needle) in [
        ("<<\"EOF'", "EOF", 1, "unclosed quote"),
        ("<<EOF", "END", 9, "not the delimiter `EOF`"),
        (
            "cat <<'EOF' > out.txt",
            "EOF",
            1,
            "`> out.txt` after the heredoc",
        ),
        ("cat <<'EOF' | sh", "EOF", 1, "`| sh` after the heredoc"),
        (
            "<<'EOF' | git apply",
            "EOF",
            1,
            "`| git apply` after the heredoc",
        ),
        ("cat a.txt <<'EOF'", "EOF", 1, "`cat a.txt << 'EOF'`"),
        // Only `cat` pipes the heredoc into the patch tool; the patch tool's own output piped
        // into a second one is not a patch.
        (
            "apply_patch <<'EOF' | apply_patch",
            "EOF",
            1,
            "`| apply_patch` after the heredoc",
        ),
    ] {
        let patch = format!("{open}\n{ENVELOPE}{close}\n");
        check_refused(&patch, Reason::InvalidDiffFormat, line, needle);
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

// The text after a numbered header's closing `@@` (git's function context) is kept as the
// hunk's hint, trimmed; none when nothing follows.
#[test]
fn a_numbered_header_keeps_the_text_after_it_as_the_hint() {
    for (header, hint) in [
        ("@@ -1,3 +1,3 @@ fn main() {", Some("fn main() {")),
        ("@@ -1,3 +1,3 @@\tclass A:  ", Some("class A:")),
        ("@@ -1,3 +1,3 @@", None),
        ("@@ -1,3 +1,3 @@   ", None),
    ] {
        let patch = format!("--- a/f\n+++ b/f\n{header}\n a\n-b\n+B\n c\n");
        let parsed = parse_patch(&patch).unwrap();
        let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
            panic!("expected an update");
        };
        assert_eq!(hunks[0].old_start, Some(1), "{header}");
        assert_eq!(hunks[0].context_hint.as_deref(), hint, "{header}");
    }
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

/// `patch` is refused with `reason` at patch line `line`, the message containing `needle`.
fn check_refused(patch: &str, reason: Reason, line: usize, needle: &str) {
    let err = parse_patch(patch).unwrap_err();
    assert_eq!(
        (err.reason, err.patch_line),
        (reason, Some(line)),
        "{patch:?}: {err}"
    );
    assert!(err.message.contains(needle), "{needle:?} not in {err}");
}

// git quotes a path holding a tab, a newline, a quote, a backslash or a non-ASCII byte
// (`core.quotePath`): `"a/caf\303\251.txt"`. The section must name the real file.
#[test]
fn git_quoted_paths_are_unescaped() {
    let check = |quoted: &str, expected: &str| {
        let patch = format!("--- \"a/{quoted}\"\n+++ \"b/{quoted}\"\n@@ -1 +1 @@\n-x\n+y\n");
        assert_eq!(update_paths(&patch), [expected], "{quoted}");
    };
    check(r"caf\303\251.txt", "café.txt");
    check(r"tab\there", "tab\there");
    check(r"new\nline", "new\nline");
    check(r#"say \"hi\""#, "say \"hi\"");
    check(r"back\\slash", "back\\slash");
    // An octal escape takes at most three digits; a fourth is a plain character.
    check(r"\1011", "A1");
    // A trailing lone backslash is kept as it is.
    check(r"end\", "end\\");
    // A timestamp after a tab (`diff -u`) is not part of the path.
    assert_eq!(
        update_paths(
            "--- a/f.txt\t2026-01-01 00:00:00\n+++ b/f.txt\t2026-01-01\n@@ -1 +1 @@\n-x\n+y\n"
        ),
        ["f.txt"]
    );
}

#[test]
fn unsupported_git_sections_are_refused_with_their_reason() {
    check_refused(
        "diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n",
        Reason::UnsafeDiff,
        3,
        "git copies are not supported",
    );
    check_refused(
        "diff --git a/img.png b/img.png\nindex 1..2 100644\nGIT binary patch\nliteral 4\n",
        Reason::BinaryFile,
        3,
        "binary patches are not supported",
    );
    check_refused(
        "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n",
        Reason::BinaryFile,
        2,
        "binary files are never text-patched",
    );
}

#[test]
fn malformed_hunk_headers_are_refused_naming_the_header() {
    for header in [
        "@@ -1 +1 +1 @@",
        "@@ 1 +1 @@",
        "@@ -1 1 @@",
        "@@ -x +1 @@",
        "@@ -1 +1",
    ] {
        let patch = format!("--- a/f\n+++ b/f\n{header}\n-a\n+b\n");
        check_refused(
            &patch,
            Reason::InvalidDiffFormat,
            3,
            "malformed hunk header",
        );
    }
}

#[test]
fn a_creation_from_dev_null_may_only_add_lines() {
    check_refused(
        "--- /dev/null\n+++ b/new.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n",
        Reason::InvalidDiffFormat,
        3,
        "`new.txt` is created from /dev/null, so its hunks may only add lines",
    );
}

#[test]
fn a_section_with_dev_null_on_both_sides_names_no_file() {
    check_refused(
        "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",
        Reason::InvalidDiffFormat,
        1,
        "file section without paths",
    );
}

#[test]
fn anchors_on_every_added_line_are_refused() {
    check_refused(
        "--- a/f\n+++ b/f\n@@ @@\n 1aaaa|a\n+2bbbb|b\n",
        Reason::AnchoredAddition,
        5,
        "Anchors belong only on context and removal lines",
    );
}

#[test]
fn codex_end_of_file_before_any_change_line_is_refused() {
    check_refused(
        "*** Begin Patch\n*** Update File: f\n*** End of File\n*** End Patch\n",
        Reason::InvalidDiffFormat,
        3,
        "`*** End of File` before any change lines",
    );
}

// Blank lines inside a Codex hunk are context lines whose `' '` prefix an editor stripped;
// kept only when a change line follows them in the same hunk.
#[test]
fn codex_blank_lines_between_change_lines_are_context() {
    let patch = "*** Begin Patch\n*** Update File: f\n@@\n a\n\n-b\n+B\n\n*** End Patch\n";
    let parsed = parse_patch(patch).unwrap();
    let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
        panic!("expected an update");
    };
    let lines: Vec<(LineKind, &str)> = hunks[0]
        .lines
        .iter()
        .map(|l| (l.kind, l.text.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (LineKind::Context, "a"),
            (LineKind::Context, ""),
            (LineKind::Remove, "b"),
            (LineKind::Add, "B"),
        ]
    );
}

/// Every section of `patch` as (path read, path after, hunk count).
fn sections(patch: &str) -> Vec<(String, Option<String>, usize)> {
    parse_patch(patch)
        .unwrap_or_else(|e| panic!("{patch:?}: {e}"))
        .files
        .iter()
        .map(|f| {
            let hunks = match &f.change {
                FileChange::Add { .. } => 0,
                FileChange::Delete { hunks, .. } | FileChange::Update { hunks, .. } => hunks.len(),
            };
            (
                f.path().to_string(),
                f.new_path().map(str::to_string),
                hunks,
            )
        })
        .collect()
}

// Regression (issue 25): `cd 'foo bar' && apply_patch <<'EOF'` wrote `foo` at the workspace
// root: the wrapper's `cd` was dropped with the rest of the command, where the Codex CLI
// honours it. Every path of the envelope is now taken relative to the directory, joined
// lexically (`..` and absolute directories are left for the workspace to confine).
#[test]
fn a_cd_before_apply_patch_moves_every_path_of_the_envelope() {
    let envelope = "*** Begin Patch\n*** Add File: new.txt\n+x\n*** Delete File: old.txt\n*** Update File: f.txt\n*** Move to: sub/g.txt\n@@\n-a\n+b\n*** End Patch\n";
    for (open, dir) in [
        ("cd 'foo bar' && apply_patch <<'EOF'", "foo bar/"),
        ("cd \"foo bar\" && apply_patch <<'EOF'", "foo bar/"),
        ("cd foo\\ bar && apply_patch <<EOF", "foo bar/"),
        ("cd 'foo'\" bar\" && apply_patch <<EOF", "foo bar/"),
        ("cd src && apply_patch <<'EOF'", "src/"),
        ("cd src/ && apply_patch <<'EOF'", "src/"),
        ("cd src; apply_patch <<'EOF'", "src/"),
        ("  cd src &&apply_patch<<'EOF'", "src/"),
        ("cd src && cat <<'EOF' | apply_patch", "src/"),
        (
            "cd \"it's \\\"x\\\"\" && applypatch <<\"EOF\"",
            "it's \"x\"/",
        ),
        ("cd a/b && apply_patch <<-EOF", "a/b/"),
        ("cd .. && apply_patch <<'EOF'", "../"),
        ("cd /abs/dir && apply_patch <<'EOF'", "/abs/dir/"),
        ("cd / && apply_patch <<'EOF'", "/"),
        ("cd . && apply_patch <<'EOF'", ""),
        ("cd ./src && apply_patch <<'EOF'", "src/"),
        ("cd .//src// && apply_patch <<'EOF'", "src/"),
    ] {
        let patch = format!("{open}\n{envelope}EOF\n");
        let p = |name: &str| format!("{dir}{name}");
        assert_eq!(
            sections(&patch),
            [
                (p("new.txt"), Some(p("new.txt")), 0),
                (p("old.txt"), None, 0),
                (p("f.txt"), Some(p("sub/g.txt")), 1),
            ],
            "{open}"
        );
    }
    // An absolute path in the envelope is not moved by the `cd`.
    let patch = "cd src && apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: /tmp/x\n+x\n*** End Patch\nEOF\n";
    assert_eq!(
        sections(patch),
        [("/tmp/x".into(), Some("/tmp/x".into()), 0)]
    );
}

// Anything in the wrapper lspedit cannot honour is refused naming it: ignoring a second `cd`,
// a `pushd` or an expansion would write the files somewhere else than the command would.
#[test]
fn a_wrapper_command_that_cannot_be_honoured_is_refused_naming_it() {
    for (open, needle) in [
        ("cd a && cd b && apply_patch <<'EOF'", "`cd b &&`"),
        ("pushd a && apply_patch <<'EOF'", "`pushd a &&`"),
        ("FOO=1 apply_patch <<'EOF'", "`FOO=1`"),
        ("sudo apply_patch <<'EOF'", "`sudo`"),
        (
            "cd $HOME && apply_patch <<'EOF'",
            "`cd $HOME` (the shell would expand its `$`)",
        ),
        ("cd \"$DIR/x\" && apply_patch <<'EOF'", "`cd \"$DIR/x\"`"),
        ("cd ~/x && apply_patch <<'EOF'", "`cd ~/x`"),
        ("cd src* && apply_patch <<'EOF'", "`cd src*`"),
        ("cd a || apply_patch <<'EOF'", "`cd a ||`"),
        ("cd a & apply_patch <<'EOF'", "`cd a &`"),
        ("cd - && apply_patch <<'EOF'", "`cd - &&`"),
        ("cd && apply_patch <<'EOF'", "`cd && apply_patch`"),
        (
            "apply_patch <<'EOF' > log.txt",
            "`> log.txt` after the heredoc",
        ),
        (
            "apply_patch <<'EOF' && echo ok",
            "`&& echo ok` after the heredoc",
        ),
        (
            "cat <<'EOF' | tee x | apply_patch",
            "`| tee x | apply_patch` after the heredoc",
        ),
        ("git apply <<'EOF'", "it runs no `apply_patch`"),
        ("cd 'a && apply_patch <<'EOF'", "unclosed quote"),
        ("apply_patch <<$EOF", "`apply_patch << $EOF`"),
    ] {
        let patch = format!("{open}\n{ENVELOPE}EOF\n");
        check_refused(&patch, Reason::InvalidDiffFormat, 1, needle);
        check_refused(&patch, Reason::InvalidDiffFormat, 1, "cannot honour");
    }
    // A unified diff under a heredoc that changes directory: its paths would be read from the
    // root, so the `cd` is refused too, not dropped with the rest of the line as prose.
    let diff = "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-a\n+b\n";
    for open in [
        "cd sub && git apply <<'EOF'",
        "cd sub; patch -p1 <<EOF",
        "pushd sub && apply_patch <<'EOF'",
    ] {
        let patch = format!("{open}\n{diff}EOF\n");
        check_refused(
            &patch,
            Reason::InvalidDiffFormat,
            1,
            "cannot honour for a unified diff",
        );
    }
    // Without a `cd` the line before a diff stays prose, ignored as git apply ignores it.
    assert_eq!(
        update_paths(&format!("git apply <<'EOF'\n{diff}EOF\n")),
        ["f.txt"]
    );
    assert_eq!(update_paths(&format!("cd sub and run:\n{diff}")), ["f.txt"]);
}

// Regression (issue 25): an indented ` *** Update File: b.txt` inside a chunk started a new
// section; in the Codex grammar a line of one space and text is a context line, whatever the
// text. (Markers padded otherwise, or in an envelope whose own markers carry that one space,
// stay markers: `whitespace_padded_envelope_markers_are_markers`.)
#[test]
fn a_marker_after_the_context_space_is_a_context_line() {
    for marker in [
        "*** Update File: b.txt",
        "*** Add File: b.txt",
        "*** Delete File: b.txt",
        "*** Move to: b.txt",
        "*** End of File",
        "*** End Patch",
    ] {
        for patch in [
            format!(
                "*** Begin Patch\n*** Update File: a.txt\n@@\n x\n {marker}\n-b\n+B\n*** End Patch\n"
            ),
            format!(
                "*** Begin Patch\n*** Update File: a.txt\n@@\n-b\n+B\n {marker}\n*** Add File: c\n+c\n*** End Patch\n"
            ),
        ] {
            let parsed = parse_patch(&patch).unwrap_or_else(|e| panic!("{patch}: {e}"));
            let FileChange::Update { path, hunks, .. } = &parsed.files[0].change else {
                panic!("expected an update: {patch}");
            };
            assert_eq!(path, "a.txt");
            assert_eq!(hunks.len(), 1, "{patch}");
            assert!(!hunks[0].at_eof, "{patch}");
            assert!(
                hunks[0]
                    .lines
                    .iter()
                    .any(|l| (l.kind, l.text.as_str()) == (LineKind::Context, marker)),
                "{patch}"
            );
            assert!(parsed.files.iter().all(|f| f.path() != "b.txt"), "{patch}");
        }
    }
    // In an envelope indented by one space throughout, the same line is a marker.
    let indented = " *** Begin Patch\n *** Update File: a.txt\n@@\n-b\n+B\n *** Update File: b.txt\n@@\n-c\n+C\n *** End Patch\n";
    assert_eq!(update_paths(indented), ["a.txt", "b.txt"]);
    // Indented by two spaces (or more), the one-space line is a context line again.
    let padded = "  *** Begin Patch\n  *** Update File: a.txt\n@@\n x\n *** Update File: b.txt\n-b\n+B\n  *** End Patch\n";
    assert_eq!(update_paths(padded), ["a.txt"]);
}

// Regression (issue 25): a git section complete without hunks (a rename, a mode change, an
// empty new file) took the `---`/`+++` of a plain diff after it, so that file's hunk was
// applied to the renamed file and the file itself vanished from the report. A `---`/`+++`
// pair belongs to such a section only when it names the section's own files, as in git.
#[test]
fn each_section_keeps_its_own_hunks_in_any_order() {
    let rename = "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n";
    let rename_similarity_last =
        "diff --git a/x b/y\nrename from x\nrename to y\nsimilarity index 100%\n";
    let mode = "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n";
    let empty_new = "diff --git a/x b/x\nnew file mode 100644\nindex 0000000..e69de29\n";
    let plain = "--- a/z\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n";
    let create = "--- /dev/null\n+++ b/z\n@@ -0,0 +1 @@\n+z\n";
    let delete = "--- a/z\n+++ /dev/null\n@@ -1 +0,0 @@\n-z\n";
    let git = "diff --git a/z b/z\nindex 1..2 100644\n--- a/z\n+++ b/z\n@@ -1 +1 @@\n-a\n+b\n";
    let s = |p: &str, n: Option<&str>, h: usize| (p.to_string(), n.map(str::to_string), h);
    for (first, own) in [
        (rename, s("x", Some("y"), 0)),
        (rename_similarity_last, s("x", Some("y"), 0)),
        (mode, s("x", Some("x"), 0)),
        (empty_new, s("x", Some("x"), 0)),
    ] {
        for (second, other) in [
            (plain, s("z", Some("z"), 1)),
            (create, s("z", Some("z"), 0)),
            (delete, s("z", None, 1)),
            (git, s("z", Some("z"), 1)),
        ] {
            let forward = format!("{first}{second}");
            assert_eq!(
                sections(&forward),
                [own.clone(), other.clone()],
                "{forward}"
            );
            let backward = format!("{second}{first}");
            assert_eq!(
                sections(&backward),
                [other.clone(), own.clone()],
                "{backward}"
            );
        }
    }
    // The mode-only section changes the mode of its own file, not the next one's.
    let parsed = parse_patch(&format!("{mode}{plain}")).unwrap();
    assert_eq!(parsed.files[0].mode_change(), Some(0o100755));
    assert_eq!(parsed.files[1].mode_change(), None);
    // A git section's own `---`/`+++` still belong to it: rename with an edit, mode with one.
    let renamed_edit = "diff --git a/x b/y\nsimilarity index 90%\nrename from x\nrename to y\n--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(sections(renamed_edit), [s("x", Some("y"), 1)]);
    let mode_edit = format!("{mode}--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
    assert_eq!(sections(&mode_edit), [s("x", Some("x"), 1)]);
    // Quoted paths in the git header are compared unquoted.
    let quoted = "diff --git \"a/sp ace\" \"b/sp ace\"\nold mode 100644\nnew mode 100755\n--- \"a/sp ace\"\n+++ \"b/sp ace\"\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(sections(quoted), [s("sp ace", Some("sp ace"), 1)]);
    // A quoted path ends at the first quote not escaped: an escaped quote is part of the name,
    // an escaped backslash before the closing quote is not an escape of it.
    let escaped =
        "diff --git \"a/say \\\"hi\\\"\" \"b/say \\\"hi\\\"\"\nold mode 100644\nnew mode 100755\n";
    assert_eq!(sections(escaped), [s("say \"hi\"", Some("say \"hi\""), 0)]);
    let backslash = "diff --git \"a/x\\\\\" \"b/x\\\\\"\nold mode 100644\nnew mode 100755\n";
    assert_eq!(sections(backslash), [s("x\\", Some("x\\"), 0)]);
}

// Regression (issue 25): `+9abcd|B` among plain `+` lines lost its anchor-like prefix without a
// word; only a hunk whose every `+` line carried one was refused. Now any `+` line that starts
// with an anchor is refused, naming the line, wherever it stands in the hunk and whatever the
// format: the prefix is neither dropped nor written.
#[test]
fn an_anchor_on_any_added_line_is_refused_naming_it() {
    for (adds, line) in [
        ("+9abcd|B\n+C\n", 6),
        ("+C\n+9abcd|B\n", 7),
        ("+C\n+9abcd|B\n+D\n", 7),
        ("+C\n+ 9abcd| B\n", 7),
        ("+9abcd|B\n+9abce|C\n", 6),
    ] {
        for header in ["@@ -1,2 +1,3 @@", "@@ @@"] {
            let patch = format!("--- a/f\n+++ b/f\n{header}\n a\n-b\n{adds} c\n");
            check_refused(&patch, Reason::AnchoredAddition, line, "9abcd|");
            check_refused(&patch, Reason::AnchoredAddition, line, "hunk 1: ");
        }
        let codex =
            format!("*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n{adds} c\n*** End Patch\n");
        check_refused(&codex, Reason::AnchoredAddition, line, "9abcd|");
    }
    // Created from /dev/null too.
    check_refused(
        "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+a\n+1abcd|b\n",
        Reason::AnchoredAddition,
        5,
        "`+1abcd|b` starts with an anchor",
    );
    // Text that does not start with a whole anchor and bar is content, kept verbatim.
    for text in ["9abcd", "x 9abcd|B", "9abcz|B", "9|B", "abcd|B"] {
        let patch = format!("--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n a\n+{text}\n+C\n");
        let parsed = parse_patch(&patch).unwrap();
        let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
            panic!("expected an update");
        };
        assert_eq!(hunks[0].lines[1].text, text);
        assert_eq!(hunks[0].lines[1].anchor, None);
    }
}

// Regression (issue 25): a reversed diff (`git diff -R` writes `--- b/x` / `+++ a/x`) named
// `b/x` moved to `a/x` and was refused as `file_not_found`; git apply and `patch -p1` strip one
// prefix from each side, whichever it is.
#[test]
fn git_prefixes_are_stripped_from_either_side() {
    let s = |p: &str, n: Option<&str>, h: usize| (p.to_string(), n.map(str::to_string), h);
    for (old, new) in [
        ("b/x", "a/x"),
        ("a/x", "b/x"),
        ("a/x", "a/x"),
        ("b/x", "b/x"),
        ("x", "b/x"),
    ] {
        let patch = format!("--- {old}\n+++ {new}\n@@ -1 +1 @@\n-a\n+b\n");
        assert_eq!(sections(&patch), [s("x", Some("x"), 1)], "{patch}");
        let git = format!(
            "diff --git {old} {new}\nindex 1..2 100644\n--- {old}\n+++ {new}\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(sections(&git), [s("x", Some("x"), 1)], "{git}");
    }
    // A reversed rename and a reversed mode change name the right files.
    let rename = "diff --git b/new a/old\nsimilarity index 100%\nrename from new\nrename to old\n";
    assert_eq!(sections(rename), [s("new", Some("old"), 0)]);
    let mode = "diff --git b/run.sh a/run.sh\nold mode 100755\nnew mode 100644\n";
    assert_eq!(sections(mode), [s("run.sh", Some("run.sh"), 0)]);
    // Only one prefix goes: a directory named `a` or `b` under it stays.
    let nested = "--- b/a/x\n+++ a/a/x\n@@ -1 +1 @@\n-a\n+b\n";
    assert_eq!(sections(nested), [s("a/x", Some("a/x"), 1)]);
}

// A patch cut off in its last hunk is `truncated_input` whichever side's count is short: the
// old side only, the new side only, or both; in the only file or the last of several.
#[test]
fn a_last_hunk_short_on_either_side_is_truncated() {
    for (hunk, short) in [
        ("@@ -1,2 +1,3 @@\n a\n-b\n+B\n", "1 line(s) short"),
        ("@@ -1,3 +1,2 @@\n a\n-b\n+B\n", "1 line(s) short"),
        ("@@ -1,2 +1,4 @@\n a\n+A\n", "2 line(s) short"),
        ("@@ -1,4 +1,4 @@\n a\n-b\n+B\n", "2 line(s) short"),
        ("@@ -1,3 +1,3 @@\n a\n b\n", "1 line(s) short"),
    ] {
        let only = format!("--- a/f\n+++ b/f\n{hunk}");
        check_refused(&only, Reason::TruncatedInput, 3, short);
        let last = format!("--- a/g\n+++ b/g\n@@ -1 +1 @@\n-g\n+G\n--- a/f\n+++ b/f\n{hunk}");
        check_refused(&last, Reason::TruncatedInput, 8, short);
        // The same counts short in a hunk that is not the last are recounted, not refused.
        let middle = format!("--- a/f\n+++ b/f\n{hunk}@@ -9 +9 @@\n-g\n+G\n");
        assert_eq!(
            sections(&middle),
            [("f".into(), Some("f".into()), 2)],
            "{middle}"
        );
    }
}

// A hunk whose header count is too high, followed by another file's section: the next file
// keeps its header and hunk (regression: its `---`/`+++` were taken as a removal and an
// addition of the first file, and it vanished from the report). A removed `-- x` line (shown
// as `--- x`) inside a hunk that still needs lines stays a removal when no hunk header follows.
#[test]
fn a_count_too_high_does_not_swallow_the_next_files_section() {
    for (count, sep) in [
        ("-1,5 +1,5", ""),
        ("-1,3 +1,9", ""),
        ("-1,4 +1,4", "diff --git a/g b/g\n"),
    ] {
        let patch = format!(
            "--- a/f\n+++ b/f\n@@ {count} @@\n a\n-b\n+B\n{sep}--- a/g\n+++ b/g\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n"
        );
        let parsed = parse_patch(&patch).unwrap();
        let paths: Vec<&str> = parsed.files.iter().map(|f| f.path()).collect();
        assert_eq!(paths, ["f", "g"], "{patch}");
        for f in &parsed.files {
            let FileChange::Update { hunks, .. } = &f.change else {
                panic!("{patch}");
            };
            assert_eq!(hunks.len(), 1, "{patch}");
            assert_eq!(hunks[0].lines.len(), 3, "{patch}");
        }
    }
    // A removed `-- a` and an added `++ b` ending a hunk, the next hunk's header after them
    // (lspedit's own diff with no context writes this): they end the hunk exactly, so they are
    // its lines.
    let own =
        "--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n-x\n--- a\n+y\n+++ b\n@@ -9 +9 @@\n-c\n+d\n";
    let parsed = parse_patch(own).unwrap();
    assert_eq!(parsed.files.len(), 1);
    let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
        panic!()
    };
    assert_eq!(hunks.len(), 2);
    let sql = "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,2 @@\n a\n--- old\n+++ new\n b\n";
    let parsed = parse_patch(sql).unwrap();
    assert_eq!(parsed.files.len(), 1);
    let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
        panic!()
    };
    assert_eq!(hunks[0].lines.len(), 4);
}

// A Codex added file is `+` lines; an empty line among them (a model dropping the `+` of a
// blank line) is an empty line of the file, any other line without `+` is refused.
#[test]
fn an_added_file_takes_empty_lines_and_refuses_lines_without_plus() {
    let parsed =
        parse_patch("*** Begin Patch\n*** Add File: f\n+a\n\n+b\n*** End Patch\n").unwrap();
    let FileChange::Add { lines, .. } = &parsed.files[0].change else {
        panic!("expected an addition: {parsed:?}");
    };
    assert_eq!(lines, &["a", "", "b"]);
    check_refused(
        "*** Begin Patch\n*** Add File: f\n+a\nb\n*** End Patch\n",
        Reason::InvalidDiffFormat,
        4,
        "every line of an added file must start with `+`; found `b`",
    );
}

// An update that names no change (no chunk, no move) is refused naming the file, also when it
// is the envelope's last section.
#[test]
fn an_update_without_changes_is_refused() {
    for after in ["", "*** Delete File: g\n"] {
        check_refused(
            &format!("*** Begin Patch\n*** Update File: f\n{after}*** End Patch\n"),
            Reason::InvalidDiffFormat,
            2,
            "the update of `f` has no changes",
        );
    }
}

// A Codex hunk points at the patch line of its `@@`, or of its first line when it has none:
// where a refusal of the hunk sends the model.
#[test]
fn a_codex_hunk_points_at_its_first_patch_line() {
    let hunk_lines = |patch: &str| -> Vec<usize> {
        let parsed = parse_patch(patch).unwrap();
        let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
            panic!("expected an update: {patch}");
        };
        hunks.iter().map(|h| h.patch_line).collect()
    };
    assert_eq!(
        hunk_lines(
            "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n@@ x\n-c\n+d\n*** End Patch\n"
        ),
        [3, 6]
    );
    assert_eq!(
        hunk_lines("*** Begin Patch\n*** Update File: f\n-a\n+b\n*** End Patch\n"),
        [3]
    );
    // Hunks are numbered across the patch: the second of the second file is hunk 3.
    let patch = "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** Update File: g\n@@\n-c\n+d\n@@\n*** End Patch\n";
    check_refused(patch, Reason::InvalidDiffFormat, 10, "hunk 3 has no lines");
    assert_eq!(parse_patch(patch).unwrap_err().hunk, Some(3));
    let patch = "*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n*** Update File: g\n@@\n-c\n+d\n@@\n-e\n+9abcd|E\n*** End Patch\n";
    check_refused(patch, Reason::AnchoredAddition, 12, "hunk 3: ");
}

/// The first hunk of the first file of `patch`, as (kind, text) pairs.
fn first_hunk(patch: &str) -> Vec<(LineKind, String)> {
    let parsed = parse_patch(patch).unwrap_or_else(|e| panic!("{patch:?}: {e}"));
    let FileChange::Update { hunks, .. } = &parsed.files[0].change else {
        panic!("expected an update: {patch}");
    };
    hunks[0]
        .lines
        .iter()
        .map(|l| (l.kind, l.text.clone()))
        .collect()
}

// A Markdown fence is dropped only when it wraps the whole patch (an opening line starting
// with three backquotes, a closing line of only them): a fence open at one end alone is text
// around the diff, and no line of the diff is taken with it.
#[test]
fn a_fence_is_dropped_only_when_it_wraps_the_whole_patch() {
    let diff = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n";
    let lines = [
        (LineKind::Context, "a".to_string()),
        (LineKind::Remove, "b".to_string()),
        (LineKind::Add, "B".to_string()),
    ];
    for patch in [
        format!("```diff\n{diff}```\n"),
        format!("  ```\n{diff}  ```  \n\n"),
        format!("\n\n```diff\n{diff}```"),
        format!("```diff\n{diff}"),
    ] {
        assert_eq!(first_hunk(&patch), lines, "{patch:?}");
    }
}

// The shell expands a `~` only at the start of a word: `cd ~/x` is refused, a `~` inside the
// directory's name is a plain character of it.
#[test]
fn a_tilde_inside_a_word_is_part_of_the_directory() {
    for (open, dir) in [
        ("cd src~old && apply_patch <<'EOF'", "src~old/f.txt"),
        ("cd a/~ && apply_patch <<'EOF'", "a/~/f.txt"),
    ] {
        assert_eq!(
            update_paths(&format!("{open}\n{ENVELOPE}EOF\n")),
            [dir],
            "{open}"
        );
    }
    check_refused(
        &format!("cd ~ && apply_patch <<'EOF'\n{ENVELOPE}EOF\n"),
        Reason::InvalidDiffFormat,
        1,
        "`cd ~` (the shell would expand its `~`)",
    );
}

// A heredoc delimiter is a word of letters, digits, `_`, `-` and `.`; any other (empty, with a
// space, a slash or another sign) is refused even when the last line matches it, since the
// shell's reading of it is not one lspedit makes.
#[test]
fn a_heredoc_delimiter_is_letters_digits_and_three_signs() {
    for delimiter in ["END_OF-PATCH.1", "_", "-", ".", "x"] {
        let patch = format!("apply_patch <<'{delimiter}'\n{ENVELOPE}{delimiter}\n");
        assert_eq!(update_paths(&patch), ["f.txt"], "{delimiter}");
    }
    for delimiter in ["E F", "E/F", "E+F", "E:F", ""] {
        let patch = format!("apply_patch <<'{delimiter}'\n{ENVELOPE}{delimiter}\nEOF\n");
        check_refused(
            &patch,
            Reason::InvalidDiffFormat,
            1,
            &format!("cannot honour `apply_patch << '{delimiter}'`"),
        );
        let patch = format!("apply_patch <<'{delimiter}'\n{ENVELOPE}{delimiter}\n");
        check_refused(&patch, Reason::InvalidDiffFormat, 1, "cannot honour");
    }
}

// Prose before an envelope is named as such, not read as a shell command; an envelope with
// nothing between its opener and the delimiter is cut off.
#[test]
fn text_before_an_envelope_is_named_as_text() {
    check_refused(
        &format!("Here is the patch:\n{ENVELOPE}"),
        Reason::InvalidDiffFormat,
        1,
        "unexpected text `Here is the patch:` before `*** Begin Patch` (line 2)",
    );
    // The delimiter ends the envelope: it is not read as a line of it, so an envelope without
    // its `*** End Patch` is cut off after its own last line, with or without lines in it.
    for (patch, last) in [
        ("apply_patch <<'EOF'\n*** Begin Patch\nEOF\n", 2),
        (
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\nEOF\n",
            6,
        ),
    ] {
        check_refused(
            patch,
            Reason::TruncatedInput,
            last,
            "the patch has no `*** End Patch` line",
        );
    }
}

// A text with no file in it is `empty_diff` when it has diff structure (a file header, a hunk
// header, a git header or a Codex marker, indented or not), and `invalid_diff_format` naming its
// first line (cut to 60 characters) when it has none: prose is not a diff that changes nothing.
#[test]
fn a_text_without_files_is_empty_only_when_it_looks_like_a_diff() {
    for structure in [
        "--- a/f",
        "+++ b/f",
        "  @@ -1 +1 @@",
        "  diff --git a/f b/f",
        "*** Update File: f",
        "  --- a/f",
    ] {
        let err = parse_patch(&format!("Here is the change:\n{structure}\n")).unwrap_err();
        assert_eq!(
            (err.reason, err.patch_line, err.message.as_str()),
            (Reason::EmptyDiff, None, "the patch changes no file"),
            "{structure}"
        );
    }
    let long = "x".repeat(70);
    for (prose, shown) in [
        ("\n  Just some words  \nmore\n", "Just some words"),
        (long.as_str(), &long[..60]),
    ] {
        check_refused(
            prose,
            Reason::InvalidDiffFormat,
            if prose.starts_with('\n') { 2 } else { 1 },
            &format!(
                "no diff found: the text has no `---`/`+++` file headers, `@@` hunks or `*** Begin Patch` envelope (it starts `{shown}`)"
            ),
        );
    }
}
