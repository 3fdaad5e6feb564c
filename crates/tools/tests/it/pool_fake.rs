//! The tools over the real pool with the scripted fake server: faults never fail or slow an edit
//! beyond its timeout, and never leak text.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lspedit_fake_lsp::{Event, Mode, Script};
use lspedit_lsp::{BlockingPool, PoolConfig, ServerConfig};
use lspedit_tools::{DiagnosticsProvider, DiagnosticsStatus, LspProvider, Tools, ToolsConfig};
use lspedit_write::Workspace;

fn fake_bin() -> &'static Path {
    lspedit_fake_lsp::binary()
}

struct FakeEnv {
    dir: tempfile::TempDir,
    tools: Tools,
    provider: Arc<LspProvider>,
}

impl FakeEnv {
    fn new(script: Script, timeout: Duration) -> FakeEnv {
        FakeEnv::with_timeouts(script, timeout, timeout)
    }

    /// `warm`: the budget once the server has answered; `cold`: before.
    fn with_timeouts(script: Script, warm: Duration, cold: Duration) -> FakeEnv {
        FakeEnv::build(script, Some((warm, cold)), None)
    }

    /// Deadlines set by the tools' config (`tools`) and by the pool's (`[pool]
    /// check_timeout_ms` / `first_check_timeout_ms`, `pool`); `None` leaves the default.
    fn build(
        script: Script,
        tools: Option<(Duration, Duration)>,
        pool: Option<(Duration, Duration)>,
    ) -> FakeEnv {
        FakeEnv::configured(script, tools, pool, |_| {})
    }

    /// [`FakeEnv::build`] with the tools' config changed by `tweak`.
    fn configured(
        script: Script,
        tools: Option<(Duration, Duration)>,
        pool: Option<(Duration, Duration)>,
        tweak: impl FnOnce(&mut ToolsConfig),
    ) -> FakeEnv {
        FakeEnv::assemble(script, tools, pool, tweak, Vec::new())
    }

    /// [`FakeEnv::new`] whose fake server logs what it does to `log`, a file outside the
    /// workspace (whose changes the pool would announce to the server, which would log them),
    /// created here so the sandbox lets the server write it.
    fn logged(mut script: Script, timeout: Duration, log: &Path) -> FakeEnv {
        std::fs::write(log, "").unwrap();
        script.log_file = Some(log.to_path_buf());
        let timeouts = Some((timeout, timeout));
        FakeEnv::assemble(script, timeouts, None, |_| {}, vec![log.to_path_buf()])
    }

    /// [`FakeEnv::configured`], the server also allowed to write `sandbox_allow`.
    fn assemble(
        script: Script,
        tools: Option<(Duration, Duration)>,
        pool: Option<(Duration, Duration)>,
        tweak: impl FnOnce(&mut ToolsConfig),
        sandbox_allow: Vec<PathBuf>,
    ) -> FakeEnv {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let script_file = root.join("script.json");
        std::fs::write(&script_file, script.to_json()).unwrap();
        let toml = format!(
            r#"
            id = "fake"
            command = {cmd:?}
            root_markers = []
            languages = {{ ts = "typescript" }}
            diagnostics = {{ strategy = "{strategy}", quiet_window_ms = 30, first_publish_timeout_ms = 400 }}
            env = {{ LSPEDIT_FAKE_SCRIPT_FILE = {script:?} }}
            "#,
            strategy = match script.mode {
                Mode::Push => "push-versioned",
                Mode::PushUnversioned => "push-unversioned",
                Mode::Pull => "pull",
                Mode::TsserverPull => "tsserver-pull",
            },
            cmd = fake_bin().display().to_string(),
            script = script_file.display().to_string(),
        );
        let mut config = PoolConfig {
            servers: vec![ServerConfig::from_toml(&toml).unwrap()],
            shutdown_grace: Duration::from_millis(300),
            restart_backoff: Duration::from_millis(50),
            startup_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(2),
            sandbox_allow,
            // The deadlines hold, as for an operator who set them (`lspedit mcp
            // --first-check-timeout-ms`): these tests are about deadlines and late answers. The
            // wait past a deadline for a working server: crates/lsp/tests/it/verdict.rs.
            verdict_wait: lspedit_lsp::VerdictWait::Deadline,
            ..PoolConfig::default()
        };
        if let Some((warm, cold)) = pool {
            config.check_timeout = warm;
            config.first_check_timeout = cold;
        }
        let provider = Arc::new(LspProvider::from_pool(
            BlockingPool::new(&root, config).unwrap(),
        ));
        let mut cfg = ToolsConfig::default();
        if let Some((warm, cold)) = tools {
            cfg.diagnostics.timeout = Some(warm);
            cfg.diagnostics.start_timeout = Some(cold);
        }
        tweak(&mut cfg);
        let tools = Tools::new(
            Workspace::open(&root).unwrap(),
            Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
            cfg,
        );
        FakeEnv {
            dir,
            tools,
            provider,
        }
    }

