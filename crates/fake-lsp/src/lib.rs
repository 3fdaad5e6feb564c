//! A scripted language server used by lspedit's fault and timing tests.
//!
//! The server speaks LSP over stdio with full-text document sync. A [`Script`] (JSON, from the
//! environment, see [`SCRIPT_ENV`] and [`SCRIPT_FILE_ENV`]) says how diagnostics are delivered
//! and how the server misbehaves. Diagnostics are derived from the text: every line containing
//! [`Script::marker`] yields one error at the marker's position, code `F001`, so a test controls
//! what is reported by what it writes.
//!
//! The server is a language server, so it is built on tower-lsp (`server.rs`), run one message
//! at a time on one thread: a slow answer blocks everything behind it, exactly like a busy real
//! server, and a hang is a hang. The faults that concern the byte stream rather than the
//! protocol (garbage on stdout, an ignored `exit`, a hung server that stops reading) sit below
//! tower-lsp, on the pumps of `transport.rs` between the process's stdio and tower-lsp's.

mod server;
pub mod support;
mod transport;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `$/progress` token of the work shown while answers wait ([`Script::progress_ms`]).
pub const WORK_TOKEN: &str = "fake/working";

/// Environment variable holding a script as inline JSON.
pub const SCRIPT_ENV: &str = "LSPEDIT_FAKE_SCRIPT";
/// Environment variable naming a file that holds the script as JSON. Read at every start, so a
/// test can change the behaviour of the next incarnation by rewriting the file.
pub const SCRIPT_FILE_ENV: &str = "LSPEDIT_FAKE_SCRIPT_FILE";

/// How diagnostics reach the client.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// `textDocument/publishDiagnostics` carrying the document version.
    #[default]
    Push,
    /// `textDocument/publishDiagnostics` without a version (like typescript-language-server).
    PushUnversioned,
    /// `textDocument/diagnostic` requests only.
    Pull,
    /// No publishes: diagnostics are answered to typescript-language-server's
    /// `typescript.tsserverRequest` command (`workspace/executeCommand`), shaped as tsserver's
    /// `*DiagnosticsSync` responses (the marker's lines among the semantic ones).
    TsserverPull,
}

/// A point in the server's life at which a fault can be injected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Event {
    Initialize,
    Initialized,
    DidOpen,
    DidChange,
    DidSave,
    Diagnostic,
    Shutdown,
}

