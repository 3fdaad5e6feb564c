//! The tools against an in-process provider whose every call is counted: exact output text,
//! caps, ordering, and that failures never leak into the result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use lspedit_tools::diagnostics::Severity;
use lspedit_tools::{DiagnosticsMode, DiagnosticsStatus, ToolsConfig};

use crate::support::{Answer, Mock, bad_lines, diag, env};

const SUCCESS_EDIT: &str = "Edited a.ts: replaced line 2.";

fn block(path: &str, lines: &[&str]) -> String {
    format!(
        "<diagnostics file=\"{path}\">\n{}\n</diagnostics>",
        lines.join("\n")
    )
}

// Edit tool (1): no provider → no diagnostics, plain success.
#[test]
fn edit_without_provider_has_no_block() {
    let e = env(None, ToolsConfig::default());
    e.write("a.ts", "let a = 1;\nlet b = 2;\n");
    let r = e.tools.edit("a.ts", "let b = 2;", "let b = BAD;", false);
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(r.llm_content.starts_with(SUCCESS_EDIT), "{}", r.llm_content);
    assert!(!r.llm_content.contains("LSP"));
    assert_eq!(e.read("a.ts"), "let a = 1;\nlet b = BAD;\n");
}

// Edit tool (3), (11): errors → the block, after the success message, exact format.
#[test]
fn edit_with_errors_appends_exact_block_after_success() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    e.write("a.ts", "let a = 1;\nlet b = 2;\n");
    let r = e.tools.edit("a.ts", "let b = 2;", "let b = BAD;", false);
    let expected_tail = format!(
        "\n\nLSP errors detected in this file, please fix:\n{}",
        block(
            "a.ts",
            &["ERROR [2:1] Type 'string' is not assignable to type 'number'. (ts2322)"]
        )
    );
    assert!(r.llm_content.starts_with(SUCCESS_EDIT), "{}", r.llm_content);
    assert!(r.llm_content.ends_with(&expected_tail), "{}", r.llm_content);
    assert_eq!(mock.checks(), 1);
}

