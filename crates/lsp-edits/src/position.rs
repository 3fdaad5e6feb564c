//! Positions a model can give: a file, a line (1-based number or anchor `42abcd`) and the
//! symbol's text on that line (with `occurrence` when it appears more than once), never a raw
//! column. Resolved here to a byte offset of the file's text; the pool converts it to the
//! server's position encoding.

use lspedit_engine::{Anchor, LineHash};
use lspedit_tools::front::{Step, say};

use lspedit_write::Reason;

use super::LspEditError;
use lspedit_write::ToolError;
use lspedit_write::Workspace;

/// A line as the model names it: its 1-based number, or its anchor (`42abcd`), which is also a
/// check that the line is still what the model read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineRef {
    Number(usize),
    Anchor(String),
}

impl LineRef {
    /// `"42"` is a number, anything else an anchor (checked when resolved).
    pub fn parse(s: &str) -> LineRef {
        let s = s.trim();
        match s.parse::<usize>() {
            Ok(n) => LineRef::Number(n),
            Err(_) => LineRef::Anchor(s.to_string()),
        }
    }
}

impl std::fmt::Display for LineRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LineRef::Number(n) => write!(f, "{n}"),
            LineRef::Anchor(a) => f.write_str(a),
        }
    }
}

/// A symbol on a line of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolAt {
    pub path: String,
    pub line: LineRef,
    /// The symbol's text as it appears on the line.
    pub symbol: String,
    /// Which appearance on the line (1-based) when there are several.
    pub occurrence: Option<usize>,
}

impl SymbolAt {
    pub fn new(path: impl Into<String>, line: LineRef, symbol: impl Into<String>) -> SymbolAt {
        SymbolAt {
            path: path.into(),
            line,
            symbol: symbol.into(),
            occurrence: None,
        }
    }

    pub fn occurrence(mut self, n: usize) -> SymbolAt {
        self.occurrence = Some(n);
        self
    }
}

/// A file as read for a request: its workspace-relative path, absolute path and text.
#[derive(Debug, Clone)]
pub(crate) struct FileText {
    pub rel: String,
    pub abs: std::path::PathBuf,
    pub text: String,
}

/// One line of a [`FileText`]: 1-based number, byte range of its content (without `\r\n`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineSpan {
    pub number: usize,
    pub start: usize,
    pub end: usize,
}

/// Reads `path` as UTF-8 text through the workspace (confined).
pub(crate) fn read_text(ws: &Workspace, path: &str) -> Result<FileText, ToolError> {
    let abs = ws.resolve(path)?;
    let rel = ws.display_path(&abs);
    let bytes = ws
        .read(path)?
        .ok_or_else(|| ToolError::new(Reason::FileNotFound, Some(&rel), "no such file"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(Reason::NotUtf8, Some(&rel), "the file is not valid UTF-8"))?;
    Ok(FileText { rel, abs, text })
}

/// The content of every line of `text` (split at `\n`, a `\r` before it dropped), with byte
/// ranges. A final newline does not start another line.
pub(crate) fn line_spans(text: &str) -> Vec<LineSpan> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut number = 1;
    while start < text.len() {
        let nl = text[start..].find('\n').map(|i| start + i);
        let stop = nl.unwrap_or(text.len());
        let end = if text[start..stop].ends_with('\r') {
            stop - 1
        } else {
            stop
        };
        out.push(LineSpan { number, start, end });
        number += 1;
        match nl {
            Some(i) => start = i + 1,
            None => break,
        }
    }
    out
}

/// The line `line` names in `file`: in range, and for an anchor, still the line the model read
/// (else `stale_context`).
pub(crate) fn resolve_line(file: &FileText, line: &LineRef) -> Result<LineSpan, LspEditError> {
    let spans = line_spans(&file.text);
    let (n, hash) = match line {
        LineRef::Number(n) => (*n, None),
        LineRef::Anchor(a) => {
            let anchor = Anchor::parse(a).ok_or_else(|| {
                ToolError::new(
                    Reason::InvalidDiffFormat,
                    Some(&file.rel),
                    format!(
                        "`{a}` is neither a line number nor an anchor like `42abcd` (line number, then the 4 letters {} shows)",
                        say(&Step::ReadAnchors)
                    ),
                )
            })?;
            (anchor.line, Some(anchor.hash))
        }
    };
    let span = n
        .checked_sub(1)
        .and_then(|i| spans.get(i))
        .copied()
        .ok_or_else(|| {
            ToolError::new(
                Reason::OutOfBounds,
                Some(&file.rel),
                format!(
                    "line {n} is past the end of the file ({})",
                    lspedit_tools::render::plural(spans.len(), "line", "lines")
                ),
            )
        })?;
    if let Some(hash) = hash {
        let now = LineHash::of(&file.text[span.start..span.end]);
        if now != hash {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(&file.rel),
                format!(
                    "line {n} changed since you read it (anchor {line}, now {}); re-read the file and use the fresh anchor",
                    Anchor { line: n, hash: now }
                ),
            )
            .into());
        }
    }
    Ok(span)
}

