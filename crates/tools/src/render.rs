//! Every word the agent tools say, in one place: the model's text (`llm_content`) and the
//! person's summary with its diff (`display`), rendered from the typed facts of a call
//! ([`ReadReport`], [`EditReport`], [`WriteFileReport`], a [`PatchReport`]). The tools compute
//! and hand the facts here; the CLI prints the same text, MCP builds its structured output from
//! the facts themselves, and the workflow and the LSP edits word their live sync with
//! [`sync_text`]. Formats: docs/design.md §4 (live sync) and §7 (tool results).

use std::borrow::Cow;

use lspedit_engine::unified_diff_blocks;
use lspedit_engine::{DiffOptions, FileOutcome, MatchStrategy, SyncBlock, unified_diff};
use lspedit_write::{FileStatus, PatchReport, ToolError};

use crate::{EditReport, ReadReport, WriteFileReport};

/// Longest line (in characters) a result echoes back; `read_file` cuts at the same length.
pub const MAX_ECHOED_LINE_CHARS: usize = 2000;

/// `n` and the noun in the form that agrees with it: `1 file`, `2 files`, `0 files`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The model's text of a refusal: `Error: ` and the error.
pub fn refusal(e: &ToolError) -> String {
    format!("Error: {e}")
}

/// `read_file`'s text: the hashline `view`, `(empty file)` for an empty file, and a line saying
/// where the view lies when it does not show the whole file.
pub fn read_text(mut view: String, r: &ReadReport) -> String {
    if r.total_lines == 0 {
        return "(empty file)\n".to_string();
    }
    if r.offset > 1 || r.more() {
        let last = r.offset - 1 + r.shown;
        view.push_str(&format!(
            "(lines {}-{last} of {}; use {} to read more)\n",
            r.offset,
            r.total_lines,
            crate::front::say(&crate::front::Step::Arg(crate::front::Arg::Offset))
        ));
    }
    view
}

/// `read_file`'s display: `Read <path> (<n> lines, base_sha <sha>)`.
pub fn read_display(r: &ReadReport) -> String {
    format!(
        "Read {} ({}, base_sha {})",
        r.path,
        count(r.total_lines, "line"),
        r.base_sha
    )
}

/// `line 12` for one replacement, `3 places` for more.
fn places(r: &EditReport) -> String {
    match r.lines.as_slice() {
        [line] if r.count == 1 => format!("line {line}"),
        _ => format!("{} places", r.count),
    }
}

/// `edit`'s text: what was replaced, how it was found when not exactly, and the fresh lines.
pub fn edit_text(r: &EditReport, sync: &[SyncBlock]) -> String {
    let how = if r.strategy == MatchStrategy::Exact {
        String::new()
    } else {
        format!(
            ", matched ignoring {}",
            r.strategy.as_str().replace('_', " ")
        )
    };
    format!(
        "Edited {}: replaced {}{how}.{}",
        r.path,
        places(r),
        sync_text(&r.path, sync)
    )
}

/// `edit`'s display: `M <path> (<places>)` and, given the old and new texts, the diff of the
/// changed blocks.
pub fn edit_display(r: &EditReport, sync: &[SyncBlock], diff: Option<(&str, &str)>) -> String {
    let diff = diff.map_or_else(String::new, |(old, new)| {
        unified_diff_blocks(
            old,
            new,
            sync,
            Some(&r.path),
            Some(&r.path),
            &DiffOptions::default(),
        )
    });
    format!("M {} ({})\n{diff}", r.path, places(r))
}

/// `write_file`'s text: `Created <path> (<n> lines).` or `Overwrote …`; a binary file's size
/// in bytes.
pub fn write_text(w: &WriteFileReport) -> String {
    let verb = if w.created { "Created" } else { "Overwrote" };
    let size = if w.binary {
        count(w.bytes, "byte")
    } else {
        count(w.lines, "line")
    };
    format!("{verb} {} ({size}).", w.path)
}

