//! Unified diffs between two texts, optionally anchored so the engine can verify every line.

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
        if os < o || ns < n || os - o != ns - n || oe > a.len() || ne > b.len() {
            return None;
        }
        if !same_lines(&a, o..os, &b, n..ns) {
            return None;
        }
        ranges.push((os, oe, ns, ne));
        (o, n) = (oe, ne);
    }
    if a.len() - o != b.len() - n || !same_lines(&a, o..a.len(), &b, n..b.len()) {
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
    // Common leading lines, each terminated in both.
    let (mut pre_lines, mut pre_bytes) = (0, 0);
    for (a, b) in old.split_inclusive('\n').zip(new.split_inclusive('\n')) {
        if a != b || !a.ends_with('\n') {
            break;
        }
        pre_lines += 1;
        pre_bytes += a.len();
    }
    // Common trailing lines, not overlapping the prefix.
    let (mut old_rest, mut new_rest) = (&old[pre_bytes..], &new[pre_bytes..]);
    let mut suf_lines = 0;
    while !old_rest.is_empty() && !new_rest.is_empty() {
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

/// Myers ops turning `a` into `b`, every index recomputed from the op lengths.
///
/// similar 2.7's Myers sometimes reports a wrong secondary index (the `new_index` of a
/// `Delete`, the `old_index` of an `Insert`: mitsuhiko/similar#78) although the ops' order and
/// lengths are right. Hunk headers and line maps are built from those indices, so they are
/// rebuilt here from running cursors. Should the ops ever fail to describe `a` → `b`, the whole
/// change becomes one replacement: larger, but still correct.
fn diff_ops<T: Eq + std::hash::Hash + Ord>(a: &[T], b: &[T]) -> Vec<DiffOp> {
    let raw = capture_diff_slices(similar::Algorithm::Myers, a, b);
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
    if a.is_empty() && b.is_empty() {
        return Vec::new();
    }
    vec![DiffOp::Replace {
        old_index: 0,
        old_len: a.len(),
        new_index: 0,
        new_len: b.len(),
    }]
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

    #[test]
    fn line_map_follows_moved_lines() {
        assert_eq!(
            line_map("a\nb\nc\n", "x\na\nc\n"),
            vec![Some(1), None, Some(2)]
        );
    }
}
