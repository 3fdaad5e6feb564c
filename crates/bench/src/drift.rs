//! The reliability generator: patch cases built from real source files, each with its correct
//! outcome known by construction (the new bytes when the patch has one answer, or "must refuse").
//!
//! A case starts from real files (see [`crate::sources`]): 1–4 edits (hunks with 3 lines of
//! context) across 1–3 files, rendered as the unified diff a tool would have produced against
//! those files. Then the files on disk move away from what the patch was made against, per
//! [`Category`]: unrelated lines inserted or removed above hunks, a copy of a hunk's block
//! placed nearer or farther, whitespace-only context changes, CRLF, no final newline, a context
//! line that vanished, a patch cut short. The files are modelled as pieces (unrelated text and
//! the hunk windows), so the expected result is the same pieces with each window's new side.
//! An independent check (normalized, blank-run-tolerant block search, looser than the engine's)
//! then confirms each case is what it claims: the intended block is the only copy, or the
//! nearest by a margin, or equidistant, or gone; otherwise the case is redrawn.

use lspedit_engine::{LineHash, fold_punctuation, hashline, normalize_for_hash};

use crate::generate::Rng;
use crate::sources::{SourceFile, Sources};

/// Context lines on each side of a change, as `diff -u` writes them.
const CONTEXT: usize = 3;
/// Largest drift per gap: inside the engine's default search radius (100) with a margin, so
/// every answerable hunk has an answer lspedit is specified to find.
const MAX_DRIFT: usize = 80;
const RADIUS_MARGIN: usize = 95;
/// How much farther the far copy of a duplicated block must be than the near one.
const DUPLICATE_MARGIN: usize = 3;

/// What the files on disk went through after the patch was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Category {
    Exact,
    Drift,
    Duplicates,
    Whitespace,
    CrlfFile,
    CrlfBoth,
    NoFinalNewline,
    VanishedOneFile,
    Equidistant,
    Vanished,
    Truncated,
    IndentedDuplicate,
    EofPinned,
    Typographic,
}

impl Category {
    /// New categories go at the end: a case's id and seed follow its category's place here, so
    /// the cases of the others stay what they were.
    pub const ALL: [Category; 14] = [
        Category::Exact,
        Category::Drift,
        Category::Duplicates,
        Category::Whitespace,
        Category::CrlfFile,
        Category::CrlfBoth,
        Category::NoFinalNewline,
        Category::VanishedOneFile,
        Category::Equidistant,
        Category::Vanished,
        Category::Truncated,
        Category::IndentedDuplicate,
        Category::EofPinned,
        Category::Typographic,
    ];

    /// The category named `name` (as [`Category::name`] spells it).
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Category::Exact => "exact",
            Category::Drift => "drift",
            Category::Duplicates => "duplicates",
            Category::Whitespace => "whitespace",
            Category::CrlfFile => "crlf-file",
            Category::CrlfBoth => "crlf-both",
            Category::NoFinalNewline => "no-final-newline",
            Category::VanishedOneFile => "vanished-one-of-files",
            Category::Equidistant => "equidistant",
            Category::Vanished => "vanished",
            Category::Truncated => "truncated",
            Category::IndentedDuplicate => "indented-duplicate",
            Category::EofPinned => "eof-pinned",
            Category::Typographic => "typographic",
        }
    }

    /// One line for the report: what changed and what the right outcome is.
    pub fn describe(self) -> &'static str {
        match self {
            Category::Exact => "files as the patch expects (1–3 files, 1–4 hunks); apply",
            Category::Drift => {
                "1–80 unrelated lines inserted into or removed from the gap above each hunk; apply"
            }
            Category::Duplicates => {
                "a copy of hunk 1's block elsewhere, farther from the header line than the drifted original; apply at the nearest"
            }
            Category::Whitespace => {
                "whitespace-only changes to context lines (trailing, indentation, inner spaces), some drift; apply, keeping the file's context lines"
            }
            Category::CrlfFile => {
                "files converted to CRLF, patch in LF; apply, added lines take CRLF"
            }
            Category::CrlfBoth => "files and patch body in CRLF; apply",
            Category::NoFinalNewline => {
                "files without a final newline, the patch touching the end with `\\ No newline at end of file` or not; apply, keeping no final newline"
            }
            Category::VanishedOneFile => {
                "2–3 files, one with a context or removed line changed or deleted: per-file granularity, that file refused, the others applied"
            }
            Category::Equidistant => {
                "hunk 1's block gone from its header line, copies at equal distance above and below; refuse"
            }
            Category::Vanished => "one context or removed line changed or deleted; refuse",
            Category::Truncated => "patch text cut inside its last hunk; refuse everything",
            Category::IndentedDuplicate => {
                "a copy of hunk 1's block indented differently (spaces, tabs, inner spaces, trailing blanks besides) nearer to its header line than the byte-exact original, above or below; apply at the exact block"
            }
            Category::EofPinned => {
                "files without a final newline, the last hunk ending at the end with `\\ No newline at end of file`, a copy of its block right above it (nearer to its header line); apply at the end"
            }
            Category::Typographic => {
                "context lines with quotes or dashes made typographic on disk (curly double quotes, apostrophes, EN DASH for ` - `), the patch in ASCII (anchors copied from the file), some drift; apply, keeping the file's context lines"
            }
        }
    }

    /// Whether no file may change (no answer exists).
    pub fn must_refuse(self) -> bool {
        matches!(
            self,
            Category::Equidistant | Category::Vanished | Category::Truncated
        )
    }

    fn file_count(self, rng: &mut Rng) -> usize {
        match self {
            Category::Equidistant | Category::Vanished => 1,
            Category::VanishedOneFile => 2 + rng.below(2) as usize,
            Category::NoFinalNewline | Category::EofPinned => 1 + rng.below(2) as usize,
            _ => match rng.below(20) {
                0..12 => 1,
                12..17 => 2,
                _ => 3,
            },
        }
    }
}

