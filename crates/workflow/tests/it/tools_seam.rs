//! What the workflow reaches of the agent tools, seen through a wrapper of `WorkflowTools`: the
//! lock of every file it commits, the bytes it wrote (the read guard) and the files whose
//! diagnostics it reports, all taken from the tools it was given, so their lock table and read
//! guard stay the ones the agent tools use.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lspedit_engine::ApplyOptions;
use lspedit_tools::{DiagnosticsFeedback, Tools, ToolsConfig, WrittenFile};
use lspedit_workflow::{ApplyPlan, ProposeRequest, Workflow, WorkflowConfig, WorkflowTools};
use lspedit_write::Workspace;

struct Watching {
    tools: Tools,
    locked: Mutex<Vec<PathBuf>>,
    remembered: Mutex<Vec<PathBuf>>,
    reported: Mutex<Vec<String>>,
}

impl WorkflowTools for Watching {
    fn workspace(&self) -> &Workspace {
        self.tools.workspace()
    }

    fn engine(&self) -> &ApplyOptions {
        WorkflowTools::engine(&self.tools)
    }

    fn file_lock(&self, abs: &Path) -> Arc<Mutex<()>> {
        self.locked.lock().unwrap().push(abs.to_path_buf());
        self.tools.file_lock(abs)
    }

    fn remember(&self, abs: &Path, bytes: &[u8]) {
        self.remembered.lock().unwrap().push(abs.to_path_buf());
        self.tools.remember(abs, bytes);
    }

    fn written_feedback(&self, written: &[WrittenFile]) -> DiagnosticsFeedback {
        let mut reported = self.reported.lock().unwrap();
        reported.extend(written.iter().map(|w| w.path.clone()));
        self.tools.written_feedback(written)
    }
}

#[test]
fn an_apply_locks_remembers_and_reports_through_the_tools_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "one\ntwo\n").unwrap();
    std::fs::write(dir.path().join("b.txt"), "untouched\n").unwrap();
    let watching = Arc::new(Watching {
        tools: Tools::new(
            Workspace::open(dir.path()).unwrap(),
            None,
            ToolsConfig::default(),
        ),
        locked: Mutex::new(Vec::new()),
        remembered: Mutex::new(Vec::new()),
        reported: Mutex::new(Vec::new()),
    });
    let cfg = WorkflowConfig {
        event_log: false,
        ..WorkflowConfig::unrestricted()
    };
    let wf = Workflow::open(watching.clone(), cfg).unwrap();
    let patch = "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+three\n";
    let p = wf.propose_edit(&ProposeRequest::patch(patch)).unwrap();
    let out = wf.apply_edit(&p.patch_id, &ApplyPlan::default());
    assert!(!out.is_error, "{}", out.llm_content);

    let a = watching.tools.workspace().root().join("a.txt");
    assert_eq!(*watching.locked.lock().unwrap(), std::slice::from_ref(&a));
    assert_eq!(*watching.remembered.lock().unwrap(), [a]);
    assert_eq!(*watching.reported.lock().unwrap(), ["a.txt"]);
}
