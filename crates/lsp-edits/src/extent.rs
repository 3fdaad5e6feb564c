//! Whether a language server's range of a symbol is one whole declaration (docs/design.md §13,
//! "Range"): the check a symbol edit passes before it writes, so that it changes only the
//! target's own lines.
//!
//! A server parses the file as it is; when the target has a syntax error (the very body a model
//! is about to fix), its range can swallow what follows, or stop inside it. No list of
//! declaration keywords tells those apart from a correct range — the code after a broken
//! function may be a statement, a constant, a `print(...)` — so the check is structural, from a
//! lexer that knows the language's strings and comments ([`Scan`]):
//!
//! - the range starts and ends outside strings and comments (a comment may start it: doc
//!   comments lead a declaration);
//! - every bracket the range opens it closes, and it closes none it did not open;
//! - Python: every logical line of the range after the name's line is indented deeper than the
//!   name's line, and the first logical line after the range is not (the block ends with the
//!   range);
//! - brace languages: after a `;` or a block's `}` that ends the declaration at its own depth,
//!   the range holds no further code, but for a continuation on a later line (`| {…}`, `.then`,
//!   `else`); and the code after the range does not open a block (the range stopped before the
//!   body).
//!
//! A range that fails is refused, never trimmed: trimming it is guessing where the declaration
//! ends, which is what the server could not tell. Languages without a lexer here ([`Lang::of`]
//! is `None`) get the tree's checks only (`symbol_edits.rs`).

use std::ops::Range;

/// The lexical family of a file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    /// Brace languages: `//` and `/* */` comments, `"` strings, brackets.
    Braces(Dialect),
}

/// What sets one brace language's lexing apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Dialect {
    /// Rust: raw strings `r#"…"#`, lifetimes (`'a`) beside char literals, nested block comments.
    pub rust: bool,
    /// C and C++: preprocessor lines, raw strings `R"d(…)d"`, digit separators `1'000`.
    pub c: bool,
    /// JavaScript and TypeScript: `'` strings, template literals, regular expression literals.
    pub js: bool,
    /// Go: raw strings in backquotes.
    pub go: bool,
    /// PHP: `#` line comments, `'` strings.
    pub php: bool,
    /// CSS: no `//` comments, `'` strings.
    pub css: bool,
}

impl Lang {
    /// The family of a file named `path`, or `None` for a language lexed nowhere here (markup,
    /// YAML, TOML, shell, ...).
    pub(crate) fn of(path: &str) -> Option<Lang> {
        let ext = std::path::Path::new(path)
            .extension()?
            .to_str()?
            .to_ascii_lowercase();
        let d = Dialect::default();
        Some(match ext.as_str() {
            "py" | "pyi" => Lang::Python,
            "rs" => Lang::Braces(Dialect { rust: true, ..d }),
            "c" | "h" | "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "m"
            | "mm" | "ino" | "cu" => Lang::Braces(Dialect { c: true, ..d }),
            "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => {
                Lang::Braces(Dialect { js: true, ..d })
            }
            "go" => Lang::Braces(Dialect { go: true, ..d }),
            "php" => Lang::Braces(Dialect { php: true, ..d }),
            "css" => Lang::Braces(Dialect { css: true, ..d }),
            "java" | "kt" | "kts" | "scala" | "cs" | "swift" | "dart" | "json" | "jsonc"
            | "zig" | "proto" => Lang::Braces(d),
            _ => return None,
        })
    }
}

/// A file lexed: where its code brackets and `;` are, and which bytes are strings or comments.
#[derive(Debug, Clone, Default)]
pub(crate) struct Scan {
    /// Brackets in code, in order: offset and byte.
    brackets: Vec<(usize, u8)>,
    /// `;` in code.
    semicolons: Vec<usize>,
    /// Strings and comments: sorted, disjoint.
    quiet: Vec<Range<usize>>,
    /// The comments among them.
    comments: Vec<Range<usize>>,
    /// Python: the starts of lines a backslash joins to the line before.
    joined: Vec<usize>,
    /// The lexer ended inside a string or comment, or with a bracket open or unmatched.
    pub(crate) broken: bool,
}

