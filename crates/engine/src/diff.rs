//! Unified diffs between two texts, optionally anchored so the engine can verify every line.

use similar::{DiffOp, capture_diff_slices, group_diff_ops};

use crate::hash::Anchor;
use crate::hash::LineHash;
use crate::text::Document;

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
    let a = Document::from_text(old);
    let b = Document::from_text(new);
    // The last line's missing newline is part of its identity, so such a change shows up.
    let key = |d: &Document| -> Vec<(String, bool)> {
        let n = d.lines.len();
        d.lines
            .iter()
            .enumerate()
            .map(|(i, l)| (l.text.clone(), i + 1 == n && !d.final_newline))
            .collect()
    };
    let (ka, kb) = (key(&a), key(&b));
    let ops = capture_diff_slices(similar::Algorithm::Myers, &ka, &kb);
    let groups = group_diff_ops(ops, opts.context);
    if groups.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    out.push_str(&format!(
        "--- {}\n",
        old_path.map_or("/dev/null".to_string(), |p| format!("a/{p}"))
    ));
    out.push_str(&format!(
        "+++ {}\n",
        new_path.map_or("/dev/null".to_string(), |p| format!("b/{p}"))
    ));
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
            header_start(&old_range),
            old_range.len(),
            header_start(&new_range),
            new_range.len()
        ));
        let old_line = |i: usize, marker: char, out: &mut String| {
            let (text, no_nl) = &ka[i];
            if opts.anchored {
                let anchor = Anchor {
                    line: i + 1,
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
                        old_line(i, ' ', &mut out);
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for i in old_index..old_index + old_len {
                        old_line(i, '-', &mut out);
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
                        old_line(i, '-', &mut out);
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
    out
}

/// Where each line of `old` ended up in `new` (0-based), or `None` when the line was removed or
/// changed. Used to tell a diagnostic that merely moved from one the change introduced.
pub fn line_map(old: &str, new: &str) -> Vec<Option<usize>> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let mut map = vec![None; a.len()];
    for op in capture_diff_slices(similar::Algorithm::Myers, &a, &b) {
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

    #[test]
    fn line_map_follows_moved_lines() {
        assert_eq!(
            line_map("a\nb\nc\n", "x\na\nc\n"),
            vec![Some(1), None, Some(2)]
        );
    }
}
