//! The parsed form of a patch, whatever format it came in.

use crate::hash::Anchor;

/// Which syntax a patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchFormat {
    /// Unified diff, plain or git-style.
    Unified,
    /// The Codex envelope, `*** Begin Patch` … `*** End Patch`.
    Codex,
}

/// A whole patch: one entry per file section, in patch order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    pub format: PatchFormat,
    pub files: Vec<FilePatch>,
}

/// What a patch does to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileChange {
    /// Create a file with these lines.
    Add {
        path: String,
        lines: Vec<String>,
        final_newline: bool,
    },
    /// Delete a file. Hunks, when present, must match the file's content.
    Delete { path: String, hunks: Vec<Hunk> },
    /// Change a file in place, or move it (`move_to`) with or without content changes.
    Update {
        path: String,
        move_to: Option<String>,
        hunks: Vec<Hunk>,
    },
}

/// One file section of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePatch {
    pub change: FileChange,
    /// 1-based line of the patch where this section starts.
    pub patch_line: usize,
    /// The file's mode before the change, from git's `old mode` or `deleted file mode` line
    /// (e.g. `0o100644`); `None` when the patch does not say.
    pub old_mode: Option<u32>,
    /// The file's mode after the change, from git's `new mode` or `new file mode` line (e.g.
    /// `0o100755`); `None` when the patch does not say. The engine only parses it: setting the
    /// permission bits is the caller's (a mode change alone is an `Update` without hunks).
    pub new_mode: Option<u32>,
}

impl FilePatch {
    /// The mode the patch sets, when it changes it: `new_mode` where it differs from
    /// `old_mode` (or `old_mode` is unknown).
    pub fn mode_change(&self) -> Option<u32> {
        self.new_mode.filter(|&m| Some(m) != self.old_mode)
    }

    /// The path the section reads from.
    pub fn path(&self) -> &str {
        match &self.change {
            FileChange::Add { path, .. }
            | FileChange::Delete { path, .. }
            | FileChange::Update { path, .. } => path,
        }
    }

    /// The path the file has after the change (`None` for a deletion).
    pub fn new_path(&self) -> Option<&str> {
        match &self.change {
            FileChange::Add { path, .. } => Some(path),
            FileChange::Delete { .. } => None,
            FileChange::Update { path, move_to, .. } => Some(move_to.as_deref().unwrap_or(path)),
        }
    }
}

/// The kind of a hunk line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Remove,
    Add,
}

/// One line of a hunk. `text` is the content without marker or anchor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HunkLine {
    pub kind: LineKind,
    pub text: String,
    /// The anchor the model copied from the hashline view, on context and removal lines.
    pub anchor: Option<Anchor>,
    /// 1-based line of the patch.
    pub patch_line: usize,
}

/// A hunk: where it claims to apply and its lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@` numbers; `None` when the header has none (anchored or Codex hunks).
    pub old_start: Option<usize>,
    pub old_count: Option<usize>,
    pub new_start: Option<usize>,
    pub new_count: Option<usize>,
    /// Codex `@@ <context>` line, or the text after a unified header's second `@@`.
    pub context_hint: Option<String>,
    pub lines: Vec<HunkLine>,
    /// The hunk must end at the end of the file (Codex `*** End of File`).
    pub at_eof: bool,
    /// `\ No newline at end of file` follows the hunk's last old-side line.
    pub old_no_newline: bool,
    /// `\ No newline at end of file` follows the hunk's last new-side line.
    pub new_no_newline: bool,
    /// The patch's final line belongs to this hunk and had no terminating newline, so it is only
    /// trusted if the file verifies it (it is a context or removal line).
    pub unterminated_last: bool,
    /// The patch's last hunk has no line counts and ends with a change line at the very end of
    /// the patch text: a patch cut right after a line looks the same, so the hunk is complete
    /// only where nothing can follow it, at the end of the file (else `truncated_input`).
    pub end_unproven: bool,
    /// 1-based line of the patch holding the hunk header (or its first line).
    pub patch_line: usize,
}

impl Hunk {
    /// Lines the hunk expects in the file (context and removal), in order.
    pub fn old_side(&self) -> impl Iterator<Item = &HunkLine> {
        self.lines.iter().filter(|l| l.kind != LineKind::Add)
    }

    /// The hunk can only match where its old side ends at the end of the file: Codex
    /// `*** End of File`, or an old side ending in `\ No newline at end of file` (as git
    /// applies it: a mid-file copy of those lines is not them).
    pub fn pinned_to_eof(&self) -> bool {
        self.at_eof || self.old_no_newline
    }

    /// Whether the hunk changes anything.
    pub fn has_changes(&self) -> bool {
        self.lines.iter().any(|l| l.kind != LineKind::Context)
            || self.old_no_newline != self.new_no_newline
    }

    pub fn additions(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Add)
            .count()
    }

    pub fn removals(&self) -> usize {
        self.lines
            .iter()
            .filter(|l| l.kind == LineKind::Remove)
            .count()
    }
}
