//! `replace_symbol_body`, `insert_before_symbol` and `insert_after_symbol` (issue 27, phase 2b):
//! code changed by name. The symbol is found by its name path in the file's `documentSymbol`
//! tree ([`resolve`]); the change is computed here as the file's new text ([`plan`], pure) and
//! becomes an anchored unified diff that the workflow proposes and applies like any patch — the
//! one planner and committer: confined, atomic, undoable, with fresh anchors and diagnostics.
//!
//! **Which symbol** (docs/design.md §13): the symbols whose name path ends with `name_path` at a
//! segment boundary (`total` names `Cart/total` and a top-level `total` alike); a leading `/`
//! asks for the path from the top exactly (`/total` is the top-level one). More than one is
//! `ambiguous_match`, listing each by name path, anchor and lines — unless `anchor` (the anchor
//! `outline` or `find_symbol` gave, `12abcd`) picks one: the candidate on its line, else the
//! one line holding its text. An anchor whose line no candidate holds any more is
//! `stale_context`: the symbol changed since it was read. No candidate is `symbol_not_found`
//! with the nearest names.
//!
//! **What it may change** ([`edit_target`]): only the target's own lines. The server's range is
//! checked against the tree (inside the file and its parent, straddling no other symbol) and,
//! where `extent.rs` lexes the language, against the text (one whole declaration); a range that
//! fails is recalled from the session's [`SymbolMemory`] when every change since the file's last
//! whole reading lies inside the symbol, else refused as `symbol_range_unreliable`.
//!
//! **The text written** ([`plan`]): `body` is re-indented by its common indentation so its first
//! line sits at the symbol's indentation (a body as `find_symbol` shows it, first line bare and
//! the rest at the file's indentation, is taken as it stands); its line endings become the
//! file's (CRLF when the file's first line ends so); a trailing newline is dropped (the place
//! decides). A replacement takes the symbol's lines: the comments, doc comments, attributes and
//! decorators that lead it stay unless the body brings its own, text before the range on its
//! line (`export const `) stays unless the body restates it, text after it (`;`) unless the body
//! ends with it. An insertion before the symbol goes above the lines that lead it; one after
//! goes below its last line. Blank lines around an insertion: two beside a top-level Python
//! definition (PEP 8), none between two one-line symbols (fields, constants), one otherwise;
//! none where the neighbour is the container's opening or closing line (less indented), and
//! blank lines already there are kept, not doubled. A BOM stays first.

use std::time::Instant;

use lspedit_engine::Anchor;
use lspedit_lsp::PositionEncoding;
use lspedit_lsp::lsp_types::Range;
use lspedit_tools::front::{Step, say};
use lspedit_write::{Reason, ToolError, Workspace};

use super::extent;
use super::memory::{Recalled, SymbolMemory};
use super::position::{FileText, line_spans};
use super::symbols::{self, SymbolEntry};
use super::{LspEditError, LspEditProvider, server_error};

/// What a symbol edit does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolEditKind {
    /// The whole declaration (signature and body) becomes `body`.
    Replace,
    /// `body` goes above the symbol (and its leading comments).
    InsertBefore,
    /// `body` goes below the symbol.
    InsertAfter,
}

/// A change addressed by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolEdit {
    pub kind: SymbolEditKind,
    /// The file holding the symbol, relative to the root.
    pub path: String,
    /// `Cart/total`, or a name that is unique in the file (`total`).
    pub name_path: String,
    /// The new declaration (replace) or the code to add (insert).
    pub body: String,
    /// The symbol line's anchor as `outline` or `find_symbol` gave it (`12abcd`): checks the
    /// symbol is still what was read, and picks one among symbols of the same name path.
    pub anchor: Option<String>,
}

impl SymbolEdit {
    pub fn new(
        kind: SymbolEditKind,
        path: impl Into<String>,
        name_path: impl Into<String>,
        body: impl Into<String>,
    ) -> SymbolEdit {
        SymbolEdit {
            kind,
            path: path.into(),
            name_path: name_path.into(),
            body: body.into(),
            anchor: None,
        }
    }

    pub fn anchor(mut self, anchor: impl Into<String>) -> SymbolEdit {
        self.anchor = Some(anchor.into());
        self
    }
}

/// The symbol a name path resolved to, in the file as read.
pub(crate) struct Resolved {
    pub file: FileText,
    pub entry: SymbolEntry,
    /// The byte range of the whole declaration in `file.text` (for a lookup, which asks at the
    /// name, an end past the file's is taken as its end; `tree` holds the server's as it is).
    pub range: std::ops::Range<usize>,
    /// Every symbol of the file, depth first, with its byte range (`None`: its range is not
    /// inside the file); the target is `tree[index]`.
    pub tree: Vec<(SymbolEntry, Option<std::ops::Range<usize>>)>,
    pub index: usize,
    pub server: String,
    pub server_time: std::time::Duration,
}

