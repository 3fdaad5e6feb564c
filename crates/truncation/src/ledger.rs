//! The ledger of a chunked edit step: each target file's status and attempts, the chunks spent,
//! when to pause, and the combined diff of the files that are done.
//!
//! Entries are kept in path order (a `BTreeMap`), so "the next file", the combined diff and
//! every listing are deterministic.

use std::collections::BTreeMap;
use std::fmt;

/// Where one file of the step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkStatus {
    /// Not attempted yet (or released after a multi-file call that did not count against it).
    Pending,
    /// A model call for it is running.
    InProgress,
    /// Its diff was validated and planned cleanly.
    Done,
    /// Its last attempt failed; retried while attempts remain.
    Failed,
    /// The model answered that it needs no change.
    Skipped,
}

impl ChunkStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkStatus::Pending => "pending",
            ChunkStatus::InProgress => "in_progress",
            ChunkStatus::Done => "done",
            ChunkStatus::Failed => "failed",
            ChunkStatus::Skipped => "skipped",
        }
    }
}

/// One file of the step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub path: String,
    /// The base_sha sent to the model (`""` for a file that does not exist yet).
    pub base_sha: String,
    pub status: ChunkStatus,
    /// Single-file model calls made for this file.
    pub attempts: u32,
    /// The reason of the last failure, as given to the model on retry.
    pub last_error: Option<String>,
    /// The file's diff once done.
    pub diff: Option<String>,
    /// Why it was skipped.
    pub note: Option<String>,
}

/// The caps of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LedgerLimits {
    /// Single-file attempts per file before the step pauses. Default 2.
    pub max_attempts_per_file: u32,
    /// Model calls (chunks) per step, whatever they cover. Default 10.
    pub max_total_chunks: u32,
}

impl Default for LedgerLimits {
    fn default() -> Self {
        LedgerLimits {
            max_attempts_per_file: 2,
            max_total_chunks: 10,
        }
    }
}

/// Why a step paused instead of completing.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PauseReason {
    /// A file failed every attempt it was allowed.
    AttemptsExhausted {
        path: String,
        attempts: u32,
        last_error: String,
    },
    /// The chunk cap was reached with files still to do.
    ChunkCapReached { chunks: u32, remaining: Vec<String> },
    /// The model's reply said it should not or cannot edit (`validation_status`
    /// `stale_context` or `cannot_edit`, the code); nothing of the reply was used.
    ModelDeclined {
        path: String,
        status: &'static str,
        notes: String,
    },
}

impl PauseReason {
    /// The stable code, as in the `edit_step_paused` event.
    pub fn code(&self) -> &'static str {
        match self {
            PauseReason::AttemptsExhausted { .. } => "max_attempts_exceeded",
            PauseReason::ChunkCapReached { .. } => "chunk_cap_reached",
            PauseReason::ModelDeclined { status, .. } => status,
        }
    }
}

impl fmt::Display for PauseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PauseReason::AttemptsExhausted {
                path,
                attempts,
                last_error,
            } => write!(
                f,
                "max_attempts_exceeded: `{path}` failed {attempts} attempt(s), last: {last_error}"
            ),
            PauseReason::ChunkCapReached { chunks, remaining } => write!(
                f,
                "chunk_cap_reached: {chunks} model call(s) used, still to do: {}",
                remaining.join(", ")
            ),
            PauseReason::ModelDeclined {
                path,
                status,
                notes,
            } => write!(
                f,
                "{status}: the model declined to edit `{path}` (notes: {notes})"
            ),
        }
    }
}

/// Misuse of the ledger, or an attempt to go past a cap.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LedgerError {
    #[error("`{0}` is not a file of this step")]
    UnknownPath(String),
    #[error("`{path}` is {from}, it cannot become {to}")]
    InvalidTransition {
        path: String,
        from: &'static str,
        to: &'static str,
    },
    #[error("{0}")]
    Paused(PauseReason),
}

/// Per-file status and attempts of one edit step, with its caps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditAttemptLedger {
    limits: LedgerLimits,
    entries: BTreeMap<String, LedgerEntry>,
    chunks: u32,
}

