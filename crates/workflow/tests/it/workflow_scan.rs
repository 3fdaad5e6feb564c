//! Regex proposals (`propose_edit` with a pattern): bad patterns and scopes refused with their
//! reason before anything is stored, files the scan must skip (binary, not UTF-8, too large)
//! counted as skipped and never changed, and the language scopes.

use std::path::Path;
use std::sync::Arc;

use lspedit_tools::{Tools, ToolsConfig};
use lspedit_workflow::language_globs;
use lspedit_workflow::{ProposeRequest, Workflow, WorkflowConfig};
use lspedit_write::{Reason, Workspace};

fn workflow(files: &[(&str, &[u8])], cfg: WorkflowConfig) -> (tempfile::TempDir, Workflow) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, content) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    let tools = Arc::new(Tools::new(
        Workspace::open(dir.path()).unwrap(),
        None,
        ToolsConfig::default(),
    ));
    let wf = Workflow::open(tools, cfg).unwrap();
    (dir, wf)
}

/// The stored patches (nothing is stored for a refused proposal).
fn stored(root: &Path) -> usize {
    std::fs::read_dir(root.join(".lspedit/patches")).map_or(0, |d| d.count())
}

#[test]
fn bad_patterns_and_scopes_are_refused_before_anything_is_stored() {
    let (dir, wf) = workflow(&[("src/a.rs", b"old\n")], WorkflowConfig::unrestricted());
    // check(pattern, scope, reason, message fragment)
    let check = |pattern: &str, scope: &[&str], reason: Reason, needle: &str| {
        let err = wf
            .propose_edit(&ProposeRequest::regex(pattern, "new", scope))
            .unwrap_err();
        assert_eq!(err.reason, reason, "{pattern} {scope:?}: {err:?}");
        assert!(err.message.contains(needle), "{needle:?} not in {err:?}");
    };
    check(
        "(old",
        &[],
        Reason::InvalidDiffFormat,
        "the pattern is not a valid regular expression",
    );
    check(
        "old",
        &["../elsewhere/**"],
        Reason::PathOutsideWorkspace,
        "scope globs are relative to the workspace root and may not use `..`",
    );
    check(
        "old",
        &["/etc/**"],
        Reason::PathOutsideWorkspace,
        "may not use `..`",
    );
    check("old", &["src/[a"], Reason::InvalidDiffFormat, "invalid");
    assert_eq!(stored(dir.path()), 0);
    assert_eq!(
        std::fs::read(dir.path().join("src/a.rs")).unwrap(),
        b"old\n"
    );
}

#[test]
fn binary_non_utf8_and_oversized_files_are_skipped_and_counted() {
    let big = "old\n".repeat(100);
    let cfg = WorkflowConfig {
        max_scan_file_bytes: 64,
        ..WorkflowConfig::unrestricted()
    };
    let files: &[(&str, &[u8])] = &[
        ("src/a.rs", b"old\n"),
        ("src/bin.rs", b"old\0\n"),
        ("src/latin1.rs", b"old caf\xe9\n"),
        ("src/big.rs", big.as_bytes()),
        ("src/other.rs", b"nothing here\n"),
    ];
    let (dir, wf) = workflow(files, cfg);
    let p = wf
        .propose_edit(&ProposeRequest::regex(r"\bold\b", "new", &["src"]))
        .unwrap();
    assert_eq!(p.stats.files_skipped, 3, "{:?}", p.stats);
    assert_eq!(p.stats.files_scanned, 2, "{:?}", p.stats);
    assert_eq!(p.affected_files(), ["src/a.rs"]);
    // Proposing wrote nothing to the workspace.
    for (rel, content) in files {
        assert_eq!(
            &std::fs::read(dir.path().join(rel)).unwrap(),
            content,
            "{rel}"
        );
    }
}

// A pattern that matches but whose replacement is the same text changes nothing: the file
// counts as scanned, not as matched, and the proposal is refused as empty.
#[test]
fn a_replacement_equal_to_the_match_is_no_change() {
    let (dir, wf) = workflow(&[("a.txt", b"same\n")], WorkflowConfig::unrestricted());
    let err = wf
        .propose_edit(&ProposeRequest::regex("same", "same", &[]))
        .unwrap_err();
    assert_eq!(err.reason, Reason::EmptyDiff, "{err:?}");
    assert_eq!(std::fs::read(dir.path().join("a.txt")).unwrap(), b"same\n");
}

#[test]
fn a_language_scope_searches_only_its_files() {
    let files: &[(&str, &[u8])] = &[("x.cpp", b"old\n"), ("x.hpp", b"old\n"), ("x.rs", b"old\n")];
    let (_dir, wf) = workflow(files, WorkflowConfig::unrestricted());
    let p = wf
        .propose_edit(&ProposeRequest::regex("old", "new", &[]).with_language("C++"))
        .unwrap();
    assert_eq!(p.affected_files(), ["x.cpp", "x.hpp"]);

    let err = wf
        .propose_edit(&ProposeRequest::regex("old", "new", &[]).with_language("cobol"))
        .unwrap_err();
    assert!(
        err.message
            .contains("the language `cobol` is not one lspedit knows"),
        "{err:?}"
    );
}

#[test]
fn language_names_and_aliases_map_to_globs() {
    // check(language, first glob or None)
    let check = |language: &str, first: Option<&str>| {
        assert_eq!(language_globs(language).map(|g| g[0]), first, "{language}");
    };
    check("rust", Some("**/*.rs"));
    check(" RS ", Some("**/*.rs"));
    check("ts", Some("**/*.ts"));
    check("js", Some("**/*.js"));
    check("py", Some("**/*.py"));
    check("go", Some("**/*.go"));
    check("java", Some("**/*.java"));
    check("c", Some("**/*.c"));
    check("cpp", Some("**/*.cc"));
    check("c++", Some("**/*.cc"));
    check("kotlin", None);
}