/// The one symbol of `path` that `name_path` (and `anchor`, when given) names.
pub(crate) fn resolve(
    ws: &Workspace,
    provider: Option<&dyn LspEditProvider>,
    path: &str,
    name_path: &str,
    anchor: Option<&str>,
    deadline: Instant,
) -> Result<Resolved, LspEditError> {
    let file = symbols::read_source(ws, path)?;
    let provider = provider.filter(|p| p.handles(&file.abs)).ok_or_else(|| {
        server_error(
            &file.rel,
            lspedit_lsp::LspError::NoServer {
                path: file.abs.clone(),
            },
        )
    })?;
    let found = symbols::file_symbols(provider, &file, deadline, None)?;
    // `/Cart/total` is the path from the top, exactly; `Cart/total` any path ending so.
    let from_top = name_path.trim().starts_with('/');
    let query = name_path.trim().trim_matches('/');
    let mut candidates: Vec<usize> = (0..found.entries.len())
        .filter(|&i| {
            let e = &found.entries[i];
            if from_top {
                e.name_path == query
            } else {
                symbols::matches(&e.name_path, symbols::container_name(&e.name), query, true)
            }
        })
        .collect();
    if candidates.is_empty() {
        return Err(LspEditError::NoSuchSymbol {
            path: file.rel.clone(),
            name_path: query.to_owned(),
            nearest: symbols::suggest(query, found.entries.iter().map(|e| e.name_path.as_str())),
        });
    }
    if let Some(anchor) = anchor {
        candidates = by_anchor(&file, &found.entries, candidates, anchor.trim())?;
    }
    if candidates.len() > 1 {
        let listed: Vec<String> = candidates
            .iter()
            .map(|&i| symbols::outline_line(&found.entries[i], found.entries[i].depth))
            .collect();
        // Symbols of one name path (a C prototype and its definition, two impl blocks' methods)
        // differ only by their anchors.
        let one_path = candidates
            .iter()
            .all(|&i| found.entries[i].name_path == found.entries[candidates[0]].name_path);
        let how = if one_path {
            "give the anchor of the one you mean"
        } else {
            "give the full name path (`/` first for a path from the top), or the anchor of the one you mean"
        };
        return Err(LspEditError::Tool(ToolError::new(
            Reason::AmbiguousMatch,
            Some(&file.rel),
            format!(
                "`{query}` names {} symbols: {}; {how}",
                candidates.len(),
                listed.join("; ")
            ),
        )));
    }
    let i = candidates[0];
    let lenient =
        byte_range(&file.text, found.ranges[i], found.encoding, true).ok_or_else(|| {
            LspEditError::BadServerEdit {
                path: file.rel.clone(),
                message: format!(
                    "the server's range of `{}` lies outside the file",
                    found.entries[i].name_path
                ),
            }
        })?;
    let tree = found
        .entries
        .iter()
        .zip(&found.ranges)
        .map(|(e, r)| (e.clone(), byte_range(&file.text, *r, found.encoding, false)))
        .collect::<Vec<_>>();
    Ok(Resolved {
        entry: found.entries[i].clone(),
        range: lenient,
        tree,
        index: i,
        server: found.server,
        server_time: found.server_time,
        file,
    })
}

/// The byte offset of the resolved symbol's name, where a position request (hover, call
/// hierarchy, implementations, ...) about it is asked: on the line holding its name (the
/// server's selection range), the first appearance of its own name (an impl block's: its type)
/// as a whole identifier, at or after the declaration's start when that is on the same line;
/// else any appearance there; else the line's first non-blank character.
pub(crate) fn name_offset(found: &Resolved) -> usize {
    let text = &found.file.text;
    let spans = line_spans(text);
    let Some(span) = spans.get(found.entry.line.saturating_sub(1)) else {
        return found.range.start;
    };
    let from = if (span.start..=span.end).contains(&found.range.start) {
        found.range.start
    } else {
        span.start
    };
    let line = &text[span.start..span.end];
    let name = symbols::container_name(&found.entry.name);
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let all: Vec<usize> = if name.is_empty() {
        Vec::new()
    } else {
        line.match_indices(name)
            .map(|(i, _)| span.start + i)
            .collect()
    };
    let whole = |&at: &usize| {
        !text[..at].chars().next_back().is_some_and(word)
            && !text[at + name.len()..].chars().next().is_some_and(word)
    };
    all.iter()
        .copied()
        .filter(|at| *at >= from)
        .find(whole)
        .or_else(|| all.iter().copied().find(whole))
        .or_else(|| all.first().copied())
        .unwrap_or_else(|| {
            let rest = &text[from..span.end];
            from + (rest.len() - rest.trim_start().len())
        })
}

