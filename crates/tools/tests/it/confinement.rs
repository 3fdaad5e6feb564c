//! Confinement of the agent tools (SECURITY.md): protected paths, symlinks acted on as links,
//! and writes that stay inside the root while a directory is swapped for a symlink under them.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use lspedit_tools::{ToolResult, Tools, ToolsConfig};
use lspedit_write::{Reason, Workspace};

/// A workspace with a `.git` of its own, and a directory beside it that no tool may touch.
struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    tools: Tools,
}

impl Env {
    fn new(files: &[(&str, &str)]) -> Env {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        let tools = Tools::new(
            Workspace::open(&root).unwrap(),
            None,
            ToolsConfig::default(),
        );
        Env {
            _dir: dir,
            root,
            outside,
            tools,
        }
    }

    /// Every file under `dir` (links as `-> target`), for before/after comparisons.
    fn snapshot(dir: &Path) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else {
                continue;
            };
            for e in rd.flatten() {
                let p = e.path();
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                let meta = std::fs::symlink_metadata(&p).unwrap();
                if meta.file_type().is_symlink() {
                    let t = std::fs::read_link(&p).unwrap();
                    out.insert(rel, format!("-> {}", t.display()));
                } else if meta.is_dir() {
                    out.insert(rel, "dir".into());
                    stack.push(p);
                } else {
                    out.insert(rel, std::fs::read_to_string(&p).unwrap_or_default());
                }
            }
        }
        out
    }
}

fn assert_refused(r: &ToolResult, reason: Reason, what: &str) {
    assert!(r.is_error, "{what}: not refused: {}", r.llm_content);
    assert_eq!(r.reason, Some(reason), "{what}: {}", r.llm_content);
}

const GIT_CONFIG: &str = "[core]\n\tbare = false\n";

// Regression: an `edit` of `.git/config` adding `fsmonitor = "<command>"` ran the command on the
// next `git status`; `write_file` and `apply_patch` under `.git/` and `.lspedit/` were allowed.
#[test]
fn no_tool_writes_creates_deletes_or_renames_under_a_protected_directory() {
    let e = Env::new(&[
        (".git/config", GIT_CONFIG),
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("sub/.git/config", GIT_CONFIG),
        (".hg/hgrc", "[ui]\n"),
        ("a.txt", "a\n"),
    ]);
    symlink(".git", e.root.join("gitlink")).unwrap();
    let before = Env::snapshot(&e.root);
    let protected = Reason::ProtectedPath;

    let r = e.tools.edit(
        ".git/config",
        "bare = false",
        "bare = false\n\tfsmonitor = \"touch /tmp/pwned\"",
        false,
    );
    assert_refused(&r, protected, "edit .git/config");
    assert_refused(
        &e.tools
            .edit("sub/.git/config", "bare", "fsmonitor = x\n\tbare", false),
        protected,
        "edit of a submodule's .git/config",
    );
    for path in [
        ".git/hooks/pre-commit",
        ".lspedit/config.toml",
        ".lspedit/patches/patch_1_abcdef12abcdef12abcdef12abcdef12.json",
        "./.git/config",
        "sub/../.git/config",
        ".hg/hgrc",
        ".jj/repo",
        ".svn/entries",
        "gitlink/config",
    ] {
        assert_refused(
            &e.tools
                .write_file(path, "[servers.x]\ncommand = \"/bin/sh\"\n"),
            protected,
            &format!("write_file {path}"),
        );
    }
    let patches = [
        "*** Begin Patch\n*** Add File: .lspedit/config.toml\n+[servers.x]\n+command = \"/bin/sh\"\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: .git/HEAD\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .git/hooks/post-checkout\n@@\n-a\n+#!/bin/sh\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: .git/config\n*** Move to: config.txt\n@@\n [core]\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: gitlink/config\n@@\n [core]\n+\tfsmonitor = x\n \tbare = false\n*** End Patch\n",
        "--- a/.git/config\n+++ b/.git/config\n@@ -1,2 +1,3 @@\n [core]\n+\tfsmonitor = x\n \tbare = false\n",
    ];
    for patch in patches {
        let r = e.tools.apply_patch(patch);
        assert_refused(&r, protected, patch);
    }
    assert_eq!(Env::snapshot(&e.root), before, "a protected file changed");
    // Reading stays allowed.
    let r = e.tools.read_file(".git/config", None, None);
    assert!(!r.is_error, "{}", r.llm_content);
}