impl EditAttemptLedger {
    /// A ledger over `files` (path, base_sha sent), all pending.
    pub fn new(
        files: impl IntoIterator<Item = (String, String)>,
        limits: LedgerLimits,
    ) -> EditAttemptLedger {
        let entries = files
            .into_iter()
            .map(|(path, base_sha)| {
                let entry = LedgerEntry {
                    path: path.clone(),
                    base_sha,
                    status: ChunkStatus::Pending,
                    attempts: 0,
                    last_error: None,
                    diff: None,
                    note: None,
                };
                (path, entry)
            })
            .collect();
        EditAttemptLedger {
            limits,
            entries,
            chunks: 0,
        }
    }

    pub fn limits(&self) -> LedgerLimits {
        self.limits
    }

    /// Model calls made so far.
    pub fn chunks_used(&self) -> u32 {
        self.chunks
    }

    pub fn entry(&self, path: &str) -> Option<&LedgerEntry> {
        self.entries.get(path)
    }

    /// Every entry, in path order.
    pub fn entries(&self) -> impl Iterator<Item = &LedgerEntry> {
        self.entries.values()
    }

    fn entry_mut(&mut self, path: &str) -> Result<&mut LedgerEntry, LedgerError> {
        self.entries
            .get_mut(path)
            .ok_or_else(|| LedgerError::UnknownPath(path.to_string()))
    }

    fn runnable(&self, e: &LedgerEntry) -> bool {
        match e.status {
            ChunkStatus::Pending => e.attempts < self.limits.max_attempts_per_file,
            ChunkStatus::Failed => e.attempts < self.limits.max_attempts_per_file,
            _ => false,
        }
    }

    /// The next file to attempt, in path order: pending ones, and failed ones with attempts left.
    pub fn next_runnable(&self) -> Option<&str> {
        self.entries
            .values()
            .find(|e| self.runnable(e))
            .map(|e| e.path.as_str())
    }

    /// Files not done and not skipped, in path order.
    pub fn remaining(&self) -> Vec<String> {
        self.entries
            .values()
            .filter(|e| !matches!(e.status, ChunkStatus::Done | ChunkStatus::Skipped))
            .map(|e| e.path.clone())
            .collect()
    }

    /// Whether the step must stop: a file failed all its attempts, or the chunk cap is used up
    /// while files remain. `None` while work can go on (or when everything is finished).
    pub fn should_pause(&self) -> Option<PauseReason> {
        if let Some(e) = self.entries.values().find(|e| {
            e.status == ChunkStatus::Failed && e.attempts >= self.limits.max_attempts_per_file
        }) {
            return Some(PauseReason::AttemptsExhausted {
                path: e.path.clone(),
                attempts: e.attempts,
                last_error: e.last_error.clone().unwrap_or_default(),
            });
        }
        let remaining = self.remaining();
        if self.chunks >= self.limits.max_total_chunks && !remaining.is_empty() {
            return Some(PauseReason::ChunkCapReached {
                chunks: self.chunks,
                remaining,
            });
        }
        None
    }

    /// Every file is done or skipped.
    pub fn is_complete(&self) -> bool {
        self.remaining().is_empty()
    }

    fn take_chunk(&mut self) -> Result<(), LedgerError> {
        if let Some(p) = self.should_pause() {
            return Err(LedgerError::Paused(p));
        }
        if self.chunks >= self.limits.max_total_chunks {
            return Err(LedgerError::Paused(PauseReason::ChunkCapReached {
                chunks: self.chunks,
                remaining: self.remaining(),
            }));
        }
        self.chunks += 1;
        Ok(())
    }

    /// Start a single-file attempt: uses a chunk and one of the file's attempts. Returns the
    /// attempt number (1-based).
    pub fn start_file(&mut self, path: &str) -> Result<u32, LedgerError> {
        let max = self.limits.max_attempts_per_file;
        let e = self.entry_mut(path)?;
        if !matches!(e.status, ChunkStatus::Pending | ChunkStatus::Failed) || e.attempts >= max {
            return Err(LedgerError::InvalidTransition {
                path: path.to_string(),
                from: e.status.as_str(),
                to: ChunkStatus::InProgress.as_str(),
            });
        }
        self.take_chunk()?;
        let e = self.entry_mut(path)?;
        e.attempts += 1;
        e.status = ChunkStatus::InProgress;
        Ok(e.attempts)
    }