/// The candidates `anchor` picks: the one on its line, else those whose name line holds its
/// text; none is `stale_context`.
fn by_anchor(
    file: &FileText,
    entries: &[SymbolEntry],
    candidates: Vec<usize>,
    anchor: &str,
) -> Result<Vec<usize>, LspEditError> {
    let parsed = Anchor::parse(anchor).ok_or_else(|| {
        ToolError::new(
            Reason::InvalidDiffFormat,
            Some(&file.rel),
            format!(
                "`{anchor}` is not an anchor like `42abcd` (line number, then the 4 letters {} shows)",
                say(&Step::SymbolAnchors)
            ),
        )
    })?;
    let on_line: Vec<usize> = candidates
        .iter()
        .copied()
        .filter(|&i| entries[i].line == parsed.line)
        .collect();
    let same_text =
        |i: &usize| Anchor::parse(&entries[*i].anchor).is_some_and(|a| a.hash == parsed.hash);
    if !on_line.is_empty() {
        let fresh: Vec<usize> = on_line.iter().copied().filter(same_text).collect();
        if !fresh.is_empty() {
            return Ok(fresh);
        }
    }
    let moved: Vec<usize> = candidates.iter().copied().filter(same_text).collect();
    if !moved.is_empty() {
        return Ok(moved);
    }
    let spans = line_spans(&file.text);
    let now = spans
        .get(parsed.line.wrapping_sub(1))
        .map_or("(past the end of the file)".to_owned(), |s| {
            format!("`{}`", &file.text[s.start..s.end])
        });
    Err(LspEditError::Tool(ToolError::new(
        Reason::StaleContext,
        Some(&file.rel),
        format!(
            "the symbol changed since it was read: no `{}` symbol is on line {} as {anchor} said (line {} is now {now}); read it again with {}",
            entries[candidates[0]].name_path,
            parsed.line,
            parsed.line,
            say(&Step::SymbolAnchors)
        ),
    )))
}

/// The byte range of `range` in `text`; an end just past a `\r` of a CRLF ends before it, and
/// neither end is inside or before a BOM (servers differ on whether it counts as a character).
/// A position on a line past the file's end is `None`, or with `lenient` (a lookup, which asks
/// only at the start) the file's end.
fn byte_range(
    text: &str,
    range: Range,
    encoding: PositionEncoding,
    lenient: bool,
) -> Option<std::ops::Range<usize>> {
    let bom = bom_len(text);
    let start = encoding.offset(text, range.start)?.max(bom);
    let end = match encoding.offset(text, range.end) {
        Some(end) => end,
        None if lenient => text.len(),
        None => return None,
    };
    let mut end = end.max(start);
    if end > start && text[..end].ends_with('\r') && text[end..].starts_with('\n') {
        end -= 1;
    }
    (start <= end && range.start <= range.end).then_some(start..end)
}

/// A symbol edit's target, checked: what it may change.
pub(crate) struct Checked {
    pub target: Target,
    /// The range came from lspedit's last whole reading of the file ([`SymbolMemory`]), not
    /// the server's current one, which failed the check for this reason.
    pub recalled: Option<String>,
}

/// The target of a symbol edit, checked to be one whole declaration (docs/design.md §13,
/// "Range"): the server's range inside the file, inside its parent's, overlapping no other
/// symbol but its own children, and, where lspedit lexes the language, one declaration from
/// end to end ([`extent::flaw`]). A range that fails is recalled from `memory` when every change
/// since the file's last whole reading lies inside this symbol, else refused
/// (`symbol_range_unreliable`), never trimmed. A consistent tree of a file that lexes whole is
/// remembered.
pub(crate) fn edit_target(
    found: &Resolved,
    memory: Option<&SymbolMemory>,
) -> Result<Checked, LspEditError> {
    let text = &found.file.text;
    let lang = extent::Lang::of(&found.file.rel);
    let scan = lang.map(|l| extent::Scan::new(l, text));
    let spans = line_spans(text);
    let why = match tree_flaw(found, lang.is_some()) {
        Some(why) => Some(why),
        None => {
            let name_line = spans
                .get(found.entry.line.saturating_sub(1))
                .map_or(found.range.start, |l| l.start);
            lang.zip(scan.as_ref()).and_then(|(lang, scan)| {
                extent::flaw(lang, scan, text, found.range.clone(), name_line)
                    .map(|f| flaw_text(text, &spans, &found.range, f))
            })
        }
    };
    let Some(why) = why else {
        if let (Some(memory), Some(scan)) = (memory, scan.as_ref()) {
            keep_reading(
                memory,
                &found.file,
                scan,
                found.tree.iter().map(|(e, r)| (e, r.clone())),
            );
        }
        return Ok(Checked {
            target: Target::of(found, found.range.clone(), scan.as_ref()),
            recalled: None,
        });
    };
    let claimed = format!(
        "{} gives `{}` {}",
        found.server,
        found.entry.name_path,
        symbols::line_range(&found.entry)
    );
    // The reading it is recalled from must hold it as one whole declaration too.
    let whole_there = |r: &Recalled| {
        lang.is_some_and(|lang| {
            let read = &r.read;
            let scan = extent::Scan::new(lang, read);
            let name_line = line_spans(read)
                .get(found.entry.line.saturating_sub(1))
                .map_or(r.read_range.start, |l| l.start);
            extent::flaw(lang, &scan, read, r.read_range.clone(), name_line).is_none()
        })
    };
    if let Some(recalled) = memory
        .and_then(|m| {
            m.recall(
                &found.file.rel,
                text,
                &found.entry.name_path,
                found.entry.line,
            )
        })
        .filter(whole_there)
    {
        return Ok(Checked {
            target: Target::of(found, recalled.range, scan.as_ref()),
            recalled: Some(format!("{claimed}, but {why}")),
        });
    }
    Err(LspEditError::RangeUnreliable {
        path: found.file.rel.clone(),
        message: format!(
            "{claimed}, but {why}: an edit there could change code that is not `{}`'s",
            found.entry.name_path
        ),
    })
}