/// What the fake server does. Every field has a harmless default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Script {
    pub mode: Mode,
    /// Substring that marks an error line.
    pub marker: String,
    /// Delay before each publish or pull answer (an intentionally slow server).
    pub delay_ms: u64,
    /// While it waits [`Script::delay_ms`] before a publish or pull answer: a `$/progress`
    /// begin (token [`WORK_TOKEN`]), a report every this many milliseconds and an end, as a
    /// server visibly working on the request; 0: silent while it waits.
    pub progress_ms: u64,
    /// Delay before answering `initialize`.
    pub initialize_delay_ms: u64,
    /// Exit with status 101 when this event arrives.
    pub crash_on: Option<Event>,
    /// Stop reading and answering forever when this event arrives.
    pub hang_on: Option<Event>,
    /// While hung ([`Script::hang_on`]), a thread of the server computes this many
    /// milliseconds out of every 200 (a hung server whose runtime or collector threads still
    /// tick now and then: hung, not busy).
    pub hang_tick_ms: u64,
    /// The first time this event arrives, compute for [`Script::busy_ms`] without reading or
    /// answering (a server in its first analysis: busy, not hung), then go on as usual.
    pub busy_on: Option<Event>,
    /// How long [`Script::busy_on`] computes.
    pub busy_ms: u64,
    /// Write non-protocol bytes and malformed frames on stdout around every message.
    pub garbage: bool,
    /// Never answer `shutdown` and ignore `exit`: the server ends only when its input does
    /// (or it is killed).
    pub ignore_shutdown: bool,
    /// Publish a result for an older version (with a `STALE` diagnostic) before and after
    /// every correct publish (with [`Script::check_on_save`]: after each publish of a check).
    pub stale_versions: bool,
    /// Publish every result twice.
    pub publish_twice: bool,
    /// Publish nothing when the diagnostics did not change since the last publish (with
    /// [`Script::check_on_save`]: since the document's last publish, of whichever text).
    pub skip_unchanged: bool,
    /// Start a long-lived grandchild (`sleep`) in the server's process group.
    pub spawn_child: bool,
    /// Send the client requests and notifications a real server sends (configuration,
    /// registration, progress, unknown methods) after `initialized`, and log the answers.
    pub server_requests: bool,
    /// Params that do not fit their LSP types, as a sloppy or hostile server sends them: with
    /// [`Script::server_requests`], requests 7 to 12 after its six (configuration with a
    /// numeric section and with no item list, a registration without an id, workspace folders
    /// and progress creation with odd params, an edit with a numeric label) and notifications
    /// (a log message without a type, a status whose `quiescent` is a string, a progress begin
    /// without a title, publishes without a valid URI); and every publish carries one extra
    /// diagnostic without a range.
    pub malformed_params: bool,
    /// Before every publish and every pull answer, notifications carrying this text where a
    /// client reads or logs their params, as a hostile server sends them: a `$/progress` begin
    /// and end with it as the token, a `window/logMessage` with it as the message, a publish
    /// for the URI `file:///<text>` without diagnostics. A client must drop them and go on
    /// whatever its handlers make of them (a test makes its own handlers panic on the text).
    pub hostile_text: Option<String>,
    /// Append one line per received message and per answer to this file.
    pub log_file: Option<PathBuf>,
    /// Settings section asked for in `workspace/configuration`.
    pub config_section: String,
    /// Check on save, like rust-analyzer's `cargo check`: changes publish nothing; `didSave`
    /// sends `$/progress` begin and end with token [`CHECK_TOKEN`] and then the publish, but the
    /// publish is only queued, as rust-analyzer hands publishes to its worker pool: requests
    /// answered directly (such as an unknown method) overtake it, and it is written just before
    /// the answer to the next `textDocument/hover` (answered from that pool) or before the next
    /// document notification.
    pub check_on_save: bool,
    /// With [`Script::check_on_save`]: the check of a document whose text contains this cannot
    /// run, as rust-analyzer's when cargo cannot start: its progress begins and ends, nothing is
    /// published, and an `experimental/serverStatus` follows whose message begins with
    /// [`CHECK_FAILED_STATUS`]; the next check that runs is followed by a status without it.
    pub check_fail_marker: Option<String>,
    /// With [`Script::check_fail_marker`]: the check that cannot run shows no progress at all,
    /// only the status (rust-analyzer when the check's command cannot even be spawned).
    pub check_fail_silently: bool,
    /// The answer to `textDocument/rename` (a `WorkspaceEdit`, sent as given); with it the
    /// server offers rename. `prepareRename` answers the position's range.
    pub rename_edit: Option<Value>,
    /// The answer to `textDocument/codeAction` (a list of actions, sent as given); with it the
    /// server offers code actions, and `codeAction/resolve` answers the action with
    /// [`Script::resolve_edit`] as its edit.
    pub code_actions: Option<Value>,
    /// The edit `codeAction/resolve` adds to the action it is sent.
    pub resolve_edit: Option<Value>,
    /// An edit sent as a `workspace/applyEdit` request while `workspace/executeCommand` runs.
    pub command_edit: Option<Value>,
    /// The answer to `textDocument/references` and `textDocument/definition`.
    pub locations: Option<Value>,
    /// The answer to `textDocument/documentSymbol` (sent as given); with it the server offers
    /// document symbols.
    pub document_symbols: Option<Value>,
    /// The answer to `textDocument/hover` (a `Hover`, sent as given); with it the server offers
    /// hover. Without it a hover is answered `null` (as the on-save emulation needs).
    pub hover: Option<Value>,
    /// The answer to `textDocument/prepareCallHierarchy` (a list of items); with it the server
    /// offers the call hierarchy, and answers `callHierarchy/incomingCalls` with
    /// [`Script::incoming_calls`] and `callHierarchy/outgoingCalls` with
    /// [`Script::outgoing_calls`] (`null` when unset).
    pub call_items: Option<Value>,
    /// See [`Script::call_items`].
    pub incoming_calls: Option<Value>,
    /// See [`Script::call_items`].
    pub outgoing_calls: Option<Value>,
    /// Answer this many `callHierarchy/incomingCalls` and `outgoingCalls` requests, then leave
    /// every later one unanswered (a server still working through a huge hierarchy); `None`:
    /// answer all.
    pub calls_answered: Option<usize>,
    /// The answer to `textDocument/implementation`; with it the server offers the request.
    pub implementations: Option<Value>,
    /// The answer to `textDocument/typeDefinition`; with it the server offers the request.
    pub type_definitions: Option<Value>,
    /// The `positionEncoding` the server picks (e.g. `utf-8`); none by default (UTF-16).
    pub position_encoding: Option<String>,
    /// What the server tries once, right after answering `initialize`, to show what its
    /// sandbox lets it do; each logs one line (see [`Probe`]). The server serves normally
    /// whatever they return.
    pub probes: Vec<Probe>,
    /// Pull answers for documents whose URI ends with this wait [`Script::slow_ms`] more (a
    /// file that is slow to check; the server answers nothing else meanwhile).
    pub slow_suffix: Option<String>,
    /// See [`Script::slow_suffix`].
    pub slow_ms: u64,
    /// Pull answers also report, on each line `from "./name"`, an `F002` error when the open
    /// document `name.ts` has an error line: a dependency between files, for other-file checks.
    pub cross_file: bool,
}

