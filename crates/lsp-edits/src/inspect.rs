//! `hover`, `call_hierarchy`, `implementations` and `type_definition` (issue 27): read-only
//! lookups at a symbol, worded here (as `locations.rs` words references).
//!
//! **Where** ([`LookupAt`]): a symbol on a line, exactly as `references` takes it ([`SymbolAt`]:
//! path, line number or anchor, the symbol's text, occurrence), or a name path in a file
//! (`Cart/total`), resolved by the symbol edits' resolver (`symbol_edits::resolve`: exact name
//! path first, ambiguity refused with the candidates, unknown names with the nearest ones; an
//! anchor picks one of several) and asked at the symbol's name (`symbol_edits::name_offset`).
//!
//! **Answers** (docs/design.md §13): a hover is the server's text, markdown and code fences as
//! the server wrote them, cut at [`MAX_HOVER_LINES`] lines (a cut inside a code fence closes the
//! fence) with a note. A call hierarchy lists each caller (incoming) or callee (outgoing) as
//! `path:line kind name anchor` (the line holding its name), followed by its call sites as
//! hashline lines (`42abcd|text`): for a caller the lines in its own file that call, for a callee
//! the lines of the asked function that call it. Items outside the workspace are named by their
//! path with `(outside the workspace)` and no anchor, and their files are never read. The
//! assembly is linear in the calls but for one sort and reads at most the listed calls' files
//! ([`assemble`]); the server's answers get [`ANSWER_SHARE`] of the deadline and the wording the
//! rest, and what the deadline cut off is named and makes the answer partial.
//! Implementations and type definitions are locations, worded as `references` and `definition`
//! word theirs. A server without the request is `lsp_unsupported`, naming the server and the
//! request.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use lspedit_engine::{Anchor, LineHash, hashline};
use lspedit_lsp::lsp_types::{SymbolKind, Url};
use lspedit_lsp::{CallItem, Calls};
use lspedit_tools::front::{Arg, Step, say};

use super::position::{self, FileText, LineRef, LineSpan, SymbolAt, line_spans};
use super::symbol_edits;
use super::symbols::kind_name;
use super::{LocationsReport, LspEditError, LspEditProvider, LspEdits, convert, server_error};

/// Lines of a hover shown; the rest are cut, with a note.
pub const MAX_HOVER_LINES: usize = 60;
/// Characters of a hover shown (a server's long documentation), at a line's end.
const MAX_HOVER_CHARS: usize = 6_000;
/// Callers or callees listed with their call sites; the rest are counted.
pub const MAX_CALLS: usize = 50;
/// Call-site lines shown per caller or callee; the rest are named by line number.
pub const MAX_SITES: usize = 10;
/// Items of one `prepareCallHierarchy` answer followed (servers give one; an overloaded name
/// may give a few).
const MAX_TARGETS: usize = 5;
/// The share of a call hierarchy's deadline its server requests may take; the rest is left to
/// word what came.
const ANSWER_SHARE: f64 = 0.9;

/// Where a lookup is asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupAt {
    /// A symbol on a line, as `references` takes it.
    Text(SymbolAt),
    /// The symbol of `path` whose name path is `name_path` (`Cart/total`, or a name unique in
    /// the file); `anchor` (`12abcd`, as `outline` or `find_symbol` gave it) picks one of several
    /// and checks it is still what was read.
    NamePath {
        path: String,
        name_path: String,
        anchor: Option<String>,
    },
}

impl From<SymbolAt> for LookupAt {
    fn from(at: SymbolAt) -> LookupAt {
        LookupAt::Text(at)
    }
}

impl From<&SymbolAt> for LookupAt {
    fn from(at: &SymbolAt) -> LookupAt {
        LookupAt::Text(at.clone())
    }
}

impl From<&LookupAt> for LookupAt {
    fn from(at: &LookupAt) -> LookupAt {
        at.clone()
    }
}

impl LookupAt {
    /// A lookup from a tool's arguments: `line` and `symbol` (and `occurrence`), or
    /// `name_path` (with `line`, when given, as the anchor that picks one of several symbols of
    /// that name path). The error is what the caller gets wrong, worded for it.
    pub fn from_args(
        path: &str,
        line: Option<LineRef>,
        symbol: Option<&str>,
        occurrence: Option<usize>,
        name_path: Option<&str>,
    ) -> Result<LookupAt, String> {
        let [name_path_arg, line_arg, symbol_arg, occurrence_arg] =
            [Arg::NamePath, Arg::Line, Arg::Symbol, Arg::Occurrence].map(|a| say(&Step::Arg(a)));
        match (name_path, line, symbol) {
            (Some(np), line, None) => {
                if occurrence.is_some() {
                    return Err(format!(
                        "{occurrence_arg} goes with {symbol_arg}, not with {name_path_arg}"
                    ));
                }
                let anchor = match line {
                    None => None,
                    Some(LineRef::Anchor(a)) => Some(a),
                    Some(LineRef::Number(n)) => {
                        return Err(format!(
                            "with {name_path_arg}, {line_arg} is the anchor {} gave (`{n}abcd`), not a line number; or give {line_arg} and {symbol_arg} instead of {name_path_arg}",
                            say(&Step::SymbolAnchors)
                        ));
                    }
                };
                Ok(LookupAt::NamePath {
                    path: path.to_owned(),
                    name_path: np.to_owned(),
                    anchor,
                })
            }
            (Some(_), _, Some(_)) => Err(format!(
                "give either {line_arg} and {symbol_arg}, or {name_path_arg}, not both"
            )),
            (None, Some(line), Some(symbol)) => Ok(LookupAt::Text(SymbolAt {
                path: path.to_owned(),
                line,
                symbol: symbol.to_owned(),
                occurrence,
            })),
            (None, None, _) | (None, _, None) => Err(format!(
                "name the symbol by {line_arg} and {symbol_arg} (its text on that line), or by {name_path_arg} (`Cart/total`)"
            )),
        }
    }