    fn write(&self, rel: &str, content: &str) {
        std::fs::write(self.dir.path().join(rel), content).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }

    /// Process groups the pool spawned and has not killed, starting servers included.
    fn pgids_listed(&self) -> Vec<u32> {
        self.provider.pool().process_groups()
    }

    /// Process groups of the running servers.
    fn pgids(&self) -> Vec<u32> {
        self.provider
            .pool()
            .status()
            .iter()
            .filter_map(|s| s.pgid)
            .collect()
    }
}

fn script(mode: Mode) -> Script {
    Script {
        mode,
        marker: "BAD".to_string(),
        ..Script::default()
    }
}

fn timed_edit(env: &FakeEnv, old: &str, new: &str, limit: Duration) -> lspedit_tools::ToolResult {
    let t = Instant::now();
    let r = env.tools.edit("a.ts", old, new, false);
    let took = t.elapsed();
    assert!(
        took < limit,
        "edit took {took:?} (limit {limit:?}): {}",
        r.llm_content
    );
    r
}

#[test]
fn live_fake_server_errors_reach_the_result_and_the_fix_clears_them() {
    for mode in [Mode::Push, Mode::Pull, Mode::PushUnversioned] {
        let env = FakeEnv::new(script(mode), Duration::from_secs(5));
        env.write("a.ts", "let a = 1;\nlet b = 2;\n");
        let r = timed_edit(&env, "let b = 2;", "let b = BAD;", Duration::from_secs(6));
        assert!(!r.is_error, "{}", r.llm_content);
        assert!(
            r.llm_content.contains("LSP errors detected in this file, please fix:\n<diagnostics file=\"a.ts\">\nERROR [2:9] "),
            "{mode:?}: {}",
            r.llm_content
        );
        assert!(
            r.llm_content.contains("(F001)\n</diagnostics>"),
            "{mode:?}: {}",
            r.llm_content
        );
        let r = timed_edit(&env, "let b = BAD;", "let b = 3;", Duration::from_secs(6));
        assert!(
            !r.llm_content.contains("LSP"),
            "{mode:?}: stale diagnostics after the fix: {}",
            r.llm_content
        );
    }
}

// Regression: `[pool] check_timeout_ms` / `first_check_timeout_ms` were parsed and never read
// (the tools waited their own fixed 3 s / 10 s).
#[test]
fn the_pools_deadlines_apply_unless_the_tools_set_their_own() {
    let (ms, secs) = (Duration::from_millis, Duration::from_secs);
    // A 1.5 s answer: one edit per (tools' deadlines, pool's deadlines), its status and the
    // time the edit may take.
    let edit = |tools: Option<(Duration, Duration)>,
                pool: Option<(Duration, Duration)>,
                want: DiagnosticsStatus,
                limit: Duration| {
        let slow = Script {
            delay_ms: 1500,
            ..script(Mode::Pull)
        };
        let env = FakeEnv::build(slow, tools, pool);
        env.write("a.ts", "let a = 1;\n");
        let r = timed_edit(&env, "let a = 1;", "let a = BAD;", limit);
        assert_eq!(r.diagnostics[0].status, want, "{}", r.llm_content);
    };
    // The pool's 300 ms: too late (the default 10 s / 3 s would wait for it).
    edit(
        None,
        Some((ms(300), ms(300))),
        DiagnosticsStatus::TimedOut,
        ms(1400),
    );
    // The pool's 8 s: it is waited for.
    edit(
        None,
        Some((secs(8), secs(8))),
        DiagnosticsStatus::Checked,
        secs(8),
    );
    // The tools' own deadline wins over the pool's.
    edit(
        Some((ms(300), ms(300))),
        Some((secs(8), secs(8))),
        DiagnosticsStatus::TimedOut,
        ms(1400),
    );
}

