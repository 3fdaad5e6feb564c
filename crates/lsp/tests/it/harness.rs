//! Test harness: the fake server binary, temp workspaces, pools, and leftover-process checks.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use lspedit_fake_lsp::Script;
use lspedit_lsp::{FileDiagnostics, Pool, PoolConfig, ServerConfig};
use lspedit_process as process;

/// Slack allowed past a deadline before a call counts as late.
pub const SLACK: Duration = Duration::from_millis(700);

/// Path of the `lspedit-fake-lsp` binary (built on first use).
pub fn fake_bin() -> &'static Path {
    lspedit_fake_lsp::binary()
}

pub fn init_tracing() {
    static INIT: OnceLock<()> = OnceLock::new();
    INIT.get_or_init(|| {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_env("LSPEDIT_TEST_LOG")
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
            )
            .with_test_writer()
            .try_init();
    });
}

/// A temp workspace for the fake server with its script file.
pub struct FakeWs {
    pub dir: tempfile::TempDir,
    pub script_file: PathBuf,
    pub log_file: PathBuf,
}

impl FakeWs {
    pub fn new(script: Script) -> Self {
        init_tracing();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let script_file = root.join("script.json");
        let log_file = root.join("fake.log");
        let ws = Self {
            dir,
            script_file,
            log_file,
        };
        ws.set_script(script);
        // The sandbox lets the server write the log only once it exists (see `config_for`).
        std::fs::write(&ws.log_file, "").unwrap();
        ws
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().unwrap()
    }

    /// Rewrites the script; the next server start reads it.
    pub fn set_script(&self, mut script: Script) {
        script.log_file = Some(self.log_file.clone());
        std::fs::write(&self.script_file, script.to_json()).unwrap();
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log_file).unwrap_or_default()
    }

    /// Waits until the fake's log holds `what` at least `times` times (the log file is the
    /// only event the fake gives a test), for at most 20 s.
    pub async fn wait_log(&self, what: &str, times: usize) {
        let until = Instant::now() + Duration::from_secs(20);
        while self.log().matches(what).count() < times {
            assert!(
                Instant::now() < until,
                "{what:?} not logged {times} times: {}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Process group ids of every fake server started so far (each logs `start <pid>`).
    pub fn started_pgids(&self) -> Vec<u32> {
        self.log()
            .lines()
            .filter_map(|l| l.strip_prefix("start "))
            .filter_map(|p| p.trim().parse().ok())
            .collect()
    }

    pub fn server_config(&self, strategy: &str) -> ServerConfig {
        self.server_config_with(&format!(
            r#"strategy = "{strategy}", quiet_window_ms = 30, first_publish_timeout_ms = 400"#
        ))
    }

    /// A declaration whose `diagnostics` table is `diagnostics` (inline-table body).
    pub fn server_config_with(&self, diagnostics: &str) -> ServerConfig {
        self.server_config_for(r#"fk = "fake""#, diagnostics)
    }

    /// A declaration serving `languages` (inline-table body: extension = language id) whose
    /// `diagnostics` table is `diagnostics`.
    pub fn server_config_for(&self, languages: &str, diagnostics: &str) -> ServerConfig {
        let toml = format!(
            r#"
            id = "fake"
            command = {cmd:?}
            root_markers = ["fake.root"]
            languages = {{ {languages} }}
            diagnostics = {{ {diagnostics} }}
            env = {{ LSPEDIT_FAKE_SCRIPT_FILE = {script:?} }}
            [settings.fake]
            answer = 42
            "#,
            cmd = fake_bin().display().to_string(),
            script = self.script_file.display().to_string(),
        );
        ServerConfig::from_toml(&toml).unwrap()
    }

    pub fn config(&self, strategy: &str) -> PoolConfig {
        self.config_for(self.server_config(strategy))
    }

    pub fn config_for(&self, server: ServerConfig) -> PoolConfig {
        PoolConfig {
            servers: vec![server],
            shutdown_grace: Duration::from_millis(400),
            restart_backoff: Duration::from_millis(50),
            startup_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(2),
            maintenance_interval: Duration::from_secs(3600),
            sandbox_allow: vec![self.log_file.clone()],
            ..PoolConfig::default()
        }
    }

    pub fn pool(&self, strategy: &str) -> Pool {
        Pool::new(self.root(), self.config(strategy)).unwrap()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.root().join(name)
    }
}

pub fn deadline(ms: u64) -> Instant {
    Instant::now() + Duration::from_millis(ms)
}

/// Writes `text` to `path`, as the tools do before they check, then [`check_timed`]: a server
/// that checks on save reads the file from disk.
pub async fn save_check(
    pool: &Pool,
    path: &Path,
    text: &str,
    ms: u64,
) -> Result<FileDiagnostics, lspedit_lsp::LspError> {
    std::fs::write(path, text).unwrap();
    check_timed(pool, path, text, ms).await
}

/// Runs a check and asserts it returned by its deadline plus [`SLACK`].
pub async fn check_timed(
    pool: &Pool,
    path: &Path,
    text: &str,
    ms: u64,
) -> Result<FileDiagnostics, lspedit_lsp::LspError> {
    let start = Instant::now();
    let res = pool.check_file(path, text, deadline(ms)).await;
    let took = start.elapsed();
    assert!(
        took <= Duration::from_millis(ms) + SLACK,
        "check took {took:?}, deadline was {ms} ms: {res:?}"
    );
    res
}

/// Messages of the diagnostics, for compact assertions.
pub fn messages(d: &FileDiagnostics) -> Vec<String> {
    d.diagnostics
        .iter()
        .map(|d| format!("{}:{} {}", d.line, d.column, d.message))
        .collect()
}

/// Process groups of every running server.
pub fn pgids(pool: &Pool) -> Vec<u32> {
    pool.status().iter().filter_map(|s| s.pgid).collect()
}

/// Asserts that no process of these groups is alive (waiting, event-driven, up to 5 s for
/// SIGKILL to land).
pub fn assert_gone(pgids: &[u32]) {
    for &pgid in pgids {
        assert!(
            process::wait_group_gone(pgid, Duration::from_secs(5)),
            "process group {pgid} still has live members: {:?}",
            process::live_group_members(pgid)
        );
    }
}

/// Copies `test-projects/<name>` into a temp dir (so tests can write files freely).
pub fn copy_project(name: &str) -> tempfile::TempDir {
    init_tracing();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(name);
    let dir = tempfile::tempdir().unwrap();
    lspedit_fake_lsp::support::copy_project(&src, dir.path()).unwrap();
    dir
}

/// The bundled config with only `server` enabled, or `None` (test skipped) when its binary is
/// missing. With `LSPEDIT_REQUIRE_SERVERS=1` a missing binary fails the test instead.
pub fn require_server(server: &str) -> Option<PoolConfig> {
    let cfg = PoolConfig::bundled().unwrap().only(&[server]);
    let decl = cfg.server(server).unwrap();
    let installed = cfg.resolve_command(decl).is_some();
    let what = format!("language server `{server}` (`{}`)", decl.command);
    lspedit_fake_lsp::support::require_installed(&what, installed).then_some(cfg)
}
