//! The tools an agent calls — `read_file`, `edit`, `write_file`, `apply_patch` — composed from
//! the engine, the workspace and a diagnostics provider (docs/design.md §6–§7).
//!
//! Order of work for every writing tool: take the file's lock, read, compute, write atomically,
//! build the success message, then (for text files with a configured server) ask for diagnostics
//! and append them. A failing, hung or missing provider only means no diagnostics block.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use lspedit_engine::{
    ApplyOptions, Document, FileAction, FileOutcome, MatchStrategy, ViewOptions, check_text,
    hashline_view, line_map, search_replace_bytes,
};

use crate::baselines::Baselines;
use crate::diagnostics::{
    self, CheckError, Diagnostic, DiagnosticsConfig, DiagnosticsMode, DiagnosticsProvider,
    DiagnosticsStatus, Feedback, FileDiagnosticsStatus,
};
use crate::render;
use lspedit_lsp::{ChangedFile, OthersWait};
use lspedit_write::plan::Resolved;
use lspedit_write::{ApplyPatchOptions, FileReport, FileStatus, PatchLimits, apply_resolved};
use lspedit_write::{Reason, ToolError, WriteGate, write_planned};
use lspedit_write::{Workspace, base_sha};

/// What a tool returns. `llm_content` is what the model reads; `display` is a short summary with
/// a unified diff for a person; `files` the per-file report; `done` the typed facts of a
/// one-file tool. Both texts are rendered from the typed fields by [`crate::render`].
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub llm_content: String,
    pub display: String,
    pub files: Vec<FileReport>,
    pub is_error: bool,
    /// The reason code of a refusal: of the whole call, or of the first refused file when the
    /// others applied. `None` on success.
    pub reason: Option<Reason>,
    /// Diagnostics status of every content-written text file the call asked diagnostics for,
    /// in path order (`checked`, `timed_out`, `no_server`, `failed`; docs/design.md §7). Empty when
    /// nothing was asked (no provider, diagnostics off, binary files, refusals).
    pub diagnostics: Vec<FileDiagnosticsStatus>,
    /// What `read_file`, `edit` or `write_file` did (the patching tools report theirs in
    /// `files`); `None` for every other tool and for a refusal.
    pub done: Option<Done>,
}

/// The typed facts of a successful one-file tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Done {
    Read(ReadReport),
    Edited(EditReport),
    Wrote(WriteFileReport),
}

impl ToolResult {
    /// The result of a refused or failed call: `Error: ` and the error, no files.
    pub fn error(e: &ToolError) -> ToolResult {
        let text = render::refusal(e);
        ToolResult {
            reason: Some(e.reason),
            ..ToolResult::text(text.clone(), text, true)
        }
    }

    /// A result that is only text (the surfaces above the tools word their own results):
    /// no files, no diagnostics statuses, no reason.
    pub fn text(llm_content: String, display: String, is_error: bool) -> ToolResult {
        ToolResult {
            llm_content,
            display,
            files: Vec::new(),
            is_error,
            reason: None,
            diagnostics: Vec::new(),
            done: None,
        }
    }
}

/// What `read_file` showed of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadReport {
    /// Workspace-relative path, as shown.
    pub path: String,
    /// base_sha of the bytes the view was made from.
    pub base_sha: String,
    /// Lines in the file.
    pub total_lines: usize,
    /// First line shown, 1-based.
    pub offset: usize,
    /// The most lines the view could show.
    pub limit: usize,
    /// Lines actually shown.
    pub shown: usize,
}

impl ReadReport {
    /// More lines follow the view.
    pub fn more(&self) -> bool {
        self.offset - 1 + self.shown < self.total_lines
    }
}

/// What `edit` replaced in its one file (the fresh lines are the file's [`FileOutcome::sync`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditReport {
    /// Workspace-relative path, as shown.
    pub path: String,
    /// Places replaced.
    pub count: usize,
    /// First line (1-based, in the new text) of each replacement.
    pub lines: Vec<usize>,
    /// How `old_text` was found.
    pub strategy: MatchStrategy,
}

/// The one file `write_file` wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteFileReport {
    /// Workspace-relative path, as shown.
    pub path: String,
    /// The file did not exist before (else it was overwritten).
    pub created: bool,
    /// Lines of the content written.
    pub lines: usize,
    /// Bytes of the content written.
    pub bytes: usize,
    /// The content is not text (a binary extension, or bytes the engine refuses as text): no
    /// diff is shown and no diagnostics asked.
    pub binary: bool,
}

/// The diagnostics part of a writing tool's result: the text to append (each block preceded by
/// a blank line; empty when there is nothing to report), each file's status, and each written
/// file's block as it stands in `text`, by path (for a surface that shows files one by one).
#[derive(Debug, Clone, Default)]
pub struct DiagnosticsFeedback {
    pub text: String,
    pub statuses: Vec<FileDiagnosticsStatus>,
    pub blocks: BTreeMap<String, String>,
}

