//! Truncation-safe model output end to end: each truncation signal, strict reply validation,
//! the executor over scripted models (split by file, retries, pauses, chunk cap), applying the
//! combined diff to real files, and the excerpt selector's determinism and caps.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, Mutex};

use lspedit_engine::{DiffOptions, hashline, unified_diff};
use lspedit_tools::events::{ChunkProgress, Event, RecordingSink};
use lspedit_truncation::{
    ChunkStatus, Complexity, Confidence, EditExecutor, EditModel, EditOutcome, EditRequest,
    EditTask, ExecutorConfig, ModelEditError, ModelError, ModelReply, PauseReason, PreflightRules,
    TruncationReason, ValidateOptions, apply_combined, detect_truncation, detect_truncation_with,
    file_hints, validate_model_edit, validate_model_edit_with,
};
use lspedit_workflow::{ExcerptCandidates, ExcerptLimits, select_excerpts};
use lspedit_write::{Reason, Workspace, base_sha};
use serde_json::json;

// ---------------------------------------------------------------------------------------------
// Harness

/// A file of `n` numbered lines, with `name` in its first line.
pub(crate) fn numbered(name: &str, n: usize) -> String {
    let mut s = format!("// {name}\n");
    for i in 2..=n {
        s.push_str(&format!("let v{i} = {i};\n"));
    }
    s
}

/// Every file under `root` with its bytes (so "nothing written" compares the whole tree).
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

pub(crate) struct Fixture {
    pub(crate) dir: tempfile::TempDir,
    pub(crate) ws: Workspace,
}

pub(crate) fn fixture(files: &[(&str, String)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    let ws = Workspace::open(dir.path()).unwrap();
    Fixture { dir, ws }
}

/// How the scripted model misbehaves.
#[derive(Default)]
pub(crate) struct Faults {
    /// Cut any reply that covers more than one file (with `max_tokens`).
    pub(crate) truncate_multi_file: bool,
    /// Paths whose replies are always cut mid-JSON (no stop reason: the JSON signal must fire).
    pub(crate) always_truncate: BTreeSet<String>,
    /// Paths whose first reply gives a wrong base_sha.
    pub(crate) wrong_sha_once: BTreeSet<String>,
    /// Paths whose replies carry this `validation_status` (`unchecked` otherwise).
    pub(crate) validation_status: BTreeMap<String, String>,
    /// Replies leave out the `complete` field.
    pub(crate) omit_sentinel: bool,
}

/// A model that edits files by replacing one line with another, from a script.
pub(crate) struct ScriptedModel {
    /// path → (old line, new line); files not listed need no change.
    edits: BTreeMap<String, (String, String)>,
    faults: Faults,
    requests: Mutex<Vec<EditRequest>>,
}

impl ScriptedModel {
    pub(crate) fn new(edits: &[(&str, &str, &str)], faults: Faults) -> ScriptedModel {
        ScriptedModel {
            edits: edits
                .iter()
                .map(|(p, a, b)| (p.to_string(), (a.to_string(), b.to_string())))
                .collect(),
            faults,
            requests: Mutex::new(Vec::new()),
        }
    }

    /// The files each call covered, in call order.
    fn calls(&self) -> Vec<Vec<String>> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.files.iter().map(|f| f.path.clone()).collect())
            .collect()
    }
}

/// The file text a hashline view shows (`12abcd|content` lines).
fn text_of_view(view: &str) -> String {
    view.lines()
        .map(|l| l.split_once('|').unwrap().1.to_string() + "\n")
        .collect()
}

impl EditModel for ScriptedModel {
    fn generate(&self, request: &EditRequest) -> Result<ModelReply, ModelError> {
        let earlier: usize = {
            let mut reqs = self.requests.lock().unwrap();
            let n = reqs
                .iter()
                .filter(|r| {
                    r.files
                        .iter()
                        .map(|f| &f.path)
                        .eq(request.files.iter().map(|f| &f.path))
                })
                .count();
            reqs.push(request.clone());
            n
        };
        let mut diff = String::new();
        let mut touched = Vec::new();
        for f in &request.files {
            let Some((old_line, new_line)) = self.edits.get(&f.path) else {
                continue;
            };
            let old = text_of_view(&f.view);
            let new = old.replace(old_line.as_str(), new_line);
            diff.push_str(&unified_diff(
                &old,
                &new,
                Some(&f.path),
                Some(&f.path),
                &DiffOptions::default(),
            ));
            let sha = if self.faults.wrong_sha_once.contains(&f.path) && earlier == 0 {
                "000000000000".to_string()
            } else {
                f.base_sha.clone()
            };
            touched.push(json!({"path": f.path, "reason": "scripted edit", "base_sha": sha}));
        }
        let status = request
            .files
            .iter()
            .find_map(|f| self.faults.validation_status.get(&f.path))
            .map_or("unchecked", String::as_str);
        let mut reply = json!({
            "unified_diff": diff,
            "touched_files": touched,
            "confidence": "high",
            "notes": "scripted",
            "validation_status": status,
            "complete": true,
        });
        if self.faults.omit_sentinel {
            reply.as_object_mut().unwrap().remove("complete");
        }
        let content = reply.to_string();
        let cut = |content: &str| content[..content.len() / 2].to_string();
        if request
            .files
            .iter()
            .any(|f| self.faults.always_truncate.contains(&f.path))
        {
            return Ok(ModelReply {
                content: cut(&content),
                stop_reason: None,
            });
        }
        if self.faults.truncate_multi_file && request.files.len() > 1 {
            return Ok(ModelReply {
                content: cut(&content),
                stop_reason: Some("max_tokens".into()),
            });
        }
        Ok(ModelReply {
            content,
            stop_reason: Some("end_turn".into()),
        })
    }
}

