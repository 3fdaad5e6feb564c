//! The server host (`docs/host.md`): one process per user and workspace that runs the
//! workspace's language servers for every lspedit process on it, so a CLI call finds them warm
//! and two agent sessions on one repository share one rust-analyzer.
//!
//! - `client`: how a pool reaches it. A server the pool would spawn is asked of the host
//!   instead (`client::attach`): connect to the workspace's socket (starting the host when
//!   none listens, one starter at a time under a lock file), say which server and root and the
//!   fingerprints of the launch and of the `initialize` params, and get a stream that speaks
//!   LSP as the server's stdio would. Any failure there is the caller's cue to spawn the server
//!   itself, as without a host.
//! - [`daemon`]: the host. It listens on a Unix socket in the user's runtime directory
//!   (owner-only directory, peer credentials checked), answers only hellos carrying the token
//!   of that directory (`token`: no language server can read it), derives every server's
//!   launch itself from the workspace's configuration (a client's message never chooses a
//!   program: it names a server and proves that its own launch is the same by fingerprint),
//!   and stops a server no client used for the idle time, and itself when it has neither
//!   servers nor clients. A server whose directory was removed and created again
//!   (`daemon::Tree`) is never handed out: it stops, and a fresh one starts for the new tree.
//! - `mux`: one server shared by several clients: request ids renumbered per client, each
//!   client's open documents and versions kept apart (the server sees one document per file,
//!   its text the last one sent; a client gets the diagnostics of a version only when that
//!   version's text is its own), what a client joining late has missed replayed to it
//!   (registrations, progress, status, the latest diagnostics of every file).
//!
//! The host needs Unix sockets and peer credentials: on other systems (Windows) it does not
//! exist, every entry point answers [`HostError::Unsupported`], and a pool spawns its servers
//! itself, as it does whenever the host cannot be used.
//!
//! The wire: a client sends one JSON line ([`Hello`], with the token) and reads one JSON line
//! ([`Reply`]); after a `connect` that was accepted both sides speak LSP base-protocol frames.

#[cfg(unix)]
pub(crate) mod client;
pub mod daemon;
#[cfg(unix)]
mod mux;
mod token;
pub use token::Token;

use std::path::{Path, PathBuf};
#[cfg(unix)]
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The protocol's version: a host and a client of different versions do not talk (the client
/// runs its servers itself). 2: every hello carries the token. 3: the host tells a client when
/// another client's text of a document replaced its own in the server ([`TEXT_REPLACED`]), and
/// runs one client's check on save of a document at a time ([`SAVE_STARTED`], [`SAVE_ENDED`]);
/// every text a client sends is answered with what the server last published ([`PUBLISHED`]).
pub const PROTOCOL: u32 = 3;

/// The host's notification to a client: another client's text of the document `params.uri`,
/// which this client has open, replaced this client's in the server, or a publish of the
/// document during this client's check on save went to another client's text. A check that
/// needs the server to hold the client's text throughout (a check on save) is void if this
/// comes before its end. A server's own notification of this name never reaches a client.
pub const TEXT_REPLACED: &str = "$/lspedit/textReplaced";

/// The host's word to a client that its `didSave` of `params.uri` goes to the server now:
/// one client's check on save of a document runs at a time, so a save that comes while another
/// client's runs waits until that one ends ([`SAVE_ENDED`]). Sent just before the save is
/// forwarded, after what the server last published for the document ([`PUBLISHED`]: a check
/// that finds the same publishes nothing): the check's progress and publishes follow it.
pub const SAVE_STARTED: &str = "$/lspedit/saveStarted";

/// The host's answer to every text of the document `params.uri` a client sends (`didOpen`,
/// `didChange`), and its word just before the client's check on save of it starts
/// ([`SAVE_STARTED`]): `params.diagnostics` are the diagnostics the server
/// last published for the document (`[]`: none), whichever client's text they went to. A
/// server that publishes nothing when a text's diagnostics are the ones it published last
/// (rust-analyzer, typescript-language-server) leaves exactly these as its result for the
/// client's text, which the client may never have received.
pub const PUBLISHED: &str = "$/lspedit/published";

/// A client's word to the host that its check on save of `params.uri` ended (with a verdict,
/// an error or its deadline), or that it no longer waits for its save to start: the next
/// client's save of it goes on. A client that leaves ends its checks too.
pub const SAVE_ENDED: &str = "$/lspedit/saveEnded";

/// The file of the runtime directory holding the token every client sends
/// (`token::load_or_create`): owner-only, never read through a symlink.
pub const TOKEN_FILE: &str = "token";

/// The longest handshake line either side reads.
#[cfg(unix)]
const MAX_LINE: usize = 64 * 1024;

