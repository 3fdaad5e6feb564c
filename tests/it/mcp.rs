//! The MCP server end to end: rmcp's client spawns the real `lspedit mcp` binary over stdio.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

use crate::harness::{Project, TS_SERVERS, bin, have_server, ts_break_patch};

pub(crate) type Client = RunningService<RoleClient, ()>;

pub(crate) async fn connect(root: &std::path::Path, extra: &[&str]) -> Client {
    let root = root.to_path_buf();
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin()).configure(|cmd| {
        cmd.arg("mcp").arg("--root").arg(&root).args(&extra);
    }))
    .unwrap();
    ().serve(transport).await.unwrap()
}

/// Calls `tool`; its structured result, refusals included, must validate against the output
/// schema the server lists for it (rmcp's client does not check it; the official SDKs do, and
/// reject the result otherwise).
pub(crate) async fn call(
    client: &Client,
    tool: &'static str,
    args: serde_json::Value,
) -> CallToolResult {
    let args: JsonObject = serde_json::from_value(args).unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .unwrap();
    let listed = client.list_all_tools().await.unwrap();
    let schema = listed
        .iter()
        .find(|t| t.name == tool)
        .and_then(|t| t.output_schema.as_ref())
        .map(|s| serde_json::Value::Object(s.as_ref().clone()));
    if let (Some(schema), Some(structured)) = (schema, &result.structured_content) {
        let compiled = jsonschema::JSONSchema::compile(&schema).unwrap();
        if let Err(errors) = compiled.validate(structured) {
            let errors: Vec<String> = errors.map(|e| e.to_string()).collect();
            panic!("{tool}'s result is invalid against its outputSchema: {errors:?}\n{structured}");
        }
    }
    result
}

