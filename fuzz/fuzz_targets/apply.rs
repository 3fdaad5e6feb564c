//! Fuzz target `apply`: parsing and applying a patch to a file never panics, and every file the
//! engine accepts comes back consistent. Two shapes of input: anything at all (`Raw`), and a
//! patch `unified_diff` made from the file and an edited copy, optionally mangled (`Diff`),
//! which reaches relocation and application far more often than random text does. An unmangled
//! `Diff` must reproduce the edited copy byte for byte.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use lspedit_engine::{
    ApplyOptions, DiffOptions, Document, FileChange, FileOutcome, FilePatch, Reason,
    apply_file_patch, apply_hunks, check_text, hashline, parse_patch, unified_diff,
};

#[derive(Debug, Arbitrary)]
enum Case {
    Raw {
        file: Vec<u8>,
        patch: String,
        radius: u8,
    },
    Diff {
        old: Vec<String>,
        new: Vec<String>,
        old_final_newline: bool,
        new_final_newline: bool,
        crlf: bool,
        anchored: bool,
        context: u8,
        mangle: Vec<Mangle>,
    },
}

/// Damage done to a generated patch, at a line or byte picked by the number.
#[derive(Debug, Arbitrary)]
enum Mangle {
    DropLine(u16),
    DuplicateLine(u16),
    InsertLine(u16, String),
    Truncate(u16),
}

fuzz_target!(|case: Case| match case {
    Case::Raw {
        file,
        patch,
        radius,
    } => {
        let opts = ApplyOptions {
            search_radius: usize::from(radius),
            ..ApplyOptions::default()
        };
        if let Ok(patch) = parse_patch(&patch) {
            for fp in &patch.files {
                check(fp, Some(&file), &opts);
                check(fp, None, &opts);
            }
        }
    }
    Case::Diff {
        old,
        new,
        old_final_newline,
        new_final_newline,
        crlf,
        anchored,
        context,
        mangle,
    } => {
        // A file without any line terminator has no line-ending style to keep: lines added to
        // it are LF, so the edited copy is only expected in CRLF when the file shows CRLF.
        let old_has_terminator = old.len() > 1 || (old.len() == 1 && old_final_newline);
        let eol = if crlf && old_has_terminator {
            "\r\n"
        } else {
            "\n"
        };
        let old_text = render(&old, old_final_newline, eol);
        let new_text = render(&new, new_final_newline, eol);
        let diff = unified_diff(
            &old_text,
            &new_text,
            Some("f"),
            Some("f"),
            &DiffOptions {
                context: usize::from(context % 6),
                anchored,
            },
        );
        if diff.is_empty() {
            assert_eq!(old_text, new_text, "an empty diff between different texts");
            return;
        }
        let opts = ApplyOptions::default();
        if mangle.is_empty() {
            let patch = match parse_patch(&diff) {
                Ok(p) => p,
                Err(e) => panic!("unified_diff output does not parse: {e}\n{diff}"),
            };
            assert_eq!(patch.files.len(), 1);
            match apply_file_patch(&patch.files[0], Some(old_text.as_bytes()), &opts) {
                Ok(out) => {
                    let got = out.new_content.unwrap_or_default();
                    assert!(
                        got == new_text.as_bytes(),
                        "diff applied to the old text does not give the new text\n\
                         old: {old_text:?}\nnew: {new_text:?}\ngot: {:?}\ndiff:\n{diff}",
                        String::from_utf8_lossy(&got)
                    );
                }
                Err(e) if e.reason == Reason::BinaryFile => {
                    assert!(check_text(old_text.as_bytes()).is_err());
                }
                Err(e) => panic!("own diff refused: {e}\nold: {old_text:?}\ndiff:\n{diff}"),
            }
            return;
        }
        let mangled = apply_mangles(&diff, &mangle);
        if let Ok(patch) = parse_patch(&mangled) {
            for fp in &patch.files {
                check(fp, Some(old_text.as_bytes()), &opts);
            }
        }
    }
});

/// Lines → text: no line may contain a terminator, and no line may look like an anchored
/// line (`|`) or start with a BOM, which a unified diff cannot express.
fn render(lines: &[String], final_newline: bool, eol: &str) -> String {
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        out.extend(
            l.chars()
                .filter(|c| !matches!(c, '\n' | '\r' | '|' | '\u{FEFF}')),
        );
        if i + 1 < lines.len() || final_newline {
            out.push_str(eol);
        }
    }
    out
}

