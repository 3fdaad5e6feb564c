//! LSP edits with the scripted fake server through the real pool: a server's edit that reaches
//! into `.git/` or outside the workspace is refused and leaves every file untouched; a stale
//! anchor is refused before the server is asked; resource operations, a command's
//! `workspace/applyEdit` and a UTF-8 position encoding go through the same path.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::{Mode, Script};
use lspedit_lsp::{BlockingPool, PoolConfig, ServerConfig};
use lspedit_lsp_edits::{
    ActionPick, EditOptions, LineRef, LspEditProvider, LspEdits, LspEditsConfig, SymbolAt,
};
use lspedit_lsp_edits::{LspEditStatus, ServerFileOp};
use lspedit_tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig};
use lspedit_workflow::{Workflow, WorkflowConfig};
use lspedit_write::Workspace;
use serde_json::{Value, json};

pub(crate) struct Env {
    dir: tempfile::TempDir,
    pub(crate) root: std::path::PathBuf,
    tools: Arc<Tools>,
    wf: Workflow,
    provider: Arc<LspProvider>,
    log: std::path::PathBuf,
}

impl Env {
    pub(crate) fn edits(&self) -> LspEdits<'_> {
        self.edits_within(Duration::from_secs(10))
    }

    /// The edits with `timeout` as each request's deadline.
    pub(crate) fn edits_within(&self, timeout: Duration) -> LspEdits<'_> {
        LspEdits::new(
            &self.tools,
            &self.wf,
            Some(self.provider.pool() as &dyn LspEditProvider),
            LspEditsConfig {
                timeout,
                ..LspEditsConfig::default()
            },
        )
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub(crate) fn asked(&self, method: &str) -> bool {
        self.logged(&format!("request {method} "))
    }

    /// Whether the fake server logged a line starting with `prefix`.
    pub(crate) fn logged(&self, prefix: &str) -> bool {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .any(|l| l.starts_with(prefix))
    }
}

pub(crate) const A: &str = "export function add(a: number): number {\n  return a;\n}\n";
pub(crate) const B: &str = "import { add } from \"./a\";\nadd(1);\n";

/// A workspace with `a.ts`, `b.ts` and `.git/config`; `script` is completed by `f(root)` (the
/// edits name absolute URIs).
pub(crate) fn env(f: impl FnOnce(&Path, &mut Script)) -> Env {
    env_with(r#"{ strategy = "pull" }"#, f)
}

/// [`env`] with the server's `diagnostics` table given as inline TOML.
pub(crate) fn env_with(diagnostics: &str, f: impl FnOnce(&Path, &mut Script)) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.ts"), A).unwrap();
    std::fs::write(root.join("b.ts"), B).unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]\n").unwrap();
    let log = root.join("fake.log");
    let mut script = Script {
        mode: Mode::Pull,
        log_file: Some(log.clone()),
        ..Script::default()
    };
    f(&root, &mut script);
    let script_file = root.join("script.json");
    std::fs::write(&script_file, script.to_json()).unwrap();
    let toml = format!(
        r#"
        id = "fake"
        command = {cmd:?}
        root_markers = []
        languages = {{ ts = "typescript" }}
        diagnostics = {diagnostics}
        env = {{ LSPEDIT_FAKE_SCRIPT_FILE = {script:?} }}
        "#,
        cmd = lspedit_fake_lsp::binary().display().to_string(),
        script = script_file.display().to_string(),
    );
    // The sandbox lets the server write its log (inside the workspace) once the file exists.
    std::fs::write(&log, "").unwrap();
    let config = PoolConfig {
        servers: vec![ServerConfig::from_toml(&toml).unwrap()],
        shutdown_grace: Duration::from_millis(300),
        startup_timeout: Duration::from_secs(5),
        sandbox_allow: vec![log.clone()],
        ..PoolConfig::default()
    };
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, config).unwrap(),
    ));
    let tools = Arc::new(Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        ToolsConfig::default(),
    ));
    let wf = Workflow::open(tools.clone(), WorkflowConfig::unrestricted()).unwrap();
    Env {
        dir,
        root,
        tools,
        wf,
        provider,
        log,
    }
}

fn text_edit(line: u32, from: u32, to: u32, new: &str) -> Value {
    json!({
        "range": { "start": { "line": line, "character": from }, "end": { "line": line, "character": to } },
        "newText": new,
    })
}

fn doc_edit(uri: &str, edits: Vec<Value>) -> Value {
    json!({ "textDocument": { "uri": uri, "version": null }, "edits": edits })
}