pub(crate) fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn is_error(r: &CallToolResult) -> bool {
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
            "apply_code_action",
            "apply_edit",
            "apply_patch",
            "call_hierarchy",
            "code_actions",
            "definition",
            "diagnostics",
            "edit",
            "find_symbol",
            "hover",
            "implementations",
            "insert_after_symbol",
            "insert_before_symbol",
            "outline",
            "propose_edit",
            "read_file",
            "references",
            "rename_symbol",
            "replace_symbol_body",
            "type_definition",
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
    // The reason codes every writing tool shares are explained once, in the instructions.
    let instructions = info.instructions.as_deref().unwrap();
    for reason in [
        "hunk_mismatch",
        "ambiguous_match",
        "truncated_input",
        "path_outside_workspace",
        "stale_context",
    ] {
        assert!(instructions.contains(reason), "{reason} not explained");
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
    // Portable for every provider: no type arrays, `$schema`, `$ref`, integer formats or
    // `default: null`; optional fields simply not required; unsigned integers with minimum 0.
    for tool in &tools {
        let input = serde_json::Value::Object(tool.input_schema.as_ref().clone());
        let output = tool
            .output_schema
            .as_ref()
            .map(|o| serde_json::Value::Object(o.as_ref().clone()))
            .unwrap_or_else(|| panic!("{} declares no outputSchema", tool.name));
        assert_eq!(output["type"], "object", "{}", tool.name);
        for (which, schema) in [("input", &input), ("output", &output)] {
            let mut problems = Vec::new();
            unportable(schema, &format!("{}.{which}", tool.name), &mut problems);
            assert!(problems.is_empty(), "{problems:#?}");
        }
    }
    let read = schema("read_file");
    assert_eq!(
        read["properties"]["offset"],
        json!({"type": "integer", "minimum": 0, "description": read["properties"]["offset"]["description"]})
    );
    assert_eq!(read["required"], json!(["path"]));
    client.cancel().await.unwrap();
}

/// Every place in `schema` some model provider rejects.
fn unportable(schema: &serde_json::Value, path: &str, problems: &mut Vec<String>) {
    match schema {
        serde_json::Value::Object(map) => {
            for key in [
                "$schema",
                "$ref",
                "$defs",
                "nullable",
                "additionalProperties",
                "default",
            ] {
                if map.contains_key(key) {
                    problems.push(format!("{path}: {key}"));
                }
            }
            if let Some(t) = map.get("type")
                && (!t.is_string() || t == "null")
            {
                problems.push(format!("{path}: type {t}"));
            }
            if map.get("type").is_some_and(|t| t == "integer")
                && !path.ends_with(".offset")
                && map.get("minimum") != Some(&json!(0))
            {
                problems.push(format!("{path}: integer without minimum 0"));
            }
            if let Some(f) = map.get("format").and_then(|f| f.as_str())
                && (f.starts_with("uint") || f.starts_with("int"))
            {
                problems.push(format!("{path}: format {f}"));
            }
            if map.get("default").is_some_and(|d| d.is_null()) {
                problems.push(format!("{path}: default null"));
            }
            for (k, v) in map {
                unportable(v, &format!("{path}.{k}"), problems);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                unportable(v, &format!("{path}[{i}]"), problems);
            }
        }
        _ => {}
    }
}

/// The structured result (`structuredContent`); every tool returns one.
fn structured(r: &CallToolResult) -> &serde_json::Value {
    r.structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structuredContent: {r:?}"))
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
    let p = structured(&proposed);
    let id = p["patch_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("patch_") && t.contains(&id), "{p}");
    assert_eq!(p["affected_files"], json!(["src/index.ts"]));
    assert!(
        p["unified_diff"]
            .as_str()
            .unwrap()
            .contains("+const total: string"),
        "{p}"
    );
    assert_eq!(p["statistics"]["files_matched"], 1, "{p}");
    assert_eq!(p["statistics"]["total_changes"], 1, "{p}");
    assert!(
        p["statistics"]["files_scanned"].as_u64().unwrap() >= 2,
        "{p}"
    );

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
        json!({ "patch_id": "patch_1_00000000000000000000000000000000" }),
    )
    .await;
    assert!(is_error(&unknown));
    assert!(
        text(&unknown).starts_with(
            "Patch 'patch_1_00000000000000000000000000000000' not found; call propose_edit again"
        ),
        "{}",
        text(&unknown)
    );
    assert_eq!(structured(&unknown)["reason"], "patch_not_found");
    assert_eq!(structured(&unknown)["success"], false);
    assert_eq!(structured(&refused)["reason"], "scope_violation");
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
    let a = structured(&applied);
    assert_eq!(a["success"], true, "{a}");
    assert_eq!(a["status"], "applied", "{a}");
    assert_eq!(a["patch_id"], id.as_str(), "{a}");
    assert_eq!(a["modified_files"], json!(["src/index.ts"]), "{a}");
    assert!(a["evidence_id"].is_string(), "{a}");
    let checkpoint = a["checkpoint_id"].as_str().unwrap().to_string();
    assert!(t.contains(&checkpoint), "{t}");
    if real {
        assert!(
            t.contains("LSP errors detected in src/index.ts, please fix:")
                && t.contains("(ts2322)"),
            "{t}"
        );
        assert_eq!(
            a["files"][0]["diagnostics"],
            json!({ "status": "checked", "errors": 1 }),
            "{a}"
        );
    } else {
        assert!(a["files"][0].get("diagnostics").is_none(), "{a}");
    }
    let undone = call(&client, "undo", json!({ "checkpoint_id": checkpoint })).await;
    assert!(!is_error(&undone), "{}", text(&undone));
    assert_eq!(project.read("src/index.ts"), before);
    let u = structured(&undone);
    assert_eq!(u["success"], true, "{u}");
    assert_eq!(u["restored"], json!(["src/index.ts"]), "{u}");
    assert!(u["redo_checkpoint_id"].is_string(), "{u}");
    // The checkpoint is consumed: a second undo of it is refused with its reason code.
    let again = call(&client, "undo", json!({ "checkpoint_id": checkpoint })).await;
    assert!(is_error(&again));
    assert_eq!(
        structured(&again)["reason"],
        "checkpoint_not_found",
        "{}",
        text(&again)
    );
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
    let r = structured(&read);
    assert_eq!(r["path"], "src/index.ts");
    assert_eq!(r["base_sha"].as_str().unwrap().len(), 12, "{r}");
    assert_eq!(
        r["lines"],
        json!({"offset": 1, "limit": 2000, "shown": 6, "total": 6, "more": false})
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
    let a = structured(&applied);
    assert_eq!(a["success"], true, "{a}");
    assert_eq!(a["files"][0]["path"], "src/index.ts", "{a}");
    assert_eq!(a["files"][0]["status"], "modified", "{a}");
    assert_eq!(a["files"][0]["hunks"][0]["found_line"], 2, "{a}");
    assert_eq!(a["files"][0]["hunks"][0]["offset"], 0, "{a}");
    // The changed block with its fresh anchors: the hunk's lines as they are now.
    let block = &a["files"][0]["changed"][0];
    assert_eq!(block["start_line"], 2, "{a}");
    assert_eq!(block["line_count"], 3, "{a}");
    let fresh = block["anchored_lines"][1].as_str().unwrap();
    assert!(
        fresh.starts_with('3') && fresh.ends_with("|const total: string = add(1, 2);"),
        "{a}"
    );

    // The same patch again (a retried call): its change is in place. A refusal, not a protocol
    // error.
    let refused = call(
        &client,
        "apply_patch",
        json!({ "patch": ts_break_patch(&view) }),
    )
    .await;
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains("FAILED src/index.ts: already_applied"),
        "{}",
        text(&refused)
    );
    let f = structured(&refused);
    assert_eq!(f["success"], false, "{f}");
    assert_eq!(f["reason"], "already_applied", "{f}");
    assert_eq!(f["files"][0]["status"], "failed", "{f}");
    assert_eq!(f["files"][0]["reason"], "already_applied", "{f}");
    assert!(f["files"][0]["message"].is_string(), "{f}");

    let outside = call(&client, "read_file", json!({ "path": "../../etc/passwd" })).await;
    assert!(is_error(&outside));
    assert!(
        text(&outside).contains("path_outside_workspace"),
        "{}",
        text(&outside)
    );
    assert_eq!(structured(&outside)["reason"], "path_outside_workspace");

    let edited = call(
        &client,
        "edit",
        json!({ "path": "src/index.ts", "old_text": "const total: string", "new_text": "const total: number" }),
    )
    .await;
    assert!(!is_error(&edited), "{}", text(&edited));
    assert!(text(&edited).starts_with("Edited src/index.ts: replaced line 3."));
    let e = structured(&edited);
    assert_eq!(e["files"][0]["status"], "modified", "{e}");
    assert_eq!(e["files"][0]["changed"][0]["start_line"], 3, "{e}");

    let missing = call(
        &client,
        "edit",
        json!({ "path": "src/index.ts", "old_text": "no such text", "new_text": "x" }),
    )
    .await;
    assert!(is_error(&missing));
    let m = structured(&missing);
    assert_eq!(m["files"][0]["path"], "src/index.ts", "{m}");
    assert_eq!(m["files"][0]["status"], "failed", "{m}");
    assert_eq!(m["reason"], "hunk_mismatch", "{m}");

    let written = call(
        &client,
        "write_file",
        json!({ "path": "src/extra.ts", "content": "export const x = 1;\n" }),
    )
    .await;
    assert!(!is_error(&written), "{}", text(&written));
    assert_eq!(text(&written), "Created src/extra.ts (1 line).");
    assert_eq!(
        structured(&written)["files"],
        json!([{"path": "src/extra.ts", "status": "added", "hunks": [], "changed": []}])
    );
    assert_eq!(project.read("src/extra.ts"), "export const x = 1;\n");

    let diags = call(&client, "diagnostics", json!({ "paths": ["src/extra.ts"] })).await;
    assert!(!is_error(&diags));
    assert_eq!(
        text(&diags),
        "src/extra.ts: no diagnostics: diagnostics are turned off for this session."
    );
    let d = structured(&diags);
    assert_eq!(
        d["unavailable"], "diagnostics are turned off for this session",
        "{d}"
    );
    assert_eq!(d["files"][0]["path"], "src/extra.ts", "{d}");
    assert_eq!(d["files"][0]["status"], "no_server", "{d}");
    assert!(d["files"][0].get("diagnostics").is_none(), "{d}");
    // A path that cannot be checked is refused on its own: the others are still reported.
    let some = call(
        &client,
        "diagnostics",
        json!({ "paths": ["src/nope.ts", "src/extra.ts", "./src/extra.ts"] }),
    )
    .await;
    assert!(is_error(&some));
    assert_eq!(
        text(&some),
        "src/extra.ts: no diagnostics: diagnostics are turned off for this session.\n\nError: src/nope.ts: file_not_found: no such file"
    );
    let d = structured(&some);
    assert_eq!(d["files"].as_array().unwrap().len(), 2, "{d}");
    assert_eq!(d["files"][1]["reason"], "file_not_found", "{d}");
    assert!(d["files"][1].get("status").is_none(), "{d}");

    // An unknown tool is a protocol error. Arguments off the schema are an isError result the
    // model can correct from (the MCP spec's input-validation rule, as rmcp implements it).
    let unknown = client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown.is_err(), "{unknown:?}");
    let bad = call(&client, "read_file", json!({ "path": 42 })).await;
    assert!(is_error(&bad));
    assert!(text(&bad).contains("expected a string"), "{}", text(&bad));
    // MCP Inspector sends numbers as strings; they are read, and a non-number names its field.
    let window = call(
        &client,
        "read_file",
        json!({ "path": "src/index.ts", "offset": "2", "limit": "2" }),
    )
    .await;
    assert!(!is_error(&window), "{}", text(&window));
    assert!(text(&window).starts_with("2aaaa|\n3"), "{}", text(&window));
    assert_eq!(structured(&window)["lines"]["shown"], 2);
    assert_eq!(structured(&window)["lines"]["more"], true);
    let bad = call(
        &client,
        "read_file",
        json!({ "path": "src/index.ts", "limit": "all" }),
    )
    .await;
    assert!(is_error(&bad));
    assert!(
        text(&bad).contains("`limit` must be a non-negative integer"),
        "{}",
        text(&bad)
    );
    client.cancel().await.unwrap();
}

