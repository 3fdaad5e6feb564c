//! Unified diffs between two texts, optionally anchored so the engine can verify every line.

use std::collections::HashMap;

use similar::{DiffOp, capture_diff_slices, group_diff_ops};

use crate::apply::SyncBlock;
use crate::hash::Anchor;
use crate::hash::LineHash;
use crate::text::{LineIndex, TextView};

/// Options for [`unified_diff`].
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// Lines of context around each change.
    pub context: usize,
    /// Put `42abcd|` anchors on context and removal lines.
    pub anchored: bool,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            context: 3,
            anchored: false,
        }
    }
}

/// A unified diff turning `old` into `new`, with `--- a/<old_path>` / `+++ b/<new_path>` headers
/// (`/dev/null` for `None`). Empty when the texts are equal. Line endings are not compared.
pub fn unified_diff(
    old: &str,
    new: &str,
    old_path: Option<&str>,
    new_path: Option<&str>,
    opts: &DiffOptions,
) -> String {
    if old == new {
        return String::new();
    }
    // Only the changed middle, with its context lines, goes through Myers: an edit of a few
    // lines in a 10,000-line file then costs a few lines, not the file. `base` is the 0-based
    // file line of the middle's first line.
    let (base, old, new) = trim_common_lines(old, new, opts.context);
    // Lines borrowed from the texts: no `String` per line (that was most of the time of a
    // diff of a large file).
    let (a, b) = (borrowed_view(old), borrowed_view(new));
    let (ka, kb) = (line_keys(&a), line_keys(&b));
    let ops = diff_ops(&ka, &kb);
    render(&ka, &kb, ops, base, old_path, new_path, opts)
}

/// [`unified_diff`] when the changed blocks are known, as the engine reports them in
/// [`SyncBlock`]s (old and new line ranges of each edit, in order): only each block and its
/// context is split into lines and diffed, so a 10-hunk patch of a 10,000-line file costs a scan
/// for line starts and 10 small diffs instead of the file. The blocks are checked against the
/// texts (the lines between them must be equal); if they do not describe `old` → `new` exactly,
/// this is [`unified_diff`] of the whole texts. Same output format; the +/- lines inside a block
/// are the same minimal diff.
pub fn unified_diff_blocks(
    old: &str,
    new: &str,
    blocks: &[SyncBlock],
    old_path: Option<&str>,
    new_path: Option<&str>,
    opts: &DiffOptions,
) -> String {
    match block_hunks(old, new, blocks, opts) {
        Some(hunks) if hunks.is_empty() => String::new(),
        Some(hunks) => header(old_path, new_path) + &hunks,
        None => unified_diff(old, new, old_path, new_path, opts),
    }
}

/// Whether lines `ar` of `a` and `br` of `b` are equal as keyed lines: the bytes first (equal
/// bytes are equal keys), then line by line, as line endings are not compared.
fn same_lines(
    a: &LineIndex<'_>,
    ar: std::ops::Range<usize>,
    b: &LineIndex<'_>,
    br: std::ops::Range<usize>,
) -> bool {
    ar.len() == br.len()
        && (a.span(ar.clone()) == b.span(br.clone())
            || ar.zip(br).all(|(i, j)| a.key(i) == b.key(j)))
}

/// The hunks (without the file header) of `old` → `new` given its changed blocks; `None` when
/// the blocks do not describe the change (a gap between blocks differs, or a block is out of
/// range or out of order). Blocks closer than twice the context form one window, diffed and
/// grouped as [`group_diff_ops`] groups the whole file's ops: a longer run of equal lines ends
/// a group with `context` lines and starts the next with `context` lines.
fn block_hunks(old: &str, new: &str, blocks: &[SyncBlock], opts: &DiffOptions) -> Option<String> {
    let (a, b) = (LineIndex::new(old), LineIndex::new(new));
    // Each block as (old start, old end, new start, new end), 0-based, checked.
    let mut ranges: Vec<(usize, usize, usize, usize)> = Vec::with_capacity(blocks.len());
    let (mut o, mut n) = (0usize, 0usize);
    for blk in blocks {
        let os = blk.old_start_line.checked_sub(1)?;
        let ns = blk.start_line.checked_sub(1)?;
        let (oe, ne) = (os + blk.old_line_count, ns + blk.line_count);
        // `same_lines` also refuses gaps of different lengths.
        if os < o || ns < n || oe > a.len() || ne > b.len() || !same_lines(&a, o..os, &b, n..ns) {
            return None;
        }
        ranges.push((os, oe, ns, ne));
        (o, n) = (oe, ne);
    }
    if !same_lines(&a, o..a.len(), &b, n..b.len()) {
        return None;
    }

    let ctx = opts.context;
    let mut out = String::new();
    let mut i = 0;
    while i < ranges.len() {
        let mut j = i;
        while j + 1 < ranges.len() && ranges[j + 1].0 - ranges[j].1 <= 2 * ctx {
            j += 1;
        }
        let (os0, _, ns0, _) = ranges[i];
        let (_, oe1, _, ne1) = ranges[j];
        // The equal lines kept around the window: the gaps around it are longer than twice
        // the context, or reach the start or end of the file.
        let lead = ctx.min(os0);
        let trail = ctx.min(a.len() - oe1);
        let (wo, wn) = (os0 - lead, ns0 - lead);
        let ka = a.keys(wo..oe1 + trail);
        let kb = b.keys(wn..ne1 + trail);
        let mut ops = Vec::new();
        let (mut o, mut n) = (0usize, 0usize);
        for &(os, oe, ns, ne) in &ranges[i..=j] {
            let (os, oe, ns, ne) = (os - wo, oe - wo, ns - wn, ne - wn);
            if os > o {
                ops.push(DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len: os - o,
                });
            }
            for op in diff_ops(&ka[os..oe], &kb[ns..ne]) {
                ops.push(shift(op, os, ns));
            }
            (o, n) = (oe, ne);
        }
        if trail > 0 {
            ops.push(DiffOp::Equal {
                old_index: o,
                new_index: n,
                len: trail,
            });
        }
        render_groups(&mut out, &ka, &kb, changed_groups(ops, ctx), (wo, wn), opts);
        i = j + 1;
    }
    Some(out)
}

