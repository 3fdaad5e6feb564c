//! Issue 24 over MCP: the operator's policy, not the model's. Each test drives the real
//! `lspedit mcp` binary over stdio with rmcp's client (or a client that answers elicitation):
//! limits a model may only tighten, all-or-nothing by default, approval the model cannot give
//! itself, strict arguments, a string scope, `language`, and `success` in every result.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    JsonObject,
};
use rmcp::service::{RequestContext, RunningService, ServiceError};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::harness::{Project, bin};
use crate::mcp::{call, connect, is_error, text};

fn structured(r: &rmcp::model::CallToolResult) -> &Value {
    r.structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structuredContent: {r:?}"))
}

/// Four files that each hold `old_name` once.
fn four_files() -> Project {
    Project::with_files(&[
        ("a.txt", "old_name\n"),
        ("b.txt", "old_name\n"),
        ("c.txt", "old_name\n"),
        ("d.txt", "old_name\n"),
    ])
}

/// A regex proposal over every file; its patch id.
async fn propose_rename<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
) -> String {
    let args: JsonObject = serde_json::from_value(
        json!({ "pattern": "old_name", "replacement": "new_name", "scope": "*.txt" }),
    )
    .unwrap();
    let r = client
        .call_tool(CallToolRequestParams::new("propose_edit").with_arguments(args))
        .await
        .unwrap();
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(structured(&r)["success"], true, "{}", structured(&r));
    structured(&r)["patch_id"].as_str().unwrap().to_string()
}

/// Regression (issue 24): a call refused with `scope_violation` passed when the model resent
/// it with `max_files: 50`. The workflow's limits are the operator's (3 files by default); a
/// looser argument is refused naming the operator's limit, and only the operator widens them.
#[tokio::test]
async fn a_model_cannot_lift_the_operators_limit() {
    let project = four_files();
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    // The model is told the limits up front.
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(
        instructions.contains("limits each apply_edit to 3 files and 100 changed lines"),
        "{instructions}"
    );
    let id = propose_rename(&client).await;

    let refused = call(&client, "apply_edit", json!({ "patch_id": id })).await;
    assert!(is_error(&refused), "{}", text(&refused));
    assert_eq!(structured(&refused)["reason"], "scope_violation");
    assert!(
        text(&refused).contains("changes 4 files but the apply plan allows at most 3"),
        "{}",
        text(&refused)
    );
    let lifted = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "max_files": 50 }),
    )
    .await;
    assert!(is_error(&lifted), "{}", text(&lifted));
    let s = structured(&lifted);
    assert_eq!(s["reason"], "scope_violation", "{s}");
    assert_eq!(s["success"], false, "{s}");
    assert!(
        text(&lifted).contains("max_files 50 exceeds the operator's limit of 3"),
        "{}",
        text(&lifted)
    );
    // Nor can it allow what the operator forbids.
    let create = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "forbid_create": false }),
    )
    .await;
    assert_eq!(structured(&create)["reason"], "scope_violation");
    assert!(
        text(&create)
            .contains("forbid_create: false asks for creating files, which the operator forbids"),
        "{}",
        text(&create)
    );
    assert_eq!(project.read("a.txt"), "old_name\n");
    client.cancel().await.unwrap();

    // The operator widens it: the same proposal applies, and a model may still tighten.
    let client = connect(&project.root, &["--no-diagnostics", "--max-files", "4"]).await;
    let tighter = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "max_files": 2 }),
    )
    .await;
    assert_eq!(structured(&tighter)["reason"], "scope_violation");
    let applied = call(&client, "apply_edit", json!({ "patch_id": id })).await;
    assert!(!is_error(&applied), "{}", text(&applied));
    assert_eq!(structured(&applied)["success"], true);
    assert_eq!(project.read("d.txt"), "new_name\n");
    client.cancel().await.unwrap();
}

