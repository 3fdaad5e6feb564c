//! The text model: bytes → lines with their line endings, BOM and final-newline state, and back,
//! byte for byte. Binary and non-UTF-8 content is refused here, before any patching.

use crate::error::{EngineError, Reason};

pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";
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
        Ok(TextView::from_bytes(bytes)?.to_document())
    }

    /// Decode text that is already known to be UTF-8 (without BOM).
    pub fn from_text(text: &str) -> Document {
        match text.strip_prefix('\u{FEFF}') {
            Some(rest) => Document::from_str_with_bom(rest, true),
            None => Document::from_str_with_bom(text, false),
        }
    }

    fn from_str_with_bom(text: &str, bom: bool) -> Document {
        TextView::decode(text, bom).to_document()
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

/// One line borrowed from the text it was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineRef<'a> {
    pub text: &'a str,
    pub crlf: bool,
}

impl LineRef<'_> {
    pub fn to_line(self) -> Line {
        Line {
            text: self.text.to_string(),
            crlf: self.crlf,
        }
    }
}

/// A decoded text that borrows its lines: what relocation reads, without the allocation of one
/// `String` per line that a [`Document`] costs (on a 10,000-line file, allocating and freeing
/// those strings was most of the time of applying a patch). The line model is the
/// [`Document`]'s: [`TextView::decode`] is the one place text is split into lines (the
/// [`LineIndex`] below finds line starts in the same way, without splitting).
#[derive(Debug, Clone)]
pub(crate) struct TextView<'a> {
    pub lines: Vec<LineRef<'a>>,
    pub eol: LineEnding,
    pub bom: bool,
    pub final_newline: bool,
    /// The text the lines were split from (after the BOM), when they were: unchanged lines are
    /// then copied from it in whole runs by [`LineEdits::render`](crate::edit::LineEdits::render).
    source: Option<&'a str>,
}