/// `op` with its indices moved by `old` and `new` lines.
fn shift(op: DiffOp, old: usize, new: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + old,
            new_index: new_index + new,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + old,
            new_index: new_index + new,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + old,
            old_len,
            new_index: new_index + new,
            new_len,
        },
    }
}

/// The unified diff text of `ops` over the keyed lines; `base` is the 0-based file line of the
/// first key (when the keys are a trimmed middle).
fn render(
    ka: &[(&str, bool)],
    kb: &[(&str, bool)],
    ops: Vec<DiffOp>,
    base: usize,
    old_path: Option<&str>,
    new_path: Option<&str>,
    opts: &DiffOptions,
) -> String {
    let groups = changed_groups(ops, opts.context);
    if groups.is_empty() {
        return String::new();
    }
    let mut out = header(old_path, new_path);
    render_groups(&mut out, ka, kb, groups, (base, base), opts);
    out
}

/// The hunks' ops: [`group_diff_ops`] without its groups of equal lines only (a run of
/// unchanged lines, say a block that changed nothing, would otherwise become a hunk of context
/// alone, or an empty `@@ -1,0 +1,0 @@` one with no context).
fn changed_groups(ops: Vec<DiffOp>, context: usize) -> Vec<Vec<DiffOp>> {
    let mut groups = group_diff_ops(ops, context);
    groups.retain(|g| g.iter().any(|op| !matches!(op, DiffOp::Equal { .. })));
    groups
}

/// `--- a/<old_path>` and `+++ b/<new_path>` (`/dev/null` for `None`).
fn header(old_path: Option<&str>, new_path: Option<&str>) -> String {
    format!(
        "--- {}\n+++ {}\n",
        old_path.map_or("/dev/null".to_string(), |p| format!("a/{p}")),
        new_path.map_or("/dev/null".to_string(), |p| format!("b/{p}"))
    )
}

/// Append the hunks of `groups` over the keyed lines to `out`; `bases` are the 0-based file
/// lines (old, new) of the first keys.
fn render_groups(
    out: &mut String,
    ka: &[(&str, bool)],
    kb: &[(&str, bool)],
    groups: Vec<Vec<DiffOp>>,
    (base, new_base): (usize, usize),
    opts: &DiffOptions,
) {
    for group in groups {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let header_start =
            |r: &std::ops::Range<usize>| if r.is_empty() { r.start } else { r.start + 1 };
        out.push_str(&format!(
            "@@ -{},{} +{},{} @@\n",
            base + header_start(&old_range),
            old_range.len(),
            new_base + header_start(&new_range),
            new_range.len()
        ));
        let old_line = |i: usize, marker: char, out: &mut String| {
            let (text, no_nl) = &ka[i];
            if opts.anchored {
                let anchor = Anchor {
                    line: base + i + 1,
                    hash: LineHash::of(text),
                };
                out.push_str(&format!("{marker}{anchor}|{text}\n"));
            } else {
                out.push_str(&format!("{marker}{text}\n"));
            }
            if *no_nl {
                out.push_str("\\ No newline at end of file\n");
            }
        };
        for op in group {
            match op {
                DiffOp::Equal { old_index, len, .. } => {
                    for i in old_index..old_index + len {
                        old_line(i, ' ', out);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for i in old_index..old_index + old_len {
                        old_line(i, '-', out);
                    }
                }
                DiffOp::Insert {
                    new_index, new_len, ..
                } => {
                    for (text, no_nl) in &kb[new_index..new_index + new_len] {
                        out.push_str(&format!("+{text}\n"));
                        if *no_nl {
                            out.push_str("\\ No newline at end of file\n");
                        }
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    for i in old_index..old_index + old_len {
                        old_line(i, '-', out);
                    }
                    for (text, no_nl) in &kb[new_index..new_index + new_len] {
                        out.push_str(&format!("+{text}\n"));
                        if *no_nl {
                            out.push_str("\\ No newline at end of file\n");
                        }
                    }
                }
            }
        }
    }
}

/// The lines of `text` (a leading BOM set aside), borrowed from it.
fn borrowed_view(text: &str) -> TextView<'_> {
    match text.strip_prefix('\u{FEFF}') {
        Some(rest) => TextView::decode(rest, true),
        None => TextView::decode(text, false),
    }
}

/// Each line with whether it is the last line and lacks a newline: that is part of its
/// identity, so such a change shows up.
fn line_keys<'a>(view: &TextView<'a>) -> Vec<(&'a str, bool)> {
    let n = view.lines.len();
    view.lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.text, i + 1 == n && !view.final_newline))
        .collect()
}

/// Drop the complete lines `old` and `new` share at their start and end, keeping `context` of
/// them on each side of the rest. Returns the number of lines dropped at the start and the two
/// middles. Lines are compared with their terminators, so a line whose ending changed stays in
/// the middle; the BOM, if any, belongs to the first line.
fn trim_common_lines<'a>(old: &'a str, new: &'a str, context: usize) -> (usize, &'a str, &'a str) {
    // Common leading lines, each terminated in both. Trimming only saves time (the whole texts
    // diff the same): its `delete !` mutants are equivalent, excluded in .cargo/mutants.toml.
    let (mut pre_lines, mut pre_bytes) = (0, 0);
    for (a, b) in old.split_inclusive('\n').zip(new.split_inclusive('\n')) {
        if a != b || !a.ends_with('\n') {
            break;
        }
        pre_lines += 1;
        pre_bytes += a.len();
    }
    // Common trailing lines, not overlapping the prefix. An emptied new side's last line is
    // "", never the last line of a non-empty old side: that ends the loop too.
    let (mut old_rest, mut new_rest) = (&old[pre_bytes..], &new[pre_bytes..]);
    let mut suf_lines = 0;
    while !old_rest.is_empty() {
        let (a, b) = (last_line(old_rest), last_line(new_rest));
        if a != b {
            break;
        }
        old_rest = &old_rest[..old_rest.len() - a.len()];
        new_rest = &new_rest[..new_rest.len() - b.len()];
        suf_lines += 1;
    }
    let suf_bytes = old.len() - pre_bytes - old_rest.len();
    // Give back `context` lines on each side.
    let keep_pre = context.min(pre_lines);
    let mut start = pre_bytes;
    for _ in 0..keep_pre {
        start = old[..start - 1].rfind('\n').map_or(0, |i| i + 1);
    }
    let keep_suf = context.min(suf_lines);
    let mut end_back = suf_bytes;
    for _ in 0..keep_suf {
        let tail_start = old.len() - end_back;
        end_back -= line_len_at(old, tail_start);
    }
    let old_mid = &old[start..old.len() - end_back];
    let new_mid = &new[start..new.len() - end_back];
    (pre_lines - keep_pre, old_mid, new_mid)
}