    /// Start one call covering several pending files: uses a chunk but no file's attempts,
    /// because a failure of the combined output says nothing about any single file.
    pub fn start_group(&mut self, paths: &[String]) -> Result<(), LedgerError> {
        for p in paths {
            let e = self.entry_mut(p)?;
            if e.status != ChunkStatus::Pending {
                return Err(LedgerError::InvalidTransition {
                    path: p.clone(),
                    from: e.status.as_str(),
                    to: ChunkStatus::InProgress.as_str(),
                });
            }
        }
        self.take_chunk()?;
        for p in paths {
            self.entry_mut(p)?.status = ChunkStatus::InProgress;
        }
        Ok(())
    }

    fn finish(
        &mut self,
        path: &str,
        to: ChunkStatus,
        f: impl FnOnce(&mut LedgerEntry),
    ) -> Result<(), LedgerError> {
        let e = self.entry_mut(path)?;
        if e.status != ChunkStatus::InProgress {
            return Err(LedgerError::InvalidTransition {
                path: path.to_string(),
                from: e.status.as_str(),
                to: to.as_str(),
            });
        }
        e.status = to;
        f(e);
        Ok(())
    }

    /// The file's diff was validated and planned.
    pub fn complete(&mut self, path: &str, diff: String) -> Result<(), LedgerError> {
        self.finish(path, ChunkStatus::Done, |e| {
            e.diff = Some(diff);
            e.last_error = None;
        })
    }

    /// The model says the file needs no change.
    pub fn skip(&mut self, path: &str, note: impl Into<String>) -> Result<(), LedgerError> {
        let note = note.into();
        self.finish(path, ChunkStatus::Skipped, |e| {
            e.note = Some(note);
            e.last_error = None;
        })
    }

    /// The attempt failed.
    pub fn fail(&mut self, path: &str, error: impl Into<String>) -> Result<(), LedgerError> {
        let error = error.into();
        self.finish(path, ChunkStatus::Failed, |e| e.last_error = Some(error))
    }

    /// Back to pending after a multi-file call failed (no attempt was charged to the file).
    pub fn release(&mut self, path: &str, error: impl Into<String>) -> Result<(), LedgerError> {
        let error = error.into();
        self.finish(path, ChunkStatus::Pending, |e| e.last_error = Some(error))
    }

    /// The diffs of the done files, concatenated in path order.
    pub fn combined_diff(&self) -> String {
        let mut out = String::new();
        for diff in self.entries.values().filter_map(|e| match e.status {
            ChunkStatus::Done => e.diff.as_deref(),
            _ => None,
        }) {
            out.push_str(diff);
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
        }
        out
    }

    /// The done files, in path order.
    pub fn touched_files(&self) -> Vec<String> {
        self.entries
            .values()
            .filter(|e| e.status == ChunkStatus::Done)
            .map(|e| e.path.clone())
            .collect()
    }

