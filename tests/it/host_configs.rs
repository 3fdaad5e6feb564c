//! docs/hosts.md's entries, each held to its host's documented configuration shape and run as
//! that host runs it; and `lspedit mcp` without `--root` in `/` or the home directory, which it
//! refuses to serve.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Project, bin, repo};

/// The first fenced block of `lang` under the heading `## {host}` of docs/hosts.md.
fn snippet(host: &str, lang: &str) -> String {
    let doc = std::fs::read_to_string(repo().join("docs/hosts.md")).unwrap();
    let heading = format!("\n## {host}\n");
    let start = doc
        .find(&heading)
        .unwrap_or_else(|| panic!("docs/hosts.md has no section {heading:?}"));
    let section = &doc[start + heading.len()..];
    let section = &section[..section.find("\n## ").unwrap_or(section.len())];
    let fence = format!("```{lang}\n");
    let open = section
        .find(&fence)
        .unwrap_or_else(|| panic!("{host}: no ```{lang} block"));
    let body = &section[open + fence.len()..];
    body[..body.find("```").unwrap()].to_string()
}

/// `entry`'s keys are among `allowed` and include `required`.
fn keys(host: &str, entry: &Value, allowed: &[&str], required: &[&str]) {
    let found: BTreeSet<&str> = entry
        .as_object()
        .unwrap_or_else(|| panic!("{host}: the entry is not an object: {entry}"))
        .keys()
        .map(String::as_str)
        .collect();
    for k in &found {
        assert!(
            allowed.contains(k),
            "{host}: `{k}` is not a key the host reads"
        );
    }
    for k in required {
        assert!(found.contains(k), "{host}: `{k}` is missing");
    }
}

/// A stdio server entry: `command` a string, `args` a list of strings, `env` a map of strings.
fn command_of(host: &str, entry: &Value) -> (String, Vec<String>) {
    let command = entry["command"]
        .as_str()
        .unwrap_or_else(|| panic!("{host}: `command` is not a string"));
    let args = entry["args"]
        .as_array()
        .unwrap_or_else(|| panic!("{host}: `args` is not a list"))
        .iter()
        .map(|a| {
            a.as_str()
                .unwrap_or_else(|| panic!("{host}: an argument is not a string"))
                .to_string()
        })
        .collect();
    if let Some(env) = entry.get("env") {
        assert!(
            env.as_object()
                .is_some_and(|m| m.values().all(Value::is_string)),
            "{host}: `env` is not a map of strings"
        );
    }
    (command.to_string(), args)
}

