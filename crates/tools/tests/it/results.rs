//! The typed facts of each one-file tool and the text rendered from them: what MCP's
//! structured output and the CLI read is the same fact the model's text states.

use lspedit_engine::MatchStrategy;
use lspedit_tools::{Done, EditReport, ReadReport, Tools, ToolsConfig, WriteFileReport};
use lspedit_write::{Reason, Workspace};

fn env(files: &[(&str, &str)]) -> (tempfile::TempDir, Tools) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    let tools = Tools::new(
        Workspace::open(dir.path()).unwrap(),
        None,
        ToolsConfig::default(),
    );
    (dir, tools)
}

fn read(t: &Tools, offset: Option<usize>, limit: Option<usize>) -> (ReadReport, String) {
    let r = t.read_file("ten.txt", offset, limit);
    match r.done {
        Some(Done::Read(report)) => (report, r.llm_content),
        other => panic!("{other:?}: {}", r.llm_content),
    }
}

/// The window a read shows: its numbers, whether more follows, and the line that says so,
/// from the one report (MCP's `lines` object is these fields).
#[test]
fn a_read_reports_its_window_and_says_where_it_lies() {
    let ten: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    let (_dir, t) = env(&[("ten.txt", &ten), ("empty.txt", "")]);

    let (w, text) = read(&t, Some(4), Some(3));
    assert_eq!(
        (w.offset, w.limit, w.shown, w.total_lines, w.more()),
        (4, 3, 3, 10, true)
    );
    assert_eq!(text.lines().count(), 4, "{text}");
    assert!(
        text.ends_with("(lines 4-6 of 10; use offset to read more)\n"),
        "{text}"
    );
    assert_eq!(w.base_sha.len(), 12);

    let (w, text) = read(&t, Some(8), None);
    assert_eq!((w.offset, w.shown, w.more()), (8, 3, false));
    assert!(text.ends_with("(lines 8-10 of 10; use offset to read more)\n"));

    let (w, text) = read(&t, None, None);
    assert_eq!((w.offset, w.shown, w.more()), (1, 10, false));
    assert_eq!(
        text.lines().count(),
        10,
        "the whole file has no footer: {text}"
    );
    assert_eq!(
        t.read_file("ten.txt", None, None).display,
        format!("Read ten.txt (10 lines, base_sha {})", w.base_sha)
    );

    let r = t.read_file("empty.txt", Some(3), None);
    let Some(Done::Read(w)) = &r.done else {
        panic!("{}", r.llm_content)
    };
    assert_eq!((w.total_lines, w.shown, w.more()), (0, 0, false));
    assert_eq!(r.llm_content, "(empty file)\n");

    // Past the end: a refusal, and no facts.
    let r = t.read_file("ten.txt", Some(11), None);
    assert_eq!(r.reason, Some(Reason::OutOfBounds));
    assert!(r.done.is_none());
}

/// `edit` and `write_file` state in their text what their typed report says.
#[test]
fn one_file_writes_report_what_their_text_says() {
    let (dir, t) = env(&[("a.txt", "x = 1\ny = 1\n")]);
    let r = t.edit("a.txt", "y = 1", "y = 2", false);
    assert_eq!(
        r.done,
        Some(Done::Edited(EditReport {
            path: "a.txt".into(),
            count: 1,
            lines: vec![2],
            strategy: MatchStrategy::Exact,
        }))
    );
    assert!(
        r.llm_content.starts_with("Edited a.txt: replaced line 2."),
        "{}",
        r.llm_content
    );
    let r = t.edit("a.txt", "= ", "=  ", true);
    let Some(Done::Edited(e)) = &r.done else {
        panic!("{}", r.llm_content)
    };
    assert_eq!((e.count, e.lines.as_slice()), (2, &[1, 2][..]));
    assert!(
        r.llm_content
            .starts_with("Edited a.txt: replaced 2 places.")
    );

    let r = t.write_file("b.txt", "one\ntwo\n");
    assert_eq!(
        r.done,
        Some(Done::Wrote(WriteFileReport {
            path: "b.txt".into(),
            created: true,
            lines: 2,
            bytes: 8,
            binary: false,
        }))
    );
    assert_eq!(r.llm_content, "Created b.txt (2 lines).");
    assert!(r.display.starts_with("A b.txt\n"), "{}", r.display);
    let r = t.write_file("b.txt", "three\n");
    assert!(matches!(&r.done, Some(Done::Wrote(w)) if !w.created && w.lines == 1));
    assert_eq!(r.llm_content, "Overwrote b.txt (1 line).");

    // Binary content: said so in the report, no diff in the display.
    let r = t.write_file("c.png", "\u{0}\u{1}");
    assert!(matches!(&r.done, Some(Done::Wrote(w)) if w.binary), "{r:?}");
    assert_eq!(r.display, "A c.png\n");
    assert_eq!(r.llm_content, "Created c.png (2 bytes).");
    assert!(dir.path().join("c.png").exists());

    // A refusal has no facts.
    let r = t.edit("a.txt", "absent", "x", false);
    assert!(r.is_error && r.done.is_none(), "{r:?}");
    assert!(r.llm_content.starts_with("Error: "), "{}", r.llm_content);
}

/// `display_diff` off (the CLI without `--diff`): each writing tool's display is its summary
/// lines alone, while the model's text and the file written are what they are with it on.
#[test]
fn without_the_display_diff_the_display_is_the_summary_and_nothing_else_changes() {
    let patch = "--- a/p.txt\n+++ b/p.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n";
    let mut texts = Vec::new();
    for diff in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        for p in ["a.txt", "b.txt", "p.txt"] {
            std::fs::write(dir.path().join(p), "one\ntwo\n").unwrap();
        }
        let config = ToolsConfig {
            display_diff: diff,
            ..ToolsConfig::default()
        };
        let t = Tools::new(Workspace::open(dir.path()).unwrap(), None, config);
        let results = [
            t.edit("a.txt", "two", "2", false),
            t.write_file("b.txt", "three\n"),
            t.apply_patch(patch),
        ];
        for (r, summary) in
            results
                .iter()
                .zip(["M a.txt (line 2)\n", "M b.txt\n", "M p.txt (1 hunk)"])
        {
            assert!(!r.is_error, "{}", r.llm_content);
            assert!(r.display.starts_with(summary), "{}", r.display);
            let has_diff = r.display.contains("\n@@ ");
            assert_eq!(has_diff, diff, "display_diff {diff}: {}", r.display);
            if !diff {
                assert_eq!(r.display.trim_end(), summary.trim_end());
            }
        }
        let written: Vec<String> = ["a.txt", "b.txt", "p.txt"]
            .iter()
            .map(|p| std::fs::read_to_string(dir.path().join(p)).unwrap())
            .collect();
        assert_eq!(written, ["one\n2\n", "three\n", "one\nTWO\n"]);
        texts.push(results.map(|r| r.llm_content));
    }
    assert_eq!(
        texts[0], texts[1],
        "the model's text depends on display_diff"
    );
}
