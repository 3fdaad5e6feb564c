//! Which files depend on a changed file: the candidates whose diagnostics a change may break, for
//! servers that answer only for the documents they are asked about (pull servers).
//!
//! A textual scan with a small module resolver, not a compiler. Each source file under the root
//! is read once, its import statements are resolved to files, and the dependents are the
//! importers of the changed files, then the importers of those that re-export them, breadth
//! first up to [`MAX_DEPTH`] edges, nearest first.
//!
//! - TypeScript/JavaScript: `import`, `import type`, `export * from`, `export * as ns from`,
//!   `export {…} from`, `import()`, `require()` with a relative specifier, with or without its
//!   extension, a `.js`/`.jsx`/`.mjs`/`.cjs` specifier naming a `.ts`/`.tsx`/`.mts`/`.cts` file
//!   (TypeScript's ESM convention), or a directory's `index`. A file re-exports a module when it
//!   says `export … from` it, or imports a binding and lists it in a local `export { … }`.
//!   Bare specifiers resolve through the nearest tsconfig.json's `paths` and `baseUrl` (comments
//!   and trailing commas allowed, `extends` not followed); package names are not resolved.
//! - Python: `import a.b.c`, `from a.b import c` (`c` a module file or a name of `a/b`),
//!   relative `from . import m`, `from .m import x`, `from ..pkg.m import x`; absolute module
//!   paths against the importer's directory, the directory above its outermost package (a
//!   `src/` layout included), the root and `root/src`; `pkg/__init__.py` is the module `pkg`.
//!   Python has no export syntax, so every importing module counts as a possible re-exporter
//!   (`pkg/__init__.py` doing `from .a import f` is the usual one).
//!
//! A file that does not really depend on the changed one may be included (harmless: its
//! diagnostics are compared before and after, and an unchanged file reports nothing). Bounded:
//! at most [`MAX_SCANNED`] files read, of at most [`MAX_FILE_BYTES`] each, hidden directories
//! and dependency or build directories skipped; [`Dependents::complete`] says when a bound cut
//! the result short.
//!
//! Measured (release build, 2 cores, page cache warm after the first of three runs) with
//! `LSPEDIT_SCAN_ROOT=<dir> LSPEDIT_SCAN_CHANGED=<file> cargo test --release -p lspedit-lsp
//! --lib importers::tests::measure_scan -- --ignored --nocapture`, trees from `npm pack zod@4`
//! (4.6.7) and `pip download --no-deps --no-binary :all: requests` (2.34.2) unpacked in /tmp:
//! - zod `package/src` (332 files), `v4/core/util.ts`: 124 dependents, 35 ms first, 23 ms after;
//!   `v4/core/errors.ts`: 99 dependents within 3 edges (complete: false), 16–19 ms.
//! - the whole zod package (828 files, the built `.js`/`.d.ts` included): 28–32 ms.
//! - requests sdist (35 files), `src/requests/hooks.py`: 17 dependents, 3–3.6 ms.
//!
//! With the [`ScanCache`] a pool keeps per server, a scan of the same tree reads only the files
//! changed since the last one: zod 4.1.12's whole package, `src/v4/core/util.ts`, 23.2 ms for
//! the first scan, 2.4 and 2.1 ms for the next two (same command, 2026-11-26).

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

/// At most this many files are read per scan.
const MAX_SCANNED: usize = 2000;
/// Files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 512 * 1024;
/// Dependents are followed at most this many import edges away from a changed file.
const MAX_DEPTH: usize = 3;
/// The files whose `paths` and `baseUrl` resolve bare specifiers ([`Tree::tsconfig`]).
const TSCONFIGS: &[&str] = &["tsconfig.json", "jsconfig.json"];
/// A file changed this little before a scan may be changed again without its stamp showing it
/// (see [`ScanCache`]).
const RACY: std::time::Duration = std::time::Duration::from_secs(2);
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

/// The files that depend on a change, as far as the scan could tell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Dependents {
    /// Nearest first: the direct importers, then the importers of the re-exporters, and so
    /// on, each distance sorted by path; at most the `limit` asked for.
    pub(crate) files: Vec<PathBuf>,
    /// How many dependents were found in all, `files` being the first of them.
    pub(crate) total: usize,
    /// False when a bound cut the scan short: more than [`MAX_SCANNED`] files to read, or
    /// dependents further than [`MAX_DEPTH`] edges away. (Files over [`MAX_FILE_BYTES`] are
    /// skipped without counting.)
    pub(crate) complete: bool,
}

/// The files under `root` with one of `extensions` that depend on one of `changed`, nearest
/// first, at most `limit` of them, the changed files themselves left out.
///
/// `cache` keeps each file's imports for the next scan of the same root (see [`ScanCache`]).
pub(crate) fn dependents(
    root: &Path,
    changed: &[PathBuf],
    extensions: &[&str],
    limit: usize,
    cache: &mut ScanCache,
) -> Dependents {
    scan(root, changed, extensions, limit, MAX_SCANNED, cache, RACY)
}

/// What one scan of a root keeps for the next: each file's resolved imports, reused while the
/// file's stamp (size, modification and change times, inode) is the same and the tree's layout
/// (the files the walk met and every tsconfig.json's or jsconfig.json's stamp) is too, since
/// resolution depends on which files exist and on tsconfig paths. A scan then reads only the
/// files written since the last one: the directories are still walked and every file stat'ed,
/// so a file written by anyone, lspedit or not, is read again. A file whose change time is
/// within [`RACY`] of the scan is read again by the next scan too, and its imports reused when
/// its contents are the same (a digest, keyed per cache so that no file can be made to collide
/// with another): a file system's timestamps move in ticks, and a second write of the same
/// size within the tick of the first leaves the stamp as it was.
#[derive(Default)]
pub(crate) struct ScanCache {
    /// The extensions, layout and changed files off the layout the edges were resolved against.
    layout: Option<(Vec<String>, Layout, Vec<PathBuf>)>,
    files: HashMap<PathBuf, Scanned>,
    digest: std::hash::RandomState,
}

/// See [`Tree::layout`].
type Layout = Vec<(PathBuf, Option<Stamp>)>;

/// One file's imports as a scan resolved them.
struct Scanned {
    stamp: Stamp,
    /// The contents' digest ([`ScanCache::digest`]).
    digest: u64,
    /// The stamp was taken at least [`RACY`] after the file's last change: while it holds, the
    /// contents are the same.
    settled: bool,
    edges: Vec<Edge>,
}

/// What tells a file's contents changed without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
}

