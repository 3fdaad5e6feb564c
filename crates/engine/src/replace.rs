//! Search/replace, the `edit` tool's matcher (docs/design.md §3.3): the exact text first, then a
//! short chain of safe fallbacks — trailing whitespace, indentation, Unicode punctuation. A
//! fallback compares whole lines, must match exactly one place with the same line count, and is
//! never accepted when the matched text is out of proportion to the text asked for.

use crate::front::{Arg, Step, say};
use std::ops::Range;

use crate::apply::{ApplyOptions, SyncBlock, live_sync};
use crate::edit::{LineEdit, LineEdits};
use crate::error::{EngineError, Reason};
use crate::file::edited_len;
use crate::hash::fold_punctuation;
use crate::indent;
use crate::text::{Document, TextView};

/// Which comparison found the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchStrategy {
    Exact,
    TrailingWhitespace,
    Indentation,
    UnicodePunctuation,
}

impl MatchStrategy {
    pub fn as_str(self) -> &'static str {
        match self {
            MatchStrategy::Exact => "exact",
            MatchStrategy::TrailingWhitespace => "trailing_whitespace",
            MatchStrategy::Indentation => "indentation",
            MatchStrategy::UnicodePunctuation => "unicode_punctuation",
        }
    }
}

/// The result of [`search_replace`].
#[derive(Debug, Clone)]
pub struct Replaced {
    pub doc: Document,
    pub edits: LineEdits,
    /// How many places were replaced.
    pub count: usize,
    pub strategy: MatchStrategy,
    /// 1-based first line of every replaced place, in the original file.
    pub lines: Vec<usize>,
    pub sync: Vec<SyncBlock>,
}

/// The result of [`search_replace_bytes`]: the new file bytes instead of a [`Document`].
#[derive(Debug, Clone)]
pub struct ReplacedBytes {
    pub new_content: Vec<u8>,
    /// How many places were replaced.
    pub count: usize,
    pub strategy: MatchStrategy,
    /// 1-based first line of every replaced place, in the original file.
    pub lines: Vec<usize>,
    pub sync: Vec<SyncBlock>,
}

/// Replace `old` by `new` in `doc`. Without `replace_all`, `old` must occur exactly once.
/// Errors: `hunk_mismatch` (not found), `ambiguous_match` (several places), `unsafe_diff`
/// (empty `old`, or a disproportionate fallback match).
pub fn search_replace(
    doc: &Document,
    old: &str,
    new: &str,
    replace_all: bool,
    opts: &ApplyOptions,
) -> Result<Replaced, EngineError> {
    let (edits, strategy, lines) =
        replace_edits(&TextView::of_document(doc), old, new, replace_all)?;
    // Only the lines are new; cloning the whole document first would copy every line twice.
    let new_doc = Document {
        lines: edits.apply(&doc.lines),
        eol: doc.eol,
        bom: doc.bom,
        final_newline: doc.final_newline,
    };
    let sync = live_sync(new_doc.len(), &edits, opts);
    Ok(Replaced {
        doc: new_doc,
        edits,
        count: lines.len(),
        strategy,
        lines,
        sync,
    })
}

/// [`search_replace`] on a file's bytes, as the `edit` tool reads it: the text is read as lines
/// borrowed from `bytes` and the result rendered from it directly (no `String` per line,
/// unchanged lines copied in whole runs), the same bytes [`search_replace`]'s document renders
/// to. Errors also: `binary_file`, `not_utf8`.
pub fn search_replace_bytes(
    bytes: &[u8],
    old: &str,
    new: &str,
    replace_all: bool,
    opts: &ApplyOptions,
) -> Result<ReplacedBytes, EngineError> {
    let view = TextView::from_bytes(bytes)?;
    let (edits, strategy, lines) = replace_edits(&view, old, new, replace_all)?;
    let new_content = edits.render(&view, view.final_newline);
    let sync = live_sync(
        edited_len(&view, &edits, view.final_newline, &new_content),
        &edits,
        opts,
    );
    Ok(ReplacedBytes {
        new_content,
        count: lines.len(),
        strategy,
        lines,
        sync,
    })
}