/// The last line of a non-empty `s`, with its terminator if it has one.
fn last_line(s: &str) -> &str {
    let body = s.strip_suffix('\n').unwrap_or(s);
    &s[body.rfind('\n').map_or(0, |i| i + 1)..]
}

/// The length, terminator included, of the line starting at byte `at` of `s`.
fn line_len_at(s: &str, at: usize) -> usize {
    s[at..].find('\n').map_or(s.len() - at, |i| i + 1)
}

/// Diffs of at most this many lines (both sides together, after the common start and end are
/// set aside) are similar's Myers, whose O((N+M)·D) time is a few milliseconds at this size.
const MYERS_LINES: usize = 2_000;
/// Work allowed to the matching of a large diff, per line of its input: each level of
/// [`match_middle`] costs the lines it looks at, so the whole diff stays linear in its input.
const WORK_PER_LINE: usize = 16;

/// The ops turning `a` into `b`. Small inputs go through Myers (a minimal diff, as always);
/// larger ones through [`large_diff_ops`], near-linear, so a rewrite of every line of a
/// 40,000-line file takes milliseconds instead of the seconds Myers took on it (its D is then
/// the whole file).
fn diff_ops<T: Eq + std::hash::Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    diff_ops_with(a, b, MYERS_LINES)
}

fn diff_ops_with<T: Eq + std::hash::Hash + Ord>(
    a: &[T],
    b: &[T],
    myers_lines: usize,
) -> Vec<DiffOp> {
    if a.len() + b.len() <= myers_lines {
        myers_ops(a, b)
    } else {
        large_diff_ops(a, b, myers_lines)
    }
}

/// A diff of large inputs in near-linear time: lines are interned into numbers; the common
/// start and end are matched; lines that occur on one side only are set aside (they can never
/// be equal to anything, GNU diff's "discard" step); what is left, when small, goes through
/// Myers; otherwise the lines that occur once on each side anchor the middle (patience diff:
/// the longest increasing run of them) and each gap between anchors is matched the same way.
/// A gap with no anchor, or found once the work budget is spent, is one replacement: a
/// coarser diff, still exactly `a` → `b`.
fn large_diff_ops<'a, T: Eq + std::hash::Hash>(
    a: &'a [T],
    b: &'a [T],
    myers_lines: usize,
) -> Vec<DiffOp> {
    // Numbers by first appearance: the same inputs give the same numbers whatever the hasher
    // (nothing iterates the map), so the diff stays deterministic.
    let mut ids: HashMap<&T, u32> = HashMap::with_capacity(a.len() + b.len());
    let mut intern = |side: &'a [T]| -> Vec<u32> {
        side.iter()
            .map(|x| {
                let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                *ids.entry(x).or_insert(next)
            })
            .collect()
    };
    let ia = intern(a);
    let ib = intern(b);
    let mut m = Matcher {
        pairs: Vec::new(),
        budget: WORK_PER_LINE.saturating_mul(a.len() + b.len()),
        myers_lines,
    };
    m.match_lines(&ia, &ib, 0, 0);
    ops_from_pairs(&m.pairs, a.len(), b.len())
}

/// The equal line pairs `(old, new)` of a large diff, found in increasing order.
struct Matcher {
    pairs: Vec<(usize, usize)>,
    /// Lines the matcher may still look at before it stops refining.
    budget: usize,
    myers_lines: usize,
}

impl Matcher {
    /// Match `a` (starting at old line `ao`) against `b` (at new line `bo`).
    fn match_lines(&mut self, a: &[u32], b: &[u32], ao: usize, bo: usize) {
        let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        self.pairs.extend((0..pre).map(|k| (ao + k, bo + k)));
        let (a, b) = (&a[pre..], &b[pre..]);
        let suf = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count();
        let (am, bm) = (&a[..a.len() - suf], &b[..b.len() - suf]);
        if !am.is_empty() && !bm.is_empty() {
            self.match_middle(am, bm, ao + pre, bo + pre);
        }
        let (ae, be) = (ao + pre + am.len(), bo + pre + bm.len());
        self.pairs.extend((0..suf).map(|k| (ae + k, be + k)));
    }

    /// Match two non-empty sequences that differ in their first and last lines.
    fn match_middle(&mut self, a: &[u32], b: &[u32], ao: usize, bo: usize) {
        let size = a.len() + b.len();
        if self.budget < size {
            return;
        }
        self.budget -= size;
        // Per line number: (count in a, count in b, its index in a, its index in b).
        let mut seen: HashMap<u32, (u32, u32, usize, usize)> = HashMap::new();
        for (i, &x) in a.iter().enumerate() {
            let e = seen.entry(x).or_insert((0, 0, i, 0));
            e.0 += 1;
        }
        for (j, &x) in b.iter().enumerate() {
            if let Some(e) = seen.get_mut(&x) {
                e.1 += 1;
                e.3 = j;
            }
        }
        // Every line of `seen` is in `a`; those counted in `b` too are on both sides. The rest
        // are set aside: they can never be equal to anything. (With none left, `ka` and `kb`
        // are empty and Myers below finds nothing.)
        let both = |x: &u32| seen.get(x).is_some_and(|e| e.1 > 0);
        let ka: Vec<usize> = (0..a.len()).filter(|&i| both(&a[i])).collect();
        let kb: Vec<usize> = (0..b.len()).filter(|&j| both(&b[j])).collect();
        if ka.len() + kb.len() <= self.myers_lines {
            let ra: Vec<u32> = ka.iter().map(|&i| a[i]).collect();
            let rb: Vec<u32> = kb.iter().map(|&j| b[j]).collect();
            for op in myers_ops(&ra, &rb) {
                if let DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } = op
                {
                    self.pairs
                        .extend((0..len).map(|k| (ao + ka[old_index + k], bo + kb[new_index + k])));
                }
            }
            return;
        }
        // Lines once on each side, in the order of `a`, then the longest run of them whose
        // places in `b` increase.
        let unique: Vec<(usize, usize)> = (0..a.len())
            .filter_map(|i| {
                let e = seen.get(&a[i])?;
                (e.0 == 1 && e.1 == 1).then_some((i, e.3))
            })
            .collect();
        let anchors = longest_increasing(&unique);
        if anchors.is_empty() {
            return;
        }
        let (mut pa, mut pb) = (0, 0);
        for (i, j) in anchors {
            self.match_lines(&a[pa..i], &b[pb..j], ao + pa, bo + pb);
            self.pairs.push((ao + i, bo + j));
            (pa, pb) = (i + 1, j + 1);
        }
        self.match_lines(&a[pa..], &b[pb..], ao + pa, bo + pb);
    }
}

