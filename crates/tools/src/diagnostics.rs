//! Diagnostics feedback (docs/design.md §7): where diagnostics come from, and the exact text block
//! appended to a tool's result.
//!
//! The block is built from plain owned diagnostics and stored only as text: raw LSP objects never
//! reach `llm_content` or the report.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

// The provider speaks the pool's types: one type per fact across the seam, and a provider
// with no pool (a test's mock, an embedder's checker) builds them as plain structs.
pub use lspedit_lsp::{
    ChangedFile, CheckError, CheckReport, Diagnostic, OtherFileDiagnostics, OthersWait, Severity,
};

/// A written file's diagnostics status, as a structured result shows it (docs/design.md §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiagnosticsStatus {
    /// The server answered for the file's new text (the block shows its errors, if any).
    Checked,
    /// No answer within the call's deadline; the text has no LSP block. A later answer is shown
    /// at the start of the next tool result.
    TimedOut,
    /// No language server is configured or installed for the file.
    NoServer,
    /// The server failed or crashed.
    Failed,
}

impl DiagnosticsStatus {
    /// Every status, in the order docs/design.md lists them.
    pub const ALL: &'static [DiagnosticsStatus] = &[
        DiagnosticsStatus::Checked,
        DiagnosticsStatus::TimedOut,
        DiagnosticsStatus::NoServer,
        DiagnosticsStatus::Failed,
    ];

    /// `checked`, `timed_out`, `no_server`, `failed`.
    pub fn as_str(self) -> &'static str {
        match self {
            DiagnosticsStatus::Checked => "checked",
            DiagnosticsStatus::TimedOut => "timed_out",
            DiagnosticsStatus::NoServer => "no_server",
            DiagnosticsStatus::Failed => "failed",
        }
    }

    /// The status a check result maps to.
    pub fn of<T>(result: &Result<T, CheckError>) -> DiagnosticsStatus {
        match result {
            Ok(_) => DiagnosticsStatus::Checked,
            Err(CheckError::NoServer) => DiagnosticsStatus::NoServer,
            Err(CheckError::TimedOut) => DiagnosticsStatus::TimedOut,
            Err(
                CheckError::Failed { .. } | CheckError::Refused { .. } | CheckError::Superseded,
            ) => DiagnosticsStatus::Failed,
        }
    }
}

/// The diagnostics status of one written file (workspace-relative path as shown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiagnosticsStatus {
    pub path: String,
    pub status: DiagnosticsStatus,
    /// Why the file was not checked (the provider's error text), for logs, the CLI and the
    /// structured result; never part of `llm_content`. `None` when checked.
    pub detail: Option<String>,
    /// Why lspedit did not start the file's server ([`CheckError::Refused`]): lspedit's own
    /// words, which the text shows. `None` otherwise.
    pub refused: Option<String>,
    /// The diagnostics the text reports for the file (the configured severities; in
    /// [`DiagnosticsMode::New`] only those the change introduced), sorted, before the per-file
    /// cap. Empty unless `Checked`.
    pub reported: Vec<Diagnostic>,
}

/// A language whose server is known but not installed ([`DiagnosticsProvider::missing_server`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingServer {
    /// The LSP language id (`go`, `python`): the feedback says so once per language.
    pub language: String,
    /// The server's id, what `lspedit servers install` takes (`gopls`).
    pub server: String,
}

