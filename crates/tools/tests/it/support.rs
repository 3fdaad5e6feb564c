//! Test support: temp workspaces and a scripted in-process diagnostics provider.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use lspedit_tools::diagnostics::{
    ChangedFile, CheckError, CheckReport, Diagnostic, DiagnosticsProvider, OtherFileDiagnostics,
    Severity,
};
use lspedit_tools::{Tools, ToolsConfig};
use lspedit_write::Workspace;

pub fn diag(
    line: u32,
    col: u32,
    severity: Severity,
    message: &str,
    code: Option<&str>,
) -> Diagnostic {
    Diagnostic {
        line,
        column: col,
        end_line: line,
        end_column: col + 1,
        severity,
        code: code.map(str::to_string),
        message: message.to_string(),
        source: Some("typescript".to_string()),
    }
}

/// How the mock answers `check`.
#[derive(Clone)]
pub enum Answer {
    /// Diagnostics computed from the checked text.
    With(Arc<dyn Fn(&Path, &str) -> Vec<Diagnostic> + Send + Sync>),
    Fail(String),
    Panic,
    /// A server that never answers, behind a provider that keeps its contract: the call
    /// returns `TimedOut` at its deadline (fault injection; the real pool's bound is tested
    /// with the fake server in pool_fake.rs).
    Hang,
}

pub struct Mock {
    pub answer: Answer,
    pub handles_ext: Vec<&'static str>,
    pub checks: AtomicUsize,
    pub touches: AtomicUsize,
    pub checked_paths: Mutex<Vec<PathBuf>>,
    /// The thread each `check_files` call ran on.
    pub checked_on: Mutex<Vec<std::thread::ThreadId>>,
    pub others: Vec<(PathBuf, Vec<Diagnostic>)>,
}

impl Mock {
    pub fn new(answer: Answer) -> Arc<Mock> {
        Arc::new(Mock {
            answer,
            handles_ext: vec!["ts", "rs"],
            checks: AtomicUsize::new(0),
            touches: AtomicUsize::new(0),
            checked_paths: Mutex::new(Vec::new()),
            checked_on: Mutex::new(Vec::new()),
            others: Vec::new(),
        })
    }

    pub fn with(f: impl Fn(&Path, &str) -> Vec<Diagnostic> + Send + Sync + 'static) -> Arc<Mock> {
        Mock::new(Answer::With(Arc::new(f)))
    }

    pub fn checks(&self) -> usize {
        self.checks.load(Ordering::SeqCst)
    }
}

impl DiagnosticsProvider for Mock {
    fn handles(&self, path: &Path) -> bool {
        path.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| self.handles_ext.contains(&e))
    }
    fn is_warm(&self, _path: &Path) -> bool {
        true
    }
    fn check_files(&self, files: &[ChangedFile], deadline: Instant) -> CheckReport {
        let mut report = CheckReport::default();
        self.checked_on
            .lock()
            .unwrap()
            .push(std::thread::current().id());
        for f in files {
            self.checks.fetch_add(1, Ordering::SeqCst);
            self.checked_paths.lock().unwrap().push(f.path.clone());
            report.files.push(match &self.answer {
                Answer::With(g) => Ok(g(&f.path, &f.text)),
                Answer::Fail(msg) => Err(CheckError::Failed {
                    message: msg.clone(),
                }),
                Answer::Panic => panic!("provider exploded"),
                Answer::Hang => {
                    let never = (Mutex::new(()), std::sync::Condvar::new());
                    let guard = never.0.lock().unwrap();
                    let wait = deadline.saturating_duration_since(Instant::now());
                    drop(never.1.wait_timeout_while(guard, wait, |_| true).unwrap());
                    Err(CheckError::TimedOut)
                }
            });
        }
        // Other files: nothing before this change, so every error counts as caused by it.
        report.others = self
            .others
            .iter()
            .map(|(path, after)| OtherFileDiagnostics {
                path: path.clone(),
                server: "mock".to_string(),
                before: Vec::new(),
                after: after.clone(),
            })
            .collect();
        report
    }
    fn touch(&self, _path: &Path) {
        self.touches.fetch_add(1, Ordering::SeqCst);
    }
}

pub struct Env {
    pub dir: tempfile::TempDir,
    pub tools: Tools,
}

impl Env {
    pub fn root(&self) -> &Path {
        self.dir.path()
    }
    pub fn write(&self, rel: &str, content: &str) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).unwrap()
    }
}

pub fn env(provider: Option<Arc<Mock>>, config: ToolsConfig) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    let provider = provider.map(|p| p as Arc<dyn DiagnosticsProvider>);
    Env {
        tools: Tools::new(ws, provider, config),
        dir,
    }
}

/// Errors for every line of the checked text containing `BAD`.
pub fn bad_lines(_p: &Path, text: &str) -> Vec<Diagnostic> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains("BAD"))
        .map(|(i, _)| {
            diag(
                i as u32 + 1,
                1,
                Severity::Error,
                "Type 'string' is not assignable to type 'number'.",
                Some("2322"),
            )
        })
        .collect()
}