/// Runs the entry as the host would: `command` (`lspedit` is this build's binary) with `args`
/// (`${workspaceFolder}` substituted with the project) in `cwd`; it must answer `initialize`.
fn answers_initialize(host: &str, command: &str, args: &[String], project: &Path, cwd: &Path) {
    assert_eq!(command, "lspedit", "{host}: the command is not lspedit");
    let folder = project.display().to_string();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("${workspaceFolder}", &folder))
        .collect();
    let mut child = Command::new(bin())
        .args(&args)
        .current_dir(cwd)
        .env("LSPEDIT_NO_HOST", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let hello = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": host, "version": "0"}}});
    writeln!(stdin, "{hello}").unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = rx.recv_timeout(Duration::from_secs(30)).unwrap_or_default();
    drop(stdin);
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let reply: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
        panic!(
            "{host}: `lspedit {}` in {} answered no JSON ({e}): {line:?}\n{}",
            args.join(" "),
            cwd.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(
        reply["result"]["serverInfo"]["name"], "lspedit",
        "{host}: {reply}"
    );
}

fn project() -> Project {
    Project::with_files(&[("src/a.ts", "export const a = 1;\n")])
}

// Claude Code (`.mcp.json`): `mcpServers`, each a stdio server with `type`, `command`, `args`,
// `env`; started in the project.
#[test]
fn the_claude_code_entry_has_its_shape_and_runs() {
    let doc: Value = serde_json::from_str(&snippet("Claude Code", "json")).unwrap();
    keys("Claude Code", &doc, &["mcpServers"], &["mcpServers"]);
    let entry = &doc["mcpServers"]["lspedit"];
    keys(
        "Claude Code",
        entry,
        &["type", "command", "args", "env"],
        &["command"],
    );
    assert!(entry.get("type").is_none_or(|t| t == "stdio"));
    let (command, args) = command_of("Claude Code", entry);
    let p = project();
    answers_initialize("Claude Code", &command, &args, &p.root, &p.root);
}

// Codex (`config.toml`): a table `[mcp_servers.<name>]` with `command`, `args`, `env`, `cwd`,
// the timeouts and `enabled`; started in the session's directory.
#[test]
fn the_codex_entry_has_its_shape_and_runs() {
    let doc: toml::Value = toml::from_str(&snippet("Codex", "toml")).unwrap();
    let doc: Value = serde_json::to_value(doc).unwrap();
    keys("Codex", &doc, &["mcp_servers"], &["mcp_servers"]);
    let entry = &doc["mcp_servers"]["lspedit"];
    keys(
        "Codex",
        entry,
        &[
            "command",
            "args",
            "env",
            "env_vars",
            "cwd",
            "startup_timeout_sec",
            "tool_timeout_sec",
            "enabled",
        ],
        &["command"],
    );
    let (command, args) = command_of("Codex", entry);
    let p = project();
    answers_initialize("Codex", &command, &args, &p.root, &p.root);
}

// Cursor (`.cursor/mcp.json`): `mcpServers`, `command`, `args`, `env`; `${workspaceFolder}`
// interpolated. It names the root, so it runs from any directory.
#[test]
fn the_cursor_entry_has_its_shape_and_runs() {
    let doc: Value = serde_json::from_str(&snippet("Cursor", "json")).unwrap();
    keys("Cursor", &doc, &["mcpServers"], &["mcpServers"]);
    let entry = &doc["mcpServers"]["lspedit"];
    keys(
        "Cursor",
        entry,
        &["type", "command", "args", "env"],
        &["command"],
    );
    let (command, args) = command_of("Cursor", entry);
    assert!(args.iter().any(|a| a == "${workspaceFolder}"), "{args:?}");
    let p = project();
    answers_initialize("Cursor", &command, &args, &p.root, Path::new("/"));
}

// VS Code (`.vscode/mcp.json`): `servers` (and `inputs`), a stdio server needs
// `"type": "stdio"`; `${workspaceFolder}` substituted.
#[test]
fn the_vs_code_entry_has_its_shape_and_runs() {
    let doc: Value = serde_json::from_str(&snippet("VS Code", "json")).unwrap();
    keys("VS Code", &doc, &["servers", "inputs"], &["servers"]);
    let entry = &doc["servers"]["lspedit"];
    keys(
        "VS Code",
        entry,
        &["type", "command", "args", "env", "envFile", "cwd"],
        &["type", "command"],
    );
    assert_eq!(entry["type"], "stdio");
    let (command, args) = command_of("VS Code", entry);
    assert!(args.iter().any(|a| a == "${workspaceFolder}"), "{args:?}");
    let p = project();
    answers_initialize("VS Code", &command, &args, &p.root, Path::new("/"));
}

// Zed (`settings.json`): `context_servers`, each with `command`, `args`, `env` (and `source`,
// `enabled` in some versions); started in the project's root.
#[test]
fn the_zed_entry_has_its_shape_and_runs() {
    let doc: Value = serde_json::from_str(&snippet("Zed", "json")).unwrap();
    keys("Zed", &doc, &["context_servers"], &["context_servers"]);
    let entry = &doc["context_servers"]["lspedit"];
    keys(
        "Zed",
        entry,
        &["command", "args", "env", "source", "enabled"],
        &["command"],
    );
    assert!(
        entry["command"].is_string(),
        "Zed: `command` is a string now"
    );
    let (command, args) = command_of("Zed", entry);
    let p = project();
    answers_initialize("Zed", &command, &args, &p.root, &p.root);
}

// README's own entry runs as pasted (it once named `/path/to/repo`, which exits 2) and points
// to docs/hosts.md.
#[test]
fn the_readme_entry_runs_as_pasted() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(readme.contains("(docs/hosts.md)"));
    let at = readme.find("{ \"mcpServers\"").unwrap();
    let line = &readme[at..at + readme[at..].find('\n').unwrap()];
    let doc: Value = serde_json::from_str(line).unwrap();
    let (command, args) = command_of("README", &doc["mcpServers"]["lspedit"]);
    let p = project();
    answers_initialize("README", &command, &args, &p.root, &p.root);
}

/// `lspedit mcp` without `--root`, in `cwd`, with `HOME` set to `home`.
fn mcp_in(cwd: &Path, home: &Path) -> std::process::Output {
    Command::new(bin())
        .arg("mcp")
        .current_dir(cwd)
        .env("HOME", home)
        .env("LSPEDIT_NO_HOST", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

// Regression: started in `/` without `--root`, `lspedit mcp` served `/` (`read_file
// etc/passwd` succeeded). In `/` or the home directory it now refuses, naming `--root`.
#[test]
fn mcp_refuses_the_file_system_root_or_home_as_an_implied_root() {
    let home = tempfile::tempdir().unwrap();
    for (cwd, what) in [
        (Path::new("/"), "the file system's root"),
        (home.path(), "the home directory"),
    ] {
        let out = mcp_in(cwd, home.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", cwd.display());
        assert!(out.stdout.is_empty(), "stdout is the protocol");
        assert!(
            stderr.contains(what) && stderr.contains("--root DIR"),
            "{stderr}"
        );
    }
    // A project directory is served.
    let p = project();
    answers_initialize(
        "a project",
        "lspedit",
        &["mcp".to_string()],
        &p.root,
        &p.root,
    );
}