/// A source of diagnostics for files right after they were written. The language-server pool
/// implements it; so can an embedder's own checker. Implementations may fail or panic (the
/// tools catch it, and a failure only drops the block); `check_files` must return by its
/// deadline (the pool bounds every wait by it, and past it waits only while a server visibly
/// works, up to the server's verdict cap: `lspedit_lsp::VerdictWait`), since the tool waits
/// for it on its own thread.
pub trait DiagnosticsProvider: Send + Sync {
    /// Whether a server is configured for the file. No server → no call at all.
    fn handles(&self, path: &Path) -> bool;
    /// Whether the file's server has already answered a check (then the short budget applies);
    /// a server that is up but still indexing is not warm.
    fn is_warm(&self, path: &Path) -> bool;
    /// The settled diagnostics of every file of one tool call, whose contents are now as given:
    /// all texts are sent before any file is checked, and the whole call ends by `deadline`.
    fn check_files(&self, files: &[ChangedFile], deadline: Instant) -> CheckReport;
    /// Start the file's server in the background (after a read), without waiting.
    fn touch(&self, path: &Path);
    /// [`DiagnosticsProvider::check_files`] that returns once the files are checked and
    /// waits for the other files at most `others_wait` more (never past `deadline`); other
    /// files still being checked then are counted in [`CheckReport::others_pending`] and their
    /// results come later from [`DiagnosticsProvider::take_late_others`]. By default the same
    /// as `check_files`.
    fn check_change(
        &self,
        files: &[ChangedFile],
        deadline: Instant,
        others_wait: OthersWait,
    ) -> CheckReport {
        let _ = others_wait;
        self.check_files(files, deadline)
    }
    /// Results of checks asked for before `asked_before` that timed out and arrived since,
    /// each returned once, only while true: the file still has the text the result was
    /// computed on (a check of the file since supersedes it). The caller passes when its own
    /// call began, so its own checks' late results wait for the next call.
    fn take_late(&self, asked_before: Instant) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        let _ = asked_before;
        Vec::new()
    }
    /// Other files' results of checks asked for before `asked_before` that returned before
    /// them (see [`DiagnosticsProvider::check_change`]), each once, only while still true
    /// (nothing in their root changed since, the file still has its text).
    fn take_late_others(&self, asked_before: Instant) -> Vec<OtherFileDiagnostics> {
        let _ = asked_before;
        Vec::new()
    }
    /// Other files' results that were kept for [`DiagnosticsProvider::take_late_others`] and
    /// no longer hold, each once: never shown, but their `before` is what the file had before
    /// the change that asked for them (what a session that never saw the file knew of it
    /// first).
    fn take_outdated_others(&self) -> Vec<OtherFileDiagnostics> {
        Vec::new()
    }
    /// The name of the server that checks `path` (the text names it when its verdict is
    /// missing), if any.
    fn server_name(&self, path: &Path) -> Option<String> {
        let _ = path;
        None
    }
    /// When lspedit knows a server for `path`'s language but none is installed here, which one:
    /// the full feedback says so once per session and language, with what to install, so that
    /// an unchecked write never reads as a clean one. `None` when a server checks the file or
    /// none is known for its type (a `.md`, a `.txt`: nothing to install).
    fn missing_server(&self, path: &Path) -> Option<MissingServer> {
        let _ = path;
        None
    }
    /// The provider's own deadlines (after a write to a warm server, and when the server must
    /// start first), used where [`DiagnosticsConfig`] sets none: the pool's `[pool]
    /// check_timeout_ms` and `first_check_timeout_ms`.
    fn deadlines(&self) -> Option<Deadlines> {
        None
    }
}

/// How long a tool call waits for diagnostics after its write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadlines {
    /// When every file's server has already answered a check.
    pub warm: Duration,
    /// When a server must start (or finish indexing) first.
    pub cold: Duration,
}

impl Default for Deadlines {
    /// 3 s warm, 10 s cold (docs/design.md §7: alive is not warm).
    fn default() -> Self {
        Deadlines {
            warm: Duration::from_secs(3),
            cold: Duration::from_secs(10),
        }
    }
}

/// Which diagnostics are reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticsMode {
    /// Every diagnostic of the configured severities.
    All,
    /// Only those the edit introduced: errors matched across the edit by (code, message) after
    /// mapping their lines through the diff are pre-existing and hidden.
    New,
}

/// How much a writing tool's text says about diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Feedback {
    /// The written files' errors (errors this change introduced first within the cap), other
    /// files with errors the session has not been told of yet, a line for every file whose
    /// verdict is missing and for other files still being checked or left unchecked, and late
    /// answers at the start of the next result.
    #[default]
    Full,
    /// The seed contract exactly: the written files' errors only (the first
    /// `max_per_file` in line order), no text at all when a check timed out or failed, no
    /// other files, no late answers.
    Seed,
}

/// Knobs of the feedback.
#[derive(Debug, Clone)]
pub struct DiagnosticsConfig {
    pub enabled: bool,
    pub feedback: Feedback,
    pub mode: DiagnosticsMode,
    /// Severities reported (errors only by default).
    pub severities: Vec<Severity>,
    pub max_per_file: usize,
    /// A writing tool also reports up to this many other files with errors.
    pub max_other_files: usize,
    /// How long a writing tool waits for other files (the change's dependents) once its own
    /// files are checked: by default (`Declared`) up to each server's `dependents_wait_ms`, so
    /// that the callers a change broke come in the same result when their checks finish soon
    /// after the written files' verdict; `UntilDeadline` for a one-shot command that has no
    /// later result; `For(ZERO)`, not at all. Other files still being checked then are named
    /// by count and reported in a later result.
    pub other_files_wait: OthersWait,
    /// Wait after a write when the server is running. `None`: the provider's deadline (the
    /// pool's `[pool] check_timeout_ms`), else 3 s.
    pub timeout: Option<Duration>,
    /// Wait after a write when the server must start first. `None`: the provider's (the pool's
    /// `[pool] first_check_timeout_ms`), else 10 s.
    pub start_timeout: Option<Duration>,
}

impl Default for DiagnosticsConfig {
    fn default() -> Self {
        DiagnosticsConfig {
            enabled: true,
            feedback: Feedback::Full,
            mode: DiagnosticsMode::All,
            severities: vec![Severity::Error],
            max_per_file: 20,
            max_other_files: 5,
            other_files_wait: OthersWait::Declared,
            timeout: None,
            start_timeout: None,
        }
    }
}

