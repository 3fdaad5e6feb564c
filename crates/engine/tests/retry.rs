//! The retry class (issue 49): a patch applied a second time never changes the file again.
//!
//! Invariant: applying a patch to the result of applying it never writes. When the old side
//! would still match somewhere (a copy of the lines, maybe indented otherwise or with other
//! punctuation, i.e. in a looser tier) and the patch's new side stands where the first apply
//! put it (nearer to where the hunk points than that copy, in the copy's tier or a stricter
//! one; or anywhere in the window in a stricter tier), the answer is `already_applied` and the
//! file is left byte for byte as it is, whatever tier the first apply matched in, for pure
//! deletions, pure insertions and replacements alike. A hunk whose old side matches nowhere any
//! more is refused too: `already_applied` when it adds text that is in place, and a deletion
//! with no copy left (its removed lines are simply gone, which nothing tells from lines that
//! were never there) `hunk_mismatch`.

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
