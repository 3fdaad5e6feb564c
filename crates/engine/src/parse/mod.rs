//! Patch parsing: format auto-detection and the pieces both formats share (hunk-line markers,
//! anchors, truncation signals). Every error names the 1-based patch line it is about.

mod codex;
mod unified;

use crate::error::{EngineError, Reason};
use crate::hash::{Anchor, is_partial_anchor};
use crate::patch::{Hunk, HunkLine, LineKind, Patch};

/// One line of the patch text with its 1-based number and whether it ended with a newline.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PLine<'a> {
    pub no: usize,
    pub text: &'a str,
    pub terminated: bool,
}

fn split_lines(text: &str) -> Vec<PLine<'_>> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut no = 1;
    while !rest.is_empty() {
        let (raw, terminated, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], true, &rest[i + 1..]),
            None => (rest, false, ""),
        };
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        out.push(PLine {
            no,
            text: line,
            terminated,
        });
        rest = next;
        no += 1;
    }
    out
}

/// Drop a Markdown code fence wrapped around the whole patch (models add them), and leading
/// blank lines. Line numbers keep pointing into the original text.
fn strip_wrapping(mut lines: Vec<PLine<'_>>) -> Vec<PLine<'_>> {
    // One drain, not a `remove(0)` per line: a patch led by many blank lines stays linear.
    let leading = lines
        .iter()
        .take_while(|l| l.text.trim().is_empty())
        .count();
    lines.drain(..leading);
    while lines
        .last()
        .is_some_and(|l| l.text.is_empty() && l.terminated)
    {
        lines.pop();
    }
    if lines
        .first()
        .is_some_and(|l| l.text.trim_start().starts_with("```"))
        && lines.last().is_some_and(|l| l.text.trim() == "```")
    {
        lines.remove(0);
        lines.pop();
    }
    lines
}

/// One token of a shell command line: a word with its quotes removed, or an operator.
#[derive(Debug)]
enum Token<'a> {
    Word {
        value: String,
        /// The word as written, quotes included.
        raw: &'a str,
        /// What in the word the shell would expand (`$`, a backquote, a glob, `~`, braces),
        /// so its value is not what the command sees.
        expands: Option<char>,
    },
    Op(&'a str),
}

impl Token<'_> {
    fn raw(&self) -> &str {
        match self {
            Token::Word { raw, .. } => raw,
            Token::Op(op) => op,
        }
    }

    /// A word the shell passes on as written, equal to `literal`.
    fn is(&self, literal: &str) -> bool {
        matches!(self, Token::Word { value, expands: None, .. } if value == literal)
    }
}

const OPERATORS: [&str; 13] = [
    "<<<", "<<-", "<<", "&&", "||", ";;", ">>", ";", "&", "|", "<", ">", "(",
];

/// Split one shell command line into words and operators, undoing quotes and backslashes.
/// `Err` says what the line holds that no simple reading of it can take (an unclosed quote).
fn shell_tokens(line: &str) -> Result<Vec<Token<'_>>, String> {
    let mut tokens = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        if let Some(op) = OPERATORS
            .iter()
            .chain(&[")", "#"])
            .find(|op| rest.starts_with(**op))
        {
            tokens.push(Token::Op(&rest[..op.len()]));
            rest = rest[op.len()..].trim_start();
            continue;
        }
        let mut value = String::new();
        let mut expands = None;
        let mut chars = rest.char_indices().peekable();
        let mut end = rest.len();
        while let Some((i, c)) = chars.next() {
            match c {
                c if c.is_whitespace() || ";&|<>()".contains(c) => {
                    end = i;
                    break;
                }
                '\'' => loop {
                    match chars.next() {
                        Some((_, '\'')) => break,
                        Some((_, c)) => value.push(c),
                        None => return Err(format!("the unclosed quote in `{rest}`")),
                    }
                },
                '"' => loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, c @ ('$' | '`' | '"' | '\\'))) => value.push(c),
                            Some((_, c)) => {
                                value.push('\\');
                                value.push(c);
                            }
                            None => return Err(format!("the unclosed quote in `{rest}`")),
                        },
                        Some((_, c @ ('$' | '`'))) => {
                            expands.get_or_insert(c);
                            value.push(c);
                        }
                        Some((_, c)) => value.push(c),
                        None => return Err(format!("the unclosed quote in `{rest}`")),
                    }
                },
                '\\' => match chars.next() {
                    Some((_, c)) => value.push(c),
                    None => return Err(format!("the line continuation in `{rest}`")),
                },
                '$' | '`' | '*' | '?' | '[' | '{' => {
                    expands.get_or_insert(c);
                    value.push(c);
                }
                '~' if i == 0 => {
                    expands.get_or_insert(c);
                    value.push(c);
                }
                c => value.push(c),
            }
        }
        tokens.push(Token::Word {
            value,
            raw: &rest[..end],
            expands,
        });
        rest = rest[end..].trim_start();
    }
    Ok(tokens)
}

