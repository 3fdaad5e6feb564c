//! Test support for suites that exercise language-server integration (feature `testing`).
//!
//! - [`TestWorkspace`]: a temp workspace built from a multi-file fixture string, where each
//!   file starts with a `//- /path` line:
//!
//!   ```text
//!   //- /tsconfig.json
//!   { "compilerOptions": { "strict": true } }
//!   //- /src/main.ts
//!   export const n: number = 1;
//!   ```
//!
//! - The agent tools over it ([`TestWorkspace::apply_patch`], [`TestWorkspace::edit`],
//!   [`TestWorkspace::write_file`]) with diagnostics from real servers
//!   ([`TestWorkspace::with_servers`]), from the scripted fake server
//!   ([`TestWorkspace::with_fake_server`], fault injection through [`fake::Script`]), or none.
//! - The LSP edits, lookups and symbol tools over it, as the MCP tools and CLI commands of the
//!   same names run them: [`TestWorkspace::rename`], [`TestWorkspace::code_actions`] and
//!   [`TestWorkspace::fix`], [`TestWorkspace::references`], [`TestWorkspace::definition`],
//!   [`TestWorkspace::hover`], [`TestWorkspace::outline`], [`TestWorkspace::find_symbol`],
//!   [`TestWorkspace::replace_symbol_body`], [`TestWorkspace::insert_before_symbol`] and
//!   [`TestWorkspace::insert_after_symbol`]; the rest ([`TestWorkspace::lsp_edits`],
//!   [`TestWorkspace::session`]) for calls the helpers do not cover. A fake server that answers
//!   them names files by URI: [`TestWorkspace::with_fake_server_for`] builds its script once
//!   the workspace root is known.
//! - [`Outcome`]: the result with assertions on the diagnostics it reported, parsed from
//!   the very text the model reads (`ERROR [line:col] message (code)` inside
//!   `<diagnostics file="…">` blocks): [`Outcome::assert_error`] by file, line and code. An
//!   edit's ([`Outcome<LspEditResult>`]) and a lookup's (`Outcome<Result<Report,
//!   LspEditError>>`, [`Outcome::report`]) have the same assertions.
//!
//! ```no_run
//! use lspedit::testing::TestWorkspace;
//!
//! let ws = TestWorkspace::with_servers(
//!     "//- /tsconfig.json\n{}\n//- /src/a.ts\nexport const n: number = 1;\n",
//!     &["tsc7", "typescript-language-server"],
//! )?;
//! ws.edit("src/a.ts", "number = 1", "number = \"one\"")
//!     .assert_applied()
//!     .assert_error("src/a.ts", 1, Some("ts2322"));
//! # Ok::<(), lspedit::testing::TestingError>(())
//! ```
//!
//! Helpers that assert panic with the tool's full text, as test assertions do.
//!
//! Everything a suite needs is public here (no helper of lspedit's own tests): a test that
//! needs a real server starts with [`servers_unavailable`] to skip when it is not installed,
//! and [`Timeouts`] bounds how long a check may wait.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lspedit_lsp::{PoolConfig, ServerConfig};
use lspedit_lsp_edits::{
    ActionPick, CodeActionList, EditOptions, FindQuery, FindReport, HoverReport, LineRef,
    LocationsReport, LookupAt, LspEditError, LspEditResult, LspEdits, OutlineReport, SymbolAt,
    SymbolEdit, SymbolEditKind,
};
use lspedit_session::Session;
use lspedit_tools::{ToolResult, Tools, ToolsConfig};
use lspedit_workflow::WorkflowConfig;
use lspedit_write::Workspace;

/// The scripted fake language server, as a library: its [`fake::Script`] (delivery mode,
/// crashes, hangs, garbage, slowness) and [`fake::binary`].
pub use lspedit_fake_lsp as fake;

/// The servers for TypeScript files, best first (TypeScript 7's own LSP, then tsserver).
pub const TYPESCRIPT_SERVERS: &[&str] = &["tsc7", "typescript-language-server"];