/// The line edits replacing `old` by `new` in `view`, the strategy that found it and the
/// 1-based first line of every place.
/// An argument of `edit`, as the reader spells it.
fn arg(a: Arg) -> String {
    say(&Step::Arg(a))
}

fn replace_edits(
    view: &TextView<'_>,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(LineEdits, MatchStrategy, Vec<usize>), EngineError> {
    let old = old.replace("\r\n", "\n");
    let new = new.replace("\r\n", "\n");
    if old.trim().is_empty() {
        return Err(EngineError::new(
            Reason::UnsafeDiff,
            format!(
                "{} is empty or only whitespace; give the exact text to replace (to write a whole file, use {})",
                arg(Arg::OldText),
                say(&Step::CreateFile)
            ),
        ));
    }
    if old == new {
        return Err(EngineError::new(
            Reason::EmptyDiff,
            format!(
                "{} and {} are identical; nothing to change",
                arg(Arg::OldText),
                arg(Arg::NewText)
            ),
        ));
    }
    let file: Vec<&str> = view.lines.iter().map(|l| l.text).collect();
    let joined = view.joined();
    let starts = line_starts(&file);
    let exact: Vec<usize> = joined.match_indices(old.as_str()).map(|(i, _)| i).collect();
    let mut first_lines: Vec<usize> = Vec::new();
    let (strategy, places): (MatchStrategy, Vec<Place>) = if !exact.is_empty() {
        if exact.len() > 1 && !replace_all {
            let lines: Vec<String> = exact
                .iter()
                .take(5)
                .map(|&b| (line_of(&starts, b) + 1).to_string())
                .collect();
            return Err(EngineError::new(
                Reason::AmbiguousMatch,
                format!(
                    "{} occurs {} times (at lines {}{}); include more surrounding lines to make it unique, or set {}",
                    arg(Arg::OldText),
                    exact.len(),
                    lines.join(", "),
                    if exact.len() > 5 { ", …" } else { "" },
                    arg(Arg::ReplaceAll)
                ),
            ));
        }
        // Matches sharing a line (`foo bar foo` with `--all`) are one place: one edit of the
        // lines they span, every match in it replaced; separate edits of one line would
        // overlap.
        let mut places: Vec<Place> = Vec::new();
        let mut k = 0;
        while k < exact.len() {
            let l0 = line_of(&starts, exact[k]);
            let mut l1 = line_of(&starts, exact[k] + old.len());
            let mut last = k;
            while last + 1 < exact.len() && line_of(&starts, exact[last + 1]) <= l1 {
                last += 1;
                l1 = l1.max(line_of(&starts, exact[last] + old.len()));
            }
            let end = starts.get(l1 + 1).map_or(joined.len(), |&s| s - 1);
            let mut replacement = String::new();
            let mut at = starts[l0];
            for &b in &exact[k..=last] {
                replacement.push_str(&joined[at..b]);
                replacement.push_str(&new);
                at = b + old.len();
            }
            replacement.push_str(&joined[at..end]);
            places.push(Place {
                lines: l0..l1 + 1,
                replacement,
            });
            k = last + 1;
        }
        first_lines = exact.iter().map(|&b| line_of(&starts, b) + 1).collect();
        (MatchStrategy::Exact, places)
    } else {
        fallback(&file, &old, &new)?
    };
    if first_lines.is_empty() {
        first_lines = places.iter().map(|p| p.lines.start + 1).collect();
    }
    let edits = places
        .into_iter()
        .map(|p| LineEdit {
            range: p.lines,
            lines: p
                .replacement
                .split('\n')
                .map(|l| view.new_line(l))
                .collect(),
        })
        .collect();
    let edits = LineEdits::new(edits).map_err(|_| {
        EngineError::new(
            Reason::AmbiguousMatch,
            format!(
                "{} matches overlapping places; make it more specific",
                arg(Arg::OldText)
            ),
        )
    })?;
    Ok((edits, strategy, first_lines))
}

struct Place {
    lines: Range<usize>,
    replacement: String,
}

