//! Every event the workflow and the executor can emit validates against its documented schema
//! (`docs/events.schema.json`, included by `docs/events.md`), and every documented schema is
//! emitted by one of the scenarios driven here: a full apply and undo, a rejection, scope
//! violations, a timeout, a rolled-back commit, refused proposals, and executor runs that
//! split, truncate, retry, pause and decline.
//!
//! `jsonschema` is not a dependency of the workspace, so a small structural validator checks
//! the subset of JSON Schema the document uses (`type`, `const`, `enum`, `required`,
//! `properties`, `additionalProperties: false`, `items`, `minimum`, `maximum`, `$ref`), and the
//! schema is checked to stay within that subset and portable (no type arrays, no null).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lspedit_tools::events::{Event, EventSink, RecordingSink};
use lspedit_tools::{Tools, ToolsConfig};
use lspedit_truncation::{EditExecutor, ExecutorConfig, PreflightRules};
use lspedit_workflow::{ApplyPlan, Atomicity, ProposeRequest, Workflow, WorkflowConfig};
use lspedit_workflow::{CommitObserver, Deny, ValidationCommand, ValidationStage};
use lspedit_write::Workspace;
use serde_json::Value;

use crate::truncation::{Faults, ScriptedModel, fixture, numbered, run};

const SCHEMA: &str = include_str!("../../../../docs/events.schema.json");
const DOC: &str = include_str!("../../../../docs/events.md");

const KEYWORDS: &[&str] = &[
    "$schema",
    "title",
    "description",
    "oneOf",
    "$defs",
    "$ref",
    "type",
    "const",
    "enum",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minimum",
    "maximum",
];

fn schema() -> Value {
    serde_json::from_str(SCHEMA).expect("docs/events.schema.json is JSON")
}

/// Every keyword is one the validator knows, and every `type` is a single non-null type.
fn check_portable(v: &Value, at: &str, in_properties: bool) {
    let Value::Object(m) = v else { return };
    for (k, child) in m {
        if in_properties {
            check_portable(child, &format!("{at}/{k}"), false);
            continue;
        }
        assert!(
            KEYWORDS.contains(&k.as_str()),
            "{at}: unknown keyword `{k}`"
        );
        if k == "type" {
            let t = child
                .as_str()
                .unwrap_or_else(|| panic!("{at}: type must be one string"));
            assert_ne!(t, "null", "{at}: null type");
        }
        match k.as_str() {
            "properties" | "$defs" => check_portable(child, &format!("{at}/{k}"), true),
            "items" => check_portable(child, &format!("{at}/items"), false),
            "oneOf" => {
                for (i, s) in child.as_array().unwrap().iter().enumerate() {
                    check_portable(s, &format!("{at}/oneOf/{i}"), false);
                }
            }
            _ => {}
        }
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "integer" => v.is_u64() || v.is_i64(),
        "number" => v.is_number(),
        _ => false,
    }
}

/// Errors of `v` against `s`, each with its JSON path.
fn validate(root: &Value, s: &Value, v: &Value, at: &str, errors: &mut Vec<String>) {
    if let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.strip_prefix("#/$defs/").expect("local $ref");
        return validate(root, &root["$defs"][name], v, at, errors);
    }
    if let Some(t) = s.get("type").and_then(Value::as_str)
        && !type_ok(t, v)
    {
        errors.push(format!("{at}: expected {t}, found {v}"));
        return;
    }
    if let Some(c) = s.get("const")
        && c != v
    {
        errors.push(format!("{at}: expected {c}, found {v}"));
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.contains(v)
    {
        errors.push(format!("{at}: {v} is not one of {e:?}"));
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64())
        && n < min
    {
        errors.push(format!("{at}: {n} < {min}"));
    }
    if let (Some(max), Some(n)) = (s.get("maximum").and_then(Value::as_f64), v.as_f64())
        && n > max
    {
        errors.push(format!("{at}: {n} > {max}"));
    }
    if let (Some(items), Some(arr)) = (s.get("items"), v.as_array()) {
        for (i, item) in arr.iter().enumerate() {
            validate(root, items, item, &format!("{at}[{i}]"), errors);
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let r = r.as_str().unwrap();
            if !obj.contains_key(r) {
                errors.push(format!("{at}: missing `{r}`"));
            }
        }
        for (k, child) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(root, ps, child, &format!("{at}.{k}"), errors),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errors.push(format!("{at}: `{k}` is not in the schema"));
                }
                None => {}
            }
        }
    }
}

