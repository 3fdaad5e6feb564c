//! lspedit-write: the write core. A workspace whose every path is confined to its root
//! ([`Workspace`]), the one multi-file planner ([`plan`]), the one committer that switches each
//! file only if it still holds the bytes the plan read ([`commit`]), and [`apply_patch`] composed
//! of them. Reasons of refusal are [`Reason`]; errors carry the path they are about
//! ([`ToolError`]).
//!
//! Imports only the pure engine: no language servers, no workflow state, no model prose.

pub mod commit;
mod error;
// The file-system primitives of the write core, one module per platform behind the same
// functions (see ARCHITECTURE.md, "Platforms").
#[cfg(unix)]
#[path = "os_unix.rs"]
mod os;
#[cfg(windows)]
#[path = "os_windows.rs"]
mod os;
mod patch;
pub mod plan;
mod single;
mod workspace;

pub use commit::WriteGate;
pub use error::{Reason, ToolError};
pub use patch::{
    ApplyPatchOptions, FileReport, FileStatus, MAX_REPLANS, PatchLimits, PatchReport, apply_parsed,
    apply_patch, apply_resolved,
};
pub use single::{Written, write_planned};
pub use workspace::{
    ALWAYS_PROTECTED, DEFAULT_PROTECTED, Replaced, Staged, Workspace, base_sha, entry_identity,
    file_identity, show_sha, state_sha, temp_name, temp_owner_pid, write_atomic_abs,
};
