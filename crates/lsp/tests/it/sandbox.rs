//! The sandbox every server runs in (`crates/process/src/sandbox.rs`,
//! `crates/servers/src/launch.rs`), seen from inside: the fake server, started by a pool, tries
//! things at startup ([`Probe`]) and logs what happened.
//! Each forbidden attempt must fail with the kernel's EACCES and leave no trace (no file, no
//! marker, no connection), the check must still report the right diagnostics, and a positive
//! control in the same server must succeed, so that no test passes because the probe itself
//! is broken.
//!
//! Skipped (with a message) only where the kernel has no Landlock.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lspedit_fake_lsp::{Probe, Script};
use lspedit_process::sandbox::{self, Support};

use crate::harness::*;

const BAD: &str = "fine line\n  here is an ERROR\n";

/// What one sandboxed server did with its probes.
struct Probed {
    ws: FakeWs,
    /// The pool's scratch base (`PoolConfig::scratch_dir`), outside the workspace.
    scratch: tempfile::TempDir,
    log: String,
}

impl Probed {
    /// The rest of the log line `probe <kind> <target> ...`: `ok`, `denied ...`.
    fn outcome(&self, kind: &str, target: &str) -> &str {
        let prefix = format!("probe {kind} {target} ");
        self.log
            .lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("no `{prefix}` line in the log:\n{}", self.log))
    }

    #[track_caller]
    fn assert_ok(&self, kind: &str, target: &str) {
        assert_eq!(self.outcome(kind, target), "ok", "{kind} {target}");
    }

    /// Denied by the sandbox: EACCES, not some other failure (a missing path would also fail).
    #[track_caller]
    fn assert_denied(&self, kind: &str, target: &str) {
        let got = self.outcome(kind, target);
        assert_eq!(
            got, "denied PermissionDenied errno 13",
            "{kind} {target} should be denied by the sandbox"
        );
    }

    /// The server's `$HOME`: `<scratch base>/<root hash>/fake/home`.
    fn scratch_home(&self) -> PathBuf {
        let roots: Vec<PathBuf> = std::fs::read_dir(self.scratch.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(roots.len(), 1, "one root's scratch dir: {roots:?}");
        let home = roots[0].join("fake/home");
        assert!(home.is_dir(), "{} is not a directory", home.display());
        home
    }
}

/// Whether the kernel enforces Landlock; says why a test does nothing when it does not.
fn sandboxed() -> bool {
    match sandbox::support() {
        Support::Landlock { .. } => true,
        Support::Unavailable => {
            eprintln!(
                "SKIPPED: this kernel has no Landlock (lspedit_process::sandbox::support() is Unavailable); servers run unconfined here"
            );
            false
        }
    }
}

/// Starts the fake server with `probes` (built from the workspace root) through a pool whose
/// scratch base is a fresh temp dir, runs one check, and returns the log once the server is
/// gone. `plant` prepares the workspace before the server starts.
async fn probe(plant: impl FnOnce(&Path), probes: impl FnOnce(&Path) -> Vec<Probe>) -> Probed {
    let ws = FakeWs::new(Script::default());
    let root = ws.root();
    plant(&root);
    ws.set_script(Script {
        probes: probes(&root),
        ..Script::default()
    });
    let scratch = tempfile::tempdir().unwrap();
    let mut config = ws.config("push-versioned");
    config.scratch_dir = Some(scratch.path().to_owned());
    let pool = lspedit_lsp::Pool::new(root, config).unwrap();
    // The probes run right after `initialize` is answered, before the server reads the
    // document: once this check has its diagnostics, every probe line is in the log.
    let r = check_timed(&pool, &ws.file("a.fk"), BAD, 10_000)
        .await
        .unwrap();
    assert_eq!(
        messages(&r),
        vec!["2:14 found ERROR"],
        "the check's result, whatever the probes did; log:\n{}",
        ws.log()
    );
    let groups = pgids(&pool);
    assert_eq!(groups.len(), 1);
    pool.shutdown().await;
    assert_gone(&groups);
    let log = ws.log();
    Probed { ws, scratch, log }
}

fn path_str(p: &Path) -> String {
    p.display().to_string()
}

/// (1) A write outside the workspace and outside the scratch dir fails; writes to `$HOME`
/// and `$TMPDIR` (the scratch dir) succeed and land there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_writing_outside_the_workspace_and_the_scratch_dir() {
    if !sandboxed() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().canonicalize().unwrap().join("escaped.txt");
    let t = path_str(&target);
    let p = probe(
        |_| {},
        |_| {
            vec![
                Probe::Write("$HOME/home-ok.txt".into()),
                Probe::Write("$TMPDIR/tmp-ok.txt".into()),
                Probe::Write(t.clone()),
            ]
        },
    )
    .await;
    p.assert_ok("write", "$HOME/home-ok.txt");
    p.assert_ok("write", "$TMPDIR/tmp-ok.txt");
    let home = p.scratch_home();
    assert!(home.join("home-ok.txt").is_file(), "{}", home.display());
    assert!(home.with_file_name("tmp").join("tmp-ok.txt").is_file());
    p.assert_denied("write", &t);
    assert!(!target.exists(), "{} was written", target.display());
}

