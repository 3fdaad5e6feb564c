//! The bad-input corpus: patches and targets `lspedit apply` must refuse with a typed reason
//! code while changing nothing. Each case runs the real binary on a fresh tree (a workspace
//! root and a sibling `outside/` directory it must never touch); the tree is hashed before and
//! after (paths, kinds, modes, symlink targets, SHA-256 of contents).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, Result, ensure};
use lspedit_engine::hashline;
use sha2::{Digest, Sha256};

use crate::child;
use crate::reliability::reasons_of;

/// Small inputs take milliseconds and 100 MB ones a few seconds: past these, lspedit hangs.
const TIMEOUT: Duration = Duration::from_secs(10);
const TIMEOUT_BIG: Duration = Duration::from_secs(120);
const BIG: usize = 100 * 1024 * 1024;

/// Where a case runs: the workspace root and the directory outside it.
struct Env {
    root: PathBuf,
    outside: PathBuf,
}

/// Builds a case's patch (and any extra files it needs in the tree).
type MakePatch = Box<dyn Fn(&Env) -> Result<Vec<u8>>>;

/// A case: what it feeds lspedit, how it builds the patch, and the reason codes that are an
/// acceptable refusal.
struct Case {
    name: &'static str,
    make: MakePatch,
    accept: &'static [&'static str],
}

pub struct Report {
    pub markdown: String,
    pub verdicts: Vec<String>,
    pub ok: bool,
}

const A_TXT: &str =
    "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n";

/// The tree every case starts from.
fn base_tree(env: &Env) -> Result<()> {
    let (r, o) = (&env.root, &env.outside);
    fs::create_dir_all(r.join("src"))?;
    fs::create_dir_all(o)?;
    fs::write(r.join("src/a.txt"), A_TXT)?;
    fs::write(r.join("src/b.rs"), "fn main() {\n    println!(\"b\");\n}\n")?;
    fs::write(
        r.join("src/amb.txt"),
        "x1\nDUP1\nDUP2\nx4\nx5\nx6\nx7\nDUP1\nDUP2\nx10\n",
    )?;
    fs::write(r.join("bin.dat"), b"line 1\n\0\x01\x02binary\nline 3\n")?;
    // PNG signature and header: binary by signature as well as by its NUL bytes.
    fs::write(
        r.join("image.png"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89",
    )?;
    fs::write(r.join("latin1.txt"), b"caf\xe9\nline 2\n")?;
    fs::write(r.join("src/blank.txt"), "a\nb\n\nc\n")?;
    fs::write(o.join("victim.txt"), "victim\n")?;
    symlink("../outside", r.join("escape"))?;
    symlink("../outside/victim.txt", r.join("link.txt"))?;
    symlink("../outside/nothing.txt", r.join("dangling"))?;
    symlink("/dev/zero", r.join("zero"))?;
    Ok(())
}

fn text(s: impl Into<String>) -> Result<Vec<u8>> {
    Ok(s.into().into_bytes())
}

/// A one-hunk update of `path` that replaces `line 2` in src/a.txt's shape.
fn update(path: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+LINE 2\n line 3\n")
}

/// An update that would match outside/victim.txt if `path` reached it.
fn hit_victim(path: &str) -> String {
    format!("--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-victim\n+pwned\n")
}

fn case(
    name: &'static str,
    accept: &'static [&'static str],
    make: impl Fn(&Env) -> Result<Vec<u8>> + 'static,
) -> Case {
    Case {
        name,
        make: Box::new(make),
        accept,
    }
}

const MALFORMED: &[&str] = &["invalid_diff_format", "empty_diff"];
const OUTSIDE: &[&str] = &["path_outside_workspace"];

