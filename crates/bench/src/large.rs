//! Large edits: `write_file` rewriting every line of a 10k / 20k / 40k-line file, and a
//! server's rename of 20k / 200k text edits turned into a patch and proposed
//! (`rename_symbol` with `preview`, a scripted server answering at once), each beside what the
//! replaced code cost: similar's Myers over the lines (the old `diff_ops`), and every position
//! found by walking the file from its start (`PositionEncoding::offset`, the old
//! `apply_text_edits`) followed by that diff.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use lspedit_lsp::lsp_types::{Position, Range, TextEdit, Url, WorkspaceEdit};
use lspedit_lsp::{CodeActions, Locations, LspError, PositionEncoding, ServerEdit};
use lspedit_lsp_edits::{
    EditOptions, LineRef, LspEditProvider, LspEdits, LspEditsConfig, SymbolAt,
};
use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::{Workflow, WorkflowConfig};
use lspedit_write::Workspace;

pub const HEADING: &str = "## Large edits: every line rewritten, 200k server edits";

fn old_lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("    let value_{i} = compute({i}, \"alpha\");\n"))
        .collect()
}

fn new_lines(n: usize) -> String {
    (0..n)
        .map(|i| format!("    let value_{i} = compute({i}, \"beta\");\n"))
        .collect()
}

/// The old line diff: similar's Myers over the lines.
fn myers(old: &str, new: &str) -> usize {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    similar::capture_diff_slices(similar::Algorithm::Myers, &a, &b).len()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    if d >= Duration::from_secs(10) {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1e3)
    }
}

fn unsupported(method: &'static str) -> LspError {
    LspError::Unsupported {
        server: "scripted".into(),
        method,
    }
}

/// A server that answers every rename with `edit`.
struct Scripted {
    edit: ServerEdit,
}

impl LspEditProvider for Scripted {
    fn handles(&self, _: &Path) -> bool {
        true
    }
    fn server_id(&self, _: &Path) -> Option<String> {
        Some("scripted".into())
    }
    fn document_symbols(
        &self,
        _: &Path,
        _: &str,
        _: Instant,
    ) -> Result<lspedit_lsp::Symbols, LspError> {
        Err(unsupported("documentSymbol"))
    }
    fn workspace_symbols(
        &self,
        _: &Path,
        _: &str,
        _: Instant,
    ) -> Result<lspedit_lsp::WorkspaceSymbols, LspError> {
        Err(unsupported("workspace/symbol"))
    }
    fn rename(
        &self,
        _: &Path,
        _: &str,
        _: usize,
        _: &str,
        _: Instant,
    ) -> Result<ServerEdit, LspError> {
        Ok(self.edit.clone())
    }
    fn code_actions(
        &self,
        _: &Path,
        _: &str,
        _: std::ops::Range<usize>,
        _: Instant,
    ) -> Result<CodeActions, LspError> {
        Err(unsupported("codeAction"))
    }
    fn code_action_edit(
        &self,
        _: &Path,
        _: &str,
        _: lspedit_lsp::lsp_types::CodeActionOrCommand,
        _: Instant,
    ) -> Result<ServerEdit, LspError> {
        Err(unsupported("codeAction"))
    }
    fn references(
        &self,
        _: &Path,
        _: &str,
        _: usize,
        _: bool,
        _: Instant,
    ) -> Result<Locations, LspError> {
        Err(unsupported("references"))
    }
    fn definition(&self, _: &Path, _: &str, _: usize, _: Instant) -> Result<Locations, LspError> {
        Err(unsupported("definition"))
    }
}

/// A file of `n` lines each calling `old_name` once, and the server's edits renaming it.
fn rename_case(n: usize, uri: &Url) -> (String, ServerEdit) {
    let text: String = (0..n)
        .map(|i| format!("    total += old_name({i});\n"))
        .collect();
    let edits: Vec<TextEdit> = (0..n as u32)
        .map(|line| TextEdit {
            range: Range {
                start: Position {
                    line,
                    character: 13,
                },
                end: Position {
                    line,
                    character: 21,
                },
            },
            new_text: "new_name".into(),
        })
        .collect();
    let edit = ServerEdit {
        server: "scripted".into(),
        edits: vec![WorkspaceEdit {
            changes: Some(HashMap::from([(uri.clone(), edits)])),
            ..WorkspaceEdit::default()
        }],
        encoding: PositionEncoding::Utf16,
        server_time: Duration::ZERO,
    };
    (text, edit)
}

