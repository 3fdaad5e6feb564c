//! Plain, owned diagnostics: what the pool hands out instead of raw `lsp_types`.
//!
//! Positions are converted here from LSP's 0-based positions (in the encoding the server
//! negotiated, UTF-16 by default) to 1-based line and 1-based column counted in Unicode scalar
//! values (`char`s) of the text that was checked, so a caller can print `[line:column]` without
//! knowing about UTF-16.

use std::path::PathBuf;
use std::time::Duration;

use async_lsp::lsp_types;

use crate::position::PositionEncoding;
use lspedit_servers::{Severity, SeverityOverrides};

/// One diagnostic. `line`/`column` and `end_line`/`end_column` are **1-based**; columns count
/// Unicode scalar values of the checked text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: Severity,
    /// The server's code as text (`2322` for TypeScript, `E0308` for rustc), if any.
    pub code: Option<String>,
    pub message: String,
    /// Who produced it (`ts`, `rustc`, `rust-analyzer`, `Pyright`, `clang`), if the server says.
    pub source: Option<String>,
}

/// The settled diagnostics of one file, for the text passed to `check_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiagnostics {
    /// The absolute path that was checked.
    pub path: PathBuf,
    /// Id of the server that produced them.
    pub server: String,
    /// Document version the result belongs to (the version sent with this text).
    pub version: i32,
    /// Sorted by line, column, severity, message.
    pub diagnostics: Vec<Diagnostic>,
    /// Time from sending the text to the server's first answer for it (publish or pull reply);
    /// `None` when no message was needed (the server published nothing and the previous result
    /// holds, or the text was unchanged).
    pub server_time: Option<Duration>,
}

/// A file a change did not write, whose diagnostics the server reported before and after the
/// change (see [`crate::Pool::check_files`]). Both lists are converted against the file's
/// current text; the caller decides what counts as caused by the change. `before` is the
/// file's last known result before the change: for a pull server, possibly of an earlier
/// check, with other changes between (it seeds what a caller knows of a file it never saw).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherFileDiagnostics {
    pub path: PathBuf,
    /// Id of the server that reported them.
    pub server: String,
    pub before: Vec<Diagnostic>,
    pub after: Vec<Diagnostic>,
}

/// The result of a check of one change: [`crate::Pool::check_files`] (each file's result
/// `R` is its absolute path with the pool's own result) and a diagnostics provider's
/// [`CheckReport`] (each file's result its diagnostics or why they are missing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckOutcome<R = (PathBuf, Result<FileDiagnostics, crate::LspError>)> {
    /// One entry per file asked for, in the order given.
    pub files: Vec<R>,
    /// Other files the change may have affected, sorted by path: for push servers those whose
    /// publish changed since the previous pass, for pull servers every dependent and open
    /// document checked (changed or not: the caller decides what it has not been told yet).
    /// Empty when a push server was not warm before (no reliable "before").
    pub others: Vec<OtherFileDiagnostics>,
    /// Other files still being checked when the call stopped waiting for them (see
    /// [`crate::Pool::check_change_within`]); their results come from
    /// [`crate::Pool::take_late_others`].
    pub others_pending: usize,
    /// Files that depend on a changed one and were not checked: past the cap of other files
    /// per change, or their server could not give a "before".
    pub others_unchecked: usize,
    /// The search for files that depend on a changed one stopped at its bounds (too many files
    /// to read, or dependents too many re-exports away): some may not have been checked.
    pub others_bounded: bool,
}

impl<R> Default for CheckOutcome<R> {
    /// No files, no other files (derived, it would ask `R: Default` for no use).
    fn default() -> Self {
        CheckOutcome {
            files: Vec::new(),
            others: Vec::new(),
            others_pending: 0,
            others_unchecked: 0,
            others_bounded: false,
        }
    }
}

impl<R> CheckOutcome<R> {
    /// The same outcome with each file's result mapped by `f`; the other files are moved.
    pub fn map_files<S>(self, f: impl FnMut(R) -> S) -> CheckOutcome<S> {
        CheckOutcome {
            files: self.files.into_iter().map(f).collect(),
            others: self.others,
            others_pending: self.others_pending,
            others_unchecked: self.others_unchecked,
            others_bounded: self.others_bounded,
        }
    }
}

/// What a diagnostics provider (the pool, or an embedder's own checker) found for one change:
/// per file its settled diagnostics or why they are missing.
pub type CheckReport = CheckOutcome<Result<Vec<Diagnostic>, CheckError>>;

/// Why a file's diagnostics are missing: the closed set of verdicts a caller acts on, of which
/// every [`crate::LspError`] is one (see its exhaustive `From`). Closed on purpose, like
/// `LspError` (neither is `#[non_exhaustive]`): callers map it to their statuses with
/// exhaustive matches.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// No language server is configured (or installed) for the file.
    #[error("no language server for this file")]
    NoServer,
    /// The result did not settle within the call's deadline; it may arrive later (see
    /// [`crate::Pool::take_late`]).
    #[error("no result within the deadline")]
    TimedOut,
    /// The server failed, crashed, or the provider broke.
    #[error("{message}")]
    Failed { message: String },
    /// lspedit did not start the server (its program is inside the workspace, no TypeScript
    /// outside it, no sandbox; or it crashed repeatedly and waits out its cooldown): `reason`
    /// is lspedit's own text, shown to the model. Status `failed`.
    #[error("not started: {reason}")]
    Refused { reason: String },
    /// The file changed during the server's check (rewritten on disk, or another session's
    /// text reached the server shared through the host): its diagnostics would have been of
    /// another text. Status `failed`; checking it again checks the text it has now.
    #[error("the file changed during the check")]
    Superseded,
}

