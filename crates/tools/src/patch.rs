//! Applying a patch to the workspace: parse, plan every file in memory, then commit each file
//! atomically. A file whose section fails is left untouched; the other files still apply
//! (per-call granularity, DESIGN.md §4), and the report names every file's outcome.

use std::collections::{BTreeSet, HashMap};

use lspedit_engine::{
    ApplyOptions, Classification, FileAction, FileChange, FileOutcome, Patch, apply_file_patch,
    classify_patch_operations, parse_patch,
};

use crate::error::{Reason, ToolError};
use crate::workspace::{Replaced, Workspace};

/// Options of [`apply_patch`].
#[derive(Debug, Clone, Default)]
pub struct ApplyPatchOptions {
    pub engine: ApplyOptions,
    /// Plan and report, but write nothing.
    pub dry_run: bool,
    pub limits: PatchLimits,
}

/// The outcome of one file section.
#[derive(Debug, Clone)]
pub enum FileStatus {
    Applied(FileOutcome),
    Failed(ToolError),
}

/// One line of the per-file report.
#[derive(Debug, Clone)]
pub struct FileReport {
    /// The path the section names (its source path for renames).
    pub path: String,
    pub status: FileStatus,
}

impl FileReport {
    pub fn is_applied(&self) -> bool {
        matches!(self.status, FileStatus::Applied(_))
    }

    /// `M path (2 hunks, moved +3)`, `A path (+4)`, `D path`, `R old -> new`,
    /// `FAILED path: hunk_mismatch: …`.
    pub fn summary_line(&self) -> String {
        match &self.status {
            FileStatus::Failed(e) => format!("FAILED {}: {}: {}", self.path, e.reason, e.message),
            FileStatus::Applied(o) => {
                let mut detail = Vec::new();
                if !o.hunks.is_empty() {
                    let n = o.hunks.len();
                    detail.push(format!("{n} hunk{}", if n == 1 { "" } else { "s" }));
                }
                let moved: BTreeSet<isize> = o
                    .hunks
                    .iter()
                    .map(|h| h.offset)
                    .filter(|&d| d != 0)
                    .collect();
                if !moved.is_empty() {
                    let list: Vec<String> = moved.iter().map(|d| format!("{d:+}")).collect();
                    detail.push(format!("moved {}", list.join(", ")));
                }
                let (letter, name) = match &o.action {
                    FileAction::Added => {
                        detail.push(format!("+{}", o.added));
                        ("A", o.path.clone())
                    }
                    FileAction::Modified => ("M", o.path.clone()),
                    FileAction::Deleted => ("D", o.path.clone()),
                    FileAction::Renamed { from } => ("R", format!("{from} -> {}", o.path)),
                };
                if detail.is_empty() {
                    format!("{letter} {name}")
                } else {
                    format!("{letter} {name} ({})", detail.join(", "))
                }
            }
        }
    }
}

/// The report of a whole call.
#[derive(Debug, Clone)]
pub struct PatchReport {
    pub files: Vec<FileReport>,
    pub classification: Classification,
    /// The bytes each path the patch read had before it (`None`: it did not exist), as read
    /// once for the plan: callers show diffs from them instead of reading the files again.
    pub before: HashMap<String, Option<Vec<u8>>>,
}

impl PatchReport {
    pub fn all_applied(&self) -> bool {
        self.files.iter().all(FileReport::is_applied)
    }

    /// The summary lines, one per file, each ending with a newline.
    pub fn summary(&self) -> String {
        self.files.iter().map(|f| f.summary_line() + "\n").collect()
    }
}

/// Bounds on the patch text a call accepts, so hostile input means a clear refusal
/// (`too_large`), never unbounded memory or time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLimits {
    /// Largest patch text, in bytes (default 64 MiB).
    pub max_bytes: usize,
    /// Most hunks in one patch (default 200,000).
    pub max_hunks: usize,
}

impl Default for PatchLimits {
    fn default() -> Self {
        PatchLimits {
            max_bytes: 64 << 20,
            max_hunks: 200_000,
        }
    }
}