/// Where each line starts in the lines joined with `\n`.
fn line_starts(lines: &[&str]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(lines.len().max(1));
    let mut at = 0;
    starts.push(0);
    for l in lines.iter().take(lines.len().saturating_sub(1)) {
        at += l.len() + 1;
        starts.push(at);
    }
    starts
}

/// The 0-based line holding byte `b`.
fn line_of(starts: &[usize], b: usize) -> usize {
    starts.partition_point(|&s| s <= b).saturating_sub(1)
}

fn leading_ws(s: &str) -> &str {
    &s[..s.len() - s.trim_start().len()]
}

/// The line-based fallbacks, in order; the first that finds anything decides.
fn fallback(
    file: &[&str],
    old: &str,
    new: &str,
) -> Result<(MatchStrategy, Vec<Place>), EngineError> {
    let old_lines: Vec<&str> = old.strip_suffix('\n').unwrap_or(old).split('\n').collect();
    let new_body = new.strip_suffix('\n').unwrap_or(new);
    type Cmp = fn(&str, &str) -> bool;
    let chain: [(MatchStrategy, Cmp); 3] = [
        (MatchStrategy::TrailingWhitespace, |a, b| {
            a.trim_end() == b.trim_end()
        }),
        (MatchStrategy::Indentation, |a, b| a.trim() == b.trim()),
        (MatchStrategy::UnicodePunctuation, |a, b| {
            fold_punctuation(a).trim() == fold_punctuation(b).trim()
        }),
    ];
    let n = old_lines.len();
    for (strategy, eq) in chain {
        let hits: Vec<usize> = (0..(file.len() + 1).saturating_sub(n))
            .filter(|&p| (0..n).all(|k| eq(file[p + k], old_lines[k])))
            .collect();
        match hits.len() {
            0 => continue,
            1 => {}
            k => {
                let lines: Vec<String> = hits.iter().take(5).map(|p| (p + 1).to_string()).collect();
                return Err(EngineError::new(
                    Reason::AmbiguousMatch,
                    format!(
                        "{} is not in the file exactly; ignoring {} it matches {k} places (lines {}); copy the exact text from the file",
                        arg(Arg::OldText),
                        strategy_words(strategy),
                        lines.join(", ")
                    ),
                ));
            }
        }
        let p = hits[0];
        let matched: usize = file[p..p + n].iter().map(|l| l.len() + 1).sum();
        let asked = old.len().max(1);
        if matched > asked * 2 + 16 || asked > matched * 2 + 16 {
            return Err(EngineError::new(
                Reason::UnsafeDiff,
                format!(
                    "{old_arg} only matches lines {}-{} after ignoring {}, and that text is out of proportion to {old_arg} ({matched} vs {asked} bytes); copy the exact text from the file",
                    p + 1,
                    p + n,
                    strategy_words(strategy),
                    old_arg = arg(Arg::OldText)
                ),
            ));
        }
        let replacement = if strategy == MatchStrategy::TrailingWhitespace {
            new_body.to_string()
        } else {
            reindent(
                new_body,
                file,
                &old_lines,
                old_lines
                    .iter()
                    .copied()
                    .find(|l| !l.trim().is_empty())
                    .map_or("", leading_ws),
                file[p..p + n]
                    .iter()
                    .copied()
                    .find(|l| !l.trim().is_empty())
                    .map_or("", leading_ws),
            )
        };
        return Ok((
            strategy,
            vec![Place {
                lines: p..p + n,
                replacement,
            }],
        ));
    }
    Err(EngineError::new(
        Reason::HunkMismatch,
        format!(
            "{} was not found in the file (also not ignoring trailing whitespace, indentation or Unicode punctuation); re-read the file and copy the text exactly",
            arg(Arg::OldText)
        ),
    ))
}

fn strategy_words(s: MatchStrategy) -> &'static str {
    match s {
        MatchStrategy::Exact => "nothing",
        MatchStrategy::TrailingWhitespace => "trailing whitespace",
        MatchStrategy::Indentation => "indentation",
        MatchStrategy::UnicodePunctuation => "indentation and Unicode punctuation",
    }
}

