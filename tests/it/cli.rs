//! The CLI binary, one subcommand at a time: output, `--json`, exit codes (0 success, 1 refused
//! or failed, 2 usage or configuration error).

use crate::harness::{Project, TS_SERVERS, have_server, run, ts_break_patch};

const GREET: &str = "export function greet(name: string): string {\n  return \"hi \" + name;\n}\n";

fn greet_project() -> Project {
    Project::with_files(&[("src/greet.ts", GREET)])
}

#[test]
fn read_prints_the_hashline_view_and_json() {
    let p = greet_project();
    let r = p.run(&["read", "src/greet.ts"], "");
    r.assert_code(0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(
        lines[1].ends_with("|  return \"hi \" + name;"),
        "{}",
        r.stdout
    );

    let j = p.run(
        &[
            "read",
            "src/greet.ts",
            "--json",
            "--offset",
            "2",
            "--limit",
            "1",
        ],
        "",
    );
    j.assert_code(0);
    let v = j.json();
    assert_eq!(v["total_lines"], 3);
    assert_eq!(v["base_sha"].as_str().unwrap().len(), 12);
    assert_eq!(v["content"].as_str().unwrap().lines().count(), 1);
    // For a person, the same words as the model's `read_file`: where a partial view lies.
    let part = p.run(
        &["read", "src/greet.ts", "--offset", "2", "--limit", "1"],
        "",
    );
    assert!(
        part.stdout
            .ends_with("|  return \"hi \" + name;\n(lines 2-2 of 3; use --offset to read more)\n"),
        "{}",
        part.stdout
    );

    p.run(&["read", "src/nope.ts"], "").assert_code(1);
    p.run(&["read", "../outside.ts"], "").assert_code(1);
}

#[test]
fn edit_replaces_and_refuses_with_exit_1() {
    let p = greet_project();
    let r = p.run(
        &[
            "edit",
            "src/greet.ts",
            "--old",
            "\"hi \"",
            "--new",
            "\"hello \"",
            "--no-diagnostics",
        ],
        "",
    );
    r.assert_code(0);
    assert!(
        r.stdout
            .starts_with("Edited src/greet.ts: replaced line 2."),
        "{}",
        r.stdout
    );
    assert!(p.read("src/greet.ts").contains("\"hello \" + name"));

    let j = p.run(
        &[
            "edit",
            "src/greet.ts",
            "--old",
            "absent",
            "--new",
            "x",
            "--no-diagnostics",
            "--json",
        ],
        "",
    );
    j.assert_code(1);
    let v = j.json();
    assert_eq!(v["ok"], false);
    assert!(
        v["llm_content"].as_str().unwrap().contains("hunk_mismatch"),
        "{v}"
    );
}

#[test]
fn write_takes_content_from_stdin() {
    let p = greet_project();
    let r = p.run(
        &["write", "src/new.ts", "--no-diagnostics", "--json"],
        "export const n = 1;\n",
    );
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["llm_content"], "Created src/new.ts (1 line).");
    assert_eq!(p.read("src/new.ts"), "export const n = 1;\n");
    p.run(&["write", "../x.ts", "--no-diagnostics"], "x")
        .assert_code(1);
}

#[test]
fn apply_reports_per_file_and_exit_codes() {
    let p = greet_project();
    let view = p.run(&["read", "src/greet.ts"], "").stdout;
    let a2 = view
        .lines()
        .nth(1)
        .unwrap()
        .split('|')
        .next()
        .unwrap()
        .to_string();
    // A bare `@@ @@` hunk ends with a context line: that is what proves it was not cut off.
    let patch = format!(
        "--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ @@\n-{a2}|  return \"hi \" + name;\n+  return `hi ${{name}}`;\n }}\n"
    );
    // A dry run changes nothing.
    let dry = p.run(&["apply", "--dry-run", "--json"], &patch);
    dry.assert_code(0);
    assert_eq!(dry.json()["ok"], true);
    assert_eq!(p.read("src/greet.ts"), GREET);

    let r = p.run(&["apply", "--no-diagnostics", "--json"], &patch);
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["files"][0]["status"], "modified");
    assert_eq!(v["files"][0]["path"], "src/greet.ts");
    // The dry run words its report as the apply does (per-file line, then the fresh lines).
    assert_eq!(dry.json()["llm_content"], v["llm_content"]);
    assert!(
        v["llm_content"]
            .as_str()
            .unwrap()
            .contains("src/greet.ts lines 2-3 now:\n"),
        "{v}"
    );
    assert!(p.read("src/greet.ts").contains("`hi ${name}`"));

    // Again (a retried call): the change is in place, the file is refused as already applied
    // and untouched. The report is on stdout, the refusal summarised on stderr.
    let again = p.run(&["apply", "--no-diagnostics"], &patch);
    again.assert_code(1);
    assert!(
        again
            .stdout
            .starts_with("FAILED src/greet.ts: already_applied"),
        "{}",
        again.stdout
    );
    assert!(
        again
            .stderr
            .starts_with("lspedit: src/greet.ts: already_applied: "),
        "{}",
        again.stderr
    );

    // A truncated envelope is refused as a whole.
    let cut = p.run(
        &["apply", "--no-diagnostics"],
        "*** Begin Patch\n*** Update File: src/greet.ts\n@@\n-x\n",
    );
    cut.assert_code(1);
    assert!(cut.stderr.contains("truncated_input"), "{}", cut.stderr);
}

/// `apply --diff` prints the change's unified diff before the report; without `--diff` the
/// CLI does not have the tools render it (`display_diff` off), and the report is the same.
#[test]
fn apply_prints_the_diff_only_with_diff() {
    let patch = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let apply = |extra: &[&str]| {
        let p = Project::with_files(&[("f.txt", "one\ntwo\nthree\n")]);
        let mut args = vec!["apply", "--no-diagnostics", "--color", "never"];
        args.extend(extra);
        let r = p.run(&args, patch);
        r.assert_code(0);
        assert_eq!(p.read("f.txt"), "one\nTWO\nthree\n");
        r.stdout
    };
    let with = apply(&["--diff"]);
    let without = apply(&[]);
    assert!(
        with.contains("\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n"),
        "{with}"
    );
    assert!(!without.contains("@@ -1,3"), "{without}");
    assert!(with.ends_with(&without), "{with}\n---\n{without}");
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    run(&["no-such-command"], "").assert_code(2);
    run(&["read"], "").assert_code(2);
    run(&["read", "x", "--root", "/definitely/not/here"], "").assert_code(2);
    run(
        &["apply", "/definitely/not/here.diff", "--no-diagnostics"],
        "",
    )
    .assert_code(2);
    run(&["servers", "install", "no-such-server"], "").assert_code(2);
    let p = Project::with_files(&[
        (".lspedit/config.toml", "[pool]\nbogus = 1\n"),
        ("a.ts", "x\n"),
    ]);
    p.run(&["check", "a.ts"], "").assert_code(2);
    let help = run(&["--help"], "");
    help.assert_code(0);
    for cmd in [
        "read", "edit", "write", "apply", "check", "servers", "mcp", "demo",
    ] {
        assert!(help.stdout.contains(cmd), "{cmd} missing from --help");
    }
}

#[test]
fn servers_status_lists_every_configured_server() {
    let r = run(&["servers", "status", "--json"], "");
    r.assert_code(0);
    let v = r.json();
    let servers = v["servers"].as_array().unwrap();
    let ids: Vec<&str> = servers.iter().map(|s| s["id"].as_str().unwrap()).collect();
    for id in [
        "tsc7",
        "typescript-language-server",
        "rust-analyzer",
        "pyright",
        "clangd",
    ] {
        assert!(ids.contains(&id), "{id} missing from {ids:?}");
    }
    let tsc7 = servers.iter().find(|s| s["id"] == "tsc7").unwrap();
    assert_eq!(tsc7["pinned"], "7.0.2");
    assert_eq!(tsc7["install"], "npm typescript@7.0.2");
    assert!(
        tsc7["extensions"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("ts"))
    );
    if have_server(&["tsc7"]) {
        assert_eq!(tsc7["state"], "ready");
        assert_eq!(tsc7["version"], "7.0.2");
    }
    // Which program runs: the native binary of the platform package when npm installed it
    // (issue 29), else the launcher, and the text says the same.
    let native = tsc7["binary_from"] == "native";
    if native {
        let platform = lspedit::servers::node_platform();
        assert_eq!(tsc7["platform"], platform.as_str());
        assert!(
            tsc7["binary"]
                .as_str()
                .is_some_and(|b| b.ends_with(&format!(
                    "node_modules/@typescript/typescript-{platform}/lib/tsc"
                ))),
            "{tsc7}"
        );
    } else if tsc7["binary"].is_string() {
        assert_eq!(tsc7["binary_from"], "fallback", "{tsc7}");
    }
    let text = run(&["servers", "status"], "");
    text.assert_code(0);
    assert!(text.stdout.contains("SERVER") && text.stdout.contains("rust-analyzer"));
    if native {
        let row = text
            .stdout
            .lines()
            .find(|l| l.starts_with("tsc7 "))
            .unwrap();
        assert!(row.contains("[native ("), "{row}");
    }
}