/// One file of a case: its bytes before, what it must hold after, and what the whole patch
/// would make of it (to tell a partial application from a wrong one).
#[derive(Debug, Clone)]
pub struct CaseFile {
    pub path: String,
    pub origin: String,
    pub before: Vec<u8>,
    /// `Some(bytes)`: must become exactly these bytes; `None`: must stay unchanged.
    pub expected: Option<Vec<u8>>,
    /// The bytes the complete patch produces, when it has an answer for this file.
    pub intended: Option<Vec<u8>>,
}

/// A generated case.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: usize,
    pub category: Category,
    pub files: Vec<CaseFile>,
    /// The patch as a tool writes it (`diff -u` style, `a/` and `b/` prefixes).
    pub patch: String,
    /// The same patch with lspedit anchors (`42abcd|`) on every context and removed line.
    pub anchored: String,
}

/// How a tool left a case's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Every file holds what it must (for a must-refuse case: see `Refused`).
    Correct,
    /// Nothing changed.
    Refused,
    /// Some file changed into something it must not be.
    Misapplied,
    /// Some files hold the patch's result, others are unchanged, and that is not the answer.
    Partial,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Correct => "correct",
            Outcome::Refused => "refused cleanly",
            Outcome::Misapplied => "misapplied",
            Outcome::Partial => "partial",
        }
    }
}

/// Classify what a tool left: `after[i]` is file i's bytes (`None`: missing).
pub fn classify(files: &[CaseFile], after: &[Option<Vec<u8>>]) -> Outcome {
    #[derive(PartialEq)]
    enum State {
        Unchanged,
        Intended,
        Wrong,
    }
    let mut matches_expectation = true;
    let mut states = Vec::with_capacity(files.len());
    for (f, a) in files.iter().zip(after) {
        let a = a.as_deref();
        let state = if a == Some(f.before.as_slice()) {
            State::Unchanged
        } else if a.is_some() && a == f.intended.as_deref() {
            State::Intended
        } else {
            State::Wrong
        };
        let want = f.expected.as_deref().unwrap_or(&f.before);
        matches_expectation &= a == Some(want);
        states.push(state);
    }
    if states.contains(&State::Wrong) {
        // A must-refuse file that changed is wrong even if it took the "intended" bytes.
        return Outcome::Misapplied;
    }
    if matches_expectation {
        return if files.iter().all(|f| f.expected.is_none()) {
            Outcome::Refused
        } else {
            Outcome::Correct
        };
    }
    if states.iter().all(|s| *s == State::Unchanged) {
        Outcome::Refused
    } else if files.len() > 1 && states.contains(&State::Unchanged) {
        Outcome::Partial
    } else {
        Outcome::Misapplied
    }
}

/// Generate `per_category` cases of every category (or of `only`) from `sources`,
/// deterministically from `seed`: a category's cases do not depend on which others are
/// generated. Returns the cases and how many draws the check rejected and redrew.
pub fn generate(
    sources: &mut Sources,
    seed: u64,
    per_category: usize,
    only: Option<Category>,
) -> (Vec<Case>, usize) {
    let mut cases = Vec::with_capacity(per_category * Category::ALL.len());
    let mut redrawn = 0;
    for (ci, &category) in Category::ALL.iter().enumerate() {
        if only.is_some_and(|c| c != category) {
            continue;
        }
        for i in 0..per_category {
            // The id names the case in its added lines: the same with or without `only`.
            let id = ci * per_category + i;
            let mut rng = Rng::new(seed ^ ((ci as u64) << 40) ^ (i as u64).wrapping_mul(0x9e37));
            for _ in 0..100 {
                if let Some(case) = build_case(sources, &mut rng, id, category) {
                    cases.push(case);
                    break;
                }
                redrawn += 1;
            }
        }
    }
    (cases, redrawn)
}

/// A hunk in the coordinates of the file the patch was made against.
#[derive(Debug, Clone)]
struct Window {
    start: usize,
    before: usize,
    removed: usize,
    after: usize,
    added: Vec<String>,
}

impl Window {
    fn old_len(&self) -> usize {
        self.before + self.removed + self.after
    }

    fn end(&self) -> usize {
        self.start + self.old_len()
    }

    fn old_side<'a>(&self, old: &'a [String]) -> &'a [String] {
        &old[self.start..self.end()]
    }

    fn new_side(&self, old: &[String]) -> Vec<String> {
        let mut v = old[self.start..self.start + self.before].to_vec();
        v.extend(self.added.iter().cloned());
        v.extend_from_slice(&old[self.start + self.before + self.removed..self.end()]);
        v
    }
}

/// The file on disk as pieces: unrelated text, and each hunk's window as it is on disk (`cur`)
/// and as it must become (`new`).
#[derive(Debug, Clone)]
enum Piece {
    Text(Vec<String>),
    Win { cur: Vec<String>, new: Vec<String> },
}

