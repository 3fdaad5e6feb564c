//! The operator's policy over the propose → apply workflow (`docs/policy.md`): the limits a
//! stored change must fit, whether a caller may ask for a per-file apply, and who approves.
//!
//! The person who runs lspedit sets it (`lspedit mcp` flags, `[policy]` in their own
//! `config.toml`, or in a workspace `.lspedit/config.toml` they trusted); the model never does.
//! A model's arguments may only tighten it: [`Policy::plan`] refuses a looser one as
//! `scope_violation` naming the operator's limit. Without any setting the limits are the seeds'
//! (3 files, 100 changed lines, no create, delete or rename), applied all-or-nothing.
//!
//! An untrusted workspace config can only tighten ([`Policy::tighten`]): a cloned repository
//! may ask for less, never for more.

use std::fmt;
use std::path::Path;

use serde::Deserialize;

use crate::{ApplyPlan, Atomicity};
use lspedit_write::{Reason, ToolError};

/// Who approves an `apply_edit` over MCP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Approve {
    /// The call itself approves (the model approves its own proposals).
    Auto,
    /// The person is asked through MCP elicitation when the client declared it; otherwise
    /// the call approves, as [`Approve::Auto`]. The default: see `docs/policy.md`.
    ElicitIfSupported,
    /// The person is asked through MCP elicitation; a client that cannot ask one is refused
    /// (`approval_required`).
    Elicit,
    /// Every apply over MCP is refused (the person applies with `lspedit apply-id`).
    Deny,
}

impl Approve {
    /// The setting's name in the config file and on the command line. The default has none
    /// (it is what an unset `approve` means).
    pub fn as_str(self) -> &'static str {
        match self {
            Approve::Auto => "auto",
            Approve::ElicitIfSupported => "elicit-if-supported",
            Approve::Elicit => "elicit",
            Approve::Deny => "deny",
        }
    }

    /// `auto`, `elicit` or `deny`.
    pub fn parse(s: &str) -> Result<Approve, String> {
        match s {
            "auto" => Ok(Approve::Auto),
            "elicit" => Ok(Approve::Elicit),
            "deny" => Ok(Approve::Deny),
            other => Err(format!(
                "unknown approve `{other}`; use `auto`, `elicit` or `deny`"
            )),
        }
    }
}

impl fmt::Display for Approve {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An operation the workflow can refuse outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Operation {
    Create,
    Delete,
    Rename,
    /// A per-file apply (some files written while others are refused).
    PerFile,
}

impl Operation {
    pub const ALL: [Operation; 4] = [
        Operation::Create,
        Operation::Delete,
        Operation::Rename,
        Operation::PerFile,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "create",
            Operation::Delete => "delete",
            Operation::Rename => "rename",
            Operation::PerFile => "per-file",
        }
    }

    /// `create`, `delete`, `rename` or `per-file`.
    pub fn parse(s: &str) -> Result<Operation, String> {
        Operation::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or_else(|| {
                format!("unknown operation `{s}`; use create, delete, rename, per-file or none")
            })
    }

    /// A comma-separated list (`create,delete`); `none` or an empty string for no operation.
    pub fn parse_list(s: &str) -> Result<Vec<Operation>, String> {
        let s = s.trim();
        if s.is_empty() || s == "none" {
            return Ok(Vec::new());
        }
        s.split(',').map(|w| Operation::parse(w.trim())).collect()
    }
}

/// The operator's policy. [`Policy::default`] is the seeds' contract.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// At most this many files changed by one apply (a rename counts once).
    pub max_files: usize,
    /// At most this many added plus removed lines over all files of one apply.
    pub max_changed_lines: usize,
    pub forbid_create: bool,
    pub forbid_delete: bool,
    pub forbid_rename: bool,
    /// A caller may not ask for a per-file apply: every apply is all-or-nothing.
    pub forbid_per_file: bool,
    pub approve: Approve,
    /// Which of the values above the operator set (in a config's `[policy]` or with an `mcp`
    /// flag). The workflow's applies are judged by every value, set or default; the direct
    /// writers only by what the operator set ([`Policy::writer_plan`],
    /// [`Policy::writer_approve`]).
    pub set: SetKeys,
}

