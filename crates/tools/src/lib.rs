//! lspedit-tools: the workspace (confined paths, atomic writes) and the operations agents call,
//! composed from the pure engine.

mod error;
mod patch;
mod workspace;

pub use error::{Reason, ToolError};
pub use patch::{
    ApplyPatchOptions, FileReport, FileStatus, PatchReport, apply_parsed, apply_patch,
};
pub use workspace::{Workspace, base_sha, write_atomic_abs};