impl Stamp {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }

    /// Std's metadata has neither a change time nor an inode number outside Unix: the last
    /// write time stands for both times, so a file replaced by one of the same length and write
    /// time reads as unchanged. No write time (never on NTFS) never settles: the file is read.
    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> Stamp {
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((-1, 0), |d| {
                (
                    i64::try_from(d.as_secs()).unwrap_or(-1),
                    i64::from(d.subsec_nanos()),
                )
            });
        Stamp {
            len: meta.len(),
            modified,
            changed: modified,
            inode: 0,
        }
    }

    /// Whether the file's last change is at least `margin` before `now`.
    fn settled(&self, now: std::time::SystemTime, margin: std::time::Duration) -> bool {
        let (secs, nanos) = self.changed;
        let (Ok(secs), Ok(nanos)) = (u64::try_from(secs), u32::try_from(nanos)) else {
            return false;
        };
        let changed = std::time::UNIX_EPOCH + std::time::Duration::new(secs, nanos);
        changed + margin <= now
    }
}

/// [`dependents`] reading at most `max_scanned` files, keeping the imports of files changed
/// at least `racy` before it.
fn scan(
    root: &Path,
    changed: &[PathBuf],
    extensions: &[&str],
    limit: usize,
    max_scanned: usize,
    cache: &mut ScanCache,
    racy: std::time::Duration,
) -> Dependents {
    if changed.is_empty() {
        return Dependents {
            complete: true,
            ..Dependents::default()
        };
    }
    let started = std::time::SystemTime::now();
    let mut tree = Tree::walk(root, changed, extensions, max_scanned);
    // Resolution also names the changed files the walk did not meet (not on disk, or in a
    // directory it skips), as `known` holds them.
    let mut unmet: Vec<PathBuf> = changed
        .iter()
        .filter(|c| !tree.layout.iter().any(|(p, _)| p == *c))
        .cloned()
        .collect();
    unmet.sort();
    let layout = (
        extensions
            .iter()
            .map(|e| (*e).to_owned())
            .collect::<Vec<_>>(),
        std::mem::take(&mut tree.layout),
        unmet,
    );
    // A truncated walk resolves against the disk as well as the files it met: nothing of it
    // is kept.
    if tree.truncated || cache.layout.as_ref() != Some(&layout) {
        cache.files.clear();
        cache.layout = (!tree.truncated).then_some(layout);
    }
    let mut fresh: HashMap<PathBuf, Scanned> = HashMap::with_capacity(tree.sources.len());
    for (importer, stamp) in &tree.sources {
        let kept = cache.files.remove(importer);
        let scanned = match kept {
            Some(k) if k.settled && k.stamp == *stamp => k,
            kept => {
                // Read after the stamp was taken: a write in between leaves the stamp older
                // than the text, and the next scan reads the file again.
                let Ok(bytes) = std::fs::read(importer) else {
                    continue;
                };
                let digest = std::hash::BuildHasher::hash_one(&cache.digest, &bytes);
                let edges = match kept {
                    Some(k) if k.digest == digest => k.edges,
                    _ => tree.imports(importer, &String::from_utf8_lossy(&bytes)),
                };
                Scanned {
                    stamp: *stamp,
                    digest,
                    settled: stamp.settled(started, racy),
                    edges,
                }
            }
        };
        fresh.insert(importer.clone(), scanned);
    }
    // Reverse edges: file → (its importers, whether the importer re-exports it).
    let mut importers: HashMap<&Path, Vec<(&Path, bool)>> = HashMap::new();
    for (importer, _) in &tree.sources {
        let Some(scanned) = fresh.get(importer) else {
            continue;
        };
        for edge in &scanned.edges {
            if edge.target == *importer {
                continue;
            }
            let Some(target) = tree.known.get(edge.target.as_path()) else {
                continue;
            };
            importers
                .entry(target.as_path())
                .or_default()
                .push((importer.as_path(), edge.reexport));
        }
    }
    let changed_set: HashSet<&Path> = changed.iter().map(PathBuf::as_path).collect();
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<&Path> = changed_set.clone();
    let mut expanded: HashSet<&Path> = changed_set.clone();
    let mut frontier: BTreeSet<&Path> = changed_set.into_iter().collect();
    let mut complete = !tree.truncated;
    for depth in 1..=MAX_DEPTH + 1 {
        let mut layer = BTreeSet::new();
        let mut next = BTreeSet::new();
        for file in &frontier {
            for &(importer, reexport) in importers.get(file).into_iter().flatten() {
                if seen.insert(importer) {
                    layer.insert(importer);
                }
                if reexport && expanded.insert(importer) {
                    next.insert(importer);
                }
            }
        }
        if depth > MAX_DEPTH {
            complete &= layer.is_empty();
            break;
        }
        found.extend(layer.into_iter().map(Path::to_path_buf));
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let total = found.len();
    found.truncate(limit);
    if cache.layout.is_some() {
        cache.files = fresh;
    }
    Dependents {
        files: found,
        total,
        complete,
    }
}

/// The files of a scan: the ones read, and every path the resolver may name.
struct Tree {
    /// The files to read, in walk order, with their stamps.
    sources: Vec<(PathBuf, Stamp)>,
    /// What resolution depends on: every file the walk met with a scanned extension, then
    /// every tsconfig.json and jsconfig.json with its stamp, in walk order (taken by
    /// [`scan`] for its cache's key).
    layout: Layout,
    /// Every file with a scanned extension met by the walk (read or not), and the changed files.
    known: HashSet<PathBuf>,
    /// The walk stopped at its bound of files read: a file missing from `known` may still exist.
    truncated: bool,
    root: PathBuf,
    /// Per directory, its nearest tsconfig.json's paths ([`Tree::tsconfig`]).
    tsconfigs: RefCell<HashMap<PathBuf, Option<Rc<TsPaths>>>>,
}

/// An import of one file by another.
struct Edge {
    target: PathBuf,
    /// The importer passes on (some of) what it imports: its own importers depend on the
    /// target too.
    reexport: bool,
}

impl Tree {
    /// Breadth first from `root`, entries sorted by name.
    fn walk(root: &Path, changed: &[PathBuf], extensions: &[&str], max_scanned: usize) -> Tree {
        let mut tree = Tree {
            sources: Vec::new(),
            layout: Vec::new(),
            known: changed.iter().cloned().collect(),
            truncated: false,
            root: root.to_path_buf(),
            tsconfigs: RefCell::default(),
        };
        let mut queue = VecDeque::from([root.to_path_buf()]);
        'walk: while let Some(dir) = queue.pop_front() {
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
                        queue.push_back(path);
                    }
                    continue;
                }
                if TSCONFIGS.contains(&name.as_ref()) {
                    // Read through a symbolic link, as [`Tree::tsconfig`] does.
                    let stamp = std::fs::metadata(&path).ok().map(|m| Stamp::of(&m));
                    tree.layout.push((path, stamp));
                    continue;
                }
                if !kind.is_file() {
                    continue;
                }
                let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
                if !extensions.contains(&ext) {
                    continue;
                }
                tree.known.insert(path.clone());
                tree.layout.push((path.clone(), None));
                if changed.contains(&path) {
                    continue;
                }
                let Ok(meta) = entry.metadata() else {
                    continue;
                };
                if meta.len() > MAX_FILE_BYTES {
                    continue;
                }
                if tree.sources.len() == max_scanned {
                    tree.truncated = true;
                    break 'walk;
                }
                tree.sources.push((path, Stamp::of(&meta)));
            }
        }
        tree
    }

    fn exists(&self, path: &Path) -> bool {
        self.known.contains(path) || (self.truncated && path.is_file())
    }

    /// The first of `candidates` that exists.
    fn first(&self, candidates: impl IntoIterator<Item = PathBuf>) -> Option<PathBuf> {
        candidates.into_iter().find(|p| self.exists(p))
    }

    fn imports(&self, importer: &Path, text: &str) -> Vec<Edge> {
        let ext = importer.extension().and_then(|e| e.to_str()).unwrap_or("");
        let mut edges = if matches!(ext, "py" | "pyi") {
            self.python_imports(importer, text)
        } else {
            self.js_imports(importer, text)
        };
        edges.sort_by(|a, b| (&a.target, b.reexport).cmp(&(&b.target, a.reexport)));
        edges.dedup_by(|a, b| a.target == b.target);
        edges
    }

    // --- TypeScript / JavaScript -------------------------------------------------------------

    fn js_imports(&self, importer: &Path, text: &str) -> Vec<Edge> {
        let Some(dir) = importer.parent() else {
            return Vec::new();
        };
        let tokens = js_tokens(text);
        let exported = locally_exported(&tokens);
        let mut edges = Vec::new();
        for (i, tok) in tokens.iter().enumerate() {
            let next = |k: usize| tokens.get(i + k);
            let found = match tok {
                // `import("./x")`, `require("./x")`
                Tok::Ident("import" | "require") => match (next(1), next(2)) {
                    (Some(Tok::Punct(b'(')), Some(Tok::Str(s))) => Some((*s, false)),
                    // `import "./side-effect"`
                    (Some(Tok::Str(s)), _) if matches!(tok, Tok::Ident("import")) => {
                        Some((*s, false))
                    }
                    _ => None,
                },
                Tok::Ident("from") => match next(1) {
                    Some(Tok::Str(s)) => import_clause(&tokens[..i]).map(|(export, bindings)| {
                        (*s, export || bindings.iter().any(|b| exported.contains(b)))
                    }),
                    _ => None,
                },
                _ => None,
            };
            let Some((spec, reexport)) = found else {
                continue;
            };
            if let Some(target) = self.resolve_js(dir, spec) {
                edges.push(Edge { target, reexport });
            }
        }
        edges
    }

    /// A relative specifier as TypeScript resolves it: `.ts` sources before `.js` ones, a
    /// `.js` specifier naming its `.ts` source, then a directory's `index`.
    /// A bare specifier through the nearest tsconfig.json's `paths` (patterns with one `*`,
    /// the longest prefix first) or `baseUrl`.
    fn resolve_js(&self, dir: &Path, spec: &str) -> Option<PathBuf> {
        let relative =
            spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        if relative {
            return self.resolve_js_path(&dir.join(spec), spec);
        }
        let config = self.tsconfig(dir)?;
        for (pattern, targets) in &config.paths {
            let star = match pattern.split_once('*') {
                Some((prefix, suffix)) => spec
                    .strip_prefix(prefix)
                    .and_then(|rest| rest.strip_suffix(suffix)),
                None => (spec == pattern).then_some(""),
            };
            let Some(star) = star else { continue };
            let found = targets.iter().find_map(|t| {
                let target = t.replacen('*', star, 1);
                self.resolve_js_path(&config.base.join(&target), &target)
            });
            if found.is_some() {
                return found;
            }
        }
        config
            .base_url
            .then(|| self.resolve_js_path(&config.base.join(spec), spec))
            .flatten()
    }

    /// The file a specifier `spec` naming `path` resolves to.
    fn resolve_js_path(&self, path: &Path, spec: &str) -> Option<PathBuf> {
        let base = normalize(path);
        // `./lib/`, `.`, `..` name a directory only; `./lib` is `lib.ts` before `lib/index.ts`.
        let directory = spec.ends_with('/') || spec.ends_with("/.") || spec.ends_with("/..");
        let directory = directory || spec == "." || spec == "..";
        let with = |path: &Path, suffix: &str| {
            let mut s = OsString::from(path.as_os_str());
            s.push(suffix);
            PathBuf::from(s)
        };
        let mut candidates = Vec::new();
        const EXTENSIONS: &[&str] = &[
            ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs",
        ];
        let index = base.join("index");
        if directory {
            return self.first(EXTENSIONS.iter().map(|e| with(&index, e)));
        }
        let ext = base.extension().and_then(|e| e.to_str()).unwrap_or("");
        let sources: &[&str] = match ext {
            "js" => &[".ts", ".tsx", ".d.ts"],
            "jsx" => &[".tsx", ".d.ts"],
            "mjs" => &[".mts", ".d.mts"],
            "cjs" => &[".cts", ".d.cts"],
            _ => &[],
        };
        let stem = base.with_extension("");
        candidates.extend(sources.iter().map(|s| with(&stem, s)));
        candidates.push(base.clone());
        candidates.extend(EXTENSIONS.iter().map(|e| with(&base, e)));
        candidates.extend(EXTENSIONS.iter().map(|e| with(&index, e)));
        self.first(candidates)
    }

    /// The `paths`/`baseUrl` of the tsconfig.json (or jsconfig.json) nearest to `dir` under
    /// the root, read once per directory; `None` without one, or when it is unparsable or
    /// maps nothing.
    fn tsconfig(&self, dir: &Path) -> Option<Rc<TsPaths>> {
        if let Some(known) = self.tsconfigs.borrow().get(dir) {
            return known.clone();
        }
        let found = TSCONFIGS
            .iter()
            .map(|name| dir.join(name))
            .find(|p| p.is_file());
        let config = match found {
            Some(file) => TsPaths::read(&file).map(Rc::new),
            None if dir != self.root && dir.starts_with(&self.root) => {
                dir.parent().and_then(|parent| self.tsconfig(parent))
            }
            None => None,
        };
        self.tsconfigs
            .borrow_mut()
            .insert(dir.to_path_buf(), config.clone());
        config
    }

    // --- Python ------------------------------------------------------------------------------

    fn python_imports(&self, importer: &Path, text: &str) -> Vec<Edge> {
        let Some(dir) = importer.parent() else {
            return Vec::new();
        };
        let roots = self.python_roots(dir);
        let mut edges = Vec::new();
        let mut push = |target: Option<PathBuf>| {
            if let Some(target) = target {
                edges.push(Edge {
                    target,
                    reexport: true,
                });
            }
        };
        for statement in python_statements(text) {
            if let Some(rest) = statement.strip_prefix("import ") {
                // `import a.b as c, d`
                for part in rest.split(',') {
                    let module = part.split_whitespace().next().unwrap_or("");
                    push(
                        roots
                            .iter()
                            .find_map(|r| self.python_module(&module_path(r, module))),
                    );
                }
            } else if let Some(rest) = statement.strip_prefix("from ") {
                let Some((module, names)) = rest.split_once(" import ") else {
                    continue;
                };
                let module = module.trim();
                let names: Vec<&str> = names
                    .trim()
                    .trim_start_matches('(')
                    .trim_end_matches(')')
                    .split(',')
                    .filter_map(|n| n.split_whitespace().next())
                    .collect();
                let dots = module.len() - module.trim_start_matches('.').len();
                let bases: Vec<PathBuf> = if dots > 0 {
                    let mut base = dir.to_path_buf();
                    for _ in 1..dots {
                        base.pop();
                    }
                    vec![module_path(&base, &module[dots..])]
                } else {
                    roots.iter().map(|r| module_path(r, module)).collect()
                };
                // The first base where the module or one of the names resolves.
                for base in bases {
                    let package = self.python_module(&base);
                    let targets: Vec<Option<PathBuf>> = names
                        .iter()
                        .map(|name| {
                            (*name != "*")
                                .then(|| self.python_module(&base.join(name)))
                                .flatten()
                                .or_else(|| package.clone())
                        })
                        .collect();
                    if targets.iter().any(Option::is_some) {
                        targets.into_iter().for_each(&mut push);
                        break;
                    }
                }
            }
        }
        edges
    }

    /// Where absolute module paths of a file in `dir` start: its directory (a script's
    /// neighbours), the directory above its outermost package (`src/` in a src layout), the
    /// root and `root/src`.
    fn python_roots(&self, dir: &Path) -> Vec<PathBuf> {
        let mut roots = vec![dir.to_path_buf()];
        let mut top = dir;
        while top.starts_with(&self.root) && self.is_package(top) {
            let Some(parent) = top.parent() else { break };
            top = parent;
        }
        for r in [top.to_path_buf(), self.root.clone(), self.root.join("src")] {
            if !roots.contains(&r) {
                roots.push(r);
            }
        }
        roots
    }

    /// The file of the module at `base`: the package `base/__init__.py` (which Python prefers),
    /// or `base.py`.
    fn python_module(&self, base: &Path) -> Option<PathBuf> {
        let with = |suffix: &str| {
            let mut s = OsString::from(base.as_os_str());
            s.push(suffix);
            PathBuf::from(s)
        };
        self.first([
            base.join("__init__.py"),
            base.join("__init__.pyi"),
            with(".py"),
            with(".pyi"),
        ])
    }

    fn is_package(&self, dir: &Path) -> bool {
        self.exists(&dir.join("__init__.py")) || self.exists(&dir.join("__init__.pyi"))
    }
}