#[test]
fn crashing_server_leaves_plain_success_within_the_deadline() {
    for event in [Event::Initialize, Event::DidOpen, Event::DidChange] {
        let env = FakeEnv::new(
            Script {
                crash_on: Some(event),
                ..script(Mode::Push)
            },
            Duration::from_secs(2),
        );
        env.write("a.ts", "x\n");
        // The first edit opens the document, the second changes it: each event is reached.
        for (old, new) in [("x", "y"), ("y", "BAD")] {
            let r = timed_edit(&env, old, new, Duration::from_secs(3));
            assert!(!r.is_error);
            assert_eq!(
                r.llm_content.lines().next(),
                Some("Edited a.ts: replaced line 1."),
                "{event:?}"
            );
            assert!(
                !r.llm_content.contains("LSP") && !r.llm_content.to_lowercase().contains("crash"),
                "{event:?}: {}",
                r.llm_content
            );
        }
        assert_eq!(env.read("a.ts"), "BAD\n");
    }
}

#[test]
fn hung_server_costs_at_most_the_timeout_and_no_text() {
    for event in [Event::Initialize, Event::DidChange, Event::Diagnostic] {
        let mode = if event == Event::Diagnostic {
            Mode::Pull
        } else {
            Mode::Push
        };
        let env = FakeEnv::new(
            Script {
                hang_on: Some(event),
                ..script(mode)
            },
            Duration::from_millis(800),
        );
        env.write("a.ts", "let a = 1;\nx\n");
        for (old, new) in [("x", "y"), ("y", "BAD")] {
            let r = timed_edit(&env, old, new, Duration::from_millis(800 + 250 + 700));
            assert!(!r.is_error);
            assert!(
                !r.llm_content.contains("LSP") && !r.llm_content.contains("timed out"),
                "{event:?}: {}",
                r.llm_content
            );
        }
        assert_eq!(env.read("a.ts"), "let a = 1;\nBAD\n");
    }
}

#[test]
fn garbage_and_stale_versions_do_not_confuse_the_result() {
    let env = FakeEnv::new(
        Script {
            garbage: true,
            stale_versions: true,
            publish_twice: true,
            ..script(Mode::Push)
        },
        Duration::from_secs(5),
    );
    env.write("a.ts", "a\nb\n");
    let r = timed_edit(&env, "b", "BAD", Duration::from_secs(6));
    assert!(r.llm_content.contains("ERROR [2:1] "), "{}", r.llm_content);
    assert!(!r.llm_content.contains("STALE"), "{}", r.llm_content);
    let r = timed_edit(&env, "BAD", "b", Duration::from_secs(6));
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);
}

#[test]
fn dropping_the_tools_leaves_no_server_process() {
    let env = FakeEnv::new(script(Mode::Push), Duration::from_secs(5));
    env.write("a.ts", "x\n");
    let r = env.tools.edit("a.ts", "x", "BAD", false);
    assert!(r.llm_content.contains("LSP errors"), "{}", r.llm_content);
    let pgids = env.pgids();
    assert_eq!(pgids.len(), 1);
    let FakeEnv {
        dir: _dir,
        tools,
        provider,
    } = env;
    drop(tools);
    drop(provider);
    for pgid in pgids {
        assert!(
            lspedit_process::wait_group_gone(pgid, Duration::from_secs(5)),
            "server group {pgid} survived"
        );
    }
}

// A server too slow for the deadline: the edit returns its plain success message and says
// `timed_out`; the answer, when it comes, starts the next tool result (any tool), once.
#[test]
fn a_late_answer_starts_the_next_result_once() {
    let env = FakeEnv::new(
        Script {
            delay_ms: 1200,
            ..script(Mode::Pull)
        },
        Duration::from_millis(400),
    );
    env.write("a.ts", "let a = 1;\n");
    env.write("b.ts", "let b = 1;\n");
    let r = timed_edit(&env, "let a = 1;", "let a = BAD;", Duration::from_secs(2));
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        r.llm_content.starts_with("Edited a.ts"),
        "{}",
        r.llm_content
    );
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);
    // The missing verdict is named, in lspedit's words.
    assert!(
        r.llm_content.ends_with("\n\nDiagnostics for a.ts pending: fake is still checking it; errors, if any, will be reported in a later result."),
        "{}",
        r.llm_content
    );
    assert_eq!(r.diagnostics.len(), 1);
    assert_eq!(r.diagnostics[0].path, "a.ts");
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::TimedOut);

    assert!(
        env.provider
            .pool()
            .wait_for_late(Instant::now() + Duration::from_secs(10)),
        "the late answer never came"
    );
    let next = env.tools.read_file("b.ts", None, None);
    assert!(
        next.llm_content.starts_with(
            "LSP errors detected in a.ts after your earlier change, please fix:\n<diagnostics file=\"a.ts\">\nERROR [1:9] "
        ),
        "{}",
        next.llm_content
    );
    let again = env.tools.read_file("b.ts", None, None);
    assert!(!again.llm_content.contains("LSP"), "{}", again.llm_content);
}

