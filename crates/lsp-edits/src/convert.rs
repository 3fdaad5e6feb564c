//! A server's `WorkspaceEdit`s as an ordinary patch: every URI confined to the workspace and
//! checked writable (protected paths, symlinks out) before anything else, the text edits applied
//! in memory to the files as read, resource operations (create, rename, delete) followed in
//! order, and the result written as a git-style unified diff (anchored context) that the one
//! planner then applies like any patch a model sends.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use lspedit_engine::{DiffOptions, unified_diff};

use lspedit_lsp::PositionEncoding;
use lspedit_lsp::lsp_types::{
    DocumentChangeOperation, DocumentChanges, OneOf, ResourceOp, TextEdit, Url, WorkspaceEdit,
};
use lspedit_write::Reason;

use super::LspEditError;
use lspedit_write::ToolError;
use lspedit_write::Workspace;

/// What the server's edit does to one file, as the server said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerFileOp {
    /// Text edits (how many) to a file.
    Edit {
        path: String,
        edits: usize,
    },
    Create {
        path: String,
    },
    Rename {
        from: String,
        to: String,
    },
    Delete {
        path: String,
    },
}

impl std::fmt::Display for ServerFileOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServerFileOp::Edit { path, edits } => {
                write!(
                    f,
                    "edit {path} ({edits} change{})",
                    if *edits == 1 { "" } else { "s" }
                )
            }
            ServerFileOp::Create { path } => write!(f, "create {path}"),
            ServerFileOp::Rename { from, to } => write!(f, "rename {from} -> {to}"),
            ServerFileOp::Delete { path } => write!(f, "delete {path}"),
        }
    }
}

/// A server's edit turned into patch text.
#[derive(Debug, Clone)]
pub(crate) struct Converted {
    /// The patch (empty when the edit changes nothing).
    pub patch: String,
    /// The server's operations, in its order.
    pub ops: Vec<ServerFileOp>,
    /// The sha of every file the edit changes, as read to compute it (existing files only):
    /// what the change expects to find when it is applied.
    pub bases: Vec<(String, String)>,
}

/// The files an edit reads and writes, as they would be after each step.
struct Vfs<'a> {
    ws: &'a Workspace,
    /// Content as read from disk, by workspace-relative path (`None`: did not exist).
    original: BTreeMap<String, Option<String>>,
    /// Content now.
    current: BTreeMap<String, Option<String>>,
    /// The original path of a file now at a path (renames), by its current path.
    origin: BTreeMap<String, String>,
}

impl<'a> Vfs<'a> {
    fn load(&mut self, rel: &str) -> Result<(), LspEditError> {
        if self.current.contains_key(rel) {
            return Ok(());
        }
        let text = match self.ws.read(rel)? {
            Some(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
                ToolError::new(Reason::NotUtf8, Some(rel), "the file is not valid UTF-8")
            })?),
            None => None,
        };
        self.original.insert(rel.to_string(), text.clone());
        self.current.insert(rel.to_string(), text);
        Ok(())
    }

    fn get(&mut self, rel: &str) -> Result<Option<String>, LspEditError> {
        self.load(rel)?;
        Ok(self.current.get(rel).cloned().flatten())
    }
}