/// The shell command a Codex envelope came wrapped in, as far as lspedit honours it.
#[derive(Debug)]
struct Wrapper {
    /// The heredoc's delimiter: the line that ends the patch.
    delimiter: String,
    /// `DIR` of a leading `cd DIR &&` (or `cd DIR;`): every path of the envelope is taken
    /// relative to it, as the Codex CLI does.
    dir: Option<String>,
}

/// `<<'EOF'` at the start of `tokens`: the delimiter and the tokens after it.
fn heredoc<'t, 'a>(tokens: &'t [Token<'a>]) -> Option<(String, &'t [Token<'a>])> {
    match tokens {
        [
            Token::Op("<<" | "<<-"),
            Token::Word {
                value,
                expands: None,
                ..
            },
            tail @ ..,
        ] if !value.is_empty()
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') =>
        {
            Some((value.clone(), tail))
        }
        _ => None,
    }
}

/// Read the command line opening a heredoc around an envelope. Understood: `apply_patch
/// <<'EOF'` and `cat <<'EOF' | apply_patch` (`applypatch` too; any quoting of the delimiter,
/// `<<-`), and the heredoc with no command to run it: a bare `<<'EOF'` (Codex's lenient parser
/// takes it: models send the heredoc as the tool's argument) and `cat <<'EOF'` without the pipe
/// (OpenCode takes it); each optionally after one `cd DIR &&` or `cd DIR;`. The patch tool
/// receiving the text is what runs it, so a heredoc that only prints its body asks for nothing
/// else. `Err` names the part of the command that is not honoured: running the patch without
/// it would write somewhere else than meant (a redirection, a second command, a pipe into
/// anything but `apply_patch`).
fn read_wrapper(line: &str) -> Result<Wrapper, String> {
    let tokens = shell_tokens(line)?;
    let mut rest = &tokens[..];
    let mut dir = None;
    if rest.first().is_some_and(|t| t.is("cd")) {
        match rest {
            [
                _,
                Token::Word {
                    value,
                    expands: None,
                    ..
                },
                Token::Op("&&" | ";"),
                tail @ ..,
            ] if !value.is_empty() && !value.starts_with('-') => {
                dir = Some(value.clone());
                rest = tail;
            }
            [
                _,
                word @ Token::Word {
                    expands: Some(c), ..
                },
                ..,
            ] => {
                return Err(format!(
                    "`cd {}` (the shell would expand its `{c}`)",
                    word.raw()
                ));
            }
            _ => {
                let shown: Vec<&str> = rest.iter().take(3).map(Token::raw).collect();
                return Err(format!("`{}`", shown.join(" ")));
            }
        }
    }
    let is_apply = |t: &Token<'_>| t.is("apply_patch") || t.is("applypatch");
    // A bare heredoc: no command before it.
    let bare = heredoc(rest).is_some();
    if !bare {
        let Some(start) = rest.iter().position(|t| is_apply(t) || t.is("cat")) else {
            return Err(format!("`{}`: it runs no `apply_patch`", line.trim()));
        };
        if start > 0 {
            let shown: Vec<&str> = rest[..start].iter().map(Token::raw).collect();
            return Err(format!("`{}`", shown.join(" ")));
        }
    }
    let (delimiter, left) = match rest {
        _ if bare => heredoc(rest),
        [cmd, tail @ ..] if is_apply(cmd) => heredoc(tail),
        [_cat, tail @ ..] => heredoc(tail).map(|(d, after)| match after {
            [Token::Op("|"), cmd, after @ ..] if is_apply(cmd) => (d, after),
            after => (d, after),
        }),
        [] => None,
    }
    .ok_or_else(|| {
        let shown: Vec<&str> = rest.iter().map(Token::raw).collect();
        format!("`{}`", shown.join(" "))
    })?;
    if !left.is_empty() {
        let shown: Vec<&str> = left.iter().map(Token::raw).collect();
        return Err(format!("`{}` after the heredoc", shown.join(" ")));
    }
    Ok(Wrapper { delimiter, dir })
}