/// Environment variable that turns a missing server into a failure: set it to `1` where the
/// servers were installed first (CI), so a suite cannot pass by skipping everything.
pub const REQUIRE_SERVERS_ENV: &str = "LSPEDIT_REQUIRE_SERVERS";

/// `None` when one of `servers` is installed and runs where the pool looks
/// ([`lspedit_servers::config::default_servers_dir`], then `$PATH`); otherwise why not, for the test
/// to print and return early. Panics instead under `LSPEDIT_REQUIRE_SERVERS=1`
/// ([`REQUIRE_SERVERS_ENV`]).
///
/// ```no_run
/// # #[allow(clippy::print_stderr)]
/// # fn main() {
/// use lspedit::testing::{TYPESCRIPT_SERVERS, servers_unavailable};
/// if let Some(why) = servers_unavailable(TYPESCRIPT_SERVERS) {
///     eprintln!("skipped: {why}");
///     return;
/// }
/// # }
/// ```
#[track_caller]
pub fn servers_unavailable(servers: &[&str]) -> Option<String> {
    let config = match PoolConfig::bundled() {
        Ok(c) => c,
        Err(e) => return Some(format!("the bundled server configuration is invalid: {e}")),
    };
    let ready = lspedit_servers::install::inspect(&config)
        .into_iter()
        .any(|i| servers.contains(&i.id.as_str()) && i.is_ready());
    if ready {
        return None;
    }
    let why = format!(
        "none of the servers {servers:?} is installed; run `lspedit servers install {}`",
        servers.join(" ")
    );
    assert!(
        std::env::var(REQUIRE_SERVERS_ENV).map_or(true, |v| v != "1"),
        "{why} ({REQUIRE_SERVERS_ENV}=1 makes this a failure)"
    );
    Some(format!(
        "{why} (set {REQUIRE_SERVERS_ENV}=1 to fail instead)"
    ))
}

/// How long the tools wait for diagnostics in a [`TestWorkspace`]. The defaults are generous
/// (a test waits for the truth, even on a loaded CI machine); a suite that prefers to fail
/// fast lowers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// While a server has not answered its first check (start, project load). Default 60 s.
    pub start: Duration,
    /// Once it has. Default 30 s.
    pub warm: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            start: Duration::from_secs(60),
            warm: Duration::from_secs(30),
        }
    }
}

/// Why a test workspace could not be set up.
#[derive(Debug)]
#[non_exhaustive]
pub enum TestingError {
    /// The fixture text is malformed (no `//- /path` header, a path that leaves the root).
    Fixture(String),
    Io(std::io::Error),
    /// The pool configuration could not be built.
    Config(String),
    /// A server the test needs is not installed (see [`TestWorkspace::with_servers`]).
    ServerMissing(String),
}

impl std::fmt::Display for TestingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TestingError::Fixture(m) => write!(f, "bad fixture: {m}"),
            TestingError::Io(e) => write!(f, "I/O error: {e}"),
            TestingError::Config(m) => write!(f, "configuration error: {m}"),
            TestingError::ServerMissing(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for TestingError {}

impl From<std::io::Error> for TestingError {
    fn from(e: std::io::Error) -> Self {
        TestingError::Io(e)
    }
}

/// Parses a fixture into `(path, text)` pairs: a line `//- /path` starts a file, the lines up
/// to the next header are its text (each keeps its newline). Paths are workspace-relative
/// without the leading `/`.
pub fn parse_fixture(fixture: &str) -> Result<Vec<(String, String)>, TestingError> {
    let mut files: Vec<(String, String)> = Vec::new();
    for line in fixture.split_inclusive('\n') {
        if let Some(header) = line.trim_end().strip_prefix("//- ") {
            let path = header.trim().trim_start_matches('/').to_string();
            if path.is_empty() || path.split('/').any(|c| c == ".." || c.is_empty()) {
                return Err(TestingError::Fixture(format!(
                    "bad path in header {:?}",
                    line.trim_end()
                )));
            }
            files.push((path, String::new()));
        } else if let Some((_, text)) = files.last_mut() {
            text.push_str(line);
        } else if !line.trim().is_empty() {
            return Err(TestingError::Fixture(
                "text before the first `//- /path` header".into(),
            ));
        }
    }
    if files.is_empty() {
        return Err(TestingError::Fixture("no `//- /path` header".into()));
    }
    Ok(files)
}

/// A temp workspace with the agent tools over it. Dropping it stops its servers and deletes
/// the directory.
pub struct TestWorkspace {
    // Field order: the session (and its servers) goes before the directory.
    session: Session,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for TestWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestWorkspace")
            .field("root", &self.root)
            .finish()
    }
}