/// (2) The workspace is read-only to the server: no new file, no rewrite of an existing one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_writing_inside_the_workspace() {
    if !sandboxed() {
        return;
    }
    let p = probe(
        |root| std::fs::write(root.join("existing.txt"), "original\n").unwrap(),
        |root| {
            vec![
                Probe::Write("$HOME/control.txt".into()),
                Probe::Write(path_str(&root.join("new.txt"))),
                Probe::Write(path_str(&root.join("existing.txt"))),
            ]
        },
    )
    .await;
    let root = p.ws.root();
    p.assert_ok("write", "$HOME/control.txt");
    p.assert_denied("write", &path_str(&root.join("new.txt")));
    p.assert_denied("write", &path_str(&root.join("existing.txt")));
    assert!(!root.join("new.txt").exists());
    assert_eq!(
        std::fs::read_to_string(root.join("existing.txt")).unwrap(),
        "original\n"
    );
}

/// (3) A workspace file is never executed, even with mode 0755; a system binary is. The
/// planted script would create a marker in the server's `$HOME`, which the server can write
/// (the control proves it), so only the exec denial keeps the marker away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_executing_a_workspace_file() {
    use std::os::unix::fs::PermissionsExt;
    if !sandboxed() {
        return;
    }
    let plant = |root: &Path| {
        let script = root.join("evil.sh");
        std::fs::write(&script, "#!/bin/sh\ntouch \"$HOME/exec-marker\"\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        // Outside the sandbox the script works: it creates its marker.
        let home = tempfile::tempdir().unwrap();
        let status = std::process::Command::new(&script)
            .env("HOME", home.path())
            .status()
            .unwrap();
        assert!(status.success(), "{status:?}");
        assert!(home.path().join("exec-marker").is_file());
    };
    let p = probe(plant, |root| {
        vec![
            Probe::Exec("/bin/true".into()),
            Probe::Write("$HOME/control.txt".into()),
            Probe::Exec(path_str(&root.join("evil.sh"))),
        ]
    })
    .await;
    p.assert_ok("exec", "/bin/true");
    p.assert_ok("write", "$HOME/control.txt");
    p.assert_denied("exec", &path_str(&p.ws.root().join("evil.sh")));
    let home = p.scratch_home();
    assert!(home.join("control.txt").is_file());
    assert!(
        !home.join("exec-marker").exists(),
        "the workspace script ran in the sandbox"
    );
}

/// (4) Files outside the root (and outside what the sandbox grants) cannot be read; the
/// workspace can.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_reading_outside_the_root() {
    if !sandboxed() {
        return;
    }
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("secret.txt");
    std::fs::write(&secret, "secret\n").unwrap();
    let s = path_str(&secret);
    let p = probe(
        |root| std::fs::write(root.join("readable.txt"), "hello\n").unwrap(),
        |root| {
            vec![
                Probe::Read(path_str(&root.join("readable.txt"))),
                Probe::Read(s.clone()),
            ]
        },
    )
    .await;
    p.assert_ok("read", &path_str(&p.ws.root().join("readable.txt")));
    // The file is there (the test reads it): only the sandbox stops the server.
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "secret\n");
    p.assert_denied("read", &s);
}

/// (5) No TCP connect, even to loopback: the listener the test opened gets no connection
/// (and does get the test's own, so the check can see one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_tcp_connect() {
    if !sandboxed() {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let p = probe(|_| {}, |_| vec![Probe::Connect(addr.clone())]).await;
    p.assert_denied("connect", &addr);
    // The probe was logged after its attempt returned: a connection it made would be queued.
    match listener.accept() {
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
        other => panic!("the listener got a connection from the server: {other:?}"),
    }
    // The same check sees a connection that was made.
    listener.set_nonblocking(false).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(listener.accept().map(|(_, peer)| peer));
    });
    let client = std::net::TcpStream::connect(&addr).unwrap();
    let peer = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("the control connection was not accepted")
        .unwrap();
    assert_eq!(peer, client.local_addr().unwrap());
}

/// (6) No TCP bind, to a port the kernel picks or to a given one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_denies_tcp_bind() {
    if !sandboxed() {
        return;
    }
    // A port that was free a moment ago (outside the sandbox, binding works).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let fixed = format!("127.0.0.1:{port}");
    let p = probe(
        |_| {},
        |_| {
            vec![
                Probe::Bind("127.0.0.1:0".into()),
                Probe::Bind(fixed.clone()),
            ]
        },
    )
    .await;
    p.assert_denied("bind", "127.0.0.1:0");
    p.assert_denied("bind", &fixed);
}

