//! `lspedit demo`: the main job end to end on copies of two small projects.
//!
//! For TypeScript (`test-projects/ts-basic`) and Rust (`test-projects/rust-basic`): the model
//! reads a file (hashline view), the file drifts under it (TypeScript: a teammate adds a
//! header), the model's anchored patch introduces a type error and still lands, the tool result
//! carries the real language server's diagnostics, then the fix comes back clean. Servers that
//! are missing are installed first. The demo fails (exit 1) when a step does not show what it
//! should, so running it is a check of the whole stack.

use std::path::Path;
use std::time::{Duration, Instant};

use lspedit::servers::config::default_servers_dir;
use lspedit::servers::install;
use lspedit::session::Session;
use lspedit::tools::{ToolResult, ToolsConfig};

use crate::{Failure, Progress, out};

/// The projects, embedded so the demo runs from any directory.
const FILES: &[(&str, &str)] = &[
    (
        "ts-basic/package.json",
        include_str!("../test-projects/ts-basic/package.json"),
    ),
    (
        "ts-basic/tsconfig.json",
        include_str!("../test-projects/ts-basic/tsconfig.json"),
    ),
    (
        "ts-basic/src/index.ts",
        include_str!("../test-projects/ts-basic/src/index.ts"),
    ),
    (
        "ts-basic/src/util.ts",
        include_str!("../test-projects/ts-basic/src/util.ts"),
    ),
    ("rust-basic/Cargo.toml", RUST_BASIC_MANIFEST),
    ("rust-basic/src/lib.rs", RUST_BASIC_LIB),
    ("rust-basic/src/twice.rs", RUST_BASIC_TWICE),
];

// `test-projects/rust-basic`, written out: a folder holding a `Cargo.toml` is a package of its
// own, which `cargo package` leaves out of this one, so `include_str!` could not reach it from
// the published crate. `demo_projects_match_test_projects` keeps the copies equal.
const RUST_BASIC_MANIFEST: &str = r#"[package]
name = "rust-basic"
version = "0.1.0"
edition = "2021"
publish = false

# Its own workspace: keeps it out of the lspedit workspace it sits in.
[workspace]
"#;
const RUST_BASIC_LIB: &str = r#"//! Tiny crate for lspedit's language-server tests.

pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

pub fn answer() -> i32 {
    let value: i32 = add(40, 2);
    value
}

pub mod twice;
"#;
const RUST_BASIC_TWICE: &str = r#"//! A second module that calls the first.

use crate::add;

pub fn twice(x: i32) -> i32 {
    add(x, x)
}
"#;

/// One language's scene.
struct Scene {
    title: &'static str,
    /// Servers that can check it, in preference order.
    servers: &'static [&'static str],
    file: &'static str,
    /// The line the model changes, as it is, and as the broken patch makes it.
    line: &'static str,
    broken: &'static str,
    /// A header a teammate adds above everything after the model read the file.
    drift: Option<&'static str>,
}

const SCENES: &[Scene] = &[
    Scene {
        title: "TypeScript (ts-basic)",
        servers: &["tsc7", "typescript-language-server"],
        file: "ts-basic/src/index.ts",
        line: "const total: number = add(1, 2);",
        broken: "const total: string = add(1, 2);",
        drift: Some("// Copyright (c) lspedit authors.\n// SPDX-License-Identifier: MIT\n\n"),
    },
    Scene {
        title: "Rust (rust-basic)",
        servers: &["rust-analyzer"],
        file: "rust-basic/src/lib.rs",
        line: "    let value: i32 = add(40, 2);",
        broken: "    let value: String = add(40, 2);",
        drift: None,
    },
];

fn heading(text: &str) {
    out(&format!("\n== {text}\n"));
}

