//! The approval step between propose and apply: a pluggable [`Approver`] asked once per apply,
//! after the stale and scope checks passed and before anything is validated or written.

/// What the approver is asked about.
#[derive(Debug, Clone, Copy)]
pub struct ApprovalRequest<'a> {
    pub approval_id: &'a str,
    pub patch_id: &'a str,
    /// The unified diff that will be applied.
    pub diff: &'a str,
    /// Every path the diff touches, sorted.
    pub files: &'a [String],
    pub summary: &'a str,
}

/// Decides whether a proposed diff may be applied. Called on the applying thread; a slow
/// approver (a person at a prompt) simply holds the apply there.
pub trait Approver: Send + Sync {
    fn approve(&self, request: &ApprovalRequest<'_>) -> bool;
}

/// Approves everything (agents and tests that approved by calling `apply_edit`).
#[derive(Debug, Default, Clone, Copy)]
pub struct AutoApprove;

impl Approver for AutoApprove {
    fn approve(&self, _request: &ApprovalRequest<'_>) -> bool {
        true
    }
}

/// Rejects everything (a read-only session).
#[derive(Debug, Default, Clone, Copy)]
pub struct Deny;

impl Approver for Deny {
    fn approve(&self, _request: &ApprovalRequest<'_>) -> bool {
        false
    }
}

/// Asks a closure (a prompt, a policy, a remote reviewer).
pub struct Callback<F>(pub F);

impl<F> std::fmt::Debug for Callback<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Callback(..)")
    }
}

impl<F> Approver for Callback<F>
where
    F: Fn(&ApprovalRequest<'_>) -> bool + Send + Sync,
{
    fn approve(&self, request: &ApprovalRequest<'_>) -> bool {
        (self.0)(request)
    }
}
