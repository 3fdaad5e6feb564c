//! Strict validation of the edit JSON a model returns: every field present with its type, no
//! unknown fields, the `complete` sentinel, base_sha values equal to what was sent, and a diff
//! that touches only files it declares.
//!
//! The reply format (all fields required, nothing else allowed):
//!
//! ```json
//! {
//!   "unified_diff": "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n",
//!   "touched_files": [{"path": "src/a.rs", "reason": "rename", "base_sha": "e3b0c44298fc"}],
//!   "confidence": 0.8,
//!   "notes": "",
//!   "validation_status": "unchecked",
//!   "complete": true
//! }
//! ```
//!
//! `base_sha` is the value sent with the file, or `""` for a file the diff creates. An empty
//! `unified_diff` (with no touched files) means "no change needed". `confidence` is a number in
//! 0..=1 or one of `"low"`, `"medium"`, `"high"`. `validation_status` is free text except for
//! two values the executor acts on: `"stale_context"` (the model says the file it was given is
//! not the one the task is about) and `"cannot_edit"` (the model says it cannot make the edit);
//! either pauses the step with that reason and nothing of the reply is used.
//!
//! With `require_complete_sentinel` off ([`ValidateOptions`]), a reply without `complete` is
//! accepted; `"complete": false` is still refused.

use std::collections::{BTreeMap, BTreeSet};

use lspedit_engine::{EngineError, FileChange, Patch, parse_patch};
use serde_json::error::Category;
use serde_json::{Map, Value};

use super::detect::{diff_for_engine, json_payload};
use lspedit_write::{Reason, ToolError};

/// One entry of `touched_files`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TouchedFile {
    pub path: String,
    pub reason: String,
    pub base_sha: String,
}

/// The model's edit, with every field checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelEdit {
    pub unified_diff: String,
    pub touched_files: Vec<TouchedFile>,
    pub confidence: Confidence,
    pub notes: String,
    pub validation_status: String,
    /// Always `true` in a validated edit; kept so the value round-trips.
    pub complete: bool,
}

/// How sure the model says it is: a level or a score in `0.0..=1.0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Confidence {
    Low,
    Medium,
    High,
    Score(f64),
}

impl Confidence {
    /// A score in `0.0..=1.0`: the score itself, or 0.25 / 0.5 / 0.85 for the levels.
    pub fn score(self) -> f64 {
        match self {
            Confidence::Low => 0.25,
            Confidence::Medium => 0.5,
            Confidence::High => 0.85,
            Confidence::Score(s) => s,
        }
    }
}

/// `validation_status` values that stop the step: the model says it should not or cannot edit.
pub(super) const BLOCKING_VALIDATION_STATUSES: &[&str] = &["stale_context", "cannot_edit"];

/// Options of [`validate_model_edit_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Refuse a reply without `"complete": true` (default). Off: `complete` may be absent.
    pub require_complete_sentinel: bool,
}

impl Default for ValidateOptions {
    fn default() -> Self {
        ValidateOptions {
            require_complete_sentinel: true,
        }
    }
}

/// A validated edit and its parsed diff (`None` when the diff is empty: no change).
#[derive(Debug, Clone)]
pub struct ValidatedEdit {
    pub edit: ModelEdit,
    pub patch: Option<Patch>,
}

