//! Folder scenarios for the patch engine, run through `lspedit::write::apply_patch`.
//!
//! Each `tests/scenarios/NNN_name/` holds:
//! - `input/`: the workspace before the patch (absent = empty workspace);
//! - `patch.diff`: the patch text, verbatim (`@OUTSIDE@` stands for a directory outside the
//!   workspace, so absolute-path refusals need no real system path);
//! - `expected/`: the workspace after the patch (absent = empty). A refusal expects an
//!   unchanged tree. Written by hand from the intended semantics, never generated;
//! - `report.txt`: `PatchReport::summary()`, or `FAILED: <reason>: <message>` when the patch as
//!   a whole is refused. `UPDATE_SCENARIOS=1 cargo test --test scenarios` rewrites these files
//!   (and only these); review every change by hand;
//! - `symlinks.txt` (optional): lines `link -> target`, created in the workspace copy before the
//!   patch runs (git can store symlinks, but copying them portably is not worth it here).
//!
//! The workspace lives at `<tmp>/root`, next to `<tmp>/outside/x.txt`; after every scenario the
//! runner checks that nothing escaped: `<tmp>` holds only those two and `x.txt` is unchanged.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use lspedit::write::{ApplyPatchOptions, Workspace, apply_patch};

const OUTSIDE_CONTENT: &[u8] = b"outside the workspace\n";

/// Regular files under `dir`, relative path → bytes. Symlinks are not followed or listed (the
/// runner makes them); directories count only through their files.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(base, &path, out);
            } else if meta.is_file() {
                let rel = path
                    .strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn copy_tree(from: &Path, to: &Path) {
    for (rel, bytes) in tree(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::write(dest, bytes).unwrap();
    }
}

/// A readable rendering of a tree difference.
fn describe_diff(got: &BTreeMap<String, Vec<u8>>, want: &BTreeMap<String, Vec<u8>>) -> String {
    let mut out = String::new();
    for (path, bytes) in want {
        match got.get(path) {
            None => out.push_str(&format!("  missing {path}\n")),
            Some(g) if g != bytes => out.push_str(&format!(
                "  {path} differs:\n    want {:?}\n    got  {:?}\n",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(g)
            )),
            Some(_) => {}
        }
    }
    for path in got.keys().filter(|p| !want.contains_key(*p)) {
        out.push_str(&format!("  unexpected {path}\n"));
    }
    out
}

/// Run one scenario; `Err` describes every way it went wrong.
fn run(dir: &Path, update: bool) -> Result<(), String> {
    let mut problems = Vec::new();
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    let outside = base.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("x.txt"), OUTSIDE_CONTENT).unwrap();
    copy_tree(&dir.join("input"), &root);
    if let Ok(spec) = fs::read_to_string(dir.join("symlinks.txt")) {
        for line in spec.lines().filter(|l| !l.trim().is_empty()) {
            let (link, target) = line
                .split_once(" -> ")
                .expect("symlinks.txt: `link -> target`");
            std::os::unix::fs::symlink(target.trim(), root.join(link.trim())).unwrap();
        }
    }

    let ws = Workspace::open(&root).unwrap();
    let root_shown = ws.root().display().to_string();
    let outside_shown = fs::canonicalize(&outside).unwrap().display().to_string();
    let patch_bytes = fs::read(dir.join("patch.diff")).unwrap();
    let patch = String::from_utf8(patch_bytes)
        .expect("patch.diff must be UTF-8")
        .replace("@OUTSIDE@", &outside_shown);
    let report = match apply_patch(&ws, &patch, &ApplyPatchOptions::default()) {
        Ok(report) => report.summary(),
        Err(e) => format!("FAILED: {}: {}\n", e.reason, e.message),
    };
    let report = report
        .replace(&root_shown, "@ROOT@")
        .replace(&outside_shown, "@OUTSIDE@");

    let report_path = dir.join("report.txt");
    if update {
        fs::write(&report_path, &report).unwrap();
    } else {
        match fs::read_to_string(&report_path) {
            Ok(want) if want == report => {}
            Ok(want) => problems.push(format!(
                "report differs:\n--- want\n{want}--- got\n{report}"
            )),
            Err(_) => problems.push(format!(
                "no report.txt (run with UPDATE_SCENARIOS=1 and review it); got:\n{report}"
            )),
        }
    }

    let got = tree(&root);
    let want = tree(&dir.join("expected"));
    if got != want {
        problems.push(format!(
            "tree differs from expected/:\n{}",
            describe_diff(&got, &want)
        ));
    }
    // A whole-patch refusal or a report of nothing but refusals must leave the tree unchanged.
    let refused_all = report.lines().all(|l| l.starts_with("FAILED"));
    if refused_all && want != tree(&dir.join("input")) {
        problems.push("every file was refused, so expected/ must equal input/".to_string());
    }
    // Nothing escaped the workspace.
    let mut siblings: Vec<String> = fs::read_dir(base.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    siblings.sort();
    if siblings != ["outside", "root"] {
        problems.push(format!(
            "files appeared next to the workspace: {siblings:?}"
        ));
    }
    let outside_tree = tree(&outside);
    if outside_tree.len() != 1
        || outside_tree.get("x.txt").map(Vec::as_slice) != Some(OUTSIDE_CONTENT)
    {
        problems.push(format!(
            "the directory outside the workspace changed: {:?}",
            outside_tree.keys().collect::<Vec<_>>()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn scenario_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("patch.diff").is_file())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn scenarios() {
    let update = std::env::var_os("UPDATE_SCENARIOS").is_some_and(|v| v == "1");
    let dirs = scenario_dirs();
    assert!(dirs.len() >= 40, "only {} scenarios", dirs.len());
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        if let Err(why) = run(dir, update) {
            failures.push(format!("=== {name}\n{why}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

/// Every scenario folder is complete: a stray folder without `patch.diff` would silently not run.
#[test]
fn every_folder_is_a_scenario() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    for entry in fs::read_dir(&root).unwrap() {
        let path = entry.unwrap().path();
        assert!(
            path.join("patch.diff").is_file(),
            "{} has no patch.diff",
            path.display()
        );
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.len() > 4 && name[..3].bytes().all(|b| b.is_ascii_digit()) && &name[3..4] == "_",
            "scenario folders are named NNN_name: {name}"
        );
    }
}
