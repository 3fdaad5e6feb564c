//! The MCP server end to end: rmcp's client spawns the real `lspedit mcp` binary over stdio.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

use crate::harness::{Project, TS_SERVERS, bin, have_server, ts_break_patch};

type Client = RunningService<RoleClient, ()>;

async fn connect(root: &std::path::Path, extra: &[&str]) -> Client {
    let root = root.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("mcp").arg("--root").arg(&root).args(&extra);
    }))
    .unwrap();
    ().serve(transport).await.unwrap()
}

async fn call(client: &Client, tool: &'static str, args: serde_json::Value) -> CallToolResult {
    let args: JsonObject = serde_json::from_value(args).unwrap();
    client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_error(r: &CallToolResult) -> bool {
    r.is_error == Some(true)
}

#[tokio::test]
async fn lists_tools_with_teaching_schemas_and_names_itself() {
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &["--no-diagnostics"]).await;

    let info = client.peer_info().unwrap();
    let server = info.server_info.clone().unwrap();
    assert_eq!(server.name, "lspedit");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(info.instructions.as_deref().unwrap().contains("42abcd|"));

    let tools = client.list_all_tools().await.unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "apply_edit",
            "apply_patch",
            "diagnostics",
            "edit",
            "propose_edit",
            "read_file",
            "undo",
            "write_file"
        ]
    );
    let schema = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        assert!(
            tool.description.as_deref().is_some_and(|d| d.len() > 80),
            "{name} has no useful description"
        );
        serde_json::Value::Object(tool.input_schema.as_ref().clone())
    };
    // Field descriptions teach the anchor format, the patch formats and the refusals.
    let patch = schema("apply_patch");
    let patch_doc = patch["properties"]["patch"]["description"]
        .as_str()
        .unwrap();
    for needle in [
        "-42abcd|old text",
        "*** Begin Patch",
        "--- /dev/null",
        "@@ @@",
    ] {
        assert!(patch_doc.contains(needle), "{needle:?} not in {patch_doc}");
    }
    assert_eq!(patch["required"], json!(["patch"]));
    let edit = schema("edit");
    assert!(
        edit["properties"]["old_text"]["description"]
            .as_str()
            .unwrap()
            .contains("WITHOUT the `42abcd|` anchors")
    );
    let apply_desc = tools
        .iter()
        .find(|t| t.name == "apply_patch")
        .and_then(|t| t.description.as_deref())
        .unwrap();
    for reason in [
        "hunk_mismatch",
        "ambiguous_match",
        "truncated_input",
        "path_outside_workspace",
    ] {
        assert!(apply_desc.contains(reason), "{reason} not explained");
    }
    assert_eq!(
        schema("diagnostics")["properties"]["paths"]["type"],
        "array"
    );
    assert_eq!(schema("apply_edit")["required"], json!(["patch_id"]));
    assert_eq!(schema("undo")["required"], json!(["checkpoint_id"]));
    let propose = schema("propose_edit");
    assert!(
        propose["properties"]["scope"]["description"]
            .as_str()
            .unwrap()
            .contains("backend/**/*.go")
    );
    client.cancel().await.unwrap();
}