/// Why a model's edit JSON was refused. Every variant names the field or file at fault;
/// [`ModelEditError::reason`] maps it to the protocol's reason code.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelEditError {
    #[error("the reply is not valid JSON at line {line}, column {column}: {message}")]
    InvalidJson {
        line: usize,
        column: usize,
        message: String,
        /// The JSON ended in the middle of a value: the output was cut off.
        cut_off: bool,
    },
    #[error("the reply must be a JSON object, found {found}")]
    NotAnObject { found: &'static str },
    #[error("field `{field}` is missing")]
    MissingField { field: String },
    #[error("field `{field}` is not part of the edit format; remove it")]
    UnknownField { field: String },
    #[error("field `{field}` must be {expected}, found {found}")]
    WrongType {
        field: String,
        expected: &'static str,
        found: &'static str,
    },
    #[error("field `{field}` is out of range: {message}")]
    OutOfRange { field: String, message: String },
    #[error(
        "field `complete` is false: the model says its output is incomplete; resend the whole edit"
    )]
    Incomplete,
    #[error("`{path}` is listed twice in touched_files")]
    DuplicateFile { path: String },
    #[error(
        "sha_mismatch: touched_files gives base_sha `{got}` for `{path}` but `{expected}` was sent; use the base_sha of the file as sent"
    )]
    ShaMismatch {
        path: String,
        expected: String,
        got: String,
    },
    #[error("`{path}` was not sent in this request; edit only the files you were given")]
    NotRequested { path: String },
    #[error(
        "the diff touches `{path}`, which touched_files does not list; list every file the diff changes"
    )]
    Unlisted { path: String },
    #[error("unified_diff: {0}")]
    Patch(EngineError),
}

impl ModelEditError {
    /// The reason code: `truncated_input` for cut-off or self-declared incomplete output,
    /// `sha_mismatch`, `scope_violation` for files outside the request or missing from
    /// touched_files, the engine's reason for diff errors, and `invalid_diff_format` for every
    /// other malformed reply (the edit JSON is the envelope the diff comes in).
    pub fn reason(&self) -> Reason {
        match self {
            ModelEditError::InvalidJson { cut_off: true, .. } | ModelEditError::Incomplete => {
                Reason::TruncatedInput
            }
            ModelEditError::ShaMismatch { .. } => Reason::ShaMismatch,
            ModelEditError::NotRequested { .. } | ModelEditError::Unlisted { .. } => {
                Reason::ScopeViolation
            }
            ModelEditError::Patch(e) => e.reason.into(),
            _ => Reason::InvalidDiffFormat,
        }
    }

    /// The file the error is about, when there is one.
    pub fn path(&self) -> Option<&str> {
        match self {
            ModelEditError::DuplicateFile { path }
            | ModelEditError::ShaMismatch { path, .. }
            | ModelEditError::NotRequested { path }
            | ModelEditError::Unlisted { path } => Some(path),
            _ => None,
        }
    }
}

impl From<ModelEditError> for ToolError {
    fn from(e: ModelEditError) -> ToolError {
        ToolError::new(e.reason(), e.path(), e.to_string())
    }
}

const FIELDS: &[&str] = &[
    "unified_diff",
    "touched_files",
    "confidence",
    "notes",
    "validation_status",
    "complete",
];
const TOUCHED_FIELDS: &[&str] = &["path", "reason", "base_sha"];

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Reject unknown fields and missing ones, in a stable order (unknown first, alphabetically, so
/// the same reply always yields the same error).
fn check_keys(
    obj: &Map<String, Value>,
    allowed: &[&str],
    required: &[&str],
    prefix: &str,
) -> Result<(), ModelEditError> {
    let mut unknown: Vec<&String> = obj
        .keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .collect();
    unknown.sort();
    if let Some(k) = unknown.first() {
        return Err(ModelEditError::UnknownField {
            field: format!("{prefix}{k}"),
        });
    }
    if let Some(missing) = required.iter().find(|f| !obj.contains_key(**f)) {
        return Err(ModelEditError::MissingField {
            field: format!("{prefix}{missing}"),
        });
    }
    Ok(())
}

fn string_field(
    obj: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<String, ModelEditError> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(ModelEditError::WrongType {
            field: field.to_string(),
            expected: "a string",
            found: type_name(other),
        }),
        None => Err(ModelEditError::MissingField {
            field: field.to_string(),
        }),
    }
}

fn normalize_path(p: &str) -> &str {
    p.strip_prefix("./").unwrap_or(p)
}