impl TestWorkspace {
    /// The fixture's files, no diagnostics.
    pub fn new(fixture: &str) -> Result<TestWorkspace, TestingError> {
        Self::build(fixture, Timeouts::default(), |_| Ok(None))
    }

    /// The fixture's files, with diagnostics from the bundled real servers named in `servers`
    /// (others disabled), found where `lspedit servers install` put them. Default
    /// [`Timeouts`] (60 s to start, 30 s warm): a test waits for the truth. Fails with
    /// [`TestingError::ServerMissing`] when none of them is installed.
    pub fn with_servers(fixture: &str, servers: &[&str]) -> Result<TestWorkspace, TestingError> {
        Self::with_servers_and_timeouts(fixture, servers, Timeouts::default())
    }

    /// [`TestWorkspace::with_servers`] with the diagnostics timeouts given.
    pub fn with_servers_and_timeouts(
        fixture: &str,
        servers: &[&str],
        timeouts: Timeouts,
    ) -> Result<TestWorkspace, TestingError> {
        Self::build(fixture, timeouts, |root| {
            let cfg = PoolConfig::load(root)
                .map_err(|e| TestingError::Config(e.to_string()))?
                .only(servers);
            if !servers.iter().any(|id| {
                cfg.server(id)
                    .is_some_and(|s| cfg.resolve_command(s).is_some())
            }) {
                return Err(TestingError::ServerMissing(format!(
                    "none of the servers {servers:?} is installed; run `lspedit servers install {}`",
                    servers.join(" ")
                )));
            }
            Ok(Some(cfg))
        })
    }

    /// The fixture's files, with diagnostics from the scripted fake server for files ending in
    /// `.<extension>`. Every line containing `script.marker` yields one error, code `F001`.
    pub fn with_fake_server(
        fixture: &str,
        script: &fake::Script,
        extension: &str,
    ) -> Result<TestWorkspace, TestingError> {
        Self::with_fake_server_for(fixture, extension, |_| script.clone())
    }

    /// [`TestWorkspace::with_fake_server`] with the script made by `script(root)` once the
    /// fixture is written: the answers of the LSP edits and lookups ([`fake::Script`]'s
    /// `rename_edit`, `locations`, ...) name files by URI ([`TestWorkspace::uri`] is `file://`
    /// and the path under `root`).
    pub fn with_fake_server_for(
        fixture: &str,
        extension: &str,
        script: impl FnOnce(&Path) -> fake::Script,
    ) -> Result<TestWorkspace, TestingError> {
        Self::build(fixture, Timeouts::default(), |root| {
            let script = script(root);
            let script_file = root.join(".lspedit-fake-script.json");
            std::fs::write(&script_file, script.to_json())?;
            let strategy = match script.mode {
                fake::Mode::Push => "push-versioned",
                fake::Mode::PushUnversioned => "push-unversioned",
                fake::Mode::Pull => "pull",
                fake::Mode::TsserverPull => "tsserver-pull",
            };
            let toml = format!(
                "id = \"fake\"\ncommand = {cmd:?}\nlanguages = {{ {extension} = \"fake\" }}\n\
                 diagnostics = {{ strategy = \"{strategy}\", quiet_window_ms = 30, first_publish_timeout_ms = 400 }}\n\
                 env = {{ {env} = {script:?} }}\n",
                cmd = fake::binary().display().to_string(),
                env = fake::SCRIPT_FILE_ENV,
                script = script_file.display().to_string(),
            );
            let server =
                ServerConfig::from_toml(&toml).map_err(|e| TestingError::Config(e.to_string()))?;
            Ok(Some(PoolConfig {
                servers: vec![server],
                shutdown_grace: Duration::from_millis(300),
                restart_backoff: Duration::from_millis(50),
                startup_timeout: Duration::from_secs(5),
                request_timeout: Duration::from_secs(2),
                ..PoolConfig::default()
            }))
        })
    }