/// Shift `new`'s indentation from the indentation the model used (`from`) to the file's (`to`),
/// in the file's style: a level of the model's (its tabs or its width of spaces, measured on
/// `old` and `new`) is a level of the file's, so a tab-indented file never gets a line indented
/// `\t    ` ([`crate::indent`]).
fn reindent(new: &str, file: &[&str], old: &[&str], from: &str, to: &str) -> String {
    let model = old.iter().copied().chain(new.split('\n'));
    let (file_style, model_style) = indent::styles(file.iter().copied(), model);
    new.split('\n')
        .map(|l| indent::reindent_line(l, from, to, model_style, file_style))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        file: &str,
        old: &str,
        new: &str,
        all: bool,
        expected: Result<(&str, MatchStrategy), Reason>,
    ) {
        let doc = Document::from_text(file);
        let got = search_replace(&doc, old, new, all, &ApplyOptions::default());
        // The bytes form agrees with the document form: same bytes, strategy, places, or the
        // same refusal.
        let bytes = search_replace_bytes(file.as_bytes(), old, new, all, &ApplyOptions::default());
        match (&got, &bytes) {
            (Ok(d), Ok(b)) => {
                assert_eq!(String::from_utf8_lossy(&b.new_content), d.doc.to_text());
                assert_eq!(
                    (b.strategy, b.count, &b.lines),
                    (d.strategy, d.count, &d.lines)
                );
            }
            (Err(d), Err(b)) => assert_eq!(d.reason, b.reason),
            (d, b) => panic!("document form {d:?}, bytes form {b:?}"),
        }
        match (got, expected) {
            (Ok(r), Ok((text, strategy))) => {
                assert_eq!(r.doc.to_text(), text);
                assert_eq!(r.strategy, strategy);
            }
            (Err(e), Err(reason)) => assert_eq!(e.reason, reason, "{}", e.message),
            (got, want) => panic!("got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn exact_partial_line_and_multiline() {
        check(
            "let a = 1;\nlet b = 2;\n",
            "a = 1",
            "a = 10",
            false,
            Ok(("let a = 10;\nlet b = 2;\n", MatchStrategy::Exact)),
        );
        check(
            "a\nb\nc\n",
            "a\nb\n",
            "x\n",
            false,
            Ok(("x\nc\n", MatchStrategy::Exact)),
        );
        check(
            "a\nb\nc",
            "c",
            "c\nd",
            false,
            Ok(("a\nb\nc\nd", MatchStrategy::Exact)),
        );
    }

    // A whitespace-insensitive match must not let a short old_text stand for
    // a much longer line (or the reverse), which would replace text the model never saw.
    #[test]
    fn a_loose_match_out_of_proportion_to_old_text_is_refused() {
        let padded = format!("foo(){}", " ".repeat(40));
        check(
            "foo()\nbar\n",
            &padded,
            "baz()",
            false,
            Err(Reason::UnsafeDiff),
        );
        let doc = Document::from_text("foo()\nbar\n");
        let err =
            search_replace(&doc, &padded, "baz()", false, &ApplyOptions::default()).unwrap_err();
        assert!(
            err.message
                .contains("only matches lines 1-1 after ignoring trailing whitespace"),
            "{}",
            err.message
        );
    }

    // The proportion rule at its bounds, both ways: the lines matched (newlines counted) may be
    // up to twice old_text plus 16 bytes, and old_text up to twice the lines plus 16.
    #[test]
    fn a_loose_match_is_accepted_up_to_twice_plus_sixteen_bytes() {
        // old_text "ab " (3 bytes) against an indented "ab": 3 * 2 + 16 = 22 bytes of line.
        let line = |indent: usize| format!("{}ab\n", " ".repeat(indent));
        check(
            &line(19),
            "ab ",
            "cd",
            false,
            Ok((
                &format!("{}cd\n", " ".repeat(19)),
                MatchStrategy::Indentation,
            )),
        );
        check(&line(20), "ab ", "cd", false, Err(Reason::UnsafeDiff));
        // A short old_text against a much longer line: only the first bound refuses it.
        check(&line(40), "ab ", "cd", false, Err(Reason::UnsafeDiff));
        // old_text "ab" with trailing spaces against the 3 bytes of "ab\n": up to 22 bytes.
        let old = |pad: usize| format!("ab{}", " ".repeat(pad));
        check(
            "ab\n",
            &old(20),
            "cd",
            false,
            Ok(("cd\n", MatchStrategy::TrailingWhitespace)),
        );
        check("ab\n", &old(21), "cd", false, Err(Reason::UnsafeDiff));
    }

    // The strategy names are the tools' wire values (`match_strategy` in results).
    #[test]
    fn strategy_names_are_stable() {
        let names: Vec<&str> = [
            MatchStrategy::Exact,
            MatchStrategy::TrailingWhitespace,
            MatchStrategy::Indentation,
            MatchStrategy::UnicodePunctuation,
        ]
        .into_iter()
        .map(MatchStrategy::as_str)
        .collect();
        assert_eq!(
            names,
            [
                "exact",
                "trailing_whitespace",
                "indentation",
                "unicode_punctuation"
            ]
        );
    }

    #[test]
    fn an_ambiguous_loose_match_names_the_tier_and_lines() {
        let doc = Document::from_text("say(\u{201c}hi\u{201d})\nx\nsay(\u{201c}hi\u{201d})\n");
        let err =
            search_replace(&doc, "say(\"hi\")", "s", false, &ApplyOptions::default()).unwrap_err();
        assert_eq!(err.reason, Reason::AmbiguousMatch);
        assert!(
            err.message.contains(
                "ignoring indentation and Unicode punctuation it matches 2 places (lines 1, 3)"
            ),
            "{}",
            err.message
        );
    }

    #[test]
    fn uniqueness_and_replace_all() {
        check("x\nx\n", "x", "y", false, Err(Reason::AmbiguousMatch));
        check(
            "x\nx\n",
            "x",
            "y",
            true,
            Ok(("y\ny\n", MatchStrategy::Exact)),
        );
    }

    // Regression: with replace_all, two matches on one line (`foo bar foo`) became two edits of
    // that line and were refused as "matches overlapping places".
    #[test]
    fn replace_all_replaces_every_match_on_a_line() {
        check(
            "foo bar foo\nfoo\n",
            "foo",
            "baz",
            true,
            Ok(("baz bar baz\nbaz\n", MatchStrategy::Exact)),
        );
        let r = search_replace(
            &Document::from_text("foo bar foo\nfoo\n"),
            "foo",
            "baz",
            true,
            &ApplyOptions::default(),
        )
        .unwrap();
        assert_eq!((r.count, r.lines.as_slice()), (3, &[1, 1, 2][..]));
        // Matches chained across lines: the second starts on the line the first ends on.
        check(
            "a\nb a\nb\nc\n",
            "a\nb",
            "X",
            true,
            Ok(("X X\nc\n", MatchStrategy::Exact)),
        );
        // CRLF kept on the line that holds both.
        check(
            "x = f(1) + f(2);\r\ny\r\n",
            "f(",
            "g(",
            true,
            Ok(("x = g(1) + g(2);\r\ny\r\n", MatchStrategy::Exact)),
        );
        // Without replace_all it is still ambiguous.
        check(
            "foo bar foo\n",
            "foo",
            "baz",
            false,
            Err(Reason::AmbiguousMatch),
        );
    }

    // The looser `edit` tiers fold punctuation with the function the patch relocation uses.
    #[test]
    fn punctuation_fallback_folds_dashes_and_non_breaking_spaces() {
        check(
            "let range = a\u{2013}b;\u{A0}// note\n",
            "let range = a-b; // note",
            "let range = a..b;",
            false,
            Ok(("let range = a..b;\n", MatchStrategy::UnicodePunctuation)),
        );
        check(
            "x = \u{2018}a\u{2019};\ny = \u{201C}a\u{201D};\n",
            "x = 'a';",
            "x = 'b';",
            false,
            Ok((
                "x = 'b';\ny = \u{201C}a\u{201D};\n",
                MatchStrategy::UnicodePunctuation,
            )),
        );
    }

    #[test]
    fn crlf_and_bom_are_kept() {
        check(
            "\u{FEFF}a\r\nb\r\n",
            "a\nb",
            "a\nB\nC",
            false,
            Ok(("\u{FEFF}a\r\nB\r\nC\r\n", MatchStrategy::Exact)),
        );
    }

    #[test]
    fn fallbacks() {
        check(
            "fn f() {  \n    x();\n}\n",
            "fn f() {\n    x();",
            "fn g() {\n    x();",
            false,
            Ok(("fn g() {\n    x();\n}\n", MatchStrategy::TrailingWhitespace)),
        );
        check(
            "    if a {\n        b();\n    }\n",
            "if a {\n    b();\n}",
            "if a {\n    c();\n}",
            false,
            Ok((
                "    if a {\n        c();\n    }\n",
                MatchStrategy::Indentation,
            )),
        );
        check(
            "say(\u{201C}hi\u{201D});\n",
            "say(\"hi\");",
            "say(\"yo\");",
            false,
            Ok(("say(\"yo\");\n", MatchStrategy::UnicodePunctuation)),
        );
        check("  a\n  a\n", " a ", "b", false, Err(Reason::AmbiguousMatch));
        check("a\n", "zzz", "b", false, Err(Reason::HunkMismatch));
        check("a\n", "  \n", "b", false, Err(Reason::UnsafeDiff));
    }

    // A looser match moves new_text from old_text's indentation to the file's, measured on the
    // first non-blank line of each (a blank first line says nothing about indentation).
    #[test]
    fn new_text_moves_from_old_texts_indentation_to_the_files() {
        check(
            "        x();\n        y();\n",
            "  x();\n  y();",
            "  z();\n    w();",
            false,
            Ok(("        z();\n          w();\n", MatchStrategy::Indentation)),
        );
        check(
            "a\n\n        x();\n",
            "\n  x();",
            "\n  z();",
            false,
            Ok(("a\n\n        z();\n", MatchStrategy::Indentation)),
        );
    }

    // Regression (issue 49): an edit matched ignoring indentation on a tab-indented file wrote
    // `\t    return a - b`: the model's spaces kept after the file's tab. new_text now takes the
    // file's style (tabs, or spaces of the file's width) level for level.
    #[test]
    fn new_text_takes_the_files_indentation_style() {
        let old = "def sub(a, b):\n    return a + b";
        let new = "def sub(a, b):\n    if a:\n        return a - b\n    return 0";
        for (file, want) in [
            (
                "def sub(a, b):\n\treturn a + b\n",
                "def sub(a, b):\n\tif a:\n\t\treturn a - b\n\treturn 0\n",
            ),
            (
                "def sub(a, b):\n  return a + b\n",
                "def sub(a, b):\n  if a:\n    return a - b\n  return 0\n",
            ),
            (
                "class K:\n\tdef sub(a, b):\n\t\treturn a + b\n",
                "class K:\n\tdef sub(a, b):\n\t\tif a:\n\t\t\treturn a - b\n\t\treturn 0\n",
            ),
            (
                "class K:\n    def sub(a, b):\n        return a + b\n",
                "class K:\n    def sub(a, b):\n        if a:\n            return a - b\n        return 0\n",
            ),
        ] {
            check(
                file,
                old,
                new,
                false,
                Ok((want, MatchStrategy::Indentation)),
            );
        }
        // The model writing tabs into a space-indented file (two wide).
        check(
            "fn f() {\n  if x {\n    a();\n  }\n}\n",
            "\tif x {\n\t\ta();",
            "\tif x {\n\t\tb();\n\t\tc();",
            false,
            Ok((
                "fn f() {\n  if x {\n    b();\n    c();\n  }\n}\n",
                MatchStrategy::Indentation,
            )),
        );
    }

    // The exact text is searched before any fallback and decides alone: a copy that is equal
    // only after NFC, or only ignoring whitespace, never makes an exact match ambiguous.
    #[test]
    fn exact_match_wins_over_looser_copies() {
        let nfd = "let s = \"cafe\u{301}\";\n";
        let nfc = "let s = \"caf\u{e9}\";\n";
        check(
            &format!("{nfd}{nfc}}}\n"),
            nfc,
            "let s = 1;\n",
            false,
            Ok((&format!("{nfd}let s = 1;\n}}\n"), MatchStrategy::Exact)),
        );
        check(
            "    if a {\n        b();\n    }\nif a {\n    b();\n}\n",
            "if a {\n    b();\n}",
            "if a {\n    c();\n}",
            false,
            Ok((
                "    if a {\n        b();\n    }\nif a {\n    c();\n}\n",
                MatchStrategy::Exact,
            )),
        );
        check(
            "x = 1;\n  x = 1;\n",
            "  x = 1;",
            "  x = 2;",
            false,
            Ok(("x = 1;\n  x = 2;\n", MatchStrategy::Exact)),
        );
        // No exact copy: the stricter fallback decides before a looser one sees both.
        check(
            "    f(x);\nf(x);  \n",
            "f(x); \n",
            "g(x);\n",
            false,
            Ok(("    f(x);\ng(x);\n", MatchStrategy::TrailingWhitespace)),
        );
    }

    fn replaced(file: &str, old: &str, new: &str, all: bool) -> Replaced {
        search_replace(
            &Document::from_text(file),
            old,
            new,
            all,
            &ApplyOptions::default(),
        )
        .unwrap()
    }

    fn refusal(file: &str, old: &str, new: &str, all: bool) -> (Reason, String) {
        let e = search_replace(
            &Document::from_text(file),
            old,
            new,
            all,
            &ApplyOptions::default(),
        )
        .unwrap_err();
        (e.reason, e.message)
    }

    // Each place of a replacement is its own edit of the lines it spans (the live-sync blocks
    // and the reported lines follow them); matches are merged into one place only when they
    // share a line, never across the lines between them.
    #[test]
    fn each_place_is_an_edit_of_its_own_lines() {
        // Each edit's replaced lines, 0-based, end excluded.
        let edit_ranges = |r: &Replaced| -> Vec<(usize, usize)> {
            r.edits
                .edits()
                .iter()
                .map(|e| (e.range.start, e.range.end))
                .collect()
        };
        let blocks = |r: &Replaced| -> Vec<(usize, usize, usize, usize)> {
            r.sync
                .iter()
                .map(|b| {
                    (
                        b.old_start_line,
                        b.old_line_count,
                        b.start_line,
                        b.line_count,
                    )
                })
                .collect()
        };
        // Two matches on the first line, one two lines further: two places, not one edit of
        // lines 1-3.
        let r = replaced("foo bar foo\nx\nfoo\ny\n", "foo", "baz", true);
        assert_eq!(r.doc.to_text(), "baz bar baz\nx\nbaz\ny\n");
        assert_eq!(edit_ranges(&r), [(0, 1), (2, 3)]);
        assert_eq!(blocks(&r), [(1, 1, 1, 1), (3, 1, 3, 1)]);
        assert_eq!((r.count, r.lines.as_slice()), (3, &[1, 1, 3][..]));
        // Separate multi-line matches: each spans its own two lines.
        let r = replaced("a\nb\nc\na\nb\nc\n", "a\nb", "X", true);
        assert_eq!(r.doc.to_text(), "X\nc\nX\nc\n");
        assert_eq!(edit_ranges(&r), [(0, 2), (3, 5)]);
        assert_eq!(blocks(&r), [(1, 2, 1, 1), (4, 2, 3, 1)]);
        assert_eq!(r.lines, [1, 4]);
        // One match, not on the first line.
        let r = replaced("a\nb\nc\n", "c", "d", false);
        assert_eq!(edit_ranges(&r), [(2, 3)]);
        assert_eq!(r.lines, [3]);
        // A fallback's place: its first line in the file.
        let r = replaced("a\n    b();\n    c();\n", "b();\nc();", "d();", false);
        assert_eq!(r.strategy, MatchStrategy::Indentation);
        assert_eq!(r.doc.to_text(), "a\n    d();\n");
        assert_eq!(edit_ranges(&r), [(1, 3)]);
        assert_eq!(r.lines, [2]);
    }

    // The refusals name the arguments as the tools spell them and, for several places, the
    // 1-based lines of the first five (and `…` past them).
    #[test]
    fn refusals_name_the_arguments_and_the_places() {
        assert_eq!(
            refusal("a\n", " \n", "b", false),
            (
                Reason::UnsafeDiff,
                "old_text is empty or only whitespace; give the exact text to replace (to write a whole file, use write_file)".to_string()
            )
        );
        assert_eq!(
            refusal("a\n", "a", "a", false),
            (
                Reason::EmptyDiff,
                "old_text and new_text are identical; nothing to change".to_string()
            )
        );
        assert_eq!(
            refusal("x\ny\nx\n", "x", "z", false),
            (
                Reason::AmbiguousMatch,
                "old_text occurs 2 times (at lines 1, 3); include more surrounding lines to make it unique, or set replace_all".to_string()
            )
        );
        assert_eq!(
            refusal("y\nx\nx\nx\nx\nx\n", "x", "z", false).1,
            "old_text occurs 5 times (at lines 2, 3, 4, 5, 6); include more surrounding lines to make it unique, or set replace_all"
        );
        assert_eq!(
            refusal("x x\nx\nx\nx\nx\nx\n", "x", "z", false).1,
            "old_text occurs 7 times (at lines 1, 1, 2, 3, 4, …); include more surrounding lines to make it unique, or set replace_all"
        );
        assert_eq!(
            refusal("a\n", "zzz", "b", false),
            (
                Reason::HunkMismatch,
                "old_text was not found in the file (also not ignoring trailing whitespace, indentation or Unicode punctuation); re-read the file and copy the text exactly".to_string()
            )
        );
    }

    proptest::proptest! {
        /// For any file (CRLF, BOM, no final newline, fallback-only matches) and any replacement,
        /// the bytes form and the document form agree.
        #[test]
        fn bytes_and_document_forms_agree(
            lines in proptest::collection::vec((0..8usize, proptest::bool::ANY), 0..30),
            bom: bool,
            final_newline: bool,
            from in 0..30usize,
            span in 1..4usize,
            indent in 0..3usize,
            new_words in proptest::collection::vec(0..8usize, 0..3),
            all: bool,
        ) {
            const WORDS: &[&str] = &["a", "b  ", "  c", "\tb", "", "x = \u{201C}1\u{201D};", "é", "a b"];
            let mut file = String::from(if bom { "\u{FEFF}" } else { "" });
            for (i, (w, crlf)) in lines.iter().enumerate() {
                file.push_str(WORDS[*w]);
                if i + 1 < lines.len() || final_newline {
                    file.push_str(if *crlf { "\r\n" } else { "\n" });
                }
            }
            // old: some of the file's lines, reindented.
            let pad = " ".repeat(indent);
            let old: Vec<String> = lines
                .iter()
                .skip(from.min(lines.len()))
                .take(span)
                .map(|(w, _)| format!("{pad}{}", WORDS[*w].trim_start()))
                .collect();
            let old = old.join("\n");
            let new: Vec<&str> = new_words.iter().map(|w| WORDS[*w]).collect();
            let new = new.join("\n");
            let opts = ApplyOptions::default();
            let d = search_replace(&Document::from_text(&file), &old, &new, all, &opts);
            let b = search_replace_bytes(file.as_bytes(), &old, &new, all, &opts);
            match (d, b) {
                (Ok(d), Ok(b)) => {
                    proptest::prop_assert_eq!(b.new_content, d.doc.to_bytes());
                    proptest::prop_assert_eq!((b.strategy, b.count, b.lines), (d.strategy, d.count, d.lines));
                }
                (Err(d), Err(b)) => proptest::prop_assert_eq!(d.reason, b.reason),
                (d, b) => proptest::prop_assert!(false, "document form {:?}, bytes form {:?}", d, b),
            }
        }
    }
}