/// The base_sha read_file gives is the one propose_edit's `base_shas` checks: it passes as
/// read, and is refused as `sha_mismatch` once the file changed. The map form of earlier
/// versions is an invalid argument that shows the list form.
#[tokio::test]
async fn read_file_base_sha_guards_propose_edit() {
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    let read = call(&client, "read_file", json!({ "path": "src/util.ts" })).await;
    let sha = structured(&read)["base_sha"].as_str().unwrap().to_string();
    let swap = json!({ "pattern": "a \\+ b", "replacement": "b + a", "scope": ["src/util.ts"], "base_shas": [{ "path": "src/util.ts", "sha": sha }] });
    let ok = call(&client, "propose_edit", swap.clone()).await;
    assert!(!is_error(&ok), "{}", text(&ok));
    let files = &structured(&ok)["files"];
    assert_eq!(files[0]["base_sha"], sha.as_str(), "{files}");
    let changed = format!("{}// changed\n", project.read("src/util.ts"));
    std::fs::write(project.root.join("src/util.ts"), changed).unwrap();
    let stale = call(&client, "propose_edit", swap).await;
    assert!(is_error(&stale), "{}", text(&stale));
    assert_eq!(
        structured(&stale)["reason"],
        "sha_mismatch",
        "{}",
        text(&stale)
    );
    let old = json!({ "patch": "x", "base_shas": { "src/util.ts": sha } });
    let old = call(&client, "propose_edit", old).await;
    assert!(is_error(&old), "{}", text(&old));
    assert!(
        text(&old).contains(r#"`base_shas` must be a list of {"path", "sha"} objects, e.g. [{"path": "src/a.ts", "sha": "3f2a9c0b1d4e"}]"#),
        "{}",
        text(&old)
    );
    client.cancel().await.unwrap();
}

/// propose_edit's `task_id`, `step_id` and context (files, keywords, focus lines) reach the
/// evidence as the library records them: `diff_<task>_<step>_<ms>.*`, and the excerpts lspedit
/// selected as `context_<step>_<ms>.json`; apply_edit's events name the step. An id that cannot
/// name a file, a lone `task_id` or a focus range that is not one is an invalid argument naming
/// it, and nothing is stored.
// Regression (issue 47): ids and context were library-only.
#[tokio::test]
async fn propose_edit_names_the_step_and_records_the_context() {
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &["--no-diagnostics"]).await;
    let evidence = project.root.join(".lspedit/evidence");
    let listing = || -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&evidence)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    for (args, named) in [
        (json!({ "step_id": "bad_id" }), "`step_id`"),
        (json!({ "task_id": "a/b", "step_id": "s-1" }), "`task_id`"),
        (json!({ "task_id": "t-1" }), "`task_id`"),
        (
            json!({ "context_focus": [{ "path": "src/util.ts", "start_line": 5, "end_line": 2 }] }),
            "`context_focus`",
        ),
    ] {
        let mut args = args;
        args["pattern"] = json!("a \\+ b");
        args["replacement"] = json!("b + a");
        let r = call(&client, "propose_edit", args.clone()).await;
        assert!(is_error(&r), "{args}: {}", text(&r));
        assert!(text(&r).contains(named), "{args}: {}", text(&r));
        assert_eq!(structured(&r)["success"], false);
        assert!(listing().is_empty(), "{args} stored {:?}", listing());
    }
    assert!(!project.root.join(".lspedit/patches").exists());

    let r = call(
        &client,
        "propose_edit",
        json!({
            "pattern": "a \\+ b", "replacement": "b + a", "scope": "src/util.ts",
            "task_id": "task-7", "step_id": "step-2",
            "context_files": ["src/index.ts", "missing.ts"],
            "context_keywords": "total",
            "context_focus": [{ "path": "src/util.ts", "start_line": 1, "end_line": 1 }],
        }),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    let p = structured(&r);
    let evidence_id = p["evidence_id"].as_str().unwrap().to_string();
    let ms = evidence_id
        .strip_prefix("diff_task-7_step-2_")
        .filter(|ms| ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("{evidence_id}"))
        .to_string();
    let names = listing();
    assert!(names.contains(&format!("{evidence_id}.diff")), "{names:?}");
    let context: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(evidence.join(format!("context_step-2_{ms}.json"))).unwrap(),
    )
    .unwrap();
    let paths: Vec<&str> = context["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["src/index.ts", "src/util.ts"], "{context}");
    assert_eq!(context["files"][1]["ranges"][0], json!([1, 1]), "{context}");
    assert_eq!(context["skipped"][0]["path"], "missing.ts", "{context}");

    let applied = call(
        &client,
        "apply_edit",
        json!({ "patch_id": p["patch_id"].as_str().unwrap() }),
    )
    .await;
    assert!(!is_error(&applied), "{}", text(&applied));
    let log = std::fs::read_to_string(project.root.join(".lspedit/events.jsonl")).unwrap();
    assert!(
        log.lines().any(|l| l.contains(r#""event":"step_started""#)
            && l.contains(r#""step_id":"step-2""#)),
        "{log}"
    );
    client.cancel().await.unwrap();
}

/// A `.lspedit/config.toml` that does not parse used to make `lspedit mcp` exit: the tools are
/// served with diagnostics off, and the reason is on stderr once and in every diagnostics
/// result.
#[test]
fn a_bad_workspace_config_turns_diagnostics_off_instead_of_failing() {
    let project = Project::copy("ts-basic");
    std::fs::create_dir_all(project.root.join(".lspedit")).unwrap();
    std::fs::write(
        project.root.join(".lspedit/config.toml"),
        "this is [ not toml\n",
    )
    .unwrap();
    let mut raw = Raw::start_with(&project.root, &[], &[]);
    raw.assert_serving(1);
    raw.send_json(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"diagnostics","arguments":{"paths":["src/index.ts"]}}}));
    let r = raw.reply();
    let result = &r["result"];
    assert_eq!(result["isError"], false, "{r}");
    let why = result["structuredContent"]["unavailable"].as_str().unwrap();
    assert!(
        why.contains("language-server configuration is invalid") && why.contains("config.toml"),
        "{why}"
    );
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(why), "{text}");
    let logs = raw.finish();
    assert_eq!(
        logs.matches("diagnostics are off because").count(),
        1,
        "{logs}"
    );
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
    assert_eq!(
        structured(&applied)["files"][0]["diagnostics"],
        json!({ "status": "checked", "errors": 1 }),
        "{}",
        structured(&applied)
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
    let files = &structured(&diags)["files"];
    assert_eq!(files[0]["status"], "checked", "{files}");
    assert_eq!(files[0]["diagnostics"][0]["code"], "2322", "{files}");
    assert_eq!(files[1]["status"], "checked", "{files}");
    assert_eq!(files[1]["diagnostics"], json!([]), "{files}");

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
        Raw::start_with(root, &["--no-diagnostics"], env)
    }

    fn start_with(root: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Raw {
        let mut child = Command::new(bin())
            .args(["mcp", "--root"])
            .arg(root)
            .args(args)
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
    // A bad last line, then end of input: the reply is still written before the server exits.
    raw.send(b"{oops\n");
    drop(raw.stdin.take());
    assert_error(&raw.reply(), serde_json::Value::Null, -32700, "Parse error");
    raw.finish();
}

/// The MCP tools over a session whose language server is the scripted fake one, too slow for
/// the deadline: served in-process (the `lspedit mcp` binary has fixed 3 s / 10 s budgets; this
/// session has 400 ms) through the same `LspeditServer` and rmcp's client.
struct SlowServer {
    client: Client,
    session: std::sync::Arc<lspedit::session::Session>,
    _dir: tempfile::TempDir,
}

impl SlowServer {
    async fn start(files: &[(&str, &str)]) -> SlowServer {
        use lspedit::testing::fake;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            std::fs::write(root.join(path), text).unwrap();
        }
        let script = fake::Script {
            mode: fake::Mode::Pull,
            marker: "BAD".to_string(),
            delay_ms: 1200,
            ..fake::Script::default()
        };
        let script_file = root.join(".fake-script.json");
        std::fs::write(&script_file, script.to_json()).unwrap();
        let toml = format!(
            "id = \"fake\"\ncommand = {cmd:?}\nlanguages = {{ ts = \"typescript\" }}\n\
             diagnostics = {{ strategy = \"pull\", quiet_window_ms = 30, first_publish_timeout_ms = 400 }}\n\
             env = {{ {env} = {script:?} }}\n",
            cmd = fake::binary().display().to_string(),
            env = fake::SCRIPT_FILE_ENV,
            script = script_file.display().to_string(),
        );
        let pool = lspedit::lsp::PoolConfig {
            servers: vec![lspedit::lsp::ServerConfig::from_toml(&toml).unwrap()],
            shutdown_grace: std::time::Duration::from_millis(300),
            restart_backoff: std::time::Duration::from_millis(50),
            startup_timeout: std::time::Duration::from_secs(5),
            request_timeout: std::time::Duration::from_secs(5),
            // The operator's deadline holds for the cold first check too (as `lspedit mcp
            // --first-check-timeout-ms` sets): the late answers are what is tested here.
            verdict_wait: lspedit::lsp::VerdictWait::Deadline,
            ..lspedit::lsp::PoolConfig::default()
        };
        let mut config = lspedit::tools::ToolsConfig::default();
        config.diagnostics.timeout = Some(std::time::Duration::from_millis(400));
        config.diagnostics.start_timeout = Some(std::time::Duration::from_millis(400));
        let ws = lspedit::write::Workspace::open(&root).unwrap();
        let session = std::sync::Arc::new(lspedit::session::Session::new(ws, Some(pool), config));
        let (server_io, client_io) = tokio::io::duplex(1 << 20);
        let server = lspedit::mcp::LspeditServer::new(std::sync::Arc::clone(&session));
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let client = ().serve(client_io).await.unwrap();
        SlowServer {
            client,
            session,
            _dir: dir,
        }
    }

    /// Waits (bounded) until a late answer to a timed-out check has arrived.
    async fn wait_for_late(&self) {
        let session = std::sync::Arc::clone(&self.session);
        let arrived = tokio::task::spawn_blocking(move || {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
            session.pool().unwrap().wait_for_late(deadline)
        })
        .await
        .unwrap();
        assert!(arrived, "the late answer never came");
    }
}