    fn build(
        fixture: &str,
        timeouts: Timeouts,
        pool: impl FnOnce(&Path) -> Result<Option<PoolConfig>, TestingError>,
    ) -> Result<TestWorkspace, TestingError> {
        let files = parse_fixture(fixture)?;
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        for (path, text) in &files {
            let abs = root.join(path);
            if let Some(parent) = abs.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&abs, text)?;
        }
        let pool = pool(&root)?;
        let ws = Workspace::open(&root).map_err(|e| TestingError::Config(e.to_string()))?;
        let mut config = ToolsConfig::default();
        config.diagnostics.start_timeout = Some(timeouts.start);
        config.diagnostics.timeout = Some(timeouts.warm);
        Ok(TestWorkspace {
            // A test suite is the person: its `apply_edit` calls are applied as planned.
            session: Session::new(ws, pool, config)
                .with_workflow_config(WorkflowConfig::unrestricted()),
            root,
            _dir: dir,
        })
    }

    /// The workspace root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The tools, for calls the helpers do not cover.
    pub fn tools(&self) -> &Tools {
        self.session.tools()
    }

    /// A file's current text; panics when it cannot be read.
    pub fn read(&self, path: &str) -> String {
        match std::fs::read_to_string(self.root.join(path)) {
            Ok(t) => t,
            Err(e) => panic!("cannot read {path}: {e}"),
        }
    }

    /// The hashline view (`42abcd|content`) of a file, as `read_file` shows it.
    pub fn read_file(&self, path: &str) -> Outcome {
        Outcome(self.tools().read_file(path, None, None))
    }

    /// The anchor (`42abcd`) of 1-based `line` of `path`; panics when there is no such line.
    pub fn anchor(&self, path: &str, line: usize) -> String {
        let view = self.tools().read_file(path, Some(line), Some(1));
        view.llm_content
            .split('|')
            .next()
            .filter(|a| !view.is_error && a.starts_with(&line.to_string()))
            .map(str::to_string)
            .unwrap_or_else(|| panic!("no line {line} in {path}: {}", view.llm_content))
    }

    pub fn apply_patch(&self, patch: &str) -> Outcome {
        Outcome(self.tools().apply_patch(patch))
    }

    pub fn edit(&self, path: &str, old_text: &str, new_text: &str) -> Outcome {
        Outcome(self.tools().edit(path, old_text, new_text, false))
    }

    pub fn write_file(&self, path: &str, content: &str) -> Outcome {
        Outcome(self.tools().write_file(path, content))
    }

    /// The `diagnostics` operation (check files as they are, no edit).
    pub fn diagnostics(&self, paths: &[&str]) -> Outcome {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        Outcome(self.session.diagnostics(&paths))
    }

    /// The session the helpers run on: the workflow (`propose_edit`, `apply_edit`, `undo`) and
    /// everything else of the library, over the same tools and servers.
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// `file://` and the absolute path of `path` in the workspace, as a server names it.
    pub fn uri(&self, path: &str) -> String {
        format!("file://{}", self.root.join(path).display())
    }

    /// The LSP edits, lookups and symbol tools, for calls the helpers do not cover (anchors
    /// instead of line numbers, a preview, the call hierarchy, ...). Panics when the workflow
    /// they apply through cannot be opened.
    pub fn lsp_edits(&self) -> LspEdits<'_> {
        self.session
            .lsp_edits()
            .unwrap_or_else(|e| panic!("the LSP edits are unavailable: {e}"))
    }

    /// `rename_symbol`: `symbol` (its text on 1-based `line` of `path`) renamed to `new_name`
    /// in every file the server names, applied at once, all files or none.
    pub fn rename(
        &self,
        path: &str,
        line: usize,
        symbol: &str,
        new_name: &str,
    ) -> Outcome<LspEditResult> {
        Outcome(self.lsp_edits().rename_symbol(
            at(path, line, symbol),
            new_name,
            EditOptions::default(),
        ))
    }

    /// `code_actions`: what the server offers on 1-based `line` of `path` (its diagnostics
    /// there as context).
    pub fn code_actions(
        &self,
        path: &str,
        line: usize,
    ) -> Outcome<Result<CodeActionList, LspEditError>> {
        Outcome(self.lsp_edits().code_actions(path, &LineRef::Number(line)))
    }

    /// `apply_code_action`: the action on 1-based `line` of `path` whose title is `title` (or
    /// the only one containing it), applied at once.
    pub fn fix(&self, path: &str, line: usize, title: &str) -> Outcome<LspEditResult> {
        Outcome(self.lsp_edits().apply_code_action(
            path,
            &LineRef::Number(line),
            &ActionPick::Title(title.to_string()),
            EditOptions::default(),
        ))
    }

    /// `references`: every reference to `symbol` (its text on 1-based `line` of `path`), its
    /// declaration included.
    pub fn references(
        &self,
        path: &str,
        line: usize,
        symbol: &str,
    ) -> Outcome<Result<LocationsReport, LspEditError>> {
        Outcome(self.lsp_edits().references(at(path, line, symbol), true))
    }

    /// `definition`: where `symbol` (its text on 1-based `line` of `path`) is defined.
    pub fn definition(
        &self,
        path: &str,
        line: usize,
        symbol: &str,
    ) -> Outcome<Result<LocationsReport, LspEditError>> {
        Outcome(self.lsp_edits().definition(at(path, line, symbol)))
    }

    /// `hover`: the server's type and signature text at `symbol` on 1-based `line` of `path`.
    pub fn hover(
        &self,
        path: &str,
        line: usize,
        symbol: &str,
    ) -> Outcome<Result<HoverReport, LspEditError>> {
        Outcome(self.lsp_edits().hover(&at(path, line, symbol)))
    }

    /// `outline`: the declarations of a file (or the top-level ones of a directory's files)
    /// with their name paths, anchors and line ranges; [`TestWorkspace::lsp_edits`]'s
    /// `outline_with` lists every symbol.
    pub fn outline(&self, path: &str) -> Outcome<Result<OutlineReport, LspEditError>> {
        Outcome(self.lsp_edits().outline(path))
    }

    /// `find_symbol`: the symbols named `name` or at name path `name` (`Cart/total`) in `path`
    /// (a file, read with `documentSymbol`, or a directory) or, with `None`, the whole
    /// workspace (both through `workspace/symbol`). A [`FindQuery`] through
    /// [`TestWorkspace::lsp_edits`] filters by kind or asks for the bodies.
    pub fn find_symbol(
        &self,
        name: &str,
        path: Option<&str>,
    ) -> Outcome<Result<FindReport, LspEditError>> {
        Outcome(self.lsp_edits().find_symbol(&FindQuery {
            name: name.to_string(),
            path: path.map(str::to_string),
            ..FindQuery::default()
        }))
    }

    /// `replace_symbol_body`: the whole declaration at `name_path` in `path` becomes `body`.
    pub fn replace_symbol_body(
        &self,
        path: &str,
        name_path: &str,
        body: &str,
    ) -> Outcome<LspEditResult> {
        self.edit_symbol(SymbolEditKind::Replace, path, name_path, body)
    }

    /// `insert_before_symbol`: `body` goes above the symbol at `name_path` in `path`.
    pub fn insert_before_symbol(
        &self,
        path: &str,
        name_path: &str,
        body: &str,
    ) -> Outcome<LspEditResult> {
        self.edit_symbol(SymbolEditKind::InsertBefore, path, name_path, body)
    }

    /// `insert_after_symbol`: `body` goes below the symbol at `name_path` in `path`.
    pub fn insert_after_symbol(
        &self,
        path: &str,
        name_path: &str,
        body: &str,
    ) -> Outcome<LspEditResult> {
        self.edit_symbol(SymbolEditKind::InsertAfter, path, name_path, body)
    }

    fn edit_symbol(
        &self,
        kind: SymbolEditKind,
        path: &str,
        name_path: &str,
        body: &str,
    ) -> Outcome<LspEditResult> {
        let edit = SymbolEdit::new(kind, path, name_path, body);
        Outcome(self.lsp_edits().edit_symbol(&edit, EditOptions::default()))
    }
}