impl Scan {
    pub(crate) fn new(lang: Lang, text: &str) -> Scan {
        let mut scan = match lang {
            Lang::Python => python(text.as_bytes()),
            Lang::Braces(d) => braces(text.as_bytes(), d),
        };
        let mut stack = Vec::new();
        for &(_, b) in &scan.brackets {
            if is_open(b) {
                stack.push(b);
            } else if stack.pop().map(closer) != Some(b) {
                scan.broken = true;
            }
        }
        scan.broken |= !stack.is_empty();
        scan
    }

    /// Whether byte `at` is inside a comment (its first byte included).
    pub(crate) fn comment_at(&self, at: usize) -> bool {
        let i = self.comments.partition_point(|q| q.end <= at);
        self.comments.get(i).is_some_and(|q| q.start <= at)
    }

    /// Whether byte `at` is inside a string or comment (its first byte included).
    fn quiet_at(&self, at: usize) -> bool {
        let i = self.quiet.partition_point(|q| q.end <= at);
        self.quiet.get(i).is_some_and(|q| q.start <= at)
    }

    /// Whether `at` lies strictly inside a string or comment (after its first byte).
    fn strictly_inside(&self, at: usize) -> bool {
        let i = self.quiet.partition_point(|q| q.end <= at);
        self.quiet.get(i).is_some_and(|q| q.start < at)
    }

    /// The brackets with offsets in `r`.
    fn brackets_in(&self, r: Range<usize>) -> &[(usize, u8)] {
        let a = self.brackets.partition_point(|b| b.0 < r.start);
        let z = self.brackets.partition_point(|b| b.0 < r.end);
        &self.brackets[a..z]
    }

    /// Brackets opened and not yet closed between `from` and `to`.
    pub(crate) fn open_between(&self, from: usize, to: usize) -> usize {
        let mut depth = 0usize;
        for &(_, b) in self.brackets_in(from..to) {
            if is_open(b) {
                depth += 1;
            } else {
                depth = depth.saturating_sub(1);
            }
        }
        depth
    }

    /// The last byte of code before `to` and at or after `from` that is not white space.
    fn last_code(&self, text: &[u8], from: usize, to: usize) -> Option<usize> {
        let mut i = to;
        while i > from {
            let at = i - 1;
            let c = self.comments.partition_point(|q| q.end <= at);
            if let Some(span) = self.comments.get(c).filter(|q| q.start <= at) {
                i = span.start;
                continue;
            }
            if !text[at].is_ascii_whitespace() {
                return Some(at);
            }
            i = at;
        }
        None
    }

    /// The first byte of code at or after `from` and before `to` that is not white space.
    fn next_code(&self, text: &[u8], from: usize, to: usize) -> Option<usize> {
        let mut i = from;
        while i < to {
            let q = self.quiet.partition_point(|q| q.end <= i);
            if let Some(span) = self.quiet.get(q).filter(|s| s.start <= i) {
                i = span.end;
                continue;
            }
            if !text[i].is_ascii_whitespace() {
                return Some(i);
            }
            i += 1;
        }
        None
    }
}

/// Why a range is not one whole declaration: what the check found, at which byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flaw {
    /// The range starts or ends inside a string or comment.
    InsideText { at: usize },
    /// A bracket of the range is not closed in it, or one is closed that it did not open.
    Unbalanced { at: usize },
    /// Code that is not part of the declaration lies inside the range.
    Swallows { at: usize },
    /// The declaration goes on after the range.
    StopsShort { at: usize },
}