pub fn run(keep: bool) -> Result<u8, Failure> {
    let progress = Progress::new();
    out("lspedit demo: anchored patches with the language servers' verdict in the result.\n");
    let ready = ensure_servers(&progress)?;

    let dir = tempfile::Builder::new()
        .prefix("lspedit-demo-")
        .tempdir()
        .map_err(|e| Failure::Usage(format!("cannot create a temp directory: {e}")))?;
    let root = dir
        .path()
        .canonicalize()
        .map_err(|e| Failure::Usage(format!("temp directory: {e}")))?;
    for (path, text) in FILES {
        let abs = root.join(path);
        if let Some(parent) = abs.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| Failure::Usage(format!("cannot create {}: {e}", parent.display())))?;
        }
        std::fs::write(&abs, text)
            .map_err(|e| Failure::Usage(format!("cannot write {}: {e}", abs.display())))?;
    }
    out(&format!(
        "Copied test-projects/ts-basic and test-projects/rust-basic to {}\n",
        root.display()
    ));

    // A first start of rust-analyzer runs `cargo check` on a fresh target dir: allow for it.
    let mut config = ToolsConfig::default();
    config.diagnostics.start_timeout = Some(Duration::from_secs(180));
    config.diagnostics.timeout = Some(Duration::from_secs(90));
    let session = crate::demo_session(&root, config)?;

    let mut failures = Vec::new();
    for scene in SCENES {
        let server = scene
            .servers
            .iter()
            .find(|id| ready.iter().any(|r| r == *id));
        match server {
            Some(server) => {
                if let Err(problem) = play(&session, &root, scene, server, &progress) {
                    out(&format!("\nDEMO FAILED ({}): {problem}\n", scene.title));
                    failures.push(scene.title);
                }
            }
            None => {
                heading(scene.title);
                out(&format!(
                    "skipped: none of {:?} could be installed (see above).\n",
                    scene.servers
                ));
                failures.push(scene.title);
            }
        }
    }
    session.shutdown();
    if keep {
        let kept = dir.keep();
        out(&format!("\nKept the workspace at {}\n", kept.display()));
    }
    if failures.is_empty() {
        out(
            "\nDone: each error was reported in the edit's own result, and each fix came back clean.\n",
        );
        Ok(0)
    } else {
        out(&format!(
            "\nThe demo did not complete for: {}\n",
            failures.join(", ")
        ));
        Ok(1)
    }
}

/// Installs what the scenes need when missing; returns the ids of the usable servers.
fn ensure_servers(progress: &Progress) -> Result<Vec<String>, Failure> {
    // The bundled servers, looked up where `servers install` puts them.
    let config = lspedit::lsp::PoolConfig::bundled()
        .map_err(|e| Failure::Usage(format!("bundled server configuration: {e}")))?;
    let infos = install::inspect(&config);
    let ready_ids = |infos: &[install::ServerInfo]| -> Vec<String> {
        infos
            .iter()
            .filter(|i| i.is_ready())
            .map(|i| i.id.clone())
            .collect()
    };
    let ready = ready_ids(&infos);
    let mut missing: Vec<String> = Vec::new();
    for scene in SCENES {
        if !scene.servers.iter().any(|id| ready.iter().any(|r| r == id)) {
            missing.extend(scene.servers.iter().map(|s| s.to_string()));
        }
    }
    if missing.is_empty() {
        out(&format!("Language servers ready: {}\n", ready.join(", ")));
        return Ok(ready);
    }
    out(&format!(
        "Installing missing language servers ({}) into {} ...\n",
        missing.join(", "),
        default_servers_dir()
            .map_or_else(|| "(no cache dir)".to_string(), |d| d.display().to_string())
    ));
    let started = Instant::now();
    // Install scene by scene so that one failing toolchain does not hide the other language.
    for scene in SCENES {
        let ids: Vec<String> = scene
            .servers
            .iter()
            .map(|s| s.to_string())
            .filter(|s| missing.contains(s))
            .collect();
        if ids.is_empty() {
            continue;
        }
        match install::install(&ids, &mut |line| progress.line(line)) {
            Ok(done) => {
                for d in done {
                    match &d.failure {
                        None => out(&format!(
                            "  {}: {}\n",
                            d.id,
                            d.info.version.as_deref().unwrap_or("installed")
                        )),
                        Some(e) => out(&format!("  {}: install failed: {e}\n", d.id)),
                    }
                }
            }
            Err(e) => out(&format!("  {}: install failed: {e}\n", scene.title)),
        }
    }
    out(&format!(
        "Installed in {:.1} s.\n",
        started.elapsed().as_secs_f64()
    ));
    Ok(ready_ids(&install::inspect(&config)))
}

/// The anchor (`3abcd`) of `line` (1-based) in `path`.
fn anchor(session: &Session, path: &str, line: usize) -> Result<String, String> {
    let r = session.tools().read_file(path, Some(line), Some(1));
    if r.is_error {
        return Err(r.llm_content);
    }
    r.llm_content
        .split('|')
        .next()
        .map(str::to_string)
        .ok_or_else(|| format!("no anchor in {:?}", r.llm_content))
}

