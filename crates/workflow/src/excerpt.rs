//! The deterministic excerpt selector: picks the files and lines a model sees as context, as
//! hashline-anchored excerpts headed with path and base_sha, within a file cap and a line
//! budget.
//!
//! Same input, same output, byte for byte: candidates are taken in the caller's priority order
//! (retrieval hits, then open files, then fallback), lines are chosen by fixed rules, and every
//! collection is ordered (no hash-map iteration, no clock).
//!
//! Per file, lines are chosen in this priority until its share of the budget is used: keyword
//! matches (case-insensitive) with `context_lines` around them, then import and export lines
//! (see [`is_import_or_export`]), each alone. A file with neither shows its first `head_lines`
//! lines. The budget counts every rendered line: the header, shown lines, and the `...` marker
//! between non-adjacent ranges.

use std::collections::BTreeSet;

use lspedit_engine::{Document, ViewOptions, hashline_view};

use lspedit_write::{Workspace, base_sha};

/// Candidate files in priority order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExcerptCandidates {
    pub retrieval_hits: Vec<String>,
    pub open_files: Vec<String>,
    pub fallback: Vec<String>,
}

/// Lines of a candidate file the caller wants shown: 1-based, inclusive. They come before
/// keyword matches and imports in the file's share of the budget (clamped to the file; a range
/// past its end shows nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcerptFocus {
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
}

/// A step's context as a front end names it (MCP's `propose_edit`, `lspedit propose`): files
/// in priority order, keywords and focus lines. [`ContextRequest::select`] runs the selector
/// over them, so the caller never builds excerpts itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextRequest {
    pub files: Vec<String>,
    pub keywords: Vec<String>,
    /// A focused file not among `files` is a candidate after them.
    pub focus: Vec<ExcerptFocus>,
}

/// A [`ContextRequest`] that cannot be selected from; a front end refuses it, naming its
/// argument, before anything is read or stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContextError {
    /// Focus lines are 1-based and `start_line <= end_line`.
    #[error(
        "the focus lines {start_line}-{end_line} of `{path}` are not a range of 1-based lines (start_line >= 1, end_line >= start_line)"
    )]
    BadFocus {
        path: String,
        start_line: usize,
        end_line: usize,
    },
    /// Keywords and focus lines choose lines of files: without a file there is nothing to show.
    #[error("keywords choose lines of the context's files, but no file was named")]
    NoFiles,
}

impl ContextRequest {
    /// Nothing was asked: no context is recorded.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.keywords.is_empty() && self.focus.is_empty()
    }

    /// `Err` when the request cannot be selected from (see [`ContextError`]).
    pub fn check(&self) -> Result<(), ContextError> {
        if let Some(f) = self
            .focus
            .iter()
            .find(|f| f.start_line == 0 || f.end_line < f.start_line)
        {
            return Err(ContextError::BadFocus {
                path: f.path.clone(),
                start_line: f.start_line,
                end_line: f.end_line,
            });
        }
        if self.files.is_empty() && self.focus.is_empty() && !self.keywords.is_empty() {
            return Err(ContextError::NoFiles);
        }
        Ok(())
    }

    /// The excerpts of the named files, by [`select_excerpts_focused`] with the default limits.
    pub fn select(&self, ws: &Workspace) -> ExcerptSet {
        let mut files = self.files.clone();
        for f in &self.focus {
            if !files.iter().any(|p| same_path(p, &f.path)) {
                files.push(f.path.clone());
            }
        }
        let candidates = ExcerptCandidates {
            retrieval_hits: files,
            ..ExcerptCandidates::default()
        };
        select_excerpts_focused(
            ws,
            &candidates,
            &self.keywords,
            &self.focus,
            &ExcerptLimits::default(),
        )
    }
}

/// A candidate's path as the selector compares it (`./` dropped).
fn normal(path: &str) -> &str {
    path.strip_prefix("./").unwrap_or(path)
}

fn same_path(a: &str, b: &str) -> bool {
    normal(a) == normal(b)
}

/// Caps of the selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExcerptLimits {
    /// Files selected at most. Default 6.
    pub max_files: usize,
    /// Rendered lines at most, over all files. Default 400.
    pub max_lines: usize,
    /// Rendered lines at most per file, so one file cannot take the whole budget. Default 120.
    pub max_lines_per_file: usize,
    /// Lines shown before and after a keyword match. Default 2.
    pub context_lines: usize,
    /// Lines shown from the top of a file with no match. Default 8.
    pub head_lines: usize,
    /// Longer lines are cut with a marker. Default 240.
    pub max_line_chars: usize,
}

impl Default for ExcerptLimits {
    fn default() -> Self {
        ExcerptLimits {
            max_files: 6,
            max_lines: 400,
            max_lines_per_file: 120,
            context_lines: 2,
            head_lines: 8,
            max_line_chars: 240,
        }
    }
}

/// The excerpt of one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FileExcerpt {
    pub path: String,
    pub base_sha: String,
    /// Lines in the file.
    pub total_lines: usize,
    /// Shown line ranges, 1-based and inclusive, ascending and disjoint.
    pub ranges: Vec<(usize, usize)>,
    /// The rendered excerpt: header, anchored lines, `...` between ranges; ends with `\n`.
    pub text: String,
}