/// Validate a model reply against the files that were sent: `expected_shas` maps each path to
/// the base_sha sent with it (`""` for a file that did not exist).
///
/// Checks, in order: JSON object; no unknown and no missing field; each field's type
/// (`confidence` a number in 0..=1, `complete` exactly `true`); touched_files entries (each an
/// object with string `path`, `reason`, `base_sha`, no duplicates, every path one that was sent,
/// every base_sha the one sent); the diff parses (an empty diff means no change); every file the
/// diff reads or writes is listed in touched_files.
pub fn validate_model_edit(
    content: &str,
    expected_shas: &BTreeMap<String, String>,
) -> Result<ValidatedEdit, ModelEditError> {
    validate_model_edit_with(content, expected_shas, ValidateOptions::default())
}

/// [`validate_model_edit`] with options (the `complete` sentinel may be made optional).
pub fn validate_model_edit_with(
    content: &str,
    expected_shas: &BTreeMap<String, String>,
    options: ValidateOptions,
) -> Result<ValidatedEdit, ModelEditError> {
    let payload = json_payload(content).map_err(|why| ModelEditError::InvalidJson {
        line: 1,
        column: 1,
        message: why.to_string(),
        cut_off: true,
    })?;
    let value: Value = serde_json::from_str(payload).map_err(|e| ModelEditError::InvalidJson {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
        cut_off: e.classify() == Category::Eof,
    })?;
    let Value::Object(obj) = &value else {
        return Err(ModelEditError::NotAnObject {
            found: type_name(&value),
        });
    };
    let required: Vec<&str> = FIELDS
        .iter()
        .copied()
        .filter(|f| options.require_complete_sentinel || *f != "complete")
        .collect();
    check_keys(obj, FIELDS, &required, "")?;

    match obj.get("complete") {
        None if !options.require_complete_sentinel => {}
        Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => return Err(ModelEditError::Incomplete),
        Some(other) => {
            return Err(ModelEditError::WrongType {
                field: "complete".into(),
                expected: "true",
                found: type_name(other),
            });
        }
        None => {
            return Err(ModelEditError::MissingField {
                field: "complete".into(),
            });
        }
    }
    let unified_diff = string_field(obj, "unified_diff", "unified_diff")?;
    let notes = string_field(obj, "notes", "notes")?;
    let validation_status = string_field(obj, "validation_status", "validation_status")?;
    let confidence = match obj.get("confidence") {
        Some(Value::Number(n)) => {
            let score = n.as_f64().unwrap_or(f64::NAN);
            if !(0.0..=1.0).contains(&score) {
                return Err(ModelEditError::OutOfRange {
                    field: "confidence".into(),
                    message: format!("{score} is not between 0 and 1"),
                });
            }
            Confidence::Score(score)
        }
        Some(Value::String(level)) => match level.as_str() {
            "low" => Confidence::Low,
            "medium" => Confidence::Medium,
            "high" => Confidence::High,
            other => {
                return Err(ModelEditError::OutOfRange {
                    field: "confidence".into(),
                    message: format!(
                        "`{other}` is not \"low\", \"medium\" or \"high\" (or a number between 0 and 1)"
                    ),
                });
            }
        },
        Some(other) => {
            return Err(ModelEditError::WrongType {
                field: "confidence".into(),
                expected: "a number between 0 and 1 or \"low\", \"medium\", \"high\"",
                found: type_name(other),
            });
        }
        None => {
            return Err(ModelEditError::MissingField {
                field: "confidence".into(),
            });
        }
    };

    let touched_files = touched_files(obj, expected_shas)?;

    let patch = if unified_diff.trim().is_empty() {
        None
    } else {
        Some(parse_patch(&diff_for_engine(&unified_diff)).map_err(ModelEditError::Patch)?)
    };
    if let Some(patch) = &patch {
        let listed: BTreeSet<&str> = touched_files.iter().map(|t| t.path.as_str()).collect();
        for fp in &patch.files {
            let mut paths = vec![fp.path()];
            if let FileChange::Update {
                move_to: Some(dest),
                ..
            } = &fp.change
            {
                paths.push(dest);
            }
            for p in paths {
                if !listed.contains(normalize_path(p)) {
                    return Err(ModelEditError::Unlisted {
                        path: p.to_string(),
                    });
                }
            }
        }
    }
    Ok(ValidatedEdit {
        edit: ModelEdit {
            unified_diff,
            touched_files,
            confidence,
            notes,
            validation_status,
            complete: true,
        },
        patch,
    })
}