/// `symbol` on 1-based `line` of `path`.
fn at(path: &str, line: usize, symbol: &str) -> LookupAt {
    LookupAt::Text(SymbolAt::new(path, LineRef::Number(line), symbol))
}

/// One diagnostic as the model read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reported {
    pub file: String,
    /// `ERROR`, `WARNING`, `INFO` or `HINT`.
    pub severity: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// `ts2322`, `E0308`, …
    pub code: Option<String>,
}

/// Parses every `<diagnostics file="…">` block of a tool's text.
pub fn parse_diagnostics(text: &str) -> Vec<Reported> {
    let mut out = Vec::new();
    let mut file: Option<String> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("<diagnostics file=\"") {
            file = rest.strip_suffix("\">").map(str::to_string);
            continue;
        }
        if line == "</diagnostics>" {
            file = None;
            continue;
        }
        let Some(f) = &file else { continue };
        if let Some(d) = parse_line(f, line) {
            out.push(d);
        }
    }
    out
}

/// `ERROR [42:5] message (code)`.
fn parse_line(file: &str, line: &str) -> Option<Reported> {
    let (severity, rest) = line.split_once(" [")?;
    let (pos, rest) = rest.split_once("] ")?;
    let (l, c) = pos.split_once(':')?;
    let (message, code) = match rest.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((m, code)) if !code.contains(' ') => (m.to_string(), Some(code.to_string())),
        _ => (rest.to_string(), None),
    };
    Some(Reported {
        file: file.to_string(),
        severity: severity.to_string(),
        line: l.parse().ok()?,
        column: c.parse().ok()?,
        message,
        code,
    })
}

