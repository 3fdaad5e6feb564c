//! Issue 44, end to end: through MCP alone, the model writes code a language server runs
//! (a `svelte.config.js` svelte-language-server imports, a `build.rs` rust-analyzer's `cargo
//! check` on save runs, a Vue plugin `tsconfig.json`'s `vueCompilerOptions.plugins` names, which
//! @vue/typescript-plugin loads inside tsserver). That code looks for the agent's API key in
//! other processes' environments and tries every way out: TCP, MPTCP, TCP Fast Open, UDP, a DNS
//! query, a path and an abstract Unix socket, a signal to a process outside, io_uring, and a
//! socket of every other family. What must hold: **no byte leaves** and nothing outside is
//! touched, whatever the channel.
//!
//! The test holds loopback listeners (TCP, UDP that also answers as a DNS server, a path and an
//! abstract Unix socket) that record everything they receive, and two `sleep` processes (with
//! the key in their environment) as signal targets. `lspedit mcp` runs with
//! `ANTHROPIC_API_KEY=<random fake key>`, started by a shell that holds the key too (the agent,
//! an ancestor of every server), with and without the server host, restricted and trusted. The
//! payload (`tests/fixtures/exfiltration/`) writes one line per channel to
//! `$HOME/attack-<vector>.log` in the server's scratch dir (under this case's `XDG_CACHE_HOME`):
//! `<channel> ok` or `<channel> denied <errno>`. Each case fails when a vector's log is missing
//! or lacks a channel (the payload silently did not run), when a listener received anything,
//! when any process's environment gave the key away (`/proc/<pid>/environ` of lspedit, the
//! agent, an ancestor, a target, any pid), when the key appears in a received byte or an MCP
//! result, when a target died, or when a channel's line is not the denial the sandbox promises
//! (`socket()` refused with EACCES for every family, a signal with EPERM).
//!
//! The positive control runs the same payload outside the sandbox: every channel delivers the
//! key (MPTCP and Fast Open where this kernel has them, which the control says), so a quiet
//! listener in the sandboxed cases means the channel was shut, not that it never worked here.
//!
//! Real servers: skips with a message when one is missing, unless `LSPEDIT_REQUIRE_SERVERS=1`.

use std::ffi::OsString;
use std::hash::{BuildHasher, Hasher};
use std::io::Read;
use std::net::{TcpListener, UdpSocket};
use std::os::linux::net::SocketAddrExt;
use std::os::unix::net::{SocketAddr, UnixListener};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::json;

use crate::harness::{bin, have_server};
use crate::mcp::{call, is_error, text};

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

/// How long the payloads may take to run: rust-analyzer's first `cargo check` (which runs the
/// build script) on a loaded two-core machine.
const PAYLOAD_DEADLINE: Duration = Duration::from_secs(240);

/// One session at a time: each starts six servers, and the machine has two cores.
static SESSIONS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

// The payload, as the model writes it.
const ATTACK_PY: &str = include_str!("../fixtures/exfiltration/attack.py");
const NODE_ATTACK_JS: &str = include_str!("../fixtures/exfiltration/node-attack.js");
const BUILD_RS: &str = include_str!("../fixtures/exfiltration/build.rs");
const SVELTE_CONFIG_JS: &str = include_str!("../fixtures/exfiltration/svelte.config.js");
const VUE_PLUGIN_JS: &str = include_str!("../fixtures/exfiltration/vue-plugin.js");

const PACKAGE_JSON: &str =
    "{\n  \"name\": \"exfil\",\n  \"private\": true,\n  \"version\": \"0.0.0\"\n}\n";
const TSCONFIG_JSON: &str = "{\n  \"compilerOptions\": { \"strict\": true, \"module\": \"esnext\", \"moduleResolution\": \"bundler\" },\n  \"include\": [\"src/**/*\"],\n  \"vueCompilerOptions\": { \"plugins\": [\"./vue-plugin.js\"] }\n}\n";
const CARGO_TOML: &str =
    "[package]\nname = \"exfil\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n";

/// What a channel's line must say inside the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Must {
    /// `denied EACCES`: `socket()` is refused for every family.
    Eacces,
    /// `denied EPERM`: no signal reaches a process outside the sandbox.
    Eperm,
    /// `denied <errno>`.
    Denied,
    /// Anything but the key: its own environment, or one inside the sandbox, may be read.
    NoSecret,
    /// Only that the payload got there.
    Present,
}

