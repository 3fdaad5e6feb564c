//! What the symbol edits remember of the files they read (docs/design.md §13, "Range"): the
//! last reading of each file whose text lexed whole and whose symbol tree was consistent.
//!
//! A model that writes a body with a syntax error and then fixes it by name meets a server
//! whose tree of the broken file cannot be trusted: its range of the broken symbol swallows
//! what follows, or stops short. The symbol's extent is still known exactly when every change
//! since the last whole reading lies inside that symbol: everything before and after it is
//! byte for byte what was read, so the symbol is the old range with the change's growth added.
//! A change that reaches outside the symbol recalls nothing, and the edit is refused.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Mutex;

/// Files remembered at once; the oldest reading goes first.
const KEPT: usize = 32;

/// The last whole reading of recently edited files. One per session: [`crate::LspEdits`] is
/// built for each call and borrows it ([`crate::LspEdits::remembering`]).
#[derive(Debug, Default)]
pub struct SymbolMemory {
    readings: Mutex<VecDeque<Reading>>,
}

#[derive(Debug)]
struct Reading {
    path: String,
    text: String,
    symbols: Vec<Remembered>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Remembered {
    name_path: String,
    /// Its whole declaration in the reading's text, and the 1-based line of its name.
    range: Range<usize>,
    line: usize,
}

/// A symbol's extent recalled for the current text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Recalled {
    /// The declaration's bytes in the current text.
    pub range: Range<usize>,
    /// The reading it was mapped from: that text, and the declaration's bytes in it (to be
    /// checked as one whole declaration there).
    pub read: String,
    pub read_range: Range<usize>,
}

impl SymbolMemory {
    pub fn new() -> SymbolMemory {
        SymbolMemory::default()
    }

    /// Keeps `text`'s symbols (name path, byte range, name line), replacing the file's earlier
    /// reading.
    pub(crate) fn remember<'s>(
        &self,
        path: &str,
        text: &str,
        symbols: impl Iterator<Item = (&'s str, Range<usize>, usize)>,
    ) {
        let symbols = symbols
            .map(|(name_path, range, line)| Remembered {
                name_path: name_path.to_owned(),
                range,
                line,
            })
            .collect();
        let mut readings = self.readings.lock().unwrap_or_else(|e| e.into_inner());
        readings.retain(|r| r.path != path);
        if readings.len() >= KEPT {
            readings.pop_front();
        }
        readings.push_back(Reading {
            path: path.to_owned(),
            text: text.to_owned(),
            symbols,
        });
    }

    /// The extent in `text` of the symbol `name_path` whose name is on `line`, when the file's
    /// last whole reading had it and every change since lies inside it.
    pub(crate) fn recall(
        &self,
        path: &str,
        text: &str,
        name_path: &str,
        line: usize,
    ) -> Option<Recalled> {
        let readings = self.readings.lock().unwrap_or_else(|e| e.into_inner());
        let reading = readings.iter().rev().find(|r| r.path == path)?;
        recall_in(reading, text, name_path, line)
    }
}

fn recall_in(reading: &Reading, text: &str, name_path: &str, line: usize) -> Option<Recalled> {
    let (old, new) = (reading.text.as_bytes(), text.as_bytes());
    if old == new {
        let mut same = reading
            .symbols
            .iter()
            .filter(|s| s.name_path == name_path && s.line == line);
        let s = same.next()?;
        return same.next().is_none().then(|| Recalled {
            range: s.range.clone(),
            read: reading.text.clone(),
            read_range: s.range.clone(),
        });
    }
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - prefix;
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    // The bytes of the reading that changed.
    let changed = prefix..old.len() - suffix;
    let mut inside = reading.symbols.iter().filter(|s| {
        s.name_path == name_path
            && s.line == line
            && s.range.start <= changed.start
            && changed.end <= s.range.end
    });
    let s = inside.next()?;
    if inside.next().is_some() {
        return None;
    }
    let end = (s.range.end + new.len()).checked_sub(old.len())?;
    // Cut on a character boundary of the new text: the unchanged tail starts there.
    (end >= s.range.start && text.is_char_boundary(end)).then(|| Recalled {
        range: s.range.start..end,
        read: reading.text.clone(),
        read_range: s.range.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory_of(text: &str, symbols: &[(&str, &str, usize)]) -> SymbolMemory {
        let m = SymbolMemory::new();
        m.remember(
            "a.py",
            text,
            symbols.iter().map(|&(name, decl, line)| {
                let s = text.find(decl).unwrap();
                (name, s..s + decl.len(), line)
            }),
        );
        m
    }

    #[test]
    fn a_change_inside_the_symbol_maps_it_and_nothing_else() {
        let old = "def f():\n    return 1\n\n\ndef g():\n    return 2\n";
        let m = memory_of(
            old,
            &[
                ("f", "def f():\n    return 1", 1),
                ("g", "def g():\n    return 2", 5),
            ],
        );
        // `f` broken: its extent grows by the change.
        let new = "def f():\n    return add(1,\n\n\ndef g():\n    return 2\n";
        let r = m.recall("a.py", new, "f", 1).unwrap();
        assert_eq!(&new[r.range], "def f():\n    return add(1,");
        // The change is not inside `g`.
        assert_eq!(m.recall("a.py", new, "g", 5), None);
        // A change outside every symbol (or reaching out of `f`) recalls nothing.
        let new = "def f():\n    return 1\nX = 1\n\ndef g():\n    return 2\n";
        assert_eq!(m.recall("a.py", new, "f", 1), None);
        // Another file, another line, another name: nothing.
        assert_eq!(m.recall("b.py", old, "f", 1), None);
        assert_eq!(m.recall("a.py", old, "f", 2), None);
        // The text as read: the reading's own range.
        assert_eq!(
            m.recall("a.py", old, "g", 5).map(|r| &old[r.range]),
            Some("def g():\n    return 2")
        );
    }
}
