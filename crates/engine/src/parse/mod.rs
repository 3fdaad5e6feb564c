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

/// The delimiter of a shell heredoc opened on `line` (`apply_patch <<'EOF'`, `<<EOF`,
/// `<<"EOF"`, `<<-EOF`, `cat <<'EOF' | apply_patch`), or `None` when the line opens none.
fn heredoc_delimiter(line: &str) -> Option<&str> {
    let (command, rest) = line.split_once("<<")?;
    // `<<<` is a here-string, not a heredoc; a command before `<<` is a word, not patch text.
    if rest.starts_with('<') || command.trim_start().starts_with("***") {
        return None;
    }
    let rest = rest.strip_prefix('-').unwrap_or(rest).trim_start();
    let (word, after) = match rest.chars().next()? {
        q @ ('\'' | '"') => {
            let body = &rest[1..];
            let end = body.find(q)?;
            (&body[..end], &body[end + 1..])
        }
        _ => {
            let end = rest
                .find(|c: char| c.is_whitespace() || c == '|' || c == ';')
                .unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        }
    };
    let word_ok = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.');
    // After the delimiter only a pipe into the applying command may follow.
    let after = after.trim();
    (word_ok && (after.is_empty() || after.starts_with('|'))).then_some(word)
}

/// Unwrap a shell heredoc around a Codex envelope: models send the command they would run
/// (`apply_patch <<'EOF'` … `EOF`). The opener must be directly followed by `*** Begin Patch`
/// and the last line must be the delimiter; anything else is refused naming the line, since a
/// guess at where the patch ends could apply a different patch than the one meant.
fn strip_heredoc<'a>(lines: Vec<PLine<'a>>) -> Result<Vec<PLine<'a>>, EngineError> {
    let Some(first) = lines.first().copied() else {
        return Ok(lines);
    };
    let Some(delimiter) = heredoc_delimiter(first.text) else {
        return Ok(lines);
    };
    let next = lines[1..].iter().find(|l| !l.text.trim().is_empty());
    if next.is_none_or(|l| l.text.trim() != BEGIN_PATCH) {
        return Ok(lines);
    }
    let Some(last) = lines.last().copied() else {
        return Ok(lines);
    };
    if lines.len() < 3 || last.text.trim() != delimiter {
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
    Ok(lines[1..lines.len() - 1].to_vec())
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
    let lines = strip_heredoc(strip_wrapping(split_lines(text)))?;
    let Some(first) = lines.iter().find(|l| !l.text.trim().is_empty()) else {
        return Err(EngineError::new(Reason::EmptyDiff, "the patch is empty"));
    };
    // Markers padded with whitespace are still markers (models indent whole patches).
    let patch = if first.text.trim() == BEGIN_PATCH {
        codex::parse(&lines)?
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