/// The lines `attack.py` writes, each vector's run of it.
const PYTHON_LINES: &[(&str, Must)] = &[
    ("environ:self", Must::NoSecret),
    ("environ:lspedit", Must::Denied),
    ("environ:agent", Must::Denied),
    ("environ:target", Must::Denied),
    ("environ:scan", Must::NoSecret),
    ("tcp", Must::Eacces),
    ("mptcp", Must::Eacces),
    ("tfo", Must::Eacces),
    ("udp", Must::Eacces),
    ("dns", Must::Eacces),
    ("unix", Must::Eacces),
    ("unix-abstract", Must::Eacces),
    ("kill", Must::Eperm),
    ("io_uring", Must::Denied),
    ("socket:inet6-tcp", Must::Eacces),
    ("socket:inet6-udp", Must::Eacces),
    ("socket:unix-dgram", Must::Eacces),
    ("socket:netlink", Must::Eacces),
    ("socket:packet", Must::Eacces),
    ("socket:inet-raw", Must::Eacces),
    ("socket:sctp", Must::Eacces),
    ("socket:vsock", Must::Eacces),
    ("done", Must::Present),
];

/// The lines `node-attack.js` writes (svelte.config.js, the Vue plugin).
const NODE_LINES: &[(&str, Must)] = &[
    ("node-python", Must::Present),
    ("node-environ:self", Must::NoSecret),
    ("node-environ:parent", Must::NoSecret),
    ("node-environ:lspedit", Must::Denied),
    ("node-environ:target", Must::Denied),
    ("node-kill", Must::Eperm),
    ("node-tcp", Must::Denied),
    ("node-unix", Must::Denied),
    ("node-udp", Must::Denied),
    ("node-dns", Must::Denied),
];

/// The lines the build script writes itself.
const RUST_LINES: &[(&str, Must)] = &[
    ("native-python", Must::Present),
    ("native-environ:self", Must::NoSecret),
    ("native-environ:parent", Must::NoSecret),
    ("native-environ:lspedit", Must::Denied),
    ("native-environ:target", Must::Denied),
    ("native-tcp", Must::Denied),
    ("native-udp", Must::Denied),
    ("native-unix", Must::Denied),
];

/// The channels over which the control must deliver the key, per payload.
const PYTHON_DELIVERS: &[&str] = &["tcp", "udp", "dns", "unix", "unix-abstract"];
const NODE_DELIVERS: &[&str] = &["node-tcp", "node-udp", "node-dns", "node-unix"];

/// One way the model's files get run by a server.
struct Vector {
    /// `attack-<name>.log`, `attack-<name>-native.log`.
    name: &'static str,
    native: &'static [(&'static str, Must)],
    /// The file whose write starts the server that runs the payload.
    trigger: (&'static str, &'static str),
}

const VECTORS: &[Vector] = &[
    Vector {
        name: "svelte",
        native: NODE_LINES,
        trigger: (
            "src/App.svelte",
            "<script lang=\"ts\">\n  let n: number = 1;\n</script>\n\n<p>{n}</p>\n",
        ),
    },
    Vector {
        name: "rust",
        native: RUST_LINES,
        trigger: ("src/lib.rs", "pub fn answer() -> u32 {\n    42\n}\n"),
    },
    Vector {
        name: "vue",
        native: NODE_LINES,
        trigger: (
            "src/App.vue",
            "<script setup lang=\"ts\">\nconst n: number = 1;\n</script>\n\n<template>\n  <p>{{ n }}</p>\n</template>\n",
        ),
    },
];

/// A unique string: process, time and a random number.
fn unique() -> String {
    let random = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    format!("{:x}{nanos:x}{random:016x}", std::process::id())
}

/// A fake API key: `prefix` (unique to the session, so the payload takes this key and never a
/// real one some process on the machine holds) and a random tail.
struct Secret {
    prefix: String,
    value: String,
}

impl Secret {
    fn new() -> Secret {
        let prefix = format!("sk-ant-lspedit-exfil-{}-", unique());
        let value = format!("{prefix}{}", unique());
        Secret { prefix, value }
    }

    /// Whether `data` holds the key, as text or hex (a DNS label).
    fn in_bytes(&self, data: &[u8]) -> bool {
        let hex: String = self.value.bytes().map(|b| format!("{b:02x}")).collect();
        let text = String::from_utf8_lossy(data);
        text.contains(&self.value) || text.contains(&hex[..40])
    }
}

/// What a listener received: one connection's bytes or one datagram.
#[derive(Debug, Clone)]
struct Received {
    listener: &'static str,
    data: Vec<u8>,
}