/// A candidate that was not selected, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedCandidate {
    pub path: String,
    pub reason: String,
}

/// The selection.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ExcerptSet {
    pub files: Vec<FileExcerpt>,
    /// Rendered lines over all files (≤ `max_lines`).
    pub total_lines: usize,
    pub skipped: Vec<SkippedCandidate>,
}

impl ExcerptSet {
    /// Every file's excerpt, in selection order.
    pub fn render(&self) -> String {
        self.files.iter().map(|f| f.text.as_str()).collect()
    }
}

const IMPORT_PREFIXES: &[&str] = &[
    "import ",
    "from ",
    "use ",
    "pub use ",
    "pub(crate) use ",
    "extern crate ",
    "mod ",
    "pub mod ",
    "#include",
    "package ",
    "using ",
];
const EXPORT_PREFIXES: &[&str] = &[
    "export ",
    "pub fn ",
    "pub async fn ",
    "pub struct ",
    "pub enum ",
    "pub trait ",
    "pub type ",
    "pub const ",
    "pub static ",
    "module.exports",
    "exports.",
    "__all__",
];
/// Top-level definitions, recognised only at column 0 (Python, Go).
const TOP_LEVEL_PREFIXES: &[&str] = &["def ", "class ", "func "];

/// Whether a line imports or exports something: after leading whitespace it starts with an
/// import form (`import`, `from`, `use`, `mod`, `#include`, `package`, `using`, ...) or an
/// export form (`export`, `pub fn/struct/enum/trait/type/const/static`, `module.exports`,
/// `exports.`, `__all__`), contains `require(`, or is a column-0 `def`/`class`/`func`.
fn is_import_or_export(line: &str) -> bool {
    let t = line.trim_start();
    IMPORT_PREFIXES.iter().any(|p| t.starts_with(p))
        || EXPORT_PREFIXES.iter().any(|p| t.starts_with(p))
        || t.contains("require(")
        || TOP_LEVEL_PREFIXES.iter().any(|p| line.starts_with(p))
}

/// Rendered lines of a selection: one per shown line, one per gap between ranges, plus the
/// header.
fn cost(selected: &BTreeSet<usize>) -> usize {
    if selected.is_empty() {
        return 1;
    }
    let runs = ranges(selected).len();
    1 + selected.len() + runs - 1
}

/// Contiguous runs of 0-based indices as 1-based inclusive ranges.
fn ranges(selected: &BTreeSet<usize>) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &i in selected {
        match out.last_mut() {
            Some((_, end)) if *end == i => *end = i + 1,
            _ => out.push((i + 1, i + 1)),
        }
    }
    out
}

/// Choose lines of one file within `budget` rendered lines: the `focus` ranges (0-based,
/// inclusive) first.
fn choose_lines(
    texts: &[&str],
    keywords: &[String],
    focus: &[(usize, usize)],
    limits: &ExcerptLimits,
    budget: usize,
) -> BTreeSet<usize> {
    let last = texts.len().saturating_sub(1);
    let mut windows: Vec<(usize, usize)> = focus
        .iter()
        .filter(|(start, _)| *start <= last)
        .map(|&(start, end)| (start, end.min(last)))
        .collect();
    for (i, line) in texts.iter().enumerate() {
        let lower = line.to_lowercase();
        if keywords.iter().any(|k| lower.contains(k.as_str())) {
            let start = i.saturating_sub(limits.context_lines);
            let end = (i + limits.context_lines).min(texts.len().saturating_sub(1));
            windows.push((start, end));
        }
    }
    windows.extend(
        texts
            .iter()
            .enumerate()
            .filter(|(_, l)| is_import_or_export(l))
            .map(|(i, _)| (i, i)),
    );
    if windows.is_empty() {
        windows.push((0, limits.head_lines.min(texts.len()).saturating_sub(1)));
    }
    let mut selected = BTreeSet::new();
    for (start, end) in windows {
        let mut tentative = selected.clone();
        tentative.extend(start..=end);
        if cost(&tentative) <= budget {
            selected = tentative;
        }
    }
    selected
}

/// Select excerpts of `candidates` for `keywords` (see the module documentation for the
/// rules). Candidates that are missing, outside the workspace, binary or not UTF-8, duplicates,
/// or past a cap are listed in `skipped` with the reason.
pub fn select_excerpts(
    ws: &Workspace,
    candidates: &ExcerptCandidates,
    keywords: &[String],
    limits: &ExcerptLimits,
) -> ExcerptSet {
    select_excerpts_focused(ws, candidates, keywords, &[], limits)
}

