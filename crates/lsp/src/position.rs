//! LSP positions in the encoding a server negotiated (`positionEncoding`: UTF-8, UTF-16, the
//! default, or UTF-32) to and from byte offsets of the text they are about.
//!
//! Lines are split at `\n` only: a `\r` before it stays part of the line's content, as every
//! server we drive treats `\r\n` (the column of the line end is then one unit further, which
//! no edit of a server lands inside).

use async_lsp::lsp_types::{Position, PositionEncodingKind};

/// How a position's `character` counts: UTF-8 bytes, UTF-16 code units or Unicode scalars.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}

impl PositionEncoding {
    /// The encoding a server's `capabilities.positionEncoding` names; UTF-16 when absent or
    /// unknown (the protocol's default).
    pub fn from_kind(kind: Option<&str>) -> PositionEncoding {
        match kind {
            Some(k) if k == PositionEncodingKind::UTF8.as_str() => PositionEncoding::Utf8,
            Some(k) if k == PositionEncodingKind::UTF32.as_str() => PositionEncoding::Utf32,
            _ => PositionEncoding::Utf16,
        }
    }

    /// The protocol's name of the encoding.
    pub fn as_str(self) -> &'static str {
        match self {
            PositionEncoding::Utf8 => "utf-8",
            PositionEncoding::Utf16 => "utf-16",
            PositionEncoding::Utf32 => "utf-32",
        }
    }

    /// Units one character takes.
    pub fn units(self, ch: char) -> u32 {
        match self {
            PositionEncoding::Utf8 => ch.len_utf8() as u32,
            PositionEncoding::Utf16 => ch.len_utf16() as u32,
            PositionEncoding::Utf32 => 1,
        }
    }

    /// Units of `s`.
    pub fn len(self, s: &str) -> u32 {
        match self {
            PositionEncoding::Utf8 => u32::try_from(s.len()).unwrap_or(u32::MAX),
            _ => s.chars().map(|c| self.units(c)).sum(),
        }
    }

    /// The position of byte `offset` of `text` (clamped to the text; inside a character, the
    /// character's start).
    pub fn position(self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Position {
            line: u32::try_from(before.matches('\n').count()).unwrap_or(u32::MAX),
            character: self.len(&text[line_start..offset]),
        }
    }

    /// The byte offset of `pos` in `text`; `None` when its line is past the end. A character
    /// past the end of its line is the line's end (the spec's rule), one inside a character
    /// (a UTF-16 surrogate pair split) that character's start.
    pub fn offset(self, text: &str, pos: Position) -> Option<usize> {
        let mut start = 0usize;
        for _ in 0..pos.line {
            start += text[start..].find('\n')? + 1;
        }
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let mut units = 0u32;
        for (i, ch) in text[start..line_end].char_indices() {
            if units >= pos.character {
                return Some(start + i);
            }
            units += self.units(ch);
            if units > pos.character {
                return Some(start + i);
            }
        }
        Some(line_end)
    }

    /// 1-based line and 1-based column in Unicode scalar values of `pos` in `text`. A line past
    /// the end keeps its numbers; a column past the end of the line counts on in single units.
    pub fn one_based(self, text: &str, pos: Position) -> (u32, u32) {
        let line = pos.line;
        let Some(content) = text.split('\n').nth(line as usize) else {
            return (line.saturating_add(1), pos.character.saturating_add(1));
        };
        let mut units = 0u32;
        let mut chars = 0u32;
        for ch in content.chars() {
            if units >= pos.character {
                break;
            }
            units += self.units(ch);
            chars += 1;
        }
        if units < pos.character {
            chars += pos.character - units;
        }
        (line.saturating_add(1), chars.saturating_add(1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position { line, character }
    }

    #[test]
    fn offsets_round_trip_in_every_encoding() {
        let text = "a😀é\nxyz\n";
        for enc in [
            PositionEncoding::Utf8,
            PositionEncoding::Utf16,
            PositionEncoding::Utf32,
        ] {
            for (off, _) in text.char_indices().chain([(text.len(), ' ')]) {
                let p = enc.position(text, off);
                assert_eq!(enc.offset(text, p), Some(off), "{enc:?} at {off}");
            }
        }
        // 'é' starts after 1 + 4 bytes, 1 + 2 UTF-16 units, 2 scalars.
        assert_eq!(PositionEncoding::Utf8.position(text, 5), pos(0, 5));
        assert_eq!(PositionEncoding::Utf16.position(text, 5), pos(0, 3));
        assert_eq!(PositionEncoding::Utf32.position(text, 5), pos(0, 2));
        assert_eq!(PositionEncoding::Utf16.offset(text, pos(0, 99)), Some(7));
        assert_eq!(PositionEncoding::Utf16.offset(text, pos(9, 0)), None);
        assert_eq!(
            PositionEncoding::Utf16.offset(text, pos(2, 0)),
            Some(text.len())
        );
    }

    #[test]
    fn one_based_columns_count_scalars() {
        let text = "a😀b\nxyz";
        assert_eq!(PositionEncoding::Utf16.one_based(text, pos(0, 3)), (1, 3));
        assert_eq!(PositionEncoding::Utf8.one_based(text, pos(0, 5)), (1, 3));
        assert_eq!(PositionEncoding::Utf32.one_based(text, pos(0, 2)), (1, 3));
        assert_eq!(PositionEncoding::Utf16.one_based(text, pos(5, 2)), (6, 3));
    }

    #[test]
    fn negotiated_kind() {
        assert_eq!(
            PositionEncoding::from_kind(Some("utf-8")),
            PositionEncoding::Utf8
        );
        assert_eq!(PositionEncoding::from_kind(None), PositionEncoding::Utf16);
        assert_eq!(
            PositionEncoding::from_kind(Some("utf-32")),
            PositionEncoding::Utf32
        );
    }
}