/// What [`Outcome`]'s assertions read of a result: the text the model reads and whether it is
/// a refusal.
pub trait Reply {
    /// What the model reads (a refusal's text for a refused lookup).
    fn text(&self) -> Cow<'_, str>;
    fn is_error(&self) -> bool;
}

/// The results that carry their own `llm_content` and `is_error`.
macro_rules! replies {
    ($($t:ty),*) => {$(
        impl Reply for $t {
            fn text(&self) -> Cow<'_, str> {
                Cow::Borrowed(&self.llm_content)
            }
            fn is_error(&self) -> bool {
                self.is_error
            }
        }
    )*};
}
replies!(ToolResult, LspEditResult);

/// The text of a lookup's report.
pub trait Report {
    fn llm_content(&self) -> &str;
}

macro_rules! reports {
    ($($t:ty),*) => {$(
        impl Report for $t {
            fn llm_content(&self) -> &str {
                &self.llm_content
            }
        }
    )*};
}
reports!(
    LocationsReport,
    OutlineReport,
    FindReport,
    HoverReport,
    CodeActionList
);

impl<T: Report> Reply for Result<T, LspEditError> {
    fn text(&self) -> Cow<'_, str> {
        match self {
            Ok(r) => Cow::Borrowed(r.llm_content()),
            Err(e) => Cow::Owned(e.refusal_text()),
        }
    }
    fn is_error(&self) -> bool {
        self.is_err()
    }
}

/// A result, with assertions: a tool's ([`ToolResult`], the default), an LSP edit's
/// ([`LspEditResult`]) or a lookup's (`Result<Report, LspEditError>`). Each assertion panics
/// with the full text the model reads.
#[derive(Debug, Clone)]
pub struct Outcome<R = ToolResult>(pub R);

