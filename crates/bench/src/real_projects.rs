//! The pinned real projects of `lspedit-bench real` (and the large ones of `real --large`):
//! where each archive comes from and its SHA-256, how a fresh copy is unpacked and made
//! checkable, the edits the benchmark makes, and each language's own checker (the ground truth
//! of the cross-file score).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, bail, ensure};
use sha2::{Digest, Sha256};

use crate::child;

/// One edit: replacing `from` (found exactly once in `file`) by `to`.
pub struct Edit {
    pub name: &'static str,
    pub file: &'static str,
    pub from: &'static str,
    pub to: &'static str,
}

/// A language's own whole-tree checker.
#[derive(Clone, Copy)]
pub enum Checker {
    /// `tsc --noEmit -p .` (typescript@5 from the servers dir).
    Tsc,
    /// `pyright --outputjson` (the servers dir's CLI).
    Pyright,
    /// `cargo check --all-targets --message-format=json --offline`.
    Cargo,
}

impl Checker {
    pub fn describe(self) -> &'static str {
        match self {
            Checker::Tsc => "`tsc --noEmit -p .` (typescript 5)",
            Checker::Pyright => "`pyright --outputjson`",
            Checker::Cargo => "`cargo check --all-targets --message-format=json`",
        }
    }
}

/// An npm package a TypeScript project imports, pinned like the project and unpacked into its
/// `node_modules/<name>` (the registry's tarballs have no dependencies inside them).
pub struct Dep {
    pub name: &'static str,
    pub url: &'static str,
    pub sha256: &'static str,
}

pub struct Project {
    pub name: &'static str,
    pub version: &'static str,
    pub url: &'static str,
    pub sha256: &'static str,
    /// The archive's top folder.
    top: &'static str,
    pub servers: &'static [&'static str],
    pub checker: Checker,
    /// `Checker::Tsc` only: the tsconfig written at the root (the npm packages ship none).
    tsconfig: &'static str,
    /// `Checker::Tsc` only: the packages `src/` imports.
    deps: &'static [Dep],
    /// Introduces a type error in the file's own body (no exported type changes): the warm
    /// edit → fix cycles.
    pub warm: Edit,
    /// Edits to exported API, each breaking (or not) files that use it.
    pub cases: &'static [Edit],
}

const fn edit(
    name: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
) -> Edit {
    Edit {
        name,
        file,
        from,
        to,
    }
}

const ZOD_UTIL: &str = "src/v4/core/util.ts";