/// A fake server too slow for the deadline over `a.ts` and `b.ts`, and the result of an edit of
/// `a.ts` that breaks it, whose check timed out; returns once its late answer is kept. `began`:
/// when the edit began.
fn late_break() -> (FakeEnv, Instant) {
    let env = FakeEnv::new(
        Script {
            delay_ms: 1200,
            ..script(Mode::Pull)
        },
        Duration::from_millis(400),
    );
    env.write("a.ts", "let a = 1;\n");
    env.write("b.ts", "let b = 1;\n");
    let began = Instant::now();
    let r = env.tools.edit("a.ts", "let a = 1;", "let a = BAD;", false);
    assert_eq!(
        r.diagnostics[0].status,
        DiagnosticsStatus::TimedOut,
        "{r:?}"
    );
    assert!(
        env.provider
            .pool()
            .wait_for_late(Instant::now() + Duration::from_secs(10)),
        "the late answer never came"
    );
    (env, began)
}

// A late block is true when shown. Not in the result of the call that asked for it (its own
// "pending" line stands there): the edit's own late answer, come while its result was being
// made, waits for the next result, which shows it while the file still has that text.
#[test]
fn a_calls_own_late_answer_waits_for_the_next_call() {
    let (env, began) = late_break();
    assert_eq!(env.tools.take_late_feedback_for_call(began), None);
    let next = env.tools.read_file("b.ts", None, None);
    assert!(
        next.llm_content.starts_with(
            "LSP errors detected in a.ts after your earlier change, please fix:\n<diagnostics file=\"a.ts\">\nERROR [1:9] "
        ),
        "{}",
        next.llm_content
    );
}

// A late block is true when shown: another program rewrote the file after its check (the error
// is gone from it), so the late answer about the old text is never shown.
#[test]
fn a_late_answer_about_a_text_changed_on_disk_is_not_shown() {
    let (env, _) = late_break();
    env.write("a.ts", "let a = 2;\n");
    let next = env.tools.read_file("b.ts", None, None);
    assert!(!next.llm_content.contains("LSP"), "{}", next.llm_content);
}

// A late block is true when shown: the call that deletes the file (a write that asks the server
// nothing) does not show the late answer about it, nor does any call after.
#[test]
fn a_late_answer_about_a_file_the_call_deleted_is_not_shown() {
    let (env, _) = late_break();
    let r = env
        .tools
        .apply_patch("*** Begin Patch\n*** Delete File: a.ts\n*** End Patch\n");
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);
    let next = env.tools.read_file("b.ts", None, None);
    assert!(!next.llm_content.contains("LSP"), "{}", next.llm_content);
}

// `feedback = seed`: the seed contract exactly: a timed-out check leaves the plain success
// message, and the late answer is never shown.
#[test]
fn seed_feedback_is_silent_on_a_missing_verdict_and_shows_no_late_answer() {
    let env = FakeEnv::configured(
        Script {
            delay_ms: 1200,
            ..script(Mode::Pull)
        },
        Some((Duration::from_millis(400), Duration::from_millis(400))),
        None,
        |cfg| cfg.diagnostics.feedback = lspedit_tools::Feedback::Seed,
    );
    env.write("a.ts", "let a = 1;\n");
    env.write("b.ts", "let b = 1;\n");
    let r = timed_edit(&env, "let a = 1;", "let a = BAD;", Duration::from_secs(2));
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::TimedOut);
    assert!(!r.llm_content.contains("Diagnostics"), "{}", r.llm_content);
    assert!(
        env.provider
            .pool()
            .wait_for_late(Instant::now() + Duration::from_secs(10)),
        "the late answer never came"
    );
    let next = env.tools.read_file("b.ts", None, None);
    assert!(!next.llm_content.contains("LSP"), "{}", next.llm_content);
}