    /// The file, as given.
    pub fn path(&self) -> &str {
        match self {
            LookupAt::Text(at) => &at.path,
            LookupAt::NamePath { path, .. } => path,
        }
    }
}

/// Which calls `call_hierarchy` lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallDirection {
    /// The callers of the symbol, with their call sites.
    Incoming,
    /// What the symbol calls, with the call sites in it.
    Outgoing,
}

impl CallDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            CallDirection::Incoming => "incoming",
            CallDirection::Outgoing => "outgoing",
        }
    }

    /// `incoming` or `outgoing` (case-insensitive).
    pub fn parse(s: &str) -> Option<CallDirection> {
        match s.trim().to_ascii_lowercase().as_str() {
            "incoming" => Some(CallDirection::Incoming),
            "outgoing" => Some(CallDirection::Outgoing),
            _ => None,
        }
    }
}

/// The answer of `hover`.
#[derive(Debug, Clone)]
pub struct HoverReport {
    pub llm_content: String,
    /// The file and the 1-based line asked at.
    pub path: String,
    pub line: usize,
    /// The server's text as shown (cut at [`MAX_HOVER_LINES`]); `None`: nothing to say there.
    pub text: Option<String>,
    /// The text was cut.
    pub truncated: bool,
    pub server: String,
    pub server_time: Duration,
    /// The server was still loading the project: a type may show as unknown.
    pub partial: bool,
}

/// A function, method or constructor of a call hierarchy, in the model's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CalledItem {
    /// The name as the server gives it.
    pub name: String,
    /// Lowercase, as `outline` says it (`function`, `method`, ...).
    pub kind: &'static str,
    /// The server's detail (a signature, a container or a module, by server).
    pub detail: Option<String>,
    /// Workspace-relative path, or the absolute path of a file outside the workspace.
    pub path: String,
    /// The 1-based line holding its name, and (in the workspace) that line's anchor.
    pub line: usize,
    pub anchor: Option<String>,
    pub in_workspace: bool,
}

/// A caller (incoming) or callee (outgoing) with its call sites.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The caller or callee.
    pub item: CalledItem,
    /// The file of the call sites: the caller's (incoming) or the asked function's (outgoing).
    pub sites_path: String,
    /// The 1-based lines of the calls, sorted, each once.
    pub sites: Vec<usize>,
    /// Which of [`CallsReport::targets`] it is a call of.
    pub target: usize,
}

/// The answer of `call_hierarchy`.
#[derive(Debug, Clone)]
pub struct CallsReport {
    pub llm_content: String,
    pub direction: CallDirection,
    /// What the server identified at the position (usually one function).
    pub targets: Vec<CalledItem>,
    /// The calls, per target: workspace files first, by path and line; at most [`MAX_CALLS`] in all.
    pub calls: Vec<CallSite>,
    /// Calls not listed: past [`MAX_CALLS`], or not read by the deadline.
    pub more: usize,
    pub server: String,
    pub server_time: Duration,
    /// The list may be incomplete: the server was still loading the project, did not answer
    /// for a target in time, or the deadline passed before every call was read.
    pub partial: bool,
}

/// A resolved position: the file as read, the byte offset asked at, its 1-based line, what
/// the model called the symbol, and the server's time resolving a name path (its
/// `documentSymbol`; zero for a line and text).
pub(crate) struct Spot {
    pub file: FileText,
    pub offset: usize,
    pub line: usize,
    pub what: String,
    pub server_time: Duration,
}

