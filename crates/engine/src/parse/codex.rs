//! The Codex envelope: `*** Begin Patch` … `*** End Patch` with Add / Delete / Update File
//! sections, `*** Move to:`, `@@ [context]` chunks and `*** End of File`.

use super::{PLine, check_hunk, parse_body};
use crate::error::{EngineError, Reason};
use crate::patch::{FileChange, FilePatch, Hunk, LineKind, Patch, PatchFormat};

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARK: &str = "*** End of File";

/// The path a marker names, relative to the wrapper's `cd DIR` when there was one.
fn path_of(rest: &str, pl: PLine<'_>, dir: Option<&str>) -> Result<String, EngineError> {
    super::file_path(rest.trim(), pl.no).map(|p| super::join_dir(dir, p))
}

/// `line` is a marker of the envelope: `*** ` at its start, or (padded with whitespace, as
/// models indent whole patches) one of the markers this format defines.
fn is_marker(line: &str) -> bool {
    if line.starts_with("*** ") {
        return true;
    }
    let t = line.trim();
    [ADD, DELETE, UPDATE, MOVE]
        .iter()
        .any(|m| t.starts_with(m.trim_end()))
        || [BEGIN, END, EOF_MARK].contains(&t)
}

/// Inside an update's chunk, a line of one space and then text is a context line, even when the
/// text is a marker (` *** Update File: b.txt` is the line `*** Update File: b.txt`), as the
/// Codex grammar reads it; unless the envelope's own markers are indented by that one space
/// (` *** Begin Patch`), which makes the marker a padded one.
fn is_context(line: &str, marker_indent: &str) -> bool {
    marker_indent != " "
        && line
            .strip_prefix(' ')
            .is_some_and(|rest| rest.starts_with(|c: char| !c.is_whitespace()))
}

