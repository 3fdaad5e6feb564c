//! References and definitions as the model reads files: grouped by file, each location with the
//! lines around it in the hashline view (anchors included, so the model can patch them at once),
//! capped: the first locations with context, the rest as `path:line:column`.

use std::collections::BTreeMap;

use lspedit_engine::hashline;
use lspedit_lsp::Locations;
use lspedit_tools::render::plural;

use super::position::line_spans;
use super::{LspEditsConfig, convert};
use lspedit_write::Workspace;

/// One location a server answered, in the model's terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundLocation {
    /// Workspace-relative path, or the absolute path of a file outside the workspace (a
    /// library's declaration).
    pub path: String,
    /// 1-based line and column (Unicode scalar values) of the start, and of the end.
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub in_workspace: bool,
}

/// The answer of `references` or `definition`.
#[derive(Debug, Clone)]
pub struct LocationsReport {
    pub llm_content: String,
    /// Every location, sorted by path, line, column.
    pub locations: Vec<FoundLocation>,
    /// How many locations are shown with their lines in `llm_content`.
    pub with_context: usize,
    pub server: String,
    pub server_time: std::time::Duration,
    /// The server was still loading the project: the list may be incomplete (the text says so).
    pub partial: bool,
}

/// The report of `found`, the answer to `what`: its singular and plural forms
/// (``reference to `add` ``, ``references to `add` ``).
pub(crate) fn report(
    ws: &Workspace,
    found: &Locations,
    what: (&str, &str),
    config: &LspEditsConfig,
) -> LocationsReport {
    let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut locations = Vec::new();
    for loc in &found.locations {
        let (path, in_workspace) = match convert::confine_read(ws, &loc.uri) {
            Some(rel) => (rel, true),
            None => match loc.uri.to_file_path() {
                Ok(p) => (p.display().to_string(), false),
                Err(()) => (loc.uri.to_string(), false),
            },
        };
        let text = texts
            .entry(path.clone())
            .or_insert_with(|| {
                if in_workspace {
                    ws.read(&path)
                        .ok()
                        .flatten()
                        .and_then(|b| String::from_utf8(b).ok())
                } else {
                    None
                }
            })
            .as_deref();
        let (line, column, end_line, end_column) = match text {
            Some(t) => {
                let (l, c) = found.encoding.one_based(t, loc.range.start);
                let (el, ec) = found.encoding.one_based(t, loc.range.end);
                (l, c, el, ec)
            }
            None => (
                loc.range.start.line + 1,
                loc.range.start.character + 1,
                loc.range.end.line + 1,
                loc.range.end.character + 1,
            ),
        };
        locations.push(FoundLocation {
            path,
            line: line as usize,
            column: column as usize,
            end_line: end_line as usize,
            end_column: end_column as usize,
            in_workspace,
        });
    }
    locations.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    locations.dedup();

    let files = locations
        .iter()
        .map(|l| &l.path)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let n = locations.len();
    let (one, many) = what;
    let mut llm = if n == 0 {
        format!("No {many} found.")
    } else {
        format!(
            "{} in {}:",
            plural(n, one, many),
            plural(files, "file", "files")
        )
    };
    if found.partial {
        llm.push_str(&format!(
            "\n{} was still loading the project: this answer may be incomplete; ask again shortly.",
            found.server
        ));
    }
    // The first `max_with_context` locations (in workspace files that could be read) with
    // their lines; windows of one file that touch are merged.
    let mut with_context = 0;
    let mut rest: Vec<&FoundLocation> = Vec::new();
    let mut by_file: BTreeMap<&str, Vec<&FoundLocation>> = BTreeMap::new();
    for l in &locations {
        let readable = texts.get(&l.path).is_some_and(Option::is_some);
        if readable && with_context < config.max_with_context {
            with_context += 1;
            by_file.entry(l.path.as_str()).or_default().push(l);
        } else {
            rest.push(l);
        }
    }
    for (path, locs) in by_file {
        let Some(Some(text)) = texts.get(path) else {
            continue;
        };
        let spans = line_spans(text);
        let lines: Vec<String> = locs.iter().map(|l| l.line.to_string()).collect();
        llm.push_str(&format!("\n\n{path} (line {}):", lines.join(", ")));
        let mut windows: Vec<(usize, usize)> = Vec::new();
        for l in &locs {
            let lo = l.line.saturating_sub(config.context_lines).max(1);
            let hi = (l.line + config.context_lines).min(spans.len());
            match windows.last_mut() {
                Some(w) if lo <= w.1 + 1 => w.1 = w.1.max(hi),
                _ => windows.push((lo, hi)),
            }
        }
        for (i, (lo, hi)) in windows.into_iter().enumerate() {
            if i > 0 {
                llm.push_str("\n...");
            }
            for n in lo..=hi {
                if let Some(s) = spans.get(n - 1) {
                    llm.push('\n');
                    llm.push_str(&lspedit_tools::render::cap_line(&hashline(
                        n,
                        &text[s.start..s.end],
                    )));
                }
            }
        }
    }
    if !rest.is_empty() {
        llm.push_str(&format!("\n\n{} more:", rest.len()));
        for l in rest {
            llm.push_str(&format!("\n{}:{}:{}", l.path, l.line, l.column));
            if !l.in_workspace {
                llm.push_str(" (outside the workspace)");
            }
        }
    }
    LocationsReport {
        llm_content: llm,
        locations,
        with_context,
        server: found.server.clone(),
        server_time: found.server_time,
        partial: found.partial,
    }
}