fn task(targets: &[&str]) -> EditTask {
    EditTask {
        instruction: "Rename the values as scripted.".into(),
        targets: targets.iter().map(|t| t.to_string()).collect(),
        context: String::new(),
    }
}

pub(crate) fn run(
    fx: &Fixture,
    model: &ScriptedModel,
    config: ExecutorConfig,
    targets: &[&str],
) -> (EditOutcome, Arc<RecordingSink>) {
    let sink = Arc::new(RecordingSink::new());
    let outcome = EditExecutor::new(&fx.ws, model, sink.clone())
        .with_config(config)
        .run(&task(targets))
        .unwrap();
    (outcome, sink)
}

// ---------------------------------------------------------------------------------------------
// detect_truncation and validation through the public API

#[test]
fn each_truncation_signal() {
    let value = json!({
        "unified_diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-old\n+new\n",
        "touched_files": [],
        "confidence": 1,
        "notes": "",
        "validation_status": "unchecked",
        "complete": true
    });
    let whole = value.to_string();
    let mut no_sentinel = value.clone();
    no_sentinel.as_object_mut().unwrap().remove("complete");
    let mut short_hunk = value.clone();
    short_hunk["unified_diff"] = json!("--- a/x.rs\n+++ b/x.rs\n@@ -1,2 +1,2 @@\n-old\n");
    let cases: Vec<(String, Option<&str>, Option<TruncationReason>)> = vec![
        (whole.clone(), Some("end_turn"), None),
        (
            whole.clone(),
            Some("max_tokens"),
            Some(TruncationReason::StopReason),
        ),
        (
            whole.clone(),
            Some("length"),
            Some(TruncationReason::StopReason),
        ),
        (
            whole[..whole.len() - 20].to_string(),
            None,
            Some(TruncationReason::InvalidJson),
        ),
        (
            no_sentinel.to_string(),
            None,
            Some(TruncationReason::MissingCompleteSentinel),
        ),
        (
            short_hunk.to_string(),
            None,
            Some(TruncationReason::TruncatedDiff),
        ),
    ];
    for (content, stop, expected) in cases {
        let r = detect_truncation(&content, stop);
        assert_eq!(r.reason, expected, "{content} / {stop:?}: {}", r.details);
        assert_eq!(r.truncated, expected.is_some());
        assert_eq!(r.partial_length, content.len());
        assert_eq!(r.stop_reason.as_deref(), stop);
        assert!(!r.details.is_empty());
    }
}

#[test]
fn strict_validation_names_fields_and_sha_mismatch() {
    let expected = BTreeMap::from([("x.rs".to_string(), "aaaaaaaaaaaa".to_string())]);
    let reply = |base_sha: &str, extra: bool| {
        let mut v = json!({
            "unified_diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-old\n+new\n",
            "touched_files": [{"path": "x.rs", "reason": "r", "base_sha": base_sha}],
            "confidence": 0.2,
            "notes": "n",
            "validation_status": "unchecked",
            "complete": true
        });
        if extra {
            v["diff"] = json!("");
        }
        v.to_string()
    };
    assert!(validate_model_edit(&reply("aaaaaaaaaaaa", false), &expected).is_ok());
    let e = validate_model_edit(&reply("bbbbbbbbbbbb", false), &expected).unwrap_err();
    assert_eq!(e.reason(), Reason::ShaMismatch);
    assert!(
        e.to_string().contains("sha_mismatch") && e.to_string().contains("x.rs"),
        "{e}"
    );
    let e = validate_model_edit(&reply("aaaaaaaaaaaa", true), &expected).unwrap_err();
    assert_eq!(
        e,
        ModelEditError::UnknownField {
            field: "diff".into()
        }
    );
}

#[test]
fn confidence_is_a_level_or_a_score() {
    let expected = BTreeMap::from([("x.rs".to_string(), "aaaaaaaaaaaa".to_string())]);
    let check = |confidence: serde_json::Value, want: Option<Confidence>| {
        let reply = json!({
            "unified_diff": "",
            "touched_files": [],
            "confidence": confidence,
            "notes": "",
            "validation_status": "unchecked",
            "complete": true
        })
        .to_string();
        let got = validate_model_edit(&reply, &expected).map(|v| v.edit.confidence);
        match want {
            Some(c) => assert_eq!(got, Ok(c), "{confidence}"),
            None => assert!(got.is_err(), "{confidence} accepted: {got:?}"),
        }
    };
    check(json!("low"), Some(Confidence::Low));
    check(json!("medium"), Some(Confidence::Medium));
    check(json!("high"), Some(Confidence::High));
    check(json!(0), Some(Confidence::Score(0.0)));
    check(json!(1), Some(Confidence::Score(1.0)));
    check(json!(0.4), Some(Confidence::Score(0.4)));
    check(json!("very high"), None);
    check(json!("HIGH"), None);
    check(json!(1.5), None);
    check(json!(-0.1), None);
    check(json!(true), None);
    check(json!(null), None);
}