/// Unwrap a shell heredoc around a Codex envelope: models send the command they would run
/// (`apply_patch <<'EOF'` … `EOF`, `cd dir && apply_patch <<'EOF'` …). The opener must be
/// directly followed by `*** Begin Patch` and the last line must be the delimiter; anything
/// else, and any part of the command lspedit does not honour, is refused naming the line,
/// since a guess could apply a different patch than the one meant, or in another place.
/// Returns the envelope's lines and the directory its paths are relative to.
fn strip_heredoc<'a>(
    lines: Vec<PLine<'a>>,
) -> Result<(Vec<PLine<'a>>, Option<String>), EngineError> {
    let Some(first) = lines.first().copied() else {
        return Ok((lines, None));
    };
    // `<<<` is a here-string, not a heredoc; a line starting `***` is patch text.
    if !first.text.contains("<<") || first.text.trim_start().starts_with("***") {
        return Ok((lines, None));
    }
    let next = lines[1..].iter().find(|l| !l.text.trim().is_empty());
    let Some(next) = next else {
        return Ok((lines, None));
    };
    if next.text.trim() != BEGIN_PATCH {
        refuse_directory_change(first, next)?;
        return Ok((lines, None));
    }
    let wrapper = read_wrapper(first.text).map_err(|what| {
        EngineError::at_line(
            Reason::InvalidDiffFormat,
            first.no,
            format!(
                "the patch is wrapped in the shell command `{}`, and lspedit cannot honour {what}. Nothing was applied. Understood are `apply_patch <<'EOF'`, `cat <<'EOF' | apply_patch`, `cat <<'EOF'` and a bare `<<'EOF'`, optionally after one `cd DIR &&`; or send the `*** Begin Patch` … `*** End Patch` text alone, with paths relative to the workspace root",
                first.text.trim()
            ),
        )
    })?;
    let delimiter = wrapper.delimiter.as_str();
    let Some(last) = lines.last().copied() else {
        return Ok((lines, None));
    };
    // The opener and the `*** Begin Patch` after it are two lines, and a delimiter (letters,
    // digits, `_-.`) is never that marker: a last line that is the delimiter is a third line.
    if last.text.trim() != delimiter {
        return Err(EngineError::at_line(
            Reason::InvalidDiffFormat,
            last.no,
            format!(
                "the patch opens a shell heredoc on line {} (`{}`) but its last line `{}` is not the delimiter `{delimiter}`; send the `*** Begin Patch` … `*** End Patch` text alone, without the shell command around it",
                first.no,
                first.text.trim(),
                last.text.trim()
            ),
        ));
    }
    Ok((lines[1..lines.len() - 1].to_vec(), wrapper.dir))
}

/// A unified diff right after a heredoc opener that changes directory (`cd sub && patch -p1
/// <<'EOF'`) is refused: the diff's paths would be read relative to the workspace root, not
/// the directory, and `git apply` and `patch` disagree on what that directory means for them.
/// Text before a diff is otherwise prose, ignored as git apply ignores it.
fn refuse_directory_change(first: PLine<'_>, next: &PLine<'_>) -> Result<(), EngineError> {
    if !starts_unified(next.text) {
        return Ok(());
    }
    let Ok(tokens) = shell_tokens(first.text) else {
        return Ok(());
    };
    let opens_heredoc = tokens.iter().any(|t| matches!(t, Token::Op("<<" | "<<-")));
    let Some(cd) = tokens.iter().find(|t| t.is("cd") || t.is("pushd")) else {
        return Ok(());
    };
    if !opens_heredoc {
        return Ok(());
    }
    Err(EngineError::at_line(
        Reason::InvalidDiffFormat,
        first.no,
        format!(
            "the diff is wrapped in the shell command `{}`, whose `{}` lspedit cannot honour for a unified diff. Nothing was applied; send the diff alone, with paths relative to the workspace root",
            first.text.trim(),
            cd.raw()
        ),
    ))
}

