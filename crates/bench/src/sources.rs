//! Real source files for the reliability generator: the repository's own crates, its test
//! projects and the crate sources cargo has downloaded, listed in sorted path order so a seed
//! picks the same files on every run over the same trees.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::generate::Rng;

/// Files shorter than this give too little room for 4 hunks with drift between them; files
/// longer than this only make every case slower without exercising anything new.
const MIN_LINES: usize = 60;
const MAX_LINES: usize = 4_000;
/// The registry holds many thousands of files: a bounded, sorted prefix of each crate keeps
/// the walk cheap while still spanning every downloaded crate.
const MAX_FILES_PER_REGISTRY_CRATE: usize = 8;

/// A source file as lines without terminators (the file was LF-terminated and valid UTF-8).
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Where it came from, for reports (`crates/engine/src/apply.rs`, `registry:serde-1.0/…`).
    pub origin: String,
    pub lines: Vec<String>,
}

/// The groups files are drawn from, each with its sorted candidate paths.
#[derive(Debug)]
pub struct Sources {
    groups: Vec<(&'static str, Vec<PathBuf>)>,
    cache: HashMap<PathBuf, Option<SourceFile>>,
}

impl Sources {
    /// Collect candidates under the workspace `root` (crates/**/*.rs, test-projects/) and, with
    /// `registry`, under `~/.cargo/registry/src` (`$CARGO_HOME` respected).
    pub fn collect(root: &Path, registry: bool) -> Sources {
        let mut groups = Vec::new();
        let mut own = Vec::new();
        walk(&root.join("crates"), &mut own, &|p| has_ext(p, &["rs"]));
        own.sort();
        groups.push(("crates", own));
        let mut projects = Vec::new();
        walk(&root.join("test-projects"), &mut projects, &|p| {
            has_ext(p, &["rs", "ts", "js", "py", "c", "h"])
        });
        projects.sort();
        groups.push(("test-projects", projects));
        if registry && let Some(dir) = registry_src() {
            let mut files = Vec::new();
            // One level per registry index, one per crate version: cap each crate's share.
            for index in sorted_dirs(&dir) {
                for krate in sorted_dirs(&index) {
                    let mut mine = Vec::new();
                    walk(&krate, &mut mine, &|p| has_ext(p, &["rs"]));
                    mine.sort();
                    mine.truncate(MAX_FILES_PER_REGISTRY_CRATE);
                    files.extend(mine);
                }
            }
            groups.push(("registry", files));
        }
        groups.retain(|(_, files)| !files.is_empty());
        Sources {
            groups,
            cache: HashMap::new(),
        }
    }

    /// How many candidate files each group holds, for the report.
    pub fn summary(&self) -> String {
        self.groups
            .iter()
            .map(|(name, files)| format!("{name}: {} files", files.len()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A usable file chosen by `rng`: a group first (so the repository's own sources are not
    /// drowned by the registry), then a file in it. `None` only when no group has a usable file.
    pub fn pick(&mut self, rng: &mut Rng) -> Option<SourceFile> {
        if self.groups.is_empty() {
            return None;
        }
        for _ in 0..200 {
            let g = rng.below(self.groups.len() as u64) as usize;
            let files = &self.groups[g].1;
            let path = files[rng.below(files.len() as u64) as usize].clone();
            let group = self.groups[g].0;
            let loaded = self
                .cache
                .entry(path.clone())
                .or_insert_with(|| load(group, &path))
                .clone();
            if loaded.is_some() {
                return loaded;
            }
        }
        None
    }
}

/// A file usable as generator input: UTF-8, no NUL, LF only, ending in a newline, and of a
/// length between the bounds (CRLF and a missing final newline are added by the generator).
fn load(group: &str, path: &Path) -> Option<SourceFile> {
    let bytes = fs::read(path).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    if text.contains('\0') || text.contains('\r') || !text.ends_with('\n') {
        return None;
    }
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    if !(MIN_LINES..=MAX_LINES).contains(&lines.len()) {
        return None;
    }
    let origin = match path.to_str() {
        Some(p) => match p.find(group) {
            Some(i) => p[i..].to_string(),
            None => p.to_string(),
        },
        None => path.display().to_string(),
    };
    Some(SourceFile { origin, lines })
}

fn has_ext(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.contains(&e))
}

/// Files under `dir` accepted by `keep`, skipping hidden, build and dependency folders.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, keep: &dyn Fn(&Path) -> bool) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || ["target", "node_modules", "__pycache__"].contains(&&*name) {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            walk(&path, out, keep);
        } else if kind.is_file() && keep(&path) {
            out.push(path);
        }
    }
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

fn registry_src() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let dir = home.join("registry").join("src");
    dir.is_dir().then_some(dir)
}
