//! `outline` and `find_symbol` (issue 27, phase 2a): code addressed by name, read-only. The
//! pool's `documentSymbol` tree and `workspace/symbol` matches become name paths (`Cart/total`)
//! with the anchor of the line holding the name and the declaration's line range, worded here
//! (as `locations.rs` words references).
//!
//! **Name paths** (docs/design.md §13): the names from the top of a file's symbol tree joined by
//! `/`. One rule normalises a container: a name `impl X`, `impl<T> X<T>` or `impl Trait for X`
//! (rust-analyzer's impl blocks) stands for `X` ([`container_name`]), so a method of either impl
//! is `Cart/total`; two symbols that then share a path are both candidates. A `/` inside a
//! server's name (a quoted TypeScript key) is not escaped: a query is matched against the joined
//! path as text, at segment boundaries, so `a/b` finds the key `"a/b"` and a child `b` of `a`
//! alike.
//!
//! **Where `find_symbol` looks:** a file scope is read by `documentSymbol` alone. Otherwise the
//! query's last segment goes to `workspace/symbol` on each server that serves a file of the scope
//! (the scope directory, else the workspace: the first file each server handles in a bounded
//! walk, [`representatives`]), and for a name path its parent segment too; the files it names
//! (inside the scope, at most [`MAX_FILES`]) are read by `documentSymbol`, and the name paths
//! there are matched: the query's last segment against the symbol's own name (case-insensitive
//! substring, or `exact`), the segments before it equal to the path's parent segments at their
//! end. A server's `workspace/symbol` may leave matches out (rust-analyzer answered `price`
//! with the trait `Priced` alone, without the two methods `price`): a name path (`Cart/price`)
//! still finds a member through its parent's file, and a path scope reads the files itself.

use lspedit_tools::front::{Step, say};
use lspedit_tools::render::plural;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_engine::{Anchor, LineHash, hashline};
use lspedit_lsp::Symbol;
use lspedit_lsp::lsp_types::{Range, SymbolKind};
use lspedit_write::{Reason, ToolError, Workspace};

use super::position::{FileText, LineSpan, line_spans};
use super::{LspEditError, LspEditProvider, convert, server_error};

/// Files `find_symbol` reads the symbols of, after `workspace/symbol` named them.
pub const MAX_FILES: usize = 20;
/// Matches `find_symbol` lists.
pub const MAX_MATCHES: usize = 50;
/// Matches shown with their body (`include_body`), and lines per body.
pub const MAX_BODIES: usize = 5;
pub const MAX_BODY_LINES: usize = 200;
/// Files of a directory `outline` reads (non-recursive), and lines it shows in all.
pub const MAX_OUTLINE_FILES: usize = 30;
pub const MAX_OUTLINE_LINES: usize = 400;
/// Directory entries the walk for a server's representative file visits, and its depth.
const MAX_WALK_ENTRIES: usize = 5_000;
const MAX_WALK_DEPTH: usize = 6;
/// Suggestions when nothing matches.
const MAX_SUGGESTIONS: usize = 5;

/// The name a symbol stands for in name paths: an impl block (`impl Cart`, `impl<T> Cart<T>`,
/// `impl Priced for Cart`, as rust-analyzer names them) is its type without generic arguments
/// (`Cart`); every other name is itself.
pub fn container_name(name: &str) -> &str {
    let Some(rest) = name
        .strip_prefix("impl ")
        .or_else(|| name.strip_prefix("impl<"))
    else {
        return name;
    };
    // `impl<T: A<B>> X<T>`: skip the generic parameters, balanced.
    let rest = if name.starts_with("impl<") {
        let mut depth = 1usize;
        let mut cut = rest.len();
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth -= 1;
                    if depth == 0 {
                        cut = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        &rest[cut..]
    } else {
        rest
    };
    let ty = match rest.rfind(" for ") {
        Some(i) => &rest[i + 5..],
        None => rest,
    };
    let ty = ty.trim();
    let ty = ty.split('<').next().unwrap_or(ty).trim();
    if ty.is_empty() { name } else { ty }
}

/// The lowercase name of a symbol kind, as `outline` and `find_symbol` print it and `kind`
/// filters by.
pub fn kind_name(kind: SymbolKind) -> &'static str {
    KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or("symbol", |(_, n)| n)
}

/// Every kind's name, for the text that says which kinds exist.
pub fn kind_names() -> impl Iterator<Item = &'static str> {
    KINDS.iter().map(|(_, n)| *n)
}

const KINDS: &[(SymbolKind, &str)] = &[
    (SymbolKind::FILE, "file"),
    (SymbolKind::MODULE, "module"),
    (SymbolKind::NAMESPACE, "namespace"),
    (SymbolKind::PACKAGE, "package"),
    (SymbolKind::CLASS, "class"),
    (SymbolKind::METHOD, "method"),
    (SymbolKind::PROPERTY, "property"),
    (SymbolKind::FIELD, "field"),
    (SymbolKind::CONSTRUCTOR, "constructor"),
    (SymbolKind::ENUM, "enum"),
    (SymbolKind::INTERFACE, "interface"),
    (SymbolKind::FUNCTION, "function"),
    (SymbolKind::VARIABLE, "variable"),
    (SymbolKind::CONSTANT, "constant"),
    (SymbolKind::STRING, "string"),
    (SymbolKind::NUMBER, "number"),
    (SymbolKind::BOOLEAN, "boolean"),
    (SymbolKind::ARRAY, "array"),
    (SymbolKind::OBJECT, "object"),
    (SymbolKind::KEY, "key"),
    (SymbolKind::NULL, "null"),
    (SymbolKind::ENUM_MEMBER, "enum_member"),
    (SymbolKind::STRUCT, "struct"),
    (SymbolKind::EVENT, "event"),
    (SymbolKind::OPERATOR, "operator"),
    (SymbolKind::TYPE_PARAMETER, "type_parameter"),
];

/// The kinds whose children are declarations in their own right: a file, module, namespace or
/// package, a class, interface, enum or struct, and an object (rust-analyzer's impl blocks). A
/// function's, method's or constructor's children are its locals; a variable's, constant's,
/// property's or field's are the keys of the value it holds (an object literal's fields); a
/// key's, array's or other value's are more of the value.
const CONTAINERS: &[SymbolKind] = &[
    SymbolKind::FILE,
    SymbolKind::MODULE,
    SymbolKind::NAMESPACE,
    SymbolKind::PACKAGE,
    SymbolKind::CLASS,
    SymbolKind::INTERFACE,
    SymbolKind::ENUM,
    SymbolKind::STRUCT,
    SymbolKind::OBJECT,
];

/// Whether `outline` shows, by default, a symbol whose parents from the top have `parents`
/// kinds (empty: a top-level symbol): every parent is a container of declarations
/// (`CONTAINERS`). So a top-level symbol of any kind is shown, and so are the members of a
/// class, struct, interface, enum, module or impl block, at any depth through such containers;
/// a function's locals and nested functions, and the keys of an object literal held by a
/// variable, constant, property or field, are not, nor is anything below them. Import
/// bindings, which a server may give as top-level variables, are told by the text
/// ([`is_import`]).
pub fn is_declaration(parents: &[SymbolKind]) -> bool {
    parents.iter().all(|k| CONTAINERS.contains(k))
}

/// How far before a symbol [`is_import`] looks for the `import` keyword.
const MAX_IMPORT_CLAUSE: usize = 4_096;

