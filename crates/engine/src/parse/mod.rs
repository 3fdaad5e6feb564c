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

/// Parse a patch in any supported format.
///
/// Errors: `empty_diff` (nothing in it), `invalid_diff_format`, `truncated_input`,
/// `anchored_addition`, `binary_file` (git binary patches), `unsafe_diff` (copies).
pub fn parse_patch(text: &str) -> Result<Patch, EngineError> {
    let lines = strip_wrapping(split_lines(text));
    let Some(first) = lines.iter().find(|l| !l.text.trim().is_empty()) else {
        return Err(EngineError::new(Reason::EmptyDiff, "the patch is empty"));
    };
    let patch = if first.text.trim_end() == "*** Begin Patch" {
        codex::parse(&lines)?
    } else {
        unified::parse(&lines)?
    };
    if patch.files.is_empty() {
        return Err(EngineError::new(
            Reason::EmptyDiff,
            "the patch changes no file",
        ));
    }
    Ok(patch)
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

/// Checks every parsed hunk gets: `+` lines that all carry anchors, and a last patch line that
/// was cut mid-anchor or is an unterminated addition.
pub(crate) fn check_hunk(
    hunk: &mut Hunk,
    index: usize,
    last_line: Option<PLine<'_>>,
) -> Result<(), EngineError> {
    let adds: Vec<&HunkLine> = hunk
        .lines
        .iter()
        .filter(|l| l.kind == LineKind::Add)
        .collect();
    if !adds.is_empty() && adds.iter().all(|l| l.anchor.is_some()) {
        return Err(EngineError::at_line(
            Reason::AnchoredAddition,
            adds[0].patch_line,
            format!(
                "hunk {index}: every `+` line carries an anchor like `{}|`. Anchors belong only on context and removal lines; write added lines as plain `+text`",
                adds[0].anchor.map(|a| a.to_string()).unwrap_or_default()
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
