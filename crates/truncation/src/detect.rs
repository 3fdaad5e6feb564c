//! Detecting model output that was cut off: a length stop reason, JSON that does not parse, a
//! missing `"complete": true` sentinel, or a diff the engine itself calls truncated.
//!
//! A reply is trusted only when every signal is clean. The checks run from the cheapest and
//! most certain (the API said it stopped for length) to the most specific (the engine's
//! patch-level signal), and the first one that fires is reported.

use lspedit_engine::{Reason, parse_patch};
use serde_json::Value;
use serde_json::error::Category;

/// Which signal said the output was cut off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TruncationReason {
    /// The API reported that generation stopped at the token limit.
    StopReason,
    /// The content is not valid JSON (cut mid-string, mid-object, or not JSON at all).
    InvalidJson,
    /// The JSON is whole but does not carry `"complete": true`.
    MissingCompleteSentinel,
    /// The JSON is whole but its `unified_diff` is truncated by the engine's rules
    /// (`truncated_input`: a last hunk shorter than its header, an envelope without its end).
    TruncatedDiff,
}

impl TruncationReason {
    /// The stable snake_case code, as used in events.
    pub fn as_str(self) -> &'static str {
        match self {
            TruncationReason::StopReason => "stop_reason",
            TruncationReason::InvalidJson => "invalid_json",
            TruncationReason::MissingCompleteSentinel => "missing_complete_sentinel",
            TruncationReason::TruncatedDiff => "truncated_diff",
        }
    }
}

impl std::fmt::Display for TruncationReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The verdict of [`detect_truncation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TruncationReport {
    pub truncated: bool,
    /// The signal that fired; `None` when the output is whole.
    pub reason: Option<TruncationReason>,
    /// The stop reason the caller passed, verbatim.
    pub stop_reason: Option<String>,
    /// Length in bytes of the content examined (the partial output when truncated).
    pub partial_length: usize,
    /// What was seen, for logs and for the retry message to the model.
    pub details: String,
}

/// Stop reasons that mean "ran out of output tokens", after lowercasing and mapping `-` to `_`:
/// Anthropic `max_tokens`, OpenAI chat `length`, OpenAI responses `max_output_tokens`, Gemini
/// `MAX_TOKENS`, and the spellings other gateways use.
const LENGTH_STOP_REASONS: &[&str] = &[
    "max_tokens",
    "length",
    "max_output_tokens",
    "max_length",
    "token_limit",
    "model_length",
];

/// Whether a stop reason means the output hit the length limit.
fn is_length_stop(stop_reason: &str) -> bool {
    let norm = stop_reason.trim().to_ascii_lowercase().replace('-', "_");
    LENGTH_STOP_REASONS.contains(&norm.as_str())
}

/// The JSON text inside `content`: surrounding whitespace trimmed and one wrapping Markdown code
/// fence removed (models add them). A fence that opens but never closes means the output stopped
/// before its end, so it is an error.
pub(super) fn json_payload(content: &str) -> Result<&str, &'static str> {
    let trimmed = content.trim();
    let Some(after_fence) = trimmed.strip_prefix("```") else {
        return Ok(trimmed);
    };
    // The opening fence line may name a language (```json); the payload starts after it.
    let body = match after_fence.find('\n') {
        Some(i) => &after_fence[i + 1..],
        None => return Err("the output opens a ``` code fence and ends on that line"),
    };
    match body.trim_end().strip_suffix("```") {
        Some(inner) => Ok(inner.trim()),
        None => Err("the output opens a ``` code fence that is never closed"),
    }
}

/// The diff text a whole JSON reply carries, ready for the engine. A missing final newline is
/// added: the closed JSON string proves the last line was not cut, which is the only thing the
/// engine's "unterminated final addition" rule guards against.
pub(super) fn diff_for_engine(diff: &str) -> std::borrow::Cow<'_, str> {
    if diff.is_empty() || diff.ends_with('\n') {
        std::borrow::Cow::Borrowed(diff)
    } else {
        std::borrow::Cow::Owned(format!("{diff}\n"))
    }
}

/// Decide whether a model reply was cut off. `stop_reason` is what the model API reported
/// (`max_tokens`, `length`, `end_turn`, `stop`, ...), when it reported anything.
///
/// Signals, in order: a length stop reason; content that is not valid JSON (after removing one
/// wrapping code fence); JSON without `"complete": true`; a `unified_diff` string that
/// [`parse_patch`] refuses as `truncated_input`. Other diff errors are not truncation: they are
/// for validation to report.
pub fn detect_truncation(content: &str, stop_reason: Option<&str>) -> TruncationReport {
    detect_truncation_with(content, stop_reason, true)
}