/// Parse the envelope in `lines`; `dir` is the directory of a wrapper's `cd DIR`, which every
/// path is relative to.
pub(super) fn parse(lines: &[PLine<'_>], dir: Option<&str>) -> Result<Patch, EngineError> {
    let start = lines
        .iter()
        .position(|l| l.text.trim() == BEGIN)
        .unwrap_or(0);
    let begin = lines.get(start).map_or("", |l| l.text);
    let marker_indent = &begin[..begin.len() - begin.trim_start().len()];
    let Some(end) = lines.iter().rposition(|l| l.text.trim() == END) else {
        let last = lines.last().map_or(1, |l| l.no);
        return Err(EngineError::at_line(
            Reason::TruncatedInput,
            last,
            "the patch has no `*** End Patch` line: it was cut off. Nothing was applied; resend the whole patch",
        ));
    };
    let body = &lines[start + 1..end];
    let mut files = Vec::new();
    let mut i = 0;
    let mut hunk_no = 0;
    while i < body.len() {
        let pl = body[i];
        let t = pl.text.trim();
        if let Some(rest) = t.strip_prefix(ADD.trim_end()) {
            let path = path_of(rest, pl, dir)?;
            i += 1;
            let mut content = Vec::new();
            while i < body.len() && !is_marker(body[i].text) {
                let l = body[i].text;
                match l.strip_prefix('+') {
                    Some(c) => content.push(c.to_string()),
                    None if l.is_empty() => content.push(String::new()),
                    None => {
                        return Err(EngineError::at_line(
                            Reason::InvalidDiffFormat,
                            body[i].no,
                            format!("every line of an added file must start with `+`; found `{l}`"),
                        ));
                    }
                }
                i += 1;
            }
            files.push(FilePatch {
                change: FileChange::Add {
                    path,
                    lines: content,
                    final_newline: true,
                },
                patch_line: pl.no,
                old_mode: None,
                new_mode: None,
            });
        } else if let Some(rest) = t.strip_prefix(DELETE.trim_end()) {
            let path = path_of(rest, pl, dir)?;
            i += 1;
            files.push(FilePatch {
                change: FileChange::Delete {
                    path,
                    hunks: Vec::new(),
                },
                patch_line: pl.no,
                old_mode: None,
                new_mode: None,
            });
        } else if let Some(rest) = t.strip_prefix(UPDATE.trim_end()) {
            let path = path_of(rest, pl, dir)?;
            i += 1;
            let mut move_to = None;
            if i < body.len()
                && let Some(rest) = body[i].text.trim().strip_prefix(MOVE.trim_end())
            {
                move_to = Some(path_of(rest, body[i], dir)?);
                i += 1;
            }
            let mut hunks: Vec<Hunk> = Vec::new();
            // Empty lines are blank context only when change lines follow them in the same
            // chunk; trailing ones are spacing before the next marker.
            let mut pending_blank: Vec<PLine<'_>> = Vec::new();
            while i < body.len() {
                let l = body[i];
                let lt = l.text;
                let context = is_context(lt, marker_indent);
                if lt.trim() == EOF_MARK && !context {
                    pending_blank.clear();
                    match hunks.last_mut() {
                        Some(h) => h.at_eof = true,
                        None => {
                            return Err(EngineError::at_line(
                                Reason::InvalidDiffFormat,
                                l.no,
                                "`*** End of File` before any change lines",
                            ));
                        }
                    }
                    i += 1;
                    continue;
                }
                if is_marker(lt) && !context {
                    break;
                }
                if lt.is_empty() {
                    pending_blank.push(l);
                    i += 1;
                    continue;
                }
                if let Some(hint) = lt.strip_prefix("@@") {
                    pending_blank.clear();
                    hunk_no += 1;
                    let hint = hint.trim();
                    hunks.push(Hunk {
                        context_hint: (!hint.is_empty()).then(|| hint.to_string()),
                        patch_line: l.no,
                        ..Hunk::default()
                    });
                    i += 1;
                    continue;
                }
                let (kind, rest) = match lt.as_bytes().first() {
                    Some(b' ') => (LineKind::Context, &lt[1..]),
                    Some(b'-') => (LineKind::Remove, &lt[1..]),
                    Some(b'+') => (LineKind::Add, &lt[1..]),
                    None | Some(_) => {
                        return Err(EngineError::at_line(
                            Reason::InvalidDiffFormat,
                            l.no,
                            format!(
                                "unexpected line `{lt}` in an update: change lines start with ` `, `-` or `+`, chunks with `@@`"
                            ),
                        ));
                    }
                };
                if hunks.is_empty() {
                    hunk_no += 1;
                    hunks.push(Hunk {
                        patch_line: l.no,
                        ..Hunk::default()
                    });
                }
                if let Some(h) = hunks.last_mut() {
                    for blank in pending_blank.drain(..) {
                        h.lines.push(parse_body(LineKind::Context, "", blank));
                    }
                    h.lines.push(parse_body(kind, rest, l));
                }
                i += 1;
            }
            let first_no = hunk_no - hunks.len() + 1;
            for (k, h) in hunks.iter_mut().enumerate() {
                if h.lines.is_empty() {
                    return Err(EngineError::at_line(
                        Reason::InvalidDiffFormat,
                        h.patch_line,
                        format!("hunk {} has no lines", first_no + k),
                    )
                    .with_hunk(first_no + k));
                }
                check_hunk(h, first_no + k, None)?;
            }
            if hunks.is_empty() && move_to.is_none() {
                return Err(EngineError::at_line(
                    Reason::InvalidDiffFormat,
                    pl.no,
                    format!("the update of `{path}` has no changes"),
                ));
            }
            files.push(FilePatch {
                change: FileChange::Update {
                    path,
                    move_to,
                    hunks,
                },
                patch_line: pl.no,
                old_mode: None,
                new_mode: None,
            });
        } else if t.is_empty() {
            i += 1;
        } else {
            return Err(EngineError::at_line(
                Reason::InvalidDiffFormat,
                pl.no,
                format!(
                    "unexpected line `{t}`; expected `*** Add File:`, `*** Delete File:` or `*** Update File:`"
                ),
            ));
        }
    }
    Ok(Patch {
        format: PatchFormat::Codex,
        files,
    })
}