/// Remembers a reading of `file` (its symbols and the server's ranges) in `memory` when lspedit
/// lexes its language and the text lexes whole.
pub(crate) fn remember(
    memory: &SymbolMemory,
    file: &FileText,
    entries: &[SymbolEntry],
    ranges: &[Range],
    encoding: PositionEncoding,
) {
    let Some(lang) = extent::Lang::of(&file.rel) else {
        return;
    };
    keep_reading(
        memory,
        file,
        &extent::Scan::new(lang, &file.text),
        entries
            .iter()
            .zip(ranges)
            .map(|(e, r)| (e, byte_range(&file.text, *r, encoding, false))),
    );
}

/// Keeps `symbols` of `file` (each with its byte range; `None`, outside the file, is left out)
/// in `memory` when `scan`, its text lexed, found it whole.
fn keep_reading<'s>(
    memory: &SymbolMemory,
    file: &FileText,
    scan: &extent::Scan,
    symbols: impl Iterator<Item = (&'s SymbolEntry, Option<std::ops::Range<usize>>)>,
) {
    if scan.broken {
        return;
    }
    memory.remember(
        &file.rel,
        &file.text,
        symbols.filter_map(|(e, r)| r.map(|r| (e.name_path.as_str(), r, e.line))),
    );
}

/// The 1-based first and last lines of `range` (an end at a line's start ends on the line
/// before).
pub(crate) fn line_numbers(
    spans: &[super::position::LineSpan],
    range: &std::ops::Range<usize>,
) -> (usize, usize) {
    (
        line_of(spans, range.start) + 1,
        line_of(spans, range.end.saturating_sub(1).max(range.start)) + 1,
    )
}

/// Why the server's tree does not hold the target as one symbol of its own: its range past the
/// file's end, a member outside it, its parent not holding it, or another symbol straddling
/// its boundary — or, with `lexed` false (no lexer checks the range), lying inside it. A symbol
/// wholly inside a range the lexer found to be one declaration is part of its text (pyright
/// lists `self.items`, set in `__init__`, as a member of the class).
fn tree_flaw(found: &Resolved, lexed: bool) -> Option<String> {
    let spans = line_spans(&found.file.text);
    let lines = |r: &std::ops::Range<usize>| {
        let (a, b) = line_numbers(&spans, r);
        if a == b {
            format!("line {a}")
        } else {
            format!("lines {a}-{b}")
        }
    };
    let (entry, range) = &found.tree[found.index];
    let Some(range) = range else {
        return Some(format!(
            "that range ends past the end of the file ({} lines)",
            spans.len()
        ));
    };
    let depth = entry.depth;
    // Its descendants follow it with a greater depth; its ancestors are the nearest entries
    // before it at each smaller depth.
    let descendants = found.tree[found.index + 1..]
        .iter()
        .take_while(|(e, _)| e.depth > depth)
        .count();
    let mut ancestors = Vec::new();
    let mut want = depth;
    for j in (0..found.index).rev() {
        if want == 0 {
            break;
        }
        if found.tree[j].0.depth < want {
            want = found.tree[j].0.depth;
            ancestors.push(j);
        }
    }
    for (j, (other, r)) in found.tree.iter().enumerate() {
        if j == found.index {
            continue;
        }
        let Some(r) = r else {
            continue;
        };
        let descendant = j > found.index && j <= found.index + descendants;
        if descendant {
            if r.start < range.start || r.end > range.end {
                return Some(format!(
                    "its member `{}` ({}) lies outside it",
                    other.name_path,
                    lines(r)
                ));
            }
        } else if ancestors.contains(&j) {
            if range.start < r.start || range.end > r.end {
                return Some(format!(
                    "that range is not inside `{}` ({}), which holds it",
                    other.name_path,
                    lines(r)
                ));
            }
        } else if r.start < range.end
            && range.start < r.end
            && !(lexed && r.start >= range.start && r.end <= range.end)
        {
            return Some(format!(
                "that range overlaps `{}` ({}), which is not part of it",
                other.name_path,
                lines(r)
            ));
        }
    }
    None
}

/// A lexical flaw in words: the line it is on, that line's text, and what it means.
fn flaw_text(
    text: &str,
    spans: &[super::position::LineSpan],
    range: &std::ops::Range<usize>,
    flaw: extent::Flaw,
) -> String {
    let at_line = |at: usize| {
        let i = line_of(spans, at);
        let t = &text[spans[i].start..spans[i].end];
        let t = t.trim();
        let shown: String = t.chars().take(60).collect();
        let more = if shown.len() < t.len() { "…" } else { "" };
        (i + 1, format!("`{shown}{more}`"))
    };
    let last = line_of(spans, range.end.saturating_sub(1).max(range.start)) + 1;
    match flaw {
        extent::Flaw::InsideText { at } => {
            let (n, t) = at_line(at);
            format!("that range starts or ends inside a string or comment (line {n}, {t})")
        }
        extent::Flaw::Unbalanced { at } => {
            let (n, t) = at_line(at);
            format!(
                "a bracket on line {n} ({t}) is not matched inside that range (a syntax error in it?)"
            )
        }
        extent::Flaw::Swallows { at } => {
            let (n, t) = at_line(at);
            format!(
                "line {n} ({t}) is code after its end (a syntax error before it?); lines {n}-{last} would be lost"
            )
        }
        extent::Flaw::StopsShort { at } => {
            let (n, t) = at_line(at);
            format!("line {n} ({t}), after that range, still belongs to it")
        }
    }
}

