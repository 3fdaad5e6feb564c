//! Deterministic inputs: a Rust-like source file of a given length, a 10-hunk patch against it,
//! and (optionally) a drifted copy of the file where unrelated lines were inserted above every
//! hunk so that the patch's headers are stale.
//!
//! Every input comes from a fixed seed, so two runs on any machine benchmark the same bytes.
//! Each hunk's old side (3 context lines, 2 removals, 3 context lines) occurs exactly once in
//! the file it is applied to, so there is no decoy: the only work is finding it.

use std::collections::HashSet;

/// SplitMix64: tiny, fast, good enough for generating text.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0; the tiny modulo bias does not matter here).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const VERBS: &[&str] = &[
    "compute",
    "parse",
    "validate",
    "merge",
    "resolve",
    "encode",
    "decode",
    "render",
    "collect",
    "update",
    "flush",
    "normalize",
    "index",
    "split",
    "apply",
    "load",
];
const NOUNS: &[&str] = &[
    "record", "header", "buffer", "segment", "token", "entry", "window", "chunk", "request",
    "config", "table", "frame", "cursor", "range", "payload", "symbol",
];
const ERRORS: &[&str] = &["Overflow", "Invalid", "Truncated", "Missing", "Conflict"];
const METHODS: &[&str] = &[
    "wrapping_mul",
    "wrapping_add",
    "rotate_left",
    "saturating_sub",
    "wrapping_sub",
];

/// One generated function (8–30 lines) with identifiers unique to `id`.
fn push_item(rng: &mut Rng, id: u64, out: &mut Vec<String>) {
    let name = format!("{}_{}_{id}", rng.pick(VERBS), rng.pick(NOUNS));
    let acc = format!("acc_{id}");
    out.push(format!(
        "/// {}s the {} of entry {id} and returns its checksum.",
        rng.pick(VERBS),
        rng.pick(NOUNS)
    ));
    out.push(format!(
        "pub fn {name}(input: &[u8], seed: u64) -> Result<u64, Error> {{"
    ));
    out.push(format!(
        "    let mut {acc} = seed ^ 0x{:04x};",
        rng.below(1 << 16)
    ));
    let statements = 2 + rng.below(6);
    for s in 0..statements {
        match rng.below(6) {
            0 => out.push(format!(
                "    let v_{id}_{s} = {acc}.{}({});",
                rng.pick(METHODS),
                rng.below(1000)
            )),
            1 => {
                out.push(format!("    if {acc} % {} == {} {{", 3 + s, rng.below(3)));
                out.push(format!(
                    "        return Err(Error::{}({id}, {s}));",
                    rng.pick(ERRORS)
                ));
                out.push("    }".to_string());
            }
            2 => {
                out.push("    for (i, b) in input.iter().enumerate() {".to_string());
                out.push(format!(
                    "        {acc} = {acc}.{}(u64::from(*b) + i as u64 + {});",
                    rng.pick(METHODS),
                    rng.below(100)
                ));
                out.push("    }".to_string());
            }
            3 => out.push(format!(
                "    tracing::debug!(\"{name}: step {s} of {statements}, acc = {{}}\", {acc});"
            )),
            4 => {
                out.push(format!("    match {acc} & 0x{:x} {{", rng.below(16)));
                out.push(format!(
                    "        0 => {acc} = {acc}.{}({}),",
                    rng.pick(METHODS),
                    rng.below(64)
                ));
                out.push(format!("        n => {acc} ^= n << {},", rng.below(32)));
                out.push("    }".to_string());
            }
            _ => out.push(String::new()),
        }
    }
    out.push(format!("    Ok({acc})"));
    out.push("}".to_string());
    out.push(String::new());
}

/// `count` code lines whose identifiers start at `first_id` (so separate calls never collide).
pub fn code_lines(rng: &mut Rng, first_id: u64, count: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(count + 32);
    let mut id = first_id;
    while out.len() < count {
        push_item(rng, id, &mut out);
        id += 1;
    }
    out.truncate(count);
    out
}

