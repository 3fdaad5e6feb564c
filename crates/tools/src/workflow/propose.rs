//! `propose_edit`: turn a regex replacement over a glob scope, or any patch text the engine
//! reads, into a stored patch — planned in memory against the current files, never written.
//!
//! The same planner runs again at apply time ([`plan_patch`]), on files whose sha is checked to
//! be unchanged, so what is applied is exactly what was shown.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use lspedit_engine::{
    ApplyOptions, DiffOptions, Document, FileAction, FileChange, Patch, PatchFormat,
    apply_file_patch, check_text, classify_patch_operations, parse_patch, unified_diff,
};

use super::model::{
    ChangeKind, FileProblem, Pipeline, ProposeStats, ProposedFile, StageReport, affected,
};
use super::scan;
use super::store::{STORE_VERSION, StoredPatch, is_valid_label, patch_id, step_evidence_id};
use super::util::{now_ms, show_sha, state_sha};
use crate::agent::WrittenFile;
use crate::commit::CommitUnit;
use crate::error::{Reason, ToolError};
use crate::patch::{FileReport, FileStatus};
use crate::truncation::ExcerptSet;
use crate::workspace::Workspace;

/// Where a proposal comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProposeSource {
    /// Replace every match of `pattern` (Rust `regex` syntax; `$1`, `${name}` in the
    /// replacement) in the files of `scope` (globs; every file when empty).
    Regex {
        pattern: String,
        replacement: String,
        scope: Vec<String>,
    },
    /// Any patch text the engine reads (unified, git, Codex envelope; anchors allowed).
    Patch { text: String },
}

/// A `propose_edit` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposeRequest {
    pub source: ProposeSource,
    /// base_sha the caller believes files have (e.g. from the model's `touched_files`); any
    /// difference is refused as `sha_mismatch`.
    pub expected_base_shas: BTreeMap<String, String>,
    /// A regex proposal with no scope searches only this language's files (`rust`,
    /// `typescript`, `python`, ...; see [`language_globs`](crate::workflow::language_globs)).
    /// Ignored when a scope is given and for patch text.
    pub language: Option<String>,
    /// The caller's task and step ids (1–64 letters, digits, `-`). With both, the evidence is
    /// named `diff_<taskId>_<stepId>_<ms>.*` instead of by the patch id, and the step id names
    /// the step in the apply's events.
    pub task_id: Option<String>,
    pub step_id: Option<String>,
    /// The excerpts selected as the model's context for this step, recorded as
    /// `context_<stepId>_<ms>.json` (`<patch id>` for the step id when none is given).
    pub context: Option<ExcerptSet>,
}

impl ProposeRequest {
    pub fn regex(
        pattern: impl Into<String>,
        replacement: impl Into<String>,
        scope: &[&str],
    ) -> ProposeRequest {
        ProposeRequest {
            source: ProposeSource::Regex {
                pattern: pattern.into(),
                replacement: replacement.into(),
                scope: scope.iter().map(|s| (*s).to_string()).collect(),
            },
            expected_base_shas: BTreeMap::new(),
            language: None,
            task_id: None,
            step_id: None,
            context: None,
        }
    }

    pub fn patch(text: impl Into<String>) -> ProposeRequest {
        ProposeRequest {
            source: ProposeSource::Patch { text: text.into() },
            expected_base_shas: BTreeMap::new(),
            language: None,
            task_id: None,
            step_id: None,
            context: None,
        }
    }

    /// Search only `language`'s files when the regex has no scope.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.language = Some(language.into());
        self
    }

    /// Name the step (and, with a task id, the evidence) after the caller's ids.
    pub fn with_step(mut self, task_id: Option<&str>, step_id: impl Into<String>) -> Self {
        self.task_id = task_id.map(str::to_string);
        self.step_id = Some(step_id.into());
        self
    }

    /// Record the excerpts selected as the model's context.
    pub fn with_context(mut self, excerpts: ExcerptSet) -> Self {
        self.context = Some(excerpts);
        self
    }

    /// Require `path` to have `base_sha` now.
    pub fn with_base_sha(mut self, path: impl Into<String>, base_sha: impl Into<String>) -> Self {
        self.expected_base_shas.insert(path.into(), base_sha.into());
        self
    }
}