/// The file's new text, or why there is none.
pub(crate) fn plan(
    kind: SymbolEditKind,
    text: &str,
    target: &Target,
    body: &str,
) -> Result<String, PlanError> {
    let lines = line_spans(text);
    let eol = if text
        .find('\n')
        .is_some_and(|i| i > 0 && text.as_bytes()[i - 1] == b'\r')
    {
        "\r\n"
    } else {
        "\n"
    };
    let first = line_of(&lines, target.range.start);
    // The line of the range's last character (an end at a line's start ends the line before).
    let last = line_of(
        &lines,
        target.range.end.saturating_sub(1).max(target.range.start),
    );
    let indent = indentation(&text[lines[first].start..lines[first].end]).to_owned();
    let body = reindent(body, &indent, eol, target.python);
    if body.trim().is_empty() {
        return Err(PlanError::Empty);
    }
    let blank = |i: usize| text[lines[i].start..lines[i].end].trim().is_empty();
    let less_indented = |i: usize| {
        let l = &text[lines[i].start..lines[i].end];
        indentation(l).len() < indent.len()
    };
    let mut out = String::with_capacity(text.len() + body.len() + 8);
    match kind {
        SymbolEditKind::Replace => {
            let r = target.replaced(text, &body)?;
            // `body` re-indented for a line start; its first line goes where the range starts.
            out.push_str(&text[..r.start]);
            if r.start == lines[line_of(&lines, r.start)].start.max(bom_len(text)) {
                out.push_str(&body);
            } else {
                out.push_str(body.strip_prefix(indent.as_str()).unwrap_or(&body));
            }
            // A range that took its last line's ending gives it back.
            if r.end > r.start && text[..r.end].ends_with('\n') {
                out.push_str(eol);
            }
            out.push_str(&text[r.end..]);
        }
        SymbolEditKind::InsertBefore => {
            let mut top = first;
            while top > 0 && leads(&text[lines[top - 1].start..lines[top - 1].end], target) {
                top -= 1;
            }
            let n = separation(target, &body);
            let at = lines[top].start.max(bom_len(text));
            let before = if top > 0 && !blank(top - 1) && !less_indented(top - 1) {
                n
            } else {
                0
            };
            out.push_str(&text[..at]);
            out.push_str(&eol.repeat(before));
            out.push_str(&body);
            out.push_str(eol);
            out.push_str(&eol.repeat(n));
            out.push_str(&text[at..]);
        }
        SymbolEditKind::InsertAfter => {
            let n = separation(target, &body);
            let end_of_last = lines[last].end;
            let next = (last + 1 < lines.len()).then_some(last + 1);
            let after = match next {
                Some(i) if !blank(i) && !less_indented(i) => n,
                _ => 0,
            };
            out.push_str(&text[..end_of_last]);
            out.push_str(eol);
            out.push_str(&eol.repeat(n));
            out.push_str(&body);
            match next {
                // The symbol's own line ending now ends the body.
                Some(_) => {
                    out.push_str(&text[end_of_last..lines[last + 1].start]);
                    out.push_str(&eol.repeat(after));
                    out.push_str(&text[lines[last + 1].start..]);
                }
                None => out.push_str(&text[end_of_last..]),
            }
        }
    }
    Ok(out)
}

/// What [`plan`] needs of the symbol.
pub(crate) struct Target {
    /// The byte range of its whole declaration.
    pub range: std::ops::Range<usize>,
    /// Top level (0) or nested.
    pub depth: usize,
    /// A one-line member (field, property, constant, variable, enum member, key): a one-line
    /// body goes beside it without a blank line.
    pub one_line_member: bool,
    /// A Python file: PEP 8's two blank lines around top-level definitions, `#` comments.
    pub python: bool,
    /// The comments, doc comments, attributes and decorators that lead the declaration, on the
    /// lines directly above its name's (inside the server's range or above it): bytes from
    /// the first one's line start to the declaration proper. Empty when there are none.
    pub leading: std::ops::Range<usize>,
    /// The range's whole lines hold no other symbol's text: a replacement takes them.
    pub own_lines: bool,
    /// The server's range is the name alone (pyright's variables): its statement is its lines.
    pub name_only: bool,
    /// Its own name (`total`).
    pub name: String,
    /// Where a name-only range's statement ends (its last line's end, past the lines its
    /// brackets span); else the range's end.
    pub statement_end: usize,
}