/// A file under construction.
struct FileBuild {
    path: String,
    origin: String,
    old: Vec<String>,
    windows: Vec<Window>,
    pieces: Vec<Piece>,
    final_newline: bool,
    /// Whether the file must be refused (its bytes unchanged).
    refuse: bool,
    /// Whether the complete patch has an answer for this file.
    answer: bool,
    /// Hunk index → how its block must appear on disk (checked after construction).
    shape: Vec<Shape>,
    /// Old line index → the text on disk its anchor is computed from, where the disk differs
    /// from the patch's text beyond whitespace (a model copies anchors from what it read).
    anchor_text: std::collections::HashMap<usize, String>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Shape {
    Unique,
    /// A second copy, farther from the header line than the window.
    NearestOfTwo,
    /// Copies at `k` lines above and below the header line, none at it.
    Equidistant(usize),
    Gone,
    /// The only byte-exact copy, with a copy differing in whitespace only nearer to the header
    /// line.
    ExactBeyondNearerVariant,
    /// At the end of the file, with a byte-exact copy mid-file nearer to the header line.
    AtEofBeyondNearerCopy,
}

fn build_case(sources: &mut Sources, rng: &mut Rng, id: usize, category: Category) -> Option<Case> {
    let nfiles = category.file_count(rng);
    let extra = rng.below(4 - nfiles.min(3) as u64 + 1) as usize;
    let hunks_total = (nfiles + extra).min(4);
    let mut per_file = vec![1usize; nfiles];
    for k in 0..hunks_total - nfiles {
        per_file[k % nfiles] += 1;
    }
    let vanished_file = rng.below(nfiles as u64) as usize;
    let mut builds = Vec::with_capacity(nfiles);
    for (fi, &n) in per_file.iter().enumerate() {
        let src = sources.pick(rng)?;
        let tag = format!("c{id}f{fi}");
        let at_end = (category == Category::NoFinalNewline && rng.below(3) != 0)
            || category == Category::EofPinned;
        let windows = choose_windows(&src.lines, n, rng, &tag, at_end)?;
        let mut b = FileBuild::new(fi, &src, windows);
        match category {
            Category::Exact | Category::CrlfFile | Category::CrlfBoth | Category::Truncated => {}
            Category::Drift => b.drift(rng, sources, 1.0)?,
            Category::Duplicates => {
                b.drift(rng, sources, 0.5)?;
                b.duplicate(rng)?;
            }
            Category::Whitespace => {
                if rng.below(2) == 0 {
                    b.drift(rng, sources, 0.5)?;
                }
                b.whitespace(rng);
            }
            Category::NoFinalNewline => {
                b.final_newline = false;
                if rng.below(2) == 0 {
                    b.drift(rng, sources, 0.5)?;
                }
            }
            Category::Vanished => b.vanish(rng)?,
            Category::VanishedOneFile => {
                if fi == vanished_file {
                    b.vanish(rng)?;
                }
            }
            Category::Equidistant => b.equidistant(rng, sources)?,
            Category::IndentedDuplicate => {
                if rng.below(2) == 0 {
                    b.drift(rng, sources, 0.5)?;
                }
                b.indented_duplicate(rng)?;
            }
            Category::EofPinned => {
                b.final_newline = false;
                if rng.below(2) == 0 {
                    b.drift(rng, sources, 0.5)?;
                }
                b.copy_above_last()?;
            }
            Category::Typographic => {
                if rng.below(2) == 0 {
                    b.drift(rng, sources, 0.5)?;
                }
                b.typographic(rng)?;
            }
        }
        if category == Category::Truncated {
            b.refuse = true;
        }
        b.check()?;
        builds.push(b);
    }
    let eol = if matches!(category, Category::CrlfFile | Category::CrlfBoth) {
        "\r\n"
    } else {
        "\n"
    };
    let patch_eol = if category == Category::CrlfBoth {
        "\r\n"
    } else {
        "\n"
    };
    let mut patch = String::new();
    let mut anchored = String::new();
    for b in &builds {
        patch.push_str(&b.render_patch(patch_eol, false));
        anchored.push_str(&b.render_patch(patch_eol, true));
    }
    if category == Category::Truncated {
        patch = truncate(&patch, rng)?;
        anchored = truncate(&anchored, rng)?;
    }
    let files = builds
        .iter()
        .map(|b| {
            let before = render(&b.current(), eol, b.final_newline);
            let new = render(&b.expected(), eol, b.final_newline);
            CaseFile {
                path: b.path.clone(),
                origin: b.origin.clone(),
                expected: (!b.refuse).then(|| new.clone()),
                intended: b.answer.then_some(new),
                before,
            }
        })
        .collect();
    Some(Case {
        id,
        category,
        files,
        patch,
        anchored,
    })
}

/// Lines joined with `eol`, with or without a final terminator.
fn render(lines: &[String], eol: &str, final_newline: bool) -> Vec<u8> {
    let mut s = lines.join(eol);
    if final_newline && !lines.is_empty() {
        s.push_str(eol);
    }
    s.into_bytes()
}

/// Pick `n` hunk windows, one per equal slot of the file, each with an old side that occurs
/// once in the file. With `at_end`, the last window reaches the end of the file.
fn choose_windows(
    old: &[String],
    n: usize,
    rng: &mut Rng,
    tag: &str,
    at_end: bool,
) -> Option<Vec<Window>> {
    let index = BlockIndex::new(old);
    let slot = old.len() / n;
    let mut windows = Vec::with_capacity(n);
    for h in 0..n {
        let (lo, hi) = (
            h * slot,
            if h + 1 == n {
                old.len()
            } else {
                (h + 1) * slot
            },
        );
        let last_at_end = at_end && h + 1 == n;
        let mut removed = rng.below(4) as usize;
        let mut added = rng.below(4) as usize;
        if removed + added == 0 {
            added = 1;
        }
        // Replacing the last line: the new side ends in an added line, so it can carry the
        // "no newline" marker without re-adding a context line.
        let replace_last = last_at_end && rng.below(2) == 0;
        if replace_last {
            removed = removed.max(1);
            added = added.max(1);
        }
        let after = if replace_last { 0 } else { CONTEXT };
        let len = CONTEXT + removed + after;
        if hi < lo + len + 2 {
            return None;
        }
        let candidates: Vec<usize> = if last_at_end {
            vec![old.len() - len]
        } else {
            let (first, last) = (lo + 1, hi - len - 1);
            let span = last - first + 1;
            let s0 = rng.below(span as u64) as usize;
            (0..span).map(|k| first + (s0 + k) % span).collect()
        };
        let start = candidates.into_iter().find(|&s| {
            let block = &old[s..s + len];
            windows.last().is_none_or(|w: &Window| w.end() < s)
                && !block.iter().all(|l| normalize_for_hash(l).is_empty())
                && index.count(block) == 1
        })?;
        let removed_lines = &old[start + CONTEXT..start + CONTEXT + removed];
        let next = old
            .get(start + CONTEXT + removed)
            .map_or("", String::as_str);
        windows.push(Window {
            start,
            before: CONTEXT,
            removed,
            after,
            added: added_lines(rng, &format!("{tag}h{h}"), removed_lines, next, added),
        });
    }
    Some(windows)
}

/// New lines for a hunk: edited copies of removed lines or fresh statements, indented like the
/// code they replace, each naming the case so it is unique.
fn added_lines(rng: &mut Rng, tag: &str, removed: &[String], next: &str, n: usize) -> Vec<String> {
    let like = removed.first().map_or(next, String::as_str);
    let indent: String = like
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    (0..n)
        .map(|k| match removed.get(k) {
            Some(r) if !r.trim().is_empty() && rng.below(2) == 0 => {
                format!("{} /* {tag}.{k} */", r.trim_end())
            }
            _ => format!("{indent}edited_{tag}_{k}();"),
        })
        .collect()
}

impl FileBuild {
    fn new(index: usize, src: &SourceFile, windows: Vec<Window>) -> FileBuild {
        let base: String = src
            .origin
            .rsplit('/')
            .next()
            .unwrap_or("file")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let old = src.lines.clone();
        let mut pieces = Vec::new();
        let mut at = 0;
        for w in &windows {
            pieces.push(Piece::Text(old[at..w.start].to_vec()));
            pieces.push(Piece::Win {
                cur: w.old_side(&old).to_vec(),
                new: w.new_side(&old),
            });
            at = w.end();
        }
        pieces.push(Piece::Text(old[at..].to_vec()));
        let shape = vec![Shape::Unique; windows.len()];
        FileBuild {
            path: format!("src/{index}_{base}"),
            origin: src.origin.clone(),
            old,
            windows,
            pieces,
            final_newline: true,
            refuse: false,
            answer: true,
            shape,
            anchor_text: std::collections::HashMap::new(),
        }
    }