/// `1 line`, `2 lines`: [`plural`] of a noun whose plural ends in `s`.
fn count(n: usize, what: &str) -> String {
    plural(n, what, &format!("{what}s"))
}

/// `write_file`'s display: `A <path>` or `M <path>`, and with `diff` the diff (none for binary
/// content).
pub fn write_display(w: &WriteFileReport, old: Option<&str>, new: &str, diff: bool) -> String {
    let diff = if w.binary || !diff {
        String::new()
    } else {
        unified_diff(
            old.unwrap_or(""),
            new,
            (!w.created).then_some(w.path.as_str()),
            Some(&w.path),
            &DiffOptions::default(),
        )
    };
    format!("{} {}\n{diff}", if w.created { "A" } else { "M" }, w.path)
}

/// A patch's text: one summary line per file (`M path (2 hunks, moved +3)`, `FAILED path: …`),
/// then the fresh lines of every applied file's changed blocks. The same text for
/// `apply_patch` and the CLI's `apply --dry-run`.
pub fn patch_text(report: &PatchReport) -> String {
    let mut s = report.summary().trim_end().to_string();
    for f in &report.files {
        if let FileStatus::Applied(o) = &f.status {
            s.push_str(&sync_text(&o.path, &o.sync));
        }
    }
    s.trim_end().to_string()
}

/// The diff part of a patch's display for one applied file: `old` is its text before (`None`:
/// it was created), `old_path` the name it had.
pub fn patch_file_diff(o: &FileOutcome, old_path: &str, old: Option<&str>, new: &str) -> String {
    unified_diff_blocks(
        old.unwrap_or(""),
        new,
        &o.sync,
        old.map(|_| old_path),
        Some(&o.path),
        &DiffOptions::default(),
    )
}

/// `line` cut to [`MAX_ECHOED_LINE_CHARS`] characters, ending with `… [N more chars]` when cut
/// (the hashline view's marker), so a huge changed line never comes back whole.
pub fn cap_line(line: &str) -> Cow<'_, str> {
    match line.char_indices().nth(MAX_ECHOED_LINE_CHARS) {
        None => Cow::Borrowed(line),
        Some((at, _)) => {
            let more = line[at..].chars().count();
            Cow::Owned(format!("{}… [{more} more chars]", &line[..at]))
        }
    }
}

/// Live sync text: the fresh anchored lines of every modified block, or its range when capped,
/// each block after a blank line.
pub fn sync_text(path: &str, blocks: &[SyncBlock]) -> String {
    let mut s = String::new();
    for b in blocks {
        if b.line_count == 0 {
            continue;
        }
        let end = b.start_line + b.line_count - 1;
        match &b.lines {
            Some(lines) => {
                s.push_str(&format!("\n\n{path} lines {}-{end} now:\n", b.start_line));
                let capped: Vec<Cow<'_, str>> = lines.iter().map(|l| cap_line(l)).collect();
                s.push_str(&capped.join("\n"));
            }
            None => s.push_str(&format!(
                "\n\n{path} lines {}-{end} changed; re-read them for fresh anchors.",
                b.start_line
            )),
        }
    }
    s
}

/// The heading of a written file's diagnostics block: `edit` and `write_file` say "this file",
/// the multi-file tools name it.
pub fn diagnostics_heading(path: &str, single: bool) -> String {
    if single {
        "LSP errors detected in this file, please fix:".to_string()
    } else {
        format!("LSP errors detected in {path}, please fix:")
    }
}

/// The heading of a late answer's block, at the start of the next result.
pub fn late_heading(path: &str) -> String {
    format!("LSP errors detected in {path} after your earlier change, please fix:")
}

/// The heading of the other files' section of a writing call.
pub const OTHER_FILES_HEADING: &str = "LSP errors detected in other files:";

/// The heading of the other files' late section.
pub const LATE_OTHER_FILES_HEADING: &str =
    "LSP errors detected in other files after your earlier change, please fix:";

/// `late` (the late answers' blocks) in front of a result's `text`.
pub fn with_late(late: &str, text: &str) -> String {
    format!("{late}\n\n{text}")
}
