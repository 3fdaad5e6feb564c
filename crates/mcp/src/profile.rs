//! What a host sees of the server: which tools it lists ([`ToolSet`]) and the shape of their
//! input schemas ([`SchemaProfile`]), with the server instructions that fit the tools listed.
//!
//! Every tool set but [`ToolSet::Review`] includes [`ToolSet::Core`], so a host that lists
//! `lsp` or `workflow` can still read, edit and check files; `review` lists no tool that writes
//! directly, for an operator who wants every change proposed (`docs/policy.md`). Several sets
//! are their union (`lsp,workflow` is `all`).
//! The default is [`ToolSet::All`], what the server always listed. The conventions every tool
//! shares (anchors, workspace-relative paths, the diagnostics block, reason codes) are stated
//! once, in the instructions, not in each tool's description. `docs/mcp.md` has the sets, the
//! profiles and what each costs a model in characters.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

/// The shape of the tools' input schemas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// The portable subset ([`crate::schema`]): an optional argument is left out of
    /// `required`, one type per schema, no `$ref`, `additionalProperties` or `default`.
    /// Gemini's function `parameters` (an OpenAPI 3.0 subset) and the other hosts accept it.
    #[default]
    Default,
    /// What OpenAI's strict function calling and Anthropic's strict tool use both accept
    /// ([`crate::schema::make_strict`]): every object closed (`additionalProperties: false`),
    /// every property required, an optional one as a union with `null` (a model sends `null`
    /// for an argument it leaves out), no bounds such as `minimum`.
    Strict,
}

impl SchemaProfile {
    /// The name `lspedit mcp --schema-profile` takes.
    pub fn name(self) -> &'static str {
        match self {
            SchemaProfile::Default => "default",
            SchemaProfile::Strict => "strict",
        }
    }
}

impl fmt::Display for SchemaProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SchemaProfile {
    type Err = String;

    fn from_str(s: &str) -> Result<SchemaProfile, String> {
        match s {
            "default" => Ok(SchemaProfile::Default),
            "strict" => Ok(SchemaProfile::Strict),
            other => Err(format!(
                "unknown schema profile `{other}`; use `default` or `strict`"
            )),
        }
    }
}

/// A named set of tools. Each but [`ToolSet::Review`] includes [`ToolSet::Core`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ToolSet {
    /// Read, edit and check files: [`CORE_TOOLS`].
    Core,
    /// Core and the language-server tools: [`LSP_TOOLS`] (rename, code actions, lookups,
    /// symbols).
    Lsp,
    /// Core and the reviewed workflow: [`WORKFLOW_TOOLS`] (propose, apply, undo).
    Workflow,
    /// Every tool.
    #[default]
    All,
    /// Read, look up and propose; no tool that writes a file directly: [`REVIEW_TOOLS`]. Every
    /// change is a proposal the person approves (`apply_edit` under `approve = "elicit"`) or
    /// applies (`lspedit apply-id`, with `approve = "deny"`).
    Review,
}

/// The tools of [`ToolSet::Core`], in every set.
pub const CORE_TOOLS: &[&str] = &[
    "read_file",
    "edit",
    "write_file",
    "apply_patch",
    "diagnostics",
];

/// The tools [`ToolSet::Workflow`] adds to the core.
pub const WORKFLOW_TOOLS: &[&str] = &["propose_edit", "apply_edit", "undo"];

/// The tools of [`ToolSet::Review`]: what reads, looks up, checks and proposes, the
/// workflow's `apply_edit` and `undo` (each under the operator's approval), and none of the
/// tools that write directly (`edit`, `write_file`, `apply_patch`, the language-server edits).
pub const REVIEW_TOOLS: &[&str] = &[
    "read_file",
    "diagnostics",
    "propose_edit",
    "apply_edit",
    "undo",
    "code_actions",
    "references",
    "definition",
    "outline",
    "find_symbol",
    "hover",
    "call_hierarchy",
    "implementations",
    "type_definition",
];

/// The tools [`ToolSet::Lsp`] adds to the core.
pub const LSP_TOOLS: &[&str] = &[
    "rename_symbol",
    "code_actions",
    "apply_code_action",
    "references",
    "definition",
    "outline",
    "find_symbol",
    "replace_symbol_body",
    "insert_before_symbol",
    "insert_after_symbol",
    "hover",
    "call_hierarchy",
    "implementations",
    "type_definition",
];