/// [`detect_truncation`], with the `complete` sentinel optional when
/// `require_complete_sentinel` is false: a reply without it is not truncated for that reason
/// (`"complete": false` still is, the model saying so itself).
pub fn detect_truncation_with(
    content: &str,
    stop_reason: Option<&str>,
    require_complete_sentinel: bool,
) -> TruncationReport {
    let report = |reason: Option<TruncationReason>, details: String| TruncationReport {
        truncated: reason.is_some(),
        reason,
        stop_reason: stop_reason.map(str::to_string),
        partial_length: content.len(),
        details,
    };
    if let Some(sr) = stop_reason
        && is_length_stop(sr)
    {
        return report(
            Some(TruncationReason::StopReason),
            format!(
                "generation stopped at the output limit (stop reason `{sr}`) after {} bytes",
                content.len()
            ),
        );
    }
    let payload = match json_payload(content) {
        Ok(p) => p,
        Err(why) => return report(Some(TruncationReason::InvalidJson), why.to_string()),
    };
    let value: Value = match serde_json::from_str(payload) {
        Ok(v) => v,
        Err(e) => {
            let details = if e.classify() == Category::Eof {
                format!(
                    "the JSON ends in the middle of a value (line {}, column {}): the output was cut off",
                    e.line(),
                    e.column()
                )
            } else {
                format!("the output is not valid JSON: {e}")
            };
            return report(Some(TruncationReason::InvalidJson), details);
        }
    };
    let sentinel_ok = match value.get("complete") {
        Some(Value::Bool(true)) => true,
        None => !require_complete_sentinel,
        Some(_) => false,
    };
    if !sentinel_ok {
        let details = match value.get("complete") {
            None => "the JSON has no `\"complete\": true` sentinel".to_string(),
            Some(other) => format!("the JSON says `\"complete\": {other}`, not `true`"),
        };
        return report(Some(TruncationReason::MissingCompleteSentinel), details);
    }
    if let Some(Value::String(diff)) = value.get("unified_diff")
        && !diff.trim().is_empty()
        && let Err(e) = parse_patch(&diff_for_engine(diff))
        && e.reason == Reason::TruncatedInput
    {
        return report(
            Some(TruncationReason::TruncatedDiff),
            format!("the unified_diff is truncated: {}", e.message),
        );
    }
    report(None, "the output is whole".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    const WHOLE: &str = r#"{"unified_diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-old\n+new\n", "complete": true}"#;

    fn check(content: &str, stop: Option<&str>, expected: Option<TruncationReason>) {
        let r = detect_truncation(content, stop);
        assert_eq!(r.reason, expected, "{content:?} / {stop:?}: {}", r.details);
        assert_eq!(r.truncated, expected.is_some());
        assert_eq!(r.partial_length, content.len());
        assert_eq!(r.stop_reason.as_deref(), stop);
    }

    #[test]
    fn whole_output_is_not_truncated() {
        check(WHOLE, None, None);
        check(WHOLE, Some("end_turn"), None);
        check(WHOLE, Some("stop"), None);
        check(&format!("```json\n{WHOLE}\n```\n"), None, None);
    }

    #[test]
    fn length_stop_reasons() {
        for sr in [
            "max_tokens",
            "length",
            "MAX_TOKENS",
            "max-output-tokens",
            "max_output_tokens",
        ] {
            check(WHOLE, Some(sr), Some(TruncationReason::StopReason));
        }
    }

    #[test]
    fn invalid_json() {
        let cut = &WHOLE[..40];
        check(cut, None, Some(TruncationReason::InvalidJson));
        let r = detect_truncation(cut, None);
        assert!(r.details.contains("cut off"), "{}", r.details);
        check("", None, Some(TruncationReason::InvalidJson));
        check(
            "Sure, here is the diff",
            None,
            Some(TruncationReason::InvalidJson),
        );
        check(
            &format!("```json\n{WHOLE}\n"),
            None,
            Some(TruncationReason::InvalidJson),
        );
    }

    #[test]
    fn missing_sentinel() {
        check(
            r#"{"unified_diff": ""}"#,
            None,
            Some(TruncationReason::MissingCompleteSentinel),
        );
        check(
            r#"{"unified_diff": "", "complete": false}"#,
            None,
            Some(TruncationReason::MissingCompleteSentinel),
        );
        check(
            r#"{"complete": "true"}"#,
            None,
            Some(TruncationReason::MissingCompleteSentinel),
        );
        check(
            "[1, 2]",
            None,
            Some(TruncationReason::MissingCompleteSentinel),
        );
    }

    #[test]
    fn engine_truncation_signal_in_the_diff() {
        // The last hunk declares 3 old lines but carries 1: the engine's truncated_input.
        let short = r#"{"unified_diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1,3 +1,3 @@\n-old\n", "complete": true}"#;
        check(short, None, Some(TruncationReason::TruncatedDiff));
        let envelope = r#"{"unified_diff": "*** Begin Patch\n*** Update File: x.rs\n@@\n-old\n+new\n", "complete": true}"#;
        check(envelope, None, Some(TruncationReason::TruncatedDiff));
    }

    #[test]
    fn closed_json_string_proves_the_last_diff_line_whole() {
        // Regression: the engine refuses an unterminated final addition line, but inside a
        // closed JSON string followed by the sentinel it cannot have been cut.
        let no_newline = r#"{"unified_diff": "--- a/x.rs\n+++ b/x.rs\n@@ -1 +1 @@\n-old\n+new", "complete": true}"#;
        check(no_newline, None, None);
    }
}
