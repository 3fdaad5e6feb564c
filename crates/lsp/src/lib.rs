//! lspedit-lsp: the pool of language servers that reports a file's diagnostics right after a
//! write. Knows nothing of patches.
//!
//! - [`Pool`] (async) and [`BlockingPool`] (for synchronous callers) own one server process per
//!   (server id, project root), started lazily and de-duplicated.
//! - [`Pool::check_file`] sends the file's new text (`didOpen` once, then full-text
//!   `didChange` with increasing versions, `didSave` where the server checks on save) and waits
//!   until the result for *that* text is settled, per the server's [`Strategy`]. It never
//!   returns diagnostics older than the text it was given.
//! - Which servers exist and how each may start is the policy crate's, `lspedit-servers`:
//!   servers are declared in `lsp-configs/*.toml` (embedded) and overridden by the person's
//!   config and per workspace in `.lspedit/config.toml` ([`PoolConfig::load`]); a workspace
//!   file chooses no program to run unless the person trusted it ([`lspedit_servers::trust`]);
//!   [`lspedit_servers::install`] installs the pinned servers and tells whether each configured
//!   one can be used (`lspedit servers install|status`). Every server process is started by
//!   `lspedit-process` ([`lspedit_process::spawn`]).
//!
//! Positions in [`Diagnostic`] are 1-based (line, and column in Unicode scalar values).
//!
//! Beyond diagnostics, [`Pool::rename`], [`Pool::code_actions`] / [`Pool::code_action_edit`],
//! [`Pool::references`] and [`Pool::definition`] (`requests.rs`) take a byte offset of the
//! caller's text and return LSP-level data ([`lsp_types::WorkspaceEdit`], `CodeAction`,
//! `Location`) with the server's negotiated [`PositionEncoding`]; an edit is returned, never
//! applied (a server's `workspace/applyEdit` is collected, not carried out). By symbol
//! (`symbols.rs`): [`Pool::document_symbols`] (a [`Symbol`] tree), [`Pool::workspace_symbols`],
//! [`Pool::hover`], [`Pool::prepare_call_hierarchy`] with [`Pool::incoming_calls`] /
//! [`Pool::outgoing_calls`], [`Pool::implementations`] and [`Pool::type_definition`].
//!
//! Write the file to disk *before* calling `check_file`: servers that check on save
//! (rust-analyzer runs `cargo check`) read the disk, not the text sent. Deadlines: callers
//! should use [`PoolConfig::check_timeout`] after a write, [`PoolConfig::first_check_timeout`]
//! when [`Pool::is_warm`] is false (a server is warm once it has answered a check, not when its
//! process is up). The deadline is the quiet one: past it, a check whose server is visibly
//! working on it (a `$/progress`, any notification, CPU time) waits on up to the server's
//! `[diagnostics] verdict_cap_ms`, as [`PoolConfig::verdict_wait`] says (by default only a cold
//! server's); an idle, silent server meets the deadline. When the wait ends without a verdict
//! the call fails with [`LspError::Timeout`], the check goes
//! on in the background and its answer is kept for [`Pool::take_late`], which hands it out
//! only while the file still has the text it was computed on (never an error the current text
//! does not have) and never to the call that asked for it.
//!
//! A change touching several files goes through [`Pool::check_files`]: all texts are sent
//! before any file is checked, under one deadline for the whole call. Any change of a text (or
//! of a file on disk: the pool's file watcher over the roots of running servers, and a stat
//! check of open documents on every call) invalidates every cached result of that server root.
//! The watcher also tells the servers (`workspace/didChangeWatchedFiles`, open documents
//! re-sent); [`Pool::disk_batches`] / [`Pool::wait_disk_batch`] say when a batch has reached
//! them.
//!
//! ```no_run
//! use std::time::{Duration, Instant};
//! use lspedit_lsp::{BlockingPool, PoolConfig};
//!
//! # fn main() -> Result<(), lspedit_lsp::LspError> {
//! let root = std::path::Path::new("/path/to/workspace");
//! let pool = BlockingPool::new(root, PoolConfig::load(root)?)?;
//! let path = root.join("src/main.ts");
//! if pool.server_for(&path).is_some() {
//!     let text = std::fs::read_to_string(&path).unwrap_or_default();
//!     let deadline = Instant::now() + Duration::from_secs(10);
//!     let result = pool.check_file(&path, &text, deadline)?;
//!     for d in result.errors() {
//!         eprintln!("[{}:{}] {} {:?}", d.line, d.column, d.message, d.code);
//!     }
//! }
//! pool.shutdown();
//! # Ok(()) }
//! ```

