//! The client side: reaching the workspace's host, starting it when none listens.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use lspedit_servers::HostConfig;

use super::{
    Attached, HANDSHAKE_TIMEOUT, Hello, HostError, MAX_LINE, PROTOCOL, Reply, Request,
    canonical_root, endpoint, lock_path,
};

/// How long a starter waits for the host it started to listen.
const START_TIMEOUT: Duration = Duration::from_secs(10);

/// Attaches to a server in the host of `workspace`, starting the host when none listens: the
/// returned stream speaks LSP as the server's stdio would. `connect` is a
/// [`Request::Connect`]; the hello carries the runtime directory's token. Blocking (a lock
/// file, a process start): call it from a blocking thread.
pub(crate) fn attach(
    host: &HostConfig,
    workspace: &Path,
    connect: Request,
) -> Result<(UnixStream, Attached), HostError> {
    let workspace = canonical_root(workspace);
    let end = endpoint(host.runtime_dir.as_deref(), &workspace)?;
    let socket = end.socket;
    let hello = &Hello {
        v: PROTOCOL,
        token: end.token,
        op: connect,
    };
    let attached = |(stream, reply)| match reply {
        Reply::Attached(a) => Ok((stream, a)),
        Reply::Refused(why) => Err(HostError::Refused(why)),
        other => Err(HostError::Protocol(format!("{other:?}"))),
    };
    match say(&socket, hello) {
        Ok(answer) => return attached(answer),
        Err(e) if !absent(&e) => return Err(e.into()),
        Err(_) => {}
    }
    // One starter at a time: the others wait here, then find it listening.
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(lock_path(&socket))?;
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
        .map_err(std::io::Error::from)?;
    match say(&socket, hello) {
        Ok(answer) => return attached(answer),
        Err(e) if !absent(&e) => return Err(e.into()),
        Err(_) => {}
    }
    start(host, &workspace, &socket)?;
    drop(lock);
    attached(say(&socket, hello)?)
}

/// Asks the running host of `workspace` one question (`status`, `stop`); never starts one.
pub(crate) fn ask(
    workspace: &Path,
    runtime: Option<&Path>,
    op: Request,
) -> Result<Reply, HostError> {
    let workspace = canonical_root(workspace);
    let end = endpoint(runtime, &workspace)?;
    let hello = Hello {
        v: PROTOCOL,
        token: end.token,
        op,
    };
    match say(&end.socket, &hello) {
        Ok((_, reply)) => Ok(reply),
        Err(e) if absent(&e) => Err(HostError::NotRunning(workspace)),
        Err(e) => Err(e.into()),
    }
}

/// No host listens there (no socket, or a socket nobody accepts on: a host that died).
fn absent(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
    )
}

/// Connects, checks that the other end is this user's, sends `hello` and reads the reply line.
fn say(socket: &Path, hello: &Hello) -> std::io::Result<(UnixStream, Reply)> {
    let mut stream = UnixStream::connect(socket)?;
    let peer = rustix::net::sockopt::socket_peercred(&stream)?;
    if peer.uid != rustix::process::getuid() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            "the socket's host belongs to another user",
        ));
    }
    stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT))?;
    stream.set_write_timeout(Some(HANDSHAKE_TIMEOUT))?;
    let mut line = serde_json::to_vec(hello).map_err(std::io::Error::other)?;
    line.push(b'\n');
    stream.write_all(&line)?;
    let line = read_line(&mut stream)?;
    let reply = serde_json::from_slice(&line)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("reply: {e}")))?;
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    Ok((stream, reply))
}

/// One line, byte by byte: nothing after it is consumed (LSP frames follow on the stream).
fn read_line(stream: &mut UnixStream) -> std::io::Result<Vec<u8>> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        if byte[0] == b'\n' {
            return Ok(line);
        }
        if line.len() >= MAX_LINE {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "handshake line too long",
            ));
        }
        line.push(byte[0]);
    }
}

/// Starts the host of `workspace` and waits until it listens on `socket` (its first stdout
/// line says so).
/// It runs in a process group of its own, so a terminal's Ctrl-C to the caller does not reach
/// it, with the caller's environment (it derives every launch from it, as the caller would).
fn start(host: &HostConfig, workspace: &Path, socket: &Path) -> Result<(), HostError> {
    // Its log (`LSPEDIT_LOG`), beside its socket, from its last start.
    let log = std::fs::File::create(socket.with_extension("log"))
        .map_or_else(|_| Stdio::null(), Stdio::from);
    let mut child = Command::new(&host.program)
        .args(&host.args)
        .args(["servers", "host", "--root"])
        .arg(workspace)
        .args(
            host.runtime_dir
                .iter()
                .flat_map(|d| [std::ffi::OsStr::new("--runtime-dir"), d.as_os_str()]),
        )
        .arg("--idle-secs")
        .arg(host.idle.as_secs().max(1).to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .current_dir("/")
        .process_group(0)
        .spawn()
        .map_err(|e| HostError::Start(format!("{}: {e}", host.program.display())))?;
    let stdout = child.stdout.take();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let mut line = String::new();
        if let Some(out) = stdout {
            let _ = BufReader::new(out).read_line(&mut line);
        }
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(START_TIMEOUT);
    // Reaped when it exits, whenever that is (it outlives most callers).
    let started = match &line {
        Ok(l) if l.starts_with("ready") => Ok(()),
        Ok(l) if l.is_empty() => Err(HostError::Start("it exited before listening".into())),
        Ok(l) => Err(HostError::Start(l.trim().to_owned())),
        Err(_) => Err(HostError::Start(format!(
            "not listening after {} s",
            START_TIMEOUT.as_secs()
        ))),
    };
    if started.is_err() {
        let _ = child.kill();
    }
    std::thread::spawn(move || {
        let _ = child.wait();
    });
    started
}