/// The module-resolution options of a tsconfig.json that name files for bare specifiers.
/// (`extends` is not followed.)
struct TsPaths {
    /// `baseUrl`, else the tsconfig's directory (what `paths` are relative to then).
    base: PathBuf,
    /// Whether `baseUrl` is set: bare specifiers then also resolve against it.
    base_url: bool,
    /// `paths` patterns and their targets, the longest prefix first.
    paths: Vec<(String, Vec<String>)>,
}

impl TsPaths {
    fn read(file: &Path) -> Option<TsPaths> {
        let dir = file.parent()?;
        let text = std::fs::read_to_string(file).ok()?;
        let json: serde_json::Value = serde_json::from_str(&strip_jsonc(&text)).ok()?;
        let options = json.get("compilerOptions")?;
        let base_url = options.get("baseUrl").and_then(|b| b.as_str());
        let mut paths: Vec<(String, Vec<String>)> = options
            .get("paths")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
            .map(|(pattern, targets)| {
                let targets = targets
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect();
                (pattern.clone(), targets)
            })
            .collect();
        if base_url.is_none() && paths.is_empty() {
            return None;
        }
        let prefix = |p: &str| p.split('*').next().map_or(0, str::len);
        paths.sort_by_key(|(p, _)| std::cmp::Reverse(prefix(p)));
        Some(TsPaths {
            base: normalize(&dir.join(base_url.unwrap_or("."))),
            base_url: base_url.is_some(),
            paths,
        })
    }
}