pub const PROJECTS: &[Project] = &[
    Project {
        name: "zod",
        version: "4.1.12",
        url: "https://registry.npmjs.org/zod/-/zod-4.1.12.tgz",
        sha256: "2ef9d7a7d822b059c9bd21f87caa4fdc48220d437353678984df942fb67b43fa",
        top: "package",
        servers: &["tsc7", "typescript-language-server"],
        checker: Checker::Tsc,
        tsconfig: ZOD_TSCONFIG,
        deps: &[],
        warm: edit(
            "nullish returns a string",
            ZOD_UTIL,
            "  return input === null || input === undefined;",
            "  return \"nullish\";",
        ),
        cases: &[
            edit(
                "rename an exported function (cleanRegex)",
                ZOD_UTIL,
                "export function cleanRegex(",
                "export function cleanRegexSource(",
            ),
            edit(
                "parameter type (floatSafeRemainder step: string)",
                ZOD_UTIL,
                "export function floatSafeRemainder(val: number, step: number): number {",
                "export function floatSafeRemainder(val: number, step: string): number {",
            ),
            edit(
                "parameter count (escapeRegex + flags)",
                ZOD_UTIL,
                "export function escapeRegex(str: string): string {",
                "export function escapeRegex(str: string, flags: string): string {",
            ),
            edit(
                "remove an export (isPlainObject)",
                ZOD_UTIL,
                "export function isPlainObject(",
                "function isPlainObject(",
            ),
            edit(
                "return type (getEnumValues: string)",
                ZOD_UTIL,
                "export function getEnumValues(entries: EnumLike): EnumValue[] {",
                "export function getEnumValues(entries: EnumLike): string {",
            ),
            edit(
                "rename a function used by 48 locale files (joinValues)",
                ZOD_UTIL,
                "export function joinValues<",
                "export function joinList<",
            ),
            edit(
                "rename an exported constant (regexes.email)",
                "src/v4/core/regexes.ts",
                "export const email: RegExp =",
                "export const emailAddress: RegExp =",
            ),
            edit(
                "constant's type (version.patch: string)",
                "src/v4/core/versions.ts",
                "  patch: 12 as number,",
                "  patch: \"12\",",
            ),
            edit(
                "parameter type (toDotPath: string)",
                "src/v4/core/errors.ts",
                "export function toDotPath(_path: readonly (string | number | symbol | StandardSchemaV1.PathSegment)[]): string {",
                "export function toDotPath(_path: string): string {",
            ),
            edit(
                "barrel drops a re-export (core/index.ts: checks)",
                "src/v4/core/index.ts",
                "export * from \"./checks.js\";\n",
                "// checks re-export removed\n",
            ),
            edit(
                "barrel drops a namespace re-export (core/index.ts: util)",
                "src/v4/core/index.ts",
                "export * as util from \"./util.js\";\n",
                "// util re-export removed\n",
            ),
            edit(
                "rename a re-exported function (core _parse)",
                "src/v4/core/parse.ts",
                "export const _parse: (_Err: $ZodErrorClass) => $Parse =",
                "export const _parseWith: (_Err: $ZodErrorClass) => $Parse =",
            ),
            edit(
                "barrel drops a namespace nobody imports (classic iso)",
                "src/v4/classic/external.ts",
                "export * as iso from \"./iso.js\";\n",
                "// iso re-export removed\n",
            ),
        ],
    },
    Project {
        name: "requests",
        version: "2.32.3",
        url: "https://files.pythonhosted.org/packages/63/70/2bf7780ad2d390a8d301ad0b550f1581eadbd9a20f896afe06353c2a2913/requests-2.32.3.tar.gz",
        sha256: "55365417734eb18255590a9ff9eb97e9e1da868d4ccd6402399eaf68af20a760",
        top: "requests-2.32.3",
        servers: &["pyright"],
        checker: Checker::Pyright,
        tsconfig: "",
        deps: &[],
        warm: edit(
            "dotted_netmask adds an int to a str",
            "src/requests/utils.py",
            "    return socket.inet_ntoa(struct.pack(\">I\", bits))\n",
            "    return socket.inet_ntoa(struct.pack(\">I\", bits)) + 1\n",
        ),
        cases: &[
            edit(
                "rename a function (utils.to_key_val_list)",
                "src/requests/utils.py",
                "def to_key_val_list(value):",
                "def to_kv_list(value):",
            ),
            edit(
                "parameter count (utils.default_headers + user_agent)",
                "src/requests/utils.py",
                "def default_headers():",
                "def default_headers(user_agent):",
            ),
            edit(
                "parameter count (hooks.dispatch_hook - hook_data)",
                "src/requests/hooks.py",
                "def dispatch_hook(key, hooks, hook_data, **kwargs):",
                "def dispatch_hook(key, hooks):",
            ),
            edit(
                "rename a class (structures.CaseInsensitiveDict)",
                "src/requests/structures.py",
                "class CaseInsensitiveDict(MutableMapping):",
                "class CaseInsensitiveMap(MutableMapping):",
            ),
            edit(
                "rename a function (auth._basic_auth_str)",
                "src/requests/auth.py",
                "def _basic_auth_str(username, password):",
                "def _basic_auth_header(username, password):",
            ),
            edit(
                "rename a function re-exported by utils (_internal_utils.to_native_string)",
                "src/requests/_internal_utils.py",
                "def to_native_string(string, encoding=\"ascii\"):",
                "def to_native_str(string, encoding=\"ascii\"):",
            ),
            edit(
                "rename an exception re-exported by __init__ (InvalidURL)",
                "src/requests/exceptions.py",
                "class InvalidURL(RequestException, ValueError):",
                "class BadURL(RequestException, ValueError):",
            ),
            edit(
                "__init__.py drops a re-export (session)",
                "src/requests/__init__.py",
                "from .sessions import Session, session\n",
                "from .sessions import Session\n",
            ),
            edit(
                "parameters lose defaults (cookies.cookiejar_from_dict)",
                "src/requests/cookies.py",
                "def cookiejar_from_dict(cookie_dict, cookiejar=None, overwrite=True):",
                "def cookiejar_from_dict(cookie_dict, cookiejar, overwrite):",
            ),
            edit(
                "parameter count (hooks.default_hooks + event)",
                "src/requests/hooks.py",
                "def default_hooks():",
                "def default_hooks(event):",
            ),
            edit(
                "parameter count (cookies.get_cookie_header - request)",
                "src/requests/cookies.py",
                "def get_cookie_header(jar, request):",
                "def get_cookie_header(jar):",
            ),
            edit(
                "rename a module constant (status_codes.codes)",
                "src/requests/status_codes.py",
                "codes = LookupDict(name=\"status_codes\")",
                "status = LookupDict(name=\"status_codes\")",
            ),
            edit(
                "parameter count (cookies.extract_cookies_to_jar - request)",
                "src/requests/cookies.py",
                "def extract_cookies_to_jar(jar, request, response):",
                "def extract_cookies_to_jar(jar, response):",
            ),
        ],
    },
    Project {
        name: "memchr",
        version: "2.7.4",
        url: "https://static.crates.io/crates/memchr/memchr-2.7.4.crate",
        sha256: "78ca9ab1a0babb1e7d5695e3530886289c18cf2f87ec19a575a0abdce112e3a3",
        top: "memchr-2.7.4",
        servers: &["rust-analyzer"],
        checker: Checker::Cargo,
        tsconfig: "",
        deps: &[],
        warm: edit(
            "is_prefix compares a length with a bool",
            "src/arch/all/mod.rs",
            "pub fn is_prefix(haystack: &[u8], needle: &[u8]) -> bool {\n    needle.len() <= haystack.len()\n",
            "pub fn is_prefix(haystack: &[u8], needle: &[u8]) -> bool {\n    needle.len() <= true\n",
        ),
        cases: &[
            edit(
                "rename a function (arch::all::is_prefix)",
                "src/arch/all/mod.rs",
                "pub fn is_prefix(haystack: &[u8], needle: &[u8]) -> bool {",
                "pub fn has_prefix(haystack: &[u8], needle: &[u8]) -> bool {",
            ),
            edit(
                "parameter type (arch::all::is_suffix needle: &str)",
                "src/arch/all/mod.rs",
                "pub fn is_suffix(haystack: &[u8], needle: &[u8]) -> bool {",
                "pub fn is_suffix(haystack: &[u8], needle: &str) -> bool {",
            ),
            edit(
                "parameter count (arch::all::is_equal + n)",
                "src/arch/all/mod.rs",
                "pub fn is_equal(x: &[u8], y: &[u8]) -> bool {",
                "pub fn is_equal(x: &[u8], y: &[u8], n: usize) -> bool {",
            ),
            edit(
                "return type (arch::all::memchr::One::count: u32)",
                "src/arch/all/memchr.rs",
                "    pub fn count(&self, haystack: &[u8]) -> usize {",
                "    pub fn count(&self, haystack: &[u8]) -> u32 {",
            ),
            edit(
                "lib.rs `pub use` drops memchr",
                "src/lib.rs",
                "    memchr, memchr2, memchr2_iter,",
                "    memchr2, memchr2_iter,",
            ),
            edit(
                "parameter type (memchr needle: char)",
                "src/memchr.rs",
                "pub fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {",
                "pub fn memchr(needle: char, haystack: &[u8]) -> Option<usize> {",
            ),
            edit(
                "parameter count (memmem PrefilterState::new + rare)",
                "src/memmem/searcher.rs",
                "    pub(crate) fn new() -> PrefilterState {",
                "    pub(crate) fn new(rare: usize) -> PrefilterState {",
            ),
            edit(
                "module made private (arch::all::memchr)",
                "src/arch/all/mod.rs",
                "pub mod memchr;",
                "mod memchr;",
            ),
            edit(
                "rename a re-exported function (memchr_iter)",
                "src/memchr.rs",
                "pub fn memchr_iter<'h>(needle: u8, haystack: &'h [u8]) -> Memchr<'h> {",
                "pub fn memchr_iter_fwd<'h>(needle: u8, haystack: &'h [u8]) -> Memchr<'h> {",
            ),
            edit(
                "parameter type (arch::all::memchr::One::new needle: u16)",
                "src/arch/all/memchr.rs",
                "    pub fn new(needle: u8) -> One {",
                "    pub fn new(needle: u16) -> One {",
            ),
            edit(
                "rename a `pub use` alias (memmem::Prefilter)",
                "src/memmem/mod.rs",
                "pub use crate::memmem::searcher::PrefilterConfig as Prefilter;",
                "pub use crate::memmem::searcher::PrefilterConfig as PrefilterMode;",
            ),
        ],
    },
];

