//! The wait for a file's verdict past its caller's deadline ([`VerdictWait`]).
//!
//! Invariant: a check ends at its caller's (quiet) deadline unless its server showed activity
//! since the last look: a notification of any kind (a `$/progress` begin or report, a log line,
//! a publish) or CPU time of its processes ([`computed_meanwhile`]). A server that started
//! since the previous look counts only what it said since (its start took CPU time whether it
//! then works or hangs); one still starting at the deadline has shown nothing yet (a hung
//! `initialize` is not work): its check times out. While it does, the wait goes on, looking again every [`LOOK_EVERY`], up to the
//! limit [`Pool::verdict_limit`] sets: the server's `[diagnostics] verdict_cap_ms` when the
//! call may wait for it, the caller's deadline otherwise. An idle, silent server meets the
//! deadline: its file is "pending", as before.

use std::path::Path;
use std::time::{Duration, Instant};

use lspedit_servers::{VerdictWait, VerdictWaiting};
use tokio::sync::oneshot;

use crate::pool::{Pool, ServerKey, computed_meanwhile};
use crate::server::Server;
use crate::{FileDiagnostics, LspError};

/// How often a wait past the deadline looks at the server again. Long enough that a server
/// between two phases of its work (rust-analyzer between loading and `cargo check`) or starved
/// on a loaded machine still shows a sign of work within it.
pub(crate) const LOOK_EVERY: Duration = Duration::from_secs(2);

/// At most one [`VerdictWaiting`] report per file this often.
const REPORT_EVERY: Duration = Duration::from_secs(5);

/// What a server had done by `at`: compared with a later look, whether it worked meanwhile.
#[derive(Debug, Clone)]
pub(crate) struct Activity {
    /// Notifications heard so far; `None`: no server running.
    heard: Option<u64>,
    /// CPU ticks of its process group so far.
    cpu: Option<u64>,
    doing: Option<String>,
    at: Instant,
}

impl Activity {
    pub(crate) fn of(server: Option<&Server>) -> Activity {
        let (heard, doing, cpu) = match server {
            Some(s) => {
                let (heard, doing) = s.heard();
                (
                    Some(heard),
                    doing,
                    lspedit_process::group_cpu_ticks(s.pgid()),
                )
            }
            None => (None, None, None),
        };
        Activity {
            heard,
            cpu,
            doing,
            at: Instant::now(),
        }
    }

    /// Whether the server worked between `earlier` and this look.
    fn worked_since(&self, earlier: &Activity) -> bool {
        match (earlier.heard, self.heard) {
            // Started meanwhile: worked if it said anything since (its start alone is not work,
            // nor the CPU time it took: a server hung after `initialize` did that much too).
            (None, Some(b)) => return b > 0,
            (Some(a), Some(b)) if a != b => return true,
            _ => {}
        }
        match (earlier.cpu, self.cpu) {
            (Some(a), Some(b)) => {
                computed_meanwhile(b.saturating_sub(a), self.at.duration_since(earlier.at))
            }
            _ => false,
        }
    }
}

impl Pool {
    /// The latest a check of `key` asked for with `deadline` may wait for a verdict while the
    /// server works (see the module): the caller's deadline, or the server's cap counted from
    /// `asked`, as [`lspedit_servers::PoolConfig::verdict_wait`] says; `warm`: the server had
    /// answered a check when the call began.
    pub(crate) fn verdict_limit(
        &self,
        key: &ServerKey,
        deadline: Instant,
        asked: Instant,
        warm: bool,
    ) -> Instant {
        let config = self.config();
        let extends = match config.verdict_wait {
            VerdictWait::Cap => true,
            VerdictWait::Cold => !warm,
            VerdictWait::Deadline => false,
        };
        if !extends {
            return deadline;
        }
        let cap = config
            .servers
            .iter()
            .find(|s| s.id == key.server)
            .map_or(lspedit_servers::config::DEFAULT_VERDICT_CAP_MS, |s| {
                s.diagnostics.verdict_cap_ms
            });
        deadline.max(asked + Duration::from_millis(cap))
    }

    /// The latest a check asked now with `deadline` may return: `deadline`, or past it the
    /// largest verdict cap of the configured servers when checks may wait for one. A bound
    /// for a caller that waits on another thread ([`crate::BlockingPool`]); the pool itself
    /// bounds each file's wait by its per-server limit (`Pool::verdict_limit`).
    pub fn verdict_bound(&self, deadline: Instant) -> Instant {
        let config = self.config();
        if config.verdict_wait == VerdictWait::Deadline {
            return deadline;
        }
        let cap = config
            .servers
            .iter()
            .map(|s| s.diagnostics.verdict_cap_ms)
            .max()
            .unwrap_or(0)
            .max(lspedit_servers::config::DEFAULT_VERDICT_CAP_MS);
        deadline.max(Instant::now() + Duration::from_millis(cap))
    }

    /// Waits for `rx`, the verdict on `path` from `key`'s server, until `deadline`, then on
    /// while the server works, up to `limit` (see the module). `waiting_since`: when the
    /// caller began to wait, what a timeout reports as waited.
    pub(crate) async fn wait_verdict(
        &self,
        key: &ServerKey,
        path: &Path,
        mut rx: oneshot::Receiver<Result<FileDiagnostics, LspError>>,
        deadline: Instant,
        limit: Instant,
        waiting_since: Instant,
    ) -> Result<FileDiagnostics, LspError> {
        let timeout = |stage| LspError::Timeout {
            server: key.server.clone(),
            stage,
            waited: waiting_since.elapsed(),
        };
        // Taken when the caller begins to wait: the first look, at the deadline, asks whether
        // the server worked at all during the call.
        let mut last = (limit > deadline).then(|| self.activity(key));
        let mut until = deadline;
        let mut reported: Option<Instant> = None;
        loop {
            match tokio::time::timeout_at(until.into(), &mut rx).await {
                Ok(Ok(r)) => return r,
                Ok(Err(_)) => return Err(LspError::PoolClosed),
                Err(_) => {}
            }
            // No look taken: the caller's deadline is the limit.
            let Some(earlier) = &last else {
                return Err(timeout("waiting for the settled result"));
            };
            if Instant::now() >= limit {
                return Err(timeout(
                    "waiting for the settled result, up to the server's verdict cap",
                ));
            }
            let now = self.activity(key);
            if !now.worked_since(earlier) {
                return Err(timeout(
                    "waiting for the settled result; the server is idle",
                ));
            }
            if reported.is_none_or(|at| at.elapsed() >= REPORT_EVERY)
                && let Some(progress) = &self.config().verdict_progress
            {
                reported = Some(Instant::now());
                (progress.0)(&VerdictWaiting {
                    server: key.server.clone(),
                    path: path.to_owned(),
                    doing: now.doing.clone(),
                    waited: waiting_since.elapsed(),
                });
            }
            last = Some(now);
            until = (Instant::now() + LOOK_EVERY).min(limit);
        }
    }
}