fn touched_files(
    obj: &Map<String, Value>,
    expected_shas: &BTreeMap<String, String>,
) -> Result<Vec<TouchedFile>, ModelEditError> {
    let items = match obj.get("touched_files") {
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ModelEditError::WrongType {
                field: "touched_files".into(),
                expected: "an array",
                found: type_name(other),
            });
        }
        None => {
            return Err(ModelEditError::MissingField {
                field: "touched_files".into(),
            });
        }
    };
    let mut out: Vec<TouchedFile> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let prefix = format!("touched_files[{i}].");
        let Value::Object(entry) = item else {
            return Err(ModelEditError::WrongType {
                field: format!("touched_files[{i}]"),
                expected: "an object",
                found: type_name(item),
            });
        };
        check_keys(entry, TOUCHED_FIELDS, TOUCHED_FIELDS, &prefix)?;
        let path = string_field(entry, "path", &format!("{prefix}path"))?;
        let reason = string_field(entry, "reason", &format!("{prefix}reason"))?;
        let base_sha = string_field(entry, "base_sha", &format!("{prefix}base_sha"))?;
        let path = normalize_path(&path).to_string();
        if path.is_empty() {
            return Err(ModelEditError::OutOfRange {
                field: format!("{prefix}path"),
                message: "the path is empty".into(),
            });
        }
        if out.iter().any(|t| t.path == path) {
            return Err(ModelEditError::DuplicateFile { path });
        }
        let Some(expected) = expected_shas.get(&path) else {
            return Err(ModelEditError::NotRequested { path });
        };
        if *expected != base_sha {
            return Err(ModelEditError::ShaMismatch {
                path,
                expected: expected.clone(),
                got: base_sha,
            });
        }
        out.push(TouchedFile {
            path,
            reason,
            base_sha,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expected() -> BTreeMap<String, String> {
        BTreeMap::from([("src/a.rs".to_string(), "0123456789ab".to_string())])
    }

    fn reply() -> Value {
        json!({
            "unified_diff": "--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1 +1 @@\n-old\n+new\n",
            "touched_files": [{"path": "src/a.rs", "reason": "rename", "base_sha": "0123456789ab"}],
            "confidence": 0.5,
            "notes": "",
            "validation_status": "unchecked",
            "complete": true
        })
    }

    /// Validate `reply()` changed by `edit`; return the error.
    fn refuse(edit: impl FnOnce(&mut Value)) -> ModelEditError {
        let mut v = reply();
        edit(&mut v);
        match validate_model_edit(&v.to_string(), &expected()) {
            Ok(ok) => panic!("accepted: {ok:?}"),
            Err(e) => e,
        }
    }

    #[test]
    fn valid_reply_is_accepted() {
        let ok = validate_model_edit(&reply().to_string(), &expected()).unwrap();
        assert_eq!(ok.edit.touched_files[0].path, "src/a.rs");
        assert_eq!(ok.patch.map(|p| p.files.len()), Some(1));
    }

    #[test]
    fn empty_diff_means_no_change() {
        let mut v = reply();
        v["unified_diff"] = json!("");
        v["touched_files"] = json!([]);
        let ok = validate_model_edit(&v.to_string(), &expected()).unwrap();
        assert!(ok.patch.is_none());
    }

    #[test]
    fn missing_unknown_and_mistyped_fields_are_named() {
        let e = refuse(|v| {
            v.as_object_mut().unwrap().remove("notes");
        });
        assert_eq!(
            e,
            ModelEditError::MissingField {
                field: "notes".into()
            }
        );
        let e = refuse(|v| v["extra"] = json!(1));
        assert_eq!(
            e,
            ModelEditError::UnknownField {
                field: "extra".into()
            }
        );
        let e = refuse(|v| v["confidence"] = json!(true));
        assert!(
            matches!(&e, ModelEditError::WrongType { field, .. } if field == "confidence"),
            "{e}"
        );
        let e = refuse(|v| v["confidence"] = json!(1.5));
        assert!(
            matches!(&e, ModelEditError::OutOfRange { field, .. } if field == "confidence"),
            "{e}"
        );
        let e = refuse(|v| v["unified_diff"] = json!(null));
        assert!(
            matches!(&e, ModelEditError::WrongType { field, .. } if field == "unified_diff"),
            "{e}"
        );
        let e = refuse(|v| v["complete"] = json!("true"));
        assert!(
            matches!(&e, ModelEditError::WrongType { field, .. } if field == "complete"),
            "{e}"
        );
        let e = refuse(|v| v["touched_files"][0]["base_sha"] = json!(12));
        assert!(
            matches!(&e, ModelEditError::WrongType { field, .. } if field == "touched_files[0].base_sha"),
            "{e}"
        );
        let e = refuse(|v| {
            v["touched_files"][0]
                .as_object_mut()
                .unwrap()
                .remove("reason");
        });
        assert_eq!(
            e,
            ModelEditError::MissingField {
                field: "touched_files[0].reason".into()
            }
        );
        assert_eq!(e.reason(), Reason::InvalidDiffFormat);
        assert!(e.to_string().contains("touched_files[0].reason"), "{e}");
    }

    #[test]
    fn incomplete_is_truncation() {
        let e = refuse(|v| v["complete"] = json!(false));
        assert_eq!(e, ModelEditError::Incomplete);
        assert_eq!(e.reason(), Reason::TruncatedInput);
        let cut = &reply().to_string()[..30];
        let e = validate_model_edit(cut, &expected()).unwrap_err();
        assert_eq!(e.reason(), Reason::TruncatedInput, "{e}");
    }

    #[test]
    fn sha_mismatch_names_the_file() {
        let e = refuse(|v| v["touched_files"][0]["base_sha"] = json!("ffffffffffff"));
        assert_eq!(e.reason(), Reason::ShaMismatch);
        assert_eq!(e.path(), Some("src/a.rs"));
        let te = ToolError::from(e);
        assert_eq!(te.reason, Reason::ShaMismatch);
        assert_eq!(te.path.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn scope_of_files() {
        let e = refuse(|v| v["touched_files"] = json!([]));
        assert_eq!(
            e,
            ModelEditError::Unlisted {
                path: "src/a.rs".into()
            }
        );
        assert_eq!(e.reason(), Reason::ScopeViolation);
        let e = refuse(|v| {
            v["touched_files"]
                .as_array_mut()
                .unwrap()
                .push(json!({"path": "src/other.rs", "reason": "x", "base_sha": ""}));
        });
        assert_eq!(
            e,
            ModelEditError::NotRequested {
                path: "src/other.rs".into()
            }
        );
        let e = refuse(|v| {
            let dup = v["touched_files"][0].clone();
            v["touched_files"].as_array_mut().unwrap().push(dup);
        });
        assert_eq!(
            e,
            ModelEditError::DuplicateFile {
                path: "src/a.rs".into()
            }
        );
    }

    /// `reply()` changed by `edit` is refused with `reason`, the message containing `needle`.
    fn check(edit: impl FnOnce(&mut Value), reason: Reason, needle: &str) {
        let e = refuse(edit);
        assert_eq!(e.reason(), reason, "{e}");
        assert!(e.to_string().contains(needle), "{needle:?} not in {e}");
    }

    #[test]
    fn every_malformed_field_is_refused_naming_it() {
        let bad = Reason::InvalidDiffFormat;
        check(
            |v| v["touched_files"] = json!({"path": "src/a.rs"}),
            bad,
            "field `touched_files` must be an array, found an object",
        );
        check(
            |v| v["touched_files"] = json!(["src/a.rs"]),
            bad,
            "field `touched_files[0]` must be an object, found a string",
        );
        check(
            |v| v["touched_files"][0]["path"] = json!("./"),
            bad,
            "field `touched_files[0].path` is out of range: the path is empty",
        );
        check(
            |v| v["touched_files"][0]["extra"] = json!(0),
            bad,
            "field `touched_files[0].extra` is not part of the edit format",
        );
        check(
            |v| v["confidence"] = json!("certain"),
            bad,
            "`certain` is not \"low\", \"medium\" or \"high\"",
        );
        check(
            |v| v["confidence"] = json!(-0.1),
            bad,
            "-0.1 is not between 0 and 1",
        );
        check(
            |v| v["notes"] = json!([]),
            bad,
            "field `notes` must be a string, found an array",
        );
        check(
            |v| v["validation_status"] = json!(null),
            bad,
            "field `validation_status` must be a string, found null",
        );
        for field in ["touched_files", "confidence", "complete"] {
            check(
                |v| {
                    v.as_object_mut().unwrap().remove(field);
                },
                bad,
                &format!("field `{field}` is missing"),
            );
        }
    }

    #[test]
    fn a_reply_that_is_not_an_object_names_what_it_is() {
        for (content, found) in [
            ("[]", "an array"),
            ("1", "a number"),
            ("\"edit\"", "a string"),
            ("null", "null"),
            ("true", "a boolean"),
        ] {
            let e = validate_model_edit(content, &expected()).unwrap_err();
            assert_eq!(e, ModelEditError::NotAnObject { found }, "{content}");
            assert_eq!(e.reason(), Reason::InvalidDiffFormat);
            assert_eq!(e.path(), None);
        }
    }

    // A code fence that never closes is output cut off, not a malformed reply.
    #[test]
    fn an_unclosed_code_fence_is_truncation() {
        for content in ["```json", "```json\n{\"unified_diff\": \"\""] {
            let e = validate_model_edit(content, &expected()).unwrap_err();
            assert_eq!(e.reason(), Reason::TruncatedInput, "{content}: {e}");
            assert!(
                matches!(e, ModelEditError::InvalidJson { cut_off: true, .. }),
                "{e}"
            );
        }
        // A closed fence around a valid reply is accepted.
        let fenced = format!("```json\n{}\n```", reply());
        assert!(validate_model_edit(&fenced, &expected()).is_ok());
    }

    #[test]
    fn confidence_levels_map_to_scores() {
        for (level, score) in [("low", 0.25), ("medium", 0.5), ("high", 0.85)] {
            let mut v = reply();
            v["confidence"] = json!(level);
            let ok = validate_model_edit(&v.to_string(), &expected()).unwrap();
            assert_eq!(ok.edit.confidence.score(), score, "{level}");
        }
        let ok = validate_model_edit(&reply().to_string(), &expected()).unwrap();
        assert_eq!(ok.edit.confidence, Confidence::Score(0.5));
        assert_eq!(ok.edit.confidence.score(), 0.5);
    }

    // A moved file must list both its old and its new path.
    #[test]
    fn a_move_must_list_its_destination() {
        let e = refuse(|v| {
            v["unified_diff"] = json!(
                "diff --git a/src/a.rs b/src/b.rs\nrename from src/a.rs\nrename to src/b.rs\n"
            )
        });
        assert_eq!(
            e,
            ModelEditError::Unlisted {
                path: "src/b.rs".into()
            }
        );
    }

    #[test]
    fn diff_errors_keep_the_engine_reason() {
        let e = refuse(|v| v["unified_diff"] = json!("@@ -1 +1 @@\n-old\n+new\n"));
        assert_eq!(e.reason(), Reason::InvalidDiffFormat);
        assert!(matches!(e, ModelEditError::Patch(_)));
    }
}
