//! Issue 47 over MCP: the operator's word binds every writer, not only `apply_edit`. Each test
//! drives the real `lspedit mcp` binary with rmcp's client: for every tool that writes
//! (`edit`, `write_file`, `apply_patch`, `undo`; with a TypeScript server the symbol edits and
//! `rename_symbol`; `apply_code_action` with the scripted fake server, declared in a trusted
//! workspace config, whose action edits one file and creates another) × (limit exceeded,
//! forbidden operation, `approve = deny`, elicitation declined, elicitation unsupported under
//! an explicit `elicit`): nothing is written and the refusal says why. And the defaults stay
//! usable: with nothing set, the direct writers write without asking anyone.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationCapability, JsonObject,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::harness::{Project, TS_SERVERS, bin, have_server};
use crate::mcp::{is_error, text};

/// A client that declares MCP elicitation or not; when it does, it answers every request with
/// `action` and keeps the messages it was shown.
#[derive(Clone)]
struct Client {
    elicits: bool,
    action: &'static str,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Client {
    fn plain() -> Client {
        Client {
            elicits: false,
            action: "decline",
            asked: Arc::default(),
        }
    }

    fn person(action: &'static str) -> Client {
        Client {
            elicits: true,
            action,
            asked: Arc::default(),
        }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Client {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let shown = serde_json::to_value(&request).unwrap();
        self.asked
            .lock()
            .unwrap()
            .push(shown["message"].as_str().unwrap_or_default().to_string());
        Ok(serde_json::from_value(json!({ "action": self.action })).unwrap())
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        if self.elicits {
            info.capabilities.elicitation = Some(ElicitationCapability::new());
        }
        info
    }
}

type Session = RunningService<RoleClient, Client>;

async fn open(root: &std::path::Path, flags: &[&str], client: &Client) -> Session {
    let root = root.to_path_buf();
    let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("mcp").arg("--root").arg(&root).args(&flags);
    }))
    .unwrap();
    client.clone().serve(transport).await.unwrap()
}

async fn call(session: &Session, tool: &str, args: &Value) -> CallToolResult {
    let args: JsonObject = serde_json::from_value(args.clone()).unwrap();
    session
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args))
        .await
        .unwrap()
}

fn reason(r: &CallToolResult) -> String {
    let s = r
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structuredContent: {r:?}"));
    s["reason"].as_str().unwrap_or_default().to_string()
}

/// One way the operator constrains the writers, and what a refused write must say.
struct Case {
    name: &'static str,
    flags: &'static [&'static str],
    client: fn() -> Client,
    reason: &'static str,
    says: &'static str,
}

/// Every case but the forbidden operation (which depends on what the write does).
const CASES: &[Case] = &[
    Case {
        name: "limit exceeded",
        flags: &["--max-changed-lines", "1"],
        client: Client::plain,
        reason: "scope_violation",
        says: "allows at most 1",
    },
    Case {
        name: "approve deny",
        flags: &["--approve", "deny"],
        client: || Client::person("accept"),
        reason: "approval_required",
        says: "approve = \"deny\"",
    },
    Case {
        name: "elicitation declined",
        flags: &["--approve", "elicit"],
        client: || Client::person("decline"),
        reason: "approval_required",
        says: "the user declined",
    },
    Case {
        name: "elicitation unsupported",
        flags: &["--approve", "elicit"],
        client: Client::plain,
        reason: "approval_required",
        says: "did not declare the `elicitation` capability",
    },
];

