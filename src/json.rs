//! JSON shapes of the CLI's `--json` output: one document per run, always [`Doc`] (`ok`,
//! `reason`, `llm_content`, `files`) with the command's own fields beside them. Only the CLI
//! serializes (docs/design.md §1).

use std::path::Path;

use lspedit::engine::FileAction;
use lspedit::lsp::Severity;
use lspedit::lsp::{ServerState, ServerStatus};
use lspedit::servers::ProgramFrom;
use lspedit::servers::install::{Installed, ServerInfo};
use lspedit::tools::{FileDiagnosticsStatus, ToolResult};
use lspedit::write::{FileReport, FileStatus, Reason, ToolError};
use serde::Serialize;

/// The `reason` of a `--json` document, serialized as its bare code: a tool's refusal (the wire
/// codes of docs/design.md §9) or one of the CLI's own verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum DocReason {
    /// A tool's refusal.
    Tool(Reason),
    /// Outside the tools, or `check`'s verdict.
    Cli(CliReason),
    /// An LSP edit's or lookup's reason code (`no_server`, `symbol_not_found`, ...; the
    /// tools' codes among them).
    Code(&'static str),
}

impl From<Reason> for DocReason {
    fn from(r: Reason) -> DocReason {
        DocReason::Tool(r)
    }
}

impl From<CliReason> for DocReason {
    fn from(r: CliReason) -> DocReason {
        DocReason::Cli(r)
    }
}

/// The CLI's own reason codes, beside the tools' (none of them is a tool's code: docs/design.md
/// §9 keeps `failed` for this one fact).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CliReason {
    /// The command line is wrong (exit 2).
    UsageError,
    /// `servers install` could not install a server.
    InstallFailed,
    /// lspedit itself failed outside the tools.
    Failed,
    /// `check`: a file has errors (exit 1).
    LspErrors,
    /// `check`: a file could not be checked (exit 3).
    NotChecked,
}

/// Every `--json` document: the same four keys, then the command's own fields (`data`,
/// flattened). `reason` is `null` when `ok`; `llm_content` is the text a person or a model reads
/// (what the command prints without `--json`, or the refusal); `files` lists the files the
/// command touched or looked at, one [`FileJson`] each, the same shape for every command.
#[derive(Serialize)]
pub struct Doc<T: Serialize> {
    pub ok: bool,
    pub reason: Option<DocReason>,
    pub llm_content: String,
    pub files: Vec<FileJson>,
    #[serde(flatten)]
    pub data: T,
}

/// The message of a refusal's text (`Error: path: reason: message`) without what `files`
/// says in fields of their own.
fn bare_message(text: &str, path: &str, reason: Reason) -> String {
    let text = text.trim_start_matches("Error: ");
    text.strip_prefix(&format!("{path}: {reason}: "))
        .unwrap_or(text)
        .trim_end()
        .to_string()
}

/// A command without fields of its own.
#[derive(Serialize)]
pub struct NoData {}

/// The own fields of a tool's result (`edit`, `write`, `apply`, `check`).
#[derive(Serialize)]
pub struct ToolData {
    /// Each written (or checked) text file's diagnostics status and diagnostics, in path
    /// order.
    pub diagnostics: Vec<DiagnosticsJson>,
}

/// One file's diagnostics: its status (`checked`, `timed_out`, `no_server` or `failed`), why
/// it was not checked, and what the server reported.
#[derive(Serialize)]
pub struct DiagnosticsJson {
    pub path: String,
    pub status: &'static str,
    /// Why the file was not checked, in the provider's words; `null` when checked.
    pub detail: Option<String>,
    /// The diagnostics the text reports (errors by default), sorted by line and column; empty
    /// unless `checked`.
    pub reported: Vec<DiagnosticJson>,
}

/// One diagnostic, as data: 1-based lines and columns.
#[derive(Serialize)]
pub struct DiagnosticJson {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// `error`, `warning`, `info` or `hint`.
    pub severity: &'static str,
    /// The server's code (`2322` for TypeScript, `E0308` for rustc), `null` when none.
    pub code: Option<String>,
    /// Who produced it (`ts`, `rustc`, `Pyright`, ...), `null` when the server does not say.
    pub source: Option<String>,
    pub message: String,
}

impl DiagnosticsJson {
    /// The statuses of a result, in its order.
    pub fn list(statuses: &[FileDiagnosticsStatus]) -> Vec<DiagnosticsJson> {
        statuses
            .iter()
            .map(|s| DiagnosticsJson {
                path: s.path.clone(),
                status: s.status.as_str(),
                detail: s.detail.clone(),
                reported: s
                    .reported
                    .iter()
                    .map(|d| DiagnosticJson {
                        path: s.path.clone(),
                        line: d.line,
                        column: d.column,
                        end_line: d.end_line,
                        end_column: d.end_column,
                        severity: match d.severity {
                            Severity::Error => "error",
                            Severity::Warning => "warning",
                            Severity::Information => "info",
                            Severity::Hint => "hint",
                        },
                        code: d.code.clone(),
                        source: d.source.clone(),
                        message: d.message.clone(),
                    })
                    .collect(),
            })
            .collect()
    }
}