/// JSON with comments and trailing commas (tsconfig.json's dialect) as plain JSON.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push(c);
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            '}' | ']' => {
                let kept = out.trim_end().len();
                out.truncate(kept);
                if out.ends_with(',') {
                    out.pop();
                }
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// `a.b.c` under `base` → `base/a/b/c` (an empty module is `base` itself).
fn module_path(base: &Path, module: &str) -> PathBuf {
    let mut path = base.to_path_buf();
    path.extend(module.split('.').filter(|p| !p.is_empty()));
    path
}

/// The import statements of a Python file, one line each: parenthesized and backslash-continued
/// lines joined, comments and `;`-separated neighbours cut off. Strings are not parsed: an
/// import-looking line in a docstring counts (harmless, see the module doc).
fn python_statements(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        for part in strip_hash(line).split(';') {
            let part = part.trim();
            if !(part.starts_with("import ") || part.starts_with("from ")) {
                continue;
            }
            let mut statement = part.to_owned();
            loop {
                let open = statement.contains('(') && !statement.contains(')');
                let continued = statement.ends_with('\\');
                if !(open || continued) {
                    break;
                }
                let Some(more) = lines.next() else { break };
                statement = statement.trim_end_matches('\\').to_owned();
                statement.push(' ');
                statement.push_str(strip_hash(more).trim());
            }
            out.push(statement);
        }
    }
    out
}

fn strip_hash(line: &str) -> &str {
    line.split_once('#').map_or(line, |(code, _)| code)
}

/// A token of JavaScript/TypeScript, as far as imports need: comments and template literals
/// are skipped, a string is its contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tok<'a> {
    Ident(&'a str),
    Str(&'a str),
    Punct(u8),
}

/// Never panics on any input: an unterminated string or comment ends at the end of its line
/// or of the text (a regex literal holding a quote may hide the rest of its line).
fn js_tokens(text: &str) -> Vec<Tok<'_>> {
    let b = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
            }
            b'"' | b'\'' | b'`' => {
                let mut j = i + 1;
                let end = loop {
                    match b.get(j) {
                        None => break None,
                        Some(b'\\') => j += 2,
                        Some(&q) if q == c => break Some(j),
                        Some(b'\n') if c != b'`' => break None,
                        Some(_) => j += 1,
                    }
                };
                match end {
                    Some(j) => {
                        if c != b'`' {
                            out.push(Tok::Str(&text[i + 1..j]));
                        }
                        i = j + 1;
                    }
                    None => i = j.min(b.len()),
                }
            }
            c if ident(c) => {
                let start = i;
                while b.get(i).is_some_and(|&c| ident(c)) {
                    i += 1;
                }
                out.push(Tok::Ident(&text[start..i]));
            }
            c if c.is_ascii_whitespace() || !c.is_ascii() => i += 1,
            c => {
                out.push(Tok::Punct(c));
                i += 1;
            }
        }
    }
    out
}