#[test]
fn servers_status_probe_shows_the_running_process_per_root() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    let r = p.run(
        &["servers", "status", "--json", "--probe", "src/index.ts"],
        "",
    );
    r.assert_code(0);
    let v = r.json();
    let procs = v["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 1, "{v}");
    assert_eq!(procs[0]["state"], "running");
    assert_eq!(procs[0]["root"], p.root.display().to_string());
    assert_eq!(procs[0]["open_documents"], 1);
    assert!(procs[0]["pgid"].as_u64().is_some());
    assert!(TS_SERVERS.contains(&procs[0]["server"].as_str().unwrap()));
}

#[test]
fn servers_install_is_idempotent_when_installed() {
    if !have_server(&["tsc7"]) {
        return;
    }
    let r = run(&["servers", "install", "tsc7", "--json"], "");
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["servers"][0]["id"], "tsc7");
    assert_eq!(v["servers"][0]["changed"], false);
    assert_eq!(v["servers"][0]["version"], "7.0.2");
}

#[test]
fn check_and_apply_report_real_typescript_errors() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    let clean = p.run(&["check", "src/index.ts"], "");
    clean.assert_code(0);
    assert!(
        clean.stdout.starts_with("src/index.ts: no errors ("),
        "{}",
        clean.stdout
    );

    let view = p.run(&["read", "src/index.ts"], "").stdout;
    let applied = p.run(&["apply", "--json"], &ts_break_patch(&view));
    applied.assert_code(0);
    let llm = applied.json()["llm_content"].as_str().unwrap().to_string();
    assert!(
        llm.contains("ERROR [3:7] Type 'number' is not assignable to type 'string'. (ts2322)"),
        "{llm}"
    );
    // The diagnostics as data too, not only inside `llm_content`.
    let diags = &applied.json()["diagnostics"];
    assert_eq!(diags[0]["path"], "src/index.ts", "{diags}");
    assert_eq!(diags[0]["status"], "checked", "{diags}");
    assert_eq!(
        diags[0]["reported"][0],
        serde_json::json!({
            "path": "src/index.ts", "line": 3, "column": 7, "end_line": 3,
            "end_column": diags[0]["reported"][0]["end_column"].clone(),
            "severity": "error", "code": "2322",
            "source": diags[0]["reported"][0]["source"].clone(),
            "message": "Type 'number' is not assignable to type 'string'.",
        }),
        "{diags}"
    );

    let broken = p.run(&["check", "src/index.ts", "src/util.ts"], "");
    broken.assert_code(1);
    assert!(
        broken
            .stdout
            .contains("<diagnostics file=\"src/index.ts\">"),
        "{}",
        broken.stdout
    );
    assert!(
        broken.stdout.contains("src/util.ts: no errors"),
        "{}",
        broken.stdout
    );

    let j = p.run(&["check", "src/index.ts", "--json"], "");
    j.assert_code(1);
    assert!(
        j.json()["llm_content"]
            .as_str()
            .unwrap()
            .contains("(ts2322)")
    );

    p.run(&["check", "src/missing.ts"], "").assert_code(1);
}

#[test]
fn demo_shows_errors_and_fixes_for_typescript_and_rust() {
    if !have_server(TS_SERVERS) || !have_server(&["rust-analyzer"]) {
        return;
    }
    let r = run(&["demo"], "");
    r.assert_code(0);
    for needle in [
        "M ts-basic/src/index.ts (1 hunk, moved +3)",
        "(ts2322)",
        "ts-basic/src/index.ts: no errors",
        "(E0308)",
        "rust-basic/src/lib.rs: no errors (rust-analyzer).",
        "Done: each error was reported",
    ] {
        assert!(
            r.stdout.contains(needle),
            "{needle:?} not in:\n{}",
            r.stdout
        );
    }
}

/// propose → apply-id → undo from the shell, each a separate process (the proposal and the
/// checkpoint live under `.lspedit/`), with `--json` parsed and the exit codes checked.
#[test]
fn propose_apply_id_and_undo_across_processes() {
    let p = Project::with_files(&[
        ("backend/a.rs", "fn a() { old_name(); }\n"),
        ("backend/b.rs", "fn b() { old_name(); old_name(); }\n"),
        ("frontend/c.ts", "old_name();\n"),
    ]);
    let r = p.run(
        &[
            "propose",
            "--pattern",
            "old_name",
            "--replacement",
            "new_name",
            "--scope",
            "backend/**",
            "--json",
        ],
        "",
    );
    r.assert_code(0);
    let v = r.json();
    let id = v["patch_id"].as_str().unwrap().to_string();
    assert!(id.starts_with("patch_"), "{id}");
    assert_eq!(v["stats"]["files_matched"], 2);
    assert_eq!(v["stats"]["total_changes"], 3);
    assert_eq!(
        v["affected_files"],
        serde_json::json!(["backend/a.rs", "backend/b.rs"])
    );
    assert!(
        v["diff"]
            .as_str()
            .unwrap()
            .contains("+fn a() { new_name(); }")
    );
    // Proposing changed nothing.
    assert_eq!(p.read("backend/a.rs"), "fn a() { old_name(); }\n");

    // A scope limit refuses with exit 1 and leaves the files.
    let r = p.run(
        &[
            "apply-id",
            &id,
            "--max-files",
            "1",
            "--no-diagnostics",
            "--json",
        ],
        "",
    );
    r.assert_code(1);
    assert_eq!(r.json()["reason"], "scope_violation");
    assert_eq!(p.read("backend/a.rs"), "fn a() { old_name(); }\n");

    let r = p.run(&["apply-id", &id, "--no-diagnostics", "--json"], "");
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["status"], "applied");
    let checkpoint = v["checkpoint_id"].as_str().unwrap().to_string();
    assert_eq!(
        p.read("backend/b.rs"),
        "fn b() { new_name(); new_name(); }\n"
    );
    assert_eq!(p.read("frontend/c.ts"), "old_name();\n");

    // Applying the same proposal again: the files moved on, so it is stale.
    let r = p.run(&["apply-id", &id, "--no-diagnostics"], "");
    r.assert_code(1);
    assert!(r.stderr.contains("stale_context"), "{}", r.stderr);

    let r = p.run(&["undo", &checkpoint, "--json"], "");
    r.assert_code(0);
    assert_eq!(
        r.json()["restored"],
        serde_json::json!(["backend/a.rs", "backend/b.rs"])
    );
    assert_eq!(p.read("backend/a.rs"), "fn a() { old_name(); }\n");
    assert_eq!(
        p.read("backend/b.rs"),
        "fn b() { old_name(); old_name(); }\n"
    );

    // Unknown ids: exit 1 with the contract's text.
    let r = p.run(
        &[
            "apply-id",
            "patch_0_deadbeefdeadbeefdeadbeefdeadbeef",
            "--no-diagnostics",
        ],
        "",
    );
    r.assert_code(1);
    assert!(
        r.stderr
            .contains("Patch 'patch_0_deadbeefdeadbeefdeadbeefdeadbeef' not found"),
        "{}",
        r.stderr
    );
    p.run(&["undo", "ckpt_0_deadbeefdeadbeefdeadbeefdeadbeef"], "")
        .assert_code(1);
    // Usage errors exit 2.
    p.run(&["propose", "--pattern", "x"], "").assert_code(2);
}

/// `propose --json` says `success` as `propose_edit` does: a proposal with a file that would
/// be refused is stored (its `patch_id` applies per file) but is not a success: `ok` and
/// `success` false, `reason` that file's, exit 1 (a refused file fails the command). A clean
/// proposal is `success: true`, exit 0.
// Regression (issue 47): `propose --json` had no `success` and exited 0 for a proposal that can
// never apply all or nothing.
#[test]
fn propose_json_says_success_false_for_a_proposal_with_a_refused_file() {
    let p = Project::with_files(&[("a.txt", "a\nb\nc\n"), ("c.txt", "a\nb\nc\n")]);
    let good = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+NEW\n c\n";
    let bad = "--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n a\n-not in the file\n+NEW\n c\n";
    let r = p.run(&["propose", "-", "--json"], &format!("{good}{bad}"));
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["reason"], "hunk_mismatch", "{v}");
    assert!(v["patch_id"].as_str().unwrap().starts_with("patch_"), "{v}");
    let failed: Vec<&serde_json::Value> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{v}");
    assert_eq!(failed[0]["path"], "c.txt");
    assert_eq!(failed[0]["reason"], "hunk_mismatch");
    // Without --json: the same exit code, the refused file on stderr.
    let r = p.run(&["propose", "-"], &format!("{good}{bad}"));
    r.assert_code(1);
    assert!(r.stderr.contains("c.txt: hunk_mismatch"), "{}", r.stderr);

    let r = p.run(&["propose", "-", "--json"], good);
    r.assert_code(0);
    let v = r.json();
    assert_eq!(
        (v["success"].clone(), v["ok"].clone()),
        (true.into(), true.into()),
        "{v}"
    );
    assert_eq!(v["reason"], serde_json::Value::Null, "{v}");
}

