//! LSP edits over real language servers on copies of `test-projects/`: renames across modules
//! (TypeScript, Python, Rust), quick fixes (TypeScript's missing import, rustc's suggested
//! import), references and definitions, each applied through the workflow with the report and
//! the diagnostics feedback. Skipped with a printed reason when a server is missing, unless
//! `LSPEDIT_REQUIRE_SERVERS=1`.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lspedit_fake_lsp::support::{copy_project, require_installed};
use lspedit_lsp::BlockingPool;
use lspedit_lsp_edits::{
    ActionPick, EditOptions, LineRef, LspEditProvider, LspEdits, LspEditsConfig, SymbolAt,
    SymbolMemory,
};
use lspedit_lsp_edits::{LspEditStatus, ServerFileOp};
use lspedit_tools::{DiagnosticsProvider, LspProvider, Tools, ToolsConfig};
use lspedit_workflow::{Workflow, WorkflowConfig};
use lspedit_write::Workspace;

/// The bundled config of `server` alone when it is installed; `None` (skip) otherwise.
fn require_server(server: &str) -> Option<lspedit_lsp::PoolConfig> {
    let cfg = lspedit_lsp::PoolConfig::bundled().unwrap().only(&[server]);
    let installed = cfg.resolve_command(cfg.server(server).unwrap()).is_some();
    require_installed(server, installed).then_some(cfg)
}

pub struct Real {
    pub dir: tempfile::TempDir,
    pub tools: Arc<Tools>,
    pub wf: Workflow,
    pub provider: Arc<LspProvider>,
    pub memory: SymbolMemory,
}

impl Real {
    pub fn edits(&self) -> LspEdits<'_> {
        LspEdits::new(
            &self.tools,
            &self.wf,
            Some(self.provider.pool() as &dyn LspEditProvider),
            LspEditsConfig {
                timeout: Duration::from_secs(120),
                ..LspEditsConfig::default()
            },
        )
        .remembering(&self.memory)
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }
}

/// The LSP edit tools over a copy of `project`, with `server` only.
pub fn open_real(server: &str, project: &str) -> Option<Real> {
    let cfg = require_server(server)?;
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../test-projects")
        .join(project);
    copy_project(&src, dir.path()).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let provider = Arc::new(LspProvider::from_pool(
        BlockingPool::new(&root, cfg).unwrap(),
    ));
    let mut tcfg = ToolsConfig::default();
    // Cold starts on a loaded 2-core machine (rust-analyzer's first cargo check) take long;
    // the tests are about correctness, the benchmarks measure speed.
    tcfg.diagnostics.timeout = Some(Duration::from_secs(60));
    tcfg.diagnostics.start_timeout = Some(Duration::from_secs(90));
    let tools = Arc::new(Tools::new(
        Workspace::open(&root).unwrap(),
        Some(provider.clone() as Arc<dyn DiagnosticsProvider>),
        tcfg,
    ));
    let wf = Workflow::open(tools.clone(), WorkflowConfig::unrestricted()).unwrap();
    Some(Real {
        dir,
        tools,
        wf,
        provider,
        memory: SymbolMemory::new(),
    })
}

/// The paths the server's edit names, and the files lspedit reports: the same set.
fn assert_report_agrees(ops: &[ServerFileOp], files: &[lspedit_workflow::FileApplyResult]) {
    let said: BTreeSet<&str> = ops
        .iter()
        .map(|op| match op {
            ServerFileOp::Edit { path, .. }
            | ServerFileOp::Create { path }
            | ServerFileOp::Delete { path } => path.as_str(),
            ServerFileOp::Rename { from, .. } => from.as_str(),
        })
        .collect();
    let done: BTreeSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(said, done, "the server's edit and the report disagree");
    assert!(files.iter().all(|f| f.applied), "{files:?}");
}

fn rename_case(server: &str, project: &str, file: &str, line: usize, other: &str, new: &str) {
    let Some(env) = open_real(server, project) else {
        return;
    };
    let at = SymbolAt::new(file, LineRef::Number(line), "add");
    let r = env.edits().rename_symbol(&at, new, EditOptions::default());
    eprintln!("{server}: {}", r.llm_content);
    assert!(!r.is_error, "{server}: {}", r.llm_content);
    assert_eq!(r.status, LspEditStatus::Applied);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{server}: the rename broke something:\n{}",
        r.llm_content
    );
    assert_report_agrees(&r.server_edit, &r.files);
    for f in [file, other] {
        let text = env.read(f);
        assert!(
            text.contains(new) && !text.contains("add("),
            "{server}: {f} not renamed:\n{text}"
        );
    }
    // The report carries fresh anchors of the changed lines.
    assert!(
        r.llm_content.contains(&format!("{other} lines ")),
        "{}",
        r.llm_content
    );
    assert!(r.checkpoint_id.is_some());
    // Every change is reported with its diagnostics status.
    assert!(!r.diagnostics.is_empty(), "{server}: no diagnostics status");
}

#[test]
fn tsc7_rename_of_an_exported_function_updates_the_importer() {
    rename_case("tsc7", "ts-basic", "src/util.ts", 1, "src/index.ts", "sum");
}

