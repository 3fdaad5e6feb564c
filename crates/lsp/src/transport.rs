//! Byte-level transport between a server process and async-lsp's main loop.
//!
//! async-lsp stops its main loop on the first malformed header or body, and servers do print
//! garbage on stdout (a stray `console.log`, a banner, a crash trace). So the server's stdout
//! goes through [`sanitize`] first: it re-synchronizes on `Content-Length` headers, drops
//! anything that is not a well-formed JSON-RPC message, and hands clean frames to the main loop
//! through a channel, which [`FrameReader`] exposes as the `futures` reader async-lsp wants.
//! [`StdinWriter`] adapts the tokio child stdin to `futures`' writer trait.

use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, BufReader};
use tokio::sync::mpsc;

/// Largest message accepted from a server (rust-analyzer's biggest answers are far below).
const MAX_BODY: usize = 256 * 1024 * 1024;
/// A header line longer than this is garbage.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// Reads framed messages from `input`, forwards only well-formed JSON-RPC frames to `tx`, and
/// returns when the input ends or the receiver is gone. Skipped bytes are logged at debug level.
pub(crate) async fn sanitize<R: AsyncRead + Unpin>(
    server: &str,
    input: R,
    tx: mpsc::Sender<Vec<u8>>,
) {
    let mut reader = BufReader::new(input);
    let mut line = Vec::new();
    let mut content_length: Option<usize> = None;
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_HEADER_LINE as u64)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let trimmed = text.trim_end_matches(['\r', '\n']);
        if trimmed.is_empty() {
            // End of a header block.
            let Some(len) = content_length.take() else {
                continue;
            };
            if len > MAX_BODY {
                tracing::warn!(server, len, "oversized message; skipping header");
                continue;
            }
            let mut body = vec![0u8; len];
            if reader.read_exact(&mut body).await.is_err() {
                return;
            }
            if is_jsonrpc(&body) {
                if tx.send(frame(&body)).await.is_err() {
                    return;
                }
            } else {
                tracing::debug!(
                    server,
                    body = %String::from_utf8_lossy(&body[..body.len().min(200)]),
                    "skipping a frame that is not JSON-RPC"
                );
            }
            continue;
        }
        // A header may be glued to garbage before it ("banner Content-Length: 12").
        let lower = trimmed.to_ascii_lowercase();
        if let Some(at) = lower.find("content-length:") {
            let value = trimmed[at + "content-length:".len()..].trim();
            content_length = value.parse::<usize>().ok();
            if content_length.is_none() {
                tracing::debug!(server, line = %trimmed, "skipping a bad Content-Length");
            }
        } else if content_length.is_some() && is_header(trimmed) {
            // Content-Type and friends.
        } else {
            tracing::debug!(server, line = %trimmed, "skipping non-protocol output");
            content_length = None;
        }
    }
}

/// `body` with its `Content-Length` header: one base-protocol frame.
pub(crate) fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn is_header(line: &str) -> bool {
    line.split_once(": ").is_some_and(|(name, _)| {
        !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    })
}

/// True for a JSON object that async-lsp can route: a request or notification (`method` is a
/// string) or a response (`id` is a number or string with `result` or `error`).
fn is_jsonrpc(body: &[u8]) -> bool {
    let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return false;
    }
    let id_ok = |v: Option<&Value>| matches!(v, Some(Value::Number(_) | Value::String(_)));
    match map.get("method") {
        Some(Value::String(_)) => !map.contains_key("id") || id_ok(map.get("id")),
        Some(_) => false,
        None => {
            id_ok(map.get("id"))
                && (map.contains_key("result")
                    || map
                        .get("error")
                        .is_some_and(|e| e.get("code").is_some_and(Value::is_i64)))
        }
    }
}

/// A `futures` reader over clean frames from [`sanitize`].
pub(crate) struct FrameReader {
    rx: mpsc::Receiver<Vec<u8>>,
    buf: Vec<u8>,
    pos: usize,
}

impl FrameReader {
    pub(crate) fn new(rx: mpsc::Receiver<Vec<u8>>) -> Self {
        Self {
            rx,
            buf: Vec::new(),
            pos: 0,
        }
    }
}

impl futures::io::AsyncRead for FrameReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = &mut *self;
        while this.pos >= this.buf.len() {
            match this.rx.poll_recv(cx) {
                Poll::Ready(Some(frame)) => {
                    this.buf = frame;
                    this.pos = 0;
                }
                // End of input: the server closed stdout (or died).
                Poll::Ready(None) => return Poll::Ready(Ok(0)),
                Poll::Pending => return Poll::Pending,
            }
        }
        let n = out.len().min(this.buf.len() - this.pos);
        out[..n].copy_from_slice(&this.buf[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(n))
    }
}

/// A `futures` writer over a tokio writer (the child's stdin).
pub(crate) struct StdinWriter<W>(pub W);

impl<W: AsyncWrite + Unpin> futures::io::AsyncWrite for StdinWriter<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn frames(input: &'static [u8]) -> Vec<String> {
        let (tx, mut rx) = mpsc::channel(16);
        sanitize("test", input, tx).await;
        let mut out = Vec::new();
        while let Ok(f) = rx.try_recv() {
            let s = String::from_utf8(f).unwrap();
            out.push(s.split("\r\n\r\n").nth(1).unwrap().to_owned());
        }
        out
    }

    #[tokio::test]
    async fn skips_garbage_and_keeps_messages() {
        let input: &'static [u8] = b"hello world\n\
            Content-Length: nope\r\n\r\n\
            Content-Length: 17\r\n\r\n{\"not\":\"jsonrpc\"}\
            \x00\xff junk\r\n\
            banner Content-Length: 41\r\n\r\n{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":1}\
            Content-Length: 36\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\
            Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}";
        let got = frames(input).await;
        assert_eq!(
            got,
            vec![
                "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":1}".to_owned(),
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}".to_owned(),
            ]
        );
    }

    #[test]
    fn jsonrpc_shapes() {
        assert!(is_jsonrpc(br#"{"jsonrpc":"2.0","id":"a","method":"m"}"#));
        assert!(is_jsonrpc(
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"x"}}"#
        ));
        assert!(!is_jsonrpc(br#"{"jsonrpc":"2.0","id":3}"#));
        assert!(!is_jsonrpc(br#"{"jsonrpc":"1.0","method":"m"}"#));
        assert!(!is_jsonrpc(br#"[1,2]"#));
    }
}