impl Received {
    /// `(vector, channel, key)` of a payload message: `exfil VECTOR CHANNEL KEY` over a stream
    /// or datagram, or a DNS query for `CHANNEL.VECTOR.<hex of KEY>.exfil.test`.
    fn decode(&self) -> Option<(String, String, String)> {
        if let Some(rest) = self.data.strip_prefix(b"exfil ") {
            let text = String::from_utf8_lossy(rest);
            let mut words = text.split_whitespace().map(str::to_owned);
            return Some((words.next()?, words.next()?, words.next()?));
        }
        let (labels, _) = dns_question(&self.data)?;
        let n = labels.len();
        if n < 5 || labels[n - 2] != "exfil" || labels[n - 1] != "test" {
            return None;
        }
        let hex: String = labels[2..n - 2].concat();
        let bytes: Option<Vec<u8>> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
            .collect();
        let key = String::from_utf8(bytes?).ok()?;
        Some((labels[1].clone(), labels[0].clone(), key))
    }

    fn describe(&self) -> String {
        format!(
            "{} received {:?}",
            self.listener,
            String::from_utf8_lossy(&self.data)
        )
    }
}

/// The labels of a DNS query's question and the offset where the question ends.
fn dns_question(data: &[u8]) -> Option<(Vec<String>, usize)> {
    if data.len() < 12 || data[2] & 0x80 != 0 || data[4..6] != [0, 1] {
        return None;
    }
    let mut labels = Vec::new();
    let mut at = 12;
    loop {
        let len = usize::from(*data.get(at)?);
        at += 1;
        if len == 0 {
            break;
        }
        labels.push(String::from_utf8(data.get(at..at + len)?.to_vec()).ok()?);
        at += len;
    }
    (data.len() >= at + 4).then_some((labels, at + 4))
}

/// Loopback listeners that record everything they receive, until dropped.
/// What the listeners received, and a condition variable told of every arrival.
#[derive(Default)]
struct Inbox {
    items: Mutex<Vec<Received>>,
    arrived: Condvar,
}

impl Inbox {
    fn push(&self, r: Received) {
        self.items.lock().unwrap().push(r);
        self.arrived.notify_all();
    }
}

struct Listeners {
    tcp_port: u16,
    udp_port: u16,
    unix_path: PathBuf,
    abstract_name: String,
    received: Arc<Inbox>,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Listeners {
    fn start() -> Listeners {
        let dir = tempfile::tempdir().unwrap();
        let unix_path = dir.path().canonicalize().unwrap().join("exfil.sock");
        let abstract_name = format!("lspedit-exfil-{}", unique());
        let received = Arc::new(Inbox::default());
        let stop = Arc::new(AtomicBool::new(false));

        // Blocking: each thread waits on its listener, and `Drop` wakes it (see there).
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        let tcp_port = tcp.local_addr().unwrap().port();
        let unix = UnixListener::bind(&unix_path).unwrap();
        let abstract_addr = SocketAddr::from_abstract_name(abstract_name.as_bytes()).unwrap();
        let abstract_unix = UnixListener::bind_addr(&abstract_addr).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        let udp_port = udp.local_addr().unwrap().port();

        let threads = vec![
            record_streams("tcp", &received, &stop, move || {
                let (s, _) = tcp.accept()?;
                s.set_read_timeout(Some(Duration::from_secs(2)))?;
                Ok(s)
            }),
            record_streams("unix", &received, &stop, move || {
                let (s, _) = unix.accept()?;
                s.set_read_timeout(Some(Duration::from_secs(2)))?;
                Ok(s)
            }),
            record_streams("unix-abstract", &received, &stop, move || {
                let (s, _) = abstract_unix.accept()?;
                s.set_read_timeout(Some(Duration::from_secs(2)))?;
                Ok(s)
            }),
            record_datagrams(udp, &received, &stop),
        ];
        Listeners {
            tcp_port,
            udp_port,
            unix_path,
            abstract_name,
            received,
            stop,
            threads,
            _dir: dir,
        }
    }

    fn received(&self) -> Vec<Received> {
        self.received.items.lock().unwrap().clone()
    }

    /// What was received once `done` holds of it, or when `timeout` passed.
    fn received_when(
        &self,
        timeout: Duration,
        done: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let items = self.received.items.lock().unwrap();
        let (items, _) = self
            .received
            .arrived
            .wait_timeout_while(items, timeout, |r| !done(r))
            .unwrap();
        items.clone()
    }
}

impl Drop for Listeners {
    /// Each listener thread blocks in `accept` or `recv_from`: once `stop` is set, one
    /// connection or datagram of its own wakes it, and it exits without recording it.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = std::net::TcpStream::connect(("127.0.0.1", self.tcp_port));
        let _ = std::os::unix::net::UnixStream::connect(&self.unix_path);
        if let Ok(addr) = SocketAddr::from_abstract_name(self.abstract_name.as_bytes()) {
            let _ = std::os::unix::net::UnixStream::connect_addr(&addr);
        }
        if let Ok(udp) = UdpSocket::bind("127.0.0.1:0") {
            let _ = udp.send_to(b"stop", ("127.0.0.1", self.udp_port));
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Accepts connections (`accept` blocks) and records each one's bytes, an empty connection
/// included, until `stop` is set.
fn record_streams<S: Read>(
    listener: &'static str,
    received: &Arc<Inbox>,
    stop: &Arc<AtomicBool>,
    mut accept: impl FnMut() -> std::io::Result<S> + Send + 'static,
) -> JoinHandle<()> {
    let (received, stop) = (Arc::clone(received), Arc::clone(stop));
    std::thread::spawn(move || {
        loop {
            let accepted = accept();
            if stop.load(Ordering::SeqCst) {
                return;
            }
            if let Ok(s) = accepted {
                let mut data = Vec::new();
                // A read error (the timeout) keeps what was read before it.
                let _ = s.take(1 << 16).read_to_end(&mut data);
                received.push(Received { listener, data });
            }
        }
    })
}

/// Records every datagram; answers a DNS query with NXDOMAIN, so a resolver that sent one
/// says so at once.
fn record_datagrams(
    udp: UdpSocket,
    received: &Arc<Inbox>,
    stop: &Arc<AtomicBool>,
) -> JoinHandle<()> {
    let (received, stop) = (Arc::clone(received), Arc::clone(stop));
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 65536];
        loop {
            let got = udp.recv_from(&mut buf);
            if stop.load(Ordering::SeqCst) {
                return;
            }
            let Ok((n, from)) = got else {
                continue;
            };
            let data = buf[..n].to_vec();
            if let Some((_, end)) = dns_question(&data) {
                let mut answer = vec![data[0], data[1], 0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0];
                answer.extend_from_slice(&data[12..end]);
                let _ = udp.send_to(&answer, from);
            }
            received.push(Received {
                listener: "udp",
                data,
            });
        }
    })
}