    fn current(&self) -> Vec<String> {
        let mut v = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => v.extend_from_slice(t),
                Piece::Win { cur, .. } => v.extend_from_slice(cur),
            }
        }
        v
    }

    fn expected(&self) -> Vec<String> {
        let mut v = Vec::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => v.extend_from_slice(t),
                Piece::Win { new, .. } => v.extend_from_slice(new),
            }
        }
        v
    }

    /// Piece index of hunk `h`'s window and of the gap above it.
    fn win_piece(h: usize) -> usize {
        2 * h + 1
    }

    fn gap_mut(&mut self, h: usize) -> &mut Vec<String> {
        match &mut self.pieces[2 * h] {
            Piece::Text(t) => t,
            Piece::Win { cur, .. } => cur,
        }
    }

    /// Insert or remove unrelated lines in the gap above each hunk (each with probability `p`).
    fn drift(&mut self, rng: &mut Rng, sources: &mut Sources, p: f64) -> Option<()> {
        for h in 0..self.windows.len() {
            if (rng.below(1000) as f64) >= p * 1000.0 {
                continue;
            }
            let k = match rng.below(20) {
                0..10 => 1 + rng.below(10) as usize,
                10..17 => 11 + rng.below(30) as usize,
                _ => 41 + rng.below((MAX_DRIFT - 40) as u64) as usize,
            };
            let gap_len = self.gap_mut(h).len();
            if rng.below(3) == 0 && gap_len > 2 {
                let k = k.min(gap_len - 1);
                let at = rng.below((gap_len - k + 1) as u64) as usize;
                self.gap_mut(h).drain(at..at + k);
            } else {
                let lines = filler(sources, rng, k)?;
                let at = rng.below((gap_len + 1) as u64) as usize;
                self.gap_mut(h).splice(at..at, lines);
            }
        }
        Some(())
    }

    /// Put a copy of hunk 1's old block into a gap below it or into the gap above it.
    fn duplicate(&mut self, rng: &mut Rng) -> Option<()> {
        let block = self.windows[0].old_side(&self.old).to_vec();
        let gaps = self.windows.len() + 1;
        let g = rng.below(gaps as u64) as usize;
        let gap = self.gap_mut(g);
        let at = rng.below((gap.len() + 1) as u64) as usize;
        gap.splice(at..at, block);
        self.shape[0] = Shape::NearestOfTwo;
        Some(())
    }

    /// Put a copy of hunk 1's old block, changed in whitespace only, nearer to its header line
    /// than the block itself: right above it, or (removing lines above the block so that it
    /// moves away from the header line) right below it.
    fn indented_duplicate(&mut self, rng: &mut Rng) -> Option<()> {
        let block = self.windows[0].old_side(&self.old).to_vec();
        let prefix = match rng.below(3) {
            0 => Some("    "),
            1 => Some("\t"),
            _ => None,
        };
        let mut copy: Vec<String> = block
            .iter()
            .map(|l| match prefix {
                Some(p) if !l.trim().is_empty() => format!("{p}{l}"),
                _ => l.clone(),
            })
            .collect();
        if prefix.is_none() {
            let lines: Vec<usize> = (0..copy.len())
                .filter(|&i| !copy[i].trim().is_empty())
                .collect();
            for _ in 0..1 + rng.below(2) {
                let i = *lines.get(rng.below(lines.len().max(1) as u64) as usize)?;
                copy[i] = whitespace_variant(&copy[i], rng);
            }
        }
        // A copy that differs in trailing whitespace only ranks with the exact block (the
        // nearest wins): it is no decoy the exact block must beat.
        if copy
            .iter()
            .zip(&block)
            .all(|(c, b)| c.trim_end() == b.trim_end())
        {
            return None;
        }
        if rng.below(2) == 0 {
            let gap = self.gap_mut(0);
            gap.extend(copy);
        } else {
            // Below: the block moves up by `k` > its length, so the copy right after it is
            // `k - len` lines from the header line and the block `k`.
            let len = block.len();
            let gap_len = self.gap_mut(0).len();
            if gap_len < 2 * len + 2 {
                return None;
            }
            let k = len + 1 + rng.below((gap_len - 2 * len - 1) as u64) as usize;
            let gap = self.gap_mut(0);
            gap.truncate(gap_len - k);
            self.gap_mut(1).splice(0..0, copy);
        }
        self.shape[0] = Shape::ExactBeyondNearerVariant;
        Some(())
    }

    /// Put a copy of the last hunk's old block (which ends the file) right above the block, so
    /// the copy is where its header line points and the block farther down.
    fn copy_above_last(&mut self) -> Option<()> {
        let h = self.windows.len() - 1;
        if self.windows[h].end() != self.old.len() {
            return None;
        }
        let block = self.windows[h].old_side(&self.old).to_vec();
        self.gap_mut(h).extend(block);
        self.shape[h] = Shape::AtEofBeyondNearerCopy;
        Some(())
    }

    /// Change 1–2 context lines of every hunk in whitespace only, on disk and in the result.
    fn whitespace(&mut self, rng: &mut Rng) {
        for (h, w) in self.windows.iter().enumerate() {
            let ctx: Vec<usize> = (0..w.before)
                .chain(w.before + w.removed..w.old_len())
                .filter(|&i| !normalize_for_hash(&self.old[w.start + i]).is_empty())
                .collect();
            if ctx.is_empty() {
                continue;
            }
            let Piece::Win { cur, new } = &mut self.pieces[Self::win_piece(h)] else {
                continue;
            };
            for _ in 0..1 + rng.below(2) {
                let i = ctx[rng.below(ctx.len() as u64) as usize];
                let changed = whitespace_variant(&cur[i], rng);
                // The same line in the new side: before-context keeps its index, after-context
                // follows the added lines instead of the removed ones.
                let j = if i < w.before {
                    i
                } else {
                    i - w.removed + w.added.len()
                };
                new[j] = changed.clone();
                cur[i] = changed;
            }
        }
    }

    /// Make the quotes and dashes of 1–2 context lines per hunk typographic, on disk and in the
    /// result (context lines are the file's); the patch keeps the ASCII text. At least one line
    /// of the file must have something to change, else the draw is redone.
    fn typographic(&mut self, rng: &mut Rng) -> Option<()> {
        let mut changed_any = false;
        for (h, w) in self.windows.iter().enumerate() {
            let ctx: Vec<usize> = (0..w.before)
                .chain(w.before + w.removed..w.old_len())
                .filter(|&i| typographic_variant(&self.old[w.start + i]).is_some())
                .collect();
            if ctx.is_empty() {
                continue;
            }
            let Piece::Win { cur, new } = &mut self.pieces[Self::win_piece(h)] else {
                continue;
            };
            for _ in 0..1 + rng.below(2) {
                let i = ctx[rng.below(ctx.len() as u64) as usize];
                let Some(changed) = typographic_variant(&cur[i]) else {
                    continue;
                };
                let j = if i < w.before {
                    i
                } else {
                    i - w.removed + w.added.len()
                };
                new[j] = changed.clone();
                cur[i] = changed.clone();
                self.anchor_text.insert(w.start + i, changed);
                changed_any = true;
            }
        }
        changed_any.then_some(())
    }

    /// Change or delete one non-blank context or removed line of one hunk: the file is refused.
    fn vanish(&mut self, rng: &mut Rng) -> Option<()> {
        let h = rng.below(self.windows.len() as u64) as usize;
        let w = &self.windows[h];
        let lines: Vec<usize> = (0..w.old_len())
            .filter(|&i| !normalize_for_hash(&self.old[w.start + i]).is_empty())
            .collect();
        let i = *lines.get(rng.below(lines.len().max(1) as u64) as usize)?;
        let delete = rng.below(2) == 0;
        let Piece::Win { cur, .. } = &mut self.pieces[Self::win_piece(h)] else {
            return None;
        };
        if delete {
            cur.remove(i);
        } else {
            cur[i] = format!("{} /* changed */", cur[i].trim_end());
        }
        self.shape[h] = Shape::Gone;
        self.refuse = true;
        self.answer = false;
        Some(())
    }

    /// Replace the `k` lines above hunk 1 by a copy of its block and filler so that copies sit
    /// `k` lines above and below its header line and none at it.
    fn equidistant(&mut self, rng: &mut Rng, sources: &mut Sources) -> Option<()> {
        let w = &self.windows[0];
        let len = w.old_len();
        let p = w.start;
        if p < len + 1 {
            return None;
        }
        let k = len + rng.below((p.min(60).saturating_sub(len) + 1) as u64) as usize;
        let block = w.old_side(&self.old).to_vec();
        let fill = filler(sources, rng, 2 * k - len)?;
        let gap = self.gap_mut(0);
        gap.truncate(p - k);
        gap.extend(block);
        gap.extend(fill);
        self.shape[0] = Shape::Equidistant(k);
        self.refuse = true;
        self.answer = false;
        Some(())
    }

    /// Check that every hunk's block appears on disk as its shape says, and that every hunk with
    /// an answer lies inside the engine's search radius of where it will be looked for.
    fn check(&self) -> Option<()> {
        let current = self.current();
        let index = BlockIndex::new(&current);
        let mut starts = Vec::with_capacity(self.windows.len());
        let mut at = 0;
        for p in &self.pieces {
            match p {
                Piece::Text(t) => at += t.len(),
                Piece::Win { cur, .. } => {
                    starts.push(at);
                    at += cur.len();
                }
            }
        }
        let mut carried: isize = 0;
        for (h, w) in self.windows.iter().enumerate() {
            let found = index.find(w.old_side(&self.old));
            let target = (w.start as isize + carried).max(0) as usize;
            let at = index.collapsed_at(starts[h]);
            let dist = |s: usize| s.abs_diff(target);
            match self.shape[h] {
                Shape::Unique => {
                    if found.len() != 1 || index.collapsed_at(found[0]) != at {
                        return None;
                    }
                }
                Shape::NearestOfTwo => {
                    if found.len() != 2 || !found.iter().any(|&f| index.collapsed_at(f) == at) {
                        return None;
                    }
                    let other = *found.iter().find(|&&f| index.collapsed_at(f) != at)?;
                    if dist(other) < dist(starts[h]) + DUPLICATE_MARGIN {
                        return None;
                    }
                }
                Shape::Equidistant(k) => {
                    if found != [w.start - k, w.start + k] {
                        return None;
                    }
                }
                Shape::Gone => {
                    if !found.is_empty() {
                        return None;
                    }
                }
                Shape::ExactBeyondNearerVariant | Shape::AtEofBeyondNearerCopy => {
                    if found.len() != 2 || !found.iter().any(|&f| index.collapsed_at(f) == at) {
                        return None;
                    }
                    let other = *found.iter().find(|&&f| index.collapsed_at(f) != at)?;
                    if dist(other) >= dist(starts[h]) {
                        return None;
                    }
                    let block = w.old_side(&self.old);
                    let exact = (0..=current.len().saturating_sub(block.len()))
                        .filter(|&s| current[s..].starts_with(block))
                        .count();
                    let want = if self.shape[h] == Shape::ExactBeyondNearerVariant {
                        1
                    } else {
                        2
                    };
                    let ends_file = starts[h] + block.len() == current.len();
                    if exact != want
                        || (self.shape[h] == Shape::AtEofBeyondNearerCopy && !ends_file)
                    {
                        return None;
                    }
                }
            }
            if self.answer && dist(starts[h]) > RADIUS_MARGIN {
                return None;
            }
            // A target past the end of the drifted file is `out_of_bounds` by design unless the
            // hunk is anchored (seed 002; scenarios 091 and 092): no answer lspedit is
            // specified to find for the plain patch, so such a draw is redrawn.
            if self.answer && target >= current.len() {
                return None;
            }
            carried = starts[h] as isize - w.start as isize;
        }
        Some(())
    }

    /// This file's section of the patch: `--- a/P`, `+++ b/P`, one hunk per window, in the
    /// coordinates of the file the patch was made against. With `anchored`, every context and
    /// removed line carries its `42abcd|` anchor.
    fn render_patch(&self, eol: &str, anchored: bool) -> String {
        let mut s = format!("--- a/{0}\n+++ b/{0}\n", self.path);
        let last = self.old.len() - 1;
        let mut delta: isize = 0;
        let line = |n: usize| -> String {
            match (anchored, self.anchor_text.get(&n)) {
                (true, Some(disk)) => format!("{}{}|{}", n + 1, LineHash::of(disk), self.old[n]),
                (true, None) => hashline(n + 1, &self.old[n]),
                (false, _) => self.old[n].clone(),
            }
        };
        let no_newline = |n: usize| !self.final_newline && n == last;
        for w in &self.windows {
            let new_len = w.before + w.added.len() + w.after;
            s.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                w.start + 1,
                w.old_len(),
                w.start as isize + 1 + delta,
                new_len
            ));
            delta += w.added.len() as isize - w.removed as isize;
            let mut push = |marker: char, text: &str, eof: bool| {
                s.push(marker);
                s.push_str(text);
                s.push_str(eol);
                if eof {
                    s.push_str("\\ No newline at end of file\n");
                }
            };
            for n in w.start..w.start + w.before {
                push(' ', &line(n), no_newline(n));
            }
            let removed = w.start + w.before..w.start + w.before + w.removed;
            for n in removed.clone() {
                push('-', &line(n), no_newline(n));
            }
            // The new side ends without a newline only when it ends in these added lines.
            let added_last = w.after == 0 && !self.final_newline && removed.end == last + 1;
            for (k, a) in w.added.iter().enumerate() {
                push('+', a, added_last && k + 1 == w.added.len());
            }
            for n in w.start + w.before + w.removed..w.end() {
                push(' ', &line(n), no_newline(n));
            }
        }
        s
    }
}