fn patch_id_in(text: &str) -> String {
    let start = text.find("patch_").expect("a patch id in the text");
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

fn checkpoint_id_in(text: &str) -> String {
    let start = text.find("ckpt_").expect("a checkpoint id in the text");
    text[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// propose_edit → apply_edit → undo over MCP: the proposal changes nothing, the apply answers
/// with the real TypeScript error for the file it wrote, undo restores it; refusals (unknown
/// id, scope limit, bad arguments) are isError results naming the reason.
#[tokio::test]
async fn propose_apply_and_undo_with_real_diagnostics() {
    let real = have_server(TS_SERVERS);
    let project = Project::copy("ts-basic");
    let extra: &[&str] = if real { &[] } else { &["--no-diagnostics"] };
    let client = connect(&project.root, extra).await;
    let before = project.read("src/index.ts");

    let proposed = call(
        &client,
        "propose_edit",
        json!({ "pattern": "const total: number", "replacement": "const total: string", "scope": ["src/**/*.ts"] }),
    )
    .await;
    let t = text(&proposed);
    assert!(!is_error(&proposed), "{t}");
    assert!(t.contains("+const total: string"), "{t}");
    assert_eq!(project.read("src/index.ts"), before, "propose wrote a file");
    let id = patch_id_in(&t);

    let refused = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "max_changed_lines": 1 }),
    )
    .await;
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains("scope_violation"),
        "{}",
        text(&refused)
    );
    let unknown = call(
        &client,
        "apply_edit",
        json!({ "patch_id": "patch_1_00000000" }),
    )
    .await;
    assert!(is_error(&unknown));
    assert!(
        text(&unknown).starts_with("Patch 'patch_1_00000000' not found;"),
        "{}",
        text(&unknown)
    );
    let bad = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "atomicity": "sometimes" }),
    )
    .await;
    assert!(is_error(&bad));
    assert!(text(&bad).contains("per_file"), "{}", text(&bad));
    assert_eq!(project.read("src/index.ts"), before);

    let applied = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "preset": "mission_edit" }),
    )
    .await;
    let t = text(&applied);
    assert!(!is_error(&applied), "{t}");
    assert!(project.read("src/index.ts").contains("const total: string"));
    if real {
        assert!(
            t.contains("LSP errors detected in src/index.ts, please fix:")
                && t.contains("(ts2322)"),
            "{t}"
        );
    }
    let undone = call(
        &client,
        "undo",
        json!({ "checkpoint_id": checkpoint_id_in(&t) }),
    )
    .await;
    assert!(!is_error(&undone), "{}", text(&undone));
    assert_eq!(project.read("src/index.ts"), before);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn every_tool_works_and_refusals_are_is_error_results() {
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &["--no-diagnostics"]).await;

    let read = call(&client, "read_file", json!({ "path": "src/index.ts" })).await;
    assert!(!is_error(&read));
    let view = text(&read);
    assert!(
        view.starts_with("1npng|import { add, greet } from \"./util\";\n"),
        "{view}"
    );

    let applied = call(
        &client,
        "apply_patch",
        json!({ "patch": ts_break_patch(&view) }),
    )
    .await;
    assert!(!is_error(&applied), "{}", text(&applied));
    assert!(
        text(&applied).starts_with("M src/index.ts (1 hunk)"),
        "{}",
        text(&applied)
    );
    assert!(
        project
            .read("src/index.ts")
            .contains("const total: string = add(1, 2);")
    );

    // The same patch again: its anchored removal line is gone. A refusal, not a protocol error.
    let refused = call(
        &client,
        "apply_patch",
        json!({ "patch": ts_break_patch(&view) }),
    )
    .await;
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains("FAILED src/index.ts: hunk_mismatch"),
        "{}",
        text(&refused)
    );

    let outside = call(&client, "read_file", json!({ "path": "../../etc/passwd" })).await;
    assert!(is_error(&outside));
    assert!(
        text(&outside).contains("path_outside_workspace"),
        "{}",
        text(&outside)
    );

    let edited = call(
        &client,
        "edit",
        json!({ "path": "src/index.ts", "old_text": "const total: string", "new_text": "const total: number" }),
    )
    .await;
    assert!(!is_error(&edited), "{}", text(&edited));
    assert!(text(&edited).starts_with("Edited src/index.ts: replaced line 3."));

    let missing = call(
        &client,
        "edit",
        json!({ "path": "src/index.ts", "old_text": "no such text", "new_text": "x" }),
    )
    .await;
    assert!(is_error(&missing));

    let written = call(
        &client,
        "write_file",
        json!({ "path": "src/extra.ts", "content": "export const x = 1;\n" }),
    )
    .await;
    assert!(!is_error(&written), "{}", text(&written));
    assert_eq!(text(&written), "Created src/extra.ts (1 lines).");
    assert_eq!(project.read("src/extra.ts"), "export const x = 1;\n");

    let diags = call(&client, "diagnostics", json!({ "paths": ["src/extra.ts"] })).await;
    assert!(!is_error(&diags));
    assert_eq!(
        text(&diags),
        "src/extra.ts: no diagnostics: diagnostics are turned off for this session."
    );

    // An unknown tool is a protocol error. Arguments off the schema are an isError result the
    // model can correct from (the MCP spec's input-validation rule, as rmcp implements it).
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    let bad = call(&client, "read_file", json!({ "path": 42 })).await;
    assert!(is_error(&bad));
    assert!(text(&bad).contains("expected a string"), "{}", text(&bad));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_typescript_error_comes_back_in_the_tool_result() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &[]).await;
    let view = text(&call(&client, "read_file", json!({ "path": "src/index.ts" })).await);

    let applied = call(
        &client,
        "apply_patch",
        json!({ "patch": ts_break_patch(&view) }),
    )
    .await;
    let t = text(&applied);
    assert!(!is_error(&applied), "{t}");
    assert!(
        t.contains(
            "LSP errors detected in src/index.ts, please fix:\n<diagnostics file=\"src/index.ts\">\nERROR [3:7] Type 'number' is not assignable to type 'string'. (ts2322)\n</diagnostics>"
        ),
        "{t}"
    );

    let diags = call(
        &client,
        "diagnostics",
        json!({ "paths": ["src/index.ts", "src/util.ts"] }),
    )
    .await;
    let d = text(&diags);
    assert!(d.contains("ERROR [3:7]") && d.contains("(ts2322)"), "{d}");
    assert!(d.contains("src/util.ts: no errors ("), "{d}");

    let fixed = call(
        &client,
        "edit",
        json!({ "path": "src/index.ts", "old_text": "const total: string", "new_text": "const total: number" }),
    )
    .await;
    assert!(!text(&fixed).contains("LSP errors"), "{}", text(&fixed));
    client.cancel().await.unwrap();
}