/// The lines a replacement keeps above the declaration, when the body brings no leading lines
/// of its own: their 1-based numbers.
pub(crate) fn kept_leading(text: &str, target: &Target, body: &str) -> Option<(usize, usize)> {
    if target.leading.is_empty() || body_leads(body, target) {
        return None;
    }
    let spans = line_spans(text);
    let (a, b) = line_numbers(&spans, &target.leading);
    Some((a, b))
}

/// Whether the body's first non-blank line is a comment, attribute or decorator.
fn body_leads(body: &str, target: &Target) -> bool {
    body.lines()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| leads(l, target))
}

impl Target {
    pub(crate) fn of(
        r: &Resolved,
        range: std::ops::Range<usize>,
        scan: Option<&extent::Scan>,
    ) -> Target {
        let text = &r.file.text;
        let python = is_python(&r.file.rel);
        let spans = line_spans(text);
        let first = line_of(&spans, range.start);
        let last = line_of(&spans, range.end.saturating_sub(1).max(range.start));
        let lines = spans[first].start..spans[last].end;
        // Another symbol with text on the range's lines, outside it: not a descendant (inside
        // the range) and not an ancestor holding those whole lines.
        let shared = r.tree.iter().enumerate().any(|(j, (_, o))| {
            let Some(o) = o else {
                return false;
            };
            j != r.index
                && !(o.start >= range.start && o.end <= range.end)
                && !(o.start <= lines.start && o.end >= lines.end)
                && o.start < lines.end
                && lines.start < o.end
        });
        let name_line = r
            .entry
            .line
            .saturating_sub(1)
            .min(spans.len().saturating_sub(1));
        let mut target = Target {
            range: range.clone(),
            depth: r.entry.depth,
            one_line_member: r.entry.start_line == r.entry.end_line
                && MEMBER_KINDS.contains(&r.entry.kind),
            python,
            leading: range.start..range.start,
            own_lines: !shared,
            name_only: first == last
                && text[range.clone()] == *symbols::container_name(&r.entry.name),
            name: symbols::container_name(&r.entry.name).to_owned(),
            statement_end: range.end,
        };
        // The leading lines: up from the name's line while each line above is a comment (or
        // inside a brackets a decorator opened) and starts no earlier than the range's own
        // start line, or, above the range, leads it.
        let mut top = name_line.max(first);
        while top > 0 {
            let l = &spans[top - 1];
            let line = &text[l.start..l.end];
            let first_byte = l.start + (line.len() - line.trim_start().len());
            let in_range = l.start >= spans[first].start;
            let continued =
                in_range && scan.is_some_and(|s| s.open_between(range.start, first_byte) > 0);
            let commented = scan.is_some_and(|s| s.comment_at(first_byte));
            if line.trim().is_empty() || !(leads(line, &target) || continued || commented) {
                break;
            }
            top -= 1;
        }
        let decl = spans[name_line.max(first)].start;
        if top < name_line.max(first) {
            target.leading = spans[top].start.max(bom_len(text))..decl.max(range.start);
        }
        // A name-only range's statement: its line, and the lines after it while a bracket
        // opened on them is open.
        if target.name_only {
            let mut end = spans[last].end;
            let mut next = last + 1;
            while next < spans.len()
                && scan.is_some_and(|s| s.open_between(spans[first].start, end) > 0)
            {
                end = spans[next].end;
                next += 1;
            }
            target.statement_end = end;
        }
        target
    }

    /// The bytes a replacement by `body` (re-indented) takes: the range; its leading lines only
    /// when the body brings its own (and those above the range then too); and its whole lines
    /// when no other symbol shares them — keeping the text before the range on its first line
    /// (`export const `) unless the body has text before the symbol's name, and the text after
    /// it on its last line (`;`) unless the body ends with it. A name-only range (the server
    /// gave the name, not the statement) is its whole lines.
    fn replaced(&self, text: &str, body: &str) -> Result<std::ops::Range<usize>, PlanError> {
        let mut r = self.range.clone();
        if !self.leading.is_empty() {
            if body_leads(body, self) {
                r.start = r.start.min(self.leading.start);
            } else {
                r.start = r.start.max(self.leading.end);
            }
        }
        let spans = line_spans(text);
        let first = spans[line_of(&spans, r.start)];
        let last = spans[line_of(&spans, r.end.saturating_sub(1).max(r.start))];
        let before = &text[first.start..r.start];
        let after = text[r.end.min(last.end)..last.end].trim();
        let body_first = body.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        let restated = self.name_only
            || word_at(body_first, &self.name)
                .is_some_and(|at| !body_first[..at].trim().is_empty());
        if !self.own_lines {
            // Another symbol's text is on these lines: only the range is the symbol's, and a
            // body that restates what is before it there would double it.
            if self.name_only || (restated && !before.trim().is_empty()) {
                return Err(PlanError::NotOwn(format!(
                    "line {} holds another symbol's text too, so only `{}` is `{}`'s own; give the body as that text, or change the line with `edit`",
                    first.number,
                    &text[self.range.clone()],
                    self.name
                )));
            }
            return Ok(r);
        }
        if before.trim().is_empty() || restated {
            r.start = first.start.max(bom_len(text));
        }
        if self.name_only {
            r.end = r.end.max(self.statement_end);
        } else if !after.is_empty() && body.trim_end().ends_with(after) {
            r.end = r.end.max(last.end);
        }
        Ok(r)
    }
}