/// A `sleep 600` with the key in its environment: what the payload signals and whose
/// environment it reads. Killed on drop.
struct Target(Child);

impl Target {
    fn start(secret: &Secret) -> Target {
        Target(
            Command::new("sleep")
                .arg("600")
                // A group of its own, so `died_by` can wait on it as a group.
                .process_group(0)
                .env("ANTHROPIC_API_KEY", &secret.value)
                .stdin(Stdio::null())
                .spawn()
                .unwrap(),
        )
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    fn alive(&mut self) -> bool {
        self.0.try_wait().unwrap().is_none()
    }

    /// Whether it died before `deadline`.
    fn died_by(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        lspedit::process::wait_group_gone(self.pid(), left)
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The Python the payload runs: `/usr/bin/python3` (the sandbox grants `/usr`), else the first
/// `python3` on `PATH`.
fn python() -> PathBuf {
    let usr = PathBuf::from("/usr/bin/python3");
    if usr.is_file() {
        return usr;
    }
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())
        .expect("the payload needs python3")
}

/// Where the payload is told to look and send.
struct Plan<'a> {
    listeners: &'a Listeners,
    secret: &'a Secret,
    /// The directory `attack.py` is written to.
    dir: &'a Path,
    /// `lspedit mcp`'s pid, whose environment holds the key.
    lspedit_pid: u32,
    /// The process that started it (the agent), whose environment holds the key too.
    agent_pid: u32,
    /// What `attack.py` signals, and what node signals.
    target_pid: u32,
    node_target_pid: u32,
}

impl Plan<'_> {
    fn attack_py_path(&self) -> String {
        self.dir.join("attack.py").display().to_string()
    }

    fn config(&self) -> String {
        let l = self.listeners;
        json!({
            "prefix": self.secret.prefix,
            "tcp_port": l.tcp_port,
            "udp_port": l.udp_port,
            "unix_path": l.unix_path.display().to_string(),
            "abstract_name": l.abstract_name,
            "lspedit_pid": self.lspedit_pid,
            "agent_pid": self.agent_pid,
            "target_pid": self.target_pid,
            "node_target_pid": self.node_target_pid,
            "python": python().display().to_string(),
            "attack_py": self.attack_py_path(),
        })
        .to_string()
    }

    fn attack_py(&self) -> String {
        ATTACK_PY.replace("@CONFIG@", &self.config())
    }

    fn node_attack_js(&self) -> String {
        NODE_ATTACK_JS.replace("@CONFIG@", &self.config())
    }