/// `k` lines of real code from another file (several files when one is too short).
fn filler(sources: &mut Sources, rng: &mut Rng, k: usize) -> Option<Vec<String>> {
    let mut out = Vec::with_capacity(k);
    while out.len() < k {
        let src = sources.pick(rng)?;
        let take = (k - out.len()).min(src.lines.len());
        let at = rng.below((src.lines.len() - take + 1) as u64) as usize;
        out.extend_from_slice(&src.lines[at..at + take]);
    }
    Some(out)
}

/// The line with its ASCII quotes and ` - ` dashes made typographic, as an editor's smart
/// punctuation does (`None` when it has none): equal to the line once punctuation is folded.
fn typographic_variant(line: &str) -> Option<String> {
    let mut out = String::with_capacity(line.len() + 8);
    let mut double_open = true;
    let mut changed = false;
    let mut chars = line.chars().peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        match c {
            '"' => {
                out.push(if double_open { '\u{201C}' } else { '\u{201D}' });
                double_open = !double_open;
                changed = true;
            }
            '\'' if prev.is_alphanumeric() && next.is_alphanumeric() => {
                // An apostrophe inside a word (`it's`): not a Rust lifetime or char literal.
                out.push('\u{2019}');
                changed = true;
            }
            '-' if prev == ' ' && next == ' ' => {
                out.push('\u{2013}');
                changed = true;
            }
            _ => out.push(c),
        }
        prev = c;
    }
    changed.then_some(out)
}