/// The large projects of `real --large`: cold start, warm edit → diagnostics and memory (no
/// cross-file cases: their ground truth would take the checker minutes per case).
pub const LARGE_PROJECTS: &[Project] = &[
    Project {
        name: "tokio",
        version: "1.41.1",
        url: "https://static.crates.io/crates/tokio/tokio-1.41.1.crate",
        sha256: "22cfb5bee7a6a52939ca9224d6ac897bb669134078daa8735560897f69de4d33",
        top: "tokio-1.41.1",
        servers: &["rust-analyzer"],
        checker: Checker::Cargo,
        tsconfig: "",
        deps: &[],
        // `io::ReadBuf` is compiled without features (tokio's default feature set is empty,
        // and rust-analyzer reports nothing in code a disabled `cfg` removes).
        warm: edit(
            "ReadBuf::remaining subtracts a bool",
            "src/io/read_buf.rs",
            "    pub fn remaining(&self) -> usize {\n        self.capacity() - self.filled\n",
            "    pub fn remaining(&self) -> usize {\n        self.capacity() - true\n",
        ),
        cases: &[],
    },
    Project {
        name: "django",
        version: "5.1.4",
        url: "https://files.pythonhosted.org/packages/d3/e8/536555596dbb79f6e77418aeb40bdc1758c26725aba31919ba449e6d5e6a/Django-5.1.4.tar.gz",
        sha256: "de450c09e91879fa5a307f696e57c851955c910a438a35e6b4c895e86bedc82a",
        top: "Django-5.1.4",
        servers: &["pyright"],
        checker: Checker::Pyright,
        tsconfig: "",
        deps: &[],
        warm: edit(
            "capfirst adds an int to a str",
            "django/utils/text.py",
            "    return x[0].upper() + x[1:]\n",
            "    return x[0].upper() + 1\n",
        ),
        cases: &[],
    },
    Project {
        name: "effect",
        version: "3.19.0",
        url: "https://registry.npmjs.org/effect/-/effect-3.19.0.tgz",
        sha256: "e2835a391529928bfcad35c500bc66cba19ceb2733deeb0ea8711cfdb14b4db1",
        top: "package",
        servers: &["tsc7", "typescript-language-server"],
        checker: Checker::Tsc,
        tsconfig: EFFECT_TSCONFIG,
        deps: &[
            Dep {
                name: "fast-check",
                url: "https://registry.npmjs.org/fast-check/-/fast-check-3.23.2.tgz",
                sha256: "e0dc9a854e04856bd9962fc64001a21d609d44a3ef0f3b1b224de5f488334646",
            },
            Dep {
                name: "pure-rand",
                url: "https://registry.npmjs.org/pure-rand/-/pure-rand-6.1.0.tgz",
                sha256: "cb9e5ff9b8f365590b793b63a29941913414285a143ba2ac8313f963f7f06fd7",
            },
            Dep {
                name: "@standard-schema/spec",
                url: "https://registry.npmjs.org/@standard-schema/spec/-/spec-1.0.0.tgz",
                sha256: "cee8a097e432a6d91226fa49726a830d97c32e8b0bc3c7c0d7766eb2550e7c44",
            },
        ],
        warm: edit(
            "Chunk.size returns a string",
            "src/Chunk.ts",
            "export const size = <A>(self: Chunk<A>): number => self.length\n",
            "export const size = <A>(self: Chunk<A>): number => \"size\"\n",
        ),
        cases: &[],
    },
];