// Edit tool (4), (5): no errors → no block; warnings only → no block by default.
#[test]
fn edit_without_errors_or_with_warnings_only_has_no_block() {
    let e = env(Some(Mock::with(|_, _| vec![])), ToolsConfig::default());
    e.write("a.ts", "x\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);

    let e = env(
        Some(Mock::with(|_, _| {
            vec![diag(1, 1, Severity::Warning, "unused", None)]
        })),
        ToolsConfig::default(),
    );
    e.write("a.ts", "x\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);

    let mut cfg = ToolsConfig::default();
    cfg.diagnostics.severities = vec![Severity::Error, Severity::Warning];
    let e = env(
        Some(Mock::with(|_, _| {
            vec![diag(1, 1, Severity::Warning, "unused", None)]
        })),
        cfg,
    );
    e.write("a.ts", "x\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert!(
        r.llm_content.contains("WARNING [1:1] unused\n"),
        "{}",
        r.llm_content
    );
}

// Edit tool (6), (7): at most 20 per file, then `... and N more`.
#[test]
fn edit_caps_at_twenty_with_more_line() {
    let e = env(
        Some(Mock::with(|_, _| {
            (1..=23)
                .map(|i| diag(i, 1, Severity::Error, "e", None))
                .collect()
        })),
        ToolsConfig::default(),
    );
    e.write("a.ts", "x\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert_eq!(
        r.llm_content
            .lines()
            .filter(|l| l.starts_with("ERROR ["))
            .count(),
        20
    );
    assert!(
        r.llm_content
            .contains("ERROR [20:1] e\n... and 3 more\n</diagnostics>"),
        "{}",
        r.llm_content
    );
}

// A file already over the cap: the error an edit introduces is among the 20 shown (in line
// order, like the rest), whatever its line (issue 23: "capped away").
#[test]
fn an_introduced_error_is_never_capped_away() {
    let e = env(
        Some(Mock::with(|_, text| {
            text.lines()
                .enumerate()
                .filter_map(|(i, l)| {
                    let message = match l {
                        "old" => "an error from before the session",
                        "BAD" => "the error this edit introduced",
                        _ => return None,
                    };
                    Some(diag(i as u32 + 1, 1, Severity::Error, message, None))
                })
                .collect()
        })),
        ToolsConfig::default(),
    );
    let mut text = "old\n".repeat(30);
    for i in 1..=10 {
        text.push_str(&format!("ok{i}\n"));
    }
    e.write("a.ts", &text);
    // The session's first check of the file: its 30 errors, 20 shown.
    let r = e.tools.edit("a.ts", "ok1\n", "ok1 \n", false);
    assert!(
        r.llm_content.contains("... and 10 more"),
        "{}",
        r.llm_content
    );
    let r = e.tools.edit("a.ts", "ok5\n", "BAD\n", false);
    let errors: Vec<&str> = r
        .llm_content
        .lines()
        .filter(|l| l.starts_with("ERROR ["))
        .collect();
    assert_eq!(errors.len(), 20, "{}", r.llm_content);
    assert!(
        errors.contains(&"ERROR [35:1] the error this edit introduced"),
        "{}",
        r.llm_content
    );
    assert!(
        r.llm_content.contains("... and 11 more"),
        "{}",
        r.llm_content
    );
}

// Edit tool (8): only the edited file is checked and shown.
#[test]
fn edit_checks_only_the_edited_file() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    e.write("a.ts", "x\n");
    e.write("b.ts", "BAD\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);
    let checked = mock.checked_paths.lock().unwrap().clone();
    assert_eq!(checked.len(), 1);
    assert!(checked[0].ends_with("a.ts"));
}

// Edit tool (2), (9), (10): a failing or panicking provider → plain success, no error text.
#[test]
fn provider_failures_yield_plain_success_without_any_lsp_text() {
    for answer in [
        Answer::Fail("server crashed: broken pipe (os error 32)".into()),
        Answer::Panic,
    ] {
        let e = env(Some(Mock::new(answer)), ToolsConfig::default());
        e.write("a.ts", "let a = 1;\nlet b = 2;\n");
        let r = e.tools.edit("a.ts", "let b = 2;", "let b = 3;", false);
        assert!(!r.is_error);
        assert!(r.llm_content.starts_with(SUCCESS_EDIT), "{}", r.llm_content);
        for leak in [
            "LSP", "crash", "pipe", "panic", "error", "timeout", "exploded",
        ] {
            assert!(
                !r.llm_content.to_lowercase().contains(&leak.to_lowercase()),
                "leaked {leak}: {}",
                r.llm_content
            );
        }
        assert_eq!(e.read("a.ts"), "let a = 1;\nlet b = 3;\n");
    }
}

// Timeout: a provider whose server never answers costs the call its deadline and nothing more
// (the tools add no wait of their own), and leaves no text.
#[test]
fn hung_provider_returns_within_deadline_without_text() {
    let mut cfg = ToolsConfig::default();
    cfg.diagnostics.timeout = Some(Duration::from_millis(300));
    let e = env(Some(Mock::new(Answer::Hang)), cfg);
    e.write("a.ts", "x\n");
    let t = Instant::now();
    let r = e.tools.edit("a.ts", "x", "y", false);
    let took = t.elapsed();
    assert!(took < Duration::from_millis(300 + 400), "took {took:?}");
    assert!(
        took >= Duration::from_millis(300),
        "returned before the deadline: {took:?}"
    );
    assert!(
        !r.llm_content.contains("LSP") && !r.llm_content.contains("timed"),
        "{}",
        r.llm_content
    );
    assert_eq!(e.read("a.ts"), "y\n");
    let statuses: Vec<_> = r
        .diagnostics
        .iter()
        .map(|d| (d.path.as_str(), d.status))
        .collect();
    assert_eq!(statuses, [("a.ts", DiagnosticsStatus::TimedOut)]);
}

// Regression: every diagnostics check started a thread of its own (abandoned at the deadline),
// a second place where timeouts lived. The deadline is the provider's: every writing tool asks
// it on the caller's thread.
#[test]
fn every_writing_tool_checks_on_the_callers_thread() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    e.write("a.ts", "x\n");
    assert!(!e.tools.edit("a.ts", "x", "y", false).is_error);
    assert!(!e.tools.write_file("b.ts", "z\n").is_error);
    let patch = "--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-y\n+w\n";
    assert!(!e.tools.apply_patch(patch).is_error);
    let here = std::thread::current().id();
    let on = mock.checked_on.lock().unwrap().clone();
    assert_eq!(on.len(), 3, "one check per writing tool");
    assert!(on.iter().all(|t| *t == here), "{on:?} vs {here:?}");
}

// Edit tool (12): binary files never touch the provider.
#[test]
fn binary_files_never_touch_the_provider() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    std::fs::write(e.root().join("img.ts"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    let r = e.tools.edit("img.ts", "PNG", "JPG", false);
    assert!(r.is_error);
    assert!(r.llm_content.contains("binary_file"), "{}", r.llm_content);
    let r = e.tools.write_file("pic.png", "BAD\n");
    assert!(!r.is_error);
    let r = e.tools.apply_patch("--- a/img.ts\n+++ /dev/null\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(mock.checks(), 0);
}

// Edit refusals say why and how many matches there were; nothing is written.
#[test]
fn edit_refusals_explain_and_leave_the_file() {
    let e = env(None, ToolsConfig::default());
    e.write("a.ts", "x\nx\n");
    let r = e.tools.edit("a.ts", "x", "y", false);
    assert!(r.is_error);
    assert!(
        r.llm_content.contains("ambiguous_match") && r.llm_content.contains("occurs 2 times"),
        "{}",
        r.llm_content
    );
    assert!(r.llm_content.contains("a.ts"), "{}", r.llm_content);
    let r = e.tools.edit("a.ts", "nothere", "y", false);
    assert!(
        r.is_error && r.llm_content.contains("hunk_mismatch"),
        "{}",
        r.llm_content
    );
    let r = e.tools.edit("../outside.ts", "x", "y", false);
    assert!(
        r.is_error && r.llm_content.contains("path_outside_workspace"),
        "{}",
        r.llm_content
    );
    assert_eq!(e.read("a.ts"), "x\nx\n");
    let r = e.tools.edit("a.ts", "x", "y", true);
    assert!(!r.is_error);
    assert!(
        r.llm_content.starts_with("Edited a.ts: replaced 2 places."),
        "{}",
        r.llm_content
    );
}

// Edit keeps CRLF and BOM; the result carries fresh anchors.
#[test]
fn edit_keeps_crlf_and_bom_and_returns_fresh_anchors() {
    let e = env(None, ToolsConfig::default());
    std::fs::write(e.root().join("w.ts"), "\u{FEFF}one\r\ntwo\r\n").unwrap();
    let r = e.tools.edit("w.ts", "two", "TWO\nthree", false);
    assert_eq!(e.read("w.ts"), "\u{FEFF}one\r\nTWO\r\nthree\r\n");
    let anchor2 = lspedit_engine::hashline(2, "TWO");
    assert!(
        r.llm_content
            .contains(&format!("w.ts lines 2-3 now:\n{anchor2}\n")),
        "{}",
        r.llm_content
    );
}

// Apply-patch (1), (2), (13): one block per content-written file, in path order, same format.
#[test]
fn apply_patch_blocks_per_file_in_path_order() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    e.write("z.ts", "a\n");
    e.write("b.ts", "a\n");
    let patch = "--- a/z.ts\n+++ b/z.ts\n@@ -1 +1 @@\n-a\n+BAD\n--- a/b.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-a\n+BAD\n";
    let r = e.tools.apply_patch(patch);
    assert!(!r.is_error, "{}", r.llm_content);
    let line = "ERROR [1:1] Type 'string' is not assignable to type 'number'. (ts2322)";
    let b = format!(
        "LSP errors detected in b.ts, please fix:\n{}",
        block("b.ts", &[line])
    );
    let z = format!(
        "LSP errors detected in z.ts, please fix:\n{}",
        block("z.ts", &[line])
    );
    let bi = r.llm_content.find(&b).expect(&r.llm_content);
    let zi = r.llm_content.find(&z).expect(&r.llm_content);
    assert!(bi < zi);
    assert!(
        r.llm_content
            .starts_with("M z.ts (1 hunk)\nM b.ts (1 hunk)\n"),
        "{}",
        r.llm_content
    );
    assert_eq!(mock.checks(), 2);
}

// Apply-patch (3)-(8): which files reach the provider.
#[test]
fn apply_patch_only_content_written_files_reach_the_provider() {
    let cases: &[(&str, &[&str])] = &[
        // (3) rename only
        (
            "diff --git a/a.ts b/b.ts\nrename from a.ts\nrename to b.ts\n",
            &[],
        ),
        // (4) delete only
        ("--- a/a.ts\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", &[]),
        // (6) rename A→B with edits → B
        (
            "diff --git a/a.ts b/b.ts\nrename from a.ts\nrename to b.ts\n--- a/a.ts\n+++ b/b.ts\n@@ -1 +1 @@\n-a\n+BAD\n",
            &["b.ts"],
        ),
        // (7) pure rename A→B + modify C + delete D → C only
        (
            "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** Update File: c.ts\n@@\n-c\n+BAD\n*** Delete File: d.ts\n*** End Patch\n",
            &["c.ts"],
        ),
        // (5), (8) rename A→B with edits + delete C → B only
        (
            "*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-a\n+BAD\n*** Delete File: c.ts\n*** End Patch\n",
            &["b.ts"],
        ),
    ];
    for (patch, expected) in cases {
        let mock = Mock::with(bad_lines);
        let e = env(Some(mock.clone()), ToolsConfig::default());
        e.write("a.ts", "a\n");
        e.write("c.ts", "c\n");
        e.write("d.ts", "d\n");
        let r = e.tools.apply_patch(patch);
        assert!(!r.is_error, "{patch}\n{}", r.llm_content);
        let checked: Vec<String> = mock
            .checked_paths
            .lock()
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(&checked, expected, "{patch}");
        for f in *expected {
            assert!(
                r.llm_content
                    .contains(&format!("LSP errors detected in {f}, please fix:")),
                "{}",
                r.llm_content
            );
        }
    }
}

// Apply-patch (9)-(12): no provider, failing provider → success without LSP text.
#[test]
fn apply_patch_survives_missing_and_failing_providers() {
    for mock in [
        None,
        Some(Mock::new(Answer::Fail("EOF from server".into()))),
        Some(Mock::new(Answer::Panic)),
    ] {
        let e = env(mock, ToolsConfig::default());
        e.write("a.ts", "a\n");
        let r = e
            .tools
            .apply_patch("--- a/a.ts\n+++ b/a.ts\n@@ -1 +1 @@\n-a\n+b\n");
        assert!(!r.is_error);
        assert!(
            r.llm_content.starts_with("M a.ts (1 hunk)"),
            "{}",
            r.llm_content
        );
        assert!(
            !r.llm_content.contains("LSP") && !r.llm_content.contains("EOF"),
            "{}",
            r.llm_content
        );
        assert_eq!(e.read("a.ts"), "b\n");
    }
}

// write_file: the file's block, then up to 5 other files with errors, sorted by path.
#[test]
fn write_file_reports_other_files_sorted_and_capped() {
    let mut mock = Mock::with(bad_lines);
    let others: Vec<_> = ["f.ts", "b.ts", "a.ts", "e.ts", "d.ts", "c.ts"]
        .iter()
        .map(|n| {
            (
                std::path::PathBuf::from(format!("/nonexistent/{n}")),
                vec![diag(3, 2, Severity::Error, "boom", None)],
            )
        })
        .collect();
    Arc::get_mut(&mut mock).unwrap().others = others;
    let e = env(Some(mock), ToolsConfig::default());
    let r = e.tools.write_file("new/x.ts", "ok\nBAD\n");
    assert!(
        r.llm_content.starts_with(
            "Created new/x.ts (2 lines).\n\nLSP errors detected in this file, please fix:\n"
        ),
        "{}",
        r.llm_content
    );
    let others_at = r
        .llm_content
        .find("LSP errors detected in other files:\n")
        .expect(&r.llm_content);
    let tail = &r.llm_content[others_at..];
    let files: Vec<&str> = tail
        .lines()
        .filter(|l| l.starts_with("<diagnostics file="))
        .collect();
    assert_eq!(files.len(), 5, "{tail}");
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted);
    assert_eq!(e.read("new/x.ts"), "ok\nBAD\n");
}

// "new" mode: a pre-existing error that moved is hidden and counted.
#[test]
fn new_mode_hides_moved_pre_existing_errors() {
    let mut cfg = ToolsConfig::default();
    cfg.diagnostics.mode = DiagnosticsMode::New;
    let e = env(Some(Mock::with(bad_lines)), cfg);
    e.write("a.ts", "one\nBAD old\n");
    let r = e.tools.edit("a.ts", "one\n", "zero\none\nBAD new\n", false);
    assert!(
        r.llm_content.contains(&block(
            "a.ts",
            &["ERROR [3:1] Type 'string' is not assignable to type 'number'. (ts2322)"]
        )),
        "{}",
        r.llm_content
    );
    assert!(!r.llm_content.contains("[4:1]"), "{}", r.llm_content);
    assert!(
        r.llm_content
            .ends_with("</diagnostics>\n(1 pre-existing errors not shown)"),
        "{}",
        r.llm_content
    );
}

// Concurrent edits to one file serialize: every edit lands.
#[test]
fn concurrent_edits_to_one_file_serialize() {
    let e = env(None, ToolsConfig::default());
    let content: String = (0..16).map(|i| format!("line {i}\n")).collect();
    e.write("a.ts", &content);
    std::thread::scope(|s| {
        for i in 0..16 {
            let tools = &e.tools;
            s.spawn(move || {
                let r = tools.edit(
                    "a.ts",
                    &format!("line {i}\n"),
                    &format!("edited {i}\n"),
                    false,
                );
                assert!(!r.is_error, "{}", r.llm_content);
            });
        }
    });
    let expected: String = (0..16).map(|i| format!("edited {i}\n")).collect();
    assert_eq!(e.read("a.ts"), expected);
}

// The read-before-write guard refuses a write when the file changed since it was read.
#[test]
fn read_guard_refuses_stale_writes() {
    let cfg = ToolsConfig {
        read_guard: true,
        ..ToolsConfig::default()
    };
    let e = env(None, cfg);
    e.write("a.ts", "x\n");
    let r = e.tools.read_file("a.ts", None, None);
    assert!(
        r.llm_content.starts_with(&lspedit_engine::hashline(1, "x")),
        "{}",
        r.llm_content
    );
    e.write("a.ts", "changed\n");
    let r = e.tools.edit("a.ts", "changed", "y", false);
    assert!(
        r.is_error && r.llm_content.contains("stale_context"),
        "{}",
        r.llm_content
    );
    assert_eq!(e.read("a.ts"), "changed\n");
    e.tools.read_file("a.ts", None, None);
    let r = e.tools.edit("a.ts", "changed", "y", false);
    assert!(!r.is_error, "{}", r.llm_content);
    // Its own write does not make the file stale.
    let r = e.tools.edit("a.ts", "y", "z", false);
    assert!(!r.is_error, "{}", r.llm_content);
}

// read_file warms the server without waiting, and pages.
#[test]
fn read_file_touches_and_pages() {
    let mock = Mock::with(bad_lines);
    let e = env(Some(mock.clone()), ToolsConfig::default());
    e.write("a.ts", "1\n2\n3\n");
    let r = e.tools.read_file("a.ts", Some(2), Some(1));
    assert_eq!(
        r.llm_content,
        format!(
            "{}\n(lines 2-2 of 3; use offset to read more)\n",
            lspedit_engine::hashline(2, "2")
        )
    );
    assert_eq!(mock.touches.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(mock.checks(), 0);
}