mod diagnostics;
mod error;
pub mod host;
mod importers;
mod likely;
mod pool;
mod position;
mod requests;
mod root;
mod server;
mod symbols;
mod transport;
mod tsserver;
mod verdict;
mod watcher;

use std::future::Future;
use std::path::Path;
use std::time::Instant;

/// The LSP types the requests beyond diagnostics return ([`Pool::rename`],
/// [`Pool::code_actions`], [`Pool::references`], …): `WorkspaceEdit`, `CodeAction`, `Location`.
pub use async_lsp::lsp_types;
pub use diagnostics::{
    CheckError, CheckOutcome, CheckReport, Diagnostic, FileDiagnostics, OtherFileDiagnostics,
};
pub use error::LspError;
/// What the pool is configured with, from the policy crate (`lspedit-servers`): an embedder
/// builds a [`Pool`] from a [`PoolConfig`] and reads [`Severity`] in every [`Diagnostic`].
pub use lspedit_servers::{
    DiagnosticsConfig, HostConfig, InstallRecipe, PolicyLayer, PoolConfig, ServerConfig, Severity,
    SeverityOverride, SeverityOverrides, Strategy, VerdictProgress, VerdictWait, VerdictWaiting,
};
pub use pool::{ChangedFile, OthersWait, Pool, ServerKey, ServerState, ServerStatus};
pub use position::PositionEncoding;
pub use requests::{CodeActions, Locations, ServerEdit};
pub use root::detect_root;
pub use symbols::{
    Call, CallItem, CallItems, Calls, HoverText, Symbol, SymbolMatch, Symbols, WorkspaceSymbols,
};

/// How long past its deadline [`BlockingPool::check_change`] waits for the pool's own
/// deadline handling before it drops the check.
pub const CHECK_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// How long past its bound a blocking call still waits for the pool's answer. The pool's own
/// deadlines decide every answer; this only ends a wait whose future cannot run at all (a
/// runtime whose threads are all blocked), so it is well past them: on a loaded machine the
/// pool's own timeout may fire late, and its answer (with what it started) must still arrive.
const WAIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// A [`Pool`] with its own tokio runtime, for synchronous callers (the tools crate).
///
/// Every method may be called from any thread, including from inside another runtime's
/// `spawn_blocking`. Dropping it shuts the servers down (bounded by the shutdown grace) and
/// leaves no process behind.
pub struct BlockingPool {
    pool: Pool,
    rt: Option<Rt>,
}

/// Where a [`BlockingPool`]'s futures run: a runtime of its own, or the caller's.
enum Rt {
    Owned(tokio::runtime::Runtime),
    Shared(tokio::runtime::Handle),
}

impl Rt {
    fn handle(&self) -> &tokio::runtime::Handle {
        match self {
            Rt::Owned(rt) => rt.handle(),
            Rt::Shared(h) => h,
        }
    }
}

impl std::fmt::Debug for BlockingPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlockingPool")
            .field("pool", &self.pool)
            .finish_non_exhaustive()
    }
}