/// The clause before a `from "…"` whose tokens are `before`: whether it is an export
/// (`export … from`) and the local names an import binds (`import d, { a as b } from` → d, b),
/// or `None` when the `from` is not an import's or export's.
fn import_clause<'a>(before: &[Tok<'a>]) -> Option<(bool, Vec<&'a str>)> {
    let mut bindings = Vec::new();
    let mut after_as = false;
    for tok in before.iter().rev() {
        match tok {
            Tok::Ident("import") => return Some((false, bindings)),
            Tok::Ident("export") => return Some((true, bindings)),
            // `a as b`: the name before `as` is the imported one, not a local binding.
            Tok::Ident("as") => after_as = true,
            Tok::Ident("type" | "typeof") => {}
            Tok::Ident(name) => {
                if !after_as {
                    bindings.push(*name);
                }
                after_as = false;
            }
            Tok::Punct(b'{' | b'}' | b',' | b'*') => {}
            _ => return None,
        }
    }
    None
}

/// The local names a module exports by name without a `from`: `export { a, b as c }` → a, b;
/// `export default a;` → a.
fn locally_exported<'a>(tokens: &[Tok<'a>]) -> HashSet<&'a str> {
    let mut out = HashSet::new();
    for (i, tok) in tokens.iter().enumerate() {
        if *tok != Tok::Ident("export") {
            continue;
        }
        match tokens.get(i + 1) {
            Some(Tok::Punct(b'{')) => {
                let Some(close) = tokens[i..].iter().position(|t| *t == Tok::Punct(b'}')) else {
                    continue;
                };
                if tokens.get(i + close + 1) == Some(&Tok::Ident("from")) {
                    continue;
                }
                let mut after_as = false;
                for t in &tokens[i + 2..i + close] {
                    match t {
                        Tok::Ident("as") => after_as = true,
                        Tok::Ident("type") => {}
                        Tok::Ident(name) if !after_as => {
                            out.insert(*name);
                        }
                        _ => after_as = false,
                    }
                }
            }
            Some(Tok::Ident("default")) => {
                if let Some(Tok::Ident(name)) = tokens.get(i + 2) {
                    out.insert(*name);
                }
            }
            _ => {}
        }
    }
    out
}