/// A project where `b.ts` imports `a.ts` and the server takes `slow` to check `b.ts`; `tweak`
/// sets the tools' config. The first edit of `a.ts` (paying for `b.ts`'s "before") is done and
/// its late answers taken.
fn slow_importer(slow: Duration, tweak: impl FnOnce(&mut ToolsConfig)) -> FakeEnv {
    let env = FakeEnv::configured(
        Script {
            cross_file: true,
            slow_suffix: Some("/b.ts".to_string()),
            slow_ms: slow.as_millis() as u64,
            ..script(Mode::Pull)
        },
        Some((Duration::from_secs(20), Duration::from_secs(20))),
        None,
        tweak,
    );
    env.write("a.ts", "export const a = 1;\n");
    env.write("b.ts", "import { a } from \"./a\";\nlet b = a;\n");
    let r = env
        .tools
        .edit("a.ts", "export const a = 1;", "export const a = 2;", false);
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked, "{r:?}");
    env.provider
        .pool()
        .wait_for_late_others(Instant::now() + Duration::from_secs(20));
    let _ = env.tools.take_late_feedback();
    env
}

/// Other files not waited for at all: their results come in a later call (what the tests of
/// late results exercise).
fn no_wait_for_others(cfg: &mut ToolsConfig) {
    cfg.diagnostics.other_files_wait = lspedit_lsp::OthersWait::For(Duration::ZERO);
}

// Issue 48 item 2: with the default configuration, a caller the change broke is named in the
// result of the edit that broke it, not a call later: the result waits for the other files up
// to the server's declared `dependents_wait_ms` once the edited file has its verdict. (Before:
// "Still checking 1 other file", and the importer's error at the start of the next result.)
#[test]
fn by_default_the_callers_a_change_broke_come_in_its_result() {
    breaking_a_names_its_importer_in_the_same_result(&slow_importer(Duration::ZERO, |_| {}));
}

/// Breaks `a.ts` (of [`slow_importer`]): the edit's own result names the importer's new error,
/// and nothing is left for later.
fn breaking_a_names_its_importer_in_the_same_result(env: &FakeEnv) {
    let r = env.tools.edit(
        "a.ts",
        "export const a = 2;",
        "export const a = BAD;",
        false,
    );
    assert!(
        r.llm_content.ends_with("\n\nLSP errors detected in other files:\n<diagnostics file=\"b.ts\">\nERROR [1:1] imports ./a, which has errors (F002)\n</diagnostics>"),
        "{}",
        r.llm_content
    );
    assert!(
        !r.llm_content.contains("Still checking"),
        "{}",
        r.llm_content
    );
}

// The edited file's verdict comes at the server's speed for it: an importer that takes the
// server long to check does not hold the result back. The result says the importer is still
// being checked, and its new error starts the next result.
#[test]
fn the_edited_files_verdict_does_not_wait_for_other_files() {
    let env = slow_importer(Duration::from_secs(4), |_| {});
    let r = env.tools.edit(
        "a.ts",
        "export const a = 2;",
        "export const a = BAD;",
        false,
    );
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::Checked);
    assert!(
        r.llm_content.contains("LSP errors detected in this file, please fix:\n<diagnostics file=\"a.ts\">\nERROR [1:18] found BAD (F001)\n</diagnostics>"),
        "{}",
        r.llm_content
    );
    assert!(
        r.llm_content.ends_with("\n\nStill checking 1 other file that may depend on this change; new errors there will be reported in a later result."),
        "{}",
        r.llm_content
    );
    assert!(
        env.provider
            .pool()
            .wait_for_late_others(Instant::now() + Duration::from_secs(20)),
        "the importer's check never ended"
    );
    let next = env.tools.read_file("a.ts", None, None);
    assert!(
        next.llm_content.starts_with("LSP errors detected in other files after your earlier change, please fix:\n<diagnostics file=\"b.ts\">\nERROR [1:1] imports ./a, which has errors (F002)\n</diagnostics>\n\n"),
        "{}",
        next.llm_content
    );
    // Told once.
    let again = env.tools.read_file("a.ts", None, None);
    assert!(!again.llm_content.contains("LSP"), "{}", again.llm_content);
}