/// Turns `edits` (applied one after another) into patch text. Every URI is confined first: one
/// outside the workspace, into a protected directory or not a `file:` URI refuses the whole
/// edit, before any file is read. `texts` holds files whose text the server was given (the
/// text the positions are about), keyed by workspace-relative path.
pub(crate) fn to_patch(
    ws: &Workspace,
    edits: &[WorkspaceEdit],
    encoding: PositionEncoding,
    deadline: Instant,
) -> Result<Converted, LspEditError> {
    // Confinement first, for every URI of every edit, so nothing is even read on a refusal.
    let mut steps: Vec<Step> = Vec::new();
    for edit in edits {
        steps.extend(steps_of(ws, edit)?);
    }
    let mut vfs = Vfs {
        ws,
        original: BTreeMap::new(),
        current: BTreeMap::new(),
        origin: BTreeMap::new(),
    };
    let mut ops = Vec::new();
    for step in steps {
        match step {
            Step::Edit { path, edits } => {
                let Some(text) = vfs.get(&path)? else {
                    return Err(bad_edit(
                        &path,
                        "the server edits a file that does not exist",
                    ));
                };
                let new = apply_text_edits(&path, &text, &edits, encoding, deadline)?;
                ops.push(ServerFileOp::Edit {
                    path: path.clone(),
                    edits: edits.len(),
                });
                vfs.current.insert(path, Some(new));
            }
            Step::Create {
                path,
                overwrite,
                ignore_if_exists,
            } => {
                if vfs.get(&path)?.is_some() {
                    if ignore_if_exists && !overwrite {
                        continue;
                    }
                    if !overwrite {
                        return Err(ToolError::new(
                            Reason::FileExists,
                            Some(&path),
                            "the server creates a file that exists",
                        )
                        .into());
                    }
                }
                ops.push(ServerFileOp::Create { path: path.clone() });
                vfs.current.insert(path, Some(String::new()));
            }
            Step::Rename {
                from,
                to,
                overwrite,
                ignore_if_exists,
            } => {
                let Some(text) = vfs.get(&from)? else {
                    return Err(bad_edit(
                        &from,
                        "the server renames a file that does not exist",
                    ));
                };
                if vfs.get(&to)?.is_some() {
                    if ignore_if_exists && !overwrite {
                        continue;
                    }
                    return Err(ToolError::new(
                        Reason::FileExists,
                        Some(&to),
                        format!("the server renames `{from}` over an existing file"),
                    )
                    .into());
                }
                ops.push(ServerFileOp::Rename {
                    from: from.clone(),
                    to: to.clone(),
                });
                let origin = vfs.origin.remove(&from).unwrap_or_else(|| from.clone());
                vfs.current.insert(from, None);
                vfs.current.insert(to.clone(), Some(text));
                vfs.origin.insert(to, origin);
            }
            Step::Delete {
                path,
                ignore_if_not_exists,
            } => {
                if vfs.get(&path)?.is_none() {
                    if ignore_if_not_exists {
                        continue;
                    }
                    return Err(bad_edit(
                        &path,
                        "the server deletes a file that does not exist",
                    ));
                }
                ops.push(ServerFileOp::Delete { path: path.clone() });
                vfs.current.insert(path.clone(), None);
                vfs.origin.remove(&path);
            }
        }
    }
    let bases = vfs
        .original
        .iter()
        .filter(|(path, old)| vfs.current.get(*path) != Some(*old))
        .filter_map(|(path, old)| {
            let old = old.as_deref()?;
            Some((path.clone(), lspedit_write::base_sha(old.as_bytes())))
        })
        .collect();
    Ok(Converted {
        patch: render(&vfs),
        ops,
        bases,
    })
}

/// The patch from the original files to their final state: renames (with their content
/// change), then changes in place, creations and deletions, each file once, in path order.
fn render(vfs: &Vfs<'_>) -> String {
    let opts = DiffOptions {
        context: 3,
        anchored: true,
    };
    let mut out = String::new();
    let moved_from: BTreeSet<&str> = vfs
        .origin
        .iter()
        .filter(|(now, from)| now != from)
        .map(|(_, from)| from.as_str())
        .collect();
    for (now, from) in &vfs.origin {
        if now == from {
            continue;
        }
        let old = vfs
            .original
            .get(from)
            .cloned()
            .flatten()
            .unwrap_or_default();
        let new = vfs.current.get(now).cloned().flatten().unwrap_or_default();
        out.push_str(&format!(
            "diff --git a/{from} b/{now}\nsimilarity index 100%\nrename from {from}\nrename to {now}\n"
        ));
        out.push_str(&unified_diff(&old, &new, Some(from), Some(now), &opts));
    }
    for (path, new) in &vfs.current {
        if vfs.origin.get(path).is_some_and(|from| from != path) {
            continue;
        }
        let old = vfs.original.get(path).cloned().flatten();
        match (old, new) {
            (Some(old), Some(new)) if &old != new => {
                out.push_str(&unified_diff(&old, new, Some(path), Some(path), &opts));
            }
            (Some(old), None) if !moved_from.contains(path.as_str()) => {
                if old.is_empty() {
                    out.push_str(&format!(
                        "diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n+++ /dev/null\n"
                    ));
                } else {
                    out.push_str(&unified_diff(&old, "", Some(path), None, &opts));
                }
            }
            (None, Some(new)) => {
                if new.is_empty() {
                    out.push_str(&format!(
                        "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
                    ));
                } else {
                    out.push_str(&unified_diff("", new, None, Some(path), &opts));
                }
            }
            _ => {}
        }
    }
    out
}