/// The result of `propose_edit`: nothing was changed on disk except the patch store, the
/// evidence and the event log under `.lspedit/`.
#[derive(Debug, Clone)]
pub struct Proposal {
    pub patch_id: String,
    /// The unified diff of the change, for review.
    pub diff: String,
    pub files: Vec<ProposedFile>,
    /// Every path the patch reads or writes → its base_sha (`None`: does not exist yet).
    pub base_shas: BTreeMap<String, Option<String>>,
    pub stats: ProposeStats,
    pub evidence_id: String,
    pub summary: String,
}

impl Proposal {
    /// The proposal of a stored patch, with `diff` planned from its patch text (never read from
    /// the store).
    pub(crate) fn from_stored(p: &StoredPatch, diff: String) -> Proposal {
        Proposal {
            patch_id: p.patch_id.clone(),
            diff,
            files: p.files.clone(),
            base_shas: p.base_shas.clone(),
            stats: p.stats,
            evidence_id: p.evidence_id().to_string(),
            summary: p.summary.clone(),
        }
    }

    /// Every path the proposal would change, sorted (both ends of a rename).
    pub fn affected_files(&self) -> Vec<String> {
        affected(&self.files)
    }

    /// What the model reads.
    pub fn llm_content(&self) -> String {
        let mut s = format!(
            "Proposed {}: {}. Nothing was changed; review the diff, then apply it with apply_edit(\"{}\").",
            self.patch_id, self.summary, self.patch_id
        );
        let problems: Vec<&ProposedFile> =
            self.files.iter().filter(|f| f.problem.is_some()).collect();
        if !problems.is_empty() {
            s.push_str(&format!(
                "\n\n{} file(s) would be refused (a per_file apply applies the others; all_or_nothing applies none):",
                problems.len()
            ));
            for f in problems {
                if let Some(p) = &f.problem {
                    s.push_str(&format!("\nFAILED {}: {}: {}", f.path, p.reason, p.message));
                }
            }
        }
        s.push_str("\n\n");
        s.push_str(&self.diff);
        s
    }
}

/// A proposal to store, and its reviewable diff (planned from the patch text, not stored).
#[derive(Debug)]
pub(crate) struct Built {
    pub stored: StoredPatch,
    pub diff: String,
}

/// A refused proposal, with what the evidence needs.
#[derive(Debug)]
pub(crate) struct Refused {
    pub error: ToolError,
    pub source: &'static str,
    pub raw: String,
    pub stages: Vec<StageReport>,
    pub stats: ProposeStats,
    pub files: Vec<ProposedFile>,
}

/// A patch planned against the current files.
#[derive(Debug)]
pub(crate) struct PatchPlan {
    /// One per section that changes something or fails, in patch order.
    pub files: Vec<ProposedFile>,
    /// Rendered unified diff of the sections that apply.
    pub diff: String,
    /// Every path the patch reads or writes → its bytes now (`None`: absent).
    pub bases: BTreeMap<String, Option<Vec<u8>>>,
    /// The writes, grouped into units that succeed or fail together.
    pub units: Vec<CommitUnit>,
    /// The engine's report of each section that changes something or fails, by its
    /// workspace-relative path (summary lines and live-sync anchors).
    pub reports: Vec<FileReport>,
    /// Content-written text files, for the diagnostics feedback.
    pub written: Vec<WrittenFile>,
}

/// The workspace-relative form of a path a patch names (symlinks inside resolved), refusing
/// paths outside the workspace and (`protected_path`) inside lspedit's or a version-control
/// system's own state.
pub(crate) fn key(ws: &Workspace, path: &str) -> Result<String, ToolError> {
    resolve_key(ws, path).map(|(rel, _)| rel)
}