/// Whether the symbol whose declaration starts at byte `at` of `text` is an import binding: the
/// text before it, back to the nearest whole word `import`, is an import clause's head —
/// names, `as`, `type`, `*`, `,`, blanks and an opening `{` or `(`, a line break only after
/// such a bracket. So `import { a,\n  b }`, `import * as ns`, `from m import x as y` and
/// `import os` name import bindings; `import os` followed on the next line by `LIMIT = 1` does
/// not make `LIMIT` one. Servers give the kind of an import binding as that of any variable
/// (tsc7: `variable add`), so the kind cannot say it; the text can.
pub fn is_import(text: &str, at: usize) -> bool {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let mut from = at.saturating_sub(MAX_IMPORT_CLAUSE);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = &text[from..at];
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    // The nearest whole word `import` before `at`.
    let Some(keyword) = before.rmatch_indices("import").find_map(|(i, _)| {
        let prev = before[..i].chars().next_back();
        let next = before[i + 6..].chars().next();
        let whole = !prev.is_some_and(|c| is_word(c) || c == '.')
            && next.is_some_and(|c| c.is_whitespace() || c == '{' || c == '*' || c == '(');
        whole.then_some(i + 6)
    }) else {
        return false;
    };
    let mut bracket = false;
    for c in before[keyword..].chars() {
        match c {
            '{' | '(' => bracket = true,
            '\n' if !bracket => return false,
            ',' | '*' => {}
            c if c.is_whitespace() || is_word(c) => {}
            _ => return false,
        }
    }
    true
}

/// One symbol of a file, in the model's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolEntry {
    /// Workspace-relative path of its file.
    pub path: String,
    /// `Cart/total`: the normalised names from the top ([`container_name`]).
    pub name_path: String,
    /// Its own name as the server gave it (`impl Priced for Cart` for an impl block).
    pub name: String,
    pub kind: &'static str,
    /// 0 for a top-level symbol.
    pub depth: usize,
    /// The 1-based line holding its name, and that line's anchor (`42abcd`).
    pub line: usize,
    pub anchor: String,
    /// The 1-based lines of the whole declaration, as the server's range gives it.
    pub start_line: usize,
    pub end_line: usize,
    /// The server's detail (a signature or type), when it gives one.
    pub detail: Option<String>,
}

/// The symbols of one file of an outline.
#[derive(Debug, Clone)]
pub struct OutlineFile {
    pub path: String,
    pub server: String,
    /// Depth first in position order (a directory's outline: the top level only).
    pub symbols: Vec<SymbolEntry>,
}

/// What `outline` lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutlineOptions {
    /// Every symbol the server gives (import bindings, a function's locals, the keys of an
    /// object literal), not only the declarations ([`is_declaration`]).
    pub all: bool,
}

/// The answer of `outline`.
#[derive(Debug, Clone)]
pub struct OutlineReport {
    pub llm_content: String,
    /// The path as given, relative to the root.
    pub path: String,
    pub files: Vec<OutlineFile>,
    /// Files of a directory that were not outlined: past the cap, or their server failed (the
    /// text says which and why).
    pub left_out: Vec<String>,
    /// A server was still loading the project when it answered.
    pub partial: bool,
    /// Symbols the server gave that are not declarations, left out (without
    /// [`OutlineOptions::all`]).
    pub hidden: usize,
    pub server_time: Duration,
}

/// A symbol `find_symbol` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolHit {
    pub symbol: SymbolEntry,
    /// Its whole declaration in the hashline view (`include_body`, the first
    /// [`MAX_BODIES`] matches).
    pub body: Option<String>,
}

/// The answer of `find_symbol`.
#[derive(Debug, Clone)]
pub struct FindReport {
    pub llm_content: String,
    pub query: String,
    /// Sorted by path and line; at most [`MAX_MATCHES`].
    pub matches: Vec<SymbolHit>,
    /// Matches past [`MAX_MATCHES`].
    pub more: usize,
    /// When nothing matches: the nearest names seen, best first.
    pub suggestions: Vec<String>,
    /// A server was still loading the project: the list may be incomplete.
    pub partial: bool,
    /// The servers asked.
    pub servers: Vec<String>,
    pub server_time: Duration,
}

/// What `find_symbol` looks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindQuery {
    /// A name (`total`) or a name path (`Cart/total`).
    pub name: String,
    /// Only symbols of this kind (`method`, `class`, ... as [`kind_name`] says).
    pub kind: Option<String>,
    /// A file or directory to look in (relative to the root); the workspace when none.
    pub path: Option<String>,
    /// The name must be equal (case-sensitive), not merely contain the text (case-insensitive).
    pub exact: bool,
    /// Each match's whole declaration as a hashline excerpt.
    pub include_body: bool,
}

/// Whether the symbol at `name_path` (`Cart/total`) matches `query`: its own name (the path's
/// last segment, `leaf`) against the query's last segment — equal with `exact`, else containing
/// it, case-insensitive — and the query's segments before it equal to the path's segments above
/// the leaf, at their end. Both are compared as joined text, so a `/` inside a name needs no
/// escape.
pub fn matches(name_path: &str, leaf: &str, query: &str, exact: bool) -> bool {
    let (q_parents, q_leaf) = match query.rsplit_once('/') {
        Some((p, l)) => (p, l),
        None => ("", query),
    };
    // A query naming part of a leaf that holds `/` (`a/b` against the key `"a/b"`).
    if query.contains('/') && leaf.contains('/') && leaf_matches(leaf, query, exact) {
        return true;
    }
    if !leaf_matches(leaf, q_leaf, exact) {
        return false;
    }
    if q_parents.is_empty() {
        return true;
    }
    let parents = name_path
        .strip_suffix(leaf)
        .and_then(|p| p.strip_suffix('/'))
        .unwrap_or("");
    parents == q_parents || parents.ends_with(&format!("/{q_parents}"))
}

fn leaf_matches(leaf: &str, q: &str, exact: bool) -> bool {
    if exact {
        leaf == q
    } else {
        leaf.to_lowercase().contains(&q.to_lowercase())
    }
}

/// Levenshtein distance in characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The names among `seen` nearest to `query`, best first: each compared, case-insensitive, by
/// as many trailing segments as the query has (edit distance); kept when within a third of the
/// query's length (at least 2 edits) or when one contains the other (then ranked as 1 edit).
pub fn suggest<'a>(query: &str, seen: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let q = query.to_lowercase();
    let depth = q.split('/').count();
    let limit = (q.chars().count() / 3).max(2);
    let mut ranked: Vec<(usize, String)> = seen
        .into_iter()
        .filter_map(|name| {
            let segments: Vec<&str> = name.split('/').collect();
            let tail = segments[segments.len().saturating_sub(depth)..]
                .join("/")
                .to_lowercase();
            let d = distance(&q, &tail);
            // Containment counts only between paths of the query's depth.
            let related = segments.len() >= depth
                && !tail.is_empty()
                && (tail.contains(&q) || q.contains(&tail));
            (d <= limit || related).then(|| (if related { d.min(1) } else { d }, name.to_owned()))
        })
        .collect();
    ranked.sort();
    let mut out: Vec<String> = Vec::new();
    for (_, name) in ranked {
        if !out.contains(&name) {
            out.push(name);
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

/// Every symbol of `symbols` as an entry of the file `path` (whose text and lines are given),
/// depth first, with its normalised name path, the server's range of its whole declaration,
/// and whether `outline` shows it by default ([`is_declaration`], not [`is_import`]).
fn entries(
    path: &str,
    symbols: &[Symbol],
    text: &str,
    spans: &[LineSpan],
    encoding: lspedit_lsp::PositionEncoding,
) -> Vec<(SymbolEntry, Range, bool)> {
    struct Walk<'a> {
        path: &'a str,
        text: &'a str,
        spans: &'a [LineSpan],
        encoding: lspedit_lsp::PositionEncoding,
        /// The kinds of the symbols above the one visited, from the top.
        parents: Vec<SymbolKind>,
        out: Vec<(SymbolEntry, Range, bool)>,
    }
    fn go(w: &mut Walk<'_>, prefix: &str, symbols: &[Symbol]) {
        for s in symbols {
            let own = container_name(&s.name);
            let name_path = if prefix.is_empty() {
                own.to_owned()
            } else {
                format!("{prefix}/{own}")
            };
            let line = one_based_line(s.selection_range.start.line, w.spans);
            let (start_line, end_line) = lines_of(s.range, w.spans);
            let content = w
                .spans
                .get(line - 1)
                .map_or("", |sp| &w.text[sp.start..sp.end]);
            let declared =
                is_declaration(&w.parents) && !is_import(w.text, w.offset(s.range.start));
            w.out.push((
                SymbolEntry {
                    path: w.path.to_owned(),
                    name_path: name_path.clone(),
                    name: s.name.clone(),
                    kind: kind_name(s.kind),
                    depth: w.parents.len(),
                    line,
                    anchor: Anchor {
                        line,
                        hash: LineHash::of(content),
                    }
                    .to_string(),
                    start_line,
                    end_line,
                    detail: s.detail.clone(),
                },
                s.range,
                declared,
            ));
            w.parents.push(s.kind);
            go(w, &name_path, &s.children);
            w.parents.pop();
        }
    }
    impl Walk<'_> {
        /// The byte offset of `pos`, found within its line (clamped to the text).
        fn offset(&self, pos: lspedit_lsp::lsp_types::Position) -> usize {
            let Some(span) = self.spans.get(pos.line as usize) else {
                return self.text.len();
            };
            let line = &self.text[span.start..span.end];
            let within = lspedit_lsp::lsp_types::Position::new(0, pos.character);
            span.start + self.encoding.offset(line, within).unwrap_or(line.len())
        }
    }
    let mut w = Walk {
        path,
        text,
        spans,
        encoding,
        parents: Vec::new(),
        out: Vec::new(),
    };
    go(&mut w, "", symbols);
    w.out
}

