//! The interop suite: `lspedit mcp` driven by the official MCP SDKs, as hosts drive it. The
//! Python SDK (`tests/interop/client.py`, the `mcp` package in `.venv-mcp/`) and the TypeScript
//! SDK (`tests/interop/ts/client.mjs`, `@modelcontextprotocol/sdk` under
//! `tests/interop/ts/node_modules/`), both installed and pinned by `scripts/test`, each run every
//! step of `tests/interop/plan.json` in every tool set and schema profile on a copy of a real
//! TypeScript workspace, success and refusal paths, with the SDK validating the structured
//! results against the listed output schemas as it does for its users.
//!
//! Each test asserts that its client passed, that every run listed the tools of its set, and
//! that every listed tool was called with every outcome the plan gives it. A missing SDK or
//! server skips with a reason, and fails under `LSPEDIT_REQUIRE_SERVERS=1`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use lspedit::mcp::ToolSet;
use serde_json::Value;

use crate::harness::{Project, TS_SERVERS, bin, have_server, repo, servers_required};

fn plan() -> Value {
    let text = std::fs::read_to_string(repo().join("tests/interop/plan.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The workspace the plan runs on: a copy of its test project with its extra files.
fn fixture(plan: &Value) -> Project {
    let project = Project::copy(plan["fixture"].as_str().unwrap());
    for (path, text) in plan["files"].as_object().unwrap() {
        std::fs::write(project.root.join(path), text.as_str().unwrap()).unwrap();
    }
    project
}

/// Whether `program` with `args` exits 0: the SDK is installed. When it is not: panics under
/// `LSPEDIT_REQUIRE_SERVERS=1`, otherwise says so and returns false (skip).
#[allow(clippy::print_stderr)] // Tells the person running the tests why a test did nothing.
fn have_sdk(program: &Path, args: &[&str], what: &str) -> bool {
    let ok = Command::new(program)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            !servers_required(),
            "{what} is missing and LSPEDIT_REQUIRE_SERVERS=1; `bash scripts/test` installs it"
        );
        eprintln!("skipped: {what} is missing (run `bash scripts/test`)");
    }
    ok
}

/// Runs `program script BINARY FIXTURE PLAN`, asserts it passed, and checks what it printed.
fn run_client(program: &Path, script: &Path, sdk: &str) {
    let plan = plan();
    let project = fixture(&plan);
    let out = Command::new(program)
        .arg(script)
        .arg(bin())
        .arg(&project.root)
        .arg(repo().join("tests/interop/plan.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let seen: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the {sdk} client printed no JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    });
    let failures: Vec<&str> = seen["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(
        failures.is_empty() && out.status.success(),
        "{} ({}) failed {} checks:\n{}\nstderr:\n{stderr}",
        sdk,
        seen["sdk"],
        failures.len(),
        failures.join("\n")
    );
    assert!(
        seen["sdk"].as_str().unwrap().contains(sdk),
        "{}",
        seen["sdk"]
    );

    // Which outcomes the plan gives each tool.
    let mut outcomes: BTreeSet<(String, String)> = BTreeSet::new();
    for step in plan["steps"].as_array().unwrap() {
        outcomes.insert((
            step["tool"].as_str().unwrap().to_string(),
            step["expect"].as_str().unwrap().to_string(),
        ));
    }
    let runs = seen["runs"].as_array().unwrap();
    let mut covered = BTreeSet::new();
    for run in runs {
        let (tools, profile) = (
            run["tools"].as_str().unwrap(),
            run["profile"].as_str().unwrap(),
        );
        covered.insert((tools.to_string(), profile.to_string()));
        let set: ToolSet = tools.parse().unwrap();
        let mut expected: Vec<&str> = set.tools();
        expected.sort_unstable();
        let listed: Vec<&str> = run["listed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert_eq!(listed, expected, "{sdk} {tools}/{profile}");
        for tool in listed {
            for (_, outcome) in outcomes.iter().filter(|(t, _)| t == tool) {
                let n = run["called"][tool][outcome].as_u64().unwrap_or(0);
                assert!(
                    n > 0,
                    "{sdk} {tools}/{profile}: {tool} was never called with outcome {outcome}: {}",
                    run["called"]
                );
            }
        }
        // A list argument sent as its JSON text (MCP Inspector's CLI) is that list.
        if let Some(proposed) = run["kept"].get("scope_as_json_text") {
            assert_eq!(
                proposed["affected_files"],
                serde_json::json!(["src/extra.ts"]),
                "{sdk} {tools}/{profile}: {proposed}"
            );
        }
    }
    let mut all = BTreeSet::new();
    for set in ["core", "lsp", "workflow", "all"] {
        for profile in ["default", "strict"] {
            all.insert((set.to_string(), profile.to_string()));
        }
    }
    assert_eq!(covered, all, "{sdk}");
    // Every tool appears in the plan with a success and a refusal.
    let tools: BTreeSet<&str> = ToolSet::All.tools().into_iter().collect();
    for tool in tools {
        for outcome in ["ok", "error"] {
            assert!(
                outcomes.contains(&(tool.to_string(), outcome.to_string())),
                "the plan never expects {outcome} from {tool}"
            );
        }
    }
}

#[test]
fn the_official_python_sdk_calls_every_tool_in_every_profile() {
    let python = repo().join(".venv-mcp/bin/python");
    if !have_sdk(
        &python,
        &["-c", "import mcp"],
        ".venv-mcp with the Python `mcp` package",
    ) || !have_server(TS_SERVERS)
    {
        return;
    }
    // The version the SDK reports is the one pinned.
    let pins = std::fs::read_to_string(repo().join("tests/mcp-requirements.txt")).unwrap();
    let pin = pins
        .lines()
        .find_map(|l| l.strip_prefix("mcp=="))
        .unwrap()
        .trim();
    run_client(
        &python,
        &repo().join("tests/interop/client.py"),
        &format!("mcp {pin}"),
    );
}

#[test]
fn the_official_typescript_sdk_calls_every_tool_in_every_profile() {
    let dir: PathBuf = repo().join("tests/interop/ts");
    let node = PathBuf::from("node");
    let sdk = dir.join("node_modules/@modelcontextprotocol/sdk/package.json");
    if !have_sdk(&node, &["--version"], "node")
        || !have_sdk(
            &node,
            &["-e", &format!("require({:?})", sdk.display().to_string())],
            "tests/interop/ts/node_modules with @modelcontextprotocol/sdk",
        )
        || !have_server(TS_SERVERS)
    {
        return;
    }
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    let pin = manifest["dependencies"]["@modelcontextprotocol/sdk"]
        .as_str()
        .unwrap();
    run_client(
        &node,
        &dir.join("client.mjs"),
        &format!("@modelcontextprotocol/sdk {pin}"),
    );
}
