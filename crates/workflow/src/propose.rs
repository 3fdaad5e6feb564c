//! `propose_edit`: turn a regex replacement over a glob scope, or any patch text the engine
//! reads, into a stored patch — planned in memory against the current files, never written.
//!
//! The same planner runs again at apply time ([`plan_patch`]), on files whose sha is checked to
//! be unchanged, so what is applied is exactly what was shown.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

use lspedit_engine::{
    ApplyOptions, DiffOptions, Document, FileAction, FileChange, FileOutcome, Patch, PatchFormat,
    apply_file_patch, check_text, classify_patch_operations, parse_patch, unified_diff,
};

use super::model::{
    ChangeKind, FileProblem, Pipeline, ProposeStats, ProposedFile, Stage, StageReport, affected,
};
use super::scan;
use super::store::{STORE_VERSION, StoredPatch, is_valid_label, step_evidence_id};
use super::util::{now_ms, show_sha, state_sha};
use crate::excerpt::ExcerptSet;
use lspedit_tools::WrittenFile;
use lspedit_tools::front::{Step as Next, say};
use lspedit_tools::render::plural;
use lspedit_write::Workspace;
use lspedit_write::commit::CommitUnit;
use lspedit_write::{FileReport, FileStatus};
use lspedit_write::{Reason, ToolError};

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
    /// Only this language's files change (`rust`, `typescript`, `python`, ...; by extension,
    /// see [`language_globs`](crate::language_globs)): a regex with no scope searches
    /// them; with a scope, the scope's other files are left out; patch text naming another
    /// file is refused (`scope_violation`).
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

/// Which of a [`ProposeRequest`]'s caller ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepIdArg {
    Task,
    Step,
}

impl StepIdArg {
    fn words(self) -> &'static str {
        match self {
            StepIdArg::Task => "task id",
            StepIdArg::Step => "step id",
        }
    }
}

/// A caller's task or step id that cannot be used (see [`ProposeRequest::check_ids`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    /// Not 1 to 64 ASCII letters, digits or `-` (an id names files).
    #[error("the {} `{value}` is not 1 to 64 ASCII letters, digits or `-`", arg.words())]
    Invalid { arg: StepIdArg, value: String },
    /// A task id names the evidence only together with a step id.
    #[error("a task id names the evidence together with a step id, but no step id was given")]
    TaskWithoutStep,
}

impl ProposeRequest {
    /// The first caller id that is not 1 to 64 ASCII letters, digits or `-`.
    fn invalid_id(&self) -> Option<IdError> {
        [
            (StepIdArg::Task, &self.task_id),
            (StepIdArg::Step, &self.step_id),
        ]
        .into_iter()
        .find_map(|(arg, id)| {
            id.as_ref()
                .filter(|id| !is_valid_label(id))
                .map(|id| IdError::Invalid {
                    arg,
                    value: id.clone(),
                })
        })
    }

    /// Whether the caller's ids can name the evidence and the step: `Err` for an id that is not
    /// 1 to 64 ASCII letters, digits or `-`, or a task id without a step id (it would name
    /// nothing). The CLI and the MCP server refuse such a request, naming the argument, before
    /// anything is stored; [`Workflow::propose_edit`](crate::Workflow::propose_edit) refuses an
    /// invalid id itself (`invalid_diff_format`, with evidence of the refusal) and leaves a lone
    /// task id unused.
    pub fn check_ids(&self) -> Result<(), IdError> {
        if let Some(e) = self.invalid_id() {
            return Err(e);
        }
        if self.task_id.is_some() && self.step_id.is_none() {
            return Err(IdError::TaskWithoutStep);
        }
        Ok(())
    }

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

