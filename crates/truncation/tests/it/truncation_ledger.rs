//! The edit ledger's state machine and caps through its public API (each refused transition and
//! pause with the text the executor reports), the preflight's split decision, and the prompt a
//! text model is given.

use lspedit_truncation::EditRequest;
use lspedit_truncation::{
    ChunkStatus, Complexity, EditAttemptLedger, LedgerError, LedgerLimits, PauseReason,
    PreflightRules, TargetFile,
};

fn ledger(paths: &[&str], limits: LedgerLimits) -> EditAttemptLedger {
    EditAttemptLedger::new(
        paths.iter().map(|p| (p.to_string(), format!("sha-{p}"))),
        limits,
    )
}

fn limits(attempts: u32, chunks: u32) -> LedgerLimits {
    LedgerLimits {
        max_attempts_per_file: attempts,
        max_total_chunks: chunks,
    }
}

#[test]
fn transitions_out_of_order_are_refused_naming_both_states() {
    let mut l = ledger(&["a.rs", "b.rs"], limits(2, 10));
    assert_eq!(l.limits(), limits(2, 10));
    // check(result, message)
    let check = |r: Result<(), LedgerError>, expected: &str| match r {
        Ok(()) => panic!("accepted; expected {expected:?}"),
        Err(e) => assert_eq!(e.to_string(), expected),
    };
    check(
        l.complete("a.rs", String::new()),
        "`a.rs` is pending, it cannot become done",
    );
    check(
        l.fail("nope.rs", "x"),
        "`nope.rs` is not a file of this step",
    );
    assert_eq!(l.start_file("a.rs").unwrap(), 1);
    check(
        l.start_group(&["a.rs".to_string(), "b.rs".to_string()]),
        "`a.rs` is in_progress, it cannot become in_progress",
    );
    // The refused group took nothing: b.rs is still pending and one chunk is used.
    assert_eq!(l.entry("b.rs").unwrap().status, ChunkStatus::Pending);
    assert_eq!(l.chunks_used(), 1);
    l.skip("a.rs", "already renamed").unwrap();
    check(
        l.release("a.rs", "x"),
        "`a.rs` is skipped, it cannot become pending",
    );
    assert_eq!(
        l.start_file("a.rs").unwrap_err().to_string(),
        "`a.rs` is skipped, it cannot become in_progress"
    );
    let a = l.entry("a.rs").unwrap();
    assert_eq!(
        (a.status.as_str(), a.note.as_deref()),
        ("skipped", Some("already renamed"))
    );
    assert_eq!(l.remaining(), ["b.rs"]);
}

#[test]
fn a_file_out_of_attempts_pauses_the_step_with_its_last_error() {
    let mut l = ledger(&["a.rs"], limits(2, 10));
    for n in 1..=2 {
        assert_eq!(l.start_file("a.rs").unwrap(), n);
        l.fail("a.rs", format!("hunk_mismatch #{n}")).unwrap();
    }
    assert_eq!(l.next_runnable(), None);
    let pause = l.should_pause().unwrap();
    assert_eq!(pause.code(), "max_attempts_exceeded");
    assert_eq!(
        pause.to_string(),
        "max_attempts_exceeded: `a.rs` failed 2 attempt(s), last: hunk_mismatch #2"
    );
    // A third attempt is refused as a transition, not silently run.
    assert!(matches!(
        l.start_file("a.rs"),
        Err(LedgerError::InvalidTransition { .. })
    ));
    assert!(!l.is_complete());
}