    /// base_sha sent for each done file: what the combined diff was written against.
    pub fn base_shas(&self) -> BTreeMap<String, String> {
        self.entries
            .values()
            .filter(|e| e.status == ChunkStatus::Done)
            .map(|e| (e.path.clone(), e.base_sha.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ledger(paths: &[&str], limits: LedgerLimits) -> EditAttemptLedger {
        EditAttemptLedger::new(
            paths.iter().map(|p| (p.to_string(), format!("sha-{p}"))),
            limits,
        )
    }

    #[test]
    fn statuses_and_combined_diff_in_path_order() {
        let mut l = ledger(&["b.rs", "a.rs", "c.rs"], LedgerLimits::default());
        assert_eq!(l.next_runnable(), Some("a.rs"));
        assert_eq!(l.start_file("b.rs").unwrap(), 1);
        l.complete("b.rs", "diff-b\n".into()).unwrap();
        assert_eq!(l.start_file("a.rs").unwrap(), 1);
        l.complete("a.rs", "diff-a".into()).unwrap();
        assert_eq!(l.start_file("c.rs").unwrap(), 1);
        l.skip("c.rs", "no change").unwrap();
        assert!(l.is_complete());
        assert_eq!(l.should_pause(), None);
        assert_eq!(l.combined_diff(), "diff-a\ndiff-b\n");
        assert_eq!(l.touched_files(), ["a.rs", "b.rs"]);
        assert_eq!(
            l.base_shas().get("a.rs").map(String::as_str),
            Some("sha-a.rs")
        );
        assert_eq!(
            l.entry("c.rs").map(|e| e.status),
            Some(ChunkStatus::Skipped)
        );
        assert_eq!(l.chunks_used(), 3);
    }

    #[test]
    fn attempts_cap_pauses_with_the_file() {
        let mut l = ledger(&["a.rs", "b.rs"], LedgerLimits::default());
        assert_eq!(l.start_file("a.rs").unwrap(), 1);
        l.fail("a.rs", "truncated_input").unwrap();
        assert_eq!(l.should_pause(), None, "one attempt left");
        assert_eq!(l.next_runnable(), Some("a.rs"));
        assert_eq!(l.start_file("a.rs").unwrap(), 2);
        l.fail("a.rs", "truncated_input again").unwrap();
        let p = l.should_pause().unwrap();
        assert_eq!(p.code(), "max_attempts_exceeded");
        assert_eq!(
            p,
            PauseReason::AttemptsExhausted {
                path: "a.rs".into(),
                attempts: 2,
                last_error: "truncated_input again".into()
            }
        );
        assert!(matches!(
            l.start_file("a.rs"),
            Err(LedgerError::InvalidTransition { .. })
        ));
        assert!(matches!(l.start_file("b.rs"), Err(LedgerError::Paused(_))));
        assert_eq!(l.combined_diff(), "");
    }

    #[test]
    fn chunk_cap_pauses_with_what_remains() {
        let limits = LedgerLimits {
            max_attempts_per_file: 2,
            max_total_chunks: 3,
        };
        let mut l = ledger(&["a", "b", "c", "d"], limits);
        for p in ["a", "b", "c"] {
            l.start_file(p).unwrap();
            l.complete(p, format!("{p}\n")).unwrap();
        }
        let p = l.should_pause().unwrap();
        assert_eq!(
            p,
            PauseReason::ChunkCapReached {
                chunks: 3,
                remaining: vec!["d".into()]
            }
        );
        assert_eq!(l.start_file("d"), Err(LedgerError::Paused(p)));
        assert_eq!(
            l.entry("d").map(|e| (e.status, e.attempts)),
            Some((ChunkStatus::Pending, 0))
        );
    }

    #[test]
    fn cap_reached_exactly_when_done_is_not_a_pause() {
        let limits = LedgerLimits {
            max_attempts_per_file: 2,
            max_total_chunks: 1,
        };
        let mut l = ledger(&["a"], limits);
        l.start_file("a").unwrap();
        l.complete("a", "a\n".into()).unwrap();
        assert_eq!(l.should_pause(), None);
        assert!(l.is_complete());
    }

    #[test]
    fn group_calls_use_a_chunk_but_no_attempts() {
        let mut l = ledger(&["a", "b"], LedgerLimits::default());
        l.start_group(&["a".into(), "b".into()]).unwrap();
        l.release("a", "truncated").unwrap();
        l.release("b", "truncated").unwrap();
        assert_eq!(l.chunks_used(), 1);
        assert_eq!(
            l.entry("a").map(|e| (e.status, e.attempts)),
            Some((ChunkStatus::Pending, 0))
        );
        assert_eq!(l.start_file("a").unwrap(), 1);
    }

    #[test]
    fn misuse_is_an_error() {
        let mut l = ledger(&["a"], LedgerLimits::default());
        assert_eq!(
            l.start_file("zz"),
            Err(LedgerError::UnknownPath("zz".into()))
        );
        assert!(matches!(
            l.complete("a", String::new()),
            Err(LedgerError::InvalidTransition { .. })
        ));
    }
}
