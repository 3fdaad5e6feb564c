//! Line edits: the one representation of a change to a document, and the one place it is applied.

use std::ops::Range;

use crate::text::{Line, TextView, UTF8_BOM};

/// Replace the original lines `range` (0-based, half-open) by `lines`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineEdit {
    pub range: Range<usize>,
    pub lines: Vec<Line>,
}

/// A set of line edits against one original text.
///
/// Invariant: sorted by `range.start`, and pairwise disjoint: for consecutive edits `a`, `b`,
/// `a.range.end <= b.range.start`. Several insertions (empty ranges) at one position keep the
/// order they were given in. Every edit refers to the ORIGINAL line numbers; `apply` is the only
/// place edits are carried out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineEdits {
    edits: Vec<LineEdit>,
}

/// Two edits overlap: their indices in the order given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap(pub usize, pub usize);

/// Do `a` and `b` claim a common line (or does an insertion fall strictly inside a replacement)?
/// The reference rule: planning tests candidates with an ordered set that implements it in
/// O(log n) (`apply::Claimed`, checked against this by a property test).
#[cfg(test)]
pub fn ranges_conflict(a: &Range<usize>, b: &Range<usize>) -> bool {
    if a.is_empty() && b.is_empty() {
        return false;
    }
    if a.is_empty() {
        return b.start < a.start && a.start < b.end;
    }
    if b.is_empty() {
        return a.start < b.start && b.start < a.end;
    }
    a.start < b.end && b.start < a.end
}

impl LineEdits {
    /// Sort the edits (stable) and check the disjointness invariant.
    pub fn new(edits: Vec<LineEdit>) -> Result<LineEdits, Overlap> {
        let mut indexed: Vec<(usize, LineEdit)> = edits.into_iter().enumerate().collect();
        indexed.sort_by_key(|(_, e)| (e.range.start, e.range.end));
        for w in indexed.windows(2) {
            if w[0].1.range.end > w[1].1.range.start {
                return Err(Overlap(w[0].0, w[1].0));
            }
        }
        Ok(LineEdits {
            edits: indexed.into_iter().map(|(_, e)| e).collect(),
        })
    }

