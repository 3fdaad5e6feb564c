//! The regex proposer's scan: walk the files a glob scope names (respecting `.gitignore`,
//! `.ignore` and `.git/info/exclude`, never entering `.git/` or `.lspedit/`), skip binary,
//! non-UTF-8 and oversized files, and compute each file's replacement in memory.
//!
//! Scope globs are matched against `/`-separated workspace-relative paths; `*` stays within a
//! path component and `**` crosses them (`backend/**/*.go`). A glob starting with `!` excludes;
//! a plain directory name (`backend` or `backend/`) means everything under it. The walk starts
//! at each glob's literal directory prefix, so `backend/**` never reads `frontend/`.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use lspedit_engine::check_text;
use regex::{Captures, Regex};

use lspedit_write::Workspace;
use lspedit_write::{Reason, ToolError};

/// A file whose content the replacement changes.
#[derive(Debug, Clone)]
pub(crate) struct ScannedFile {
    pub path: String,
    pub old: Vec<u8>,
    pub new: String,
    pub replacements: usize,
}

/// The scan's result.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScanOutput {
    pub changed: Vec<ScannedFile>,
    pub files_scanned: usize,
    pub files_skipped: usize,
}

/// Directory names the scan never enters.
const NEVER_ENTER: &[&str] = &[".git", ".lspedit"];

fn bad_input(message: String) -> ToolError {
    ToolError::new(Reason::InvalidDiffFormat, None, message)
}

fn glob(pattern: &str) -> Result<Glob, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| bad_input(format!("the scope glob `{pattern}` is invalid: {e}")))
}

/// Scope entry → (glob pattern, walk base). A directory named without glob characters means
/// everything under it.
fn expand(ws: &Workspace, entry: &str) -> (String, PathBuf) {
    let trimmed = entry.trim_start_matches("./");
    let is_meta = |s: &str| s.contains(['*', '?', '[', '{', '\\']);
    let plain_dir = !is_meta(trimmed)
        && (trimmed.ends_with('/') || ws.root().join(trimmed).is_dir())
        && !trimmed.is_empty();
    let pattern = if plain_dir {
        format!("{}/**", trimmed.trim_end_matches('/'))
    } else {
        trimmed.to_string()
    };
    let parts: Vec<&str> = pattern.split('/').collect();
    let base: PathBuf = parts[..parts.len().saturating_sub(1)]
        .iter()
        .take_while(|p| !is_meta(p))
        .collect();
    (pattern, base)
}

/// The languages [`language_globs`] knows, for messages.
pub(crate) const LANGUAGES: &[&str] = &[
    "rust",
    "typescript",
    "javascript",
    "python",
    "go",
    "java",
    "c",
    "cpp",
];

/// The scope globs of a language's source files, by extension (`rust` → `**/*.rs`); `None`
/// for another language. Known: rust, typescript, javascript, python, go, java, c, cpp;
/// case-insensitive, with the aliases `rs`, `ts`, `js`, `py` and `c++`.
pub fn language_globs(language: &str) -> Option<&'static [&'static str]> {
    let globs: &'static [&'static str] = match language.trim().to_ascii_lowercase().as_str() {
        "rust" | "rs" => &["**/*.rs"],
        "typescript" | "ts" => &["**/*.ts", "**/*.tsx", "**/*.mts", "**/*.cts"],
        "javascript" | "js" => &["**/*.js", "**/*.jsx", "**/*.mjs", "**/*.cjs"],
        "python" | "py" => &["**/*.py", "**/*.pyi"],
        "go" => &["**/*.go"],
        "java" => &["**/*.java"],
        "c" => &["**/*.c", "**/*.h"],
        "cpp" | "c++" => &[
            "**/*.cc", "**/*.cpp", "**/*.cxx", "**/*.hh", "**/*.hpp", "**/*.hxx",
        ],
        _ => return None,
    };
    Some(globs)
}

/// Whether the workspace-relative `path` is one of `language`'s files (by
/// [`language_globs`]); `None` when the language is not one lspedit knows.
pub(crate) fn is_language_file(language: &str, path: &str) -> Option<bool> {
    let globs = language_globs(language)?;
    let mut set = GlobSetBuilder::new();
    for g in globs {
        set.add(glob(g).ok()?);
    }
    let set = set.build().ok()?;
    Some(set.is_match(path.trim_start_matches("./")))
}