/// One call into the provider, `call` naming it in the log: the one place a provider's panic
/// is caught. The panic is logged without its text (the provider's, never shown) and is
/// [`CheckError::Failed`]: the `failed` status of every file of a check, and for the other
/// calls their neutral answer (not warm, no server, nothing late, no name).
fn guarded<T>(call: &'static str, f: impl FnOnce() -> T) -> Result<T, CheckError> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|_| {
        tracing::warn!(call, "diagnostics provider panicked");
        CheckError::Failed {
            message: "the provider panicked".to_owned(),
        }
    })
}

/// The deadline budget of a call over `paths`: the short one only when every file's server has
/// already answered a check.
pub(crate) fn budget(
    provider: &Arc<dyn DiagnosticsProvider>,
    cfg: &DiagnosticsConfig,
    paths: &[&Path],
) -> Duration {
    let warm = guarded("is_warm", || paths.iter().all(|p| provider.is_warm(p))).unwrap_or(false);
    let own = guarded("deadlines", || provider.deadlines())
        .ok()
        .flatten()
        .unwrap_or_default();
    if warm {
        cfg.timeout.unwrap_or(own.warm)
    } else {
        cfg.start_timeout.unwrap_or(own.cold)
    }
}

/// Ask `provider` for the diagnostics of `files` (all of one tool call) by `deadline`. One entry
/// per file, in order: files without a server are [`CheckError::NoServer`] without a call; a
/// panic of the provider is `Failed` for every file it had, and the provider itself answers
/// `Failed` or `TimedOut` by the deadline. The caller shows no LSP text for any of those.
pub(crate) fn fetch_all(
    provider: &Arc<dyn DiagnosticsProvider>,
    files: &[ChangedFile],
    deadline: Instant,
    others_wait: OthersWait,
) -> CheckReport {
    let mut out: Vec<Result<Vec<Diagnostic>, CheckError>> =
        vec![Err(CheckError::NoServer); files.len()];
    let mut asked: Vec<usize> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if guarded("handles", || provider.handles(&f.path)).unwrap_or(false) {
            asked.push(i);
        }
    }
    if asked.is_empty() {
        return CheckReport {
            files: out,
            ..CheckReport::default()
        };
    }
    // A subset only when some files have no server (the texts are shared, not copied).
    let batch: std::borrow::Cow<'_, [ChangedFile]> = if asked.len() == files.len() {
        std::borrow::Cow::Borrowed(files)
    } else {
        asked.iter().map(|&i| files[i].clone()).collect()
    };
    // The deadline lives in the provider (the pool bounds every wait by it and cancels what is
    // still pending), so the call runs on the caller's thread: no thread per call. A panic is
    // caught and is `Failed` for every file it had.
    let mut report = match guarded("check_change", || {
        provider.check_change(&batch, deadline, others_wait)
    }) {
        Ok(report) if report.files.len() == asked.len() => report,
        Ok(_) => CheckReport {
            files: vec![
                Err(CheckError::Failed {
                    message: "the provider answered for other files".to_owned(),
                });
                asked.len()
            ],
            ..CheckReport::default()
        },
        Err(panicked) => CheckReport {
            files: vec![Err(panicked); asked.len()],
            ..CheckReport::default()
        },
    };
    for (i, r) in asked.into_iter().zip(std::mem::take(&mut report.files)) {
        if let Err(e) = &r {
            tracing::debug!(path = %files[i].path.display(), error = %e, "diagnostics unavailable");
        }
        out[i] = r;
    }
    report.files = out;
    report
}

/// Late results, guarded.
pub(crate) fn take_late(
    provider: &Arc<dyn DiagnosticsProvider>,
    asked_before: Instant,
) -> Vec<(PathBuf, Vec<Diagnostic>)> {
    guarded("take_late", || provider.take_late(asked_before)).unwrap_or_default()
}

/// Outdated other files' results, guarded.
pub(crate) fn take_outdated_others(
    provider: &Arc<dyn DiagnosticsProvider>,
) -> Vec<OtherFileDiagnostics> {
    guarded("take_outdated_others", || provider.take_outdated_others()).unwrap_or_default()
}

/// Late other files, guarded.
pub(crate) fn take_late_others(
    provider: &Arc<dyn DiagnosticsProvider>,
    asked_before: Instant,
) -> Vec<OtherFileDiagnostics> {
    guarded("take_late_others", || {
        provider.take_late_others(asked_before)
    })
    .unwrap_or_default()
}

/// The file's server name, guarded.
pub(crate) fn server_name(provider: &Arc<dyn DiagnosticsProvider>, path: &Path) -> Option<String> {
    guarded("server_name", || provider.server_name(path))
        .ok()
        .flatten()
}

/// `path`'s missing server, guarded.
pub(crate) fn missing_server(
    provider: &Arc<dyn DiagnosticsProvider>,
    path: &Path,
) -> Option<MissingServer> {
    guarded("missing_server", || provider.missing_server(path))
        .ok()
        .flatten()
}