/// One operation of an edit, its paths confined.
enum Step {
    Edit {
        path: String,
        edits: Vec<TextEdit>,
    },
    Create {
        path: String,
        overwrite: bool,
        ignore_if_exists: bool,
    },
    Rename {
        from: String,
        to: String,
        overwrite: bool,
        ignore_if_exists: bool,
    },
    Delete {
        path: String,
        ignore_if_not_exists: bool,
    },
}

fn steps_of(ws: &Workspace, edit: &WorkspaceEdit) -> Result<Vec<Step>, LspEditError> {
    let mut steps = Vec::new();
    match &edit.document_changes {
        Some(DocumentChanges::Edits(docs)) => {
            for d in docs {
                steps.push(Step::Edit {
                    path: confine(ws, &d.text_document.uri)?,
                    edits: d.edits.iter().map(plain).collect(),
                });
            }
        }
        Some(DocumentChanges::Operations(ops)) => {
            for op in ops {
                steps.push(match op {
                    DocumentChangeOperation::Edit(d) => Step::Edit {
                        path: confine(ws, &d.text_document.uri)?,
                        edits: d.edits.iter().map(plain).collect(),
                    },
                    DocumentChangeOperation::Op(ResourceOp::Create(c)) => {
                        let o = c.options.as_ref();
                        Step::Create {
                            path: confine(ws, &c.uri)?,
                            overwrite: o.and_then(|o| o.overwrite).unwrap_or(false),
                            ignore_if_exists: o.and_then(|o| o.ignore_if_exists).unwrap_or(false),
                        }
                    }
                    DocumentChangeOperation::Op(ResourceOp::Rename(r)) => {
                        let o = r.options.as_ref();
                        Step::Rename {
                            from: confine(ws, &r.old_uri)?,
                            to: confine(ws, &r.new_uri)?,
                            overwrite: o.and_then(|o| o.overwrite).unwrap_or(false),
                            ignore_if_exists: o.and_then(|o| o.ignore_if_exists).unwrap_or(false),
                        }
                    }
                    DocumentChangeOperation::Op(ResourceOp::Delete(d)) => {
                        let o = d.options.as_ref();
                        if o.and_then(|o| o.recursive) == Some(true) {
                            return Err(bad_edit(
                                &confine(ws, &d.uri)?,
                                "the server deletes a directory; only files are deleted",
                            ));
                        }
                        Step::Delete {
                            path: confine(ws, &d.uri)?,
                            ignore_if_not_exists: o
                                .and_then(|o| o.ignore_if_not_exists)
                                .unwrap_or(false),
                        }
                    }
                });
            }
        }
        None => {
            // `changes` is a map: in URI order, so the same edit always gives the same patch.
            let mut files: Vec<(&Url, &Vec<TextEdit>)> = edit.changes.iter().flatten().collect();
            files.sort_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
            for (uri, edits) in files {
                steps.push(Step::Edit {
                    path: confine(ws, uri)?,
                    edits: edits.clone(),
                });
            }
        }
    }
    Ok(steps)
}

fn plain(e: &OneOf<TextEdit, lspedit_lsp::lsp_types::AnnotatedTextEdit>) -> TextEdit {
    match e {
        OneOf::Left(t) => t.clone(),
        OneOf::Right(a) => a.text_edit.clone(),
    }
}

/// The workspace-relative path of a `file:` URI the server names, refused when it is outside
/// the workspace (`path_outside_workspace`, symlinks included) or protected (`protected_path`).
pub(crate) fn confine(ws: &Workspace, uri: &Url) -> Result<String, LspEditError> {
    let shown = uri.as_str();
    let abs = uri
        .to_file_path()
        .ok()
        .filter(|_| uri.scheme() == "file")
        .ok_or_else(|| {
            ToolError::new(
                Reason::PathOutsideWorkspace,
                Some(shown),
                "the server's edit names a resource that is not a file of the workspace",
            )
        })?;
    let rel = relative(ws, &abs).ok_or_else(|| {
        ToolError::new(
            Reason::PathOutsideWorkspace,
            Some(&abs.display().to_string()),
            "the server's edit reaches outside the workspace; nothing was written",
        )
    })?;
    ws.check_writable(&rel)?;
    Ok(rel)
}