/// The values of a [`Policy`] the operator set, as opposed to defaults. `forbid` is kept per
/// operation: a list sets all of them (what it leaves out is allowed), an untrusted workspace's
/// list only the operations it names.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SetKeys {
    pub max_files: bool,
    pub max_changed_lines: bool,
    pub forbid_create: bool,
    pub forbid_delete: bool,
    pub forbid_rename: bool,
    pub approve: bool,
}

impl Default for Policy {
    /// The seeds' limits: 3 files, 100 changed lines, no create, delete or rename; per-file
    /// applies allowed when asked for; approval per [`Approve::ElicitIfSupported`].
    fn default() -> Policy {
        Policy {
            max_files: 3,
            max_changed_lines: 100,
            forbid_create: true,
            forbid_delete: true,
            forbid_rename: true,
            forbid_per_file: false,
            approve: Approve::ElicitIfSupported,
            set: SetKeys::default(),
        }
    }
}

/// The limits one apply is held to ([`Policy::bound`]); `None`: no limit.
struct Limits {
    max_files: Option<usize>,
    max_changed_lines: Option<usize>,
    forbid_create: bool,
    forbid_delete: bool,
    forbid_rename: bool,
    forbid_per_file: bool,
}

/// What a caller (the model, over MCP) asks of one apply. Every field only tightens the
/// [`Policy`]; `None` takes the operator's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanRequest {
    /// The `mission_edit` preset: the seeds' limits (tightening the operator's, never
    /// loosening them), all-or-nothing.
    pub mission_edit: bool,
    pub max_files: Option<usize>,
    pub max_changed_lines: Option<usize>,
    pub forbid_create: Option<bool>,
    pub forbid_delete: Option<bool>,
    pub forbid_rename: Option<bool>,
    /// `Some(false)`: a per-file apply, when the operator allows it.
    pub all_or_nothing: Option<bool>,
}

/// A `[policy]` table that does not parse: the file and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    pub path: std::path::PathBuf,
    pub message: String,
}

impl PolicyError {
    fn new(path: &Path, message: String) -> PolicyError {
        PolicyError {
            path: path.to_owned(),
            message,
        }
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: [policy]: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for PolicyError {}

/// The `[policy]` table of a config file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct PolicyTable {
    max_files: Option<usize>,
    max_changed_lines: Option<usize>,
    forbid: Option<Vec<String>>,
    approve: Option<String>,
}

impl PolicyTable {
    fn parse(value: &serde_json::Value, path: &Path) -> Result<PolicyTable, PolicyError> {
        serde_json::from_value(value.clone()).map_err(|e| PolicyError::new(path, e.to_string()))
    }