/// The longest subsequence of `pairs` (increasing in `.0`) whose `.1` also increases
/// (patience sorting, O(n log n)).
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: index into `pairs` of the smallest tail of an increasing run of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev: Vec<Option<usize>> = vec![None; pairs.len()];
    for (p, &(_, j)) in pairs.iter().enumerate() {
        // The `.1`s are distinct (a line's one place in `b`): `<=` here is equivalent, excluded.
        let k = tails.partition_point(|&t| pairs[t].1 < j);
        prev[p] = k.checked_sub(1).map(|k| tails[k]);
        if k == tails.len() {
            tails.push(p);
        } else {
            tails[k] = p;
        }
    }
    let mut out = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied();
    while let Some(p) = at {
        out.push(pairs[p]);
        at = prev[p];
    }
    out.reverse();
    out
}

/// The ops of a diff of `n` old and `m` new lines whose equal lines are `pairs` (increasing in
/// both): runs of consecutive pairs are `Equal`, what lies between them is deleted, inserted
/// or replaced.
fn ops_from_pairs(pairs: &[(usize, usize)], n: usize, m: usize) -> Vec<DiffOp> {
    let mut ops = Vec::new();
    let gap =
        |ops: &mut Vec<DiffOp>, old: std::ops::Range<usize>, new: std::ops::Range<usize>| match (
            old.is_empty(),
            new.is_empty(),
        ) {
            (true, true) => {}
            (false, true) => ops.push(DiffOp::Delete {
                old_index: old.start,
                old_len: old.len(),
                new_index: new.start,
            }),
            (true, false) => ops.push(DiffOp::Insert {
                old_index: old.start,
                new_index: new.start,
                new_len: new.len(),
            }),
            (false, false) => ops.push(DiffOp::Replace {
                old_index: old.start,
                old_len: old.len(),
                new_index: new.start,
                new_len: new.len(),
            }),
        };
    let (mut o, mut nw) = (0, 0);
    let mut i = 0;
    while i < pairs.len() {
        let (pa, pb) = pairs[i];
        gap(&mut ops, o..pa, nw..pb);
        let mut len = 1;
        while i + len < pairs.len() && pairs[i + len] == (pa + len, pb + len) {
            len += 1;
        }
        ops.push(DiffOp::Equal {
            old_index: pa,
            new_index: pb,
            len,
        });
        (o, nw) = (pa + len, pb + len);
        i += len;
    }
    gap(&mut ops, o..n, nw..m);
    ops
}

/// Myers ops turning `a` into `b`, every index recomputed from the op lengths.
///
/// similar 2.7's Myers sometimes reports a wrong secondary index (the `new_index` of a
/// `Delete`, the `old_index` of an `Insert`: mitsuhiko/similar#78) although the ops' order and
/// lengths are right. Hunk headers and line maps are built from those indices, so they are
/// rebuilt here from running cursors. Should the ops ever fail to describe `a` → `b`, the whole
/// change becomes one op (a replacement, or a deletion or insertion of a whole side): larger,
/// but still correct.
fn myers_ops<T: Eq + std::hash::Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    reindexed(capture_diff_slices(similar::Algorithm::Myers, a, b), a, b)
}

/// `raw` with every index recomputed from the op lengths, or, when `raw` does not describe
/// `a` → `b` (an op past the end of a side, an `Equal` of lines that differ, a side left
/// over), the whole change as one op.
fn reindexed<T: Eq>(raw: Vec<DiffOp>, a: &[T], b: &[T]) -> Vec<DiffOp> {
    let (mut o, mut n) = (0, 0);
    let mut ops = Vec::with_capacity(raw.len());
    for op in raw {
        let (_, old_range, new_range) = op.as_tag_tuple();
        let (old_len, new_len) = (old_range.len(), new_range.len());
        if o + old_len > a.len() || n + new_len > b.len() {
            break;
        }
        ops.push(match op {
            DiffOp::Equal { len, .. } => {
                if a[o..o + len] != b[n..n + len] {
                    break;
                }
                DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                }
            }
            DiffOp::Delete { old_len, .. } => DiffOp::Delete {
                old_index: o,
                old_len,
                new_index: n,
            },
            DiffOp::Insert { new_len, .. } => DiffOp::Insert {
                old_index: o,
                new_index: n,
                new_len,
            },
            DiffOp::Replace {
                old_len, new_len, ..
            } => DiffOp::Replace {
                old_index: o,
                old_len,
                new_index: n,
                new_len,
            },
        });
        o += old_len;
        n += new_len;
    }
    if o == a.len() && n == b.len() {
        return ops;
    }
    ops_from_pairs(&[], a.len(), b.len())
}