/// The flaw of `range` (bytes of `text`) as the declaration whose name is on the line starting
/// at byte `name_line`, or `None` when it is one whole declaration.
pub(crate) fn flaw(
    lang: Lang,
    scan: &Scan,
    text: &str,
    range: Range<usize>,
    name_line: usize,
) -> Option<Flaw> {
    let bytes = text.as_bytes();
    let (s, e) = (range.start, range.end);
    if scan.strictly_inside(s) {
        return Some(Flaw::InsideText { at: s });
    }
    if e > s && scan.strictly_inside(e) {
        return Some(Flaw::InsideText { at: e });
    }
    // Each bracket the range opens, with where; one it closes but did not open is a flaw.
    let mut stack: Vec<(usize, u8)> = Vec::new();
    for &(at, b) in scan.brackets_in(s..e) {
        if is_open(b) {
            stack.push((at, b));
        } else if stack.pop().map(|(_, open)| closer(open)) != Some(b) {
            return Some(Flaw::Unbalanced { at });
        }
    }
    if let Some(&(at, _)) = stack.first() {
        return Some(Flaw::Unbalanced { at });
    }
    // A comment after the declaration's last code, on a later line, leads what follows.
    if let Some(last) = scan.last_code(bytes, s, e) {
        let a = scan.comments.partition_point(|c| c.start <= last);
        if let Some(c) = scan.comments[a..].iter().find(|c| c.start < e)
            && bytes[last..c.start].contains(&b'\n')
        {
            return Some(Flaw::Swallows { at: c.start });
        }
    }
    match lang {
        Lang::Python => python_block(scan, bytes, s, e, name_line),
        Lang::Braces(_) => braces_end(scan, bytes, s, e),
    }
}

/// Python: the range is the name line's block, no more and no less.
fn python_block(scan: &Scan, text: &[u8], s: usize, e: usize, name_line: usize) -> Option<Flaw> {
    let own = indent_at(text, name_line);
    // Every logical line after the name's, inside the range.
    let mut at = line_end(text, name_line.max(s));
    while at < e {
        let line = at + 1;
        if line >= e {
            break;
        }
        at = line_end(text, line);
        let Some(first) = first_non_blank(text, line, at) else {
            continue;
        };
        if first >= e || scan.quiet_at(first) || scan.joined.binary_search(&line).is_ok() {
            continue;
        }
        if scan.open_between(s, first) > 0 {
            continue;
        }
        if first - line <= own {
            return Some(Flaw::Swallows { at: first });
        }
    }
    // The first logical line after the range.
    let mut at = line_end(text, e.saturating_sub(1).max(s));
    while at < text.len() {
        let line = at + 1;
        at = line_end(text, line);
        let Some(first) = first_non_blank(text, line, at) else {
            continue;
        };
        if scan.quiet_at(first) || scan.joined.binary_search(&line).is_ok() {
            continue;
        }
        if scan.open_between(s, first) > 0 {
            continue;
        }
        return (first - line > own && line > name_line).then_some(Flaw::StopsShort { at: first });
    }
    None
}

/// Brace languages: nothing after the declaration's own end inside the range, and no body
/// after the range.
fn braces_end(scan: &Scan, text: &[u8], s: usize, e: usize) -> Option<Flaw> {
    // The `;` and block closers at the range's own depth, in order.
    let mut depth = 0usize;
    let mut ends: Vec<(usize, u8)> = Vec::new();
    let mut events: Vec<(usize, u8)> = scan.brackets_in(s..e).to_vec();
    let a = scan.semicolons.partition_point(|&x| x < s);
    let z = scan.semicolons.partition_point(|&x| x < e);
    events.extend(scan.semicolons[a..z].iter().map(|&x| (x, b';')));
    events.sort_unstable();
    for (at, b) in events {
        match b {
            b';' if depth == 0 => ends.push((at, b)),
            b';' => {}
            b if is_open(b) => depth += 1,
            b => {
                depth -= 1;
                if depth == 0 && b == b'}' {
                    ends.push((at, b));
                }
            }
        }
    }
    for &(at, b) in &ends {
        let Some(next) = scan.next_code(text, at + 1, e) else {
            continue;
        };
        if b == b';' {
            return Some(Flaw::Swallows { at: next });
        }
        let same_line = !text[at..next].contains(&b'\n');
        if !same_line && !continues(text, next) {
            return Some(Flaw::Swallows { at: next });
        }
    }
    match scan.next_code(text, e, text.len()) {
        Some(next) if text[next] == b'{' && e > s => Some(Flaw::StopsShort { at: next }),
        _ => None,
    }
}