/// Nothing but protocol on stdout: every line the server writes is a JSON-RPC message, even
/// while it starts language servers and answers tool calls.
#[test]
fn stdout_carries_only_json_rpc() {
    let project = Project::copy("ts-basic");
    let mut child = Command::new(bin())
        .args(["mcp", "-vv", "--root"])
        .arg(&project.root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // Logs (-vv) go to stderr; drain it so a full pipe cannot stall the server.
    let mut stderr = child.stderr.take().unwrap();
    let logs = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let requests = [
        json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}),
        json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
        json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/index.ts"}}}),
        json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"diagnostics","arguments":{"paths":["src/index.ts"]}}}),
    ];
    for r in &requests {
        writeln!(stdin, "{r}").unwrap();
    }
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut answered = Vec::new();
    while answered.len() < 3 {
        let line = lines.next().unwrap().unwrap();
        let msg: serde_json::Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("non-protocol line on stdout ({e}): {line:?}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
        if let Some(id) = msg.get("id").and_then(|i| i.as_i64()) {
            assert!(msg.get("result").is_some(), "{line}");
            answered.push(id);
        }
    }
    answered.sort_unstable();
    assert_eq!(answered, [1, 2, 3]);
    drop(stdin);
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    for line in rest {
        serde_json::from_str::<serde_json::Value>(&line)
            .unwrap_or_else(|e| panic!("non-protocol line on stdout ({e}): {line:?}"));
    }
    let status = child.wait().unwrap();
    let logs = logs.join().unwrap();
    assert!(status.success(), "{status:?}\n{logs}");
    assert!(
        logs.contains("MCP server on stdio"),
        "logs belong on stderr:\n{logs}"
    );
}

/// `lspedit mcp` over raw pipes, for bytes no SDK client would send. Lines from stdout arrive
/// through a channel so every wait has a deadline; stderr is drained and kept.
struct Raw {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    lines: std::sync::mpsc::Receiver<String>,
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Raw {
    fn start(root: &std::path::Path, env: &[(&str, &str)]) -> Raw {
        let mut child = Command::new(bin())
            .args(["mcp", "--no-diagnostics", "--root"])
            .arg(root)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut stderr = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
            s
        });
        let mut raw = Raw {
            stdin: child.stdin.take(),
            child,
            lines,
            stderr: Some(stderr),
        };
        raw.send_json(&json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}));
        assert!(raw.reply().get("result").is_some());
        raw.send_json(&json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        raw
    }

    fn send(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    fn send_json(&mut self, v: &serde_json::Value) {
        self.send(format!("{v}\n").as_bytes());
    }

    /// The next message the server writes (30 s deadline: the case gets its reply or fails).
    fn reply(&mut self) -> serde_json::Value {
        let line = self
            .lines
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("no reply from the server ({e})"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The server still serves: a read_file call with `id` is answered.
    fn assert_serving(&mut self, id: i64) {
        self.send_json(&json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"src/util.ts"}}}));
        let r = self.reply();
        assert_eq!(r["id"], id, "{r}");
        assert_eq!(r["result"]["isError"], false, "{r}");
    }

    fn finish(mut self) -> String {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        let logs = self.stderr.take().unwrap().join().unwrap();
        assert!(status.success(), "{status:?}\n{logs}");
        logs
    }
}