fn apply_mangles(diff: &str, mangles: &[Mangle]) -> String {
    let mut lines: Vec<String> = diff.split_inclusive('\n').map(str::to_string).collect();
    for m in mangles {
        if lines.is_empty() {
            break;
        }
        let at = |n: u16| usize::from(n) % lines.len();
        match m {
            Mangle::DropLine(n) => {
                let i = at(*n);
                lines.remove(i);
            }
            Mangle::DuplicateLine(n) => {
                let i = at(*n);
                lines.insert(i, lines[i].clone());
            }
            Mangle::InsertLine(n, s) => {
                let i = at(*n);
                lines.insert(i, format!("{s}\n"));
            }
            Mangle::Truncate(n) => {
                let mut text: String = lines.concat();
                let mut cut = usize::from(*n) % (text.len() + 1);
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                lines = text.split_inclusive('\n').map(str::to_string).collect();
            }
        }
    }
    lines.concat()
}

/// Apply one section and check what comes back.
fn check(fp: &FilePatch, current: Option<&[u8]>, opts: &ApplyOptions) {
    let result = apply_file_patch(fp, current, opts);
    agrees_with_document_path(fp, current, opts, &result);
    let Ok(out) = result else {
        return;
    };
    check_outcome(fp, current, &out);
}

/// `apply_file_patch` renders from a view of the bytes; `apply_hunks` on the decoded `Document`
/// must come to the same outcome, bytes, placements and live sync.
fn agrees_with_document_path(
    fp: &FilePatch,
    current: Option<&[u8]>,
    opts: &ApplyOptions,
    result: &Result<FileOutcome, lspedit_engine::EngineError>,
) {
    let (FileChange::Update { hunks, .. }, Some(bytes)) = (&fp.change, current) else {
        return;
    };
    if hunks.is_empty() {
        return;
    }
    let Ok(doc) = Document::from_bytes(bytes) else {
        assert!(result.is_err(), "accepted bytes the Document refuses");
        return;
    };
    match (result, apply_hunks(&doc, hunks, opts)) {
        (Ok(f), Ok(d)) => {
            assert!(f.new_content.as_deref() == Some(d.doc.to_bytes().as_slice()));
            assert_eq!(f.hunks, d.hunks);
            assert_eq!(f.sync, d.sync);
        }
        (Err(f), Err(d)) => assert_eq!(*f, d),
        (f, d) => panic!(
            "file path ok: {}, document path ok: {}",
            f.is_ok(),
            d.is_ok()
        ),
    }
}

fn check_outcome(fp: &FilePatch, current: Option<&[u8]>, out: &FileOutcome) {
    let Some(new) = &out.new_content else {
        assert!(matches!(fp.change, FileChange::Delete { .. }));
        return;
    };
    assert_eq!(out.content_changed, Some(new.as_slice()) != current);
    let text = match std::str::from_utf8(new) {
        Ok(t) => t,
        Err(e) => panic!("the engine produced non-UTF-8 output: {e}"),
    };
    let doc = Document::from_text(text);
    assert_eq!(doc.to_text(), text, "the output does not round-trip");
    let FileChange::Update { hunks, .. } = &fp.change else {
        return;
    };
    if hunks.is_empty() {
        assert_eq!(Some(new.as_slice()), current);
        return;
    }
    assert_eq!(out.hunks.len(), hunks.len());
    // Every hunk line is a change or context; collapsed blank runs may keep a blank line the
    // hunk removes, never add one. An empty last line left without a terminator is no line in
    // the bytes, hence the one line of slack.
    let old_len = current.map_or(0, |c| Document::from_bytes(c).map_or(0, |d| d.len()));
    assert!(doc.len() <= old_len + out.added, "more lines than added");
    assert!(
        doc.len() + out.removed + 1 >= old_len + out.added,
        "fewer lines than removed"
    );
    for p in &out.hunks {
        assert!(p.found_line >= 1 && p.found_line <= old_len + 1);
    }
    // Live sync: every block lies inside the new file and its anchors are fresh.
    for block in &out.sync {
        assert!(block.start_line >= 1);
        assert!(block.start_line - 1 + block.line_count <= doc.len());
        if let Some(lines) = &block.lines {
            assert_eq!(lines.len(), block.line_count);
            for (k, l) in lines.iter().enumerate() {
                let i = block.start_line - 1 + k;
                assert_eq!(
                    *l,
                    hashline(i + 1, &doc.lines[i].text),
                    "stale live-sync anchor"
                );
            }
        }
    }
}
