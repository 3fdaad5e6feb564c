//! The language-server pool as the tools' diagnostics provider.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_lsp::{
    BlockingPool, ChangedFile, Diagnostic, LspError, OtherFileDiagnostics, PoolConfig,
};

use crate::diagnostics::{CheckError, CheckReport, DiagnosticsProvider, FileText, OtherFile};

/// [`DiagnosticsProvider`] over a [`BlockingPool`]. Dropping it shuts the servers down.
#[derive(Debug)]
pub struct LspProvider {
    pool: BlockingPool,
    /// The servers' own times of the last check's files ([`LspProvider::last_server_times`]).
    server_times: std::sync::Mutex<Vec<Option<Duration>>>,
}

impl LspProvider {
    /// A pool for `root` with the bundled server configurations and the workspace's
    /// `.lspedit/config.toml` overrides.
    pub fn open(root: &Path) -> Result<LspProvider, LspError> {
        let config = PoolConfig::load(root)?;
        Ok(LspProvider::from_pool(BlockingPool::new(root, config)?))
    }

    /// [`LspProvider::open`] with the servers on the caller's tokio runtime (`handle`) instead
    /// of a runtime of the pool's own: for async programs, used through
    /// [`crate::AsyncTools`] (whose calls run on `spawn_blocking` threads).
    pub fn open_with_handle(
        root: &Path,
        handle: tokio::runtime::Handle,
    ) -> Result<LspProvider, LspError> {
        let config = PoolConfig::load(root)?;
        Ok(LspProvider::from_pool(BlockingPool::with_handle(
            root, config, handle,
        )?))
    }

    /// A provider over a pool built by the caller (tests, embedders with their own config).
    pub fn from_pool(pool: BlockingPool) -> LspProvider {
        LspProvider {
            pool,
            server_times: std::sync::Mutex::default(),
        }
    }

    /// Per file of the last check, in order, the server's own time from receiving the file's
    /// text to its answer (`None`: no answer). What a check adds to the server's time is the
    /// call's time minus the largest of these (the real-project benchmark's "difference").
    pub fn last_server_times(&self) -> Vec<Option<Duration>> {
        self.server_times
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    pub fn pool(&self) -> &BlockingPool {
        &self.pool
    }
}

impl DiagnosticsProvider for LspProvider {
    fn deadlines(&self) -> Option<crate::diagnostics::Deadlines> {
        let cfg = self.pool.pool().config();
        Some(crate::diagnostics::Deadlines {
            warm: cfg.check_timeout,
            cold: cfg.first_check_timeout,
        })
    }

    fn handles(&self, path: &Path) -> bool {
        self.pool.server_for(path).is_some()
    }

    fn is_warm(&self, path: &Path) -> bool {
        self.pool.is_warm(path)
    }

    fn check_files(&self, files: &[FileText], deadline: Instant) -> CheckReport {
        self.check_change(files, deadline, None)
    }

    fn check_change(
        &self,
        files: &[FileText],
        deadline: Instant,
        others_wait: Option<Duration>,
    ) -> CheckReport {
        let outcome = self.pool.check_change_within(
            files
                .iter()
                .map(|f| ChangedFile {
                    path: f.path.clone(),
                    text: f.text.clone(),
                    previous: f.previous.clone(),
                })
                .collect(),
            deadline,
            others_wait,
        );
        *self.server_times.lock().unwrap_or_else(|e| e.into_inner()) = outcome
            .files
            .iter()
            .map(|(_, r)| r.as_ref().ok().and_then(|fd| fd.server_time))
            .collect();
        CheckReport {
            files: outcome
                .files
                .into_iter()
                .map(|(_, r)| r.map(|fd| fd.diagnostics).map_err(check_error))
                .collect(),
            others: outcome.others.into_iter().map(other_file).collect(),
            others_pending: outcome.others_pending,
            others_unchecked: outcome.others_unchecked,
            others_bounded: outcome.others_bounded,
        }
    }

    fn take_late_others(&self, asked_before: Instant) -> Vec<OtherFile> {
        self.pool
            .take_late_others(asked_before)
            .into_iter()
            .map(other_file)
            .collect()
    }

    fn server_name(&self, path: &Path) -> Option<String> {
        self.pool.server_for(path).map(|s| s.id.clone())
    }

    fn touch(&self, path: &Path) {
        self.pool.touch(path);
    }

    fn take_late(&self) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        self.pool
            .take_late()
            .into_iter()
            .map(|fd| (fd.path, fd.diagnostics))
            .collect()
    }
}

fn other_file(o: OtherFileDiagnostics) -> OtherFile {
    OtherFile {
        path: o.path,
        before: o.before,
        after: o.after,
    }
}

/// The pool's error as the tools' status: a missing server is `NoServer`, a deadline
/// `TimedOut`, anything else `Failed` with the pool's message (kept for logs and the CLI, never
/// put in `llm_content`).
fn check_error(e: LspError) -> CheckError {
    match e {
        LspError::NoServer { .. } | LspError::CommandNotFound { .. } => CheckError::NoServer,
        LspError::Timeout { .. } => CheckError::TimedOut,
        // The embedder's mistake, not the server's: said in the log, where its author looks.
        e @ LspError::BlockedRuntime => {
            tracing::error!("{e}");
            CheckError::Failed {
                message: e.to_string(),
            }
        }
        LspError::Refused { reason, .. } => CheckError::Refused { reason },
        // Not "call again shortly": the cooldown is minutes.
        LspError::Broken {
            crashes, retry_in, ..
        } => CheckError::Refused {
            reason: format!(
                "it crashed {crashes} times in a row; lspedit starts it again in {} s",
                retry_in.as_secs().max(1)
            ),
        },
        other => CheckError::Failed {
            message: other.to_string(),
        },
    }
}