impl Doc<ToolData> {
    /// A tool's result (`edit`, `write`, `apply`, `check`). A refusal of a call about one
    /// file (`about`: `edit`'s and `write`'s file) lists that file as `failed`.
    pub fn tool(r: &ToolResult, about: Option<&str>) -> Self {
        let mut files = files_json(&r.files);
        if let (true, Some(path), Some(reason)) = (files.is_empty(), about, r.reason) {
            files.push(FileJson::failed(
                path,
                reason,
                bare_message(&r.llm_content, path, reason),
            ));
        }
        Doc {
            ok: !r.is_error,
            reason: r.reason.map(DocReason::Tool),
            llm_content: r.llm_content.clone(),
            files,
            data: ToolData {
                diagnostics: DiagnosticsJson::list(&r.diagnostics),
            },
        }
    }
}

/// The fields of a refusal or error outside a tool result.
#[derive(Serialize)]
pub struct ErrorData {
    pub path: Option<String>,
}

impl Doc<ErrorData> {
    /// A refusal before or outside a tool (`reason` is its code), or a usage error
    /// (`usage_error`), an install failure (`install_failed`), a broken session (`failed`).
    /// A refusal about a file lists it in `files` as `failed`.
    pub fn error(reason: impl Into<DocReason>, path: Option<String>, message: String) -> Self {
        let reason = reason.into();
        let files = match (&path, reason) {
            (Some(p), DocReason::Tool(r)) => {
                vec![FileJson::failed(p, r, bare_message(&message, p, r))]
            }
            _ => Vec::new(),
        };
        Doc {
            ok: false,
            reason: Some(reason),
            llm_content: message,
            files,
            data: ErrorData { path },
        }
    }

    pub fn tool_error(e: &ToolError) -> Self {
        Self::error(e.reason, e.path.clone(), format!("Error: {e}"))
    }
}

impl<T: Serialize> Doc<T> {
    /// A successful result with `data`.
    pub fn ok(llm_content: String, files: Vec<FileJson>, data: T) -> Self {
        Doc {
            ok: true,
            reason: None,
            llm_content,
            files,
            data,
        }
    }
}

/// `read`'s own fields.
#[derive(Serialize)]
pub struct ReadData<'a> {
    pub path: &'a str,
    pub base_sha: String,
    pub total_lines: usize,
    /// The hashline view (also in `llm_content`).
    pub content: &'a str,
}

/// `apply --dry-run`'s own field.
#[derive(Serialize)]
pub struct DryRunData {
    /// Files whose content the patch writes (these would get diagnostics).
    pub content_write_files: Vec<String>,
}

/// One file, the same keys in every command's `files`; a key that does not apply is `null`
/// (or an empty list).
#[derive(Serialize)]
pub struct FileJson {
    pub path: String,
    /// `added`, `modified`, `deleted`, `renamed` (a tool changed it), `failed` (refused),
    /// `proposed` (`propose`), `applied` (`apply-id`, `rename`, `fix`, symbol edits),
    /// `restored` (`undo`), `read` (`read`), `checked` / `not_checked` (`check`).
    pub status: &'static str,
    /// One line for a person: `M path (2 hunks, moved +3)`, `FAILED path: reason: message`.
    pub summary: String,
    /// The destination of a rename.
    pub new_path: Option<String>,
    /// The refusal's reason code, for `failed`.
    pub reason: Option<Reason>,
    pub message: Option<String>,
    /// First 12 hex digits of the SHA-256 of the file as read (`read`, `propose`).
    pub base_sha: Option<String>,
    pub added: Option<usize>,
    pub removed: Option<usize>,
    /// Where each hunk was found (tools that applied a patch).
    pub hunks: Vec<HunkJson>,
    /// Fresh anchored lines of each changed block (tools that applied a patch).
    pub sync: Vec<SyncJson>,
}

impl FileJson {
    /// An item with only a path, status and summary.
    pub fn plain(path: &str, status: &'static str, summary: String) -> FileJson {
        FileJson {
            path: path.to_string(),
            status,
            summary,
            new_path: None,
            reason: None,
            message: None,
            base_sha: None,
            added: None,
            removed: None,
            hunks: Vec::new(),
            sync: Vec::new(),
        }
    }

    /// A file a refusal is about.
    pub fn failed(path: &str, reason: Reason, message: String) -> FileJson {
        FileJson {
            reason: Some(reason),
            summary: format!("FAILED {path}: {reason}: {message}"),
            message: Some(message),
            ..FileJson::plain(path, "failed", String::new())
        }
    }
}

