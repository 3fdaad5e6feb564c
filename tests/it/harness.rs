//! Test harness: copies of the test projects, the binary under test, real-server gating.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::json;

/// The `lspedit` binary cargo built for these tests.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_lspedit"))
}

/// The repository root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A temp copy of `test-projects/<name>`.
pub struct Project {
    /// Deleted on drop.
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

impl Project {
    pub fn copy(name: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        lspedit::testing::fake::support::copy_project(
            &repo().join("test-projects").join(name),
            &root,
        )
        .unwrap();
        Project { _dir: dir, root }
    }

    /// An empty workspace with the given files.
    pub fn with_files(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            let abs = root.join(path);
            std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
            std::fs::write(abs, text).unwrap();
        }
        Project { _dir: dir, root }
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// Runs `lspedit ARGS --root <this project>` with `stdin`.
    pub fn run(&self, args: &[&str], stdin: &str) -> Run {
        let mut all: Vec<&str> = args.to_vec();
        let root = self.root.display().to_string();
        all.extend(["--root", &root]);
        run(&all, stdin)
    }
}

/// A finished run of the binary.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// Runs `lspedit ARGS` with `stdin`, from the repository root.
pub fn run(args: &[&str], stdin: &str) -> Run {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command may exit without reading its input (a refusal before it reads): the pipe is
    // then closed, which is not the test's failure.
    if let Err(e) = child.stdin.take().unwrap().write_all(stdin.as_bytes()) {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "writing stdin: {e}"
        );
    }
    let Output {
        status,
        stdout,
        stderr,
    } = child.wait_with_output().unwrap();
    Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8(stdout).unwrap(),
        stderr: String::from_utf8(stderr).unwrap(),
    }
}

/// Whether a real-server test must fail instead of skipping when its server is missing.
pub fn servers_required() -> bool {
    std::env::var("LSPEDIT_REQUIRE_SERVERS").is_ok_and(|v| v == "1")
}

/// Whether any of the servers `ids` is installed where the binary will look. When none is:
/// panics under `LSPEDIT_REQUIRE_SERVERS=1`, otherwise says so and returns false (skip).
#[allow(clippy::print_stderr)] // Tells the person running the tests why a test did nothing.
pub fn have_server(ids: &[&str]) -> bool {
    // The bundled servers, looked up where `servers install` puts them.
    let config = lspedit::lsp::PoolConfig::bundled().unwrap();
    let ready = lspedit::servers::install::inspect(&config)
        .into_iter()
        .any(|i| ids.contains(&i.id.as_str()) && i.is_ready());
    if !ready {
        assert!(
            !servers_required(),
            "none of {ids:?} is installed and LSPEDIT_REQUIRE_SERVERS=1; run `bash scripts/install-servers`"
        );
        eprintln!(
            "skipped: none of {ids:?} is installed (set LSPEDIT_REQUIRE_SERVERS=1 to fail instead)"
        );
    }
    ready
}

pub const TS_SERVERS: &[&str] = &["tsc7", "typescript-language-server"];

/// The anchor (`3bgij`) of 1-based `line` in the hashline view `view`.
pub fn anchor_in(view: &str, line: usize) -> String {
    let prefix = line.to_string();
    view.lines()
        .find_map(|l| {
            let (a, _) = l.split_once('|')?;
            (a.starts_with(&prefix) && a.len() == prefix.len() + 4).then(|| a.to_string())
        })
        .unwrap_or_else(|| panic!("no line {line} in:\n{view}"))
}

/// The anchored patch that turns `const total: number` into `const total: string` in
/// ts-basic's `src/index.ts` (line 3): a real TypeScript error (ts2322).
pub fn ts_break_patch(view: &str) -> String {
    format!(
        "--- a/src/index.ts\n+++ b/src/index.ts\n@@ @@\n {}|\n-{}|const total: number = add(1, 2);\n+const total: string = add(1, 2);\n {}|const message: string = greet(\"world\");\n",
        anchor_in(view, 2),
        anchor_in(view, 3),
        anchor_in(view, 4)
    )
}

/// `lspedit mcp` over raw stdio lines.
pub struct Mcp {
    pub child: std::process::Child,
    pub stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Mcp {
    /// Its stderr goes to the file `stderr`.
    pub fn start(root: &std::path::Path, env: &[(&str, &str)], stderr: &std::path::Path) -> Mcp {
        Self::start_with(root, &[], env, stderr)
    }

    /// With `args` after `mcp`.
    pub fn start_with(
        root: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
        stderr: &std::path::Path,
    ) -> Mcp {
        let mut child = Command::new(bin())
            .arg("mcp")
            .args(args)
            .arg("--root")
            .arg(root)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(stderr).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
        };
        mcp.send(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"orphans","version":"0"}}}));
        assert!(mcp.reply().get("result").is_some());
        mcp.send(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        mcp
    }

    pub fn send(&mut self, v: &serde_json::Value) {
        self.stdin.write_all(format!("{v}\n").as_bytes()).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn reply(&mut self) -> serde_json::Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no reply from lspedit mcp ({e})"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}