#[test]
fn typescript_language_server_rename_updates_the_importer() {
    rename_case(
        "typescript-language-server",
        "ts-basic",
        "src/util.ts",
        1,
        "src/index.ts",
        "sum",
    );
}

#[test]
fn pyright_rename_updates_the_importing_module() {
    rename_case(
        "pyright",
        "python-basic",
        "app/main.py",
        1,
        "app/report.py",
        "plus",
    );
}

#[test]
fn rust_analyzer_rename_across_modules() {
    rename_case(
        "rust-analyzer",
        "rust-basic",
        "src/lib.rs",
        3,
        "src/twice.rs",
        "plus",
    );
}

#[test]
fn tsc7_rename_preview_is_a_proposal_and_writes_nothing() {
    let Some(env) = open_real("tsc7", "ts-basic") else {
        return;
    };
    let before = env.read("src/index.ts");
    let at = SymbolAt::new("src/util.ts", LineRef::Number(1), "add");
    let r = env.edits().rename_symbol(
        &at,
        "sum",
        EditOptions {
            preview: true,
            ..EditOptions::default()
        },
    );
    assert!(!r.is_error, "{}", r.llm_content);
    assert_eq!(r.status, LspEditStatus::Proposed);
    assert_eq!(env.read("src/index.ts"), before);
    let id = r.patch_id.unwrap();
    assert!(r.diff.contains("+import { sum, greet }"), "{}", r.diff);
    let out = env
        .edits()
        .workflow()
        .apply_edit(&id, &lspedit_workflow::ApplyPlan::default());
    assert!(!out.is_error, "{}", out.llm_content);
    assert!(env.read("src/util.ts").contains("function sum("));
}

#[test]
fn tsc7_references_and_definition_as_hashline_excerpts() {
    let Some(env) = open_real("tsc7", "ts-basic") else {
        return;
    };
    let at = SymbolAt::new("src/index.ts", LineRef::Number(3), "add");
    let refs = env.edits().references(&at, true).unwrap();
    eprintln!("{}", refs.llm_content);
    let files: BTreeSet<&str> = refs.locations.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(
        files,
        BTreeSet::from(["src/index.ts", "src/util.ts"]),
        "{}",
        refs.llm_content
    );
    // Each location's line with its anchor, ready for a patch.
    let anchored = lspedit_engine::hashline(3, "const total: number = add(1, 2);");
    assert!(refs.llm_content.contains(&anchored), "{}", refs.llm_content);
    let def = env.edits().definition(&at).unwrap();
    assert_eq!(def.locations.len(), 1, "{}", def.llm_content);
    assert_eq!(def.locations[0].path, "src/util.ts");
    assert_eq!(def.locations[0].line, 1);
    assert!(
        def.llm_content.contains(&lspedit_engine::hashline(
            1,
            "export function add(a: number, b: number): number {"
        )),
        "{}",
        def.llm_content
    );
}

fn quick_fix_case(server: &str, project: &str, file: &str, broken: &str, line: usize) {
    let Some(env) = open_real(server, project) else {
        return;
    };
    std::fs::write(env.dir.path().join(file), broken).unwrap();
    let list = env
        .edits()
        .code_actions(file, &LineRef::Number(line))
        .unwrap();
    eprintln!("{server}: {}", list.llm_content);
    let import = list
        .actions
        .iter()
        .find(|a| a.title.to_lowercase().contains("import"))
        .unwrap_or_else(|| panic!("{server}: no import fix:\n{}", list.llm_content));
    let r = env.edits().apply_code_action(
        file,
        &LineRef::Number(line),
        &ActionPick::Index(import.index),
        EditOptions::default(),
    );
    eprintln!("{server}: {}", r.llm_content);
    assert!(!r.is_error, "{server}: {}", r.llm_content);
    assert_report_agrees(&r.server_edit, &r.files);
    assert!(
        !r.llm_content.contains("LSP errors"),
        "{server}: the fix left errors:\n{}",
        r.llm_content
    );
    let text = env.read(file);
    assert!(text.contains("import") || text.contains("use "), "{text}");
}

#[test]
fn tsc7_quick_fix_adds_the_missing_import() {
    quick_fix_case(
        "tsc7",
        "ts-basic",
        "src/index.ts",
        "import { greet } from \"./util\";\n\nconst total: number = add(1, 2);\nconst message: string = greet(\"world\");\n\nexport { total, message };\n",
        3,
    );
}

#[test]
fn typescript_language_server_quick_fix_adds_the_missing_import() {
    quick_fix_case(
        "typescript-language-server",
        "ts-basic",
        "src/index.ts",
        "import { greet } from \"./util\";\n\nconst total: number = add(1, 2);\nconst message: string = greet(\"world\");\n\nexport { total, message };\n",
        3,
    );
}

#[test]
fn rust_analyzer_quick_fix_imports_the_function() {
    quick_fix_case(
        "rust-analyzer",
        "rust-basic",
        "src/twice.rs",
        "//! A second module that calls the first.\n\npub fn twice(x: i32) -> i32 {\n    add(x, x)\n}\n",
        4,
    );
}
