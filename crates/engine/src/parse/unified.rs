//! Unified diff, plain or git-style, with optional anchors on context and removal lines.

use super::{PLine, check_hunk, parse_body};
use crate::error::{EngineError, Reason};
use crate::patch::{FileChange, FilePatch, Hunk, LineKind, Patch, PatchFormat};

const DEV_NULL: &str = "/dev/null";

struct Header {
    old_start: usize,
    old_count: usize,
    new_start: usize,
    new_count: usize,
    hint: Option<String>,
}

/// Parse `@@ -a[,b] +c[,d] @@ [hint]`. `Ok(None)` for the number-less forms: `@@ @@`, `@@`,
/// and Aider's `@@ ... @@` (also with `…`), whose hunks are located by content.
fn parse_header(pl: PLine<'_>) -> Result<Option<Header>, EngineError> {
    let rest = pl.text.strip_prefix("@@").unwrap_or(pl.text).trim_start();
    let rest = rest
        .strip_prefix("...")
        .or_else(|| rest.strip_prefix('\u{2026}'))
        .map_or(rest, str::trim_start);
    if rest.is_empty() || rest.starts_with("@@") {
        return Ok(None);
    }
    let bad = || {
        EngineError::at_line(
            Reason::InvalidDiffFormat,
            pl.no,
            format!(
                "malformed hunk header `{}`; expected `@@ -a,b +c,d @@` (or `@@ @@` with anchored lines)",
                pl.text
            ),
        )
    };
    let (ranges, hint) = match rest.find("@@") {
        Some(i) => (&rest[..i], rest[i + 2..].trim()),
        None => return Err(bad()),
    };
    let mut parts = ranges.split_whitespace();
    let old = parts
        .next()
        .and_then(|p| p.strip_prefix('-'))
        .ok_or_else(bad)?;
    let new = parts
        .next()
        .and_then(|p| p.strip_prefix('+'))
        .ok_or_else(bad)?;
    if parts.next().is_some() {
        return Err(bad());
    }
    let range = |s: &str| -> Option<(usize, usize)> {
        match s.split_once(',') {
            Some((a, b)) => Some((a.parse().ok()?, b.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    };
    let (old_start, old_count) = range(old).ok_or_else(bad)?;
    let (new_start, new_count) = range(new).ok_or_else(bad)?;
    Ok(Some(Header {
        old_start,
        old_count,
        new_start,
        new_count,
        hint: (!hint.is_empty()).then(|| hint.to_string()),
    }))
}

/// Strip a trailing timestamp (after a tab) and surrounding quotes (undoing git's escapes).
fn clean_path(raw: &str) -> String {
    let raw = raw.split('\t').next().unwrap_or(raw).trim_end();
    raw.strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .map(unescape_git)
        .unwrap_or_else(|| raw.to_string())
}

/// A `---`/`+++`/`diff --git` path without its git prefix, `a/` or `b/` whichever side carries
/// it: `git diff -R` writes `--- b/x` / `+++ a/x`, and git apply's `-p1` strips one component
/// from both sides alike.
fn diff_path(raw: &str) -> String {
    let path = clean_path(raw);
    if path == DEV_NULL {
        return path;
    }
    match path.strip_prefix("a/").or_else(|| path.strip_prefix("b/")) {
        Some(p) => p.to_string(),
        None => path,
    }
}

/// Undo git's C-style quoting of unusual path names (`\"`, `\\`, `\t`, `\n`, octal bytes).
fn unescape_git(s: &str) -> String {
    let mut bytes = Vec::with_capacity(s.len());
    let mut it = s.bytes().peekable();
    while let Some(b) = it.next() {
        if b != b'\\' {
            bytes.push(b);
            continue;
        }
        match it.next() {
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(d @ b'0'..=b'7') => {
                let mut v = u32::from(d - b'0');
                for _ in 0..2 {
                    if let Some(&n @ b'0'..=b'7') = it.peek() {
                        v = v * 8 + u32::from(n - b'0');
                        it.next();
                    }
                }
                bytes.push((v & 0xff) as u8);
            }
            Some(other) => bytes.push(other),
            None => bytes.push(b'\\'),
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Paths from `diff --git a/x b/y` (also `b/x a/x` as `git diff -R` writes it, and quoted
/// paths). Only reliable when the first path does not contain the other side's prefix after a
/// space; `None` when the line does not say.
fn git_header_paths(rest: &str) -> Option<(String, String)> {
    let split = if let Some(quoted) = rest.strip_prefix('"') {
        // The first path ends at the first quote not escaped by a backslash.
        let mut escaped = false;
        let end = quoted.char_indices().find_map(|(i, c)| {
            let found = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            found.then_some(i)
        })?;
        end + 2
    } else {
        let other = if rest.starts_with("a/") {
            " b/"
        } else if rest.starts_with("b/") {
            " a/"
        } else {
            return None;
        };
        rest.find(other)
            .or_else(|| rest.find(" \"").filter(|_| rest.ends_with('"')))?
    };
    let (old, new) = (rest[..split].trim(), rest[split..].trim());
    (!old.is_empty() && !new.is_empty()).then(|| (diff_path(old), diff_path(new)))
}

fn is_file_header(lines: &[PLine<'_>], i: usize) -> bool {
    let l = lines[i].text;
    l.starts_with("diff --git ")
        || (l.starts_with("--- ") && lines.get(i + 1).is_some_and(|n| n.text.starts_with("+++ ")))
}

#[derive(Default)]
struct Section {
    old: Option<String>,
    new: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted: bool,
    old_mode: Option<u32>,
    new_mode: Option<u32>,
    hunks: Vec<Hunk>,
    patch_line: usize,
}

impl Section {
    /// Whether the `---`/`+++` pair naming `old` and `new` belongs to this section, or starts
    /// the next one. A `diff --git` section that is whole without hunks (a rename, a mode change,
    /// an empty new or deleted file) takes them only when they name its own files, as git
    /// does; otherwise a plain diff after it would lose its file to the git section.
    fn owns(&self, old: &str, new: &str) -> bool {
        let whole = self.rename_from.is_some()
            || self.rename_to.is_some()
            || self.old_mode.is_some()
            || self.new_mode.is_some();
        if !whole {
            return true;
        }
        let agrees =
            |path: &str, own: Option<&String>| path == DEV_NULL || own.is_none_or(|o| o == path);
        agrees(old, self.rename_from.as_ref().or(self.old.as_ref()))
            && agrees(new, self.rename_to.as_ref().or(self.new.as_ref()))
    }
}

/// The octal mode of a git `old mode 100644`-style line (`rest` is what follows the words).
fn parse_mode(rest: &str, pl: PLine<'_>) -> Result<u32, EngineError> {
    let digits = rest.trim();
    if !digits.is_empty()
        && digits.len() <= 7
        && digits.bytes().all(|b| (b'0'..=b'7').contains(&b))
        && let Ok(mode) = u32::from_str_radix(digits, 8)
    {
        return Ok(mode);
    }
    Err(EngineError::at_line(
        Reason::InvalidDiffFormat,
        pl.no,
        format!(
            "`{}`: a file mode is up to 7 octal digits, like `100644` or `100755`",
            pl.text.trim()
        ),
    ))
}

pub(super) fn parse(lines: &[PLine<'_>]) -> Result<Patch, EngineError> {
    let mut files = Vec::new();
    let mut i = 0;
    let mut hunk_no = 0;
    let last_line = lines.last().copied();
    while i < lines.len() {
        let pl = lines[i];
        if pl.text.starts_with("@@") {
            return Err(EngineError::at_line(
                Reason::InvalidDiffFormat,
                pl.no,
                "hunk without a file header; start each file with `--- a/path` and `+++ b/path`",
            ));
        }
        if !is_file_header(lines, i) {
            // Text before, between or after file sections (prose, `Index:` lines) is ignored,
            // as git apply does.
            i += 1;
            continue;
        }
        let mut sec = Section {
            patch_line: pl.no,
            ..Section::default()
        };
        if let Some(rest) = pl.text.strip_prefix("diff --git ") {
            if let Some((a, b)) = git_header_paths(rest) {
                sec.old = Some(a);
                sec.new = Some(b);
            }
            i += 1;
            while i < lines.len() {
                let t = lines[i].text;
                if t.starts_with("@@") || is_file_header(lines, i) {
                    break;
                }
                if let Some(p) = t.strip_prefix("rename from ") {
                    sec.rename_from = Some(clean_path(p));
                } else if let Some(p) = t.strip_prefix("rename to ") {
                    sec.rename_to = Some(clean_path(p));
                } else if let Some(m) = t.strip_prefix("new file mode") {
                    sec.new_file = true;
                    sec.new_mode = Some(parse_mode(m, lines[i])?);
                } else if let Some(m) = t.strip_prefix("deleted file mode") {
                    sec.deleted = true;
                    sec.old_mode = Some(parse_mode(m, lines[i])?);
                } else if let Some(m) = t.strip_prefix("old mode") {
                    sec.old_mode = Some(parse_mode(m, lines[i])?);
                } else if let Some(m) = t.strip_prefix("new mode") {
                    sec.new_mode = Some(parse_mode(m, lines[i])?);
                } else if t.starts_with("copy from ") || t.starts_with("copy to ") {
                    return Err(EngineError::at_line(
                        Reason::UnsafeDiff,
                        lines[i].no,
                        "git copies are not supported; write the new file as a creation instead",
                    ));
                } else if t.starts_with("GIT binary patch")
                    || (t.starts_with("Binary files ") && t.ends_with(" differ"))
                {
                    return Err(EngineError::at_line(
                        Reason::BinaryFile,
                        lines[i].no,
                        "binary patches are not supported; binary files are never text-patched",
                    ));
                } else if !(t.starts_with("index ")
                    || t.starts_with("similarity index")
                    || t.starts_with("dissimilarity index")
                    || t.trim().is_empty())
                {
                    break;
                }
                i += 1;
            }
        }
        if i + 1 < lines.len()
            && lines[i].text.starts_with("--- ")
            && lines[i + 1].text.starts_with("+++ ")
        {
            let old = diff_path(&lines[i].text[4..]);
            let new = diff_path(&lines[i + 1].text[4..]);
            if sec.owns(&old, &new) {
                sec.old = Some(old);
                sec.new = Some(new);
                i += 2;
            }
        }
        while i < lines.len() && lines[i].text.starts_with("@@") {
            hunk_no += 1;
            let (hunk, next) = parse_hunk(lines, i, hunk_no, last_line)?;
            sec.hunks.push(hunk);
            i = next;
        }
        files.push(finish_section(sec)?);
    }
    Ok(Patch {
        format: PatchFormat::Unified,
        files,
    })
}

fn finish_section(sec: Section) -> Result<FilePatch, EngineError> {
    let line = sec.patch_line;
    let missing = || {
        EngineError::at_line(
            Reason::InvalidDiffFormat,
            line,
            "file section without paths; add `--- a/path` and `+++ b/path`",
        )
    };
    let old = sec.rename_from.clone().or(sec.old.clone());
    let new = sec.rename_to.clone().or(sec.new.clone());
    let is_null = |p: &Option<String>| p.as_deref() == Some(DEV_NULL);
    let change = if sec.new_file || is_null(&sec.old) {
        let path = new.filter(|p| p != DEV_NULL).ok_or_else(missing)?;
        let path = super::file_path(&path, line)?;
        let mut content = Vec::new();
        let mut final_newline = true;
        for h in &sec.hunks {
            if h.old_side().next().is_some() {
                return Err(EngineError::at_line(
                    Reason::InvalidDiffFormat,
                    h.patch_line,
                    format!("`{path}` is created from /dev/null, so its hunks may only add lines"),
                ));
            }
            content.extend(h.lines.iter().map(|l| l.text.clone()));
            final_newline = !h.new_no_newline;
        }
        FileChange::Add {
            path,
            lines: content,
            final_newline,
        }
    } else if sec.deleted || is_null(&sec.new) {
        let path = old.filter(|p| p != DEV_NULL).ok_or_else(missing)?;
        FileChange::Delete {
            path,
            hunks: sec.hunks,
        }
    } else {
        let path = old.ok_or_else(missing)?;
        let new = new.ok_or_else(missing)?;
        let move_to = (new != path).then_some(new);
        let mode_changes = sec.new_mode.is_some_and(|m| Some(m) != sec.old_mode);
        if move_to.is_none() && sec.hunks.is_empty() && !mode_changes {
            return Err(EngineError::at_line(
                Reason::InvalidDiffFormat,
                line,
                format!("the section for `{path}` has no hunks"),
            ));
        }
        FileChange::Update {
            path,
            move_to,
            hunks: sec.hunks,
        }
    };
    Ok(FilePatch {
        change,
        patch_line: line,
        old_mode: sec.old_mode,
        new_mode: sec.new_mode,
    })
}

/// Parse one hunk starting at the header `lines[start]`. Returns the hunk and the index of the
/// first line after it.
fn parse_hunk<'a>(
    lines: &[PLine<'a>],
    start: usize,
    index: usize,
    last_line: Option<PLine<'a>>,
) -> Result<(Hunk, usize), EngineError> {
    let header_line = lines[start];
    let header = parse_header(header_line)?;
    let mut hunk = Hunk {
        patch_line: header_line.no,
        ..Hunk::default()
    };
    if let Some(h) = &header {
        hunk.old_start = Some(h.old_start);
        hunk.old_count = Some(h.old_count);
        hunk.new_start = Some(h.new_start);
        hunk.new_count = Some(h.new_count);
        hunk.context_hint = h.hint.clone();
    }
    let (mut old_seen, mut new_seen) = (0usize, 0usize);
    // Empty lines stand for blank context lines only when more hunk lines follow them (or the
    // header still needs them); trailing ones are the patch's own spacing.
    let mut pending_blank: Vec<PLine<'a>> = Vec::new();
    let mut i = start + 1;
    while i < lines.len() {
        let pl = lines[i];
        let t = pl.text;
        if t.starts_with("@@") || is_file_header(lines, i) {
            // A removal line can look like `--- x` (an SQL or Lua comment removed, and an added
            // `++ y` as `+++ y`); trust the header count while it still needs lines, unless the
            // pair is followed by a hunk header and would not end this hunk exactly: then it is
            // the next file's header, and a count too high must not take it and its hunk into
            // this file (the next file would vanish from the report).
            let needs_more = header.as_ref().is_some_and(|h| old_seen < h.old_count);
            let ends_exactly = header
                .as_ref()
                .is_some_and(|h| old_seen + 1 == h.old_count && new_seen + 1 == h.new_count);
            let next_file = is_file_header(lines, i)
                && !ends_exactly
                && lines.get(i + 2).is_some_and(|l| l.text.starts_with("@@ -"));
            if !(t.starts_with("--- ") && needs_more) || next_file {
                break;
            }
        }
        let (kind, body) = match t.as_bytes().first() {
            Some(b' ') => (LineKind::Context, &t[1..]),
            Some(b'-') => (LineKind::Remove, &t[1..]),
            Some(b'+') => (LineKind::Add, &t[1..]),
            Some(b'\\') => {
                // `\ No newline at end of file` applies to the line before it.
                if let Some(prev) = hunk.lines.last() {
                    match prev.kind {
                        LineKind::Context => {
                            hunk.old_no_newline = true;
                            hunk.new_no_newline = true;
                        }
                        LineKind::Remove => hunk.old_no_newline = true,
                        LineKind::Add => hunk.new_no_newline = true,
                    }
                }
                i += 1;
                continue;
            }
            None => {
                pending_blank.push(pl);
                i += 1;
                continue;
            }
            Some(_) => break,
        };
        for blank in pending_blank.drain(..) {
            hunk.lines.push(parse_body(LineKind::Context, "", blank));
            old_seen += 1;
            new_seen += 1;
        }
        let line = parse_body(kind, body, pl);
        match kind {
            LineKind::Context => {
                old_seen += 1;
                new_seen += 1;
            }
            LineKind::Remove => old_seen += 1,
            LineKind::Add => new_seen += 1,
        }
        hunk.lines.push(line);
        i += 1;
    }
    if let Some(h) = &header {
        for blank in pending_blank.drain(..) {
            if old_seen >= h.old_count || new_seen >= h.new_count {
                break;
            }
            hunk.lines.push(parse_body(LineKind::Context, "", blank));
            old_seen += 1;
            new_seen += 1;
        }
        let is_last = !lines[i..].iter().any(|l| {
            l.text.starts_with("@@")
                || l.text.starts_with("diff --git ")
                || l.text.starts_with("--- ")
        });
        if is_last && (old_seen < h.old_count || new_seen < h.new_count) {
            let short = (h.old_count - old_seen.min(h.old_count))
                .max(h.new_count - new_seen.min(h.new_count));
            return Err(EngineError::at_line(
                Reason::TruncatedInput,
                header_line.no,
                format!(
                    "hunk {index} (`{}`) ends {short} line(s) short of its header at the end of the patch: the patch looks cut off. Nothing was applied. Resend the rest; if the header count is simply wrong, fix the count",
                    header_line.text
                ),
            )
            .with_hunk(index));
        }
    }
    if hunk.lines.is_empty() {
        return Err(EngineError::at_line(
            Reason::InvalidDiffFormat,
            header_line.no,
            format!("hunk {index} has no lines"),
        )
        .with_hunk(index));
    }
    // Without counts nothing tells a complete last hunk from one cut at a line end, unless
    // text follows it or it ends with a context line (a cut there loses context only).
    hunk.end_unproven = header.is_none()
        && hunk
            .lines
            .last()
            .is_some_and(|l| l.kind != LineKind::Context)
        && lines[i..].iter().all(|l| l.text.trim().is_empty());
    check_hunk(&mut hunk, index, last_line)?;
    Ok((hunk, i))
}

#[cfg(test)]
mod tests {
    use super::unescape_git;

    // Git writes three octal digits; fewer (a hand-written or cut escape) are read as far as
    // they go, and a backslash at the end stays.
    #[test]
    fn git_escapes_are_undone() {
        assert_eq!(unescape_git(r"caf\303\251"), "café");
        assert_eq!(unescape_git(r#"a\tb\nc\\d\"e"#), "a\tb\nc\\d\"e");
        assert_eq!(unescape_git(r"x\7"), "x\u{7}");
        assert_eq!(unescape_git(r"x\101\60"), "xA0");
        assert_eq!(unescape_git(r"x\1012"), "xA2");
        assert_eq!(unescape_git("end\\"), "end\\");
    }
}