impl<'a> LspEdits<'a> {
    /// `hover` (read-only): the server's type and signature text at a symbol.
    pub fn hover(&self, at: &LookupAt) -> Result<HoverReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let (provider, spot) = self.locate(at, deadline)?;
        let answer = provider
            .hover(&spot.file.abs, &spot.file.text, spot.offset, deadline)
            .map_err(|e| server_error(&spot.file.rel, e))?;
        let server = match &answer {
            Some(h) => h.server.clone(),
            None => provider.server_id(&spot.file.abs).unwrap_or_default(),
        };
        let (text, truncated) = match &answer {
            Some(h) => {
                let (t, cut) = cap_hover(&h.text);
                (Some(t), cut)
            }
            None => (None, false),
        };
        let partial = answer.as_ref().is_some_and(|h| h.partial);
        let mut llm = match &text {
            Some(t) => format!(
                "Hover on `{}` at {}:{} ({server}):\n{t}",
                spot.what, spot.file.rel, spot.line
            ),
            None => format!(
                "No hover for `{}` at {}:{}: {server} has nothing to say there.",
                spot.what, spot.file.rel, spot.line
            ),
        };
        if partial {
            llm.push_str(&loading_note(&server));
        }
        Ok(HoverReport {
            llm_content: self.late_first(llm),
            path: spot.file.rel,
            line: spot.line,
            text,
            truncated,
            server,
            server_time: spot.server_time
                + answer.as_ref().map_or(Duration::ZERO, |h| h.server_time),
            partial,
        })
    }

    /// `call_hierarchy` (read-only): the callers of a function (`Incoming`) or what it calls
    /// (`Outgoing`), each with its call sites as hashline lines. The server's answers are
    /// awaited for nine tenths of the deadline; a target whose calls did not come by then is
    /// named as unanswered, and what came is worded by the deadline (in time linear in the
    /// calls, reading at most the listed calls' files): either makes the answer `partial`.
    pub fn call_hierarchy(
        &self,
        at: &LookupAt,
        direction: CallDirection,
    ) -> Result<CallsReport, LspEditError> {
        let began = Instant::now();
        let deadline = began + self.config.timeout;
        let answer_by = began + self.config.timeout.mul_f64(ANSWER_SHARE);
        let (provider, spot) = self.locate(at, answer_by)?;
        let rel = spot.file.rel.clone();
        let prepared = provider
            .prepare_call_hierarchy(&spot.file.abs, &spot.file.text, spot.offset, answer_by)
            .map_err(|e| server_error(&rel, e))?;
        let mut server_time = spot.server_time + prepared.server_time;
        let mut partial = prepared.partial;
        let mut answers: Vec<(&CallItem, Option<Calls>)> = Vec::new();
        for item in prepared.items.iter().take(MAX_TARGETS) {
            let asked = match direction {
                CallDirection::Incoming => provider.incoming_calls(item, answer_by),
                CallDirection::Outgoing => provider.outgoing_calls(item, answer_by),
            };
            let calls = match asked {
                Ok(calls) => calls,
                // No answer in time: the targets answered so far are worth having.
                Err(lspedit_lsp::LspError::Timeout { .. }) => {
                    answers.push((item, None));
                    continue;
                }
                Err(e) => return Err(server_error(&rel, e)),
            };
            server_time += calls.server_time;
            partial |= calls.partial;
            answers.push((item, Some(calls)));
        }
        let asked: Vec<TargetCalls<'_>> = answers
            .iter()
            .map(|(item, calls)| TargetCalls::new(item, calls.as_ref()))
            .collect();
        let mut files = WorkspaceFiles(self.tools.workspace());
        let done = assemble(direction, &asked, &mut files, deadline);
        let late = done.answered.iter().any(|a| !a) || done.unread.iter().any(|&n| n > 0);
        let llm = calls_text(&spot, direction, &prepared.server, &done, partial);
        let more = done.unlisted.iter().sum::<usize>() + done.unread.iter().sum::<usize>();
        Ok(CallsReport {
            llm_content: self.late_first(llm),
            direction,
            targets: done.targets,
            calls: done.calls,
            more,
            server: prepared.server,
            server_time,
            partial: partial || late,
        })
    }

    /// `implementations` (read-only): where the interface, trait or abstract member at a symbol
    /// is implemented, as hashline excerpts grouped by file (as `references` words them).
    pub fn implementations(&self, at: &LookupAt) -> Result<LocationsReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let (provider, spot) = self.locate(at, deadline)?;
        let found = provider
            .implementations(&spot.file.abs, &spot.file.text, spot.offset, deadline)
            .map_err(|e| server_error(&spot.file.rel, e))?;
        let mut r = self.report(
            &found,
            (
                &format!("implementation of `{}`", spot.what),
                &format!("implementations of `{}`", spot.what),
            ),
        );
        r.server_time += spot.server_time;
        Ok(r)
    }

    /// `type_definition` (read-only): where the type of the symbol (a variable's, a
    /// parameter's, a function's result) is declared, as hashline excerpts.
    pub fn type_definition(&self, at: &LookupAt) -> Result<LocationsReport, LspEditError> {
        let deadline = Instant::now() + self.config.timeout;
        let (provider, spot) = self.locate(at, deadline)?;
        let found = provider
            .type_definition(&spot.file.abs, &spot.file.text, spot.offset, deadline)
            .map_err(|e| server_error(&spot.file.rel, e))?;
        let mut r = self.report(
            &found,
            (
                &format!("type definition of `{}`", spot.what),
                &format!("type definitions of `{}`", spot.what),
            ),
        );
        r.server_time += spot.server_time;
        Ok(r)
    }

    /// The provider and the position `at` names.
    pub(crate) fn locate(
        &self,
        at: &LookupAt,
        deadline: Instant,
    ) -> Result<(&'a dyn LspEditProvider, Spot), LspEditError> {
        match at {
            LookupAt::Text(s) => {
                let (provider, file) = self.prepare(&s.path)?;
                let offset = position::symbol_offset(&file, s)?;
                let line = line_at(&file.text, offset);
                Ok((
                    provider,
                    Spot {
                        file,
                        offset,
                        line,
                        what: s.symbol.clone(),
                        server_time: Duration::ZERO,
                    },
                ))
            }
            LookupAt::NamePath {
                path,
                name_path,
                anchor,
            } => {
                let found = symbol_edits::resolve(
                    self.tools.workspace(),
                    self.provider,
                    path,
                    name_path,
                    anchor.as_deref(),
                    deadline,
                )?;
                let offset = symbol_edits::name_offset(&found);
                let provider = self.provider()?;
                Ok((
                    provider,
                    Spot {
                        offset,
                        line: line_at(&found.file.text, offset),
                        what: found.entry.name_path,
                        server_time: found.server_time,
                        file: found.file,
                    },
                ))
            }
        }
    }

    /// `llm` with the late diagnostics answers in front.
    fn late_first(&self, llm: String) -> String {
        match self.tools.take_late_feedback() {
            Some(late) => format!("{late}\n\n{llm}"),
            None => llm,
        }
    }
}