/// The operator's `[policy]` in their own config widens the limits; an untrusted workspace
/// config cannot.
#[tokio::test]
async fn the_users_config_sets_the_policy_and_an_untrusted_workspace_cannot_loosen_it() {
    let project = four_files();
    std::fs::create_dir_all(project.root.join(".lspedit")).unwrap();
    std::fs::write(
        project.root.join(".lspedit/config.toml"),
        "[policy]\nmax_files = 50\nforbid = []\n",
    )
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let xdg = config.path().display().to_string();
    let with_env = |extra: Vec<&'static str>| {
        let root = project.root.clone();
        let xdg = xdg.clone();
        async move {
            let transport =
                TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
                    cmd.arg("mcp")
                        .arg("--root")
                        .arg(&root)
                        .arg("--no-diagnostics")
                        .args(&extra)
                        .env("XDG_CONFIG_HOME", &xdg);
                }))
                .unwrap();
            ().serve(transport).await.unwrap()
        }
    };
    let client = with_env(vec![]).await;
    let id = propose_rename(&client).await;
    let refused = call(&client, "apply_edit", json!({ "patch_id": id })).await;
    assert_eq!(
        structured(&refused)["reason"],
        "scope_violation",
        "an untrusted workspace config loosened the policy: {}",
        text(&refused)
    );
    client.cancel().await.unwrap();

    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(
        config.path().join("lspedit/config.toml"),
        "[policy]\nmax_files = 4\n",
    )
    .unwrap();
    let client = with_env(vec![]).await;
    let applied = call(&client, "apply_edit", json!({ "patch_id": id })).await;
    assert!(!is_error(&applied), "{}", text(&applied));
    assert_eq!(project.read("a.txt"), "new_name\n");
    client.cancel().await.unwrap();
}

/// Regression (issue 24): a misspelled `maxFiles: 1` was silently ignored and 4 files were
/// written; unknown arguments (`mode`) were accepted by every tool. Now every tool refuses an
/// argument it does not have with JSON-RPC -32602 naming it, before doing anything.
#[tokio::test]
async fn an_unknown_argument_is_invalid_params_naming_it() {
    let project = four_files();
    let client = connect(&project.root, &["--no-diagnostics", "--max-files", "4"]).await;
    let id = propose_rename(&client).await;
    let args: JsonObject =
        serde_json::from_value(json!({ "patch_id": id, "maxFiles": 1 })).unwrap();
    let err = client
        .call_tool(CallToolRequestParams::new("apply_edit").with_arguments(args))
        .await
        .unwrap_err();
    let ServiceError::McpError(e) = err else {
        panic!("not a JSON-RPC error: {err:?}");
    };
    assert_eq!(e.code.0, -32602, "{e:?}");
    assert!(
        e.message
            .contains("unknown argument `maxFiles` for tool `apply_edit`")
            && e.message.contains("did you mean `max_files`?"),
        "{}",
        e.message
    );
    assert_eq!(project.read("a.txt"), "old_name\n");
    for (tool, args) in [
        ("read_file", json!({ "path": "a.txt", "mode": "raw" })),
        (
            "write_file",
            json!({ "path": "a.txt", "content": "x\n", "overwrite": true }),
        ),
        (
            "propose_edit",
            json!({ "pattern": "a", "replacement": "b", "scopes": ["*.txt"] }),
        ),
        ("diagnostics", json!({ "paths": ["a.txt"], "wait": 1 })),
        (
            "rename_symbol",
            json!({ "path": "a.txt", "line": 1, "symbol": "old_name", "new_name": "x", "dry": true }),
        ),
    ] {
        let args: JsonObject = serde_json::from_value(args).unwrap();
        let err = client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
            .await
            .unwrap_err();
        let ServiceError::McpError(e) = err else {
            panic!("{tool}: not a JSON-RPC error: {err:?}");
        };
        assert_eq!(e.code.0, -32602, "{tool}: {e:?}");
        assert!(
            e.message.contains("unknown argument"),
            "{tool}: {}",
            e.message
        );
    }
    assert_eq!(project.read("a.txt"), "old_name\n");
    client.cancel().await.unwrap();
}