    pub fn edits(&self) -> &[LineEdit] {
        &self.edits
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Apply to the original lines.
    pub fn apply(&self, original: &[Line]) -> Vec<Line> {
        self.apply_owned(original.to_vec())
    }

    /// The number of lines the result of applying these edits to `original_len` lines has.
    pub fn new_len(&self, original_len: usize) -> usize {
        let added: usize = self.edits.iter().map(|e| e.lines.len()).sum();
        let removed: usize = self.edits.iter().map(|e| e.range.len()).sum();
        (original_len + added).saturating_sub(removed)
    }

    /// Apply to the original lines, moving the unchanged ones into the result.
    pub fn apply_owned(&self, original: Vec<Line>) -> Vec<Line> {
        let mut out = Vec::with_capacity(self.new_len(original.len()));
        let mut src = original.into_iter();
        let mut pos = 0;
        for e in &self.edits {
            out.extend(src.by_ref().take(e.range.start - pos));
            out.extend(e.lines.iter().cloned());
            src.by_ref().take(e.range.len()).for_each(drop);
            pos = e.range.end;
        }
        out.extend(src);
        out
    }

    /// Where each edit's lines sit in the result (0-based, half-open), in edit order.
    pub fn new_ranges(&self) -> Vec<Range<usize>> {
        let mut shift: isize = 0;
        self.edits
            .iter()
            .map(|e| {
                let start = (e.range.start as isize + shift) as usize;
                shift += e.lines.len() as isize - e.range.len() as isize;
                start..start + e.lines.len()
            })
            .collect()
    }

    /// The edits that turn the result of `apply(original)` back into `original`.
    pub fn invert(&self, original: &[Line]) -> LineEdits {
        let edits = self
            .edits
            .iter()
            .zip(self.new_ranges())
            .map(|(e, new)| LineEdit {
                range: new,
                lines: original[e.range.clone()].to_vec(),
            })
            .collect();
        LineEdits { edits }
    }

    /// The bytes of the document these edits make of `view`, ending with a newline when
    /// `final_newline` says so: exactly what [`Document::to_bytes`](crate::text::Document::to_bytes) gives for the edited
    /// document, but unchanged lines are copied from the source in whole runs instead of line by
    /// line. A view of a [`Document`](crate::text::Document) has no source and renders through one.
    pub(crate) fn render(&self, view: &TextView<'_>, final_newline: bool) -> Vec<u8> {
        let Some(source) = view.source() else {
            let mut doc = view.to_document();
            doc.lines = self.apply_owned(doc.lines);
            doc.final_newline = final_newline;
            return doc.to_bytes();
        };
        // A capacity hint only: `* 2` for `+ 2` changes no byte of the result (an equivalent
        // mutant, excluded in .cargo/mutants.toml).
        let added: usize = self
            .edits()
            .iter()
            .flat_map(|e| &e.lines)
            .map(|l| l.text.len() + 2)
            .sum();
        let mut out = Vec::with_capacity(UTF8_BOM.len() + source.len() + added + 2);
        if view.bom {
            out.extend_from_slice(UTF8_BOM);
        }
        let n = view.lines.len();
        let offset = |i: usize| -> usize {
            if i == n {
                source.len()
            } else {
                // A line's text is a slice of `source`: its offset is the pointers' distance.
                view.lines[i].text.as_ptr() as usize - source.as_ptr() as usize
            }
        };
        // Every line is written with its terminator; a missing final newline is cut at the end.
        // `copy_run` copies the source lines `from..to` and returns the length of the last one's
        // terminator.
        let copy_run = |out: &mut Vec<u8>, from: usize, to: usize| -> Option<usize> {
            if from == to {
                return None;
            }
            out.extend_from_slice(&source.as_bytes()[offset(from)..offset(to)]);
            let terminator: &[u8] = if view.lines[to - 1].crlf {
                b"\r\n"
            } else {
                b"\n"
            };
            if to == n && !view.final_newline {
                // The source's last line has no terminator; followed by anything, it gets one.
                out.extend_from_slice(terminator);
            }
            Some(terminator.len())
        };
        let mut last_terminator = 0;
        let mut pos = 0;
        for e in self.edits() {
            if let Some(t) = copy_run(&mut out, pos, e.range.start) {
                last_terminator = t;
            }
            for l in &e.lines {
                let terminator: &[u8] = if l.crlf { b"\r\n" } else { b"\n" };
                out.extend_from_slice(l.text.as_bytes());
                out.extend_from_slice(terminator);
                last_terminator = terminator.len();
            }
            pos = e.range.end;
        }
        if let Some(t) = copy_run(&mut out, pos, n) {
            last_terminator = t;
        }
        if !final_newline {
            out.truncate(out.len() - last_terminator);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<Line> {
        s.iter()
            .map(|t| Line {
                text: t.to_string(),
                crlf: false,
            })
            .collect()
    }

    #[test]
    fn apply_and_invert_round_trip() {
        let orig = lines(&["a", "b", "c", "d"]);
        let edits = LineEdits::new(vec![
            LineEdit {
                range: 3..4,
                lines: lines(&["D1", "D2"]),
            },
            LineEdit {
                range: 0..0,
                lines: lines(&["top"]),
            },
            LineEdit {
                range: 1..3,
                lines: vec![],
            },
        ])
        .unwrap();
        let out = edits.apply(&orig);
        assert_eq!(out, lines(&["top", "a", "D1", "D2"]));
        assert_eq!(edits.new_len(orig.len()), out.len());
        assert!(!edits.is_empty());
        assert!(LineEdits::new(vec![]).unwrap().is_empty());
        assert_eq!(edits.new_ranges(), vec![0..1, 2..2, 2..4]);
        assert_eq!(edits.invert(&orig).apply(&out), orig);
    }

    #[test]
    fn overlapping_edits_are_refused() {
        let err = LineEdits::new(vec![
            LineEdit {
                range: 0..2,
                lines: vec![],
            },
            LineEdit {
                range: 1..3,
                lines: vec![],
            },
        ])
        .unwrap_err();
        assert_eq!(err, Overlap(0, 1));
        assert!(ranges_conflict(&(2..2), &(1..3)));
        assert!(!ranges_conflict(&(1..1), &(1..3)));
        assert!(!ranges_conflict(&(3..3), &(1..3)));
    }
}