/// Why [`plan`] writes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PlanError {
    /// The body is empty.
    Empty,
    /// The symbol shares its lines and the body does not fit its range alone.
    NotOwn(String),
}

/// The byte offset of `name` in `line` as a whole word.
fn word_at(line: &str, name: &str) -> Option<usize> {
    if name.is_empty() {
        return None;
    }
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    line.match_indices(name).map(|(i, _)| i).find(|&i| {
        !line[..i].chars().next_back().is_some_and(word)
            && !line[i + name.len()..].chars().next().is_some_and(word)
    })
}

fn is_python(rel: &str) -> bool {
    std::path::Path::new(rel)
        .extension()
        .is_some_and(|e| e == "py" || e == "pyi")
}

/// The kinds [`Target::one_line_member`] counts.
const MEMBER_KINDS: &[&str] = &[
    "field",
    "property",
    "constant",
    "variable",
    "enum_member",
    "key",
];

/// Blank lines between an inserted body and the symbol beside it.
fn separation(target: &Target, body: &str) -> usize {
    if target.python && target.depth == 0 {
        2
    } else if target.one_line_member && !body.contains('\n') {
        0
    } else {
        1
    }
}

/// Whether `line` (just above a symbol) belongs to it: a comment, doc comment, attribute or
/// decorator.
fn leads(line: &str, target: &Target) -> bool {
    let t = line.trim_start();
    if t.is_empty() {
        return false;
    }
    if target.python {
        return t.starts_with('#') || t.starts_with('@');
    }
    ["//", "/*", "*", "#[", "@"]
        .iter()
        .any(|p| t.starts_with(p))
}

/// The 0-based line holding byte `at`.
fn line_of(lines: &[super::position::LineSpan], at: usize) -> usize {
    lines
        .partition_point(|l| l.start <= at)
        .saturating_sub(1)
        .min(lines.len().saturating_sub(1))
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') { 3 } else { 0 }
}