/// The line that says a language's files are not checked because its server is not installed
/// (`display_path` is the first such file written), and what to install.
pub(crate) fn no_server_line(display_path: &str, missing: &MissingServer) -> String {
    let kind = Path::new(display_path)
        .extension()
        .and_then(|e| e.to_str())
        .map_or_else(|| missing.language.clone(), |e| format!(".{e}"));
    format!(
        "No language server for {kind} files here: {display_path} and the other {} files written in this session are not checked for errors. Install {server} (`lspedit servers install {server}`) and restart the session to have them checked.",
        missing.language,
        server = missing.server
    )
}

/// The one neutral line that says a written file's verdict is missing (never the server's own
/// error text); `None` when there is nothing to say (checked, or no server for the file).
pub(crate) fn missing_verdict(
    display_path: &str,
    server: Option<&str>,
    error: &CheckError,
) -> Option<String> {
    let server = server.unwrap_or("the language server");
    match error {
        CheckError::NoServer => None,
        CheckError::TimedOut => Some(format!(
            "Diagnostics for {display_path} pending: {server} is still checking it; errors, if any, will be reported in a later result."
        )),
        CheckError::Failed { .. } => Some(format!(
            "Diagnostics for {display_path} unavailable: {server} failed to check it; {} to try again.",
            crate::front::say(&crate::front::Step::Diagnostics {
                path: Some(display_path)
            })
        )),
        CheckError::Superseded => Some(format!(
            "Diagnostics for {display_path} unavailable: the file changed while {server} checked it (rewritten on disk, or another session's text); {} to check it as it is now.",
            crate::front::say(&crate::front::Step::Diagnostics {
                path: Some(display_path)
            })
        )),
        CheckError::Refused { reason } => Some(format!(
            "Diagnostics for {display_path} unavailable: lspedit did not start language server '{server}': {reason}."
        )),
    }
}

/// Warm a server, guarded.
pub(crate) fn touch(provider: &Arc<dyn DiagnosticsProvider>, path: &Path) {
    let _ = guarded("touch", || {
        if provider.handles(path) {
            provider.touch(path);
        }
    });
}

/// The code as printed: TypeScript's numeric codes get a `ts` prefix (`ts2322`), others as given.
fn code_text(d: &Diagnostic) -> Option<String> {
    let code = d.code.as_deref()?.trim();
    if code.is_empty() {
        return None;
    }
    let ts_source = d.source.as_deref().is_some_and(|s| {
        let s = s.to_ascii_lowercase();
        s == "ts" || s == "typescript" || s == "tsserver" || s == "tsc"
    });
    if ts_source && code.bytes().all(|b| b.is_ascii_digit()) {
        Some(format!("ts{code}"))
    } else {
        Some(code.to_string())
    }
}

/// One line: `ERROR [42:5] message (code)`, the message on one line, `</diagnostics>` escaped.
fn line_text(d: &Diagnostic) -> String {
    let message = d
        .message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace("</diagnostics>", "&lt;/diagnostics&gt;");
    match code_text(d) {
        Some(code) => format!(
            "{} [{}:{}] {message} ({code})",
            d.severity.label(),
            d.line,
            d.column
        ),
        None => format!("{} [{}:{}] {message}", d.severity.label(), d.line, d.column),
    }
}

/// Keep the configured severities, sort by line, column, severity, message, drop duplicates.
pub(crate) fn select(diags: &[Diagnostic], cfg: &DiagnosticsConfig) -> Vec<Diagnostic> {
    let mut v: Vec<Diagnostic> = diags
        .iter()
        .filter(|d| cfg.severities.contains(&d.severity))
        .cloned()
        .collect();
    v.sort_by(|a, b| {
        (a.line, a.column, a.severity, &a.message, &a.code)
            .cmp(&(b.line, b.column, b.severity, &b.message, &b.code))
    });
    v.dedup_by(|a, b| line_text(a) == line_text(b));
    v
}

/// `ordered` (most important first) as a block shows it: its first `cap` sorted by line, then
/// the rest, which only the `... and N more` line counts.
pub(crate) fn cap_first(mut ordered: Vec<Diagnostic>, cap: usize) -> Vec<Diagnostic> {
    let by_place = |a: &Diagnostic, b: &Diagnostic| {
        (a.line, a.column, a.severity, &a.message, &a.code)
            .cmp(&(b.line, b.column, b.severity, &b.message, &b.code))
    };
    let cut = cap.min(ordered.len());
    ordered[..cut].sort_by(by_place);
    ordered[cut..].sort_by(by_place);
    ordered
}