#[derive(Serialize)]
pub struct HunkJson {
    pub index: usize,
    pub found_line: usize,
    pub offset: isize,
}

#[derive(Serialize)]
pub struct SyncJson {
    pub start_line: usize,
    pub line_count: usize,
    /// Fresh `42abcd|content` lines; absent when capped (re-read the range).
    pub lines: Option<Vec<String>>,
}

pub fn files_json(files: &[FileReport]) -> Vec<FileJson> {
    files
        .iter()
        .map(|f| {
            let summary = f.summary_line();
            match &f.status {
                FileStatus::Failed(e) => FileJson {
                    reason: Some(e.reason),
                    message: Some(e.message.clone()),
                    ..FileJson::plain(&f.path, "failed", summary)
                },
                FileStatus::Applied(o) => FileJson {
                    path: f.path.clone(),
                    status: match o.action {
                        FileAction::Added => "added",
                        FileAction::Modified => "modified",
                        FileAction::Deleted => "deleted",
                        FileAction::Renamed { .. } => "renamed",
                    },
                    summary,
                    new_path: matches!(o.action, FileAction::Renamed { .. })
                        .then(|| o.path.clone()),
                    reason: None,
                    message: None,
                    base_sha: None,
                    hunks: o
                        .hunks
                        .iter()
                        .map(|h| HunkJson {
                            index: h.index,
                            found_line: h.found_line,
                            offset: h.offset,
                        })
                        .collect(),
                    sync: o
                        .sync
                        .iter()
                        .map(|b| SyncJson {
                            start_line: b.start_line,
                            line_count: b.line_count,
                            lines: b.lines.clone(),
                        })
                        .collect(),
                    added: Some(o.added),
                    removed: Some(o.removed),
                },
            }
        })
        .collect()
}

/// `servers status --json`.
#[derive(Serialize)]
pub struct ServersJson {
    /// Where servers are installed and looked up (see `lspedit::servers::install`).
    pub servers_dir: Option<String>,
    /// `restricted` (the workspace is not trusted) or `trusted`.
    pub mode: &'static str,
    /// `Landlock ABI <n>, seccomp (no sockets)`, `Landlock ABI <n>, no seccomp (network not
    /// closed)` or `unavailable`: the sandbox every server runs in.
    pub sandbox: String,
    pub servers: Vec<ServerJson>,
    /// Processes started by `--probe`, per (server, root).
    pub processes: Vec<ProcessJson>,
    /// What loading the configuration left out, and why.
    pub warnings: Vec<String>,
    /// The workspace's server host, when one runs: its process, idle time and servers.
    pub host: Option<lspedit::lsp::host::HostStatus>,
}

#[derive(Serialize)]
pub struct ProcessJson {
    pub server: String,
    pub root: String,
    /// `stopped`, `starting`, `running`, `backoff` or `broken`.
    pub state: &'static str,
    pub pgid: Option<u32>,
    pub rss_kib: Option<u64>,
    pub open_documents: usize,
    pub crashes: u32,
    pub last_error: Option<String>,
}

/// A server state's name.
pub fn state_name(state: &ServerState) -> &'static str {
    match state {
        ServerState::Stopped => "stopped",
        ServerState::Starting => "starting",
        ServerState::Running => "running",
        ServerState::Backoff { .. } => "backoff",
        ServerState::Broken => "broken",
    }
}

#[derive(Serialize)]
pub struct ServerJson {
    pub id: String,
    pub enabled: bool,
    /// `ready`, `missing`, `outdated` or `disabled`.
    pub state: &'static str,
    pub priority: i32,
    pub extensions: Vec<String>,
    pub binary: Option<String>,
    /// Which key of the declaration named `binary`: `command`, `native` (its
    /// `platform_commands` entry for `platform`) or `fallback` (`command`, as the native
    /// program of `platform` is not installed).
    pub binary_from: Option<&'static str>,
    /// This machine's platform as Node names it (`linux-x64`), for `native` and `fallback`.
    pub platform: Option<String>,
    pub version: Option<String>,
    pub pinned: Option<String>,
    pub install: Option<String>,
    pub problem: Option<String>,
    /// `restricted` or `trusted`.
    pub mode: &'static str,
    /// As `sandbox` above: `Landlock ABI <n>, seccomp (no sockets)`, ... or `unavailable`.
    pub sandbox: String,
    /// What lspedit changes or turns off for this server here (restricted mode, the bundled
    /// TypeScript).
    pub limits: Vec<String>,
}