#[track_caller]
fn assert_error(r: &serde_json::Value, id: serde_json::Value, code: i64, needle: &str) {
    assert_eq!(r["jsonrpc"], "2.0", "{r}");
    assert_eq!(r["id"], id, "{r}");
    assert_eq!(r["error"]["code"], code, "{r}");
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains(needle), "{needle:?} not in {message:?}");
}

/// Regression: a message over the size limit was dropped with a log line and no reply, so the
/// client waited forever. Now it is answered with the limit named (with its id whether the id
/// comes first or last, as the TypeScript SDK writes it; `null` when there is none), the rest of
/// the line is discarded, and the server goes on serving.
#[test]
fn a_message_over_the_size_limit_is_answered_and_the_server_keeps_serving() {
    let project = Project::copy("ts-basic");
    let mut raw = Raw::start(&project.root, &[("LSPEDIT_MCP_MAX_MESSAGE_BYTES", "65536")]);
    let big = "x".repeat(200_000);
    let id_first = json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":big}}});
    raw.send_json(&id_first);
    assert_error(
        &raw.reply(),
        json!(7),
        -32600,
        "limit of 65536 bytes (64 KiB)",
    );
    let id_last = format!(
        r#"{{"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"big.txt","content":"{big}"}}}},"jsonrpc":"2.0","id":"req-8"}}"#
    );
    raw.send(format!("{id_last}\n").as_bytes());
    assert_error(
        &raw.reply(),
        json!("req-8"),
        -32600,
        "LSPEDIT_MCP_MAX_MESSAGE_BYTES",
    );
    // No id to recover (and no newline yet: the tail arrives in another write).
    raw.send(format!("{{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"{big}").as_bytes());
    raw.send(b"\"}\n");
    assert_error(&raw.reply(), serde_json::Value::Null, -32600, "64 KiB");
    raw.assert_serving(9);
    assert!(!project.root.join("big.txt").exists());
    let logs = raw.finish();
    assert!(logs.contains("size limit"), "{logs}");
}

/// The default limit (16 MiB) is the one the report named: a 17 MiB request gets its answer.
#[test]
fn the_default_limit_is_16_mib() {
    let project = Project::copy("ts-basic");
    let mut raw = Raw::start(&project.root, &[]);
    let big = "y".repeat(17 * 1024 * 1024);
    raw.send_json(&json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"big.txt","content":big}}}));
    assert_error(&raw.reply(), json!(3), -32600, "16 MiB");
    raw.assert_serving(4);
    raw.finish();
}

/// Regression: malformed JSON got no reply, and `"arguments": "str"` got -32601 (method not
/// found). JSON-RPC's codes now: -32700 with a null id, -32602 naming the field, -32600 for
/// JSON that is no JSON-RPC message; each case answered, the server serving after.
#[test]
fn protocol_errors_get_their_json_rpc_codes() {
    let project = Project::copy("ts-basic");
    let mut raw = Raw::start(&project.root, &[]);
    raw.send(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\n");
    assert_error(&raw.reply(), serde_json::Value::Null, -32700, "Parse error");
    raw.send(b"not json at all\n");
    assert_error(&raw.reply(), serde_json::Value::Null, -32700, "Parse error");
    raw.send_json(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":"src/util.ts"}}));
    assert_error(
        &raw.reply(),
        json!(2),
        -32602,
        "`params.arguments` must be an object",
    );
    raw.send_json(
        &json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":["read_file"]}}),
    );
    assert_error(&raw.reply(), json!(3), -32602, "`params.name`");
    raw.send_json(&json!({"jsonrpc":"2.0","id":4}));
    assert_error(&raw.reply(), json!(4), -32600, "Invalid Request");
    raw.send_json(&json!([1, 2]));
    assert_error(
        &raw.reply(),
        serde_json::Value::Null,
        -32600,
        "Invalid Request",
    );
    // A notification with bad params is not answered (JSON-RPC), and does not stop the server.
    raw.send_json(
        &json!({"jsonrpc":"2.0","method":"tools/call","params":{"name":"read_file","arguments":1}}),
    );
    raw.send(b"\r\n\n");
    raw.assert_serving(5);
    raw.finish();
}
