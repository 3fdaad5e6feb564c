//! Which files import a changed file: the candidates whose diagnostics a change may break, for
//! servers that answer only for the documents they are asked about (pull servers).
//!
//! A textual scan, not a resolver: TypeScript/JavaScript relative specifiers (`from "./price"`,
//! `import("../x")`, `require("./y")`) that name the changed file without its extension (or its
//! directory's `index`), and Python `import` / `from … import` statements naming the changed
//! module (`app.price`, `.price`, `price`). It may include a file that does not really import the
//! changed one (harmless: its diagnostics are compared before and after, and an unchanged file
//! reports nothing) and miss path aliases or re-exports through other modules. Bounded: at most
//! [`MAX_SCANNED`] files read, of at most [`MAX_FILE_BYTES`] each, hidden directories and
//! dependency or build directories skipped.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// At most this many files are read per scan.
const MAX_SCANNED: usize = 2000;
/// Files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 512 * 1024;
/// Directories never entered.
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "dist",
    "build",
    "out",
    "__pycache__",
    "venv",
];

/// Files under `root` with one of `extensions` that import one of `changed`, sorted, at most
/// `limit`, the changed files themselves left out.
pub(crate) fn importers(
    root: &Path,
    changed: &[PathBuf],
    extensions: &[&str],
    limit: usize,
) -> Vec<PathBuf> {
    let targets: Vec<Target> = changed
        .iter()
        .filter_map(|p| Target::new(root, p))
        .collect();
    if targets.is_empty() || limit == 0 {
        return Vec::new();
    }
    let mut found = BTreeSet::new();
    let mut scanned = 0usize;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
                continue;
            }
            if !kind.is_file() || changed.contains(&path) {
                continue;
            }
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            if !extensions.contains(&ext) {
                continue;
            }
            if entry.metadata().map(|m| m.len()).unwrap_or(u64::MAX) > MAX_FILE_BYTES {
                continue;
            }
            scanned += 1;
            if scanned > MAX_SCANNED {
                return found.into_iter().take(limit).collect();
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            if targets.iter().any(|t| t.imported_by(root, &path, &text)) {
                found.insert(path);
            }
        }
    }
    found.into_iter().take(limit).collect()
}

/// A changed file as import statements name it.
struct Target {
    /// The path without its extension (`/ws/src/price`).
    stem_path: PathBuf,
    /// The file name without its extension (`price`).
    stem: String,
    /// Python module path relative to the root (`app.price`), when it is a Python file.
    module: Option<String>,
}

impl Target {
    fn new(root: &Path, path: &Path) -> Option<Target> {
        let stem = path.file_stem()?.to_str()?.to_owned();
        let module = (path.extension().and_then(|e| e.to_str()) == Some("py"))
            .then(|| {
                let rel = path.strip_prefix(root).ok()?.with_extension("");
                let parts: Vec<&str> = rel.iter().filter_map(|c| c.to_str()).collect();
                Some(parts.join("."))
            })
            .flatten();
        Some(Target {
            stem_path: path.with_extension(""),
            stem,
            module,
        })
    }

    fn imported_by(&self, root: &Path, importer: &Path, text: &str) -> bool {
        let python = importer.extension().and_then(|e| e.to_str()) == Some("py");
        text.lines().any(|line| {
            let line = line.trim();
            if python {
                self.python_import(line)
            } else {
                self.js_import(root, importer, line)
            }
        })
    }

    /// `from app.price import x`, `from .price import x`, `import app.price`, `import price`.
    fn python_import(&self, line: &str) -> bool {
        let Some(module) = &self.module else {
            return false;
        };
        let named = if let Some(rest) = line.strip_prefix("from ") {
            rest.split_whitespace().next().unwrap_or("")
        } else if let Some(rest) = line.strip_prefix("import ") {
            rest.split([',', ' ']).next().unwrap_or("")
        } else {
            return false;
        };
        let bare = named.trim_start_matches('.');
        bare == module.as_str()
            || (!bare.is_empty() && module.ends_with(&format!(".{bare}")))
            || bare == self.stem
    }

    /// A relative specifier in quotes after `from`, `import(` or `require(` that resolves to
    /// this file without its extension, or to its directory when the file is an `index`.
    fn js_import(&self, _root: &Path, importer: &Path, line: &str) -> bool {
        if !(line.contains("from ")
            || line.contains("import(")
            || line.contains("require(")
            || line.starts_with("import "))
        {
            return false;
        }
        let Some(dir) = importer.parent() else {
            return false;
        };
        specifiers(line).into_iter().any(|spec| {
            if !spec.starts_with("./") && !spec.starts_with("../") {
                return false;
            }
            let resolved = normalize(&dir.join(spec));
            let resolved = resolved.with_extension("");
            resolved == self.stem_path
                || (self.stem == "index" && Some(resolved.as_path()) == self.stem_path.parent())
                || normalize(&dir.join(spec)) == self.stem_path
        })
    }
}

/// The quoted strings of a line.
fn specifiers(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest.as_bytes()[start] as char;
        let after = &rest[start + 1..];
        let Some(end) = after.find(quote) else { break };
        out.push(&after[..end]);
        rest = &after[end + 1..];
    }
    out
}

/// `a/./b/../c` → `a/c`, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(files: &[(&str, &str)], changed: &str, expected: &[&str]) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (p, text) in files {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let got = importers(&root, &[root.join(changed)], &["ts", "tsx", "js", "py"], 10);
        let got: Vec<String> = got
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn typescript_relative_specifiers() {
        check(
            &[
                ("src/price.ts", "export function price() {}"),
                ("src/cart.ts", "import { price } from \"./price\";"),
                ("src/other/view.ts", "import { price } from '../price';"),
                ("src/lazy.ts", "const m = import('./price.js');"),
                ("src/unrelated.ts", "import { x } from \"./pricey\";"),
                (
                    "node_modules/p/index.ts",
                    "import { price } from \"../../src/price\";",
                ),
            ],
            "src/price.ts",
            &["src/cart.ts", "src/lazy.ts", "src/other/view.ts"],
        );
    }

    #[test]
    fn python_modules() {
        check(
            &[
                ("app/main.py", "def add(a, b): return a + b"),
                ("app/report.py", "from app.main import add"),
                ("app/rel.py", "from .main import add"),
                ("app/plain.py", "import app.main"),
                ("app/other.py", "from app.mainline import x"),
            ],
            "app/main.py",
            &["app/plain.py", "app/rel.py", "app/report.py"],
        );
    }
}