/// The case of an operation the operator forbids (`flags`), for a client that cannot be asked.
fn forbidden(name: &'static str, flags: &'static [&'static str]) -> Case {
    Case {
        name,
        flags,
        client: Client::plain,
        reason: "unsafe_diff",
        says: "forbids",
    }
}

/// A file of two lines; each core write below changes its first line (+1 -1: two changed
/// lines, over a limit of 1).
const A: &str = "one\ntwo\n";

fn core_writes() -> Vec<(&'static str, Value)> {
    vec![
        (
            "edit",
            json!({ "path": "a.txt", "old_text": "one", "new_text": "uno" }),
        ),
        (
            "write_file",
            json!({ "path": "a.txt", "content": "uno\ntwo\n" }),
        ),
        (
            "apply_patch",
            json!({ "patch": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n two\n*** End Patch\n" }),
        ),
    ]
}

/// Regression (issue 47): with `--approve deny` (or any limit) the model simply wrote the file
/// with `edit`, `write_file` or `apply_patch`. Each is now refused, nothing written.
#[tokio::test]
async fn every_core_writer_is_bound_by_the_operators_policy() {
    for case in CASES {
        for (tool, args) in core_writes() {
            let project = Project::with_files(&[("a.txt", A)]);
            let client = (case.client)();
            let session = open(
                &project.root,
                &[&["--no-diagnostics"], case.flags].concat(),
                &client,
            )
            .await;
            let told = session.peer_info().unwrap().instructions.clone().unwrap();
            assert!(
                told.contains("also binds every tool that writes"),
                "{}: the model is not told: {told}",
                case.name
            );
            let r = call(&session, tool, &args).await;
            let t = text(&r);
            assert!(is_error(&r), "{}: {tool} wrote: {t}", case.name);
            assert_eq!(reason(&r), case.reason, "{}: {tool}: {t}", case.name);
            assert!(t.contains(case.says), "{}: {tool}: {t}", case.name);
            assert_eq!(project.read("a.txt"), A, "{}: {tool} wrote", case.name);
            if case.name == "elicitation declined" {
                let asked = client.asked();
                assert_eq!(asked.len(), 1, "{tool}: {asked:?}");
                assert!(
                    asked[0].starts_with(&format!("Apply {tool} to a.txt?"))
                        && asked[0].contains("-one")
                        && asked[0].contains("+uno"),
                    "the person must see what will change: {}",
                    asked[0]
                );
            }
            session.cancel().await.unwrap();
        }
    }
}

/// The forbidden operations bind the writers that can perform them: `write_file` and
/// `apply_patch` creating a file under `--forbid create`, `apply_patch` deleting one under
/// `--forbid delete` and moving one under `--forbid rename`.
#[tokio::test]
async fn forbidden_operations_bind_the_core_writers() {
    let add = "*** Begin Patch\n*** Add File: new.txt\n+new\n*** End Patch\n";
    let delete = "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n";
    let rename = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-one\n+uno\n two\n*** End Patch\n";
    let writes = [
        (
            "create",
            "write_file",
            json!({ "path": "new.txt", "content": "new\n" }),
        ),
        ("create", "apply_patch", json!({ "patch": add })),
        ("delete", "apply_patch", json!({ "patch": delete })),
        ("rename", "apply_patch", json!({ "patch": rename })),
    ];
    for (op, tool, args) in writes {
        let project = Project::with_files(&[("a.txt", A)]);
        let client = Client::plain();
        let session = open(
            &project.root,
            &["--no-diagnostics", "--forbid", op],
            &client,
        )
        .await;
        let r = call(&session, tool, &args).await;
        let t = text(&r);
        assert!(is_error(&r), "{op}: {tool} wrote: {t}");
        assert_eq!(reason(&r), "unsafe_diff", "{op}: {tool}: {t}");
        assert!(t.contains("forbids"), "{op}: {tool}: {t}");
        assert_eq!(project.read("a.txt"), A, "{op}: {tool}");
        assert!(!project.root.join("new.txt").exists(), "{op}: {tool}");
        assert!(!project.root.join("b.txt").exists(), "{op}: {tool}");
        session.cancel().await.unwrap();
    }
}

/// The defaults stay usable: with nothing set, the direct writers write without asking, even
/// a client that could ask (the seeds' 3 files / 100 lines / no create belong to
/// `apply_edit`); an explicit `elicit` that the person accepts writes.
#[tokio::test]
async fn the_defaults_do_not_bind_the_direct_writers_and_an_accepted_write_lands() {
    for (flags, client) in [
        (&[][..], Client::person("decline")),
        (&["--approve", "elicit"][..], Client::person("accept")),
    ] {
        let project = Project::with_files(&[("a.txt", A)]);
        let session = open(
            &project.root,
            &[&["--no-diagnostics"], flags].concat(),
            &client,
        )
        .await;
        let created = call(
            &session,
            "write_file",
            &json!({ "path": "new.txt", "content": "1\n2\n3\n4\n" }),
        )
        .await;
        assert!(!is_error(&created), "{flags:?}: {}", text(&created));
        for (tool, args) in core_writes() {
            std::fs::write(project.root.join("a.txt"), A).unwrap();
            let r = call(&session, tool, &args).await;
            assert!(!is_error(&r), "{flags:?}: {tool}: {}", text(&r));
            assert_eq!(project.read("a.txt"), "uno\ntwo\n", "{flags:?}: {tool}");
        }
        let asked = client.asked().len();
        assert_eq!(asked, if flags.is_empty() { 0 } else { 4 }, "{flags:?}");
        let told = session.peer_info().unwrap().instructions.clone().unwrap();
        assert_eq!(
            told.contains("also binds every tool that writes"),
            !flags.is_empty(),
            "{flags:?}: {told}"
        );
        session.cancel().await.unwrap();
    }
}

/// `undo` writes too: restoring a checkpoint is judged like any write. The checkpoint comes
/// from an `apply_edit` in a session that allowed it; the undo, in one under each case (and
/// undoing a created file, a deletion, under `--forbid delete`), restores nothing.
#[tokio::test]
async fn undo_is_bound_by_the_operators_policy() {
    let checkpoint = |project: &Project, patch: &'static str| {
        let root = project.root.clone();
        async move {
            let client = Client::plain();
            let session = open(&root, &["--no-diagnostics", "--forbid", "none"], &client).await;
            let proposed = call(&session, "propose_edit", &json!({ "patch": patch })).await;
            assert!(!is_error(&proposed), "{}", text(&proposed));
            let id = proposed.structured_content.as_ref().unwrap()["patch_id"].clone();
            let applied = call(&session, "apply_edit", &json!({ "patch_id": id })).await;
            assert!(!is_error(&applied), "{}", text(&applied));
            let ckpt = applied.structured_content.as_ref().unwrap()["checkpoint_id"].clone();
            session.cancel().await.unwrap();
            ckpt
        }
    };
    let modify = "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+uno\n two\n*** End Patch\n";
    let create = "*** Begin Patch\n*** Add File: new.txt\n+new\n*** End Patch\n";
    let forbid_delete = forbidden("forbidden delete", &["--forbid", "delete"]);
    for case in CASES.iter().chain([&forbid_delete]) {
        let project = Project::with_files(&[("a.txt", A)]);
        let patch = if case.name == "forbidden delete" {
            create
        } else {
            modify
        };
        let ckpt = checkpoint(&project, patch).await;
        let before = (project.read("a.txt"), project.root.join("new.txt").exists());
        let client = (case.client)();
        let session = open(
            &project.root,
            &[&["--no-diagnostics"], case.flags].concat(),
            &client,
        )
        .await;
        let r = call(&session, "undo", &json!({ "checkpoint_id": ckpt })).await;
        let t = text(&r);
        assert!(is_error(&r), "{}: undo restored: {t}", case.name);
        assert_eq!(reason(&r), case.reason, "{}: {t}", case.name);
        assert!(t.contains(case.says), "{}: {t}", case.name);
        let after = (project.read("a.txt"), project.root.join("new.txt").exists());
        assert_eq!(after, before, "{}: undo restored something", case.name);
        session.cancel().await.unwrap();
    }
}

const CART: &str = "export class Cart {\n  items: number[] = [];\n\n  total(): number {\n    return this.items.length;\n  }\n}\n";

/// Regression (issue 47): `replace_symbol_body`, `insert_before_symbol`,
/// `insert_after_symbol` and `rename_symbol` applied under `approve = deny` and when the
/// person declined. With a TypeScript server: each, under each case, writes nothing.
#[tokio::test]
async fn the_language_server_edits_are_bound_by_the_operators_policy() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let body =
        |name: &str, body: &str| json!({ "path": "src/cart.ts", "name_path": name, "body": body });
    let writes = [
        (
            "replace_symbol_body",
            body(
                "Cart/total",
                "total(): number {\n  return this.items.length + 1;\n}",
            ),
        ),
        (
            "insert_before_symbol",
            body("Cart/total", "count(): number {\n  return 0;\n}\n"),
        ),
        (
            "insert_after_symbol",
            body("Cart/total", "count(): number {\n  return 0;\n}\n"),
        ),
        (
            "rename_symbol",
            json!({ "path": "src/util.ts", "line": 1, "symbol": "add", "new_name": "sum" }),
        ),
    ];
    for case in CASES {
        let project = Project::copy("ts-basic");
        std::fs::write(project.root.join("src/cart.ts"), CART).unwrap();
        let before: Vec<String> = ["src/cart.ts", "src/util.ts", "src/index.ts"]
            .iter()
            .map(|p| project.read(p))
            .collect();
        let client = (case.client)();
        let session = open(
            &project.root,
            &[&["--no-diagnostics"], case.flags].concat(),
            &client,
        )
        .await;
        for (tool, args) in &writes {
            let r = call(&session, tool, args).await;
            let t = text(&r);
            assert!(is_error(&r), "{}: {tool} wrote: {t}", case.name);
            let s = r.structured_content.as_ref().unwrap();
            assert_eq!(s["success"], false, "{}: {tool}: {s}", case.name);
            assert_eq!(reason(&r), case.reason, "{}: {tool}: {s}", case.name);
            assert!(t.contains(case.says), "{}: {tool}: {t}", case.name);
        }
        let after: Vec<String> = ["src/cart.ts", "src/util.ts", "src/index.ts"]
            .iter()
            .map(|p| project.read(p))
            .collect();
        assert_eq!(after, before, "{}: a language-server edit wrote", case.name);
        if case.name == "elicitation declined" {
            assert_eq!(client.asked().len(), writes.len(), "{:?}", client.asked());
        }
        session.cancel().await.unwrap();
    }
}

/// `--tools review`: the operator who wants every change proposed serves no tool that writes
/// directly; calling one is an error, and nothing is written.
#[tokio::test]
async fn the_review_set_serves_no_direct_writer() {
    let project = Project::with_files(&[("a.txt", A)]);
    let client = Client::plain();
    let session = open(
        &project.root,
        &["--no-diagnostics", "--tools", "review"],
        &client,
    )
    .await;
    let listed: Vec<String> = session
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    for writer in [
        "edit",
        "write_file",
        "apply_patch",
        "rename_symbol",
        "apply_code_action",
        "replace_symbol_body",
        "insert_before_symbol",
        "insert_after_symbol",
    ] {
        assert!(
            !listed.iter().any(|t| t == writer),
            "{writer} in {listed:?}"
        );
    }
    for kept in ["read_file", "propose_edit", "apply_edit", "outline"] {
        assert!(listed.iter().any(|t| t == kept), "{kept} not in {listed:?}");
    }
    let args: JsonObject =
        serde_json::from_value(json!({ "path": "a.txt", "content": "x\n" })).unwrap();
    let refused = session
        .call_tool(CallToolRequestParams::new("write_file").with_arguments(args))
        .await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(project.read("a.txt"), A);
    session.cancel().await.unwrap();
}

/// A workspace whose `.fk` files are served by the scripted fake server, declared in the
/// workspace's `.lspedit/config.toml` and trusted (`lspedit trust`, with the person's config in
/// `config`). Its one code action on `a.fk` edits line 1 and creates `b.fk` with a line.
struct ActionWorkspace {
    project: Project,
    config: tempfile::TempDir,
}

impl ActionWorkspace {
    fn new() -> ActionWorkspace {
        use lspedit::testing::fake::{Mode, Script, binary};
        let project = Project::with_files(&[("a.fk", A)]);
        let uri = |rel: &str| format!("file://{}", project.root.join(rel).display());
        let script = Script {
            mode: Mode::Pull,
            code_actions: Some(json!([{
                "title": "Move `two` out",
                "kind": "quickfix",
                "edit": { "documentChanges": [
                    { "textDocument": { "uri": uri("a.fk"), "version": null }, "edits": [{
                        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 3 } },
                        "newText": "uno",
                    }] },
                    { "kind": "create", "uri": uri("b.fk") },
                    { "textDocument": { "uri": uri("b.fk"), "version": null }, "edits": [{
                        "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } },
                        "newText": "two\n",
                    }] },
                ] },
            }])),
            ..Script::default()
        };
        // The script lives in lspedit's own state (the server may read the workspace, the
        // model cannot write there).
        let config = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(project.root.join(".lspedit")).unwrap();
        let script_file = project.root.join(".lspedit/fake-script.json");
        std::fs::write(&script_file, script.to_json()).unwrap();
        let declared = format!(
            "[servers.fake]\ncommand = {cmd:?}\nroot_markers = []\nlanguages = {{ fk = \"fake\" }}\n\
             diagnostics = {{ strategy = \"pull\" }}\nenv = {{ LSPEDIT_FAKE_SCRIPT_FILE = {script:?} }}\n",
            cmd = binary().display().to_string(),
            script = script_file.display().to_string(),
        );
        std::fs::write(project.root.join(".lspedit/config.toml"), declared).unwrap();
        let out = std::process::Command::new(bin())
            .args(["trust", "--root"])
            .arg(&project.root)
            .env("XDG_CONFIG_HOME", config.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "lspedit trust: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        ActionWorkspace { project, config }
    }

    async fn open(&self, flags: &[&str], client: &Client) -> Session {
        let root = self.project.root.clone();
        let config = self.config.path().to_path_buf();
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        let transport =
            TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
                cmd.arg("mcp")
                    .arg("--root")
                    .arg(&root)
                    .args(&flags)
                    .env("XDG_CONFIG_HOME", &config);
            }))
            .unwrap();
        client.clone().serve(transport).await.unwrap()
    }

    fn untouched(&self, case: &str) {
        assert_eq!(self.project.read("a.fk"), A, "{case}: a.fk written");
        assert!(
            !self.project.root.join("b.fk").exists(),
            "{case}: b.fk created"
        );
    }
}

