//! The fake server speaks LSP through tower-lsp: driven over its stdio like a client would,
//! it keeps the protocol's rules (no answers before `initialize`, typed params, the exit code
//! after `shutdown` and `exit`) and the faults scripted below tower-lsp (garbage on stdout, an
//! ignored `exit`).

// Test support panics on failure, like the tests it serves.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use lspedit_fake_lsp::{SCRIPT_ENV, Script};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

/// The fake server as a child, with its messages read on a thread (garbage skipped as a
/// lenient client skips it).
struct Fake {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    /// Bytes before a frame that were no header of it (the garbage).
    noise: Receiver<usize>,
}

impl Fake {
    fn start(script: &Script) -> Fake {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lspedit-fake-lsp"))
            .env(SCRIPT_ENV, script.to_json())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let (tx, messages) = channel();
        let (noise_tx, noise) = channel();
        std::thread::spawn(move || {
            loop {
                let mut len = None;
                let mut junk = 0;
                loop {
                    let mut line = Vec::new();
                    if out.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let text = String::from_utf8_lossy(&line);
                    let text = text.trim_end();
                    if text.is_empty() {
                        if len.is_some() {
                            break;
                        }
                        continue;
                    }
                    match text
                        .strip_prefix("Content-Length: ")
                        .map(str::parse::<usize>)
                    {
                        Some(Ok(n)) => len = Some(n),
                        _ => junk += line.len(),
                    }
                }
                let mut body = vec![0; len.unwrap_or(0)];
                if out.read_exact(&mut body).is_err() {
                    return;
                }
                match serde_json::from_slice::<Value>(&body) {
                    Ok(v) if v.get("jsonrpc").is_some() => {
                        let _ = noise_tx.send(junk);
                        let _ = tx.send(v);
                    }
                    // A frame that is not JSON-RPC is garbage too.
                    _ => {}
                }
            }
        });
        Fake {
            child,
            stdin,
            messages,
            noise,
        }
    }

    fn send(&mut self, msg: Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message the server sends that satisfies `f` (others are dropped).
    fn until(&self, f: impl Fn(&Value) -> bool) -> Value {
        loop {
            let m = self
                .messages
                .recv_timeout(WAIT)
                .expect("the fake server answered in time");
            if f(&m) {
                return m;
            }
        }
    }

    fn response(&self, id: i64) -> Value {
        self.until(|m| m["id"] == id && m.get("method").is_none())
    }

    fn initialize(&mut self) {
        self.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                          "params": { "capabilities": {}, "processId": null, "rootUri": null } }));
        let r = self.response(1);
        assert_eq!(r["result"]["serverInfo"]["name"], "lspedit-fake-lsp", "{r}");
        self.send(json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }));
    }

    fn exit_code(mut self) -> Option<i32> {
        drop(self.stdin);
        self.child.wait().unwrap().code()
    }
}

fn quiet() -> Script {
    Script {
        server_requests: false,
        ..Script::default()
    }
}

#[test]
fn requests_follow_the_protocol_as_tower_lsp_enforces_it() {
    let mut fake = Fake::start(&quiet());
    // Before `initialize`: refused as the protocol says (the hand-written server answered).
    fake.send(
        json!({ "jsonrpc": "2.0", "id": 7, "method": "textDocument/hover",
                      "params": { "textDocument": { "uri": "file:///a.fk" },
                                  "position": { "line": 0, "character": 0 } } }),
    );
    assert_eq!(fake.response(7)["error"]["code"], -32002);
    fake.initialize();
    // Params that are not the method's: invalid params, not a guess.
    fake.send(
        json!({ "jsonrpc": "2.0", "id": 8, "method": "textDocument/hover",
                      "params": { "nonsense": true } }),
    );
    assert_eq!(fake.response(8)["error"]["code"], -32602);
    fake.send(json!({ "jsonrpc": "2.0", "id": 9, "method": "fake/noSuchMethod", "params": {} }));
    assert_eq!(fake.response(9)["error"]["code"], -32601);
    // A push cycle.
    fake.send(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen",
                      "params": { "textDocument": { "uri": "file:///a.fk", "languageId": "fake",
                                                    "version": 3, "text": "ok\nan ERROR\n" } } }));
    let p = fake.until(|m| m["method"] == "textDocument/publishDiagnostics");
    assert_eq!(p["params"]["version"], 3, "{p}");
    assert_eq!(
        p["params"]["diagnostics"][0]["range"]["start"],
        json!({ "line": 1, "character": 3 })
    );
    fake.send(json!({ "jsonrpc": "2.0", "id": 10, "method": "shutdown" }));
    assert!(fake.response(10).get("error").is_none());
    fake.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(fake.exit_code(), Some(0));
}

#[test]
fn exit_without_shutdown_and_end_of_input_exit_one() {
    let mut fake = Fake::start(&quiet());
    fake.initialize();
    fake.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    assert_eq!(fake.exit_code(), Some(1));
    let mut fake = Fake::start(&quiet());
    fake.initialize();
    assert_eq!(fake.exit_code(), Some(1));
}

#[test]
fn server_requests_are_numbered_from_one_in_order() {
    let mut fake = Fake::start(&Script::default());
    fake.initialize();
    let methods: Vec<(i64, String)> = (0..6)
        .map(|_| {
            let m = fake.until(|m| m.get("id").is_some() && m.get("method").is_some());
            (
                m["id"].as_i64().unwrap(),
                m["method"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        methods,
        [
            (1, "workspace/configuration"),
            (2, "client/registerCapability"),
            (3, "window/workDoneProgress/create"),
            (4, "workspace/workspaceFolders"),
            (5, "workspace/diagnostic/refresh"),
            (6, "fake/unknownRequest"),
        ]
        .map(|(id, m)| (id, m.to_owned()))
    );
}

#[test]
fn garbage_precedes_every_frame_and_shutdown_and_exit_can_be_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("fake.log");
    let mut fake = Fake::start(&Script {
        garbage: true,
        ignore_shutdown: true,
        log_file: Some(log.clone()),
        ..quiet()
    });
    fake.initialize();
    assert!(
        fake.noise.recv_timeout(WAIT).unwrap() > 0,
        "garbage before the answer"
    );
    fake.send(json!({ "jsonrpc": "2.0", "id": 2, "method": "shutdown" }));
    fake.send(json!({ "jsonrpc": "2.0", "method": "exit" }));
    // The exit is ignored: the server ends only when its input does, and never answered the
    // shutdown.
    let messages = std::mem::replace(&mut fake.messages, channel().1);
    assert_eq!(fake.exit_code(), Some(1));
    let answered: Vec<Value> = messages.iter().filter(|m| m["id"] == 2).collect();
    assert!(answered.is_empty(), "{answered:?}");
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("notification exit null\n"), "{log}");
    assert!(log.ends_with("eof\n") && !log.contains("\nexit\n"), "{log}");
}