/// Whether the kernel takes MPTCP sockets (`net.mptcp.enabled`); without it the MPTCP channel
/// is closed by the kernel itself, so it is no control.
fn mptcp_enabled() -> bool {
    std::fs::read_to_string("/proc/sys/net/mptcp/enabled").is_ok_and(|v| v.trim() == "1")
}

/// What the test's listeners received after a burst of probes: each one is drained without
/// blocking (a probe logs its line after its attempt returned, so anything it sent is queued).
#[derive(Debug, Default, PartialEq, Eq)]
struct Received {
    tcp: usize,
    udp: usize,
    unix: usize,
}

struct Listeners {
    tcp: std::net::TcpListener,
    udp: std::net::UdpSocket,
    unix: std::os::unix::net::UnixListener,
    unix_path: PathBuf,
    _dir: tempfile::TempDir,
}

impl Listeners {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let unix_path = dir.path().join("agent.sock");
        let l = Listeners {
            tcp: std::net::TcpListener::bind("127.0.0.1:0").unwrap(),
            udp: std::net::UdpSocket::bind("127.0.0.1:0").unwrap(),
            unix: std::os::unix::net::UnixListener::bind(&unix_path).unwrap(),
            unix_path,
            _dir: dir,
        };
        l.tcp.set_nonblocking(true).unwrap();
        l.udp.set_nonblocking(true).unwrap();
        l.unix.set_nonblocking(true).unwrap();
        l
    }

    fn probes(&self) -> Vec<Probe> {
        let tcp = self.tcp.local_addr().unwrap().to_string();
        let mut out = vec![
            Probe::FastOpen(tcp.clone()),
            Probe::Udp(self.udp.local_addr().unwrap().to_string()),
            Probe::Unix(path_str(&self.unix_path)),
        ];
        if mptcp_enabled() {
            out.push(Probe::Mptcp(tcp));
        }
        out
    }

    /// Counts what arrived; a connection counts only when its probe line arrived on it.
    fn drain(&self) -> Received {
        use std::io::Read;
        let mut got = Received::default();
        let read_line = |mut s: Box<dyn Read>| {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            usize::from(buf == lspedit_fake_lsp::PROBE_LINE)
        };
        while let Ok((s, _)) = self.tcp.accept() {
            s.set_nonblocking(false).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            got.tcp += read_line(Box::new(s));
        }
        while let Ok((s, _)) = self.unix.accept() {
            s.set_nonblocking(false).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
            got.unix += read_line(Box::new(s));
        }
        let mut buf = [0u8; 512];
        while let Ok(n) = self.udp.recv(&mut buf) {
            got.udp += usize::from(&buf[..n] == lspedit_fake_lsp::DNS_QUERY);
        }
        got
    }
}

/// (7) No network of any kind, the channels Landlock does not see included: TCP Fast Open
/// (`sendto` with `MSG_FASTOPEN`), MPTCP, a UDP datagram (a DNS query), a path Unix socket (an
/// ssh-agent's, the server host's). Each fails with EACCES and nothing arrives. Control: the
/// same probes from the test process, outside the sandbox, deliver on every channel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_closes_every_network_channel() {
    if !sandboxed() {
        return;
    }
    let l = Listeners::new();
    for p in l.probes() {
        assert_eq!(p.run(), "ok", "control {p:?} outside the sandbox");
    }
    let control = l.drain();
    let mptcp = usize::from(mptcp_enabled());
    assert_eq!(
        control,
        Received {
            tcp: 1 + mptcp,
            udp: 1,
            unix: 1
        },
        "every channel delivers outside the sandbox"
    );
    let probes = l.probes();
    let p = probe(|_| {}, |_| probes.clone()).await;
    for probe in &probes {
        let kind = format!("{probe:?}");
        let kind = kind.split('(').next().unwrap();
        let logged = match kind {
            "FastOpen" => "fast-open",
            "Udp" => "udp",
            "Unix" => "unix",
            "Mptcp" => "mptcp",
            other => panic!("{other}"),
        };
        let target = match probe {
            Probe::FastOpen(t) | Probe::Udp(t) | Probe::Unix(t) | Probe::Mptcp(t) => t,
            _ => unreachable!(),
        };
        p.assert_denied(logged, target);
    }
    assert_eq!(l.drain(), Received::default(), "nothing left the sandbox");
}