#[test]
fn the_chunk_cap_pauses_naming_what_is_left() {
    let mut l = ledger(&["a.rs", "b.rs", "c.rs"], limits(3, 2));
    l.start_file("a.rs").unwrap();
    l.complete("a.rs", "diff a\n".to_string()).unwrap();
    l.start_group(&["b.rs".to_string(), "c.rs".to_string()])
        .unwrap();
    l.release("b.rs", "cut off").unwrap();
    l.release("c.rs", "cut off").unwrap();
    // Released files keep their attempts: the group call charged none.
    assert_eq!(l.entry("b.rs").unwrap().attempts, 0);
    assert_eq!(
        l.entry("b.rs").unwrap().last_error.as_deref(),
        Some("cut off")
    );
    let err = l.start_file("b.rs").unwrap_err();
    let LedgerError::Paused(pause) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        *pause,
        PauseReason::ChunkCapReached {
            chunks: 2,
            remaining: vec!["b.rs".into(), "c.rs".into()]
        }
    );
    assert_eq!(
        err.to_string(),
        "chunk_cap_reached: 2 model call(s) used, still to do: b.rs, c.rs"
    );
    assert_eq!(l.should_pause().as_ref(), Some(pause));
    assert_eq!(l.combined_diff(), "diff a\n");
    assert_eq!(l.touched_files(), ["a.rs"]);
}

fn target(path: &str, lines: usize) -> TargetFile {
    TargetFile {
        path: path.to_string(),
        base_sha: if lines > 0 {
            format!("sha-{path}")
        } else {
            String::new()
        },
        exists: lines > 0,
        line_count: lines,
        view: (1..=lines).map(|i| format!("{i}aaaa|line\n")).collect(),
    }
}

#[test]
fn preflight_splits_by_files_then_by_lines() {
    let rules = PreflightRules {
        max_files_per_call: 2,
        max_lines_per_call: 100,
    };
    // check(files, split, reason, complexity)
    let check = |files: &[TargetFile], split: bool, reason: &str, complexity: Complexity| {
        let r = rules.decide(files);
        assert_eq!(
            (r.split, r.reason, r.estimated_complexity),
            (split, reason, complexity),
            "{:?}",
            r.target_files
        );
        assert_eq!(
            r.total_lines,
            files.iter().map(|f| f.line_count).sum::<usize>()
        );
    };
    check(&[target("a", 10)], false, "single_chunk", Complexity::Low);
    check(
        &[target("a", 60), target("b", 60)],
        true,
        "high_complexity",
        Complexity::Medium,
    );
    check(
        &[target("a", 1), target("b", 1), target("c", 1)],
        true,
        "multiple_files",
        Complexity::Medium,
    );
    check(
        &[target("a", 401)],
        true,
        "high_complexity",
        Complexity::High,
    );
}

#[test]
fn the_prompt_lists_new_files_context_and_the_previous_error() {
    let request = EditRequest {
        instruction: "Add the module.\n".to_string(),
        files: vec![target("src/new.rs", 0)],
        step_files: vec!["src/lib.rs".to_string(), "src/new.rs".to_string()],
        context: "src/lib.rs: mod old;\n\n".to_string(),
        attempt: 2,
        previous_error: Some("sha_mismatch: use the base_sha as sent".to_string()),
    };
    let prompt = request.prompt();
    for expected in [
        "Task:\nAdd the module.\n\n",
        "This call covers part of a step over: src/lib.rs, src/new.rs. Edit only the files below.",
        "==> src/new.rs base_sha=\"\" (does not exist; create it if the task needs it) <==\n",
        "Context (read-only):\nsrc/lib.rs: mod old;\n\n",
        "The previous attempt was refused: sha_mismatch: use the base_sha as sent\nFix that and send the whole edit again.",
    ] {
        assert!(prompt.contains(expected), "{expected:?} not in:\n{prompt}");
    }
    assert_eq!(prompt, request.prompt(), "the prompt is deterministic");

    // A whole-step call over an existing file: no partial-step line, no context section.
    let request = EditRequest {
        files: vec![target("src/lib.rs", 2)],
        step_files: vec!["src/lib.rs".to_string()],
        context: "  \n".to_string(),
        previous_error: None,
        ..request
    };
    let prompt = request.prompt();
    assert!(
        prompt.contains(
            "==> src/lib.rs base_sha=sha-src/lib.rs lines=2 <==\n1aaaa|line\n2aaaa|line\n"
        ),
        "{prompt}"
    );
    for absent in [
        "covers part of a step",
        "Context (read-only)",
        "previous attempt",
    ] {
        assert!(!prompt.contains(absent), "{absent:?} in:\n{prompt}");
    }
}
