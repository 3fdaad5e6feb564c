//! lspedit-engine: the pure text and patch engine of lspedit.
//!
//! No file system, no processes, no async: bytes and text in, bytes and reports out. The
//! pipeline is [`parse_patch`] → [`apply_file_patch`] per file section (which decodes the
//! [`Document`], relocates every hunk and applies the [`LineEdits`] in one place), with
//! [`classify_patch_operations`] deciding which files a patch writes content to.

mod apply;
mod classify;
mod diff;
mod edit;
mod error;
mod file;
pub mod front;
mod hash;
mod indent;
mod parse;
mod patch;
mod replace;
mod text;

pub use apply::{Applied, ApplyOptions, HunkPlacement, SyncBlock, apply_hunks, apply_hunks_owned};
pub use classify::{Classification, classify_patch_operations};
pub use diff::{DiffOptions, line_map, unified_diff, unified_diff_blocks};
pub use edit::{LineEdit, LineEdits, Overlap};
pub use error::{EngineError, Reason};
pub use file::{FileAction, FileOutcome, apply_file_patch};
pub use hash::{
    Anchor, LineHash, ViewOptions, fold_punctuation, hashline, hashline_view, is_blank,
    normalize_for_hash,
};
pub use parse::parse_patch;
pub use patch::{FileChange, FilePatch, Hunk, HunkLine, LineKind, Patch, PatchFormat};
pub use replace::{MatchStrategy, Replaced, ReplacedBytes, search_replace, search_replace_bytes};
pub use text::{Document, Line, LineEnding, check_text};
