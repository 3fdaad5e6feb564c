//! The language-server pool as the tools' diagnostics provider.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lspedit_lsp::{BlockingPool, Diagnostic, LspError, PoolConfig};

use crate::diagnostics::DiagnosticsProvider;

/// [`DiagnosticsProvider`] over a [`BlockingPool`]. Dropping it shuts the servers down.
#[derive(Debug)]
pub struct LspProvider {
    pool: BlockingPool,
}

impl LspProvider {
    /// A pool for `root` with the bundled server configurations and the workspace's
    /// `.lspedit/config.toml` overrides.
    pub fn open(root: &Path) -> Result<LspProvider, LspError> {
        let config = PoolConfig::load(root)?;
        Ok(LspProvider {
            pool: BlockingPool::new(root, config)?,
        })
    }

    /// A provider over a pool built by the caller (tests, embedders with their own config).
    pub fn from_pool(pool: BlockingPool) -> LspProvider {
        LspProvider { pool }
    }

    pub fn pool(&self) -> &BlockingPool {
        &self.pool
    }
}

impl DiagnosticsProvider for LspProvider {
    fn handles(&self, path: &Path) -> bool {
        self.pool.server_for(path).is_some()
    }

    fn is_warm(&self, path: &Path) -> bool {
        self.pool.is_alive(path)
    }

    fn check(&self, path: &Path, text: &str, timeout: Duration) -> Result<Vec<Diagnostic>, String> {
        self.pool
            .check_file(path, text, Instant::now() + timeout)
            .map(|r| r.diagnostics)
            .map_err(|e| e.to_string())
    }

    fn touch(&self, path: &Path) {
        self.pool.touch(path);
    }

    fn other_files(&self, except: &Path) -> Vec<(PathBuf, Vec<Diagnostic>)> {
        self.pool
            .published()
            .into_iter()
            .filter(|(p, _)| p != except)
            .collect()
    }
}