#[test]
fn the_complete_sentinel_is_required_unless_the_setting_is_off() {
    let expected = BTreeMap::from([("x.rs".to_string(), "aaaaaaaaaaaa".to_string())]);
    let mut v = json!({
        "unified_diff": "",
        "touched_files": [],
        "confidence": 0.5,
        "notes": "",
        "validation_status": "unchecked"
    });
    let lenient = ValidateOptions {
        require_complete_sentinel: false,
    };
    // (reply, sentinel required, accepted)
    let missing = v.to_string();
    v["complete"] = json!(false);
    let said_false = v.to_string();
    for (reply, required, accepted) in [
        (&missing, true, false),
        (&missing, false, true),
        (&said_false, true, false),
        (&said_false, false, false),
    ] {
        let options = if required {
            ValidateOptions::default()
        } else {
            lenient
        };
        assert_eq!(
            validate_model_edit_with(reply, &expected, options).is_ok(),
            accepted,
            "{reply} required={required}"
        );
        assert_eq!(
            !detect_truncation_with(reply, None, required).truncated,
            accepted,
            "{reply} required={required}"
        );
    }

    // Through the executor: the same model is paused by default and completes with it off.
    let fx = fixture(&[("a.rs", numbered("a", 5))]);
    let faults = || Faults {
        omit_sentinel: true,
        ..Faults::default()
    };
    let model = ScriptedModel::new(&[("a.rs", "let v2 = 2;", "let two = 2;")], faults());
    let (outcome, sink) = run(&fx, &model, ExecutorConfig::default(), &["a.rs"]);
    assert!(matches!(outcome, EditOutcome::Paused { .. }), "{outcome:?}");
    assert!(sink.events().iter().any(|e| matches!(e,
        Event::TruncationDetected { reason, .. } if reason == "missing_complete_sentinel")));
    let model = ScriptedModel::new(&[("a.rs", "let v2 = 2;", "let two = 2;")], faults());
    let config = ExecutorConfig {
        require_complete_sentinel: false,
        ..ExecutorConfig::default()
    };
    let (outcome, _) = run(&fx, &model, config, &["a.rs"]);
    assert!(
        matches!(outcome, EditOutcome::Completed { .. }),
        "{outcome:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// The executor

#[test]
fn a_model_that_declines_pauses_the_step_with_its_status() {
    for (status, paused) in [
        ("stale_context", true),
        ("cannot_edit", true),
        ("unchecked", false),
        ("passed", false),
    ] {
        let fx = fixture(&[("a.rs", numbered("a", 5)), ("b.rs", numbered("b", 5))]);
        let before = tree(fx.dir.path());
        let model = ScriptedModel::new(
            &[
                ("a.rs", "let v2 = 2;", "let two = 2;"),
                ("b.rs", "let v2 = 2;", "let two = 2;"),
            ],
            Faults {
                validation_status: BTreeMap::from([("b.rs".to_string(), status.to_string())]),
                ..Faults::default()
            },
        );
        let (outcome, sink) = run(&fx, &model, ExecutorConfig::default(), &["a.rs", "b.rs"]);
        assert_eq!(tree(fx.dir.path()), before, "the executor wrote");
        if !paused {
            assert!(
                matches!(outcome, EditOutcome::Completed { .. }),
                "{status}: {outcome:?}"
            );
            continue;
        }
        let EditOutcome::Paused { reason, ledger, .. } = &outcome else {
            panic!("{status}: not paused: {outcome:?}");
        };
        assert_eq!(reason.code(), status);
        assert!(
            matches!(reason, PauseReason::ModelDeclined { path, notes, .. } if path == "b.rs" && notes == "scripted"),
            "{reason:?}"
        );
        // No retry: the model said the step cannot go on, and nothing of b.rs is kept.
        assert_eq!(
            model.calls(),
            [vec!["a.rs".to_string()], vec!["b.rs".to_string()]]
        );
        assert_eq!(ledger.entry("b.rs").unwrap().status, ChunkStatus::Failed);
        let events = sink.events();
        assert!(
            matches!(events.last(), Some(Event::EditStepPaused { reason, .. }) if reason == status),
            "{events:?}"
        );
        assert!(events.iter().any(|e| matches!(e,
            Event::EditChunkFailed { file, reason, .. } if file == "b.rs" && reason == status)));
        assert_eq!(outcome.to_json()["reason"], status);
    }
}

#[test]
fn complexity_is_estimated_from_files_and_lines() {
    // (files, lines) -> estimate; thresholds as documented in the executor module.
    for (files, lines, want) in [
        (1, 0, Complexity::Low),
        (1, 150, Complexity::Low),
        (1, 151, Complexity::Medium),
        (2, 10, Complexity::Medium),
        (3, 400, Complexity::Medium),
        (4, 1, Complexity::High),
        (1, 401, Complexity::High),
        (0, 0, Complexity::Low),
    ] {
        assert_eq!(
            Complexity::estimate(files, lines),
            want,
            "{files} files, {lines} lines"
        );
    }
    let fx = fixture(&[("a.rs", numbered("a", 200))]);
    let model = ScriptedModel::new(&[], Faults::default());
    let (_, sink) = run(&fx, &model, ExecutorConfig::default(), &["a.rs"]);
    assert!(matches!(
        &sink.events()[0],
        Event::PreflightComplete { estimated_complexity, target_file_count: 1, total_lines: 200, .. }
            if estimated_complexity == "medium"
    ));
}

#[test]
fn without_targets_the_preflight_reads_the_files_the_instruction_names() {
    let fx = fixture(&[
        ("a.rs", numbered("a", 5)),
        ("src/b.rs", numbered("b", 5)),
        ("notes.txt", "n\n".to_string()),
    ]);
    let instruction = "Rename v2 in `a.rs` and ./src/b.rs, (see notes.txt). Not missing.rs, https://x.io/a.rs, or src/.";
    assert_eq!(
        file_hints(&fx.ws, instruction),
        ["a.rs", "src/b.rs", "notes.txt"]
    );
    let model = ScriptedModel::new(
        &[
            ("a.rs", "let v2 = 2;", "let two = 2;"),
            ("src/b.rs", "let v2 = 2;", "let two = 2;"),
        ],
        Faults::default(),
    );
    let sink = Arc::new(RecordingSink::new());
    let task = EditTask {
        instruction: instruction.into(),
        targets: Vec::new(),
        context: String::new(),
    };
    let outcome = EditExecutor::new(&fx.ws, &model, sink.clone())
        .run(&task)
        .unwrap();
    assert!(
        matches!(outcome, EditOutcome::Completed { .. }),
        "{outcome:?}"
    );
    assert!(matches!(
        &sink.events()[0],
        Event::PreflightComplete { target_files, .. } if *target_files == ["a.rs", "notes.txt", "src/b.rs"]
    ));
    // An instruction that names no file is still refused, with nothing asked of the model.
    let task = EditTask {
        instruction: "Make it better.".into(),
        targets: Vec::new(),
        context: String::new(),
    };
    let err = EditExecutor::new(&fx.ws, &model, sink)
        .run(&task)
        .unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff);
}

#[test]
fn was_split_and_chunk_progress() {
    // (files, truncate a multi-file reply) -> was split
    for (files, truncate_multi, want) in [
        (&["a.rs"][..], false, false),
        (&["a.rs", "b.rs"][..], false, true),
        (&["a.rs", "b.rs"][..], true, true),
    ] {
        let fx = fixture(&[("a.rs", numbered("a", 5)), ("b.rs", numbered("b", 5))]);
        let model = ScriptedModel::new(
            &[
                ("a.rs", "let v2 = 2;", "let two = 2;"),
                ("b.rs", "let v2 = 2;", "let two = 2;"),
            ],
            Faults {
                truncate_multi_file: truncate_multi,
                ..Faults::default()
            },
        );
        let preflight = PreflightRules {
            max_files_per_call: if truncate_multi { 5 } else { 1 },
            ..PreflightRules::default()
        };
        let config = ExecutorConfig {
            preflight,
            ..ExecutorConfig::default()
        };
        let (outcome, sink) = run(&fx, &model, config, files);
        assert_eq!(outcome.was_split(), want, "{files:?} {truncate_multi}");
        assert_eq!(outcome.to_json()["wasSplit"], want);
        // Chunk events: where each chunk stands, in order.
        let progress: Vec<(&str, usize, usize, f64)> = sink
            .events()
            .iter()
            .filter_map(|e| match e {
                Event::EditChunkStarted { progress: p, .. } => {
                    Some(("started", p.chunk_index, p.total_chunks, p.progress))
                }
                Event::EditChunkCompleted { progress: p, .. } => {
                    Some(("completed", p.chunk_index, p.total_chunks, p.progress))
                }
                Event::EditChunkFailed { progress: p, .. } => {
                    Some(("failed", p.chunk_index, p.total_chunks, p.progress))
                }
                _ => None,
            })
            .collect();
        let expected: Vec<(&str, usize, usize, f64)> = match (files.len(), truncate_multi) {
            (1, _) => vec![("started", 1, 1, 0.0), ("completed", 1, 1, 1.0)],
            (_, false) => vec![
                ("started", 1, 2, 0.0),
                ("completed", 1, 2, 0.5),
                ("started", 2, 2, 0.5),
                ("completed", 2, 2, 1.0),
            ],
            (_, true) => vec![
                ("started", 1, 1, 0.0),
                ("failed", 1, 1, 0.0),
                ("started", 1, 2, 0.0),
                ("completed", 1, 2, 0.5),
                ("started", 2, 2, 0.5),
                ("completed", 2, 2, 1.0),
            ],
        };
        assert_eq!(progress, expected, "{files:?} {truncate_multi}");
    }
}

#[test]
fn split_by_file_succeeds_and_the_combined_diff_applies() {
    let a = numbered("a", 30);
    let b = numbered("b", 30);
    let c = numbered("c", 10);
    let fx = fixture(&[
        ("src/a.rs", a.clone()),
        ("src/b.rs", b.clone()),
        ("src/c.rs", c.clone()),
    ]);
    let model = ScriptedModel::new(
        &[
            ("src/a.rs", "let v7 = 7;", "let seven = 7;"),
            ("src/b.rs", "let v20 = 20;", "let twenty = 20;"),
        ],
        Faults {
            truncate_multi_file: true,
            ..Faults::default()
        },
    );
    let before = tree(fx.dir.path());
    let (outcome, sink) = run(
        &fx,
        &model,
        ExecutorConfig::default(),
        &["src/b.rs", "src/a.rs", "src/c.rs"],
    );

    // Split before the first call: the model never sees a multi-file request.
    assert_eq!(model.calls(), [["src/a.rs"], ["src/b.rs"], ["src/c.rs"]]);
    assert_eq!(
        sink.names(),
        [
            "preflight_complete",
            "edit_split_triggered",
            "edit_chunk_started",
            "edit_chunk_completed",
            "edit_chunk_started",
            "edit_chunk_completed",
            "edit_chunk_started",
            "edit_chunk_completed",
        ]
    );
    assert!(matches!(
        &sink.events()[0],
        Event::PreflightComplete { should_split: true, reason, .. } if reason == "multiple_files"
    ));
    let EditOutcome::Completed {
        combined_diff,
        ledger,
        ..
    } = outcome
    else {
        panic!("expected completion: {outcome:?}");
    };
    assert_eq!(ledger.touched_files(), ["src/a.rs", "src/b.rs"]);
    assert_eq!(
        ledger.entry("src/c.rs").unwrap().status,
        ChunkStatus::Skipped
    );
    assert_eq!(ledger.chunks_used(), 3);
    // The executor itself writes nothing.
    assert_eq!(tree(fx.dir.path()), before);
    // Path order, anchored lines.
    let a_at = combined_diff.find("+++ b/src/a.rs").unwrap();
    let b_at = combined_diff.find("+++ b/src/b.rs").unwrap();
    assert!(a_at < b_at, "{combined_diff}");
    assert!(
        combined_diff.contains(&format!("-{}", hashline(7, "let v7 = 7;"))),
        "{combined_diff}"
    );

    let report = apply_combined(&fx.ws, &combined_diff, &ledger.base_shas()).unwrap();
    assert!(report.all_applied(), "{}", report.summary());
    let read = |p: &str| std::fs::read_to_string(fx.dir.path().join(p)).unwrap();
    assert_eq!(read("src/a.rs"), a.replace("let v7 = 7;", "let seven = 7;"));
    assert_eq!(
        read("src/b.rs"),
        b.replace("let v20 = 20;", "let twenty = 20;")
    );
    assert_eq!(read("src/c.rs"), c);
}

#[test]
fn a_combined_call_that_truncates_splits_by_file() {
    let fx = fixture(&[("a.rs", numbered("a", 12)), ("b.rs", numbered("b", 12))]);
    let model = ScriptedModel::new(
        &[
            ("a.rs", "let v3 = 3;", "let three = 3;"),
            ("b.rs", "let v4 = 4;", "let four = 4;"),
        ],
        Faults {
            truncate_multi_file: true,
            ..Faults::default()
        },
    );
    let config = ExecutorConfig {
        preflight: PreflightRules {
            max_files_per_call: 4,
            max_lines_per_call: 400,
        },
        ..ExecutorConfig::default()
    };
    let (outcome, sink) = run(&fx, &model, config, &["a.rs", "b.rs"]);
    assert_eq!(
        model.calls(),
        vec![vec!["a.rs", "b.rs"], vec!["a.rs"], vec!["b.rs"]]
    );
    assert_eq!(
        sink.names(),
        [
            "preflight_complete",
            "edit_chunk_started",
            "truncation_detected",
            "edit_chunk_failed",
            "edit_split_triggered",
            "edit_chunk_started",
            "edit_chunk_completed",
            "edit_chunk_started",
            "edit_chunk_completed",
        ]
    );
    let events = sink.events();
    assert!(matches!(
        &events[0],
        Event::PreflightComplete {
            should_split: false,
            ..
        }
    ));
    assert!(matches!(
        &events[2],
        Event::TruncationDetected { reason, stop_reason: Some(sr), .. } if reason == "stop_reason" && sr == "max_tokens"
    ));
    let EditOutcome::Completed {
        combined_diff,
        ledger,
        ..
    } = outcome
    else {
        panic!("expected completion: {outcome:?}");
    };
    // The combined call cost a chunk but no file attempt.
    assert_eq!(ledger.chunks_used(), 3);
    assert_eq!(ledger.entry("a.rs").unwrap().attempts, 1);
    let report = apply_combined(&fx.ws, &combined_diff, &ledger.base_shas()).unwrap();
    assert!(report.all_applied(), "{}", report.summary());
    assert!(
        std::fs::read_to_string(fx.dir.path().join("b.rs"))
            .unwrap()
            .contains("let four = 4;")
    );
}

#[test]
fn a_file_that_still_truncates_pauses_and_nothing_is_written() {
    let fx = fixture(&[
        ("a.rs", numbered("a", 12)),
        ("b.rs", numbered("b", 12)),
        ("c.rs", numbered("c", 12)),
    ]);
    let model = ScriptedModel::new(
        &[
            ("a.rs", "let v3 = 3;", "let three = 3;"),
            ("b.rs", "let v4 = 4;", "let four = 4;"),
            ("c.rs", "let v5 = 5;", "let five = 5;"),
        ],
        Faults {
            always_truncate: BTreeSet::from(["b.rs".to_string()]),
            ..Faults::default()
        },
    );
    let before = tree(fx.dir.path());
    let (outcome, sink) = run(
        &fx,
        &model,
        ExecutorConfig::default(),
        &["a.rs", "b.rs", "c.rs"],
    );
    assert_eq!(
        sink.names(),
        [
            "preflight_complete",
            "edit_split_triggered",
            "edit_chunk_started",
            "edit_chunk_completed",
            "edit_chunk_started",
            "truncation_detected",
            "edit_chunk_failed",
            "edit_chunk_started",
            "truncation_detected",
            "edit_chunk_failed",
            "edit_step_paused",
        ]
    );
    let events = sink.events();
    assert_eq!(
        events[7],
        Event::EditChunkStarted {
            file: "b.rs".into(),
            attempt: 2,
            // a.rs is done: one of three files finished; b.rs is the second chunk.
            progress: ChunkProgress {
                chunk_index: 2,
                total_chunks: 3,
                progress: 1.0 / 3.0,
            },
        }
    );
    assert!(matches!(
        &events[5],
        Event::TruncationDetected { file, reason, stop_reason: None, .. } if file == "b.rs" && reason == "invalid_json"
    ));
    assert!(
        matches!(&events[6], Event::EditChunkFailed { reason, .. } if reason == "truncated_input")
    );
    assert_eq!(
        events[10],
        Event::EditStepPaused {
            reason: "max_attempts_exceeded".into(),
            // a.rs done, b.rs failed, c.rs not reached: one of three finished.
            progress: 1.0 / 3.0,
        }
    );
    // The retry told the model why the first attempt was refused.
    let requests = model.requests.lock().unwrap().clone();
    assert_eq!(requests[2].attempt, 2);
    let prev = requests[2].previous_error.clone().unwrap();
    assert!(prev.contains("truncated_input"), "{prev}");
    assert!(requests[2].prompt().contains(&prev));

    let EditOutcome::Paused { reason, ledger, .. } = outcome else {
        panic!("expected a pause: {outcome:?}");
    };
    assert!(
        matches!(&reason, PauseReason::AttemptsExhausted { path, attempts: 2, .. } if path == "b.rs"),
        "{reason}"
    );
    assert_eq!(ledger.entry("a.rs").unwrap().status, ChunkStatus::Done);
    assert_eq!(ledger.entry("b.rs").unwrap().status, ChunkStatus::Failed);
    assert_eq!(ledger.entry("c.rs").unwrap().status, ChunkStatus::Pending);
    // c.rs was never asked for: the step stopped at the first exhausted file.
    assert_eq!(model.calls().len(), 3);
    assert_eq!(tree(fx.dir.path()), before, "nothing may be written");
}

#[test]
fn a_wrong_base_sha_is_refused_and_retried_with_the_reason() {
    let fx = fixture(&[("a.rs", numbered("a", 8))]);
    let model = ScriptedModel::new(
        &[("a.rs", "let v2 = 2;", "let two = 2;")],
        Faults {
            wrong_sha_once: BTreeSet::from(["a.rs".to_string()]),
            ..Faults::default()
        },
    );
    let (outcome, sink) = run(&fx, &model, ExecutorConfig::default(), &["a.rs"]);
    assert_eq!(
        sink.names(),
        [
            "preflight_complete",
            "edit_chunk_started",
            "edit_chunk_failed",
            "edit_chunk_started",
            "edit_chunk_completed",
        ]
    );
    assert!(
        matches!(&sink.events()[2], Event::EditChunkFailed { reason, .. } if reason == "sha_mismatch")
    );
    let requests = model.requests.lock().unwrap().clone();
    assert!(
        requests[1]
            .previous_error
            .as_deref()
            .unwrap()
            .contains("sha_mismatch")
    );
    assert!(matches!(outcome, EditOutcome::Completed { .. }));
}

#[test]
fn the_chunk_cap_pauses_the_step() {
    let names: Vec<String> = (0..11).map(|i| format!("f{i:02}.rs")).collect();
    let files: Vec<(&str, String)> = names.iter().map(|n| (n.as_str(), numbered(n, 5))).collect();
    let fx = fixture(&files);
    let model = ScriptedModel::new(&[], Faults::default());
    let before = tree(fx.dir.path());
    let targets: Vec<&str> = names.iter().map(String::as_str).collect();
    let (outcome, sink) = run(&fx, &model, ExecutorConfig::default(), &targets);
    assert_eq!(model.calls().len(), 10);
    let EditOutcome::Paused { reason, ledger, .. } = outcome else {
        panic!("expected a pause: {outcome:?}");
    };
    assert_eq!(
        reason,
        PauseReason::ChunkCapReached {
            chunks: 10,
            remaining: vec!["f10.rs".into()]
        }
    );
    assert_eq!(ledger.entry("f10.rs").unwrap().status, ChunkStatus::Pending);
    assert_eq!(sink.names().last(), Some(&"edit_step_paused"));
    assert_eq!(tree(fx.dir.path()), before);
}

#[test]
fn apply_refuses_stale_files_and_plans_every_file_before_writing() {
    let fx = fixture(&[("a.rs", numbered("a", 10)), ("b.rs", numbered("b", 10))]);
    let model = ScriptedModel::new(
        &[
            ("a.rs", "let v3 = 3;", "let three = 3;"),
            ("b.rs", "let v4 = 4;", "let four = 4;"),
        ],
        Faults::default(),
    );
    let (outcome, _) = run(&fx, &model, ExecutorConfig::default(), &["a.rs", "b.rs"]);
    let EditOutcome::Completed {
        combined_diff,
        ledger,
        ..
    } = outcome
    else {
        panic!("expected completion");
    };

    // b.rs changes after the edit was generated: stale_context, a.rs untouched.
    std::fs::write(fx.dir.path().join("b.rs"), numbered("b", 11)).unwrap();
    let before = tree(fx.dir.path());
    let err = apply_combined(&fx.ws, &combined_diff, &ledger.base_shas()).unwrap_err();
    assert_eq!(err.reason, Reason::StaleContext);
    assert_eq!(err.path.as_deref(), Some("b.rs"));
    assert_eq!(tree(fx.dir.path()), before);

    // Without the sha check, the dry run still refuses the whole diff when one file's hunk no
    // longer matches, and writes nothing.
    std::fs::write(fx.dir.path().join("b.rs"), "completely different\n").unwrap();
    let before = tree(fx.dir.path());
    let err = apply_combined(&fx.ws, &combined_diff, &BTreeMap::new()).unwrap_err();
    assert_eq!(err.reason, Reason::HunkMismatch, "{err}");
    assert!(err.message.contains("nothing was written"), "{err}");
    assert_eq!(tree(fx.dir.path()), before);
}

#[test]
fn bad_tasks_are_errors_not_pauses() {
    let fx = fixture(&[("bin.dat", String::from("a\0b"))]);
    let model = ScriptedModel::new(&[], Faults::default());
    let sink = Arc::new(RecordingSink::new());
    let exec = EditExecutor::new(&fx.ws, &model, sink.clone());
    assert_eq!(exec.run(&task(&[])).unwrap_err().reason, Reason::EmptyDiff);
    assert_eq!(
        exec.run(&task(&["../x.rs"])).unwrap_err().reason,
        Reason::PathOutsideWorkspace
    );
    assert_eq!(
        exec.run(&task(&["bin.dat"])).unwrap_err().reason,
        Reason::BinaryFile
    );
    assert!(model.calls().is_empty());
    assert!(sink.names().is_empty());
}

// ---------------------------------------------------------------------------------------------
// Excerpts

fn excerpt_fixture() -> Fixture {
    let mut files = Vec::new();
    for i in 0..10 {
        let mut s = String::from("use std::fs;\nuse crate::store::Store;\n\n");
        for j in 0..150 {
            if j % 37 == 5 {
                s.push_str(&format!("    let store = Store::open(\"{i}-{j}\");\n"));
            } else {
                s.push_str(&format!("    let x{j} = {j};\n"));
            }
        }
        s.push_str("pub fn exported() {}\n");
        files.push((format!("src/m{i}.rs"), s));
    }
    files.push(("README.md".into(), "no matches here\njust prose\n".into()));
    let refs: Vec<(&str, String)> = files.iter().map(|(p, s)| (p.as_str(), s.clone())).collect();
    fixture(&refs)
}

fn candidates() -> ExcerptCandidates {
    ExcerptCandidates {
        retrieval_hits: vec!["src/m3.rs".into(), "src/m1.rs".into(), "missing.rs".into()],
        open_files: vec!["README.md".into(), "./src/m3.rs".into()],
        fallback: (0..10).map(|i| format!("src/m{i}.rs")).collect(),
    }
}

#[test]
fn excerpts_are_deterministic_capped_and_anchored() {
    let fx = excerpt_fixture();
    let keywords = vec!["Store::open".to_string()];
    let limits = ExcerptLimits::default();
    let first = select_excerpts(&fx.ws, &candidates(), &keywords, &limits);
    // A second workspace handle and a second run: byte-identical.
    let ws2 = Workspace::open(fx.dir.path()).unwrap();
    let second = select_excerpts(&ws2, &candidates(), &keywords, &limits);
    assert_eq!(first.render(), second.render());
    assert_eq!(first, second);

    let rendered = first.render();
    assert!(first.files.len() <= 6, "{} files", first.files.len());
    assert_eq!(first.files.len(), 6, "enough candidates to fill the cap");
    assert!(
        rendered.lines().count() <= 400,
        "{} lines",
        rendered.lines().count()
    );
    assert_eq!(rendered.lines().count(), first.total_lines);
    // Priority order: retrieval hits, then open files, then fallback; duplicates once.
    let order: Vec<&str> = first.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(order[..3], ["src/m3.rs", "src/m1.rs", "README.md"]);
    assert_eq!(order.iter().collect::<BTreeSet<_>>().len(), order.len());
    assert!(
        first
            .skipped
            .iter()
            .any(|s| s.path == "missing.rs" && s.reason.starts_with("file_not_found"))
    );

    for f in &first.files {
        let bytes = std::fs::read(fx.dir.path().join(&f.path)).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut body = f.text.lines();
        let header = body.next().unwrap();
        assert!(
            header.starts_with(&format!("==> {} base_sha={} ", f.path, base_sha(&bytes))),
            "{header}"
        );
        let mut anchored = 0;
        for l in body {
            if l == "..." {
                continue;
            }
            let (anchor, _) = l.split_once('|').unwrap();
            let no: usize = anchor
                .trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse()
                .unwrap();
            assert_eq!(
                l,
                hashline(no, lines[no - 1]),
                "anchor of {} line {no}",
                f.path
            );
            anchored += 1;
        }
        assert!(anchored > 0);
        if f.path.starts_with("src/") {
            // Keyword matches and imports/exports are what is shown.
            assert!(f.text.contains("Store::open"), "{}", f.text);
            assert!(f.text.contains("|use std::fs;"), "{}", f.text);
        }
    }
}

#[test]
fn excerpt_line_budget_holds_with_many_matches() {
    let fx = excerpt_fixture();
    // Every line matches: each file is limited by its share, the whole by 400 lines.
    let keywords = vec!["let".to_string()];
    let set = select_excerpts(&fx.ws, &candidates(), &keywords, &ExcerptLimits::default());
    let rendered = set.render();
    assert!(
        rendered.lines().count() <= 400,
        "{}",
        rendered.lines().count()
    );
    assert!(set.files.len() <= 6);
    assert!(
        set.skipped
            .iter()
            .any(|s| s.reason.contains("line budget") || s.reason.contains("file cap"))
    );
    let tight = ExcerptLimits {
        max_lines: 50,
        ..ExcerptLimits::default()
    };
    let set = select_excerpts(&fx.ws, &candidates(), &keywords, &tight);
    assert!(set.render().lines().count() <= 50);
    assert_eq!(
        set.render(),
        select_excerpts(&fx.ws, &candidates(), &keywords, &tight).render()
    );
}

/// A model answering with a fixed function of the request.
struct FnModel<F: Fn(&EditRequest) -> ModelReply>(F);

impl<F: Fn(&EditRequest) -> ModelReply> EditModel for FnModel<F> {
    fn generate(&self, request: &EditRequest) -> Result<ModelReply, ModelError> {
        Ok((self.0)(request))
    }
}

#[test]
fn a_target_that_does_not_exist_is_created_and_renames_are_refused() {
    let fx = fixture(&[("keep.rs", "fn keep() {}\n".to_string())]);
    let create = FnModel(|r: &EditRequest| {
        let f = &r.files[0];
        assert!(!f.exists && f.base_sha.is_empty());
        ModelReply {
            content: json!({
                "unified_diff": "--- /dev/null\n+++ b/src/new.rs\n@@ -0,0 +1,2 @@\n+pub fn new() {}\n+// end\n",
                "touched_files": [{"path": "src/new.rs", "reason": "new module", "base_sha": ""}],
                "confidence": 0.7, "notes": "", "validation_status": "unchecked", "complete": true
            })
            .to_string(),
            stop_reason: None,
        }
    });
    let sink = Arc::new(RecordingSink::new());
    let outcome = EditExecutor::new(&fx.ws, &create, sink)
        .run(&task(&["src/new.rs"]))
        .unwrap();
    let EditOutcome::Completed {
        combined_diff,
        ledger,
        ..
    } = outcome
    else {
        panic!("expected completion: {outcome:?}");
    };
    assert!(
        !fx.dir.path().join("src/new.rs").exists(),
        "nothing before apply"
    );
    apply_combined(&fx.ws, &combined_diff, &ledger.base_shas()).unwrap();
    assert_eq!(
        std::fs::read_to_string(fx.dir.path().join("src/new.rs")).unwrap(),
        "pub fn new() {}\n// end\n"
    );

    let rename = FnModel(|r: &EditRequest| {
        let sha = |p: &str| {
            r.files
                .iter()
                .find(|f| f.path == p)
                .map_or(String::new(), |f| f.base_sha.clone())
        };
        ModelReply {
            content: json!({
                "unified_diff": "diff --git a/keep.rs b/moved.rs\nrename from keep.rs\nrename to moved.rs\n",
                "touched_files": [
                    {"path": "keep.rs", "reason": "move", "base_sha": sha("keep.rs")},
                    {"path": "moved.rs", "reason": "move", "base_sha": sha("moved.rs")},
                ],
                "confidence": 0.7, "notes": "", "validation_status": "unchecked", "complete": true
            })
            .to_string(),
            stop_reason: None,
        }
    });
    let sink = Arc::new(RecordingSink::new());
    let both = ExecutorConfig {
        preflight: PreflightRules {
            max_files_per_call: 2,
            max_lines_per_call: 400,
        },
        ..ExecutorConfig::default()
    };
    let outcome = EditExecutor::new(&fx.ws, &rename, sink.clone())
        .with_config(both)
        .run(&task(&["keep.rs", "moved.rs"]))
        .unwrap();
    assert!(matches!(outcome, EditOutcome::Paused { .. }), "{outcome:?}");
    // The combined call sees both files: the rename itself is refused.
    assert!(matches!(
        &sink.events()[2],
        Event::EditChunkFailed { file, reason, .. } if file == "keep.rs, moved.rs" && reason == "unsafe_diff"
    ));
    // Per file, the reply names a file that call was not given.
    assert!(matches!(
        &sink.events()[5],
        Event::EditChunkFailed { reason, .. } if reason == "scope_violation"
    ));
    assert!(fx.dir.path().join("keep.rs").exists());
}
