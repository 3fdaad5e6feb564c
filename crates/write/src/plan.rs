//! The one multi-file planner: `apply_patch` (per file), the workflow's propose and apply (and
//! through them the truncation executor) plan patches here, so a patch fails the same way
//! whichever tool applies it.
//!
//! Sections are planned in patch order against each file's bytes, read once: a later section
//! for the same file patches what the earlier made of it, and a file moved by one section is
//! found at its new path by the next. Sections name files by identity ([`file_key`]), so
//! `src/f.txt`, `./src//f.txt` and a path through a symlinked directory are one file.
//!
//! **The failure rule.** A section cut off (`truncated_input`) refuses the whole patch: nothing
//! is written. Otherwise sections that share a file, directly or through a chain of sections
//! (a rename links its two ends), form one unit: a failed section fails its whole unit, and
//! each unit is committed or refused as a whole. Units never share a file.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use lspedit_engine::{ApplyOptions, FileAction, FileChange, FileOutcome, Patch, apply_file_patch};

use crate::commit::{CommitUnit, PathChange};
use crate::error::{Reason, ToolError};
use crate::workspace::Workspace;

/// One section as planned.
pub struct Section {
    /// Its index in the patch.
    pub index: usize,
    /// Its files; `None` when a path was refused (outside the root, protected).
    pub keys: Option<Keys>,
    pub result: Result<FileOutcome, ToolError>,
}

/// A planned pass over some sections of a patch.
pub struct Planned {
    pub sections: Vec<Section>,
    pub plan: Plan,
    pub units: Units,
    /// Units with a failed section: nothing of them may be written.
    pub bad_units: BTreeSet<usize>,
}

impl Planned {
    /// What a commit writes: the units of the healthy sections, in the order of their first
    /// section, each with its id in [`Planned::units`]. A unit takes each of its files from the
    /// bytes the plan read to its final state (unchanged files left out), contents first and
    /// deletions last (so a renamed file's content always exists somewhere), and the permission
    /// bits its sections set. A unit with nothing to write is left out.
    pub fn commit_units(&self, ws: &Workspace) -> Vec<(usize, CommitUnit)> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for s in &self.sections {
            let Some(k) = &s.keys else { continue };
            let u = self.units.of(&k.src);
            if s.result.is_err() || self.bad_units.contains(&u) || !seen.insert(u) {
                continue;
            }
            let keys = self.units.members(u);
            let mut changes: Vec<PathChange> = keys
                .iter()
                .filter_map(|&k| {
                    let old = self.plan.base.get(k).cloned().flatten();
                    let new = self.plan.state.get(k).cloned().flatten();
                    (old != new).then(|| PathChange {
                        path: k.to_string(),
                        abs: ws.root().join(k),
                        old,
                        new,
                        new_mode: None,
                        old_mode: None,
                    })
                })
                .collect();
            changes.sort_by_key(|c| c.new.is_none());
            let modes: Vec<(String, u32)> = keys
                .iter()
                .filter_map(|&k| self.plan.modes.get(k).map(|&m| (k.to_string(), m)))
                .collect();
            if !changes.is_empty() || !modes.is_empty() {
                let label = k.src.clone();
                out.push((
                    u,
                    CommitUnit {
                        label,
                        changes,
                        modes,
                    },
                ));
            }
        }
        out
    }
}

/// Paths of one call its caller has already resolved ([`Workspace::resolve`]), by the patch's
/// spelling of them: the agent's `apply_patch` resolves every path to lock its file, and the
/// plan reuses those instead of walking the names again.
pub type Resolved = HashMap<String, PathBuf>;