/// A file a multi-file operation wrote: workspace-relative path, text before (if it existed) and
/// after. The texts are shared with the diagnostics provider and the server's document, so
/// each is copied once, from the written bytes, on its way to the server.
#[derive(Debug, Clone)]
pub struct WrittenFile {
    pub path: String,
    pub old_text: Option<Arc<str>>,
    pub new_text: Arc<str>,
}

/// Configuration of the tools.
#[derive(Debug, Clone)]
pub struct ToolsConfig {
    pub engine: ApplyOptions,
    pub diagnostics: DiagnosticsConfig,
    /// Refuse a write or edit (`stale_context`) when the agent read the file and it changed on
    /// disk since.
    pub read_guard: bool,
    /// Default number of lines `read_file` shows when no limit is given.
    pub default_read_limit: usize,
    /// Bounds on `apply_patch`'s input (`too_large` past them).
    pub patch_limits: PatchLimits,
    /// Whether the writing tools (`edit`, `write_file`, `apply_patch`) put the unified diff of
    /// the change into [`ToolResult::display`]. Rendering it costs a scan of the old and new
    /// texts (for `write_file`, a diff of the whole file), so a caller that never shows it (the
    /// CLI without `--diff`) turns it off; `display` then holds the per-file summary lines.
    pub display_diff: bool,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        ToolsConfig {
            engine: ApplyOptions::default(),
            diagnostics: DiagnosticsConfig::default(),
            read_guard: false,
            default_read_limit: 2000,
            patch_limits: PatchLimits::default(),
            display_diff: true,
        }
    }
}

/// The agent tools over one workspace.
pub struct Tools {
    ws: Workspace,
    provider: Option<Arc<dyn DiagnosticsProvider>>,
    config: ToolsConfig,
    locks: Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>,
    /// base_sha of each file as the agent last saw it (read, or written by these tools).
    seen: Mutex<HashMap<PathBuf, String>>,
    /// What the session has seen and told of each file's diagnostics.
    baselines: Mutex<Baselines>,
    /// The languages whose missing server the full feedback has named (once each).
    told_missing: Mutex<std::collections::BTreeSet<String>>,
}

impl std::fmt::Debug for Tools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tools")
            .field("root", &self.ws.root())
            .field("diagnostics", &self.provider.is_some())
            .finish()
    }
}

/// The writing tools of a [`Tools`] with every write passing the operator's gate
/// ([`Tools::gated`]): the same tools, the same results, and a refusal of the gate as the
/// tool's error with nothing written.
pub struct Gated<'a> {
    tools: &'a Tools,
    gate: Option<&'a dyn WriteGate>,
}

impl Gated<'_> {
    /// [`Tools::edit`] under the gate.
    pub fn edit(
        &self,
        path: &str,
        old_text: &str,
        new_text: &str,
        replace_all: bool,
    ) -> ToolResult {
        let began = Instant::now();
        let r = self
            .tools
            .edit_inner(path, old_text, new_text, replace_all, self.gate);
        self.tools.with_late(r, began)
    }

    /// [`Tools::write_file`] under the gate.
    pub fn write_file(&self, path: &str, content: &str) -> ToolResult {
        let began = Instant::now();
        let r = self.tools.write_file_inner(path, content, self.gate);
        self.tools.with_late(r, began)
    }

    /// [`Tools::apply_patch`] under the gate.
    pub fn apply_patch(&self, patch_text: &str) -> ToolResult {
        let began = Instant::now();
        let r = self.tools.apply_patch_inner(patch_text, self.gate);
        self.tools.with_late(r, began)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// File extensions that are binary whatever their content says.
const BINARY_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "bmp", "ico", "webp", "pdf", "zip", "gz", "tgz", "bz2", "xz",
    "7z", "tar", "jar", "class", "exe", "dll", "so", "dylib", "a", "o", "obj", "wasm", "bin",
    "dat", "db", "sqlite", "woff", "woff2", "ttf", "otf", "mp3", "mp4", "wav", "ogg", "mov", "avi",
    "pyc",
];

