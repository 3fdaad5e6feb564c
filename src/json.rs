//! JSON shapes of the CLI's `--json` output. Only the CLI serializes (DESIGN.md §1).

use lspedit::engine::FileAction;
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
    pub llm_content: String,
    pub files: Vec<FileJson>,
}

impl From<&ToolResult> for ToolJson {
    fn from(r: &ToolResult) -> Self {
        ToolJson {
            ok: !r.is_error,
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