/// The line with its whitespace changed and nothing else (its normalized form is the same).
fn whitespace_variant(line: &str, rng: &mut Rng) -> String {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    let candidate = match rng.below(4) {
        0 => format!("{line}  "),
        1 => format!("    {line}"),
        2 if !indent.is_empty() => body.to_string(),
        2 => format!("\t{line}"),
        _ => {
            // Drop one inner space between two non-space characters, else add one after a comma.
            let b = line.as_bytes();
            match (1..b.len().saturating_sub(1))
                .find(|&i| b[i] == b' ' && b[i - 1] != b' ' && b[i + 1] != b' ')
            {
                Some(i) => format!("{}{}", &line[..i], &line[i + 1..]),
                None => match line.find(',') {
                    Some(i) => format!("{}, {}", &line[..i], &line[i + 1..]),
                    None => format!("{line} "),
                },
            }
        }
    };
    if candidate == line {
        format!("{line} ")
    } else {
        candidate
    }
}

/// Cut `patch` inside the body of its last hunk (after its `@@` line: a cut before it leaves a
/// shorter but complete patch), so that what is cut holds more than whitespace.
fn truncate(patch: &str, rng: &mut Rng) -> Option<String> {
    let header = patch.rfind("\n@@ ")? + 1;
    let body = header + patch[header..].find('\n')? + 1;
    if body + 1 >= patch.len() {
        return None;
    }
    for _ in 0..50 {
        let cut = body + rng.below((patch.len() - 1 - body) as u64) as usize;
        if patch.is_char_boundary(cut) && patch[cut..].chars().any(|c| !c.is_whitespace()) {
            return Some(patch[..cut].to_string());
        }
    }
    None
}

