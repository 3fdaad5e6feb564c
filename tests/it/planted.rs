//! Planted programs: for every place a language server or its launcher looks for a program or
//! a script, the model (through MCP `write_file`/`apply_patch` only) or the repository (files
//! shipped before `lspedit mcp` starts) plants one that, when run, leaves a marker file outside
//! the workspace; then a source file written through MCP starts the real server. No marker may
//! appear, and the server's real diagnostics must still come back.
//!
//! Every payload writes two markers: one in a directory the sandbox never grants (`outside`,
//! beside the workspace), and one in a directory the person's own config grants to servers
//! (`pool.sandbox_allow`, `seen`). The second one shows that planted code ran at all, even where
//! the sandbox stops it from writing anywhere else (a `tsserver.js` node loads runs inside the
//! sandbox, and could still write the `seen` directory): so a case fails when the code ran, not
//! only when it escaped.
//!
//! Real servers: each test skips with a message when its server is missing, unless
//! `LSPEDIT_REQUIRE_SERVERS=1` (then it fails), as elsewhere in `tests/it`.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::{TS_SERVERS, bin, have_server};
use crate::mcp::{call, is_error, text};

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// How long a check may stay `timed_out` (rust-analyzer's first `cargo check` on a loaded
/// two-core machine) before the case fails.
const CHECK_DEADLINE: Duration = Duration::from_secs(240);

/// How the planted files get into the workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ship {
    /// The model writes them through MCP once `lspedit mcp` runs: `apply_patch` with git
    /// headers (`new file mode 100755` for executables).
    Model,
    /// The repository ships them: on disk before `lspedit mcp` starts, executables 0755.
    Repo,
}

/// One planted file.
struct Plant {
    path: String,
    text: String,
    exec: bool,
}

fn file(path: &str, text: impl Into<String>) -> Plant {
    Plant {
        path: path.to_owned(),
        text: text.into(),
        exec: false,
    }
}

fn exe(path: &str, text: impl Into<String>) -> Plant {
    Plant {
        path: path.to_owned(),
        text: text.into(),
        exec: true,
    }
}

/// A workspace with its marker directories and the person's config directory.
struct Lab {
    /// `<base>/ws` is the workspace, `<base>/outside` the markers (and secrets) outside it.
    _base: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    /// Granted to servers by the person's `sandbox_allow`: planted code that ran writes here.
    seen: tempfile::TempDir,
    /// Also granted: where a build script proves that it ran (case 3's control).
    control: tempfile::TempDir,
    /// `XDG_CONFIG_HOME` of every lspedit process of the case (person's config, trust records).
    config: tempfile::TempDir,
    /// Unique per lab: in secrets, so no other text can contain it by chance.
    nonce: String,
}

impl Lab {
    /// A lab whose person's config grants `seen` and `control` to servers, plus `person`.
    fn new(person: &str) -> Lab {
        let base = tempfile::tempdir().unwrap();
        let b = base.path().canonicalize().unwrap();
        let root = b.join("ws");
        let outside = b.join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let seen = tempfile::tempdir().unwrap();
        let control = tempfile::tempdir().unwrap();
        let config = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
        let canon = |d: &tempfile::TempDir| d.path().canonicalize().unwrap();
        std::fs::write(
            config.path().join("lspedit/config.toml"),
            format!(
                "[pool]\nsandbox_allow = [{:?}, {:?}]\n{person}",
                canon(&seen).display().to_string(),
                canon(&control).display().to_string()
            ),
        )
        .unwrap();
        let nonce: String = b
            .file_name()
            .unwrap()
            .to_string_lossy()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        Lab {
            _base: base,
            root,
            outside,
            seen,
            control,
            config,
            nonce,
        }
    }

    fn seen(&self) -> PathBuf {
        self.seen.path().canonicalize().unwrap()
    }

    /// A shell script that leaves `ran-<name>` in both marker directories, then runs `then`.
    fn sh(&self, name: &str, then: &str) -> String {
        format!(
            "#!/bin/sh\necho \"ran $0 $*\" > '{o}/ran-{name}'\necho \"ran $0 $*\" > '{s}/ran-{name}'\n{then}\n",
            o = self.outside.display(),
            s = self.seen().display(),
        )
    }

    /// JavaScript that leaves `ran-<name>` in both marker directories when node loads it.
    fn js(&self, name: &str) -> String {
        format!(
            "const fs = require(\"fs\");\nfor (const d of [{o:?}, {s:?}]) {{\n  try {{ fs.writeFileSync(d + \"/ran-{name}\", \"ran \" + __filename); }} catch (e) {{}}\n}}\n",
            o = self.outside.display().to_string(),
            s = self.seen().display().to_string(),
        )
    }

