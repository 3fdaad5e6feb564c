//! The retry class (issue 49): a patch applied a second time never changes the file again.
//!
//! Invariant: applying a patch to the result of applying it never writes. When the old side
//! would still match somewhere (a copy of the lines, maybe indented otherwise or with other
//! punctuation, i.e. in a looser tier) and the patch's new side stands where the first apply
//! put it (nearer to where the hunk points than that copy, or there when the copy is found
//! there, in the copy's tier or a stricter one; or anywhere in the window in a stricter tier),
//! the answer is `already_applied` and the file is left byte for byte as it is, whatever tier
//! the first apply matched in, for pure deletions, pure insertions and replacements alike. A
//! hunk whose old side matches nowhere any more is refused too: `already_applied` when it adds
//! text that is in place, and a deletion with no copy left (its removed lines are simply gone,
//! which nothing tells from lines that were never there) `hunk_mismatch`.

use lspedit_engine::{ApplyOptions, Reason, apply_file_patch, parse_patch};

/// The block every file holds, as the patch writes it (four spaces, straight quotes).
const BLOCK: [&str; 6] = [
    "def total(items):",
    "    label = \"sum\"",
    "    count = 0",
    "    for item in items:",
    "        count += item",
    "    return count",
];

/// The tier a copy of the block is written in: how it differs from the patch's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Exact,
    TrailingWhitespace,
    /// Indented with tabs (the decoy of this tier: two spaces a level).
    Whitespace,
    /// Curly quotes (the decoy: also two spaces a level).
    Punctuation,
}

const TIERS: [Tier; 4] = [
    Tier::Exact,
    Tier::TrailingWhitespace,
    Tier::Whitespace,
    Tier::Punctuation,
];

/// `line` of the patch as a copy in `tier` holds it; `decoy` picks the decoy's variant of an
/// indentation change, so that a decoy is never byte-equal to the target copy.
fn variant(line: &str, tier: Tier, decoy: bool) -> String {
    let body = line.trim_start();
    let levels = (line.len() - body.len()) / 4;
    let indent = |unit: &str| unit.repeat(levels);
    match (tier, decoy) {
        (Tier::Exact, _) => line.to_string(),
        (Tier::TrailingWhitespace, _) => format!("{line}  "),
        (Tier::Whitespace, false) => format!("{}{body}", indent("\t")),
        (Tier::Whitespace, true) => format!("{}{body}", indent("  ")),
        (Tier::Punctuation, false) => line
            .replacen('"', "\u{201C}", 1)
            .replacen('"', "\u{201D}", 1),
        (Tier::Punctuation, true) => format!(
            "{}{}",
            indent("  "),
            body.replacen('"', "\u{201C}", 1)
                .replacen('"', "\u{201D}", 1)
        ),
    }
}

