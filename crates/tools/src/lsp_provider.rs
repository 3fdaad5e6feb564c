//! The language-server pool as the tools' diagnostics provider.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_lsp::{
    BlockingPool, ChangedFile, CheckError, CheckReport, Diagnostic, LspError, OtherFileDiagnostics,
    OthersWait, PoolConfig,
};

use crate::diagnostics::DiagnosticsProvider;

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

    fn check_files(&self, files: &[ChangedFile], deadline: Instant) -> CheckReport {
        self.check_change(files, deadline, OthersWait::UntilDeadline)
    }

    fn check_change(
        &self,
        files: &[ChangedFile],
        deadline: Instant,
        others_wait: OthersWait,
    ) -> CheckReport {
        // The texts are shared: this copies paths and counts references, not the texts.
        let outcome = self
            .pool
            .check_change_within(files.to_vec(), deadline, others_wait);
        *self.server_times.lock().unwrap_or_else(|e| e.into_inner()) = outcome
            .files
            .iter()
            .map(|(_, r)| r.as_ref().ok().and_then(|fd| fd.server_time))
            .collect();
        outcome.map_files(|(_, r)| r.map(|fd| fd.diagnostics).map_err(CheckError::from))
    }

    fn take_late_others(&self, asked_before: Instant) -> Vec<OtherFileDiagnostics> {
        self.pool.take_late_others(asked_before)
    }

    fn take_outdated_others(&self) -> Vec<OtherFileDiagnostics> {
        self.pool.take_outdated_others()
    }

    fn server_name(&self, path: &Path) -> Option<String> {
        self.pool.server_for(path).map(|s| s.id.clone())
    }

    fn missing_server(&self, path: &Path) -> Option<crate::diagnostics::MissingServer> {
        let config = self.pool.pool().config();
        let server = config.server_for(path)?;
        if config.resolve_command(server).is_some() {
            return None;
        }
        Some(crate::diagnostics::MissingServer {
            language: server.language_for(path)?.to_string(),
            server: server.id.clone(),
        })
    }

    fn touch(&self, path: &Path) {
        self.pool.touch(path);
    }

    fn take_late(&self, asked_before: Instant) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        self.pool
            .take_late(asked_before)
            .into_iter()
            .map(|fd| (fd.path, fd.diagnostics))
            .collect()
    }
}
