//! Isolated validation: copy the workspace (or the affected tree) to a temporary directory,
//! apply the change there, run a configured command in it with a deadline, and report. The
//! workspace is never touched here; the temporary copy is removed on every path out.
//!
//! The command runs in its own process group with stdout and stderr on one pipe (so their lines
//! keep their order); on timeout the whole group is killed, since build tools fork (cargo runs
//! rustc, `tsc` runs node). Waiting is on the child's exit with a deadline, never a sleep.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use lspedit_write::{Reason, ToolError};

/// Directories never copied into the validation sandbox, at any depth: lspedit's own state,
/// build output and dependency caches (the command rebuilds or resolves what it needs).
const SKIPPED_DIRS: &[&str] = &[".lspedit", ".git", "target", "node_modules"];

/// How much of the command's output is kept for the report.
const TAIL_MAX_BYTES: usize = 8 * 1024;
const TAIL_MAX_LINES: usize = 40;

/// What the sandbox holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CopyScope {
    /// The whole workspace minus `.lspedit`, `.git`, `target`, `node_modules`; the command runs
    /// at the copy's root.
    #[default]
    Workspace,
    /// Only the deepest directory holding every changed file (same relative layout); the
    /// command runs in that directory's copy.
    Affected,
}

/// The command that validates a change, e.g. `cargo check` or `tsc --noEmit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationCommand {
    pub program: String,
    pub args: Vec<String>,
    pub copy: CopyScope,
}