    /// Change only `language`'s files (see [`ProposeRequest::language`]).
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
            "Proposed {}: {}. Nothing was changed; review the diff, then apply it with {}.",
            self.patch_id,
            self.summary,
            say(&Next::ApplyProposal {
                patch_id: &self.patch_id
            })
        );
        let problems: Vec<&ProposedFile> =
            self.files.iter().filter(|f| f.problem.is_some()).collect();
        if !problems.is_empty() {
            s.push_str(&format!(
                "\n\n{} would be refused ({} applies none of the files; with {}, the others):",
                plural(problems.len(), "file", "files"),
                say(&Next::ApplyProposalName),
                say(&Next::PerFile)
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

/// A proposal to store, its reviewable diff (planned from the patch text, not stored) and the
/// plan it was made from (what a change applied at once commits).
#[derive(Debug)]
pub(crate) struct Built {
    pub stored: StoredPatch,
    pub diff: String,
    pub plan: PatchPlan,
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
/// ([`lspedit_write::plan::plan_sections`]): per-section outcomes, the rendered diff and the commit
/// units. Nothing is written. `Err` for a cut-off patch, a path outside the workspace or in a
/// protected directory (a proposal is refused whole then: there is nothing to review), or an
/// unreadable file.
pub(crate) fn plan_patch(
    ws: &Workspace,
    patch: &Patch,
    engine: &ApplyOptions,
) -> Result<PatchPlan, ToolError> {
    let all: Vec<usize> = (0..patch.files.len()).collect();
    let planned = lspedit_write::plan::plan_sections(
        ws,
        patch,
        &all,
        engine,
        lspedit_write::PatchLimits::default().max_plan_time,
        &lspedit_write::plan::Resolved::new(),
    )?;
    let units = planned
        .commit_units(ws)
        .into_iter()
        .map(|(_, u)| u)
        .collect();
    let lspedit_write::plan::Planned {
        sections,
        plan,
        units: linked,
        bad_units,
    } = planned;
    let (sections, key_of) =
        keyed_sections(patch, sections, |k| bad_units.contains(&linked.of(k)))?;
    let bases: BTreeMap<String, Option<Vec<u8>>> = plan.base.into_iter().collect();
    let mut review = Review {
        state: bases.clone(),
        bases: &bases,
        files: Vec::new(),
        diff: String::new(),
        reports: Vec::with_capacity(sections.len()),
    };
    for (fp, section) in patch.files.iter().zip(sections) {
        review.section(fp, section);
    }
    let written = written_files(patch, &key_of, &bases, &review.state);
    let Review {
        files,
        diff,
        reports,
        ..
    } = review;
    Ok(PatchPlan {
        files,
        diff,
        bases,
        units,
        reports,
        written,
    })
}

/// One planned section, named by its files' keys.
struct KeyedSection {
    src: String,
    dst: Option<String>,
    result: Result<FileOutcome, ToolError>,
}

/// Every section with its keys (a section `in_failed_unit` fails too), and each path the
/// patch names → its key. `Err` when a path was refused: a proposal is refused whole then.
fn keyed_sections(
    patch: &Patch,
    sections: Vec<lspedit_write::plan::Section>,
    in_failed_unit: impl Fn(&str) -> bool,
) -> Result<(Vec<KeyedSection>, HashMap<String, String>), ToolError> {
    let mut keyed = Vec::with_capacity(sections.len());
    let mut key_of: HashMap<String, String> = HashMap::new();
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
            Ok(_) if in_failed_unit(&k.src) => Err(ToolError::new(
                Reason::HunkMismatch,
                Some(&k.src),
                "another section of this patch for the same file failed, so this file is left untouched",
            )),
            r => r,
        };
        keyed.push(KeyedSection {
            src: k.src,
            dst: k.dst,
            result,
        });
    }
    Ok((keyed, key_of))
}

/// What a reviewer sees of a plan, built section by section: each file's state as the sections
/// proceed, the proposed files, the diff and the engine's reports.
struct Review<'a> {
    bases: &'a BTreeMap<String, Option<Vec<u8>>>,
    state: BTreeMap<String, Option<Vec<u8>>>,
    files: Vec<ProposedFile>,
    diff: String,
    reports: Vec<FileReport>,
}

impl Review<'_> {
    /// Add one section: a failed one as a refused file, one that changes something with its
    /// diff against the state the sections before it left; one that changes nothing is left out.
    fn section(&mut self, fp: &lspedit_engine::FilePatch, section: KeyedSection) {
        let KeyedSection { src, dst, result } = section;
        let kind = kind_of(&fp.change);
        let base_sha = state_sha(self.bases.get(&src).and_then(|b| b.as_deref()));
        let outcome = match result {
            Err(e) => return self.refused(src, dst, kind, base_sha, e),
            Ok(o) => o,
        };
        let changed = match outcome.action {
            FileAction::Modified => outcome.content_changed,
            FileAction::Added | FileAction::Deleted | FileAction::Renamed { .. } => true,
        };
        if !changed {
            return;
        }
        let to = dst.clone().unwrap_or_else(|| src.clone());
        let before = self.state.get(&src).cloned().flatten();
        let after = outcome.new_content.clone();
        if matches!(
            outcome.action,
            FileAction::Deleted | FileAction::Renamed { .. }
        ) {
            self.state.insert(src.clone(), None);
        }
        if outcome.action != FileAction::Deleted {
            self.state.insert(to.clone(), after.clone());
        }
        self.diff.push_str(&render(
            kind,
            &src,
            &to,
            before.as_deref(),
            after.as_deref(),
        ));
        let removed = match kind {
            ChangeKind::Delete => outcome.removed.max(line_count(before.as_deref())),
            _ => outcome.removed,
        };
        self.files.push(ProposedFile {
            path: src.clone(),
            new_path: dst,
            kind,
            base_sha,
            new_sha: state_sha(after.as_deref()),
            added: outcome.added,
            removed,
            changes: outcome.hunks.len().max(1),
            problem: None,
        });
        self.reports.push(FileReport {
            path: src,
            status: FileStatus::Applied(outcome),
        });
    }
    /// Add a section that would be refused.
    fn refused(
        &mut self,
        src: String,
        new_path: Option<String>,
        kind: ChangeKind,
        base_sha: Option<String>,
        e: ToolError,
    ) {
        self.files.push(ProposedFile {
            path: src.clone(),
            new_path,
            kind,
            base_sha,
            new_sha: None,
            added: 0,
            removed: 0,
            changes: 0,
            problem: Some(FileProblem {
                reason: e.reason,
                message: e.message.clone(),
            }),
        });
        self.reports.push(FileReport {
            path: src,
            status: FileStatus::Failed(e),
        });
    }
}