/// Regression (issue 47): `apply_code_action` created and deleted files under
/// `--forbid create,delete --approve deny`. A server's code action that edits `a.fk` and
/// creates `b.fk` (2 + 1 changed lines), under each case and under `--forbid create`: refused
/// with the reason, nothing written; with nothing set it applies.
#[tokio::test]
async fn apply_code_action_is_bound_by_the_operators_policy() {
    let args = json!({ "path": "a.fk", "line": 1, "index": 1 });
    let forbid_create = forbidden("forbidden create", &["--forbid", "create"]);
    for case in CASES.iter().chain([&forbid_create]) {
        let ws = ActionWorkspace::new();
        let client = (case.client)();
        let session = ws
            .open(&[&["--no-diagnostics"], case.flags].concat(), &client)
            .await;
        let listed = call(
            &session,
            "code_actions",
            &json!({ "path": "a.fk", "line": 1 }),
        )
        .await;
        assert!(
            text(&listed).contains("1. Move `two` out"),
            "{}: {}",
            case.name,
            text(&listed)
        );
        let r = call(&session, "apply_code_action", &args).await;
        let t = text(&r);
        assert!(is_error(&r), "{}: apply_code_action wrote: {t}", case.name);
        let s = r.structured_content.as_ref().unwrap();
        assert_eq!(s["success"], false, "{}: {s}", case.name);
        assert_eq!(reason(&r), case.reason, "{}: {t}\n{s}", case.name);
        assert!(t.contains(case.says), "{}: {t}", case.name);
        ws.untouched(case.name);
        if case.name == "elicitation declined" {
            let asked = client.asked();
            assert_eq!(asked.len(), 1, "{asked:?}");
            assert!(
                asked[0].contains("b.fk") && asked[0].contains("+uno"),
                "the person must see what will change: {}",
                asked[0]
            );
        }
        session.cancel().await.unwrap();
    }
    // The same action with nothing set writes both files.
    let ws = ActionWorkspace::new();
    let client = Client::plain();
    let session = ws.open(&["--no-diagnostics"], &client).await;
    let r = call(&session, "apply_code_action", &args).await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(ws.project.read("a.fk"), "uno\ntwo\n");
    assert_eq!(ws.project.read("b.fk"), "two\n");
    assert!(client.asked().is_empty());
    session.cancel().await.unwrap();
}