/// `add` → `plus` in a.ts and b.ts, plus `extra` appended to the document changes.
fn rename_edit(root: &Path, extra: Vec<Value>) -> Value {
    let uri = |rel: &str| format!("file://{}", root.join(rel).display());
    let mut changes = vec![
        doc_edit(&uri("a.ts"), vec![text_edit(0, 16, 19, "plus")]),
        doc_edit(
            &uri("b.ts"),
            vec![text_edit(0, 9, 12, "plus"), text_edit(1, 0, 3, "plus")],
        ),
    ];
    changes.extend(extra);
    json!({ "documentChanges": changes })
}

fn rename(env: &Env, line: LineRef) -> lspedit_lsp_edits::LspEditResult {
    env.edits().rename_symbol(
        SymbolAt::new("a.ts", line, "add"),
        "plus",
        EditOptions::default(),
    )
}

fn assert_untouched(env: &Env) {
    assert_eq!(env.read("a.ts"), A);
    assert_eq!(env.read("b.ts"), B);
    assert_eq!(env.read(".git/config"), "[core]\n");
}

#[test]
fn a_plain_rename_applies_to_every_file_and_the_report_agrees() {
    let env = env(|root, s| s.rename_edit = Some(rename_edit(root, vec![])));
    let r = rename(&env, LineRef::Number(1));
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(r.status, LspEditStatus::Applied);
    assert_eq!(
        r.server_edit,
        vec![
            ServerFileOp::Edit {
                path: "a.ts".into(),
                edits: 1
            },
            ServerFileOp::Edit {
                path: "b.ts".into(),
                edits: 2
            },
        ]
    );
    assert_eq!(
        env.read("b.ts"),
        "import { plus } from \"./a\";\nplus(1);\n"
    );
    assert!(env.read("a.ts").starts_with("export function plus("));
    let paths: Vec<&str> = r.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["a.ts", "b.ts"]);
    assert!(env.asked("textDocument/prepareRename"));
    // Applied at once: planned once, nothing stored as a proposal (only `preview` stores).
    assert_eq!(r.patch_id, None);
    assert_eq!(stored_proposals(&env.root), 0);
}

/// How many proposals the workspace's patch store holds.
pub fn stored_proposals(root: &Path) -> usize {
    std::fs::read_dir(root.join(".lspedit/patches")).map_or(0, |d| d.count())
}

#[test]
fn an_edit_into_git_is_refused_and_nothing_is_written() {
    let env = env(|root, s| {
        let git = format!("file://{}", root.join(".git/config").display());
        s.rename_edit = Some(rename_edit(
            root,
            vec![doc_edit(&git, vec![text_edit(0, 0, 0, "x")])],
        ));
    });
    let r = rename(&env, LineRef::Number(1));
    assert!(r.is_error);
    assert_eq!(
        r.reason.map(|r| r.as_str()),
        Some("protected_path"),
        "{}",
        r.llm_content
    );
    assert_eq!(r.status, LspEditStatus::Refused);
    assert_untouched(&env);
    // Refused before anything was proposed: no patch stored either.
    assert!(r.patch_id.is_none());
    assert!(!env.root.join(".lspedit/patches").exists());
}

#[test]
fn an_edit_outside_the_root_is_refused_and_nothing_is_written() {
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.ts");
    std::fs::write(&victim, "keep\n").unwrap();
    let env = env(|root, s| {
        let out = format!("file://{}", victim.display());
        s.rename_edit = Some(rename_edit(
            root,
            vec![doc_edit(&out, vec![text_edit(0, 0, 4, "gone")])],
        ));
    });
    let r = rename(&env, LineRef::Number(1));
    assert_eq!(
        r.reason.map(|r| r.as_str()),
        Some("path_outside_workspace"),
        "{}",
        r.llm_content
    );
    assert_untouched(&env);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep\n");
    // A rename of a file to a path through `..` that leaves the root, too.
    let env2 = env_with_ops(|root| {
        vec![json!({
            "kind": "rename",
            "oldUri": format!("file://{}", root.join("b.ts").display()),
            "newUri": format!("file://{}/../escaped.ts", root.display()),
        })]
    });
    let r = rename(&env2, LineRef::Number(1));
    assert_eq!(
        r.reason.map(|r| r.as_str()),
        Some("path_outside_workspace"),
        "{}",
        r.llm_content
    );
    assert_untouched(&env2);
    drop(env2.dir);
}

fn env_with_ops(ops: impl FnOnce(&Path) -> Vec<Value>) -> Env {
    env(|root, s| {
        let mut v = ops(root);
        v.insert(
            0,
            doc_edit(
                &format!("file://{}", root.join("a.ts").display()),
                vec![text_edit(0, 16, 19, "plus")],
            ),
        );
        s.rename_edit = Some(json!({ "documentChanges": v }));
    })
}