impl From<crate::LspError> for CheckError {
    /// A missing server is `NoServer`, a deadline `TimedOut`, a server lspedit would not start
    /// `Refused`, anything else `Failed` with the pool's message (kept for logs and the CLI,
    /// never put in a model's text). Every variant is named, so a new one must be placed here.
    fn from(e: crate::LspError) -> CheckError {
        use crate::LspError as E;
        match e {
            E::NoServer { .. } | E::CommandNotFound { .. } => CheckError::NoServer,
            E::Timeout { .. } => CheckError::TimedOut,
            E::Refused { reason, .. } => CheckError::Refused { reason },
            E::Superseded { .. } => CheckError::Superseded,
            // Not "call again shortly": the cooldown is minutes.
            E::Broken {
                crashes, retry_in, ..
            } => CheckError::Refused {
                reason: format!(
                    "it crashed {crashes} times in a row; lspedit starts it again in {} s",
                    retry_in.as_secs().max(1)
                ),
            },
            // The embedder's mistake, not the server's: said in the log, where its author
            // looks.
            e @ E::BlockedRuntime => {
                tracing::error!("{e}");
                CheckError::Failed {
                    message: e.to_string(),
                }
            }
            e @ (E::OutsideWorkspace { .. }
            | E::Spawn { .. }
            | E::ServerDied { .. }
            | E::Request { .. }
            | E::CheckFailed { .. }
            | E::Backoff { .. }
            | E::Config { .. }
            | E::Runtime { .. }
            | E::PoolClosed
            | E::Unsupported { .. }
            | E::Declined { .. }
            | E::BadPath { .. }) => CheckError::Failed {
                message: e.to_string(),
            },
        }
    }
}

impl FileDiagnostics {
    /// Only the errors.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }
}

