//! `lspedit mcp --tools` and `--schema-profile` on the real binary: the tools a host lists,
//! the schemas it is given, and calls shaped the way a strict host sends them.

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::harness::{Project, run};
use crate::mcp::{call, connect, is_error, text};

const CORE: [&str; 5] = [
    "apply_patch",
    "diagnostics",
    "edit",
    "read_file",
    "write_file",
];

async fn names(client: &crate::mcp::Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort_unstable();
    names
}

#[tokio::test]
async fn tools_core_lists_the_five_core_tools_and_instructions_for_them_only() {
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &["--no-diagnostics", "--tools", "core"]).await;
    assert_eq!(names(&client).await, CORE);
    let instructions = client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.contains("42abcd|"), "{instructions}");
    for absent in ["propose_edit", "rename_symbol", "apply_edit"] {
        assert!(!instructions.contains(absent), "{absent}: {instructions}");
    }
    // A tool that is not listed cannot be called.
    let hidden = client
        .call_tool(
            CallToolRequestParams::new("propose_edit")
                .with_arguments(serde_json::from_value(json!({ "patch": "x" })).unwrap()),
        )
        .await;
    assert!(hidden.is_err(), "{hidden:?}");
    let read = call(&client, "read_file", json!({ "path": "src/util.ts" })).await;
    assert!(!is_error(&read), "{}", text(&read));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tool_sets_are_unions_that_include_core_and_the_default_is_all() {
    let project = Project::copy("ts-basic");
    let workflow = connect(&project.root, &["--no-diagnostics", "--tools", "workflow"]).await;
    let mut expected: Vec<&str> = CORE.to_vec();
    expected.extend(["apply_edit", "propose_edit", "undo"]);
    expected.sort_unstable();
    assert_eq!(names(&workflow).await, expected);
    workflow.cancel().await.unwrap();
    let lsp = connect(&project.root, &["--no-diagnostics", "--tools", "lsp"]).await;
    let lsp_names = names(&lsp).await;
    assert_eq!(lsp_names.len(), 19, "{lsp_names:?}");
    assert!(CORE.iter().all(|c| lsp_names.iter().any(|n| n == c)));
    assert!(lsp_names.iter().any(|n| n == "rename_symbol"));
    assert!(!lsp_names.iter().any(|n| n == "apply_edit"));
    lsp.cancel().await.unwrap();
    let both = connect(
        &project.root,
        &["--no-diagnostics", "--tools", "lsp,workflow"],
    )
    .await;
    let all = connect(&project.root, &["--no-diagnostics"]).await;
    assert_eq!(names(&both).await, names(&all).await);
    assert_eq!(names(&all).await.len(), 22);
    both.cancel().await.unwrap();
    all.cancel().await.unwrap();
}

#[test]
fn an_unknown_tool_set_or_profile_is_a_usage_error_naming_the_choices() {
    let bad = run(&["mcp", "--tools", "most"], "");
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr
            .contains("use `core`, `lsp`, `workflow`, `review` or `all`"),
        "{}",
        bad.stderr
    );
    let bad = run(&["mcp", "--schema-profile", "loose"], "");
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(
        bad.stderr.contains("use `default` or `strict`"),
        "{}",
        bad.stderr
    );
}

/// Every object of `schema` is closed and requires all its properties.
fn closed(schema: &Value, path: &str, problems: &mut Vec<String>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    if let Some(Value::Object(properties)) = map.get("properties") {
        if map.get("additionalProperties") != Some(&json!(false)) {
            problems.push(format!("{path}: open object"));
        }
        let mut keys: Vec<&String> = properties.keys().collect();
        let mut required: Vec<&str> = map["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        keys.sort_unstable();
        required.sort_unstable();
        if keys != required {
            problems.push(format!("{path}: required {required:?} != {keys:?}"));
        }
        for (k, child) in properties {
            closed(child, &format!("{path}.{k}"), problems);
        }
    }
    if let Some(items) = map.get("items") {
        closed(items, &format!("{path}.items"), problems);
    }
    if map.contains_key("default") {
        problems.push(format!("{path}: default"));
    }
}

/// The strict profile closes every object, and the calls a strict model makes (every
/// argument present, `null` for the ones it leaves out) work like the calls without them.
#[tokio::test]
async fn the_strict_profile_closes_every_schema_and_reads_null_as_absent() {
    let project = Project::copy("ts-basic");
    let client = connect(
        &project.root,
        &["--no-diagnostics", "--schema-profile", "strict"],
    )
    .await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 22);
    let mut problems = Vec::new();
    for tool in &tools {
        let input = Value::Object(tool.input_schema.as_ref().clone());
        closed(&input, &tool.name, &mut problems);
    }
    assert!(problems.is_empty(), "{problems:#?}");
    let read_schema = &tools
        .iter()
        .find(|t| t.name == "read_file")
        .unwrap()
        .input_schema;
    assert_eq!(
        read_schema["properties"]["offset"]["type"],
        json!(["integer", "null"])
    );
    let propose = &tools
        .iter()
        .find(|t| t.name == "propose_edit")
        .unwrap()
        .input_schema;
    assert_eq!(
        propose["properties"]["base_shas"]["items"]["required"],
        json!(["path", "sha"])
    );

    let read = call(
        &client,
        "read_file",
        json!({ "path": "src/util.ts", "offset": null, "limit": null }),
    )
    .await;
    assert!(!is_error(&read), "{}", text(&read));
    let sha = read.structured_content.as_ref().unwrap()["base_sha"]
        .as_str()
        .unwrap()
        .to_string();
    let proposed = call(
        &client,
        "propose_edit",
        json!({
            "patch": null, "pattern": "a \\+ b", "replacement": "b + a",
            "scope": null, "language": null,
            "base_shas": [{ "path": "src/util.ts", "sha": sha }]
        }),
    )
    .await;
    assert!(!is_error(&proposed), "{}", text(&proposed));
    let patch_id = proposed.structured_content.as_ref().unwrap()["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    let applied = call(
        &client,
        "apply_edit",
        json!({
            "patch_id": patch_id, "preset": null, "max_files": null, "max_changed_lines": null,
            "forbid_create": null, "forbid_delete": null, "forbid_rename": null,
            "all_or_nothing": null, "atomicity": null
        }),
    )
    .await;
    assert!(!is_error(&applied), "{}", text(&applied));
    assert!(project.read("src/util.ts").contains("b + a"));
    let edited = call(
        &client,
        "edit",
        json!({ "path": "src/util.ts", "old_text": "b + a", "new_text": "a + b", "replace_all": null }),
    )
    .await;
    assert!(!is_error(&edited), "{}", text(&edited));
    client.cancel().await.unwrap();
}