/// `a/./b/../c` → `a/c`, without touching the disk.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
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

    const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "py", "pyi"];

    /// A temp tree of `files` (path, text).
    fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (p, text) in files {
            let p = root.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        (dir, root)
    }

    fn relative(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    fn scan_tree(files: &[(&str, &str)], changed: &str, limit: usize) -> (Vec<String>, Dependents) {
        let (_dir, root) = tree(files);
        let got = dependents(
            &root,
            &[root.join(changed)],
            EXTENSIONS,
            limit,
            &mut ScanCache::default(),
        );
        (relative(&root, &got.files), got)
    }

    /// The dependents of `changed`, nearest first, all of them, the scan complete.
    fn check(files: &[(&str, &str)], changed: &str, expected: &[&str]) {
        let (got, d) = scan_tree(files, changed, 100);
        assert_eq!(got, expected);
        assert_eq!(d.total, expected.len());
        assert!(d.complete);
    }

    #[test]
    fn typescript_relative_specifiers() {
        check(
            &[
                ("src/price.ts", "export function price() {}"),
                ("src/cart.ts", "import { price } from \"./price\";"),
                ("src/other/view.ts", "import { price } from '../price';"),
                ("src/lazy.ts", "const m = import('./price.js');"),
                ("src/req.js", "const { price } = require(\"./price\");"),
                ("src/side.ts", "import \"./price.ts\";"),
                ("src/unrelated.ts", "import { x } from \"./pricey\";"),
                ("src/pkg.ts", "import { x } from \"price\";"),
                (
                    "node_modules/p/index.ts",
                    "import { price } from \"../../src/price\";",
                ),
            ],
            "src/price.ts",
            &[
                "src/cart.ts",
                "src/lazy.ts",
                "src/other/view.ts",
                "src/req.js",
                "src/side.ts",
            ],
        );
    }

    // Regression: zod's `../core/util.js` names `core/util.ts`, TypeScript's ESM convention.
    #[test]
    fn js_specifiers_name_typescript_sources() {
        let files = [
            ("src/a.ts", "export const a = 1;"),
            ("src/m.mts", "export const m = 1;"),
            ("src/c.cts", "export const c = 1;"),
            ("src/v.tsx", "export const v = 1;"),
            ("src/u1.ts", "import { a } from \"./a.js\";"),
            ("src/u2.ts", "import { m } from \"./m.mjs\";"),
            ("src/u3.ts", "import { c } from \"./c.cjs\";"),
            ("src/u4.ts", "import { v } from \"./v.jsx\";"),
            ("src/u5.ts", "import { v } from \"./v.js\";"),
        ];
        check(&files, "src/a.ts", &["src/u1.ts"]);
        check(&files, "src/m.mts", &["src/u2.ts"]);
        check(&files, "src/c.cts", &["src/u3.ts"]);
        check(&files, "src/v.tsx", &["src/u4.ts", "src/u5.ts"]);
    }

    #[test]
    fn directory_index() {
        check(
            &[
                ("src/lib/index.ts", "export const a = 1;"),
                ("src/u1.ts", "import { a } from \"./lib\";"),
                ("src/u2.ts", "import { a } from \"./lib/\";"),
                ("src/u3.ts", "import { a } from \"./lib/index.js\";"),
                ("src/lib/inner.ts", "import { a } from \".\";"),
                // `./lib` is this file, not the directory's index, as for TypeScript.
                ("src/lib.ts", "export const shadowed = 1;"),
            ],
            "src/lib/index.ts",
            &["src/lib/inner.ts", "src/u2.ts", "src/u3.ts"],
        );
    }

    #[test]
    fn import_and_export_forms() {
        check(
            &[
                ("a.ts", "export type T = number; export const a = 1;"),
                ("t.ts", "import type { T } from \"./a.js\";"),
                ("star.ts", "export * from \"./a.js\";"),
                ("ns.ts", "export * as ns from \"./a.js\";"),
                ("named.ts", "export { a as b, type T } from './a.js'"),
                (
                    "multi.ts",
                    "import {\n  a,\n  // a comment\n  type T,\n} from \"./a.js\";\n",
                ),
                (
                    "default.ts",
                    "import def, { a } from \"./a\"\nimport x from './x'",
                ),
                ("star_import.ts", "import * as all from \"./a.js\";"),
                (
                    "commented.ts",
                    "// import { a } from \"./a.js\";\n/* export * from './a.js' */",
                ),
                ("string.ts", "const s = \"from './a.js'\";"),
            ],
            "a.ts",
            &[
                "default.ts",
                "multi.ts",
                "named.ts",
                "ns.ts",
                "star.ts",
                "star_import.ts",
                "t.ts",
            ],
        );
    }

    // Regression: a function of zod's core/util.ts used through `core/index.ts`'s
    // `export * as util from "./util.js"` was missed, and 1 of the 57 broken files found.
    #[test]
    fn barrel_chain_nearest_first() {
        check(
            &[
                ("src/core/a.ts", "export function f() {}"),
                ("src/core/index.ts", "export * from \"./a.js\";"),
                ("src/z/direct.ts", "import { f } from \"../core/a.js\";"),
                (
                    "src/aa/consumer.ts",
                    "import { f } from \"../core/index.js\";",
                ),
                ("src/aa/ns.ts", "import * as core from \"../core\";"),
                // Imports a consumer, which passes nothing on: not a dependent.
                ("src/aa/far.ts", "import { g } from \"./consumer.js\";"),
                // A barrel of the barrel: its importers are two re-exports away.
                ("src/index.ts", "export * as core from \"./core/index.js\";"),
                ("src/app.ts", "import { core } from \"./index.js\";"),
            ],
            "src/core/a.ts",
            &[
                "src/core/index.ts",
                "src/z/direct.ts",
                "src/aa/consumer.ts",
                "src/aa/ns.ts",
                "src/index.ts",
                "src/app.ts",
            ],
        );
    }

    #[test]
    fn tsconfig_paths_and_base_url() {
        let tsconfig = r#"{
            // comments and trailing commas, as tsc allows
            "compilerOptions": {
                "baseUrl": "./src", /* relative to this file */
                "paths": {
                    "@lib/*": ["lib/*", "fallback/*",],
                    "@lib/special": ["special/x",],
                    "~": ["lib/index.ts"],
                },
            },
        }"#;
        check(
            &[
                ("tsconfig.json", tsconfig),
                ("src/lib/a.ts", "export const a = 1;"),
                ("src/lib/index.ts", "export * from \"./a.js\";"),
                ("src/app/alias.ts", "import { a } from \"@lib/a.js\";"),
                ("src/app/base.ts", "import { a } from \"lib/a\";"),
                ("src/app/exact.ts", "import { a } from \"~\";"),
                ("src/app/special.ts", "import { a } from \"@lib/special\";"),
                ("src/app/pkg.ts", "import { a } from \"react\";"),
            ],
            "src/lib/a.ts",
            &[
                "src/app/alias.ts",
                "src/app/base.ts",
                "src/lib/index.ts",
                "src/app/exact.ts",
            ],
        );
        // An unparsable tsconfig is skipped; relative specifiers still resolve.
        check(
            &[
                ("tsconfig.json", "{ \"compilerOptions\": { \"baseUrl\": "),
                ("src/lib/a.ts", "export const a = 1;"),
                ("src/app/base.ts", "import { a } from \"lib/a\";"),
                ("src/app/rel.ts", "import { a } from \"../lib/a\";"),
            ],
            "src/lib/a.ts",
            &["src/app/rel.ts"],
        );
    }

    // Zod's own form: `import * as util from "./util.js"; export { util };`.
    #[test]
    fn import_then_local_export_is_a_reexport() {
        check(
            &[
                ("util.ts", "export function join() {}"),
                (
                    "index.ts",
                    "import * as util from \"./util.js\";\nexport { util };",
                ),
                (
                    "other.ts",
                    "import { join } from \"./util.js\";\nexport { unrelated };",
                ),
                (
                    "default.ts",
                    "import join from \"./util.js\";\nexport default join;",
                ),
                ("u1.ts", "import { util } from \"./index.js\";"),
                ("u2.ts", "import { x } from \"./other.js\";"),
                ("u3.ts", "import j from \"./default.js\";"),
            ],
            "util.ts",
            &["default.ts", "index.ts", "other.ts", "u1.ts", "u3.ts"],
        );
    }

    // Regression: requests' `from . import sessions` and `from requests import hooks`
    // (src layout) were missed.
    #[test]
    fn python_package_imports() {
        let files = [
            ("pyproject.toml", ""),
            (
                "src/requests/__init__.py",
                "from . import sessions\nfrom .api import get\n",
            ),
            (
                "src/requests/sessions.py",
                "from .hooks import default_hooks\n",
            ),
            ("src/requests/hooks.py", "def default_hooks(): ...\n"),
            ("src/requests/api.py", "from . import sessions\n"),
            ("src/requests/adapters.py", "from .models import Response\n"),
            ("src/requests/models.py", "import json\n"),
            ("tests/test_hooks.py", "from requests import hooks\n"),
            ("tests/test_api.py", "import requests\n"),
            (
                "tests/test_models.py",
                "from requests.models import Response\n",
            ),
        ];
        check(
            &files,
            "src/requests/hooks.py",
            &[
                "src/requests/sessions.py",
                "tests/test_hooks.py",
                "src/requests/__init__.py",
                "src/requests/api.py",
                "tests/test_api.py",
            ],
        );
        check(
            &files,
            "src/requests/models.py",
            &["src/requests/adapters.py", "tests/test_models.py"],
        );
    }

    #[test]
    fn python_name_reexported_by_package_init() {
        check(
            &[
                ("pkg/__init__.py", "from .a import f\n"),
                ("pkg/a.py", "def f(): ...\n"),
                ("pkg/b.py", "def g(): ...\n"),
                ("main.py", "from pkg import f\n"),
                ("by_module.py", "from pkg import a\n"),
                ("other.py", "from pkg import b\n"),
                ("star.py", "from pkg.a import *\n"),
            ],
            "pkg/a.py",
            &["by_module.py", "pkg/__init__.py", "star.py", "main.py"],
        );
    }

    #[test]
    fn python_import_forms() {
        check(
            &[
                ("app/__init__.py", ""),
                ("app/core/__init__.py", ""),
                ("app/core/m.py", "def f(): ...\n"),
                ("app/core/sib.py", "from .m import f\n"),
                ("app/core/dot.py", "from . import m\n"),
                ("app/core/deep/__init__.py", ""),
                ("app/core/deep/up.py", "from .. import m\n"),
                ("app/other/__init__.py", ""),
                ("app/other/far.py", "from ..core.m import f\n"),
                ("app/abs.py", "import app.core.m as m, os\n"),
                (
                    "app/paren.py",
                    "from app.core import (\n    m,  # the module\n    sib,\n)\n",
                ),
                ("app/slash.py", "from app.core.m \\\n    import f\n"),
                ("app/semi.py", "import os; from app.core.m import f\n"),
                ("app/nested.py", "def g():\n    from app.core.m import f\n"),
                ("app/no.py", "from app.core.mm import f\nimport app.core\n"),
                ("app/core/script.py", "import m\n"),
            ],
            "app/core/m.py",
            &[
                "app/abs.py",
                "app/core/deep/up.py",
                "app/core/dot.py",
                "app/core/script.py",
                "app/core/sib.py",
                "app/nested.py",
                "app/other/far.py",
                "app/paren.py",
                "app/semi.py",
                "app/slash.py",
            ],
        );
    }

    #[test]
    fn nearest_first_under_a_small_limit() {
        let files = [
            ("a.ts", "export const a = 1;"),
            ("index.ts", "export * from \"./a.js\";"),
            ("z1.ts", "import { a } from \"./a.js\";"),
            ("z2.ts", "import { a } from \"./a.js\";"),
            ("b1.ts", "import { a } from \"./index.js\";"),
            ("b2.ts", "import { a } from \"./index.js\";"),
        ];
        let (got, d) = scan_tree(&files, "a.ts", 3);
        assert_eq!(got, ["index.ts", "z1.ts", "z2.ts"]);
        assert_eq!(d.total, 5);
        assert!(d.complete);
    }

    #[test]
    fn incomplete_when_the_scan_bound_is_hit() {
        let mut files = vec![("a.ts".to_owned(), "export const a = 1;".to_owned())];
        for i in 0..10 {
            files.push((
                format!("u{i}.ts"),
                "import { a } from \"./a.js\";".to_owned(),
            ));
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let (_dir, root) = tree(&files);
        let changed = [root.join("a.ts")];
        let d = scan(
            &root,
            &changed,
            EXTENSIONS,
            100,
            4,
            &mut ScanCache::default(),
            RACY,
        );
        assert_eq!(
            relative(&root, &d.files),
            ["u0.ts", "u1.ts", "u2.ts", "u3.ts"]
        );
        assert_eq!(d.total, 4);
        assert!(!d.complete);
        let d = scan(
            &root,
            &changed,
            EXTENSIONS,
            100,
            10,
            &mut ScanCache::default(),
            RACY,
        );
        assert_eq!((d.total, d.complete), (10, true));
    }

    #[test]
    fn incomplete_past_the_depth_bound() {
        let files = [
            ("a.ts", "export const a = 1;"),
            ("b1.ts", "export * from \"./a.js\";"),
            ("b2.ts", "export * from \"./b1.js\";"),
            ("b3.ts", "export * from \"./b2.js\";"),
            ("b4.ts", "export * from \"./b3.js\";"),
        ];
        let (got, d) = scan_tree(&files, "a.ts", 100);
        assert_eq!(got, ["b1.ts", "b2.ts", "b3.ts"]);
        assert!(!d.complete);
    }

    #[test]
    fn junk_does_not_crash() {
        check(
            &[
                ("a.ts", "export const a = 1;"),
                (
                    "j1.ts",
                    "const s = 'unterminated\nimport { a } from \"./a.js\"; /* open",
                ),
                ("j2.ts", "from \"./a.js\" export } { ( import \\ ` ${ `"),
                (
                    "j3.ts",
                    "const r = /\"/; import(\"./hidden.js\");\nimport(\"./a.js\"); \u{00e9}\u{1F600} import",
                ),
                ("j4.py", "from\nimport\nfrom . import\nfrom .... import (\n"),
                ("j5.py", "\"\"\"\nimport a\n\"\"\"\n# from . import a\n"),
            ],
            "a.ts",
            &["j1.ts", "j3.ts"],
        );
        let (_dir, root) = tree(&[("x.ts", "")]);
        std::fs::write(root.join("bin.ts"), [0xff, 0xfe, b'"', 0x00, b'/', b'*']).unwrap();
        let d = dependents(
            &root,
            &[root.join("x.ts")],
            EXTENSIONS,
            10,
            &mut ScanCache::default(),
        );
        assert_eq!((d.files.len(), d.complete), (0, true));
    }

    #[test]
    fn files_changed_just_before_a_scan_are_read_again_by_the_next() {
        let (_dir, root) = tree(&[
            ("a.ts", "export const a = 1;"),
            ("b.ts", "import { a } from \"./a.js\";"),
            ("c.ts", "import { b } from \"./b.js\";"),
        ]);
        let changed = [root.join("a.ts")];
        let settled = |cache: &ScanCache| {
            let mut kept: Vec<(String, bool)> = cache
                .files
                .iter()
                .map(|(p, f)| {
                    (
                        relative(&root, std::slice::from_ref(p)).remove(0),
                        f.settled,
                    )
                })
                .collect();
            kept.sort();
            kept
        };
        let hour = std::time::Duration::from_secs(3600);
        let mut cache = ScanCache::default();
        let d = scan(&root, &changed, EXTENSIONS, 100, 100, &mut cache, hour);
        assert_eq!(relative(&root, &d.files), ["b.ts"]);
        let racy = [("b.ts".to_owned(), false), ("c.ts".to_owned(), false)];
        assert_eq!(settled(&cache), racy, "changed within the hour: read again");
        let zero = std::time::Duration::ZERO;
        let d = scan(&root, &changed, EXTENSIONS, 100, 100, &mut cache, zero);
        assert_eq!(relative(&root, &d.files), ["b.ts"]);
        let kept = [("b.ts".to_owned(), true), ("c.ts".to_owned(), true)];
        assert_eq!(settled(&cache), kept, "the changed file is not read");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(48))]

            #[test]
            fn tokenizers_never_panic(text in "\\PC{0,200}|[\"'`/*\\\\(){}a-z .\n]{0,200}") {
                let _ = js_tokens(&text);
                let _ = python_statements(&text);
            }

            // A chain of barrels of random syntax and placement from `a.ts` to a consumer: the
            // barrels and the consumer are found, each at its distance, and a file importing
            // the consumer is not.
            #[test]
            fn barrel_chains_are_followed(
                links in proptest::collection::vec((0usize..4, 0usize..3, any::<bool>()), 0..=2),
                consumer_form in 0usize..3,
            ) {
                let mut files: Vec<(String, String)> =
                    vec![("src/a.ts".into(), "export function f() {}".into())];
                let mut prev = "src/a.ts".to_owned();
                let mut chain = Vec::new();
                for (i, (form, place, index)) in links.iter().enumerate() {
                    let dir = ["src", "src/lib", "src/lib/deep"][*place];
                    let path = if *index && !files.iter().any(|(p, _)| *p == format!("{dir}/index.ts")) {
                        format!("{dir}/index.ts")
                    } else {
                        format!("{dir}/b{i}.ts")
                    };
                    let spec = specifier(&path, &prev);
                    let text = match form {
                        0 => format!("export * from \"{spec}\";"),
                        1 => format!("export * as n{i} from '{spec}';"),
                        2 => format!("export {{ f }} from \"{spec}\";"),
                        _ => format!("import * as m from \"{spec}\";\nexport {{ m }};"),
                    };
                    files.push((path.clone(), text));
                    chain.push(path.clone());
                    prev = path;
                }
                let spec = specifier("src/app/consumer.ts", &prev);
                let text = match consumer_form {
                    0 => format!("import {{ f }} from \"{spec}\";"),
                    1 => format!("const m = await import(\"{spec}\");"),
                    _ => format!("import type * as m from \"{spec}\";"),
                };
                files.push(("src/app/consumer.ts".into(), text));
                files.push(("src/app/user.ts".into(), "import { g } from \"./consumer.js\";".into()));
                chain.push("src/app/consumer.ts".into());
                let files: Vec<(&str, &str)> =
                    files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
                let (got, d) = scan_tree(&files, "src/a.ts", 100);
                prop_assert_eq!(got, chain);
                prop_assert!(d.complete);
            }
        }

        /// One step of a session's tree: (file, what it becomes) — see `cached_scans_equal_fresh_ones`.
        fn step() -> impl Strategy<Value = (usize, usize)> {
            (0..POOL.len(), 0..BODIES.len() + 1)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            // A session's tree changes under the scans (files rewritten with other imports or
            // the same size, created, removed, a tsconfig's paths changed, the changed file
            // another one each time): a scan through the kept cache finds exactly what a scan
            // reading everything finds.
            #[test]
            fn cached_scans_equal_fresh_ones(
                steps in proptest::collection::vec((step(), 0..POOL.len()), 1..12),
                racy in any::<bool>(),
            ) {
                let (_dir, root) = tree(&[("src/a.ts", "export const a = 1;")]);
                let mut cache = ScanCache::default();
                for (i, ((file, body), changed)) in steps.into_iter().enumerate() {
                    let path = root.join(POOL[file]);
                    match BODIES.get(body) {
                        Some(text) => {
                            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                            std::fs::write(&path, text).unwrap();
                            // Each write its own modification time, so that a same-size
                            // rewrite within one timestamp tick still shows in the stamp (the
                            // tick itself is what `RACY` covers: an hour here, so that every
                            // file is read again and its digest decides, or none).
                            let when = std::time::UNIX_EPOCH
                                + std::time::Duration::from_secs(1_000_000 + i as u64);
                            std::fs::File::options()
                                .write(true)
                                .open(&path)
                                .unwrap()
                                .set_modified(when)
                                .unwrap();
                        }
                        None => drop(std::fs::remove_file(&path)),
                    }
                    let changed = [root.join(POOL[changed])];
                    let racy = std::time::Duration::from_secs(if racy { 3600 } else { 0 });
                    let cached = scan(&root, &changed, EXTENSIONS, 100, 100, &mut cache, racy);
                    let fresh =
                        scan(&root, &changed, EXTENSIONS, 100, 100, &mut ScanCache::default(), racy);
                    prop_assert_eq!(cached, fresh, "step {}", i);
                }
            }
        }

        /// The files of `cached_scans_equal_fresh_ones`' trees.
        const POOL: &[&str] = &[
            "src/a.ts",
            "src/b.ts",
            "src/lib/index.ts",
            "src/lib/c.ts",
            "tsconfig.json",
            "pkg/__init__.py",
            "pkg/m.py",
            "app.py",
        ];

        /// What a file of [`POOL`] may become (the last choice removes it). The TypeScript and
        /// Python bodies name each other's files harmlessly; pairs of equal length make
        /// same-size rewrites.
        const BODIES: &[&str] = &[
            "import { a } from \"./a.js\";",
            "import { a } from \"./b.js\";",
            "export * from \"./c.js\";",
            "export * from \"../b.js\";",
            "import { c } from \"@lib/c\";",
            "import { x } from \"./lib\";\nexport { x };",
            "{ \"compilerOptions\": { \"paths\": { \"@lib/*\": [\"src/lib/*\"] } } }",
            "{ \"compilerOptions\": { \"paths\": { \"@lib/*\": [\"src/*\"] } } }",
            "from . import m",
            "from .m import f",
            "from pkg import m",
            "import pkg.m",
            "",
        ];

        /// A relative specifier from the file `from` to the file `to`, in one of the forms
        /// TypeScript accepts (`.js`, bare, directory for an index).
        fn specifier(from: &str, to: &str) -> String {
            let from: Vec<&str> = from.split('/').collect();
            let to: Vec<&str> = to.split('/').collect();
            let from_dir = &from[..from.len() - 1];
            let common = from_dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
            let mut parts: Vec<String> = vec![];
            if common == from_dir.len() {
                parts.push(".".into());
            }
            parts.extend(std::iter::repeat_n(
                "..".to_owned(),
                from_dir.len() - common,
            ));
            parts.extend(to[common..].iter().map(|s| (*s).to_owned()));
            let spec = parts.join("/");
            let bare = spec.trim_end_matches(".ts");
            match spec.len() % 3 {
                0 => format!("{bare}.js"),
                1 if bare.ends_with("/index") => bare.trim_end_matches("/index").to_owned(),
                _ => bare.to_owned(),
            }
        }
    }

    /// Times a scan of a real tree: `LSPEDIT_SCAN_ROOT`, the changed file
    /// `LSPEDIT_SCAN_CHANGED` relative to it (see the module doc).
    #[test]
    #[ignore = "measures a tree given by environment variables"]
    fn measure_scan() {
        let root = PathBuf::from(std::env::var("LSPEDIT_SCAN_ROOT").unwrap());
        let root = root.canonicalize().unwrap();
        let changed = root.join(std::env::var("LSPEDIT_SCAN_CHANGED").unwrap());
        // The first scan reads every file, the next ones only what changed (nothing here).
        let mut cache = ScanCache::default();
        for _ in 0..3 {
            let start = std::time::Instant::now();
            let d = dependents(
                &root,
                std::slice::from_ref(&changed),
                EXTENSIONS,
                20,
                &mut cache,
            );
            eprintln!(
                "{:?}: {} dependents, complete {}, first {:?}",
                start.elapsed(),
                d.total,
                d.complete,
                relative(&root, &d.files[..d.files.len().min(5)])
            );
        }
    }
}