/// `~/.cache/lspedit/bench`, beside the servers dir.
fn cache_root() -> Result<PathBuf> {
    let servers = lspedit_servers::config::default_servers_dir()
        .context("no cache directory: set HOME or LSPEDIT_SERVERS_DIR")?;
    Ok(servers
        .parent()
        .context("the servers dir has no parent")?
        .join("bench"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `url`, downloaded once into `dir` (under its own file name) and checked against `sha256`.
fn fetch_pinned(dir: &Path, url: &str, sha256: &str, what: &str) -> Result<PathBuf> {
    let name = url.rsplit('/').next().context("url without a file name")?;
    let path = dir.join(name);
    if !path.exists() {
        fs::create_dir_all(dir)?;
        eprintln!("real: downloading {url}");
        let part = dir.join(format!("{name}.part"));
        run_ok(
            Command::new("curl")
                .args(["-fsSL", "--max-time", "300", "-o"])
                .arg(&part)
                .arg(url),
            Duration::from_secs(320),
            &format!("curl {url}"),
        )
        .with_context(|| {
            format!(
                "downloading {what} failed (the registry must be reachable once; the archive is then kept in {})",
                dir.display()
            )
        })?;
        fs::rename(&part, &path)?;
    }
    let got = sha256_hex(&fs::read(&path)?);
    ensure!(
        got == sha256,
        "{}: SHA-256 {got} differs from the pinned {sha256}; delete it to download it again",
        path.display(),
    );
    Ok(path)
}

fn run_ok(cmd: &mut Command, timeout: Duration, what: &str) -> Result<Vec<u8>> {
    let r = child::run(cmd, timeout).with_context(|| format!("cannot run {what}"))?;
    match r.status {
        Some(s) if s.success() => Ok(r.stdout),
        Some(s) => bail!("{what} failed ({s})"),
        None => bail!("{what} did not finish within {} s", timeout.as_secs()),
    }
}

impl Project {
    fn cache_dir(&self) -> Result<PathBuf> {
        Ok(cache_root()?.join(format!("{}-{}", self.name, self.version)))
    }

    /// The archive, downloaded once into the cache and checked against its pinned SHA-256.
    fn archive(&self) -> Result<PathBuf> {
        fetch_pinned(
            &self.cache_dir()?,
            self.url,
            self.sha256,
            &format!("{} {}", self.name, self.version),
        )
    }

    /// A fresh, checkable copy under `dst`: the archive unpacked, then made into a project a
    /// checker accepts (see `prepare`). Returns its root (canonical).
    pub fn unpack(&self, dst: &Path) -> Result<PathBuf> {
        let archive = self.archive()?;
        run_ok(
            Command::new("tar")
                .arg("xzf")
                .arg(&archive)
                .arg("-C")
                .arg(dst),
            Duration::from_secs(120),
            &format!("tar xzf {}", archive.display()),
        )?;
        let root = dst.join(self.top).canonicalize()?;
        self.prepare(&root)?;
        Ok(root)
    }

    fn prepare(&self, root: &Path) -> Result<()> {
        match self.checker {
            // The npm package ships its build output (.js, .d.ts) beside `src/`; the
            // repository has only the sources, and zod's tests need vitest: keep `src/`
            // without them, with a tsconfig (the package has none) and the pinned packages
            // `src/` imports.
            Checker::Tsc => {
                for entry in fs::read_dir(root)? {
                    let entry = entry?;
                    let keep = ["src", "package.json", "LICENSE", "README.md"];
                    if keep.iter().any(|k| entry.file_name() == *k) {
                        continue;
                    }
                    if entry.file_type()?.is_dir() {
                        fs::remove_dir_all(entry.path())?;
                    } else {
                        fs::remove_file(entry.path())?;
                    }
                }
                for dir in walk_dirs(&root.join("src"))? {
                    // A parent removed first takes its subfolders with it.
                    if dir.exists()
                        && (dir.file_name().is_some_and(|n| n == "tests")
                            || dir.ends_with("v3/benchmarks"))
                    {
                        fs::remove_dir_all(&dir)?;
                    }
                }
                fs::write(root.join("tsconfig.json"), self.tsconfig)?;
                for dep in self.deps {
                    let archive = fetch_pinned(&self.cache_dir()?, dep.url, dep.sha256, dep.name)?;
                    let into = root.join("node_modules").join(dep.name);
                    fs::create_dir_all(&into)?;
                    run_ok(
                        Command::new("tar")
                            .arg("xzf")
                            .arg(&archive)
                            .arg("--strip-components=1")
                            .arg("-C")
                            .arg(&into),
                        Duration::from_secs(120),
                        &format!("tar xzf {}", archive.display()),
                    )?;
                }
            }
            Checker::Pyright => {}
            // The crate's optional and dev dependencies must resolve offline: the lock file
            // and the registry sources are fetched once (with the network) and the lock file
            // kept beside the archive.
            Checker::Cargo => {
                let lock = self.cache_dir()?.join("Cargo.lock");
                if !lock.exists() {
                    run_ok(
                        cargo(root).arg("generate-lockfile"),
                        Duration::from_secs(300),
                        "cargo generate-lockfile (needs the crates.io index once)",
                    )?;
                    fs::copy(root.join("Cargo.lock"), &lock)?;
                }
                fs::copy(&lock, root.join("Cargo.lock"))?;
                let offline = || {
                    run_ok(
                        cargo(root).args(["metadata", "--offline", "--format-version", "1"]),
                        Duration::from_secs(120),
                        "cargo metadata --offline",
                    )
                };
                if offline().is_err() {
                    run_ok(
                        cargo(root).arg("fetch"),
                        Duration::from_secs(300),
                        "cargo fetch (needs crates.io once)",
                    )?;
                    offline()?;
                }
            }
        }
        Ok(())
    }

    /// Where the checker's answer would differ from the edit's own text: each case is applied
    /// to a copy of its own, the checker run before and after, and the files other than the
    /// edited one with errors not there before are the case's expected set.
    pub fn expected(&self, cases: &[&Edit]) -> Result<Vec<BTreeSet<String>>> {
        let tmp = tempfile::tempdir()?;
        let root = self.unpack(tmp.path())?;
        eprintln!(
            "real: {}: ground truth with {}",
            self.name,
            self.checker.describe()
        );
        let before = self.check(&root)?;
        let mut out = Vec::new();
        for case in cases {
            let path = root.join(case.file);
            let good = fs::read_to_string(&path)
                .with_context(|| format!("{}: {}", self.name, case.file))?;
            fs::write(&path, apply(&good, case)?)?;
            let after = self.check(&root);
            fs::write(&path, &good)?;
            let after = after?;
            let new: BTreeSet<String> = after
                .iter()
                .filter(|(file, errors)| {
                    file.as_str() != case.file
                        && before
                            .get(*file)
                            .is_none_or(|b| errors.iter().any(|e| !b.contains(e)))
                })
                .map(|(file, _)| file.clone())
                .collect();
            out.push(new);
        }
        Ok(out)
    }

    /// The checker's errors per file (root-relative path → "line:col message" set).
    fn check(&self, root: &Path) -> Result<BTreeMap<String, BTreeSet<String>>> {
        let servers = lspedit_servers::config::default_servers_dir().context("no servers dir")?;
        let timeout = Duration::from_secs(600);
        let mut errors: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        match self.checker {
            Checker::Tsc => {
                let tsc = servers.join("node_modules/typescript/bin/tsc");
                ensure!(
                    tsc.exists(),
                    "{} is missing: run scripts/install-servers",
                    tsc.display()
                );
                let r = child::run(
                    Command::new("node")
                        .arg(&tsc)
                        .args(["--noEmit", "-p", ".", "--pretty", "false"])
                        .current_dir(root),
                    timeout,
                )?;
                ensure!(r.status.is_some(), "tsc did not finish");
                for line in String::from_utf8_lossy(&r.stdout).lines() {
                    // `src/a.ts(12,5): error TS2345: message`
                    let Some((loc, msg)) = line.split_once("): error ") else {
                        continue;
                    };
                    let Some((file, pos)) = loc.rsplit_once('(') else {
                        continue;
                    };
                    errors
                        .entry(file.to_string())
                        .or_default()
                        .insert(format!("{pos} {msg}"));
                }
            }
            Checker::Pyright => {
                let pyright = servers.join("node_modules/.bin/pyright");
                ensure!(
                    pyright.exists(),
                    "{} is missing: run scripts/install-servers",
                    pyright.display()
                );
                let r = child::run(
                    Command::new(&pyright).arg("--outputjson").current_dir(root),
                    timeout,
                )?;
                ensure!(r.status.is_some(), "pyright did not finish");
                let v: serde_json::Value =
                    serde_json::from_slice(&r.stdout).context("pyright's JSON")?;
                for d in v["generalDiagnostics"].as_array().into_iter().flatten() {
                    if d["severity"] != "error" {
                        continue;
                    }
                    let file = d["file"].as_str().unwrap_or_default();
                    let Ok(rel) = Path::new(file).strip_prefix(root) else {
                        continue;
                    };
                    let r = &d["range"]["start"];
                    errors
                        .entry(rel.to_string_lossy().into_owned())
                        .or_default()
                        .insert(format!("{}:{} {}", r["line"], r["character"], d["message"]));
                }
            }
            Checker::Cargo => {
                let r = child::run(
                    cargo(root).args([
                        "check",
                        "--all-targets",
                        "--offline",
                        "--message-format=json",
                    ]),
                    timeout,
                )?;
                ensure!(r.status.is_some(), "cargo check did not finish");
                for line in String::from_utf8_lossy(&r.stdout).lines() {
                    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                        continue;
                    };
                    let msg = &v["message"];
                    if v["reason"] != "compiler-message" || msg["level"] != "error" {
                        continue;
                    }
                    for span in msg["spans"].as_array().into_iter().flatten() {
                        if span["is_primary"] != true {
                            continue;
                        }
                        let file = span["file_name"].as_str().unwrap_or_default();
                        if Path::new(file).is_absolute() {
                            continue;
                        }
                        errors.entry(file.to_string()).or_default().insert(format!(
                            "{}:{} {}",
                            span["line_start"], span["column_start"], msg["message"]
                        ));
                    }
                }
            }
        }
        Ok(errors)
    }
}

/// `cargo` in `root` with its own target dir (not the caller's `CARGO_TARGET_DIR`).
fn cargo(root: &Path) -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.current_dir(root).env_remove("CARGO_TARGET_DIR");
    c
}

/// `text` with the edit's `from` replaced; both `from` before and `to` after must occur
/// exactly once (the edit and its revert are then unambiguous).
pub fn apply(text: &str, e: &Edit) -> Result<String> {
    ensure!(
        text.matches(e.from).count() == 1,
        "{}: `{}` must occur exactly once (the pinned version changed?)",
        e.file,
        e.from
    );
    let out = text.replacen(e.from, e.to, 1);
    ensure!(
        out.matches(e.to).count() == 1,
        "{}: `{}` must occur exactly once after the edit",
        e.file,
        e.to
    );
    Ok(out)
}

fn walk_dirs(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            out.push(entry.path());
            out.extend(walk_dirs(&entry.path())?);
        }
    }
    Ok(out)
}

const ZOD_TSCONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "target": "es2022",
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "noEmit": true,
    "skipLibCheck": true,
    "types": []
  },
  "include": ["src"]
}
"#;

/// effect's own compiler options that change what is an error (`exactOptionalPropertyTypes`),
/// without `@types/node`: the copy has 61 errors from node's globals (`process`,
/// `Error.stackTraceLimit`) before any edit.
const EFFECT_TSCONFIG: &str = r#"{
  "compilerOptions": {
    "strict": true,
    "exactOptionalPropertyTypes": true,
    "target": "es2022",
    "lib": ["es2022", "dom"],
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "noEmit": true,
    "skipLibCheck": true,
    "types": []
  },
  "include": ["src"]
}
"#;