/// [`key`] and the absolute path it resolves to.
fn resolve_key(ws: &Workspace, path: &str) -> Result<(String, PathBuf), ToolError> {
    // The workspace's one protected-path rule (the same refusal as the tools').
    let abs = ws.check_writable(path)?;
    let rel = ws.display_path(&abs);
    Ok((rel, abs))
}

fn kind_of(change: &FileChange) -> ChangeKind {
    match change {
        FileChange::Add { .. } => ChangeKind::Create,
        FileChange::Delete { .. } => ChangeKind::Delete,
        FileChange::Update {
            move_to: Some(_), ..
        } => ChangeKind::Rename,
        FileChange::Update { .. } => ChangeKind::Modify,
    }
}

fn is_text(b: &[u8]) -> bool {
    check_text(b).is_ok() && std::str::from_utf8(b).is_ok()
}

/// The reviewable diff of one section.
fn render(
    kind: ChangeKind,
    from: &str,
    to: &str,
    before: Option<&[u8]>,
    after: Option<&[u8]>,
) -> String {
    if !before.is_none_or(is_text) || !after.is_none_or(is_text) {
        return format!("diff --git a/{from} b/{to}\nBinary files a/{from} and b/{to} differ\n");
    }
    let text = |b: Option<&[u8]>| {
        b.map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    let (old, new) = (text(before), text(after));
    let opts = DiffOptions::default();
    match kind {
        ChangeKind::Create => {
            let d = unified_diff("", &new, None, Some(to), &opts);
            if d.is_empty() {
                format!(
                    "diff --git a/{to} b/{to}\nnew file mode 100644\n--- /dev/null\n+++ b/{to}\n"
                )
            } else {
                d
            }
        }
        ChangeKind::Delete => {
            let d = unified_diff(&old, "", Some(from), None, &opts);
            if d.is_empty() {
                format!(
                    "diff --git a/{from} b/{from}\ndeleted file mode 100644\n--- a/{from}\n+++ /dev/null\n"
                )
            } else {
                d
            }
        }
        ChangeKind::Rename => format!(
            "diff --git a/{from} b/{to}\nrename from {from}\nrename to {to}\n{}",
            unified_diff(&old, &new, Some(from), Some(to), &opts)
        ),
        ChangeKind::Modify => unified_diff(&old, &new, Some(from), Some(to), &opts),
    }
}

fn line_count(bytes: Option<&[u8]>) -> usize {
    bytes
        .and_then(|b| Document::from_bytes(b).ok())
        .map_or(0, |d| d.len())
}

/// Plan `patch` against the workspace as it is now, with the one planner
/// ([`crate::plan::plan_sections`]): per-section outcomes, the rendered diff and the commit
/// units. Nothing is written. `Err` for a cut-off patch, a path outside the workspace or in a
/// protected directory (a proposal is refused whole then: there is nothing to review), or an
/// unreadable file.
pub(crate) fn plan_patch(
    ws: &Workspace,
    patch: &Patch,
    engine: &ApplyOptions,
) -> Result<PatchPlan, ToolError> {
    let all: Vec<usize> = (0..patch.files.len()).collect();
    let planned = crate::plan::plan_sections(
        ws,
        patch,
        &all,
        engine,
        crate::patch::PatchLimits::default().max_plan_time,
    )?;
    let units = planned
        .commit_units(ws)
        .into_iter()
        .map(|(_, u)| u)
        .collect();
    let crate::plan::Planned {
        sections,
        plan,
        units: linked,
        bad_units,
    } = planned;
    let mut keys: Vec<(String, Option<String>)> = Vec::with_capacity(sections.len());
    let mut key_of: HashMap<String, String> = HashMap::new();
    let mut results = Vec::with_capacity(sections.len());
    for (fp, section) in patch.files.iter().zip(sections) {
        let Some(k) = section.keys else {
            return Err(match section.result {
                Err(e) => e,
                Ok(_) => {
                    ToolError::new(Reason::IoError, Some(fp.path()), "the path was not planned")
                }
            });
        };
        key_of.insert(fp.path().to_string(), k.src.clone());
        if let Some(n) = fp.new_path() {
            key_of.insert(
                n.to_string(),
                k.dst.clone().unwrap_or_else(|| k.src.clone()),
            );
        }
        let result = match section.result {
            Ok(_) if bad_units.contains(&linked.of(&k.src)) => Err(ToolError::new(
                Reason::HunkMismatch,
                Some(&k.src),
                "another section of this patch for the same file failed, so this file is left untouched",
            )),
            r => r,
        };
        results.push(result);
        keys.push((k.src, k.dst));
    }
    let bases: BTreeMap<String, Option<Vec<u8>>> = plan.base.into_iter().collect();
    let mut state = bases.clone();
    let mut files = Vec::new();
    let mut diff = String::new();
    let mut reports = Vec::with_capacity(results.len());
    for ((fp, result), (src, dst)) in patch.files.iter().zip(results).zip(&keys) {
        let kind = kind_of(&fp.change);
        let outcome = match result {
            Err(e) => {
                files.push(ProposedFile {
                    path: src.clone(),
                    new_path: dst.clone(),
                    kind,
                    base_sha: state_sha(bases.get(src).and_then(|b| b.as_deref())),
                    new_sha: None,
                    added: 0,
                    removed: 0,
                    changes: 0,
                    problem: Some(FileProblem {
                        reason: e.reason.as_str().to_string(),
                        message: e.message.clone(),
                    }),
                });
                reports.push(FileReport {
                    path: src.clone(),
                    status: FileStatus::Failed(e),
                });
                continue;
            }
            Ok(o) => o,
        };
        let to = dst.clone().unwrap_or_else(|| src.clone());
        let before = state.get(src).cloned().flatten();
        let after = outcome.new_content.clone();
        let changed = match outcome.action {
            FileAction::Modified => outcome.content_changed,
            FileAction::Added | FileAction::Deleted | FileAction::Renamed { .. } => true,
        };
        if !changed {
            continue;
        }
        match &outcome.action {
            FileAction::Deleted => {
                state.insert(src.clone(), None);
            }
            FileAction::Renamed { .. } => {
                state.insert(src.clone(), None);
                state.insert(to.clone(), after.clone());
            }
            FileAction::Added | FileAction::Modified => {
                state.insert(to.clone(), after.clone());
            }
        }
        diff.push_str(&render(kind, src, &to, before.as_deref(), after.as_deref()));
        let removed = match kind {
            ChangeKind::Delete => outcome.removed.max(line_count(before.as_deref())),
            _ => outcome.removed,
        };
        files.push(ProposedFile {
            path: src.clone(),
            new_path: dst.clone(),
            kind,
            base_sha: state_sha(bases.get(src).and_then(|b| b.as_deref())),
            new_sha: state_sha(after.as_deref()),
            added: outcome.added,
            removed,
            changes: outcome.hunks.len().max(1),
            problem: None,
        });
        reports.push(FileReport {
            path: src.clone(),
            status: FileStatus::Applied(outcome),
        });
    }
    let mut written = Vec::new();
    for p in classify_patch_operations(patch).content_write_files {
        let Some(k) = key_of.get(&p) else {
            continue;
        };
        let (old, new) = (
            bases.get(k).cloned().flatten(),
            state.get(k).cloned().flatten(),
        );
        if let Some(new) = new.filter(|n| Some(n) != old.as_ref() && is_text(n)) {
            written.push(WrittenFile {
                path: k.clone(),
                old_text: old.and_then(|o| String::from_utf8(o).ok()),
                new_text: String::from_utf8_lossy(&new).into_owned(),
            });
        }
    }
    Ok(PatchPlan {
        files,
        diff,
        bases,
        units,
        reports,
        written,
    })
}

fn refused(
    error: ToolError,
    source: &'static str,
    raw: &str,
    pipeline: &Pipeline,
    stats: ProposeStats,
    files: Vec<ProposedFile>,
) -> Refused {
    Refused {
        error,
        source,
        raw: raw.to_string(),
        stages: pipeline.reports(),
        stats,
        files,
    }
}

/// Build the stored patch of a request (the pipeline's propose-time stages), or the refusal.
pub(crate) fn build(
    ws: &Workspace,
    req: &ProposeRequest,
    engine: &ApplyOptions,
    max_file_bytes: u64,
) -> Result<Built, Box<Refused>> {
    let mut pipeline = Pipeline::default();
    let mut stats = ProposeStats::default();
    let mut replacements: BTreeMap<String, usize> = BTreeMap::new();
    let source_name = match &req.source {
        ProposeSource::Regex { .. } => "regex",
        ProposeSource::Patch { .. } => "patch",
    };
    let raw_text = match &req.source {
        ProposeSource::Regex { .. } => "",
        ProposeSource::Patch { text } => text.as_str(),
    };
    if let Some(bad) = [&req.task_id, &req.step_id]
        .into_iter()
        .flatten()
        .find(|id| !is_valid_label(id))
    {
        let e = ToolError::new(
            Reason::InvalidDiffFormat,
            None,
            format!(
                "the task or step id `{bad}` is not 1 to 64 ASCII letters, digits or `-`; name the step with those"
            ),
        );
        pipeline.fail("parse", e.message.clone());
        return Err(Box::new(refused(
            e,
            source_name,
            raw_text,
            &pipeline,
            stats,
            vec![],
        )));
    }
    let (source, raw, describe) = match &req.source {
        ProposeSource::Regex {
            pattern,
            replacement,
            scope,
        } => {
            let language_scope = match (&req.language, scope.is_empty()) {
                (Some(lang), true) => match scan::language_globs(lang) {
                    Some(globs) => Some(globs.iter().map(|g| (*g).to_string()).collect()),
                    None => {
                        let e = ToolError::new(
                            Reason::InvalidDiffFormat,
                            None,
                            format!(
                                "the language `{lang}` is not one lspedit knows ({}); give a scope instead",
                                scan::LANGUAGES.join(", ")
                            ),
                        );
                        pipeline.fail("parse", e.message.clone());
                        return Err(Box::new(refused(e, "regex", "", &pipeline, stats, vec![])));
                    }
                },
                _ => None,
            };
            let scope: &Vec<String> = language_scope.as_ref().unwrap_or(scope);
            let describe = format!(
                "regex `{pattern}` -> `{replacement}` over {}",
                match (&language_scope, &req.language) {
                    (Some(_), Some(lang)) => format!("the {lang} files of the workspace"),
                    _ if scope.is_empty() => "the whole workspace".to_string(),
                    _ => scope.join(", "),
                }
            );
            let out = match scan::scan(ws, pattern, replacement, scope, max_file_bytes) {
                Ok(o) => o,
                Err(e) => {
                    pipeline.fail("parse", e.message.clone());
                    return Err(Box::new(refused(e, "regex", "", &pipeline, stats, vec![])));
                }
            };
            stats.files_scanned = out.files_scanned;
            stats.files_skipped = out.files_skipped;
            let mut raw = String::new();
            for f in out.changed {
                let diff = unified_diff(
                    &String::from_utf8_lossy(&f.old),
                    &f.new,
                    Some(&f.path),
                    Some(&f.path),
                    &DiffOptions::default(),
                );
                if !diff_reproduces(&diff, &f.old, f.new.as_bytes(), engine) {
                    tracing::debug!(path = %f.path, "replacement skipped: its diff does not reproduce it byte for byte");
                    stats.files_skipped += 1;
                    continue;
                }
                replacements.insert(f.path.clone(), f.replacements);
                raw.push_str(&diff);
            }
            if raw.is_empty() {
                pipeline.pass("parse", describe.clone());
                pipeline.pass("safety", "the scan stays inside the workspace");
                let msg = format!(
                    "the pattern changes nothing in the {} file(s) of the scope; check the pattern and the scope",
                    stats.files_scanned
                );
                pipeline.fail("empty", msg.clone());
                let e = ToolError::new(Reason::EmptyDiff, None, msg);
                return Err(Box::new(refused(e, "regex", "", &pipeline, stats, vec![])));
            }
            ("regex", raw, describe)
        }
        ProposeSource::Patch { text } => ("patch", text.clone(), "patch".to_string()),
    };
    let patch = match parse_patch(&raw) {
        Ok(p) => p,
        Err(e) if e.reason == lspedit_engine::Reason::EmptyDiff => {
            pipeline.pass("parse", "no file section");
            pipeline.fail("empty", e.message.clone());
            let e = ToolError::from_engine(None, e);
            return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
        }
        Err(e) => {
            pipeline.fail("parse", e.to_string());
            let e = ToolError::from_engine(None, e);
            return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
        }
    };
    let format = match patch.format {
        PatchFormat::Unified => "unified diff",
        PatchFormat::Codex => "Codex envelope",
    };
    pipeline.pass(
        "parse",
        format!("{format}, {} file section(s)", patch.files.len()),
    );
    // A mode change (git's `new mode`) is not content a person reviews in the diff: the
    // reviewed workflow refuses it (seed 000's safety check); `apply_patch` applies it.
    if let Some(fp) = patch.files.iter().find(|fp| fp.mode_change().is_some()) {
        let e = ToolError::new(
            Reason::UnsafeDiff,
            Some(fp.path()),
            format!(
                "the patch changes the file mode (patch line {}); a proposal changes content only: drop the `old mode`/`new mode` lines",
                fp.patch_line
            ),
        );
        pipeline.fail("safety", e.to_string());
        return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
    }
    for fp in &patch.files {
        for p in std::iter::once(fp.path()).chain(fp.new_path()) {
            if let Err(e) = key(ws, p) {
                pipeline.fail("safety", e.to_string());
                return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
            }
        }
    }
    pipeline.pass(
        "safety",
        "every path is inside the workspace and outside .lspedit/ and version-control state",
    );
    if req.expected_base_shas.is_empty() {
        pipeline.skip("sha_match", "no base_sha given");
    } else {
        for (path, expected) in &req.expected_base_shas {
            let now = key(ws, path)
                .and_then(|k| ws.read(&k))
                .map(|b| state_sha(b.as_deref()));
            let now = match now {
                Ok(n) => n,
                Err(e) => {
                    pipeline.fail("sha_match", e.to_string());
                    return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
                }
            };
            if now.as_deref() != Some(expected.as_str()) {
                let e = ToolError::new(
                    Reason::ShaMismatch,
                    Some(path),
                    format!(
                        "the file's base_sha is {} but the edit was made against {expected}; re-read the file and redo the edit",
                        show_sha(now.as_deref())
                    ),
                );
                pipeline.fail("sha_match", e.to_string());
                return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
            }
        }
        pipeline.pass(
            "sha_match",
            format!("{} base_sha(s) match", req.expected_base_shas.len()),
        );
    }
    pipeline.skip("scope", "checked by apply_edit against its plan");
    pipeline.skip("stale", "checked by apply_edit right before writing");
    let plan = match plan_patch(ws, &patch, engine) {
        Ok(p) => p,
        Err(e) => {
            pipeline.fail("hunk", e.to_string());
            return Err(Box::new(refused(e, source, &raw, &pipeline, stats, vec![])));
        }
    };
    let mut files = plan.files;
    for f in &mut files {
        if let Some(n) = replacements.get(&f.path) {
            f.changes = *n;
        }
    }
    let good: Vec<&ProposedFile> = files.iter().filter(|f| f.problem.is_none()).collect();
    let bad: Vec<&ProposedFile> = files.iter().filter(|f| f.problem.is_some()).collect();
    if source == "patch" {
        stats.files_scanned = patch.files.len();
    }
    stats.files_matched = good.len();
    stats.total_changes = good.iter().map(|f| f.changes).sum();
    if files.is_empty() {
        let msg = "the patch changes nothing: every section leaves its file as it is";
        pipeline.fail("empty", msg);
        pipeline.pass("hunk", "every section matches");
        let e = ToolError::new(Reason::EmptyDiff, None, msg);
        return Err(Box::new(refused(e, source, &raw, &pipeline, stats, files)));
    }
    pipeline.pass("empty", format!("{} file(s) change", good.len()));
    let problems: Vec<String> = bad
        .iter()
        .filter_map(|f| {
            f.problem
                .as_ref()
                .map(|p| format!("{}: {}: {}", f.path, p.reason, p.message))
        })
        .collect();
    if good.is_empty() {
        pipeline.fail("hunk", problems.join("; "));
        let first = bad
            .first()
            .and_then(|f| f.problem.clone().map(|p| (f.path.clone(), p)));
        let e = match first {
            Some((path, p)) => ToolError::new(
                super::util::reason_from_code(&p.reason),
                Some(&path),
                p.message,
            ),
            None => ToolError::new(Reason::HunkMismatch, None, "no section applies"),
        };
        return Err(Box::new(refused(e, source, &raw, &pipeline, stats, files)));
    } else if bad.is_empty() {
        pipeline.pass("hunk", format!("{} file(s) planned", good.len()));
    } else {
        pipeline.fail(
            "hunk",
            format!(
                "{} of {} file(s) would be refused: {}",
                bad.len(),
                files.len(),
                problems.join("; ")
            ),
        );
    }
    let (added, removed): (usize, usize) = good
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
    let mut summary = format!(
        "{} file(s) changed (+{added} -{removed}) by {describe}",
        good.len()
    );
    if source == "regex" {
        summary.push_str(&format!(
            "; {} replacement(s), {} file(s) scanned",
            stats.total_changes, stats.files_scanned
        ));
    }
    if !bad.is_empty() {
        summary.push_str(&format!("; {} file(s) would be refused", bad.len()));
    }
    let base_shas = plan
        .bases
        .iter()
        .map(|(k, v)| (k.clone(), state_sha(v.as_deref())))
        .collect();
    let created_ms = now_ms();
    let stored = StoredPatch {
        version: STORE_VERSION,
        patch_id: patch_id(created_ms, &raw, &base_shas, &summary),
        created_ms,
        source: source.to_string(),
        patch_text: raw,
        files,
        base_shas,
        stats,
        summary,
        stages: pipeline.reports(),
        step_id: req.step_id.clone(),
        evidence_id: match (&req.task_id, &req.step_id) {
            (Some(t), Some(s)) => Some(step_evidence_id(t, s, created_ms)),
            _ => None,
        },
    };
    Ok(Built {
        stored,
        diff: plan.diff,
    })
}

/// Whether applying `diff` to `old` with the engine gives exactly `new` (a regex replacement
/// that rewrites line endings or the byte-order mark cannot be carried by a diff).
fn diff_reproduces(diff: &str, old: &[u8], new: &[u8], engine: &ApplyOptions) -> bool {
    let Ok(patch) = parse_patch(diff) else {
        return false;
    };
    let [fp] = patch.files.as_slice() else {
        return false;
    };
    apply_file_patch(fp, Some(old), engine)
        .ok()
        .and_then(|o| o.new_content)
        .is_some_and(|c| c == new)
}