/// Whether the code at `at`, first on its line after a block closed, goes on with the same
/// declaration: an operator (`|`, `&`, `.`, `?`, `,`, `:`, `=`, ...) or one of the words that
/// continue a statement past a block.
fn continues(text: &[u8], at: usize) -> bool {
    let b = text[at];
    if b.is_ascii_punctuation()
        && !matches!(
            b,
            b'(' | b'[' | b'{' | b'"' | b'\'' | b'`' | b'@' | b'#' | b'$' | b'_'
        )
    {
        return true;
    }
    let word_end = text[at..]
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
        .map_or(text.len(), |n| at + n);
    matches!(
        &text[at..word_end],
        b"as"
            | b"satisfies"
            | b"else"
            | b"catch"
            | b"finally"
            | b"while"
            | b"where"
            | b"extends"
            | b"implements"
            | b"instanceof"
            | b"in"
            | b"of"
    )
}

fn is_open(b: u8) -> bool {
    matches!(b, b'(' | b'[' | b'{')
}

fn closer(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// The offset of the `\n` ending the line that holds `at` (or the text's length).
fn line_end(text: &[u8], at: usize) -> usize {
    text[at.min(text.len())..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(text.len(), |n| at + n)
}

fn line_start(text: &[u8], at: usize) -> usize {
    text[..at.min(text.len())]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |n| n + 1)
}

fn first_non_blank(text: &[u8], from: usize, to: usize) -> Option<usize> {
    (from..to).find(|&i| !matches!(text[i], b' ' | b'\t' | b'\r' | b'\x0c'))
}

/// The indentation width (bytes) of the line holding `at`.
fn indent_at(text: &[u8], at: usize) -> usize {
    let start = line_start(text, at);
    text[start..]
        .iter()
        .take_while(|c| matches!(c, b' ' | b'\t'))
        .count()
}

fn ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Python's lexer: `#` comments, strings with prefixes, single or triple quoted, backslash
/// line joins.
fn python(t: &[u8]) -> Scan {
    let mut scan = Scan::default();
    let mut i = 0;
    while i < t.len() {
        let c = t[i];
        match c {
            b'#' => {
                let end = line_end(t, i);
                scan.quiet.push(i..end);
                scan.comments.push(i..end);
                i = end;
            }
            b'\\'
                if t.get(i + 1) == Some(&b'\n')
                    || (t.get(i + 1) == Some(&b'\r') && t.get(i + 2) == Some(&b'\n')) =>
            {
                let next = line_end(t, i) + 1;
                scan.joined.push(next);
                i = next;
            }
            b'"' | b'\'' => {
                // A prefix (r, b, f, u, rb, ...) is part of the string.
                let mut start = i;
                while start > 0
                    && i - start < 2
                    && matches!(t[start - 1].to_ascii_lowercase(), b'r' | b'b' | b'f' | b'u')
                {
                    start -= 1;
                }
                if start > 0 && ident(t[start - 1]) {
                    start = i;
                }
                let triple = t.get(i + 1) == Some(&c) && t.get(i + 2) == Some(&c);
                let mut j = if triple { i + 3 } else { i + 1 };
                loop {
                    match t.get(j) {
                        None => {
                            scan.broken = true;
                            break;
                        }
                        Some(b'\\') => j += 2,
                        Some(&q) if q == c => {
                            if !triple {
                                j += 1;
                                break;
                            }
                            if t.get(j + 1) == Some(&c) && t.get(j + 2) == Some(&c) {
                                j += 3;
                                break;
                            }
                            j += 1;
                        }
                        Some(b'\n') if !triple => {
                            scan.broken = true;
                            break;
                        }
                        Some(_) => j += 1,
                    }
                }
                let j = j.min(t.len());
                scan.quiet.push(start..j);
                i = j;
            }
            b'(' | b'[' | b'{' | b')' | b']' | b'}' => {
                scan.brackets.push((i, c));
                i += 1;
            }
            b';' => {
                scan.semicolons.push(i);
                i += 1;
            }
            _ => i += 1,
        }
    }
    scan
}

/// The brace languages' lexer ([`Dialect`]).
fn braces(t: &[u8], d: Dialect) -> Scan {
    let mut scan = Scan::default();
    let generic = d == Dialect::default();
    // JavaScript: for each `{` open in code, whether it is a template literal's `${`.
    let mut braces_kind: Vec<bool> = Vec::new();
    // The last significant code byte and the word it ended, for `/` (division or regex).
    let mut last: u8 = b';';
    let mut last_word: &[u8] = b"";
    let mut i = 0;
    // Where a quiet span that a template's `}` resumes begins.
    let mut resume_template: Option<usize> = None;
    while i < t.len() {
        if let Some(start) = resume_template.take() {
            // Inside a template literal's text, from `start` (its `}` or backquote).
            let (end, stop) = template_text(t, start + 1);
            scan.quiet.push(start..end);
            match stop {
                TemplateStop::Interpolation => {
                    braces_kind.push(true);
                    last = b'{';
                }
                TemplateStop::Backquote => last = b'`',
                TemplateStop::End => scan.broken = true,
            }
            i = end;
            continue;
        }
        let c = t[i];
        let next = t.get(i + 1).copied();
        // Comments.
        if c == b'/' && next == Some(b'/') && !d.css {
            let end = line_end(t, i);
            scan.quiet.push(i..end);
            scan.comments.push(i..end);
            i = end;
            continue;
        }
        if c == b'/' && next == Some(b'*') {
            let end = block_comment(t, i, d.rust);
            scan.broken |= end > t.len();
            let end = end.min(t.len());
            scan.quiet.push(i..end);
            scan.comments.push(i..end);
            i = end;
            continue;
        }
        if c == b'#' && ((d.php && next != Some(b'[')) || (d.c && line_is_blank_before(t, i))) {
            // PHP's comment; C's preprocessor line, with its backslash continuations: code, but
            // its brackets and quotes are the directive's own (`#define OPEN {`).
            let mut end = line_end(t, i);
            while d.c && end > 0 && end < t.len() && trailing_backslash(t, end) {
                end = line_end(t, end + 1);
            }
            if d.php {
                scan.quiet.push(i..end);
                scan.comments.push(i..end);
            }
            i = end;
            last = b';';
            continue;
        }
        // Strings.
        if d.rust
            && let Some(end) = rust_raw_string(t, i)
        {
            scan.quiet.push(i..end);
            i = end;
            last = b'"';
            continue;
        }
        if d.c
            && let Some(end) = cpp_raw_string(t, i)
        {
            scan.quiet.push(i..end);
            i = end;
            last = b'"';
            continue;
        }
        if c == b'"' && generic && t[i..].starts_with(b"\"\"\"") {
            // Java, Kotlin, Swift and Dart's text blocks.
            let end = t[i + 3..]
                .windows(3)
                .position(|w| w == b"\"\"\"")
                .map(|n| i + 3 + n + 3);
            scan.broken |= end.is_none();
            let end = end.unwrap_or(t.len());
            scan.quiet.push(i..end);
            i = end;
            last = b'"';
            continue;
        }
        if c == b'"' || (c == b'\'' && (d.js || d.php || d.css)) {
            let (end, closed) = quoted(t, i, c, !d.rust);
            scan.broken |= !closed;
            scan.quiet.push(i..end);
            i = end;
            last = b'"';
            continue;
        }
        if c == b'\'' {
            if d.c && i > 0 && t[i - 1].is_ascii_alphanumeric() {
                // C++14's digit separator.
                i += 1;
                continue;
            }
            if let Some(end) = char_literal(t, i, d.rust) {
                scan.quiet.push(i..end);
                i = end;
                last = b'"';
                continue;
            }
            // A Rust lifetime or label: code.
            i += 1;
            last = b'\'';
            continue;
        }
        if c == b'`' && (d.js || d.go) {
            if d.go {
                let end = t[i + 1..]
                    .iter()
                    .position(|&b| b == b'`')
                    .map_or(t.len(), |n| i + n + 2);
                scan.broken |= end > t.len() || t.get(end - 1) != Some(&b'`');
                scan.quiet.push(i..end.min(t.len()));
                i = end.min(t.len());
            } else {
                resume_template = Some(i);
            }
            continue;
        }
        if c == b'/' && d.js && regex_can_start(last, last_word) {
            let end = regex(t, i);
            scan.quiet.push(i..end);
            i = end;
            last = b'"';
            continue;
        }
        match c {
            b'(' | b'[' => scan.brackets.push((i, c)),
            b'{' => {
                scan.brackets.push((i, c));
                braces_kind.push(false);
            }
            b'}' if d.js && braces_kind.last() == Some(&true) => {
                braces_kind.pop();
                resume_template = Some(i);
                continue;
            }
            b'}' => {
                braces_kind.pop();
                scan.brackets.push((i, c));
            }
            b')' | b']' => scan.brackets.push((i, c)),
            b';' => scan.semicolons.push(i),
            _ => {}
        }
        if ident(c) {
            let start = i;
            while i < t.len() && ident(t[i]) {
                i += 1;
            }
            last_word = &t[start..i];
            last = b'a';
            continue;
        }
        if !c.is_ascii_whitespace() {
            last = c;
            last_word = b"";
        }
        i += 1;
    }
    scan.quiet.sort_by_key(|q| q.start);
    scan
}

/// Whether `#` at `at` is the first non-blank byte of its line.
fn line_is_blank_before(t: &[u8], at: usize) -> bool {
    t[line_start(t, at)..at]
        .iter()
        .all(|c| matches!(c, b' ' | b'\t'))
}

/// Whether the line ending at `end` (its `\n`) ends with a backslash.
fn trailing_backslash(t: &[u8], end: usize) -> bool {
    let line = &t[..end];
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.ends_with(b"\\")
}

/// The end of the block comment at `at` (past `*/`; past the text when unterminated). Rust's
/// nest.
fn block_comment(t: &[u8], at: usize, nests: bool) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < t.len() {
        if t[i] == b'/' && t[i + 1] == b'*' {
            if depth > 0 && !nests {
                i += 2;
                continue;
            }
            depth += 1;
            i += 2;
        } else if t[i] == b'*' && t[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    t.len() + 1
}

/// The end of the string quoted by `q` at `at` (past its closing quote), and whether it was
/// closed. `line_bound`: an unescaped newline ends it unclosed (C, JavaScript, Go); else the
/// text's end does.
fn quoted(t: &[u8], at: usize, q: u8, line_bound: bool) -> (usize, bool) {
    let mut i = at + 1;
    while i < t.len() {
        match t[i] {
            b'\\' => i += 2,
            b'\n' if line_bound => return (i, false),
            c if c == q => return (i + 1, true),
            _ => i += 1,
        }
    }
    (t.len(), false)
}

/// A char literal at `at` (`'x'`, `'\n'`, `'\u{1F600}'`, `'é'`), or `None` (a lifetime).
fn char_literal(t: &[u8], at: usize, rust: bool) -> Option<usize> {
    let rest = &t[at + 1..];
    if rest.first() == Some(&b'\\') {
        let close = rest
            .iter()
            .skip(2)
            .position(|&b| b == b'\'' || b == b'\n')?
            + 2;
        return (rest[close] == b'\'').then_some(at + 1 + close + 1);
    }
    // One character (UTF-8: its length from the first byte), then the quote.
    let first = *rest.first()?;
    let len = match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    if rest.get(len) == Some(&b'\'') {
        return Some(at + 1 + len + 1);
    }
    // Not Rust: a malformed literal still ends at its quote on the line.
    if !rust {
        let close = rest.iter().position(|&b| b == b'\'' || b == b'\n')?;
        return (rest[close] == b'\'').then_some(at + 1 + close + 1);
    }
    None
}

/// Rust's raw string (`r"…"`, `r#"…"#`, `br#"…"#`, `cr"…"`) at `at`, its end.
fn rust_raw_string(t: &[u8], at: usize) -> Option<usize> {
    if at > 0 && ident(t[at - 1]) {
        return None;
    }
    let mut i = at;
    if matches!(t[i], b'b' | b'c') {
        i += 1;
    }
    if t.get(i) != Some(&b'r') {
        // A byte string `b"…"` or C string: an ordinary one after its prefix.
        if i > at && t.get(i) == Some(&b'"') {
            return Some(quoted(t, i, b'"', false).0);
        }
        if i > at && t.get(i) == Some(&b'\'') {
            return char_literal(t, i, true);
        }
        return None;
    }
    i += 1;
    let hashes = t[i..].iter().take_while(|&&b| b == b'#').count();
    i += hashes;
    if t.get(i) != Some(&b'"') {
        return None;
    }
    let mut close = Vec::with_capacity(hashes + 1);
    close.push(b'"');
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = i + 1;
    Some(
        t[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(t.len(), |n| body + n + close.len()),
    )
}

/// C++'s raw string (`R"d(…)d"`, with `u8`, `u`, `U`, `L` prefixes) at `at`, its end.
fn cpp_raw_string(t: &[u8], at: usize) -> Option<usize> {
    if at > 0 && ident(t[at - 1]) {
        return None;
    }
    let prefix = [&b"u8R\""[..], b"uR\"", b"UR\"", b"LR\"", b"R\""]
        .into_iter()
        .find(|p| t[at..].starts_with(p))?;
    let open = at + prefix.len();
    let paren = open + t[open..].iter().take(17).position(|&b| b == b'(')?;
    let mut close = vec![b')'];
    close.extend_from_slice(&t[open..paren]);
    close.push(b'"');
    let body = paren + 1;
    Some(
        t[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(t.len(), |n| body + n + close.len()),
    )
}

/// Where a template literal's text stops.
enum TemplateStop {
    /// Its closing backquote.
    Backquote,
    /// An interpolation's `${`: code follows.
    Interpolation,
    /// The end of the file: unclosed.
    End,
}

/// The end of a template literal's text starting at `from` (just past its backquote or the `}`
/// of an interpolation), past what stopped it.
fn template_text(t: &[u8], from: usize) -> (usize, TemplateStop) {
    let mut i = from;
    while i < t.len() {
        match t[i] {
            b'\\' => i += 2,
            b'`' => return (i + 1, TemplateStop::Backquote),
            b'$' if t.get(i + 1) == Some(&b'{') => return (i + 2, TemplateStop::Interpolation),
            _ => i += 1,
        }
    }
    (t.len(), TemplateStop::End)
}

/// Whether a `/` after `last` (and the word it ended) starts a regular expression literal.
fn regex_can_start(last: u8, word: &[u8]) -> bool {
    if last == b'a' {
        return matches!(
            word,
            b"return"
                | b"typeof"
                | b"case"
                | b"do"
                | b"else"
                | b"in"
                | b"of"
                | b"new"
                | b"delete"
                | b"void"
                | b"throw"
                | b"yield"
                | b"await"
        );
    }
    !matches!(last, b')' | b']' | b'}' | b'"' | b'\'' | b'`')
}

/// The end of the regular expression literal at `at` (past its flags).
fn regex(t: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    let mut class = false;
    while i < t.len() {
        match t[i] {
            b'\\' => i += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                i += 1;
                while i < t.len() && t[i].is_ascii_alphabetic() {
                    i += 1;
                }
                return i;
            }
            b'\n' => return i,
            _ => {}
        }
        i += 1;
    }
    t.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flaw of the range `decl` (found in `text`) for a file named `path`.
    fn check(path: &str, text: &str, decl: &str) -> Option<Flaw> {
        let lang = Lang::of(path).unwrap();
        let scan = Scan::new(lang, text);
        let s = text.find(decl).unwrap();
        flaw(
            lang,
            &scan,
            text,
            s..s + decl.len(),
            line_start(text.as_bytes(), s),
        )
    }

    #[test]
    fn whole_declarations_pass() {
        for (path, text, decl) in [
            (
                "a.py",
                "class K:\n    def f(self):\n        s = \"\"\"\ndef g():\n    pass\n\"\"\"\n        return s\n\n    def h(self):\n        pass\n",
                "def f(self):\n        s = \"\"\"\ndef g():\n    pass\n\"\"\"\n        return s",
            ),
            (
                "a.py",
                "def g(\n    a,\n):\n    # c\n# at column 0\n    return (1 +\n2)\n\nprint(g(1))\n",
                "def g(\n    a,\n):\n    # c\n# at column 0\n    return (1 +\n2)",
            ),
            (
                "a.rs",
                "impl X {\n    fn t(&self) -> &'static str {\n        let s = r#\"\n    fn not_me() {\n\"#;\n        let c = '{';\n        s\n    }\n}\n",
                "fn t(&self) -> &'static str {\n        let s = r#\"\n    fn not_me() {\n\"#;\n        let c = '{';\n        s\n    }",
            ),
            (
                "a.ts",
                "export function f(a: number): number {\n  const s = `\nexport function notMe() {\n${a}`;\n  return /[{]/.test(s) ? a / 2 : a;\n}\nconsole.log(f(1));\n",
                "export function f(a: number): number {\n  const s = `\nexport function notMe() {\n${a}`;\n  return /[{]/.test(s) ? a / 2 : a;\n}",
            ),
            (
                "a.ts",
                "type T =\n  | { a: 1 }\n  | { b: 2 };\nlet x = 1;\n",
                "type T =\n  | { a: 1 }\n  | { b: 2 };",
            ),
            (
                "a.c",
                "#define OPEN {\nint\nmain(void)\n{\n    char c = '}';\n    return 0;\n}\nint g(void) { return 1; }\n",
                "int\nmain(void)\n{\n    char c = '}';\n    return 0;\n}",
            ),
        ] {
            assert_eq!(check(path, text, decl), None, "{text}");
        }
    }

    #[test]
    fn ranges_that_swallow_or_stop_short_fail() {
        let py = "def f():\n    return add(1,\n\nKEEP_CONST = 42\nprint(f())\n";
        assert!(matches!(
            check("a.py", py, py.trim_end()),
            Some(Flaw::Unbalanced { .. })
        ));
        let py = "def f():\n    return 1\nKEEP = 2\n";
        assert!(matches!(
            check("a.py", py, py.trim_end()),
            Some(Flaw::Swallows { .. })
        ));
        let py = "def f():\n    x = 1\n    return x\n";
        assert!(matches!(
            check("a.py", py, "def f():\n    x = 1"),
            Some(Flaw::StopsShort { .. })
        ));
        let c = "int f(void) {\n    return 1;\n\nint g(void) { return 2; }\n";
        assert!(matches!(
            check("a.c", c, c.trim_end()),
            Some(Flaw::Unbalanced { .. })
        ));
        let ts = "function f() {\n  return 1;\n}\nconsole.log(f());\n";
        assert!(matches!(
            check("a.ts", ts, ts.trim_end()),
            Some(Flaw::Swallows { .. })
        ));
        let rs = "struct S;\nunsafe fn g() {}\n";
        assert!(matches!(
            check("a.rs", rs, rs.trim_end()),
            Some(Flaw::Swallows { .. })
        ));
        let c = "int\nmain(void)\n{\n    return 0;\n}\n";
        assert!(matches!(
            check("a.c", c, "int\nmain(void)"),
            Some(Flaw::StopsShort { .. })
        ));
        // Starting inside a string.
        let py = "s = \"\"\"\ndef f():\n    pass\n\"\"\"\n";
        assert!(matches!(
            check("a.py", py, "def f():\n    pass"),
            Some(Flaw::InsideText { .. })
        ));
    }
}