/// The byte offset of `at.symbol` on its line in `file`. Appearances that stand as a whole
/// identifier (not inside a longer word) count first; only when there is none do appearances
/// inside words count. Several and no `occurrence`: `ambiguous_match`, naming how many.
pub(crate) fn symbol_offset(file: &FileText, at: &SymbolAt) -> Result<usize, LspEditError> {
    let span = resolve_line(file, &at.line)?;
    let content = &file.text[span.start..span.end];
    let not_found = || LspEditError::SymbolNotFound {
        path: file.rel.clone(),
        line: span.number,
        symbol: at.symbol.clone(),
        line_text: content.to_string(),
    };
    if at.symbol.is_empty() {
        return Err(not_found());
    }
    let all: Vec<usize> = content.match_indices(&at.symbol).map(|(i, _)| i).collect();
    let whole: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| {
            let before = content[..i].chars().next_back();
            let after = content[i + at.symbol.len()..].chars().next();
            !before.is_some_and(is_word) && !after.is_some_and(is_word)
        })
        .collect();
    let found = if whole.is_empty() { all } else { whole };
    let pick = match (found.len(), at.occurrence) {
        (0, _) => return Err(not_found()),
        (1, None) => found[0],
        (count, None) => {
            return Err(LspEditError::AmbiguousSymbol {
                path: file.rel.clone(),
                line: span.number,
                symbol: at.symbol.clone(),
                count,
            });
        }
        (count, Some(k)) => *k.checked_sub(1).and_then(|i| found.get(i)).ok_or_else(|| {
            LspEditError::SymbolNotFound {
                path: file.rel.clone(),
                line: span.number,
                symbol: format!("{} (occurrence {k} of {count})", at.symbol),
                line_text: content.to_string(),
            }
        })?,
    };
    Ok(span.start + pick)
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> FileText {
        FileText {
            rel: "a.ts".into(),
            abs: "/w/a.ts".into(),
            text: text.into(),
        }
    }

    fn at(line: LineRef, symbol: &str) -> SymbolAt {
        SymbolAt::new("a.ts", line, symbol)
    }

    #[test]
    fn whole_identifiers_first_then_occurrence() {
        let f = file("x\r\nconst address = add(add(1, 2), 3);\n");
        // `add` inside `address` does not count while whole `add`s exist.
        let e = symbol_offset(&f, &at(LineRef::Number(2), "add")).unwrap_err();
        assert!(
            matches!(e, LspEditError::AmbiguousSymbol { count: 2, .. }),
            "{e}"
        );
        let off = symbol_offset(&f, &at(LineRef::Number(2), "add").occurrence(2)).unwrap();
        assert_eq!(&f.text[off..off + 7], "add(1, ");
        let off = symbol_offset(&f, &at(LineRef::Number(2), "address")).unwrap();
        assert_eq!(off, 3 + 6);
        let e = symbol_offset(&f, &at(LineRef::Number(2), "nope")).unwrap_err();
        assert_eq!(e.code(), "symbol_not_found");
        assert!(
            e.to_string().contains("nope") && e.to_string().contains("line 2"),
            "{e}"
        );
        let e = symbol_offset(&f, &at(LineRef::Number(9), "x")).unwrap_err();
        assert_eq!(e.code(), "out_of_bounds");
    }

    #[test]
    fn anchors_are_checked() {
        let f = file("one\ntwo\n");
        let good = lspedit_engine::hashline(2, "two");
        let anchor = good.split('|').next().unwrap();
        assert_eq!(
            symbol_offset(&f, &at(LineRef::parse(anchor), "two")).unwrap(),
            4
        );
        let stale = lspedit_engine::hashline(2, "three");
        let stale = stale.split('|').next().unwrap();
        let e = symbol_offset(&f, &at(LineRef::parse(stale), "two")).unwrap_err();
        assert_eq!(e.code(), "stale_context");
        assert_eq!(LineRef::parse("42"), LineRef::Number(42));
    }

    #[test]
    fn spans_drop_carriage_returns() {
        let spans = line_spans("a\r\nbc\n\nd");
        let texts: Vec<&str> = spans
            .iter()
            .map(|s| &"a\r\nbc\n\nd"[s.start..s.end])
            .collect();
        assert_eq!(texts, ["a", "bc", "", "d"]);
    }
}