const LATE_A: &str = "LSP errors detected in a.ts after your earlier change, please fix:\n<diagnostics file=\"a.ts\">\nERROR [1:9] ";

/// Past the deadline a write says `timed_out` in its structured result and one pending line;
/// the answer, once it arrives, starts the next result of any tool (`diagnostics`,
/// `propose_edit`), once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_write_says_so_and_its_late_answer_starts_the_next_result() {
    let s = SlowServer::start(&[("a.ts", "let a = 1;\n"), ("b.ts", "let b = 1;\n")]).await;

    let written = call(
        &s.client,
        "write_file",
        json!({ "path": "a.ts", "content": "let a = BAD;\n" }),
    )
    .await;
    let t = text(&written);
    assert!(!is_error(&written), "{t}");
    // The missing verdict is named in one neutral line, never as a clean result.
    assert_eq!(
        t,
        "Overwrote a.ts (1 line).\n\nDiagnostics for a.ts pending: fake is still checking it; errors, if any, will be reported in a later result."
    );
    assert_eq!(
        structured(&written)["files"][0]["diagnostics"],
        json!({ "status": "timed_out" }),
        "{}",
        structured(&written)
    );

    s.wait_for_late().await;
    let diags = call(&s.client, "diagnostics", json!({ "paths": ["b.ts"] })).await;
    let t = text(&diags);
    assert!(!is_error(&diags), "{t}");
    assert!(t.starts_with(LATE_A), "{t}");
    // b.ts itself is as slow: one deadline for the call, then why there is nothing.
    assert!(
        t.ends_with("b.ts: no diagnostics from 'fake' in time; the server may still be starting: call diagnostics again shortly."),
        "{t}"
    );
    let d = structured(&diags);
    assert_eq!(d["files"][0]["path"], "b.ts", "{d}");
    assert_eq!(d["files"][0]["status"], "timed_out", "{d}");
    assert_eq!(d["files"][0]["server"], "fake", "{d}");
    assert!(d["files"][0].get("diagnostics").is_none(), "{d}");
    // b.ts's own late answer (no errors: no text) is taken by the next call, so that the next
    // wait below is for a.ts's.
    s.wait_for_late().await;
    let read = call(&s.client, "read_file", json!({ "path": "b.ts" })).await;
    assert!(!text(&read).contains("LSP"), "{}", text(&read));

    // An edit times out too; its late answer starts the next propose_edit, and only that one.
    let edited = call(
        &s.client,
        "edit",
        json!({ "path": "a.ts", "old_text": "BAD", "new_text": "BAD2" }),
    )
    .await;
    assert!(!text(&edited).contains("LSP"), "{}", text(&edited));
    assert_eq!(
        structured(&edited)["files"][0]["diagnostics"]["status"],
        "timed_out"
    );
    s.wait_for_late().await;
    let swap = json!({ "pattern": "let b", "replacement": "const b", "scope": ["b.ts"] });
    let proposed = call(&s.client, "propose_edit", swap.clone()).await;
    let t = text(&proposed);
    assert!(!is_error(&proposed), "{t}");
    assert!(t.starts_with(LATE_A), "{t}");
    let again = call(&s.client, "propose_edit", swap).await;
    assert!(!text(&again).contains("LSP"), "{}", text(&again));
    s.client.cancel().await.unwrap();
}