#[test]
fn a_stale_anchor_is_refused_before_the_server_is_asked() {
    let env = env(|root, s| s.rename_edit = Some(rename_edit(root, vec![])));
    let stale = lspedit_engine::hashline(1, "export function other() {");
    let anchor = stale.split('|').next().unwrap().to_string();
    let r = rename(&env, LineRef::Anchor(anchor));
    assert_eq!(
        r.reason.map(|r| r.as_str()),
        Some("stale_context"),
        "{}",
        r.llm_content
    );
    assert!(r.llm_content.contains("re-read"), "{}", r.llm_content);
    assert_untouched(&env);
    assert!(!env.asked("textDocument/rename"));
    // The fresh anchor works.
    let fresh = lspedit_engine::hashline(1, A.lines().next().unwrap());
    let r = rename(
        &env,
        LineRef::Anchor(fresh.split('|').next().unwrap().into()),
    );
    assert!(!r.is_error, "{}", r.llm_content);
}

#[test]
fn a_symbol_not_on_the_line_names_file_line_and_symbol() {
    let env = env(|root, s| s.rename_edit = Some(rename_edit(root, vec![])));
    let r = env.edits().rename_symbol(
        SymbolAt::new("a.ts", LineRef::Number(2), "add"),
        "plus",
        EditOptions::default(),
    );
    assert_eq!(r.reason.map(|r| r.as_str()), Some("symbol_not_found"));
    assert!(
        r.llm_content.contains("a.ts") && r.llm_content.contains("line 2"),
        "{}",
        r.llm_content
    );
    assert_untouched(&env);
}

#[test]
fn resource_operations_create_rename_and_delete_files() {
    let env = env_with_ops(|root| {
        let uri = |rel: &str| format!("file://{}", root.join(rel).display());
        std::fs::write(root.join("old.ts"), "old\n").unwrap();
        vec![
            json!({ "kind": "delete", "uri": uri("old.ts") }),
            json!({ "kind": "create", "uri": uri("c.ts") }),
            doc_edit(&uri("c.ts"), vec![text_edit(0, 0, 0, "export {};\n")]),
            json!({ "kind": "rename", "oldUri": uri("b.ts"), "newUri": uri("sub/b2.ts") }),
            doc_edit(&uri("sub/b2.ts"), vec![text_edit(1, 0, 3, "plus")]),
        ]
    });
    let r = rename(&env, LineRef::Number(1));
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(env.read("c.ts"), "export {};\n");
    assert!(!env.root.join("b.ts").exists());
    assert!(!env.root.join("old.ts").exists());
    assert_eq!(
        env.read("sub/b2.ts"),
        "import { add } from \"./a\";\nplus(1);\n"
    );
    assert!(env.read("a.ts").starts_with("export function plus("));
    // Undo restores every file, the created one removed.
    let undo = env
        .edits()
        .workflow()
        .undo(r.checkpoint_id.as_deref().unwrap())
        .unwrap();
    assert!(!undo.restored.is_empty());
    assert_untouched(&env);
    assert!(!env.root.join("c.ts").exists());
    assert_eq!(env.read("old.ts"), "old\n");
}

/// A server's `create` of a file it leaves empty (an `__init__.py`, a barrel to fill later), a
/// rename of an empty file and a delete of one: each applies, and undo restores them
/// (regression: an empty creation was rendered with git's `new file mode` line and refused as
/// a mode change, `unsafe_diff`).
#[test]
fn resource_operations_on_empty_files_apply_and_undo() {
    let env = env_with_ops(|root| {
        let uri = |rel: &str| format!("file://{}", root.join(rel).display());
        std::fs::write(root.join("empty_old.ts"), "").unwrap();
        std::fs::write(root.join("empty_gone.ts"), "").unwrap();
        vec![
            json!({ "kind": "create", "uri": uri("pkg/empty.ts") }),
            json!({ "kind": "rename", "oldUri": uri("empty_old.ts"), "newUri": uri("empty_new.ts") }),
            json!({ "kind": "delete", "uri": uri("empty_gone.ts") }),
        ]
    });
    let r = rename(&env, LineRef::Number(1));
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(env.read("pkg/empty.ts"), "");
    assert_eq!(env.read("empty_new.ts"), "");
    assert!(!env.root.join("empty_old.ts").exists());
    assert!(!env.root.join("empty_gone.ts").exists());
    env.edits()
        .workflow()
        .undo(r.checkpoint_id.as_deref().unwrap())
        .unwrap();
    assert_untouched(&env);
    assert!(!env.root.join("pkg/empty.ts").exists());
    assert!(!env.root.join("empty_new.ts").exists());
    assert_eq!(env.read("empty_old.ts"), "");
    assert_eq!(env.read("empty_gone.ts"), "");
}