    /// Every `ran-*` marker, with what it says.
    fn markers(&self) -> Vec<String> {
        let mut out = Vec::new();
        for dir in [self.outside.clone(), self.seen()] {
            for e in std::fs::read_dir(&dir).unwrap().flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with("ran-") {
                    let said = std::fs::read_to_string(e.path()).unwrap_or_default();
                    out.push(format!("{}: {}", e.path().display(), said.trim()));
                }
            }
        }
        out
    }

    #[track_caller]
    fn assert_no_marker(&self, what: &str) {
        let ran = self.markers();
        assert!(ran.is_empty(), "{what}: planted code ran:\n{ran:#?}");
    }

    /// Writes `files` as a repository ships them (executables 0755).
    fn ship(&self, files: &[Plant]) {
        for f in files {
            let abs = self.root.join(&f.path);
            std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
            std::fs::write(&abs, &f.text).unwrap();
            if f.exec {
                std::fs::set_permissions(&abs, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
    }

    /// `lspedit mcp` for this workspace with the lab's `XDG_CONFIG_HOME`; `path` replaces its
    /// `PATH`, `cwd` its working directory.
    async fn connect_with(&self, path: Option<OsString>, cwd: Option<&Path>) -> Client {
        self.connect_env(path, cwd, &[]).await
    }

    /// [`Lab::connect_with`], with the variables `remove` unset.
    async fn connect_env(
        &self,
        path: Option<OsString>,
        cwd: Option<&Path>,
        remove: &[&str],
    ) -> Client {
        let remove: Vec<String> = remove.iter().map(|s| s.to_string()).collect();
        let root = self.root.clone();
        let config = self.config.path().to_path_buf();
        let cwd = cwd.map(Path::to_path_buf);
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
                cmd.arg("mcp")
                    .arg("--root")
                    .arg(&root)
                    .env("XDG_CONFIG_HOME", &config);
                if let Some(p) = &path {
                    cmd.env("PATH", p);
                }
                if let Some(d) = &cwd {
                    cmd.current_dir(d);
                }
                for k in &remove {
                    cmd.env_remove(k);
                }
            }))
            .unwrap();
        ().serve(transport).await.unwrap()
    }

    /// Plants `files` the way `how` says and returns the session: shipped before the server
    /// starts, or written by the model through MCP after.
    async fn start(&self, how: Ship, files: &[Plant]) -> Client {
        self.start_with(how, files, None, None).await
    }

    /// [`Lab::start`] with the server's `PATH` and working directory (see `connect_with`).
    async fn start_with(
        &self,
        how: Ship,
        files: &[Plant],
        path: Option<OsString>,
        cwd: Option<&Path>,
    ) -> Client {
        match how {
            Ship::Repo => {
                self.ship(files);
                self.connect_with(path, cwd).await
            }
            Ship::Model => {
                let client = self.connect_with(path, cwd).await;
                self.plant_through_mcp(&client, files).await;
                client
            }
        }
    }

    /// One `apply_patch` of git diffs creating `files`; executables with `new file mode
    /// 100755`, which lspedit must honour.
    async fn plant_through_mcp(&self, client: &Client, files: &[Plant]) {
        if files.is_empty() {
            return;
        }
        let mut patch = String::new();
        for f in files {
            let lines: Vec<&str> = f.text.lines().collect();
            let mode = if f.exec { "100755" } else { "100644" };
            patch.push_str(&format!(
                "diff --git a/{p} b/{p}\nnew file mode {mode}\n--- /dev/null\n+++ b/{p}\n@@ -0,0 +1,{n} @@\n",
                p = f.path,
                n = lines.len()
            ));
            for l in lines {
                patch.push('+');
                patch.push_str(l);
                patch.push('\n');
            }
        }
        let r = call(client, "apply_patch", json!({ "patch": patch })).await;
        assert!(!is_error(&r), "planting through MCP: {}", text(&r));
        for f in files {
            let abs = self.root.join(&f.path);
            let meta = std::fs::metadata(&abs)
                .unwrap_or_else(|e| panic!("{} not planted ({e}): {}", f.path, text(&r)));
            assert_eq!(
                std::fs::read_to_string(&abs).unwrap().trim_end(),
                f.text.trim_end(),
                "{}",
                f.path
            );
            if f.exec {
                assert_eq!(
                    meta.permissions().mode() & 0o777,
                    0o755,
                    "`new file mode 100755` not honoured for {}",
                    f.path
                );
            }
        }
    }

    /// `lspedit trust` for this workspace, through the CLI.
    fn trust(&self) {
        let out = std::process::Command::new(bin())
            .args(["trust", "--root"])
            .arg(&self.root)
            .env("XDG_CONFIG_HOME", self.config.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "lspedit trust: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// What writing a source file through MCP answered, then `diagnostics` for it until it was
/// no longer `timed_out`.
#[derive(Debug)]
struct Check {
    /// Every text and structured result seen, in order (for what must never appear).
    all: String,
    /// The last `diagnostics` result's status and server for the file, and its text.
    status: String,
    server: Option<String>,
    text: String,
    /// The codes of the last `diagnostics` result (`E0308`, `2322`).
    codes: Vec<String>,
}

impl Check {
    #[track_caller]
    fn assert_code(&self, code: &str, what: &str) {
        assert!(
            self.codes.iter().any(|c| c == code),
            "{what}: no {code} reported (status {}, server {:?}):\n{}",
            self.status,
            self.server,
            self.all
        );
    }
}

fn dump(r: &rmcp::model::CallToolResult) -> String {
    format!(
        "{}\n{}",
        text(r),
        r.structured_content
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    )
}

/// Writes `path` through MCP (diagnostics on), then asks `diagnostics` for it until the answer
/// is not `timed_out` (bounded by [`CHECK_DEADLINE`]; each call waits on the server itself).
async fn write_checked(client: &Client, path: &str, content: &str) -> Check {
    write_checked_until(client, path, content, || false).await
}

/// [`write_checked`], which also stops asking once `stop()` holds (planted code ran: the
/// server it replaced may never answer, and the case has failed anyway).
async fn write_checked_until(
    client: &Client,
    path: &str,
    content: &str,
    stop: impl Fn() -> bool,
) -> Check {
    let w = call(
        client,
        "write_file",
        json!({ "path": path, "content": content }),
    )
    .await;
    assert!(!is_error(&w), "write_file {path}: {}", text(&w));
    let mut all = dump(&w);
    let deadline = Instant::now() + CHECK_DEADLINE;
    loop {
        let d = call(client, "diagnostics", json!({ "paths": [path] })).await;
        all.push_str("\n----\n");
        all.push_str(&dump(&d));
        let s = d.structured_content.clone().unwrap_or_default();
        let f = &s["files"][0];
        let status = f["status"].as_str().unwrap_or("absent").to_owned();
        if status != "timed_out" || Instant::now() > deadline || stop() {
            return Check {
                all,
                status,
                server: f["server"].as_str().map(str::to_owned),
                text: text(&d),
                codes: f["diagnostics"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|d| d["code"].as_str().map(str::to_owned))
                    .collect(),
            };
        }
    }
}

const CARGO_TOML: &str = "[package]\nname = \"planted\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[lib]\npath = \"src/lib.rs\"\n";
/// rustc's E0308 (mismatched types), which rust-analyzer reports only from `cargo check`.
const LIB_RS: &str = "pub fn answer() -> u32 {\n    \"not a number\"\n}\n";

/// The person's toolchain, resolved from `/` (no workspace toolchain file on the way).
fn real_toolchain() -> (PathBuf, String) {
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        .current_dir("/")
        .output()
        .unwrap();
    let sysroot = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let out = std::process::Command::new("rustc")
        .arg("-vV")
        .current_dir("/")
        .output()
        .unwrap();
    let host = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_owned))
        .unwrap();
    (sysroot, host)
}

