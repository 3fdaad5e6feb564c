//! Below tower-lsp: the bytes between the client and the server.
//!
//! tower-lsp owns the protocol (framing, request routing, ids of the server's own requests,
//! cancellation); the faults that are about the stream itself cannot be written through it, so
//! they live here, on two pumps between the process's stdio and tower-lsp's:
//!
//! - **in** (stdin → tower-lsp): reads frames as a lenient client would write them, logs every
//!   message as it arrives (`request <method> <id>`, `notification <method> <params>`,
//!   `response <message>`: what the tests read), drops `exit` when the script ignores shutdown
//!   (tower-lsp would otherwise end the server on it), and stops reading for good once the
//!   server hangs ([`Control::hang`]).
//! - **out** (tower-lsp → stdout): writes each frame tower-lsp produces, preceded by garbage
//!   (non-protocol text, a bad header, a frame that is not JSON-RPC, raw bytes) when the script
//!   asks for it, and counts the `publishDiagnostics` it has written, so the server can wait for
//!   a publish to be on the wire before it answers a request ([`Control::wait_published`]):
//!   tower-lsp interleaves its responses and the server's own messages in no fixed order.

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::watch;

/// The log file of [`crate::Script::log_file`]: one line per event, flushed at once.
pub(crate) struct Log(Mutex<Option<std::fs::File>>);

impl Log {
    pub(crate) fn open(path: Option<&Path>) -> Log {
        Log(Mutex::new(path.and_then(|p| {
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)
                .ok()
        })))
    }

    pub(crate) fn line(&self, line: &str) {
        use std::io::Write;
        if let Some(f) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_mut()
        {
            let _ = writeln!(f, "{line}");
            let _ = f.flush();
        }
    }
}

/// What the pumps and the server share.
pub(crate) struct Control {
    ignore_shutdown: bool,
    /// An `exit` was passed on to tower-lsp.
    exit_seen: AtomicBool,
    /// The server answered `shutdown`.
    pub(crate) shutdown_answered: AtomicBool,
    hung: watch::Sender<bool>,
    /// The in pump reached the end of input.
    input_closed: watch::Sender<bool>,
    published: watch::Sender<u64>,
}

impl Control {
    pub(crate) fn new(ignore_shutdown: bool) -> Control {
        Control {
            ignore_shutdown,
            exit_seen: AtomicBool::new(false),
            shutdown_answered: AtomicBool::new(false),
            hung: watch::Sender::new(false),
            input_closed: watch::Sender::new(false),
            published: watch::Sender::new(0),
        }
    }

    pub(crate) fn exit_seen(&self) -> bool {
        self.exit_seen.load(Ordering::SeqCst)
    }

    /// The server hangs: the in pump reads nothing more, ever.
    pub(crate) fn hang(&self) {
        self.hung.send_replace(true);
    }

    /// Waits until the client closed the server's input.
    pub(crate) async fn input_closed(&self) {
        let mut rx = self.input_closed.subscribe();
        let _ = rx.wait_for(|closed| *closed).await;
    }

    /// Waits until `count` `publishDiagnostics` have been written to stdout (or the out pump
    /// ended).
    pub(crate) async fn wait_published(&self, count: u64) {
        let mut rx = self.published.subscribe();
        let _ = rx.wait_for(|n| *n >= count).await;
    }
}

/// Reads one message: headers up to an empty line, then `Content-Length` bytes. Lines that are
/// no header, frames without a length and bodies that are not JSON are skipped. `None` at the
/// end of input.
async fn read_message<R: AsyncBufRead + Unpin>(input: &mut R) -> io::Result<Option<Value>> {
    loop {
        let mut len = None;
        loop {
            let mut line = String::new();
            if input.read_line(&mut line).await? == 0 {
                return Ok(None);
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                len = value.trim().parse::<usize>().ok();
            }
        }
        let Some(len) = len else { continue };
        let mut body = vec![0u8; len];
        input.read_exact(&mut body).await?;
        if let Ok(value) = serde_json::from_slice(&body) {
            return Ok(Some(value));
        }
    }
}

async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> io::Result<()> {
    out.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    out.write_all(body).await?;
    out.flush().await
}

/// The in pump: `stdin` → `server` (see the module documentation). Ends at the end of input,
/// closing `server`'s input; never while the server hangs.
pub(crate) async fn pump_in<R, W>(stdin: R, mut server: W, log: &Log, control: &Control)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = tokio::io::BufReader::new(stdin);
    let mut hung = control.hung.subscribe();
    loop {
        let msg = tokio::select! {
            biased;
            _ = hung.wait_for(|h| *h) => None,
            msg = read_message(&mut input) => Some(msg),
        };
        let Some(msg) = msg else {
            // Hung: read nothing more, ever.
            return std::future::pending().await;
        };
        let Ok(Some(msg)) = msg else { break };
        let is_hung = *hung.borrow();
        if is_hung {
            // A hung server reads nothing more: this message is neither logged nor passed on.
            std::future::pending::<()>().await;
        }
        let method = msg.get("method").and_then(Value::as_str);
        match (method, msg.get("id")) {
            (None, _) => log.line(&format!("response {msg}")),
            (Some(m), Some(id)) => log.line(&format!("request {m} {id}")),
            (Some(m), None) => log.line(&format!(
                "notification {m} {}",
                msg.get("params").unwrap_or(&Value::Null)
            )),
        }
        if method == Some("exit") {
            if control.ignore_shutdown {
                continue;
            }
            control.exit_seen.store(true, Ordering::SeqCst);
        }
        if write_frame(&mut server, msg.to_string().as_bytes())
            .await
            .is_err()
        {
            break;
        }
    }
    control.input_closed.send_replace(true);
    let _ = server.shutdown().await;
}

/// The out pump: `server` → `stdout` (see the module documentation). Ends when tower-lsp's
/// output closes.
pub(crate) async fn pump_out<R, W>(server: R, mut stdout: W, garbage: bool, control: &Control)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = tokio::io::BufReader::new(server);
    while let Ok(Some(msg)) = read_message(&mut input).await {
        if garbage {
            // Non-protocol text, a header with a bad length, and a frame whose body is not
            // JSON-RPC: a client must skip all of it and keep the stream.
            let junk = "{\"not\":\"jsonrpc\"}";
            let noise = format!(
                "garbage: not a header at all\nContent-Length: nope\r\n\r\nContent-Length: {}\r\n\r\n{junk}",
                junk.len()
            );
            if stdout.write_all(noise.as_bytes()).await.is_err()
                || stdout
                    .write_all(b"\x00\xff random bytes\r\n")
                    .await
                    .is_err()
            {
                break;
            }
        }
        if write_frame(&mut stdout, msg.to_string().as_bytes())
            .await
            .is_err()
        {
            break;
        }
        if msg.get("method").and_then(Value::as_str) == Some("textDocument/publishDiagnostics") {
            control.published.send_modify(|n| *n += 1);
        }
    }
    // Nothing more will be written: release whoever waits for a publish.
    control.published.send_replace(u64::MAX);
}
