//! The MCP server driven by a client no one here wrote: the Python `mcp` package's
//! `ClientSession` over stdio (`tests/mcp_client.py`), installed by `scripts/test` into
//! `.venv-mcp/`.

use std::process::Command;

use crate::harness::{Project, TS_SERVERS, bin, have_server, repo, servers_required};

#[test]
fn python_client_session_reads_patches_and_gets_diagnostics() {
    let python = repo().join(".venv-mcp/bin/python");
    let has_mcp = Command::new(&python)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_mcp {
        assert!(
            !servers_required(),
            "{} with the `mcp` package is missing; `bash scripts/test` creates it",
            python.display()
        );
        eprintln!("skipped: no .venv-mcp with the Python `mcp` package (run `bash scripts/test`)");
        return;
    }
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    let out = Command::new(&python)
        .arg(repo().join("tests/mcp_client.py"))
        .arg(bin())
        .arg(&project.root)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed:\n{stdout}\n{stderr}");
    let seen: serde_json::Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}):\n{stdout}\n{stderr}"));

    assert_eq!(seen["server_name"], "lspedit");
    assert_eq!(seen["server_version"], env!("CARGO_PKG_VERSION"));
    let tools: Vec<&str> = seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for t in [
        "apply_patch",
        "diagnostics",
        "edit",
        "read_file",
        "write_file",
    ] {
        assert!(tools.contains(&t), "{t} missing from {tools:?}");
    }
    assert_eq!(seen["read_is_error"], false);
    assert!(
        seen["read"]
            .as_str()
            .unwrap()
            .starts_with("1npng|import { add, greet }")
    );

    let apply = seen["apply"].as_str().unwrap();
    assert_eq!(seen["apply_is_error"], false, "{apply}");
    assert!(apply.starts_with("M src/index.ts (1 hunk)"), "{apply}");
    assert!(
        apply.contains("LSP errors detected in src/index.ts, please fix:")
            && apply.contains("ERROR [3:7]")
            && apply.contains("(ts2322)"),
        "{apply}"
    );
    let diags = seen["diagnostics"].as_str().unwrap();
    assert!(
        diags.contains("ERROR [3:7]") && diags.contains("(ts2322)"),
        "{diags}"
    );
    // The same patch again (a retried call): its change is in place, nothing is written.
    assert_eq!(seen["refused_is_error"], true);
    assert!(
        seen["refused"]
            .as_str()
            .unwrap()
            .contains("already_applied"),
        "{}",
        seen["refused"]
    );
    assert!(project.read("src/index.ts").contains("const total: string"));

    // Every tool's structuredContent matched its outputSchema (jsonschema, in the client), and
    // the ids the client chained came from the structured results, not the text.
    assert_eq!(
        seen["validated"],
        serde_json::json!([
            "apply_edit",
            "apply_patch",
            "diagnostics",
            "edit",
            "propose_edit",
            "read_file",
            "undo",
            "write_file"
        ])
    );
    let s = &seen["structured"];
    assert_eq!(s["read"]["path"], "src/index.ts", "{s}");
    assert_eq!(s["util"]["lines"]["offset"], 2, "{s}");
    assert_eq!(s["apply"]["files"][0]["status"], "modified", "{s}");
    assert_eq!(s["refused"]["reason"], "already_applied", "{s}");
    let diags = &s["diagnostics"]["files"][0];
    assert_eq!(diags["diagnostics"][0]["line"], 3, "{s}");
    assert_eq!(diags["diagnostics"][0]["code"], "2322", "{s}");
    assert_eq!(diags["status"], "checked", "{s}");
    assert_eq!(
        s["apply"]["files"][0]["diagnostics"]["status"], "checked",
        "{s}"
    );
    assert_eq!(
        s["apply_edit"]["files"][0]["diagnostics"],
        serde_json::json!({ "status": "checked", "errors": 0 }),
        "{s}"
    );
    assert_eq!(
        s["propose"]["files"][0]["base_sha"], s["util"]["base_sha"],
        "{s}"
    );
    assert_eq!(
        s["apply_edit"]["modified_files"],
        serde_json::json!(["src/util.ts"]),
        "{s}"
    );
    assert_eq!(
        s["undo"]["restored"],
        serde_json::json!(["src/util.ts"]),
        "{s}"
    );
    assert_eq!(s["unknown"]["reason"], "patch_not_found", "{s}");
    assert_eq!(s["write_file"]["files"][0]["status"], "added", "{s}");
    assert_eq!(s["edit"]["files"][0]["status"], "modified", "{s}");
    // A strict host listing the core tools: its calls, null for the arguments left out, are
    // valid against the strict input schemas (jsonschema, in the client) and work.
    let strict = &seen["strict"];
    assert_eq!(
        strict["tools"],
        serde_json::json!([
            "apply_patch",
            "diagnostics",
            "edit",
            "read_file",
            "write_file"
        ]),
        "{strict}"
    );
    assert_eq!(
        strict["results"]["read_file"]["is_error"], false,
        "{strict}"
    );
    assert!(
        strict["results"]["read_file"]["text"]
            .as_str()
            .unwrap()
            .contains("|export const x = 2;"),
        "{strict}"
    );
    assert_eq!(strict["results"]["edit"]["is_error"], false, "{strict}");
    assert_eq!(project.read("src/extra.ts"), "export const x = 3;\n");
}