/// A 0-based LSP line as a 1-based line of the file, clamped to it.
fn one_based_line(line: u32, spans: &[LineSpan]) -> usize {
    (line as usize + 1).clamp(1, spans.len().max(1))
}

/// The 1-based first and last line of `range`; an end at the start of a line (character 0)
/// ends on the line before.
fn lines_of(range: Range, spans: &[LineSpan]) -> (usize, usize) {
    let start = one_based_line(range.start.line, spans);
    let end = if range.end.character == 0 && range.end.line > range.start.line {
        range.end.line as usize
    } else {
        range.end.line as usize + 1
    };
    (start, end.clamp(start, spans.len().max(start)))
}

/// `path` as read for a symbol request: inside the workspace, not protected, a text file.
pub(crate) fn read_source(ws: &Workspace, path: &str) -> Result<FileText, ToolError> {
    refuse_protected(ws, path)?;
    let abs = ws.resolve(path)?;
    let rel = ws.display_path(&abs);
    let bytes = ws
        .read_resolved(&abs, path)?
        .ok_or_else(|| ToolError::new(Reason::FileNotFound, Some(&rel), "no such file"))?;
    lspedit_engine::check_text(&bytes).map_err(|e| ToolError::from_engine(Some(&rel), e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(Reason::NotUtf8, Some(&rel), "the file is not valid UTF-8"))?;
    Ok(FileText { rel, abs, text })
}

/// A protected path (`.git/`, `.lspedit/`, ...) is not handed to a server: `protected_path`.
fn refuse_protected(ws: &Workspace, path: &str) -> Result<(), ToolError> {
    let abs = ws.resolve(path)?;
    let rel = ws.display_path(&abs);
    match ws
        .protected_in(Path::new(path))
        .or_else(|| ws.protected_in(Path::new(&rel)))
    {
        Some(name) => Err(ToolError::new(
            Reason::ProtectedPath,
            Some(path),
            format!("`{name}` is protected: its files are not read for symbols"),
        )),
        None => Ok(()),
    }
}

/// A directory of the workspace as given (`None`: the path is not a directory), resolved.
fn as_dir(ws: &Workspace, path: &str) -> Result<Option<PathBuf>, ToolError> {
    if is_root(path) {
        return Ok(Some(ws.root().to_path_buf()));
    }
    refuse_protected(ws, path)?;
    let abs = ws.resolve(path)?;
    Ok(abs.is_dir().then_some(abs))
}

/// Whether `path` names the workspace root itself (`""`, `.`, `./`).
fn is_root(path: &str) -> bool {
    matches!(path.trim(), "" | "." | "./")
}

/// The regular files directly in `dir` (sorted) and its subdirectories, protected and hidden
/// names left out.
fn list_dir(ws: &Workspace, dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    let Ok(read) = std::fs::read_dir(dir) else {
        return (files, dirs);
    };
    for entry in read.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || ws.protected().iter().any(|p| p.as_str() == name) {
            continue;
        }
        // Symlinks are followed only when they stay inside the workspace.
        let abs = entry.path();
        let rel = ws.display_path(&abs);
        let Ok(resolved) = ws.resolve(&rel) else {
            continue;
        };
        if resolved.is_dir() {
            dirs.push(abs);
        } else if resolved.is_file() {
            files.push(abs);
        }
    }
    files.sort();
    dirs.sort();
    (files, dirs)
}

/// Directories the walk for representatives does not enter: dependencies and build output.
const SKIPPED_DIRS: &[&str] = &["node_modules", "target", "__pycache__", "dist", "build"];

/// For each server that serves a file under `dir`: the first such file of a breadth-first walk
/// (at most [`MAX_WALK_DEPTH`] deep, [`MAX_WALK_ENTRIES`] entries, hidden, protected and
/// dependency directories skipped), in the order found.
pub(crate) fn representatives(
    ws: &Workspace,
    provider: &dyn LspEditProvider,
    dir: &Path,
) -> Vec<(String, PathBuf)> {
    let mut found: Vec<(String, PathBuf)> = Vec::new();
    let mut level = vec![dir.to_path_buf()];
    let mut visited = 0;
    for _ in 0..MAX_WALK_DEPTH {
        let mut next = Vec::new();
        for d in &level {
            let (files, dirs) = list_dir(ws, d);
            visited += files.len() + dirs.len();
            for f in files {
                if let Some(id) = provider.server_id(&f)
                    && !found.iter().any(|(s, _)| *s == id)
                {
                    found.push((id, f));
                }
            }
            next.extend(dirs.into_iter().filter(|d| {
                d.file_name()
                    .is_some_and(|n| !SKIPPED_DIRS.contains(&n.to_string_lossy().as_ref()))
            }));
            if visited > MAX_WALK_ENTRIES {
                return found;
            }
        }
        if next.is_empty() {
            break;
        }
        level = next;
    }
    found
}

/// The document symbols of `file` as entries, with the answer's facts.
pub(crate) struct FileSymbols {
    pub entries: Vec<SymbolEntry>,
    /// The server's range of each entry's whole declaration, in `encoding`.
    pub ranges: Vec<Range>,
    /// Whether `outline` shows each entry by default ([`is_declaration`], not [`is_import`]).
    pub declared: Vec<bool>,
    pub encoding: lspedit_lsp::PositionEncoding,
    pub server: String,
    pub partial: bool,
    pub server_time: Duration,
}

/// The symbols of `file` by `documentSymbol`; a reading of a text that lexes whole is
/// remembered in `memory` (the symbol edits' recall, `memory.rs`).
pub(crate) fn file_symbols(
    provider: &dyn LspEditProvider,
    file: &FileText,
    deadline: Instant,
    memory: Option<&crate::SymbolMemory>,
) -> Result<FileSymbols, LspEditError> {
    let answer = provider
        .document_symbols(&file.abs, &file.text, deadline)
        .map_err(|e| server_error(&file.rel, e))?;
    let spans = line_spans(&file.text);
    let mut found = entries(
        &file.rel,
        &answer.symbols,
        &file.text,
        &spans,
        answer.encoding,
    );
    let mut ranges = Vec::with_capacity(found.len());
    let mut declared = Vec::with_capacity(found.len());
    let entries = found
        .drain(..)
        .map(|(e, r, d)| {
            ranges.push(r);
            declared.push(d);
            e
        })
        .collect::<Vec<_>>();
    if let Some(memory) = memory {
        crate::symbol_edits::remember(memory, file, &entries, &ranges, answer.encoding);
    }
    Ok(FileSymbols {
        entries,
        ranges,
        declared,
        encoding: answer.encoding,
        server: answer.server,
        partial: answer.partial,
        server_time: answer.server_time,
    })
}

/// The partial note, once per server that was still loading.
fn partial_note(servers: &BTreeSet<String>) -> String {
    servers
        .iter()
        .map(|s| {
            format!(
                "\n{s} was still loading the project: this answer may be incomplete; ask again shortly."
            )
        })
        .collect()
}

