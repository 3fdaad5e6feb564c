//! The stdio transport: newline-delimited JSON-RPC with a size limit and the protocol errors
//! JSON-RPC 2.0 asks for.
//!
//! rmcp's own stdio transport drops a line over its limit with a log line and no answer (the
//! client waits forever), ignores malformed JSON without the `-32700` reply, and routes a
//! `tools/call` whose `arguments` is not an object to "method not found". This transport frames
//! the lines itself and answers each of those cases on the same stdout rmcp writes to, one whole
//! line per message under one lock, so replies never interleave:
//!
//! - a line over the limit: `-32600` naming the limit, with the request's id when it could be
//!   read while the line streamed past (else `null`). The line is never buffered past the limit:
//!   the rest is read and thrown away up to its newline.
//! - malformed JSON: `-32700 Parse error`, id `null`.
//! - well-formed JSON that is not a JSON-RPC message: `-32600 Invalid Request`.
//! - `tools/call` with `params.name` not a string or `params.arguments` not an object:
//!   `-32602 Invalid params` naming the field.
//!
//! Notifications (no id) are never answered, except where JSON-RPC requires a `null`-id reply
//! (a line whose id could not be determined).

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// Default limit on one incoming message (one line), in bytes: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Newline-delimited JSON-RPC over a reader and a writer (stdin and stdout for `lspedit mcp`).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// An oversized line was answered; its remaining bytes are skipped up to the newline.
    /// Kept on the struct: `receive` is cancelled and re-polled by rmcp's service loop.
    discarding: bool,
    /// Finds the top-level `"id"` of the current line while it streams past, so an oversized
    /// request can be answered with its own id without keeping its bytes.
    id: IdScanner,
    write: Arc<Mutex<W>>,
    /// Error replies still being written; awaited at end of input so a client that sends a
    /// bad last line and closes stdin still gets its answer.
    pending: Vec<tokio::task::JoinHandle<()>>,
}

impl<R, W> std::fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("max", &self.max)
            .finish_non_exhaustive()
    }
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport that accepts messages of at most `max_message_bytes` bytes (the newline
    /// excluded).
    pub fn new(read: R, write: W, max_message_bytes: usize) -> LineTransport<R, W> {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            max: max_message_bytes,
            discarding: false,
            id: IdScanner::default(),
            write: Arc::new(Mutex::new(write)),
            pending: Vec::new(),
        }
    }

    /// Reads up to the next newline. `Ok(true)`: a whole line is in `self.line`;
    /// `Ok(false)`: end of input. An oversized line is answered here and skipped.
    /// Cancel-safe: between awaits every byte consumed is recorded in `self`.
    async fn next_line(&mut self) -> std::io::Result<bool> {
        loop {
            let (consumed, done) = {
                let available = self.read.fill_buf().await?;
                if available.is_empty() {
                    return Ok(false);
                }
                let newline = available.iter().position(|b| *b == b'\n');
                let chunk = match newline {
                    Some(i) => &available[..i],
                    None => available,
                };
                self.id.feed(chunk);
                if !self.discarding {
                    if self.line.len() + chunk.len() > self.max {
                        self.discarding = true;
                        self.line = Vec::new();
                    } else {
                        self.line.extend_from_slice(chunk);
                    }
                }
                (
                    chunk.len() + usize::from(newline.is_some()),
                    newline.is_some(),
                )
            };
            self.read.consume(consumed);
            if !done {
                continue;
            }
            let id = std::mem::take(&mut self.id).finish();
            if self.discarding {
                self.discarding = false;
                tracing::warn!(
                    limit = self.max,
                    "refused an incoming message over the size limit"
                );
                let message = format!(
                    "Invalid Request: the message is larger than the limit of {} bytes ({}); \
                     send smaller messages, or raise the limit with LSPEDIT_MCP_MAX_MESSAGE_BYTES",
                    self.max,
                    human_size(self.max)
                );
                self.reply_error(id.unwrap_or(Value::Null), INVALID_REQUEST, &message);
                continue;
            }
            return Ok(true);
        }
    }

    /// Sends a JSON-RPC error reply on its own task: `receive` is cancelled whenever rmcp's
    /// service loop has something else to do, and a reply cancelled half-written would leave a
    /// broken line on stdout.
    fn reply_error(&mut self, id: Value, code: i64, message: &str) {
        let reply = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": code, "message": message },
        });
        let write = Arc::clone(&self.write);
        self.pending.retain(|h| !h.is_finished());
        self.pending.push(tokio::spawn(async move {
            if let Err(e) = write_line(&write, &reply).await {
                tracing::error!("cannot write an error reply to stdout: {e}");
            }
        }));
    }

    /// Waits until every error reply is written. Cancel-safe: a handle leaves the list only
    /// once its task is done.
    async fn flush_replies(&mut self) {
        while let Some(last) = self.pending.last_mut() {
            if let Err(e) = last.await {
                tracing::error!("an error reply task failed: {e}");
            }
            self.pending.pop();
        }
    }

    /// The message in `line`, or the protocol error it gets (already sent).
    fn decode(&mut self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleServer>> {
        let line = line.strip_prefix(UTF8_BOM).unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return None;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!("malformed JSON on stdin: {e}");
                self.reply_error(Value::Null, PARSE_ERROR, &format!("Parse error: {e}"));
                return None;
            }
        };
        let id = value.get("id").filter(|id| is_valid_id(id)).cloned();
        if let Some(problem) = invalid_params(&value) {
            if let Some(id) = id {
                self.reply_error(id, INVALID_PARAMS, &format!("Invalid params: {problem}"));
            }
            return None;
        }
        let is_notification = value.is_object() && value.get("id").is_none();
        let method = value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
            Ok(msg) => Some(msg),
            // A notification nobody can answer (an unknown or non-MCP one, as rmcp's own
            // transport ignores them): nothing to reply to.
            Err(e) if is_notification && method.is_some() => {
                tracing::debug!(?method, "ignored a notification: {e}");
                None
            }
            Err(e) => {
                self.reply_error(
                    id.unwrap_or(Value::Null),
                    INVALID_REQUEST,
                    &format!("Invalid Request: not a JSON-RPC 2.0 message this server reads: {e}"),
                );
                None
            }
        }
    }
}