/// One attempt the fake server makes at startup ([`Script::probes`]), logged to
/// [`Script::log_file`] as `probe <kind> <target> ok`, or `probe <kind> <target> denied <error
/// kind> [errno <n>]` when the attempt fails (an exec whose program ran but exited non-zero logs
/// `probe exec <target> exited <code>`). `<target>` is logged as given.
///
/// A path target may start with `$NAME/`: the server's environment variable `NAME` (`$HOME`,
/// `$TMPDIR`, the scratch directory lspedit gives it) replaces `$NAME`; an unset variable is
/// left in place (the probe then fails to find the path).
///
/// JSON: `{"kind": "write", "target": "$HOME/x"}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "target")]
pub enum Probe {
    /// Create or truncate the file at this path and write a line into it.
    Write(String),
    /// Read the file at this path.
    Read(String),
    /// Run the program at this path (no arguments, stdio null) and wait for it.
    Exec(String),
    /// Open a TCP connection to this address (`127.0.0.1:4000`), then close it.
    Connect(String),
    /// Bind a TCP listener on this address (`127.0.0.1:0`), then close it.
    Bind(String),
    /// Open an MPTCP connection (`socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP)` + `connect`)
    /// to this address and send a line.
    Mptcp(String),
    /// Send a line to this address with TCP Fast Open (`sendto` with `MSG_FASTOPEN` on a
    /// fresh TCP socket: connect and send in one call).
    FastOpen(String),
    /// Send one UDP datagram (a DNS query for `lspedit-probe.example`) to this address.
    Udp(String),
    /// Connect to the Unix socket bound at this path and send a line.
    Unix(String),
    /// Send SIGTERM to this process id.
    Signal(String),
}