/// The 1-based line of byte `offset` of `text`.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn loading_note(server: &str) -> String {
    format!(
        "\n{server} was still loading the project: this answer may be incomplete; ask again shortly."
    )
}

/// The hover text as shown: at most [`MAX_HOVER_LINES`] lines and about [`MAX_HOVER_CHARS`]
/// characters (each line capped as every echoed line is), a code fence left open by the cut
/// closed, and a note saying how much was left out; whether it was cut.
fn cap_hover(text: &str) -> (String, bool) {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut chars = 0;
    let mut in_fence = false;
    for line in &lines {
        if out.len() == MAX_HOVER_LINES || (chars > MAX_HOVER_CHARS && !out.is_empty()) {
            break;
        }
        let shown = lspedit_tools::render::cap_line(line);
        chars += shown.chars().count() + 1;
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        }
        out.push(shown.into_owned());
    }
    let shown = out.len();
    if shown == lines.len() {
        return (out.join("\n"), false);
    }
    if in_fence {
        out.push("```".to_owned());
    }
    out.push(format!("(hover cut at {shown} of {} lines)", lines.len()));
    (out.join("\n"), true)
}

/// Where a call hierarchy's paths and texts come from: the workspace ([`WorkspaceFiles`]), or a
/// test's stand-in that counts what is asked.
trait CallFiles {
    /// The path shown for `uri` (workspace-relative, else absolute) and whether it names a
    /// workspace file; the file is not read.
    fn locate(&mut self, uri: &Url) -> (String, bool);
    /// The text of the workspace file `rel` (`None`: not readable as text).
    fn read(&mut self, rel: &str) -> Option<String>;
}

struct WorkspaceFiles<'a>(&'a lspedit_write::Workspace);

impl CallFiles for WorkspaceFiles<'_> {
    fn locate(&mut self, uri: &Url) -> (String, bool) {
        match convert::confine_read(self.0, uri) {
            Some(rel) => (rel, true),
            None => (
                uri.to_file_path()
                    .map_or_else(|()| uri.to_string(), |p| p.display().to_string()),
                false,
            ),
        }
    }

    fn read(&mut self, rel: &str) -> Option<String> {
        self.0
            .read(rel)
            .ok()
            .flatten()
            .and_then(|b| String::from_utf8(b).ok())
    }
}

/// A function, method or constructor of a call hierarchy as the server named it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Named<'a> {
    name: &'a str,
    kind: SymbolKind,
    detail: Option<&'a str>,
    uri: &'a Url,
    /// The 1-based line holding its name.
    line: usize,
}

impl<'a> From<&'a CallItem> for Named<'a> {
    fn from(item: &'a CallItem) -> Named<'a> {
        Named {
            name: &item.name,
            kind: item.kind,
            detail: item.detail.as_deref(),
            uri: &item.uri,
            line: item.selection_range.start.line as usize + 1,
        }
    }
}

/// A caller or callee and the 1-based lines of its call sites, sorted, each once.
struct Edge<'a> {
    other: Named<'a>,
    sites: Vec<usize>,
}

/// A target of a call hierarchy and its calls; `None`: no answer by the deadline.
struct TargetCalls<'a> {
    target: Named<'a>,
    edges: Option<Vec<Edge<'a>>>,
}

impl<'a> TargetCalls<'a> {
    fn new(item: &'a CallItem, calls: Option<&'a Calls>) -> TargetCalls<'a> {
        TargetCalls {
            target: Named::from(item),
            edges: calls.map(|c| {
                c.calls
                    .iter()
                    .map(|call| {
                        let mut sites: Vec<usize> = call
                            .from_ranges
                            .iter()
                            .map(|r| r.start.line as usize + 1)
                            .collect();
                        sites.sort_unstable();
                        sites.dedup();
                        Edge {
                            other: Named::from(&call.item),
                            sites,
                        }
                    })
                    .collect()
            }),
        }
    }
}

/// The texts of the workspace files a call hierarchy shows, each read once and split into
/// lines once (`None`: unreadable).
#[derive(Default)]
struct Texts {
    files: HashMap<String, Option<(String, Vec<LineSpan>)>>,
}

impl Texts {
    fn load(&mut self, files: &mut dyn CallFiles, rel: &str) {
        if !self.files.contains_key(rel) {
            let read = files.read(rel).map(|t| {
                let spans = line_spans(&t);
                (t, spans)
            });
            self.files.insert(rel.to_owned(), read);
        }
    }

    /// The text and lines of a workspace file already loaded.
    fn get(&self, rel: &str) -> Option<(&str, &[LineSpan])> {
        self.files
            .get(rel)
            .and_then(Option::as_ref)
            .map(|(t, s)| (t.as_str(), s.as_slice()))
    }

    /// The anchor of 1-based `line` of `rel`, loading it.
    fn anchor(&mut self, files: &mut dyn CallFiles, rel: &str, line: usize) -> Option<String> {
        self.load(files, rel);
        let (text, spans) = self.get(rel)?;
        let span = spans.get(line.checked_sub(1)?)?;
        Some(
            Anchor {
                line,
                hash: LineHash::of(&text[span.start..span.end]),
            }
            .to_string(),
        )
    }
}