/// The workspace-relative path of a location a server names for reading (references,
/// definitions): `None` outside the workspace.
pub(crate) fn confine_read(ws: &Workspace, uri: &Url) -> Option<String> {
    let abs = uri.to_file_path().ok()?;
    let rel = relative(ws, &abs)?;
    ws.resolve(&rel).ok()?;
    Some(rel)
}

/// `abs` relative to the workspace root, also when one of them is spelt through a symlink (the
/// root canonical, the server's path not, or the other way round).
fn relative(ws: &Workspace, abs: &std::path::Path) -> Option<String> {
    let root = ws.root();
    let direct = abs
        .strip_prefix(root)
        .ok()
        .map(std::path::Path::to_path_buf);
    let rel = direct.or_else(|| {
        // Canonicalize the deepest existing ancestor (a new file's parent may not exist).
        let mut base = abs.to_path_buf();
        let mut rest = Vec::new();
        while !base.exists() {
            rest.push(base.file_name()?.to_os_string());
            base = base.parent()?.to_path_buf();
        }
        let mut canon = base.canonicalize().ok()?;
        for part in rest.iter().rev() {
            canon.push(part);
        }
        let root = root.canonicalize().ok()?;
        canon
            .strip_prefix(&root)
            .ok()
            .map(std::path::Path::to_path_buf)
    })?;
    let s = rel.to_str()?.to_string();
    // `..` is left to `Workspace::resolve` (check_writable refuses a path that climbs out).
    (!s.is_empty()).then_some(s)
}

/// How many text edits are applied between two looks at the deadline.
const EDITS_PER_DEADLINE_CHECK: usize = 1024;