    fn build_rs(&self) -> String {
        let l = self.listeners;
        let lit = |s: String| format!("{s:?}");
        [
            ("\"@PYTHON@\"", lit(python().display().to_string())),
            ("\"@ATTACK_PY@\"", lit(self.attack_py_path())),
            ("@TCP_PORT@", l.tcp_port.to_string()),
            ("@UDP_PORT@", l.udp_port.to_string()),
            ("\"@UNIX_PATH@\"", lit(l.unix_path.display().to_string())),
            ("@LSPEDIT_PID@", self.lspedit_pid.to_string()),
            ("@TARGET_PID@", self.target_pid.to_string()),
            ("@PREFIX@", self.secret.prefix.clone()),
        ]
        .iter()
        .fold(BUILD_RS.to_owned(), |text, (from, to)| {
            text.replace(from, to)
        })
    }

    /// Every file the model writes before the triggers.
    fn files(&self) -> Vec<(&'static str, String)> {
        vec![
            ("attack.py", self.attack_py()),
            ("node-attack.js", self.node_attack_js()),
            ("package.json", PACKAGE_JSON.to_owned()),
            ("svelte.config.js", SVELTE_CONFIG_JS.to_owned()),
            ("tsconfig.json", TSCONFIG_JSON.to_owned()),
            ("vue-plugin.js", VUE_PLUGIN_JS.to_owned()),
            ("Cargo.toml", CARGO_TOML.to_owned()),
            ("build.rs", self.build_rs()),
        ]
    }
}

/// The lines of a log: `(channel, outcome)`.
fn lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| {
            let (c, o) = l.split_once(' ')?;
            Some((c.to_owned(), o.to_owned()))
        })
        .collect()
}

/// Whether every channel of `table` has a line.
fn complete(log: Option<&str>, table: &[(&str, Must)]) -> bool {
    let Some(log) = log else { return false };
    let got = lines(log);
    table.iter().all(|(c, _)| got.iter().any(|(g, _)| g == c))
}

/// What is wrong with a sandboxed run's log `name` against `table`.
fn judge(name: &str, log: Option<&str>, table: &[(&str, Must)], failures: &mut Vec<String>) {
    let Some(log) = log else {
        failures.push(format!(
            "{name}: no log: the payload never ran, so this case tested nothing"
        ));
        return;
    };
    let got = lines(log);
    for (channel, outcome) in &got {
        if outcome.starts_with("ok secret") {
            failures.push(format!("{name}: {channel} read the key: {outcome}"));
        }
    }
    for (channel, must) in table {
        let said: Vec<&String> = got
            .iter()
            .filter(|(c, _)| c == channel)
            .map(|(_, o)| o)
            .collect();
        if said.is_empty() {
            failures.push(format!(
                "{name}: no `{channel}` line: the payload did not get there"
            ));
        }
        for outcome in said {
            let ok = match must {
                Must::Eacces => outcome == "denied EACCES",
                Must::Eperm => outcome == "denied EPERM",
                Must::Denied => outcome.starts_with("denied E"),
                Must::NoSecret => !outcome.starts_with("ok secret"),
                Must::Present => true,
            };
            if !ok {
                failures.push(format!(
                    "{name}: `{channel} {outcome}`, the sandbox must say {must:?}"
                ));
            }
        }
    }
}

/// A `.../home/<name>` under the scratch base `scratch` (`<base>/<root hash>/<server>/home`).
fn find_log(scratch: &Path, name: &str) -> Option<String> {
    for per_root in std::fs::read_dir(scratch).ok()?.flatten() {
        for server in std::fs::read_dir(per_root.path()).into_iter().flatten() {
            let Ok(server) = server else { continue };
            if let Ok(text) = std::fs::read_to_string(server.path().join("home").join(name)) {
                return Some(text);
            }
        }
    }
    None
}

/// Whether the server host is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    /// The default: servers run in `lspedit servers host`.
    Shared,
    /// `LSPEDIT_NO_HOST=1`: servers are `lspedit mcp`'s own children.
    Own,
}

/// Whether the workspace is trusted (`lspedit trust`); the sandbox stays either way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    Restricted,
    Trusted,
}

/// A workspace and the directories of its lspedit processes.
struct Lab {
    _base: tempfile::TempDir,
    root: PathBuf,
    /// `XDG_CACHE_HOME`: `lspedit/servers` links to the installed servers, so the scratch dirs
    /// (`lspedit/scratch`, beside it) are this case's.
    cache: PathBuf,
    /// `XDG_CONFIG_HOME` (trust records).
    config: PathBuf,
    /// `LSPEDIT_RUNTIME_DIR`: the host's socket, so the host is this case's.
    runtime: PathBuf,
}

