//! What a session has seen and told of each file's diagnostics, so that a result reports what
//! is new to the agent and never blames a change for errors that were there before it.
//!
//! - Another file's errors are reported when they are neither in the file's **first-seen**
//!   diagnostics (its "before" the first time a check reported the file, the report shown or
//!   not: a late result dropped as no longer true still seeds it, `Baselines::seed`; what it
//!   had before the session changed anything it depends on) nor already **told** and still
//!   present. So a fix
//!   that uncovers an error the break had hidden does not report it (it was there first), an
//!   error a change introduced is reported once however many later checks still see it, and an
//!   error whose report was lost (a late answer dropped because the root changed) is reported
//!   by the next check that sees it.
//! - A written file's last diagnostics and the text they were for are kept, so that when its
//!   errors exceed the per-file cap, the errors the change introduced are shown first.
//!
//! Errors are matched by code and message, counted (a file with two identical errors and one
//! before has one new), never by line: other files' lines may move when the agent edits them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lspedit_engine::line_map;

use crate::diagnostics::{Diagnostic, only_new};

type Key = (Option<String>, String);

fn key(d: &Diagnostic) -> Key {
    (d.code.clone(), d.message.clone())
}

fn counts(diags: &[Diagnostic]) -> HashMap<Key, usize> {
    let mut m = HashMap::new();
    for d in diags {
        *m.entry(key(d)).or_insert(0) += 1;
    }
    m
}

/// Per file, what the session has seen and told. See the module doc.
#[derive(Debug, Default)]
pub(crate) struct Baselines {
    first_seen: HashMap<PathBuf, HashMap<Key, usize>>,
    told: HashMap<PathBuf, HashMap<Key, usize>>,
    last: HashMap<PathBuf, (String, Vec<Diagnostic>)>,
}

impl Baselines {
    /// Of another file's diagnostics `after` (its `before` this check is the file's first-seen
    /// state if the session never saw it), those to report, in the order given; they count as
    /// told from now on. What is told and no longer present is forgotten.
    pub(crate) fn news(
        &mut self,
        path: &Path,
        before: &[Diagnostic],
        after: &[Diagnostic],
    ) -> Vec<Diagnostic> {
        let first = self
            .first_seen
            .entry(path.to_path_buf())
            .or_insert_with(|| counts(before));
        let told = self.told.entry(path.to_path_buf()).or_default();
        let now = counts(after);
        // Forget what is gone, so that an error fixed and made again is reported again.
        told.retain(|k, n| match now.get(k) {
            Some(m) => {
                *n = (*n).min(*m);
                true
            }
            None => false,
        });
        let mut quiet: HashMap<Key, usize> = now
            .keys()
            .map(|k| {
                let known = first.get(k).copied().unwrap_or(0);
                let said = told.get(k).copied().unwrap_or(0);
                (k.clone(), known.max(said))
            })
            .collect();
        let mut out = Vec::new();
        for d in after {
            let k = key(d);
            match quiet.get_mut(&k) {
                Some(n) if *n > 0 => *n -= 1,
                _ => {
                    *told.entry(k).or_insert(0) += 1;
                    out.push(d.clone());
                }
            }
        }
        out
    }

    /// What another file had before a change (`before`), when the session never saw it: it
    /// becomes the file's first-seen state (a result of the change itself may not be shown:
    /// a late result no longer true). Nothing when the session saw the file already.
    pub(crate) fn seed(&mut self, path: &Path, before: &[Diagnostic]) {
        self.first_seen
            .entry(path.to_path_buf())
            .or_insert_with(|| counts(before));
    }