// Regression: `*** Delete File: link` removed the link's target and reported `D link`.
#[test]
fn delete_and_rename_act_on_a_symlink_not_its_target() {
    let e = Env::new(&[("target.txt", "keep me\n"), ("other.txt", "other\n")]);
    symlink("target.txt", e.root.join("link")).unwrap();
    symlink("other.txt", e.root.join("link2")).unwrap();
    std::fs::write(e.outside.join("secret.txt"), "outside\n").unwrap();
    symlink(e.outside.join("secret.txt"), e.root.join("out-link")).unwrap();

    let r = e
        .tools
        .apply_patch("*** Begin Patch\n*** Delete File: link\n*** End Patch\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(r.llm_content.contains("D link"), "{}", r.llm_content);
    assert!(std::fs::symlink_metadata(e.root.join("link")).is_err());
    assert_eq!(
        std::fs::read_to_string(e.root.join("target.txt")).unwrap(),
        "keep me\n"
    );

    // A rename moves the link's content to a regular file and removes the link, not the target.
    let r = e.tools.apply_patch(
        "diff --git a/link2 b/renamed.txt\nsimilarity index 100%\nrename from link2\nrename to renamed.txt\n",
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(std::fs::symlink_metadata(e.root.join("link2")).is_err());
    assert_eq!(
        std::fs::read_to_string(e.root.join("other.txt")).unwrap(),
        "other\n"
    );
    assert!(
        !std::fs::symlink_metadata(e.root.join("renamed.txt"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    // A link leading outside is never followed, for a write or a patch.
    assert_refused(
        &e.tools.write_file("out-link", "x\n"),
        Reason::PathOutsideWorkspace,
        "write through a link leading outside",
    );
    assert_refused(
        &e.tools.apply_patch(
            "*** Begin Patch\n*** Update File: out-link\n@@\n-outside\n+changed\n*** End Patch\n",
        ),
        Reason::PathOutsideWorkspace,
        "patch through a link leading outside",
    );
    assert_eq!(
        std::fs::read_to_string(e.outside.join("secret.txt")).unwrap(),
        "outside\n"
    );
}

/// Temp files lspedit stages (`.<name>.lspedit-<pid>-<n>.tmp`) anywhere under `dir`.
fn temp_files(dir: &Path) -> Vec<String> {
    Env::snapshot(dir)
        .into_keys()
        .filter(|k| k.contains(".lspedit-") && k.ends_with(".tmp"))
        .collect()
}

// Regression: paths were checked by name and then used by name; a directory swapped for a
// symlink in between (renameat2 RENAME_EXCHANGE in a loop) let 5-12% of creates, modifies and
// deletes land outside the root, and left temp files there.
#[test]
fn a_directory_swapped_for_a_symlink_never_moves_a_write_outside() {
    const OPS: usize = 1_200;
    let e = Env::new(&[("d/f.txt", "inside\n")]);
    // The outside directory holds the same names as `d`, so any escaped operation shows.
    std::fs::write(e.outside.join("f.txt"), "outside\n").unwrap();
    for i in 0..OPS {
        std::fs::write(e.outside.join(format!("del{i}.txt")), "outside\n").unwrap();
        std::fs::write(e.root.join(format!("d/del{i}.txt")), "inside\n").unwrap();
    }
    symlink(&e.outside, e.root.join("swap")).unwrap();
    let outside_before = Env::snapshot(&e.outside);

    // Operations come in fours: `d` inside and left alone; `d` inside and swapped for the
    // outside symlink during the operation, after a varying number of spins; `d` outside and
    // left alone; `d` outside and swapped back during the operation. The swapper acknowledges
    // each operation, so the next one starts in a known state.
    let (start, started) = std::sync::mpsc::channel::<usize>();
    let (ack, acked) = std::sync::mpsc::channel::<()>();
    let swapper = {
        let (d, swap) = (e.root.join("d"), e.root.join("swap"));
        std::thread::spawn(move || {
            let mut swaps = 0;
            while let Ok(i) = started.recv() {
                if i % 2 == 1 {
                    for _ in 0..(i.wrapping_mul(2_654_435_761) % 100_000) {
                        std::hint::spin_loop();
                    }
                    exchange(&d, &swap);
                    swaps += 1;
                }
                if ack.send(()).is_err() {
                    break;
                }
            }
            swaps
        })
    };
    let mut applied = 0;
    for i in 0..OPS {
        start.send(i).unwrap();
        let r = match i % 3 {
            0 => e.tools.write_file(&format!("d/new{i}.txt"), "created\n"),
            1 => e.tools.write_file("d/f.txt", &format!("modified {i}\n")),
            _ => e.tools.apply_patch(&format!(
                "*** Begin Patch\n*** Delete File: d/del{i}.txt\n*** End Patch\n"
            )),
        };
        // Without a swap during it, an operation applies inside or is refused outside.
        match i % 4 {
            0 => assert!(!r.is_error, "{i}: {}", r.llm_content),
            2 => assert!(r.is_error, "{i} applied outside: {}", r.llm_content),
            _ => {}
        }
        if !r.is_error {
            applied += 1;
        } else {
            // Refused by the check (outside), or by the handle when the swap came after it
            // (cap-std will not follow the symlink out: an I/O error, nothing written).
            assert!(
                matches!(
                    r.reason,
                    Some(Reason::PathOutsideWorkspace | Reason::IoError)
                ),
                "{}",
                r.llm_content
            );
        }
        acked.recv().unwrap();
    }
    drop(start);
    let swaps = swapper.join().unwrap();

    assert_eq!(
        Env::snapshot(&e.outside),
        outside_before,
        "an operation landed outside the root"
    );
    assert_eq!(temp_files(&e.outside), Vec::<String>::new());
    assert_eq!(temp_files(&e.root), Vec::<String>::new());
    assert_eq!(
        swaps,
        OPS / 2,
        "the swapper did not run once per other operation"
    );
    // Both sides of the race were exercised: operations applied inside, others refused.
    assert!(applied > 0 && applied < OPS, "{applied} of {OPS} applied");
    eprintln!("applied {applied} of {OPS}");
}

// Regression (issue 25): with a directory exchanged for a symlink to `.git/hooks` in a loop
// (renameat2 RENAME_EXCHANGE), 145 of 4,200 writes landed in `.git/hooks`: the handle of the
// root followed symlinks that stay beneath it, protected directories included; 4 of them were
// refused as `protected_path` and still left a file there.
#[test]
fn a_directory_swapped_for_a_link_to_a_protected_directory_never_gets_a_write() {
    const OPS: usize = 1_600;
    let e = Env::new(&[
        (".git/config", GIT_CONFIG),
        (".git/hooks/pre-commit.sample", "#!/bin/sh\n"),
        ("d/f.txt", "inside\n"),
    ]);
    let ws = e.tools.workspace().clone();
    for i in 0..OPS {
        std::fs::write(e.root.join(format!("d/del{i}.txt")), "inside\n").unwrap();
        std::fs::write(e.root.join(format!(".git/hooks/del{i}.txt")), "hook\n").unwrap();
    }
    symlink(".git/hooks", e.root.join("swap")).unwrap();
    let git_before = Env::snapshot(&e.root.join(".git"));
    let modes = |dir: &Path| -> Vec<u32> {
        use std::os::unix::fs::PermissionsExt;
        (0..OPS)
            .map(|i| {
                let p = dir.join(format!("del{i}.txt"));
                std::fs::metadata(p).map_or(0, |m| m.permissions().mode())
            })
            .collect()
    };
    let hook_modes = modes(&e.root.join(".git/hooks"));

    // Every operation but every fourth, `d` is exchanged with the link once during it, after a
    // varying number of spins (jitter, not synchronisation), and back once it is over. The
    // swapper acknowledges each operation, so the next one starts with `d` a directory.
    let (start, started) = std::sync::mpsc::channel::<usize>();
    let (ack, acked) = std::sync::mpsc::channel::<()>();
    let (back, backed) = std::sync::mpsc::channel::<()>();
    let swapper = {
        let (d, swap) = (e.root.join("d"), e.root.join("swap"));
        std::thread::spawn(move || {
            let exchange = || exchange(&d, &swap);
            let mut swaps = 0;
            while let Ok(i) = started.recv() {
                let swapped = i % 4 != 0;
                if swapped {
                    for _ in 0..(i.wrapping_mul(2_654_435_761) % 20_000) {
                        std::hint::spin_loop();
                    }
                    exchange();
                    swaps += 1;
                }
                if ack.send(()).is_err() || backed.recv().is_err() {
                    break;
                }
                if swapped {
                    exchange();
                }
            }
            swaps
        })
    };
    let mut outcomes = Vec::new();
    for i in 0..OPS {
        start.send(i).unwrap();
        // Through the tools and through the workspace directly (fewer checks by name before
        // the open, so the swap falls between the last check and the open more often).
        let r = match i % 5 {
            0 => ws.write_atomic(&format!("d/new{i}.txt"), b"created\n"),
            1 => ws.write_atomic(&format!("d/sub{i}/new.txt"), b"created\n"),
            2 => ws
                .replace_verified(&format!("d/del{i}.txt"), Some(b"inside\n"), None, None)
                .map(|_| ()),
            3 => ws.set_mode(&format!("d/del{i}.txt"), 0o700),
            _ => {
                let r = e.tools.write_file(&format!("d/new{i}.txt"), "created\n");
                if r.is_error {
                    Err(lspedit_write::ToolError::new(
                        r.reason.unwrap(),
                        None,
                        r.llm_content,
                    ))
                } else {
                    Ok(())
                }
            }
        };
        acked.recv().unwrap();
        if let Err(err) = &r {
            // Refused by the check (the path led into `.git`, or a link caught half-way
            // through the swap), or by the open that follows no symlink (the swap came after
            // the check).
            assert!(
                matches!(
                    err.reason,
                    Reason::ProtectedPath | Reason::PathOutsideWorkspace | Reason::IoError
                ),
                "{i}: {err}"
            );
        }
        outcomes.push(r.is_ok());
        back.send(()).unwrap();
    }
    drop(start);
    let swaps = swapper.join().unwrap();

    assert_eq!(
        Env::snapshot(&e.root.join(".git")),
        git_before,
        "a write landed under .git"
    );
    assert!(
        modes(&e.root.join(".git/hooks")) == hook_modes,
        "a mode change landed under .git"
    );
    assert_eq!(temp_files(&e.root), Vec::<String>::new());
    // Every refusal left nothing behind: no file created, none deleted.
    let d = e.root.join("d");
    for (i, applied) in outcomes.iter().enumerate() {
        let (path, exists_if_applied) = match i % 5 {
            0 | 4 => (d.join(format!("new{i}.txt")), true),
            1 => (d.join(format!("sub{i}/new.txt")), true),
            2 => (d.join(format!("del{i}.txt")), false),
            _ => continue,
        };
        assert_eq!(
            path.exists(),
            *applied == exists_if_applied,
            "{i} (applied: {applied}): {}",
            path.display()
        );
    }
    let applied = outcomes.iter().filter(|a| **a).count();
    assert_eq!(
        swaps,
        OPS - OPS / 4,
        "the swapper did not run once per operation"
    );
    // Both sides of the race were exercised: operations applied, others refused.
    assert!(applied > 0 && applied < OPS, "{applied} of {OPS} applied");
    eprintln!("applied {applied} of {OPS}");
}

// Regression (issue 25): a mode change chmodded through a descriptor, so a workspace file that
// is a hard link to `.git/config` or to a file outside the root got its mode changed there.
#[test]
fn a_mode_change_or_a_write_never_reaches_another_hard_link() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let e = Env::new(&[(".git/config", GIT_CONFIG)]);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let git_config = e.root.join(".git/config");
    let secret = e.outside.join("secret.sh");
    std::fs::write(&secret, "echo secret\n").unwrap();
    for p in [&git_config, &secret] {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    std::fs::hard_link(&git_config, e.root.join("cfg")).unwrap();
    std::fs::hard_link(&secret, e.root.join("run.sh")).unwrap();

    let r = e
        .tools
        .apply_patch("diff --git a/cfg b/cfg\nold mode 100644\nnew mode 100755\n");
    assert!(!r.is_error, "{}", r.llm_content);
    let r = e.tools.apply_patch(
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo secret\n+echo changed\n",
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(mode(&git_config), 0o644, ".git/config's mode changed");
    assert_eq!(mode(&secret), 0o644, "the outside file's mode changed");
    assert_eq!(std::fs::read_to_string(&git_config).unwrap(), GIT_CONFIG);
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "echo secret\n");
    // This name got the change, as a file of its own.
    assert_eq!(mode(&e.root.join("cfg")), 0o755);
    assert_eq!(mode(&e.root.join("run.sh")), 0o755);
    assert_eq!(
        std::fs::read_to_string(e.root.join("run.sh")).unwrap(),
        "echo changed\n"
    );
    for p in [&git_config, &secret] {
        assert_eq!(std::fs::metadata(p).unwrap().nlink(), 1);
    }
    // A write replaces the link too; the other name keeps its content.
    std::fs::hard_link(&git_config, e.root.join("cfg2")).unwrap();
    let r = e.tools.write_file("cfg2", "written\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(std::fs::read_to_string(&git_config).unwrap(), GIT_CONFIG);
    assert_eq!(temp_files(&e.root), Vec::<String>::new());
}

// Regression: `old mode`/`new mode` lines were silently dropped. They are applied, as
// permission bits only: a patch never makes a file setuid, setgid or sticky.
#[test]
fn mode_lines_set_permission_bits_only() {
    use std::os::unix::fs::PermissionsExt;
    let e = Env::new(&[("run.sh", "echo hi\n"), ("tool.sh", "echo a\n")]);
    let mode = |p: &str| {
        std::fs::metadata(e.root.join(p))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    std::fs::set_permissions(
        e.root.join("run.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    std::fs::set_permissions(
        e.root.join("tool.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    // A mode-only change.
    let r = e
        .tools
        .apply_patch("diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(mode("run.sh"), 0o755);
    // With content, and a setuid bit that is dropped.
    let r = e.tools.apply_patch(
        "diff --git a/tool.sh b/tool.sh\nold mode 100644\nnew mode 104755\n--- a/tool.sh\n+++ b/tool.sh\n@@ -1 +1 @@\n-echo a\n+echo b\n",
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(mode("tool.sh"), 0o755);
    assert_eq!(
        std::fs::read_to_string(e.root.join("tool.sh")).unwrap(),
        "echo b\n"
    );
}

/// Swap the entries `a` and `b` in one step (`renameat2(RENAME_EXCHANGE)`).
fn exchange(a: &std::path::Path, b: &std::path::Path) {
    rustix::fs::renameat_with(
        rustix::fs::CWD,
        a,
        rustix::fs::CWD,
        b,
        rustix::fs::RenameFlags::EXCHANGE,
    )
    .unwrap();
}
