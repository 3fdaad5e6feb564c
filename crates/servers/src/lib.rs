//! lspedit-servers: which language servers exist, which program may run, and how they are
//! installed. The policy the pool (`lspedit-lsp`) runs by; it starts nothing itself except the
//! installer's steps and the probes that decide a launch.
//!
//! - [`config`]: the server declarations (bundled in `lspedit-lsp-configs`, overridden by the
//!   person's config and the workspace's `.lspedit/config.toml`) and the pool's settings,
//!   loaded by [`PoolConfig::load`].
//! - [`trust`]: whether the person trusted the workspace's config (`lspedit trust`, by SHA-256);
//!   an untrusted one chooses no program.
//! - [`launch`]: how a server starts for a root: which program (never one inside the
//!   workspace), with which environment, confined how (restricted mode, the bundled TypeScript,
//!   the scratch directory, the Landlock rules handed to `lspedit-process`).
//! - [`install`]: whether each configured server can be used, and installing the pinned ones
//!   (`lspedit servers status|install`).

pub mod config;
mod error;
pub mod install;
pub mod launch;
mod severity;
pub mod trust;

#[cfg(unix)]
pub use config::default_host_runtime_dir;
pub use config::{
    DiagnosticsConfig, HOST_RUNTIME_DIR_ENV, HostConfig, InstallRecipe, PolicyLayer, PoolConfig,
    Program, ProgramFrom, Requirement, ServerConfig, Strategy, VerdictProgress, VerdictWait,
    VerdictWaiting, node_platform,
};
pub use error::ServersError;
pub use severity::{Severity, SeverityOverride, SeverityOverrides};