/// Split `after` into (introduced, pre-existing count) by matching against `before`: same code
/// and message, and the old line maps to the new line through `line_map` (0-based old → new).
pub(crate) fn only_new(
    before: &[Diagnostic],
    after: Vec<Diagnostic>,
    line_map: &[Option<usize>],
) -> (Vec<Diagnostic>, usize) {
    let mut pool: Vec<(Option<usize>, &Diagnostic)> = before
        .iter()
        .map(|d| {
            (
                line_map
                    .get((d.line as usize).saturating_sub(1))
                    .copied()
                    .flatten(),
                d,
            )
        })
        .collect();
    let mut introduced = Vec::new();
    let mut hidden = 0;
    for d in after {
        let new_line = (d.line as usize).saturating_sub(1);
        let found = pool.iter().position(|(mapped, old)| {
            *mapped == Some(new_line) && old.code == d.code && old.message == d.message
        });
        match found {
            Some(i) => {
                pool.swap_remove(i);
                hidden += 1;
            }
            None => introduced.push(d),
        }
    }
    (introduced, hidden)
}

/// The `<diagnostics file="…">` block for one file, capped; `None` when there is nothing to show.
pub(crate) fn block(
    heading: &str,
    display_path: &str,
    diags: &[Diagnostic],
    hidden: usize,
    cfg: &DiagnosticsConfig,
) -> Option<String> {
    if diags.is_empty() {
        return None;
    }
    let mut s = format!("{heading}\n<diagnostics file=\"{display_path}\">\n");
    for d in diags.iter().take(cfg.max_per_file) {
        s.push_str(&line_text(d));
        s.push('\n');
    }
    if diags.len() > cfg.max_per_file {
        s.push_str(&format!(
            "... and {} more\n",
            diags.len() - cfg.max_per_file
        ));
    }
    s.push_str("</diagnostics>");
    if hidden > 0 {
        s.push_str(&format!("\n({hidden} pre-existing errors not shown)"));
    }
    Some(s)
}