// A late block is true when shown: errors another file had when the session first saw it are
// never presented as caused by a change. `a.ts` starts broken, so `b.ts`, which imports it, has
// an error from the start; a fix of `a.ts` takes it away and the revert brings it back (as
// reverting a type in requests' api.py brought back test_requests.py's errors). The fix's late
// result about `b.ts` is dropped (the revert changed the root); the revert's, whose "before" is
// the fixed state, must not show the error `b.ts` had first.
#[test]
fn a_revert_does_not_present_another_files_first_errors_as_new() {
    let env = FakeEnv::configured(
        Script {
            cross_file: true,
            slow_suffix: Some("/b.ts".to_string()),
            slow_ms: 300,
            ..script(Mode::Pull)
        },
        Some((Duration::from_secs(20), Duration::from_secs(20))),
        None,
        no_wait_for_others,
    );
    env.write("a.ts", "export const a = BAD;\n");
    env.write("b.ts", "import { a } from \"./a\";\nlet b = a;\n");
    let pool = env.provider.pool();
    let fix = env.tools.edit(
        "a.ts",
        "export const a = BAD;",
        "export const a = 1;",
        false,
    );
    assert_eq!(
        fix.diagnostics[0].status,
        DiagnosticsStatus::Checked,
        "{fix:?}"
    );
    assert!(
        fix.llm_content.contains("Still checking 1 other file"),
        "{}",
        fix.llm_content
    );
    assert!(
        pool.wait_for_late_others(Instant::now() + Duration::from_secs(20)),
        "the fix's check of b.ts never ended"
    );
    let revert = env.tools.edit(
        "a.ts",
        "export const a = 1;",
        "export const a = BAD;",
        false,
    );
    assert_eq!(revert.diagnostics[0].status, DiagnosticsStatus::Checked);
    assert!(
        !revert.llm_content.contains("b.ts\">"),
        "{}",
        revert.llm_content
    );
    assert!(
        revert.llm_content.contains("Still checking 1 other file"),
        "{}",
        revert.llm_content
    );
    assert!(
        pool.wait_for_late_others(Instant::now() + Duration::from_secs(20)),
        "the revert's check of b.ts never ended"
    );
    let next = env.tools.read_file("a.ts", None, None);
    assert!(!next.llm_content.contains("LSP"), "{}", next.llm_content);
}

// A late block is true when shown: another file's late result about a text another program
// replaced since is never shown.
#[test]
fn a_late_other_file_changed_on_disk_since_is_not_shown() {
    let env = slow_importer(Duration::from_millis(300), no_wait_for_others);
    let r = env.tools.edit(
        "a.ts",
        "export const a = 2;",
        "export const a = BAD;",
        false,
    );
    assert!(
        r.llm_content.contains("Still checking 1 other file"),
        "{}",
        r.llm_content
    );
    assert!(
        env.provider
            .pool()
            .wait_for_late_others(Instant::now() + Duration::from_secs(20)),
        "the importer's check never ended"
    );
    // No longer importing a.ts: the error is gone from it.
    env.write("b.ts", "let b = 1;\n");
    let next = env.tools.read_file("a.ts", None, None);
    assert!(!next.llm_content.contains("LSP"), "{}", next.llm_content);
}

// Regression: a call's own check of other files, still running when its result was built,
// could end just before the call took the late answers for its result: the result then showed
// them as "after your earlier change" and the next call had nothing (1 in 4 long sessions).
// Late other files of checks a call asked for itself wait for the next call.
#[test]
fn a_calls_own_late_other_files_wait_for_the_next_call() {
    let env = slow_importer(Duration::from_millis(300), no_wait_for_others);
    let began = Instant::now();
    let r = env.tools.edit(
        "a.ts",
        "export const a = 2;",
        "export const a = BAD;",
        false,
    );
    assert!(
        r.llm_content.contains("Still checking 1 other file"),
        "{}",
        r.llm_content
    );
    assert!(
        env.provider
            .pool()
            .wait_for_late_others(Instant::now() + Duration::from_secs(20)),
        "the importer's check never ended"
    );
    // As the edit's own result would take them: nothing of its own check.
    assert_eq!(env.tools.take_late_feedback_for_call(began), None);
    let next = env.tools.take_late_feedback().unwrap_or_default();
    assert!(
        next.contains(
            "<diagnostics file=\"b.ts\">\nERROR [1:1] imports ./a, which has errors (F002)"
        ),
        "{next}"
    );
}

// A late answer about other files is dropped once anything in their root changed (it may no
// longer hold); the next check of them reports what still holds.
#[test]
fn a_late_other_file_answer_is_dropped_when_the_root_changed_since() {
    let env = slow_importer(Duration::from_secs(2), |_| {});
    let r = env.tools.edit(
        "a.ts",
        "export const a = 2;",
        "export const a = BAD;",
        false,
    );
    assert!(
        r.llm_content.contains("Still checking 1 other file"),
        "{}",
        r.llm_content
    );
    // The fix lands before the importer's answer is taken: that answer is stale.
    let fix = env.tools.edit(
        "a.ts",
        "export const a = BAD;",
        "export const a = 3;",
        false,
    );
    assert!(
        !fix.llm_content.contains("LSP errors"),
        "{}",
        fix.llm_content
    );
    env.provider
        .pool()
        .wait_for_late_others(Instant::now() + Duration::from_secs(20));
    let next = env.tools.read_file("a.ts", None, None);
    assert!(
        !next.llm_content.contains("LSP errors"),
        "{}",
        next.llm_content
    );
}

