//! Relocation and application of hunks (docs/design.md §4).
//!
//! Every hunk is matched against the ORIGINAL document and turned into one [`LineEdit`]; the
//! edits are applied together by [`LineEdits::apply`]. A hunk's target is its anchor (or header)
//! line plus the relocation offset at which the previous hunk was found; the search then tries
//! the target and moves outward `+1, −1, +2, −2, …` up to the search radius. A position matches
//! only if every context and removal line matches: content equal in the current [`Tier`], and
//! the anchor hash equal where the line carries one. The tiers are searched strictest first
//! (exact and trailing whitespace ignored together, so that trailing whitespace never sends a
//! hunk farther; then all whitespace ignored; then typographic punctuation folded), each over
//! the whole window; the nearest match of the first tier that has one wins, and two at the same
//! distance in it are refused as ambiguous. Runs of blank lines compare as one blank line when
//! they must. A hunk whose change is already in the file (its new side where its old side
//! points: a retried patch) is refused as `already_applied`, see [`Retry`].

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use crate::edit::{LineEdit, LineEdits};
use crate::error::{EngineError, Reason};
use crate::hash::{Anchor, LineHash, fold_punctuation, hashline, normalize_for_hash};
use crate::patch::{Hunk, HunkLine, LineKind};
use crate::text::{Document, Line, TextView};

/// Knobs of the application.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// How far from its target a hunk is searched for, in lines each way.
    pub search_radius: usize,
    /// Live sync: at most this many fresh anchored lines per modified block.
    pub sync_block_max_lines: usize,
    /// Live sync: at most this many fresh anchored lines per file; past it, ranges only.
    pub sync_total_max_lines: usize,
}

impl Default for ApplyOptions {
    fn default() -> Self {
        ApplyOptions {
            search_radius: 100,
            sync_block_max_lines: 40,
            sync_total_max_lines: 200,
        }
    }
}

/// Where a hunk landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkPlacement {
    /// 1-based hunk number within its file.
    pub index: usize,
    /// 1-based line the hunk's first old line was expected at (after carrying the drift).
    pub target_line: usize,
    /// 1-based line it was found at.
    pub found_line: usize,
    /// `found_line - line the hunk claimed`: how far the file had moved.
    pub offset: isize,
}

/// Live sync: a modified block of the new file with fresh anchors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncBlock {
    /// 1-based first line of the block in the new file.
    pub start_line: usize,
    /// Number of lines in the block (0 when the hunk only removed lines).
    pub line_count: usize,
    /// `42abcd|content` lines, or `None` when the cap was reached (re-read the range instead).
    pub lines: Option<Vec<String>>,
    /// 1-based first line of the lines the block replaced, in the old file.
    pub old_start_line: usize,
    /// Number of old lines the block replaced (0 when the hunk only added lines).
    pub old_line_count: usize,
}

/// The result of applying a file's hunks.
#[derive(Debug, Clone)]
pub struct Applied {
    pub doc: Document,
    pub edits: LineEdits,
    pub hunks: Vec<HunkPlacement>,
    pub sync: Vec<SyncBlock>,
    pub added: usize,
    pub removed: usize,
}

/// One old-side (context or removal) line of a hunk, prepared for matching.
struct OldLine<'h> {
    norm: String,
    /// `norm` with typographic punctuation folded ([`fold_punctuation`]), when that changes it.
    folded: Option<String>,
    anchor: Option<Anchor>,
    /// No anchor, or an anchor whose hash is the hash of this line's own content: a file line
    /// equal to it in a tier that keeps the normalized form carries the anchored hash exactly
    /// when this holds.
    hash_ok: bool,
    kind: LineKind,
    text: &'h str,
}

impl<'h> OldLine<'h> {
    fn of(l: &'h HunkLine) -> OldLine<'h> {
        let norm = normalize_for_hash(&l.text);
        OldLine {
            hash_ok: l
                .anchor
                .is_none_or(|a| LineHash::of_normalized(&norm) == a.hash),
            folded: match fold_punctuation(&norm) {
                std::borrow::Cow::Borrowed(_) => None,
                std::borrow::Cow::Owned(f) => Some(f),
            },
            norm,
            anchor: l.anchor,
            kind: l.kind,
            text: &l.text,
        }
    }
}

/// How strictly a file line must equal a hunk line (docs/design.md §4), strictest first. A looser
/// tier is searched only when no stricter tier matches anywhere in the window, so a byte-exact
/// block is never passed over for a nearer look-alike (a doc-comment example at another
/// nesting level, a copy inside an impl, a block re-indented with tabs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// Byte-equal content (line endings aside), one line to one line.
    Exact,
    /// Equal once trailing whitespace is dropped, one line to one line.
    TrailingWhitespace,
    /// Equal in the hash's normal form (NFC, invisible characters and all whitespace dropped),
    /// with runs of blank lines compared as one when a one-to-one match fails.
    Whitespace,
    /// Equal in the normal form once typographic punctuation is folded to ASCII (curly quotes,
    /// dashes, non-breaking hyphens, …; [`fold_punctuation`]), blank runs as above. An anchor
    /// is checked against the file line's own hash here, since the hunk line's text differs.
    Punctuation,
}

impl Tier {
    const ALL: [Tier; 4] = [
        Tier::Exact,
        Tier::TrailingWhitespace,
        Tier::Whitespace,
        Tier::Punctuation,
    ];

    /// The tiers of the search around a target. Trailing whitespace is no reason to pass a
    /// block over for a farther one: an edge line of the true block that gained a trailing
    /// space sent a hunk to a byte-exact copy 65 lines away instead of that block 30 lines
    /// away. So exact and trailing-whitespace matches rank alike (the latter includes the
    /// former) and the nearest wins; a block that differs in indentation or inner spaces still
    /// gives way to an exact or trailing-whitespace one, however far within the radius.
    const SPIRAL: [Tier; 3] = [
        Tier::TrailingWhitespace,
        Tier::Whitespace,
        Tier::Punctuation,
    ];

    /// Words for a message about a match found in this tier (empty for an exact one).
    fn words(self) -> &'static str {
        match self {
            Tier::Exact => "",
            Tier::TrailingWhitespace => " (both ignoring trailing whitespace)",
            Tier::Whitespace => " (both ignoring whitespace)",
            Tier::Punctuation => " (both ignoring whitespace and typographic punctuation)",
        }
    }
}

/// How an old-side line maps onto the file at a candidate position.
#[derive(Debug, Clone, Copy)]
enum Slot {
    One(usize),
    Run(usize),
    /// A blank context line past the end of the file (the model counted the final newline).
    Beyond,
}

#[derive(Debug, Clone)]
struct Run {
    old: Range<usize>,
    file: Range<usize>,
}

#[derive(Debug, Clone)]
struct Alignment {
    range: Range<usize>,
    slots: Vec<Slot>,
    runs: Vec<Run>,
}

/// Lazily normalized file lines: only lines the search touches are normalized.
struct Normalized<'v, 'd> {
    doc: &'v TextView<'d>,
    cache: Vec<Option<String>>,
    /// Normal forms with punctuation folded, where that changes them; allocated on first use
    /// (only a hunk no stricter tier places reaches the punctuation tier).
    folded: Vec<Option<Option<String>>>,
    /// Every line's position by its folded normal form, built on first use: a hunk without
    /// position (no numbers, no anchor) is looked for only where its first line is, instead
    /// of at every line after the previous hunk (which made a patch of n such hunks O(n × file)).
    /// Ordered, not hashed: the engine stays free of seeded randomness.
    by_line: Option<BTreeMap<String, Vec<usize>>>,
}

impl<'v, 'd> Normalized<'v, 'd> {
    fn new(doc: &'v TextView<'d>) -> Self {
        Normalized {
            doc,
            cache: vec![None; doc.len()],
            folded: Vec::new(),
            by_line: None,
        }
    }

    /// Positions, at or after `from`, of the lines whose folded normal form is `key`. Every tier
    /// implies equal folded normal forms, so these are the only places a hunk whose first line
    /// has that form can match.
    fn positions_from(&mut self, key: &str, from: usize) -> &[usize] {
        if self.by_line.is_none() {
            let mut map: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for i in 0..self.doc.len() {
                let k = fold_punctuation(self.get(i)).into_owned();
                map.entry(k).or_default().push(i);
            }
            self.by_line = Some(map);
        }
        let list = self
            .by_line
            .as_ref()
            .and_then(|m| m.get(key))
            .map_or(&[][..], Vec::as_slice);
        &list[list.partition_point(|&p| p < from)..]
    }

    /// Line `i`'s normal form with typographic punctuation folded.
    fn get_folded(&mut self, i: usize) -> &str {
        if self.folded.is_empty() {
            self.folded = vec![None; self.doc.len()];
        }
        if self.folded[i].is_none() {
            let folded = match fold_punctuation(self.get(i)) {
                std::borrow::Cow::Borrowed(_) => None,
                std::borrow::Cow::Owned(f) => Some(f),
            };
            self.folded[i] = Some(folded);
        }
        match &self.folded[i] {
            Some(Some(f)) => f,
            _ => self.cache[i].as_deref().unwrap_or(""),
        }
    }

    fn get(&mut self, i: usize) -> &str {
        let doc = self.doc;
        // Kept as built: shrinking each string to a `Box<str>` would cost a reallocation.
        self.cache[i].get_or_insert_with(|| normalize_for_hash(doc.lines[i].text))
    }

    fn is_blank(&mut self, i: usize) -> bool {
        self.get(i).is_empty()
    }

    /// Line `i` equals `old` in the hash's normal form and carries its anchor's hash.
    fn matches(&mut self, i: usize, old: &OldLine<'_>) -> bool {
        old.hash_ok && self.get(i) == old.norm
    }

    /// Line `i` equals `old` in `tier` (and carries its anchor's hash). The strict tiers compare
    /// the bytes as they are: they never normalize a line.
    fn line_eq(&mut self, i: usize, old: &OldLine<'_>, tier: Tier) -> bool {
        match tier {
            Tier::Exact => old.hash_ok && self.doc.lines[i].text == old.text,
            Tier::TrailingWhitespace => {
                old.hash_ok && self.doc.lines[i].text.trim_end() == old.text.trim_end()
            }
            Tier::Whitespace => self.matches(i, old),
            Tier::Punctuation => {
                let want = old.folded.as_deref().unwrap_or(&old.norm);
                self.get_folded(i) == want
                    && old
                        .anchor
                        .is_none_or(|a| LineHash::of_normalized(self.get(i)) == a.hash)
            }
        }
    }
}