/// `path` as seen from inside `dir` (a wrapper's `cd DIR`), joined lexically: an absolute path
/// stays as it is, and `..` or an absolute `dir` is kept for the caller's confinement to judge.
pub(crate) fn join_dir(dir: Option<&str>, path: String) -> String {
    let Some(mut dir) = dir else { return path };
    // `./src` and `src` are one directory; the report names it the short way.
    while let Some(rest) = dir.strip_prefix("./") {
        dir = rest.trim_start_matches('/');
    }
    if path.starts_with('/') || dir.is_empty() || dir == "." {
        return path;
    }
    match dir.trim_end_matches('/') {
        "" => format!("/{path}"),
        dir => format!("{dir}/{path}"),
    }
}

const BEGIN_PATCH: &str = "*** Begin Patch";

/// A line that starts unified-diff text: a `*** Begin Patch` after it is content, not a marker.
fn starts_unified(text: &str) -> bool {
    text.starts_with("diff --git ") || text.starts_with("--- ") || text.starts_with("@@")
}

/// Parse a patch in any supported format.
///
/// Errors: `empty_diff` (nothing in it), `invalid_diff_format`, `truncated_input`,
/// `anchored_addition`, `binary_file` (git binary patches), `unsafe_diff` (copies).
pub fn parse_patch(text: &str) -> Result<Patch, EngineError> {
    let (lines, dir) = strip_heredoc(strip_wrapping(split_lines(text)))?;
    let Some(first) = lines.iter().find(|l| !l.text.trim().is_empty()) else {
        return Err(EngineError::new(Reason::EmptyDiff, "the patch is empty"));
    };
    // Markers padded with whitespace are still markers (models indent whole patches).
    let patch = if first.text.trim() == BEGIN_PATCH {
        codex::parse(&lines, dir.as_deref())?
    } else if let Some(begin) = lines
        .iter()
        .take_while(|l| !starts_unified(l.text))
        .find(|l| l.text.trim() == BEGIN_PATCH)
    {
        // Text before the envelope that is not a heredoc opener: refuse rather than report a
        // patch that "changes no file".
        return Err(EngineError::at_line(
            Reason::InvalidDiffFormat,
            first.no,
            format!(
                "unexpected text `{}` before `*** Begin Patch` (line {}); send the `*** Begin Patch` … `*** End Patch` text alone",
                first.text.trim(),
                begin.no
            ),
        ));
    } else {
        unified::parse(&lines)?
    };
    if patch.files.is_empty() {
        // Text with no diff structure at all is not a diff that changes nothing: say what a
        // patch looks like instead of "changes no file".
        let structured = lines.iter().any(|l| {
            let t = l.text.trim_start();
            t.starts_with("--- ")
                || t.starts_with("+++ ")
                || t.starts_with("@@")
                || t.starts_with("diff --git ")
                || t.starts_with("*** ")
        });
        if !structured {
            let shown: String = first.text.trim().chars().take(60).collect();
            return Err(EngineError::at_line(
                Reason::InvalidDiffFormat,
                first.no,
                format!(
                    "no diff found: the text has no `---`/`+++` file headers, `@@` hunks or `*** Begin Patch` envelope (it starts `{shown}`); send a unified diff or a `*** Begin Patch` … `*** End Patch` envelope"
                ),
            ));
        }
        return Err(EngineError::new(
            Reason::EmptyDiff,
            "the patch changes no file",
        ));
    }
    Ok(patch)
}