/// The content-written text files whose content changes (per `classify_patch_operations`), from
/// `bases` to `state`, for the diagnostics feedback.
fn written_files(
    patch: &Patch,
    key_of: &HashMap<String, String>,
    bases: &BTreeMap<String, Option<Vec<u8>>>,
    state: &BTreeMap<String, Option<Vec<u8>>>,
) -> Vec<WrittenFile> {
    let mut written = Vec::new();
    for p in classify_patch_operations(patch).content_write_files {
        let Some(k) = key_of.get(&p) else {
            continue;
        };
        // Borrowed here and copied once, into the texts the diagnostics provider shares.
        let (old, new) = (
            bases.get(k).and_then(Option::as_deref),
            state.get(k).and_then(Option::as_deref),
        );
        if let Some(new) = new.filter(|n| Some(*n) != old && is_text(n)) {
            written.push(WrittenFile {
                path: k.clone(),
                old_text: old.and_then(|o| std::str::from_utf8(o).ok()).map(Arc::from),
                new_text: Arc::from(&*String::from_utf8_lossy(new)),
            });
        }
    }
    written
}

/// A step of [`build`]: its result, or the proposal's refusal.
type Step<T> = Result<T, Box<Refused>>;

/// A proposal being built: the request, the pipeline's verdicts so far, the statistics and the
/// patch text, which a refusal carries to the evidence.
struct Builder<'a> {
    ws: &'a Workspace,
    req: &'a ProposeRequest,
    engine: &'a ApplyOptions,
    pipeline: Pipeline,
    stats: ProposeStats,
    /// `regex` or `patch`.
    source: &'static str,
    /// The patch text: the request's, or the diffs a regex scan produced (empty until then).
    raw: String,
}