impl ServerJson {
    fn from(i: &ServerInfo) -> ServerJson {
        ServerJson {
            id: i.id.clone(),
            enabled: i.enabled,
            state: i.state.as_str(),
            priority: i.priority,
            extensions: i.extensions.clone(),
            binary: i.binary.as_deref().map(|b| b.display().to_string()),
            binary_from: i.binary_from.as_ref().map(|f| match f {
                ProgramFrom::Command => "command",
                ProgramFrom::Platform(_) => "native",
                ProgramFrom::Fallback { .. } => "fallback",
            }),
            platform: i.binary_from.as_ref().and_then(|f| match f {
                ProgramFrom::Command => None,
                ProgramFrom::Platform(p) | ProgramFrom::Fallback { platform: p, .. } => {
                    Some(p.clone())
                }
            }),
            version: i.version.clone(),
            pinned: i.pinned.clone(),
            install: i.recipe.clone(),
            mode: i.launch.mode.as_str(),
            sandbox: i.launch.sandbox.describe(),
            limits: i.launch.limits.clone(),
            problem: i.problem.clone(),
        }
    }
}

impl ServersJson {
    pub fn new(
        servers_dir: Option<&Path>,
        mode: lspedit::servers::launch::Mode,
        infos: &[ServerInfo],
        processes: &[ServerStatus],
        warnings: &[String],
    ) -> ServersJson {
        ServersJson {
            servers_dir: servers_dir.map(|d| d.display().to_string()),
            mode: mode.as_str(),
            sandbox: lspedit::process::sandbox::support().describe(),
            servers: infos.iter().map(ServerJson::from).collect(),
            processes: processes
                .iter()
                .map(|p| ProcessJson {
                    server: p.key.server.clone(),
                    root: p.key.root.display().to_string(),
                    state: state_name(&p.state),
                    pgid: p.pgid,
                    rss_kib: p.rss_kib,
                    open_documents: p.open_documents,
                    crashes: p.crashes,
                    last_error: p.last_error.clone(),
                })
                .collect(),
            warnings: warnings.to_vec(),
            host: None,
        }
    }

    /// With the status of the workspace's server host.
    pub fn with_host(mut self, host: Option<lspedit::lsp::host::HostStatus>) -> Self {
        self.host = host;
        self
    }
}

/// `servers stop --json`.
#[derive(Serialize)]
pub struct HostStopJson {
    /// What the stopped host ran; `null` when none ran.
    pub stopped: Option<lspedit::lsp::host::HostStatus>,
}

/// `servers install --json`.
#[derive(Serialize)]
pub struct InstalledJson {
    pub servers: Vec<InstalledServerJson>,
}

#[derive(Serialize)]
pub struct InstalledServerJson {
    pub id: String,
    /// `false` when it was already installed at the pinned version.
    pub changed: bool,
    pub binary: Option<String>,
    pub version: Option<String>,
    /// Why it is not usable after the install, `null` when it is.
    pub error: Option<String>,
}

impl InstalledJson {
    pub fn list(done: &[Installed]) -> InstalledJson {
        InstalledJson {
            servers: done
                .iter()
                .map(|d| InstalledServerJson {
                    id: d.id.clone(),
                    changed: d.changed,
                    binary: d.info.binary.as_deref().map(|b| b.display().to_string()),
                    version: d.info.version.clone(),
                    error: d.failure.as_ref().map(ToString::to_string),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn reason_of<T: Serialize>(doc: &Doc<T>) -> Value {
        serde_json::to_value(doc).unwrap()["reason"].clone()
    }

    // The reason codes are the CLI's protocol (README, docs/design.md §9): typing them must not
    // change one byte of them.
    #[test]
    fn reasons_serialize_to_their_codes() {
        for &r in Reason::ALL {
            let doc = Doc::error(r, None, String::new());
            assert_eq!(reason_of(&doc), Value::from(r.as_str()));
            let file = FileJson {
                reason: Some(r),
                ..FileJson::plain("a.txt", "failed", String::new())
            };
            assert_eq!(
                serde_json::to_value(&file).unwrap()["reason"],
                Value::from(r.as_str())
            );
        }
        for (r, code) in [
            (CliReason::UsageError, "usage_error"),
            (CliReason::InstallFailed, "install_failed"),
            (CliReason::Failed, "failed"),
            (CliReason::LspErrors, "lsp_errors"),
            (CliReason::NotChecked, "not_checked"),
        ] {
            assert_eq!(
                reason_of(&Doc::error(r, None, String::new())),
                Value::from(code)
            );
            assert!(
                Reason::from_code(code).is_none(),
                "`{code}` is a tool's code too"
            );
        }
    }

    #[test]
    fn an_ok_document_has_a_null_reason() {
        let doc = Doc::ok(String::new(), Vec::new(), NoData {});
        assert_eq!(
            serde_json::to_value(&doc).unwrap(),
            json!({"ok": true, "reason": null, "llm_content": "", "files": []})
        );
    }
}