#[test]
fn a_preview_stores_a_proposal_and_writes_nothing() {
    let env = env(|root, s| s.rename_edit = Some(rename_edit(root, vec![])));
    let r = env.edits().rename_symbol(
        SymbolAt::new("a.ts", LineRef::Number(1), "add"),
        "plus",
        EditOptions {
            preview: true,
            all_or_nothing: true,
        },
    );
    assert_eq!(r.status, LspEditStatus::Proposed, "{}", r.llm_content);
    assert_untouched(&env);
    let id = r.patch_id.unwrap();
    assert!(r.llm_content.contains(&id));
    let out = env
        .edits()
        .workflow()
        .apply_edit(&id, &lspedit_workflow::ApplyPlan::default());
    assert!(!out.is_error, "{}", out.llm_content);
    assert_eq!(
        env.read("b.ts"),
        "import { plus } from \"./a\";\nplus(1);\n"
    );
}

#[test]
fn a_command_action_applies_the_edit_the_server_sends_back() {
    let env = env(|root, s| {
        let a = format!("file://{}", root.join("a.ts").display());
        s.code_actions = Some(json!([
            { "title": "Resolve me", "kind": "quickfix" },
            { "title": "Run it", "command": { "title": "Run it", "command": "fake.apply" } },
        ]));
        let a2 = a.clone();
        s.resolve_edit = Some(json!({ "changes": { a2: [text_edit(1, 9, 10, "a + 1")] } }));
        s.command_edit = Some(json!({ "changes": { a: [text_edit(0, 0, 0, "// ran\n")] } }));
    });
    let list = env
        .edits()
        .code_actions("a.ts", &LineRef::Number(2))
        .unwrap();
    assert_eq!(list.actions.len(), 2, "{}", list.llm_content);
    assert!(list.actions[1].command_only);
    let r = env.edits().apply_code_action(
        "a.ts",
        &LineRef::Number(2),
        &ActionPick::Title("run".into()),
        EditOptions::default(),
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(env.asked("workspace/executeCommand"));
    assert!(env.read("a.ts").starts_with("// ran\nexport function add"));
    let r = env.edits().apply_code_action(
        "a.ts",
        &LineRef::Number(3),
        &ActionPick::Index(1),
        EditOptions::default(),
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert!(env.asked("codeAction/resolve"));
    assert!(
        env.read("a.ts").contains("return a + 1;"),
        "{}",
        env.read("a.ts")
    );
    let r = env.edits().apply_code_action(
        "a.ts",
        &LineRef::Number(1),
        &ActionPick::Index(9),
        EditOptions::default(),
    );
    assert_eq!(r.reason.map(|r| r.as_str()), Some("action_not_found"));
    assert!(r.llm_content.contains("1. Resolve me"), "{}", r.llm_content);
}

#[test]
fn utf8_positions_are_converted_as_negotiated() {
    let env = env(|root, s| {
        s.position_encoding = Some("utf-8".into());
        let a = format!("file://{}", root.join("a.ts").display());
        // `add` after `// é😀 ` on line 1: byte 10 in UTF-8 (it would be 7 in UTF-16).
        s.rename_edit = Some(json!({ "changes": { a: [text_edit(0, 10, 13, "plus")] } }));
    });
    std::fs::write(env.root.join("a.ts"), "// é😀 add\n").unwrap();
    let r = env.edits().rename_symbol(
        SymbolAt::new("a.ts", LineRef::Number(1), "add"),
        "plus",
        EditOptions::default(),
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(env.read("a.ts"), "// é😀 plus\n");
}

#[test]
fn references_outside_the_workspace_are_listed_without_lines() {
    let env = env(|root, s| {
        let loc = |uri: String, line: u32| json!({ "uri": uri, "range": { "start": { "line": line, "character": 9 }, "end": { "line": line, "character": 12 } } });
        s.locations = Some(json!([
            loc(format!("file://{}", root.join("b.ts").display()), 0),
            loc("file:///usr/lib/outside.d.ts".into(), 40),
            loc(format!("file://{}", root.join("a.ts").display()), 0),
        ]));
    });
    let refs = env
        .edits()
        .references(SymbolAt::new("b.ts", LineRef::Number(2), "add"), true)
        .unwrap();
    assert_eq!(refs.locations.len(), 3);
    assert_eq!(refs.with_context, 2);
    assert!(
        refs.llm_content
            .contains("/usr/lib/outside.d.ts:41:10 (outside the workspace)"),
        "{}",
        refs.llm_content
    );
    assert!(
        refs.llm_content
            .contains(&lspedit_engine::hashline(1, "import { add } from \"./a\";")),
        "{}",
        refs.llm_content
    );
}