/// Build the stored patch of a request (the pipeline's propose-time stages), or the refusal.
pub(crate) fn build(
    ws: &Workspace,
    req: &ProposeRequest,
    engine: &ApplyOptions,
    max_file_bytes: u64,
) -> Result<Built, Box<Refused>> {
    let (source, raw) = match &req.source {
        ProposeSource::Regex { .. } => ("regex", String::new()),
        ProposeSource::Patch { text } => ("patch", text.clone()),
    };
    let mut b = Builder {
        ws,
        req,
        engine,
        pipeline: Pipeline::default(),
        stats: ProposeStats::default(),
        source,
        raw,
    };
    b.check_ids()?;
    let (describe, replacements) = match &req.source {
        ProposeSource::Regex {
            pattern,
            replacement,
            scope,
        } => b.regex(pattern, replacement, scope, max_file_bytes)?,
        ProposeSource::Patch { .. } => ("patch".to_string(), BTreeMap::new()),
    };
    let patch = b.parse()?;
    b.check_language(&patch)?;
    b.check_safety(&patch)?;
    b.check_shas()?;
    b.pipeline
        .skip(Stage::Scope, "checked by apply_edit against its plan");
    b.pipeline
        .skip(Stage::Stale, "checked by apply_edit right before writing");
    let plan = match plan_patch(ws, &patch, engine) {
        Ok(p) => p,
        Err(e) => return Err(b.refuse(Stage::Hunk, e.to_string(), e, vec![])),
    };
    let files = b.judge(patch.files.len(), plan.files.clone(), &replacements)?;
    Ok(b.finish(&describe, files, plan))
}