/// `propose --task-id --step-id --context --context-keyword --context-focus` reach the
/// evidence as the library records them (`diff_<task>_<step>_<ms>.*`, `context_<step>_<ms>.json`
/// with the excerpts lspedit selected); an id that cannot name a file or a focus that is not
/// `PATH:START-END` is a usage error naming the flag, and nothing is stored.
// Regression (issue 47): ids and context were library-only.
#[test]
fn propose_names_the_step_and_records_the_context() {
    let p = Project::with_files(&[
        ("a.txt", "a\nb\nc\n"),
        (
            "ctx.rs",
            "use std::fs;\nfn one() {}\nfn two() {}\nfn three() {}\n",
        ),
    ]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    for (args, flag) in [
        (vec!["--step-id", "bad_id"], "--step-id"),
        (vec!["--task-id", "a.b", "--step-id", "s-1"], "--task-id"),
        (
            vec!["--context", "ctx.rs", "--context-focus", "ctx.rs:x"],
            "--context-focus",
        ),
        (vec!["--context-focus", "ctx.rs:3-1"], "--context-focus"),
    ] {
        let mut all = vec!["propose", "-", "--json"];
        all.extend(&args);
        let r = p.run(&all, patch);
        r.assert_code(2);
        let v = r.json();
        assert_eq!(v["reason"], "usage_error", "{args:?}: {v}");
        assert!(
            v["llm_content"].as_str().unwrap().contains(flag),
            "{args:?}: {v}"
        );
        assert!(
            !p.root.join(".lspedit").exists(),
            "{args:?} stored something"
        );
    }

    let r = p.run(
        &[
            "propose",
            "-",
            "--json",
            "--task-id",
            "task-7",
            "--step-id",
            "step-2",
            "--context",
            "ctx.rs",
            "--context-keyword",
            "two",
            "--context-focus",
            "a.txt:1-2",
        ],
        patch,
    );
    r.assert_code(0);
    let v = r.json();
    let evidence_id = v["evidence_id"].as_str().unwrap();
    let ms = evidence_id
        .strip_prefix("diff_task-7_step-2_")
        .filter(|ms| ms.len() == 13 && ms.bytes().all(|b| b.is_ascii_digit()))
        .unwrap_or_else(|| panic!("{v}"));
    let evidence = p.root.join(".lspedit/evidence");
    assert!(evidence.join(format!("{evidence_id}.diff")).is_file());
    let context: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(evidence.join(format!("context_step-2_{ms}.json"))).unwrap(),
    )
    .unwrap();
    assert_eq!(context["files"][0]["path"], "ctx.rs", "{context}");
    assert!(
        context["files"][0]["text"]
            .as_str()
            .unwrap()
            .contains("fn two"),
        "{context}"
    );
    assert_eq!(context["files"][1]["path"], "a.txt", "{context}");
    assert_eq!(context["files"][1]["ranges"], serde_json::json!([[1, 2]]));
}

/// Regression (issue 24): `apply-id` was per file by default, writing two files of a 3-file
/// proposal whose third hunk failed. Now it writes every file or none unless `--per-file`, and
/// its limits only tighten the policy (a person widens it in their config's `[policy]`).
#[test]
fn apply_id_is_all_or_nothing_and_its_limits_only_tighten_the_policy() {
    let files = [
        ("a.txt", "a\nb\nc\n"),
        ("b.txt", "a\nb\nc\n"),
        ("c.txt", "a\nb\nc\n"),
    ];
    let p = Project::with_files(&files);
    let mut patch = String::new();
    for f in ["a.txt", "b.txt"] {
        patch.push_str(&format!(
            "--- a/{f}\n+++ b/{f}\n@@ -1,3 +1,3 @@\n a\n-b\n+NEW\n c\n"
        ));
    }
    patch.push_str("--- a/c.txt\n+++ b/c.txt\n@@ -1,3 +1,3 @@\n a\n-not in the file\n+NEW\n c\n");
    let r = p.run(&["propose", "-", "--json"], &patch);
    // Stored for a per-file apply, but it cannot apply all or nothing: not a success.
    r.assert_code(1);
    let id = r.json()["patch_id"].as_str().unwrap().to_string();

    let r = p.run(&["apply-id", &id, "--no-diagnostics", "--json"], "");
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["reason"], "hunk_mismatch", "{v}");
    assert_eq!(v["status"], "refused", "{v}");
    for (f, text) in files {
        assert_eq!(p.read(f), text, "{f} was written");
    }
    let r = p.run(
        &[
            "apply-id",
            &id,
            "--max-files",
            "50",
            "--no-diagnostics",
            "--json",
        ],
        "",
    );
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["reason"], "scope_violation", "{v}");
    assert!(
        v["llm_content"]
            .as_str()
            .unwrap()
            .contains("max_files 50 exceeds the operator's limit of 3"),
        "{v}"
    );
    let r = p.run(
        &["apply-id", &id, "--per-file", "--no-diagnostics", "--json"],
        "",
    );
    r.assert_code(1);
    assert_eq!(r.json()["status"], "partially_applied");
    assert_eq!(p.read("a.txt"), "a\nNEW\nc\n");
    assert_eq!(p.read("c.txt"), "a\nb\nc\n");
}

/// `propose --language` picks files by extension when no scope is given, and `apply-id
/// --confirm` refuses (usage error, nothing written) when standard input is not a terminal to
/// ask on.
#[test]
fn propose_language_and_confirm_without_a_terminal() {
    let p = Project::with_files(&[("src/a.rs", "old_name();\n"), ("web/b.ts", "old_name();\n")]);
    let r = p.run(
        &[
            "propose",
            "--pattern",
            "old_name",
            "--replacement",
            "new_name",
            "--language",
            "rust",
            "--json",
        ],
        "",
    );
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["affected_files"], serde_json::json!(["src/a.rs"]));
    let id = v["patch_id"].as_str().unwrap().to_string();
    let r = p.run(&["apply-id", &id, "--confirm", "--no-diagnostics"], "y\n");
    r.assert_code(2);
    assert!(
        r.stderr.contains("--confirm asks on a terminal"),
        "{}",
        r.stderr
    );
    assert_eq!(p.read("src/a.rs"), "old_name();\n");
    // An unknown language is a refusal naming the ones known.
    let r = p.run(
        &[
            "propose",
            "--pattern",
            "x",
            "--replacement",
            "y",
            "--language",
            "cobol",
        ],
        "",
    );
    r.assert_code(1);
    // A refusal is for the person: on stderr (results alone go to stdout).
    assert!(r.stderr.contains("`cobol`"), "{}", r.stderr);
}

/// A proposal from patch text on stdin, applied all or nothing with a validation command that
/// fails: nothing is written and the command's output tail is reported.
#[test]
fn apply_id_validation_failure_writes_nothing() {
    let p = Project::with_files(&[("a.txt", "one\ntwo\n")]);
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    let r = p.run(&["propose", "-", "--json"], patch);
    r.assert_code(0);
    let id = r.json()["patch_id"].as_str().unwrap().to_string();
    let r = p.run(
        &[
            "apply-id",
            &id,
            "--all-or-nothing",
            "--validate",
            "sh -c exit_7_is_not_a_command",
            "--no-diagnostics",
            "--json",
        ],
        "",
    );
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["reason"], "validation_failed", "{v}");
    assert_eq!(v["validation"]["passed"], false);
    assert_eq!(p.read("a.txt"), "one\ntwo\n");
    let r = p.run(
        &[
            "apply-id",
            &id,
            "--validate",
            "true",
            "--no-diagnostics",
            "--json",
        ],
        "",
    );
    r.assert_code(0);
    assert_eq!(r.json()["validation"]["passed"], true);
    assert_eq!(p.read("a.txt"), "one\nthree\n");
}

/// Bad input is data, not a usage error or a hang: a patch that is not UTF-8 is refused with a
/// reason code (exit 1), a FIFO target is refused at once, and a whole-patch refusal carries
/// its reason in `--json`. Regressions found by the bad-input corpus (`lspedit-bench corpus`).
#[test]
fn non_utf8_patches_fifos_and_whole_patch_refusals_have_reasons() {
    let p = Project::with_files(&[("a.txt", "a\nb\n")]);
    let bad = p.root.join("bad.diff");
    std::fs::write(&bad, b"--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+\xff\n").unwrap();
    let r = p.run(&["apply", bad.to_str().unwrap(), "--no-diagnostics"], "");
    r.assert_code(1);
    assert!(r.stderr.contains("invalid_diff_format"), "{}", r.stderr);
    assert_eq!(p.read("a.txt"), "a\nb\n");
    // Under --json the same refusal is a JSON document on stdout with its reason.
    let r = p.run(
        &["apply", bad.to_str().unwrap(), "--no-diagnostics", "--json"],
        "",
    );
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(v["reason"], "invalid_diff_format", "{v}");
    assert_eq!(p.read("a.txt"), "a\nb\n");

    let fifo = p.root.join("pipe");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    let r = p.run(
        &["apply", "-", "--no-diagnostics", "--json"],
        "--- a/pipe\n+++ b/pipe\n@@ -1 +1 @@\n-a\n+b\n",
    );
    r.assert_code(1);
    let v = r.json();
    assert_eq!(v["files"][0]["reason"], "io_error", "{v}");

    let r = p.run(
        &["apply", "-", "--no-diagnostics", "--json"],
        // The last line was cut: ` bravo` became ` br`, which the file cannot verify.
        "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-a\n+A\n br",
    );
    r.assert_code(1);
    assert_eq!(r.json()["reason"], "truncated_input");
    assert_eq!(p.read("a.txt"), "a\nb\n");
}