/// Block search in a file by normalized lines with runs of blank lines collapsed: looser than
/// the engine (which compares one to one first), so "one copy here" and "no copy" are safe
/// claims about what the engine can find.
struct BlockIndex {
    /// Normalized lines with each run of blank lines reduced to one.
    collapsed: Vec<String>,
    /// Line index of each collapsed entry's first line.
    first_line: Vec<usize>,
    /// Collapsed index of every line.
    of_line: Vec<usize>,
}

impl BlockIndex {
    fn new(lines: &[String]) -> BlockIndex {
        let (collapsed, first_line, of_line) = collapse(lines);
        BlockIndex {
            collapsed,
            first_line,
            of_line,
        }
    }

    fn collapsed_at(&self, line: usize) -> usize {
        self.of_line
            .get(line)
            .copied()
            .unwrap_or(self.collapsed.len())
    }

    /// Start lines of every place `block` matches.
    fn find(&self, block: &[String]) -> Vec<usize> {
        let (pat, _, _) = collapse(block);
        if pat.is_empty() || pat.len() > self.collapsed.len() {
            return Vec::new();
        }
        (0..=self.collapsed.len() - pat.len())
            .filter(|&i| self.collapsed[i..i + pat.len()] == pat[..])
            .map(|i| self.first_line[i])
            .collect()
    }

    fn count(&self, block: &[String]) -> usize {
        self.find(block).len()
    }
}