/// How long either side waits for the other's handshake line.
#[cfg(unix)]
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// What a client says first, as one line: the protocol version, the token of the runtime
/// directory (which only this user's lspedit processes can read: language servers run in a
/// sandbox that grants nothing there) and what it asks. A hello without the host's token is
/// refused, whatever it asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    pub v: u32,
    pub token: Token,
    #[serde(flatten)]
    pub op: Request,
}

/// What a client asks of the host.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Attach to the server `server` for `root` (started when it is not running).
    Connect {
        server: String,
        root: PathBuf,
        /// Fingerprint of the client's launch of the server (program, arguments, environment,
        /// sandbox): the host runs the server only when its own launch has the same.
        launch: String,
        /// Fingerprint of the client's `initialize` params without `processId`: clients that
        /// would initialize the server differently do not share it.
        session: String,
    },
    /// What runs.
    Status,
    /// Stop every server and exit.
    Stop,
}

/// The host's answer line.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Reply {
    /// Attached: LSP frames follow.
    Attached(Attached),
    /// Not attached; the client runs the server itself. Says why.
    Refused(String),
    Status(HostStatus),
    /// Every server stopped; the host exits.
    Stopped(HostStatus),
}

/// The server a client attached to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Attached {
    /// Its process group.
    pub pgid: u32,
    /// Clients it served before this one: more than zero means it has loaded the project.
    pub served: u64,
}

/// What a host runs (`lspedit servers status`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HostStatus {
    pub pid: u32,
    pub root: PathBuf,
    pub uptime_ms: u64,
    pub idle_secs: u64,
    pub servers: Vec<HostedServer>,
}

/// One server a host runs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct HostedServer {
    pub server: String,
    pub root: PathBuf,
    pub pgid: u32,
    /// Clients attached now.
    pub clients: usize,
    /// Clients served since it started, those attached now included.
    pub served: u64,
    pub uptime_ms: u64,
    /// Resident memory of its process group, when readable.
    pub rss_kib: Option<u64>,
}

/// Why the host could not be used.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error("no usable runtime directory: {0}")]
    RuntimeDir(String),
    /// The runtime directory's token file is not an owner-only regular file of this user
    /// holding a token (or could not be created).
    #[error("the host's token file cannot be used: {0}")]
    Token(String),
    #[error("no host is running for {}", .0.display())]
    NotRunning(PathBuf),
    #[error("the host could not be started: {0}")]
    Start(String),
    #[error("the host refused: {0}")]
    Refused(String),
    #[error("talking to the host: {0}")]
    Io(#[from] std::io::Error),
    #[error("the host answered something else: {0}")]
    Protocol(String),
    /// Not on this platform: the host listens on a Unix socket.
    #[error("the server host needs Unix sockets, which this platform lacks")]
    Unsupported,
}

/// The directory of the user's host sockets: `given` (a
/// [`lspedit_servers::HostConfig::runtime_dir`]), else
/// [`lspedit_servers::default_host_runtime_dir`] (`/run/user/UID/lspedit`, else
/// `/tmp/lspedit-UID`: the same for every process of the user, whatever its environment);
/// created owner-only, and refused unless it is a real directory of this user that nobody else
/// can enter (a socket there is reachable by this user alone).
#[cfg(unix)]
pub fn runtime_dir(given: Option<&Path>) -> Result<PathBuf, HostError> {
    let uid = rustix::process::getuid().as_raw();
    let dir = given.map_or_else(lspedit_servers::default_host_runtime_dir, Path::to_owned);
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(HostError::RuntimeDir(format!("{}: {e}", dir.display()))),
    }
    let meta = std::fs::symlink_metadata(&dir)
        .map_err(|e| HostError::RuntimeDir(format!("{}: {e}", dir.display())))?;
    if !meta.file_type().is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(HostError::RuntimeDir(format!(
            "{} is not a directory owned by this user and closed to others",
            dir.display()
        )));
    }
    Ok(dir)
}

/// Always [`HostError::Unsupported`]: no host runs on this platform.
#[cfg(not(unix))]
pub fn runtime_dir(_given: Option<&Path>) -> Result<PathBuf, HostError> {
    Err(HostError::Unsupported)
}

/// Where the host of `workspace` (canonical) listens, and the token it answers to.
#[cfg(unix)]
struct Endpoint {
    /// The runtime directory.
    dir: PathBuf,
    socket: PathBuf,
    token: Token,
}