/// Writes `value` as one line, under the writer's lock, and flushes.
async fn write_line<W, T>(write: &Mutex<W>, value: &T) -> std::io::Result<()>
where
    W: AsyncWrite + Unpin,
    T: serde::Serialize,
{
    let mut bytes = serde_json::to_vec(value)?;
    bytes.push(b'\n');
    let mut w = write.lock().await;
    w.write_all(&bytes).await?;
    w.flush().await
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.is_number()
}

/// Why the params of a `tools/call` do not fit, naming the field; `None` when they do (or the
/// message is another method, left to rmcp).
fn invalid_params(msg: &Value) -> Option<String> {
    if msg.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let Some(params) = msg.get("params") else {
        return Some(
            "`params` is missing; tools/call needs `{\"name\": ..., \"arguments\": {...}}`".into(),
        );
    };
    let Some(params) = params.as_object() else {
        return Some(format!("`params` must be an object, not {}", kind(params)));
    };
    match params.get("name") {
        Some(Value::String(_)) => {}
        Some(other) => {
            return Some(format!(
                "`params.name` must be a string, not {}",
                kind(other)
            ));
        }
        None => return Some("`params.name` is missing: the name of the tool to call".into()),
    }
    match params.get("arguments") {
        None | Some(Value::Null) | Some(Value::Object(_)) => None,
        Some(other) => Some(format!(
            "`params.arguments` must be an object of the tool's arguments (e.g. {{\"path\": \"src/main.ts\"}}), not {}",
            kind(other)
        )),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn human_size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    const KIB: usize = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} B")
    }
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = Arc::clone(&self.write);
        async move { write_line(&write, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await {
                Ok(true) => {}
                Ok(false) => {
                    self.flush_replies().await;
                    return None;
                }
                Err(e) => {
                    tracing::error!("cannot read stdin: {e}");
                    self.flush_replies().await;
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            let decoded = self.decode(&line);
            // Keep the allocation for the next line (it is at most the limit).
            self.line = line;
            self.line.clear();
            if let Some(msg) = decoded {
                return Some(msg);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.flush_replies().await;
        self.write.lock().await.flush().await
    }
}

/// Finds the value of the top-level `"id"` key of a JSON object fed in chunks, in constant
/// memory: a tokenizer that tracks strings and nesting depth and keeps only the key being read
/// at depth 1 and, after an `"id"` key, its (short) value.
#[derive(Default)]
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    /// The last key read at depth 1 was `id` and its `:` was seen: capturing the value.
    capturing: bool,
    value: Vec<u8>,
    found: Option<Vec<u8>>,
    /// Not a JSON object, or the id was longer than any sane id: give up.
    dead: bool,
}

/// Longest key or id value kept.
const ID_CAP: usize = 256;

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.dead || self.found.is_some() {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.capturing {
            let ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if ends {
                self.capturing = false;
                self.found = Some(std::mem::take(&mut self.value));
                return;
            }
            if self.value.len() >= ID_CAP {
                self.dead = true;
                return;
            }
            self.value.push(b);
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                self.reading_key = false;
                return;
            }
            if self.reading_key {
                if self.key.len() >= ID_CAP {
                    self.key.clear();
                    self.reading_key = false;
                } else {
                    self.key.push(b);
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.reading_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && b == b'[' {
                    self.dead = true;
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expect_key = true,
            b':' if self.depth == 1 && self.key == b"id" => {
                self.key.clear();
                self.capturing = true;
                self.value.clear();
            }
            b':' if self.depth == 1 => self.key.clear(),
            _ => {
                if self.depth == 0 && !b.is_ascii_whitespace() {
                    self.dead = true;
                }
            }
        }
    }

    /// The id, if the line had a valid one (a string or a number); the scanner is spent.
    fn finish(self) -> Option<Value> {
        let raw = self.found?;
        serde_json::from_slice::<Value>(&raw)
            .ok()
            .filter(is_valid_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(chunks: &[&str]) -> Option<Value> {
        let mut s = IdScanner::default();
        for c in chunks {
            s.feed(c.as_bytes());
        }
        s.finish()
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            scan(&[r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#]),
            Some(json!(7))
        );
        // The TypeScript SDK writes the id last.
        assert_eq!(
            scan(&[r#"{"method":"x","params":{"id":1,"a":"}"},"jsonrpc":"2.0","id":"r-9"}"#]),
            Some(json!("r-9"))
        );
        // Split across chunks anywhere.
        assert_eq!(
            scan(&[r#"{"params":{"t":"\"id\":3"},"i"#, r#"d" :  42 , "x":1}"#]),
            Some(json!(42))
        );
    }

    #[test]
    fn nested_or_missing_or_odd_ids_are_none() {
        assert_eq!(scan(&[r#"{"params":{"id":5},"method":"x"}"#]), None);
        assert_eq!(scan(&[r#"{"method":"notifications/x"}"#]), None);
        assert_eq!(scan(&[r#"{"id":{"a":1},"method":"x"}"#]), None);
        assert_eq!(scan(&[r#"{"id":null,"method":"x"}"#]), None);
        assert_eq!(scan(&[r#"[{"id":1}]"#]), None);
        assert_eq!(scan(&["not json"]), None);
    }

    #[test]
    fn tools_call_params_are_checked_by_field() {
        let check = |v: Value| invalid_params(&v);
        assert!(
            check(json!({"method":"tools/call","params":{"name":"x","arguments":"s"}}))
                .is_some_and(|m| m.contains("`params.arguments`"))
        );
        assert!(
            check(json!({"method":"tools/call","params":{"name":3}}))
                .is_some_and(|m| m.contains("`params.name`"))
        );
        assert_eq!(
            check(json!({"method":"tools/call","params":{"name":"x"}})),
            None
        );
        assert_eq!(
            check(json!({"method":"tools/call","params":{"name":"x","arguments":{}}})),
            None
        );
        assert_eq!(check(json!({"method":"tools/list","params":"s"})), None);
    }

    #[test]
    fn sizes_are_named_in_the_unit_they_were_given_in() {
        assert_eq!(human_size(DEFAULT_MAX_MESSAGE_BYTES), "16 MiB");
        assert_eq!(human_size(4096), "4 KiB");
        assert_eq!(human_size(1000), "1000 B");
    }
}
