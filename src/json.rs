//! JSON shapes of the CLI's `--json` output. Only the CLI serializes (DESIGN.md §1).

use std::path::Path;

use lspedit::engine::FileAction;
use lspedit::lsp::{ServerState, ServerStatus};
use lspedit::servers::{Installed, ServerInfo};
use lspedit::tools::{FileReport, FileStatus, PatchReport, ToolError, ToolResult};
use serde::Serialize;

#[derive(Serialize)]
pub struct ReadJson<'a> {
    pub path: &'a str,
    pub base_sha: String,
    pub total_lines: usize,
    pub content: &'a str,
}

#[derive(Serialize)]
pub struct ErrorJson {
    pub ok: bool,
    pub reason: &'static str,
    pub path: Option<String>,
    pub message: String,
}

impl From<&ToolError> for ErrorJson {
    fn from(e: &ToolError) -> Self {
        ErrorJson {
            ok: false,
            reason: e.reason.as_str(),
            path: e.path.clone(),
            message: e.message.clone(),
        }
    }
}

#[derive(Serialize)]
pub struct ReportJson {
    pub ok: bool,
    pub files: Vec<FileJson>,
    pub content_write_files: Vec<String>,
}

#[derive(Serialize)]
pub struct FileJson {
    pub path: String,
    pub status: &'static str,
    pub summary: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    pub hunks: Vec<HunkJson>,
    pub sync: Vec<SyncJson>,
    pub added: usize,
    pub removed: usize,
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

/// A tool's result: what the model reads, and the per-file report.
#[derive(Serialize)]
pub struct ToolJson {
    pub ok: bool,
    /// The refusal's reason code (of the whole call, or of the first refused file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
    pub llm_content: String,
    pub files: Vec<FileJson>,
}

impl From<&ToolResult> for ToolJson {
    fn from(r: &ToolResult) -> Self {
        ToolJson {
            ok: !r.is_error,
            reason: r.reason.map(|x| x.as_str()),
            llm_content: r.llm_content.clone(),
            files: files_json(&r.files),
        }
    }
}

impl From<&PatchReport> for ReportJson {
    fn from(r: &PatchReport) -> Self {
        ReportJson {
            ok: r.all_applied(),
            files: files_json(&r.files),
            content_write_files: r.classification.content_write_files.clone(),
        }
    }
}

fn files_json(files: &[FileReport]) -> Vec<FileJson> {
    files
        .iter()
        .map(|f| {
            let summary = f.summary_line();
            match &f.status {
                FileStatus::Failed(e) => FileJson {
                    path: f.path.clone(),
                    status: "failed",
                    summary,
                    new_path: None,
                    reason: Some(e.reason.as_str()),
                    message: Some(e.message.clone()),
                    hunks: Vec::new(),
                    sync: Vec::new(),
                    added: 0,
                    removed: 0,
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
                    added: o.added,
                    removed: o.removed,
                },
            }
        })
        .collect()
}

/// `servers status --json`.
#[derive(Serialize)]
pub struct ServersJson {
    /// Where servers are installed and looked up (see `lspedit::servers`).
    pub servers_dir: Option<String>,
    pub servers: Vec<ServerJson>,
    /// Processes started by `--probe`, per (server, root).
    pub processes: Vec<ProcessJson>,
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
    pub version: Option<String>,
    pub pinned: Option<String>,
    pub install: Option<String>,
    pub problem: Option<String>,
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
            version: i.version.clone(),
            pinned: i.pinned.clone(),
            install: i.recipe.clone(),
            problem: i.problem.clone(),
        }
    }
}

impl ServersJson {
    pub fn new(
        servers_dir: Option<&Path>,
        infos: &[ServerInfo],
        processes: &[ServerStatus],
    ) -> ServersJson {
        ServersJson {
            servers_dir: servers_dir.map(|d| d.display().to_string()),
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
        }
    }
}

/// `servers install --json`.
#[derive(Serialize)]
pub struct InstalledJson {
    pub ok: bool,
    pub servers: Vec<InstalledServerJson>,
}

#[derive(Serialize)]
pub struct InstalledServerJson {
    pub id: String,
    /// `false` when it was already installed at the pinned version.
    pub changed: bool,
    pub binary: Option<String>,
    pub version: Option<String>,
}

impl InstalledJson {
    pub fn list(done: &[Installed]) -> InstalledJson {
        InstalledJson {
            ok: true,
            servers: done
                .iter()
                .map(|d| InstalledServerJson {
                    id: d.id.clone(),
                    changed: d.changed,
                    binary: d.info.binary.as_deref().map(|b| b.display().to_string()),
                    version: d.info.version.clone(),
                })
                .collect(),
        }
    }
}