/// `lines 3-5`, or `line 4`.
pub(crate) fn line_range(e: &SymbolEntry) -> String {
    if e.start_line == e.end_line {
        format!("line {}", e.start_line)
    } else {
        format!("lines {}-{}", e.start_line, e.end_line)
    }
}

/// One outline line: indentation by depth, kind, name path, anchor of the name's line, range;
/// an impl block's own name in brackets.
pub(crate) fn outline_line(e: &SymbolEntry, base_depth: usize) -> String {
    let mut s = format!(
        "{}{} {} {} {}",
        "  ".repeat(e.depth.saturating_sub(base_depth)),
        e.kind,
        e.name_path,
        e.anchor,
        line_range(e)
    );
    if container_name(&e.name) != e.name {
        s.push_str(&format!(" [{}]", e.name));
    }
    s
}

/// `outline` of `path`, a file (its whole tree) or a directory (the top-level symbols of each
/// file in it that a server reads, non-recursive): the declarations ([`is_declaration`]), or
/// with [`OutlineOptions::all`] every symbol.
pub(crate) fn outline(
    ws: &Workspace,
    provider: Option<&dyn LspEditProvider>,
    path: &str,
    options: OutlineOptions,
    deadline: Instant,
    memory: Option<&crate::SymbolMemory>,
) -> Result<OutlineReport, LspEditError> {
    let no_server =
        |rel: &str, abs: PathBuf| server_error(rel, lspedit_lsp::LspError::NoServer { path: abs });
    if let Some(dir) = as_dir(ws, path)? {
        let shown = ws.display_path(&dir);
        let provider = provider.ok_or_else(|| no_server(&shown, dir.clone()))?;
        return outline_dir(ws, provider, &dir, options, deadline);
    }
    let file = read_source(ws, path)?;
    let provider = provider
        .filter(|p| p.handles(&file.abs))
        .ok_or_else(|| no_server(&file.rel, file.abs.clone()))?;
    let found = file_symbols(provider, &file, deadline, memory)?;
    let (symbols, hidden) = shown(found.entries, &found.declared, options);
    let n = symbols.len();
    let mut llm = if n == 0 {
        format!(
            "{} ({}): no {}",
            file.rel,
            found.server,
            if hidden == 0 {
                "symbols"
            } else {
                "declarations"
            }
        )
    } else {
        format!(
            "{} ({}): {}",
            file.rel,
            found.server,
            plural(n, "symbol", "symbols")
        )
    };
    llm.push_str(&hidden_note(hidden, &file.rel));
    llm.push_str(if n == 0 { "." } else { "" });
    if found.partial {
        llm.push_str(&partial_note(&BTreeSet::from([found.server.clone()])));
    }
    for e in symbols.iter().take(MAX_OUTLINE_LINES) {
        llm.push('\n');
        llm.push_str(&outline_line(e, 0));
    }
    if n > MAX_OUTLINE_LINES {
        llm.push_str(&format!(
            "\n... and {} ({} reaches them).",
            plural(n - MAX_OUTLINE_LINES, "more symbol", "more symbols"),
            say(&Step::FindSymbolIn { path: &file.rel })
        ));
    }
    Ok(OutlineReport {
        llm_content: llm,
        path: file.rel.clone(),
        files: vec![OutlineFile {
            path: file.rel,
            server: found.server,
            symbols,
        }],
        left_out: Vec::new(),
        partial: found.partial,
        hidden,
        server_time: found.server_time,
    })
}

/// The entries `outline` shows (each with its `declared` flag, as [`FileSymbols::declared`]
/// gives them) and how many it leaves out: every one with [`OutlineOptions::all`], else the
/// declarations.
fn shown(
    entries: Vec<SymbolEntry>,
    declared: &[bool],
    options: OutlineOptions,
) -> (Vec<SymbolEntry>, usize) {
    if options.all {
        return (entries, 0);
    }
    let total = entries.len();
    let kept: Vec<SymbolEntry> = entries
        .into_iter()
        .zip(declared)
        .filter_map(|(e, &d)| d.then_some(e))
        .collect();
    let hidden = total - kept.len();
    (kept, hidden)
}

/// `; K more (...) shown by <outline with all>` after an outline's head, when it left `hidden`
/// symbols out; empty otherwise.
fn hidden_note(hidden: usize, path: &str) -> String {
    if hidden == 0 {
        return String::new();
    }
    format!(
        "; {} (imports, locals, object-literal keys) shown by {}",
        plural(hidden, "other symbol", "other symbols"),
        say(&Step::OutlineAll { path })
    )
}

fn outline_dir(
    ws: &Workspace,
    provider: &dyn LspEditProvider,
    dir: &Path,
    options: OutlineOptions,
    deadline: Instant,
) -> Result<OutlineReport, LspEditError> {
    let shown_dir = ws.display_path(dir);
    let shown_dir = if shown_dir.is_empty() {
        ".".to_owned()
    } else {
        shown_dir
    };
    let (files, dirs) = list_dir(ws, dir);
    let (served, unread): (Vec<PathBuf>, Vec<PathBuf>) =
        files.into_iter().partition(|f| provider.handles(f));
    let mut out_files = Vec::new();
    let mut left_out = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    let mut past_cap: Vec<String> = Vec::new();
    let mut loading = BTreeSet::new();
    let mut server_time = Duration::ZERO;
    let mut hidden = 0;
    let mut lines = 0;
    let mut body = String::new();
    let mut first_error = None;
    for (i, abs) in served.iter().enumerate() {
        let rel = ws.display_path(abs);
        if i >= MAX_OUTLINE_FILES || lines >= MAX_OUTLINE_LINES {
            past_cap.push(rel.clone());
            left_out.push(rel);
            continue;
        }
        let found = read_source(ws, &rel)
            .map_err(LspEditError::from)
            .and_then(|file| file_symbols(provider, &file, deadline, None));
        let found = match found {
            Ok(f) => f,
            Err(e) => {
                failed.push(format!("{rel} ({})", e.code()));
                left_out.push(rel);
                first_error.get_or_insert(e);
                continue;
            }
        };
        if found.partial {
            loading.insert(found.server.clone());
        }
        server_time += found.server_time;
        // Only the top level is listed: what the rule leaves out of it counts.
        let (top, declared): (Vec<SymbolEntry>, Vec<bool>) = found
            .entries
            .into_iter()
            .zip(found.declared)
            .filter(|(e, _)| e.depth == 0)
            .unzip();
        let (top, left) = shown(top, &declared, options);
        hidden += left;
        body.push_str(&format!("\n{rel}"));
        if top.is_empty() {
            body.push_str(": no symbols");
        }
        for e in &top {
            body.push_str(&format!("\n  {}", outline_line(e, 0)));
            lines += 1;
        }
        out_files.push(OutlineFile {
            path: rel,
            server: found.server,
            symbols: top,
        });
    }
    if out_files.is_empty()
        && let Some(e) = first_error
    {
        return Err(e);
    }
    let servers: BTreeSet<&str> = out_files.iter().map(|f| f.server.as_str()).collect();
    let mut llm = format!(
        "{shown_dir}/: top-level symbols of {} file{}{}",
        out_files.len(),
        if out_files.len() == 1 { "" } else { "s" },
        if servers.is_empty() {
            String::new()
        } else {
            format!(" ({})", servers.into_iter().collect::<Vec<_>>().join(", "))
        }
    );
    llm.push_str(&hidden_note(hidden, &shown_dir));
    llm.push_str(&partial_note(&loading));
    llm.push_str(&body);
    let mut notes = Vec::new();
    if !past_cap.is_empty() {
        notes.push(format!(
            "{} more file{} past the cap: {}",
            past_cap.len(),
            if past_cap.len() == 1 { "" } else { "s" },
            names(past_cap.iter().map(|s| s.as_str()))
        ));
    }
    if !failed.is_empty() {
        notes.push(format!("not read: {}", failed.join(", ")));
    }
    if !unread.is_empty() {
        notes.push(format!(
            "{} file{} no server reads: {}",
            unread.len(),
            if unread.len() == 1 { "" } else { "s" },
            names(
                unread
                    .iter()
                    .map(|p| p
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned()))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str)
            )
        ));
    }
    if !dirs.is_empty() {
        notes.push(format!(
            "subdirectories (outline each on its own): {}",
            names(
                dirs.iter()
                    .map(|d| format!("{}/", ws.display_path(d)))
                    .collect::<Vec<_>>()
                    .iter()
                    .map(String::as_str)
            )
        ));
    }
    if !notes.is_empty() {
        llm.push_str("\n\nNot shown: ");
        llm.push_str(&notes.join("; "));
        llm.push('.');
    }
    Ok(OutlineReport {
        llm_content: llm,
        path: shown_dir,
        files: out_files,
        left_out,
        partial: !loading.is_empty(),
        hidden,
        server_time,
    })
}

