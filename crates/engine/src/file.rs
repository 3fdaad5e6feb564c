//! Applying one file section of a patch to that file's current bytes.

use crate::apply::{
    ApplyOptions, HunkPlacement, SyncBlock, apply_hunks_owned, live_sync, plan_hunks,
};
use crate::edit::LineEdits;
use crate::error::{EngineError, Reason};
use crate::patch::{FileChange, FilePatch, Hunk};
use crate::text::{Document, LineEnding, TextView};

/// What happened to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileAction {
    Added,
    Modified,
    Deleted,
    /// Moved from `from`; `content_changed` tells whether hunks changed it too.
    Renamed {
        from: String,
    },
}

/// The outcome of one file section: the bytes to write (or none, for a deletion) and the report.
#[derive(Debug, Clone)]
pub struct FileOutcome {
    /// The path after the change (the deleted path for a deletion).
    pub path: String,
    pub action: FileAction,
    /// New content; `None` for a deletion.
    pub new_content: Option<Vec<u8>>,
    pub content_changed: bool,
    pub hunks: Vec<HunkPlacement>,
    pub sync: Vec<SyncBlock>,
    pub added: usize,
    pub removed: usize,
}

/// Apply one file section to `current`, the file's bytes (`None` when it does not exist).
/// Errors carry reason codes; the caller adds the path.
pub fn apply_file_patch(
    fp: &FilePatch,
    current: Option<&[u8]>,
    opts: &ApplyOptions,
) -> Result<FileOutcome, EngineError> {
    match &fp.change {
        FileChange::Add {
            path,
            lines,
            final_newline,
        } => {
            if current.is_some() {
                return Err(EngineError::new(
                    Reason::FileExists,
                    "the patch creates this file but it already exists; patch it as an update instead",
                ));
            }
            let mut doc = Document::empty(LineEnding::Lf);
            doc.lines = lines.iter().map(|l| doc.new_line(l.clone())).collect();
            doc.final_newline = *final_newline || lines.is_empty();
            doc.drop_empty_unterminated_last_line();
            let sync = vec![SyncBlock {
                start_line: 1,
                line_count: doc.len(),
                // One block: within the block cap and the file's total alike.
                lines: (doc.len() <= opts.sync_block_max_lines.min(opts.sync_total_max_lines))
                    .then(|| {
                        doc.lines
                            .iter()
                            .enumerate()
                            .map(|(i, l)| crate::hash::hashline(i + 1, &l.text))
                            .collect()
                    }),
                old_start_line: 1,
                old_line_count: 0,
            }];
            Ok(FileOutcome {
                path: path.clone(),
                action: FileAction::Added,
                new_content: Some(doc.to_bytes()),
                content_changed: true,
                hunks: Vec::new(),
                sync,
                added: lines.len(),
                removed: 0,
            })
        }
        FileChange::Delete { path, hunks } => {
            let Some(bytes) = current else {
                return Err(not_found());
            };
            let removed = if hunks.is_empty() {
                0
            } else {
                let doc = Document::from_bytes(bytes)?;
                let old_len = doc.len();
                let applied = apply_hunks_owned(doc, hunks, opts)?;
                if !applied.doc.lines.is_empty() {
                    return Err(EngineError::new(
                        Reason::HunkMismatch,
                        format!(
                            "the deletion's hunks cover only part of the file ({} of {} lines would remain); re-read the file",
                            applied.doc.len(),
                            old_len
                        ),
                    ));
                }
                applied.removed
            };
            Ok(FileOutcome {
                path: path.clone(),
                action: FileAction::Deleted,
                new_content: None,
                content_changed: true,
                hunks: Vec::new(),
                sync: Vec::new(),
                added: 0,
                removed,
            })
        }
        FileChange::Update {
            path,
            move_to,
            hunks,
        } => {
            let Some(bytes) = current else {
                return Err(not_found());
            };
            let action = match move_to {
                Some(_) => FileAction::Renamed { from: path.clone() },
                None => FileAction::Modified,
            };
            let new_path = move_to.clone().unwrap_or_else(|| path.clone());
            if hunks.is_empty() {
                return Ok(FileOutcome {
                    path: new_path,
                    action,
                    new_content: Some(bytes.to_vec()),
                    content_changed: false,
                    hunks: Vec::new(),
                    sync: Vec::new(),
                    added: 0,
                    removed: 0,
                });
            }
            // The file is read as a view borrowing its bytes and the result rendered from it
            // directly: no `String` per line, unchanged lines copied in whole runs.
            let view = TextView::from_bytes(bytes)?;
            let (edits, placements, final_newline) = plan_hunks(&view, hunks, opts)?;
            let new_content = edits.render(&view, final_newline);
            let sync = live_sync(
                edited_len(&view, &edits, final_newline, &new_content),
                &edits,
                opts,
            );
            Ok(FileOutcome {
                path: new_path,
                action,
                content_changed: new_content != bytes,
                new_content: Some(new_content),
                hunks: placements,
                sync,
                added: hunks.iter().map(Hunk::additions).sum(),
                removed: hunks.iter().map(Hunk::removals).sum(),
            })
        }
    }
}

