//! Property tests of the engine (proptest): a diff applies to its own source byte for byte;
//! drift above hunks is followed exactly when every hunk has one possible place and never makes
//! the engine misapply a hunk when it has several; a refused file yields no output; Codex chunks
//! apply or are refused as ambiguous; `apply_file_patch` and `apply_hunks` on a `Document`
//! agree; `line_map` maps equal lines; the parser survives anything.
//!
//! Texts are drawn from a small alphabet of lines so that duplicates, blank runs,
//! whitespace-only differences, NFC/NFD pairs, zero-width characters and lines that look like
//! diff syntax (`-- a` becomes the removal line `--- a`) occur often. Case counts are modest so
//! the suite stays fast in debug builds; raise them with `PROPTEST_CASES=N`.

use lspedit_engine::{
    ApplyOptions, DiffOptions, Document, EngineError, FileChange, FilePatch, Hunk, LineKind,
    Reason, apply_file_patch, apply_hunks, hashline, line_map, normalize_for_hash, parse_patch,
    unified_diff,
};
use proptest::prelude::*;
use proptest::sample::Index;
use std::ops::Range;

/// Line contents the generators draw from. No `|` (a plain diff cannot tell content that looks
/// like an anchor from an anchor), no `\r` or `\n` (terminators), no BOM.
const WORDS: &[&str] = &[
    "a",
    "b",
    "x = 1;",
    "  a",
    "a ",
    "\tb",
    "fn f() {",
    "}",
    "{",
    "",
    "",
    "",
    " ",
    "\t",
    "é",
    "e\u{301}",
    "日本語",
    "\u{200B}a",
    "-- a",
    "++ b",
    "- a",
    "+ b",
    "@@",
    "\\ x",
    "#",
    "🦀",
    "55",
    "2024",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

fn lines(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(word(), 0..max)
}

/// A text with its shape: line ending, BOM, final newline of the old and the new version.
#[derive(Debug, Clone)]
struct Pair {
    old: Vec<String>,
    new: Vec<String>,
    crlf: bool,
    bom: bool,
    old_final_newline: bool,
    new_final_newline: bool,
}

impl Pair {
    /// The line ending both texts use. A file without any terminator shows no style, so lines
    /// the engine adds to it are LF: only a file that shows CRLF is expected to get CRLF.
    fn eol(&self) -> &'static str {
        let shows_terminator =
            self.old.len() > 1 || (self.old.len() == 1 && self.old_final_newline);
        if self.crlf && shows_terminator {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn old_text(&self) -> String {
        render(&self.old, self.old_final_newline, self.eol(), self.bom)
    }

    fn new_text(&self) -> String {
        render(&self.new, self.new_final_newline, self.eol(), self.bom)
    }
}

fn render(lines: &[String], final_newline: bool, eol: &str, bom: bool) -> String {
    let mut out = String::new();
    if bom {
        out.push('\u{FEFF}');
    }
    for (i, l) in lines.iter().enumerate() {
        out.push_str(l);
        if i + 1 < lines.len() || final_newline {
            out.push_str(eol);
        }
    }
    out
}

/// Apply edits (at a position: remove up to 3 lines, insert some) to `old`, so the new text
/// shares most of its lines with the old one and diffs have several hunks.
fn edit(old: &[String], edits: &[(Index, usize, Vec<String>)]) -> Vec<String> {
    let mut new = old.to_vec();
    for (at, remove, insert) in edits {
        let pos = at.index(new.len() + 1);
        let end = (pos + remove).min(new.len());
        new.splice(pos..end, insert.iter().cloned());
    }
    new
}

fn edits(count: Range<usize>) -> impl Strategy<Value = Vec<(Index, usize, Vec<String>)>> {
    prop::collection::vec((any::<Index>(), 0..4usize, lines(4)), count)
}

/// An old text and an edited (or, one time in eight, unrelated) new one.
fn pair_from(
    old: impl Strategy<Value = Vec<String>>,
    edit_count: Range<usize>,
) -> impl Strategy<Value = Pair> {
    (
        old,
        edits(edit_count),
        prop::option::weighted(0.125, lines(20)),
        any::<(bool, bool, bool, bool)>(),
    )
        .prop_map(|(old, edits, unrelated, (crlf, bom, onl, nnl))| Pair {
            new: unrelated.unwrap_or_else(|| edit(&old, &edits)),
            old,
            crlf,
            bom,
            old_final_newline: onl,
            new_final_newline: nnl,
        })
}

fn pair() -> impl Strategy<Value = Pair> {
    pair_from(lines(40), 0..6)
}

/// Lines that are unique once normalized (each non-blank line carries its index); blank lines
/// are exactly empty. With such a file every hunk has one possible place only.
fn unique_lines(max: usize) -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(word(), 1..max).prop_map(|words| {
        words
            .into_iter()
            .enumerate()
            .map(|(i, w)| {
                if normalize_for_hash(&w).is_empty() {
                    String::new()
                } else {
                    format!("{w} #{i}")
                }
            })
            .collect()
    })
}

fn diff(pair: &Pair, context: usize, anchored: bool) -> String {
    unified_diff(
        &pair.old_text(),
        &pair.new_text(),
        Some("f"),
        Some("f"),
        &DiffOptions { context, anchored },
    )
}

fn only_file(patch_text: &str) -> Result<FilePatch, TestCaseError> {
    let patch = parse_patch(patch_text)
        .map_err(|e| TestCaseError::fail(format!("own diff does not parse: {e}\n{patch_text}")))?;
    prop_assert_eq!(patch.files.len(), 1);
    Ok(patch.files.into_iter().next().expect("one file section"))
}

fn hunks(fp: &FilePatch) -> &[Hunk] {
    match &fp.change {
        FileChange::Update { hunks, .. } | FileChange::Delete { hunks, .. } => hunks,
        FileChange::Add { .. } => &[],
    }
}

fn apply(fp: &FilePatch, current: &str) -> Result<String, EngineError> {
    let out = apply_file_patch(fp, Some(current.as_bytes()), &ApplyOptions::default())?;
    let bytes = out.new_content.unwrap_or_default();
    Ok(String::from_utf8(bytes).expect("the engine writes UTF-8"))
}

/// Where drift goes: for each hunk, how many unrelated lines, and where in the gap above it
/// (taken modulo the gap's size).
type DriftPlan = Vec<(usize, usize)>;

fn drift_plan() -> impl Strategy<Value = DriftPlan> {
    prop::collection::vec((0..=60usize, any::<usize>()), 8)
}

/// A hunk's old-side start (0-based) and counts, from its header.
fn span(h: &Hunk) -> (usize, usize, usize) {
    let old_count = h.old_count.unwrap_or(0);
    let start = h
        .old_start
        .unwrap_or(0)
        .saturating_sub(usize::from(old_count > 0));
    (start, old_count, h.new_count.unwrap_or(0))
}

/// A pure insertion (a hunk with no context or removal line, as in a diff of an empty file)
/// has nothing to verify and lands exactly where its header says, so drift cannot be followed.
fn every_hunk_has_old_lines(fp: &FilePatch) -> bool {
    hunks(fp).iter().all(|h| h.old_side().next().is_some())
}

/// Insert drift lines above every hunk of `fp` into both texts: at a chosen place in the
/// unchanged gap above the hunk in the old text, and at the same place in the new text.
/// Returns the drifted old and new texts and, per hunk, the number of drift lines above it.
fn drift(pair: &Pair, fp: &FilePatch, plan: &DriftPlan) -> (Pair, Vec<usize>) {
    let mut old = pair.old.clone();
    let mut new = pair.new.clone();
    let mut inserts: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let (mut prev_end, mut delta): (usize, isize) = (0, 0);
    let mut above = Vec::new();
    let mut total = 0;
    for (i, h) in hunks(fp).iter().enumerate() {
        let (start, old_count, new_count) = span(h);
        let (count, at) = plan[i % plan.len()];
        let q = prev_end + at % (start - prev_end + 1);
        let block: Vec<String> = (0..count).map(|j| format!("drift {i}.{j} ~")).collect();
        inserts.push((q, (q as isize + delta) as usize, block));
        total += count;
        above.push(total);
        prev_end = start + old_count;
        delta += new_count as isize - old_count as isize;
    }
    for (q_old, q_new, block) in inserts.into_iter().rev() {
        old.splice(q_old..q_old, block.iter().cloned());
        new.splice(q_new..q_new, block);
    }
    // A drift line is always followed by a hunk's lines in the old text, so it has a line
    // terminator; when the hunks below it removed everything after it, it ends the new text
    // and keeps that terminator.
    let new_final_newline =
        pair.new_final_newline || new.last().is_some_and(|l| l.starts_with("drift "));
    let drifted = Pair {
        old,
        new,
        new_final_newline,
        ..pair.clone()
    };
    (drifted, above)
}

/// The normalized non-blank lines of a hunk's old side appear, in order and separated by
/// blank lines only, in `file` from `at` (0-based): the hunk does have a copy there.
fn has_copy_at(file: &[String], at: usize, h: &Hunk) -> bool {
    let want: Vec<String> = h
        .old_side()
        .map(|l| normalize_for_hash(&l.text))
        .filter(|n| !n.is_empty())
        .collect();
    let mut have = file[at.min(file.len())..]
        .iter()
        .map(|l| normalize_for_hash(l))
        .filter(|n| !n.is_empty());
    want.iter().all(|w| have.next().as_ref() == Some(w))
}

/// Whether the file holds the hunk's new side (context and added lines, in the hunk's normal
/// form) anywhere: the only files in which a hunk may be refused as already applied.
fn has_new_side_copy(file: &[String], h: &Hunk) -> bool {
    let want: Vec<String> = h
        .lines
        .iter()
        .filter(|l| l.kind != LineKind::Remove)
        .map(|l| normalize_for_hash(&l.text))
        .collect();
    let have: Vec<String> = file.iter().map(|l| normalize_for_hash(l)).collect();
    have.windows(want.len().max(1))
        .any(|w| w == want.as_slice())
}

/// A Codex envelope with the same chunks as a unified diff (no line numbers, no anchors).
fn codex_from_unified(diff: &str) -> String {
    let mut out = String::from("*** Begin Patch\n*** Update File: f\n");
    for line in diff.lines().skip(2) {
        if line.starts_with("@@") {
            out.push_str("@@\n");
        } else if !line.starts_with('\\') {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("*** End Patch\n");
    out
}

/// Lines a mutation may insert into a valid patch: the syntax the parsers branch on.
const TRICKY: &[&str] = &[
    "@@ -1,2 +1,2 @@",
    "@@ -0,0 +1 @@",
    "@@ @@",
    "@@",
    "@@ -99999999999999999999,1 +1 @@",
    "\\ No newline at end of file",
    "--- a/f",
    "+++ b/f",
    "--- /dev/null",
    "+++ /dev/null",
    "diff --git a/f b/g",
    "rename from f",
    "rename to g",
    "new file mode 100644",
    "deleted file mode 100644",
    "GIT binary patch",
    "*** Begin Patch",
    "*** End Patch",
    "*** Update File: f",
    "*** Add File: g",
    "*** Delete File: f",
    "*** Move to: g",
    "*** End of File",
    "+1aaaa|x",
    "-1aa",
    " 3",
    "-",
    "+",
    " ",
    "",
    "```",
    "```diff",
];

#[derive(Debug, Clone)]
enum Mutation {
    Drop(Index),
    Duplicate(Index),
    Swap(Index, Index),
    Insert(Index, &'static str),
    TruncateAt(Index),
    ReplaceChar(Index, char),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Drop),
        any::<Index>().prop_map(Mutation::Duplicate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<Index>(), prop::sample::select(TRICKY)).prop_map(|(a, t)| Mutation::Insert(a, t)),
        any::<Index>().prop_map(Mutation::TruncateAt),
        (any::<Index>(), any::<char>()).prop_map(|(a, c)| Mutation::ReplaceChar(a, c)),
    ]
}

fn mutate(text: &str, mutations: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.split_inclusive('\n').map(str::to_string).collect();
    for m in mutations {
        if lines.is_empty() {
            lines.push(String::new());
        }
        match m {
            Mutation::Drop(i) => {
                lines.remove(i.index(lines.len()));
            }
            Mutation::Duplicate(i) => {
                let k = i.index(lines.len());
                lines.insert(k, lines[k].clone());
            }
            Mutation::Swap(a, b) => {
                let (a, b) = (a.index(lines.len()), b.index(lines.len()));
                lines.swap(a, b);
            }
            Mutation::Insert(i, t) => lines.insert(i.index(lines.len() + 1), format!("{t}\n")),
            Mutation::TruncateAt(i) => {
                let mut all = lines.concat();
                let mut cut = i.index(all.len() + 1);
                while !all.is_char_boundary(cut) {
                    cut -= 1;
                }
                all.truncate(cut);
                lines = all.split_inclusive('\n').map(str::to_string).collect();
            }
            Mutation::ReplaceChar(i, c) => {
                let k = i.index(lines.len());
                let chars: Vec<char> = lines[k].chars().collect();
                if !chars.is_empty() {
                    let at = i.index(chars.len());
                    lines[k] = chars[..at]
                        .iter()
                        .chain(std::iter::once(c))
                        .chain(&chars[at + 1..])
                        .collect();
                }
            }
        }
    }
    lines.concat()
}

/// Parse `text`; when it parses, apply every section to `file` (present and absent). Nothing
/// may panic, and every accepted file must come back as text that reads back to itself.
fn parse_and_apply_never_panics(text: &str, file: &str) -> Result<(), TestCaseError> {
    let Ok(patch) = parse_patch(text) else {
        return Ok(());
    };
    prop_assert!(!patch.files.is_empty());
    for fp in &patch.files {
        for current in [Some(file.as_bytes()), None] {
            if let Ok(out) = apply_file_patch(fp, current, &ApplyOptions::default())
                && let Some(bytes) = out.new_content
            {
                let text = String::from_utf8(bytes).expect("the engine writes UTF-8");
                prop_assert_eq!(Document::from_text(&text).to_text(), text);
            }
        }
    }
    Ok(())
}

proptest! {
    // Generated texts are sometimes equal (an empty diff), which the properties skip.
    #![proptest_config(ProptestConfig { max_global_rejects: 100_000, ..ProptestConfig::with_cases(256) })]

    /// apply(diff(a, b), a) == b, byte for byte, plain and anchored, any context width: CRLF,
    /// BOM, no final newline, blank runs, duplicates, unicode, whitespace-only differences.
    #[test]
    fn diff_applies_to_its_source(pair in pair(), context in 0..4usize, anchored: bool) {
        let (old, new) = (pair.old_text(), pair.new_text());
        let patch = diff(&pair, context, anchored);
        if old == new {
            prop_assert!(patch.is_empty());
            return Ok(());
        }
        let fp = only_file(&patch)?;
        let got = apply(&fp, &old)
            .map_err(|e| TestCaseError::fail(format!("own diff refused: {e}\n{patch}")))?;
        prop_assert_eq!(got, new, "diff:\n{}", patch);
    }

    /// Exact under drift: up to 60 unrelated lines inserted above each hunk of a file whose
    /// non-blank lines are unique move every hunk, and the patch still gives the new text with
    /// the same drift, plain and anchored, as long as every hunk has a non-blank old line (a
    /// hunk of blank lines only matches every blank run: refusing it is right).
    #[test]
    fn drift_above_hunks_is_followed_exactly(
        pair in pair_from(unique_lines(40), 0..6),
        plan in drift_plan(),
        context in 1..4usize,
        anchored: bool,
    ) {
        let patch = diff(&pair, context, anchored);
        prop_assume!(!patch.is_empty());
        let fp = only_file(&patch)?;
        prop_assume!(hunks(&fp).iter().all(|h| h.old_side().any(|l| !normalize_for_hash(&l.text).is_empty())));
        let (drifted, _) = drift(&pair, &fp, &plan);
        let got = apply(&fp, &drifted.old_text())
            .map_err(|e| TestCaseError::fail(format!("refused: {e}\n{patch}")))?;
        prop_assert_eq!(got, drifted.new_text(), "diff:\n{}", patch);
    }

    /// Never misapplied under drift, duplicates allowed: every hunk lands where it was meant to
    /// go, or on another copy of its lines that is no farther from where the engine looked
    /// (docs/design.md §4: the nearest match wins); when every hunk lands where meant, the result
    /// is the new text byte for byte; otherwise the only other outcome is a typed refusal.
    #[test]
    fn drift_never_misapplies(
        pair in pair_from(prop::collection::vec(word(), 1..40), 0..6),
        plan in drift_plan(),
        context in 1..4usize,
        anchored: bool,
    ) {
        let patch = diff(&pair, context, anchored);
        prop_assume!(!patch.is_empty());
        let fp = only_file(&patch)?;
        prop_assume!(every_hunk_has_old_lines(&fp));
        let (drifted, above) = drift(&pair, &fp, &plan);
        let old = drifted.old_text();
        match apply_file_patch(&fp, Some(old.as_bytes()), &ApplyOptions::default()) {
            Ok(out) => {
                let mut all_intended = true;
                for (p, h) in out.hunks.iter().zip(hunks(&fp)) {
                    let intended = span(h).0 + above[p.index - 1] + 1;
                    if p.found_line == intended {
                        continue;
                    }
                    all_intended = false;
                    let (t, f, i) = (p.target_line as isize, p.found_line as isize, intended as isize);
                    prop_assert!(
                        (f - t).abs() <= (i - t).abs(),
                        "hunk {} found at {} though its own copy at {} is nearer target {}\n{}",
                        p.index, f, i, t, patch
                    );
                    prop_assert!(
                        has_copy_at(&drifted.old, p.found_line - 1, h),
                        "hunk {} placed at line {} where its lines are not\n{}",
                        p.index, p.found_line, patch
                    );
                }
                if all_intended {
                    let got = String::from_utf8(out.new_content.unwrap_or_default()).unwrap();
                    prop_assert_eq!(got, drifted.new_text(), "diff:\n{}", patch);
                }
            }
            // Lines repeat here: a hunk's new side may already be where it would go.
            Err(e) if e.reason == Reason::AlreadyApplied => {
                let h = &hunks(&fp)[e.hunk.unwrap_or(1) - 1];
                prop_assert!(has_new_side_copy(&drifted.old, h), "{}\n{}", e, patch);
            }
            Err(e) => prop_assert!(
                matches!(e.reason, Reason::AmbiguousMatch | Reason::HunkMismatch | Reason::OutOfBounds),
                "unexpected refusal {}", e
            ),
        }
    }

    /// A refused file yields nothing: break one hunk's lines in the file and the whole file is
    /// refused with `hunk_mismatch` naming that hunk, although every other hunk still applies
    /// on its own (so no partial result escapes the refusal).
    #[test]
    fn one_failing_hunk_refuses_the_whole_file(
        pair in pair_from(unique_lines(60), 2..7),
        context in 1..4usize,
        anchored: bool,
        pick: Index,
        line_pick: Index,
    ) {
        let patch = diff(&pair, context, anchored);
        prop_assume!(!patch.is_empty());
        let fp = only_file(&patch)?;
        let all = hunks(&fp).to_vec();
        prop_assume!(all.len() >= 2);
        let broken = pick.index(all.len());
        let (start, _, _) = span(&all[broken]);
        let non_blank: Vec<usize> = all[broken]
            .old_side()
            .enumerate()
            .filter(|(_, l)| !normalize_for_hash(&l.text).is_empty())
            .map(|(k, _)| start + k)
            .collect();
        prop_assume!(!non_blank.is_empty());
        let mut file = pair.clone();
        file.old[non_blank[line_pick.index(non_blank.len())]] = "BROKEN ¤".to_string();
        let text = file.old_text();

        let err = apply(&fp, &text).expect_err("a file with a broken hunk was accepted");
        prop_assert_eq!(err.reason, Reason::HunkMismatch, "{}", err);
        prop_assert_eq!(err.hunk, Some(broken + 1));

        let mut rest = fp.clone();
        if let FileChange::Update { hunks, .. } = &mut rest.change {
            hunks.remove(broken);
        }
        let partial = apply(&rest, &text)
            .map_err(|e| TestCaseError::fail(format!("the other hunks alone were refused: {e}")))?;
        prop_assert_ne!(partial, text);
    }

    /// The Codex envelope with the same chunks (no line numbers, no anchors, searched forward
    /// from the previous chunk) gives the new text, or is refused as ambiguous: never guessed.
    #[test]
    fn codex_chunks_apply_or_are_ambiguous(pair in pair(), context in 1..4usize) {
        let pair = Pair { old_final_newline: true, new_final_newline: true, ..pair };
        prop_assume!(!pair.old.is_empty());
        let patch = diff(&pair, context, false);
        prop_assume!(!patch.is_empty());
        let codex = codex_from_unified(&patch);
        let fp = only_file(&codex)?;
        match apply(&fp, &pair.old_text()) {
            Ok(got) => prop_assert_eq!(got, pair.new_text(), "patch:\n{}", codex),
            Err(e) => prop_assert_eq!(e.reason, Reason::AmbiguousMatch, "{}\n{}", e, codex),
        }
    }

    /// `apply_file_patch` (which reads the file as a view of its bytes and renders the result
    /// from it) and `apply_hunks` on the decoded `Document` agree on everything: the outcome,
    /// the bytes, where each hunk landed, and the live-sync anchors; on the patch's own source
    /// and on an unrelated text.
    #[test]
    fn file_and_document_paths_agree(
        pair in pair(),
        other in pair(),
        context in 0..4usize,
        anchored: bool,
    ) {
        let patch = diff(&pair, context, anchored);
        prop_assume!(!patch.is_empty());
        let fp = only_file(&patch)?;
        let opts = ApplyOptions::default();
        for text in [pair.old_text(), other.old_text()] {
            let by_file = apply_file_patch(&fp, Some(text.as_bytes()), &opts);
            let doc = Document::from_bytes(text.as_bytes()).expect("generated texts decode");
            let by_doc = apply_hunks(&doc, hunks(&fp), &opts);
            match (by_file, by_doc) {
                (Ok(f), Ok(d)) => {
                    prop_assert_eq!(f.new_content, Some(d.doc.to_bytes()));
                    prop_assert_eq!(f.hunks, d.hunks);
                    prop_assert_eq!(f.sync, d.sync);
                    prop_assert_eq!((f.added, f.removed), (d.added, d.removed));
                }
                (Err(f), Err(d)) => prop_assert_eq!(f, d),
                (f, d) => prop_assert!(false, "file path {:?}, document path {:?}", f.is_ok(), d.is_ok()),
            }
        }
    }

    /// Every line `line_map` maps is equal to the line it is mapped to.
    #[test]
    fn line_map_maps_equal_lines(pair in pair()) {
        let (old, new) = (pair.old.join("\n"), pair.new.join("\n"));
        let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        let map = line_map(&old, &new);
        prop_assert_eq!(map.len(), a.len());
        for (i, j) in map.iter().enumerate() {
            if let Some(j) = j {
                prop_assert_eq!(a[i], b[*j]);
            }
        }
    }
}

/// Code lines for the exact-before-lenient property: non-blank, with and without indentation.
const CODE: &[&str] = &[
    "let x = 1;",
    "    f(x);",
    "if a {",
    "\treturn y;",
    "}",
    "  done(); ",
    "x = \u{201C}q\u{201D};",
    "let d = a - b;",
    "say(\"it's\");",
];

/// `line` changed in whitespace only (the whitespace-blind hash and normal form stay the same,
/// the bytes do not), or in typographic punctuation only (ASCII quotes and dashes made curly
/// and long, or the reverse: equal once punctuation is folded).
fn variant(line: &str, how: usize) -> String {
    match how % 6 {
        0 => format!("{line}  "),
        1 => format!("\t{line}"),
        2 => format!("    {line}"),
        3 if line.starts_with([' ', '\t']) => line.trim_start().to_string(),
        3 => format!(" {line}"),
        4 => line
            .replace('"', "\u{201C}")
            .replace('\'', "\u{2019}")
            .replace(" - ", " \u{2013} "),
        _ => line
            .replace(['\u{201C}', '\u{201D}'], "\"")
            .replace('\u{2019}', "'")
            .replace(" - ", " \u{2011} "),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 100_000, ..ProptestConfig::with_cases(256) })]

    /// Exact before lenient: when the hunk's block occurs byte-exactly in the search window, the
    /// hunk lands on it, never on a copy that differs in indentation, inner whitespace or
    /// typographic punctuation only (the loosest tiers), however much nearer to the header's line that copy is (above
    /// or below, plain or anchored).
    #[test]
    fn an_exact_block_is_never_passed_over_for_a_whitespace_or_punctuation_variant(
        block in prop::collection::vec(prop::sample::select(CODE), 1..5),
        changes in prop::collection::vec((any::<Index>(), 0..6usize), 1..3),
        removed: Index,
        exact_dist in 1..60usize,
        decoy_dist in 0..60usize,
        exact_below: bool,
        decoy_below: bool,
        anchored: bool,
    ) {
        prop_assume!(decoy_dist < exact_dist);
        let n = block.len();
        let target = 70usize;
        let at = |below: bool, d: usize| if below { target + d } else { target - d };
        let (exact_at, decoy_at) = (at(exact_below, exact_dist), at(decoy_below, decoy_dist));
        prop_assume!(exact_at.abs_diff(decoy_at) >= n);
        let mut decoy: Vec<String> = block.iter().map(|l| l.to_string()).collect();
        for (k, how) in &changes {
            let k = k.index(n);
            decoy[k] = variant(&decoy[k], *how);
        }
        // Two changes of one line can undo each other; a copy that differs only in trailing
        // whitespace ranks with the exact block (the nearest wins, see
        // `apply::tests::trailing_whitespace_does_not_send_a_hunk_farther`).
        prop_assume!(decoy.iter().zip(&block).any(|(d, b)| d.trim_end() != b.trim_end()));
        let mut file: Vec<String> = (0..150).map(|i| format!("filler {i}")).collect();
        file.splice(decoy_at..decoy_at + n, decoy.iter().cloned());
        file.splice(exact_at..exact_at + n, block.iter().map(|l| l.to_string()));
        // A block of repeated lines next to its variant can form a second exact copy (trailing
        // whitespace aside, which ranks alike).
        prop_assume!(
            file.windows(n)
                .filter(|w| w.iter().zip(&block).all(|(f, b)| f.trim_end() == b.trim_end()))
                .count()
                == 1
        );
        let r = removed.index(n);
        let mut patch = format!("--- a/f\n+++ b/f\n@@ -{0},{n} +{0},{n} @@\n", target + 1);
        for (k, line) in block.iter().enumerate() {
            let marker = if k == r { '-' } else { ' ' };
            let body = if anchored {
                lspedit_engine::hashline(target + 1 + k, line)
            } else {
                line.to_string()
            };
            patch.push_str(&format!("{marker}{body}\n"));
            if k == r {
                patch.push_str("+NEW\n");
            }
        }
        let fp = only_file(&patch)?;
        let old = render(&file, true, "\n", false);
        let out = apply_file_patch(&fp, Some(old.as_bytes()), &ApplyOptions::default())
            .map_err(|e| TestCaseError::fail(format!("refused: {e}\n{patch}\n{old}")))?;
        prop_assert_eq!(out.hunks[0].found_line, exact_at + 1, "{}\n{}", patch, old);
        let mut want = file.clone();
        want[exact_at + r] = "NEW".to_string();
        prop_assert_eq!(
            String::from_utf8(out.new_content.unwrap_or_default()).unwrap(),
            render(&want, true, "\n", false)
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The parser never panics on arbitrary text (what a model may send).
    #[test]
    fn parser_survives_any_text(text in any::<String>()) {
        parse_and_apply_never_panics(&text, "a\nb\n")?;
    }

    /// The parser never panics on arbitrary bytes (decoded lossily, as a transport would).
    #[test]
    fn parser_survives_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        parse_and_apply_never_panics(&String::from_utf8_lossy(&bytes), "a\nb\n")?;
    }

    /// Near-valid patches (valid plain, anchored and Codex patches with lines dropped,
    /// duplicated, swapped, cut, or syntax lines inserted) neither panic the parser nor, when
    /// they parse, the application to the file they were made for.
    #[test]
    fn parser_and_apply_survive_mangled_patches(
        pair in pair(),
        context in 0..4usize,
        form in 0..3u8,
        mutations in prop::collection::vec(mutation(), 1..5),
    ) {
        let patch = match form {
            0 => diff(&pair, context, false),
            1 => diff(&pair, context, true),
            _ => codex_from_unified(&diff(&pair, context.max(1), false)),
        };
        parse_and_apply_never_panics(&mutate(&patch, &mutations), &pair.old_text())?;
    }
}

// The drift helper itself: the drifted texts differ from the originals exactly by the drift.
#[test]
fn drift_inserts_the_same_lines_into_both_texts() {
    let pair = Pair {
        old: ["a", "b", "c", "d", "e", "f", "g", "h"]
            .map(String::from)
            .to_vec(),
        new: ["a", "B", "c", "d", "e", "f", "g", "H", "I"]
            .map(String::from)
            .to_vec(),
        crlf: false,
        bom: false,
        old_final_newline: true,
        new_final_newline: true,
    };
    let patch = diff(&pair, 1, false);
    let fp = parse_patch(&patch).unwrap().files.remove(0);
    // Hunk 1 (lines 1-3) gets 2 lines at the top; hunk 2 (lines 7-8) 1 line in the gap 4-6,
    // at its last place, right above the hunk.
    let plan = vec![(2, 0), (1, 3)];
    let (drifted, above) = drift(&pair, &fp, &plan);
    assert_eq!(above, [2, 3]);
    assert_eq!(
        drifted.old,
        [
            "drift 0.0 ~",
            "drift 0.1 ~",
            "a",
            "b",
            "c",
            "d",
            "e",
            "f",
            "drift 1.0 ~",
            "g",
            "h"
        ]
    );
    assert_eq!(
        drifted.new,
        [
            "drift 0.0 ~",
            "drift 0.1 ~",
            "a",
            "B",
            "c",
            "d",
            "e",
            "f",
            "drift 1.0 ~",
            "g",
            "H",
            "I"
        ]
    );
    assert_eq!(apply(&fp, &drifted.old_text()).unwrap(), drifted.new_text());
}

/// Marks the lines [`retry_pair`] inserts.
const TAG: &str = "⁂";

/// An edited text of distinct lines whose every inserted line is new and non-blank (tagged), as
/// a model's change is: then a hunk's new side is in the file only where it was applied.
fn retry_pair() -> impl Strategy<Value = Pair> {
    pair_from(unique_lines(60), 1..6).prop_map(|mut p| {
        let old: std::collections::HashSet<String> = p.old.iter().cloned().collect();
        for (k, line) in p.new.iter_mut().enumerate() {
            if !old.contains(line) {
                *line = format!("{} {TAG}{k}", line.trim());
            }
        }
        p
    })
}

proptest! {
    /// A retried patch (the agent lost the response and sends the same patch again) never
    /// changes the file a second time: applied to its own result, it is refused (or changes
    /// nothing), in unified form plain and anchored and as Codex chunks. (`already_applied`
    /// itself is pinned by the append property below and by apply.rs's unit tests.)
    #[test]
    fn a_retried_patch_never_changes_the_file_twice(
        pair in retry_pair(),
        context in 1..4usize,
        anchored: bool,
        codex: bool,
    ) {
        // The envelope has no final-newline marker.
        let pair = if codex {
            Pair { old_final_newline: true, new_final_newline: true, ..pair }
        } else {
            pair
        };
        let unified = diff(&pair, context, anchored);
        prop_assume!(!unified.is_empty());
        let text = if codex {
            codex_from_unified(&unified)
        } else {
            unified
        };
        let fp = only_file(&text)?;
        // A hunk that adds only blank lines, or a line equal to one it removes (a change of the
        // final newline), cannot be told applied: its new lines are what any file may hold.
        let adds_new = |h: &Hunk| h.lines.iter().any(|l| l.kind == LineKind::Add && l.text.contains(TAG));
        prop_assume!(hunks(&fp).iter().all(|h| h.additions() == 0 || adds_new(h)));
        // A pure insertion placed by its number alone (into an empty file here) is not checked:
        // an insertion before an equal line is an ordinary first apply.
        prop_assume!(hunks(&fp).iter().all(|h| h.old_side().next().is_some()));
        // Nor are hunks that remove a line and add it back (a change of the final newline
        // written as a replacement), or whose new side is blank lines only (blank runs compare
        // as one).
        prop_assume!(hunks(&fp).iter().all(|h| {
            let removed: Vec<&str> = h.lines.iter().filter(|l| l.kind == LineKind::Remove).map(|l| l.text.as_str()).collect();
            !h.lines.iter().any(|l| l.kind == LineKind::Add && removed.contains(&l.text.as_str()))
        }));
        // Nor are hunks whose new side is blank lines only (blank runs compare as one).
        prop_assume!(hunks(&fp).iter().all(|h| h
            .lines
            .iter()
            .any(|l| l.kind != LineKind::Remove && !normalize_for_hash(&l.text).is_empty())));
        // Nor hunks that only remove blank lines: a run one blank line shorter is a run the
        // same hunk matches again line for line, and nothing in the text tells a retry from a
        // first apply.
        prop_assume!(hunks(&fp).iter().all(|h| h.additions() > 0
            || h.lines.iter().any(|l| l.kind == LineKind::Remove && !normalize_for_hash(&l.text).is_empty())));
        let Ok(first) = apply(&fp, &pair.old_text()) else {
            // Codex chunks may be ambiguous in the original already: nothing to retry.
            return Ok(());
        };
        prop_assert_eq!(&first, &pair.new_text(), "{}", text);
        match apply(&fp, &first) {
            Ok(second) => prop_assert_eq!(second, first, "applied twice:\n{}", text),
            // Refused: `already_applied` where a hunk's new lines are found, else the hunks that
            // only remove lines no longer match (their lines are gone).
            Err(e) => {
                let only_removals = hunks(&fp).iter().all(|h| !adds_new(h));
                if !only_removals && e.reason != Reason::AlreadyApplied {
                    prop_assert!(
                        matches!(e.reason, Reason::AmbiguousMatch | Reason::HunkMismatch | Reason::OutOfBounds),
                        "{}\n{}", e, text
                    );
                }
            }
        }
    }

    /// A Codex chunk that appends lines after its context (no trailing context) matches again
    /// after it was applied; the retry is refused as `already_applied`, and saying the line
    /// that now follows as context adds the lines a second time on purpose.
    #[test]
    fn a_retried_append_without_trailing_context_is_already_applied(
        file in unique_lines(40),
        at: Index,
        context in 1..4usize,
        added in 1..4usize,
    ) {
        let non_blank: Vec<usize> = (0..file.len())
            .filter(|&i| !file[i].is_empty() && i + 1 >= context)
            .collect();
        prop_assume!(!non_blank.is_empty());
        let end = non_blank[at.index(non_blank.len())] + 1;
        let adds: Vec<String> = (0..added).map(|k| format!("appended {k}")).collect();
        let mut chunk = String::from("*** Begin Patch\n*** Update File: f\n@@\n");
        for l in &file[end - context..end] {
            chunk.push_str(&format!(" {l}\n"));
        }
        for l in &adds {
            chunk.push_str(&format!("+{l}\n"));
        }
        chunk.push_str("*** End Patch\n");
        let fp = only_file(&chunk)?;
        let old = render(&file, true, "\n", false);
        let first = apply(&fp, &old).map_err(|e| TestCaseError::fail(format!("{e}\n{chunk}")))?;
        let err = apply(&fp, &first).expect_err("a retried append was applied again");
        prop_assert_eq!(err.reason, Reason::AlreadyApplied, "{}", err);
        prop_assert!(err.message.contains("include the line that now follows"), "{}", err);
        // On purpose: the next line (the first appended one) as trailing context.
        let again = chunk.replace("*** End Patch\n", &format!(" {}\n*** End Patch\n", adds[0]));
        let again = only_file(&again)?;
        let twice = apply(&again, &first).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(twice.lines().filter(|l| *l == adds[0]).count(), 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { max_global_rejects: 100_000, ..ProptestConfig::with_cases(256) })]

    /// Live sync states the new text, and only it: the blocks lie in order inside the new file;
    /// a shown block's lines are the new file's lines there, each with its own fresh anchor;
    /// replacing each block's old range by its new lines turns the old text into the new one
    /// (so every changed line is inside a block); a block is shown when it fits both the
    /// per-block and the call's caps, and the shown lines never pass the call's cap.
    #[test]
    fn live_sync_states_the_new_text(
        pair in pair(),
        context in 0..3usize,
        anchored: bool,
        block_max in 0..8usize,
        total_max in 0..16usize,
    ) {
        let (old, new) = (pair.old_text(), pair.new_text());
        prop_assume!(old != new);
        let fp = only_file(&diff(&pair, context, anchored))?;
        let opts = ApplyOptions {
            sync_block_max_lines: block_max,
            sync_total_max_lines: total_max,
            ..ApplyOptions::default()
        };
        let out = apply_file_patch(&fp, Some(old.as_bytes()), &opts)
            .map_err(|e| TestCaseError::fail(format!("own diff refused: {e}")))?;
        let old_doc = Document::from_bytes(old.as_bytes()).expect("generated texts decode");
        let new_doc = Document::from_bytes(new.as_bytes()).expect("generated texts decode");
        let (old_lines, new_lines) = (old_doc.texts(), new_doc.texts());
        let mut rebuilt: Vec<&str> = Vec::new();
        let (mut old_at, mut new_at, mut shown) = (0usize, 0usize, 0usize);
        for b in &out.sync {
            let (start, old_start) = (b.start_line - 1, b.old_start_line - 1);
            prop_assert!(start >= new_at && old_start >= old_at, "blocks out of order: {:?}", out.sync);
            prop_assert_eq!(start - new_at, old_start - old_at, "the gap before a block differs: {:?}", b);
            prop_assert!(start + b.line_count <= new_lines.len(), "{:?} past the end", b);
            prop_assert!(old_start + b.old_line_count <= old_lines.len(), "{:?} past the old end", b);
            rebuilt.extend(&old_lines[old_at..old_start]);
            rebuilt.extend(&new_lines[start..start + b.line_count]);
            match &b.lines {
                Some(lines) => {
                    let expected: Vec<String> = (start..start + b.line_count)
                        .map(|i| hashline(i + 1, new_lines[i]))
                        .collect();
                    prop_assert_eq!(lines, &expected);
                    shown += b.line_count;
                }
                None => prop_assert!(
                    b.line_count > block_max || shown + b.line_count > total_max,
                    "a block within both caps was withheld: {:?} (shown before: {})", b, shown
                ),
            }
            prop_assert!(b.line_count <= block_max || b.lines.is_none(), "{:?} over the block cap", b);
            old_at = old_start + b.old_line_count;
            new_at = start + b.line_count;
        }
        rebuilt.extend(&old_lines[old_at..]);
        prop_assert_eq!(rebuilt, new_lines, "the blocks do not account for every change");
        prop_assert!(shown <= total_max);
    }

    /// A created file's live sync is one block of all its lines, shown when it fits both caps.
    #[test]
    fn a_created_file_syncs_as_one_block(
        lines in lines(12),
        block_max in 0..8usize,
        total_max in 0..8usize,
    ) {
        let body: String = lines.iter().map(|l| format!("+{l}\n")).collect();
        let patch = format!("*** Begin Patch\n*** Add File: n.txt\n{body}*** End Patch\n");
        let fp = only_file(&patch)?;
        let opts = ApplyOptions {
            sync_block_max_lines: block_max,
            sync_total_max_lines: total_max,
            ..ApplyOptions::default()
        };
        let out = apply_file_patch(&fp, None, &opts)
            .map_err(|e| TestCaseError::fail(format!("add refused: {e}")))?;
        let text = String::from_utf8(out.new_content.expect("an added file has content"))
            .expect("the engine writes UTF-8");
        let doc = Document::from_bytes(text.as_bytes()).expect("its own output decodes");
        prop_assert_eq!(out.sync.len(), 1);
        let b = &out.sync[0];
        prop_assert_eq!((b.start_line, b.line_count), (1, doc.len()));
        prop_assert_eq!((b.old_start_line, b.old_line_count), (1, 0));
        let fits = doc.len() <= block_max && doc.len() <= total_max;
        match &b.lines {
            Some(shown) => {
                prop_assert!(fits, "{:?} shown past a cap", b);
                let expected: Vec<String> =
                    doc.texts().iter().enumerate().map(|(i, l)| hashline(i + 1, l)).collect();
                prop_assert_eq!(shown, &expected);
            }
            None => prop_assert!(!fits, "{:?} withheld within both caps", b),
        }
    }
}