impl Probe {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Probe::Write(_) => "write",
            Probe::Read(_) => "read",
            Probe::Exec(_) => "exec",
            Probe::Connect(_) => "connect",
            Probe::Bind(_) => "bind",
            Probe::Mptcp(_) => "mptcp",
            Probe::FastOpen(_) => "fast-open",
            Probe::Udp(_) => "udp",
            Probe::Unix(_) => "unix",
            Probe::Signal(_) => "signal",
        }
    }

    pub(crate) fn target(&self) -> &str {
        match self {
            Probe::Write(t)
            | Probe::Read(t)
            | Probe::Exec(t)
            | Probe::Connect(t)
            | Probe::Bind(t)
            | Probe::Mptcp(t)
            | Probe::FastOpen(t)
            | Probe::Udp(t)
            | Probe::Unix(t)
            | Probe::Signal(t) => t,
        }
    }

    /// Makes the attempt; the outcome as logged after `probe <kind> <target> `.
    pub fn run(&self) -> String {
        let denied = |e: std::io::Error| match e.raw_os_error() {
            Some(n) => format!("denied {:?} errno {n}", e.kind()),
            None => format!("denied {:?}", e.kind()),
        };
        let result = match self {
            Probe::Write(t) => std::fs::write(expand(t), "written by a probe\n"),
            Probe::Read(t) => std::fs::read(expand(t)).map(drop),
            Probe::Exec(t) => {
                match std::process::Command::new(expand(t))
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .status()
                {
                    Ok(status) if status.success() => Ok(()),
                    Ok(status) => {
                        return match status.code() {
                            Some(code) => format!("exited {code}"),
                            None => "exited by a signal".to_owned(),
                        };
                    }
                    Err(e) => Err(e),
                }
            }
            Probe::Connect(t) => resolve(t).and_then(|addr| {
                std::net::TcpStream::connect_timeout(&addr, std::time::Duration::from_secs(5))
                    .map(drop)
            }),
            Probe::Bind(t) => std::net::TcpListener::bind(t.as_str()).map(drop),
            Probe::Mptcp(t) => resolve(t).and_then(|a| raw::mptcp_send(a, PROBE_LINE)),
            Probe::FastOpen(t) => resolve(t).and_then(|a| raw::fast_open_send(a, PROBE_LINE)),
            Probe::Udp(t) => std::net::UdpSocket::bind("0.0.0.0:0")
                .and_then(|s| s.send_to(DNS_QUERY, t.as_str()))
                .map(drop),
            Probe::Unix(t) => raw::unix_send(&expand(t), PROBE_LINE),
            Probe::Signal(t) => t
                .parse::<i32>()
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))
                .and_then(raw::terminate),
        };
        match result {
            Ok(()) => "ok".to_owned(),
            Err(e) => denied(e),
        }
    }
}

/// What the network probes send: a line a listener can recognise.
pub const PROBE_LINE: &[u8] = b"sent by a probe\n";

/// A DNS query (id 0x1234, one question: `lspedit-probe.example`, type A), what the UDP probe
/// sends: what a resolver would send for a `$schema` URL's host.
pub const DNS_QUERY: &[u8] = b"\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x0dlspedit-probe\x07example\x00\x00\x01\x00\x01";

/// Elsewhere the probes that need Linux's system calls say so.
#[cfg(not(target_os = "linux"))]
mod raw {
    use std::net::SocketAddr;

    fn unsupported() -> std::io::Result<()> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
    pub(super) fn mptcp_send(_: SocketAddr, _: &[u8]) -> std::io::Result<()> {
        unsupported()
    }
    pub(super) fn fast_open_send(_: SocketAddr, _: &[u8]) -> std::io::Result<()> {
        unsupported()
    }
    pub(super) fn terminate(_: i32) -> std::io::Result<()> {
        unsupported()
    }
    pub(super) fn unix_send(_: &std::path::Path, _: &[u8]) -> std::io::Result<()> {
        unsupported()
    }
}

/// The probes that need system calls `std` does not offer.
#[cfg(target_os = "linux")]
mod raw {
    use std::net::SocketAddr;

    /// `sockaddr_in` of an IPv4 address (the probes use loopback).
    fn sockaddr(addr: SocketAddr) -> std::io::Result<libc::sockaddr_in> {
        let SocketAddr::V4(v4) = addr else {
            return Err(std::io::ErrorKind::InvalidInput.into());
        };
        Ok(libc::sockaddr_in {
            sin_family: libc::AF_INET as libc::sa_family_t,
            sin_port: v4.port().to_be(),
            sin_addr: libc::in_addr {
                s_addr: u32::from(*v4.ip()).to_be(),
            },
            sin_zero: [0; 8],
        })
    }