impl<'a> TextView<'a> {
    /// Decode file bytes. Errors: `binary_file`, `not_utf8`.
    pub fn from_bytes(bytes: &'a [u8]) -> Result<TextView<'a>, EngineError> {
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
        Ok(TextView::decode(text, bom))
    }

    /// Split UTF-8 text (without BOM) into lines.
    pub fn decode(text: &'a str, bom: bool) -> TextView<'a> {
        let bytes = text.as_bytes();
        // ~40 bytes a line is typical of source code; a close guess saves the regrowth copies.
        let mut lines = Vec::with_capacity(bytes.len() / 32 + 1);
        let (mut crlf_count, mut lf_count) = (0usize, 0usize);
        let mut start = 0;
        for_each_newline(bytes, |i| {
            // `\n` and `\r` are ASCII, so both cuts fall on character boundaries.
            let crlf = i > start && bytes[i - 1] == b'\r';
            let end = if crlf { i - 1 } else { i };
            if crlf {
                crlf_count += 1;
            } else {
                lf_count += 1;
            }
            lines.push(LineRef {
                text: &text[start..end],
                crlf,
            });
            start = i + 1;
        });
        let final_newline = start == bytes.len();
        let eol = if crlf_count > lf_count {
            LineEnding::CrLf
        } else {
            LineEnding::Lf
        };
        if !final_newline {
            // The unterminated last line takes the file's style, should a line ever follow it.
            lines.push(LineRef {
                text: &text[start..],
                crlf: eol == LineEnding::CrLf,
            });
        }
        TextView {
            lines,
            eol,
            bom,
            final_newline,
            source: Some(text),
        }
    }

    /// A view of a document's lines.
    pub fn of_document(doc: &'a Document) -> TextView<'a> {
        TextView {
            lines: doc
                .lines
                .iter()
                .map(|l| LineRef {
                    text: &l.text,
                    crlf: l.crlf,
                })
                .collect(),
            eol: doc.eol,
            bom: doc.bom,
            final_newline: doc.final_newline,
            source: None,
        }
    }

    pub fn to_document(&self) -> Document {
        Document {
            lines: self.lines.iter().map(|l| l.to_line()).collect(),
            eol: self.eol,
            bom: self.bom,
            final_newline: self.final_newline,
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// The line texts joined with `\n`, borrowed from the source when it already is exactly
    /// that (every line ends in LF; the final newline cut off), built otherwise.
    pub fn joined(&self) -> std::borrow::Cow<'a, str> {
        if let Some(source) = self.source
            && !self.lines.iter().any(|l| l.crlf)
        {
            let cut = usize::from(self.final_newline && !source.is_empty());
            return std::borrow::Cow::Borrowed(&source[..source.len() - cut]);
        }
        let texts: Vec<&str> = self.lines.iter().map(|l| l.text).collect();
        std::borrow::Cow::Owned(texts.join("\n"))
    }

    /// A new line in this text's line-ending style.
    pub fn new_line(&self, text: impl Into<String>) -> Line {
        Line {
            text: text.into(),
            crlf: self.eol == LineEnding::CrLf,
        }
    }

    /// The text the lines were split from (after the BOM), when they were.
    // `None` here is an equivalent mutant (excluded): rendering falls back to the same bytes.
    pub(crate) fn source(&self) -> Option<&'a str> {
        self.source
    }
}

/// A text's line starts (a leading BOM set aside): any line of it, keyed as the display diff
/// keys lines (its text, and whether it is the last line and lacks a newline), without
/// splitting the rest. Lines are cut as [`TextView::decode`] cuts them: at `\n`, a `\r` before
/// it being the terminator's (`diff::tests::windowed_block_diff_matches_the_whole_file` holds
/// the two to the same lines).
pub(crate) struct LineIndex<'a> {
    body: &'a str,
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        let body = text.strip_prefix('\u{FEFF}').unwrap_or(text);
        let mut starts = Vec::with_capacity(body.len() / 32 + 1);
        if !body.is_empty() {
            starts.push(0);
        }
        for_each_newline(body.as_bytes(), |i| {
            if i + 1 < body.len() {
                starts.push(i + 1);
            }
        });
        LineIndex { body, starts }
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// The bytes of lines `r`, terminators included.
    pub fn span(&self, r: std::ops::Range<usize>) -> &'a str {
        if r.is_empty() {
            return "";
        }
        let end = self.starts.get(r.end).copied().unwrap_or(self.body.len());
        &self.body[self.starts[r.start]..end]
    }

    /// Line `i`: its text, and whether it is the last line and lacks a newline (only the last
    /// line can).
    pub fn key(&self, i: usize) -> (&'a str, bool) {
        let line = self.span(i..i + 1);
        match line.strip_suffix('\n') {
            Some(text) => (text.strip_suffix('\r').unwrap_or(text), false),
            None => (line, true),
        }
    }

    pub fn keys(&self, r: std::ops::Range<usize>) -> Vec<(&'a str, bool)> {
        r.map(|i| self.key(i)).collect()
    }
}

/// Call `f` with the index of every `\n` in `bytes`, in order.
///
/// Scans eight bytes at a time: one call for the whole text instead of one `memchr` call per
/// line, whose setup dominates on lines of a few dozen bytes. The zero-byte test is the exact
/// one (no carries between bytes), so no byte is reported that is not a newline.
fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut chunks = bytes.chunks_exact(8);
    let mut base = 0;
    for chunk in chunks.by_ref() {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // Bytes equal to `\n` become zero; then each zero byte gets its high bit set.
        let x = u64::from_le_bytes(word) ^ NEWLINES;
        let mut hits = !(((x & LOW7) + LOW7) | x | LOW7);
        while hits != 0 {
            f(base + hits.trailing_zeros() as usize / 8);
            hits &= hits - 1;
        }
        base += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b == b'\n' {
            f(base + i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::LineEdits;

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

    fn naive_newlines(bytes: &[u8]) -> Vec<usize> {
        (0..bytes.len()).filter(|&i| bytes[i] == b'\n').collect()
    }

    fn scanned_newlines(bytes: &[u8]) -> Vec<usize> {
        let mut found = Vec::new();
        for_each_newline(bytes, |i| found.push(i));
        found
    }

    #[test]
    fn newline_scan_finds_exactly_the_newlines() {
        // Bytes one off `\n` (`\t`, `\v`), its high-bit twin 0x8a, and newlines at every
        // position of a word and across the word boundary.
        let mut tricky = Vec::new();
        for i in 0..40u8 {
            tricky.push([b'\n', 0x0b, 0x09, 0x8a, 0x0a, b'a', 0x00, 0xff][usize::from(i % 8)]);
            if i % 3 == 0 {
                tricky.push(b'\n');
            }
        }
        for len in 0..tricky.len() {
            assert_eq!(
                scanned_newlines(&tricky[..len]),
                naive_newlines(&tricky[..len])
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn newline_scan_matches_a_byte_loop(bytes in proptest::collection::vec(
            proptest::sample::select(vec![b'\n', b'\r', 0x0b, 0x8a, b'a', 0x00, 0xff]), 0..64)
        ) {
            proptest::prop_assert_eq!(scanned_newlines(&bytes), naive_newlines(&bytes));
        }

        /// The view renders an edited text exactly as the document it stands for does.
        #[test]
        fn view_renders_like_the_document(
            lines in proptest::collection::vec(
                proptest::sample::select(vec!["a", "", " ", "b\r", "\r"]), 0..8),
            crlf in proptest::collection::vec(proptest::bool::ANY, 8),
            final_newline: bool,
            new_final_newline: bool,
            edit_at in 0..9usize,
            edit_len in 0..3usize,
            insert in proptest::collection::vec(proptest::sample::select(vec!["x", ""]), 0..3),
        ) {
            let mut text = String::new();
            for (i, l) in lines.iter().enumerate() {
                text.push_str(l);
                if i + 1 < lines.len() || final_newline {
                    text.push_str(if crlf[i] { "\r\n" } else { "\n" });
                }
            }
            let view = TextView::decode(&text, false);
            let doc = Document::from_text(&text);
            proptest::prop_assert_eq!(view.to_document(), doc.clone());
            let start = edit_at.min(doc.len());
            let end = (start + edit_len).min(doc.len());
            let edits = LineEdits::new(vec![crate::edit::LineEdit {
                range: start..end,
                lines: insert.iter().map(|t| doc.new_line(*t)).collect(),
            }])
            .unwrap();
            let mut edited = doc.clone();
            edited.lines = edits.apply(&doc.lines);
            edited.final_newline = new_final_newline;
            proptest::prop_assert_eq!(
                edits.render(&view, new_final_newline),
                edited.to_bytes()
            );
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

    // Binary detection looks for a NUL byte in exactly the first `BINARY_SNIFF_LEN` (8 KiB)
    // bytes: the last byte inside the window counts, the first past it does not.
    #[test]
    fn a_nul_byte_counts_only_inside_the_first_8_kib() {
        assert_eq!(BINARY_SNIFF_LEN, 8192);
        let mut inside = vec![b'a'; 9000];
        inside[8191] = 0;
        let err = check_text(&inside).unwrap_err();
        assert_eq!(err.reason, Reason::BinaryFile);
        assert!(err.message.contains("NUL byte"), "{}", err.message);
        let mut past = vec![b'a'; 9000];
        past[8192] = 0;
        assert!(check_text(&past).is_ok());
    }

    // The offset of the first invalid byte is counted in the file's bytes, the BOM included.
    #[test]
    fn a_non_utf8_file_names_the_offset_of_its_first_invalid_byte() {
        for (bytes, offset) in [(&b"caf\xe9\n"[..], 3), (&b"\xEF\xBB\xBFcaf\xe9\n"[..], 6)] {
            let err = Document::from_bytes(bytes).unwrap_err();
            assert_eq!(err.reason, Reason::NotUtf8);
            assert!(
                err.message
                    .contains(&format!("(invalid byte at offset {offset})")),
                "{}",
                err.message
            );
        }
    }

    // A signature with no NUL byte in it (a GIF header, valid UTF-8) is still binary, and the
    // message names the type found.
    #[test]
    fn a_binary_signature_without_nul_is_refused_by_type() {
        let err = check_text(b"GIF89a\x01\x01\x01\x01 not text\n").unwrap_err();
        assert_eq!(err.reason, Reason::BinaryFile);
        assert!(err.message.contains("(image/gif)"), "{}", err.message);
        // Text that merely mentions a signature later on is text.
        assert!(check_text(b"see GIF89a\n").is_ok());
    }

    #[test]
    fn line_endings_render_as_their_bytes() {
        assert_eq!(LineEnding::Lf.as_str(), "\n");
        assert_eq!(LineEnding::CrLf.as_str(), "\r\n");
        let empty = Document::from_bytes(b"").unwrap();
        assert!(empty.is_empty());
        assert!(!Document::from_text("x").is_empty());
    }
}