/// The [`Endpoint`] of `workspace`'s host, its runtime directory checked by [`runtime_dir`]
/// and refused when it lies inside the workspace: the workspace's servers read all of it, and
/// would read the token.
#[cfg(unix)]
fn endpoint(given: Option<&Path>, workspace: &Path) -> Result<Endpoint, HostError> {
    let dir = runtime_dir(given)?;
    if canonical_root(&dir).starts_with(workspace) {
        return Err(HostError::RuntimeDir(format!(
            "{} is inside the workspace {}, whose servers may read it",
            dir.display(),
            workspace.display()
        )));
    }
    Ok(Endpoint {
        socket: socket_path(&dir, workspace),
        token: token::load_or_create(&dir)?,
        dir,
    })
}

/// The socket of the host for `workspace` (canonical) in `dir`.
pub fn socket_path(dir: &Path, workspace: &Path) -> PathBuf {
    dir.join(format!(
        "{}.sock",
        fingerprint(workspace.as_os_str().as_encoded_bytes())
    ))
}

/// The lock file starters hold while they start the host for that socket.
#[cfg(unix)]
fn lock_path(socket: &Path) -> PathBuf {
    socket.with_extension("lock")
}

/// 64-bit FNV-1a as 16 hex digits: names a socket after its workspace, and fingerprints a
/// launch or an `initialize` (stable across processes and builds, unlike std's hasher).
pub fn fingerprint(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The fingerprint of a launch as [`Request::Connect`] carries it: of everything that decides
/// how the process starts (its `Debug` form: every map in it is ordered).
pub fn launch_fingerprint(launch: &lspedit_servers::launch::Launch) -> String {
    fingerprint(format!("{launch:?}").as_bytes())
}

/// The canonical form of a workspace root, as hosts are named by it.
pub fn canonical_root(root: &Path) -> PathBuf {
    root.canonicalize().unwrap_or_else(|_| root.to_owned())
}

/// The status of the host of `workspace`, if one runs (`runtime_dir`: see [`runtime_dir`]).
#[cfg(unix)]
pub fn status(workspace: &Path, runtime_dir: Option<&Path>) -> Result<HostStatus, HostError> {
    match client::ask(workspace, runtime_dir, Request::Status)? {
        Reply::Status(s) => Ok(s),
        other => Err(HostError::Protocol(format!("{other:?}"))),
    }
}

/// Stops the host of `workspace` and its servers; returns what it ran. Waits until they are
/// gone.
#[cfg(unix)]
pub fn stop(workspace: &Path, runtime_dir: Option<&Path>) -> Result<HostStatus, HostError> {
    match client::ask(workspace, runtime_dir, Request::Stop)? {
        Reply::Stopped(s) => {
            for server in &s.servers {
                lspedit_process::wait_group_gone(server.pgid, Duration::from_secs(5));
            }
            Ok(s)
        }
        other => Err(HostError::Protocol(format!("{other:?}"))),
    }
}

/// Always [`HostError::Unsupported`]: no host runs on this platform.
#[cfg(not(unix))]
pub fn status(_workspace: &Path, _runtime_dir: Option<&Path>) -> Result<HostStatus, HostError> {
    Err(HostError::Unsupported)
}

/// Always [`HostError::Unsupported`]: no host runs on this platform.
#[cfg(not(unix))]
pub fn stop(_workspace: &Path, _runtime_dir: Option<&Path>) -> Result<HostStatus, HostError> {
    Err(HostError::Unsupported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_are_fnv1a() {
        // FNV-1a 64 of "" and "a" (the published test vectors).
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_eq!(fingerprint(b"a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn hello_and_reply_lines_round_trip() {
        let token: Token = serde_json::from_str(&format!("\"{}\"", "ab".repeat(32))).unwrap();
        let hello = Hello {
            v: PROTOCOL,
            token: token.clone(),
            op: Request::Connect {
                server: "rust-analyzer".into(),
                root: "/w".into(),
                launch: "00".into(),
                session: "11".into(),
            },
        };
        let line = serde_json::to_string(&hello).unwrap();
        assert!(line.contains(r#""op":"connect""#), "{line}");
        assert!(line.contains(r#""v":3"#), "{line}");
        let back = serde_json::from_str::<Hello>(&line).unwrap();
        assert_eq!((back.v, &back.op), (hello.v, &hello.op));
        assert!(back.token.matches(&token));
        let status = serde_json::to_string(&Hello {
            v: PROTOCOL,
            token,
            op: Request::Status,
        })
        .unwrap();
        assert_eq!(
            status,
            format!(r#"{{"v":3,"token":"{}","op":"status"}}"#, "ab".repeat(32))
        );
        // A hello of protocol 1 (no token) is no hello of this one.
        assert!(serde_json::from_str::<Hello>(r#"{"op":"status","v":1}"#).is_err());
        let reply = Reply::Attached(Attached { pgid: 7, served: 2 });
        let line = serde_json::to_string(&reply).unwrap();
        assert_eq!(serde_json::from_str::<Reply>(&line).unwrap(), reply);
    }
}