impl BlockingPool {
    /// A pool for `workspace_root` with a two-thread runtime of its own.
    pub fn new(workspace_root: impl AsRef<Path>, config: PoolConfig) -> Result<Self, LspError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("lspedit-lsp")
            .enable_all()
            .build()
            .map_err(|e| LspError::Runtime {
                message: e.to_string(),
            })?;
        Ok(Self {
            pool: Pool::new(workspace_root, config)?,
            rt: Some(Rt::Owned(rt)),
        })
    }

    /// A pool for `workspace_root` whose servers run on the caller's runtime (`handle`): one
    /// runtime per process. Its blocking methods must then be called from a thread that is not
    /// one of that runtime's workers (a `spawn_blocking` thread, as [`Pool`]'s sync callers in
    /// an async program use); the async [`Pool`] inside ([`BlockingPool::pool`]) may be awaited
    /// anywhere.
    pub fn with_handle(
        workspace_root: impl AsRef<Path>,
        config: PoolConfig,
        handle: tokio::runtime::Handle,
    ) -> Result<Self, LspError> {
        Ok(Self {
            pool: Pool::new(workspace_root, config)?,
            rt: Some(Rt::Shared(handle)),
        })
    }

    /// The async pool inside (shares state with this one).
    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    /// See [`Pool::check_file`].
    pub fn check_file(
        &self,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Result<FileDiagnostics, LspError> {
        let pool = self.pool.clone();
        let path = path.to_owned();
        let text = text.to_owned();
        let bound = self.pool.verdict_bound(deadline);
        self.run(bound + CHECK_GRACE, "check", async move {
            pool.check_file(&path, &text, deadline).await
        })
        .and_then(|r| r)
    }

    /// See [`Pool::check_files`]: every file of one change, one settled pass, one deadline.
    pub fn check_files(
        &self,
        files: Vec<(std::path::PathBuf, String)>,
        deadline: Instant,
    ) -> CheckOutcome {
        self.check_change(files.into_iter().map(ChangedFile::from).collect(), deadline)
    }

    /// See [`Pool::check_change`].
    ///
    /// The pool bounds every wait by `deadline`, past it by the server's verdict cap while the
    /// server works ([`PoolConfig::verdict_wait`]); as a last bound, a check still running
    /// [`CHECK_GRACE`] after it is dropped (which cancels its requests) and every file is
    /// `Timeout`. The caller waits on its own thread: no thread per call.
    pub fn check_change(&self, files: Vec<ChangedFile>, deadline: Instant) -> CheckOutcome {
        self.check_change_within(files, deadline, OthersWait::UntilDeadline)
    }

    /// See [`Pool::check_change_within`]; bounded as [`BlockingPool::check_change`].
    pub fn check_change_within(
        &self,
        files: Vec<ChangedFile>,
        deadline: Instant,
        others_wait: OthersWait,
    ) -> CheckOutcome {
        let pool = self.pool.clone();
        let paths: Vec<std::path::PathBuf> = files.iter().map(|f| f.path.clone()).collect();
        let started = Instant::now();
        // Past `deadline` a working server's verdict may be waited for (`Pool::verdict_bound`).
        let hard = self.pool.verdict_bound(deadline) + CHECK_GRACE;
        let bound = tokio::time::Instant::from_std(hard);
        // `Ok(None)`: the check outlived its bound.
        let answer = self.run(hard, "check", async move {
            tokio::time::timeout_at(
                bound,
                pool.check_change_within(files, deadline, others_wait),
            )
            .await
            .ok()
        });
        let error = match answer {
            Ok(Some(outcome)) => return outcome,
            Ok(None) => LspError::Timeout {
                server: "pool".to_string(),
                stage: "check",
                waited: started.elapsed(),
            },
            Err(e) => e,
        };
        CheckOutcome {
            files: paths.into_iter().map(|p| (p, Err(error.clone()))).collect(),
            ..CheckOutcome::default()
        }
    }

    /// See [`Pool::take_late`].
    pub fn take_late(&self, asked_before: Instant) -> Vec<FileDiagnostics> {
        self.pool.take_late(asked_before)
    }

    /// See [`Pool::wait_passes_done`].
    pub fn wait_passes_done(&self, deadline: Instant) -> bool {
        let pool = self.pool.clone();
        self.run(deadline + CHECK_GRACE, "wait", async move {
            pool.wait_passes_done(deadline).await
        })
        .unwrap_or(false)
    }

    /// See [`Pool::wait_for_late_others`].
    pub fn wait_for_late_others(&self, deadline: Instant) -> bool {
        let pool = self.pool.clone();
        self.run(deadline + CHECK_GRACE, "wait", async move {
            pool.wait_for_late_others(deadline).await
        })
        .unwrap_or(false)
    }

    /// See [`Pool::take_late_others`].
    pub fn take_late_others(&self, asked_before: Instant) -> Vec<OtherFileDiagnostics> {
        self.pool.take_late_others(asked_before)
    }

    /// See [`Pool::take_outdated_others`].
    pub fn take_outdated_others(&self) -> Vec<OtherFileDiagnostics> {
        self.pool.take_outdated_others()
    }

    /// See [`Pool::wait_for_late`].
    pub fn wait_for_late(&self, deadline: Instant) -> bool {
        let pool = self.pool.clone();
        self.run(deadline + CHECK_GRACE, "wait", async move {
            pool.wait_for_late(deadline).await
        })
        .unwrap_or(false)
    }

    /// See [`Pool::is_warm`].
    pub fn is_warm(&self, path: &Path) -> bool {
        self.pool.is_warm(path)
    }

    /// See [`Pool::process_groups`].
    pub fn process_groups(&self) -> Vec<u32> {
        self.pool.process_groups()
    }

    /// See [`Pool::touch`].
    pub fn touch(&self, path: &Path) {
        if let Some(rt) = &self.rt {
            let _guard = rt.handle().enter();
            self.pool.touch(path);
        }
    }

    /// See [`Pool::server_for`].
    pub fn server_for(&self, path: &Path) -> Option<&ServerConfig> {
        self.pool.server_for(path)
    }

    /// See [`Pool::published`].
    pub fn published(&self) -> Vec<(std::path::PathBuf, Vec<Diagnostic>)> {
        self.pool.published()
    }

    /// See [`Pool::is_alive`].
    pub fn is_alive(&self, path: &Path) -> bool {
        self.pool.is_alive(path)
    }

    /// See [`Pool::status`].
    pub fn status(&self) -> Vec<ServerStatus> {
        self.pool.status()
    }

    /// See [`Pool::shutdown`].
    pub fn shutdown(&self) {
        let pool = self.pool.clone();
        // Bounded: each server is given its grace, then killed; the pool's process groups go
        // with its last handle whatever the shutdown got to.
        let bound = Instant::now() + 2 * self.pool.config().shutdown_grace + CHECK_GRACE;
        let done = self.run(bound, "shutdown", async move { pool.shutdown().await });
        if let (Err(LspError::BlockedRuntime), Some(rt)) = (&done, &self.rt) {
            // On the thread that drives the servers' runtime: start the shutdown and return,
            // as a drop there does.
            let pool = self.pool.clone();
            rt.handle().spawn(async move { pool.shutdown().await });
        }
        tracing::debug!(completed = done.is_ok(), "blocking pool shut down");
    }

    /// Runs `fut` on the pool's runtime and waits for it on this thread, at most until `bound`
    /// and [`WAIT_GRACE`] (`stage` names the wait in the timeout error). A std channel (not `block_on`) so that it
    /// works from any thread, even one inside another runtime.
    ///
    /// On the caller's runtime ([`BlockingPool::with_handle`]) the thread may be one that
    /// drives it. The driving thread of a single-threaded runtime (its `block_on` future, not a
    /// task) could never see the answer: refused at once ([`LspError::BlockedRuntime`]). A
    /// worker of a multi-threaded one hands its other tasks over while it waits
    /// (`block_in_place`). A task of a single-threaded runtime cannot be told from its
    /// `spawn_blocking` threads: there `bound` is the last word, never a hang.
    /// The request `f` makes of the pool, run on the pool's runtime and bounded by its
    /// `deadline` plus [`CHECK_GRACE`]: the synchronous face of each `Pool` request.
    pub(crate) fn request<T, F, Fut>(
        &self,
        deadline: Instant,
        stage: &'static str,
        f: F,
    ) -> Result<T, LspError>
    where
        F: FnOnce(Pool) -> Fut,
        Fut: Future<Output = Result<T, LspError>> + Send + 'static,
        T: Send + 'static,
    {
        self.run(deadline + CHECK_GRACE, stage, f(self.pool.clone()))
            .and_then(|r| r)
    }

    fn run<F>(&self, bound: Instant, stage: &'static str, fut: F) -> Result<F::Output, LspError>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        use tokio::runtime::{Handle, RuntimeFlavor};
        let rt = self.rt.as_ref().ok_or(LspError::PoolClosed)?;
        let on_it = match rt {
            Rt::Shared(h) => Handle::try_current()
                .ok()
                .filter(|cur| cur.id() == h.id())
                .map(|cur| cur.runtime_flavor()),
            Rt::Owned(_) => None,
        };
        if on_it == Some(RuntimeFlavor::CurrentThread) && tokio::task::try_id().is_none() {
            return Err(LspError::BlockedRuntime);
        }
        let started = Instant::now();
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        rt.handle().spawn(async move {
            let _ = tx.send(fut.await);
        });
        let until = bound + WAIT_GRACE;
        let wait = || rx.recv_timeout(until.saturating_duration_since(Instant::now()));
        let answer = if on_it == Some(RuntimeFlavor::MultiThread) {
            tokio::task::block_in_place(wait)
        } else {
            wait()
        };
        answer.map_err(|e| match e {
            std::sync::mpsc::RecvTimeoutError::Timeout => LspError::Timeout {
                server: "pool".to_string(),
                stage,
                waited: started.elapsed(),
            },
            std::sync::mpsc::RecvTimeoutError::Disconnected => LspError::PoolClosed,
        })
    }
}

impl Drop for BlockingPool {
    fn drop(&mut self) {
        match self.rt.take() {
            Some(Rt::Owned(rt)) => {
                self.rt = Some(Rt::Owned(rt));
                self.shutdown();
                if let Some(Rt::Owned(rt)) = self.rt.take() {
                    rt.shutdown_background();
                }
            }
            // Dropped on one of the caller's runtime threads: waiting there for the shutdown
            // could block the very thread that has to run it. Start it and return; the pool's
            // process groups are killed when its last handle goes, whatever the shutdown got to.
            Some(Rt::Shared(h)) if tokio::runtime::Handle::try_current().is_ok() => {
                let pool = self.pool.clone();
                h.spawn(async move { pool.shutdown().await });
            }
            Some(Rt::Shared(h)) => {
                self.rt = Some(Rt::Shared(h));
                self.shutdown();
            }
            None => {}
        }
    }
}