impl Lab {
    fn new() -> Lab {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let b = base.path().canonicalize().unwrap();
        let (root, cache, config, runtime) = (
            b.join("ws"),
            b.join("cache"),
            b.join("config"),
            b.join("runtime"),
        );
        for d in [&root, &cache.join("lspedit"), &config, &runtime] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
        let servers = lspedit::lsp::PoolConfig::bundled()
            .unwrap()
            .servers_dir
            .unwrap();
        std::os::unix::fs::symlink(servers, cache.join("lspedit/servers")).unwrap();
        Lab {
            _base: base,
            root,
            cache,
            config,
            runtime,
        }
    }

    fn scratch(&self) -> PathBuf {
        self.cache.join("lspedit/scratch")
    }

    fn env(&self) -> [(&'static str, OsString); 3] {
        [
            ("XDG_CACHE_HOME", self.cache.clone().into()),
            ("XDG_CONFIG_HOME", self.config.clone().into()),
            ("LSPEDIT_RUNTIME_DIR", self.runtime.clone().into()),
        ]
    }

    /// `lspedit ARGS --root <root>` with the lab's directories.
    fn lspedit(&self, args: &[&str]) -> std::process::Output {
        Command::new(bin())
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .envs(self.env())
            .env_remove("LSPEDIT_SERVERS_DIR")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    }

    /// `lspedit mcp` started by an "agent" (a shell that waits for it), both with the key in
    /// their environment; the client, and the pids of lspedit and of the agent.
    async fn connect(&self, host: Host, secret: &Secret) -> (Client, u32, u32) {
        let root = self.root.clone();
        let env = self.env();
        let key = secret.value.clone();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new("/bin/sh").configure(|cmd| {
                // Not the last command of `-c`, so the shell forks instead of exec'ing.
                cmd.args(["-c", "\"$@\"; status=$?; exit $status", "agent"])
                    .arg(bin())
                    .arg("mcp")
                    .arg("--root")
                    .arg(&root)
                    .envs(env)
                    .env("ANTHROPIC_API_KEY", &key)
                    .env_remove("LSPEDIT_SERVERS_DIR");
                match host {
                    Host::Shared => cmd.env_remove("LSPEDIT_NO_HOST"),
                    Host::Own => cmd.env("LSPEDIT_NO_HOST", "1"),
                };
            }))
            .unwrap();
        let agent = transport.id().unwrap();
        let client = ().serve(transport).await.unwrap();
        // It answered `initialize`: the agent's one child is lspedit.
        let children = std::fs::read_to_string(format!("/proc/{agent}/task/{agent}/children"))
            .unwrap_or_default();
        let lspedit = children
            .split_whitespace()
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no lspedit under the agent {agent}: {children:?}"));
        (client, lspedit, agent)
    }
}

/// A result's text and structured content, for what must never appear.
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

/// The two logs of `vector` in the lab's scratch dirs.
fn logs(lab: &Lab, vector: &Vector) -> (Option<String>, Option<String>) {
    (
        find_log(&lab.scratch(), &format!("attack-{}.log", vector.name)),
        find_log(
            &lab.scratch(),
            &format!("attack-{}-native.log", vector.name),
        ),
    )
}