/// Runs `lspedit ARGS --root <p>` with `XDG_CONFIG_HOME=<config>`, so the trust records and the
/// person's config are a temp directory's, not the developer's.
fn run_with_config(p: &Project, config: &std::path::Path, args: &[&str]) -> crate::harness::Run {
    let root = p.root.display().to_string();
    let out = std::process::Command::new(crate::harness::bin())
        .args(args)
        .args(["--root", &root])
        .env("XDG_CONFIG_HOME", config)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    crate::harness::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// A workspace config that chooses programs: an override of a bundled server's command and a
/// new server.
const CHOOSES_PROGRAMS: &str = "[servers.pyright]\ncommand = \"/bin/sh\"\nenv = { LD_PRELOAD = \"/tmp/x.so\" }\n\
     [servers.evil]\ncommand = \"/bin/true\"\nlanguages = { evl = \"evil\" }\ndiagnostics = { strategy = \"pull\" }\n";

// Regression: a workspace `.lspedit/config.toml` chose the program lspedit ran.
#[test]
fn servers_status_warns_of_an_untrusted_workspace_config_until_trusted() {
    let p = Project::with_files(&[
        (".lspedit/config.toml", CHOOSES_PROGRAMS),
        ("notes.md", "notes\n"),
    ]);
    let config = tempfile::tempdir().unwrap();
    let status = |p: &Project| {
        let r = run_with_config(p, config.path(), &["servers", "status", "--json"]);
        r.assert_code(0);
        r.json()
    };
    let server = |v: &serde_json::Value, id: &str| {
        v["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .cloned()
    };

    let v = status(&p);
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{v}");
    let w = warnings[0].as_str().unwrap();
    for part in [
        "servers.pyright.command",
        "servers.pyright.env",
        "servers.evil (a new server)",
        "not trusted",
        "lspedit trust",
    ] {
        assert!(w.contains(part), "{part:?} not in {w}");
    }
    assert!(server(&v, "evil").is_none(), "{v}");
    assert_ne!(server(&v, "pyright").unwrap()["binary"], "/bin/sh");
    let text = run_with_config(&p, config.path(), &["servers", "status"]);
    text.assert_code(0);
    assert!(
        text.stdout
            .starts_with("warning: .lspedit/config.toml sets ")
            && text.stdout.contains("servers.evil (a new server)"),
        "{}",
        text.stdout
    );
    // The `diagnostics` tool (here through `check`) ends with it, for the model.
    let check = run_with_config(&p, config.path(), &["check", "notes.md"]);
    assert!(
        check
            .stdout
            .contains("\n\nWarning: .lspedit/config.toml sets "),
        "{}",
        check.stdout
    );
    // `lspedit mcp` logs it once on stderr at start (stdin is closed: it stops at once).
    let mcp = run_with_config(&p, config.path(), &["mcp"]);
    assert_eq!(
        mcp.stderr
            .matches("warning: .lspedit/config.toml sets ")
            .count(),
        1,
        "{}",
        mcp.stderr
    );

    // `lspedit trust` names the file and its hash, and warns.
    let t = run_with_config(&p, config.path(), &["trust"]);
    t.assert_code(0);
    let file = p.root.join(".lspedit/config.toml");
    assert!(
        t.stdout
            .starts_with(&format!("Trusted {}\nsha256 ", file.display())),
        "{}",
        t.stdout
    );
    let sha = t
        .stdout
        .lines()
        .nth(1)
        .unwrap()
        .trim_start_matches("sha256 ");
    assert!(
        sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()),
        "{sha}"
    );
    assert!(
        t.stderr.contains("chooses programs") && t.stderr.contains("servers.pyright.command"),
        "{}",
        t.stderr
    );
    let v = status(&p);
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
    assert_eq!(server(&v, "evil").unwrap()["binary"], "/bin/true");

    // One byte changed: untrusted again.
    std::fs::write(&file, CHOOSES_PROGRAMS.replace("/bin/true", "/bin/tru2")).unwrap();
    let v = status(&p);
    assert!(
        v["warnings"][0]
            .as_str()
            .unwrap()
            .contains("changed since it was trusted"),
        "{v}"
    );
    assert!(server(&v, "evil").is_none());

    // Revoked: untrusted; revoking twice says so.
    run_with_config(&p, config.path(), &["trust"]).assert_code(0);
    let r = run_with_config(&p, config.path(), &["trust", "--revoke"]);
    r.assert_code(0);
    assert!(r.stdout.starts_with("No longer trusted"), "{}", r.stdout);
    assert!(
        status(&p)["warnings"][0]
            .as_str()
            .unwrap()
            .contains("is not trusted")
    );
    let r = run_with_config(&p, config.path(), &["trust", "--revoke"]);
    assert!(r.stdout.contains("was not trusted"), "{}", r.stdout);
}

#[test]
fn trust_without_a_workspace_config_lifts_restricted_mode_until_a_config_appears() {
    let p = greet_project();
    let config = tempfile::tempdir().unwrap();
    assert_eq!(status_with_config(&p, config.path())["mode"], "restricted");
    let r = run_with_config(&p, config.path(), &["trust"]);
    r.assert_code(0);
    assert!(
        r.stdout.contains("Restricted mode is lifted"),
        "{}",
        r.stdout
    );
    assert_eq!(status_with_config(&p, config.path())["mode"], "trusted");
    std::fs::create_dir_all(p.root.join(".lspedit")).unwrap();
    std::fs::write(
        p.root.join(".lspedit/config.toml"),
        "[pool]\nmax_running = 2\n",
    )
    .unwrap();
    assert_eq!(status_with_config(&p, config.path())["mode"], "restricted");
}

fn status_with_config(p: &Project, config: &std::path::Path) -> serde_json::Value {
    let r = run_with_config(p, config, &["--json", "servers", "status"]);
    r.assert_code(0);
    r.json()
}

#[test]
fn the_persons_config_chooses_programs_without_trust() {
    let p = greet_project();
    let config = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(config.path().join("lspedit/config.toml"), CHOOSES_PROGRAMS).unwrap();
    let r = run_with_config(&p, config.path(), &["servers", "status", "--json"]);
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["warnings"], serde_json::json!([]), "{v}");
    let evil = v["servers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "evil")
        .cloned();
    assert_eq!(evil.unwrap()["binary"], "/bin/true");
}

/// Regression: `lspedit propose` told the person at the shell to call `apply_edit(...)`, the
/// MCP tool; the next step on the CLI is `lspedit apply-id <id>`, and that command works.
#[test]
fn propose_names_the_apply_id_command() {
    let p = Project::with_files(&[("a.txt", "one\ntwo\n")]);
    let r = p.run(
        &["propose", "--pattern", "two", "--replacement", "three"],
        "",
    );
    r.assert_code(0);
    let first = r.stdout.lines().next().unwrap();
    let id = first
        .strip_prefix("Proposed ")
        .and_then(|rest| rest.split(':').next())
        .unwrap();
    assert!(
        first.ends_with(&format!("apply it with `lspedit apply-id {id}`.")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("apply_edit("), "{}", r.stdout);
    assert!(r.stdout.contains("+three"), "{}", r.stdout);
    p.run(&["apply-id", id, "--no-diagnostics"], "")
        .assert_code(0);
    assert_eq!(p.read("a.txt"), "one\nthree\n");
}

/// Runs `lspedit ARGS` (stdin empty) with extra environment variables, stdout piped (so never a
/// terminal).
fn run_env(args: &[&str], env: &[(&str, &str)]) -> crate::harness::Run {
    let mut cmd = std::process::Command::new(crate::harness::bin());
    cmd.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .stdin(std::process::Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    crate::harness::Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// `text` without ANSI SGR sequences (`ESC [ ... m`).
fn strip_ansi(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn root_json_and_color_are_accepted_before_or_after_the_subcommand() {
    let p = greet_project();
    let root = p.root.display().to_string();
    let before = run_env(&["--root", &root, "--json", "read", "src/greet.ts"], &[]);
    let after = run_env(&["read", "src/greet.ts", "--json", "--root", &root], &[]);
    let mixed = run_env(
        &[
            "--color",
            "never",
            "read",
            "--root",
            &root,
            "src/greet.ts",
            "--json",
        ],
        &[],
    );
    before.assert_code(0);
    assert_eq!(before.stdout, after.stdout);
    assert_eq!(before.stdout, mixed.stdout);
    assert_eq!(before.json()["total_lines"], 3);
    // Subcommands of subcommands too.
    let status = run_env(&["--json", "servers", "status", "--root", &root], &[]);
    status.assert_code(0);
    assert!(status.json()["servers"].is_array());
}

/// Every command's `--json` output is exactly one document with the four common keys, and
/// every item of `files` has the same keys, whatever the command and whether it succeeded.
#[test]
fn json_is_one_document_of_one_shape_for_every_command() {
    let p = Project::with_files(&[("src/greet.ts", GREET), ("notes.txt", "alpha\nbeta\n")]);
    let root = p.root.display().to_string();
    let j = |args: &[&str], stdin: &str| {
        let mut all: Vec<&str> = vec!["--json", "--root", &root];
        all.extend(args);
        run(&all, stdin)
    };
    let view = p.run(&["read", "notes.txt"], "").stdout;
    let a1 = view.lines().next().unwrap().split('|').next().unwrap();
    let patch = format!("--- a/notes.txt\n+++ b/notes.txt\n@@ @@\n-{a1}|alpha\n+ALPHA\n beta\n");
    let mut runs = vec![
        ("read", j(&["read", "notes.txt"], "")),
        ("read missing", j(&["read", "nope.txt"], "")),
        (
            "edit refused",
            j(
                &[
                    "edit",
                    "notes.txt",
                    "--old",
                    "zzz",
                    "--new",
                    "y",
                    "--no-diagnostics",
                ],
                "",
            ),
        ),
        ("dry run", j(&["apply", "--dry-run"], &patch)),
        ("apply", j(&["apply", "--no-diagnostics"], &patch)),
        ("apply again", j(&["apply", "--no-diagnostics"], &patch)),
        (
            "bad patch",
            j(&["apply", "--no-diagnostics"], "not a patch\n"),
        ),
        (
            "write",
            j(&["write", "new.txt", "--no-diagnostics"], "fresh\n"),
        ),
        ("check without a server", j(&["check", "notes.txt"], "")),
        ("usage error", j(&["read"], "")),
        (
            "bad root",
            run(
                &["--json", "--root", "/definitely/not/here", "read", "x"],
                "",
            ),
        ),
        ("servers status", j(&["servers", "status"], "")),
        (
            "undo unknown",
            j(&["undo", "ckpt_0_deadbeefdeadbeefdeadbeefdeadbeef"], ""),
        ),
        ("apply-id unknown", j(&["apply-id", "patch_1_abc"], "")),
        // The LSP commands, refused (no server reads a .txt file), and their files' refusals.
        ("outline", j(&["outline", "notes.txt"], "")),
        (
            "find-symbol",
            j(&["find-symbol", "alpha", "--path", "nope.txt"], ""),
        ),
        ("refs", j(&["refs", "notes.txt", "1", "alpha"], "")),
        ("refs missing", j(&["refs", "nope.txt", "1", "alpha"], "")),
        ("fix", j(&["fix", "notes.txt", "1"], "")),
        (
            "rename",
            j(&["rename", "notes.txt", "1", "alpha", "omega"], ""),
        ),
        ("hover", j(&["hover", "notes.txt", "1", "alpha"], "")),
        ("calls", j(&["calls", "notes.txt", "1", "alpha"], "")),
        (
            "replace-symbol",
            j(&["replace-symbol", "notes.txt", "alpha"], "x\n"),
        ),
    ];
    let proposed = j(
        &["propose", "--pattern", "beta", "--replacement", "gamma"],
        "",
    );
    let id = proposed.json()["patch_id"].as_str().unwrap().to_string();
    runs.push(("propose", proposed));
    let applied = j(&["apply-id", &id, "--no-diagnostics"], "");
    let checkpoint = applied.json()["checkpoint_id"]
        .as_str()
        .unwrap()
        .to_string();
    runs.push(("apply-id", applied));
    runs.push(("undo", j(&["undo", &checkpoint], "")));

    let mut item_keys: Option<Vec<String>> = None;
    for (what, r) in &runs {
        let v = r.json();
        // The four keys first, in this order, whatever the command's own fields are named.
        assert_eq!(
            top_level_keys(&r.stdout)[..4],
            ["ok", "reason", "llm_content", "files"],
            "{what}: {}",
            r.stdout
        );
        let ok = v["ok"]
            .as_bool()
            .unwrap_or_else(|| panic!("{what}: no ok: {v}"));
        assert_eq!(ok, r.code == 0, "{what}: ok vs exit code {}: {v}", r.code);
        assert!(v["llm_content"].is_string(), "{what}: {v}");
        assert!(v["files"].is_array(), "{what}: {v}");
        let reason = v
            .get("reason")
            .unwrap_or_else(|| panic!("{what}: no reason: {v}"));
        assert_eq!(reason.is_null(), ok, "{what}: {v}");
        for f in v["files"].as_array().unwrap() {
            let mut keys: Vec<String> = f.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            match &item_keys {
                None => item_keys = Some(keys),
                Some(k) => assert_eq!(&keys, k, "{what}: file item {f}"),
            }
        }
    }
    assert!(item_keys.is_some(), "no command listed a file");
    let by = |what: &str| {
        runs.iter()
            .find(|(w, _)| *w == what)
            .map(|(_, r)| r.json())
            .unwrap()
    };
    assert_eq!(by("usage error")["reason"], "usage_error");
    assert_eq!(by("bad root")["reason"], "usage_error");
    assert_eq!(by("read missing")["reason"], "file_not_found");
    // A refusal about one file lists it, `failed`, with its reason.
    for (what, path, reason) in [
        ("read missing", "nope.txt", "file_not_found"),
        ("edit refused", "notes.txt", "hunk_mismatch"),
        ("refs missing", "nope.txt", "file_not_found"),
    ] {
        let f = &by(what)["files"][0];
        assert_eq!(f["path"], path, "{what}: {f}");
        assert_eq!(f["status"], "failed", "{what}: {f}");
        assert_eq!(f["reason"], reason, "{what}: {f}");
    }
    assert_eq!(
        by("check without a server")["files"][0]["status"],
        "not_checked"
    );
    assert_eq!(by("apply again")["reason"], "already_applied");
    assert_eq!(by("apply")["files"][0]["status"], "modified");
    // The writing commands list each file's diagnostics status (none asked here).
    for what in ["apply", "write", "edit refused"] {
        assert_eq!(by(what)["diagnostics"], serde_json::json!([]), "{what}");
    }
    assert_eq!(by("apply-id")["diagnostics"], serde_json::json!([]));
    assert_eq!(by("propose")["files"][0]["status"], "proposed");
    // No map in any document: the bases are a list of `{path, sha}`, as propose_edit takes them.
    let bases = &by("propose")["base_shas"];
    assert_eq!(bases.as_array().map(Vec::len), Some(1), "{bases}");
    assert_eq!(bases[0]["path"], by("propose")["files"][0]["path"]);
    assert_eq!(bases[0]["sha"], by("propose")["files"][0]["base_sha"]);
    assert_eq!(by("apply-id")["files"][0]["status"], "applied");
    assert_eq!(by("undo")["files"][0]["status"], "restored");
}

/// The keys of a pretty-printed JSON document's top-level object, in the order printed.
fn top_level_keys(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  \""))
        .filter_map(|l| l.split_once("\":").map(|(k, _)| k.to_string()))
        .collect()
}

// Regression (issue 49): a whole-patch refusal was summarised on stderr with its reason twice
// (`anchored_addition: anchored_addition: …`): the report's text already starts with it.
#[test]
fn a_whole_patch_refusal_names_its_reason_once_on_stderr() {
    let p = Project::with_files(&[("a.txt", "a\nb\n")]);
    for (patch, reason) in [
        (
            "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+1abcd|B\n",
            "anchored_addition",
        ),
        ("not a patch at all\n", "invalid_diff_format"),
        (
            "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n",
            "truncated_input",
        ),
    ] {
        let r = p.run(&["apply", "--no-diagnostics"], patch);
        r.assert_code(1);
        assert_eq!(r.stderr.matches(reason).count(), 1, "{}", r.stderr);
        assert!(
            r.stderr.starts_with(&format!("lspedit: {reason}: ")),
            "{}",
            r.stderr
        );
        assert_eq!(p.read("a.txt"), "a\nb\n");
    }
}

#[test]
fn reports_go_to_stdout_and_refusals_are_summarised_on_stderr() {
    let p = greet_project();
    let ok = p.run(
        &[
            "edit",
            "src/greet.ts",
            "--old",
            "hi ",
            "--new",
            "hey ",
            "--no-diagnostics",
        ],
        "",
    );
    ok.assert_code(0);
    assert!(
        ok.stdout.starts_with("Edited src/greet.ts"),
        "{}",
        ok.stdout
    );
    assert_eq!(ok.stderr, "");

    let refused = p.run(
        &[
            "edit",
            "src/greet.ts",
            "--old",
            "absent",
            "--new",
            "x",
            "--no-diagnostics",
        ],
        "",
    );
    refused.assert_code(1);
    assert!(
        refused.stdout.contains("hunk_mismatch"),
        "{}",
        refused.stdout
    );
    assert!(
        refused.stderr.starts_with("lspedit: hunk_mismatch: "),
        "{}",
        refused.stderr
    );

    let usage = p.run(&["read", "src/nope.ts"], "");
    usage.assert_code(1);
    assert_eq!(usage.stdout, "");
    assert!(usage.stderr.contains("file_not_found"), "{}", usage.stderr);
}

/// Colour changes styles only: the text is the same with and without it, `auto` follows
/// NO_COLOR, CLICOLOR_FORCE and TERM=dumb, and `--color` overrides the environment.
#[test]
fn color_changes_only_styles_and_follows_the_environment() {
    let diff_run = |color: &str, env: &[(&str, &str)]| {
        let p = greet_project();
        let root = p.root.display().to_string();
        run_env(
            &[
                "edit",
                "src/greet.ts",
                "--old",
                "\"hi \"",
                "--new",
                "\"hello \"",
                "--no-diagnostics",
                "--diff",
                "--color",
                color,
                "--root",
                &root,
            ],
            env,
        )
    };
    let never = diff_run("never", &[]);
    never.assert_code(0);
    assert!(!never.stdout.contains('\x1b'), "{}", never.stdout);
    assert!(
        never.stdout.contains("+  return \"hello \" + name;"),
        "{}",
        never.stdout
    );
    let always = diff_run("always", &[("NO_COLOR", "1")]);
    assert!(always.stdout.contains("\x1b["), "{:?}", always.stdout);
    assert_eq!(strip_ansi(&always.stdout), never.stdout);
    // auto, piped: no colour, unless forced.
    assert_eq!(diff_run("auto", &[]).stdout, never.stdout);
    let forced = diff_run("auto", &[("CLICOLOR_FORCE", "1")]);
    assert!(forced.stdout.contains("\x1b["), "{:?}", forced.stdout);
    assert_eq!(strip_ansi(&forced.stdout), never.stdout);
    // NO_COLOR wins over CLICOLOR_FORCE; TERM=dumb is no colour.
    let both = diff_run("auto", &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert_eq!(both.stdout, never.stdout);
    assert_eq!(diff_run("auto", &[("TERM", "dumb")]).stdout, never.stdout);
    // Every kind of result line is styled (what was written, refusals on both streams,
    // warnings), the text the same as without colour.
    let p = greet_project();
    let root = p.root.display().to_string();
    let edit = |color: &str, old: &str| {
        run_env(
            &[
                "edit",
                "src/greet.ts",
                "--old",
                old,
                "--new",
                "hey ",
                "--no-diagnostics",
                "--color",
                color,
                "--root",
                &root,
            ],
            &[],
        )
    };
    let refused_plain = edit("never", "absent");
    let refused = edit("always", "absent");
    refused.assert_code(1);
    assert!(
        refused.stdout.starts_with("\x1b[1m\x1b[31mError:\x1b[0m "),
        "{:?}",
        refused.stdout
    );
    assert!(refused.stderr.contains("\x1b[31m"), "{:?}", refused.stderr);
    assert_eq!(strip_ansi(&refused.stdout), refused_plain.stdout);
    assert_eq!(strip_ansi(&refused.stderr), refused_plain.stderr);
    assert!(!refused_plain.stdout.contains('\x1b'));
    let undo = |color: &str| {
        run_env(
            &[
                "undo",
                "ckpt_0_deadbeefdeadbeefdeadbeefdeadbeef",
                "--color",
                color,
                "--root",
                &root,
            ],
            &[],
        )
    };
    let (undo_plain, undo) = (undo("never"), undo("always"));
    assert!(
        undo.stderr.starts_with("\x1b[1m\x1b[31mError:"),
        "{:?}",
        undo.stderr
    );
    assert_eq!(strip_ansi(&undo.stderr), undo_plain.stderr);
    let written = edit("always", "hi ");
    written.assert_code(0);
    assert!(
        written.stdout.starts_with("\x1b[32mEdited\x1b[0m "),
        "{:?}",
        written.stdout
    );
}

/// `.lspedit/` keeps itself out of git: created with a `.gitignore` holding `*`.
#[test]
fn lspedit_state_has_a_gitignore() {
    let p = Project::with_files(&[("a.txt", "one\n")]);
    assert!(!p.root.join(".lspedit").exists());
    p.run(&["propose", "--pattern", "one", "--replacement", "two"], "")
        .assert_code(0);
    assert_eq!(p.read(".lspedit/.gitignore"), "*\n");
    // A person's own .gitignore there is left alone.
    std::fs::write(p.root.join(".lspedit/.gitignore"), "patches/\n").unwrap();
    p.run(
        &["propose", "--pattern", "one", "--replacement", "three"],
        "",
    )
    .assert_code(0);
    assert_eq!(p.read(".lspedit/.gitignore"), "patches/\n");
}

/// A binary counts as installed only if `--version` runs: the rustup proxy without its
/// component behind it is `missing`, with rustup's own words as the problem.
#[cfg(unix)]
#[test]
fn a_binary_whose_version_fails_is_missing() {
    use std::os::unix::fs::PermissionsExt;
    let servers = tempfile::tempdir().unwrap();
    let bin = servers.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let proxy = bin.join("rust-analyzer");
    std::fs::write(
        &proxy,
        "#!/bin/sh\necho \"error: Unknown binary 'rust-analyzer' in official toolchain 'stable'.\" >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&proxy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = servers.path().display().to_string();
    let status = |what: &str| {
        let r = run_env(
            &["servers", "status", "--json"],
            &[("LSPEDIT_SERVERS_DIR", &dir)],
        );
        r.assert_code(0);
        let v = r.json();
        assert_eq!(v["servers_dir"], dir.as_str(), "{what}: {v}");
        v["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == "rust-analyzer")
            .cloned()
            .unwrap()
    };
    let ra = status("proxy");
    assert_eq!(ra["state"], "missing", "{ra}");
    assert!(
        ra["problem"].as_str().unwrap().contains("Unknown binary"),
        "{ra}"
    );
    assert!(
        ra["install"]
            .as_str()
            .unwrap()
            .contains("pinned to the toolchain"),
        "{ra}"
    );
    // The same program once it answers: found in the servers dir's `bin/`, and it runs.
    std::fs::write(&proxy, "#!/bin/sh\necho 'rust-analyzer 1.95.0 (test)'\n").unwrap();
    let ra = status("answering");
    assert_eq!(ra["binary"], proxy.display().to_string().as_str(), "{ra}");
    assert_eq!(ra["version"], "rust-analyzer 1.95.0 (test)", "{ra}");
}

// `--first-check-timeout-ms` is the deadline of a cold check: 1 ms cannot be met by any real
// server start, so the write says its verdict is pending (one neutral line) and its status is
// `timed_out`; `check` exits 3.
#[test]
fn the_deadline_flags_set_how_long_a_command_waits() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    let r = p.run(
        &[
            "write",
            "src/extra.ts",
            "--first-check-timeout-ms",
            "1",
            "--check-timeout-ms",
            "1",
            "--json",
        ],
        "export const x = 1;\n",
    );
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["diagnostics"][0]["path"], "src/extra.ts", "{v}");
    assert_eq!(v["diagnostics"][0]["status"], "timed_out", "{v}");
    assert_eq!(
        v["diagnostics"][0]["reported"],
        serde_json::json!([]),
        "{v}"
    );
    let llm = v["llm_content"].as_str().unwrap();
    assert!(
        llm.contains("\n\nDiagnostics for src/extra.ts pending: "),
        "{llm}"
    );
    let c = p.run(
        &["check", "src/index.ts", "--first-check-timeout-ms", "1"],
        "",
    );
    c.assert_code(3);
}

/// Whatever mix of written and refused files an apply ends in, the whole report (every file's
/// status, the written files' fresh anchors) is on stdout, and stderr names exactly the refused
/// files: a caller reading stdout never loses what was written (regression: a partial apply
/// printed everything on stderr and nothing on stdout).
#[test]
fn a_partial_apply_keeps_its_whole_report_on_stdout() {
    let files: Vec<(String, String)> = (0..4)
        .map(|i| (format!("f{i}.txt"), format!("a{i}\nb{i}\nc{i}\n")))
        .collect();
    for refused_mask in 0u8..16 {
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let p = Project::with_files(&refs);
        let mut patch = String::new();
        for i in 0..4 {
            let old = if refused_mask & (1 << i) != 0 {
                "nope"
            } else {
                "b"
            };
            patch.push_str(&format!(
                "--- a/f{i}.txt\n+++ b/f{i}.txt\n@@ -1,3 +1,3 @@\n a{i}\n-{old}{i}\n+B{i}\n c{i}\n"
            ));
        }
        let r = p.run(&["apply", "--no-diagnostics"], &patch);
        r.assert_code(if refused_mask == 0 { 0 } else { 1 });
        for (i, (path, before)) in files.iter().enumerate() {
            let refused = refused_mask & (1 << i) != 0;
            if refused {
                assert!(
                    r.stdout.contains(&format!("FAILED {path}: hunk_mismatch")),
                    "mask {refused_mask}: {}",
                    r.stdout
                );
                assert!(
                    r.stderr
                        .contains(&format!("lspedit: {path}: hunk_mismatch: ")),
                    "mask {refused_mask}: {}",
                    r.stderr
                );
                assert_eq!(&p.read(path), before);
            } else {
                assert!(
                    r.stdout.contains(&format!("M {path}")),
                    "mask {refused_mask}: {}",
                    r.stdout
                );
                assert!(
                    r.stdout.contains(&format!("|B{i}")),
                    "mask {refused_mask}: fresh anchors of {path} missing: {}",
                    r.stdout
                );
                assert!(
                    !r.stderr.contains(path.as_str()),
                    "mask {refused_mask}: {}",
                    r.stderr
                );
                assert!(p.read(path).contains(&format!("B{i}")));
            }
        }
        if refused_mask == 0 {
            assert_eq!(r.stderr, "");
        }
    }
}

/// An empty standard input never empties a file (a closed or forgotten pipe), whatever the
/// file held; `--allow-empty` says it is meant.
#[test]
fn write_refuses_an_empty_standard_input_unless_allowed() {
    let p = Project::with_files(&[("a.txt", "keep\n"), ("b.txt", "")]);
    for (file, before) in [("a.txt", "keep\n"), ("b.txt", ""), ("new.txt", "")] {
        for args in [
            vec!["write", file, "--no-diagnostics"],
            vec!["write", file, "-", "--no-diagnostics"],
        ] {
            let r = p.run(&args, "");
            r.assert_code(2);
            assert!(r.stderr.contains("--allow-empty"), "{}", r.stderr);
            assert!(r.stderr.contains(file), "{}", r.stderr);
            if file == "new.txt" {
                assert!(!p.root.join(file).exists(), "{file} was created");
            } else {
                assert_eq!(p.read(file), before);
            }
        }
    }
    let r = p.run(&["write", "a.txt", "--allow-empty", "--no-diagnostics"], "");
    r.assert_code(0);
    assert_eq!(p.read("a.txt"), "");
    // Content from a named file is what it is, even empty.
    p.run(&["write", "a.txt", "--no-diagnostics"], "x\n")
        .assert_code(0);
    let empty = p.root.join("b.txt");
    let r = p.run(
        &[
            "write",
            "a.txt",
            empty.to_str().unwrap(),
            "--no-diagnostics",
        ],
        "",
    );
    r.assert_code(0);
    assert_eq!(p.read("a.txt"), "");
}

/// Whether `line` is a file's own text as lspedit shows it (a hashline `42abcd|…`, a diff
/// line): code may call functions and name things in `snake_case`; lspedit's words may not.
fn is_file_text(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let hashline = digits > 0
        && line.len() > digits + 4
        && line.as_bytes()[digits..digits + 4]
            .iter()
            .all(|b| (b'a'..=b'p').contains(b))
        && line.as_bytes()[digits + 4] == b'|';
    hashline || line.starts_with(['+', '-', ' ', '@'])
}

/// The MCP words in `text` (outside the files' own text): a `snake_case` name that is not one
/// of the CLI's codes (reason codes, statuses), or a call `name(`.
fn mcp_words(text: &str, codes: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines().filter(|l| !is_file_text(l)) {
        for w in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let snake = w.contains('_')
                && w.split('_')
                    .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_lowercase()));
            if snake && !codes.iter().any(|c| c == w) {
                found.push(format!("`{w}` in: {line}"));
            }
        }
        let b = line.as_bytes();
        if b.windows(2)
            .any(|w| w[1] == b'(' && (w[0].is_ascii_alphanumeric() || w[0] == b'_'))
        {
            found.push(format!("a call in: {line}"));
        }
    }
    found
}

// The CLI speaks CLI: every hint the shared layers give (what to run next, which argument to
// change) names `lspedit` commands and options, never an MCP tool (`propose_edit`), an MCP
// argument (`old_text`) or call syntax (`apply_code_action(path=…)`). Runs every command path
// that gives one, in text and in `--json`.
#[test]
fn cli_hints_name_commands_never_mcp_tools() {
    let codes: Vec<String> = lspedit::write::Reason::ALL
        .iter()
        .map(|r| r.as_str().to_string())
        .chain(
            lspedit::lsp_edits::LspEditReason::OWN
                .iter()
                .map(|r| r.as_str().to_string()),
        )
        .chain(
            lspedit::tools::DiagnosticsStatus::ALL
                .iter()
                .map(|s| s.as_str().to_string()),
        )
        .chain(["not_checked", "lsp_errors", "usage_error", "base_sha"].map(String::from))
        .collect();
    let many: String = (0..410)
        .map(|i| format!("export const v{i} = {i};\n"))
        .collect();
    let long: String = format!(
        "export function long(): number {{\n{}  return 0;\n}}\n",
        "  let a = 1;\n".repeat(210)
    );
    let p = Project::with_files(&[
        ("src/greet.ts", GREET),
        ("src/use.ts", "export const y = greet(\"a\");\n"),
        ("src/many.ts", &many),
        ("src/long.ts", &long),
        ("tsconfig.json", "{}\n"),
        ("notes.txt", "alpha\nbeta\n"),
        ("b.txt", "one\n"),
    ]);
    let mut runs: Vec<(&str, Vec<&str>, String)> = vec![
        (
            "edit missing",
            vec!["edit", "nope.txt", "--old", "a", "--new", "b"],
            String::new(),
        ),
        (
            "edit empty",
            vec!["edit", "notes.txt", "--old", " ", "--new", "b"],
            String::new(),
        ),
        (
            "edit same",
            vec!["edit", "notes.txt", "--old", "beta", "--new", "beta"],
            String::new(),
        ),
        (
            "edit twice",
            vec!["edit", "notes.txt", "--old", "a", "--new", "b"],
            String::new(),
        ),
        (
            "edit absent",
            vec!["edit", "notes.txt", "--old", "zzz", "--new", "b"],
            String::new(),
        ),
        (
            "apply-id unknown",
            vec!["apply-id", "patch_1_abc"],
            String::new(),
        ),
        (
            "undo unknown",
            vec!["undo", "ckpt_0_deadbeefdeadbeefdeadbeefdeadbeef"],
            String::new(),
        ),
        (
            "hover both",
            vec![
                "hover",
                "src/greet.ts",
                "1",
                "greet",
                "--name-path",
                "greet",
            ],
            String::new(),
        ),
        (
            "hover neither",
            vec!["hover", "src/greet.ts"],
            String::new(),
        ),
        (
            "hover number",
            vec!["hover", "src/greet.ts", "1", "--name-path", "greet"],
            String::new(),
        ),
        (
            "hover twice",
            vec!["hover", "notes.txt", "2", "e", "--name-path", "x"],
            String::new(),
        ),
        (
            "refs bad anchor",
            vec!["refs", "src/greet.ts", "1zzzz", "greet"],
            String::new(),
        ),
        (
            "read past the end",
            vec!["read", "notes.txt", "--offset", "9"],
            String::new(),
        ),
    ];
    // A proposal with a file that cannot apply: the proposal says what applies it and how to
    // apply the others; `apply-id` refuses all of it, and says why.
    let two = "--- a/notes.txt\n+++ b/notes.txt\n@@ @@\n-alpha\n+ALPHA\n beta\n--- a/b.txt\n+++ b/b.txt\n@@ @@\n-nothing\n+x\n";
    let proposed = p.run(&["propose", "--json"], two);
    let id = proposed.json()["patch_id"].as_str().unwrap().to_string();
    runs.push(("propose", vec!["propose"], two.to_string()));
    runs.push((
        "apply-id refused",
        vec!["apply-id", &id, "--no-diagnostics"],
        String::new(),
    ));
    if have_server(TS_SERVERS) {
        runs.extend([
            ("fix list", vec!["fix", "src/use.ts", "1"], String::new()),
            ("outline cut", vec!["outline", "src/many.ts"], String::new()),
            (
                "body cut",
                vec!["find-symbol", "long", "--body"],
                String::new(),
            ),
            (
                "bad symbol anchor",
                vec!["replace-symbol", "src/greet.ts", "greet", "--anchor", "zz"],
                "x\n".into(),
            ),
            (
                "stale symbol anchor",
                vec![
                    "replace-symbol",
                    "src/greet.ts",
                    "greet",
                    "--anchor",
                    "2abcd",
                ],
                "x\n".into(),
            ),
            (
                "ambiguous occurrence",
                vec!["hover", "src/greet.ts", "1", "string"],
                String::new(),
            ),
        ]);
    }
    let mut said = Vec::new();
    for (what, args, stdin) in &runs {
        for json in [false, true] {
            let mut args = args.clone();
            if json {
                args.push("--json");
            }
            let r = p.run(&args, stdin);
            let text = if json {
                r.json()["llm_content"].as_str().unwrap().to_string()
            } else {
                format!("{}\n{}", r.stdout, r.stderr)
            };
            said.push((what, text.clone()));
            let bad = mcp_words(&text, &codes);
            assert!(
                bad.is_empty(),
                "{what} (json: {json}) says MCP words: {bad:#?}\n{text}"
            );
        }
    }
    // The runs reached the hints they are here for (a run that stopped earlier proves nothing).
    let all: String = said
        .iter()
        .map(|(_, t)| t.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for hint in [
        "create it with `lspedit write`",
        "run `lspedit propose` again",
        "a checkpoint id `lspedit apply-id` printed",
        "then apply it with `lspedit apply-id ",
        "all or nothing (the default without --per-file)",
        "--old occurs",
        "--all",
        "give either LINE and SYMBOL, or `--name-path`, not both",
        "with `--name-path`, LINE is the anchor",
        "the 4 letters `lspedit read` shows",
    ] {
        assert!(all.contains(hint), "no run said {hint:?}:\n{all}");
    }
    if have_server(TS_SERVERS) {
        for hint in [
            "Apply one with `lspedit fix src/use.ts 1 --index N`",
            "(`lspedit find-symbol NAME --path src/many.ts` reaches them)",
            "(`lspedit read src/long.ts --offset ",
            "the 4 letters `lspedit outline` or `lspedit find-symbol` shows",
            "say which with `--occurrence`",
        ] {
            assert!(all.contains(hint), "no run said {hint:?}:\n{all}");
        }
    }
}

// `--help` documents the exit codes and every `LSPEDIT_*` variable the binary's code reads,
// found in the source, so a new variable cannot be left out of it. Test support is not the
// binary's: the bench and fake-server crates, `lspedit::testing`, `#[cfg(test)]` modules.
#[test]
fn help_lists_exit_codes_and_every_environment_variable_read() {
    let help = run(&["--help"], "");
    help.assert_code(0);
    for code in [
        "Exit codes:",
        "  0  ",
        "  1  ",
        "  2  ",
        "  3  ",
        "Environment:",
    ] {
        assert!(
            help.stdout.contains(code),
            "{code:?} not in:\n{}",
            help.stdout
        );
    }
    let repo = crate::harness::repo();
    let mut dirs = vec![repo.join("src")];
    for c in std::fs::read_dir(repo.join("crates")).unwrap() {
        let c = c.unwrap().path();
        let name = c.file_name().unwrap().to_string_lossy().to_string();
        if name != "bench" && name != "fake-lsp" {
            dirs.push(c.join("src"));
        }
    }
    let mut vars = std::collections::BTreeSet::new();
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|x| x != "rs") || path == repo.join("src/testing.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap();
            for (i, _) in code.match_indices("\"LSPEDIT_") {
                let name: String = code[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect();
                vars.insert(name);
            }
        }
    }
    for known in ["LSPEDIT_SERVERS_DIR", "LSPEDIT_NO_HOST", "LSPEDIT_LOG"] {
        assert!(vars.contains(known), "the scan missed {known}: {vars:?}");
    }
    for v in &vars {
        assert!(
            help.stdout.contains(v.as_str()),
            "--help does not name {v}:\n{}",
            help.stdout
        );
    }
    for v in [
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "LSPEDIT_RUNTIME_DIR",
        "XDG_CONFIG_HOME",
    ] {
        assert!(help.stdout.contains(v), "--help does not name {v}");
    }
}

// Regression: `servers status --json` had keys README's table of `--json` fields did not list
// (`mode`, `sandbox`, every server's own). Every key of the document (the top level past the
// common four, each server's, each probed process's, the host's) is named in its row.
#[test]
fn servers_status_json_has_exactly_the_keys_readme_lists() {
    let readme = std::fs::read_to_string(crate::harness::repo().join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.trim_start().starts_with("| `servers status` |"))
        .expect("README has no `servers status` row");
    let named: std::collections::BTreeSet<&str> = row
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let p = Project::with_files(&[("src/a.ts", "export const a = 1;\n")]);
    let r = p.run(
        &[
            "servers",
            "status",
            "--json",
            "--no-host",
            "--probe",
            "src/a.ts",
        ],
        "",
    );
    r.assert_code(0);
    let v = r.json();
    let mut keys: Vec<String> = Vec::new();
    let mut add = |o: &serde_json::Value| {
        keys.extend(o.as_object().unwrap().keys().cloned());
    };
    add(&v);
    v["servers"].as_array().unwrap().iter().for_each(&mut add);
    v["processes"].as_array().unwrap().iter().for_each(&mut add);
    let common = ["ok", "reason", "llm_content", "files"];
    for k in keys.iter().filter(|k| !common.contains(&k.as_str())) {
        assert!(
            named.contains(k.as_str()),
            "README does not list `{k}`: {row}"
        );
    }
}

// Regression: `--json --help` printed the help as text, against "exactly one JSON document on
// stdout, whatever happens". It is now an `ok` document with the help as `llm_content`.
#[test]
fn json_help_is_one_json_document() {
    for args in [
        &["--json", "--help"][..],
        &["servers", "status", "--json", "--help"],
    ] {
        let r = run(args, "");
        r.assert_code(0);
        let v = r.json();
        assert_eq!(v["ok"], true, "{args:?}: {v}");
        assert!(
            v["llm_content"].as_str().unwrap().contains("Usage"),
            "{args:?}: {v}"
        );
    }
}

// Regression: a write refused as a protected path logged a WARN on stderr at default
// verbosity, beside the refusal itself; the refusal is the whole of stderr now.
#[test]
fn a_refused_protected_path_write_logs_no_warning() {
    let p = Project::with_files(&[("a.txt", "hi\n")]);
    let r = p.run(&["write", ".lspedit/config.toml", "--no-host"], "x\n");
    r.assert_code(1);
    assert!(r.stderr.contains("protected_path"), "{}", r.stderr);
    assert!(!r.stderr.contains("WARN"), "{}", r.stderr);
}

/// `lspedit check` has no later result: a server that is slow but visibly working (it reports
/// progress until it answers, long past the check's deadline) gets waited for, up to its
/// `verdict_cap_ms`; stderr says what the command waits for, and the exit code is the verdict
/// (1: errors found), not 3 ("run `lspedit check` again shortly", the fixed budget's answer).
#[test]
fn check_waits_for_a_working_servers_verdict_and_says_so() {
    use lspedit::testing::fake;
    let p = Project::with_files(&[("a.fak", "x = BAD\n")]);
    let config = tempfile::tempdir().unwrap();
    // Beside the person's lspedit config directory (hidden from servers), granted to them.
    let run = config.path().join("run");
    std::fs::create_dir_all(&run).unwrap();
    let script = fake::Script {
        mode: fake::Mode::Pull,
        marker: "BAD".to_string(),
        delay_ms: 4_000,
        progress_ms: 200,
        log_file: Some(run.join("fake.log")),
        ..fake::Script::default()
    };
    let script_file = run.join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    std::fs::create_dir_all(config.path().join("lspedit")).unwrap();
    std::fs::write(
        config.path().join("lspedit/config.toml"),
        format!(
            "[pool]\nsandbox_allow = [{dir:?}]\n\
             [servers.fake]\ncommand = {cmd:?}\nlanguages = {{ fak = \"fake\" }}\n\
             diagnostics = {{ strategy = \"pull\", verdict_cap_ms = 60000 }}\n\
             env = {{ {env} = {script:?} }}\n",
            dir = run.display().to_string(),
            cmd = fake::binary().display().to_string(),
            env = fake::SCRIPT_FILE_ENV,
            script = script_file.display().to_string(),
        ),
    )
    .unwrap();
    let r = run_with_config(
        &p,
        config.path(),
        &[
            "check",
            "a.fak",
            "--no-host",
            "--check-timeout-ms",
            "500",
            "--first-check-timeout-ms",
            "500",
        ],
    );
    r.assert_code(1);
    assert!(r.stdout.contains("BAD"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("lspedit: waiting for fake's verdict on a.fak (fake work"),
        "{}",
        r.stderr
    );
    // At most one line every few seconds: the 4 s wait past a 0.5 s deadline gives one or two.
    let lines = r.stderr.matches("waiting for fake's verdict").count();
    assert!((1..=2).contains(&lines), "{}", r.stderr);
}

/// A cold rust-analyzer on a new crate (loading it, then `cargo check`) takes longer than a
/// one-second deadline, and works visibly all along: `lspedit check` waits for its verdict
/// (rustc's E0308) and says so on stderr, instead of exiting 3 ("run `lspedit check` again
/// shortly", what a fixed 10 s budget gave at load 4).
#[test]
fn check_waits_for_a_cold_rust_analyzers_verdict() {
    if !have_server(&["rust-analyzer"]) {
        return;
    }
    let p = Project::copy("rust-basic");
    let lib = p.read("src/lib.rs");
    std::fs::write(
        p.root.join("src/lib.rs"),
        format!("{lib}\npub fn broken() -> u32 {{\n    \"not a number\"\n}}\n"),
    )
    .unwrap();
    let r = p.run(
        &[
            "check",
            "src/lib.rs",
            "--no-host",
            "--check-timeout-ms",
            "1000",
            "--first-check-timeout-ms",
            "1000",
        ],
        "",
    );
    r.assert_code(1);
    assert!(r.stdout.contains("(E0308)"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("lspedit: waiting for rust-analyzer's verdict on src/lib.rs ("),
        "{}",
        r.stderr
    );
}