impl ToolSet {
    /// The name `lspedit mcp --tools` takes.
    pub fn name(self) -> &'static str {
        match self {
            ToolSet::Core => "core",
            ToolSet::Lsp => "lsp",
            ToolSet::Workflow => "workflow",
            ToolSet::All => "all",
            ToolSet::Review => "review",
        }
    }

    /// The tools of this set, core first.
    pub fn tools(self) -> Vec<&'static str> {
        if self == ToolSet::Review {
            return REVIEW_TOOLS.to_vec();
        }
        let extra: &[&[&str]] = match self {
            ToolSet::Core => &[],
            ToolSet::Lsp => &[LSP_TOOLS],
            ToolSet::Workflow => &[WORKFLOW_TOOLS],
            ToolSet::All | ToolSet::Review => &[WORKFLOW_TOOLS, LSP_TOOLS],
        };
        let mut tools = CORE_TOOLS.to_vec();
        tools.extend(extra.iter().flat_map(|t| t.iter().copied()));
        tools
    }
}

impl fmt::Display for ToolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ToolSet {
    type Err = String;

    fn from_str(s: &str) -> Result<ToolSet, String> {
        match s {
            "core" => Ok(ToolSet::Core),
            "lsp" => Ok(ToolSet::Lsp),
            "workflow" => Ok(ToolSet::Workflow),
            "all" => Ok(ToolSet::All),
            "review" => Ok(ToolSet::Review),
            other => Err(format!(
                "unknown tool set `{other}`; use `core`, `lsp`, `workflow`, `review` or `all`"
            )),
        }
    }
}

/// The union of `sets`' tools; no set at all is [`ToolSet::All`].
pub fn tools_of(sets: &[ToolSet]) -> BTreeSet<&'static str> {
    if sets.is_empty() {
        return ToolSet::All.tools().into_iter().collect();
    }
    sets.iter().flat_map(|s| s.tools()).collect()
}

const CONVENTIONS: &str = "lspedit edits files safely and reports what an edit broke. \
Conventions of every tool: paths are relative to the workspace root (a path leaving it is \
refused as path_outside_workspace). read_file shows each line as `<line><hash>|<content>`, \
e.g. `42abcd|  return x;`: `42abcd` is that line's anchor; anchors go on the context and \
removal lines of a patch, never in old_text, new_text, content or on added lines. A writing \
tool answers with each file's outcome, the fresh anchors of the lines it changed (use them, \
not older ones), and the language server's errors for the files it wrote, as \
`LSP errors detected in <path>, please fix:` then `ERROR [line:col] message (code)` lines, \
and those of other files the change broke; fix them before moving on. A file is written \
entirely or not at all. A refusal is an isError result naming a reason code and what to do: \
hunk_mismatch (the lines were not found: re-read the file and resend with fresh anchors), \
ambiguous_match (several equally good places: add context or anchors), stale_context (the \
file changed since you read it: re-read), truncated_input (the input was cut off: resend it \
whole), already_applied (the change is already there: nothing written), file_not_found, \
file_exists, binary_file, not_utf8. Every result also carries structuredContent (ids, shas, \
per-file status) matching the tool's outputSchema. Optional arguments may be left out or sent \
as null.";

const WORKFLOW: &str = "To have a change reviewed before it is made: propose_edit (a \
patch, or a regex over files) returns a patch_id and the diff; apply_edit(patch_id) applies \
it, every file or none, and returns a checkpoint_id; undo(checkpoint_id) restores the files.";

const LSP: &str = "With a language server: a symbol is named by path, line (a number or an \
anchor) and its text on that line, or by path and name_path as outline shows it \
(`Cart/total`). rename_symbol, apply_code_action, replace_symbol_body, insert_before_symbol \
and insert_after_symbol write like apply_patch (all files or none) and answer the same way; \
the lookups (references, definition, hover, call_hierarchy, implementations, \
type_definition, outline, find_symbol) change nothing and show code as read_file lines.";

const LOOKUPS: &str = "With a language server: a symbol is named by path, line (a number or \
an anchor) and its text on that line, or by path and name_path as outline shows it \
(`Cart/total`). The lookups (references, definition, hover, call_hierarchy, implementations, \
type_definition, outline, find_symbol, code_actions) change nothing and show code as \
read_file lines. Every change you make is a proposal: propose_edit.";