/// The paths of the URIs a call hierarchy names, each located once; a URI not yet located
/// once the deadline has passed is not located (`cut`).
struct Places<'a, 'f> {
    files: &'f mut dyn CallFiles,
    index: HashMap<&'a Url, usize>,
    /// Path shown and whether it is a workspace file, per located URI.
    places: Vec<(String, bool)>,
    deadline: Instant,
}

impl<'a> Places<'a, '_> {
    /// The place of `uri`; `None` when it was not located before the deadline (unless
    /// `always`: the targets, at most [`MAX_TARGETS`]).
    fn of(&mut self, uri: &'a Url, always: bool) -> Option<usize> {
        if let Some(&i) = self.index.get(uri) {
            return Some(i);
        }
        if !always && Instant::now() >= self.deadline {
            return None;
        }
        self.places.push(self.files.locate(uri));
        self.index.insert(uri, self.places.len() - 1);
        Some(self.places.len() - 1)
    }
}

/// One call of a target, placed, before it is listed.
#[derive(PartialEq, Eq)]
struct Row<'a> {
    other: Named<'a>,
    place: usize,
    sites_place: usize,
    sites: &'a [usize],
}

/// A call hierarchy ready to be worded.
struct Assembled {
    targets: Vec<CalledItem>,
    /// Per target: whether its calls came by the deadline.
    answered: Vec<bool>,
    /// Per target's calls: workspace files first, by path and line; at most [`MAX_CALLS`].
    calls: Vec<CallSite>,
    /// Per target: calls past [`MAX_CALLS`] in all.
    unlisted: Vec<usize>,
    /// Per target: calls whose file was not located by the deadline.
    unread: Vec<usize>,
    /// The workspace files of the calls listed and of the targets.
    texts: Texts,
}