/// The section on other files, under `heading`: a block for each of the first
/// `max_other_files` (by path) with errors to report, then a line when more files have such errors (naming them), when other
/// files were still being checked (`pending`) and when some were not checked (`unchecked`).
/// `None` when there is nothing to say.
pub(crate) fn others_section(
    heading: &str,
    others: BTreeMap<String, Vec<Diagnostic>>,
    coverage: Coverage,
    cfg: &DiagnosticsConfig,
) -> Option<String> {
    let Coverage {
        pending,
        unchecked,
        bounded,
    } = coverage;
    let with_errors: Vec<(String, Vec<Diagnostic>)> =
        others.into_iter().filter(|(_, d)| !d.is_empty()).collect();
    let blocks: Vec<String> = with_errors
        .iter()
        .take(cfg.max_other_files)
        .filter_map(|(path, d)| block_body(path, d, cfg))
        .collect();
    let mut lines: Vec<String> = Vec::new();
    if !blocks.is_empty() {
        lines.push(format!("{heading}\n{}", blocks.join("\n")));
    }
    if with_errors.len() > blocks.len() {
        const NAMED: usize = 10;
        let rest: Vec<&str> = with_errors[blocks.len()..]
            .iter()
            .map(|(p, _)| p.as_str())
            .collect();
        let mut names = rest
            .iter()
            .take(NAMED)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if rest.len() > NAMED {
            names.push_str(&format!(" and {} more", rest.len() - NAMED));
        }
        lines.push(format!(
            "{} have new errors; showing {} of them (not shown: {names}).",
            other_files(with_errors.len()),
            blocks.len()
        ));
    }
    if pending > 0 {
        lines.push(format!(
            "Still checking {} that may depend on this change; new errors there will be reported in a later result.",
            other_files(pending)
        ));
    }
    if unchecked > 0 {
        lines.push(format!(
            "{} that may depend on this change {} not checked (too many for one change); {} on the files that use what you changed.",
            other_files(unchecked),
            if unchecked == 1 { "was" } else { "were" },
            crate::front::say(&crate::front::Step::Diagnostics { path: None })
        ));
    }
    if bounded {
        lines.push("The search for files that depend on this change stopped at its bounds (too many files, or too many re-exports away); some may not have been checked.".to_string());
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// How far a call's check of other files got (see [`CheckReport`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Coverage {
    pub(crate) pending: usize,
    pub(crate) unchecked: usize,
    pub(crate) bounded: bool,
}

/// "1 other file", "3 other files".
fn other_files(n: usize) -> String {
    if n == 1 {
        "1 other file".to_string()
    } else {
        format!("{n} other files")
    }
}

fn block_body(path: &str, diags: &[Diagnostic], cfg: &DiagnosticsConfig) -> Option<String> {
    block("", path, diags, 0, cfg).map(|s| s.trim_start_matches('\n').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(
        line: u32,
        col: u32,
        sev: Severity,
        msg: &str,
        code: Option<&str>,
        source: Option<&str>,
    ) -> Diagnostic {
        Diagnostic {
            line,
            column: col,
            end_line: line,
            end_column: col + 1,
            severity: sev,
            code: code.map(str::to_string),
            message: msg.to_string(),
            source: source.map(str::to_string),
        }
    }

    #[test]
    fn block_format_is_exact() {
        let cfg = DiagnosticsConfig::default();
        let diags = select(
            &[
                diag(
                    42,
                    5,
                    Severity::Error,
                    "Type error",
                    Some("2322"),
                    Some("typescript"),
                ),
                diag(3, 1, Severity::Warning, "unused", None, None),
                diag(
                    7,
                    2,
                    Severity::Error,
                    "mismatched types\nexpected u32",
                    Some("E0308"),
                    Some("rustc"),
                ),
                diag(
                    7,
                    2,
                    Severity::Error,
                    "mismatched types\nexpected u32",
                    Some("E0308"),
                    Some("rustc"),
                ),
                diag(9, 1, Severity::Error, "bad </diagnostics> text", None, None),
            ],
            &cfg,
        );
        let got = block(
            "LSP errors detected in this file, please fix:",
            "src/utils.ts",
            &diags,
            0,
            &cfg,
        )
        .unwrap();
        assert_eq!(
            got,
            "LSP errors detected in this file, please fix:\n<diagnostics file=\"src/utils.ts\">\nERROR [7:2] mismatched types expected u32 (E0308)\nERROR [9:1] bad &lt;/diagnostics&gt; text\nERROR [42:5] Type error (ts2322)\n</diagnostics>"
        );
    }

    #[test]
    fn cap_and_more_line() {
        let cfg = DiagnosticsConfig::default();
        let diags: Vec<Diagnostic> = (1..=25)
            .map(|i| diag(i, 1, Severity::Error, "e", None, None))
            .collect();
        let got = block("h", "f", &select(&diags, &cfg), 0, &cfg).unwrap();
        assert_eq!(got.lines().filter(|l| l.starts_with("ERROR")).count(), 20);
        assert!(got.contains("\n... and 5 more\n</diagnostics>"), "{got}");
    }

    #[test]
    fn new_mode_hides_moved_pre_existing_errors() {
        let before = vec![diag(2, 1, Severity::Error, "old problem", Some("E1"), None)];
        // Two lines were inserted above: the old error moved from line 2 to line 4.
        let map = lspedit_engine::line_map("a\nbad\n", "x\ny\na\nbad\nnew\n");
        let after = vec![
            diag(4, 1, Severity::Error, "old problem", Some("E1"), None),
            diag(5, 1, Severity::Error, "new problem", Some("E2"), None),
        ];
        let (introduced, hidden) = only_new(&before, after, &map);
        assert_eq!(hidden, 1);
        assert_eq!(introduced.len(), 1);
        assert_eq!(introduced[0].message, "new problem");
    }

    /// The code as printed: a TypeScript source's numeric code gets `ts`, however the source
    /// is spelled; another source's code, or a code that is not a number, as given (trimmed);
    /// a blank code is none.
    #[test]
    fn codes_are_printed_as_their_language_writes_them() {
        let cases = [
            (Some("2322"), Some("ts"), Some("ts2322")),
            (Some("2322"), Some("TypeScript"), Some("ts2322")),
            (Some("2322"), Some("tsserver"), Some("ts2322")),
            (Some("2322"), Some("tsc"), Some("ts2322")),
            (Some("2322"), Some("eslint"), Some("2322")),
            (Some("2322"), None, Some("2322")),
            (Some("no-unused"), Some("ts"), Some("no-unused")),
            (Some(" E0308 "), Some("rustc"), Some("E0308")),
            (Some("  "), Some("ts"), None),
            (None, Some("ts"), None),
        ];
        for (code, source, want) in cases {
            let d = diag(1, 1, Severity::Error, "m", code, source);
            assert_eq!(code_text(&d).as_deref(), want, "{code:?} from {source:?}");
        }
    }

    /// A block shows at most `max_per_file` lines, then `... and N more` only past it, and a
    /// line for the pre-existing errors it hides only when there are some; an empty list is no
    /// block.
    #[test]
    fn a_block_counts_what_it_does_not_show() {
        let cfg = DiagnosticsConfig::default();
        let errors = |n: u32| -> Vec<Diagnostic> {
            (1..=n)
                .map(|i| diag(i, 1, Severity::Error, "e", None, None))
                .collect()
        };
        let full = block("h", "f", &errors(20), 0, &cfg).unwrap();
        assert_eq!(full.lines().filter(|l| l.starts_with("ERROR")).count(), 20);
        assert!(full.ends_with("[20:1] e\n</diagnostics>"), "{full}");
        let hiding = block("h", "f", &errors(1), 2, &cfg).unwrap();
        assert!(
            hiding.ends_with("</diagnostics>\n(2 pre-existing errors not shown)"),
            "{hiding}"
        );
        assert_eq!(block("h", "f", &[], 3, &cfg), None);
    }

    /// A capped block shows the most important first `cap` sorted by place among themselves,
    /// then the rest by place.
    #[test]
    fn cap_first_sorts_each_side_of_the_cap_by_place() {
        let at = |lines: &[u32]| -> Vec<Diagnostic> {
            lines
                .iter()
                .map(|&l| diag(l, 1, Severity::Error, "e", None, None))
                .collect()
        };
        let lines = |v: Vec<Diagnostic>| v.iter().map(|d| d.line).collect::<Vec<_>>();
        assert_eq!(lines(cap_first(at(&[9, 3, 7, 1]), 2)), [3, 9, 1, 7]);
        assert_eq!(lines(cap_first(at(&[2, 1]), 5)), [1, 2]);
    }

    /// An error after the edit is pre-existing only when one before it has the same code and
    /// message and its line maps to this one; each one before hides one after.
    #[test]
    fn only_new_matches_code_message_and_mapped_line() {
        let before = vec![diag(2, 1, Severity::Error, "old", Some("E1"), None)];
        // Two lines inserted above: old line 2 is new line 4.
        let map = lspedit_engine::line_map("a\nbad\n", "x\ny\na\nbad\nnew\n");
        // After the edit: (line, message, code) each; then (introduced, hidden).
        type Case<'a> = (&'a [(u32, &'a str, &'a str)], (usize, usize));
        let cases: [Case; 5] = [
            (&[(4, "old", "E1")], (0, 1)),
            (&[(4, "other", "E1")], (1, 0)),
            (&[(4, "old", "E2")], (1, 0)),
            (&[(5, "old", "E1")], (1, 0)),
            (&[(4, "old", "E1"), (4, "old", "E1")], (1, 1)),
        ];
        for (after, want) in cases {
            let after: Vec<Diagnostic> = after
                .iter()
                .map(|&(l, m, c)| diag(l, 1, Severity::Error, m, Some(c), None))
                .collect();
            let (introduced, hidden) = only_new(&before, after.clone(), &map);
            assert_eq!((introduced.len(), hidden), want, "{after:?}");
        }
    }

    /// The section on other files: a block for each of the first `max_other_files` files with
    /// errors (files without are not counted), a line naming the files past them (ten, then a
    /// count), and one line each for files still being checked, files left unchecked (`was`
    /// for one, `were` for more) and a search stopped at its bounds; nothing to say is `None`.
    #[test]
    fn the_other_files_section_says_what_it_does_not_show() {
        let cfg = DiagnosticsConfig {
            max_other_files: 1,
            ..DiagnosticsConfig::default()
        };
        let none = Coverage::default();
        let error = || vec![diag(1, 1, Severity::Error, "e", None, None)];
        assert_eq!(others_section("H", BTreeMap::new(), none, &cfg), None);
        let one: BTreeMap<String, Vec<Diagnostic>> = [
            ("a.ts".to_string(), error()),
            ("clean.ts".to_string(), Vec::new()),
        ]
        .into();
        assert_eq!(
            others_section("H", one, none, &cfg).as_deref(),
            Some("H\n<diagnostics file=\"a.ts\">\nERROR [1:1] e\n</diagnostics>")
        );
        let many: BTreeMap<String, Vec<Diagnostic>> =
            (0..13).map(|i| (format!("f{i:02}.ts"), error())).collect();
        let text = others_section("H", many, none, &cfg).unwrap();
        let last = text.lines().last().unwrap();
        assert_eq!(
            last,
            "13 other files have new errors; showing 1 of them (not shown: f01.ts, f02.ts, f03.ts, f04.ts, f05.ts, f06.ts, f07.ts, f08.ts, f09.ts, f10.ts and 2 more)."
        );
        let eleven: BTreeMap<String, Vec<Diagnostic>> =
            (0..11).map(|i| (format!("f{i:02}.ts"), error())).collect();
        let text = others_section("H", eleven, none, &cfg).unwrap();
        assert!(
            text.ends_with("f09.ts, f10.ts)."),
            "ten are named, none counted: {text}"
        );
        let two: BTreeMap<String, Vec<Diagnostic>> =
            [("a.ts".to_string(), error()), ("b.ts".to_string(), error())].into();
        let text = others_section("H", two, none, &cfg).unwrap();
        assert!(
            text.ends_with("\n2 other files have new errors; showing 1 of them (not shown: b.ts)."),
            "{text}"
        );
        let lines = |coverage| {
            others_section("H", BTreeMap::new(), coverage, &cfg)
                .unwrap()
                .lines()
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        let pending_one = Coverage {
            pending: 1,
            unchecked: 1,
            bounded: false,
        };
        assert_eq!(
            lines(pending_one),
            [
                "Still checking 1 other file that may depend on this change; new errors there will be reported in a later result.",
                "1 other file that may depend on this change was not checked (too many for one change); call diagnostics on the files that use what you changed.",
            ]
        );
        let more = Coverage {
            pending: 0,
            unchecked: 2,
            bounded: true,
        };
        assert_eq!(
            lines(more),
            [
                "2 other files that may depend on this change were not checked (too many for one change); call diagnostics on the files that use what you changed.",
                "The search for files that depend on this change stopped at its bounds (too many files, or too many re-exports away); some may not have been checked.",
            ]
        );
    }

    /// A provider that panics in every call; `handles` answers `Some` when it does not.
    struct Exploding {
        handles: Option<bool>,
    }

    impl DiagnosticsProvider for Exploding {
        fn handles(&self, _: &Path) -> bool {
            self.handles.unwrap_or_else(|| panic!("handles exploded"))
        }
        fn is_warm(&self, _: &Path) -> bool {
            panic!("is_warm exploded")
        }
        fn check_files(&self, _: &[ChangedFile], _: Instant) -> CheckReport {
            panic!("check_files exploded")
        }
        fn touch(&self, _: &Path) {
            panic!("touch exploded")
        }
        fn take_late(&self, _: Instant) -> Vec<(PathBuf, Vec<Diagnostic>)> {
            panic!("take_late exploded")
        }
        fn take_late_others(&self, _: Instant) -> Vec<OtherFileDiagnostics> {
            panic!("take_late_others exploded")
        }
        fn take_outdated_others(&self) -> Vec<OtherFileDiagnostics> {
            panic!("take_outdated_others exploded")
        }
        fn server_name(&self, _: &Path) -> Option<String> {
            panic!("server_name exploded")
        }
        fn deadlines(&self) -> Option<Deadlines> {
            panic!("deadlines exploded")
        }
    }

    // Every call into a provider is guarded, not only the check: a panic anywhere is the
    // neutral answer of that call (the cold budget, no server, nothing late, no name), or
    // `failed` with lspedit's own words for a check, never the panic's text.
    #[test]
    fn a_provider_panicking_anywhere_gives_neutral_answers() {
        let file = ChangedFile::from((PathBuf::from("/w/a.ts"), "b\n".to_owned()));
        let deadline = Instant::now() + Duration::from_secs(1);
        let everywhere: Arc<dyn DiagnosticsProvider> = Arc::new(Exploding { handles: None });
        let cfg = DiagnosticsConfig::default();
        assert_eq!(
            budget(&everywhere, &cfg, &[file.path.as_path()]),
            Deadlines::default().cold
        );
        let report = fetch_all(
            &everywhere,
            std::slice::from_ref(&file),
            deadline,
            OthersWait::UntilDeadline,
        );
        assert_eq!(report.files, vec![Err(CheckError::NoServer)]);
        assert!(take_late(&everywhere, Instant::now()).is_empty());
        assert!(take_late_others(&everywhere, Instant::now()).is_empty());
        assert!(take_outdated_others(&everywhere).is_empty());
        assert_eq!(server_name(&everywhere, &file.path), None);
        touch(&everywhere, &file.path);

        let in_the_check: Arc<dyn DiagnosticsProvider> = Arc::new(Exploding {
            handles: Some(true),
        });
        touch(&in_the_check, &file.path);
        let report = fetch_all(
            &in_the_check,
            &[file.clone(), file],
            deadline,
            OthersWait::UntilDeadline,
        );
        let failed = Err(CheckError::Failed {
            message: "the provider panicked".to_owned(),
        });
        assert_eq!(report.files, vec![failed.clone(), failed]);
        assert!(report.others.is_empty());
    }

    // Each way a written file can lack its verdict has its own line, naming the file and the
    // server in lspedit's words and saying what to do; a check the file outran (issue 48) is
    // not called the server's failure, and its status is `failed`.
    #[test]
    fn each_missing_verdict_says_why_in_its_own_words() {
        let line = |e: &CheckError| missing_verdict("src/lib.rs", Some("rust-analyzer"), e);
        assert_eq!(line(&CheckError::NoServer), None);
        let failed = CheckError::Failed {
            message: "server text".to_owned(),
        };
        let refused = CheckError::Refused {
            reason: "no sandbox".to_owned(),
        };
        let lines: Vec<String> = [
            CheckError::TimedOut,
            failed,
            refused,
            CheckError::Superseded,
        ]
        .iter()
        .map(|e| line(e).unwrap())
        .collect();
        for l in &lines {
            assert!(l.starts_with("Diagnostics for src/lib.rs "), "{l}");
            assert!(l.contains("rust-analyzer"), "{l}");
            assert!(!l.contains("server text"), "{l}");
        }
        assert!(lines[0].contains("pending"), "{}", lines[0]);
        assert!(lines[1].contains("failed to check it"), "{}", lines[1]);
        assert!(lines[2].contains("no sandbox"), "{}", lines[2]);
        assert!(
            lines[3].contains("changed while rust-analyzer checked it")
                && !lines[3].contains("failed"),
            "{}",
            lines[3]
        );
        let unique: std::collections::BTreeSet<&String> = lines.iter().collect();
        assert_eq!(unique.len(), lines.len());
        assert_eq!(
            DiagnosticsStatus::of::<()>(&Err(CheckError::Superseded)),
            DiagnosticsStatus::Failed
        );
    }
}