    fn check(r: libc::c_long) -> std::io::Result<libc::c_long> {
        if r < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(r)
        }
    }

    /// A socket of `protocol`, closed on drop.
    fn stream(protocol: i32) -> std::io::Result<std::os::fd::OwnedFd> {
        use std::os::fd::FromRawFd;
        // SAFETY: socket(2) with integer arguments; the descriptor is owned from here on.
        #[allow(unsafe_code)]
        unsafe {
            let fd = check(libc::socket(libc::AF_INET, libc::SOCK_STREAM, protocol).into())?;
            Ok(std::os::fd::OwnedFd::from_raw_fd(fd as i32))
        }
    }

    pub(super) fn mptcp_send(addr: SocketAddr, line: &[u8]) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        const IPPROTO_MPTCP: i32 = 262;
        let sa = sockaddr(addr)?;
        let fd = stream(IPPROTO_MPTCP)?;
        // SAFETY: connect and send on an owned descriptor with pointers to live locals.
        #[allow(unsafe_code)]
        unsafe {
            check(
                libc::connect(
                    fd.as_raw_fd(),
                    (&raw const sa).cast(),
                    std::mem::size_of_val(&sa) as libc::socklen_t,
                )
                .into(),
            )?;
            check(libc::send(fd.as_raw_fd(), line.as_ptr().cast(), line.len(), 0) as libc::c_long)?;
        }
        Ok(())
    }

    pub(super) fn fast_open_send(addr: SocketAddr, line: &[u8]) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        let sa = sockaddr(addr)?;
        let fd = stream(0)?;
        // SAFETY: sendto on an owned descriptor with pointers to live locals.
        #[allow(unsafe_code)]
        unsafe {
            check(libc::sendto(
                fd.as_raw_fd(),
                line.as_ptr().cast(),
                line.len(),
                libc::MSG_FASTOPEN,
                (&raw const sa).cast(),
                std::mem::size_of_val(&sa) as libc::socklen_t,
            ) as libc::c_long)?;
        }
        Ok(())
    }

    pub(super) fn unix_send(path: &std::path::Path, line: &[u8]) -> std::io::Result<()> {
        use std::io::Write;
        std::os::unix::net::UnixStream::connect(path).and_then(|mut s| s.write_all(line))
    }

    pub(super) fn terminate(pid: i32) -> std::io::Result<()> {
        // SAFETY: kill(2) with integer arguments.
        #[allow(unsafe_code)]
        let r = unsafe { libc::kill(pid, libc::SIGTERM) };
        check(r.into()).map(drop)
    }
}

/// `$NAME/rest` with the environment variable `NAME` substituted, when it is set.
fn expand(target: &str) -> PathBuf {
    if let Some(rest) = target.strip_prefix('$') {
        let (name, tail) = rest.split_once('/').unwrap_or((rest, ""));
        if let Some(value) = std::env::var_os(name) {
            let mut path = PathBuf::from(value);
            if !tail.is_empty() {
                path.push(tail);
            }
            return path;
        }
    }
    PathBuf::from(target)
}

fn resolve(target: &str) -> std::io::Result<std::net::SocketAddr> {
    use std::net::ToSocketAddrs;
    target
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "no address"))
}

/// `$/progress` token of the on-save check (see [`Script::check_on_save`]).
pub const CHECK_TOKEN: &str = "fake/flycheck/0";

/// The status message of a check that could not run (see [`Script::check_fail_marker`]).
pub const CHECK_FAILED_STATUS: &str = "fake check failed to start";