/// Where each line of `old` ended up in `new` (0-based), or `None` when the line was removed or
/// changed. Used to tell a diagnostic that merely moved from one the change introduced.
pub fn line_map(old: &str, new: &str) -> Vec<Option<usize>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut map = vec![None; a.len()];
    for op in diff_ops(&a, &b) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for k in 0..len {
                map[old_index + k] = Some(new_index + k);
            }
        }
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    use proptest::strategy::Strategy as _;

    use crate::parse::parse_patch;
    use crate::{ApplyOptions, apply_file_patch};

    // Regression (fuzz target `apply`): similar's Myers reported a `Delete` at new index 3 and
    // an `Insert` at old index 6 for these texts, so the diff's headers read `@@ -1,5 +3,0 @@`
    // and `@@ -6,0 +5,11 @@` and the second hunk landed two lines too high.
    #[test]
    fn diff_headers_follow_the_ops_not_similars_indices() {
        let old = "2\n\n\u{1d}\n\n\n\n\n\n";
        let new = "\n\n\n\n\n\n\n\n2\n\n\n\n\n\n\tx\n";
        let opts = DiffOptions {
            context: 2,
            anchored: false,
        };
        let diff = unified_diff(old, new, Some("f"), Some("f"), &opts);
        let headers: Vec<&str> = diff.lines().filter(|l| l.starts_with("@@")).collect();
        assert_eq!(headers, ["@@ -1,5 +1,3 @@", "@@ -7,2 +5,11 @@"], "{diff}");
        let patch = parse_patch(&diff).unwrap();
        let out = apply_file_patch(
            &patch.files[0],
            Some(old.as_bytes()),
            &ApplyOptions::default(),
        )
        .unwrap();
        assert_eq!(out.new_content.unwrap(), new.as_bytes());
    }

    /// The common lines trimmed before Myers must not show: headers, anchors and context are
    /// those of the whole file, wherever the change is (start, middle, end, last line without
    /// a newline).
    #[test]
    fn trimmed_diff_keeps_whole_file_numbers_and_applies() {
        let file: String = (1..=200).map(|i| format!("line {i}\n")).collect();
        let cases: Vec<(String, String)> = vec![
            (file.clone(), file.replace("line 100\n", "changed 100\n")),
            (file.clone(), file.replace("line 1\n", "first\n")),
            (file.clone(), file.replace("line 200\n", "last")),
            (
                file.clone(),
                file.replace("line 7\n", "").replace("line 190\n", "x\ny\n"),
            ),
            (format!("{file}tail"), format!("{file}tail2")),
        ];
        for (old, new) in &cases {
            for anchored in [false, true] {
                let opts = DiffOptions {
                    context: 3,
                    anchored,
                };
                let diff = unified_diff(old, new, Some("f"), Some("f"), &opts);
                let patch = parse_patch(&diff).unwrap();
                let out = apply_file_patch(
                    &patch.files[0],
                    Some(old.as_bytes()),
                    &ApplyOptions::default(),
                )
                .unwrap();
                assert_eq!(out.new_content.unwrap(), new.as_bytes(), "{diff}");
                assert!(out.hunks.iter().all(|h| h.offset == 0), "{diff}");
            }
        }
        // Line endings are not compared, trimmed or not.
        let crlf = file.replace("line 50\n", "line 50\r\n");
        assert_eq!(
            unified_diff(&file, &crlf, Some("f"), Some("f"), &DiffOptions::default()),
            ""
        );
        let diff = unified_diff(
            &cases[0].0,
            &cases[0].1,
            Some("f"),
            Some("f"),
            &DiffOptions {
                context: 3,
                anchored: true,
            },
        );
        let lines: Vec<&str> = diff.lines().collect();
        assert_eq!(lines[2], "@@ -97,7 +97,7 @@");
        assert!(
            lines[3].starts_with(" 97") && lines[3].ends_with("|line 97"),
            "{diff}"
        );
        assert!(
            lines[6].starts_with("-100") && lines[6].ends_with("|line 100"),
            "{diff}"
        );
    }

    /// The block-guided diff applies exactly like the whole-file one, and wrong blocks fall
    /// back to the whole-file diff instead of describing another change.
    #[test]
    fn block_diff_applies_and_wrong_blocks_fall_back() {
        let old: String = (1..=300).map(|i| format!("line {}\n", i % 7)).collect();
        let patch = "@@ -10,3 +10,4 @@\n line 3\n-line 4\n+four\n+extra\n line 5\n@@ -200,2 +201,1 @@\n-line 4\n line 5\n";
        let patch = format!("--- a/f\n+++ b/f\n{patch}");
        let parsed = parse_patch(&patch).unwrap();
        let out = apply_file_patch(
            &parsed.files[0],
            Some(old.as_bytes()),
            &ApplyOptions::default(),
        )
        .unwrap();
        let new = String::from_utf8(out.new_content.unwrap()).unwrap();
        let opts = DiffOptions::default();
        let diff = unified_diff_blocks(&old, &new, &out.sync, Some("f"), Some("f"), &opts);
        let back = parse_patch(&diff).unwrap();
        let again = apply_file_patch(
            &back.files[0],
            Some(old.as_bytes()),
            &ApplyOptions::default(),
        )
        .unwrap();
        assert_eq!(again.new_content.unwrap(), new.as_bytes(), "{diff}");
        let changed = |d: &str| d.lines().filter(|l| l.starts_with(['+', '-'])).count();
        assert_eq!(
            changed(&diff),
            changed(&unified_diff(&old, &new, Some("f"), Some("f"), &opts))
        );
        // Blocks that do not describe the change: the whole-file diff, not a wrong one.
        let mut wrong = out.sync.clone();
        wrong[0].start_line += 1;
        assert_eq!(
            unified_diff_blocks(&old, &new, &wrong, Some("f"), Some("f"), &opts),
            unified_diff(&old, &new, Some("f"), Some("f"), &opts)
        );
    }

    /// The block-guided diff follows the blocks: blocks that change nothing give no diff (not a
    /// bare header), and an insertion lands where its block says, also when the lines between
    /// the blocks differ only in their line endings (compared as lines, not bytes); the
    /// whole-file diff of the same texts puts it elsewhere. A block's unchanged lines are
    /// context like any other. Blocks that leave a difference outside them, or are out of order
    /// on one side, give the whole-file diff.
    #[test]
    fn block_diff_follows_the_blocks_or_is_the_whole_file_diff() {
        let opts = DiffOptions::default();
        let blocks = |old: &str, new: &str, b: &[SyncBlock]| {
            unified_diff_blocks(old, new, b, Some("f"), Some("f"), &opts)
        };
        let block = |old_start_line, old_line_count, start_line, line_count| SyncBlock {
            start_line,
            line_count,
            lines: None,
            old_start_line,
            old_line_count,
        };
        assert_eq!(blocks("a\nb\n", "a\nb\n", &[]), "");
        assert_eq!(blocks("a\nb\n", "a\nb\n", &[block(2, 1, 2, 1)]), "");
        // `x` inserted before the file's `x`.
        let before = "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n+x\n x\n";
        assert_eq!(blocks("x\n", "x\nx\n", &[block(1, 0, 1, 1)]), before);
        assert_eq!(blocks("x\r\n", "x\nx\n", &[block(1, 0, 1, 1)]), before);
        assert_eq!(
            unified_diff("x\r\n", "x\nx\n", Some("f"), Some("f"), &opts),
            "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n x\n+x\n"
        );
        // A block wider than its change, at the start of the file: its unchanged first lines
        // are context like any other, `context` of them shown.
        let one = DiffOptions {
            context: 1,
            anchored: false,
        };
        assert_eq!(
            unified_diff_blocks(
                "a\nb\nc\n",
                "a\nb\nC\n",
                &[block(1, 3, 1, 3)],
                Some("f"),
                Some("f"),
                &one
            ),
            "--- a/f\n+++ b/f\n@@ -2,2 +2,2 @@\n b\n-c\n+C\n"
        );
        // An insertion at the end of the file, after context: its old place is the end of the
        // context (a block's ops are moved to the window's lines, both sides).
        assert_eq!(
            blocks("a\nb\n", "a\nb\nc\n", &[block(3, 0, 3, 1)]),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n b\n+c\n"
        );
        // Lines after the last block that differ (as many on each side): no block says so, the
        // whole-file diff.
        assert_eq!(
            blocks("a\nb\nc\n", "A\nb\nd\n", &[block(1, 1, 1, 1)]),
            unified_diff("a\nb\nc\n", "A\nb\nd\n", Some("f"), Some("f"), &opts)
        );
        assert_eq!(
            blocks("a\nb\n", "a\nc\n", &[]),
            "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n"
        );
        // Blocks out of order on one side only do not describe the change: the whole-file diff.
        let (old, new) = ("a\nb\nc\nd\n", "a\nB\nc\nD\n");
        let whole = unified_diff(old, new, Some("f"), Some("f"), &opts);
        assert_eq!(
            whole,
            "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n-d\n+D\n"
        );
        // Blocks in order give the same diff; out of order on one side, the whole-file diff
        // stands in, also when the lines between them and after the last agree (the last two:
        // a block starting back inside the one before on one side, right after it on the other).
        for blocks_given in [
            [block(2, 1, 2, 1), block(4, 1, 4, 1)],
            [block(2, 1, 2, 1), block(1, 1, 4, 1)],
            [block(2, 1, 2, 1), block(4, 1, 1, 1)],
            [block(2, 1, 2, 1), block(1, 4, 3, 2)],
            [block(2, 1, 2, 1), block(3, 2, 1, 4)],
        ] {
            assert_eq!(blocks(old, new, &blocks_given), whole, "{blocks_given:?}");
        }
    }

    /// The whole-file form of [`block_hunks`]: every line split and keyed, the gaps compared
    /// line by line, one grouping over the file's ops. The windowed form must match it.
    fn whole_file_block_diff(
        old: &str,
        new: &str,
        blocks: &[SyncBlock],
        opts: &DiffOptions,
    ) -> Option<String> {
        let (a, b) = (borrowed_view(old), borrowed_view(new));
        let (a, b) = (line_keys(&a), line_keys(&b));
        let mut ops = Vec::new();
        let (mut o, mut n) = (0usize, 0usize);
        let equal = |ops: &mut Vec<DiffOp>, o: usize, n: usize, len: usize| {
            if a.get(o..o + len)? != b.get(n..n + len)? {
                return None;
            }
            if len > 0 {
                ops.push(DiffOp::Equal {
                    old_index: o,
                    new_index: n,
                    len,
                });
            }
            Some(())
        };
        for blk in blocks {
            let (os, ns) = (blk.old_start_line - 1, blk.start_line - 1);
            let (oe, ne) = (os + blk.old_line_count, ns + blk.line_count);
            if os < o || ns < n || os - o != ns - n || oe > a.len() || ne > b.len() {
                return None;
            }
            equal(&mut ops, o, n, os - o)?;
            for op in diff_ops(&a[os..oe], &b[ns..ne]) {
                ops.push(shift(op, os, ns));
            }
            (o, n) = (oe, ne);
        }
        if a.len() - o != b.len() - n {
            return None;
        }
        equal(&mut ops, o, n, a.len() - o)?;
        Some(render(&a, &b, ops, 0, Some("f"), Some("f"), opts))
    }

    /// Lines of the generated texts: duplicates, blanks, a `\r` that is content, CRLF.
    const WORDS: &[&str] = &["a", "b", "", "x = 1;", "\tb", "c\r", "é"];
    const TERMS: &[&str] = &["\n", "\n", "\n", "\r\n", ""];

    /// Lines as `(word, terminator)`; only the last may lack a terminator.
    fn join(lines: &[(usize, usize)]) -> String {
        let mut s = String::new();
        for (i, &(w, t)) in lines.iter().enumerate() {
            s.push_str(WORDS[w % WORDS.len()]);
            let t = TERMS[t % TERMS.len()];
            s.push_str(if t.is_empty() && i + 1 < lines.len() {
                "\n"
            } else {
                t
            });
        }
        s
    }

    proptest::proptest! {
        /// The windowed block diff equals the whole-file one: the same hunks, or the same
        /// refusal of blocks that do not describe the change, for any context and either form.
        #[test]
        fn windowed_block_diff_matches_the_whole_file(
            old in proptest::collection::vec((0..7usize, 0..5usize), 0..60),
            edits in proptest::collection::vec(
                (0..12usize, 0..4usize, proptest::collection::vec((0..7usize, 0..5usize), 0..4)),
                0..5,
            ),
            context in 0..5usize,
            anchored: bool,
            bom: bool,
            skew in 0..3usize,
        ) {
            // Apply the edits top down: each skips `gap` lines, replaces `del` with `ins`.
            let mut new_lines = Vec::new();
            let mut blocks = Vec::new();
            let mut at = 0;
            for (gap, del, ins) in &edits {
                let start = (at + gap).min(old.len());
                let end = (start + del).min(old.len());
                new_lines.extend_from_slice(&old[at..start]);
                blocks.push(SyncBlock {
                    start_line: new_lines.len() + 1,
                    line_count: ins.len(),
                    lines: None,
                    old_start_line: start + 1,
                    old_line_count: end - start,
                });
                new_lines.extend_from_slice(ins);
                at = end;
            }
            new_lines.extend_from_slice(&old[at..]);
            // Now and then blocks that do not describe the change.
            if skew == 1 && let Some(b) = blocks.first_mut() {
                b.start_line += 1;
            }
            let prefix = if bom { "\u{FEFF}" } else { "" };
            let (old, new) = (prefix.to_string() + &join(&old), prefix.to_string() + &join(&new_lines));
            let opts = DiffOptions { context, anchored };
            let windowed = block_hunks(&old, &new, &blocks, &opts)
                .map(|h| if h.is_empty() { h } else { header(Some("f"), Some("f")) + &h });
            proptest::prop_assert_eq!(windowed, whole_file_block_diff(&old, &new, &blocks, &opts));
        }
    }

    /// The new side `ops` make of `a` and `b`, checking that they walk both sides in order,
    /// leave nothing out and pair only equal lines.
    fn replay<T: Eq + Clone>(a: &[T], b: &[T], ops: &[DiffOp]) -> Option<Vec<T>> {
        let (mut o, mut n, mut out) = (0, 0, Vec::new());
        for op in ops {
            let (_, or, nr) = op.as_tag_tuple();
            if or.start != o || nr.start != n || or.end > a.len() || nr.end > b.len() {
                return None;
            }
            if matches!(op, DiffOp::Equal { .. }) && a[or.clone()] != b[nr.clone()] {
                return None;
            }
            out.extend_from_slice(&b[nr.clone()]);
            (o, n) = (or.end, nr.end);
        }
        (o == a.len() && n == b.len()).then_some(out)
    }

    fn equal_lines(ops: &[DiffOp]) -> usize {
        ops.iter()
            .map(|op| match op {
                DiffOp::Equal { len, .. } => *len,
                _ => 0,
            })
            .sum()
    }

    proptest::proptest! {
        /// The near-linear diff of large inputs (forced here with a threshold of 4 lines) is an
        /// exact description of `a` → `b`, whatever the repetition in the lines.
        #[test]
        fn large_diffs_describe_the_change_exactly(
            a in proptest::collection::vec(0..6u8, 0..80),
            b in proptest::collection::vec(0..6u8, 0..80),
            threshold in 0..12usize,
        ) {
            let ops = diff_ops_with(&a, &b, threshold);
            proptest::prop_assert_eq!(replay(&a, &b, &ops), Some(b.clone()));
        }

        /// Where every line occurs once on each side, the anchors are the longest common
        /// subsequence: the large diff keeps as many equal lines as Myers.
        #[test]
        fn large_diffs_of_distinct_lines_are_minimal(
            a in proptest::sample::subsequence((0..60u8).collect::<Vec<_>>(), 0..60),
            b in proptest::sample::subsequence((0..60u8).collect::<Vec<_>>(), 0..60)
                .prop_shuffle(),
        ) {
            let large = diff_ops_with(&a, &b, 0);
            proptest::prop_assert_eq!(replay(&a, &b, &large), Some(b.clone()));
            proptest::prop_assert_eq!(equal_lines(&large), equal_lines(&myers_ops(&a, &b)));
        }
    }

    /// A rewrite of every line of a large file is one replacement, found without Myers (whose
    /// time on it grows with the square of the file).
    #[test]
    fn rewriting_every_line_of_a_large_file_is_one_replacement() {
        let old: Vec<String> = (0..5_000).map(|i| format!("let a{i} = {i};")).collect();
        let new: Vec<String> = (0..5_000).map(|i| format!("let b{i} = {i};")).collect();
        let ops = diff_ops(&old, &new);
        assert_eq!(
            ops,
            vec![DiffOp::Replace {
                old_index: 0,
                old_len: 5_000,
                new_index: 0,
                new_len: 5_000
            }]
        );
        let text = |v: &[String]| v.join("\n") + "\n";
        let d = unified_diff(
            &text(&old),
            &text(&new),
            Some("f"),
            Some("f"),
            &DiffOptions::default(),
        );
        assert!(
            d.starts_with("--- a/f\n+++ b/f\n@@ -1,5000 +1,5000 @@\n"),
            "{}",
            &d[..80]
        );
    }

    /// The large diff's equal lines are one `Equal` per run, as Myers gives them: the hunks
    /// of two changes far apart are grouped apart.
    #[test]
    fn a_large_diff_joins_runs_of_equal_lines() {
        let a: Vec<u32> = (0..1500).collect();
        let mut b = a.clone();
        b[10] = 5000;
        b[1400] = 5001;
        let replace = |at: usize| DiffOp::Replace {
            old_index: at,
            old_len: 1,
            new_index: at,
            new_len: 1,
        };
        let equal = |at: usize, len: usize| DiffOp::Equal {
            old_index: at,
            new_index: at,
            len,
        };
        assert_eq!(
            diff_ops(&a, &b),
            vec![
                equal(0, 10),
                replace(10),
                equal(11, 1389),
                replace(1400),
                equal(1401, 99)
            ]
        );
    }

    /// Inputs of at most `myers_lines` lines in all are Myers' diff exactly; past that, the
    /// large diff, which sets aside lines found on one side only before it matches (and so may
    /// choose another of the equally short diffs).
    #[test]
    fn inputs_up_to_the_threshold_are_myers_diff() {
        let a = [1u8, 2, 2, 3, 0, 3, 4];
        let b = [2u8, 3];
        let total = a.len() + b.len();
        let myers = myers_ops(&a, &b);
        // Myers keeps the adjacent `2, 3`; without `1`, `0` and `4` the large diff pairs
        // another `2` and `3`: the case tells the two apart.
        assert_ne!(large_diff_ops(&a, &b, total), myers);
        assert_eq!(diff_ops_with(&a, &b, total), myers);
        assert_eq!(
            diff_ops_with(&a, &b, total - 1),
            large_diff_ops(&a, &b, total - 1)
        );
    }

    /// Inside the large diff, a gap goes through Myers when the lines it shares with the other
    /// side (counted on both sides) are at most the threshold; otherwise only its unique lines
    /// anchor it. Here Myers keeps the three `2`s, the anchor (the one `1`) only itself.
    #[test]
    fn a_gap_goes_through_myers_by_the_lines_both_sides_share() {
        let a = [1u8, 2, 2, 2, 9];
        let b = [2u8, 2, 2, 1, 8];
        // Shared: `1, 2, 2, 2` of `a` and `2, 2, 2, 1` of `b`, 8 lines; `9` and `8` are set
        // aside.
        let through_myers = large_diff_ops(&a, &b, 8);
        assert_eq!(replay(&a, &b, &through_myers), Some(b.to_vec()));
        assert_eq!(equal_lines(&through_myers), 3);
        let anchored = large_diff_ops(&a, &b, 7);
        assert_eq!(replay(&a, &b, &anchored), Some(b.to_vec()));
        assert_eq!(equal_lines(&anchored), 1);
        // The threshold of the whole diff sends the same input through the large diff.
        assert_eq!(diff_ops_with(&a, &b, 7), anchored);
    }

    /// Each gap the large diff refines costs its lines, paid before it is refined, and a gap
    /// with lines on one side only costs nothing (there is nothing to pair in it). Once the
    /// budget is short of a gap's lines, that gap is left as it is.
    #[test]
    fn the_matchers_budget_pays_for_each_gap_it_refines() {
        // The whole input (12 lines) is anchored by `1` and `6` (`4` is twice in `a`); the
        // gaps before them are `4` and `5`, in `a` only; the gap after them, `7 4 17` against
        // `8 4 18` (6 lines), is anchored by its own `4`.
        let a = [4u32, 1, 5, 6, 7, 4, 17];
        let b = [1u32, 6, 8, 4, 18];
        let pairs = |budget: usize| {
            let mut m = Matcher {
                pairs: Vec::new(),
                budget,
                myers_lines: 0,
            };
            m.match_lines(&a, &b, 0, 0);
            m.pairs
        };
        assert_eq!(pairs(18), [(1, 0), (3, 1), (5, 3)]);
        assert_eq!(pairs(17), [(1, 0), (3, 1)]);
        assert_eq!(pairs(12), [(1, 0), (3, 1)]);
        assert_eq!(pairs(11), []);
    }

    /// A diff whose refinement would outrun its budget (16 lines of work per line of input)
    /// stops where the budget ends: what is left is one replacement. Here each level of the
    /// large diff finds one anchor and leaves all the rest for the next level, so the work
    /// grows with the square of the input.
    #[test]
    fn a_diff_past_its_work_budget_leaves_the_rest_as_one_replacement() {
        // a = u2 u1 u3 u2 u4 u3 … u(n) u(n-1) ea, b = u1 u2 … u(n-1) eb: at level k, u(k) is
        // the one line on each side once; the gap after it is the same shape, one u shorter.
        let n = 1_000u32;
        let mut a: Vec<u32> = (1..n).flat_map(|k| [k + 1, k]).collect();
        a.push(10_000);
        let mut b: Vec<u32> = (1..n).collect();
        b.push(10_001);
        assert!(a.len() + b.len() > MYERS_LINES);
        let ops = diff_ops(&a, &b);
        assert_eq!(replay(&a, &b, &ops), Some(b.clone()));
        // The levels the budget pays for: level k looks at a gap of 2(n - k) + 1 old and
        // n - k + 1 new lines.
        let mut budget = WORK_PER_LINE * (a.len() + b.len());
        let mut levels = 0;
        for k in 1..n as usize {
            let cost = 2 * (n as usize - k) + 1 + (n as usize - k + 1);
            if budget < cost {
                break;
            }
            budget -= cost;
            levels += 1;
        }
        assert!(levels > 1 && levels < 100, "{levels}");
        // u1 … u(levels) are kept, everything after the last is one replacement; Myers (and
        // a refinement without a budget) would keep all n - 1.
        assert_eq!(equal_lines(&ops), levels);
        assert!(matches!(
            ops.last(),
            Some(DiffOp::Replace { old_index, new_index, .. })
                if *old_index == 2 * levels && *new_index == levels
        ));
    }

    /// Ops that do not describe `a` → `b` (similar's Myers gave wrong indices once) are
    /// re-indexed when their lengths hold, and otherwise replaced by the whole change as one op.
    #[test]
    fn ops_that_do_not_describe_the_change_become_one_op() {
        let a = [1u8, 2, 3];
        let b = [1u8, 4, 3];
        let equal = |o, n, len| DiffOp::Equal {
            old_index: o,
            new_index: n,
            len,
        };
        let replace = |o, ol, n, nl| DiffOp::Replace {
            old_index: o,
            old_len: ol,
            new_index: n,
            new_len: nl,
        };
        let whole = vec![replace(0, 3, 0, 3)];
        // Right lengths, wrong indices: re-indexed.
        let good = vec![equal(0, 0, 1), replace(1, 1, 1, 1), equal(2, 2, 1)];
        let skewed = vec![equal(5, 7, 1), replace(0, 1, 9, 1), equal(1, 1, 1)];
        assert_eq!(reindexed(skewed, &a, &b), good);
        // An `Equal` of lines that differ.
        assert_eq!(reindexed(vec![equal(0, 0, 3)], &a, &b), whole);
        // Past the end of the new side only, then of the old side only.
        let long_new = vec![equal(0, 0, 1), replace(1, 2, 1, 3)];
        assert_eq!(reindexed(long_new, &a, &b), whole);
        let long_old = vec![equal(0, 0, 1), replace(1, 3, 1, 2)];
        assert_eq!(reindexed(long_old, &a, &b), whole);
        // An `Equal` past the end of the new side only (cut there, never read past it).
        let insert = DiffOp::Insert {
            old_index: 0,
            new_index: 0,
            new_len: 1,
        };
        let short = [1u8, 2];
        assert_eq!(
            reindexed(vec![insert, equal(0, 1, 2)], &a, &short),
            [replace(0, 3, 0, 2)]
        );
        // One side covered, the other not.
        let short_new = vec![equal(0, 0, 1), replace(1, 2, 1, 1)];
        assert_eq!(reindexed(short_new, &a, &b), whole);
        let short_old = vec![equal(0, 0, 1), replace(1, 1, 1, 2)];
        assert_eq!(reindexed(short_old, &a, &b), whole);
        // With a side empty, the one op is a deletion or an insertion; with both, none.
        let delete = vec![DiffOp::Delete {
            old_index: 0,
            old_len: 3,
            new_index: 0,
        }];
        assert_eq!(reindexed(vec![], &a, &[]), delete);
        let insert = vec![DiffOp::Insert {
            old_index: 0,
            new_index: 0,
            new_len: 3,
        }];
        assert_eq!(reindexed(vec![], &[], &b), insert);
        assert_eq!(reindexed(vec![equal(0, 0, 1)], &[0u8; 0], &[]), []);
    }

    #[test]
    fn line_map_follows_moved_lines() {
        assert_eq!(
            line_map("a\nb\nc\n", "x\na\nc\n"),
            vec![Some(1), None, Some(2)]
        );
    }
}