/// Validate one event's JSON form against the schema of its name; returns the name.
fn check_event(root: &Value, v: &Value) -> String {
    let name = v["event"].as_str().expect("an event name").to_string();
    let s = root["$defs"]
        .get(&name)
        .unwrap_or_else(|| panic!("no schema for `{name}` in docs/events.schema.json"));
    let mut errors = Vec::new();
    validate(root, s, v, &name, &mut errors);
    assert!(errors.is_empty(), "{v}\n{}", errors.join("\n"));
    // The oneOf at the root lists it too.
    assert!(
        root["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["$ref"] == format!("#/$defs/{name}")),
        "{name} missing from oneOf"
    );
    name
}

fn workflow(root: &std::path::Path, cfg: WorkflowConfig) -> (Workflow, Arc<RecordingSink>) {
    let rec = Arc::new(RecordingSink::new());
    let mut cfg = cfg;
    cfg.sinks.push(rec.clone() as Arc<dyn EventSink>);
    let tools = Arc::new(Tools::new(
        Workspace::open(root).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    (Workflow::open(tools, cfg).unwrap(), rec)
}

fn diff(path: &str, from: &str, to: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n a\n-{from}\n+{to}\n c\n")
}

struct FailSecondWrite;
impl CommitObserver for FailSecondWrite {
    fn file_written(&self, _path: &str, index: usize, _total: usize) -> Result<(), String> {
        if index == 2 {
            Err("injected write failure".into())
        } else {
            Ok(())
        }
    }
}

/// Drive every workflow scenario; returns the recorded events and the JSONL log lines.
fn workflow_events() -> (Vec<Event>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for f in ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"] {
        std::fs::write(root.join(f), "a\nb\nc\n").unwrap();
    }
    let mut events = Vec::new();
    let mut logged = Vec::new();
    let collect = |rec: &RecordingSink, events: &mut Vec<Event>| events.extend(rec.events());

    // A full apply, then undo.
    let (wf, rec) = workflow(root, WorkflowConfig::unrestricted());
    let p = wf
        .propose_edit(&ProposeRequest::patch(diff("a.txt", "b", "B")).with_step(Some("t-1"), "s-1"))
        .unwrap();
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    wf.undo(out.checkpoint_id.as_deref().unwrap()).unwrap();
    // Scope violations (files, lines) and a timeout.
    let two = diff("a.txt", "b", "B") + &diff("b.txt", "b", "B");
    let p = wf.propose_edit(&ProposeRequest::patch(&two)).unwrap();
    for plan in [
        ApplyPlan {
            max_files: Some(1),
            ..ApplyPlan::default()
        },
        ApplyPlan {
            max_changed_lines: Some(1),
            ..ApplyPlan::default()
        },
        ApplyPlan {
            timeout_seconds: Some(0),
            ..ApplyPlan::default()
        },
    ] {
        wf.apply_edit(&p.patch_id, &plan);
    }
    // A partial apply (per file: one hunk does not match).
    let partial = diff("a.txt", "b", "B") + &diff("b.txt", "not there", "B");
    let p = wf.propose_edit(&ProposeRequest::patch(&partial)).unwrap();
    wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    // A validation after the commit that fails: rolled back.
    let p = wf
        .propose_edit(&ProposeRequest::patch(diff("c.txt", "b", "B")))
        .unwrap();
    wf.apply_edit(
        &p.patch_id,
        &ApplyPlan {
            validation: Some(ValidationCommand::new("sh", &["-c", "exit 1"])),
            validation_stage: ValidationStage::AfterCommit,
            ..ApplyPlan::default()
        },
    );
    // A refused proposal.
    let _ = wf.propose_edit(&ProposeRequest::patch("not a patch"));
    collect(&rec, &mut events);

    // A rejection.
    let (wf, rec) = workflow(
        root,
        WorkflowConfig {
            ..WorkflowConfig::unrestricted().asking(Arc::new(Deny))
        },
    );
    let p = wf
        .propose_edit(&ProposeRequest::patch(diff("c.txt", "b", "B")))
        .unwrap();
    wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    collect(&rec, &mut events);

    // An all-or-nothing commit that fails part-way and is rolled back.
    let (wf, rec) = workflow(
        root,
        WorkflowConfig {
            commit_observer: Some(Arc::new(FailSecondWrite)),
            ..WorkflowConfig::unrestricted()
        },
    );
    let three = diff("d.txt", "b", "N") + &diff("e.txt", "b", "N") + &diff("f.txt", "b", "N");
    let p = wf.propose_edit(&ProposeRequest::patch(&three)).unwrap();
    let out = wf.apply_edit(
        &p.patch_id,
        &ApplyPlan {
            atomicity: Atomicity::AllOrNothing,
            ..ApplyPlan::default()
        },
    );
    assert!(out.rolled_back, "{}", out.llm_content);
    collect(&rec, &mut events);

    let log = std::fs::read_to_string(root.join(".lspedit/events.jsonl")).unwrap();
    for line in log.lines() {
        logged.push(serde_json::from_str(line).unwrap());
    }
    (events, logged)
}

/// Drive the executor: split with a retry and a truncation that pauses, a combined call that
/// succeeds, and a model that declines.
fn executor_events() -> Vec<Event> {
    let mut events = Vec::new();
    let fx = fixture(&[
        ("a.rs", numbered("a", 8)),
        ("b.rs", numbered("b", 8)),
        ("c.rs", numbered("c", 8)),
    ]);
    let edits = [
        ("a.rs", "let v2 = 2;", "let two = 2;"),
        ("b.rs", "let v2 = 2;", "let two = 2;"),
        ("c.rs", "let v2 = 2;", "let two = 2;"),
    ];
    let model = ScriptedModel::new(
        &edits,
        Faults {
            always_truncate: BTreeSet::from(["b.rs".to_string()]),
            wrong_sha_once: BTreeSet::from(["a.rs".to_string()]),
            ..Faults::default()
        },
    );
    let (_, sink) = run(
        &fx,
        &model,
        ExecutorConfig::default(),
        &["a.rs", "b.rs", "c.rs"],
    );
    events.extend(sink.events());

    let combined = ExecutorConfig {
        preflight: PreflightRules {
            max_files_per_call: 5,
            ..PreflightRules::default()
        },
        ..ExecutorConfig::default()
    };
    let model = ScriptedModel::new(&edits, Faults::default());
    let (_, sink) = run(&fx, &model, combined.clone(), &["a.rs", "c.rs"]);
    events.extend(sink.events());
    let model = ScriptedModel::new(
        &edits,
        Faults {
            truncate_multi_file: true,
            ..Faults::default()
        },
    );
    let (_, sink) = run(&fx, &model, combined, &["a.rs", "c.rs"]);
    events.extend(sink.events());

    let model = ScriptedModel::new(
        &edits,
        Faults {
            validation_status: BTreeMap::from([("a.rs".to_string(), "cannot_edit".to_string())]),
            ..Faults::default()
        },
    );
    let sink = Arc::new(RecordingSink::new());
    let task = lspedit_truncation::EditTask {
        instruction: "Rename v2 in a.rs".into(),
        targets: Vec::new(),
        context: String::new(),
    };
    EditExecutor::new(&fx.ws, &model, sink.clone())
        .run(&task)
        .unwrap();
    events.extend(sink.events());
    events
}

#[test]
fn the_schema_is_portable_and_documented() {
    let root = schema();
    check_portable(&root, "#", false);
    let defs = root["$defs"].as_object().unwrap();
    assert_eq!(root["oneOf"].as_array().unwrap().len(), defs.len());
    // Each section's schema block is the file's, byte for byte after parsing.
    let mut sections = 0;
    for part in DOC.split("\n### `").skip(1) {
        let (name, rest) = part.split_once('`').unwrap();
        let block = rest
            .split_once("```json\n")
            .and_then(|(_, b)| b.split_once("\n```"))
            .map(|(b, _)| b)
            .unwrap_or_else(|| panic!("`{name}` has no schema block"));
        let doc_schema: Value = serde_json::from_str(block).unwrap();
        assert_eq!(Some(&doc_schema), defs.get(name), "docs/events.md `{name}`");
        sections += 1;
    }
    assert_eq!(sections, defs.len(), "one section per event type");
}

#[test]
fn every_emitted_event_validates_and_every_schema_is_emitted() {
    let root = schema();
    let (mut events, logged) = workflow_events();
    events.extend(executor_events());
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (i, e) in events.iter().enumerate() {
        seen.insert(check_event(
            &root,
            &e.to_json(1_700_000_000_000 + i as u128),
        ));
    }
    // The JSONL log is the same JSON, with real timestamps.
    assert!(!logged.is_empty());
    for v in &logged {
        check_event(&root, v);
    }
    // The details the issue names are among what was emitted.
    let details: Vec<Value> = events
        .iter()
        .filter(|e| e.name() == "failure_detected")
        .map(|e| e.to_json(0)["details"].clone())
        .collect();
    for kind in ["max_files", "max_changed_lines", "timeout_ms"] {
        assert!(
            details.iter().any(|d| d["type"] == kind),
            "no {kind} failure: {details:?}"
        );
    }
    assert!(
        details.iter().any(|d| d["rollback"] == "success"),
        "{details:?}"
    );
    let documented: BTreeSet<String> = root["$defs"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(seen, documented, "emitted vs documented event types");
}

// The validator is strict enough to matter: each of these breaks one rule of the schema.
#[test]
fn the_validator_rejects_what_the_schema_forbids() {
    let root = schema();
    let bad = [
        r#"{"event": "tool_end", "ts_ms": 1, "tool": "apply_edit", "is_error": false, "status": "ok"}"#,
        r#"{"event": "tool_end", "ts_ms": 1, "tool": "apply_edit", "is_error": false}"#,
        r#"{"event": "tool_start", "ts_ms": 1, "tool": "x", "extra": 1}"#,
        r#"{"event": "execution_paused", "ts_ms": 1, "reason": "diff_rejected", "diff_id": null}"#,
        r#"{"event": "edit_chunk_started", "ts_ms": 1, "path": "a", "attempt": 1, "chunk_index": 1, "total_chunks": 1, "progress": 1.5}"#,
        r#"{"event": "failure_detected", "ts_ms": 1, "reason": "scope_violation", "details": {"message": "m", "type": "max_bytes"}}"#,
        r#"{"event": "checkpoint_created", "ts_ms": 1, "checkpoint_id": "c", "files": [1]}"#,
    ];
    for b in bad {
        let v: Value = serde_json::from_str(b).unwrap();
        let name = v["event"].as_str().unwrap();
        let mut errors = Vec::new();
        validate(&root, &root["$defs"][name], &v, name, &mut errors);
        assert!(!errors.is_empty(), "accepted: {b}");
    }
}

/// Seed 003's executor events and the payload fields it lists for each, spelled as the seed
/// spells them (`docs/events.md`, "Seed 003's fields"). `stopReason` is there when the model's
/// API gave a stop reason.
const SEED_003: &[(&str, &[&str])] = &[
    (
        "preflight_complete",
        &["shouldSplit", "targetFileCount", "estimatedComplexity"],
    ),
    (
        "truncation_detected",
        &["file", "partialLength", "stopReason"],
    ),
    ("edit_split_triggered", &["file_count", "reason"]),
    (
        "edit_chunk_started",
        &["file", "chunk_index", "total_chunks", "progress"],
    ),
    (
        "edit_chunk_completed",
        &["file", "chunk_index", "total_chunks", "progress"],
    ),
    (
        "edit_chunk_failed",
        &["file", "reason", "chunk_index", "total_chunks", "progress"],
    ),
    ("edit_step_paused", &["reason", "progress"]),
];

/// Spellings of seed fields code written against the seed does not read.
const NOT_THE_SEEDS: &[&str] = &[
    "split",
    "should_split",
    "target_file_count",
    "partial_length",
    "stop_reason",
    "path",
];

// Regression: seed 003's payloads were renamed (`split`, `file_count`, `partial_length`,
// `stop_reason`, `path`) and `edit_split_triggered.file_count` and `edit_step_paused.progress`
// were missing, so code written against the seed broke.
#[test]
fn executor_events_carry_every_field_seed_003_lists_as_it_spells_them() {
    let root = schema();
    let events: Vec<Value> = executor_events().iter().map(|e| e.to_json(1)).collect();
    for (name, fields) in SEED_003 {
        let emitted: Vec<&Value> = events.iter().filter(|v| v["event"] == *name).collect();
        assert!(!emitted.is_empty(), "no `{name}` emitted");
        let documented = &root["$defs"][*name];
        for field in *fields {
            let optional = *field == "stopReason";
            let carried = emitted.iter().filter(|v| v.get(*field).is_some()).count();
            if optional {
                assert!(carried > 0, "`{name}` never carries `{field}`: {emitted:?}");
            } else {
                assert_eq!(
                    carried,
                    emitted.len(),
                    "`{name}` without `{field}`: {emitted:?}"
                );
                let required = documented["required"].as_array().unwrap();
                assert!(
                    required.iter().any(|r| r == field),
                    "docs/events.schema.json `{name}` does not require `{field}`"
                );
            }
            assert!(
                documented["properties"].get(*field).is_some(),
                "docs/events.schema.json `{name}` lacks `{field}`"
            );
        }
        for v in &emitted {
            let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
            for wrong in NOT_THE_SEEDS {
                assert!(
                    !keys.iter().any(|k| k == wrong),
                    "`{name}` carries `{wrong}`, not the seed's spelling: {v}"
                );
            }
        }
    }
    let split = events
        .iter()
        .find(|v| v["event"] == "edit_split_triggered")
        .unwrap();
    assert_eq!(
        split["file_count"].as_u64(),
        Some(split["files"].as_array().unwrap().len() as u64)
    );
    let pre = events
        .iter()
        .find(|v| v["event"] == "preflight_complete")
        .unwrap();
    assert_eq!(
        pre["targetFileCount"].as_u64(),
        Some(pre["target_files"].as_array().unwrap().len() as u64)
    );
}