/// One session: the model plants every vector through MCP, triggers each, and nothing may leave.
async fn attack(host: Host, trust: Trust) {
    if !have_server(&["svelte-language-server"])
        || !have_server(&["vue-typescript"])
        || !have_server(&["rust-analyzer"])
    {
        return;
    }
    let _one = SESSIONS.lock().await;
    let lab = Lab::new();
    let secret = Secret::new();
    let listeners = Listeners::start();
    let mut target = Target::start(&secret);
    let mut node_target = Target::start(&secret);
    if trust == Trust::Trusted {
        let out = lab.lspedit(&["trust"]);
        assert!(
            out.status.success(),
            "lspedit trust: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (client, lspedit_pid, agent_pid) = lab.connect(host, &secret).await;
    let plan = Plan {
        listeners: &listeners,
        secret: &secret,
        dir: &lab.root,
        lspedit_pid,
        agent_pid,
        target_pid: target.pid(),
        node_target_pid: node_target.pid(),
    };

    // The payload in one `apply_patch` (its files start servers of their own: one call lets
    // them start together), then the three triggers at once.
    let mut patch = String::from("*** Begin Patch\n");
    for (path, content) in plan.files() {
        patch.push_str(&format!("*** Add File: {path}\n"));
        for line in content.lines() {
            patch.push_str(&format!("+{line}\n"));
        }
    }
    patch.push_str("*** End Patch\n");
    let r = call(&client, "apply_patch", json!({ "patch": patch })).await;
    assert!(!is_error(&r), "planting the payload: {}", text(&r));
    let mut results = dump(&r);
    for (path, content) in plan.files() {
        assert_eq!(
            std::fs::read_to_string(lab.root.join(path)).unwrap(),
            content,
            "{path} as planted"
        );
    }
    let write = |(path, content): (&'static str, &'static str)| {
        let client = &client;
        async move {
            let r = call(
                client,
                "write_file",
                json!({ "path": path, "content": content }),
            )
            .await;
            assert!(!is_error(&r), "write_file {path}: {}", text(&r));
            dump(&r)
        }
    };
    let (a, b, c) = tokio::join!(
        write(VECTORS[0].trigger),
        write(VECTORS[1].trigger),
        write(VECTORS[2].trigger)
    );
    results.extend([a, b, c]);
    let triggers: Vec<&str> = VECTORS.iter().map(|v| v.trigger.0).collect();
    let deadline = Instant::now() + PAYLOAD_DEADLINE;
    let ran = |lab: &Lab| {
        VECTORS.iter().all(|v| {
            let (py, native) = logs(lab, v);
            complete(py.as_deref(), PYTHON_LINES) && complete(native.as_deref(), v.native)
        })
    };
    while !ran(&lab) && Instant::now() < deadline {
        let d = call(&client, "diagnostics", json!({ "paths": triggers })).await;
        results.push_str(&dump(&d));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    client.cancel().await.unwrap();
    if host == Host::Shared {
        let out = lab.lspedit(&["servers", "stop"]);
        assert!(
            out.status.success(),
            "lspedit servers stop: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    let mut failures = Vec::new();
    let mut shown = String::new();
    for vector in VECTORS {
        let (py, native) = logs(&lab, vector);
        judge(
            &format!("{} attack.py", vector.name),
            py.as_deref(),
            PYTHON_LINES,
            &mut failures,
        );
        judge(
            &format!("{} native", vector.name),
            native.as_deref(),
            vector.native,
            &mut failures,
        );
        for (which, log) in [("attack.py", &py), ("native", &native)] {
            let log = log.as_deref().unwrap_or("(none)\n");
            if log.contains(&secret.value) {
                failures.push(format!("{} {which}: the log holds the key", vector.name));
            }
            shown.push_str(&format!("--- {} {which}:\n{log}", vector.name));
        }
    }
    for r in listeners.received() {
        let key = if secret.in_bytes(&r.data) {
            " (WITH THE KEY)"
        } else {
            ""
        };
        failures.push(format!("left the sandbox{key}: {}", r.describe()));
    }
    if !target.alive() {
        failures.push("attack.py's signal killed a process outside the sandbox".into());
    }
    if !node_target.alive() {
        failures.push("node's signal killed a process outside the sandbox".into());
    }
    if results.contains(&secret.value) {
        failures.push(format!("an MCP result holds the key:\n{results}"));
    }
    assert!(
        failures.is_empty(),
        "{host:?} host, {trust:?}: {} failures:\n{}\n\nlogs:\n{shown}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn no_byte_leaves_the_sandbox_restricted_with_the_host() {
    attack(Host::Shared, Trust::Restricted).await;
}

#[tokio::test]
async fn no_byte_leaves_the_sandbox_restricted_without_the_host() {
    attack(Host::Own, Trust::Restricted).await;
}

#[tokio::test]
async fn no_byte_leaves_the_sandbox_trusted_with_the_host() {
    attack(Host::Shared, Trust::Trusted).await;
}

#[tokio::test]
async fn no_byte_leaves_the_sandbox_trusted_without_the_host() {
    attack(Host::Own, Trust::Trusted).await;
}

/// Whether `/proc/sys/<path>` has bit `bit` set (MPTCP enabled, Fast Open for clients).
fn sysctl_bit(path: &str, bit: u32) -> bool {
    std::fs::read_to_string(Path::new("/proc/sys").join(path))
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .is_some_and(|v| v & bit != 0)
}

/// The positive control: the same payload outside the sandbox, with the key in its own
/// environment and in its targets'. Every channel delivers the key (MPTCP and Fast Open where
/// the kernel has them on), and every target dies.
#[test]
#[allow(clippy::print_stderr)] // Says which channel this kernel lacks, so the sandboxed cases prove less for it.
fn control_every_channel_delivers_outside_the_sandbox() {
    let secret = Secret::new();
    let listeners = Listeners::start();
    let home = tempfile::tempdir().unwrap();
    let home_dir = home.path().canonicalize().unwrap();
    let mut targets = [
        Target::start(&secret),
        Target::start(&secret),
        Target::start(&secret),
    ];
    let run = |program: &Path, dir: &Path, file: &str, vector: &str| {
        let out = Command::new(program)
            .arg(dir.join(file))
            .arg(vector)
            .current_dir(dir)
            .env("HOME", &home_dir)
            .env("ANTHROPIC_API_KEY", &secret.value)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} {file} {vector}: {}",
            program.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // attack.py alone, and node-attack.js (which runs attack.py too): each its own targets.
    let direct = tempfile::tempdir().unwrap();
    let plan = Plan {
        listeners: &listeners,
        secret: &secret,
        dir: direct.path(),
        lspedit_pid: std::process::id(),
        agent_pid: std::process::id(),
        target_pid: targets[0].pid(),
        node_target_pid: targets[0].pid(),
    };
    std::fs::write(direct.path().join("attack.py"), plan.attack_py()).unwrap();
    run(&python(), direct.path(), "attack.py", "control");
    let via_node = tempfile::tempdir().unwrap();
    let plan = Plan {
        dir: via_node.path(),
        target_pid: targets[1].pid(),
        node_target_pid: targets[2].pid(),
        ..plan
    };
    std::fs::write(via_node.path().join("attack.py"), plan.attack_py()).unwrap();
    std::fs::write(
        via_node.path().join("node-attack.js"),
        plan.node_attack_js(),
    )
    .unwrap();
    run(
        Path::new("node"),
        via_node.path(),
        "node-attack.js",
        "control-node",
    );

    let mut python_delivers: Vec<&str> = PYTHON_DELIVERS.to_vec();
    for (channel, available) in [
        ("mptcp", sysctl_bit("net/mptcp/enabled", 1)),
        ("tfo", sysctl_bit("net/ipv4/tcp_fastopen", 1)),
    ] {
        if available {
            python_delivers.push(channel);
        } else {
            eprintln!(
                "control: {channel} is off on this kernel; the sandboxed cases check only that it fails with EACCES"
            );
        }
    }
    let mut expected: Vec<(&str, &str)> = Vec::new();
    for vector in ["control", "control-node"] {
        expected.extend(python_delivers.iter().map(|c| (vector, *c)));
    }
    expected.extend(NODE_DELIVERS.iter().map(|c| ("control-node", *c)));
    let delivered = |r: &[Received], (vector, channel): (&str, &str)| {
        r.iter().any(|r| {
            r.decode()
                .is_some_and(|(v, c, key)| v == vector && c == channel && key == secret.value)
        })
    };
    listeners.received_when(Duration::from_secs(30), |r| {
        expected.iter().all(|e| delivered(r, *e))
    });

    let log = |name: &str| std::fs::read_to_string(home_dir.join(name)).unwrap_or_default();
    let (direct_log, node_python_log, node_log) = (
        log("attack-control.log"),
        log("attack-control-node.log"),
        log("attack-control-node-native.log"),
    );
    let shown = format!(
        "attack.py:\n{direct_log}\nattack.py under node:\n{node_python_log}\nnode:\n{node_log}\nreceived:\n{:#?}",
        listeners
            .received()
            .iter()
            .map(Received::describe)
            .collect::<Vec<_>>()
    );
    let received = listeners.received();
    let missing: Vec<String> = expected
        .iter()
        .filter(|e| !delivered(&received, **e))
        .map(|(v, c)| format!("{v} {c}"))
        .collect();
    assert!(
        missing.is_empty(),
        "outside the sandbox these channels did not deliver the key: {missing:?}\n{shown}"
    );
    let mut must_say: Vec<(&str, &str, &str)> = Vec::new();
    for log in [direct_log.as_str(), node_python_log.as_str()] {
        must_say.extend(python_delivers.iter().map(|c| (log, *c, "ok")));
        must_say.extend([
            (log, "kill", "ok"),
            (log, "environ:target", "ok secret"),
            (log, "environ:self", "ok secret"),
        ]);
    }
    must_say.extend(NODE_DELIVERS.iter().map(|c| (node_log.as_str(), *c, "ok")));
    must_say.extend([
        (node_log.as_str(), "node-python", "ok"),
        (node_log.as_str(), "node-kill", "ok"),
        (node_log.as_str(), "node-environ:target", "ok secret"),
    ]);
    for (log, channel, outcome) in must_say {
        assert!(
            lines(log).iter().any(|(c, o)| c == channel && o == outcome),
            "outside the sandbox `{channel}` did not say `{outcome}`:\n{shown}"
        );
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    for (i, t) in targets.iter_mut().enumerate() {
        assert!(
            t.died_by(deadline),
            "target {i} outlived the control's SIGTERM:\n{shown}"
        );
    }
}