/// Regression (issue 24): `apply_edit` was per file by default, so a 3-file proposal with one
/// failing hunk wrote the other two (`partially_applied`). Now nothing is written unless the
/// model asks for per file, and the operator can forbid that.
#[tokio::test]
async fn apply_edit_is_all_or_nothing_by_default() {
    let project = Project::with_files(&[
        ("a.txt", "a\nb\nc\n"),
        ("b.txt", "a\nb\nc\n"),
        ("c.txt", "a\nb\nc\n"),
    ]);
    let mut patch = String::new();
    for f in ["a.txt", "b.txt"] {
        patch.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n a\n-b\n+NEW\n c\n"
        ));
    }
    patch.push_str("--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n a\n-not in the file\n+NEW\n c\n");
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    let proposed = call(&client, "propose_edit", json!({ "patch": patch })).await;
    assert!(!is_error(&proposed), "{}", text(&proposed));
    // Stored for a per-file apply, but it cannot apply as a whole: not a success (issue 47).
    assert_eq!(
        structured(&proposed)["success"],
        false,
        "{}",
        text(&proposed)
    );
    assert_eq!(structured(&proposed)["reason"], "hunk_mismatch");
    let id = structured(&proposed)["patch_id"]
        .as_str()
        .unwrap()
        .to_string();

    let refused = call(&client, "apply_edit", json!({ "patch_id": id })).await;
    assert!(is_error(&refused), "{}", text(&refused));
    let s = structured(&refused);
    assert_eq!(s["status"], "refused", "{s}");
    assert_eq!(s["reason"], "hunk_mismatch", "{s}");
    assert_eq!(s["success"], false, "{s}");
    assert!(
        text(&refused).contains("all_or_nothing applies no file when one is refused"),
        "{}",
        text(&refused)
    );
    for f in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(project.read(f), "a\nb\nc\n", "{f} was written");
    }
    client.cancel().await.unwrap();

    // The operator forbids per-file applies: the model cannot ask for one.
    let client = connect(&project.root, &["--no-diagnostics", "--forbid", "per-file"]).await;
    let asked = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "all_or_nothing": false }),
    )
    .await;
    assert_eq!(structured(&asked)["reason"], "scope_violation");
    assert_eq!(project.read("a.txt"), "a\nb\nc\n");
    client.cancel().await.unwrap();

    // Asked for, and allowed: per file, the two good files apply.
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    let partial = call(
        &client,
        "apply_edit",
        json!({ "patch_id": id, "all_or_nothing": false }),
    )
    .await;
    assert_eq!(structured(&partial)["status"], "partially_applied");
    assert_eq!(structured(&partial)["success"], false);
    assert_eq!(project.read("a.txt"), "a\nNEW\nc\n");
    assert_eq!(project.read("c.txt"), "a\nb\nc\n");
    client.cancel().await.unwrap();
}

/// Regression (issue 24): `propose_edit` refused the seed's own call (`"scope":
/// "backend/**/*.go"`, a string), dropped `language` (a Go-only proposal touched
/// `frontend/api.ts`), and its results had no `success` key.
#[tokio::test]
async fn propose_edit_takes_a_string_scope_and_honours_language() {
    let project = Project::with_files(&[
        ("backend/api.go", "func oldName() {}\n"),
        ("backend/gen/x.go", "func oldName() {}\n"),
        ("frontend/api.ts", "function oldName() {}\n"),
    ]);
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    let r = call(
        &client,
        "propose_edit",
        json!({ "pattern": "oldName", "replacement": "newName", "scope": "backend/**/*.go" }),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let s = structured(&r);
    assert_eq!(s["success"], true, "{s}");
    assert_eq!(
        s["affected_files"],
        json!(["backend/api.go", "backend/gen/x.go"]),
        "{s}"
    );

    let r = call(
        &client,
        "propose_edit",
        json!({ "pattern": "oldName", "replacement": "newName", "scope": ["**"], "language": "go" }),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(
        structured(&r)["affected_files"],
        json!(["backend/api.go", "backend/gen/x.go"]),
        "a Go-only proposal touched another file: {}",
        structured(&r)
    );
    let patch = "--- a/frontend/api.ts\n+++ b/frontend/api.ts\n@@ -1 +1 @@\n-function oldName() {}\n+function newName() {}\n";
    let r = call(
        &client,
        "propose_edit",
        json!({ "patch": patch, "language": "go" }),
    )
    .await;
    assert!(is_error(&r), "{}", text(&r));
    let s = structured(&r);
    assert_eq!(s["success"], false, "{s}");
    assert_eq!(s["reason"], "scope_violation", "{s}");
    assert!(
        text(&r).contains("frontend/api.ts") && text(&r).contains("not a go file"),
        "{}",
        text(&r)
    );
    // A scope of the wrong type names the field.
    let r = call(
        &client,
        "propose_edit",
        json!({ "pattern": "a", "replacement": "b", "scope": 7 }),
    )
    .await;
    assert!(is_error(&r));
    assert!(
        text(&r).contains("`scope` must be a glob or a list of globs"),
        "{}",
        text(&r)
    );
    client.cancel().await.unwrap();
}

/// A client that declares MCP elicitation and answers every request with `action`, keeping the
/// messages it was shown.
#[derive(Clone)]
struct Person {
    action: &'static str,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Person {
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
        info.capabilities.elicitation = Some(ElicitationCapability::new());
        info
    }
}

async fn connect_person(
    root: &std::path::Path,
    extra: &[&str],
    person: Person,
) -> RunningService<RoleClient, Person> {
    let root = root.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("mcp").arg("--root").arg(&root).args(&extra);
    }))
    .unwrap();
    person.serve(transport).await.unwrap()
}