fn cases() -> Vec<Case> {
    vec![
        // Malformed patches.
        case("empty patch", MALFORMED, |_| text("")),
        case("whitespace only", MALFORMED, |_| text("\n  \n\t\n")),
        case("prose instead of a patch", MALFORMED, |_| {
            text("Please rename line 2 to LINE 2 in src/a.txt.\n")
        }),
        case("hunk without file headers", MALFORMED, |_| {
            text("@@ -1,2 +1,2 @@\n line 1\n-line 2\n+LINE 2\n")
        }),
        case("file headers without hunks", MALFORMED, |_| {
            text("--- a/src/a.txt\n+++ b/src/a.txt\n")
        }),
        case("malformed hunk header", MALFORMED, |_| {
            text("--- a/src/a.txt\n+++ b/src/a.txt\n@@ -x,y +z @@\n-line 1\n+x\n")
        }),
        case(
            "hunk header count overflows",
            &["invalid_diff_format", "truncated_input"],
            |_| {
                text(
                    "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,99999999999999999999999 +1,1 @@\n-line 1\n+x\n",
                )
            },
        ),
        // The hunk ends at the unknown line, short of its declared count: as a last hunk that
        // is indistinguishable from a cut, so `truncated_input` is as right as a format error.
        case(
            "unknown line inside a hunk",
            &["invalid_diff_format", "truncated_input"],
            |_| {
                text(
                    "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n line 1\n*line 2\n line 3\n",
                )
            },
        ),
        case("CR-only line endings", MALFORMED, |_| {
            text(update("src/a.txt").replace('\n', "\r"))
        }),
        case(
            "GIT binary patch",
            &["unsafe_diff", "invalid_diff_format", "binary_file"],
            |_| {
                text(
                    "diff --git a/bin.dat b/bin.dat\nindex 1111111..2222222 100644\nGIT binary patch\nliteral 5\nMcmZ?b1VG)j004R=0RR91\n\nliteral 0\nHcmV?d00001\n\n",
                )
            },
        ),
        case(
            "\"Binary files differ\" section",
            &[
                "unsafe_diff",
                "invalid_diff_format",
                "binary_file",
                "empty_diff",
            ],
            |_| {
                text(
                    "diff --git a/bin.dat b/bin.dat\nindex 1111111..2222222 100644\nBinary files a/bin.dat and b/bin.dat differ\n",
                )
            },
        ),
        // Cut in the last line of the second file's hunk: the cut is only found when that
        // hunk fails to match, and the whole patch must still be refused.
        case(
            "two files, cut inside the second's last line",
            &["truncated_input"],
            |_| {
                text(
                    "--- a/src/b.rs\n+++ b/src/b.rs\n@@ -1,3 +1,3 @@\n fn main() {\n-    println!(\"b\");\n+    println!(\"B\");\n }\n--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+LINE 2\n lin",
                )
            },
        ),
        // Cut right after the last line's ` ` marker: what is left of it is blank, which a
        // blank line above it must not be allowed to "verify".
        case(
            "cut after the last line's marker, below a blank line",
            &["truncated_input"],
            |_| text("--- a/src/blank.txt\n+++ b/src/blank.txt\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n \n "),
        ),
        case(
            "envelope without *** End Patch",
            &["truncated_input"],
            |_| text("*** Begin Patch\n*** Update File: src/a.txt\n@@\n-line 2\n+LINE 2\n"),
        ),
        case("envelope with an unknown directive", MALFORMED, |_| {
            text("*** Begin Patch\n*** Frobnicate File: src/a.txt\n*** End Patch\n")
        }),
        case(
            "non-UTF-8 patch input",
            &["not_utf8", "invalid_diff_format"],
            |_| {
                Ok(b"--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,2 +1,2 @@\n line 1\n-line 2\n+caf\xe9\n"
                .to_vec())
            },
        ),
        case(
            "NUL byte in a path",
            &[
                "path_outside_workspace",
                "invalid_diff_format",
                "file_not_found",
            ],
            |_| text(update("src/a\0.txt")),
        ),
        // Patches that do not fit the file.
        case("context does not match", &["hunk_mismatch"], |_| {
            text(
                "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n line 1\n-line two\n+LINE 2\n line 3\n",
            )
        }),
        case(
            "hunk beyond the end of the file",
            &["out_of_bounds", "hunk_mismatch"],
            |_| {
                text(
                    "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -500,3 +500,3 @@\n line 500\n-line 501\n+x\n line 502\n",
                )
            },
        ),
        case(
            "stale anchor (hash of other content)",
            &["hunk_mismatch"],
            |_| {
                let stale = hashline(2, "something else");
                let anchor = stale.split('|').next().unwrap_or_default().to_string();
                text(format!(
                    "--- a/src/a.txt\n+++ b/src/a.txt\n@@ @@\n {}\n-{anchor}|line 2\n+LINE 2\n",
                    hashline(1, "line 1")
                ))
            },
        ),
        case("anchored additions", &["anchored_addition"], |_| {
            text(format!(
                "--- a/src/a.txt\n+++ b/src/a.txt\n@@ @@\n {}\n-{}\n+{}\n",
                hashline(1, "line 1"),
                hashline(2, "line 2"),
                hashline(2, "LINE 2")
            ))
        }),
        case("overlapping hunks", &["hunk_mismatch"], |_| {
            text(
                "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,3 @@\n line 1\n-line 2\n+LINE 2\n line 3\n@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n",
            )
        }),
        case("equidistant copies", &["ambiguous_match"], |_| {
            text("--- a/src/amb.txt\n+++ b/src/amb.txt\n@@ -5,2 +5,2 @@\n DUP1\n-DUP2\n+CHANGED\n")
        }),
        case(
            "two sections for one file, the second wrong",
            &["hunk_mismatch"],
            |_| {
                text(format!(
                    "{}--- a/src/a.txt\n+++ b/src/a.txt\n@@ -8,3 +8,3 @@\n line 8\n-line nine\n+x\n line 10\n",
                    update("src/a.txt")
                ))
            },
        ),
        case("create a file that exists", &["file_exists"], |_| {
            text("--- /dev/null\n+++ b/src/a.txt\n@@ -0,0 +1 @@\n+x\n")
        }),
        case("envelope adds a file that exists", &["file_exists"], |_| {
            text("*** Begin Patch\n*** Add File: src/b.rs\n+x\n*** End Patch\n")
        }),
        case("update a missing file", &["file_not_found"], |_| {
            text(update("src/missing.txt"))
        }),
        case("delete a missing file", &["file_not_found"], |_| {
            text("--- a/src/missing.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
        }),
        case("delete with the wrong content", &["hunk_mismatch"], |_| {
            text("--- a/src/b.rs\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-fn other() {\n-}\n-\n")
        }),
        case("rename onto an existing file", &["file_exists"], |_| {
            text(
                "diff --git a/src/a.txt b/src/b.rs\nsimilarity index 100%\nrename from src/a.txt\nrename to src/b.rs\n",
            )
        }),
        case(
            "path with bidi controls",
            &["file_not_found", "path_outside_workspace"],
            |_| text(update("src/a\u{202e}txt.txt")),
        ),
        case(
            "the root itself as the file",
            &["path_outside_workspace", "invalid_diff_format", "io_error"],
            |_| text(update(".")),
        ),
        case(
            "a directory as the file",
            &["io_error", "file_not_found"],
            |_| text(update("src")),
        ),
        // Paths leaving the workspace.
        case("`..` traversal (update)", OUTSIDE, |_| {
            text(hit_victim("../outside/victim.txt"))
        }),
        case("`..` hidden mid-path", OUTSIDE, |_| {
            text(hit_victim("src/../../outside/victim.txt"))
        }),
        case("`..` traversal (create)", OUTSIDE, |_| {
            text("--- /dev/null\n+++ b/../outside/new.txt\n@@ -0,0 +1 @@\n+pwned\n")
        }),
        case("`..` traversal (delete)", OUTSIDE, |_| {
            text("--- a/../outside/victim.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-victim\n")
        }),
        case("absolute path outside (update)", OUTSIDE, |env| {
            let p = env.outside.join("victim.txt");
            let p = p.display();
            text(format!("--- {p}\n+++ {p}\n@@ -1 +1 @@\n-victim\n+pwned\n"))
        }),
        case("absolute path outside (create)", OUTSIDE, |env| {
            text(format!(
                "--- /dev/null\n+++ {}\n@@ -0,0 +1 @@\n+pwned\n",
                env.outside.join("new.txt").display()
            ))
        }),
        case("envelope: `..` update", OUTSIDE, |_| {
            text(
                "*** Begin Patch\n*** Update File: ../outside/victim.txt\n@@\n-victim\n+pwned\n*** End Patch\n",
            )
        }),
        case("envelope: absolute add", OUTSIDE, |env| {
            text(format!(
                "*** Begin Patch\n*** Add File: {}\n+pwned\n*** End Patch\n",
                env.outside.join("new.txt").display()
            ))
        }),
        case("envelope: move to outside", OUTSIDE, |_| {
            text(
                "*** Begin Patch\n*** Update File: src/a.txt\n*** Move to: ../outside/moved.txt\n@@\n-line 2\n+LINE 2\n*** End Patch\n",
            )
        }),
        case("git rename to outside", OUTSIDE, |_| {
            text(
                "diff --git a/src/a.txt b/../outside/a.txt\nsimilarity index 100%\nrename from src/a.txt\nrename to ../outside/a.txt\n",
            )
        }),
        case("symlinked directory escape (update)", OUTSIDE, |_| {
            text(hit_victim("escape/victim.txt"))
        }),
        case("symlinked directory escape (create)", OUTSIDE, |_| {
            text("--- /dev/null\n+++ b/escape/new.txt\n@@ -0,0 +1 @@\n+pwned\n")
        }),
        case("symlinked file escape", OUTSIDE, |_| {
            text(hit_victim("link.txt"))
        }),
        case("dangling symlink out of the root (create)", OUTSIDE, |_| {
            text("--- /dev/null\n+++ b/dangling\n@@ -0,0 +1 @@\n+pwned\n")
        }),
        case("symlink to /dev/zero", OUTSIDE, |_| text(update("zero"))),
        case("deep path climbing out (200 levels)", OUTSIDE, |_| {
            let down = "d/".repeat(200);
            let up = "../".repeat(201);
            text(hit_victim(&format!("{down}{up}outside/victim.txt")))
        }),
        // Targets that are not text.
        case("binary target (NUL bytes)", &["binary_file"], |_| {
            text(update("bin.dat"))
        }),
        case("binary target (PNG)", &["binary_file"], |_| {
            text("--- a/image.png\n+++ b/image.png\n@@ -1 +1 @@\n-x\n+y\n")
        }),
        case("non-UTF-8 target", &["not_utf8"], |_| {
            text("--- a/latin1.txt\n+++ b/latin1.txt\n@@ -1,2 +1,2 @@\n caf\n-line 2\n+x\n")
        }),
        case("target is a FIFO", &["io_error", "binary_file"], |env| {
            let fifo = env.root.join("fifo");
            let status = Command::new("mkfifo").arg(&fifo).status()?;
            ensure!(status.success(), "mkfifo failed");
            text(update("fifo"))
        }),
        // Sizes and depths.
        case(
            "deep path, 200 levels, missing file",
            &["file_not_found"],
            |_| text(update(&format!("{}a.txt", "d/".repeat(200)))),
        ),
        case(
            "path longer than PATH_MAX (create)",
            &["io_error", "path_outside_workspace"],
            |_| {
                let deep = format!("{}new.txt", "directory_name_of_thirty_char/".repeat(200));
                text(format!("--- /dev/null\n+++ b/{deep}\n@@ -0,0 +1 @@\n+x\n"))
            },
        ),
        case(
            "100 MB patch, context not in the file",
            // Over the 64 MiB patch limit: refused before it is parsed.
            &["too_large"],
            |_| Ok(big_patch(false)),
        ),
        case("100 MB patch, cut short", &["too_large"], |_| {
            Ok(big_patch(true))
        }),
        case("100 MB target, hunk not in it", &["hunk_mismatch"], |env| {
            let mut f = std::io::BufWriter::new(fs::File::create(env.root.join("big.txt"))?);
            let mut n = 0usize;
            let mut written = 0;
            while written < BIG {
                let line = format!("row {n:09} of the big file, unchanged\n");
                f.write_all(line.as_bytes())?;
                written += line.len();
                n += 1;
            }
            f.flush()?;
            text(
                "--- a/big.txt\n+++ b/big.txt\n@@ -1000,3 +1000,3 @@\n row 000000999 of the big file, unchanged\n-row 000001000 of the big file, CHANGED\n+x\n row 000001001 of the big file, unchanged\n",
            )
        }),
        case(
            "every section bad (traversal, binary, missing)",
            &["path_outside_workspace", "binary_file", "file_not_found"],
            |_| {
                text(format!(
                    "{}{}{}",
                    hit_victim("../outside/victim.txt"),
                    update("bin.dat"),
                    update("src/missing.txt")
                ))
            },
        ),
    ]
}

/// A ~100 MB patch against src/a.txt: one hunk of context lines that are not in the file,
/// with a header that matches its length, or (`cut`) declares more lines than it has.
fn big_patch(cut: bool) -> Vec<u8> {
    let mut body = String::with_capacity(BIG + 1024);
    let mut n = 0usize;
    while body.len() < BIG {
        let _ = writeln!(body, " context line {n:09} that is not in the file");
        n += 1;
    }
    body.push_str("-line 2\n+LINE 2\n");
    let declared = if cut { n + 1000 } else { n + 1 };
    let mut p = format!(
        "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,{declared} +1,{} @@\n",
        declared
    );
    p.push_str(&body);
    p.into_bytes()
}

/// Every entry under `dir`: path, kind, mode, and the SHA-256 of a file or a symlink's target.
fn tree_hash(dir: &Path) -> Result<BTreeMap<String, String>> {
    fn go(base: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> Result<()> {
        for e in fs::read_dir(dir)? {
            let e = e?;
            let p = e.path();
            let rel = p
                .strip_prefix(base)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            let meta = fs::symlink_metadata(&p)?;
            let t = meta.file_type();
            let desc = if t.is_symlink() {
                format!("link -> {}", fs::read_link(&p)?.display())
            } else if t.is_dir() {
                go(base, &p, out)?;
                format!("dir {:o}", meta.mode())
            } else if t.is_file() {
                let digest = Sha256::digest(fs::read(&p)?);
                let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                format!("file {:o} {hex}", meta.mode())
            } else {
                format!("special {:o}", meta.mode())
            };
            out.insert(rel, desc);
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    go(dir, dir, &mut out)?;
    Ok(out)
}

struct Outcome {
    exit: Option<i32>,
    reasons: Vec<String>,
    unchanged: bool,
    changes: Vec<String>,
    pass: bool,
    elapsed: Duration,
}

fn run_case(c: &Case, lspedit: &Path) -> Result<Outcome> {
    let base = tempfile::tempdir()?;
    let env = Env {
        root: base.path().join("root"),
        outside: base.path().join("outside"),
    };
    base_tree(&env)?;
    let patch = (c.make)(&env)?;
    let patch_file = base.path().join("patch.diff");
    fs::write(&patch_file, &patch)?;
    let before = tree_hash(base.path())?;
    let mut cmd = Command::new(lspedit);
    cmd.args(["apply", "--no-diagnostics", "--json"])
        .arg(&patch_file)
        .arg("--root")
        .arg(&env.root);
    let timeout = if patch.len() > BIG / 2 || c.name.starts_with("100 MB") {
        TIMEOUT_BIG
    } else {
        TIMEOUT
    };
    let run = child::run(&mut cmd, timeout).with_context(|| format!("running {}", c.name))?;
    let after = tree_hash(base.path())?;
    let mut changes = Vec::new();
    for (k, v) in &after {
        match before.get(k) {
            None => changes.push(format!("+{k}")),
            Some(b) if b != v => changes.push(format!("~{k}")),
            _ => {}
        }
    }
    changes.extend(
        before
            .keys()
            .filter(|k| !after.contains_key(*k))
            .map(|k| format!("-{k}")),
    );
    let exit = run.status.and_then(|s| s.code());
    let reasons = reasons_of(&run.stdout);
    let unchanged = changes.is_empty();
    let pass = exit == Some(1)
        && !reasons.is_empty()
        && reasons.iter().all(|r| c.accept.contains(&r.as_str()))
        && unchanged;
    Ok(Outcome {
        exit,
        reasons,
        unchanged,
        changes,
        pass,
        elapsed: run.elapsed,
    })
}

pub fn run(lspedit: &Path) -> Result<Report> {
    ensure!(
        lspedit.is_file(),
        "no lspedit binary at {}: run `cargo build --release -p lspedit` or set LSPEDIT_BIN",
        lspedit.display()
    );
    let cases = cases();
    let mut md = String::from(
        "| case | exit | reason code(s) | tree unchanged | time (s) | verdict |\n|---|---:|---|---|---:|---|\n",
    );
    let mut per_reason: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed = Vec::new();
    for c in &cases {
        let o = run_case(c, lspedit)?;
        for r in &o.reasons {
            *per_reason.entry(r.clone()).or_default() += 1;
        }
        let exit = o
            .exit
            .map_or_else(|| "killed".to_string(), |e| e.to_string());
        let reasons = if o.reasons.is_empty() {
            "(none)".to_string()
        } else {
            o.reasons.join(", ")
        };
        let _ = writeln!(
            md,
            "| {} | {exit} | {reasons} | {} | {:.2} | {} |",
            c.name.replace('|', "\\|"),
            if o.unchanged {
                "yes".to_string()
            } else {
                format!("NO: {}", o.changes.join(" "))
            },
            o.elapsed.as_secs_f64(),
            if o.pass { "refused" } else { "FAILED" }
        );
        if !o.pass {
            failed.push(format!(
                "{}: exit {exit}, reasons {reasons}, expected one of {:?}, changes {:?}",
                c.name, c.accept, o.changes
            ));
        }
    }
    md.push_str("\nRefusals per reason code (a case refused for several files counts each):\n\n| reason | count |\n|---|---:|\n");
    for (r, n) in &per_reason {
        let _ = writeln!(md, "| `{r}` | {n} |");
    }
    let mut verdicts = vec![format!(
        "{} of {} bad inputs refused with an accepted reason code and no file changed",
        cases.len() - failed.len(),
        cases.len()
    )];
    let ok = failed.is_empty();
    verdicts.extend(failed);
    Ok(Report {
        markdown: md,
        verdicts,
        ok,
    })
}