/// The 1-based number of the line equal to `text`.
fn find_line(root: &Path, path: &str, text: &str) -> Result<usize, String> {
    let content =
        std::fs::read_to_string(root.join(path)).map_err(|e| format!("reading {path}: {e}"))?;
    content
        .lines()
        .position(|l| l == text)
        .map(|i| i + 1)
        .ok_or_else(|| format!("{path} has no line {text:?}"))
}

/// A one-hunk anchored patch replacing line `n` (anchored context above and below).
fn patch(session: &Session, path: &str, n: usize, old: &str, new: &str) -> Result<String, String> {
    let above = anchor(session, path, n - 1)?;
    let at = anchor(session, path, n)?;
    let below = anchor(session, path, n + 1)?;
    let line_text = |k: usize| -> Result<String, String> {
        let r = session.tools().read_file(path, Some(k), Some(1));
        r.llm_content
            .lines()
            .next()
            .and_then(|l| l.split_once('|'))
            .map(|(_, t)| t.to_string())
            .ok_or_else(|| format!("cannot read line {k} of {path}"))
    };
    Ok(format!(
        "--- a/{path}\n+++ b/{path}\n@@ @@\n {above}|{}\n-{at}|{old}\n+{new}\n {below}|{}\n",
        line_text(n - 1)?,
        line_text(n + 1)?
    ))
}

fn timed(progress: &Progress, f: impl FnOnce() -> ToolResult) -> (ToolResult, Duration) {
    progress.status("waiting for the language server's diagnostics…");
    let started = Instant::now();
    let r = f();
    let took = started.elapsed();
    progress.done();
    (r, took)
}

fn play(
    session: &Session,
    root: &Path,
    scene: &Scene,
    server: &str,
    progress: &Progress,
) -> Result<(), String> {
    heading(&format!("{}: diagnostics from {server}", scene.title));
    let read = session.tools().read_file(scene.file, None, None);
    out(&format!(
        "The model reads {} (lspedit read / MCP read_file):\n{}",
        scene.file, read.llm_content
    ));
    let n = find_line(root, scene.file, scene.line)?;
    let broken_patch = patch(session, scene.file, n, scene.line, scene.broken)?;
    if let Some(header) = scene.drift {
        let abs = root.join(scene.file);
        let text = std::fs::read_to_string(&abs).map_err(|e| e.to_string())?;
        std::fs::write(&abs, format!("{header}{text}")).map_err(|e| e.to_string())?;
        out(&format!(
            "\nMeanwhile a teammate adds a {}-line header to {}: every line moves down.\n",
            header.lines().count(),
            scene.file
        ));
    }
    out(&format!(
        "\nThe model's anchored patch (it introduces a type error):\n{broken_patch}"
    ));
    let (r, took) = timed(progress, || session.tools().apply_patch(&broken_patch));
    out(&format!(
        "\nlspedit apply (MCP apply_patch) answered in {} ms:\n{}\n",
        took.as_millis(),
        r.llm_content.trim_end()
    ));
    if r.is_error {
        return Err("the patch was refused".into());
    }
    if !r.llm_content.contains("LSP errors detected in") {
        return Err(format!(
            "{server} reported no error for the broken line within the timeout"
        ));
    }

    let n = find_line(root, scene.file, scene.broken)?;
    let fix = patch(session, scene.file, n, scene.broken, scene.line)?;
    out(&format!(
        "\nThe model fixes it, anchored on the fresh lines from that result:\n{fix}"
    ));
    let (r, took) = timed(progress, || session.tools().apply_patch(&fix));
    out(&format!(
        "\nlspedit apply answered in {} ms:\n{}\n",
        took.as_millis(),
        r.llm_content.trim_end()
    ));
    if r.is_error {
        return Err("the fix was refused".into());
    }
    if r.llm_content.contains("LSP errors detected") {
        return Err("errors remain after the fix".into());
    }
    let check = session.diagnostics(&[scene.file.to_string()]);
    out(&format!(
        "\nlspedit check {} (MCP diagnostics):\n{}\n",
        scene.file,
        check.llm_content.trim_end()
    ));
    if !check.llm_content.contains("no errors") {
        return Err("the final check is not clean".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demo_projects_match_test_projects() {
        assert_eq!(
            RUST_BASIC_MANIFEST,
            include_str!("../test-projects/rust-basic/Cargo.toml")
        );
        assert_eq!(
            RUST_BASIC_LIB,
            include_str!("../test-projects/rust-basic/src/lib.rs")
        );
        assert_eq!(
            RUST_BASIC_TWICE,
            include_str!("../test-projects/rust-basic/src/twice.rs")
        );
    }
}