// A one-shot caller (`other_files_wait = UntilDeadline`, as the CLI's commands) waits for the other
// files and gets their errors in the same result.
#[test]
fn waiting_for_other_files_puts_them_in_the_same_result() {
    let env = slow_importer(Duration::from_millis(800), |cfg| {
        cfg.diagnostics.other_files_wait = lspedit_lsp::OthersWait::UntilDeadline;
    });
    breaking_a_names_its_importer_in_the_same_result(&env);
}

// One deadline per call: a patch over six files on a server that hangs at the first
// diagnostics request costs about one deadline, every file `timed_out`, no LSP text.
#[test]
fn one_deadline_for_every_file_of_a_hung_server() {
    let timeout = Duration::from_millis(1500);
    let env = FakeEnv::new(
        Script {
            hang_on: Some(Event::Diagnostic),
            ..script(Mode::Pull)
        },
        timeout,
    );
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..6 {
        env.write(&format!("f{i}.ts"), "let x = 1;\n");
        patch.push_str(&format!(
            "*** Update File: f{i}.ts\n@@\n-let x = 1;\n+let x = BAD;\n"
        ));
    }
    patch.push_str("*** End Patch\n");
    let t = Instant::now();
    let r = env.tools.apply_patch(&patch);
    let took = t.elapsed();
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(
        took < timeout + Duration::from_millis(1000),
        "six files took {took:?} (one deadline is {timeout:?})"
    );
    assert!(!r.llm_content.contains("LSP"), "{}", r.llm_content);
    assert_eq!(r.diagnostics.len(), 6, "{:?}", r.diagnostics);
    for s in &r.diagnostics {
        assert_eq!(s.status, DiagnosticsStatus::TimedOut, "{s:?}");
    }
}

// Warm means answered: a read starts the server in the background, and a server that is up
// but has not answered a check yet still gets the cold budget. Regression: the read made it
// "warm" (alive), the first edit got the short budget and timed out while it indexed.
#[test]
fn a_read_before_the_first_edit_does_not_shorten_the_budget() {
    let env = FakeEnv::with_timeouts(
        Script {
            delay_ms: 900,
            ..script(Mode::Pull)
        },
        Duration::from_millis(300),
        Duration::from_secs(10),
    );
    env.write("a.ts", "let a = 1;\n");
    let a = env.dir.path().join("a.ts");
    env.tools.read_file("a.ts", None, None);
    let pool = env.provider.pool();
    // Waits for the background start the read began (a condition with a deadline).
    let until = Instant::now() + Duration::from_secs(10);
    while !pool.is_alive(&a) && Instant::now() < until {
        std::thread::park_timeout(Duration::from_millis(10));
    }
    assert!(pool.is_alive(&a), "the read did not start the server");
    assert!(!pool.is_warm(&a), "alive is not warm");
    let r = timed_edit(&env, "let a = 1;", "let a = BAD;", Duration::from_secs(10));
    assert_eq!(
        r.diagnostics[0].status,
        DiagnosticsStatus::Checked,
        "{}",
        r.llm_content
    );
    assert!(r.llm_content.contains("ERROR [1:9] "), "{}", r.llm_content);
    assert!(pool.is_warm(&a), "answered is warm");
}

/// Set in the owner process of `a_server_hung_in_initialize_dies_with_its_owner_process`.
const OWNER_ENV: &str = "LSPEDIT_TEST_SHORT_OWNER";