impl Default for Script {
    fn default() -> Self {
        Self {
            mode: Mode::Push,
            marker: "ERROR".to_owned(),
            delay_ms: 0,
            progress_ms: 0,
            initialize_delay_ms: 0,
            crash_on: None,
            hang_on: None,
            hang_tick_ms: 0,
            busy_on: None,
            busy_ms: 0,
            garbage: false,
            ignore_shutdown: false,
            stale_versions: false,
            publish_twice: false,
            skip_unchanged: false,
            spawn_child: false,
            server_requests: true,
            malformed_params: false,
            hostile_text: None,
            log_file: None,
            config_section: "fake".to_owned(),
            check_on_save: false,
            check_fail_marker: None,
            check_fail_silently: false,
            rename_edit: None,
            code_actions: None,
            resolve_edit: None,
            command_edit: None,
            locations: None,
            document_symbols: None,
            hover: None,
            call_items: None,
            incoming_calls: None,
            outgoing_calls: None,
            calls_answered: None,
            implementations: None,
            type_definitions: None,
            position_encoding: None,
            probes: Vec::new(),
            slow_suffix: None,
            slow_ms: 0,
            cross_file: false,
        }
    }
}

impl Script {
    /// Reads the script from [`SCRIPT_FILE_ENV`] or [`SCRIPT_ENV`]; the default when neither is
    /// set.
    pub fn from_env() -> Result<Self, String> {
        if let Some(path) = std::env::var_os(SCRIPT_FILE_ENV) {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("reading {}: {e}", PathBuf::from(&path).display()))?;
            return serde_json::from_str(&text).map_err(|e| format!("script file: {e}"));
        }
        match std::env::var(SCRIPT_ENV) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("script: {e}")),
            Err(_) => Ok(Self::default()),
        }
    }

    /// The script as JSON, for [`SCRIPT_ENV`] or a script file.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Serves the script on this process's stdin and stdout until `exit` or the end of input, on
/// tower-lsp (`server.rs`) behind the stream faults of `transport.rs`. Returns the process exit
/// code: 0 after `shutdown` and `exit`, 1 after an `exit` without `shutdown` or at the end of
/// input.
pub fn serve(script: Script) -> std::io::Result<i32> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    Ok(runtime.block_on(serve_stdio(script)))
}

async fn serve_stdio(script: Script) -> i32 {
    use std::sync::Arc;
    use tower_lsp_server::{LspService, Server};

    let log = Arc::new(transport::Log::open(script.log_file.as_deref()));
    let mut child = None;
    if script.spawn_child {
        child = std::process::Command::new("sleep")
            .arg("3600")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .ok();
        if let Some(child) = &child {
            log.line(&format!("child {}", child.id()));
        }
    }
    log.line(&format!("start {}", std::process::id()));
    let control = Arc::new(transport::Control::new(script.ignore_shutdown));
    // stdin → (in pump) → tower-lsp → (out pump) → stdout.
    let (to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let pump_in = tokio::spawn({
        let (log, control) = (Arc::clone(&log), Arc::clone(&control));
        async move { transport::pump_in(tokio::io::stdin(), to_server, &log, &control).await }
    });
    let pump_out = tokio::spawn({
        let control = Arc::clone(&control);
        let garbage = script.garbage;
        async move { transport::pump_out(from_server, tokio::io::stdout(), garbage, &control).await }
    });
    let (service, socket) = {
        let (log, control) = (Arc::clone(&log), Arc::clone(&control));
        LspService::new(move |client| server::FakeServer::new(client, script, log, control))
    };
    Server::new(server_in, server_out, socket)
        .concurrency_level(1)
        .serve(service)
        .await;
    // tower-lsp's output is closed: whatever it wrote reaches stdout before the process ends.
    let _ = pump_out.await;
    pump_in.abort();
    if !control.exit_seen() {
        log.line("eof");
        return 1;
    }
    log.line("exit");
    if let Some(mut child) = child.take() {
        let _ = child.kill();
        let _ = child.wait();
    }
    if control
        .shutdown_answered
        .load(std::sync::atomic::Ordering::SeqCst)
    {
        0
    } else {
        1
    }
}

/// The diagnostics the fake server reports for `text`: one per line containing `marker`.
/// Positions are 0-based LSP positions (UTF-16 columns).
pub fn diagnostics_for(text: &str, marker: &str) -> Vec<Value> {
    if marker.is_empty() {
        return Vec::new();
    }
    text.lines()
        .enumerate()
        .filter_map(|(line, content)| {
            let byte = content.find(marker)?;
            let col = content[..byte].encode_utf16().count();
            let end = col + marker.encode_utf16().count();
            Some(json!({
                "range": {
                    "start": { "line": line, "character": col },
                    "end": { "line": line, "character": end },
                },
                "severity": 1,
                "code": "F001",
                "source": "fake",
                "message": format!("found {marker}"),
            }))
        })
        .collect()
}

/// An LSP diagnostic of [`diagnostics_for`] as tsserver reports it: 1-based `line` and `offset`
/// (UTF-16), `text`, `category`.
pub(crate) fn tsserver_diagnostic(d: &Value) -> Value {
    let at = |key: &str| {
        let p = &d["range"][key];
        json!({
            "line": p["line"].as_u64().unwrap_or_default() + 1,
            "offset": p["character"].as_u64().unwrap_or_default() + 1,
        })
    };
    json!({
        "start": at("start"),
        "end": at("end"),
        "text": d["message"],
        "code": d["code"],
        "category": "error",
        "source": d["source"],
    })
}

pub(crate) fn stale_diagnostics() -> Vec<Value> {
    vec![json!({
        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 1 } },
        "severity": 1,
        "code": "STALE",
        "message": "STALE result for an older version",
    })]
}