/// [`select_excerpts`], showing the `focus` lines of their files first (see
/// [`ExcerptFocus`]).
pub fn select_excerpts_focused(
    ws: &Workspace,
    candidates: &ExcerptCandidates,
    keywords: &[String],
    focus: &[ExcerptFocus],
    limits: &ExcerptLimits,
) -> ExcerptSet {
    let keywords: Vec<String> = keywords
        .iter()
        .map(|k| k.trim().to_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    let mut set = ExcerptSet::default();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let ordered = candidates
        .retrieval_hits
        .iter()
        .chain(&candidates.open_files)
        .chain(&candidates.fallback);
    for raw in ordered {
        let path = normal(raw).to_string();
        if !seen.insert(path.clone()) {
            continue;
        }
        let skip = |set: &mut ExcerptSet, reason: String| {
            set.skipped.push(SkippedCandidate {
                path: path.clone(),
                reason,
            });
        };
        if set.files.len() >= limits.max_files {
            skip(
                &mut set,
                format!("file cap of {} reached", limits.max_files),
            );
            continue;
        }
        let budget = limits
            .max_lines
            .saturating_sub(set.total_lines)
            .min(limits.max_lines_per_file);
        // A header and one line is the smallest useful excerpt.
        if budget < 2 {
            skip(
                &mut set,
                format!("line budget of {} used up", limits.max_lines),
            );
            continue;
        }
        let bytes = match ws.read(&path) {
            Ok(Some(b)) => b,
            Ok(None) => {
                skip(&mut set, "file_not_found: the file does not exist".into());
                continue;
            }
            Err(e) => {
                skip(&mut set, format!("{}: {}", e.reason, e.message));
                continue;
            }
        };
        let doc = match Document::from_bytes(&bytes) {
            Ok(d) => d,
            Err(e) => {
                skip(&mut set, format!("{}: {}", e.reason, e.message));
                continue;
            }
        };
        let texts = doc.texts();
        if texts.is_empty() {
            skip(&mut set, "the file is empty".into());
            continue;
        }
        let focused: Vec<(usize, usize)> = focus
            .iter()
            .filter(|f| same_path(&f.path, &path) && f.start_line >= 1)
            .map(|f| (f.start_line - 1, f.end_line.saturating_sub(1)))
            .collect();
        let selected = choose_lines(&texts, &keywords, &focused, limits, budget);
        if selected.is_empty() {
            skip(&mut set, "nothing fits the remaining line budget".into());
            continue;
        }
        let sha = base_sha(&bytes);
        let shown = ranges(&selected);
        let listing: Vec<String> = shown.iter().map(|(a, b)| format!("{a}-{b}")).collect();
        let mut text = format!(
            "==> {path} base_sha={sha} lines={} showing={} <==\n",
            texts.len(),
            listing.join(",")
        );
        for (k, (start, end)) in shown.iter().enumerate() {
            if k > 0 {
                text.push_str("...\n");
            }
            text.push_str(&hashline_view(
                &texts,
                ViewOptions {
                    offset: *start,
                    limit: Some(end - start + 1),
                    max_line_chars: limits.max_line_chars,
                },
            ));
        }
        set.total_lines += cost(&selected);
        set.files.push(FileExcerpt {
            path,
            base_sha: sha,
            total_lines: texts.len(),
            ranges: shown,
            text,
        });
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_export_rules() {
        for yes in [
            "use std::fs;",
            "  import x from 'y';",
            "export function f() {}",
            "pub fn main() {}",
            "const a = require('a');",
            "def top():",
            "#include <stdio.h>",
        ] {
            assert!(is_import_or_export(yes), "{yes}");
        }
        for no in ["    def method(self):", "let x = 1;", "fn private() {}", ""] {
            assert!(!is_import_or_export(no), "{no}");
        }
    }

    #[test]
    fn cost_counts_header_lines_and_gaps() {
        assert_eq!(cost(&BTreeSet::new()), 1);
        assert_eq!(cost(&BTreeSet::from([0, 1, 2])), 4);
        assert_eq!(cost(&BTreeSet::from([0, 1, 5])), 5);
        assert_eq!(ranges(&BTreeSet::from([0, 1, 5])), vec![(1, 2), (6, 6)]);
    }

    #[test]
    fn keyword_windows_come_first_and_respect_the_budget() {
        let texts: Vec<String> = (0..50)
            .map(|i| match i {
                0 => "use a;".to_string(),
                30 => "fn target() {}".to_string(),
                _ => format!("line {i}"),
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let limits = ExcerptLimits::default();
        let sel = choose_lines(&refs, &["target".into()], &[], &limits, 6);
        // Header + 5 lines of the keyword window; the import does not fit (it needs a gap too).
        assert_eq!(sel, BTreeSet::from([28, 29, 30, 31, 32]));
        let sel = choose_lines(&refs, &["target".into()], &[], &limits, 100);
        assert!(sel.contains(&0) && sel.contains(&30));
        let sel = choose_lines(&refs, &["absent".into()], &[], &limits, 100);
        assert_eq!(sel, BTreeSet::from([0]));
        // Focus lines come first: with a budget of 4 (header + 3 lines) only they are shown;
        // a range past the end is clamped.
        let sel = choose_lines(&refs, &["target".into()], &[(10, 12)], &limits, 4);
        assert_eq!(sel, BTreeSet::from([10, 11, 12]));
        let sel = choose_lines(&refs, &[], &[(48, 60), (70, 80)], &limits, 100);
        assert!(sel.contains(&48) && sel.contains(&49), "{sel:?}");
    }
}
