//! The text model: bytes → lines with their line endings, BOM and final-newline state, and back,
//! byte for byte. Binary and non-UTF-8 content is refused here, before any patching.

use crate::error::{EngineError, Reason};

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
/// How far binary detection looks for a NUL byte.
pub const BINARY_SNIFF_LEN: usize = 8 * 1024;

/// The line ending a file mostly uses; added lines get it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    Lf,
    CrLf,
}

impl LineEnding {
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::CrLf => "\r\n",
        }
    }
}

/// One line of a file: its content without terminator, and whether its terminator is `\r\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub text: String,
    pub crlf: bool,
}

/// A decoded text file. Rendering it back with [`Document::to_bytes`] gives the original bytes.
///
/// The last line has a terminator only when `final_newline` is true. An empty file has no lines
/// and `final_newline == true`, so that lines added to it end with a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    pub lines: Vec<Line>,
    pub eol: LineEnding,
    pub bom: bool,
    pub final_newline: bool,
}

/// Refuse binary content: a NUL byte in the first 8 KiB, or a signature `infer` knows as a
/// non-text type.
pub fn check_text(bytes: &[u8]) -> Result<(), EngineError> {
    let head = &bytes[..bytes.len().min(BINARY_SNIFF_LEN)];
    if head.contains(&0) {
        return Err(EngineError::new(
            Reason::BinaryFile,
            "the file is binary (NUL byte in its first 8 KiB); binary files are never text-patched",
        ));
    }
    if let Some(kind) = infer::get(head)
        && kind.matcher_type() != infer::MatcherType::Text
    {
        return Err(EngineError::new(
            Reason::BinaryFile,
            format!(
                "the file is binary ({}); binary files are never text-patched",
                kind.mime_type()
            ),
        ));
    }
    Ok(())
}

impl Document {
    /// An empty document with the given line ending.
    pub fn empty(eol: LineEnding) -> Document {
        Document {
            lines: Vec::new(),
            eol,
            bom: false,
            final_newline: true,
        }
    }