impl Normalized<'_, '_> {
    fn match_strict(&mut self, old: &[OldLine<'_>], p: usize, tier: Tier) -> Option<Alignment> {
        let len = self.doc.len();
        let mut slots = Vec::with_capacity(old.len());
        for (k, o) in old.iter().enumerate() {
            let j = p + k;
            if j >= len {
                if old[k..]
                    .iter()
                    .all(|o| o.kind == LineKind::Context && o.norm.is_empty())
                {
                    slots.extend(std::iter::repeat_n(Slot::Beyond, old.len() - k));
                    return Some(Alignment {
                        range: p..len,
                        slots,
                        runs: Vec::new(),
                    });
                }
                return None;
            }
            if !self.line_eq(j, o, tier) {
                return None;
            }
            slots.push(Slot::One(j));
        }
        Some(Alignment {
            range: p..p + old.len(),
            slots,
            runs: Vec::new(),
        })
    }

    fn match_collapsed(&mut self, old: &[OldLine<'_>], p: usize, tier: Tier) -> Option<Alignment> {
        let len = self.doc.len();
        let (mut i, mut j) = (0, p);
        let mut slots = Vec::with_capacity(old.len());
        let mut runs = Vec::new();
        while i < old.len() {
            if old[i].norm.is_empty() {
                let i2 = i + old[i..].iter().take_while(|o| o.norm.is_empty()).count();
                if old[i..i2]
                    .iter()
                    .any(|o| o.anchor.is_some_and(|a| a.hash != LineHash(0)))
                {
                    return None;
                }
                let mut j2 = j;
                while j2 < len && self.is_blank(j2) {
                    j2 += 1;
                }
                if j2 == j {
                    if j == len
                        && old[i..]
                            .iter()
                            .all(|o| o.kind == LineKind::Context && o.norm.is_empty())
                    {
                        slots.extend(std::iter::repeat_n(Slot::Beyond, old.len() - i));
                        break;
                    }
                    return None;
                }
                slots.extend(std::iter::repeat_n(Slot::Run(runs.len()), i2 - i));
                runs.push(Run {
                    old: i..i2,
                    file: j..j2,
                });
                i = i2;
                j = j2;
            } else {
                if j >= len || !self.line_eq(j, &old[i], tier) {
                    return None;
                }
                slots.push(Slot::One(j));
                i += 1;
                j += 1;
            }
        }
        Some(Alignment {
            range: p..j,
            slots,
            runs,
        })
    }

    /// The hunk's old side at `p` in `tier`: one line to one line, or (in the whitespace tier,
    /// where a different number of blank lines is a whitespace difference) with runs of blank
    /// lines compared as one.
    fn match_at(&mut self, old: &[OldLine<'_>], p: usize, tier: Tier) -> Option<Alignment> {
        // Both ways of matching need a non-blank first line at `p`; most candidate positions of
        // a spiral search fail right there, before any alignment is allocated.
        if let Some(first) = old.first()
            && !first.norm.is_empty()
            && (p >= self.doc.len() || !self.line_eq(p, first, tier))
        {
            return None;
        }
        let strict = self.match_strict(old, p, tier);
        if strict.is_some() || tier < Tier::Whitespace {
            return strict;
        }
        self.match_collapsed(old, p, tier)
    }

    /// Near-miss score at `p`: `(weight, count)` of the old-side lines that match one to one,
    /// where a line weighs its normalized length, so a matching `}` says little and a matching
    /// signature a lot.
    fn score(&mut self, old: &[OldLine<'_>], p: usize) -> (usize, usize) {
        let len = self.doc.len();
        (0..old.len())
            .filter(|&k| p + k < len && self.matches(p + k, &old[k]))
            .fold((0, 0), |(w, c), k| (w + old[k].norm.len().max(1), c + 1))
    }
}

/// Apply `hunks` to `doc`. On error nothing is returned but the error: the caller's document is
/// untouched (per-file atomicity).
pub fn apply_hunks(
    doc: &Document,
    hunks: &[Hunk],
    opts: &ApplyOptions,
) -> Result<Applied, EngineError> {
    let (edits, placements, final_newline) = plan_hunks(&TextView::of_document(doc), hunks, opts)?;
    let lines = edits.apply(&doc.lines);
    Ok(finish(
        doc,
        lines,
        edits,
        placements,
        final_newline,
        hunks,
        opts,
    ))
}

/// [`apply_hunks`] on a document the caller gives up: unchanged lines are moved into the
/// result instead of copied.
pub fn apply_hunks_owned(
    doc: Document,
    hunks: &[Hunk],
    opts: &ApplyOptions,
) -> Result<Applied, EngineError> {
    let (edits, placements, final_newline) = plan_hunks(&TextView::of_document(&doc), hunks, opts)?;
    let template = Document {
        lines: Vec::new(),
        ..doc
    };
    let lines = edits.apply_owned(doc.lines);
    Ok(finish(
        &template,
        lines,
        edits,
        placements,
        final_newline,
        hunks,
        opts,
    ))
}

fn finish(
    doc: &Document,
    lines: Vec<Line>,
    edits: LineEdits,
    placements: Vec<HunkPlacement>,
    final_newline: bool,
    hunks: &[Hunk],
    opts: &ApplyOptions,
) -> Applied {
    let mut new_doc = Document {
        lines,
        eol: doc.eol,
        bom: doc.bom,
        final_newline,
    };
    new_doc.drop_empty_unterminated_last_line();
    let sync = live_sync(new_doc.len(), &edits, opts);
    Applied {
        added: hunks.iter().map(Hunk::additions).sum(),
        removed: hunks.iter().map(Hunk::removals).sum(),
        doc: new_doc,
        edits,
        hunks: placements,
        sync,
    }
}

/// The ranges of the original document earlier hunks of the file took, for the "is this
/// candidate still free" test of every later candidate ([`crate::edit::ranges_conflict`]
/// against each of them). Kept ordered so the test costs O(log n) and planning n hunks stays
/// O(n log n): rebuilding and scanning a list per hunk made a 1M-hunk patch quadratic.
///
/// Invariant: the non-empty ranges are pairwise disjoint (each was free when it was taken), so
/// ordered by start their ends are ordered too, and only the last one starting before a
/// position can cover it.
#[derive(Debug, Default)]
struct Claimed {
    /// Non-empty ranges, start → end.
    spans: BTreeMap<usize, usize>,
    /// Positions of pure insertions (empty ranges).
    points: BTreeSet<usize>,
}

impl Claimed {
    /// Would `r` conflict with no claimed range (same rule as `ranges_conflict`)?
    fn is_free(&self, r: &Range<usize>) -> bool {
        if r.is_empty() {
            // An insertion conflicts only with a span it falls strictly inside.
            return self
                .spans
                .range(..r.start)
                .next_back()
                .is_none_or(|(_, &end)| end <= r.start);
        }
        let span_free = self
            .spans
            .range(..r.end)
            .next_back()
            .is_none_or(|(_, &end)| end <= r.start);
        // An insertion strictly inside `r` conflicts; one at either edge does not.
        span_free
            && self
                .points
                .range(r.start.saturating_add(1)..r.end)
                .next()
                .is_none()
    }

    fn insert(&mut self, r: &Range<usize>) {
        if r.is_empty() {
            self.points.insert(r.start);
        } else {
            self.spans.insert(r.start, r.end);
        }
    }
}

/// Locate every hunk in the original document and turn it into line edits. Returns the edits,
/// where each hunk landed, and the new final-newline state.
pub(crate) fn plan_hunks(
    doc: &TextView<'_>,
    hunks: &[Hunk],
    opts: &ApplyOptions,
) -> Result<(LineEdits, Vec<HunkPlacement>, bool), EngineError> {
    let mut norm = Normalized::new(doc);
    let mut claimed = Claimed::default();
    let mut edits: Vec<LineEdit> = Vec::with_capacity(hunks.len());
    let mut placements = Vec::new();
    let mut carry: isize = 0;
    let mut cursor: usize = 0;
    let mut final_newline = doc.final_newline;
    // Lines added minus lines removed by the hunks found already applied: the file holds their
    // changes, so the hunks after them sit that much lower.
    let mut delta: isize = 0;
    // Hunks whose change is already in the file: (hunk, 1-based line of its new side).
    let mut already: Vec<(usize, usize)> = Vec::new();
    // The first hunk that does not apply.
    let mut failed: Option<EngineError> = None;
    for (h_idx, hunk) in hunks.iter().enumerate() {
        let index = h_idx + 1;
        // An unterminated last line is trusted only when the file verifies it, and a blank one
        // verifies nothing (blank runs compare as one): it is what is left of a line cut right
        // after its marker.
        if hunk.unterminated_last
            && hunk
                .lines
                .last()
                .is_some_and(|l| normalize_for_hash(&l.text).is_empty())
        {
            return Err(EngineError::new(
                Reason::TruncatedInput,
                format!(
                    "hunk {index} ends with a blank line without a terminating newline: the patch was probably cut off. Nothing was applied; resend it"
                ),
            )
            .with_hunk(index));
        }
        let old: Vec<OldLine<'_>> = hunk.old_side().map(OldLine::of).collect();
        // The drift carried from the hunk before, and the changes of hunks already applied.
        let placed = locate(
            &mut norm,
            hunk,
            &old,
            index,
            carry + delta,
            cursor,
            &claimed,
            opts,
            &Tier::SPIRAL,
        );
        let (alignment, claimed_line, target) = match placed {
            Err(e)
                if hunk.unterminated_last
                    && matches!(e.reason, Reason::HunkMismatch | Reason::OutOfBounds) =>
            {
                return Err(EngineError::new(
                    Reason::TruncatedInput,
                    format!(
                        "hunk {index} does not match the file and the patch's last line has no terminating newline: the patch was probably cut off. Nothing was applied; resend it"
                    ),
                )
                .with_hunk(index));
            }
            placed => {
                let retry = Retry {
                    hunk,
                    old: &old,
                    index,
                    carry,
                    cursor,
                    delta,
                };
                let done = match &placed {
                    Ok((al, claimed_line, target)) => {
                        retry.applied_at_match(&mut norm, al, claimed_line.map(|_| *target), opts)
                    }
                    Err(e) if e.reason == Reason::HunkMismatch => {
                        retry.applied_instead(&mut norm, opts)
                    }
                    Err(_) => None,
                };
                if let Some((found, claimed_new)) = done {
                    already.push((index, found.start + 1));
                    if let Some(c) = claimed_new {
                        carry = found.start as isize - c;
                    }
                    cursor = found.end;
                    claimed.insert(&found);
                    delta += hunk.additions() as isize - hunk.removals() as isize;
                    continue;
                }
                match placed {
                    Ok(p) => p,
                    Err(e) => {
                        // The later hunks are still looked at: one of them already applied
                        // makes the refusal `already_applied` (a retried patch whose other
                        // hunks no longer match), naming this one too.
                        failed.get_or_insert(e);
                        continue;
                    }
                }
            }
        };
        if hunk.end_unproven && alignment.range.end != doc.len() {
            return Err(EngineError::new(
                Reason::TruncatedInput,
                format!(
                    "hunk {index} has no line counts (`@@ @@`) and the patch ends with its last `+`/`-` line, which applies at line {} of {} rather than at the end of the file: nothing shows the patch was not cut off there. Nothing was applied; resend the patch with at least one unchanged context line after the last change (or with line counts in the hunk header)",
                    alignment.range.end,
                    doc.len()
                ),
            )
            .with_hunk(index));
        }
        let found = alignment.range.start;
        if let Some(claimed_line) = claimed_line {
            carry = found as isize - claimed_line - delta;
        }
        placements.push(HunkPlacement {
            index,
            target_line: target.max(0) as usize + 1,
            found_line: found + 1,
            offset: claimed_line.map_or(0, |c| found as isize - c),
        });
        cursor = alignment.range.end;
        if alignment.range.end == doc.len() && hunk.old_no_newline != hunk.new_no_newline {
            final_newline = !hunk.new_no_newline;
        }
        let lines = emit(doc, hunk, &old, &alignment);
        claimed.insert(&alignment.range);
        edits.push(LineEdit {
            range: alignment.range,
            lines,
        });
    }
    if !already.is_empty() {
        return Err(already_applied(&already, hunks.len(), failed.as_ref()));
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let edits = LineEdits::new(edits).map_err(|o| {
        EngineError::new(
            Reason::HunkMismatch,
            format!("hunks {} and {} overlap", o.0 + 1, o.1 + 1),
        )
    })?;
    Ok((edits, placements, final_newline))
}

/// The position the hunk claims (0-based line of its first old line), before drift. Header
/// and anchor numbers come from the patch and may be anything up to `usize::MAX`: a number no
/// file can have is `out_of_bounds`, never wrapped into a small or negative position.
fn claimed_position(
    hunk: &Hunk,
    old: &[OldLine<'_>],
    index: usize,
    len: usize,
) -> Result<Option<isize>, EngineError> {
    let too_far = |line: usize| {
        EngineError::new(
            Reason::OutOfBounds,
            format!(
                "hunk {index} claims line {line} but the file has {len} lines; fix the hunk header or anchor (re-read the file)"
            ),
        )
        .with_hunk(index)
    };
    if let Some((k, a)) = old
        .iter()
        .enumerate()
        .find_map(|(k, o)| o.anchor.map(|a| (k, a)))
    {
        let line = isize::try_from(a.line).map_err(|_| too_far(a.line))?;
        return Ok(Some(line - 1 - k as isize));
    }
    let Some(start) = hunk.old_start else {
        return Ok(None);
    };
    let start = isize::try_from(start).map_err(|_| too_far(start))?;
    Ok(Some(if old.is_empty() {
        start
    } else {
        (start - 1).max(0)
    }))
}

#[allow(clippy::too_many_arguments)] // One call site; the arguments are the search state.
fn locate(
    norm: &mut Normalized<'_, '_>,
    hunk: &Hunk,
    old: &[OldLine<'_>],
    index: usize,
    carry: isize,
    cursor: usize,
    claimed: &Claimed,
    opts: &ApplyOptions,
    tiers: &[Tier],
) -> Result<(Alignment, Option<isize>, isize), EngineError> {
    let len = norm.doc.len();
    let free = |r: &Range<usize>| claimed.is_free(r);
    let Some(claimed_pos) = claimed_position(hunk, old, index, len)? else {
        return locate_positionless(norm, hunk, old, index, cursor, claimed)
            .map(|a| (a, None, cursor as isize));
    };
    // Checked: a claimed line near `isize::MAX` plus the carried drift must not wrap.
    let Some(target) = claimed_pos.checked_add(carry) else {
        return Err(out_of_bounds(index, claimed_pos, len));
    };
    if old.is_empty() {
        // A pure insertion has nothing to verify: it lands exactly at its target.
        let t = if hunk.at_eof { len as isize } else { target };
        if t < 0 || t > len as isize {
            return Err(out_of_bounds(index, t, len));
        }
        let p = t as usize;
        return Ok((
            Alignment {
                range: p..p,
                slots: Vec::new(),
                runs: Vec::new(),
            },
            Some(claimed_pos),
            target,
        ));
    }
    if hunk.pinned_to_eof() {
        // The end of the file is the one place to look, however far from the header it is.
        return locate_at_eof(norm, hunk, old, index, 0, claimed)
            .map(|a| (a, Some(claimed_pos), target));
    }
    // A header past the end of the file names a line that does not exist: relocating it by
    // content alone would guess. Only anchors prove where such a hunk belongs (seed 002).
    if target >= len as isize && !old.iter().any(|o| o.anchor.is_some()) {
        return Err(EngineError::new(
            Reason::OutOfBounds,
            format!(
                "hunk {index} targets line {} but the file has {len} lines; nothing was applied. Re-read the file and fix the hunk header, or anchor the hunk's lines so it can be relocated",
                target.saturating_add(1)
            ),
        )
        .with_hunk(index));
    }
    let radius = opts.search_radius as isize;
    if target > len as isize + radius || target < -radius {
        return Err(out_of_bounds(index, target, len));
    }
    for &tier in tiers {
        for d in 0..=radius {
            let mut found: Vec<Alignment> = Vec::new();
            let candidates: &[isize] = if d == 0 {
                &[target]
            } else {
                &[target + d, target - d]
            };
            for &c in candidates {
                if c < 0 || c > len as isize {
                    continue;
                }
                if let Some(a) = norm.match_at(old, c as usize, tier)
                    && free(&a.range)
                {
                    found.push(a);
                }
            }
            match found.len() {
                0 => continue,
                1 => return Ok((found.remove(0), Some(claimed_pos), target)),
                _ => {
                    let (a, b) = (found[1].range.start + 1, found[0].range.start + 1);
                    // Both byte-exact: say nothing of trailing whitespace.
                    let shown = if tier == Tier::TrailingWhitespace
                        && found
                            .iter()
                            .all(|f| norm.match_at(old, f.range.start, Tier::Exact).is_some())
                    {
                        Tier::Exact
                    } else {
                        tier
                    };
                    return Err(EngineError::new(
                        Reason::AmbiguousMatch,
                        format!(
                            "hunk {index} matches at lines {a} and {b} equally{} ({d} lines from line {}); re-read the file and anchor the hunk",
                            shown.words(),
                            target + 1
                        ),
                    )
                    .with_hunk(index));
                }
            }
        }
    }
    if target > len as isize {
        return Err(out_of_bounds(index, target, len));
    }
    Err(near_miss(norm, old, index, target, opts.search_radius))
}

/// The reverse check of a hunk (as `git apply` refuses a patch whose reverse applies): is its
/// change already in the file, so that applying it would make it twice? An agent that lost a
/// response re-sends the patch; a chunk that ends on added lines (no trailing context) still
/// matches and would be inserted a second time, and a replacement whose old lines are gone
/// could land on a farther copy of them.
///
/// Invariant (issue 49; `crates/engine/tests/retry.rs`): a retry never changes the file. When
/// the old side still matches somewhere but the hunk's new side stands nearer to where the hunk
/// points than that match (or at that point, where the old side matched there in a looser
/// tier), in its tier or a stricter one, or anywhere in the window in a
/// stricter tier than the match (for a hunk without position: anywhere after the previous
/// hunk, unique there, in a stricter tier), the hunk is `already_applied`, never applied to
/// the copy: whatever tier the first apply matched in, for pure deletions (their new side is
/// their context, looked for nearer than the lines matched and outside them), pure insertions
/// and replacements.
struct Retry<'a, 'h> {
    hunk: &'a Hunk,
    old: &'a [OldLine<'h>],
    index: usize,
    carry: isize,
    cursor: usize,
    /// Lines added minus removed by the hunks before this one found already applied.
    delta: isize,
}

impl Retry<'_, '_> {
    /// The hunk matched at `al`, `target` being where it was looked for (`None`: a hunk without
    /// position). Already applied when: it only adds lines and they are already next to the
    /// matched context; it matched only with blank runs compared as one and the file there is
    /// its new side; or its new side is byte-exact (trailing whitespace aside) nearer to where
    /// it would be than the old lines found, or anywhere in the window when those matched only
    /// in a looser tier. Returns the new side's lines in the file and the line the reversed
    /// hunk claimed.
    fn applied_at_match(
        &self,
        norm: &mut Normalized<'_, '_>,
        al: &Alignment,
        target: Option<isize>,
        opts: &ApplyOptions,
    ) -> Option<(Range<usize>, Option<isize>)> {
        let p = al.range.start;
        let tier = (Tier::ALL.into_iter())
            .find(|&t| self.old.is_empty() || norm.match_at(self.old, p, t).is_some())
            .unwrap_or(Tier::Punctuation);
        let pure = self.hunk.removals() == 0;
        let drifted = target.is_some_and(|t| p as isize != t);
        let loose = tier > Tier::TrailingWhitespace;
        let adds_only = pure && self.hunk.additions() > 0;
        // The common case, a hunk that replaces or removes lines found byte-exact at its
        // target, has nothing to check: nothing else is read or allocated for it.
        // A hunk without position found in a tier other than byte-exact may be the copy of
        // one whose change is made where the exact lines were: it is checked below too.
        let inexact = target.is_none() && tier != Tier::Exact;
        if !adds_only && al.runs.is_empty() && !drifted && !loose && !inexact {
            return None;
        }
        // Only the search for the new side elsewhere is left: it needs the hunk's first added
        // line in the window, which one pass over the window's bytes rules out in most cases
        // before anything is normalized or allocated.
        if !adds_only
            && al.runs.is_empty()
            && let (Some(t), Some(add)) = (
                target,
                self.hunk
                    .lines
                    .iter()
                    .find(|l| l.kind == LineKind::Add && !l.text.trim().is_empty()),
            )
        {
            let reach = if loose {
                opts.search_radius
            } else {
                (p as isize - t).unsigned_abs()
            } as isize;
            let len = norm.doc.len() as isize;
            let lo = (t - reach).clamp(0, len) as usize;
            let hi = (t + reach + self.hunk.lines.len() as isize).clamp(0, len) as usize;
            // Indentation aside: a hunk applied in a looser tier wrote it in the file's style.
            let want = add.text.trim();
            if !norm.doc.lines[lo..hi].iter().any(|l| l.text.trim() == want) {
                return None;
            }
        }
        let new: Vec<OldLine<'_>> = self
            .hunk
            .lines
            .iter()
            .filter(|l| l.kind != LineKind::Remove)
            .map(OldLine::of)
            .collect();
        // A pure insertion placed by its header's number alone (`diff -U0`) says nothing of the
        // lines around it: inserting a line before an equal one is an ordinary first apply.
        let numbered_insertion =
            self.old.is_empty() && self.hunk.old_start.is_some() && !self.hunk.at_eof;
        // A hunk that only adds lines, its old side matched line for line: the new side is in
        // place when it is there with its context lines on the matched ones (added lines after
        // the context: the new side starts where the old side does; before it: it ends there;
        // an insertion at the end of the file: the lines would already end it; added lines that
        // repeat the context: a copy of the new side around the lines matched). Otherwise a
        // hunk that adds lines between its context lines no longer matches after it was applied.
        let leading_adds = self
            .hunk
            .lines
            .iter()
            .take_while(|l| l.kind == LineKind::Add)
            .count();
        if pure && adds_text(self.hunk) && new.len() > al.range.len() && !numbered_insertion {
            // Where the new side would stand: first where its old lines follow the leading
            // additions; then, for a hunk with context, anywhere a copy of the new side covers
            // the lines matched (added lines that repeat context, e.g. a blank one, make the
            // applied hunk match again inside its own new side, in any tier).
            let first = if self.old.is_empty() && p == norm.doc.len() {
                norm.doc.len().checked_sub(new.len())
            } else {
                p.checked_sub(leading_adds)
            };
            let covering = if self.old.is_empty() {
                0..0
            } else {
                covering_starts(al, new.len())
            };
            if let Some(at) = new_side_among(norm, &new, first.into_iter().chain(covering), tier) {
                return Some((at, None));
            }
        }
        // Matched only with runs of blank lines compared as one, and the file there is the new
        // side line for line: the hunk's new lines are there (a copy of the new side from where
        // the match starts, or around the lines matched: a blank run the hunk changed matches
        // again further in), or (a hunk that only removes lines) the blank lines it removes are
        // gone already and removing them again would take the next ones.
        let removes_only = self.hunk.additions() == 0
            && new.iter().any(|l| !l.norm.is_empty())
            && p + new.len() == al.range.end;
        if !al.runs.is_empty() {
            let around = if adds_text(self.hunk) {
                covering_starts(al, new.len())
            } else {
                0..0
            };
            let from_p = (adds_text(self.hunk) || removes_only).then_some(p);
            if let Some(at) = new_side_among(norm, &new, from_p.into_iter().chain(around), tier) {
                return Some((at, None));
            }
        }
        // Found away from its target, or only in a tier looser than trailing whitespace: the
        // new side standing nearer to where it would be (in the tier the old lines matched in,
        // or a stricter one), or anywhere in the window in a tier stricter than the one the old
        // lines matched in, says the change is made and the old lines found are another copy
        // (the same rule as locating: a stricter tier wins over any looser one, the nearest
        // within a tier). Not for a hunk whose two sides differ only in whitespace or the final
        // newline (its new side is its old side in a looser tier), nor one pinned to the end of
        // the file (found there, wherever its target).
        let h = self.hunk;
        let distance = target.map(|t| (al.range.start as isize - t).unsigned_abs());
        if (distance == Some(0) && !loose)
            || h.pinned_to_eof()
            || h.new_no_newline
            || new
                .iter()
                .map(|l| &l.norm)
                .eq(self.old.iter().map(|l| &l.norm))
        {
            return None;
        }
        // A hunk that only removes lines counts too when it has context: its new side is the
        // context (above and below joined), which a file holds where the lines are gone. Two
        // non-blank lines of it at least, unless the old lines matched only in a looser tier
        // (the retry of a deletion whose lines have a copy indented otherwise, issue 49) or,
        // for a chunk without position, other than byte-exact. Its
        // new side is looked for outside the lines the old side matched: the context there is
        // part of the copy found, not a sign of the change.
        let removal = h.additions() == 0;
        let context = new.iter().filter(|l| !l.norm.is_empty()).count();
        let with_context = removal && context >= if loose || inexact { 1 } else { 2 };
        if !adds_text(h) && !with_context {
            return None;
        }
        let mut outside = Claimed::default();
        if removal {
            outside.insert(&al.range);
        }
        let stricter: Vec<Tier> = (Tier::SPIRAL.into_iter())
            .filter(|&t| t == Tier::TrailingWhitespace || t < tier)
            .collect();
        let found = match distance {
            // No position (a Codex chunk): searched as it is, from where the previous hunk
            // ended and unique there, the new side must stand in a stricter tier than the old
            // lines found (byte-exact being stricter than trailing whitespace ignored, as the
            // search for such a chunk tells them apart).
            None => {
                if !inexact {
                    return None;
                }
                let found = self.reversed_found(norm, opts, &stricter, &outside)?;
                let at = found.0.start;
                let t = (Tier::ALL.into_iter()).find(|&t| new_side_at(norm, &new, at, t))?;
                (t < tier).then_some(found)?
            }
            Some(distance) => {
                // Nearer than the old lines, in their tier or a stricter one; for old lines
                // found at the target (in a looser tier), at the target itself: the new side
                // standing where the old side matches is the change made, and applying the
                // hunk again would answer "applied" for a second application.
                let nearer = ApplyOptions {
                    search_radius: distance.saturating_sub(1),
                    ..opts.clone()
                };
                let same: Vec<Tier> = (Tier::SPIRAL.into_iter())
                    .filter(|&t| t == Tier::TrailingWhitespace || t <= tier)
                    .collect();
                let near = self
                    .reversed_found(norm, &nearer, &same, &outside)
                    .filter(|f| new_side_at(norm, &new, f.0.start, Tier::Punctuation));
                // Anywhere in the window, in a stricter tier (the first apply may have found
                // the lines farther from the target than the copy now matched): for a hunk that
                // adds text, its added lines say it; for one that only removes lines, only when
                // they lie between context lines (two non-blank at least), whose joining no
                // whole copy of the old lines holds. Context on one side only is in every copy.
                let kinds: Vec<LineKind> = h.lines.iter().map(|l| l.kind).collect();
                let interior = removal
                    && context >= 2
                    && kinds.first() == Some(&LineKind::Context)
                    && kinds.last() == Some(&LineKind::Context);
                match near {
                    Some(f) => f,
                    None if loose && (adds_text(h) || interior) => {
                        self.reversed_found(norm, opts, &stricter, &outside)?
                    }
                    None => return None,
                }
            }
        };
        new_side_at(norm, &new, found.0.start, Tier::Punctuation).then_some(found)
    }

    /// The hunk did not match: already applied when its new side is where it would be.
    fn applied_instead(
        &self,
        norm: &mut Normalized<'_, '_>,
        opts: &ApplyOptions,
    ) -> Option<(Range<usize>, Option<isize>)> {
        if !adds_text(self.hunk) {
            return None;
        }
        // Context lines may have drifted in whitespace since the patch was made; the added
        // lines must be there as written (trailing whitespace aside): `a<TAB>b` where the hunk
        // adds `a b` is a change still to make, not one made.
        let found = self.reversed_found(norm, opts, &Tier::SPIRAL, &Claimed::default())?;
        let new: Vec<OldLine<'_>> = self
            .hunk
            .lines
            .iter()
            .filter(|l| l.kind != LineKind::Remove)
            .map(OldLine::of)
            .collect();
        new_side_at(norm, &new, found.0.start, Tier::Punctuation).then_some(found)
    }

    /// The hunk reversed (added lines as its old side, anchors dropped since their numbers
    /// are the old file's), located as any hunk is in `tiers`.
    fn reversed_found(
        &self,
        norm: &mut Normalized<'_, '_>,
        opts: &ApplyOptions,
        tiers: &[Tier],
        outside: &Claimed,
    ) -> Option<(Range<usize>, Option<isize>)> {
        let hunk = self.hunk;
        let len = norm.doc.len();
        let claimed_new = claimed_position(hunk, self.old, self.index, len)
            .ok()
            .flatten()
            .map(|c| c + self.delta);
        let new_side_len = hunk.lines.len() - hunk.removals();
        let rev = Hunk {
            // Within the file: earlier hunks whose changes are made but cannot be told so (they
            // only remove lines) moved this one up.
            old_start: claimed_new.map(|c| {
                let c = c.clamp(0, len as isize) as usize;
                if new_side_len == 0 { c } else { c + 1 }
            }),
            old_count: hunk.new_count,
            new_start: hunk.old_start,
            new_count: hunk.old_count,
            context_hint: hunk.context_hint.clone(),
            lines: hunk
                .lines
                .iter()
                .map(|l| HunkLine {
                    kind: match l.kind {
                        LineKind::Add => LineKind::Remove,
                        LineKind::Remove => LineKind::Add,
                        LineKind::Context => LineKind::Context,
                    },
                    text: l.text.clone(),
                    anchor: None,
                    patch_line: l.patch_line,
                })
                .collect(),
            at_eof: hunk.at_eof,
            old_no_newline: hunk.new_no_newline,
            new_no_newline: hunk.old_no_newline,
            unterminated_last: false,
            end_unproven: false,
            patch_line: hunk.patch_line,
        };
        let old: Vec<OldLine<'_>> = rev.old_side().map(OldLine::of).collect();
        let (al, claimed_line, _) = locate(
            norm,
            &rev,
            &old,
            self.index,
            self.carry,
            self.cursor,
            outside,
            opts,
            tiers,
        )
        .ok()?;
        Some((al.range, claimed_line))
    }
}

/// Whether the hunk adds a non-blank line other than one it removes. Only such a hunk can be
/// told already applied: the new side of one that only removes lines, adds blank ones or
/// re-adds a line it removes (a change of the final newline) is lines the file may hold
/// whether or not the change was made.
fn adds_text(hunk: &Hunk) -> bool {
    let removed: BTreeSet<String> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Remove)
        .map(|l| normalize_for_hash(&l.text))
        .collect();
    hunk.lines.iter().any(|l| {
        let n = normalize_for_hash(&l.text);
        l.kind == LineKind::Add && !n.is_empty() && !removed.contains(&n)
    })
}

/// The hunk's new side (context and added lines) one line to one line at `p`: context lines
/// in `tier`, added lines no looser than ignoring trailing whitespace, or in a tier that ignores
/// whitespace, also ignoring their indentation (a hunk applied there wrote its added lines in
/// the file's indentation style, [`crate::indent`]); never other whitespace inside them.
fn new_side_at(norm: &mut Normalized<'_, '_>, new: &[OldLine<'_>], p: usize, tier: Tier) -> bool {
    p + new.len() <= norm.doc.len()
        && new.iter().enumerate().all(|(k, l)| {
            if l.kind != LineKind::Add {
                return norm.line_eq(p + k, l, tier);
            }
            norm.line_eq(p + k, l, tier.min(Tier::TrailingWhitespace))
                || tier >= Tier::Whitespace && norm.doc.lines[p + k].text.trim() == l.text.trim()
        })
}

/// The lines of the first of `starts` where the new side stands ([`new_side_at`]).
fn new_side_among(
    norm: &mut Normalized<'_, '_>,
    new: &[OldLine<'_>],
    starts: impl IntoIterator<Item = usize>,
    tier: Tier,
) -> Option<Range<usize>> {
    (starts.into_iter())
        .find(|&at| new_side_at(norm, new, at, tier))
        .map(|at| at..at + new.len())
}

/// Where a copy of a new side `len` lines long can start and still cover every line `al`
/// matched: the applied hunk matching again inside its own new side.
fn covering_starts(al: &Alignment, len: usize) -> Range<usize> {
    al.range.end.saturating_sub(len)..al.range.start + 1
}

/// `already_applied` for the hunks in `already` ((hunk, line of its new side)), of `total`;
/// `other` is the error of a hunk that does not apply either.
fn already_applied(
    already: &[(usize, usize)],
    total: usize,
    other: Option<&EngineError>,
) -> EngineError {
    let at: Vec<String> = already
        .iter()
        .map(|(h, line)| format!("hunk {h} at line {line}"))
        .collect();
    let first = already.first().map_or(1, |a| a.0);
    let message = if already.len() == total && other.is_none() {
        format!(
            "{} already applied ({}): the new lines are in place where the old lines point, so applying the patch again would duplicate the change. Nothing was written; the patch was probably applied before (a retried call): re-read the file. To add the lines a second time on purpose, include the line that now follows them as unchanged context",
            if total == 1 {
                "the hunk is".to_string()
            } else {
                format!("every hunk of this file ({total}) is")
            },
            at.join(", ")
        )
    } else {
        let rest = match other {
            Some(e) => format!(
                ", and hunk {} does not apply ({}: {})",
                e.hunk.unwrap_or(0),
                e.reason.as_str(),
                e.message
            ),
            None => " while the others are not".to_string(),
        };
        format!(
            "{} already applied ({}){rest}: applying the patch would make that change twice. Nothing was written; re-read the file and send only the hunks still needed",
            if already.len() == 1 {
                "one hunk is"
            } else {
                "some hunks are"
            },
            at.join(", ")
        )
    };
    EngineError::new(Reason::AlreadyApplied, message).with_hunk(first)
}

fn out_of_bounds(index: usize, target: isize, len: usize) -> EngineError {
    EngineError::new(
        Reason::OutOfBounds,
        format!(
            "hunk {index} targets line {} but the file has {len} lines; re-read the file",
            target.saturating_add(1)
        ),
    )
    .with_hunk(index)
}

/// A hunk with no anchor and no line numbers (Codex chunks): it is searched from the end of the
/// previous hunk onwards, after its `@@ context` line when it has one; it must be unique there.
fn locate_positionless(
    norm: &mut Normalized<'_, '_>,
    hunk: &Hunk,
    old: &[OldLine<'_>],
    index: usize,
    cursor: usize,
    claimed: &Claimed,
) -> Result<Alignment, EngineError> {
    let len = norm.doc.len();
    let mut from = cursor.min(len);
    if let Some(hint) = &hunk.context_hint {
        // Tiers here too: the line as written, then its normal form, then a line containing it.
        let hint_norm = normalize_for_hash(hint);
        let hint_at = (from..len)
            .find(|&j| norm.doc.lines[j].text.trim() == hint.trim())
            .or_else(|| (from..len).find(|&j| norm.get(j) == hint_norm))
            .or_else(|| (from..len).find(|&j| norm.get(j).contains(hint_norm.as_str())));
        match hint_at {
            Some(j) => from = j,
            None => {
                return Err(EngineError::new(
                    Reason::HunkMismatch,
                    format!("hunk {index}: its context line `@@ {hint}` is not in the file after line {from}; re-read the file"),
                )
                .with_hunk(index));
            }
        }
    }
    if old.is_empty() {
        let p = if hunk.context_hint.is_some() && !hunk.at_eof {
            (from + 1).min(len)
        } else {
            len
        };
        return Ok(Alignment {
            range: p..p,
            slots: Vec::new(),
            runs: Vec::new(),
        });
    }
    if hunk.pinned_to_eof() {
        return locate_at_eof(norm, hunk, old, index, from, claimed);
    }
    // A non-blank first line narrows the candidates to where that line is; a blank one (blank
    // runs compare as one) leaves every position.
    let first_key = old
        .first()
        .filter(|o| !o.norm.is_empty())
        .map(|o| o.folded.as_deref().unwrap_or(&o.norm).to_string());
    let candidates: Vec<usize> = match &first_key {
        Some(key) => norm.positions_from(key, from).to_vec(),
        None => Vec::new(),
    };
    // Every position when there is no first line to look up; else only the candidates.
    let every_end = if first_key.is_none() { len + 1 } else { from };
    let mut found: Vec<Alignment> = Vec::new();
    let mut found_tier = Tier::Exact;
    for tier in Tier::ALL {
        for p in (from..every_end).chain(candidates.iter().copied()) {
            if let Some(a) = norm.match_at(old, p, tier)
                && claimed.is_free(&a.range)
            {
                found.push(a);
                if hunk.context_hint.is_some() || found.len() == 2 {
                    break;
                }
            }
        }
        if !found.is_empty() {
            found_tier = tier;
            break;
        }
    }
    match found.len() {
        0 => Err(EngineError::new(
            Reason::HunkMismatch,
            format!(
                "hunk {index} does not match the file after line {from}: first expected line `{}` was not found; re-read the file",
                old[0].text.trim()
            ),
        )
        .with_hunk(index)),
        1 => Ok(found.remove(0)),
        _ => Err(EngineError::new(
            Reason::AmbiguousMatch,
            format!(
                "hunk {index} has no line numbers or anchors and matches at lines {} and {}{}; re-read the file and anchor the hunk",
                found[0].range.start + 1,
                found[1].range.start + 1,
                found_tier.words()
            ),
        )
        .with_hunk(index)),
    }
}

/// A hunk pinned to the end of the file ([`Hunk::pinned_to_eof`]) is looked for only where its
/// old side would end at the end of the file, at or after line `from`: the positions from which
/// the file holds exactly as many non-blank lines to its end as the old side has (one to one,
/// or with runs of blank lines compared as one). They are tried tier by tier, the position
/// nearest the end first; they all cover the same last lines, so none is ambiguous with another.
fn locate_at_eof(
    norm: &mut Normalized<'_, '_>,
    hunk: &Hunk,
    old: &[OldLine<'_>],
    index: usize,
    from: usize,
    claimed: &Claimed,
) -> Result<Alignment, EngineError> {
    let len = norm.doc.len();
    let non_blank = old.iter().filter(|o| !o.norm.is_empty()).count();
    let (mut first, mut seen) = (len, 0);
    while seen < non_blank && first > 0 {
        first -= 1;
        if !norm.is_blank(first) {
            seen += 1;
        }
    }
    if seen == non_blank {
        let mut lowest = first;
        while lowest > from && norm.is_blank(lowest - 1) {
            lowest -= 1;
        }
        // A match with blank context lines past the end (`Slot::Beyond`, for a model that
        // counted the final newline) stands for lines the file does not have: it is taken only
        // when no position matches every old line to a line of the file, and then the one with
        // the fewest lines past the end. Else an all-blank old side would land after the blank
        // lines it names (regression: `\t`, `+a`, `\t` at the file's last two blank lines put
        // `a` after both).
        let mut beyond: Option<(usize, Alignment)> = None;
        for tier in Tier::ALL {
            for p in (lowest.max(from)..=first).rev() {
                if let Some(a) = norm.match_at(old, p, tier)
                    && a.range.end == len
                    && claimed.is_free(&a.range)
                {
                    let past = a.slots.iter().filter(|s| matches!(s, Slot::Beyond)).count();
                    if past > 0 {
                        if beyond.as_ref().is_none_or(|(fewest, _)| past < *fewest) {
                            beyond = Some((past, a));
                        }
                        continue;
                    }
                    return Ok(a);
                }
            }
        }
        if let Some((_, a)) = beyond {
            return Ok(a);
        }
    }
    let why = if hunk.at_eof {
        "it is marked `*** End of File`"
    } else {
        "its old side ends with `\\ No newline at end of file`"
    };
    let p = len.saturating_sub(old.len());
    let detail = match (0..old.len()).find(|&k| p + k >= len || !norm.matches(p + k, &old[k])) {
        Some(k) if p + k < len => format!(
            "; line {} is `{}` where the hunk expects `{}`",
            p + k + 1,
            norm.doc.lines[p + k].text.trim(),
            old[k].text.trim()
        ),
        Some(_) => format!("; the file has {len} lines, the hunk expects {}", old.len()),
        None => String::new(),
    };
    Err(EngineError::new(
        Reason::HunkMismatch,
        format!(
            "hunk {index} can only apply at the end of the file ({why}), and the file does not end with its lines{detail}; re-read the file"
        ),
    )
    .with_hunk(index))
}

/// `hunk_mismatch` with the nearest near-miss within the radius.
fn near_miss(
    norm: &mut Normalized<'_, '_>,
    old: &[OldLine<'_>],
    index: usize,
    target: isize,
    radius: usize,
) -> EngineError {
    let len = norm.doc.len() as isize;
    let lo = (target - radius as isize).max(0);
    let hi = (target + radius as isize).min(len - 1);
    let mut best: Option<((usize, usize), usize)> = None; // ((weight, count), position)
    for p in lo..=hi {
        let s = norm.score(old, p as usize);
        let better = match best {
            None => s.0 > 0,
            Some((bs, bp)) => {
                s.0 > bs.0 || (s.0 == bs.0 && (p - target).abs() < (bp as isize - target).abs())
            }
        };
        if better {
            best = Some((s, p as usize));
        }
    }
    let shown = (target + 1).max(1);
    let mut msg =
        format!("hunk {index} does not match at line {shown} or within {radius} lines of it");
    if let Some(((_, score), p)) = best {
        msg.push_str(&format!(
            "; closest is line {} ({score} of {} lines match",
            p + 1,
            old.len()
        ));
        let first_diff =
            (0..old.len()).find(|&k| (p + k) as isize >= len || !norm.matches(p + k, &old[k]));
        if let Some(k) = first_diff {
            let j = p + k;
            if (j as isize) < len {
                let file_line = norm.doc.lines[j].text;
                let same_content = norm.get(j) == old[k].norm;
                if same_content && let Some(a) = old[k].anchor {
                    msg.push_str(&format!(
                        "; line {} has the expected content but the anchor {a} does not match it (the line now hashes to {}): the file changed since it was read",
                        j + 1,
                        LineHash::of(file_line)
                    ));
                } else {
                    msg.push_str(&format!(
                        "; line {} is `{}` where the hunk expects `{}`",
                        j + 1,
                        file_line.trim(),
                        old[k].text.trim()
                    ));
                }
            } else {
                msg.push_str("; the file ends before the hunk does");
            }
        }
        msg.push(')');
    }
    msg.push_str("; re-read the file");
    EngineError::new(Reason::HunkMismatch, msg).with_hunk(index)
}

/// The lines that replace the aligned range: context lines keep the file's text, additions use
/// the document's line ending, removals vanish. Collapsed blank runs keep the file's blank lines
/// minus the hunk's removals, laid out by [`run_plan`].
fn emit(doc: &TextView<'_>, hunk: &Hunk, old: &[OldLine<'_>], al: &Alignment) -> Vec<Line> {
    let plans: Vec<RunPlan> = al.runs.iter().map(|run| run_plan(old, run)).collect();
    let blanks = |run: &Run, offsets: &Range<usize>| {
        doc.lines[run.file.start + offsets.start..run.file.start + offsets.end]
            .iter()
            .map(|l| l.to_line())
    };
    let mut out = Vec::new();
    // Blank lines of the file above the hunk's first line come before everything it emits.
    for (run, plan) in al.runs.iter().zip(&plans) {
        out.extend(blanks(run, &plan.before));
    }
    let reindent = Reindent::of(doc, hunk, old, al);
    let mut k = 0;
    for (i, hl) in hunk.lines.iter().enumerate() {
        if hl.kind == LineKind::Add {
            out.push(doc.new_line(reindent.line(i, &hl.text)));
            continue;
        }
        match al.slots[k] {
            Slot::One(j) => {
                if hl.kind == LineKind::Context {
                    out.push(doc.lines[j].to_line());
                }
            }
            Slot::Beyond => {}
            Slot::Run(r) => {
                let run = &al.runs[r];
                out.extend(blanks(run, &plans[r].shares[k - run.old.start]));
            }
        }
        k += 1;
    }
    // Blank lines of the file below the hunk's last line come after everything it emits.
    for (run, plan) in al.runs.iter().zip(&plans) {
        out.extend(blanks(run, &plan.after));
    }
    out
}

/// The indentation added lines take when the hunk matched lines indented otherwise than it
/// says (a tier that ignores whitespace): each added line is moved from the indentation of the
/// nearest old-side line (the one above it, else the one below) to that line's indentation in
/// the file, in the file's style ([`crate::indent`]). Where the two indentations agree the
/// added line is written as the patch says.
struct Reindent<'a> {
    /// Per hunk line: the patch's and the file's indentation of its reference line, when they
    /// differ.
    pairs: Vec<Option<(&'a str, &'a str)>>,
    styles: Option<(crate::indent::Style, crate::indent::Style)>,
}

impl<'a> Reindent<'a> {
    fn of(doc: &'a TextView<'_>, hunk: &'a Hunk, old: &[OldLine<'_>], al: &Alignment) -> Self {
        let ws = |s: &'a str| &s[..s.len() - s.trim_start().len()];
        // Per hunk line: the (patch, file) indentation of the old-side line it stands for.
        let mut k = 0;
        let matched: Vec<Option<(&'a str, &'a str)>> = (hunk.lines.iter())
            .map(|hl| {
                if hl.kind == LineKind::Add {
                    return None;
                }
                let slot = &al.slots[k];
                k += 1;
                match slot {
                    Slot::One(j) if !old[k - 1].norm.is_empty() => {
                        Some((ws(&hl.text), ws(doc.lines[*j].text)))
                    }
                    _ => None,
                }
            })
            .collect();
        let pairs: Vec<Option<(&'a str, &'a str)>> = (0..hunk.lines.len())
            .map(|i| {
                let above = matched[..i].iter().rev().flatten().next();
                let below = || matched[i..].iter().flatten().next();
                above.or_else(below).copied().filter(|(p, f)| p != f)
            })
            .collect();
        // Only to skip measuring the styles: `line` reads them only for an added line with a
        // pair, so `||` for `&&` here is an equivalent mutant (excluded in .cargo/mutants.toml).
        let differs =
            (hunk.lines.iter().zip(&pairs)).any(|(hl, p)| hl.kind == LineKind::Add && p.is_some());
        let styles = differs.then(|| {
            // The file's style around the match: the lines a window away tell it as well as
            // the whole file, at a cost that does not grow with the file.
            let lo = al.range.start.saturating_sub(200);
            let hi = (al.range.end + 200).min(doc.len());
            let file = doc.lines[lo..hi].iter().map(|l| l.text);
            let model = hunk.lines.iter().map(|l| l.text.as_str());
            crate::indent::styles(file, model)
        });
        // Only a block indented otherwise as a whole is re-indented: every matched line's
        // indentation in the file is the patch's moved as the first one's is. A line or two
        // whose whitespace drifted alone says nothing of where the added lines go.
        let styles = styles.filter(|&(file, model)| {
            let mut all = matched.iter().flatten();
            let Some(&(from, to)) = all.next() else {
                return false;
            };
            all.all(|&(p, f)| {
                crate::indent::reindent_line(&format!("{p}x"), from, to, model, file)
                    == format!("{f}x")
            })
        });
        Reindent { pairs, styles }
    }

    /// Hunk line `i`, an added line whose text is `text`, as it is written.
    fn line(&self, i: usize, text: &str) -> String {
        match (self.pairs[i], self.styles) {
            (Some((from, to)), Some((file, model))) => {
                crate::indent::reindent_line(text, from, to, model, file)
            }
            _ => text.to_string(),
        }
    }
}

/// How the blank file lines of a collapsed run are emitted (offsets into `run.file`).
struct RunPlan {
    /// Blank lines above the hunk, emitted before it.
    before: Range<usize>,
    /// Per hunk line of the run: the blank lines it stands for.
    shares: Vec<Range<usize>>,
    /// Blank lines below the hunk, emitted after it.
    after: Range<usize>,
}

/// Lay out a run of blank lines the hunk and the file both have, possibly of different lengths.
///
/// When the file's run is as long as the hunk's, they pair one to one. When it is longer and
/// the run starts the hunk, the surplus lies above the hunk (the match began higher up in the
/// file's run); when it ends the hunk, the surplus lies below: either way the surplus is kept
/// outside what the hunk emits and the rest pairs one to one, so the blank lines the hunk
/// itself shows keep their places around its additions. Otherwise (a run inside the hunk of
/// another length, or a file run shorter than the hunk's) the run keeps its blank lines minus
/// the hunk's removals (at least one when the hunk has blank context there), dropping the last
/// ones: each context line stands for one kept blank line, in order, the first also for any
/// surplus; a run without context lines hands its kept blank lines to its first line.
fn run_plan(old: &[OldLine<'_>], run: &Run) -> RunPlan {
    let run_old = &old[run.old.clone()];
    let (m, n) = (run_old.len(), run.file.len());
    let leading = run.old.start == 0;
    let trailing = run.old.end == old.len();
    if n == m || (n > m && (leading || trailing)) {
        let above = if leading { n - m } else { 0 };
        let shares = run_old
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let j = above + i;
                if o.kind == LineKind::Context {
                    j..j + 1
                } else {
                    j..j
                }
            })
            .collect();
        return RunPlan {
            before: 0..above,
            shares,
            after: above + m..n,
        };
    }
    let none = RunPlan {
        before: 0..0,
        shares: Vec::new(),
        after: n..n,
    };
    let contexts = run_old
        .iter()
        .filter(|o| o.kind == LineKind::Context)
        .count();
    let removals = m - contexts;
    if contexts == 0 {
        let keep = n.saturating_sub(removals);
        return RunPlan {
            shares: (0..m)
                .map(|i| if i == 0 { 0..keep } else { keep..keep })
                .collect(),
            ..none
        };
    }
    let keep = n.saturating_sub(removals).max(1);
    let surplus = keep.saturating_sub(contexts);
    let (mut seen, mut at) = (0, 0);
    let shares = run_old
        .iter()
        .map(|o| {
            if o.kind != LineKind::Context {
                return at..at;
            }
            seen += 1;
            let end = (surplus + seen).min(keep);
            let share = at..end;
            at = end;
            share
        })
        .collect();
    RunPlan { shares, ..none }
}

/// Live sync of an edited text of `new_len` lines: per edit, its lines in the new text with
/// fresh anchors (the new text holds exactly the edit's lines there), capped.
pub(crate) fn live_sync(new_len: usize, edits: &LineEdits, opts: &ApplyOptions) -> Vec<SyncBlock> {
    let mut budget = opts.sync_total_max_lines;
    edits
        .edits()
        .iter()
        .zip(edits.new_ranges())
        .map(|(e, r)| {
            // A block may end in the empty unterminated line the text dropped.
            let first = r.start;
            let r = r.start.min(new_len)..r.end.min(new_len);
            let n = r.len();
            let lines = if n <= opts.sync_block_max_lines && n <= budget {
                budget -= n;
                Some(
                    r.clone()
                        .map(|i| hashline(i + 1, &e.lines[i - first].text))
                        .collect(),
                )
            } else {
                None
            };
            SyncBlock {
                start_line: r.start + 1,
                line_count: n,
                lines,
                old_start_line: e.range.start + 1,
                old_line_count: e.range.len(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_patch;
    use crate::patch::FileChange;

    fn hunks_of(patch: &str) -> Vec<Hunk> {
        match parse_patch(patch).unwrap().files.remove(0).change {
            FileChange::Update { hunks, .. } | FileChange::Delete { hunks, .. } => hunks,
            FileChange::Add { .. } => panic!("expected hunks"),
        }
    }

    // Regression (property `drift_above_hunks_is_followed_exactly`): when a blank run of the
    // file was longer than the hunk's, every kept blank line was emitted at the run's first
    // context line, so additions written between blank context lines moved below the run.
    #[test]
    fn additions_between_blank_context_lines_stay_between_them() {
        let doc = Document::from_text("top\n\n\n\nz\n");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -2,3 +2,6 @@\n \n+a\n+\n \n+a\n z\n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.doc.to_text(), "top\n\n\na\n\n\na\nz\n");
    }

    // Regression (property `drift_never_misapplies`, a CI run's random seed): an all-blank old
    // side at the file's last two blank lines (no final newline) matched one line late, its
    // second line taken as past the end, so the addition between them went after both.
    #[test]
    fn blank_lines_at_the_end_are_matched_in_the_file_before_past_it() {
        let doc = Document::from_text("a\n\t\n\t");
        let hunks = hunks_of(
            "--- a/f\n+++ b/f\n@@ -2,2 +2,3 @@\n \t\n+a\n \t\n\\ No newline at end of file\n",
        );
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.hunks[0].found_line, 2);
        assert_eq!(applied.doc.to_text(), "a\n\t\na\n\t");
    }

    // Blank context lines past the end of the file are the file's missing final blank lines,
    // not a mismatch, also when the hunk only matches with blank runs compared as one: two of
    // them here, after a run of one blank line where the file has two.
    #[test]
    fn blank_context_past_the_end_matches_in_the_collapsed_tier() {
        let doc = Document::from_text("a\n\n\nb\n");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n \n-b\n+B\n \n \n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.doc.to_text(), "a\n\n\nB\n");
        assert_eq!(applied.hunks[0].found_line, 1);
        // A line with content past the end is a mismatch, blank lines or not.
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n \n-b\n+B\n \n c\n");
        let e = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap_err();
        assert_eq!(e.reason, Reason::HunkMismatch, "{e}");
        // A removal of a blank line the file does not have is a mismatch: only context may
        // stand for missing lines.
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,5 +1,4 @@\n a\n \n-b\n+B\n \n-\n");
        let e = apply_hunks(&doc, &hunks, &ApplyOptions::default()).map(|a| a.doc.to_text());
        assert_eq!(e.unwrap_err().reason, Reason::HunkMismatch);
        // An addition inside the trailing blank run is kept, at the end; the blank lines the
        // file does not have are not made up.
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,5 +1,6 @@\n a\n \n-b\n+B\n \n+c\n \n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.doc.to_text(), "a\n\n\nB\nc\n");
    }

    // Regression (property `drift_above_hunks_is_followed_exactly`): with one line of drift the
    // hunk matched one line early by collapsing the blank runs at both its ends, and the blank
    // lines below the hunk were emitted above its trailing additions. (Three blank lines above
    // `y` in the hunk, two in the file: no one-to-one match anywhere, so the collapsed match at
    // the target is the only one.)
    #[test]
    fn blank_lines_around_a_collapsed_match_stay_outside_the_hunk() {
        let doc = Document::from_text("d\nx\n\n\ny\n\n\n\nz\n");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -3,5 +3,6 @@\n \n \n \n-y\n \n+a\n+\n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(
            applied.hunks[0].found_line, 3,
            "the collapsed match at the target"
        );
        assert_eq!(applied.doc.to_text(), "d\nx\n\n\n\na\n\n\n\nz\n");
    }

    // Regression (issue 49): a hunk matched ignoring whitespace wrote its added lines as the
    // patch indents them, spaces into a tab-indented file (`\t    return a - b` where the
    // added line is deeper than its context). Added lines now move from the patch's
    // indentation to the file's, in the file's style, whatever tier matched.
    #[test]
    fn added_lines_take_the_files_indentation_style() {
        let patch = "--- a/f\n+++ b/f\n@@ -1,3 +1,4 @@\n def sub(a, b):\n-    return a + b\n+    if a:\n+        return a - b\n+    return 0\n x = 1\n";
        for (file, want) in [
            (
                "def sub(a, b):\n\treturn a + b\nx = 1\n",
                "def sub(a, b):\n\tif a:\n\t\treturn a - b\n\treturn 0\nx = 1\n",
            ),
            (
                "def sub(a, b):\n  return a + b\nx = 1\n",
                "def sub(a, b):\n  if a:\n    return a - b\n  return 0\nx = 1\n",
            ),
            (
                "class K:\n    def sub(a, b):\n        return a + b\n    x = 1\n",
                "class K:\n    def sub(a, b):\n        if a:\n            return a - b\n        return 0\n    x = 1\n",
            ),
            (
                "class K:\n\tdef sub(a, b):\n\t\treturn a + b\n\tx = 1\n",
                "class K:\n\tdef sub(a, b):\n\t\tif a:\n\t\t\treturn a - b\n\t\treturn 0\n\tx = 1\n",
            ),
        ] {
            let doc = Document::from_text(file);
            let applied = apply_hunks(&doc, &hunks_of(patch), &ApplyOptions::default())
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(applied.doc.to_text(), want, "{file}");
        }
        // One context line whose indentation drifted alone (the others as the patch says) is
        // no block indented otherwise: the added lines are written as the patch says.
        let doc = Document::from_text("    def f():\nx = 1\n");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n def f():\n+    pass\n x = 1\n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        assert_eq!(applied.doc.to_text(), "    def f():\n    pass\nx = 1\n");
        // Matched as written: the added lines are written as written, even mixed.
        let doc = Document::from_text("def sub(a, b):\n    return a + b\nx = 1\n");
        let mixed = patch.replace("+        return a - b", "+    \treturn a - b");
        let applied = apply_hunks(&doc, &hunks_of(&mixed), &ApplyOptions::default()).unwrap();
        assert_eq!(
            applied.doc.to_text(),
            "def sub(a, b):\n    if a:\n    \treturn a - b\n    return 0\nx = 1\n"
        );
    }

    // An added line moves with the nearest old-side line that has text: a blank context line
    // between them has no indentation to tell (it would leave the added line as the patch
    // writes it). And a hunk that ends on its added lines, its first context line not indented
    // at all, still moves them with the indented line above them.
    #[test]
    fn added_lines_move_with_the_nearest_context_line_that_has_text() {
        for (patch, file, want) in [
            (
                "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n def sub(a, b):\n     x = 1\n \n+    y = 2\n     return x\n",
                "def sub(a, b):\n\tx = 1\n\n\treturn x\n",
                "def sub(a, b):\n\tx = 1\n\n\ty = 2\n\treturn x\n",
            ),
            (
                "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n def sub(a, b):\n     x = 1\n+    y = 2\n",
                "def sub(a, b):\n\tx = 1\n\treturn x\n",
                "def sub(a, b):\n\tx = 1\n\ty = 2\n\treturn x\n",
            ),
        ] {
            let doc = Document::from_text(file);
            let applied = apply_hunks(&doc, &hunks_of(patch), &ApplyOptions::default())
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(applied.doc.to_text(), want, "{patch}");
        }
    }

    // The style added lines take is the file's around the match: a file indented with tabs
    // where the hunk lands and with spaces in a part written by someone else, farther than the
    // window (200 lines each way) and larger, keeps tabs there.
    #[test]
    fn added_lines_take_the_style_of_the_file_around_the_match() {
        let patch = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n def sub(a, b):\n-    return a + b\n+    return a - b\n";
        let mut file = String::from("def sub(a, b):\n\treturn a + b\n");
        file.extend((0..210).map(|i| format!("f{i} = {i}\n")));
        file.extend((0..100).map(|i| format!("    p{i} = {i}\n")));
        let doc = Document::from_text(&file);
        let applied = apply_hunks(&doc, &hunks_of(patch), &ApplyOptions::default()).unwrap();
        let text = applied.doc.to_text();
        assert!(
            text.starts_with("def sub(a, b):\n\treturn a - b\nf0 = 0\n"),
            "{}",
            &text[..60]
        );
        assert_eq!(text.len(), file.len());
    }

    /// Where each hunk of `patch` lands in `file` (1-based), or the refusal.
    fn placed(file: &str, patch: &str) -> Result<Vec<usize>, (Reason, String)> {
        let doc = Document::from_text(file);
        apply_hunks(&doc, &hunks_of(patch), &ApplyOptions::default())
            .map(|a| a.hunks.iter().map(|h| h.found_line).collect())
            .map_err(|e| (e.reason, e.message))
    }

    fn check_placed(file: &str, patch: &str, want: Result<&[usize], Reason>) {
        match (placed(file, patch), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{file}"),
            (Err((got, _)), Err(want)) => assert_eq!(got, want, "{file}"),
            (got, want) => panic!("got {got:?}, want {want:?}\n{file}"),
        }
    }

    /// `lines` joined, each terminated.
    fn text(lines: &[&str]) -> String {
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// `n` distinct lines that match no hunk, as text.
    fn filler(n: usize) -> String {
        (0..n).map(|i| format!("// filler {i}\n")).collect()
    }

    const BLOCK_PATCH: &str = "--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n     let x = 1;\n-    f(x);\n+    g(x);\n     done();\n";

    // Regression: the whitespace-blind comparison ran first, so the nearest block equal after
    // normalization won, and a copy indented differently (a doc-comment example, a copy in an
    // impl, a block re-indented with tabs) took the hunk from the byte-exact block.
    #[test]
    fn exact_block_wins_over_a_nearer_copy_indented_differently() {
        let exact = ["    let x = 1;", "    f(x);", "    done();"];
        for decoy in [
            ["let x = 1;", "f(x);", "done();"],
            ["        let x = 1;", "        f(x);", "        done();"],
            ["\tlet x = 1;", "\tf(x);", "\tdone();"],
        ] {
            // Decoy at the header's line 4, the exact block 6 lines below; then the reverse
            // (decoy 6 lines above the header, exact block 9 lines below it).
            let below = filler(3) + &text(&decoy) + &filler(3) + &text(&exact);
            check_placed(&below, BLOCK_PATCH, Ok(&[10]));
            let above = text(&decoy) + &filler(10) + &text(&exact);
            check_placed(&above, BLOCK_PATCH, Ok(&[14]));
        }
    }

    // Regression: the byte-exact tier was searched over the whole window first, so a block
    // whose edge lines had gained trailing whitespace lost the hunk to an exact copy farther
    // away (1 of 800 held-out cases misapplied, plain and anchored).
    #[test]
    fn trailing_whitespace_does_not_send_a_hunk_farther() {
        let exact = ["    let x = 1;", "    f(x);", "    done();"];
        let spaced = ["    let x = 1;  ", "    f(x);", "    done(); "];
        // The true block (trailing spaces) 3 lines below the header's line 4, the exact copy
        // 9 below; then the exact copy above at the same distance as the true block: ambiguous.
        let file = filler(6) + &text(&spaced) + &filler(3) + &text(&exact);
        check_placed(&file, BLOCK_PATCH, Ok(&[7]));
        let anchored = format!(
            "--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n {}\n-{}\n+    g(x);\n {}\n",
            hashline(4, exact[0]),
            hashline(5, exact[1]),
            hashline(6, exact[2])
        );
        check_placed(&file, &anchored, Ok(&[7]));
        let tie = text(&exact) + &filler(3) + &text(&spaced);
        // Header at line 4 + 3 = 7's block start minus 3: exact at 1, spaced at 7, target 4.
        check_placed(&tie, BLOCK_PATCH, Err(Reason::AmbiguousMatch));
        check_placed(&tie, &anchored, Err(Reason::AmbiguousMatch));
        // A copy differing in indentation still gives way to an exact block farther away.
        let tabbed: String = exact.iter().map(|s| format!("\t{}\n", s.trim())).collect();
        let indented = filler(3) + &tabbed + &filler(3) + &text(&exact);
        check_placed(&indented, BLOCK_PATCH, Ok(&[10]));
    }

    // Regression: a retried patch doubled its change (62 of 662 right first applies of the
    // held-out cases): a chunk ending on added lines matched again and inserted them twice.
    #[test]
    fn a_patch_applied_again_is_refused_as_already_applied() {
        let retry = |file: &str, patch: &str| {
            let once = outcome(file, patch).expect("first apply");
            let again = placed(&once, patch);
            (once, again)
        };
        let file = text(&[
            "fn a() {",
            "    one();",
            "}",
            "",
            "fn b() {",
            "    two();",
            "}",
        ]);
        // (b) Additions after the context, no trailing context (a Codex append).
        let append = "*** Begin Patch\n*** Update File: f\n@@\n fn a() {\n     one();\n+    extra();\n*** End Patch\n";
        let (_, again) = retry(&file, append);
        let (reason, message) = again.unwrap_err();
        assert_eq!(reason, Reason::AlreadyApplied, "{message}");
        assert!(message.contains("hunk 1 at line 1"), "{message}");
        // (a) A replacement whose old line is gone, its new line where the old one was.
        let replace =
            "--- a/f\n+++ b/f\n@@ -5,3 +5,3 @@\n fn b() {\n-    two();\n+    three();\n }\n";
        let (_, again) = retry(&file, replace);
        assert_eq!(again.unwrap_err().0, Reason::AlreadyApplied);
        // ... also when a farther copy of the old lines would still match.
        let copy = format!("{file}\n// copy\nfn b() {{\n    two();\n}}\n");
        let (_, again) = retry(&copy, replace);
        assert_eq!(again.unwrap_err().0, Reason::AlreadyApplied);
        // Every hunk applied: named; one applied and one not: refused naming it, nothing
        // half-applied twice.
        let both = "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n fn a() {\n-    one();\n+    uno();\n }\n@@ -5,3 +5,3 @@\n fn b() {\n-    two();\n+    dos();\n }\n";
        let (once, again) = retry(&file, both);
        let (reason, message) = again.unwrap_err();
        assert_eq!(reason, Reason::AlreadyApplied);
        assert!(message.contains("every hunk of this file (2)"), "{message}");
        let half = once.replace("dos()", "two()");
        let (reason, message) = placed(&half, both).unwrap_err();
        assert_eq!(reason, Reason::AlreadyApplied);
        assert!(
            message.contains("one hunk is already applied (hunk 1 at line 1)"),
            "{message}"
        );
        // ... and when only a copy indented differently (a looser tier) would still match, at
        // the target, the changed block 8 lines away (found there first: exact wins).
        let indented = format!("fn b() {{\n\ttwo();\n}}\n\n{file}");
        let replace_below = replace.replace("-5,3 +5,3", "-1,3 +1,3");
        let (_, again) = retry(&indented, &replace_below);
        assert_eq!(again.unwrap_err().0, Reason::AlreadyApplied);
        // A hunk removing lines between its context lines, retried with a farther copy of its
        // old lines: the context joined is where the lines were.
        let remove = "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n fn a() {\n-    one();\n }\n";
        let copies = format!("{file}\nfn a() {{\n    one();\n}}\n");
        let (_, again) = retry(&copies, remove);
        assert_eq!(again.unwrap_err().0, Reason::AlreadyApplied);
        // A first apply whose added lines equal lines elsewhere is applied.
        let dup = "--- a/f\n+++ b/f\n@@ -5,3 +5,4 @@\n fn b() {\n     two();\n+    one();\n }\n";
        assert!(outcome(&file, dup).is_ok());
    }

    /// Applies `patch` to `file`, which must give `once`, then again to `once`: the second
    /// apply must be refused as `already_applied`. Returns that refusal's message.
    fn retried(file: &str, patch: &str, once: &str) -> String {
        let first = outcome(file, patch).expect("first apply");
        assert_eq!(first, once);
        let (reason, message) = placed(&first, patch).unwrap_err();
        assert_eq!(reason, Reason::AlreadyApplied, "{message}");
        message
    }

    /// A hunk that only adds lines, whose new side holds its old lines in a row somewhere other
    /// than after its leading additions (an added blank line equal to a context one), matches
    /// its own result again: retried, it is refused, never inserted twice (pinned to the end
    /// of the file, unified and Codex, and unpinned).
    #[test]
    fn a_retried_insertion_whose_new_side_repeats_its_context_is_already_applied() {
        let file = "x\n\n\na";
        let unified =
            "--- a/f\n+++ b/f\n@@ -3,2 +3,4 @@\n \n+ new\n+\n a\n\\ No newline at end of file\n";
        retried(file, unified, "x\n\n\n new\n\na");
        let codex = "*** Begin Patch\n*** Update File: f\n@@\n \n+ new\n+\n a\n*** End of File\n*** End Patch\n";
        retried("x\n\n\na\n", codex, "x\n\n\n new\n\na\n");
        let tail = "*** Begin Patch\n*** Update File: f\n@@\n+ new\n+\n a\n*** End Patch\n";
        retried("x\n\n\na\n", tail, "x\n\n\n new\n\na\n");
        // Added lines between context lines, the last added one equal to the first context
        // line: applied, the context matches again after the added lines.
        let between = "*** Begin Patch\n*** Update File: f\n@@\n \n+ new\n+\n a\n*** End Patch\n";
        retried("x\n\n\na\n", between, "x\n\n\n new\n\na\n");
        // ... also when the context matches again only with blank runs compared as one.
        let collapsed =
            "--- a/f\n+++ b/f\n@@ -2,3 +2,5 @@\n \n \n+ new\n+\n a\n\\ No newline at end of file\n";
        retried(file, collapsed, "x\n\n\n new\n\na");
        // The new side somewhere else than at the end is no sign: the first apply is made.
        let elsewhere = "\n new\n\na\nx\n\n\na";
        assert!(outcome(elsewhere, unified).is_ok());
    }

    /// A hunk found applied where a copy of its new side covers its match claims exactly that
    /// copy's lines: the next hunk, right after it, is still found (applied) where it stands.
    #[test]
    fn a_retried_insertion_found_inside_its_new_side_claims_only_those_lines() {
        let patch = "*** Begin Patch\n*** Update File: f\n@@\n \n+ new\n+\n a\n@@\n b\n-c\n+C\n d\n*** End Patch\n";
        let message = retried("x\n\n\na\nb\nc\nd\n", patch, "x\n\n\n new\n\na\nb\nC\nd\n");
        assert!(
            message.contains("hunk 1 at line 3, hunk 2 at line 7"),
            "{message}"
        );
    }

    /// The copy of the new side that covers the match may start on the matched line itself:
    /// an added line equal to the context line after it is found there, not added again.
    #[test]
    fn a_retried_insertion_that_repeats_the_line_after_it_is_already_applied() {
        let patch = "--- a/f\n+++ b/f\n@@ -2,1 +2,2 @@\n+a\n a\n";
        let message = retried("x\na\ny\n", patch, "x\na\na\ny\n");
        assert!(message.contains("hunk 1 at line 2"), "{message}");
    }

    #[test]
    fn looser_tiers_apply_only_when_no_stricter_one_matches() {
        // Trailing whitespace ignored beats all whitespace ignored, though farther.
        let file = text(&[
            "a",
            "b",
            "c",
            "let x = 1;",
            "f(x);",
            "done();",
            "e",
            "    let x = 1;  ",
            "    f(x);",
            "    done();",
        ]);
        check_placed(&file, BLOCK_PATCH, Ok(&[8]));
        // Only a whitespace variant: it applies.
        let file = text(&["a", "b", "c", "  e", "let x = 1;", "f(x);", "done();"]);
        check_placed(&file, BLOCK_PATCH, Ok(&[5]));
        // Two exact copies at the same distance are ambiguous, whatever the looser tiers hold.
        let file = text(&[
            "    let x = 1;",
            "    f(x);",
            "    done();",
            "let x = 1;",
            "f(x);",
            "done();",
            "    let x = 1;",
            "    f(x);",
            "    done();",
        ]);
        check_placed(&file, BLOCK_PATCH, Err(Reason::AmbiguousMatch));
        // Two whitespace variants at the same distance and no exact copy: ambiguous, saying so.
        let file = text(&[
            "let x = 1;",
            "f(x);",
            "done();",
            "e",
            "e",
            "e",
            "let x = 1;",
            "f(x);",
            "done();",
        ]);
        let err = placed(&file, BLOCK_PATCH).unwrap_err();
        assert_eq!(err.0, Reason::AmbiguousMatch);
        assert!(err.1.contains("ignoring whitespace"), "{}", err.1);
        // A one-to-one exact match one line off beats a collapsed match (blank runs of other
        // lengths) at the target.
        check_placed(
            "d\nx\n\n\ny\n\n\n\nz\n",
            "--- a/f\n+++ b/f\n@@ -3,3 +3,4 @@\n \n-y\n \n+a\n+\n",
            Ok(&[4]),
        );
    }

    #[test]
    fn anchored_lines_are_compared_in_tiers_with_their_hash() {
        // The anchor names line 1 (a copy indented differently: same whitespace-blind hash);
        // the byte-exact block at line 5 wins.
        let file = text(&["  let x = 1;", "  f(x);", "a", "b", "let x = 1;", "f(x);"]);
        let anchored = format!(
            "--- a/f\n+++ b/f\n@@ @@\n {}\n-{}\n+g(x);\n",
            crate::hash::hashline(1, "let x = 1;"),
            crate::hash::hashline(2, "f(x);")
        );
        check_placed(&file, &anchored, Ok(&[5]));
        // An exact line under a wrong hash never matches, in any tier.
        let wrong = anchored.replace(&crate::hash::hashline(2, "f(x);"), "2aaaa|f(x);");
        check_placed(&file, &wrong, Err(Reason::HunkMismatch));
    }

    // Regression: an old side ending in `\ No newline at end of file` was relocated like any
    // other, so a nearer mid-file copy of the file's last lines took the hunk.
    #[test]
    fn no_newline_marker_on_the_old_side_pins_the_hunk_to_the_end() {
        let pinned = "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x {\n-y\n\\ No newline at end of file\n+Y\n\\ No newline at end of file\n";
        // The copy at the header's line loses to the one at the end.
        check_placed("x {\ny\nz\nx {\ny", pinned, Ok(&[4]));
        // At the end however far from the header (here past the search radius).
        let far = format!("x {{\ny\n{}x {{\ny", "z\n".repeat(150));
        check_placed(&far, pinned, Ok(&[153]));
        // Blank lines at the end: the lines must still end the file.
        check_placed("x {\ny\nz\nx {\ny\n\n", pinned, Err(Reason::HunkMismatch));
        // No copy at the end: refused, never applied mid-file, and the message says why.
        let err = placed("x {\ny\nz\n", pinned).unwrap_err();
        assert_eq!(err.0, Reason::HunkMismatch);
        assert!(
            err.1.contains("can only apply at the end of the file")
                && err.1.contains("No newline at end of file"),
            "{}",
            err.1
        );
        // Tiers at the end too: a whitespace variant there applies.
        check_placed("x {\ny\nz\n  x {\n  y", pinned, Ok(&[4]));
        // A removed last line with the marker, then context added back: the same pin.
        let unterminated =
            "--- a/f\n+++ b/f\n@@ -2,1 +2,1 @@\n-y\n\\ No newline at end of file\n+Y\n";
        check_placed("y\nz\ny", unterminated, Ok(&[3]));
        let doc = Document::from_text("y\nz\ny");
        let applied = apply_hunks(&doc, &hunks_of(unterminated), &ApplyOptions::default()).unwrap();
        assert_eq!(applied.doc.to_text(), "y\nz\nY\n");
    }

    // Regression (property `drift_never_misapplies`): a pinned hunk whose old side is one blank
    // line matched "past the end" first, so `+a` before the file's only line ` ` (no final
    // newline) was added after it.
    #[test]
    fn a_pinned_blank_context_line_is_the_files_own_last_line() {
        let patch = "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n+a\n  \n\\ No newline at end of file\n";
        check_placed(" ", patch, Ok(&[1]));
        assert_eq!(outcome(" ", patch), Ok("a\n ".to_string()));
    }

    #[test]
    fn codex_end_of_file_hunks_are_pinned_too() {
        let codex =
            "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n*** End of File\n*** End Patch\n";
        check_placed("a\nb\nc\na\nb\n", codex, Ok(&[4]));
        check_placed("a\nb\nc\n", codex, Err(Reason::HunkMismatch));
    }

    /// Where the hunks land, or the refusal, for a whole patch text (parse and apply).
    fn outcome(file: &str, patch: &str) -> Result<String, Reason> {
        let doc = Document::from_text(file);
        let hunks = match parse_patch(patch)
            .map_err(|e| e.reason)?
            .files
            .remove(0)
            .change
        {
            FileChange::Update { hunks, .. } | FileChange::Delete { hunks, .. } => hunks,
            FileChange::Add { .. } => panic!("expected hunks"),
        };
        apply_hunks(&doc, &hunks, &ApplyOptions::default())
            .map(|a| a.doc.to_text())
            .map_err(|e| e.reason)
    }

    // Regression: a bare-header hunk cut right after a line was applied as if complete; nothing
    // about `@@ @@` says how many lines follow.
    #[test]
    fn a_last_bare_header_hunk_must_end_with_context_or_at_the_end_of_the_file() {
        let file = "a\nb\nc\n";
        let head = "--- a/f\n+++ b/f\n";
        let b = crate::hash::hashline(2, "b");
        let c = crate::hash::hashline(3, "c");
        let cases: &[(String, Result<&str, Reason>)] = &[
            // Cut after the addition (anchored, or located by content alone): refused.
            (
                format!("{head}@@ @@\n-{b}\n+B\n"),
                Err(Reason::TruncatedInput),
            ),
            (
                format!("{head}@@ @@\n a\n-b\n+B\n"),
                Err(Reason::TruncatedInput),
            ),
            (
                format!("{head}@@ @@\n a\n-b\n"),
                Err(Reason::TruncatedInput),
            ),
            // A trailing context line proves the hunk's end.
            (format!("{head}@@ @@\n-{b}\n+B\n {c}\n"), Ok("a\nB\nc\n")),
            (format!("{head}@@ @@\n a\n-b\n+B\n c\n"), Ok("a\nB\nc\n")),
            // Counts prove it too.
            (format!("{head}@@ -2,1 +2,1 @@\n-b\n+B\n"), Ok("a\nB\nc\n")),
            // So does text after the hunk.
            (
                format!("{head}@@ @@\n-{b}\n+B\n\nThat is all.\n"),
                Ok("a\nB\nc\n"),
            ),
            // At the end of the file nothing can follow the change.
            (format!("{head}@@ @@\n b\n-{c}\n+C\n"), Ok("a\nb\nC\n")),
            (format!("{head}@@ @@\n c\n+d\n"), Ok("a\nb\nc\nd\n")),
            // Only the last hunk of the patch can be cut.
            (
                format!("{head}@@ @@\n-{b}\n+B\n@@ @@\n {c}\n+d\n"),
                Ok("a\nB\nc\nd\n"),
            ),
        ];
        for (patch, want) in cases {
            assert_eq!(outcome(file, patch), want.map(str::to_string), "{patch}");
        }
        let err = apply_hunks(
            &Document::from_text(file),
            &hunks_of(&format!("{head}@@ @@\n-{b}\n+B\n")),
            &ApplyOptions::default(),
        )
        .unwrap_err();
        assert!(
            err.message
                .contains("resend the patch with at least one unchanged context line"),
            "{}",
            err.message
        );
    }

    const QUOTE_PATCH: &str = "--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n fn greet() {\n-    say(\"it's - ok\");\n+    say(\"fine\");\n }\n";

    // Typographic punctuation is the loosest tier: a file whose quotes and dashes an editor
    // made typographic still takes a patch written in ASCII, and never over a stricter match.
    #[test]
    fn typographic_punctuation_is_the_loosest_tier() {
        let typo = [
            "fn greet() {",
            "    say(\u{201C}it\u{2019}s \u{2013} ok\u{201D});",
            "}",
        ];
        let ascii = ["fn greet() {", "    say(\"it's - ok\");", "}"];
        let spaced = ["fn greet() {", "say(\"it's - ok\");", "}"];
        let with = |above: &[&str], below: &[&str]| {
            let mut lines = vec!["a", "b", "c"];
            lines.extend_from_slice(above);
            lines.extend(["x", "y", "z"]);
            lines.extend_from_slice(below);
            text(&lines)
        };
        // Only a typographic copy: it applies, and only the removed line changes.
        let file = with(&typo, &[]);
        assert_eq!(
            outcome(&file, QUOTE_PATCH),
            Ok(text(&[
                "a",
                "b",
                "c",
                "fn greet() {",
                "    say(\"fine\");",
                "}",
                "x",
                "y",
                "z"
            ]))
        );
        // An exact copy farther away wins over the typographic one at the target.
        check_placed(&with(&typo, &ascii), QUOTE_PATCH, Ok(&[10]));
        // So does a whitespace variant: punctuation is looser than whitespace.
        check_placed(&with(&typo, &spaced), QUOTE_PATCH, Ok(&[10]));
        // Two typographic copies at the same distance: ambiguous, saying which tier.
        let file = text(&[
            "fn greet() {",
            "    say(\u{201C}it\u{2019}s \u{2014} ok\u{201D});",
            "}",
            "e",
            "e",
            "e",
            "fn greet() {",
            "    say(\u{201C}it\u{2019}s \u{2011} ok\u{201D});",
            "}",
        ]);
        let err = placed(&file, QUOTE_PATCH).unwrap_err();
        assert_eq!(err.0, Reason::AmbiguousMatch);
        assert!(err.1.contains("typographic punctuation"), "{}", err.1);
        // NBSP and a non-breaking hyphen in the patch, ASCII in the file: folded both ways.
        let file = text(&["a", "b", "c", "let x = a-b;", "f(x);", "done();"]);
        let patch = "--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n let\u{A0}x = a\u{2011}b;\n-f(x);\n+g(x);\n done();\n";
        check_placed(&file, patch, Ok(&[4]));
        // Anchors still hold: the hash is the file line's, so an anchor copied from the file
        // matches, and a wrong one never does.
        let line = typo[1];
        let anchored = format!(
            "--- a/f\n+++ b/f\n@@ @@\n fn greet() {{\n-{}|    say(\"it's - ok\");\n+    say(\"fine\");\n }}\n",
            hashline(5, line).split('|').next().unwrap_or_default()
        );
        check_placed(&with(&typo, &[]), &anchored, Ok(&[4]));
        let wrong = anchored.replace(&hashline(5, line)[..5], "5aaaa");
        check_placed(&with(&typo, &[]), &wrong, Err(Reason::HunkMismatch));
    }

    // What peers guess at stays refused: escape sequences are not unescaped, and a block whose
    // first and last lines match but whose middle differs is no match in any tier.
    #[test]
    fn escapes_and_block_anchors_are_not_guessed_at() {
        let file = text(&["a", "b", "c", "let s = \"x\ty\";", "f(s);", "done();"]);
        let escaped =
            "--- a/f\n+++ b/f\n@@ -4,2 +4,2 @@\n let s = \"x\\ty\";\n-f(s);\n+g(s);\n done();\n";
        check_placed(&file, escaped, Err(Reason::HunkMismatch));
        let file = text(&["a", "b", "c", "fn f() {", "    one();", "    two();", "}"]);
        let middle = "--- a/f\n+++ b/f\n@@ -4,4 +4,4 @@\n fn f() {\n     one();\n-    three();\n+    four();\n }\n";
        check_placed(&file, middle, Err(Reason::HunkMismatch));
    }

    // Seed 002: a header past the end of the file names a line that does not exist. Content
    // alone does not prove where such a hunk belongs, so it is refused even when the content is
    // within the search radius; anchors whose hashes match prove it, so an anchored hunk is
    // relocated. Inside the file, the spiral search still moves an unanchored hunk.
    #[test]
    fn header_past_the_end_fails_unless_anchors_prove_the_place() {
        let lines: Vec<String> = (1..=12).map(|i| format!("f{i:02}")).collect();
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let file = text(&refs);
        let hunk = |start: usize| {
            format!("--- a/f\n+++ b/f\n@@ -{start},3 +{start},3 @@\n f09\n-f10\n+F10\n f11\n")
        };
        // Line 13 is one past the last line; 15 and 50 are further out, within the radius.
        for start in [13, 15, 50] {
            let (reason, message) = placed(&file, &hunk(start)).expect_err("past the end");
            assert_eq!(reason, Reason::OutOfBounds, "{start}: {message}");
            assert!(message.contains("the file has 12 lines"), "{message}");
        }
        // The last line and lines inside the file: relocated to line 9 as before.
        for start in [12, 11, 3] {
            check_placed(&file, &hunk(start), Ok(&[9]));
        }
        let anchored = |h9: LineHash, h10: LineHash| {
            format!(
                "--- a/f\n+++ b/f\n@@ -15,3 +15,3 @@\n 15{h9}|f09\n-16{h10}|f10\n+F10\n 17{}|f11\n",
                LineHash::of("f11")
            )
        };
        check_placed(
            &file,
            &anchored(LineHash::of("f09"), LineHash::of("f10")),
            Ok(&[9]),
        );
        // An anchor whose hash does not match proves nothing: the hunk is not applied.
        let wrong = anchored(LineHash::of("f09"), LineHash::of("something else"));
        assert!(placed(&file, &wrong).is_err());
        // A later hunk whose target, with the drift the first hunk carried, is past the end.
        let two = "--- a/f\n+++ b/f\n@@ -3,1 +3,1 @@\n-f03\n+F03\n@@ -14,1 +14,1 @@\n-f12\n+F12\n";
        check_placed(&file, two, Err(Reason::OutOfBounds));
        // A pure insertion past the end was already refused.
        check_placed(
            &file,
            "--- a/f\n+++ b/f\n@@ -14,0 +14,1 @@\n+x\n",
            Err(Reason::OutOfBounds),
        );
    }

    // Regression: header numbers near `u64::MAX` were cast to `isize` and wrapped to a small
    // or negative position, so `@@ -18446744073709551615,1 ... @@` applied at line 1.
    #[test]
    fn header_and_anchor_numbers_past_any_file_are_out_of_bounds() {
        let file = "a\nb\nc\n";
        for start in [
            u64::MAX.to_string(),
            (u64::MAX - 1).to_string(),
            (1u64 << 63).to_string(),
            (i64::MAX as u64).to_string(),
        ] {
            let patch = format!("--- a/f\n+++ b/f\n@@ -{start},1 +{start},1 @@\n-a\n+A\n");
            check_placed(file, &patch, Err(Reason::OutOfBounds));
            // After a hunk that moved (carried drift), the sum must not wrap either.
            let patch = format!(
                "--- a/f\n+++ b/f\n@@ -1,1 +1,1 @@\n-b\n+B\n@@ -{start},1 +{start},1 @@\n-c\n+C\n"
            );
            check_placed(file, &patch, Err(Reason::OutOfBounds));
            // A pure insertion claims a position too.
            let patch = format!("--- a/f\n+++ b/f\n@@ -{start},0 +{start},1 @@\n+x\n");
            check_placed(file, &patch, Err(Reason::OutOfBounds));
            let anchored = format!(
                "--- a/f\n+++ b/f\n@@ @@\n-{start}{}|a\n+A\n c\n",
                LineHash::of("a")
            );
            check_placed(file, &anchored, Err(Reason::OutOfBounds));
        }
    }

    // Positionless hunks are looked for only where their first line is (an index by folded
    // normal form); every tier must still reach them, and a blank first line still scans.
    #[test]
    fn positionless_hunks_are_found_through_their_first_line_in_every_tier() {
        let head = "--- a/f\n+++ b/f\n";
        type Case<'a> = (&'a str, String, Result<&'a [usize], Reason>);
        let cases: &[Case<'_>] = &[
            // Exact, whitespace and punctuation variants of the first line.
            (
                "a\nx = 1;\ny\n",
                format!("{head}@@ ... @@\n x = 1;\n-y\n+Y\n"),
                Ok(&[2]),
            ),
            (
                "a\n  x  = 1;\ny\n",
                format!("{head}@@ ... @@\n x = 1;\n-y\n+Y\n"),
                Ok(&[2]),
            ),
            (
                "a\nx = \u{201C}1\u{201D};\ny\n",
                format!("{head}@@ ... @@\n x = \"1\";\n-y\n+Y\n"),
                Ok(&[2]),
            ),
            // A blank first line: every position is tried (the one-to-one match at line 4).
            (
                "a\n\n\n\nb\nc\n",
                format!("{head}@@ ... @@\n \n-b\n+B\n c\n"),
                Ok(&[4]),
            ),
            // In file order: the second hunk's lines occur before the first hunk's match too.
            (
                "y\nq\nx\ny\n",
                format!("{head}@@ ... @@\n q\n-x\n+X\n@@ ... @@\n-y\n+Y\n"),
                Ok(&[2, 4]),
            ),
            // Two candidates after the previous hunk: refused, never the first.
            (
                "q\nx\ny\nz\ny\nz\n",
                format!("{head}@@ ... @@\n q\n-x\n+X\n@@ ... @@\n-y\n+Y\n z\n"),
                Err(Reason::AmbiguousMatch),
            ),
        ];
        for (file, patch, want) in cases {
            check_placed(file, patch, *want);
        }
    }

    #[test]
    fn positionless_hunks_take_the_exact_copy() {
        let codex =
            "*** Begin Patch\n*** Update File: f\n@@\n let x = 1;\n-f(x);\n+g(x);\n*** End Patch\n";
        let file = text(&["  let x = 1;", "  f(x);", "let x = 1;", "f(x);"]);
        check_placed(&file, codex, Ok(&[3]));
        let file = text(&["  let x = 1;", "  f(x);", "\tlet x = 1;", "\tf(x);"]);
        let err = placed(&file, codex).unwrap_err();
        assert_eq!(err.0, Reason::AmbiguousMatch);
        assert!(err.1.contains("ignoring whitespace"), "{}", err.1);
    }

    proptest::proptest! {
        /// `Claimed` answers as `ranges_conflict` against every claimed range would, for any
        /// sequence of ranges taken only when free (as planning takes them).
        #[test]
        fn claimed_set_agrees_with_the_pairwise_rule(
            ranges in proptest::collection::vec((0..40usize, 0..4usize), 1..60),
        ) {
            let mut claimed = Claimed::default();
            let mut list: Vec<Range<usize>> = Vec::new();
            for (start, len) in ranges {
                let r = start..start + len;
                let free = !list.iter().any(|c| crate::edit::ranges_conflict(c, &r));
                proptest::prop_assert_eq!(claimed.is_free(&r), free, "{:?} against {:?}", r, list);
                if free {
                    claimed.insert(&r);
                    list.push(r);
                }
            }
        }
    }

    // Regression (fuzz target `apply`): a hunk that leaves an empty last line in a file without
    // a final newline (here the `\ No newline` marker of the removed `#` is missing) produced
    // the document `[""]`, whose bytes are empty, while live sync reported line 1.
    #[test]
    fn live_sync_never_reports_a_line_the_bytes_do_not_have() {
        let doc = Document::from_text("\n\n\n#");
        let hunks = hunks_of("--- a/f\n+++ b/f\n@@ -1,4 +0,0 @@\n \n-\n-\n-\n-#\n");
        let applied = apply_hunks(&doc, &hunks, &ApplyOptions::default()).unwrap();
        let bytes = applied.doc.to_bytes();
        assert_eq!(bytes, b"");
        assert_eq!(Document::from_bytes(&bytes).unwrap(), applied.doc);
        for block in &applied.sync {
            assert!(block.start_line - 1 + block.line_count <= applied.doc.len());
        }
    }
}
