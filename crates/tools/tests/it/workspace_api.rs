//! The `Workspace` API an embedder calls directly (opening, protected names, reads of what is not
//! a regular file, removal, staging) and `AsyncTools`' write tools: each refusal with its reason
//! and message, and the files it must leave alone.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;

use lspedit_tools::{AsyncTools, Tools, ToolsConfig};
use lspedit_write::{Reason, ToolError, Workspace};

fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

/// `err` has `reason` and a message containing `needle`.
fn assert_error(err: &ToolError, reason: Reason, needle: &str) {
    assert_eq!(err.reason, reason, "{err:?}");
    assert!(err.message.contains(needle), "{needle:?} not in {err:?}");
}

#[test]
fn open_refuses_a_missing_root_and_a_file_as_root() {
    let dir = tempfile::tempdir().unwrap();
    let err = Workspace::open(dir.path().join("missing")).unwrap_err();
    assert_error(&err, Reason::IoError, "opening the workspace root");

    let file = dir.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    let err = Workspace::open(&file).unwrap_err();
    assert_error(
        &err,
        Reason::IoError,
        "the workspace root is not a directory",
    );
    assert_eq!(
        err.path.as_deref(),
        Some(file.display().to_string().as_str())
    );
}

#[test]
fn with_protected_keeps_git_and_lspedit_and_drops_empty_and_repeated_names() {
    let (_dir, ws) = workspace();
    let ws = ws.with_protected(["secrets", "", "secrets", ".git"]);
    assert_eq!(ws.protected(), [".git", ".lspedit", "secrets"]);
    assert_eq!(ws.protected_in(Path::new("a/secrets/key")), Some("secrets"));
    assert_eq!(ws.protected_in(Path::new(".lspedit/x")), Some(".lspedit"));
    // Names match whole path components only.
    assert_eq!(ws.protected_in(Path::new("a/secrets2/key")), None);
    // The default list (.hg, .svn, .jj besides the two kept) no longer applies once replaced.
    assert_eq!(ws.protected_in(Path::new(".hg/store")), None);
}

#[test]
fn write_under_a_replaced_protected_name_is_refused_and_writes_nothing() {
    let (dir, ws) = workspace();
    let ws = ws.with_protected(["vault"]);
    let err = ws.write_atomic("vault/key", b"x").unwrap_err();
    assert_eq!(err.reason, Reason::ProtectedPath, "{err:?}");
    assert!(!dir.path().join("vault").exists());
}

#[test]
fn resolve_refuses_the_root_itself_and_empty_or_nul_paths() {
    let (_dir, ws) = workspace();
    // check(path, message fragment)
    let check = |path: &str, needle: &str| {
        let err = ws.resolve(path).unwrap_err();
        assert_error(&err, Reason::PathOutsideWorkspace, needle);
    };
    check(".", "the path names the root itself");
    check("a/..", "the path names the root itself");
    check("", "empty or invalid path");
    check("a\0b", "empty or invalid path");
    check("../x", "climbs above the root");
    check("/etc/passwd", "absolute path outside the workspace");
}

#[test]
fn read_refuses_a_directory_and_a_fifo_without_blocking() {
    let (dir, ws) = workspace();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    let err = ws.read("sub").unwrap_err();
    assert_error(&err, Reason::IoError, "is a directory, not a file");

    rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.path().join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let err = ws.read("pipe").unwrap_err();
    assert_error(&err, Reason::IoError, "not a regular file (a FIFO");

    assert_eq!(ws.read("absent.txt").unwrap(), None);
}

#[test]
fn entry_exists_counts_a_dangling_symlink() {
    let (dir, ws) = workspace();
    std::os::unix::fs::symlink("nowhere", dir.path().join("dangling")).unwrap();
    std::fs::write(dir.path().join("f"), "x").unwrap();
    assert!(ws.entry_exists("dangling").unwrap());
    assert!(ws.entry_exists("f").unwrap());
    assert!(!ws.entry_exists("g").unwrap());
    assert_eq!(
        ws.entry_exists("../g").unwrap_err().reason,
        Reason::PathOutsideWorkspace
    );
}