fn collapse(lines: &[String]) -> (Vec<String>, Vec<usize>, Vec<usize>) {
    let mut collapsed: Vec<String> = Vec::with_capacity(lines.len());
    let mut first = Vec::with_capacity(lines.len());
    let mut of_line = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        // Folded like the engine's loosest tier, so a block is unique at every tier.
        let n = fold_punctuation(&normalize_for_hash(l)).into_owned();
        if n.is_empty() && collapsed.last().is_some_and(String::is_empty) && i > 0 {
            of_line.push(collapsed.len() - 1);
            continue;
        }
        of_line.push(collapsed.len());
        collapsed.push(n);
        first.push(i);
    }
    (collapsed, first, of_line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(before: &[u8], expected: Option<&[u8]>, intended: Option<&[u8]>) -> CaseFile {
        CaseFile {
            path: "f".into(),
            origin: "o".into(),
            before: before.to_vec(),
            expected: expected.map(<[u8]>::to_vec),
            intended: intended.map(<[u8]>::to_vec),
        }
    }

    #[test]
    fn classification_of_every_outcome() {
        let apply = || file(b"a", Some(b"b"), Some(b"b"));
        let refuse = || file(b"a", None, None);
        let cut = || file(b"a", None, Some(b"b"));
        let s = |b: &[u8]| Some(b.to_vec());
        assert_eq!(classify(&[apply()], &[s(b"b")]), Outcome::Correct);
        assert_eq!(classify(&[apply()], &[s(b"a")]), Outcome::Refused);
        assert_eq!(classify(&[apply()], &[s(b"c")]), Outcome::Misapplied);
        assert_eq!(classify(&[apply()], &[None]), Outcome::Misapplied);
        assert_eq!(classify(&[refuse()], &[s(b"a")]), Outcome::Refused);
        assert_eq!(classify(&[refuse()], &[s(b"b")]), Outcome::Misapplied);
        assert_eq!(
            classify(&[apply(), apply()], &[s(b"b"), s(b"a")]),
            Outcome::Partial
        );
        assert_eq!(
            classify(&[cut(), cut()], &[s(b"b"), s(b"a")]),
            Outcome::Partial
        );
        assert_eq!(classify(&[cut()], &[s(b"b")]), Outcome::Misapplied);
        // Per-file granularity: the refused file unchanged, the other applied, is the answer.
        assert_eq!(
            classify(&[apply(), refuse()], &[s(b"b"), s(b"a")]),
            Outcome::Correct
        );
        assert_eq!(
            classify(&[apply(), refuse()], &[s(b"a"), s(b"a")]),
            Outcome::Refused
        );
    }

    #[test]
    fn block_index_collapses_blank_runs_and_ignores_whitespace() {
        let lines: Vec<String> = ["a", "", "", "b", "  c", "a", "", "b"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let idx = BlockIndex::new(&lines);
        let block: Vec<String> = ["a", "", "b"].iter().map(|s| s.to_string()).collect();
        assert_eq!(idx.find(&block), vec![0, 5]);
        let c: Vec<String> = ["b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(idx.find(&c), vec![3]);
    }

    #[test]
    fn typographic_variants_fold_back_to_the_line() {
        for (line, want) in [
            (
                r#"    println!("it's - {}", x);"#,
                Some("    println!(\u{201C}it\u{2019}s \u{2013} {}\u{201D}, x);"),
            ),
            ("let c = 'a';", None),
            ("fn f<'a>(x: &'a str) {}", None),
            ("x -= 1;", None),
        ] {
            let got = typographic_variant(line);
            assert_eq!(got.as_deref(), want, "{line}");
            if let Some(v) = got {
                assert_eq!(
                    fold_punctuation(&normalize_for_hash(&v)),
                    normalize_for_hash(line)
                );
            }
        }
    }

    #[test]
    fn whitespace_variants_change_only_whitespace() {
        let mut rng = Rng::new(3);
        for line in ["    let x = f(a, b);", "x", "a,b", "\tfoo bar"] {
            for _ in 0..20 {
                let v = whitespace_variant(line, &mut rng);
                assert_ne!(v, line);
                assert_eq!(normalize_for_hash(&v), normalize_for_hash(line), "{v:?}");
            }
        }
    }
}

/// What the engine (in process, as `lspedit apply` plans) leaves of a case's files when it
/// applies `patch` to `before`, with the reason codes of the files it refused. A
/// `truncated_input` refusal refuses every file, as the tools do.
pub fn engine_apply(
    case: &Case,
    patch: &str,
    before: &[Vec<u8>],
) -> (Vec<Vec<u8>>, Vec<&'static str>) {
    use lspedit_engine::{ApplyOptions, Reason, apply_file_patch, parse_patch};
    let mut after = before.to_vec();
    let mut reasons = Vec::new();
    match parse_patch(patch) {
        Ok(p) => {
            let mut planned = Vec::new();
            for fp in &p.files {
                let Some(i) = case.files.iter().position(|f| f.path == fp.path()) else {
                    continue;
                };
                match apply_file_patch(fp, Some(&before[i]), &ApplyOptions::default()) {
                    Ok(o) => planned.extend(o.new_content.map(|b| (i, b))),
                    Err(e) if e.reason == Reason::TruncatedInput => {
                        planned.clear();
                        reasons.push(e.reason.as_str());
                        break;
                    }
                    Err(e) => reasons.push(e.reason.as_str()),
                }
            }
            for (i, bytes) in planned {
                after[i] = bytes;
            }
        }
        Err(e) => reasons.push(e.reason.as_str()),
    }
    (after, reasons)
}

/// A retried patch, per (category, anchored): the case applied, then the same patch applied
/// again to the result (an agent that lost the response re-sends it).
#[derive(Debug, Default, Clone)]
pub struct RetryTally {
    pub cases: usize,
    /// First applies by outcome.
    pub first: std::collections::BTreeMap<Outcome, usize>,
    /// Right first applies whose retry changed a file again, and their case ids.
    pub doubled: usize,
    pub doubled_cases: Vec<usize>,
    /// Right first applies whose retry was refused `already_applied`.
    pub already_applied: usize,
    /// Right first applies whose retry was refused with another reason (listed).
    pub other: std::collections::BTreeMap<&'static str, usize>,
    /// Right first applies whose retry changed nothing and refused nothing.
    pub unchanged: usize,
}

/// Apply every case and retry it, plain and anchored.
pub fn retry_measure(cases: &[Case]) -> std::collections::BTreeMap<(Category, bool), RetryTally> {
    let mut out: std::collections::BTreeMap<(Category, bool), RetryTally> = Default::default();
    for case in cases {
        for anchored in [false, true] {
            let text = if anchored {
                &case.anchored
            } else {
                &case.patch
            };
            let before: Vec<Vec<u8>> = case.files.iter().map(|f| f.before.clone()).collect();
            let (once, _) = engine_apply(case, text, &before);
            let outcome = classify(
                &case.files,
                &once.iter().cloned().map(Some).collect::<Vec<_>>(),
            );
            let t = out.entry((case.category, anchored)).or_default();
            t.cases += 1;
            *t.first.entry(outcome).or_default() += 1;
            if outcome != Outcome::Correct || case.category.must_refuse() {
                continue;
            }
            let (twice, reasons) = engine_apply(case, text, &once);
            if twice != once {
                t.doubled += 1;
                t.doubled_cases.push(case.id);
            } else if reasons.contains(&"already_applied") {
                t.already_applied += 1;
            } else if let Some(r) = reasons.first() {
                *t.other.entry(r).or_default() += 1;
            } else {
                t.unchanged += 1;
            }
        }
    }
    out
}