/// Plan the sections `indices` of `patch` against the workspace as it is now. `Err` only when
/// a section is cut off (`truncated_input`): then nothing of the patch may be applied.
/// Past `max_time` (checked between sections) the patch is refused (`too_large`, nothing
/// written). A path in `resolved` is not resolved again (its protected names are checked).
pub fn plan_sections(
    ws: &Workspace,
    patch: &Patch,
    indices: &[usize],
    engine: &ApplyOptions,
    max_time: std::time::Duration,
    resolved: &Resolved,
) -> Result<Planned, ToolError> {
    // Written to the file's resolved path: the caller's resolution, else the workspace's.
    let writable = |path: &str| -> Result<PathBuf, ToolError> {
        match resolved.get(path) {
            Some(abs) => {
                ws.check_writable_resolved(abs, path)?;
                Ok(abs.clone())
            }
            None => ws.check_writable(path),
        }
    };
    let started = std::time::Instant::now();
    let mut inodes = HashMap::new();
    let mut plan = Plan::default();
    let mut sections: Vec<Section> = Vec::new();
    for (done, &i) in indices.iter().enumerate() {
        if started.elapsed() >= max_time {
            return Err(ToolError::new(
                Reason::TooLarge,
                None,
                format!(
                    "planning this patch took longer than {} s ({done} of {} file sections planned); nothing was applied: split it into smaller patches",
                    max_time.as_secs_f64(),
                    indices.len()
                ),
            ));
        }
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
            // Each path is resolved once, here: its key, its read and its commit reuse that.
            let src_abs = if entry {
                ws.resolve_entry(src)?
            } else {
                writable(src)?
            };
            let src_key = file_key(ws, &src_abs, entry, &mut inodes);
            let (dst, dst_abs) = match &fp.change {
                FileChange::Update {
                    move_to: Some(dest),
                    ..
                } => {
                    let abs = writable(dest)?;
                    (Some(file_key(ws, &abs, false, &mut inodes)), Some(abs))
                }
                _ => (None, None),
            };
            Ok(Keys {
                src: src_key,
                dst,
                // A removed entry is read through its last component, as `Workspace::read` of
                // its name does (a symlink's target; a dangling one is refused): by name then.
                src_abs: (!entry).then_some(src_abs),
                dst_abs,
            })
        })();
        let keys = match keyed {
            Ok(k) => k,
            Err(e) => {
                sections.push(Section {
                    index: i,
                    keys: None,
                    result: Err(e),
                });
                continue;
            }
        };
        let result = plan.section(ws, fp, &keys, engine);
        sections.push(Section {
            index: i,
            keys: Some(keys),
            result,
        });
    }
    // A section found cut off means the patch text is: nothing of it is applied, whatever
    // other sections planned (the engine can only tell a cut from a mismatch when the cut
    // section is tried, so this is decided here, before anything is written).
    if let Some(cut) = sections.iter().find_map(|s| match &s.result {
        Err(e) if e.reason == Reason::TruncatedInput => Some(e.clone()),
        _ => None,
    }) {
        return Err(cut);
    }
    // Sections sharing a file succeed or fail together (transitively): one unit each.
    let mut units = Units::default();
    for k in sections.iter().filter_map(|s| s.keys.as_ref()) {
        units.join(k.all());
    }
    let bad_units: BTreeSet<usize> = sections
        .iter()
        .filter_map(|s| match (&s.keys, &s.result) {
            (Some(k), Err(_)) => Some(units.of(&k.src)),
            _ => None,
        })
        .collect();
    Ok(Planned {
        sections,
        plan,
        units,
        bad_units,
    })
}

/// A section's files: its source, and its destination when it moves the file.
pub struct Keys {
    pub src: String,
    pub dst: Option<String>,
    /// The source as resolved when it was keyed (`None` for a deletion or a rename, which act on
    /// the entry), so it is read without resolving its name again.
    pub src_abs: Option<PathBuf>,
    /// The destination as resolved when it was keyed.
    pub dst_abs: Option<PathBuf>,
}

impl Keys {
    pub fn all(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.src).chain(self.dst.as_ref())
    }
}