#[test]
fn remove_deletes_a_file_or_a_symlink_but_refuses_a_directory() {
    let (dir, ws) = workspace();
    let root = dir.path();
    std::fs::write(root.join("target.txt"), "kept").unwrap();
    std::os::unix::fs::symlink("target.txt", root.join("link")).unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    std::fs::write(root.join("d/inner"), "x").unwrap();

    ws.remove("link").unwrap();
    assert!(std::fs::symlink_metadata(root.join("link")).is_err());
    assert_eq!(
        std::fs::read_to_string(root.join("target.txt")).unwrap(),
        "kept"
    );

    let err = ws.remove("d").unwrap_err();
    assert_error(
        &err,
        Reason::IoError,
        "is a directory; only files are deleted",
    );
    assert!(root.join("d/inner").exists());

    let err = ws.remove("missing.txt").unwrap_err();
    assert_error(&err, Reason::IoError, "deleting failed");

    ws.remove("target.txt").unwrap();
    assert!(!root.join("target.txt").exists());
}

#[test]
fn set_mode_masks_special_bits() {
    let (dir, ws) = workspace();
    std::fs::write(dir.path().join("run.sh"), "#!/bin/sh\n").unwrap();
    ws.set_mode("run.sh", 0o4755).unwrap();
    let mode = std::fs::metadata(dir.path().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o755);
    let err = ws.set_mode("missing.sh", 0o755).unwrap_err();
    assert_error(&err, Reason::IoError, "changing the mode of");
}

#[test]
fn stage_named_refuses_a_name_that_is_not_an_lspedit_temp_file() {
    let (dir, ws) = workspace();
    std::fs::write(dir.path().join("f.txt"), "old").unwrap();
    // check(temp name, accepted)
    let check = |tmp: &str, accepted: bool| match ws.stage_named("f.txt", b"new", None, tmp) {
        Ok(staged) => {
            assert!(accepted, "{tmp} accepted");
            assert_eq!(staged.rel_tmp(), Path::new(tmp));
            assert_eq!(std::fs::read(dir.path().join(tmp)).unwrap(), b"new");
            staged.discard();
            assert!(!dir.path().join(tmp).exists(), "{tmp} left behind");
        }
        Err(err) => {
            assert!(!accepted, "{tmp} refused: {err:?}");
            assert_error(&err, Reason::IoError, "is not an lspedit temp-file name");
        }
    };
    check(".f.txt.lspedit-1-2.tmp", true);
    check("f.txt.tmp", false);
    check(".g.txt.lspedit-1-2.tmp", false);
    check(".f.txt.lspedit-x-2.tmp", false);
    check(".f.txt.lspedit-1-y.tmp", false);
    assert_eq!(std::fs::read(dir.path().join("f.txt")).unwrap(), b"old");
}

#[test]
fn remove_temp_only_removes_lspedit_temp_files_of_the_named_target() {
    let (dir, ws) = workspace();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("d/keep.txt"), "x").unwrap();
    let err = ws
        .remove_temp(Path::new("d/keep.txt"), "keep.txt")
        .unwrap_err();
    assert_error(
        &err,
        Reason::TamperedState,
        "not an lspedit temp file of `keep.txt`",
    );
    assert!(dir.path().join("d/keep.txt").exists());

    let tmp = "d/.f.lspedit-7-1.tmp";
    std::fs::write(dir.path().join(tmp), "x").unwrap();
    assert!(ws.remove_temp(Path::new(tmp), "f").unwrap());
    assert!(!dir.path().join(tmp).exists());
    // Gone already, or its directory is: nothing to remove, not an error.
    assert!(!ws.remove_temp(Path::new(tmp), "f").unwrap());
    assert!(
        !ws.remove_temp(Path::new("gone/.f.lspedit-7-1.tmp"), "f")
            .unwrap()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn async_tools_write_edit_and_patch_reach_the_disk() {
    let (dir, ws) = workspace();
    let tools = AsyncTools::new(Arc::new(Tools::new(ws, None, ToolsConfig::default())));
    assert_eq!(
        tools.tools().workspace().root(),
        dir.path().canonicalize().unwrap()
    );

    let r = tools.write_file("a.txt", "one\ntwo\n").await;
    assert!(!r.is_error, "{}", r.llm_content);
    let r = tools.edit("a.txt", "two", "deux", false).await;
    assert!(!r.is_error, "{}", r.llm_content);
    let r = tools
        .apply_patch("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+un\n deux\n")
        .await;
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "un\ndeux\n"
    );

    // A refusal comes back as a result, the file untouched.
    let r = tools.edit("a.txt", "absent", "x", false).await;
    assert!(r.is_error, "{}", r.llm_content);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.txt")).unwrap(),
        "un\ndeux\n"
    );
}