/// The calls of each target placed, sorted (workspace files first, by path, line and name),
/// each once, and the first [`MAX_CALLS`] in all listed. Linear in the calls but for the sort:
/// each URI is located once (none more after `deadline`: those calls are counted as unread),
/// and only the files of the targets and of the calls listed are read, once each.
fn assemble(
    direction: CallDirection,
    asked: &[TargetCalls<'_>],
    files: &mut dyn CallFiles,
    deadline: Instant,
) -> Assembled {
    let mut places = Places {
        files,
        index: HashMap::new(),
        places: Vec::new(),
        deadline,
    };
    let target_places: Vec<usize> = asked
        .iter()
        .map(|t| places.of(t.target.uri, true).unwrap_or_default())
        .collect();
    let mut listed: Vec<(usize, Row<'_>)> = Vec::new();
    let (mut unlisted, mut unread) = (Vec::new(), Vec::new());
    for (t, target) in asked.iter().enumerate() {
        let mut rows: Vec<Row<'_>> = Vec::new();
        let mut missed = 0;
        for edge in target.edges.iter().flatten() {
            let Some(place) = places.of(edge.other.uri, false) else {
                missed += 1;
                continue;
            };
            rows.push(Row {
                other: edge.other,
                place,
                sites_place: match direction {
                    CallDirection::Incoming => place,
                    CallDirection::Outgoing => target_places[t],
                },
                sites: &edge.sites,
            });
        }
        let shown = &places.places;
        rows.sort_by(|a, b| {
            let (pa, pb) = (&shown[a.place], &shown[b.place]);
            (!pa.1, pa.0.as_str(), a.other.line, a.other.name).cmp(&(
                !pb.1,
                pb.0.as_str(),
                b.other.line,
                b.other.name,
            ))
        });
        rows.dedup();
        let room = MAX_CALLS - listed.len();
        unlisted.push(rows.len().saturating_sub(room));
        unread.push(missed);
        listed.extend(rows.into_iter().take(room).map(|r| (t, r)));
    }
    let Places {
        files,
        places: shown,
        ..
    } = places;
    let mut texts = Texts::default();
    let called = |texts: &mut Texts, files: &mut dyn CallFiles, named: Named<'_>, place| {
        let (path, in_workspace): &(String, bool) = &shown[place];
        CalledItem {
            name: named.name.to_owned(),
            kind: kind_name(named.kind),
            detail: named.detail.map(str::to_owned),
            path: path.clone(),
            line: named.line,
            anchor: in_workspace
                .then(|| texts.anchor(files, path, named.line))
                .flatten(),
            in_workspace: *in_workspace,
        }
    };
    let targets: Vec<CalledItem> = asked
        .iter()
        .zip(&target_places)
        .map(|(t, &place)| called(&mut texts, &mut *files, t.target, place))
        .collect();
    let mut calls = Vec::with_capacity(listed.len());
    for (target, row) in listed {
        let item = called(&mut texts, &mut *files, row.other, row.place);
        let (sites_path, sites_in_workspace) = &shown[row.sites_place];
        if *sites_in_workspace {
            texts.load(&mut *files, sites_path);
        }
        calls.push(CallSite {
            item,
            sites_path: sites_path.clone(),
            sites: row.sites.to_vec(),
            target,
        });
    }
    Assembled {
        targets,
        answered: asked.iter().map(|t| t.edges.is_some()).collect(),
        calls,
        unlisted,
        unread,
        texts,
    }
}

/// `path:line kind name anchor`, or `path:line kind name (outside the workspace)`.
fn item_line(i: &CalledItem) -> String {
    let mut s = format!("{}:{} {} {}", i.path, i.line, i.kind, i.name);
    match &i.anchor {
        Some(a) => {
            s.push(' ');
            s.push_str(a);
        }
        None if !i.in_workspace => s.push_str(" (outside the workspace)"),
        None => {}
    }
    s
}

fn calls_text(
    spot: &Spot,
    direction: CallDirection,
    server: &str,
    done: &Assembled,
    partial: bool,
) -> String {
    let what = &spot.what;
    if done.targets.is_empty() {
        let mut llm = format!(
            "No call hierarchy for `{what}` at {}:{}: {server} finds no function, method or constructor there.",
            spot.file.rel, spot.line
        );
        if partial {
            llm.push_str(&loading_note(server));
        }
        return llm;
    }
    let (one, many) = match direction {
        CallDirection::Incoming => ("caller", "callers"),
        CallDirection::Outgoing => ("callee", "callees"),
    };
    let mut sections = Vec::new();
    for (t, target) in done.targets.iter().enumerate() {
        if !done.answered[t] {
            sections.push(format!(
                "No answer from {server} about the {many} of `{what}` ({}) by the deadline; ask again shortly.",
                item_line(target)
            ));
            continue;
        }
        let mine: Vec<&CallSite> = done.calls.iter().filter(|c| c.target == t).collect();
        let more = done.unlisted[t];
        let unread = done.unread[t];
        let n = mine.len() + more + unread;
        let mut s = if n == 0 {
            format!(
                "No {many} of `{what}` ({}) found ({server}).",
                item_line(target)
            )
        } else {
            let sites_in = match direction {
                CallDirection::Incoming => String::new(),
                CallDirection::Outgoing => format!(" in {}", target.path),
            };
            format!(
                "{n} {} of `{what}` ({}) ({server}), each with its call sites{sites_in}:",
                if n == 1 { one } else { many },
                item_line(target)
            )
        };
        if t == 0 && partial {
            s.push_str(&loading_note(server));
        }
        for c in mine {
            s.push('\n');
            s.push_str(&item_line(&c.item));
            // The sites' file was read when the call was listed (never outside the workspace).
            let Some((text, spans)) = done.texts.get(&c.sites_path) else {
                if !c.sites.is_empty() {
                    s.push_str(&format!(
                        "\ncalls at {} line {}",
                        c.sites_path,
                        join_lines(&c.sites)
                    ));
                }
                continue;
            };
            for &n in c.sites.iter().take(MAX_SITES) {
                if let Some(sp) = n.checked_sub(1).and_then(|i| spans.get(i)) {
                    s.push('\n');
                    s.push_str(&lspedit_tools::render::cap_line(&hashline(
                        n,
                        &text[sp.start..sp.end],
                    )));
                }
            }
            if c.sites.len() > MAX_SITES {
                s.push_str(&format!(
                    "\n... {} more call sites at line {}",
                    c.sites.len() - MAX_SITES,
                    join_lines(&c.sites[MAX_SITES..])
                ));
            }
        }
        if more > 0 {
            s.push_str(&format!(
                "\n... and {more} more {many}; ask about a narrower symbol."
            ));
        }
        if unread > 0 {
            s.push_str(&format!(
                "\n... and {unread} more {many} not read by the deadline; ask about a narrower symbol."
            ));
        }
        sections.push(s);
    }
    sections.join("\n\n")
}

fn join_lines(lines: &[usize]) -> String {
    lines
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_hover_is_cut_and_an_open_fence_closed() {
        let long: String = std::iter::once("```rust".to_owned())
            .chain((1..=100).map(|i| format!("field_{i}: i32,")))
            .chain(std::iter::once("```".to_owned()))
            .collect::<Vec<_>>()
            .join("\n");
        let (shown, cut) = cap_hover(&long);
        assert!(cut);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines.len(), MAX_HOVER_LINES + 2, "{shown}");
        assert_eq!(lines[MAX_HOVER_LINES - 1], "field_59: i32,");
        assert_eq!(lines[MAX_HOVER_LINES], "```", "the fence is closed");
        assert_eq!(lines[MAX_HOVER_LINES + 1], "(hover cut at 60 of 102 lines)");
        // Short: as the server wrote it, trailing blank lines aside.
        assert_eq!(cap_hover("a\n\nb\n\n"), ("a\n\nb".to_owned(), false));
        // A cut outside a fence adds no fence.
        let prose = vec!["word"; 70].join("\n");
        let (shown, cut) = cap_hover(&prose);
        assert!(cut && !shown.contains("```"), "{shown}");
    }

    #[test]
    fn a_long_hover_is_cut_by_characters_too() {
        let line = "x".repeat(1_000);
        let text = vec![line.as_str(); 20].join("\n");
        let (shown, cut) = cap_hover(&text);
        assert!(cut);
        assert!(
            shown.ends_with("(hover cut at 6 of 20 lines)"),
            "{}",
            &shown[shown.len() - 40..]
        );
    }

    #[test]
    fn arguments_name_a_symbol_one_way() {
        let line = |s: &str| Some(LineRef::parse(s));
        assert_eq!(
            LookupAt::from_args("a.ts", line("3"), Some("add"), Some(2), None),
            Ok(LookupAt::Text(
                SymbolAt::new("a.ts", LineRef::Number(3), "add").occurrence(2)
            ))
        );
        assert_eq!(
            LookupAt::from_args("a.ts", None, None, None, Some("Cart/total")),
            Ok(LookupAt::NamePath {
                path: "a.ts".into(),
                name_path: "Cart/total".into(),
                anchor: None
            })
        );
        assert_eq!(
            LookupAt::from_args("a.ts", line("12abcd"), None, None, Some("total")),
            Ok(LookupAt::NamePath {
                path: "a.ts".into(),
                name_path: "total".into(),
                anchor: Some("12abcd".into())
            })
        );
        for (l, sym, occ, np, says) in [
            (line("3"), None, None, Some("total"), "not a line number"),
            (line("3"), Some("add"), None, Some("total"), "not both"),
            (
                None,
                None,
                Some(1),
                Some("total"),
                "`occurrence` goes with `symbol`",
            ),
            (line("3"), None, None, None, "name the symbol"),
            (None, Some("add"), None, None, "name the symbol"),
        ] {
            let e = LookupAt::from_args("a.ts", l, sym, occ, np).unwrap_err();
            assert!(e.contains(says), "{e}");
        }
        assert_eq!(
            CallDirection::parse(" Outgoing"),
            Some(CallDirection::Outgoing)
        );
        assert_eq!(CallDirection::parse("up"), None);
    }

    fn resolved(
        text: &str,
        name: &str,
        line: usize,
        range: std::ops::Range<usize>,
    ) -> symbol_edits::Resolved {
        symbol_edits::Resolved {
            file: FileText {
                rel: "a.rs".into(),
                abs: "/w/a.rs".into(),
                text: text.into(),
            },
            entry: crate::SymbolEntry {
                path: "a.rs".into(),
                name_path: name.into(),
                name: name.into(),
                kind: "function",
                depth: 0,
                line,
                anchor: String::new(),
                start_line: line,
                end_line: line,
                detail: None,
            },
            range,
            tree: Vec::new(),
            index: 0,
            server: "s".into(),
            server_time: Duration::ZERO,
        }
    }

    #[test]
    fn a_name_path_is_asked_at_the_name() {
        // The name as a whole word, not inside `total_of` nor the doc comment above.
        let text = "/// total\nfn total_of(total: i32) {}\nfn total() {}\n";
        let at = |name: &str, line: usize, range: std::ops::Range<usize>| {
            symbol_edits::name_offset(&resolved(text, name, line, range))
        };
        assert_eq!(at("total_of", 2, 0..36), 13);
        assert_eq!(at("total", 3, 37..50), 40);
        // An impl block's name stands for its type.
        let imp = "impl Priced for Cart {}\n";
        assert_eq!(
            symbol_edits::name_offset(&resolved(imp, "impl Priced for Cart", 1, 0..23)),
            16
        );
        // A name not on its line: the line's first non-blank character.
        let odd = "x\n    [computed]() {}\n";
        assert_eq!(
            symbol_edits::name_offset(&resolved(odd, "other", 2, 2..21)),
            6
        );
    }

    /// Files for [`assemble`] that count what is asked: every path is a workspace file of
    /// `lines` lines (`line N`).
    struct Counting {
        located: HashMap<String, usize>,
        read: HashMap<String, usize>,
        lines: usize,
    }

    impl CallFiles for Counting {
        fn locate(&mut self, uri: &Url) -> (String, bool) {
            *self.located.entry(uri.to_string()).or_default() += 1;
            (uri.path().trim_start_matches('/').to_owned(), true)
        }

        fn read(&mut self, rel: &str) -> Option<String> {
            *self.read.entry(rel.to_owned()).or_default() += 1;
            Some((1..=self.lines).map(|n| format!("line {n}\n")).collect())
        }
    }

    /// 40,000 callers of `t` spread over 400 files (100 each, on lines 1-100), in the reverse
    /// of the order they are listed in, ten of them twice.
    struct Many {
        target: Url,
        urls: Vec<Url>,
        names: Vec<String>,
    }

    const CALLERS: usize = 40_000;
    const FILES: usize = 400;

    impl Many {
        fn new() -> Many {
            Many {
                target: Url::parse("file:///t.ts").unwrap(),
                urls: (0..FILES)
                    .map(|f| Url::parse(&format!("file:///f{f:03}.ts")).unwrap())
                    .collect(),
                names: (0..CALLERS).map(|i| format!("caller{i}")).collect(),
            }
        }

        fn named<'a>(uri: &'a Url, name: &'a str, line: usize) -> Named<'a> {
            Named {
                name,
                kind: SymbolKind::FUNCTION,
                detail: None,
                uri,
                line,
            }
        }

        fn asked(&self) -> Vec<TargetCalls<'_>> {
            let mut edges: Vec<Edge<'_>> = (0..CALLERS)
                .rev()
                .map(|i| Edge {
                    other: Many::named(&self.urls[i / 100], &self.names[i], i % 100 + 1),
                    sites: vec![i % 100 + 2],
                })
                .collect();
            for i in 0..10 {
                edges.push(Edge {
                    other: Many::named(&self.urls[i / 100], &self.names[i], i % 100 + 1),
                    sites: vec![i % 100 + 2],
                });
            }
            vec![TargetCalls {
                target: Many::named(&self.target, "t", 1),
                edges: Some(edges),
            }]
        }
    }

    fn counting() -> Counting {
        Counting {
            located: HashMap::new(),
            read: HashMap::new(),
            lines: 200,
        }
    }

    /// Regression: 40,000 callers took 67 s, each caller's file split into lines again and its
    /// path resolved again. Now each URI is located once and only the listed callers' files
    /// (and the target's) are read, once each, whatever the number of callers.
    #[test]
    fn many_callers_locate_each_file_once_and_read_only_the_listed_ones() {
        let many = Many::new();
        let asked = many.asked();
        let mut files = counting();
        let later = Instant::now() + Duration::from_secs(3600);
        let done = assemble(CallDirection::Incoming, &asked, &mut files, later);
        assert_eq!(files.located.len(), FILES + 1);
        assert!(
            files.located.values().all(|&n| n == 1),
            "a URI located twice"
        );
        // The 50 listed callers all sit in the first file by path.
        let mut read: Vec<(&str, usize)> =
            files.read.iter().map(|(p, n)| (p.as_str(), *n)).collect();
        read.sort_unstable();
        assert_eq!(read, [("f000.ts", 1), ("t.ts", 1)]);
        assert_eq!(done.calls.len(), MAX_CALLS);
        assert_eq!(
            done.unlisted,
            [CALLERS - MAX_CALLS],
            "duplicates count once"
        );
        assert_eq!(done.unread, [0]);
        let first: Vec<(&str, usize, &str)> = done
            .calls
            .iter()
            .take(3)
            .map(|c| (c.item.path.as_str(), c.item.line, c.item.name.as_str()))
            .collect();
        assert_eq!(
            first,
            [
                ("f000.ts", 1, "caller0"),
                ("f000.ts", 2, "caller1"),
                ("f000.ts", 3, "caller2")
            ]
        );
        let anchor = hashline(1, "line 1");
        assert_eq!(
            done.calls[0].item.anchor.as_deref(),
            anchor.split('|').next()
        );
        assert_eq!(done.calls[0].sites, [2]);
        assert!(done.texts.get("f000.ts").is_some());
    }

    fn spot() -> Spot {
        Spot {
            file: FileText {
                rel: "t.ts".into(),
                abs: "/t.ts".into(),
                text: "t\n".into(),
            },
            offset: 0,
            line: 1,
            what: "t".into(),
            server_time: Duration::ZERO,
        }
    }

    /// Past the deadline nothing more is located: the target is named, its callers counted as
    /// not read, and the text says so.
    #[test]
    fn past_the_deadline_the_callers_not_read_are_counted_and_said() {
        let many = Many::new();
        let asked = many.asked();
        let mut files = counting();
        let done = assemble(CallDirection::Incoming, &asked, &mut files, Instant::now());
        assert_eq!(files.located.len(), 1, "the target only");
        assert!(done.calls.is_empty());
        assert_eq!(done.unread, [CALLERS + 10]);
        let text = calls_text(&spot(), CallDirection::Incoming, "fake", &done, false);
        let anchor = hashline(1, "line 1");
        let anchor = anchor.split('|').next().unwrap();
        assert_eq!(
            text,
            format!(
                "40010 callers of `t` (t.ts:1 function t {anchor}) (fake), each with its call sites:\n... and 40010 more callers not read by the deadline; ask about a narrower symbol."
            )
        );
    }

    /// A target whose calls did not come by the deadline is named as unanswered, beside the
    /// ones that came.
    #[test]
    fn a_target_without_an_answer_says_so() {
        let t = Url::parse("file:///t.ts").unwrap();
        let c = Url::parse("file:///c.ts").unwrap();
        let asked = [
            TargetCalls {
                target: Many::named(&t, "t", 1),
                edges: Some(vec![Edge {
                    other: Many::named(&c, "c", 3),
                    sites: vec![4],
                }]),
            },
            TargetCalls {
                target: Many::named(&t, "t", 2),
                edges: None,
            },
        ];
        let mut files = counting();
        let later = Instant::now() + Duration::from_secs(3600);
        let done = assemble(CallDirection::Incoming, &asked, &mut files, later);
        assert_eq!(done.answered, [true, false]);
        let text = calls_text(&spot(), CallDirection::Incoming, "fake", &done, false);
        let a = |n: usize| {
            hashline(n, &format!("line {n}"))
                .split('|')
                .next()
                .unwrap()
                .to_owned()
        };
        assert_eq!(
            text,
            format!(
                "1 caller of `t` (t.ts:1 function t {}) (fake), each with its call sites:\nc.ts:3 function c {}\n{}\n\nNo answer from fake about the callers of `t` (t.ts:2 function t {}) by the deadline; ask again shortly.",
                a(1),
                a(3),
                hashline(4, "line 4"),
                a(2)
            )
        );
    }

    #[test]
    fn items_outside_the_workspace_have_no_anchor() {
        let mut i = CalledItem {
            name: "far".into(),
            kind: "function",
            detail: None,
            path: "/x/far.ts".into(),
            line: 5,
            anchor: None,
            in_workspace: false,
        };
        assert_eq!(
            item_line(&i),
            "/x/far.ts:5 function far (outside the workspace)"
        );
        i.path = "b.ts".into();
        i.in_workspace = true;
        i.anchor = Some("5abcd".into());
        assert_eq!(item_line(&i), "b.ts:5 function far 5abcd");
    }
}