impl ValidationCommand {
    pub fn new(program: impl Into<String>, args: &[&str]) -> ValidationCommand {
        ValidationCommand {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_string()).collect(),
            copy: CopyScope::Workspace,
        }
    }

    /// The command line as shown in reports.
    pub fn display(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The result of a validation run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationReport {
    pub command: String,
    pub passed: bool,
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The last lines of stdout and stderr, interleaved as written.
    pub output_tail: String,
    pub duration_ms: u64,
}

/// Copy the sandbox, apply `changes` (path → new bytes, `None` = delete) in it and run `cmd`.
/// `Err` only when the sandbox cannot be built or the command cannot be started.
pub(crate) fn run_isolated(
    root: &Path,
    changes: &[(String, Option<&[u8]>)],
    cmd: &ValidationCommand,
    timeout: Duration,
) -> Result<ValidationReport, ToolError> {
    let sandbox = tempfile::Builder::new()
        .prefix("lspedit-validate-")
        .tempdir()
        .map_err(|e| ToolError::io("(validation sandbox)", "creating", &e))?;
    let base = match cmd.copy {
        CopyScope::Workspace => PathBuf::new(),
        CopyScope::Affected => common_dir(changes.iter().map(|(p, _)| p.as_str())),
    };
    let src = root.join(&base);
    let dst = sandbox.path().join(&base);
    fs::create_dir_all(&dst).map_err(|e| ToolError::io("(validation sandbox)", "creating", &e))?;
    if src.is_dir() {
        copy_tree(&src, &dst).map_err(|e| {
            ToolError::io(
                &base.to_string_lossy(),
                "copying into the validation sandbox",
                &e,
            )
        })?;
    }
    for (path, new) in changes {
        let target = sandbox.path().join(path);
        let r = match new {
            Some(bytes) => target
                .parent()
                .map_or(Ok(()), fs::create_dir_all)
                .and_then(|()| fs::write(&target, bytes)),
            None => match fs::remove_file(&target) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        r.map_err(|e| ToolError::io(path, "writing into the validation sandbox", &e))?;
    }
    tracing::debug!(command = %cmd.display(), sandbox = %dst.display(), "running the validation command");
    // `sandbox` outlives the run and is dropped on every way out, removing the copy.
    run_with_deadline(cmd, &dst, timeout)
}

/// The deepest directory containing every path (relative, `/`-separated); empty for the root.
fn common_dir<'a>(paths: impl Iterator<Item = &'a str>) -> PathBuf {
    let mut common: Option<Vec<String>> = None;
    for p in paths {
        let dirs: Vec<String> = Path::new(p)
            .parent()
            .map(|d| {
                d.components()
                    .filter_map(|c| match c {
                        Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        common = Some(match common {
            None => dirs,
            Some(c) => c
                .into_iter()
                .zip(dirs)
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| a)
                .collect(),
        });
    }
    common.unwrap_or_default().iter().collect()
}

/// Recursive copy keeping symlinks as symlinks and skipping [`SKIPPED_DIRS`] and special files.
fn copy_tree(src: &Path, dst: &Path) -> io::Result<()> {
    for entry in fs::read_dir(src)? {
        let entry = entry?;
        let name = entry.file_name();
        let from = entry.path();
        let to = dst.join(&name);
        let ty = entry.file_type()?;
        if ty.is_dir() {
            if SKIPPED_DIRS.iter().any(|s| name == *s) {
                continue;
            }
            fs::create_dir_all(&to)?;
            copy_tree(&from, &to)?;
        } else if ty.is_symlink() {
            copy_link(&from, &to)?;
        } else if ty.is_file() {
            fs::copy(&from, &to)?;
        }
    }
    Ok(())
}

/// Make `to` a symlink with the target of the symlink `from`.
#[cfg(unix)]
fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(fs::read_link(from)?, to)
}

/// Make `to` a symlink with the target of the symlink `from`: a directory link when `from` is
/// one (Windows tells the two apart), else a file link. Creating a symlink on Windows takes
/// the privilege or Developer Mode; without it the copy fails, and so the validation, with the
/// error saying so, rather than running on a tree without the link.
#[cfg(windows)]
fn copy_link(from: &Path, to: &Path) -> io::Result<()> {
    use std::os::windows::fs::{FileTypeExt, symlink_dir, symlink_file};
    let target = fs::read_link(from)?;
    if fs::symlink_metadata(from)?.file_type().is_symlink_dir() {
        symlink_dir(target, to)
    } else {
        symlink_file(target, to)
    }
}

/// Run `cmd` in `cwd` through the one bounded-run helper (own process group, killed whole at
/// the deadline and on return, output merged and capped).
fn run_with_deadline(
    cmd: &ValidationCommand,
    cwd: &Path,
    timeout: Duration,
) -> Result<ValidationReport, ToolError> {
    let shown = cmd.display();
    let mut command = Command::new(&cmd.program);
    command.args(&cmd.args).current_dir(cwd);
    let run = lspedit_process::run_bounded(
        &mut command,
        timeout,
        lspedit_process::Capture::Merged,
        TAIL_MAX_BYTES * 4,
    )
    .map_err(|e| {
        ToolError::new(
            Reason::ValidationFailed,
            None,
            format!("the validation command `{shown}` could not be started: {e}"),
        )
    })?;
    if run.timed_out {
        tracing::warn!(command = %shown, ?timeout, "validation command timed out; its process group was killed");
    }
    Ok(ValidationReport {
        command: shown,
        passed: run.success(),
        exit_code: run.status.and_then(|s| s.code()),
        timed_out: run.timed_out,
        output_tail: output_tail(&run.stdout),
        duration_ms: u64::try_from(run.elapsed.as_millis()).unwrap_or(u64::MAX),
    })
}

/// The last [`TAIL_MAX_LINES`] lines, at most [`TAIL_MAX_BYTES`] bytes, lossily decoded.
fn output_tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = lines[lines.len().saturating_sub(TAIL_MAX_LINES)..].join("\n");
    if out.len() > TAIL_MAX_BYTES {
        let mut cut = out.len() - TAIL_MAX_BYTES;
        while !out.is_char_boundary(cut) {
            cut += 1;
        }
        out = out[cut..].to_string();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_dir_is_the_deepest_shared_parent() {
        let check = |paths: &[&str], expected: &str| {
            assert_eq!(
                common_dir(paths.iter().copied()),
                PathBuf::from(expected),
                "{paths:?}"
            );
        };
        check(&["backend/a/x.go", "backend/a/y.go"], "backend/a");
        check(&["backend/a/x.go", "backend/b/y.go"], "backend");
        check(&["backend/x.go", "top.go"], "");
        check(&["one/file.rs"], "one");
    }

    #[test]
    fn tail_keeps_the_last_lines() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let tail = output_tail(text.as_bytes());
        assert!(tail.starts_with("line 61\n"), "{tail}");
        assert!(tail.ends_with("line 100"), "{tail}");
    }
}