/// Path of the `lspedit-fake-lsp` binary, built through cargo on first use in a process (a
/// no-op when it is fresh). Cargo builds only a package's own binaries for its tests, so other
/// packages' tests find the fake server here. Panics with cargo's output if the build fails:
/// it is test support.
pub fn binary() -> &'static std::path::Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let out = std::process::Command::new(cargo)
            .args([
                "build",
                "--quiet",
                "--message-format=json",
                "--bin",
                "lspedit-fake-lsp",
                "--manifest-path",
            ])
            .arg(&manifest)
            .output();
        let out = match out {
            Ok(out) if out.status.success() => out,
            Ok(out) => panic!(
                "building lspedit-fake-lsp failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => panic!("cannot run cargo to build lspedit-fake-lsp: {e}"),
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .unwrap_or_else(|| panic!("cargo reported no executable for lspedit-fake-lsp"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_report_what_happened_and_expand_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        let file_s = file.display().to_string();
        assert_eq!(Probe::Write(file_s.clone()).run(), "ok");
        assert_eq!(Probe::Read(file_s).run(), "ok");
        assert_eq!(
            Probe::Read(dir.path().join("missing").display().to_string()).run(),
            "denied NotFound errno 2"
        );
        assert_eq!(Probe::Exec("/bin/true".into()).run(), "ok");
        assert_eq!(Probe::Exec("/bin/false".into()).run(), "exited 1");
        assert_eq!(Probe::Bind("127.0.0.1:0".into()).run(), "ok");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        assert_eq!(Probe::Connect(addr).run(), "ok");
        assert!(listener.accept().is_ok());
        // `$PATH` is set wherever tests run; an unset name stays as written.
        let path = std::env::var_os("PATH").unwrap();
        assert_eq!(expand("$PATH/x"), PathBuf::from(path).join("x"));
        assert_eq!(
            expand("$LSPEDIT_FAKE_NO_SUCH_VAR/x"),
            PathBuf::from("$LSPEDIT_FAKE_NO_SUCH_VAR/x")
        );
        assert_eq!(expand("/abs/p"), PathBuf::from("/abs/p"));
    }

    #[test]
    fn probes_are_tagged_json_and_off_by_default() {
        assert!(Script::default().probes.is_empty());
        let script: Script =
            serde_json::from_str(r#"{"probes": [{"kind": "exec", "target": "/bin/true"}]}"#)
                .unwrap();
        assert_eq!(script.probes, vec![Probe::Exec("/bin/true".into())]);
        let back: Script = serde_json::from_str(&script.to_json()).unwrap();
        assert_eq!(back.probes, script.probes);
    }
}