fn has_binary_extension(path: &str) -> bool {
    Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| BINARY_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

impl Tools {
    /// Tools over `ws`, with diagnostics from `provider` when given.
    pub fn new(
        ws: Workspace,
        provider: Option<Arc<dyn DiagnosticsProvider>>,
        config: ToolsConfig,
    ) -> Tools {
        Tools {
            ws,
            provider,
            config,
            locks: Mutex::new(HashMap::new()),
            seen: Mutex::new(HashMap::new()),
            baselines: Mutex::new(Baselines::default()),
            told_missing: Mutex::default(),
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.ws
    }

    pub fn config(&self) -> &ToolsConfig {
        &self.config
    }

    /// The in-process lock of `abs`: the workflow's commits take it like the tools' writes do.
    pub fn file_lock(&self, abs: &Path) -> Arc<Mutex<()>> {
        Arc::clone(lock(&self.locks).entry(abs.to_path_buf()).or_default())
    }

    /// Record the content the agent now knows `abs` to have, for the read guard (nothing to
    /// record without it: hashing every written file is not free on large files).
    pub fn remember(&self, abs: &Path, bytes: &[u8]) {
        if self.config.read_guard {
            lock(&self.seen).insert(abs.to_path_buf(), base_sha(bytes));
        }
    }

    /// The read-before-write guard: the compare-and-swap on the base_sha the agent last saw.
    fn guard(&self, path: &str, abs: &Path, current: Option<&[u8]>) -> Result<(), ToolError> {
        if !self.config.read_guard {
            return Ok(());
        }
        let seen = lock(&self.seen).get(abs).cloned();
        if let Some(seen) = seen {
            let now = current.map_or_else(|| "(deleted)".to_string(), base_sha);
            if now != seen {
                return Err(ToolError::new(
                    Reason::StaleContext,
                    Some(path),
                    format!(
                        "the file changed on disk since you read it (base_sha {seen}, now {now}); re-read it and retry"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `read_file`: the hashline view of a range; warms the file's server in the background.
    pub fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> ToolResult {
        let began = Instant::now();
        let r = match self.try_read_file(path, offset, limit) {
            Ok((report, view)) => {
                let text = render::read_text(view, &report);
                let display = render::read_display(&report);
                ToolResult {
                    done: Some(Done::Read(report)),
                    ..ToolResult::text(text, display, false)
                }
            }
            Err(e) => ToolResult::error(&e),
        };
        self.with_late(r, began)
    }

    /// [`Tools::read_file`]'s facts and bare hashline view (its text is
    /// [`render::read_text`] of the two), its refusal as the error, and without the late
    /// answers of earlier checks in front: for a caller that reports its own way (the CLI).
    pub fn try_read_file(
        &self,
        path: &str,
        offset: Option<usize>,
        limit: Option<usize>,
    ) -> Result<(ReadReport, String), ToolError> {
        let abs = self.ws.resolve(path)?;
        let shown = self.ws.display_path(&abs);
        let bytes = self
            .ws
            .read_resolved(&abs, path)?
            .ok_or_else(|| ToolError::new(Reason::FileNotFound, Some(&shown), "no such file"))?;
        let doc =
            Document::from_bytes(&bytes).map_err(|e| ToolError::from_engine(Some(&shown), e))?;
        self.remember(&abs, &bytes);
        if let Some(p) = &self.provider {
            diagnostics::touch(p, &abs);
        }
        let texts = doc.texts();
        let offset = offset.unwrap_or(1).max(1);
        let limit = limit.unwrap_or(self.config.default_read_limit);
        if !texts.is_empty() && offset > texts.len() {
            return Err(offset_past_end(&shown, offset, texts.len()));
        }
        let view = hashline_view(
            &texts,
            ViewOptions {
                offset,
                limit: Some(limit),
                ..ViewOptions::default()
            },
        );
        let report = ReadReport {
            path: shown,
            base_sha: base_sha(&bytes),
            total_lines: texts.len(),
            offset,
            limit,
            shown: texts.len().saturating_sub(offset - 1).min(limit),
        };
        Ok((report, view))
    }

    /// `edit`: replace `old_text` by `new_text` (exact first, then the safe fallbacks).
    pub fn edit(
        &self,
        path: &str,
        old_text: &str,
        new_text: &str,
        replace_all: bool,
    ) -> ToolResult {
        self.gated(None).edit(path, old_text, new_text, replace_all)
    }

    /// The writing tools with every write passing `gate` first, when given (the operator's
    /// policy: limits, forbidden operations, approval; `docs/policy.md`). A refusal writes
    /// nothing and is the tool's error.
    pub fn gated<'a>(&'a self, gate: Option<&'a dyn WriteGate>) -> Gated<'a> {
        Gated { tools: self, gate }
    }

    fn edit_inner(
        &self,
        path: &str,
        old_text: &str,
        new_text: &str,
        replace_all: bool,
        gate: Option<&dyn WriteGate>,
    ) -> ToolResult {
        let abs = match self.ws.resolve(path) {
            Ok(a) => a,
            Err(e) => return ToolResult::error(&e),
        };
        let file_lock = self.file_lock(&abs);
        let _held = lock(&file_lock);
        let shown = self.ws.display_path(&abs);
        let result = (|| -> Result<(ToolResult, String, String), ToolError> {
            let missing = || {
                ToolError::new(
                    Reason::FileNotFound,
                    Some(&shown),
                    format!(
                        "no such file; create it with {}",
                        crate::front::say(&crate::front::Step::CreateFile)
                    ),
                )
            };
            // `abs` as resolved above, for the lock: not walked by name again (see
            // `Workspace::replace_resolved` for why nothing is lost).
            let current = self.ws.read_resolved(&abs, path)?.ok_or_else(missing)?;
            self.guard(&shown, &abs, Some(&current))?;
            // Planned from the bytes as read and written only if the file still holds them;
            // another writer's change in between is planned again from (bounded).
            let written = write_planned(
                &self.ws,
                &shown,
                &abs,
                Some(current),
                |bytes| {
                    // Lines borrowed from the bytes as read, the result rendered from them
                    // once: the old text is those bytes, so a large file is not re-rendered for
                    // the display diff and the diagnostics.
                    let mut r = search_replace_bytes(
                        bytes.ok_or_else(missing)?,
                        old_text,
                        new_text,
                        replace_all,
                        &self.config.engine,
                    )
                    .map_err(|e| ToolError::from_engine(Some(&shown), e))?;
                    let content = std::mem::take(&mut r.new_content);
                    Ok((content, r))
                },
                "the file kept changing on disk while this edit was being written; nothing was written: re-read it and retry",
                gate,
            )?;
            let r = written.planned;
            let not_utf8 =
                |_| ToolError::new(Reason::NotUtf8, Some(&shown), "the file is not valid UTF-8");
            let new_s = String::from_utf8(written.new).map_err(not_utf8)?;
            let old_s = String::from_utf8(written.old.ok_or_else(missing)?).map_err(not_utf8)?;
            self.remember(&abs, new_s.as_bytes());
            let report = EditReport {
                path: shown.clone(),
                count: r.count,
                lines: r.lines,
                strategy: r.strategy,
            };
            let text = render::edit_text(&report, &r.sync);
            let diff = self
                .config
                .display_diff
                .then_some((old_s.as_str(), new_s.as_str()));
            let display = render::edit_display(&report, &r.sync, diff);
            let outcome = FileOutcome {
                path: shown.clone(),
                action: FileAction::Modified,
                new_content: None,
                content_changed: true,
                hunks: Vec::new(),
                sync: r.sync,
                added: 0,
                removed: 0,
            };
            let result = ToolResult {
                files: vec![FileReport {
                    path: shown.clone(),
                    status: FileStatus::Applied(outcome),
                }],
                done: Some(Done::Edited(report)),
                ..ToolResult::text(text, display, false)
            };
            Ok((result, old_s, new_s))
        })();
        match result {
            // The texts are copied for the provider only when it will be asked.
            Ok((mut r, old_s, new_s)) if self.wants_diagnostics() => {
                let fb = self.feedback(
                    &[WrittenFile {
                        path: shown,
                        old_text: Some(old_s.into()),
                        new_text: new_s.into(),
                    }],
                    true,
                );
                r.llm_content.push_str(&fb.text);
                r.diagnostics = fb.statuses;
                r
            }
            Ok((r, _, _)) => r,
            Err(e) => ToolResult::error(&e),
        }
    }

    /// `write_file`: create or overwrite a file (parents created).
    pub fn write_file(&self, path: &str, content: &str) -> ToolResult {
        self.gated(None).write_file(path, content)
    }

    fn write_file_inner(
        &self,
        path: &str,
        content: &str,
        gate: Option<&dyn WriteGate>,
    ) -> ToolResult {
        let abs = match self.ws.resolve(path) {
            Ok(a) => a,
            Err(e) => return ToolResult::error(&e),
        };
        let file_lock = self.file_lock(&abs);
        let _held = lock(&file_lock);
        let shown = self.ws.display_path(&abs);
        let result = (|| -> Result<(ToolResult, Option<Arc<str>>, bool), ToolError> {
            // `abs` as resolved above, for the lock: not walked by name again.
            let current = self.ws.read_resolved(&abs, path)?;
            self.guard(&shown, &abs, current.as_deref())?;
            // The whole content is the model's: a change by another writer since the read only
            // changes what is overwritten (and what the report says it was), never the result.
            let old = write_planned(
                &self.ws,
                &shown,
                &abs,
                current,
                |_| Ok((content.as_bytes().to_vec(), ())),
                "the file kept changing on disk while it was being written; nothing was written: retry",
                gate,
            )?
            .old;
            self.remember(&abs, content.as_bytes());
            let report = WriteFileReport {
                path: shown.clone(),
                created: old.is_none(),
                lines: content.lines().count(),
                bytes: content.len(),
                binary: has_binary_extension(&shown) || check_text(content.as_bytes()).is_err(),
            };
            let old_text: Option<Arc<str>> = old
                .as_deref()
                .and_then(|b| std::str::from_utf8(b).ok())
                .map(Arc::from);
            let text = render::write_text(&report);
            let display = render::write_display(
                &report,
                old_text.as_deref(),
                content,
                self.config.display_diff,
            );
            let binary = report.binary;
            let result = ToolResult {
                done: Some(Done::Wrote(report)),
                ..ToolResult::text(text, display, false)
            };
            Ok((result, old_text, binary))
        })();
        match result {
            Ok((mut r, old_text, binary)) => {
                // The content is copied for the provider only when it will be asked.
                if !binary && self.wants_diagnostics() {
                    let fb = self.feedback(
                        &[WrittenFile {
                            path: shown,
                            old_text,
                            new_text: content.into(),
                        }],
                        true,
                    );
                    r.llm_content.push_str(&fb.text);
                    r.diagnostics = fb.statuses;
                }
                r
            }
            Err(e) => ToolResult::error(&e),
        }
    }

    /// `apply_patch`: every engine format, multi-file, per-file status, live sync, diagnostics
    /// for the files the patch writes content to (one block each, in path order).
    pub fn apply_patch(&self, patch_text: &str) -> ToolResult {
        self.gated(None).apply_patch(patch_text)
    }

    fn apply_patch_inner(&self, patch_text: &str, gate: Option<&dyn WriteGate>) -> ToolResult {
        let patch = match self.config.patch_limits.parse(patch_text) {
            Ok(p) => p,
            Err(e) => return ToolResult::error(&e),
        };
        // Lock every file the patch names, in path order (no lock-order inversion). Each name
        // is resolved once, here: the read guard, the plan, the commit and `remember` below use
        // this resolution. Resolving again later would not make it safer: another program can
        // change the path at any moment, and every write opens its directory without following
        // a symlink, so a stale resolution can fail a write but never move it outside the root
        // or under a protected name (checked by name again at the plan and the commit).
        let mut resolved = Resolved::new();
        for fp in &patch.files {
            for p in [Some(fp.path()), fp.new_path()].into_iter().flatten() {
                if !resolved.contains_key(p)
                    && let Ok(abs) = self.ws.resolve(p)
                {
                    resolved.insert(p.to_string(), abs);
                }
            }
        }
        let mut paths: Vec<PathBuf> = resolved.values().cloned().collect();
        paths.sort();
        paths.dedup();
        let file_locks: Vec<Arc<Mutex<()>>> = paths.iter().map(|p| self.file_lock(p)).collect();
        let _held: Vec<MutexGuard<'_, ()>> = file_locks.iter().map(|l| lock(l)).collect();

        if self.config.read_guard {
            for fp in &patch.files {
                if let Some(abs) = resolved.get(fp.path()) {
                    let current = self.ws.read_resolved(abs, fp.path()).ok().flatten();
                    if let Err(e) = self.guard(fp.path(), abs, current.as_deref()) {
                        return ToolResult::error(&e);
                    }
                }
            }
        }
        let opts = ApplyPatchOptions {
            engine: self.config.engine.clone(),
            dry_run: false,
            limits: self.config.patch_limits,
        };
        let report = match apply_resolved(&self.ws, &patch, &opts, &resolved, gate) {
            Ok(r) => r,
            Err(e) => return ToolResult::error(&e),
        };
        let mut display = report.summary();
        // Old text of the content-written files (as the plan read them), for "new" mode and
        // the display diff.
        let old_text = |path: &str| -> Option<&str> {
            let bytes = report.before.get(path)?.as_deref()?;
            std::str::from_utf8(bytes).ok()
        };
        let mut written: BTreeMap<String, WrittenFile> = BTreeMap::new();
        for f in &report.files {
            let FileStatus::Applied(o) = &f.status else {
                continue;
            };
            // The written path is one the patch names, resolved above (by the engine's spelling
            // of it, else resolved now).
            let abs = match resolved.get(&o.path) {
                Some(abs) => Ok(abs.clone()),
                None => self.ws.resolve(&o.path),
            };
            if let (Some(content), Ok(abs)) = (&o.new_content, abs) {
                self.remember(&abs, content);
                let diagnose = self.wants_diagnostics()
                    && report.classification.content_write_files.contains(&o.path)
                    && !has_binary_extension(&o.path);
                if !self.config.display_diff && !diagnose {
                    continue;
                }
                // `from_utf8` first: its validation is several times faster than the lossy
                // decoder's, and the engine's output is UTF-8 unless the file was not text.
                let new_s = match std::str::from_utf8(content) {
                    Ok(s) => Cow::Borrowed(s),
                    Err(_) => String::from_utf8_lossy(content),
                };
                let old_s = old_text(&f.path);
                if self.config.display_diff {
                    display.push_str(&render::patch_file_diff(o, &f.path, old_s, &new_s));
                }
                if diagnose {
                    written.insert(
                        o.path.clone(),
                        WrittenFile {
                            path: o.path.clone(),
                            old_text: old_s.map(Arc::from),
                            new_text: Arc::from(&*new_s),
                        },
                    );
                }
            }
        }
        let mut llm = render::patch_text(&report);
        let written: Vec<WrittenFile> = written.into_values().collect();
        let fb = self.feedback(&written, false);
        llm.push_str(&fb.text);
        let reason = report.files.iter().find_map(|f| match &f.status {
            FileStatus::Failed(e) => Some(e.reason),
            FileStatus::Applied(_) => None,
        });
        let is_error = !report.all_applied();
        ToolResult {
            reason,
            files: report.files,
            diagnostics: fb.statuses,
            ..ToolResult::text(llm, display, is_error)
        }
    }

    /// The diagnostics blocks for files a multi-file operation wrote (one block per file with
    /// errors, headed `LSP errors detected in <path>, please fix:`, in path order, then the other
    /// files the change broke), each preceded by a blank line; empty when there is nothing to
    /// report. Binary files are skipped. See [`Tools::diagnostics_feedback_with_status`].
    pub fn diagnostics_feedback(&self, written: &[WrittenFile]) -> String {
        self.feedback(written, false).text
    }

    /// [`Tools::diagnostics_feedback`] with each file's diagnostics status: all files are sent
    /// to the servers before any is checked, under one deadline for the call (the short one
    /// only when every file's server has answered before).
    pub fn diagnostics_feedback_with_status(&self, written: &[WrittenFile]) -> DiagnosticsFeedback {
        self.feedback(written, false)
    }

    /// The diagnostics of files as they are on disk (the `check` command), as one pass under
    /// one deadline: the blocks (headed `LSP errors detected in <path>, please fix:`) and each
    /// file's status. A missing or non-UTF-8 file refuses the whole call. Without a provider
    /// (or with diagnostics off) every file is `no_server`.
    pub fn check_paths(&self, paths: &[String]) -> Result<DiagnosticsFeedback, ToolError> {
        let mut written = Vec::with_capacity(paths.len());
        for path in paths {
            let abs = self.ws.resolve(path)?;
            let shown = self.ws.display_path(&abs);
            let bytes = self.ws.read_resolved(&abs, path)?.ok_or_else(|| {
                ToolError::new(Reason::FileNotFound, Some(&shown), "no such file")
            })?;
            let text = String::from_utf8(bytes).map_err(|_| {
                ToolError::new(Reason::NotUtf8, Some(&shown), "the file is not valid UTF-8")
            })?;
            written.push(WrittenFile {
                path: shown,
                old_text: None,
                new_text: text.into(),
            });
        }
        let mut fb = self.feedback_telling(&written, false, false);
        for w in &written {
            if !fb.statuses.iter().any(|s| s.path == w.path) {
                fb.statuses.push(FileDiagnosticsStatus {
                    path: w.path.clone(),
                    status: DiagnosticsStatus::NoServer,
                    detail: Some("no diagnostics provider".to_string()),
                    refused: None,
                    reported: Vec::new(),
                });
            }
        }
        fb.statuses.sort_by(|a, b| a.path.cmp(&b.path));
        fb.statuses.dedup_by(|a, b| a.path == b.path);
        Ok(fb)
    }

    /// Late answers (checks that timed out and settled since), formatted as the block that
    /// starts the next tool result, each once; `None` when none has errors. The tools prepend
    /// it to their own results; other tool surfaces (the MCP `diagnostics`, the workflow) call
    /// this to do the same.
    pub fn take_late_feedback(&self) -> Option<String> {
        self.take_late_feedback_for_call(Instant::now())
    }

    /// [`Tools::take_late_feedback`] for the result of a call that began at `call_began`: other
    /// files' late results of checks this call asked for itself are left for the next call.
    pub fn take_late_feedback_for_call(&self, call_began: Instant) -> Option<String> {
        let cfg = &self.config.diagnostics;
        let provider = self
            .provider
            .as_ref()
            .filter(|_| cfg.enabled && cfg.feedback == Feedback::Full)?;
        // A late block is true when shown: the pool hands out only results of checks asked for
        // before this call began (this call's own wait for the next) whose file still has the
        // text they were computed on; other files' errors are only those new against what the
        // session knew of the file first.
        let mut blocks: Vec<String> = diagnostics::take_late(provider, call_began)
            .into_iter()
            .filter_map(|(path, diags)| {
                let shown = self.ws.display_path(&path);
                diagnostics::block(
                    &render::late_heading(&shown),
                    &shown,
                    &diagnostics::select(&diags, cfg),
                    0,
                    cfg,
                )
            })
            .collect();
        let others = diagnostics::take_late_others(provider, call_began);
        if cfg.max_other_files > 0 {
            self.seed_outdated(provider);
        }
        if !others.is_empty() && cfg.max_other_files > 0 {
            let news = self.other_news(others, &[]);
            if let Some(section) = diagnostics::others_section(
                render::LATE_OTHER_FILES_HEADING,
                news,
                diagnostics::Coverage::default(),
                cfg,
            ) {
                blocks.push(section);
            }
        }
        (!blocks.is_empty()).then(|| blocks.join("\n\n"))
    }

    /// Of other files' diagnostics, the errors the session has not been told of yet and that
    /// were not there when it first saw the file (see `baselines.rs`), by display path; the
    /// files in `written` (this call's) are left out.
    fn other_news(
        &self,
        others: Vec<diagnostics::OtherFileDiagnostics>,
        written: &[&Path],
    ) -> BTreeMap<String, Vec<Diagnostic>> {
        let cfg = &self.config.diagnostics;
        let mut baselines = lock(&self.baselines);
        others
            .into_iter()
            .filter(|o| !written.contains(&o.path.as_path()))
            .map(|o| {
                let before = diagnostics::select(&o.before, cfg);
                let after = diagnostics::select(&o.after, cfg);
                let news = baselines.news(&o.path, &before, &after);
                (self.ws.display_path(&o.path), news)
            })
            .filter(|(_, d)| !d.is_empty())
            .collect()
    }

    /// Other files' results that no longer hold (never shown): their "before" becomes what the
    /// session knew first of the files it never saw, before any other file's errors are judged
    /// new (a later "before" can be of a state the session's change had already altered, and
    /// the errors it hid would read as new when they came back).
    fn seed_outdated(&self, provider: &Arc<dyn DiagnosticsProvider>) {
        let outdated = diagnostics::take_outdated_others(provider);
        if outdated.is_empty() {
            return;
        }
        let cfg = &self.config.diagnostics;
        let mut baselines = lock(&self.baselines);
        for o in outdated {
            baselines.seed(&o.path, &diagnostics::select(&o.before, cfg));
        }
    }

    /// `r`, the result of a call that began at `began`, with the late answers' blocks in front
    /// of its text.
    fn with_late(&self, mut r: ToolResult, began: Instant) -> ToolResult {
        if let Some(late) = self.take_late_feedback_for_call(began) {
            r.llm_content = render::with_late(&late, &r.llm_content);
        }
        r
    }

    /// Whether a write would be followed by a diagnostics request (a provider, enabled).
    fn wants_diagnostics(&self) -> bool {
        self.provider.is_some() && self.config.diagnostics.enabled
    }

    /// The diagnostics feedback of one writing call (docs/design.md §7): every written text file is
    /// sent before any is checked, one deadline for the call, a block per file with errors
    /// (`single`: the "in this file" heading of `edit` and `write_file`), then up to
    /// `max_other_files` other files with errors this change caused. A file that timed out,
    /// failed or has no server gets no text, only its status.
    fn feedback(&self, written: &[WrittenFile], single: bool) -> DiagnosticsFeedback {
        self.feedback_telling(written, single, true)
    }

    /// [`Tools::feedback`]; `tell_missing`: whether a language whose server is not installed
    /// gets its line (not for `check`, which names each unchecked file and why itself).
    fn feedback_telling(
        &self,
        written: &[WrittenFile],
        single: bool,
        tell_missing: bool,
    ) -> DiagnosticsFeedback {
        let cfg = &self.config.diagnostics;
        let Some(provider) = self.provider.as_ref().filter(|_| cfg.enabled) else {
            return DiagnosticsFeedback::default();
        };
        let mut files: Vec<(&WrittenFile, PathBuf)> = written
            .iter()
            .filter(|w| !has_binary_extension(&w.path))
            .filter_map(|w| Some((w, self.ws.resolve(&w.path).ok()?)))
            .collect();
        files.sort_by(|a, b| a.0.path.cmp(&b.0.path));
        if files.is_empty() {
            return DiagnosticsFeedback::default();
        }
        let paths: Vec<&Path> = files.iter().map(|(_, abs)| abs.as_path()).collect();
        let deadline = Instant::now() + diagnostics::budget(provider, cfg, &paths);
        // `New` mode: the old texts first (all of them, like the new ones), as the baseline.
        let before: Option<Vec<Option<Vec<Diagnostic>>>> =
            (cfg.mode == DiagnosticsMode::New).then(|| {
                let (indices, batch): (Vec<usize>, Vec<ChangedFile>) = files
                    .iter()
                    .enumerate()
                    .filter_map(|(i, (w, abs))| {
                        Some((
                            i,
                            ChangedFile {
                                path: abs.clone(),
                                text: Arc::clone(w.old_text.as_ref()?),
                                previous: None,
                            },
                        ))
                    })
                    .unzip();
                let report = diagnostics::fetch_all(
                    provider,
                    &batch,
                    deadline,
                    OthersWait::For(Duration::ZERO),
                );
                let mut out = vec![None; files.len()];
                for (i, r) in indices.into_iter().zip(report.files) {
                    out[i] = r.ok();
                }
                out
            });
        let batch: Vec<ChangedFile> = files
            .iter()
            .map(|(w, abs)| ChangedFile {
                path: abs.clone(),
                text: Arc::clone(&w.new_text),
                previous: w.old_text.clone(),
            })
            .collect();
        let seed = cfg.feedback == Feedback::Seed;
        let others_wait = if seed {
            OthersWait::For(Duration::ZERO)
        } else {
            cfg.other_files_wait
        };
        let report = diagnostics::fetch_all(provider, &batch, deadline, others_wait);
        let mut out = DiagnosticsFeedback::default();
        for (i, ((w, abs), result)) in files.iter().zip(report.files).enumerate() {
            let mut status = FileDiagnosticsStatus {
                path: w.path.clone(),
                status: DiagnosticsStatus::of(&result),
                detail: result.as_ref().err().map(ToString::to_string),
                refused: match &result {
                    Err(CheckError::Refused { reason }) => Some(reason.clone()),
                    _ => None,
                },
                reported: Vec::new(),
            };
            let after = match result {
                Ok(d) => diagnostics::select(&d, cfg),
                Err(e) => {
                    // The seed is silent here; otherwise one neutral line, so that a missing
                    // verdict is never read as a clean one.
                    let server = diagnostics::server_name(provider, abs);
                    if let Some(line) = diagnostics::missing_verdict(&w.path, server.as_deref(), &e)
                        && !seed
                    {
                        out.text.push_str("\n\n");
                        out.text.push_str(&line);
                    }
                    // A language whose server is not installed: said once per session and
                    // language, so an unchecked file does not read as a clean one.
                    if matches!(e, CheckError::NoServer)
                        && !seed
                        && tell_missing
                        && let Some(missing) = diagnostics::missing_server(provider, abs)
                        && lock(&self.told_missing).insert(missing.language.clone())
                    {
                        out.text.push_str("\n\n");
                        out.text
                            .push_str(&diagnostics::no_server_line(&w.path, &missing));
                    }
                    out.statuses.push(status);
                    continue;
                }
            };
            // Within the cap, the errors this change introduced first (not in the seed).
            let after = if seed {
                after
            } else {
                let ordered =
                    lock(&self.baselines).written(abs, w.old_text.as_deref(), &w.new_text, after);
                diagnostics::cap_first(ordered, cfg.max_per_file)
            };
            let old_diags = before.as_ref().and_then(|b| b.get(i).cloned().flatten());
            let (shown_diags, hidden) = match (old_diags, w.old_text.as_deref()) {
                (Some(old_diags), Some(old)) => diagnostics::only_new(
                    &diagnostics::select(&old_diags, cfg),
                    after,
                    &line_map(old, &w.new_text),
                ),
                _ => (after, 0),
            };
            // Only the introduced ones are shown in `New` mode: in line order.
            let shown_diags = if cfg.mode == DiagnosticsMode::New {
                diagnostics::select(&shown_diags, cfg)
            } else {
                shown_diags
            };
            let heading = render::diagnostics_heading(&w.path, single);
            if let Some(block) = diagnostics::block(&heading, &w.path, &shown_diags, hidden, cfg) {
                out.text.push_str("\n\n");
                out.text.push_str(&block);
                out.blocks.insert(w.path.clone(), block);
            }
            status.reported = diagnostics::select(&shown_diags, cfg);
            out.statuses.push(status);
        }
        if !seed && cfg.max_other_files > 0 {
            let written_abs: Vec<&Path> = files.iter().map(|(_, abs)| abs.as_path()).collect();
            self.seed_outdated(provider);
            let news = self.other_news(report.others, &written_abs);
            let coverage = diagnostics::Coverage {
                pending: report.others_pending,
                unchecked: report.others_unchecked,
                bounded: report.others_bounded,
            };
            if let Some(section) =
                diagnostics::others_section(render::OTHER_FILES_HEADING, news, coverage, cfg)
            {
                out.text.push_str("\n\n");
                out.text.push_str(&section);
            }
        }
        out
    }
}

/// The refusal of a read whose `offset` lies past the last line.
pub fn offset_past_end(path: &str, offset: usize, lines: usize) -> ToolError {
    ToolError::new(
        Reason::OutOfBounds,
        Some(path),
        format!(
            "offset {offset} is past the end of the file ({}); read from offset 1 to {lines}",
            crate::render::plural(lines, "line", "lines")
        ),
    )
}
