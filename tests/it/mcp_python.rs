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
    // The same patch again: its removal line no longer matches, nothing is written.
    assert_eq!(seen["refused_is_error"], true);
    assert!(
        seen["refused"].as_str().unwrap().contains("hunk_mismatch"),
        "{}",
        seen["refused"]
    );
    assert!(project.read("src/index.ts").contains("const total: string"));
}