/// One line of a hunk: context or removal of a block line, or an added line.
#[derive(Clone, Copy)]
enum L {
    Ctx(usize),
    Del(usize),
    Add(&'static str),
}

/// The hunk shapes of the class: pure deletions (after leading context, before trailing
/// context, between context), pure insertions (after, before, between context) and mixed.
fn shapes() -> Vec<(&'static str, Vec<L>)> {
    use L::*;
    vec![
        (
            "deletion after leading context",
            vec![Ctx(0), Ctx(1), Del(2)],
        ),
        (
            "deletion before trailing context",
            vec![Del(1), Ctx(2), Ctx(3)],
        ),
        ("deletion between context", vec![Ctx(1), Del(2), Ctx(3)]),
        (
            "insertion after context",
            vec![Ctx(0), Ctx(1), Add("    note = 1")],
        ),
        (
            "insertion before context",
            vec![Add("    note = 1"), Ctx(1), Ctx(2)],
        ),
        (
            "insertion between context",
            vec![Ctx(1), Add("    note = 1"), Ctx(2)],
        ),
        (
            "replacement between context",
            vec![Ctx(1), Del(2), Add("    count = 1"), Ctx(3)],
        ),
        (
            "replacement after leading context",
            vec![Ctx(0), Ctx(1), Del(2), Add("    count = 1")],
        ),
    ]
}

fn filler(tag: &str, n: usize) -> Vec<String> {
    (0..n).map(|k| format!("{tag}_{k} = {k}")).collect()
}

/// The file: filler, the target copy (first line at 1-based `TARGET`), filler, then the decoy
/// (when there is one) below or above (moving the target down). Returns the text and the
/// target copy's first line.
const TARGET: usize = 5;

fn file(target: Tier, decoy: Option<(Tier, bool)>) -> (String, usize) {
    let copy = |tier: Tier, d: bool| -> Vec<String> {
        BLOCK.iter().map(|l| variant(l, tier, d)).collect()
    };
    let mut lines = filler("head", TARGET - 1);
    let mut below = filler("mid", 8);
    match decoy {
        Some((tier, false)) => below.extend(copy(tier, true)),
        Some((tier, true)) => lines
            .splice(0..0, copy(tier, true).into_iter().chain(filler("top", 8)))
            .for_each(drop),
        None => {}
    }
    let start = lines.len();
    lines.extend(copy(target, false));
    lines.extend(below);
    lines.extend(filler("tail", 3));
    assert!(decoy.is_some_and(|d| d.1) || start + 1 == TARGET);
    (lines.iter().map(|l| format!("{l}\n")).collect(), start + 1)
}

/// The shape as a unified diff whose header points at the target copy (`at`, 1-based), and as a
/// Codex chunk (no position).
fn patches(shape: &[L], at: usize) -> [String; 2] {
    let body: String = shape
        .iter()
        .map(|l| match *l {
            L::Ctx(i) => format!(" {}\n", BLOCK[i]),
            L::Del(i) => format!("-{}\n", BLOCK[i]),
            L::Add(t) => format!("+{t}\n"),
        })
        .collect();
    let first_old = shape.iter().find_map(|l| match *l {
        L::Ctx(i) | L::Del(i) => Some(i),
        L::Add(_) => None,
    });
    let old_count = shape.iter().filter(|l| !matches!(l, L::Add(_))).count();
    let new_count = shape.iter().filter(|l| !matches!(l, L::Del(_))).count();
    let start = at + first_old.unwrap_or(0);
    let unified =
        format!("--- a/f\n+++ b/f\n@@ -{start},{old_count} +{start},{new_count} @@\n{body}");
    let codex = format!("*** Begin Patch\n*** Update File: f\n@@\n{body}*** End Patch\n");
    [unified, codex]
}

fn apply(patch: &str, text: &str) -> Result<String, (Reason, String)> {
    let fp = parse_patch(patch)
        .map_err(|e| (e.reason, e.message.clone()))?
        .files
        .remove(0);
    let out = apply_file_patch(&fp, Some(text.as_bytes()), &ApplyOptions::default())
        .map_err(|e| (e.reason, e.message))?;
    Ok(String::from_utf8(out.new_content.unwrap_or_default()).expect("the engine writes UTF-8"))
}

/// For every tier the first apply matches in, every hunk shape, unified and Codex, with no copy
/// of the block or a copy in the same or a looser tier below or above: applied once, then
/// again, the second answer is `already_applied` and changes nothing (a deletion with no copy
/// left: a refusal). Fails without the issue 49 fix: the retry of a deletion after leading
/// context deleted the copy indented otherwise.
#[test]
fn a_patch_applied_twice_changes_the_file_once() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for target in TIERS {
        let decoys = std::iter::once(None).chain(
            TIERS
                .into_iter()
                .filter(|&d| d >= target)
                .flat_map(|d| [Some((d, false)), Some((d, true))]),
        );
        for decoy in decoys {
            let (text, at) = file(target, decoy);
            for (name, shape) in shapes() {
                for (format, patch) in ["unified", "codex"].iter().zip(patches(&shape, at)) {
                    let case = format!("{name}, {format}, target {target:?}, decoy {decoy:?}");
                    let once = match apply(&patch, &text) {
                        Ok(once) => once,
                        // A Codex chunk with a copy in the same tier is ambiguous already.
                        Err((Reason::AmbiguousMatch, _))
                            if *format == "codex" && decoy.is_some_and(|d| d.0 == target) =>
                        {
                            continue;
                        }
                        Err((reason, message)) => {
                            panic!(
                                "first apply refused: {case}: {reason:?} {message}\n{patch}\n{text}"
                            )
                        }
                    };
                    assert_ne!(once, text, "{case}");
                    checked += 1;
                    let deletion = !shape.iter().any(|l| matches!(l, L::Add(_)));
                    match apply(&patch, &once) {
                        Ok(twice) if twice == once => {}
                        Ok(twice) => failures.push(format!("applied twice: {case}\n{twice}")),
                        Err((Reason::AlreadyApplied, _)) => {}
                        Err((Reason::HunkMismatch, _)) if deletion && decoy.is_none() => {}
                        Err((reason, message)) => {
                            failures.push(format!("{reason:?} ({message}): {case}"));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 200, "{checked} cases");
    assert!(
        failures.is_empty(),
        "{} of {checked}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The case as it was reported: a pure deletion after leading context, retried, with a
/// second copy indented otherwise further down.
#[test]
fn the_retried_deletion_does_not_delete_the_copy_indented_otherwise() {
    let text = "def a():\n    x = 1\n    y = 2\n\nclass K:\n  def a():\n    x = 1\n    y = 2\n";
    let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n def a():\n     x = 1\n-    y = 2\n";
    let once = apply(patch, text).unwrap();
    assert_eq!(
        once,
        "def a():\n    x = 1\n\nclass K:\n  def a():\n    x = 1\n    y = 2\n"
    );
    let (reason, message) = apply(patch, &once).unwrap_err();
    assert_eq!(reason, Reason::AlreadyApplied, "{message}");
    assert!(message.contains("hunk 1 at line 1"), "{message}");
    // The same deletion where no line of its new side stands nearer than the copy indented
    // otherwise is a first apply, made on that copy.
    let first = "def b():\n    x = 1\n\nclass K:\n  def a():\n    x = 1\n    y = 2\n";
    assert_eq!(
        apply(patch, first).unwrap(),
        "def b():\n    x = 1\n\nclass K:\n  def a():\n    x = 1\n"
    );
}

/// `lines` joined, each terminated.
fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// `patch` applied to `text` with `opts`, or the refusal's reason.
fn apply_with(patch: &str, text: &str, opts: &ApplyOptions) -> Result<String, Reason> {
    let fp = parse_patch(patch).map_err(|e| e.reason)?.files.remove(0);
    let out = apply_file_patch(&fp, Some(text.as_bytes()), opts).map_err(|e| e.reason)?;
    Ok(String::from_utf8(out.new_content.unwrap_or_default()).expect("the engine writes UTF-8"))
}

/// The patch that moves the limit of the block at line 3 (the hunk's target) from 5 to 10.
const LIMIT: &str =
    "--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n     label = \"sum\"\n-    limit = 5\n+    limit = 10\n";

/// A copy of the new side counts only nearer than the old lines found, in their tier or a
/// stricter one, or anywhere in a stricter tier: here the old lines match ignoring indentation
/// three lines from the target, and a second block, indented otherwise too (the same tier) and
/// farther, already has the new limit. That block is another one; the hunk changes the nearer.
#[test]
fn a_changed_copy_farther_than_the_old_lines_in_their_tier_is_another_block() {
    let mut lines = vec![
        "h0",
        "h1",
        "h2",
        "h3",
        "h4",
        "\tlabel = \"sum\"",
        "\tlimit = 5",
    ];
    lines.extend(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"]);
    lines.extend(["\tlabel = \"sum\"", "\tlimit = 10", "t0"]);
    let mut want = lines.clone();
    want[6] = "\tlimit = 10";
    assert_eq!(apply(LIMIT, &text(&lines)).unwrap(), text(&want));
}

/// The old lines matched byte for byte away from the target: a copy of the new side nearer to
/// the target but only ignoring indentation (a looser tier than the match) is another block.
#[test]
fn a_changed_copy_nearer_than_the_old_lines_but_in_a_looser_tier_is_another_block() {
    let lines = [
        "h0",
        "h1",
        "h2",
        "\tlabel = \"sum\"",
        "\tlimit = 10",
        "h3",
        "h4",
        "    label = \"sum\"",
        "    limit = 5",
        "t0",
    ];
    let mut want = lines;
    want[8] = "    limit = 10";
    assert_eq!(apply(LIMIT, &text(&lines)).unwrap(), text(&want));
}

/// The first apply found the block indented otherwise far from the target (the nearer copy has
/// curly quotes: a looser tier); on the retry, the old lines match only that copy.
/// The new side standing in a stricter tier than that copy, however far, says the change is
/// made.
#[test]
fn a_retry_whose_old_lines_match_only_in_a_looser_tier_finds_the_change_farther() {
    let mut lines = vec!["h0", "h1", "h2", "h3", "h4"];
    lines.extend(["\tlabel = \u{201C}sum\u{201D}", "\tlimit = 5"]);
    lines.extend(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"]);
    lines.extend(["\tlabel = \"sum\"", "\tlimit = 5", "t0"]);
    let before = text(&lines);
    let once = apply(LIMIT, &before).unwrap();
    let mut want = lines.clone();
    want[18] = "\tlimit = 10";
    assert_eq!(once, text(&want));
    let (reason, message) = apply(LIMIT, &once).unwrap_err();
    assert_eq!(reason, Reason::AlreadyApplied, "{message}");
    assert!(message.contains("line 18"), "{message}");
}

/// A deletion between two context lines whose first apply was made on a byte-exact block far
/// from the target (an exact match wins over a nearer copy indented otherwise). On the retry
/// the old lines match only that copy: the context lines joined where the exact block was say
/// the deletion is made, and the copy keeps its line.
#[test]
fn a_retried_deletion_between_context_keeps_the_nearer_copy_indented_otherwise() {
    let patch =
        "--- a/f\n+++ b/f\n@@ -3,3 +3,2 @@\n     count = 0\n-    total = 1\n     return count\n";
    let mut lines = vec!["h0", "h1", "h2", "h3", "h4"];
    lines.extend(["\tcount = 0", "\ttotal = 1", "\treturn count"]);
    lines.extend(["m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9"]);
    lines.extend(["    count = 0", "    total = 1", "    return count", "t0"]);
    let once = apply(patch, &text(&lines)).unwrap();
    let mut want = lines.clone();
    want.remove(19);
    assert_eq!(once, text(&want));
    let (reason, message) = apply(patch, &once).unwrap_err();
    assert_eq!(reason, Reason::AlreadyApplied, "{message}");
}

/// A deletion with one line of context, matched byte for byte: that one line standing nearer
/// to the target proves nothing (a `}` or a `return` is in many places), so a hunk found away
/// from its target with trailing whitespace aside is applied there.
#[test]
fn one_context_line_nearer_than_a_drifted_deletion_does_not_make_it_applied() {
    let patch = "--- a/f\n+++ b/f\n@@ -2,2 +2,1 @@\n end\n-drop = 1\n";
    let lines = [
        "a = 1",
        "end",
        "b = 2",
        "c = 3",
        "d = 4",
        "end  ",
        "drop = 1  ",
        "e = 5",
    ];
    let mut want = lines.to_vec();
    want.remove(6);
    assert_eq!(apply(patch, &text(&lines)).unwrap(), text(&want));
}

/// The retried deletion with one line of context: where the old lines match only a copy
/// indented otherwise, that one line standing nearer, byte for byte, says the deletion is made.
#[test]
fn a_retried_deletion_with_one_context_line_keeps_the_copy_indented_otherwise() {
    let patch = "--- a/f\n+++ b/f\n@@ -2,2 +2,1 @@\n     x = 1\n-    y = 2\n";
    let first =
        "def a():\n    x = 1\n    y = 2\n\nclass K:\n  def b():\n      x = 1\n      y = 2\n";
    let once = apply(patch, first).unwrap();
    assert_eq!(
        once,
        "def a():\n    x = 1\n\nclass K:\n  def b():\n      x = 1\n      y = 2\n"
    );
    let (reason, message) = apply(patch, &once).unwrap_err();
    assert_eq!(reason, Reason::AlreadyApplied, "{message}");
}

/// A fix of typographic punctuation retried on a file whose one line is the fix: the new side
/// is the whole window, and it is already applied, whatever the search radius.
#[test]
fn a_retried_fix_of_the_files_only_line_is_already_applied() {
    let patch = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-it\u{2019}s\n+it's\n";
    for radius in [100, 0] {
        let opts = ApplyOptions {
            search_radius: radius,
            ..ApplyOptions::default()
        };
        let once = apply_with(patch, "it\u{2019}s\n", &opts).unwrap();
        assert_eq!(once, "it's\n");
        assert_eq!(
            apply_with(patch, &once, &opts),
            Err(Reason::AlreadyApplied),
            "radius {radius}"
        );
    }
}

/// A fix of typographic punctuation whose context lines the file also writes with other
/// punctuation: on the retry, the old and the new side both match at the target in that tier.
/// The new side is where the old side matched: already applied.
#[test]
fn a_retried_punctuation_fix_at_its_target_is_already_applied() {
    let patch =
        "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n say(\u{201C}hi\u{201D})\n-it\u{2019}s\n+it's\n";
    let once = apply(patch, "a\nsay(\"hi\")\nit\u{2019}s\nb\n").unwrap();
    assert_eq!(once, "a\nsay(\"hi\")\nit's\nb\n");
    let (reason, message) = apply(patch, &once).unwrap_err();
    assert_eq!(reason, Reason::AlreadyApplied, "{message}");
}