const LSP_WITHOUT_WORKFLOW: &str = "A preview of an LSP edit is a proposal that this \
session cannot apply (apply_edit is not listed): leave preview unset.";

/// The server instructions for the tools in `tools`: the shared conventions, then what the
/// listed workflow and language-server tools add; `policy` (the operator's limits, a
/// sentence) when apply_edit is listed.
pub fn instructions(tools: &BTreeSet<&'static str>, policy: &str) -> String {
    let has = |names: &[&'static str]| names.iter().any(|n| tools.contains(n));
    let mut text = CONVENTIONS.to_string();
    if has(WORKFLOW_TOOLS) {
        text.push(' ');
        text.push_str(WORKFLOW);
    }
    if has(LSP_TOOLS) && !tools.contains(&"rename_symbol") {
        text.push(' ');
        text.push_str(LOOKUPS);
    } else if has(LSP_TOOLS) {
        text.push(' ');
        text.push_str(LSP);
        if !tools.contains(&"apply_edit") {
            text.push(' ');
            text.push_str(LSP_WITHOUT_WORKFLOW);
        }
    }
    if tools.contains(&"apply_edit") {
        text.push(' ');
        text.push_str(policy);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_set_includes_core_and_a_list_is_the_union() {
        for set in [ToolSet::Core, ToolSet::Lsp, ToolSet::Workflow, ToolSet::All] {
            let tools = set.tools();
            assert!(CORE_TOOLS.iter().all(|t| tools.contains(t)), "{set}");
            assert_eq!(set.name().parse::<ToolSet>(), Ok(set));
        }
        assert_eq!("review".parse::<ToolSet>(), Ok(ToolSet::Review));
        assert_eq!(
            tools_of(&[ToolSet::Lsp, ToolSet::Workflow]),
            tools_of(&[ToolSet::All])
        );
        assert_eq!(tools_of(&[]), tools_of(&[ToolSet::All]));
        assert_eq!(tools_of(&[ToolSet::Core]).len(), 5);
        assert!("most".parse::<ToolSet>().unwrap_err().contains("`core`"));
        assert!(
            "loose"
                .parse::<SchemaProfile>()
                .unwrap_err()
                .contains("`strict`")
        );
    }

    #[test]
    fn instructions_name_only_the_tools_listed() {
        let core = instructions(&tools_of(&[ToolSet::Core]), "POLICY");
        assert!(core.contains("42abcd|"), "{core}");
        for absent in ["propose_edit", "rename_symbol", "POLICY", "checkpoint_id"] {
            assert!(!core.contains(absent), "{absent} in {core}");
        }
        let lsp = instructions(&tools_of(&[ToolSet::Lsp]), "POLICY");
        assert!(lsp.contains("rename_symbol") && lsp.contains("leave preview unset"));
        assert!(!lsp.contains("POLICY"), "{lsp}");
        let all = instructions(&tools_of(&[ToolSet::All]), "POLICY");
        assert!(
            all.contains("propose_edit") && all.ends_with("POLICY"),
            "{all}"
        );
        assert!(!all.contains("leave preview unset"), "{all}");
        let review = instructions(&tools_of(&[ToolSet::Review]), "POLICY");
        assert!(
            review.contains("Every change you make is a proposal") && review.ends_with("POLICY"),
            "{review}"
        );
        assert!(!review.contains("rename_symbol"), "{review}");
    }

    /// The review set writes nothing directly: none of the tools that write without a
    /// proposal, every lookup and the workflow.
    #[test]
    fn the_review_set_has_no_direct_writer() {
        let review = ToolSet::Review.tools();
        for writer in [
            "edit",
            "write_file",
            "apply_patch",
            "rename_symbol",
            "apply_code_action",
            "replace_symbol_body",
            "insert_before_symbol",
            "insert_after_symbol",
        ] {
            assert!(!review.contains(&writer), "{writer}");
        }
        let all = ToolSet::All.tools();
        for tool in &review {
            assert!(all.contains(tool), "{tool} is not a tool");
        }
        assert!(review.contains(&"propose_edit") && review.contains(&"outline"));
    }
}