/// `lspedit mcp` runs the language servers on its one runtime (no second runtime of the pool's,
/// whose workers are named `lspedit-lsp`); when the client closes stdin it stops them before
/// it exits, and no server process outlives it.
#[test]
fn one_runtime_and_closing_stdin_stops_the_language_servers() {
    use lspedit::testing::fake;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let config = tempfile::tempdir().unwrap();
    // Beside the person's lspedit config directory, not around it: that directory (the state
    // key, trust records) is hidden from servers whatever grant covers it.
    let run = config.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let log = run.join("fake.log");
    let script = fake::Script {
        mode: fake::Mode::Pull,
        marker: "BAD".to_string(),
        log_file: Some(log.clone()),
        ..fake::Script::default()
    };
    let script_file = run.join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    // The person's own config (trusted by definition) adds the fake server for `.fak` files.
    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(
        config.path().join("lspedit/config.toml"),
        format!(
            // The script and the log lie outside the workspace: the sandbox must grant them.
            "[pool]\nsandbox_allow = [{dir:?}]\n\
             [servers.fake]\ncommand = {cmd:?}\nlanguages = {{ fak = \"fake\" }}\n\
             diagnostics = {{ strategy = \"pull\" }}\nenv = {{ {env} = {script:?} }}\n",
            dir = run.display().to_string(),
            cmd = fake::binary().display().to_string(),
            env = fake::SCRIPT_FILE_ENV,
            script = script_file.display().to_string(),
        ),
    )
    .unwrap();
    let xdg = config.path().display().to_string();
    // The servers of this process (with the server host they outlive it by design: see
    // tests/it/host.rs and orphans.rs).
    let mut raw = Raw::start_with(
        &root,
        &[],
        &[("XDG_CONFIG_HOME", &xdg), ("LSPEDIT_NO_HOST", "1")],
    );
    raw.send_json(&json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"a.fak","content":"x = BAD\n"}}}));
    let r = raw.reply();
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("LSP errors detected in this file"), "{r}");
    let threads: Vec<String> = std::fs::read_dir(format!("/proc/{}/task", raw.child.id()))
        .unwrap()
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .map(|name| name.trim().to_string())
        .collect();
    assert!(
        !threads.iter().any(|t| t.starts_with("lspedit-lsp")),
        "a second runtime: {threads:?}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    let pid: u32 = logged
        .lines()
        .find_map(|l| l.strip_prefix("start "))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("no start line in the fake server's log: {logged}"));
    raw.finish();
    assert!(
        lspedit::process::wait_group_gone(pid, std::time::Duration::from_secs(5)),
        "the server (group {pid}) outlived `lspedit mcp`"
    );
}