impl PatchLimits {
    /// Refuse (`too_large`) a patch text longer than [`PatchLimits::max_bytes`].
    pub fn check_len(&self, len: usize) -> Result<(), ToolError> {
        if len > self.max_bytes {
            return Err(ToolError::new(
                Reason::TooLarge,
                None,
                format!(
                    "the patch is {len} bytes, more than the limit of {} bytes; nothing was applied: split it into smaller patches",
                    self.max_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Refuse (`too_large`) a parsed patch with more than [`PatchLimits::max_hunks`] hunks.
    pub fn check_patch(&self, patch: &Patch) -> Result<(), ToolError> {
        let hunks: usize = patch
            .files
            .iter()
            .map(|fp| match &fp.change {
                FileChange::Add { .. } => 1,
                FileChange::Delete { hunks, .. } | FileChange::Update { hunks, .. } => hunks.len(),
            })
            .sum();
        if hunks > self.max_hunks {
            return Err(ToolError::new(
                Reason::TooLarge,
                None,
                format!(
                    "the patch has {hunks} hunks, more than the limit of {}; nothing was applied: split it into smaller patches",
                    self.max_hunks
                ),
            ));
        }
        Ok(())
    }

    /// Parse `text` within these limits.
    pub fn parse(&self, text: &str) -> Result<Patch, ToolError> {
        self.check_len(text.len())?;
        let patch = parse_patch(text).map_err(|e| ToolError::from_engine(None, e))?;
        self.check_patch(&patch)?;
        Ok(patch)
    }
}

/// How many times a file that changed on disk between the plan and the write is planned again
/// from its new bytes before the sections touching it are refused (`stale_context`).
pub const MAX_REPLANS: usize = 3;

/// Parse `text` and apply it. `Err` only when the patch as a whole cannot be read (then nothing
/// was touched); per-file refusals are in the report.
pub fn apply_patch(
    ws: &Workspace,
    text: &str,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    let patch = opts.limits.parse(text)?;
    apply_parsed(ws, &patch, opts)
}

/// Apply an already parsed patch.
///
/// Sections are planned in memory against each file's bytes as read once, in patch order
/// (a later section for the same file patches what the earlier made of it). Sections name
/// files by their resolved identity, so `src/f.txt`, `./src//f.txt` and a path through a
/// symlinked directory are one file. A failed section fails every section sharing a file with
/// it, transitively; the files of the remaining sections are committed once each, with their
/// final content, by [`Workspace::replace_verified`]: only if the file still holds the bytes the
/// plan read. A file another writer changed in between is planned again from its new bytes (its
/// sections only, up to [`MAX_REPLANS`] times), else its sections are `stale_context`.
pub fn apply_parsed(
    ws: &Workspace,
    patch: &Patch,
    opts: &ApplyPatchOptions,
) -> Result<PatchReport, ToolError> {
    let all: Vec<usize> = (0..patch.files.len()).collect();
    let mut run = run_sections(ws, patch, &all, opts)?;
    let mut tries = 0;
    while !run.conflicted.is_empty() && tries < MAX_REPLANS {
        tries += 1;
        let again = match run_sections(ws, patch, &run.conflicted, opts) {
            Ok(r) => r,
            Err(e) => {
                // Other files may be written already: the refusal is these sections', not the
                // whole patch's.
                for &i in &run.conflicted {
                    run.files[i] = Some(failed(patch, i, e.clone()));
                }
                run.conflicted.clear();
                break;
            }
        };
        for (i, f) in again.files.into_iter().enumerate() {
            if let Some(f) = f {
                run.files[i] = Some(f);
            }
        }
        run.before.extend(again.before);
        run.conflicted = again.conflicted;
    }
    for &i in &run.conflicted {
        let e = ToolError::new(
            Reason::StaleContext,
            Some(patch.files[i].path()),
            format!(
                "the file changed on disk while this patch was being applied ({} tries); nothing of this section was written: re-read the file and resend",
                MAX_REPLANS + 1
            ),
        );
        run.files[i] = Some(failed(patch, i, e));
    }
    Ok(PatchReport {
        files: run.files.into_iter().flatten().collect(),
        classification: classify_patch_operations(patch),
        before: run.before,
    })
}

fn failed(patch: &Patch, i: usize, e: ToolError) -> FileReport {
    FileReport {
        path: patch.files[i].path().to_string(),
        status: FileStatus::Failed(e),
    }
}

/// One pass over some sections of a patch: plan, then commit.
struct Run {
    /// Per section of the whole patch: its report when this pass ran it.
    files: Vec<Option<FileReport>>,
    /// Sections whose files changed on disk between the plan and the write (nothing of them
    /// written).
    conflicted: Vec<usize>,
    before: HashMap<String, Option<Vec<u8>>>,
}

/// A section's files: its source, and its destination when it moves the file.
struct Keys {
    src: String,
    dst: Option<String>,
}

impl Keys {
    fn all(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.src).chain(self.dst.as_ref())
    }
}

/// A path as a file identity: its workspace-relative form with `.`, `..`, doubled separators
/// and symlinks resolved, and, for an existing file, the first such form seen for its
/// device and inode (hard links). With `entry`, the last component is not followed: the
/// identity of the directory entry a deletion or a rename removes (a symlink itself).
fn file_key(
    ws: &Workspace,
    path: &str,
    entry: bool,
    inodes: &mut HashMap<(u64, u64), String>,
) -> Result<String, ToolError> {
    let abs = if entry {
        ws.resolve_entry(path)?
    } else {
        ws.resolve(path)?
    };
    let key = ws.display_path(&abs);
    let meta = if entry {
        std::fs::symlink_metadata(&abs)
    } else {
        std::fs::metadata(&abs)
    };
    match meta {
        Ok(m) if m.is_file() => {
            use std::os::unix::fs::MetadataExt;
            Ok(inodes.entry((m.dev(), m.ino())).or_insert(key).clone())
        }
        _ => Ok(key),
    }
}

/// A section as planned: its index in the patch, its files (`None`: a path was refused), and
/// its outcome.
type PlannedSection = (usize, Option<Keys>, Result<FileOutcome, ToolError>);

fn run_sections(
    ws: &Workspace,
    patch: &Patch,
    indices: &[usize],
    opts: &ApplyPatchOptions,
) -> Result<Run, ToolError> {
    let mut inodes = HashMap::new();
    let mut plan = Plan::default();
    let mut planned: Vec<PlannedSection> = Vec::new();
    for &i in indices {
        let fp = &patch.files[i];
        let src = fp.path();
        let keyed = (|| -> Result<Keys, ToolError> {
            // Protected paths are refused before anything is planned, so no section can
            // half-happen (a rename out of `.git/` writing its destination, then failing the
            // delete). A deletion acts on the entry itself (a symlink, never its target).
            // Deletions and renames remove the source's entry (a symlink itself); other
            // changes write through it.
            let entry = matches!(
                &fp.change,
                FileChange::Delete { .. }
                    | FileChange::Update {
                        move_to: Some(_),
                        ..
                    }
            );
            if entry {
                ws.resolve_entry(src)?;
            } else {
                ws.check_writable(src)?;
            }
            let src_key = file_key(ws, src, entry, &mut inodes)?;
            let dst = match &fp.change {
                FileChange::Update {
                    move_to: Some(dest),
                    ..
                } => {
                    ws.check_writable(dest)?;
                    Some(file_key(ws, dest, false, &mut inodes)?)
                }
                _ => None,
            };
            Ok(Keys { src: src_key, dst })
        })();
        let keys = match keyed {
            Ok(k) => k,
            Err(e) => {
                planned.push((i, None, Err(e)));
                continue;
            }
        };
        let result = plan.section(ws, fp, &keys, &opts.engine);
        planned.push((i, Some(keys), result));
    }
    // A section found cut off means the patch text is: nothing of it is applied, whatever
    // other sections planned (the engine can only tell a cut from a mismatch when the cut
    // section is tried, so this is decided here, before anything is written).
    if let Some(cut) = planned.iter().find_map(|(_, _, r)| match r {
        Err(e) if e.reason == Reason::TruncatedInput => Some(e.clone()),
        _ => None,
    }) {
        return Err(cut);
    }
    // Sections sharing a file succeed or fail together (transitively): one unit each.
    let mut units = Units::default();
    for (_, keys, _) in &planned {
        if let Some(k) = keys {
            units.join(k.all());
        }
    }
    let bad_units: BTreeSet<usize> = planned
        .iter()
        .filter_map(|(_, keys, r)| match (keys, r) {
            (Some(k), Err(_)) => Some(units.of(&k.src)),
            _ => None,
        })
        .collect();
    // Commit each healthy unit's files once, with their final state.
    let mut unit_result: HashMap<usize, Result<(), Commit>> = HashMap::new();
    if !opts.dry_run {
        for (_, keys, r) in &planned {
            let Some(k) = keys else { continue };
            let u = units.of(&k.src);
            if r.is_err() || bad_units.contains(&u) || unit_result.contains_key(&u) {
                continue;
            }
            unit_result.insert(u, commit_unit(ws, &units.members(u), &plan));
        }
    }
    let mut files: Vec<Option<FileReport>> = vec![None; patch.files.len()];
    let mut conflicted = Vec::new();
    for (i, keys, r) in planned {
        let path = patch.files[i].path().to_string();
        let u = keys.as_ref().map(|k| units.of(&k.src));
        let status = match (r, u) {
            (Err(e), _) => FileStatus::Failed(e),
            (Ok(o), Some(u)) if bad_units.contains(&u) => FileStatus::Failed(ToolError::new(
                Reason::HunkMismatch,
                Some(&o.path),
                "another section of this patch for the same file failed, so this file was left untouched",
            )),
            (Ok(o), Some(u)) => match unit_result.get(&u) {
                Some(Err(Commit::Changed)) => {
                    conflicted.push(i);
                    continue;
                }
                Some(Err(Commit::Failed(e))) => FileStatus::Failed(e.clone()),
                Some(Ok(())) | None => FileStatus::Applied(o),
            },
            (Ok(o), None) => FileStatus::Applied(o),
        };
        files[i] = Some(FileReport { path, status });
    }
    Ok(Run {
        files,
        conflicted,
        before: plan.before,
    })
}

/// The files a pass plans, each read once.
#[derive(Default)]
struct Plan {
    /// Bytes as read, by file key (`None`: the file does not exist).
    base: HashMap<String, Option<Vec<u8>>>,
    /// Each file's state as the plan proceeds, by key.
    state: HashMap<String, Option<Vec<u8>>>,
    /// Bytes as read, by the path as the patch spells it (for display diffs).
    before: HashMap<String, Option<Vec<u8>>>,
    /// Permission bits a section sets (git's `new mode`), by the key of the file it leaves.
    modes: HashMap<String, u32>,
}

impl Plan {
    fn load(&mut self, ws: &Workspace, key: &str, shown: &str) -> Result<(), ToolError> {
        if !self.base.contains_key(key) {
            let bytes = ws.read(shown)?;
            self.state.insert(key.to_string(), bytes.clone());
            self.base.insert(key.to_string(), bytes);
        }
        if !self.before.contains_key(shown) {
            let bytes = self.base.get(key).cloned().flatten();
            self.before.insert(shown.to_string(), bytes);
        }
        Ok(())
    }

    /// Plan one section against the current state of its files.
    fn section(
        &mut self,
        ws: &Workspace,
        fp: &lspedit_engine::FilePatch,
        keys: &Keys,
        engine: &ApplyOptions,
    ) -> Result<FileOutcome, ToolError> {
        let src = fp.path();
        self.load(ws, &keys.src, src)?;
        if let (
            Some(dst_key),
            FileChange::Update {
                move_to: Some(dest),
                ..
            },
        ) = (&keys.dst, &fp.change)
        {
            self.load(ws, dst_key, dest)?;
            if dst_key != &keys.src && self.state.get(dst_key).is_some_and(Option::is_some) {
                return Err(ToolError::new(
                    Reason::FileExists,
                    Some(dest),
                    format!("cannot move `{src}` to `{dest}`: the destination exists"),
                ));
            }
        }
        let current = self.state.get(&keys.src).and_then(|c| c.as_deref());
        let outcome = apply_file_patch(fp, current, engine)
            .map_err(|e| ToolError::from_engine(Some(src), e))?;
        if let (Some(mode), false) = (fp.mode_change(), outcome.action == FileAction::Deleted) {
            let target = keys.dst.clone().unwrap_or_else(|| keys.src.clone());
            self.modes.insert(target, mode);
        }
        match &outcome.action {
            FileAction::Deleted => {
                self.state.insert(keys.src.clone(), None);
            }
            FileAction::Renamed { .. } => {
                let to = keys.dst.clone().unwrap_or_else(|| keys.src.clone());
                self.state.insert(keys.src.clone(), None);
                self.state.insert(to, outcome.new_content.clone());
            }
            FileAction::Added | FileAction::Modified => {
                if outcome.content_changed || outcome.action == FileAction::Added {
                    self.state
                        .insert(keys.src.clone(), outcome.new_content.clone());
                }
            }
        }
        Ok(outcome)
    }
}

/// Files joined into units (union-find over file keys).
#[derive(Default)]
struct Units {
    index: HashMap<String, usize>,
    parent: Vec<usize>,
    keys: Vec<String>,
}

impl Units {
    fn id(&mut self, key: &str) -> usize {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.parent.len();
        self.parent.push(i);
        self.keys.push(key.to_string());
        self.index.insert(key.to_string(), i);
        i
    }

    fn root(&self, mut i: usize) -> usize {
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }

    fn join<'a>(&mut self, keys: impl Iterator<Item = &'a String>) {
        let ids: Vec<usize> = keys.map(|k| self.id(k)).collect();
        for w in ids.windows(2) {
            let (a, b) = (self.root(w[0]), self.root(w[1]));
            if a != b {
                self.parent[b] = a;
            }
        }
    }

    fn of(&self, key: &str) -> usize {
        self.index.get(key).map_or(usize::MAX, |&i| self.root(i))
    }

    /// The keys of unit `u`, sorted.
    fn members(&self, u: usize) -> Vec<&str> {
        let mut v: Vec<&str> = (0..self.keys.len())
            .filter(|&i| self.root(i) == u)
            .map(|i| self.keys[i].as_str())
            .collect();
        v.sort_unstable();
        v
    }
}

/// Why a unit was not committed.
enum Commit {
    /// A file changed on disk since the plan read it: nothing of the unit is on disk.
    Changed,
    Failed(ToolError),
}

/// A file's change in a commit: key, bytes the plan read, final bytes.
type Change<'a> = (&'a str, Option<&'a [u8]>, Option<&'a [u8]>);

/// Write a unit's files, each from the bytes the plan read to its final state: contents first,
/// deletions last (so a renamed file's content always exists somewhere). If one cannot be
/// written, the ones already written are put back.
fn commit_unit(ws: &Workspace, keys: &[&str], plan: &Plan) -> Result<(), Commit> {
    let mut changes: Vec<Change<'_>> = keys
        .iter()
        .filter_map(|&k| {
            let old = plan.base.get(k).and_then(|b| b.as_deref());
            let new = plan.state.get(k).and_then(|b| b.as_deref());
            (old != new).then_some((k, old, new))
        })
        .collect();
    changes.sort_by_key(|(_, _, new)| new.is_none());
    let mut done: Vec<Change<'_>> = Vec::new();
    for &(k, old, new) in &changes {
        let err = match ws.replace_verified(k, old, new, None) {
            Ok(Replaced::Done) => {
                done.push((k, old, new));
                continue;
            }
            Ok(Replaced::Changed { .. }) => Commit::Changed,
            Err(e) => Commit::Failed(e),
        };
        for &(k, old, new) in done.iter().rev() {
            if let Err(e) = ws.replace_verified(k, new, old, None) {
                tracing::warn!(path = k, error = %e, "putting back a file of a unit that failed failed");
            }
        }
        return Err(err);
    }
    // Modes last, on the files as written.
    for &k in keys {
        if let Some(&mode) = plan.modes.get(k) {
            ws.set_mode(k, mode).map_err(Commit::Failed)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            std::fs::write(dir.path().join(path), text).unwrap();
        }
        let ws = Workspace::open(dir.path()).unwrap();
        (dir, ws)
    }

    /// Sections are planned in order: a later section for the same file patches what the
    /// earlier one made of it, and a later section for another file does not see it; `before`
    /// keeps the bytes as first read.
    #[test]
    fn later_sections_see_earlier_results() {
        let (dir, ws) = workspace(&[("a.txt", "one\ntwo\nthree\n"), ("b.txt", "b\n")]);
        let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n\
                     --- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-b\n+B\n\
                     --- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n";
        let report = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap();
        assert!(report.all_applied(), "{}", report.summary());
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        assert_eq!(read("a.txt"), "one\n2\nthree\n");
        assert_eq!(read("b.txt"), "B\n");
        assert_eq!(
            report.before["a.txt"].as_deref(),
            Some(&b"one\ntwo\nthree\n"[..])
        );
    }

    /// A file renamed by one section is patched at its new path by a later one, and its old
    /// path no longer exists for the plan.
    #[test]
    fn a_renamed_file_is_patched_at_its_new_path() {
        let (dir, ws) = workspace(&[("old.txt", "x\ny\n")]);
        let patch = "diff --git a/old.txt b/new.txt\nsimilarity index 100%\nrename from old.txt\nrename to new.txt\n\
                     --- a/new.txt\n+++ b/new.txt\n@@ -1,2 +1,2 @@\n x\n-y\n+Y\n";
        let report = apply_patch(&ws, patch, &ApplyPatchOptions::default()).unwrap();
        assert!(report.all_applied(), "{}", report.summary());
        assert!(!dir.path().join("old.txt").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("new.txt")).unwrap(),
            "x\nY\n"
        );
    }
}
