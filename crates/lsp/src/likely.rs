//! Which of a change's other files it most likely broke: those are checked first, and the
//! result waits for them (issue 48, "the callers a change broke in the same result").
//!
//! A file that uses what a change touched names it: a renamed function's callers name the old
//! name, a changed signature's callers name the function. The words a change touched are the
//! identifiers on the lines it removed or added, less the languages' keywords and built-in type
//! names (`def`, `export`, `self`, `string`: every file names them, they tell nothing). Likely:
//! a candidate that names a touched word; the likely ones go first, those naming the rarest
//! touched word (named by the fewest candidates) first.
//!
//! Invariant: this orders the checks and bounds the wait; it never decides whether a file is
//! checked or what is reported about it. A file ranked last is checked all the same (after the
//! likely ones) and reported in this result or a later one, counted until then.

use std::collections::{HashMap, HashSet};

/// The identifiers (`[A-Za-z_$][A-Za-z0-9_$]*`) of `text`, in order, repeats included.
fn words(text: &str) -> impl Iterator<Item = &str> {
    let is_start = |c: char| c.is_ascii_alphabetic() || c == '_' || c == '$';
    let is_part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(is_start)?;
        // A word begins only where no word character comes right before (`x1y` is one word,
        // not `x1y` and `y`).
        let before_ok = rest[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !is_part(c));
        let tail = &rest[start..];
        let len = tail.find(|c: char| !is_part(c)).unwrap_or(tail.len());
        rest = &tail[len..];
        Some(before_ok.then_some(&tail[..len]))
    })
    .flatten()
}

/// The identifiers on the lines that differ between `previous` and `text` (each side's lines
/// the other does not have, counted as multisets, so a moved line is not a change). With no
/// previous text (a new file), every line of `text`.
pub(crate) fn touched_words(previous: Option<&str>, text: &str) -> HashSet<String> {
    let Some(previous) = previous else {
        return words(text).map(str::to_owned).collect();
    };
    let mut count: HashMap<&str, i64> = HashMap::new();
    for line in previous.lines() {
        *count.entry(line).or_default() += 1;
    }
    for line in text.lines() {
        *count.entry(line).or_default() -= 1;
    }
    count
        .into_iter()
        .filter(|(_, n)| *n != 0)
        .flat_map(|(line, _)| words(line))
        .map(str::to_owned)
        .collect()
}

/// Words of the languages whose servers are pulled (TypeScript, JavaScript, Python) that
/// every file names: keywords, built-in types and constants. Never touched words.
const COMMON: &[&str] = &[
    "False",
    "None",
    "True",
    "and",
    "any",
    "as",
    "async",
    "await",
    "bigint",
    "bool",
    "boolean",
    "break",
    "bytes",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "def",
    "default",
    "del",
    "dict",
    "elif",
    "else",
    "enum",
    "except",
    "export",
    "extends",
    "false",
    "finally",
    "float",
    "for",
    "from",
    "function",
    "global",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "int",
    "interface",
    "is",
    "lambda",
    "let",
    "list",
    "never",
    "new",
    "nonlocal",
    "not",
    "null",
    "number",
    "object",
    "of",
    "or",
    "pass",
    "private",
    "protected",
    "public",
    "raise",
    "readonly",
    "return",
    "self",
    "set",
    "static",
    "str",
    "string",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "tuple",
    "type",
    "typeof",
    "undefined",
    "unknown",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// The order to check `texts` (the candidates, in their order of nearness) in, and how many of
/// that order's first files are likely broken: the likely ones (naming a touched word) first,
/// those whose rarest touched word fewer candidates name first, each group keeping the
/// candidates' order otherwise.
pub(crate) fn order(texts: &[&str], touched: &HashSet<String>) -> (Vec<usize>, usize) {
    let touched = |w: &str| touched.contains(w) && !COMMON.contains(&w);
    // The touched words each candidate names.
    let named: Vec<HashSet<&str>> = texts
        .iter()
        .map(|t| words(t).filter(|w| touched(w)).collect())
        .collect();
    let mut frequency: HashMap<&str, usize> = HashMap::new();
    for set in &named {
        for w in set {
            *frequency.entry(w).or_default() += 1;
        }
    }
    // Per candidate, how many candidates name its rarest touched word; `None`: it names none.
    let rarest: Vec<Option<usize>> = named
        .iter()
        .map(|set| set.iter().map(|w| frequency[w]).min())
        .collect();
    let n = texts.len();
    let mut first: Vec<usize> = (0..n).filter(|&i| rarest[i].is_some()).collect();
    first.sort_by_key(|&i| rarest[i]);
    let k = first.len();
    first.extend((0..n).filter(|&i| rarest[i].is_none()));
    (first, k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(words: &[&str]) -> HashSet<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn words_are_identifiers_whole() {
        let w: Vec<&str> = words("def to_kv(a1, $b): return x1y + 2z # é_c").collect();
        assert_eq!(w, ["def", "to_kv", "a1", "$b", "return", "x1y", "_c"]);
    }

    #[test]
    fn touched_words_are_those_of_changed_lines() {
        let old = "def to_key_val_list(value):\n    return value\n";
        let new = "def to_kv_list(value):\n    return value\n";
        assert_eq!(
            touched_words(Some(old), new),
            set(&["def", "to_key_val_list", "to_kv_list", "value"])
        );
        // A moved line is no change.
        assert!(touched_words(Some("a = 1\nb = 2\n"), "b = 2\na = 1\n").is_empty());
        // A new file: all of it.
        assert_eq!(touched_words(None, "x = y\n"), set(&["x", "y"]));
    }

    #[test]
    fn the_callers_of_a_renamed_function_come_first_and_are_likely() {
        let touched = touched_words(
            Some("def to_key_val_list(value):\n"),
            "def to_kv_list(value):\n",
        );
        let texts = [
            "def a():\n    return 1\n",
            "def b(value):\n    return value\n",
            "from .utils import to_key_val_list\ndef c(value):\n    to_key_val_list(value)\n",
            "def d():\n    pass\n",
        ];
        // c names the rarest touched word, b names `value` (as c does); `def` tells nothing.
        assert_eq!(order(&texts, &touched), (vec![2, 1, 0, 3], 2));
    }

    #[test]
    fn keywords_make_no_file_likely_and_a_shared_name_makes_all() {
        let touched = set(&["export", "const", "a", "BAD"]);
        let texts = [
            "import { a } from './a';",
            "let b = 1;",
            "import { a } from './a';",
        ];
        assert_eq!(order(&texts, &touched), (vec![0, 2, 1], 2));
        assert_eq!(
            order(&texts, &set(&["def", "self", "string"])),
            (vec![0, 1, 2], 0)
        );
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            /// The order is a permutation of the candidates: every file is checked, whatever
            /// the words (ordering never drops or repeats a file).
            #[test]
            fn order_is_a_permutation(
                texts in proptest::collection::vec("[a-c_ ()\n]{0,40}", 0..12),
                old in "[a-c_ ()\n]{0,40}",
                new in "[a-c_ ()\n]{0,40}",
            ) {
                let touched = touched_words(Some(&old), &new);
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let (order, likely) = order(&refs, &touched);
                let mut sorted = order.clone();
                sorted.sort_unstable();
                prop_assert_eq!(sorted, (0..texts.len()).collect::<Vec<_>>());
                prop_assert!(likely <= texts.len());
                // The likely ones each name a touched word.
                for &i in &order[..likely] {
                    prop_assert!(words(&texts[i]).any(|w| touched.contains(w)));
                }
            }
        }
    }
}