/// `body` with its first non-blank line at `indent` and every other line moved by as much, blank
/// lines empty, line endings `eol`, no trailing newline. A line indented less than the first
/// keeps what it has beyond the common part.
///
/// A body whose first line has no indentation and whose other lines all sit at `indent` or
/// deeper, as the file holds them (how `find_symbol` shows a body: the range starts after the
/// indentation), is taken as it stands: only its first line moves. Lines at exactly `indent`
/// must then close something (`}`, `)`, `]`), since a body's own lines are deeper; in
/// Python a line deeper than `indent` is enough.
fn reindent(body: &str, indent: &str, eol: &str, python: bool) -> String {
    let body = body.strip_prefix('\u{feff}').unwrap_or(body);
    let lines: Vec<&str> = body
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut end = lines.len();
    while end > 0 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    let mut start = 0;
    while start < end && lines[start].trim().is_empty() {
        start += 1;
    }
    let lines = &lines[start..end];
    let base = lines.first().map_or("", |l| indentation(l));
    let rest: Vec<&str> = lines
        .iter()
        .skip(1)
        .copied()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let as_in_file = base.is_empty()
        && !indent.is_empty()
        && !rest.is_empty()
        && rest.iter().all(|l| {
            l.starts_with(indent)
                && (indentation(l).len() > indent.len()
                    || ["}", ")", "]"]
                        .iter()
                        .any(|c| l.trim_start().starts_with(c)))
        })
        && (!python || rest.iter().any(|l| indentation(l).len() > indent.len()));
    let out: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if l.trim().is_empty() {
                String::new()
            } else if as_in_file {
                if i == 0 {
                    format!("{indent}{l}")
                } else {
                    (*l).to_owned()
                }
            } else if let Some(rest) = l.strip_prefix(base) {
                format!("{indent}{rest}")
            } else {
                let own = indentation(l);
                let common = own
                    .chars()
                    .zip(base.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                format!("{indent}{}", &l[common..])
            }
        })
        .collect();
    out.join(eol)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(text: &str, decl: &str, depth: usize, python: bool) -> Target {
        let start = text.find(decl).unwrap();
        Target {
            range: start..start + decl.len(),
            depth,
            one_line_member: !decl.contains('\n') && !decl.starts_with("fn"),
            python,
            leading: start..start,
            own_lines: true,
            name_only: false,
            name: String::new(),
            statement_end: start + decl.len(),
        }
    }

    #[test]
    fn a_replacement_takes_the_range_and_keeps_the_indentation() {
        let text = "class Cart {\n  total() {\n    return 1;\n  }\n}\n";
        let t = target(text, "total() {\n    return 1;\n  }", 1, false);
        // A body written at column 0 lands at the method's indentation.
        let new = plan(
            SymbolEditKind::Replace,
            text,
            &t,
            "total() {\n  return 2;\n}\n",
        )
        .unwrap();
        assert_eq!(new, "class Cart {\n  total() {\n    return 2;\n  }\n}\n");
        // One copied with the file's indentation lands the same.
        let new = plan(
            SymbolEditKind::Replace,
            text,
            &t,
            "  total() {\n    return 2;\n  }",
        )
        .unwrap();
        assert_eq!(new, "class Cart {\n  total() {\n    return 2;\n  }\n}\n");
    }

    #[test]
    fn crlf_files_stay_crlf_and_a_bom_stays_first() {
        let text = "\u{feff}def a():\r\n    return 1\r\n";
        let t = target(text, "def a():\r\n    return 1", 0, true);
        let new = plan(
            SymbolEditKind::InsertBefore,
            text,
            &t,
            "def b():\n    return 2\n",
        )
        .unwrap();
        assert_eq!(
            new,
            "\u{feff}def b():\r\n    return 2\r\n\r\n\r\ndef a():\r\n    return 1\r\n"
        );
        let new = plan(SymbolEditKind::Replace, text, &t, "def a():\n    return 3").unwrap();
        assert_eq!(new, "\u{feff}def a():\r\n    return 3\r\n");
    }

    #[test]
    fn python_top_level_definitions_get_two_blank_lines_methods_one() {
        let text = "def a():\n    return 1\n\n\ndef c():\n    return 3\n";
        let t = target(text, "def a():\n    return 1", 0, true);
        let new = plan(
            SymbolEditKind::InsertAfter,
            text,
            &t,
            "def b():\n    return 2",
        )
        .unwrap();
        assert_eq!(
            new,
            "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
        );
        let text = "class K:\n    def a(self):\n        return 1\n";
        let t = target(text, "def a(self):\n        return 1", 1, true);
        let new = plan(
            SymbolEditKind::InsertAfter,
            text,
            &t,
            "def b(self):\n    return 2",
        )
        .unwrap();
        assert_eq!(
            new,
            "class K:\n    def a(self):\n        return 1\n\n    def b(self):\n        return 2\n"
        );
        // Before the first method: nothing between the class line and the new method.
        let new = plan(
            SymbolEditKind::InsertBefore,
            text,
            &t,
            "def b(self):\n    return 2",
        )
        .unwrap();
        assert_eq!(
            new,
            "class K:\n    def b(self):\n        return 2\n\n    def a(self):\n        return 1\n"
        );
    }

    #[test]
    fn an_insertion_goes_above_the_comments_and_attributes_that_lead_a_symbol() {
        let text = "fn a() {}\n\n/// Doc.\n#[inline]\nfn b() {}\n";
        let t = target(text, "fn b() {}", 0, false);
        let new = plan(SymbolEditKind::InsertBefore, text, &t, "fn c() {\n}").unwrap();
        assert_eq!(
            new,
            "fn a() {}\n\nfn c() {\n}\n\n/// Doc.\n#[inline]\nfn b() {}\n"
        );
    }

    #[test]
    fn one_line_symbols_take_one_line_bodies_without_blank_lines() {
        let text = "interface P {\n  a: number;\n  b: number;\n}\n";
        let t = target(text, "a: number;", 1, false);
        let new = plan(SymbolEditKind::InsertAfter, text, &t, "c: string;").unwrap();
        assert_eq!(
            new,
            "interface P {\n  a: number;\n  c: string;\n  b: number;\n}\n"
        );
        // After the last member: no blank line before the closing brace.
        let t = target(text, "b: number;", 1, false);
        let new = plan(SymbolEditKind::InsertAfter, text, &t, "c() {\n}").unwrap();
        assert_eq!(
            new,
            "interface P {\n  a: number;\n  b: number;\n\n  c() {\n  }\n}\n"
        );
    }

    #[test]
    fn a_file_without_a_final_newline_gains_none() {
        let text = "fn a() {}";
        let t = target(text, "fn a() {}", 0, false);
        let new = plan(SymbolEditKind::InsertAfter, text, &t, "fn b() {}\n").unwrap();
        assert_eq!(new, "fn a() {}\n\nfn b() {}");
    }

    #[test]
    fn a_range_from_the_files_first_character_leaves_the_bom_in_place() {
        use lspedit_lsp::lsp_types::Position;
        let text = "\u{feff}def a():\n    return 1\n";
        let range = Range::new(Position::new(0, 0), Position::new(1, 12));
        for encoding in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Utf32,
        ] {
            let r = byte_range(text, range, encoding, false).unwrap();
            assert_eq!(&text[r.clone()], "def a():\n    return 1", "{encoding:?}");
            let t = Target {
                range: r.clone(),
                depth: 0,
                one_line_member: false,
                python: true,
                leading: r.start..r.start,
                own_lines: true,
                name_only: false,
                name: "a".into(),
                statement_end: r.end,
            };
            let new = plan(SymbolEditKind::Replace, text, &t, "def a():\n    return 2").unwrap();
            assert_eq!(new, "\u{feff}def a():\n    return 2\n");
        }
    }

    #[test]
    fn an_empty_body_is_refused() {
        let text = "fn a() {}\n";
        let t = target(text, "fn a() {}", 0, false);
        for kind in [
            SymbolEditKind::Replace,
            SymbolEditKind::InsertBefore,
            SymbolEditKind::InsertAfter,
        ] {
            assert!(plan(kind, text, &t, " \n\n").is_err());
        }
    }
}