/// Run `pattern` → `replacement` over the files of `scope` (every file when empty).
pub(crate) fn scan(
    ws: &Workspace,
    pattern: &str,
    replacement: &str,
    scope: &[String],
    max_file_bytes: u64,
) -> Result<ScanOutput, ToolError> {
    let re = Regex::new(pattern).map_err(|e| {
        bad_input(format!(
            "the pattern is not a valid regular expression: {e}"
        ))
    })?;
    let mut include = GlobSetBuilder::new();
    let mut exclude = GlobSetBuilder::new();
    let mut bases: Vec<PathBuf> = Vec::new();
    let mut any_include = false;
    for entry in scope.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        if let Some(neg) = entry.strip_prefix('!') {
            let (pat, _) = expand(ws, neg);
            exclude.add(glob(&pat)?);
        } else {
            let (pat, base) = expand(ws, entry);
            if pat.starts_with('/') || pat.split('/').any(|c| c == "..") {
                return Err(ToolError::new(
                    Reason::PathOutsideWorkspace,
                    Some(entry),
                    "scope globs are relative to the workspace root and may not use `..`",
                ));
            }
            include.add(glob(&pat)?);
            bases.push(base);
            any_include = true;
        }
    }
    if !any_include {
        include.add(glob("**")?);
        bases.push(PathBuf::new());
    }
    let build = |b: GlobSetBuilder| {
        b.build()
            .map_err(|e| bad_input(format!("the scope globs are invalid: {e}")))
    };
    let (include, exclude) = (build(include)?, build(exclude)?);
    // Walk each base once; a base inside another is covered by the outer walk.
    bases.sort();
    bases.dedup();
    let bases: Vec<PathBuf> = bases
        .iter()
        .filter(|b| !bases.iter().any(|o| o != *b && b.starts_with(o)))
        .cloned()
        .collect();

    let mut paths: Vec<String> = Vec::new();
    for base in &bases {
        let start = ws.root().join(base);
        if !start.is_dir() {
            continue;
        }
        walk(ws.root(), &start, &include, &exclude, &mut paths);
    }
    paths.sort();
    paths.dedup();

    let mut out = ScanOutput::default();
    for rel in paths {
        match scan_file(ws, &rel, &re, replacement, max_file_bytes) {
            Scanned::Skipped(why) => {
                tracing::debug!(path = %rel, why, "skipped by the scan");
                out.files_skipped += 1;
            }
            Scanned::Unchanged => out.files_scanned += 1,
            Scanned::Changed(f) => {
                out.files_scanned += 1;
                out.changed.push(f);
            }
        }
    }
    Ok(out)
}

fn walk(root: &Path, start: &Path, include: &GlobSet, exclude: &GlobSet, out: &mut Vec<String>) {
    let walker = ignore::WalkBuilder::new(start)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        // The user's global gitignore would make the result depend on the machine.
        .git_global(false)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && NEVER_ENTER.iter().any(|n| e.file_name() == *n))
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                tracing::debug!(error = %e, "walk error skipped");
                continue;
            }
        };
        // Symlinks are not followed: a link's target is edited through its own path, if in scope.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        if include.is_match(&rel) && !exclude.is_match(&rel) {
            out.push(rel);
        }
    }
}

enum Scanned {
    Skipped(&'static str),
    Unchanged,
    Changed(ScannedFile),
}

fn scan_file(
    ws: &Workspace,
    rel: &str,
    re: &Regex,
    replacement: &str,
    max_file_bytes: u64,
) -> Scanned {
    let Ok(abs) = ws.resolve(rel) else {
        return Scanned::Skipped("outside the workspace");
    };
    if std::fs::metadata(&abs).is_ok_and(|m| m.len() > max_file_bytes) {
        return Scanned::Skipped("too large");
    }
    let Ok(bytes) = std::fs::read(&abs) else {
        return Scanned::Skipped("unreadable");
    };
    if check_text(&bytes).is_err() {
        return Scanned::Skipped("binary");
    }
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Scanned::Skipped("not UTF-8");
    };
    if !re.is_match(text) {
        return Scanned::Unchanged;
    }
    let mut count = 0;
    let new = re.replace_all(text, |caps: &Captures<'_>| {
        count += 1;
        let mut dst = String::new();
        caps.expand(replacement, &mut dst);
        dst
    });
    if new == text {
        return Scanned::Unchanged;
    }
    let new = new.into_owned();
    Scanned::Changed(ScannedFile {
        path: rel.to_string(),
        old: bytes,
        new,
        replacements: count,
    })
}