/// Up to 10 names, then how many more.
fn names<'a>(all: impl Iterator<Item = &'a str>) -> String {
    let all: Vec<&str> = all.collect();
    let mut s = all.iter().take(10).copied().collect::<Vec<_>>().join(", ");
    if all.len() > 10 {
        s.push_str(&format!(" and {} more", all.len() - 10));
    }
    s
}

/// What one `find_symbol` call has learnt so far from the servers.
struct Search<'a> {
    ws: &'a Workspace,
    provider: &'a dyn LspEditProvider,
    deadline: Instant,
    memory: Option<&'a crate::SymbolMemory>,
    servers: BTreeSet<String>,
    loading: BTreeSet<String>,
    server_time: Duration,
    /// Name paths seen, for suggestions.
    seen: BTreeSet<String>,
    texts: BTreeMap<String, String>,
}

impl Search<'_> {
    /// The workspace files under `dir` that `workspace/symbol` answers `query` with, on the
    /// server of each of `reps`, and whose match `keep` accepts. A server that fails is left
    /// out; all failing is the first failure.
    fn ask(
        &mut self,
        reps: &[(String, PathBuf)],
        dir: &Path,
        query: &str,
        keep: &dyn Fn(&lspedit_lsp::SymbolMatch) -> bool,
    ) -> Result<BTreeSet<String>, LspEditError> {
        let mut files = BTreeSet::new();
        let mut first_error = None;
        let mut answered = false;
        for (_, hint) in reps {
            let answer = match self.provider.workspace_symbols(hint, query, self.deadline) {
                Ok(a) => a,
                Err(e) => {
                    first_error.get_or_insert(server_error(&self.ws.display_path(hint), e));
                    continue;
                }
            };
            answered = true;
            self.servers.insert(answer.server.clone());
            if answer.partial {
                self.loading.insert(answer.server.clone());
            }
            self.server_time += answer.server_time;
            for m in &answer.symbols {
                let Some(rel) = convert::confine_read(self.ws, &m.uri) else {
                    continue;
                };
                let inside = self.ws.resolve(&rel).is_ok_and(|abs| abs.starts_with(dir));
                if !inside || self.ws.protected_in(Path::new(&rel)).is_some() {
                    continue;
                }
                self.seen.insert(container_name(&m.name).to_owned());
                if keep(m) {
                    files.insert(rel);
                }
            }
        }
        match first_error {
            Some(e) if !answered => Err(e),
            _ => Ok(files),
        }
    }

    /// The symbols of the workspace file `rel`, their name paths remembered.
    fn read(&mut self, rel: &str) -> Result<Vec<SymbolEntry>, LspEditError> {
        let file = read_source(self.ws, rel)?;
        let found = file_symbols(self.provider, &file, self.deadline, self.memory)?;
        self.servers.insert(found.server.clone());
        if found.partial {
            self.loading.insert(found.server.clone());
        }
        self.server_time += found.server_time;
        self.seen
            .extend(found.entries.iter().map(|e| e.name_path.clone()));
        self.texts.insert(file.rel, file.text);
        Ok(found.entries)
    }
}

/// Files read for names to suggest when nothing matched.
const MAX_SUGGESTION_FILES: usize = 5;

/// `find_symbol`.
pub(crate) fn find(
    ws: &Workspace,
    provider: Option<&dyn LspEditProvider>,
    q: &FindQuery,
    deadline: Instant,
    memory: Option<&crate::SymbolMemory>,
) -> Result<FindReport, LspEditError> {
    let scope = q.path.as_deref().unwrap_or("");
    let no_server =
        |rel: &str, abs: PathBuf| server_error(rel, lspedit_lsp::LspError::NoServer { path: abs });
    let kind = q.kind.as_deref().map(str::to_lowercase);
    let kind_ok = |k: &str| kind.as_deref().is_none_or(|want| want == k);
    let leaf_query = q.name.rsplit('/').next().unwrap_or(&q.name).to_owned();

    let dir = as_dir(ws, scope)?;
    let scope_shown = match &dir {
        Some(_) if is_root(scope) => "the workspace".to_owned(),
        Some(d) => format!("{}/", ws.display_path(d)),
        None => ws.display_path(&ws.resolve(scope)?),
    };
    // The files to read the symbols of, and the servers to ask (none for a file scope).
    let (provider, files, reps) = match &dir {
        None => {
            let file = read_source(ws, scope)?;
            let provider = provider
                .filter(|p| p.handles(&file.abs))
                .ok_or_else(|| no_server(&file.rel, file.abs.clone()))?;
            (provider, BTreeSet::from([file.rel]), Vec::new())
        }
        Some(d) => {
            let provider = provider.ok_or_else(|| no_server(&scope_shown, d.clone()))?;
            let reps = representatives(ws, provider, d);
            if reps.is_empty() {
                return Err(no_server(&scope_shown, d.clone()));
            }
            (provider, BTreeSet::new(), reps)
        }
    };
    let mut search = Search {
        ws,
        provider,
        deadline,
        memory,
        servers: BTreeSet::new(),
        loading: BTreeSet::new(),
        server_time: Duration::ZERO,
        seen: BTreeSet::new(),
        texts: BTreeMap::new(),
    };
    let files = match &dir {
        None => files,
        // The files are chosen loosely (a name containing the segment, any kind) and the
        // document symbols decide: a server may call a symbol one kind in `workspace/symbol`
        // and another in `documentSymbol`. For a name path, the files holding its parent are
        // read too: a server's `workspace/symbol` may leave the member out (rust-analyzer
        // answered `price` with the trait `Priced` alone, without the methods `price`).
        Some(d) => {
            let mut files = search.ask(&reps, d, &leaf_query, &|m| {
                leaf_matches(container_name(&m.name), &leaf_query, false)
            })?;
            if let Some(parent) = q.name.rsplit('/').nth(1).filter(|p| !p.is_empty()) {
                files.extend(search.ask(&reps, d, parent, &|m| {
                    leaf_matches(container_name(&m.name), parent, false)
                })?);
            }
            files
        }
    };

    let mut hits: Vec<SymbolEntry> = Vec::new();
    let files_left_out = files.len().saturating_sub(MAX_FILES);
    for rel in files.iter().take(MAX_FILES) {
        let entries = match search.read(rel) {
            Ok(e) => e,
            // One file of many: the others still answer.
            Err(e) if dir.is_none() => return Err(e),
            Err(_) => continue,
        };
        hits.extend(entries.into_iter().filter(|e| {
            kind_ok(e.kind) && matches(&e.name_path, container_name(&e.name), &q.name, q.exact)
        }));
    }
    hits.sort_by(|a, b| (&a.path, a.line, &a.name_path).cmp(&(&b.path, b.line, &b.name_path)));
    hits.dedup();

    // Nothing: names near the query, from the files holding its first segment or the start of
    // its last (servers match `workspace/symbol` queries their own way; most not fuzzily).
    let suggestions = if hits.is_empty() {
        if let Some(d) = &dir {
            let first = q.name.split('/').next().unwrap_or("");
            let start: String = leaf_query.chars().take(2).collect();
            let mut more = BTreeSet::new();
            for wider in [first, start.as_str()] {
                if !wider.is_empty() && wider != leaf_query {
                    more.extend(search.ask(&reps, d, wider, &|_| true).unwrap_or_default());
                }
            }
            for rel in more.difference(&files).take(MAX_SUGGESTION_FILES) {
                let _ = search.read(rel);
            }
        }
        suggest(&q.name, search.seen.iter().map(String::as_str))
    } else {
        Vec::new()
    };
    let more = hits.len().saturating_sub(MAX_MATCHES);
    hits.truncate(MAX_MATCHES);
    let found: Vec<SymbolHit> = hits
        .into_iter()
        .enumerate()
        .map(|(i, symbol)| {
            let body = (q.include_body && i < MAX_BODIES)
                .then(|| {
                    search
                        .texts
                        .get(&symbol.path)
                        .map(|t| body_text(t, &symbol))
                })
                .flatten();
            SymbolHit { symbol, body }
        })
        .collect();
    let llm = find_text(
        q,
        &scope_shown,
        &found,
        more,
        files_left_out,
        &suggestions,
        &search.servers,
        &search.loading,
    );
    Ok(FindReport {
        llm_content: llm,
        query: q.name.clone(),
        matches: found,
        more,
        suggestions,
        partial: !search.loading.is_empty(),
        servers: search.servers.into_iter().collect(),
        server_time: search.server_time,
    })
}