/// The path a file marker or header names, checked: it must name a file, so an empty path or
/// one ending in `/` (a directory) is refused naming the patch line, never created as a file
/// named after the directory.
pub(crate) fn file_path(path: &str, line: usize) -> Result<String, EngineError> {
    if path.is_empty() {
        return Err(EngineError::at_line(
            Reason::InvalidDiffFormat,
            line,
            "missing path after the file marker; name the file, e.g. `*** Add File: src/new.rs`",
        ));
    }
    if path.ends_with('/') || path.ends_with('\\') {
        return Err(EngineError::at_line(
            Reason::InvalidDiffFormat,
            line,
            format!(
                "`{path}` names a directory, not a file; name the file to create or change (directories are created for it), e.g. `{path}file.txt`"
            ),
        ));
    }
    Ok(path.to_string())
}

/// Parse the part of a hunk line after its marker: an optional anchor `42abcd|` (one space
/// before it tolerated), then the content.
pub(crate) fn parse_body(kind: LineKind, body: &str, pl: PLine<'_>) -> HunkLine {
    let candidate = body.strip_prefix(' ').unwrap_or(body);
    if let Some((anchor, content)) = Anchor::split_prefix(candidate) {
        return HunkLine {
            kind,
            text: content.to_string(),
            anchor: Some(anchor),
            patch_line: pl.no,
        };
    }
    HunkLine {
        kind,
        text: body.to_string(),
        anchor: None,
        patch_line: pl.no,
    }
}

/// Checks every parsed hunk gets: no `+` line carries an anchor, and a last patch line that
/// was cut mid-anchor or is an unterminated addition.
///
/// A `+` line starting like an anchor (`+9abcd|B`) is refused whether all of the hunk's `+`
/// lines do so or only one: dropping the prefix writes other text than the line says when it is
/// content, and keeping it writes an anchor into the file when it was copied from the hashline
/// view. Only a refusal corrupts neither, and one rule for every `+` line keeps a hunk from
/// meaning something else because a neighbouring line changed.
pub(crate) fn check_hunk(
    hunk: &mut Hunk,
    index: usize,
    last_line: Option<PLine<'_>>,
) -> Result<(), EngineError> {
    let adds = hunk.lines.iter().filter(|l| l.kind == LineKind::Add);
    let anchored = adds.clone().filter(|l| l.anchor.is_some()).count();
    if let Some(first) = adds.clone().find(|l| l.anchor.is_some()) {
        let anchor = first.anchor.map(|a| a.to_string()).unwrap_or_default();
        let which = if anchored == adds.count() {
            format!("every `+` line carries an anchor like `{anchor}|`")
        } else {
            format!(
                "the `+` line `+{anchor}|{}` starts with an anchor",
                first.text
            )
        };
        return Err(EngineError::at_line(
            Reason::AnchoredAddition,
            first.patch_line,
            format!(
                "hunk {index}: {which}. Anchors belong only on context and removal lines; write added lines as plain `+text`. Nothing was applied; if `{anchor}|` really begins the line's text, a patch cannot add it: write the file whole or edit it by search and replace"
            ),
        )
        .with_hunk(index));
    }
    let Some(last) = last_line else { return Ok(()) };
    let Some(hl) = hunk.lines.last() else {
        return Ok(());
    };
    if hl.patch_line != last.no {
        return Ok(());
    }
    let body = last.text.get(1..).unwrap_or("");
    let body = body.strip_prefix(' ').unwrap_or(body);
    let anchored_hunk = hunk.lines.iter().any(|l| l.anchor.is_some());
    // Only context and removal lines carry anchors, so only they can be cut mid-anchor: an
    // addition such as `+2024` is content (an unterminated one is refused below anyway).
    if hl.kind != LineKind::Add
        && hl.anchor.is_none()
        && is_partial_anchor(body)
        && (anchored_hunk || !last.terminated)
    {
        return Err(EngineError::at_line(
            Reason::TruncatedInput,
            last.no,
            format!("the patch ends mid-anchor (`{}`): it was cut off. Nothing was applied; resend the whole patch", last.text),
        )
        .with_hunk(index));
    }
    if !last.terminated {
        if hl.kind == LineKind::Add {
            return Err(EngineError::at_line(
                Reason::TruncatedInput,
                last.no,
                "the patch's last line is an addition without a terminating newline, so nothing proves it was not cut mid-line. Nothing was applied; resend the patch ending with a newline",
            )
            .with_hunk(index));
        }
        hunk.unterminated_last = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