    /// Decode file bytes. Errors: `binary_file`, `not_utf8`.
    pub fn from_bytes(bytes: &[u8]) -> Result<Document, EngineError> {
        check_text(bytes)?;
        let (bom, body) = match bytes.strip_prefix(UTF8_BOM) {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        let text = std::str::from_utf8(body).map_err(|e| {
            EngineError::new(
                Reason::NotUtf8,
                format!(
                    "the file is not valid UTF-8 (invalid byte at offset {}); it is never text-patched",
                    e.valid_up_to() + if bom { 3 } else { 0 }
                ),
            )
        })?;
        Ok(Document::from_str_with_bom(text, bom))
    }

    /// Decode text that is already known to be UTF-8 (without BOM).
    pub fn from_text(text: &str) -> Document {
        match text.strip_prefix('\u{FEFF}') {
            Some(rest) => Document::from_str_with_bom(rest, true),
            None => Document::from_str_with_bom(text, false),
        }
    }

    fn from_str_with_bom(text: &str, bom: bool) -> Document {
        let mut lines = Vec::new();
        let (mut crlf_count, mut lf_count) = (0usize, 0usize);
        let mut rest = text;
        let mut final_newline = true;
        while !rest.is_empty() {
            match rest.find('\n') {
                Some(i) => {
                    let raw = &rest[..i];
                    let (content, crlf) = match raw.strip_suffix('\r') {
                        Some(c) => (c, true),
                        None => (raw, false),
                    };
                    if crlf {
                        crlf_count += 1;
                    } else {
                        lf_count += 1;
                    }
                    lines.push(Line {
                        text: content.to_string(),
                        crlf,
                    });
                    rest = &rest[i + 1..];
                }
                None => {
                    lines.push(Line {
                        text: rest.to_string(),
                        crlf: false,
                    });
                    final_newline = false;
                    rest = "";
                }
            }
        }
        let eol = if crlf_count > lf_count {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        if !final_newline && let Some(last) = lines.last_mut() {
            // The unterminated last line takes the file's style, should a line ever follow it.
            last.crlf = eol == LineEnding::CrLf;
        }
        Document {
            lines,
            eol,
            bom,
            final_newline,
        }
    }

    /// An empty last line without a terminator is no line at all in the bytes (`["a", ""]`
    /// without a final newline renders as `"a\n"`, which reads back as `["a"]`). Drop it, so
    /// that the document, its line count and the anchors reported for it describe exactly the
    /// lines a reader of its bytes sees. The rendered bytes do not change.
    pub(crate) fn drop_empty_unterminated_last_line(&mut self) {
        if !self.final_newline && self.lines.last().is_some_and(|l| l.text.is_empty()) {
            self.lines.pop();
            self.final_newline = true;
        }
    }

    /// A new line in this document's line-ending style.
    pub fn new_line(&self, text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            crlf: self.eol == LineEnding::CrLf,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The line contents, without terminators.
    pub fn texts(&self) -> Vec<&str> {
        self.lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Render back to text (BOM included as U+FEFF).
    pub fn to_text(&self) -> String {
        let mut out = String::with_capacity(self.lines.iter().map(|l| l.text.len() + 2).sum());
        if self.bom {
            out.push('\u{FEFF}');
        }
        let last = self.lines.len().saturating_sub(1);
        for (i, line) in self.lines.iter().enumerate() {
            out.push_str(&line.text);
            if i < last || self.final_newline {
                out.push_str(if line.crlf { "\r\n" } else { "\n" });
            }
        }
        out
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_text().into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(bytes: &[u8]) -> Document {
        let doc = Document::from_bytes(bytes).unwrap();
        assert_eq!(doc.to_bytes(), bytes, "round trip of {bytes:?}");
        doc
    }

    #[test]
    fn round_trips_every_shape() {
        let d = round_trip(b"a\nb\n");
        assert_eq!((d.len(), d.final_newline, d.eol), (2, true, LineEnding::Lf));
        let d = round_trip(b"a\r\nb\r\nc");
        assert_eq!(
            (d.len(), d.final_newline, d.eol),
            (3, false, LineEnding::CrLf)
        );
        let d = round_trip(b"\xEF\xBB\xBFx\n");
        assert!(d.bom);
        assert_eq!(d.lines[0].text, "x");
        let d = round_trip(b"");
        assert_eq!((d.len(), d.final_newline), (0, true));
        round_trip(b"\n\n");
        round_trip(b"mixed\r\nlf\nend");
        round_trip(b"lone\rcr\n");
    }

    #[test]
    fn empty_unterminated_last_line_is_dropped_without_changing_bytes() {
        for (lines, final_newline, expected_len) in [
            (vec!["a", ""], false, 1),
            (vec![""], false, 0),
            (vec!["a", ""], true, 2),
            (vec!["a"], false, 1),
        ] {
            let mut doc = Document::from_text("");
            doc.lines = lines.iter().map(|t| doc.new_line(*t)).collect();
            doc.final_newline = final_newline;
            let before = doc.to_bytes();
            doc.drop_empty_unterminated_last_line();
            assert_eq!(doc.to_bytes(), before, "{lines:?}");
            assert_eq!(doc.len(), expected_len, "{lines:?}");
            assert_eq!(Document::from_bytes(&before).unwrap(), doc, "{lines:?}");
        }
    }

    #[test]
    fn majority_decides_line_ending() {
        assert_eq!(Document::from_text("a\r\nb\r\nc\n").eol, LineEnding::CrLf);
        assert_eq!(Document::from_text("a\r\nb\nc\n").eol, LineEnding::Lf);
    }

    #[test]
    fn binary_and_non_utf8_are_refused() {
        assert_eq!(
            Document::from_bytes(b"a\0b").unwrap_err().reason,
            Reason::BinaryFile
        );
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(
            Document::from_bytes(png).unwrap_err().reason,
            Reason::BinaryFile
        );
        assert_eq!(
            Document::from_bytes(b"caf\xe9\n").unwrap_err().reason,
            Reason::NotUtf8
        );
    }
}
