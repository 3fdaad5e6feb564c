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
//! **The text written** ([`plan`]): `body` is re-indented so its first non-blank line sits at
//! the symbol's indentation and every other line keeps its indentation relative to that one;
//! its line endings become the file's (CRLF when the file's first line ends so); a trailing
//! newline is dropped (the place decides). A replacement takes the place of the server's range
//! exactly (text before it on its first line and after it on its last stays). An insertion
//! before the symbol goes above the comments, doc comments, attributes and decorators that
//! lead it; one after goes below its last line. Blank lines around an insertion: two beside a
//! top-level Python definition (PEP 8), none between two one-line symbols (fields, constants),
//! one otherwise; none where the neighbour is the container's opening or closing line (less
//! indented), and blank lines already there are kept, not doubled. A BOM stays first.

use std::time::Instant;

use lspedit_engine::Anchor;
use lspedit_lsp::PositionEncoding;
use lspedit_lsp::lsp_types::Range;
use lspedit_tools::front::{Step, say};
use lspedit_write::{Reason, ToolError, Workspace};

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
    /// The byte range of the whole declaration in `file.text`.
    pub range: std::ops::Range<usize>,
    /// The server's range ran into the next declaration (a file with a syntax error: the
    /// server's parse swallowed what follows) and was cut before it: the server's last line
    /// and the 1-based line it ran into.
    pub cut: Option<(usize, usize)>,
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
    let found = symbols::file_symbols(provider, &file, deadline)?;
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
    let mut range = byte_range(&file.text, found.ranges[i], found.encoding).ok_or_else(|| {
        LspEditError::BadServerEdit {
            path: file.rel.clone(),
            message: format!(
                "the server's range of `{}` lies outside the file",
                found.entries[i].name_path
            ),
        }
    })?;
    let mut entry = found.entries[i].clone();
    let python = is_python(&file.rel);
    let cut = cut_at_next_declaration(&file.text, &range, entry.line, python).map(|cut| {
        let server_end = entry.end_line;
        range.end = cut.end;
        entry.end_line = cut.last_line.max(entry.start_line);
        (server_end, cut.next_line)
    });
    Ok(Resolved {
        entry,
        range,
        cut,
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
fn byte_range(
    text: &str,
    range: Range,
    encoding: PositionEncoding,
) -> Option<std::ops::Range<usize>> {
    let bom = bom_len(text);
    let start = encoding.offset(text, range.start)?.max(bom);
    let mut end = encoding
        .offset(text, range.end)
        .unwrap_or(text.len())
        .max(start);
    if end > start && text[..end].ends_with('\r') && text[end..].starts_with('\n') {
        end -= 1;
    }
    (start <= end).then_some(start..end)
}

/// The file's new text, or why there is none.
pub(crate) fn plan(
    kind: SymbolEditKind,
    text: &str,
    target: &Target,
    body: &str,
) -> Result<String, &'static str> {
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
    let body = reindent(body, &indent, eol);
    if body.trim().is_empty() {
        return Err("the body is empty; give the code to write");
    }
    let blank = |i: usize| text[lines[i].start..lines[i].end].trim().is_empty();
    let less_indented = |i: usize| {
        let l = &text[lines[i].start..lines[i].end];
        indentation(l).len() < indent.len()
    };
    let mut out = String::with_capacity(text.len() + body.len() + 8);
    match kind {
        SymbolEditKind::Replace => {
            // `body` re-indented for a line start; its first line goes where the range starts.
            let r = &target.range;
            out.push_str(&text[..r.start]);
            out.push_str(body.strip_prefix(indent.as_str()).unwrap_or(&body));
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
}

fn is_python(rel: &str) -> bool {
    std::path::Path::new(rel)
        .extension()
        .is_some_and(|e| e == "py" || e == "pyi")
}

/// Lines that start a declaration in the languages lspedit serves (after indentation).
const DECLARATION_STARTS: &[&str] = &[
    "def ",
    "async ",
    "class ",
    "@",
    "fn ",
    "pub ",
    "pub(",
    "impl ",
    "impl<",
    "struct ",
    "enum ",
    "trait ",
    "mod ",
    "#[",
    "function ",
    "export ",
    "interface ",
    "type ",
    "const ",
    "let ",
    "var ",
    "static ",
    "func ",
    "abstract ",
    "public ",
    "private ",
    "protected ",
];

/// Where a server's range was cut ([`cut_at_next_declaration`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Cut {
    /// The byte end of the last non-blank line before the next declaration, and that line's
    /// 1-based number.
    end: usize,
    last_line: usize,
    /// The 1-based line the range ran into.
    next_line: usize,
}

/// Where the server's `range` of a symbol whose name is on line `name_line` (1-based) runs into
/// the next declaration ([`Cut`]). A line after the name's, inside the range, is taken for the next declaration when it
/// is indented no deeper than the name's line and starts a declaration; or, for a symbol that
/// is itself indented, when it sits exactly at its indentation and is not a closing bracket,
/// an opening brace, a `where` clause, a comment or a continuation. A complete declaration
/// holds no such line (its body is deeper, its end a closer); a server whose parse of a broken
/// file swallowed the next declaration (pyright ran `def total` with an unclosed `(` through
/// the `def price` after it, which vanished from the tree) gives one.
fn cut_at_next_declaration(
    text: &str,
    range: &std::ops::Range<usize>,
    name_line: usize,
    python: bool,
) -> Option<Cut> {
    let lines = line_spans(text);
    let name = lines.get(name_line.checked_sub(1)?)?;
    let own = indentation(&text[name.start..name.end]).len();
    let mut last = name;
    for l in &lines[name_line..] {
        if l.start >= range.end {
            break;
        }
        let line = &text[l.start..l.end];
        let t = line.trim_start_matches([' ', '\t']);
        if t.is_empty() {
            continue;
        }
        let depth = line.len() - t.len();
        let declaration = depth <= own && DECLARATION_STARTS.iter().any(|p| t.starts_with(p));
        let continuation = [
            "}", ")", "]", "{", "where", "//", "/*", "*", "->", "=>", ".", "?",
        ]
        .iter()
        .any(|p| t.starts_with(p))
            || (python && t.starts_with('#') && !t.starts_with("#["));
        let sibling = own > 0 && depth == own && !continuation;
        if declaration || sibling {
            return Some(Cut {
                end: last.end.min(range.end),
                last_line: last.number,
                next_line: l.number,
            });
        }
        last = l;
    }
    None
}

impl Target {
    pub(crate) fn of(r: &Resolved) -> Target {
        let python = is_python(&r.file.rel);
        Target {
            range: r.range.clone(),
            depth: r.entry.depth,
            one_line_member: r.entry.start_line == r.entry.end_line
                && MEMBER_KINDS.contains(&r.entry.kind),
            python,
        }
    }
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
fn reindent(body: &str, indent: &str, eol: &str) -> String {
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
    let out: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                String::new()
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
    fn a_range_that_runs_into_the_next_declaration_is_cut_before_it() {
        // pyright on an unclosed `(`: `total` runs to the end of the class.
        let text = "class Cart:\n    def total(self):\n        return add(1,\n\n    def price(self):\n        return 2\n";
        let start = text.find("    def total").unwrap() + 4;
        let cut = cut_at_next_declaration(text, &(start..text.len()), 2, true);
        let end = text.find("add(1,").unwrap() + "add(1,".len();
        assert_eq!(
            cut,
            Some(Cut {
                end,
                last_line: 3,
                next_line: 5
            })
        );
        // A decorator of the next method, at the method's indentation.
        let text = "class K:\n    def a(self):\n        x = (1,\n    @property\n    def b(self):\n        return 2\n";
        let start = text.find("def a").unwrap();
        assert_eq!(
            cut_at_next_declaration(text, &(start..text.len()), 2, true).map(|c| c.next_line),
            Some(4)
        );
        // TypeScript: an unclosed method runs into the next one.
        let text = "class C {\n  a() {\n    return 1;\n\n  b() {\n    return 2;\n  }\n}\n";
        let start = text.find("a()").unwrap();
        let end = text.rfind('}').unwrap();
        assert_eq!(
            cut_at_next_declaration(text, &(start..end), 2, false).map(|c| c.next_line),
            Some(5)
        );
    }

    #[test]
    fn complete_declarations_are_not_cut() {
        for (text, decl, line) in [
            // rustfmt's long signature and where clause; K&R braces; a top-level raw string.
            (
                "impl X {\n    fn f(\n        a: i32,\n    ) -> i32\n    where\n        T: Y,\n    {\n        a\n    }\n}\n",
                "fn f(\n        a: i32,\n    ) -> i32\n    where\n        T: Y,\n    {\n        a\n    }",
                2,
            ),
            (
                "int main()\n{\n    return 0;\n}\n",
                "int main()\n{\n    return 0;\n}",
                1,
            ),
            (
                "fn t() {\n    let s = r#\"\nhello\n  world\n\"#;\n}\n",
                "fn t() {\n    let s = r#\"\nhello\n  world\n\"#;\n}",
                1,
            ),
            (
                "class K:\n    def f(\n        self,\n    ) -> int:\n        # note\n        return 1\n",
                "def f(\n        self,\n    ) -> int:\n        # note\n        return 1",
                2,
            ),
        ] {
            let start = text.find(decl).unwrap();
            assert_eq!(
                cut_at_next_declaration(text, &(start..start + decl.len()), line, false),
                None,
                "{text}"
            );
        }
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
            let r = byte_range(text, range, encoding).unwrap();
            assert_eq!(&text[r.clone()], "def a():\n    return 1", "{encoding:?}");
            let t = Target {
                range: r,
                depth: 0,
                one_line_member: false,
                python: true,
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