/// The number of lines of the edited text as a reader of `rendered` sees them: an empty last
/// line without a terminator is no line (see `Document::drop_empty_unterminated_last_line`).
pub(crate) fn edited_len(
    view: &TextView<'_>,
    edits: &LineEdits,
    final_newline: bool,
    rendered: &[u8],
) -> usize {
    let len = edits.new_len(view.len());
    // Line texts never contain `\n`: an unterminated text that is empty or ends in `\n` ends in
    // an empty line.
    let body = &rendered[if view.bom { 3 } else { 0 }..];
    let empty_last = !final_newline && len > 0 && (body.is_empty() || body.ends_with(b"\n"));
    len - usize::from(empty_last)
}

fn not_found() -> EngineError {
    EngineError::new(
        Reason::FileNotFound,
        "the patch changes this file but it does not exist; create it with `--- /dev/null` or `*** Add File:`",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_patch;

    fn outcome(patch: &str, current: Option<&str>) -> FileOutcome {
        let parsed = parse_patch(patch).unwrap();
        apply_file_patch(
            &parsed.files[0],
            current.map(str::as_bytes),
            &ApplyOptions::default(),
        )
        .unwrap()
    }

    // The report counts the lines the patch adds and removes, over all of a section's hunks.
    #[test]
    fn an_outcome_counts_the_lines_added_and_removed() {
        let check = |patch: &str, current: Option<&str>, added: usize, removed: usize| {
            let out = outcome(patch, current);
            assert_eq!((out.added, out.removed), (added, removed), "{patch}");
            assert!(out.content_changed, "{patch}");
        };
        check(
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n-a\n+A\n+A2\n b\n@@ -4,2 +5,1 @@\n-d\n-e\n+E\n",
            Some("a\nb\nc\nd\ne\n"),
            3,
            3,
        );
        check(
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n",
            None,
            2,
            0,
        );
        check(
            "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
            Some("x\ny\n"),
            0,
            2,
        );
    }

    // A created file ends with a newline unless the patch says it has none.
    #[test]
    fn a_created_file_ends_with_a_newline_unless_the_patch_says_otherwise() {
        let check = |patch: &str, bytes: &str| {
            assert_eq!(outcome(patch, None).new_content.unwrap(), bytes.as_bytes());
        };
        check(
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n",
            "x\ny\n",
        );
        check(
            "--- /dev/null\n+++ b/f\n@@ -0,0 +1,2 @@\n+x\n+y\n\\ No newline at end of file\n",
            "x\ny",
        );
        check(
            "*** Begin Patch\n*** Add File: f\n+x\n*** End Patch\n",
            "x\n",
        );
    }

    // An empty last line without a newline is no line: adding one leaves the bytes as they
    // were, the file unchanged, and the live-sync block names no line past the end.
    #[test]
    fn an_added_empty_unterminated_last_line_is_no_line() {
        let out = outcome(
            "--- a/f\n+++ b/f\n@@ -1,2 +1,3 @@\n a\n b\n+\n\\ No newline at end of file\n",
            Some("a\nb\n"),
        );
        assert_eq!(out.new_content.as_deref(), Some(&b"a\nb\n"[..]));
        assert!(!out.content_changed);
        assert_eq!(
            out.sync
                .iter()
                .map(|b| (b.start_line, b.line_count))
                .collect::<Vec<_>>(),
            // The hunk's block, lines 1-2 of the 2-line text: not 1-3.
            [(1, 2)]
        );
    }

    // An update that removes every line leaves an empty text: no bytes, no line; also where
    // the file ends without a newline and the patch does not say so.
    #[test]
    fn removing_every_line_leaves_no_line() {
        let marker = "\\ No newline at end of file\n";
        for (current, no_newline) in [("a\nb", marker), ("a\nb", ""), ("a\nb\n", "")] {
            let out = outcome(
                &format!("--- a/f\n+++ b/f\n@@ -1,2 +0,0 @@\n-a\n-b\n{no_newline}"),
                Some(current),
            );
            assert_eq!(out.new_content.as_deref(), Some(&b""[..]), "{current:?}");
            assert_eq!(
                out.sync
                    .iter()
                    .map(|b| (b.start_line, b.line_count))
                    .collect::<Vec<_>>(),
                [(1, 0)]
            );
        }
    }
}