/// How the engine compares lines (whitespace does not count), for the decoy check.
fn norm(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Lines of context before and after each change, and lines removed / added per hunk.
pub const CONTEXT: usize = 3;
pub const REMOVED: usize = 2;
pub const ADDED: usize = 3;
const HUNK_OLD: usize = CONTEXT + REMOVED + CONTEXT;

/// A benchmark input: the file as it is on disk, the patch, and the file the patch must produce.
#[derive(Debug, Clone)]
pub struct Case {
    pub old: String,
    pub patch: String,
    pub expected: String,
    pub lines: usize,
}

/// The path the patch names (git-style `a/` and `b/` prefixes in the patch).
pub const REL_PATH: &str = "src/generated.rs";

/// A file of `lines` lines and a `hunks`-hunk patch against it. With `drift > 0`, `drift`
/// unrelated lines are inserted above every hunk in the file the patch is applied to, while the
/// patch keeps the headers of the undrifted file: every hunk is then found `drift` lines away
/// from where the engine first looks (the drift of earlier hunks is carried forward).
pub fn case(seed: u64, lines: usize, hunks: usize, drift: usize) -> Case {
    let mut rng = Rng::new(seed);
    let base = code_lines(&mut rng, 0, lines);
    let normalized: Vec<String> = base.iter().map(|l| norm(l)).collect();

    // Hunk starts (0-based, first context line), evenly spaced and shifted until unique.
    let mut starts: Vec<usize> = Vec::with_capacity(hunks);
    for h in 0..hunks {
        let mut p = (2 * h + 1) * lines / (2 * hunks) - HUNK_OLD / 2;
        // A hunk ending in a blank context line (a patch ending in " \n") is refused as truncated
        // by the engine (its parser drops trailing blank patch lines), so the window ends on text.
        while normalized[p + HUNK_OLD - 1].is_empty() || !unique_window(&normalized, p) {
            p += 1;
        }
        assert!(
            starts.last().is_none_or(|&q| q + HUNK_OLD < p) && p + HUNK_OLD <= lines,
            "file too short for {hunks} hunks"
        );
        starts.push(p);
    }

    let mut drift_rng = Rng::new(seed ^ 0xd1f7);
    let mut old = Vec::with_capacity(lines + drift * hunks);
    let mut new = Vec::with_capacity(lines + drift * hunks + hunks);
    let mut patch =
        format!("diff --git a/{REL_PATH} b/{REL_PATH}\n--- a/{REL_PATH}\n+++ b/{REL_PATH}\n");
    let mut at = 0;
    let mut delta: isize = 0;
    for (h, &p) in starts.iter().enumerate() {
        old.extend_from_slice(&base[at..p]);
        new.extend_from_slice(&base[at..p]);
        if drift > 0 {
            // Identifiers far above the base file's, so drift never duplicates a hunk.
            let extra = code_lines(
                &mut drift_rng,
                1_000_000_000 + (h as u64) * 1_000_000,
                drift,
            );
            old.extend_from_slice(&extra);
            new.extend_from_slice(&extra);
        }
        let indent: String = base[p + CONTEXT]
            .chars()
            .take_while(|c| *c == ' ')
            .collect();
        let indent = if indent.is_empty() {
            "    ".to_string()
        } else {
            indent
        };
        let added: Vec<String> = (0..ADDED)
            .map(|k| {
                format!(
                    "{indent}let patched_{h}_{k} = seed.{}({});",
                    rng.pick(METHODS),
                    rng.below(1000)
                )
            })
            .collect();
        let before = &base[p..p + CONTEXT];
        let removed = &base[p + CONTEXT..p + CONTEXT + REMOVED];
        let after = &base[p + CONTEXT + REMOVED..p + HUNK_OLD];
        patch.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            p + 1,
            HUNK_OLD,
            (p as isize + 1 + delta),
            HUNK_OLD - REMOVED + ADDED
        ));
        for l in before {
            patch.push_str(&format!(" {l}\n"));
        }
        for l in removed {
            patch.push_str(&format!("-{l}\n"));
        }
        for l in &added {
            patch.push_str(&format!("+{l}\n"));
        }
        for l in after {
            patch.push_str(&format!(" {l}\n"));
        }
        old.extend_from_slice(&base[p..p + HUNK_OLD]);
        new.extend_from_slice(before);
        new.extend(added);
        new.extend_from_slice(after);
        delta += ADDED as isize - REMOVED as isize;
        at = p + HUNK_OLD;
    }
    old.extend_from_slice(&base[at..]);
    new.extend_from_slice(&base[at..]);

    if drift > 0 {
        // The drift lines are new text: make sure they did not create a copy of any hunk.
        let n: Vec<String> = old.iter().map(|l| norm(l)).collect();
        let mut seen = HashSet::new();
        for p in 0..=n.len() - HUNK_OLD {
            if starts
                .iter()
                .any(|&s| normalized[s..s + HUNK_OLD] == n[p..p + HUNK_OLD])
            {
                assert!(seen.insert(n[p..p + HUNK_OLD].to_vec()), "decoy at {p}");
            }
        }
    }

    let join = |v: &[String]| {
        let mut s = v.join("\n");
        s.push('\n');
        s
    };
    Case {
        lines: old.len(),
        old: join(&old),
        patch,
        expected: join(&new),
    }
}

/// Whether the hunk window at `p` occurs nowhere else in the file.
fn unique_window(normalized: &[String], p: usize) -> bool {
    let w = &normalized[p..p + HUNK_OLD];
    (0..=normalized.len() - HUNK_OLD)
        .filter(|&q| q != p && normalized[q] == w[0])
        .all(|q| normalized[q..q + HUNK_OLD] != *w)
}

/// A file of `hunks` small functions and a patch with one hunk per function (`@@ -a,3 +a,3 @@`,
/// context, one removal, one addition, context): the input of the hunks-per-patch scaling
/// benchmark, where the work is planning many hunks, not searching for them.
/// With `numbered` false the headers are Aider's numberless `@@ ... @@`: every hunk is then
/// located by content after the previous one.
pub fn many_hunks_with(hunks: usize, numbered: bool) -> Case {
    let mut old = String::with_capacity(hunks * 40);
    let mut expected = String::with_capacity(hunks * 44);
    let mut patch = format!("--- a/{REL_PATH}\n+++ b/{REL_PATH}\n");
    patch.reserve(hunks * 80);
    for k in 0..hunks {
        let at = 4 * k + 1;
        old.push_str(&format!("fn f{k}() {{\n    let v = {k};\n}}\n\n"));
        expected.push_str(&format!("fn f{k}() {{\n    let v = {k} + 1;\n}}\n\n"));
        if numbered {
            patch.push_str(&format!("@@ -{at},3 +{at},3 @@\n"));
        } else {
            patch.push_str("@@ ... @@\n");
        }
        patch.push_str(&format!(
            " fn f{k}() {{\n-    let v = {k};\n+    let v = {k} + 1;\n }}\n"
        ));
    }
    Case {
        old,
        patch,
        expected,
        lines: 4 * hunks,
    }
}
