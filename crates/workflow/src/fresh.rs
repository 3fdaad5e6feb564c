//! The checks that the files are still the ones a proposal was made from, run before the
//! approver is asked and again under the locks right before the first write.

use super::store::StoredPatch;
use super::util::{show_sha, state_sha};
use lspedit_write::Workspace;
use lspedit_write::commit::CommitUnit;
use lspedit_write::{Reason, ToolError};

/// `stale_context` naming the first path whose sha now (per `now`) is not its proposed one.
pub(crate) fn stale_check(
    stored: &StoredPatch,
    now: impl Fn(&str) -> Result<Option<String>, ToolError>,
) -> Result<(), ToolError> {
    for (path, base) in &stored.base_shas {
        let now = now(path)?;
        if &now != base {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(path),
                format!(
                    "the file changed since the patch was proposed (base_sha {}, now {}); propose the edit again",
                    show_sha(base.as_deref()),
                    show_sha(now.as_deref())
                ),
            ));
        }
    }
    Ok(())
}

/// Refuse (`stale_context`) unless every path is still in its old state. Run under the lock,
/// right before the first write.
pub(crate) fn check_fresh(ws: &Workspace, units: &[CommitUnit]) -> Result<(), ToolError> {
    for c in units.iter().flat_map(|u| &u.changes) {
        let now = state_sha(ws.read(&c.path)?.as_deref());
        let expected = state_sha(c.old.as_deref());
        if now != expected {
            return Err(ToolError::new(
                Reason::StaleContext,
                Some(&c.path),
                format!(
                    "the file changed since the patch was proposed (base_sha {}, now {}); propose the edit again",
                    show_sha(expected.as_deref()),
                    show_sha(now.as_deref())
                ),
            ));
        }
    }
    Ok(())
}