/// The old conversion: every position walked from the file's start, the edits spliced, then
/// the old diff.
fn old_conversion(text: &str, edit: &ServerEdit) -> usize {
    let mut spans: Vec<(usize, usize, &str)> = Vec::new();
    for edits in edit.edits[0].changes.iter().flat_map(|c| c.values()) {
        for e in edits {
            let s = edit.encoding.offset(text, e.range.start).unwrap_or(0);
            let t = edit.encoding.offset(text, e.range.end).unwrap_or(0);
            spans.push((s, t, e.new_text.as_str()));
        }
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, t, n) in spans {
        out.push_str(&text[at..s]);
        out.push_str(n);
        at = t;
    }
    out.push_str(&text[at..]);
    myers(text, &out)
}

pub fn run(quick: bool) -> Result<String> {
    let runs = if quick { 1 } else { 3 };
    let mut md = String::new();
    md.push_str(
        "| edit | lines | before (old code) | now | now, p50 of |\n|---|---:|---:|---:|---:|\n",
    );
    for n in [10_000usize, 20_000, 40_000] {
        let (old, new) = (old_lines(n), new_lines(n));
        eprintln!("large: write_file {n} lines");
        let t0 = Instant::now();
        std::hint::black_box(myers(&old, &new));
        let before = t0.elapsed();
        let dir = tempfile::tempdir()?;
        let tools = Tools::new(Workspace::open(dir.path())?, None, ToolsConfig::default());
        let mut times = Vec::new();
        for _ in 0..runs {
            fs::write(dir.path().join("big.rs"), &old)?;
            let t0 = Instant::now();
            let r = tools.write_file("big.rs", &new);
            times.push(t0.elapsed());
            ensure!(!r.is_error, "write_file failed: {}", r.llm_content);
            ensure!(fs::read_to_string(dir.path().join("big.rs"))? == new);
        }
        let _ = writeln!(
            md,
            "| `write_file`, every line changed | {n} | {} (its Myers diff alone) | {} | {runs} |",
            ms(before),
            ms(median(times))
        );
    }
    for n in [20_000usize, 200_000] {
        eprintln!("large: rename with {n} text edits");
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        let uri = Url::from_file_path(root.join("big.rs")).map_err(|()| anyhow::anyhow!("uri"))?;
        let (text, edit) = rename_case(n, &uri);
        let before = if n <= 20_000 {
            let t0 = Instant::now();
            std::hint::black_box(old_conversion(&text, &edit));
            ms(t0.elapsed())
        } else {
            "not run (> 180 s in the issue's measurement)".to_string()
        };
        let tools = Arc::new(Tools::new(
            Workspace::open(&root)?,
            None,
            ToolsConfig::default(),
        ));
        let wf = Workflow::open(
            tools.clone(),
            WorkflowConfig {
                event_log: false,
                ..WorkflowConfig::unrestricted()
            },
        )?;
        let provider = Scripted { edit };
        let edits = LspEdits::new(&tools, &wf, Some(&provider), LspEditsConfig::default());
        let mut times = Vec::new();
        for _ in 0..runs {
            fs::write(root.join("big.rs"), &text)?;
            let at = SymbolAt::new("big.rs", LineRef::Number(1), "old_name");
            let t0 = Instant::now();
            let r = edits.rename_symbol(
                &at,
                "new_name",
                EditOptions {
                    preview: true,
                    ..EditOptions::default()
                },
            );
            times.push(t0.elapsed());
            ensure!(!r.is_error, "rename failed: {}", r.llm_content);
        }
        let _ = writeln!(
            md,
            "| server rename, converted to a patch and proposed (`preview`) | {n} edits | {before} | {} | {runs} |",
            ms(median(times))
        );
    }
    Ok(md)
}