/// The declaration's lines in the hashline view, at most [`MAX_BODY_LINES`].
fn body_text(text: &str, e: &SymbolEntry) -> String {
    let spans = line_spans(text);
    let mut out = Vec::new();
    for n in e.start_line..=e.end_line {
        if n - e.start_line == MAX_BODY_LINES {
            out.push(format!(
                "... {} ({})",
                plural(e.end_line + 1 - n, "more line", "more lines"),
                say(&Step::ReadFrom {
                    path: &e.path,
                    offset: n
                })
            ));
            break;
        }
        if let Some(s) = spans.get(n - 1) {
            out.push(
                lspedit_tools::render::cap_line(&hashline(n, &text[s.start..s.end])).into_owned(),
            );
        }
    }
    out.join("\n")
}

#[allow(clippy::too_many_arguments)] // reason: the facts of one answer, worded in one place
fn find_text(
    q: &FindQuery,
    scope: &str,
    found: &[SymbolHit],
    more: usize,
    files_left_out: usize,
    suggestions: &[String],
    servers: &BTreeSet<String>,
    loading: &BTreeSet<String>,
) -> String {
    let how = if q.exact { "exactly" } else { "" };
    let what = match &q.kind {
        Some(k) => format!("{k} symbols"),
        None => "symbols".to_owned(),
    };
    let asked = if servers.is_empty() {
        String::new()
    } else {
        format!(
            " ({})",
            servers.iter().cloned().collect::<Vec<_>>().join(", ")
        )
    };
    let mut llm = if found.is_empty() {
        let kinds = match &q.kind {
            Some(k) if !kind_names().any(|n| n == k.to_lowercase()) => format!(
                " `{k}` is not a kind; kinds are: {}.",
                kind_names().collect::<Vec<_>>().join(", ")
            ),
            _ => String::new(),
        };
        let near = if suggestions.is_empty() {
            String::new()
        } else {
            format!(" Nearest names: {}.", suggestions.join(", "))
        };
        format!(
            "No {what} match `{}`{} in {scope}{asked}.{kinds}{near}",
            q.name,
            if how.is_empty() {
                String::new()
            } else {
                format!(" {how}")
            }
        )
    } else {
        let n = found.len() + more;
        format!(
            "{n} {} `{}`{} in {scope}{asked}:",
            if n == 1 {
                format!("{} matches", what.trim_end_matches('s'))
            } else {
                format!("{what} match")
            },
            q.name,
            if how.is_empty() {
                String::new()
            } else {
                format!(" {how}")
            }
        )
    };
    llm.push_str(&partial_note(loading));
    for h in found {
        let e = &h.symbol;
        llm.push_str(&format!(
            "\n{}:{} {} {} {} {}",
            e.path,
            e.line,
            e.kind,
            e.name_path,
            e.anchor,
            line_range(e)
        ));
        if container_name(&e.name) != e.name {
            llm.push_str(&format!(" [{}]", e.name));
        }
        if let Some(body) = &h.body {
            llm.push('\n');
            llm.push_str(body);
        }
    }
    if more > 0 {
        llm.push_str(&format!(
            "\n... and {more} more; narrow with path, kind or a name path."
        ));
    }
    if files_left_out > 0 {
        llm.push_str(&format!(
            "\n{files_left_out} more files hold matching names and were not read; narrow with path."
        ));
    }
    llm
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impl_blocks_stand_for_their_type() {
        for (name, want) in [
            ("impl Cart", "Cart"),
            ("impl Priced for Cart", "Cart"),
            ("impl<T> Cart<T>", "Cart"),
            ("impl<T: Into<u8>> From<T> for Wrapper<T>", "Wrapper"),
            ("impl fmt::Display for Cart", "Cart"),
            ("Cart", "Cart"),
            ("implement", "implement"),
            ("impl", "impl"),
            ("total", "total"),
        ] {
            assert_eq!(container_name(name), want, "{name}");
        }
    }

    #[test]
    fn name_paths_match_by_leaf_and_parents() {
        // (name path, leaf, query, exact, expected)
        let cases = [
            ("Cart/total", "total", "total", false, true),
            ("Cart/total", "total", "tot", false, true),
            ("Cart/total", "total", "TOTAL", false, true),
            ("Cart/total", "total", "tot", true, false),
            ("Cart/total", "total", "total", true, true),
            ("Cart/total", "total", "Cart/total", true, true),
            ("Cart/total", "total", "Cart/tot", false, true),
            ("Cart/total", "total", "Other/total", false, false),
            ("Cart/total", "total", "art/total", false, false),
            ("mod/Cart/total", "total", "Cart/total", true, true),
            ("Cart", "Cart", "Cart/total", false, false),
            // A `/` inside a name: matched as text.
            ("routes/a/b", "a/b", "a/b", true, true),
            ("a/b", "b", "a/b", true, true),
        ];
        for (path, leaf, query, exact, want) in cases {
            assert_eq!(
                matches(path, leaf, query, exact),
                want,
                "{path} ~ {query} (exact {exact})"
            );
        }
    }

    #[test]
    fn suggestions_rank_near_names_first() {
        let seen = [
            "Cart",
            "Cart/total",
            "Cart/price",
            "Priced/price",
            "main",
            "add",
        ];
        assert_eq!(suggest("totl", seen)[0], "Cart/total");
        assert_eq!(suggest("Cart/totl", seen), ["Cart/total"]);
        let got = suggest("prise", seen);
        assert_eq!(got, ["Cart/price", "Priced/price"]);
        assert!(suggest("zzzzzzzz", seen).is_empty());
        // Containment counts whatever the length.
        assert_eq!(suggest("Carts", seen)[0], "Cart");
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "ab"), 2);
    }

    #[test]
    fn ranges_become_lines() {
        let text = "a\nb\nc\nd\n";
        let spans = line_spans(text);
        let r = |l0, c0, l1, c1| Range {
            start: lspedit_lsp::lsp_types::Position::new(l0, c0),
            end: lspedit_lsp::lsp_types::Position::new(l1, c1),
        };
        assert_eq!(lines_of(r(0, 0, 2, 1), &spans), (1, 3));
        // An end at the start of a line ends on the line before.
        assert_eq!(lines_of(r(0, 0, 2, 0), &spans), (1, 2));
        assert_eq!(lines_of(r(1, 0, 1, 0), &spans), (2, 2));
        // Past the end: clamped.
        assert_eq!(lines_of(r(3, 0, 9, 0), &spans), (4, 4));
    }

    #[test]
    fn declarations_are_what_containers_hold() {
        use SymbolKind as K;
        // (kinds of the parents from the top, shown by default)
        let cases: &[(&[SymbolKind], bool)] = &[
            (&[], true),
            (&[K::CLASS], true),
            (&[K::STRUCT], true),
            (&[K::INTERFACE], true),
            (&[K::ENUM], true),
            (&[K::OBJECT], true),
            (&[K::MODULE, K::CLASS], true),
            (&[K::NAMESPACE, K::MODULE], true),
            (&[K::FILE, K::PACKAGE], true),
            // A function's locals and nested functions.
            (&[K::FUNCTION], false),
            (&[K::CLASS, K::METHOD], false),
            (&[K::CLASS, K::CONSTRUCTOR], false),
            // The keys of a value: an object literal held by a variable, constant, property
            // or field, and below them.
            (&[K::VARIABLE], false),
            (&[K::CONSTANT], false),
            (&[K::CLASS, K::PROPERTY], false),
            (&[K::STRUCT, K::FIELD], false),
            (&[K::CONSTANT, K::PROPERTY], false),
            (&[K::KEY], false),
            (&[K::ARRAY], false),
            // A class declared inside a function is a local too, and so are its members.
            (&[K::FUNCTION, K::CLASS], false),
        ];
        for (parents, want) in cases {
            assert_eq!(is_declaration(parents), *want, "{parents:?}");
        }
    }

    #[test]
    fn import_bindings_are_told_by_the_clause_before_them() {
        // (text with `^` where the symbol's declaration starts, is an import)
        let cases = [
            ("import { ^add } from \"./util\";", true),
            ("import { add, greet as ^hello } from \"./util\";", true),
            ("import { add, ^greet as hello } from \"./util\";", true),
            ("import ^React, { useState } from \"react\";", true),
            ("import * as ^ns from \"m\";", true),
            ("import type { ^Id } from \"./t\";", true),
            ("import ^x = require(\"m\");", true),
            ("import {\n  a,\n  ^b,\n} from \"m\";", true),
            ("import ^os", true),
            ("from app.main import ^add as plus", true),
            ("from app.main import add as ^plus", true),
            ("from . import (\n    a,\n    ^b,\n)", true),
            // Declarations after an import are not imports.
            ("import os\n^LIMIT = 10", false),
            ("import os\n\n^def f(): pass", false),
            ("import { a } from \"m\";\nexport const ^LIMIT = 1;", false),
            ("import { a } from \"m\"\nconst ^b = 1", false),
            ("export const ^LIMIT = 1;", false),
            ("const { a, ^b } = obj;", false),
            ("const ^important = 1;", false),
            ("const x = foo.import\n^y = 1", false),
            ("const ^m = await import(\"x\");", false),
            ("^first", false),
        ];
        for (marked, want) in cases {
            let at = marked.find('^').unwrap();
            let text = marked.replacen('^', "", 1);
            assert_eq!(is_import(&text, at), want, "{marked:?}");
        }
        // Never past the text, nor inside a character.
        assert!(!is_import("é", 1));
        assert!(!is_import("", 9));
    }

    /// The default outline lists declarations; `all` every symbol, as before. An import
    /// binding given as a variable (tsc7), a method's local and an object literal's keys are
    /// left out and counted, with how to see them.
    #[test]
    fn an_outline_lists_declarations_unless_asked_for_all() {
        let (dir, ws) = workspace();
        let text = "import { add } from \"./util\";\nexport const settings = { retries: 3 };\nexport class Box {\n  area() { const scale = 2; }\n}\n";
        std::fs::write(dir.path().join("src/box.ts"), text).unwrap();
        let at = |line: u32, from: u32, to: u32| Range {
            start: lspedit_lsp::lsp_types::Position::new(line, from),
            end: lspedit_lsp::lsp_types::Position::new(line, to),
        };
        let leaf = |name: &str, kind, range: Range, children| Symbol {
            name: name.into(),
            detail: None,
            kind,
            range,
            selection_range: range,
            children,
        };
        let symbols = vec![
            leaf("add", SymbolKind::VARIABLE, at(0, 9, 12), Vec::new()),
            leaf(
                "settings",
                SymbolKind::VARIABLE,
                at(1, 13, 38),
                vec![leaf(
                    "retries",
                    SymbolKind::PROPERTY,
                    at(1, 26, 36),
                    Vec::new(),
                )],
            ),
            leaf(
                "Box",
                SymbolKind::CLASS,
                Range {
                    start: lspedit_lsp::lsp_types::Position::new(2, 0),
                    end: lspedit_lsp::lsp_types::Position::new(4, 1),
                },
                vec![leaf(
                    "area",
                    SymbolKind::METHOD,
                    at(3, 2, 31),
                    vec![leaf(
                        "scale",
                        SymbolKind::VARIABLE,
                        at(3, 17, 26),
                        Vec::new(),
                    )],
                )],
            ),
        ];
        let p = Scripted {
            symbols,
            matches: Vec::new(),
            partial: false,
        };
        let names = |r: &OutlineReport| -> Vec<String> {
            r.files[0]
                .symbols
                .iter()
                .map(|s| s.name_path.clone())
                .collect()
        };
        let r = outline(
            &ws,
            Some(&p),
            "src/box.ts",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap();
        assert_eq!(
            names(&r),
            ["settings", "Box", "Box/area"],
            "{}",
            r.llm_content
        );
        assert_eq!(r.hidden, 3);
        let head = r.llm_content.lines().next().unwrap();
        assert_eq!(
            head,
            "src/box.ts (fake): 3 symbols; 3 other symbols (imports, locals, object-literal keys) shown by outline with path=\"src/box.ts\" and all=true"
        );
        let all = outline(
            &ws,
            Some(&p),
            "src/box.ts",
            OutlineOptions { all: true },
            later(),
            None,
        )
        .unwrap();
        assert_eq!(
            names(&all),
            [
                "add",
                "settings",
                "settings/retries",
                "Box",
                "Box/area",
                "Box/area/scale"
            ]
        );
        assert_eq!(all.hidden, 0);
        assert_eq!(
            all.llm_content.lines().next(),
            Some("src/box.ts (fake): 6 symbols")
        );
        // A directory lists the top level: the import is left out there too.
        std::fs::remove_file(dir.path().join("src/cart.ts")).unwrap();
        let r = outline(
            &ws,
            Some(&p),
            "src",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap();
        assert_eq!(names(&r), ["settings", "Box"], "{}", r.llm_content);
        assert_eq!(r.hidden, 1, "{}", r.llm_content);
        // find_symbol is not filtered: the import and the local are found.
        for name in ["add", "Box/area/scale"] {
            let q = FindQuery {
                name: name.into(),
                path: Some("src/box.ts".into()),
                exact: true,
                ..FindQuery::default()
            };
            let f = find(&ws, Some(&p), &q, later(), None).unwrap();
            assert_eq!(f.matches.len(), 1, "{name}: {}", f.llm_content);
        }
    }

    /// A provider answering from a script: the `.ts` files are its, each document has
    /// `symbols`, `workspace/symbol` answers `matches`; `partial` marks every answer.
    struct Scripted {
        symbols: Vec<Symbol>,
        matches: Vec<lspedit_lsp::SymbolMatch>,
        partial: bool,
    }

    impl LspEditProvider for Scripted {
        fn handles(&self, path: &Path) -> bool {
            path.extension().is_some_and(|e| e == "ts")
        }
        fn server_id(&self, path: &Path) -> Option<String> {
            self.handles(path).then(|| "fake".to_owned())
        }
        fn document_symbols(
            &self,
            _: &Path,
            _: &str,
            _: Instant,
        ) -> Result<lspedit_lsp::Symbols, lspedit_lsp::LspError> {
            Ok(lspedit_lsp::Symbols {
                server: "fake".into(),
                symbols: self.symbols.clone(),
                encoding: lspedit_lsp::PositionEncoding::Utf16,
                server_time: Duration::ZERO,
                partial: self.partial,
            })
        }
        fn workspace_symbols(
            &self,
            _: &Path,
            query: &str,
            _: Instant,
        ) -> Result<lspedit_lsp::WorkspaceSymbols, lspedit_lsp::LspError> {
            Ok(lspedit_lsp::WorkspaceSymbols {
                server: "fake".into(),
                symbols: self
                    .matches
                    .iter()
                    .filter(|m| m.name.contains(query))
                    .cloned()
                    .collect(),
                encoding: lspedit_lsp::PositionEncoding::Utf16,
                server_time: Duration::ZERO,
                partial: self.partial,
            })
        }
        fn rename(
            &self,
            _: &Path,
            _: &str,
            _: usize,
            _: &str,
            _: Instant,
        ) -> Result<lspedit_lsp::ServerEdit, lspedit_lsp::LspError> {
            Err(lspedit_lsp::LspError::PoolClosed)
        }
        fn code_actions(
            &self,
            _: &Path,
            _: &str,
            _: std::ops::Range<usize>,
            _: Instant,
        ) -> Result<lspedit_lsp::CodeActions, lspedit_lsp::LspError> {
            Err(lspedit_lsp::LspError::PoolClosed)
        }
        fn code_action_edit(
            &self,
            _: &Path,
            _: &str,
            _: lspedit_lsp::lsp_types::CodeActionOrCommand,
            _: Instant,
        ) -> Result<lspedit_lsp::ServerEdit, lspedit_lsp::LspError> {
            Err(lspedit_lsp::LspError::PoolClosed)
        }
        fn references(
            &self,
            _: &Path,
            _: &str,
            _: usize,
            _: bool,
            _: Instant,
        ) -> Result<lspedit_lsp::Locations, lspedit_lsp::LspError> {
            Err(lspedit_lsp::LspError::PoolClosed)
        }
        fn definition(
            &self,
            _: &Path,
            _: &str,
            _: usize,
            _: Instant,
        ) -> Result<lspedit_lsp::Locations, lspedit_lsp::LspError> {
            Err(lspedit_lsp::LspError::PoolClosed)
        }
    }

    fn sym(name: &str, kind: SymbolKind, lines: (u32, u32), children: Vec<Symbol>) -> Symbol {
        let range = Range {
            start: lspedit_lsp::lsp_types::Position::new(lines.0, 0),
            end: lspedit_lsp::lsp_types::Position::new(lines.1, 1),
        };
        Symbol {
            name: name.into(),
            detail: None,
            kind,
            range,
            selection_range: range,
            children,
        }
    }

    const CART: &str = "impl Cart {\n    fn total() {\n    }\n}\n";

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::write(dir.path().join("src/cart.ts"), CART).unwrap();
        std::fs::write(dir.path().join("src/notes.md"), "x\n").unwrap();
        let ws = Workspace::open(dir.path().canonicalize().unwrap()).unwrap();
        (dir, ws)
    }

    fn later() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    fn cart() -> Vec<Symbol> {
        vec![sym(
            "impl Cart",
            SymbolKind::OBJECT,
            (0, 3),
            vec![sym("total", SymbolKind::METHOD, (1, 2), Vec::new())],
        )]
    }

    /// Regression guard: a server still loading answers nothing; the answer must say it may be
    /// incomplete, never read as "no such symbol".
    #[test]
    fn nothing_found_while_loading_is_partial_and_says_so() {
        let (_dir, ws) = workspace();
        let p = Scripted {
            symbols: cart(),
            matches: Vec::new(),
            partial: true,
        };
        let q = FindQuery {
            name: "Cart".into(),
            ..FindQuery::default()
        };
        let r = find(&ws, Some(&p), &q, later(), None).unwrap();
        assert!(r.matches.is_empty() && r.partial, "{}", r.llm_content);
        assert_eq!(
            r.llm_content,
            "No symbols match `Cart` in the workspace (fake).\nfake was still loading the project: this answer may be incomplete; ask again shortly."
        );
    }

    #[test]
    fn a_name_path_through_an_impl_block_in_a_file() {
        let (_dir, ws) = workspace();
        let p = Scripted {
            symbols: cart(),
            matches: Vec::new(),
            partial: false,
        };
        let q = FindQuery {
            name: "Cart/total".into(),
            path: Some("src/cart.ts".into()),
            exact: true,
            include_body: true,
            ..FindQuery::default()
        };
        let r = find(&ws, Some(&p), &q, later(), None).unwrap();
        let anchor = hashline(2, "    fn total() {");
        let anchor = anchor.split('|').next().unwrap();
        assert_eq!(
            r.llm_content,
            format!(
                "1 symbol matches `Cart/total` exactly in src/cart.ts (fake):\nsrc/cart.ts:2 method Cart/total {anchor} lines 2-3\n{}\n{}",
                hashline(2, "    fn total() {"),
                hashline(3, "    }")
            )
        );
        assert!(!r.partial);
        // A kind that does not fit: nothing, and the nearest name.
        let q = FindQuery {
            kind: Some("class".into()),
            include_body: false,
            ..q
        };
        let r = find(&ws, Some(&p), &q, later(), None).unwrap();
        assert!(r.matches.is_empty());
        assert_eq!(r.suggestions, ["Cart/total"], "{}", r.llm_content);
    }

    #[test]
    fn a_directory_outline_names_what_it_left_out() {
        let (dir, ws) = workspace();
        let p = Scripted {
            symbols: cart(),
            matches: Vec::new(),
            partial: false,
        };
        let r = outline(
            &ws,
            Some(&p),
            "src",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap();
        let line = hashline(1, "impl Cart {");
        let anchor = line.split('|').next().unwrap();
        assert_eq!(
            r.llm_content,
            format!(
                "src/: top-level symbols of 1 file (fake)\nsrc/cart.ts\n  object Cart {anchor} lines 1-4 [impl Cart]\n\nNot shown: 1 file no server reads: notes.md; subdirectories (outline each on its own): src/deep/."
            )
        );
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/a.ts"), "x\n").unwrap();
        let e = outline(
            &ws,
            Some(&p),
            ".git/a.ts",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap_err();
        assert_eq!(e.code(), "protected_path");
        let e = outline(
            &ws,
            Some(&p),
            "src/notes.md",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap_err();
        assert_eq!(e.code(), "no_server");
        let e = outline(&ws, None, "src", OutlineOptions::default(), later(), None).unwrap_err();
        assert_eq!(e.code(), "no_server");
    }

    /// Regression guard: `workspace/symbol` that does not know the member (as rust-analyzer
    /// answers `price` with `Priced` alone) still finds `Cart/total` through `Cart`'s file.
    #[test]
    fn a_name_path_is_found_through_its_parent_when_the_server_omits_the_member() {
        let (_dir, ws) = workspace();
        let uri =
            lspedit_lsp::lsp_types::Url::from_file_path(ws.root().join("src/cart.ts")).unwrap();
        let p = Scripted {
            symbols: cart(),
            matches: vec![lspedit_lsp::SymbolMatch {
                name: "impl Cart".into(),
                kind: SymbolKind::OBJECT,
                container_name: None,
                uri,
                range: None,
            }],
            partial: false,
        };
        let q = |name: &str| FindQuery {
            name: name.into(),
            exact: true,
            ..FindQuery::default()
        };
        let r = find(&ws, Some(&p), &q("Cart/total"), later(), None).unwrap();
        assert_eq!(r.matches.len(), 1, "{}", r.llm_content);
        // A plain name the server does not know is not found (nothing to read).
        let r = find(&ws, Some(&p), &q("total"), later(), None).unwrap();
        assert!(r.matches.is_empty(), "{}", r.llm_content);
    }

    /// A file with more symbols than an outline shows: the first ones, then how many more and
    /// how to reach them; the structured result keeps them all.
    #[test]
    fn a_long_outline_is_capped_and_says_so() {
        let (_dir, ws) = workspace();
        let many = (0..MAX_OUTLINE_LINES as u32 + 3)
            .map(|i| sym(&format!("f{i}"), SymbolKind::FUNCTION, (0, 0), Vec::new()))
            .collect();
        let p = Scripted {
            symbols: many,
            matches: Vec::new(),
            partial: false,
        };
        let r = outline(
            &ws,
            Some(&p),
            "src/cart.ts",
            OutlineOptions::default(),
            later(),
            None,
        )
        .unwrap();
        let lines: Vec<&str> = r.llm_content.lines().collect();
        assert_eq!(lines.len(), 1 + MAX_OUTLINE_LINES + 1, "{}", r.llm_content);
        assert_eq!(
            lines.last().copied(),
            Some("... and 3 more symbols (find_symbol with path=\"src/cart.ts\" reaches them).")
        );
        assert_eq!(r.files[0].symbols.len(), MAX_OUTLINE_LINES + 3);
    }
}