impl Builder<'_> {
    /// Fail `stage` with `detail` and refuse the proposal with `error`.
    fn refuse(
        &mut self,
        stage: Stage,
        detail: String,
        error: ToolError,
        files: Vec<ProposedFile>,
    ) -> Box<Refused> {
        self.pipeline.fail(stage, detail);
        Box::new(Refused {
            error,
            source: self.source,
            raw: self.raw.clone(),
            stages: self.pipeline.reports(),
            stats: self.stats,
            files,
        })
    }

    /// The caller's task and step ids name files: letters, digits and `-` only.
    fn check_ids(&mut self) -> Step<()> {
        let Some(bad) = self.req.invalid_id() else {
            return Ok(());
        };
        let e = ToolError::new(
            Reason::InvalidDiffFormat,
            None,
            format!("{bad}; name the step with those"),
        );
        Err(self.refuse(Stage::Parse, e.message.clone(), e, vec![]))
    }

    /// A regex request's patch text: the scan of its scope (the language's files when it gives
    /// none), one diff per changed file that reproduces the replacement byte for byte. Returns
    /// the description of the change and the replacements per file.
    fn regex(
        &mut self,
        pattern: &str,
        replacement: &str,
        scope: &[String],
        max_file_bytes: u64,
    ) -> Step<(String, BTreeMap<String, usize>)> {
        let language_scope = self.language_scope(scope)?;
        let scope = language_scope.as_deref().unwrap_or(scope);
        let describe = format!(
            "regex `{pattern}` -> `{replacement}` over {}",
            match (&language_scope, &self.req.language) {
                (Some(_), Some(lang)) => format!("the {lang} files of the workspace"),
                (None, Some(lang)) => format!("the {lang} files of {}", scope.join(", ")),
                _ if scope.is_empty() => "the whole workspace".to_string(),
                _ => scope.join(", "),
            }
        );
        let mut out = match scan::scan(self.ws, pattern, replacement, scope, max_file_bytes) {
            Ok(o) => o,
            Err(e) => return Err(self.refuse(Stage::Parse, e.message.clone(), e, vec![])),
        };
        // A scope and a language: only the scope's files of that language change.
        if let (None, Some(lang)) = (&language_scope, &self.req.language) {
            let before = out.changed.len();
            out.changed
                .retain(|f| scan::is_language_file(lang, &f.path).unwrap_or(false));
            out.files_skipped += before - out.changed.len();
        }
        self.stats.files_scanned = out.files_scanned;
        self.stats.files_skipped = out.files_skipped;
        let mut replacements = BTreeMap::new();
        for f in out.changed {
            let diff = unified_diff(
                &String::from_utf8_lossy(&f.old),
                &f.new,
                Some(&f.path),
                Some(&f.path),
                &DiffOptions::default(),
            );
            if !diff_reproduces(&diff, &f.old, f.new.as_bytes(), self.engine) {
                tracing::debug!(path = %f.path, "replacement skipped: its diff does not reproduce it byte for byte");
                self.stats.files_skipped += 1;
                continue;
            }
            replacements.insert(f.path.clone(), f.replacements);
            self.raw.push_str(&diff);
        }
        if self.raw.is_empty() {
            self.pipeline.pass(Stage::Parse, describe);
            self.pipeline
                .pass(Stage::Safety, "the scan stays inside the workspace");
            let msg = format!(
                "the pattern changes nothing in the {} of the scope; check the pattern and the scope",
                plural(self.stats.files_scanned, "file", "files")
            );
            let e = ToolError::new(Reason::EmptyDiff, None, msg.clone());
            return Err(self.refuse(Stage::Empty, msg, e, vec![]));
        }
        Ok((describe, replacements))
    }

    /// The globs of the request's language, when a regex gives no scope (with a scope, the
    /// scan's files outside the language are dropped afterwards, in [`Builder::regex`]). An
    /// unknown language is refused either way.
    fn language_scope(&mut self, scope: &[String]) -> Step<Option<Vec<String>>> {
        let req = self.req;
        let Some(lang) = &req.language else {
            return Ok(None);
        };
        if let Some(globs) = scan::language_globs(lang) {
            if !scope.is_empty() {
                return Ok(None);
            }
            return Ok(Some(globs.iter().map(|g| (*g).to_string()).collect()));
        }
        let e = ToolError::new(
            Reason::InvalidDiffFormat,
            None,
            format!(
                "the language `{lang}` is not one lspedit knows ({}); give a scope instead",
                scan::LANGUAGES.join(", ")
            ),
        );
        Err(self.refuse(Stage::Parse, e.message.clone(), e, vec![]))
    }

    /// The patch text, parsed (`parse`; a text with no file section is `empty`).
    fn parse(&mut self) -> Step<Patch> {
        let patch = match parse_patch(&self.raw) {
            Ok(p) => p,
            Err(e) if e.reason == lspedit_engine::Reason::EmptyDiff => {
                self.pipeline.pass(Stage::Parse, "no file section");
                let detail = e.message.clone();
                return Err(self.refuse(
                    Stage::Empty,
                    detail,
                    ToolError::from_engine(None, e),
                    vec![],
                ));
            }
            Err(e) => {
                let detail = e.to_string();
                return Err(self.refuse(
                    Stage::Parse,
                    detail,
                    ToolError::from_engine(None, e),
                    vec![],
                ));
            }
        };
        let format = match patch.format {
            PatchFormat::Unified => "unified diff",
            PatchFormat::Codex => "Codex envelope",
        };
        self.pipeline.pass(
            Stage::Parse,
            format!("{format}, {} file section(s)", patch.files.len()),
        );
        Ok(patch)
    }

    /// `safety`: no mode change, every path inside the workspace and outside protected state.
    /// A request that names a language changes only that language's files: a patch section
    /// naming another file refuses the proposal (`scope_violation`, naming the file). A regex
    /// scan already kept to the language passes.
    fn check_language(&mut self, patch: &Patch) -> Step<()> {
        let Some(lang) = self.req.language.clone() else {
            return Ok(());
        };
        for fp in &patch.files {
            for p in std::iter::once(fp.path()).chain(fp.new_path()) {
                match scan::is_language_file(&lang, p) {
                    Some(true) => {}
                    Some(false) => {
                        let e = ToolError::new(
                            Reason::ScopeViolation,
                            Some(p),
                            format!(
                                "the patch changes {p} (patch line {}), which is not a {lang} file, but the proposal is limited to language `{lang}`; drop that section or the language",
                                fp.patch_line
                            ),
                        );
                        return Err(self.refuse(Stage::Scope, e.to_string(), e, vec![]));
                    }
                    None => {
                        let e = ToolError::new(
                            Reason::InvalidDiffFormat,
                            None,
                            format!(
                                "the language `{lang}` is not one lspedit knows ({}); leave it out",
                                scan::LANGUAGES.join(", ")
                            ),
                        );
                        return Err(self.refuse(Stage::Parse, e.message.clone(), e, vec![]));
                    }
                }
            }
        }
        Ok(())
    }

    fn check_safety(&mut self, patch: &Patch) -> Step<()> {
        // A mode change (git's `new mode`) is not content a person reviews in the diff: the
        // reviewed workflow refuses it (seed 000's safety check); `apply_patch` applies it. A
        // new file's plain `new file mode 100644` (how an empty file's creation is written, as
        // a server's `create` is) changes no mode: the file gets the usual one.
        let plain_creation = |fp: &lspedit_engine::FilePatch| {
            matches!(fp.change, lspedit_engine::FileChange::Add { .. })
                && fp.new_mode == Some(0o100644)
        };
        if let Some(fp) = patch
            .files
            .iter()
            .find(|fp| fp.mode_change().is_some() && !plain_creation(fp))
        {
            let e = ToolError::new(
                Reason::UnsafeDiff,
                Some(fp.path()),
                format!(
                    "the patch changes the file mode (patch line {}); a proposal changes content only: drop the `old mode`/`new mode` lines",
                    fp.patch_line
                ),
            );
            return Err(self.refuse(Stage::Safety, e.to_string(), e, vec![]));
        }
        for fp in &patch.files {
            for p in std::iter::once(fp.path()).chain(fp.new_path()) {
                if let Err(e) = key(self.ws, p) {
                    return Err(self.refuse(Stage::Safety, e.to_string(), e, vec![]));
                }
            }
        }
        self.pipeline.pass(
            Stage::Safety,
            "every path is inside the workspace and outside .lspedit/ and version-control state",
        );
        Ok(())
    }

    /// `sha_match`: every base_sha the caller gave is the file's now.
    fn check_shas(&mut self) -> Step<()> {
        let (ws, expected_shas) = (self.ws, &self.req.expected_base_shas);
        if expected_shas.is_empty() {
            self.pipeline.skip(Stage::ShaMatch, "no base_sha given");
            return Ok(());
        }
        for (path, expected) in expected_shas {
            let now = key(ws, path)
                .and_then(|k| ws.read(&k))
                .map(|b| state_sha(b.as_deref()));
            let now = match now {
                Ok(n) => n,
                Err(e) => return Err(self.refuse(Stage::ShaMatch, e.to_string(), e, vec![])),
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
                return Err(self.refuse(Stage::ShaMatch, e.to_string(), e, vec![]));
            }
        }
        self.pipeline.pass(
            Stage::ShaMatch,
            format!("{} base_sha(s) match", expected_shas.len()),
        );
        Ok(())
    }

    /// `empty` and `hunk` on the planned files (of `sections` sections), and the statistics.
    /// Refused when nothing changes or every file would be refused.
    fn judge(
        &mut self,
        sections: usize,
        mut files: Vec<ProposedFile>,
        replacements: &BTreeMap<String, usize>,
    ) -> Step<Vec<ProposedFile>> {
        for f in &mut files {
            if let Some(n) = replacements.get(&f.path) {
                f.changes = *n;
            }
        }
        let good: Vec<&ProposedFile> = files.iter().filter(|f| f.problem.is_none()).collect();
        let bad: Vec<&ProposedFile> = files.iter().filter(|f| f.problem.is_some()).collect();
        if self.source == "patch" {
            self.stats.files_scanned = sections;
        }
        self.stats.files_matched = good.len();
        self.stats.total_changes = good.iter().map(|f| f.changes).sum();
        if files.is_empty() {
            let msg = "the patch changes nothing: every section leaves its file as it is";
            self.pipeline.pass(Stage::Hunk, "every section matches");
            let e = ToolError::new(Reason::EmptyDiff, None, msg);
            return Err(self.refuse(Stage::Empty, msg.to_string(), e, files));
        }
        self.pipeline.pass(
            Stage::Empty,
            format!("{} change", plural(good.len(), "file", "files")),
        );
        let problems: Vec<String> = bad
            .iter()
            .filter_map(|f| {
                f.problem
                    .as_ref()
                    .map(|p| format!("{}: {}: {}", f.path, p.reason, p.message))
            })
            .collect();
        if good.is_empty() {
            let e = match bad.first().and_then(|f| f.problem.as_ref().map(|p| (f, p))) {
                Some((f, p)) => ToolError::new(p.reason, Some(&f.path), p.message.clone()),
                None => ToolError::new(Reason::HunkMismatch, None, "no section applies"),
            };
            return Err(self.refuse(Stage::Hunk, problems.join("; "), e, files));
        } else if bad.is_empty() {
            self.pipeline.pass(
                Stage::Hunk,
                format!("{} planned", plural(good.len(), "file", "files")),
            );
        } else {
            let detail = format!(
                "{} of {} would be refused: {}",
                bad.len(),
                plural(files.len(), "file", "files"),
                problems.join("; ")
            );
            self.pipeline.fail(Stage::Hunk, detail);
        }
        Ok(files)
    }

    /// The stored patch: its summary, the base_sha of every path it reads (`bases`); the store
    /// gives it its id when it signs it (`PatchStore::save`).
    fn finish(self, describe: &str, files: Vec<ProposedFile>, plan: PatchPlan) -> Built {
        let summary = self.summary(describe, &files);
        let base_shas = plan
            .bases
            .iter()
            .map(|(k, v)| (k.clone(), state_sha(v.as_deref())))
            .collect();
        let created_ms = now_ms();
        let req = self.req;
        let stored = StoredPatch {
            version: STORE_VERSION,
            patch_id: String::new(),
            created_ms,
            source: self.source.to_string(),
            patch_text: self.raw,
            files,
            base_shas,
            stats: self.stats,
            summary,
            stages: self.pipeline.reports(),
            step_id: req.step_id.clone(),
            evidence_id: match (&req.task_id, &req.step_id) {
                (Some(t), Some(s)) => Some(step_evidence_id(t, s, created_ms)),
                _ => None,
            },
        };
        Built {
            stored,
            diff: plan.diff.clone(),
            plan,
        }
    }

    /// `3 file(s) changed (+4 -2) by <describe>`, with the regex's counts and the refused files.
    fn summary(&self, describe: &str, files: &[ProposedFile]) -> String {
        let good: Vec<&ProposedFile> = files.iter().filter(|f| f.problem.is_none()).collect();
        let bad = files.len() - good.len();
        let (added, removed): (usize, usize) = good
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        let mut summary = format!(
            "{} changed (+{added} -{removed}) by {describe}",
            plural(good.len(), "file", "files")
        );
        if self.source == "regex" {
            summary.push_str(&format!(
                "; {}, {} scanned",
                plural(self.stats.total_changes, "replacement", "replacements"),
                plural(self.stats.files_scanned, "file", "files")
            ));
        }
        if bad > 0 {
            summary.push_str(&format!(
                "; {} would be refused",
                plural(bad, "file", "files")
            ));
        }
        summary
    }
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