/// `text` with the server's `edits` applied (all against `text`, as LSP requires): refused when
/// a position is past the end of the file or two edits overlap, and `too_large` once
/// `deadline` has passed. Linear in the text and the edits: the line starts are found once,
/// every position is then its line's start plus a walk along that one line, the edits are
/// sorted once and the result is built in one pass.
pub(crate) fn apply_text_edits(
    path: &str,
    text: &str,
    edits: &[TextEdit],
    encoding: PositionEncoding,
    deadline: Instant,
) -> Result<String, LspEditError> {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut spans: Vec<(usize, usize, usize, &str)> = Vec::with_capacity(edits.len());
    for (i, e) in edits.iter().enumerate() {
        if i % EDITS_PER_DEADLINE_CHECK == 0 {
            past_deadline(path, deadline, edits.len())?;
        }
        let at = |p| {
            offset_in(text, &starts, encoding, p).ok_or_else(|| {
                bad_edit(
                    path,
                    &format!(
                        "the server's edit names line {} past the end of the file",
                        u64::from(e.range.start.line) + 1
                    ),
                )
            })
        };
        let (start, end) = (at(e.range.start)?, at(e.range.end)?);
        if end < start {
            return Err(bad_edit(
                path,
                "the server's edit has a range that ends before it starts",
            ));
        }
        spans.push((start, end, i, e.new_text.as_str()));
    }
    // Inserts at one point keep the server's order (the index breaks ties).
    spans.sort_by_key(|&(start, end, i, _)| (start, end, i));
    for w in spans.windows(2) {
        if w[0].1 > w[1].0 {
            return Err(bad_edit(path, "the server's edits overlap"));
        }
    }
    past_deadline(path, deadline, edits.len())?;
    let grown: usize = spans.iter().map(|s| s.3.len()).sum();
    let mut out = String::with_capacity(text.len() + grown);
    let mut at = 0;
    for (start, end, _, new) in spans {
        out.push_str(&text[at..start]);
        out.push_str(new);
        at = end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// `too_large` when `deadline` has passed.
fn past_deadline(path: &str, deadline: Instant, edits: usize) -> Result<(), LspEditError> {
    if Instant::now() < deadline {
        return Ok(());
    }
    Err(ToolError::new(
        Reason::TooLarge,
        Some(path),
        format!(
            "the server's edit ({edits} text edits in this file) could not be converted before the deadline; nothing was written"
        ),
    )
    .into())
}

/// The byte offset of `pos` in `text` whose line starts are `starts`, by the rule of
/// [`PositionEncoding::offset`] (a line past the end is `None`, a character past the end of
/// its line is the line's end, one inside a character that character's start), walking only
/// the position's own line.
fn offset_in(
    text: &str,
    starts: &[usize],
    encoding: PositionEncoding,
    pos: lspedit_lsp::lsp_types::Position,
) -> Option<usize> {
    let line = usize::try_from(pos.line).ok()?;
    let start = *starts.get(line)?;
    let line_end = starts.get(line + 1).map_or(text.len(), |next| next - 1);
    if encoding == PositionEncoding::Utf8 {
        // Byte columns: no walk, only a step back to a character boundary.
        let mut at = start.saturating_add(pos.character as usize).min(line_end);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        return Some(at);
    }
    let mut units = 0u32;
    for (i, ch) in text[start..line_end].char_indices() {
        if units >= pos.character {
            return Some(start + i);
        }
        units += encoding.units(ch);
        if units > pos.character {
            return Some(start + i);
        }
    }
    Some(line_end)
}

fn bad_edit(path: &str, message: &str) -> LspEditError {
    LspEditError::BadServerEdit {
        path: path.to_string(),
        message: message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lspedit_lsp::lsp_types::{Position, Range};

    fn edit(l0: u32, c0: u32, l1: u32, c1: u32, new: &str) -> TextEdit {
        TextEdit {
            range: Range {
                start: Position {
                    line: l0,
                    character: c0,
                },
                end: Position {
                    line: l1,
                    character: c1,
                },
            },
            new_text: new.to_string(),
        }
    }

    #[test]
    fn text_edits_apply_against_the_original_in_order() {
        let text = "let a😀b = add(1);\nadd(2)\n";
        let got = apply_text_edits(
            "f",
            text,
            &[
                edit(1, 0, 1, 3, "plus"),
                // After the emoji: UTF-16 column 13 is `add` of line 1.
                edit(0, 11, 0, 14, "plus"),
                edit(0, 0, 0, 0, "A"),
                edit(0, 0, 0, 0, "B"),
            ],
            PositionEncoding::Utf16,
            later(),
        )
        .unwrap();
        assert_eq!(got, "ABlet a😀b = plus(1);\nplus(2)\n");
        let e = apply_text_edits(
            "f",
            text,
            &[edit(0, 0, 0, 5, "x"), edit(0, 3, 0, 6, "y")],
            PositionEncoding::Utf16,
            later(),
        )
        .unwrap_err();
        assert_eq!(e.code(), "invalid_server_edit");
        let e = apply_text_edits(
            "f",
            text,
            &[edit(7, 0, 7, 1, "x")],
            PositionEncoding::Utf16,
            later(),
        )
        .unwrap_err();
        assert_eq!(e.code(), "invalid_server_edit");
    }

    fn later() -> Instant {
        Instant::now() + std::time::Duration::from_secs(3600)
    }

    /// Every position (lines past the end, columns past a line's end or inside a character,
    /// CRLF lines, the last line without a newline) maps to the offset the protocol's rule
    /// gives ([`PositionEncoding::offset`]), through the line starts found once.
    #[test]
    fn positions_through_line_starts_follow_the_protocols_rule() {
        let text = "a😀é\r\n\n  ßx😀\nend";
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        for encoding in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Utf32,
        ] {
            for line in 0..6 {
                for character in 0..14 {
                    let p = Position { line, character };
                    assert_eq!(
                        offset_in(text, &starts, encoding, p),
                        encoding.offset(text, p),
                        "{encoding:?} {line}:{character}"
                    );
                }
            }
        }
    }

    /// Past the deadline a server's edit is `too_large`, nothing converted.
    #[test]
    fn text_edits_past_the_deadline_are_too_large() {
        let e = apply_text_edits(
            "f",
            "a\n",
            &[edit(0, 0, 0, 1, "b")],
            PositionEncoding::Utf16,
            Instant::now(),
        )
        .unwrap_err();
        assert_eq!(e.code(), "too_large");
    }
}