    fn forbid(&self, path: &Path) -> Result<Option<Vec<Operation>>, PolicyError> {
        self.forbid
            .as_ref()
            .map(|list| {
                list.iter()
                    .map(|w| Operation::parse(w))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()
            .map_err(|e| PolicyError::new(path, format!("forbid: {e}")))
    }

    fn approve(&self, path: &Path) -> Result<Option<Approve>, PolicyError> {
        self.approve
            .as_deref()
            .map(Approve::parse)
            .transpose()
            .map_err(|e| PolicyError::new(path, format!("approve: {e}")))
    }
}

impl Policy {
    /// The policy of the workspace `pool` was loaded for: the defaults, then each `[policy]`
    /// table in the order the files apply (the person's config, then the workspace's). A
    /// trusted file sets the values it names; an untrusted workspace file only tightens them.
    /// An invalid table in a trusted file is an error (the operator meant something); one in
    /// an untrusted file is ignored and named in the returned warnings.
    pub fn from_config(
        pool: &lspedit_lsp::PoolConfig,
    ) -> Result<(Policy, Vec<String>), PolicyError> {
        let mut policy = Policy::default();
        let mut warnings = Vec::new();
        for layer in &pool.policy {
            let applied = if layer.trusted {
                policy.set_from(&layer.value, &layer.path)
            } else {
                policy.tighten_from(&layer.value, &layer.path)
            };
            match applied {
                Ok(()) => {}
                Err(e) if layer.trusted => return Err(e),
                Err(e) => warnings.push(format!(
                    "{e}; the file is not trusted, so only a stricter policy could apply; ignored"
                )),
            }
        }
        Ok((policy, warnings))
    }

    /// A trusted table: every value it names replaces the current one.
    fn set_from(&mut self, value: &serde_json::Value, path: &Path) -> Result<(), PolicyError> {
        let t = PolicyTable::parse(value, path)?;
        let forbid = t.forbid(path)?;
        let approve = t.approve(path)?;
        if let Some(n) = t.max_files {
            self.set_max_files(n);
        }
        if let Some(n) = t.max_changed_lines {
            self.set_max_changed_lines(n);
        }
        if let Some(ops) = forbid {
            self.set_forbidden(&ops);
        }
        if let Some(a) = approve {
            self.set_approve(a);
        }
        Ok(())
    }

    /// An untrusted table: only what is stricter than the current value applies.
    fn tighten_from(&mut self, value: &serde_json::Value, path: &Path) -> Result<(), PolicyError> {
        let t = PolicyTable::parse(value, path)?;
        let forbid = t.forbid(path)?;
        let approve = t.approve(path)?;
        // What the table asks binds the direct writers too, when it is at least as strict as
        // the value in force (a looser `max_files` than the workflow's default of 3 binds
        // nothing: the writers keep the operator's word, and the workflow its 3).
        if let Some(n) = t.max_files
            && n <= self.max_files
        {
            self.set_max_files(n);
        }
        if let Some(n) = t.max_changed_lines
            && n <= self.max_changed_lines
        {
            self.set_max_changed_lines(n);
        }
        if let Some(a) = approve
            && a >= self.approve
        {
            self.set_approve(a);
        }
        for op in forbid.unwrap_or_default() {
            self.forbid(op);
        }
        Ok(())
    }

    /// The stricter of `self` and `other`, value by value.
    pub fn tighten(&mut self, other: &Policy) {
        self.max_files = self.max_files.min(other.max_files);
        self.max_changed_lines = self.max_changed_lines.min(other.max_changed_lines);
        self.forbid_create |= other.forbid_create;
        self.forbid_delete |= other.forbid_delete;
        self.forbid_rename |= other.forbid_rename;
        self.forbid_per_file |= other.forbid_per_file;
        self.approve = self.approve.max(other.approve);
    }

    /// The operator sets `max_files`.
    pub fn set_max_files(&mut self, n: usize) {
        self.max_files = n;
        self.set.max_files = true;
    }

    /// The operator sets `max_changed_lines`.
    pub fn set_max_changed_lines(&mut self, n: usize) {
        self.max_changed_lines = n;
        self.set.max_changed_lines = true;
    }

    /// The operator sets `approve`.
    pub fn set_approve(&mut self, approve: Approve) {
        self.approve = approve;
        self.set.approve = true;
    }

    /// The limits and forbidden operations that bind the writers outside the propose → apply
    /// workflow (`edit`, `write_file`, `apply_patch`, `undo`, the language-server edits): only
    /// what the operator set. The seeds' defaults (3 files, 100 lines, no create, delete or
    /// rename) belong to the workflow: a `write_file` that creates a file or a rename that
    /// touches 20 files is not refused unless the operator said so.
    pub fn writer_plan(&self) -> ApplyPlan {
        ApplyPlan {
            max_files: self.set.max_files.then_some(self.max_files),
            max_changed_lines: self.set.max_changed_lines.then_some(self.max_changed_lines),
            forbid_create: self.set.forbid_create && self.forbid_create,
            forbid_delete: self.set.forbid_delete && self.forbid_delete,
            forbid_rename: self.set.forbid_rename && self.forbid_rename,
            ..ApplyPlan::default()
        }
    }

    /// Who approves the writers outside the workflow: the operator's `approve` when they set
    /// one (`elicit`: the person, and a client that cannot ask one is refused; `deny`: every
    /// such write refused), else nobody is asked ([`Approve::Auto`]).
    pub fn writer_approve(&self) -> Approve {
        if self.set.approve {
            self.approve
        } else {
            Approve::Auto
        }
    }

    /// Whether anything the operator set binds the writers outside the workflow.
    pub fn binds_writers(&self) -> bool {
        let p = self.writer_plan();
        p.max_files.is_some()
            || p.max_changed_lines.is_some()
            || p.forbid_create
            || p.forbid_delete
            || p.forbid_rename
            || self.writer_approve() != Approve::Auto
    }

    /// Exactly `ops` are forbidden (the others allowed); the operator set `forbid`.
    pub fn set_forbidden(&mut self, ops: &[Operation]) {
        self.set.forbid_create = true;
        self.set.forbid_delete = true;
        self.set.forbid_rename = true;
        self.forbid_create = ops.contains(&Operation::Create);
        self.forbid_delete = ops.contains(&Operation::Delete);
        self.forbid_rename = ops.contains(&Operation::Rename);
        self.forbid_per_file = ops.contains(&Operation::PerFile);
    }

    /// `op` is forbidden, and the operator said so.
    fn forbid(&mut self, op: Operation) {
        match op {
            Operation::Create => (self.forbid_create, self.set.forbid_create) = (true, true),
            Operation::Delete => (self.forbid_delete, self.set.forbid_delete) = (true, true),
            Operation::Rename => (self.forbid_rename, self.set.forbid_rename) = (true, true),
            Operation::PerFile => self.forbid_per_file = true,
        }
    }

    /// The operations forbidden, in [`Operation::ALL`] order.
    pub fn forbidden(&self) -> Vec<Operation> {
        Operation::ALL
            .into_iter()
            .filter(|op| match op {
                Operation::Create => self.forbid_create,
                Operation::Delete => self.forbid_delete,
                Operation::Rename => self.forbid_rename,
                Operation::PerFile => self.forbid_per_file,
            })
            .collect()
    }

    /// The plan of one apply: the operator's limits, tightened by `request`. A request that
    /// would loosen them is refused as `scope_violation` naming the operator's limit; nothing
    /// is read or written.
    pub fn plan(&self, request: &PlanRequest) -> Result<ApplyPlan, ToolError> {
        let mut limits = self.clone();
        if request.mission_edit {
            limits.tighten(&Policy {
                approve: Approve::Auto,
                ..Policy::default()
            });
        }
        let loosened = |what: String| {
            Err(ToolError::new(
                Reason::ScopeViolation,
                None,
                format!(
                    "{what}; the person running lspedit sets these limits (`lspedit mcp --max-files`, `--max-changed-lines`, `--forbid`, or [policy] in their config): send a tighter value or none"
                ),
            ))
        };
        if let Some(n) = request.max_files {
            if n > self.max_files {
                return loosened(format!(
                    "max_files {n} exceeds the operator's limit of {}",
                    self.max_files
                ));
            }
            limits.max_files = limits.max_files.min(n);
        }
        if let Some(n) = request.max_changed_lines {
            if n > self.max_changed_lines {
                return loosened(format!(
                    "max_changed_lines {n} exceeds the operator's limit of {}",
                    self.max_changed_lines
                ));
            }
            limits.max_changed_lines = limits.max_changed_lines.min(n);
        }
        for (asked, forbidden, name, what) in [
            (
                request.forbid_create,
                &mut limits.forbid_create,
                "forbid_create",
                "creating files",
            ),
            (
                request.forbid_delete,
                &mut limits.forbid_delete,
                "forbid_delete",
                "deleting files",
            ),
            (
                request.forbid_rename,
                &mut limits.forbid_rename,
                "forbid_rename",
                "renaming files",
            ),
        ] {
            match asked {
                Some(false) if *forbidden => {
                    return loosened(format!(
                        "{name}: false asks for {what}, which the operator forbids"
                    ));
                }
                Some(true) => *forbidden = true,
                _ => {}
            }
        }
        let per_file = request.all_or_nothing == Some(false) && !request.mission_edit;
        if per_file && self.forbid_per_file {
            return loosened(format!(
                "{} asks for a per-file apply, which the operator forbids",
                lspedit_tools::front::say(&lspedit_tools::front::Step::PerFile)
            ));
        }
        Ok(ApplyPlan {
            max_files: Some(limits.max_files),
            max_changed_lines: Some(limits.max_changed_lines),
            forbid_create: limits.forbid_create,
            forbid_delete: limits.forbid_delete,
            forbid_rename: limits.forbid_rename,
            atomicity: if per_file {
                Atomicity::PerFile
            } else {
                Atomicity::AllOrNothing
            },
            ..ApplyPlan::default()
        })
    }

    /// No limit, nothing forbidden, every apply approved without asking: the named way to
    /// loosen the library's defaults ([`WorkflowConfig::unrestricted`](crate::WorkflowConfig::unrestricted)),
    /// for an embedder whose caller is the person (a CLI, a test suite) or which judges every
    /// change itself. Nothing in it is set, so it binds the writers outside the workflow to
    /// nothing either.
    pub fn unrestricted() -> Policy {
        Policy {
            max_files: usize::MAX,
            max_changed_lines: usize::MAX,
            forbid_create: false,
            forbid_delete: false,
            forbid_rename: false,
            forbid_per_file: false,
            approve: Approve::Auto,
            set: SetKeys::default(),
        }
    }

    /// `plan` held to this policy: each limit the smaller of the two, each operation forbidden
    /// when either forbids it. A per-file plan under a policy that forbids per-file applies is
    /// refused (`scope_violation`): making it all-or-nothing would change what the caller
    /// asked for, not only how much. The workflow holds every `apply_edit` to its
    /// [`WorkflowConfig::policy`](crate::WorkflowConfig::policy) this way, so a caller's plan can
    /// tighten the policy but never lift it.
    pub fn bound(&self, plan: &ApplyPlan) -> Result<ApplyPlan, ToolError> {
        self.bound_by(plan, self.workflow_limits())
    }

    /// [`Policy::bound`] by the values that bind the writers outside the workflow
    /// ([`Policy::writer_plan`]): what the workflow holds [`Workflow::apply_change`](crate::Workflow::apply_change) to.
    pub fn bound_writer(&self, plan: &ApplyPlan) -> Result<ApplyPlan, ToolError> {
        let w = self.writer_plan();
        let limits = Limits {
            max_files: w.max_files,
            max_changed_lines: w.max_changed_lines,
            forbid_create: w.forbid_create,
            forbid_delete: w.forbid_delete,
            forbid_rename: w.forbid_rename,
            forbid_per_file: false,
        };
        self.bound_by(plan, limits)
    }

    fn workflow_limits(&self) -> Limits {
        let finite = |n: usize| (n != usize::MAX).then_some(n);
        Limits {
            max_files: finite(self.max_files),
            max_changed_lines: finite(self.max_changed_lines),
            forbid_create: self.forbid_create,
            forbid_delete: self.forbid_delete,
            forbid_rename: self.forbid_rename,
            forbid_per_file: self.forbid_per_file,
        }
    }

    fn bound_by(&self, plan: &ApplyPlan, limits: Limits) -> Result<ApplyPlan, ToolError> {
        if limits.forbid_per_file && plan.atomicity == Atomicity::PerFile {
            return Err(ToolError::new(
                Reason::ScopeViolation,
                None,
                "the plan asks for a per-file apply, which the workflow's policy forbids (Policy::forbid_per_file): apply all or nothing".to_string(),
            ));
        }
        let min = |a: Option<usize>, b: Option<usize>| match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        Ok(ApplyPlan {
            max_files: min(plan.max_files, limits.max_files),
            max_changed_lines: min(plan.max_changed_lines, limits.max_changed_lines),
            forbid_create: plan.forbid_create || limits.forbid_create,
            forbid_delete: plan.forbid_delete || limits.forbid_delete,
            forbid_rename: plan.forbid_rename || limits.forbid_rename,
            ..plan.clone()
        })
    }

    /// One line for logs and `--help`-style messages: `max_files 3, max_changed_lines 100,
    /// forbid create,delete,rename, approve elicit-if-supported`.
    pub fn describe(&self) -> String {
        let forbidden: Vec<&str> = self.forbidden().iter().map(|o| o.as_str()).collect();
        let limit = |n: usize| {
            if n == usize::MAX {
                "none".to_string()
            } else {
                n.to_string()
            }
        };
        format!(
            "max_files {}, max_changed_lines {}, forbid {}, approve {}",
            limit(self.max_files),
            limit(self.max_changed_lines),
            if forbidden.is_empty() {
                "none".to_string()
            } else {
                forbidden.join(",")
            },
            self.approve
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refused(p: &Policy, r: PlanRequest) -> String {
        match p.plan(&r) {
            Ok(plan) => panic!("{r:?} was accepted: {plan:?}"),
            Err(e) => {
                assert_eq!(e.reason, Reason::ScopeViolation, "{e}");
                e.message
            }
        }
    }

    #[test]
    fn the_defaults_are_the_seeds_and_all_or_nothing() {
        let plan = Policy::default().plan(&PlanRequest::default()).unwrap();
        assert_eq!(
            (plan.max_files, plan.max_changed_lines),
            (Some(3), Some(100))
        );
        assert!(plan.forbid_create && plan.forbid_delete && plan.forbid_rename);
        assert_eq!(plan.atomicity, Atomicity::AllOrNothing);
    }

    #[test]
    fn a_request_only_tightens() {
        let p = Policy::default();
        let plan = p
            .plan(&PlanRequest {
                max_files: Some(1),
                max_changed_lines: Some(100),
                all_or_nothing: Some(false),
                ..PlanRequest::default()
            })
            .unwrap();
        assert_eq!(
            (plan.max_files, plan.max_changed_lines),
            (Some(1), Some(100))
        );
        assert_eq!(plan.atomicity, Atomicity::PerFile);
        let m = refused(
            &p,
            PlanRequest {
                max_files: Some(50),
                ..PlanRequest::default()
            },
        );
        assert!(
            m.starts_with("max_files 50 exceeds the operator's limit of 3;"),
            "{m}"
        );
        let m = refused(
            &p,
            PlanRequest {
                max_changed_lines: Some(101),
                ..PlanRequest::default()
            },
        );
        assert!(m.contains("operator's limit of 100"), "{m}");
        let m = refused(
            &p,
            PlanRequest {
                forbid_delete: Some(false),
                ..PlanRequest::default()
            },
        );
        assert!(m.starts_with("forbid_delete: false"), "{m}");
        // The operator widened: the same request passes, and the preset tightens again.
        let wide = Policy {
            max_files: 50,
            forbid_create: false,
            ..Policy::default()
        };
        let plan = wide
            .plan(&PlanRequest {
                max_files: Some(50),
                forbid_create: Some(false),
                ..PlanRequest::default()
            })
            .unwrap();
        assert_eq!(plan.max_files, Some(50));
        assert!(!plan.forbid_create);
        let mission = wide
            .plan(&PlanRequest {
                mission_edit: true,
                ..PlanRequest::default()
            })
            .unwrap();
        assert_eq!(mission.max_files, Some(3));
        assert!(mission.forbid_create);
        let no_per_file = Policy {
            forbid_per_file: true,
            ..Policy::default()
        };
        let m = refused(
            &no_per_file,
            PlanRequest {
                all_or_nothing: Some(false),
                ..PlanRequest::default()
            },
        );
        assert!(
            m.contains("per-file apply, which the operator forbids"),
            "{m}"
        );
    }

    #[test]
    fn a_trusted_table_sets_and_an_untrusted_one_only_tightens() {
        let path = Path::new("config.toml");
        let mut p = Policy::default();
        p.set_from(
            &json!({"max_files": 10, "forbid": ["delete"], "approve": "auto"}),
            path,
        )
        .unwrap();
        assert_eq!(p.max_files, 10);
        assert_eq!(p.forbidden(), [Operation::Delete]);
        assert_eq!(p.approve, Approve::Auto);
        // What a table names is the operator's: it binds the direct writers too.
        assert_eq!(
            p.set,
            SetKeys {
                max_files: true,
                max_changed_lines: false,
                forbid_create: true,
                forbid_delete: true,
                forbid_rename: true,
                approve: true
            }
        );
        assert_eq!(p.writer_plan().max_files, Some(10));
        assert_eq!(p.writer_plan().max_changed_lines, None);
        let mut q = p.clone();
        q.tighten_from(
            &json!({"max_files": 50, "max_changed_lines": 20, "forbid": ["per-file"], "approve": "auto"}),
            path,
        )
        .unwrap();
        assert_eq!(q.max_files, 10, "an untrusted file loosened max_files");
        assert_eq!(q.max_changed_lines, 20);
        assert_eq!(q.forbidden(), [Operation::Delete, Operation::PerFile]);
        assert!(
            q.set.max_changed_lines,
            "an untrusted file's stricter limit binds the writers"
        );
        assert_eq!(q.writer_plan().max_changed_lines, Some(20));
        let mut r = p.clone();
        r.tighten_from(&json!({"approve": "deny"}), path).unwrap();
        assert_eq!(r.approve, Approve::Deny);
        assert_eq!(r.writer_approve(), Approve::Deny);
        let bad = p.set_from(&json!({"maxFiles": 1}), path).unwrap_err();
        assert!(bad.to_string().contains("maxFiles"), "{bad}");
        let bad = p.set_from(&json!({"forbid": ["chmod"]}), path).unwrap_err();
        assert!(bad.message.contains("chmod"), "{bad}");
    }

    #[test]
    fn a_trusted_error_stops_and_an_untrusted_one_is_a_warning() {
        let layer = |trusted, value| lspedit_lsp::PolicyLayer {
            path: "config.toml".into(),
            trusted,
            value,
        };
        let mut pool = lspedit_lsp::PoolConfig {
            policy: vec![
                layer(true, json!({"max_files": 9})),
                layer(false, json!({"maxFiles": 50})),
            ],
            ..lspedit_lsp::PoolConfig::default()
        };
        let (p, warnings) = Policy::from_config(&pool).unwrap();
        assert_eq!(p.max_files, 9);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("maxFiles"), "{warnings:?}");
        pool.policy = vec![layer(true, json!({"maxFiles": 1}))];
        let e = Policy::from_config(&pool).unwrap_err();
        assert!(e.to_string().contains("maxFiles"), "{e}");
    }

    #[test]
    fn operation_lists_parse() {
        assert_eq!(
            Operation::parse_list("create, rename").unwrap(),
            [Operation::Create, Operation::Rename]
        );
        assert_eq!(Operation::parse_list("none").unwrap(), []);
        assert!(Operation::parse_list("create,chmod").is_err());
    }
}