async fn apply<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
    id: &str,
) -> rmcp::model::CallToolResult {
    let args: JsonObject = serde_json::from_value(json!({ "patch_id": id })).unwrap();
    client
        .call_tool(CallToolRequestParams::new("apply_edit").with_arguments(args))
        .await
        .unwrap()
}

/// Regression (issue 24): approval over MCP was automatic, the model approving its own
/// proposals. `approve = "deny"` refuses every apply; `elicit` asks the person through the
/// client (accept applies, decline rejects) and refuses as `approval_required` when the
/// client cannot ask; by default a client that can ask is asked.
#[tokio::test]
async fn approval_is_the_persons_not_the_models() {
    let project = Project::with_files(&[("a.txt", "old_name\n")]);
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();

    let client = connect(&project.root, &["--no-diagnostics", "--approve", "deny"]).await;
    let id = propose_rename(&client).await;
    let denied = apply(&client, &id).await;
    assert!(is_error(&denied), "{}", text(&denied));
    assert_eq!(structured(&denied)["status"], "rejected");
    assert!(
        text(&denied).contains("approve = \"deny\""),
        "{}",
        text(&denied)
    );
    client.cancel().await.unwrap();

    let client = connect(&project.root, &["--no-diagnostics", "--approve", "elicit"]).await;
    let cannot = apply(&client, &id).await;
    assert!(is_error(&cannot), "{}", text(&cannot));
    assert_eq!(structured(&cannot)["reason"], "approval_required");
    assert!(
        text(&cannot).contains("did not declare the `elicitation` capability"),
        "{}",
        text(&cannot)
    );
    client.cancel().await.unwrap();
    assert_eq!(project.read("a.txt"), "old_name\n");

    let declines = Person {
        action: "decline",
        asked: Arc::clone(&asked),
    };
    let client = connect_person(
        &project.root,
        &["--no-diagnostics", "--approve", "elicit"],
        declines,
    )
    .await;
    let declined = apply(&client, &id).await;
    assert_eq!(structured(&declined)["status"], "rejected");
    assert_eq!(project.read("a.txt"), "old_name\n");
    client.cancel().await.unwrap();
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert!(
            asked[0].starts_with(&format!("Apply {id} to a.txt?"))
                && asked[0].contains("+new_name"),
            "the person must see the diff: {}",
            asked[0]
        );
    }

    // The default policy asks a client that can ask.
    let accepts = Person {
        action: "accept",
        asked: Arc::clone(&asked),
    };
    let client = connect_person(&project.root, &["--no-diagnostics"], accepts).await;
    let applied = apply(&client, &id).await;
    assert!(!is_error(&applied), "{}", text(&applied));
    assert_eq!(structured(&applied)["success"], true);
    assert_eq!(project.read("a.txt"), "new_name\n");
    assert_eq!(asked.lock().unwrap().len(), 2);
    client.cancel().await.unwrap();
}

/// A `[policy]` of the person's own config that does not parse stops `lspedit mcp` and
/// `apply-id` (exit 2, naming the file and the key): a limit the operator meant is never
/// silently dropped.
#[test]
fn a_misspelled_policy_key_in_the_users_config_stops_lspedit() {
    let project = four_files();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(
        config.path().join("lspedit/config.toml"),
        "[policy]\nmaxFiles = 1\n",
    )
    .unwrap();
    for args in [
        vec!["mcp", "--no-diagnostics"],
        vec!["apply-id", "patch_1_00000000", "--no-diagnostics"],
    ] {
        let out = std::process::Command::new(bin())
            .args(&args)
            .arg("--root")
            .arg(&project.root)
            .env("XDG_CONFIG_HOME", config.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("[policy]") && stderr.contains("maxFiles"),
            "{args:?}: {stderr}"
        );
    }
}