/// A process of the test's that stays until killed: `sleep`, or `python3` made non-dumpable
/// first (as `lspedit mcp` and the server host make themselves).
fn bystander(undumpable: bool) -> std::process::Child {
    use std::io::BufRead;
    let mut cmd = if undumpable {
        let mut c = std::process::Command::new("python3");
        c.args([
            "-c",
            "import ctypes, sys, time\nassert ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0\nprint('ready', flush=True)\ntime.sleep(600)",
        ]);
        c
    } else {
        let mut c = std::process::Command::new("sh");
        c.args(["-c", "echo ready; exec sleep 600"]);
        c
    };
    let mut child = cmd
        .env("LSPEDIT_BYSTANDER_SECRET", "bystander-secret")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready");
    child
}

/// (8) No signal reaches a process outside the sandbox (Landlock's signal scope: EPERM), and a
/// process that is not dumpable (`lspedit mcp`, the host) keeps its environment from the
/// server even when both run as the same user, root included (the sandbox drops every
/// capability, `CAP_SYS_PTRACE` too). Controls: the test process signals and reads them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sandbox_neither_signals_nor_reads_processes_outside_it() {
    if !sandboxed() {
        return;
    }
    let mut target = bystander(false);
    let mut guarded = bystander(true);
    let pid = target.id().to_string();
    let environ = format!("/proc/{}/environ", guarded.id());
    let p = probe(
        |_| {},
        |_| {
            vec![
                Probe::Signal(pid.clone()),
                Probe::Read(environ.clone()),
                Probe::Read("/proc/self/environ".into()),
            ]
        },
    )
    .await;
    assert_eq!(
        p.outcome("signal", &pid),
        "denied PermissionDenied errno 1",
        "a signal to a process outside the sandbox"
    );
    assert!(target.try_wait().unwrap().is_none(), "the target survived");
    p.assert_denied("read", &environ);
    p.assert_ok("read", "/proc/self/environ");
    // Controls: the same attempts from outside the sandbox.
    if rustix::process::geteuid().is_root() {
        let env = std::fs::read(&environ).unwrap();
        assert!(String::from_utf8_lossy(&env).contains("bystander-secret"));
    }
    assert_eq!(Probe::Signal(pid.clone()).run(), "ok");
    let status = target.wait().unwrap();
    assert!(
        !status.success(),
        "the control's SIGTERM ended it: {status:?}"
    );
    guarded.kill().unwrap();
    guarded.wait().unwrap();
}

/// A schema server on loopback: every request it gets is answered with an empty schema and its
/// first line sent on the returned channel, until the listener is dropped with the thread.
fn schema_server() -> (String, std::sync::mpsc::Receiver<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { return };
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_owned();
            let _ = s.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
            );
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (addr, rx)
}

/// (9) A `$schema` URL a model writes into a JSON file is never fetched by the real
/// vscode-json-language-server inside the sandbox (the fetch of a name would first be a DNS
/// query: no socket, so neither leaves), and the file is still checked. Control: the same
/// server with the sandbox off fetches it from the test's listener.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_url_is_never_fetched_from_the_sandbox() {
    if !sandboxed() {
        return;
    }
    let Some(cfg) = require_server("vscode-json-language-server") else {
        return;
    };
    for sandbox in [false, true] {
        let (addr, requests) = schema_server();
        let url = format!("http://{addr}/schema.json?key=operator-secret");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = root.join("a.json");
        let text = format!("{{\n  \"$schema\": \"{url}\",\n  \"x\": \n}}\n");
        std::fs::write(&path, &text).unwrap();
        let mut cfg = cfg.clone();
        cfg.sandbox = sandbox;
        let scratch = tempfile::tempdir().unwrap();
        cfg.scratch_dir = Some(scratch.path().to_owned());
        let pool = lspedit_lsp::Pool::new(&root, cfg).unwrap();
        let r = check_timed(&pool, &path, &text, 60_000).await.unwrap();
        assert!(
            r.errors().next().is_some(),
            "the syntax error is reported (sandbox {sandbox}): {r:#?}"
        );
        let messages: Vec<&str> = r.diagnostics.iter().map(|d| d.message.as_str()).collect();
        if sandbox {
            // The fetch was tried, and refused, before this result: it says so.
            assert!(
                messages
                    .iter()
                    .any(|m| m.starts_with("Unable to load schema") && m.contains("EACCES")),
                "{messages:?}"
            );
        }
        // The check.s result came after the schema was resolved (or failed to be): a fetch
        // made for it has arrived by now.
        let got = requests.try_recv().ok();
        let groups = pgids(&pool);
        pool.shutdown().await;
        assert_gone(&groups);
        if sandbox {
            assert_eq!(got, None, "the sandboxed server fetched the schema");
        } else {
            let got = got.expect("control: the unsandboxed server fetches the schema");
            assert!(
                got.starts_with("GET /schema.json?key=operator-secret"),
                "{got}"
            );
        }
    }
}