/// A path as a file identity: its workspace-relative form with `.`, `..`, doubled separators
/// and symlinks resolved, and, for an existing file, the first such form seen for its
/// device and inode (hard links). `abs` is the path as resolved: by [`Workspace::resolve`]
/// (or [`Workspace::check_writable`]), or with `entry` by [`Workspace::resolve_entry`], whose
/// last component is not followed: the identity of the directory entry a deletion or a rename
/// removes (a symlink itself).
pub fn file_key(
    ws: &Workspace,
    abs: &Path,
    entry: bool,
    inodes: &mut HashMap<(u64, u64), String>,
) -> String {
    let key = ws.display_path(abs);
    match crate::os::path_ident(abs, entry) {
        Some(id) => inodes.entry(id).or_insert(key).clone(),
        None => key,
    }
}

/// The files a pass plans, each read once.
#[derive(Default)]
pub struct Plan {
    /// Bytes as read, by file key (`None`: the file does not exist).
    pub base: HashMap<String, Option<Vec<u8>>>,
    /// Each file's state as the plan proceeds, by key.
    pub state: HashMap<String, Option<Vec<u8>>>,
    /// Bytes as read, by the path as the patch spells it (for display diffs).
    pub before: HashMap<String, Option<Vec<u8>>>,
    /// Permission bits a section sets (git's `new mode`), by the key of the file it leaves.
    pub modes: HashMap<String, u32>,
}

impl Plan {
    /// Read the file `key` once (`shown` as the patch spells it; `abs` as resolved, when it was
    /// resolved through its last component).
    fn load(
        &mut self,
        ws: &Workspace,
        key: &str,
        shown: &str,
        abs: Option<&Path>,
    ) -> Result<(), ToolError> {
        if !self.base.contains_key(key) {
            let bytes = match abs {
                Some(abs) => ws.read_resolved(abs, shown)?,
                None => ws.read(shown)?,
            };
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
        self.load(ws, &keys.src, src, keys.src_abs.as_deref())?;
        if let (
            Some(dst_key),
            FileChange::Update {
                move_to: Some(dest),
                ..
            },
        ) = (&keys.dst, &fp.change)
        {
            self.load(ws, dst_key, dest, keys.dst_abs.as_deref())?;
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
                // An added file is always `content_changed` (absent, then present); an
                // unchanged one keeps its state, which is already its content.
                if outcome.content_changed {
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
pub struct Units {
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

    pub fn of(&self, key: &str) -> usize {
        self.index.get(key).map_or(usize::MAX, |&i| self.root(i))
    }

    /// The keys of unit `u`, sorted.
    pub fn members(&self, u: usize) -> Vec<&str> {
        let mut v: Vec<&str> = (0..self.keys.len())
            .filter(|&i| self.root(i) == u)
            .map(|i| self.keys[i].as_str())
            .collect();
        v.sort_unstable();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rename is one unit that writes the new file before it removes the old one, so its
    /// content always exists somewhere; a failed section's unit is not committed at all.
    #[test]
    fn commit_units_write_contents_before_deletions_and_skip_failed_units() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "x\n").unwrap();
        std::fs::write(dir.path().join("c.txt"), "c\n").unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let patch = lspedit_engine::parse_patch(
            "diff --git a/a.txt b/b.txt\nsimilarity index 100%\nrename from a.txt\nrename to b.txt\n\
             diff --git a/c.txt b/c.txt\n--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-no such line\n+C\n",
        )
        .unwrap();
        let planned = plan_sections(
            &ws,
            &patch,
            &[0, 1],
            &ApplyOptions::default(),
            std::time::Duration::from_secs(60),
            &Resolved::new(),
        )
        .unwrap();
        let units = planned.commit_units(&ws);
        let [(_, unit)] = units.as_slice() else {
            panic!("one unit expected, got {}", units.len());
        };
        let order: Vec<(&str, bool)> = unit
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.new.is_some()))
            .collect();
        assert_eq!(order, [("b.txt", true), ("a.txt", false)]);
    }
}
