//! How a text names the next step it suggests, in the words of the front end that shows it: an
//! MCP client reads tool calls (`apply_edit("patch_…")`) and arguments (`old_text`), a person at
//! a shell reads commands (`lspedit apply-id patch_…`) and options (`--old`). Every layer that
//! words a hint (this engine, tools, workflow, LSP edits, session) builds it from a [`Step`]
//! and [`Front::current`], never from a tool or argument name spelled in place, so the CLI
//! never prints an MCP call and MCP never prints a shell command. Pure: no I/O, one process-wide
//! setting.
//!
//! The front end is a property of the process: `lspedit mcp` and an embedding library speak
//! MCP's words (the default), every other `lspedit` command sets [`Front::Cli`] once at start
//! ([`Front::set`]).

use std::sync::atomic::{AtomicU8, Ordering};

/// Who reads the texts this process produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Front {
    /// An MCP client (a model calling tools), and library callers whose calls carry the tools'
    /// names.
    Mcp,
    /// A person or an agent at a shell, running `lspedit` commands.
    Cli,
}

static CURRENT: AtomicU8 = AtomicU8::new(0);

impl Front {
    /// The front end of this process ([`Front::Mcp`] unless [`Front::set`] said otherwise).
    pub fn current() -> Front {
        match CURRENT.load(Ordering::Relaxed) {
            1 => Front::Cli,
            _ => Front::Mcp,
        }
    }

    /// Make `front` the front end of this process, before any text is produced.
    pub fn set(front: Front) {
        CURRENT.store(
            match front {
                Front::Mcp => 0,
                Front::Cli => 1,
            },
            Ordering::Relaxed,
        );
    }

    /// `step` in this front end's words.
    pub fn say(self, step: &Step<'_>) -> String {
        match self {
            Front::Mcp => mcp(step),
            Front::Cli => cli(step),
        }
    }
}