/// Runs one Rust row per crate directory of `rows` in one session: each crate its own server
/// root, its own planted files; each row must leave no marker of its own and report E0308.
/// Failures of every row are collected, then reported together.
async fn rust_rows(how: Ship, lab: &Lab, rows: &[(&str, Vec<Plant>)]) {
    let mut files = Vec::new();
    for (dir, plants) in rows {
        files.push(file(&format!("{dir}/Cargo.toml"), CARGO_TOML));
        for p in plants {
            files.push(Plant {
                path: format!("{dir}/{}", p.path),
                text: p.text.clone(),
                exec: p.exec,
            });
        }
    }
    let client = lab.start(how, &files).await;
    let mut failures = Vec::new();
    for (dir, _) in rows {
        let c = write_checked(&client, &format!("{dir}/src/lib.rs"), LIB_RS).await;
        let ran: Vec<String> = lab
            .markers()
            .into_iter()
            .filter(|m| m.contains(&format!("ran-{dir}-")))
            .collect();
        if !ran.is_empty() {
            failures.push(format!("{dir}: planted code ran: {ran:#?}"));
        }
        if !c.codes.iter().any(|code| code == "E0308") {
            failures.push(format!(
                "{dir}: no E0308 (status {}, server {:?}):\n{}",
                c.status, c.server, c.all
            ));
        }
    }
    client.cancel().await.unwrap();
    lab.assert_no_marker("after every row");
    assert!(failures.is_empty(), "{how:?}:\n{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------------------------
// 1. A workspace rust-toolchain file naming a toolchain inside the workspace.

fn toolchain_rows(lab: &Lab) -> Vec<(&'static str, Vec<Plant>)> {
    let (sysroot, _) = real_toolchain();
    let tc = |dir: &str| -> Vec<Plant> {
        ["rust-analyzer", "cargo", "rustc"]
            .iter()
            .map(|prog| {
                // Transparent: were it run, the real program still answers, so nothing else
                // fails first and hides it.
                let real = sysroot.join("bin").join(prog);
                exe(
                    &format!("tc/bin/{prog}"),
                    lab.sh(
                        &format!("{dir}-{prog}"),
                        &format!("exec '{}' \"$@\"", real.display()),
                    ),
                )
            })
            .collect()
    };
    let abs = |dir: &str| lab.root.join(dir).join("tc").display().to_string();
    vec![
        ("t1", {
            let mut v = tc("t1");
            v.push(file(
                "rust-toolchain.toml",
                "[toolchain]\npath = \"/proc/self/cwd/tc\"\n",
            ));
            v
        }),
        ("t2", {
            let mut v = tc("t2");
            v.push(file(
                "rust-toolchain.toml",
                format!("[toolchain]\npath = {:?}\n", abs("t2")),
            ));
            v
        }),
        // The legacy file name, TOML inside.
        ("t3", {
            let mut v = tc("t3");
            v.push(file(
                "rust-toolchain",
                format!("[toolchain]\npath = {:?}\n", abs("t3")),
            ));
            v
        }),
    ]
}

async fn toolchain_override(how: Ship) {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let lab = Lab::new("");
    let rows = toolchain_rows(&lab);
    rust_rows(how, &lab, &rows).await;
}

#[tokio::test]
async fn a_workspace_toolchain_never_runs_model_written() {
    toolchain_override(Ship::Model).await;
}

#[tokio::test]
async fn a_workspace_toolchain_never_runs_repo_shipped() {
    toolchain_override(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 2. Programs a workspace `.cargo/config.toml` names.

fn cargo_config_rows(lab: &Lab) -> Vec<(&'static str, Vec<Plant>)> {
    let (sysroot, host) = real_toolchain();
    let rustc = sysroot.join("bin/rustc").display().to_string();
    // (row, config, what the payload does after leaving its marker)
    let table: [(&str, String, String); 6] = {
        let p = |dir: &str| lab.root.join(dir).join("evil.sh").display().to_string();
        [
            (
                "c1",
                format!("[build]\nrustc-wrapper = {:?}\n", p("c1")),
                "exec \"$@\"".into(),
            ),
            (
                "c2",
                format!("[build]\nrustc-workspace-wrapper = {:?}\n", p("c2")),
                "exec \"$@\"".into(),
            ),
            (
                "c3",
                format!("[build]\nrustc = {:?}\n", p("c3")),
                format!("exec '{rustc}' \"$@\""),
            ),
            (
                "c4",
                format!("[target.{host}]\nlinker = {:?}\n", p("c4")),
                "exec cc \"$@\"".into(),
            ),
            (
                "c5",
                format!("[build]\nrustflags = [\"-C\", \"linker={}\"]\n", p("c5")),
                "exec cc \"$@\"".into(),
            ),
            (
                "c6",
                format!(
                    "[target.'cfg(all())']\nrustflags = [\"-C\", \"linker={}\"]\n",
                    p("c6")
                ),
                "exec cc \"$@\"".into(),
            ),
        ]
    };
    table
        .into_iter()
        .map(|(dir, config, then)| {
            (
                dir,
                vec![
                    file(".cargo/config.toml", config),
                    exe("evil.sh", lab.sh(&format!("{dir}-evil"), &then)),
                    // A build script, so that something is linked (the host linker) even by
                    // `cargo check`.
                    file("build.rs", "fn main() {}\n"),
                ],
            )
        })
        .collect()
}

async fn cargo_config_programs(how: Ship) {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let lab = Lab::new("");
    let rows = cargo_config_rows(&lab);
    rust_rows(how, &lab, &rows).await;
}

#[tokio::test]
async fn cargo_config_programs_never_run_model_written() {
    cargo_config_programs(Ship::Model).await;
}

#[tokio::test]
async fn cargo_config_programs_never_run_repo_shipped() {
    cargo_config_programs(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 3. A build script: it runs (cargo check runs build scripts), but only sandboxed.

async fn build_script_sandboxed(how: Ship) {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let lab = Lab::new("");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let control = lab.control.path().canonicalize().unwrap();
    let build = format!(
        "fn main() {{\n    let _ = std::fs::write({control:?}, \"ran\");\n    let _ = std::fs::write({outside:?}, \"ran\");\n    if std::net::TcpStream::connect(\"127.0.0.1:{port}\").is_ok() {{\n        let _ = std::fs::write({connected:?}, \"connected\");\n    }}\n}}\n",
        control = control.join("build-rs-ran").display().to_string(),
        outside = lab.outside.join("ran-build-rs").display().to_string(),
        connected = control.join("build-rs-connected").display().to_string(),
    );
    let client = lab
        .start(
            how,
            &[file("Cargo.toml", CARGO_TOML), file("build.rs", &build)],
        )
        .await;
    let c = write_checked(&client, "src/lib.rs", LIB_RS).await;
    client.cancel().await.unwrap();
    c.assert_code("E0308", "build script case");
    // The control: the build script did run (E0308 comes from a check that ran it), inside
    // the sandbox, and could write only what the sandbox grants.
    assert!(
        control.join("build-rs-ran").exists(),
        "the build script never ran, so this case tested nothing:\n{}",
        c.all
    );
    lab.assert_no_marker("build.rs");
    assert!(
        !control.join("build-rs-connected").exists(),
        "the build script connected to 127.0.0.1:{port}"
    );
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener got a connection from the build script: {other:?}"),
    }
}

#[tokio::test]
async fn a_build_script_runs_only_sandboxed_model_written() {
    build_script_sandboxed(Ship::Model).await;
}

#[tokio::test]
async fn a_build_script_runs_only_sandboxed_repo_shipped() {
    build_script_sandboxed(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 4. The workspace's TypeScript (node_modules/typescript, .yarn/sdks, tsserver plugins).

const TS_ERROR: &str = "export const n: number = \"not a number\";\n";
const TSCONFIG: &str = "{\n  \"compilerOptions\": {\n    \"strict\": true,\n    \"plugins\": [{ \"name\": \"planted-plugin\" }]\n  }\n}\n";

fn workspace_typescript(lab: &Lab) -> Vec<Plant> {
    vec![
        file("tsconfig.json", TSCONFIG),
        file(
            "package.json",
            "{\n  \"name\": \"planted\",\n  \"devDependencies\": { \"typescript\": \"5.9.3\" }\n}\n",
        ),
        file(
            "node_modules/typescript/package.json",
            "{\n  \"name\": \"typescript\",\n  \"version\": \"5.9.3\",\n  \"main\": \"./lib/typescript.js\"\n}\n",
        ),
        file(
            "node_modules/typescript/lib/tsserver.js",
            lab.js("node-modules-tsserver"),
        ),
        file(
            "node_modules/typescript/lib/typescript.js",
            lab.js("node-modules-typescript"),
        ),
        file(
            "node_modules/typescript/lib/tsserverlibrary.js",
            lab.js("node-modules-tsserverlibrary"),
        ),
        file(
            ".yarn/sdks/typescript/lib/tsserver.js",
            lab.js("yarn-sdks-tsserver"),
        ),
        file(
            ".yarn/sdks/typescript/package.json",
            "{\n  \"name\": \"typescript\",\n  \"version\": \"5.9.3\"\n}\n",
        ),
        file(
            "node_modules/planted-plugin/package.json",
            "{\n  \"name\": \"planted-plugin\",\n  \"main\": \"index.js\"\n}\n",
        ),
        file(
            "node_modules/planted-plugin/index.js",
            lab.js("tsserver-plugin"),
        ),
    ]
}

/// An untrusted `.lspedit/config.toml` the repository ships (MCP refuses to write it), trying
/// to switch TypeScript 7 off so that typescript-language-server serves `.ts`.
const DISABLE_TSC7: &str = "[servers.tsc7]\nenabled = false\n";

async fn workspace_typescript_case(how: Ship, person: &str, expect_server: &str) {
    if !have_server(&[expect_server]) {
        return;
    }
    let lab = Lab::new(person);
    lab.ship(&[file(".lspedit/config.toml", DISABLE_TSC7)]);
    let client = lab.start(how, &workspace_typescript(&lab)).await;
    let c = write_checked(&client, "src/a.ts", TS_ERROR).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("workspace TypeScript");
    assert_eq!(c.server.as_deref(), Some(expect_server), "{}", c.all);
    c.assert_code("2322", "workspace TypeScript");
}

/// The untrusted config is ignored: TypeScript 7 serves, and nothing planted runs.
#[tokio::test]
async fn workspace_typescript_never_loads_untrusted_config_model_written() {
    workspace_typescript_case(Ship::Model, "", "tsc7").await;
}

#[tokio::test]
async fn workspace_typescript_never_loads_untrusted_config_repo_shipped() {
    workspace_typescript_case(Ship::Repo, "", "tsc7").await;
}

/// The person's own config switches TypeScript 7 off: typescript-language-server serves, with
/// the bundled tsserver, never the workspace's, nor a plugin from its node_modules.
#[tokio::test]
async fn workspace_typescript_never_loads_tsserver_model_written() {
    workspace_typescript_case(Ship::Model, DISABLE_TSC7, "typescript-language-server").await;
}

#[tokio::test]
async fn workspace_typescript_never_loads_tsserver_repo_shipped() {
    workspace_typescript_case(Ship::Repo, DISABLE_TSC7, "typescript-language-server").await;
}

// ---------------------------------------------------------------------------------------------
// 5. node_modules/.bin programs named like the servers (and a relative PATH entry).

fn dot_bin(lab: &Lab) -> Vec<Plant> {
    [
        "tsc",
        "tsserver",
        "typescript-language-server",
        "pyright-langserver",
        "pyright",
        "node",
        "rust-analyzer",
        "clangd",
        "python",
        "python3",
    ]
    .iter()
    .map(|name| {
        exe(
            &format!("node_modules/.bin/{name}"),
            lab.sh(&format!("bin-{name}"), "exit 1"),
        )
    })
    .chain([
        file(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        ),
        file("package.json", "{ \"name\": \"planted\" }\n"),
    ])
    .collect()
}

const PY_ERROR: &str = "x: int = \"not a number\"\n";

async fn node_modules_bin(how: Ship) {
    if !have_server(TS_SERVERS) || !have_server(&["pyright"]) {
        return;
    }
    let lab = Lab::new("");
    let client = lab.start(how, &dot_bin(&lab)).await;
    let ts = write_checked(&client, "a.ts", TS_ERROR).await;
    let py = write_checked(&client, "a.py", PY_ERROR).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("node_modules/.bin, tsc7 and pyright");
    ts.assert_code("2322", "tsc7 beside node_modules/.bin");
    assert!(py.text.contains("ERROR [1:10]"), "pyright: {}", py.all);

    // typescript-language-server (TypeScript 7 off by the person's config), with the person's
    // PATH holding relative entries and `lspedit mcp` started in the workspace: a lookup by
    // name must still never resolve to the workspace's node_modules/.bin.
    let lab2 = Lab::new(DISABLE_TSC7);
    let client = lab2
        .start_with(
            how,
            &dot_bin(&lab2),
            Some(relative_path()),
            Some(&lab2.root),
        )
        .await;
    let ts = write_checked(&client, "a.ts", TS_ERROR).await;
    let py = write_checked(&client, "a.py", PY_ERROR).await;
    client.cancel().await.unwrap();
    lab2.assert_no_marker("node_modules/.bin with a relative PATH");
    assert_eq!(
        ts.server.as_deref(),
        Some("typescript-language-server"),
        "{}",
        ts.all
    );
    ts.assert_code("2322", "typescript-language-server with a relative PATH");
    assert!(py.text.contains("ERROR [1:10]"), "pyright: {}", py.all);
}

/// `node_modules/.bin:.:` before the person's PATH.
fn relative_path() -> OsString {
    let mut dirs = vec![PathBuf::from("node_modules/.bin"), PathBuf::from(".")];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    std::env::join_paths(dirs).unwrap()
}

#[tokio::test]
async fn node_modules_bin_never_runs_model_written() {
    node_modules_bin(Ship::Model).await;
}

#[tokio::test]
async fn node_modules_bin_never_runs_repo_shipped() {
    node_modules_bin(Ship::Repo).await;
}

/// bash-language-server runs `shellcheck`: never one the workspace holds (`node_modules/.bin`,
/// `bin/`, the root, a relative PATH entry) nor one an untrusted `.lspedit/config.toml` names
/// (`bashIde.shellcheckPath`, shipped: MCP refuses to write it); the pinned one still reports.
async fn workspace_shellcheck(how: Ship) {
    if !have_server(&["bash-language-server"]) {
        return;
    }
    let lab = Lab::new("");
    lab.ship(&[file(
        ".lspedit/config.toml",
        "[servers.bash-language-server.settings.bashIde]\nshellcheckPath = \"./shellcheck\"\n",
    )]);
    let plants: Vec<Plant> = [
        "node_modules/.bin/shellcheck",
        "bin/shellcheck",
        "shellcheck",
    ]
    .iter()
    .map(|p| exe(p, lab.sh(&p.replace('/', "-"), "exit 1")))
    .collect();
    let client = lab
        .start_with(how, &plants, Some(relative_path()), Some(&lab.root))
        .await;
    let sh = write_checked(&client, "a.sh", "#!/bin/sh\nif true; then\n  echo hi\n").await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("a workspace shellcheck");
    assert_eq!(
        sh.server.as_deref(),
        Some("bash-language-server"),
        "{}",
        sh.all
    );
    sh.assert_code("SC1046", "the pinned shellcheck");
}

#[tokio::test]
async fn a_workspace_shellcheck_never_runs_model_written() {
    workspace_shellcheck(Ship::Model).await;
}

#[tokio::test]
async fn a_workspace_shellcheck_never_runs_repo_shipped() {
    workspace_shellcheck(Ship::Repo).await;
}

/// The relative PATH entry and `node_modules/.bin/rust-analyzer`, with `lspedit mcp` started in
/// the workspace: rust-analyzer is looked up on PATH (it is not in the servers dir).
async fn relative_path_rust_analyzer(how: Ship) {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let lab = Lab::new("");
    let plants = vec![
        file("Cargo.toml", CARGO_TOML),
        exe(
            "node_modules/.bin/rust-analyzer",
            lab.sh("bin-rust-analyzer", "exit 1"),
        ),
        exe("rust-analyzer", lab.sh("dot-rust-analyzer", "exit 1")),
    ];
    let client = lab
        .start_with(how, &plants, Some(relative_path()), Some(&lab.root))
        .await;
    let c = write_checked(&client, "src/lib.rs", LIB_RS).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("rust-analyzer by a relative PATH");
    c.assert_code("E0308", "rust-analyzer by a relative PATH");
}

#[tokio::test]
async fn a_relative_path_entry_never_finds_a_workspace_rust_analyzer_model_written() {
    relative_path_rust_analyzer(Ship::Model).await;
}

#[tokio::test]
async fn a_relative_path_entry_never_finds_a_workspace_rust_analyzer_repo_shipped() {
    relative_path_rust_analyzer(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 6. pyright and the workspace's Python (virtual environments, .python-version).

fn python_envs(lab: &Lab) -> Vec<Plant> {
    let mut v: Vec<Plant> = [
        ".venv/bin/python",
        ".venv/bin/python3",
        "venv/bin/python",
        "venv/bin/python3",
    ]
    .iter()
    .map(|p| exe(p, lab.sh(&p.replace(['/', '.'], "_"), "exit 1")))
    .collect();
    v.extend([
        file(
            "pyrightconfig.json",
            "{\n  \"venvPath\": \".\",\n  \"venv\": \".venv\"\n}\n",
        ),
        file(".python-version", "../ws/.venv\n"),
        file(
            ".venv/pyvenv.cfg",
            format!(
                "home = {}\ninclude-system-site-packages = false\nversion = 3.12.0\n",
                lab.root.join(".venv/bin").display()
            ),
        ),
        file(
            ".venv/lib/python3.12/site-packages/planted.pth",
            "planted\n",
        ),
    ]);
    v
}

async fn pyright_python(how: Ship) {
    if !have_server(&["pyright"]) {
        return;
    }
    let lab = Lab::new("");
    let client = lab.start(how, &python_envs(&lab)).await;
    let c = write_checked(&client, "main.py", PY_ERROR).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("pyright");
    assert_eq!(c.server.as_deref(), Some("pyright"), "{}", c.all);
    assert!(
        c.status == "checked" && c.text.contains("ERROR [1:10]"),
        "pyright's error is missing:\n{}",
        c.all
    );
}

#[tokio::test]
async fn pyright_never_runs_a_workspace_python_model_written() {
    pyright_python(Ship::Model).await;
}

#[tokio::test]
async fn pyright_never_runs_a_workspace_python_repo_shipped() {
    pyright_python(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 7. Trusted, then swapped: a trusted config's `servers_dir` inside the workspace.

const SERVERS_DIR_CONFIG: &str = "[pool]\nservers_dir = \"tools/lsp\"\n";

fn tools_lsp(lab: &Lab) -> Vec<Plant> {
    vec![
        exe("tools/lsp/bin/clangd", lab.sh("tools-clangd", "exit 1")),
        exe(
            "tools/lsp/node_modules/.bin/typescript-language-server",
            lab.sh("tools-tls", "exit 1"),
        ),
        exe(
            "tools/lsp/node_modules/typescript7/bin/tsc",
            lab.sh("tools-tsc7", "exit 1"),
        ),
        // TypeScript 7's native binary, which wins over the launcher above when present.
        exe(
            &format!(
                "tools/lsp/node_modules/@typescript/typescript-{}/lib/tsc",
                lspedit::servers::node_platform()
            ),
            lab.sh("tools-tsc7-native", "exit 1"),
        ),
        exe(
            "tools/lsp/node_modules/.bin/pyright-langserver",
            lab.sh("tools-pyright", "exit 1"),
        ),
        file(
            "tools/lsp/node_modules/typescript/lib/tsserver.js",
            lab.js("tools-tsserver"),
        ),
        file(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        ),
    ]
}

const C_ERROR: &str = "int main(void) {\n  int x = \"not a number\";\n  return x;\n}\n";

/// Not silently clean: the file is `failed`, and the text says it was not checked because the
/// server named failed, or (`refused`: lspedit refused to start it) names the refusal, in
/// lspedit's own words (never the server's error detail).
#[track_caller]
fn assert_not_silently_clean(c: &Check, server: &str, refused: Option<&str>, what: &str) {
    assert!(!c.all.contains("no errors"), "{what}: {}", c.all);
    assert_eq!(c.status, "failed", "{what}: {}", c.all);
    assert_eq!(c.server.as_deref(), Some(server), "{what}: {}", c.all);
    let said = match refused {
        Some(why) => {
            c.text.contains(&format!(
                "not checked: lspedit did not start language server '{server}'"
            )) && c.text.contains(why)
        }
        None => c.text.contains(&format!(
            "no diagnostics: language server '{server}' failed"
        )),
    };
    assert!(
        said,
        "{what}: the result does not say why the file was not checked:\n{}",
        c.all
    );
}

async fn trusted_servers_dir(how: Ship) {
    if !have_server(&["clangd"]) || !have_server(TS_SERVERS) || !have_server(&["pyright"]) {
        return;
    }
    let lab = Lab::new("");
    lab.ship(&[file(".lspedit/config.toml", SERVERS_DIR_CONFIG)]);
    let plants = tools_lsp(&lab);
    if how == Ship::Repo {
        lab.ship(&plants);
    }
    lab.trust();
    let client = lab.connect_with(None, None).await;
    if how == Ship::Model {
        lab.plant_through_mcp(&client, &plants).await;
    }
    let c = write_checked(&client, "a.c", C_ERROR).await;
    let ts = write_checked(&client, "a.ts", TS_ERROR).await;
    let py = write_checked(&client, "a.py", PY_ERROR).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("trusted servers_dir");
    assert_not_silently_clean(
        &c,
        "clangd",
        Some("inside the workspace"),
        "clangd from tools/lsp",
    );
    // TypeScript 7 (its programs are relative to the servers dir) is the planted native
    // binary, refused.
    assert_not_silently_clean(
        &ts,
        "tsc7",
        Some("inside the workspace"),
        "TypeScript 7 from tools/lsp",
    );
    assert_not_silently_clean(
        &py,
        "pyright",
        Some("inside the workspace"),
        "pyright from tools/lsp",
    );
}

#[tokio::test]
async fn a_trusted_servers_dir_in_the_workspace_runs_nothing_model_written() {
    trusted_servers_dir(Ship::Model).await;
}

#[tokio::test]
async fn a_trusted_servers_dir_in_the_workspace_runs_nothing_repo_shipped() {
    trusted_servers_dir(Ship::Repo).await;
}

/// The same trusted config, with typescript-language-server on the person's PATH (installed
/// globally, outside the workspace, so its program is not refused): the "bundled" tsserver it
/// is given is `<servers_dir>/node_modules/typescript/lib/tsserver.js`, inside the workspace,
/// which the model writes.
async fn trusted_servers_dir_tsserver(how: Ship) {
    if !have_server(&["typescript-language-server"]) {
        return;
    }
    let lab = Lab::new("");
    lab.ship(&[file(".lspedit/config.toml", SERVERS_DIR_CONFIG)]);
    let plants = vec![
        file(
            "tools/lsp/node_modules/typescript/lib/tsserver.js",
            lab.js("tools-tsserver"),
        ),
        file(
            "tools/lsp/node_modules/typescript/package.json",
            "{ \"name\": \"typescript\", \"version\": \"5.9.3\" }\n",
        ),
        file(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        ),
    ];
    if how == Ship::Repo {
        lab.ship(&plants);
    }
    lab.trust();
    let (_global, prefix) = global_typescript_language_server();
    let mut dirs = vec![prefix.join("bin")];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let client = lab
        .connect_with(Some(std::env::join_paths(dirs).unwrap()), None)
        .await;
    if how == Ship::Model {
        lab.plant_through_mcp(&client, &plants).await;
    }
    let ts = write_checked_until(&client, "a.ts", TS_ERROR, || !lab.markers().is_empty()).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("tsserver.js under a trusted servers_dir");
    // Refused (no TypeScript outside the workspace to give it), never served by the
    // workspace's file; not silently clean either way.
    assert_eq!(
        ts.server.as_deref(),
        Some("typescript-language-server"),
        "{}",
        ts.all
    );
    assert!(
        ts.codes.iter().any(|c| c == "2322") || ts.status == "failed",
        "{}",
        ts.all
    );
}

/// The person's global install of typescript-language-server: a copy of the installed
/// package under a prefix of its own (`<prefix>/bin` goes on PATH, as `npm install -g` lays it
/// out), outside any workspace. The temp dir is deleted on drop.
fn global_typescript_language_server() -> (tempfile::TempDir, PathBuf) {
    let global = tempfile::tempdir().unwrap();
    let prefix = global.path().canonicalize().unwrap();
    let installed = lspedit::lsp::PoolConfig::bundled()
        .unwrap()
        .servers_dir
        .unwrap()
        .join("node_modules/typescript-language-server");
    copy_tree(
        &installed,
        &prefix.join("lib/node_modules/typescript-language-server"),
    );
    std::fs::create_dir_all(prefix.join("bin")).unwrap();
    std::os::unix::fs::symlink(
        "../lib/node_modules/typescript-language-server/lib/cli.mjs",
        prefix.join("bin/typescript-language-server"),
    )
    .unwrap();
    (global, prefix)
}

/// No servers dir at all (`HOME`, `XDG_CACHE_HOME` and `LSPEDIT_SERVERS_DIR` unset), and
/// typescript-language-server installed globally on PATH: the declaration's relative
/// `tsserver.path` must not be left relative (the server would resolve it in the workspace,
/// to the workspace's `node_modules/typescript/lib/tsserver.js`).
async fn no_servers_dir_tsserver(how: Ship) {
    if !have_server(&["typescript-language-server"]) {
        return;
    }
    let lab = Lab::new("");
    let (_global, prefix) = global_typescript_language_server();
    let mut dirs = vec![prefix.join("bin")];
    dirs.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap()));
    let path = Some(std::env::join_paths(dirs).unwrap());
    let unset = ["HOME", "XDG_CACHE_HOME", "LSPEDIT_SERVERS_DIR"];
    let plants = workspace_typescript(&lab);
    let client = match how {
        Ship::Repo => {
            lab.ship(&plants);
            lab.connect_env(path, None, &unset).await
        }
        Ship::Model => {
            let c = lab.connect_env(path, None, &unset).await;
            lab.plant_through_mcp(&c, &plants).await;
            c
        }
    };
    let ts = write_checked_until(&client, "src/a.ts", TS_ERROR, || !lab.markers().is_empty()).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("tsserver.js with no servers dir");
    assert_eq!(
        ts.server.as_deref(),
        Some("typescript-language-server"),
        "{}",
        ts.all
    );
    assert!(
        ts.codes.iter().any(|c| c == "2322") || ts.status == "failed",
        "{}",
        ts.all
    );
}

#[tokio::test]
async fn without_a_servers_dir_the_workspace_tsserver_never_loads_model_written() {
    no_servers_dir_tsserver(Ship::Model).await;
}

#[tokio::test]
async fn without_a_servers_dir_the_workspace_tsserver_never_loads_repo_shipped() {
    no_servers_dir_tsserver(Ship::Repo).await;
}

/// Copies the directory `from` to `to` (files and directories; symlinks as links).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let t = e.file_type().unwrap();
        let dest = to.join(e.file_name());
        if t.is_dir() {
            copy_tree(&e.path(), &dest);
        } else if t.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(e.path()).unwrap(), &dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

#[tokio::test]
async fn a_trusted_servers_dir_never_supplies_tsserver_model_written() {
    trusted_servers_dir_tsserver(Ship::Model).await;
}

#[tokio::test]
async fn a_trusted_servers_dir_never_supplies_tsserver_repo_shipped() {
    trusted_servers_dir_tsserver(Ship::Repo).await;
}

/// A workspace trusted without a config file (the person trusts the checkout), then the model
/// writes a rust-toolchain.toml naming a toolchain inside it: trusted mode does not pin the
/// toolchain, so rustup's proxy would run `tc/bin/rust-analyzer`; the sandbox must refuse to
/// execute it, and the result must not claim "no errors".
async fn trusted_then_toolchain(how: Ship) {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let lab = Lab::new("");
    let mut plants = vec![file("Cargo.toml", CARGO_TOML)];
    let tc = lab.root.join("tc").display().to_string();
    for prog in ["rust-analyzer", "cargo", "rustc"] {
        plants.push(exe(
            &format!("tc/bin/{prog}"),
            lab.sh(&format!("trusted-{prog}"), "exit 1"),
        ));
    }
    plants.push(file(
        "rust-toolchain.toml",
        format!("[toolchain]\npath = {tc:?}\n"),
    ));
    if how == Ship::Repo {
        lab.ship(&plants);
    } else {
        lab.ship(&[file("Cargo.toml", CARGO_TOML)]);
    }
    lab.trust();
    let client = lab.connect_with(None, None).await;
    if how == Ship::Model {
        lab.plant_through_mcp(&client, &plants[1..]).await;
    }
    let c = write_checked(&client, "src/lib.rs", LIB_RS).await;
    client.cancel().await.unwrap();
    lab.assert_no_marker("trusted workspace, workspace toolchain");
    assert_not_silently_clean(
        &c,
        "rust-analyzer",
        None,
        "a toolchain inside the workspace",
    );
}

#[tokio::test]
async fn a_trusted_workspace_toolchain_still_never_runs_model_written() {
    trusted_then_toolchain(Ship::Model).await;
}

#[tokio::test]
async fn a_trusted_workspace_toolchain_still_never_runs_repo_shipped() {
    trusted_then_toolchain(Ship::Repo).await;
}

// ---------------------------------------------------------------------------------------------
// 8. Reading outside the root through diagnostics.

/// The secret's token appears in no result; the same construct on a file inside the root
/// shows its token (the channel works, so its absence means the read was refused).
#[tokio::test]
async fn clangd_never_reads_outside_the_root() {
    if !have_server(&["clangd"]) {
        return;
    }
    let lab = Lab::new("");
    let secret = format!("SECRET_TOKEN_{}", lab.nonce);
    let inside = format!("INSIDE_TOKEN_{}", lab.nonce);
    let header = |token: &str| format!("#error {token}\nint leak = {token}_ID;\n");
    std::fs::write(lab.outside.join("secret.h"), header(&secret)).unwrap();
    lab.ship(&[file("inc/inside.h", header(&inside))]);
    let abs = lab.outside.join("secret.h").display().to_string();
    let client = lab.connect_with(None, None).await;
    let control = write_checked(
        &client,
        "inside.c",
        "#include \"inc/inside.h\"\nint main(void) { return 0; }\n",
    )
    .await;
    assert!(
        control.all.contains(&inside),
        "the control leaked nothing, so the case tests nothing:\n{}",
        control.all
    );
    let mut all = String::new();
    for (name, include) in [
        ("abs.c", abs.clone()),
        ("rel.c", "../outside/secret.h".to_owned()),
        ("proc.c", format!("/proc/self/root{abs}")),
        ("cwd.c", "/proc/self/cwd/../outside/secret.h".to_owned()),
    ] {
        let c = write_checked(
            &client,
            name,
            &format!("#include \"{include}\"\nint main(void) {{ return 0; }}\n"),
        )
        .await;
        assert!(
            !c.all.contains(&secret),
            "{name} leaked the secret:\n{}",
            c.all
        );
        assert!(
            c.status == "checked" && c.text.contains("ERROR"),
            "{name}: the include's failure is not reported:\n{}",
            c.all
        );
        all.push_str(&c.all);
    }
    for path in [abs.as_str(), "../outside/secret.h"] {
        let r = call(&client, "read_file", json!({ "path": path })).await;
        assert!(is_error(&r), "read_file {path} was served: {}", text(&r));
        assert!(!dump(&r).contains(&secret), "{}", dump(&r));
    }
    client.cancel().await.unwrap();
    assert!(!all.contains(&secret));
}

#[tokio::test]
async fn typescript_never_reads_outside_the_root() {
    if !have_server(&["tsc7"]) {
        return;
    }
    let lab = Lab::new("");
    let secret = format!("SECRET_TOKEN_{}", lab.nonce);
    let inside = format!("INSIDE_TOKEN_{}", lab.nonce);
    // An object's type, printed in the error, names its property: the token.
    let module = |token: &str| format!("export const s = {{ {token}: 1 }};\n");
    std::fs::write(lab.outside.join("secret.ts"), module(&secret)).unwrap();
    std::fs::write(
        lab.outside.join("global.ts"),
        format!("const leakedGlobal = {{ {secret}: 1 }};\n"),
    )
    .unwrap();
    lab.ship(&[
        file(
            "tsconfig.json",
            "{ \"compilerOptions\": { \"strict\": true } }\n",
        ),
        file("lib/inside.ts", module(&inside)),
    ]);
    let abs = lab.outside.join("secret").display().to_string();
    let client = lab.connect_with(None, None).await;
    let control = write_checked(
        &client,
        "inside.ts",
        "import { s } from \"./lib/inside\";\nexport const n: number = s;\n",
    )
    .await;
    assert!(
        control.all.contains(&inside),
        "the control leaked nothing, so the case tests nothing:\n{}",
        control.all
    );
    for (name, source) in [
        (
            "rel.ts",
            "import { s } from \"../outside/secret\";\nexport const n: number = s;\n".to_owned(),
        ),
        (
            "abs.ts",
            format!("import {{ s }} from {abs:?};\nexport const n: number = s;\n"),
        ),
        (
            "proc.ts",
            format!("import {{ s }} from \"/proc/self/root{abs}\";\nexport const n: number = s;\n"),
        ),
        (
            "ref.ts",
            format!(
                "/// <reference path={:?} />\nexport const n: number = leakedGlobal;\n",
                lab.outside.join("global.ts").display().to_string()
            ),
        ),
    ] {
        let c = write_checked(&client, name, &source).await;
        assert!(
            !c.all.contains(&secret),
            "{name} leaked the secret:\n{}",
            c.all
        );
        assert!(
            c.status == "checked" && c.text.contains("ERROR"),
            "{name}: the failed import is not reported:\n{}",
            c.all
        );
    }
    for path in [
        lab.outside.join("secret.ts").display().to_string(),
        "../outside/secret.ts".to_owned(),
    ] {
        let r = call(&client, "read_file", json!({ "path": path })).await;
        assert!(is_error(&r), "read_file {path} was served: {}", text(&r));
        assert!(!dump(&r).contains(&secret), "{}", dump(&r));
    }
    client.cancel().await.unwrap();
}