    /// A written file was checked with `text`: its errors `after`, reordered so that those the
    /// change introduced (against the last check of the file, when that was of `previous`, the
    /// text the change started from) come first, each part in the order given. All of them
    /// count as told (the written file's block shows them).
    pub(crate) fn written(
        &mut self,
        path: &Path,
        previous: Option<&str>,
        text: &str,
        after: Vec<Diagnostic>,
    ) -> Vec<Diagnostic> {
        let ordered = match (self.last.get(path), previous) {
            (Some((last_text, last)), Some(previous)) if last_text == previous => {
                let (introduced, _) = only_new(last, after.clone(), &line_map(previous, text));
                let mut rest: Vec<Diagnostic> = after
                    .iter()
                    .filter(|d| !introduced.contains(d))
                    .cloned()
                    .collect();
                let mut ordered = introduced;
                ordered.append(&mut rest);
                ordered
            }
            _ => after.clone(),
        };
        self.told.insert(path.to_path_buf(), counts(&after));
        self.last
            .insert(path.to_path_buf(), (text.to_string(), after));
        ordered
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;

    fn d(line: u32, msg: &str) -> Diagnostic {
        Diagnostic {
            line,
            column: 1,
            end_line: line,
            end_column: 2,
            severity: Severity::Error,
            code: Some("E".into()),
            message: msg.into(),
            source: None,
        }
    }

    #[test]
    fn a_fix_that_uncovers_an_older_error_reports_nothing() {
        let mut b = Baselines::default();
        let p = Path::new("/w/cart.py");
        // The break hides the older error and adds its own.
        let news = b.news(p, &[d(3, "old")], &[d(1, "broken import")]);
        assert_eq!(news, vec![d(1, "broken import")]);
        // The fix: the older error is back, the break's is gone.
        let news = b.news(p, &[d(1, "broken import")], &[d(3, "old")]);
        assert!(news.is_empty(), "{news:?}");
    }

    #[test]
    fn an_error_is_told_once_while_it_stays_and_again_when_it_comes_back() {
        let mut b = Baselines::default();
        let p = Path::new("/w/a.ts");
        assert_eq!(b.news(p, &[], &[d(1, "x")]).len(), 1);
        // A later change elsewhere: still there, already told.
        assert!(b.news(p, &[d(1, "x")], &[d(1, "x")]).is_empty());
        // Fixed, then made again.
        assert!(b.news(p, &[d(1, "x")], &[]).is_empty());
        assert_eq!(b.news(p, &[], &[d(2, "x")]).len(), 1);
    }

    #[test]
    fn an_error_whose_report_was_lost_is_reported_by_the_next_check() {
        let mut b = Baselines::default();
        let p = Path::new("/w/b.ts");
        // First seen clean; the break's report never reached the agent; the next check's
        // "before" already has it.
        assert!(b.news(p, &[], &[]).is_empty());
        assert_eq!(b.news(p, &[d(1, "x")], &[d(1, "x")]), vec![d(1, "x")]);
    }

    #[test]
    fn errors_are_counted_not_deduplicated() {
        let mut b = Baselines::default();
        let p = Path::new("/w/c.ts");
        let news = b.news(p, &[d(1, "x")], &[d(1, "x"), d(5, "x")]);
        assert_eq!(news.len(), 1);
    }

    #[test]
    fn a_written_files_introduced_errors_come_first() {
        let mut b = Baselines::default();
        let p = Path::new("/w/big.ts");
        let old_text = "a\nb\nc\n";
        let old: Vec<Diagnostic> = vec![d(1, "e1"), d(2, "e2")];
        assert_eq!(b.written(p, None, old_text, old.clone()), old);
        // One line inserted at the top: the old errors moved down one; a new one at line 4.
        let new_text = "z\na\nb\nc\n";
        let after = vec![d(2, "e1"), d(3, "e2"), d(4, "new")];
        let ordered = b.written(p, Some(old_text), new_text, after);
        assert_eq!(ordered[0], d(4, "new"));
        assert_eq!(ordered.len(), 3);
        // Against a text the last check was not of, nothing is known: order kept.
        let after = vec![d(1, "q"), d(2, "r")];
        assert_eq!(b.written(p, Some("other"), "x\n", after.clone()), after);
    }
}