/// The diagnostics of a server's JSON array (a publish's `diagnostics`, a pull report's
/// `items`), item by item, so one odd diagnostic does not lose the others; no array, none.
pub(crate) fn each_diagnostic(items: Option<&serde_json::Value>) -> Vec<lsp_types::Diagnostic> {
    items
        .and_then(serde_json::Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|d| serde_json::from_value(d.clone()).ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Converts LSP diagnostics against the text they were computed for, with the server's
/// severity overrides applied (see [`crate::ServerConfig::severity_overrides`]), positions in
/// the server's `encoding`.
pub(crate) fn convert(
    text: &str,
    diags: &[lsp_types::Diagnostic],
    overrides: &SeverityOverrides,
    encoding: PositionEncoding,
) -> Vec<Diagnostic> {
    let index = LineIndex::new(text, encoding);
    let mut out: Vec<Diagnostic> = diags
        .iter()
        .map(|d| {
            let (line, column) = index.to_one_based(d.range.start);
            let (end_line, end_column) = index.to_one_based(d.range.end);
            let reported = match d.severity {
                Some(lsp_types::DiagnosticSeverity::WARNING) => Severity::Warning,
                Some(lsp_types::DiagnosticSeverity::INFORMATION) => Severity::Information,
                Some(lsp_types::DiagnosticSeverity::HINT) => Severity::Hint,
                _ => Severity::Error,
            };
            let code = d.code.as_ref().map(|c| match c {
                lsp_types::NumberOrString::Number(n) => n.to_string(),
                lsp_types::NumberOrString::String(s) => s.clone(),
            });
            let severity = code
                .as_deref()
                .and_then(|c| overrides.get(c))
                .map_or(reported, |o| o.apply(reported));
            Diagnostic {
                line,
                column,
                end_line,
                end_column,
                severity,
                code,
                message: d.message.clone(),
                source: d.source.clone(),
            }
        })
        .collect();
    out.sort_by(|a, b| {
        (a.line, a.column, a.severity, &a.message).cmp(&(b.line, b.column, b.severity, &b.message))
    });
    out.dedup();
    out
}

/// Maps LSP positions (0-based line, column in the server's encoding) to 1-based line and char
/// column.
struct LineIndex<'a> {
    lines: Vec<&'a str>,
    encoding: PositionEncoding,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str, encoding: PositionEncoding) -> Self {
        Self {
            lines: text.split('\n').collect(),
            encoding,
        }
    }

    fn to_one_based(&self, pos: lsp_types::Position) -> (u32, u32) {
        let line = pos.line;
        let Some(content) = self.lines.get(line as usize) else {
            // Past the end (some servers report EOF one line further): keep the numbers.
            return (line.saturating_add(1), pos.character.saturating_add(1));
        };
        let mut units = 0u32;
        let mut chars = 0u32;
        for ch in content.chars() {
            if units >= pos.character {
                break;
            }
            units += self.encoding.units(ch);
            chars += 1;
        }
        if units < pos.character {
            // Past the end of the line: count the rest as single units.
            chars += pos.character - units;
        }
        (line.saturating_add(1), chars.saturating_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The verdicts a caller shows: what was a `check_error` string mapping in the tools is now
    // one exhaustive `From`; these pin the variants that are not plain `Failed`.
    #[test]
    fn every_pool_error_is_one_closed_verdict() {
        use crate::LspError as E;
        let check = |e: E| CheckError::from(e);
        assert_eq!(
            check(E::NoServer {
                path: "a.rs".into()
            }),
            CheckError::NoServer
        );
        assert_eq!(
            check(E::CommandNotFound {
                server: "s".into(),
                command: "c".into()
            }),
            CheckError::NoServer
        );
        assert_eq!(
            check(E::Timeout {
                server: "s".into(),
                stage: "pull",
                waited: Duration::from_secs(3)
            }),
            CheckError::TimedOut
        );
        assert_eq!(
            check(E::Refused {
                server: "s".into(),
                reason: "no sandbox".into()
            }),
            CheckError::Refused {
                reason: "no sandbox".into()
            }
        );
        assert_eq!(
            check(E::Broken {
                server: "s".into(),
                crashes: 3,
                retry_in: Duration::from_millis(200)
            }),
            CheckError::Refused {
                reason: "it crashed 3 times in a row; lspedit starts it again in 1 s".into()
            }
        );
        assert_eq!(
            check(E::Superseded {
                server: "s".into(),
                path: "/w/a.rs".into(),
            }),
            CheckError::Superseded
        );
        let died = E::ServerDied {
            server: "s".into(),
            reason: "exit 1".into(),
            stderr_tail: String::new(),
        };
        assert_eq!(
            check(died.clone()),
            CheckError::Failed {
                message: died.to_string()
            }
        );
    }

    fn pos(line: u32, character: u32) -> lsp_types::Position {
        lsp_types::Position { line, character }
    }

    #[test]
    fn utf16_columns_become_char_columns() {
        let text = "a😀b\nxyz";
        let idx = LineIndex::new(text, PositionEncoding::Utf16);
        assert_eq!(idx.to_one_based(pos(0, 0)), (1, 1));
        // "a" is 1 unit, the emoji 2 units: 'b' is at UTF-16 column 3, char column 3 (1-based).
        assert_eq!(idx.to_one_based(pos(0, 3)), (1, 3));
        assert_eq!(idx.to_one_based(pos(1, 2)), (2, 3));
        assert_eq!(idx.to_one_based(pos(5, 2)), (6, 3));
        // A server that negotiated UTF-8 counts bytes: 'b' is at byte 5.
        let idx = LineIndex::new(text, PositionEncoding::Utf8);
        assert_eq!(idx.to_one_based(pos(0, 5)), (1, 3));
    }

    #[test]
    fn sorted_and_deduplicated() {
        let d = |line, msg: &str| lsp_types::Diagnostic {
            range: lsp_types::Range {
                start: pos(line, 0),
                end: pos(line, 1),
            },
            message: msg.to_owned(),
            code: Some(lsp_types::NumberOrString::Number(2322)),
            ..Default::default()
        };
        let out = convert(
            "a\nb\nc",
            &[d(2, "z"), d(0, "a"), d(2, "z")],
            &SeverityOverrides::new(),
            PositionEncoding::Utf16,
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].line, 1);
        assert_eq!(out[1].line, 3);
        assert_eq!(out[1].code.as_deref(), Some("2322"));
        assert_eq!(out[1].severity, Severity::Error);
    }

    // Regression: TS6133 under `noUnusedLocals` fails `tsc`, but TypeScript 7's server reports
    // it as a warning (a hint without the option), so it was never shown.
    #[test]
    fn severity_overrides_by_code() {
        let d = |code: i32, severity| lsp_types::Diagnostic {
            range: lsp_types::Range {
                start: pos(0, 0),
                end: pos(0, 1),
            },
            severity: Some(severity),
            message: format!("m{code}"),
            code: Some(lsp_types::NumberOrString::Number(code)),
            ..Default::default()
        };
        let overrides: SeverityOverrides = toml::from_str(
            r#"
            "6133" = { from = "warning", to = "error" }
            "7027" = "info"
            "#,
        )
        .unwrap();
        let check = |code, reported, expected| {
            let out = convert(
                "a",
                &[d(code, reported)],
                &overrides,
                PositionEncoding::Utf16,
            );
            assert_eq!(
                out[0].severity, expected,
                "code {code}, reported {reported:?}"
            );
        };
        use lsp_types::DiagnosticSeverity as S;
        check(6133, S::WARNING, Severity::Error);
        check(6133, S::HINT, Severity::Hint);
        check(7027, S::ERROR, Severity::Information);
        check(2322, S::WARNING, Severity::Warning);
        assert!(toml::from_str::<SeverityOverrides>(r#""1" = "fatal""#).is_err());
    }
}