// The short-lived owner: tools over a server that hangs in `initialize`, one edit that times
// out, the process groups printed once the server hangs, then the process ends. Does nothing
// in a normal test run.
#[test]
fn short_owner_process() {
    if std::env::var_os(OWNER_ENV).is_none() {
        return;
    }
    let log_dir = tempfile::tempdir().unwrap();
    let log = log_dir.path().join("fake.log");
    let env = FakeEnv::logged(
        Script {
            hang_on: Some(Event::Initialize),
            spawn_child: true,
            ..script(Mode::Pull)
        },
        Duration::from_millis(300),
        &log,
    );
    env.write("a.ts", "let a = 1;\n");
    let r = env.tools.edit("a.ts", "let a = 1;", "let a = 2;", false);
    assert_eq!(r.diagnostics[0].status, DiagnosticsStatus::TimedOut);
    // Regression: the edit's deadline does not wait for the server's start. On a loaded
    // machine the start (the launch's checks, the spawn) was still under way when the edit
    // timed out, no group was listed yet, and the owner printed none. Waits, up to a bound,
    // for what the test is about: the server's group listed and the server hung in
    // `initialize` (its log says so), its grandchild started before.
    let hung = || {
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        log.lines().any(|l| l == "hang initialize") && !env.pgids_listed().is_empty()
    };
    let until = Instant::now() + Duration::from_secs(30);
    while !hung() && Instant::now() < until {
        std::thread::park_timeout(Duration::from_millis(10));
    }
    assert!(
        hung(),
        "the server did not hang in initialize within 30 s; groups {:?}, log:\n{}",
        env.pgids_listed(),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    for pgid in env.pgids_listed() {
        println!("PGID {pgid}");
    }
}

// Regression: a server that never answered `initialize` was left running (parent pid 1) by a
// short CLI command in 2 of 8 runs. The diagnostics thread sent its answer and only then
// dropped its handle on the provider; the command exited in between, so the pool's drop ran
// on that thread and was cut off. Eight owner processes, each must leave nothing. (The window
// was a thread switch wide: a loaded machine hit it, an idle one rarely does; this guards the
// whole path from a real process exit, the `lspedit check` runs in the report measured it.)
#[test]
fn a_server_hung_in_initialize_dies_with_its_owner_process() {
    let exe = std::env::current_exe().unwrap();
    for run in 0..8 {
        let out = std::process::Command::new(&exe)
            .args(["--exact", "pool_fake::short_owner_process", "--nocapture"])
            .env(OWNER_ENV, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        // The owner's own panic (stderr) says why it failed, when it does.
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "run {run}: {stdout}\n{stderr}");
        let pgids: Vec<u32> = stdout
            .lines()
            .filter_map(|l| l.strip_prefix("PGID ")?.trim().parse().ok())
            .collect();
        assert_eq!(pgids.len(), 1, "run {run}: {stdout}");
        for pgid in pgids {
            assert!(
                lspedit_process::wait_group_gone(pgid, Duration::from_secs(5)),
                "run {run}: group {pgid} outlived its owner: {:?}",
                lspedit_process::live_group_members(pgid)
            );
        }
    }
}

// Regression: a written file whose language's server is not installed read exactly like a
// clean check (only the structured status said `no_server`). The full feedback now says so
// once per session and language, with what to install; the seed stays silent, and a file of a
// type no server is known for (`.md`) gets nothing.
#[test]
fn a_language_without_its_server_is_named_once_per_session_and_never_in_the_seed() {
    for feedback in [lspedit_tools::Feedback::Full, lspedit_tools::Feedback::Seed] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let toml = r#"
            id = "gopls-test"
            command = "lspedit-test-server-that-is-not-installed"
            root_markers = []
            languages = { go = "go" }
            diagnostics = { strategy = "pull" }
        "#;
        let config = PoolConfig {
            servers: vec![ServerConfig::from_toml(toml).unwrap()],
            ..PoolConfig::default()
        };
        let provider = Arc::new(LspProvider::from_pool(
            BlockingPool::new(&root, config).unwrap(),
        ));
        let mut cfg = ToolsConfig::default();
        cfg.diagnostics.feedback = feedback;
        let tools = Tools::new(
            Workspace::open(&root).unwrap(),
            Some(provider as Arc<dyn DiagnosticsProvider>),
            cfg,
        );
        for f in ["a.go", "b.go"] {
            std::fs::write(root.join(f), "package a\n").unwrap();
        }
        std::fs::write(root.join("notes.md"), "hi\n").unwrap();
        let first = tools.edit("a.go", "package a", "package b", false);
        let second = tools.edit("b.go", "package a", "package b", false);
        let notes = tools.edit("notes.md", "hi", "ho", false);
        assert_eq!(first.diagnostics[0].status, DiagnosticsStatus::NoServer);
        let said =
            |r: &lspedit_tools::ToolResult| r.llm_content.matches("No language server").count();
        if feedback == lspedit_tools::Feedback::Full {
            assert_eq!(said(&first), 1, "{}", first.llm_content);
            assert!(
                first
                    .llm_content
                    .contains("No language server for .go files here: a.go")
                    && first
                        .llm_content
                        .contains("(`lspedit servers install gopls-test`)"),
                "{}",
                first.llm_content
            );
        } else {
            assert_eq!(said(&first), 0, "{}", first.llm_content);
        }
        assert_eq!(said(&second), 0, "{}", second.llm_content);
        assert_eq!(said(&notes), 0, "{}", notes.llm_content);
    }
}