/// A next step a text suggests, with what the reader needs to take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step<'a> {
    /// Read a file from a line on (`offset`, 1-based), as the hashline view.
    ReadFrom { path: &'a str, offset: usize },
    /// The tool or command that shows hashline anchors (`42abcd`).
    ReadAnchors,
    /// The tool or command that creates a file.
    CreateFile,
    /// The tools or commands that show a symbol's anchor.
    SymbolAnchors,
    /// Find the symbols of a file by name.
    FindSymbolIn { path: &'a str },
    /// Outline a file or directory with every symbol its server gives, not only the
    /// declarations.
    OutlineAll { path: &'a str },
    /// Ask for diagnostics again (of `path`, when given).
    Diagnostics { path: Option<&'a str> },
    /// Propose the change again, to get a new patch id.
    Propose,
    /// Apply a stored proposal.
    ApplyProposal { patch_id: &'a str },
    /// What applies a proposal (in a sentence about it).
    ApplyProposalName,
    /// Apply each file of a proposal on its own instead of all or none.
    PerFile,
    /// Applying all files of a proposal or none (the default).
    AllOrNothing,
    /// Where a checkpoint id comes from.
    CheckpointSource,
    /// Apply one of the code actions listed for a line.
    ApplyCodeAction { path: &'a str, line: usize },
    /// An argument, as the reader spells it: `name_path` over MCP, `--name-path` or a
    /// positional `NAME_PATH` at the shell.
    Arg(Arg),
}

/// An argument named in a hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// A symbol's name path.
    NamePath,
    /// The line of a lookup.
    Line,
    /// The symbol's text on the line.
    Symbol,
    /// Which appearance of the symbol on the line.
    Occurrence,
    /// `edit`'s text to replace.
    OldText,
    /// `edit`'s replacement.
    NewText,
    /// `edit`'s "every occurrence".
    ReplaceAll,
    /// The first line a read shows.
    Offset,
}

fn mcp(step: &Step<'_>) -> String {
    match *step {
        Step::ReadFrom { path, offset } => format!("read_file path=\"{path}\" offset={offset}"),
        Step::ReadAnchors => "read_file".into(),
        Step::CreateFile => "write_file".into(),
        Step::SymbolAnchors => "outline or find_symbol".into(),
        Step::FindSymbolIn { path } => format!("find_symbol with path=\"{path}\""),
        Step::OutlineAll { path } => format!("outline with path=\"{path}\" and all=true"),
        Step::Diagnostics { path: Some(_) } => "call diagnostics on it".into(),
        Step::Diagnostics { path: None } => "call diagnostics".into(),
        Step::Propose => "call propose_edit".into(),
        Step::ApplyProposal { patch_id } => format!("apply_edit(\"{patch_id}\")"),
        Step::ApplyProposalName => "apply_edit".into(),
        Step::PerFile => "all_or_nothing: false".into(),
        Step::AllOrNothing => "all_or_nothing".into(),
        Step::CheckpointSource => "a checkpoint_id an apply_edit returned".into(),
        Step::ApplyCodeAction { path, line } => {
            format!("apply_code_action(path=\"{path}\", line={line}, index=N or title=\"...\")")
        }
        Step::Arg(Arg::NamePath) => "`name_path`".into(),
        Step::Arg(Arg::Line) => "`line`".into(),
        Step::Arg(Arg::Symbol) => "`symbol`".into(),
        Step::Arg(Arg::Occurrence) => "`occurrence`".into(),
        Step::Arg(Arg::OldText) => "old_text".into(),
        Step::Arg(Arg::NewText) => "new_text".into(),
        Step::Arg(Arg::ReplaceAll) => "replace_all".into(),
        Step::Arg(Arg::Offset) => "offset".into(),
    }
}

fn cli(step: &Step<'_>) -> String {
    match *step {
        Step::ReadFrom { path, offset } => {
            format!("`lspedit read {} --offset {offset}`", shell_word(path))
        }
        Step::ReadAnchors => "`lspedit read`".into(),
        Step::CreateFile => "`lspedit write`".into(),
        Step::SymbolAnchors => "`lspedit outline` or `lspedit find-symbol`".into(),
        Step::FindSymbolIn { path } => {
            format!("`lspedit find-symbol NAME --path {}`", shell_word(path))
        }
        Step::OutlineAll { path } => format!("`lspedit outline {} --all`", shell_word(path)),
        Step::Diagnostics { path: Some(p) } => {
            format!("run `lspedit check {}`", shell_word(p))
        }
        Step::Diagnostics { path: None } => "run `lspedit check`".into(),
        Step::Propose => "run `lspedit propose`".into(),
        Step::ApplyProposal { patch_id } => format!("`lspedit apply-id {patch_id}`"),
        Step::ApplyProposalName => "`lspedit apply-id`".into(),
        Step::PerFile => "--per-file".into(),
        Step::AllOrNothing => "all or nothing (the default without --per-file)".into(),
        Step::CheckpointSource => "a checkpoint id `lspedit apply-id` printed".into(),
        Step::ApplyCodeAction { path, line } => format!(
            "`lspedit fix {} {line} --index N` (or --title TITLE)",
            shell_word(path)
        ),
        Step::Arg(Arg::NamePath) => "`--name-path`".into(),
        Step::Arg(Arg::Line) => "LINE".into(),
        Step::Arg(Arg::Symbol) => "SYMBOL".into(),
        Step::Arg(Arg::Occurrence) => "`--occurrence`".into(),
        Step::Arg(Arg::OldText) => "--old".into(),
        Step::Arg(Arg::NewText) => "--new".into(),
        Step::Arg(Arg::ReplaceAll) => "--all".into(),
        Step::Arg(Arg::Offset) => "--offset".into(),
    }
}

/// `s` as one shell word: unchanged when it needs no quoting, else in single quotes.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@:+,=".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `step` in the words of this process's front end ([`Front::current`]).
pub fn say(step: &Step<'_>) -> String {
    Front::current().say(step)
}

/// [`say`] at the start of a sentence: its first letter upper case.
pub fn say_first(step: &Step<'_>) -> String {
    let said = say(step);
    let mut chars = said.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => said,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<Step<'static>> {
        vec![
            Step::ReadFrom {
                path: "src/a b.ts",
                offset: 40,
            },
            Step::ReadAnchors,
            Step::CreateFile,
            Step::SymbolAnchors,
            Step::FindSymbolIn { path: "src/a.ts" },
            Step::OutlineAll { path: "src/a.ts" },
            Step::Diagnostics {
                path: Some("src/a.ts"),
            },
            Step::Diagnostics { path: None },
            Step::Propose,
            Step::ApplyProposal {
                patch_id: "patch_1_abc",
            },
            Step::ApplyProposalName,
            Step::PerFile,
            Step::AllOrNothing,
            Step::CheckpointSource,
            Step::ApplyCodeAction {
                path: "src/a.ts",
                line: 3,
            },
            Step::Arg(Arg::NamePath),
            Step::Arg(Arg::Line),
            Step::Arg(Arg::Symbol),
            Step::Arg(Arg::Occurrence),
            Step::Arg(Arg::OldText),
            Step::Arg(Arg::NewText),
            Step::Arg(Arg::ReplaceAll),
            Step::Arg(Arg::Offset),
        ]
    }

    // The CLI's words name commands, never a tool (`snake_case` names, `name(` calls).
    #[test]
    fn the_cli_never_says_a_tool_call() {
        for step in steps() {
            let said = Front::Cli.say(&step);
            assert!(!calls(&said), "{step:?}: {said}");
            assert!(!said.contains("path="), "{step:?}: {said}");
            assert!(!names_a_tool(&said), "{step:?}: {said}");
            assert!(names_a_tool(&Front::Mcp.say(&step)) || step_without_name(&step));
        }
    }

    /// Whether `s` holds call syntax: a name right before `(`.
    fn calls(s: &str) -> bool {
        s.as_bytes()
            .windows(2)
            .any(|w| w[1] == b'(' && (w[0].is_ascii_alphanumeric() || w[0] == b'_'))
    }

    /// The steps whose MCP words hold no `snake_case` name.
    fn step_without_name(step: &Step<'_>) -> bool {
        matches!(
            step,
            Step::Diagnostics { .. }
                | Step::OutlineAll { .. }
                | Step::Arg(Arg::Line | Arg::Symbol | Arg::Occurrence | Arg::Offset)
        )
    }

    /// Whether `s` holds a word of lowercase letters joined by `_` (a tool or argument name);
    /// ids like `patch_1_abc` have digits in a part and do not count.
    fn names_a_tool(s: &str) -> bool {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| {
                w.contains('_')
                    && w.split('_')
                        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase()))
            })
    }

    // A path is one shell word: left as written when every character is safe at a shell,
    // quoted otherwise (the empty path too, which would vanish unquoted).
    #[test]
    fn paths_are_quoted_only_when_the_shell_needs_it() {
        for (path, word) in [
            ("src/a.ts", "src/a.ts"),
            ("a-b_c.d/@:+,=9", "a-b_c.d/@:+,=9"),
            ("", "''"),
            ("a b", "'a b'"),
            ("$HOME/x", "'$HOME/x'"),
            ("it's", "'it'\\''s'"),
            ("caf\u{e9}", "'caf\u{e9}'"),
        ] {
            assert_eq!(shell_word(path), word, "{path:?}");
        }
        assert_eq!(
            Front::Cli.say(&Step::Diagnostics {
                path: Some("src/a.ts")
            }),
            "run `lspedit check src/a.ts`"
        );
    }

    #[test]
    fn mcp_words_are_the_tools() {
        assert_eq!(
            Front::Mcp.say(&Step::ApplyProposal {
                patch_id: "patch_1"
            }),
            "apply_edit(\"patch_1\")"
        );
        assert_eq!(
            Front::Cli.say(&Step::ReadFrom {
                path: "src/a b.ts",
                offset: 40
            }),
            "`lspedit read 'src/a b.ts' --offset 40`"
        );
    }
}