impl<R: Reply> Outcome<R> {
    /// What the model reads.
    pub fn text(&self) -> Cow<'_, str> {
        self.0.text()
    }

    /// The diagnostics reported in the text.
    pub fn diagnostics(&self) -> Vec<Reported> {
        parse_diagnostics(&self.0.text())
    }

    /// It succeeded (a tool or an edit: every file applied; a lookup: answered).
    #[track_caller]
    pub fn assert_applied(&self) -> &Self {
        assert!(
            !self.0.is_error(),
            "expected success, got a refusal:\n{}",
            self.0.text()
        );
        self
    }

    /// It was refused, naming `reason` (e.g. `hunk_mismatch`, `symbol_not_found`).
    #[track_caller]
    pub fn assert_refused(&self, reason: &str) -> &Self {
        assert!(
            self.0.is_error() && self.0.text().contains(reason),
            "expected a refusal with {reason}, got:\n{}",
            self.0.text()
        );
        self
    }

    /// An error was reported for `file` at 1-based `line`, with `code` when given.
    #[track_caller]
    pub fn assert_error(&self, file: &str, line: u32, code: Option<&str>) -> &Self {
        let found = self.diagnostics().iter().any(|d| {
            d.file == file
                && d.line == line
                && d.severity == "ERROR"
                && code.is_none_or(|c| d.code.as_deref() == Some(c))
        });
        assert!(
            found,
            "expected an error in {file} at line {line} (code {code:?}), got:\n{}",
            self.0.text()
        );
        self
    }

    /// No diagnostics at all were reported.
    #[track_caller]
    pub fn assert_no_diagnostics(&self) -> &Self {
        assert!(
            self.diagnostics().is_empty(),
            "expected no diagnostics, got:\n{}",
            self.0.text()
        );
        self
    }

    /// The text the model reads contains `needle`.
    #[track_caller]
    pub fn assert_contains(&self, needle: &str) -> &Self {
        assert!(
            self.0.text().contains(needle),
            "expected the text to contain {needle:?}, got:\n{}",
            self.0.text()
        );
        self
    }
}

impl<T> Outcome<Result<T, LspEditError>> {
    /// The lookup's report; panics with the refusal when it was refused.
    #[track_caller]
    pub fn report(&self) -> &T {
        match &self.0 {
            Ok(r) => r,
            Err(e) => panic!("expected an answer, got a refusal:\n{}", e.refusal_text()),
        }
    }
}

impl Outcome<Result<LocationsReport, LspEditError>> {
    /// A location in `file` at 1-based `line` was found.
    #[track_caller]
    pub fn assert_location(&self, file: &str, line: usize) -> &Self {
        let found = self
            .report()
            .locations
            .iter()
            .any(|l| l.path == file && l.line == line);
        assert!(
            found,
            "expected a location in {file} at line {line}, got:\n{}",
            self.0.text()
        );
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_parses_files_in_order() {
        let files = parse_fixture("//- /a.ts\nx\n\n//- /src/b.ts\ny\n").unwrap();
        assert_eq!(
            files,
            vec![
                ("a.ts".to_string(), "x\n\n".to_string()),
                ("src/b.ts".to_string(), "y\n".to_string())
            ]
        );
        assert!(parse_fixture("no header\n").is_err());
        assert!(parse_fixture("//- /../x\n").is_err());
    }

    #[test]
    fn diagnostics_blocks_parse() {
        let text = "Edited src/a.ts: replaced line 1.\n\nLSP errors detected in this file, please fix:\n<diagnostics file=\"src/a.ts\">\nERROR [1:14] Type 'string' is not assignable to type 'number'. (ts2322)\nERROR [3:1] no code here\n</diagnostics>";
        let d = parse_diagnostics(text);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].code.as_deref(), Some("ts2322"));
        assert_eq!((d[0].line, d[0].column), (1, 14));
        assert_eq!(d[1].code, None);
        assert_eq!(d[1].message, "no code here");
    }
}
