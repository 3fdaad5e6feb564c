//! The property that keeps codes honest across the layers: every reason and status the system
//! can emit reaches the wire as the code of the same name, is listed where people look it up
//! (docs/design.md §9 "Reason codes", README "Reason codes"), and is enumerated by the output
//! schema a client reads. A reason crossing a seam as a string, or a code added in one layer
//! and not documented or mapped in the next, fails here.

use std::collections::BTreeSet;

use lspedit_lsp_edits::{LspEditReason, LspEditStatus};
use lspedit_tools::DiagnosticsStatus;
use lspedit_workflow::ApplyStatus;
use lspedit_write::Reason;
use serde::Serialize;
use serde_json::Value;

use crate::lsp_tools::{LspEditOutput, LspEditState};
use crate::output::{
    ApplyEditOutput, ApplyState, CheckStatus, DiagnosticsOutput, ProposeOutput, ReasonCode,
    WriteOutput,
};
use crate::schema::portable_output;

/// The text of `file` (relative to the repository root) from its line `heading` to the next
/// heading of the same or a higher level.
fn section(file: &str, heading: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../").to_string() + file;
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let level = heading.chars().take_while(|&c| c == '#').count();
    let mut lines = text.lines().skip_while(|l| *l != heading);
    assert!(lines.next().is_some(), "{file} has no `{heading}`");
    lines
        .take_while(|l| {
            let hashes = l.chars().take_while(|&c| c == '#').count();
            !(hashes > 0 && hashes <= level && l[hashes..].starts_with(' '))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `code` in backquotes of `text` that looks like a code (lower-case snake_case).
fn listed(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
        })
        .map(str::to_string)
        .collect()
}

fn json<T: Serialize>(v: T) -> Value {
    serde_json::to_value(v).unwrap()
}

/// Every code the system can refuse with: the write layer's (the engine's included, converted)
/// and the LSP edit tools'.
fn every_reason_code() -> Vec<&'static str> {
    let mut codes: Vec<&str> = LspEditReason::all().map(LspEditReason::as_str).collect();
    codes.extend(lspedit_engine::Reason::ALL.iter().map(|r| r.as_str()));
    codes
}

#[test]
fn every_reason_is_one_code_end_to_end() {
    for &r in Reason::ALL {
        assert_eq!(Reason::from_code(r.as_str()), Some(r));
        assert_eq!(json(r), Value::from(r.as_str()));
        assert_eq!(json(ReasonCode::from(r)), Value::from(r.as_str()));
    }
    for &r in lspedit_engine::Reason::ALL {
        assert_eq!(Reason::from(r).as_str(), r.as_str());
    }
    for r in LspEditReason::all() {
        assert_eq!(json(ReasonCode::from(r)), Value::from(r.as_str()));
    }
}

#[test]
fn every_reason_code_is_documented() {
    let design = listed(&section("docs/design.md", "### Reason codes"));
    let readme = listed(&section("README.md", "## Reason codes"));
    for code in every_reason_code() {
        assert!(
            design.contains(code),
            "docs/design.md §9 does not list `{code}`"
        );
        assert!(
            readme.contains(code),
            "README's reason codes do not list `{code}`"
        );
    }
}

/// The events' closed values are the schema's (`docs/events.schema.json`): a pause's reason, a
/// completed step's status, and a failure's reason code, which is a wire reason.
#[test]
fn the_events_schema_lists_every_pause_reason_and_step_status() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/events.schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fn find<'a>(v: &'a Value, event: &str) -> Option<&'a Value> {
        if v.pointer("/properties/event/const") == Some(&Value::from(event)) {
            return Some(v);
        }
        match v {
            Value::Object(m) => m.values().find_map(|c| find(c, event)),
            Value::Array(a) => a.iter().find_map(|c| find(c, event)),
            _ => None,
        }
    }
    let listed = |event: &str, field: &str| -> BTreeSet<String> {
        let e = find(&schema, event).unwrap_or_else(|| panic!("{event} not in the schema"));
        e["properties"][field]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{event}.{field} lists no values"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        listed("execution_paused", "reason"),
        codes(lspedit_tools::PauseReason::ALL.iter().map(|r| r.as_str()))
    );
    assert_eq!(
        listed("step_completed", "status"),
        codes(lspedit_tools::StepStatus::ALL.iter().map(|r| r.as_str()))
    );
    assert_eq!(
        listed("stage_changed", "stage"),
        codes(lspedit_tools::StepStage::ALL.iter().map(|r| r.as_str()))
    );
    for &r in Reason::ALL {
        let failure = lspedit_tools::Event::FailureDetected {
            reason: r,
            details: lspedit_tools::events::FailureDetails::message(String::new()),
        };
        assert_eq!(failure.fields()["reason"], Value::from(r.as_str()));
    }
}

#[test]
fn every_status_is_documented_and_converted_code_for_code() {
    let design = listed(&section("docs/design.md", "### Reason codes"));
    let mut codes = Vec::new();
    for &s in DiagnosticsStatus::ALL {
        assert_eq!(json(CheckStatus::from(s)), Value::from(s.as_str()));
        codes.push(s.as_str());
    }
    for &s in ApplyStatus::ALL {
        assert_eq!(json(ApplyState::from(s)), Value::from(s.as_str()));
        assert_eq!(
            json(s),
            Value::from(s.as_str()),
            "evidence spells it the same"
        );
        assert_eq!(
            json(lspedit_workflow::Outcome::from(s)),
            Value::from(s.as_str()),
            "the evidence manifest too"
        );
        codes.push(s.as_str());
    }
    for &s in LspEditStatus::ALL {
        assert_eq!(json(LspEditState::from(s)), Value::from(s.as_str()));
        codes.push(s.as_str());
    }
    for code in codes {
        assert!(
            design.contains(code),
            "docs/design.md §9 does not list `{code}`"
        );
    }
}

/// The `enum` of the schema at `pointer` (a JSON pointer) in `T`'s portable schema.
fn schema_enum<T: schemars::JsonSchema>(pointer: &str) -> BTreeSet<String> {
    let schema = Value::Object(portable_output::<T>().as_ref().clone());
    let at = schema
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{pointer} not in {schema}"));
    at["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{pointer} lists no values: {at}"))
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_else(|| panic!("{pointer}: {v} is not a code"))
                .to_string()
        })
        .collect()
}

fn codes<'a>(it: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
    it.into_iter().map(str::to_string).collect()
}

#[test]
fn the_output_schemas_enumerate_every_status_and_reason() {
    let diagnostics = codes(DiagnosticsStatus::ALL.iter().map(|s| s.as_str()));
    assert_eq!(
        schema_enum::<WriteOutput>(
            "/properties/files/items/properties/diagnostics/properties/status"
        ),
        diagnostics
    );
    assert_eq!(
        schema_enum::<DiagnosticsOutput>("/properties/files/items/properties/status"),
        diagnostics
    );
    assert_eq!(
        schema_enum::<ApplyEditOutput>("/properties/status"),
        codes(ApplyStatus::ALL.iter().map(|s| s.as_str()))
    );
    assert_eq!(
        schema_enum::<LspEditOutput>("/properties/status"),
        codes(LspEditStatus::ALL.iter().map(|s| s.as_str()))
    );
    let reasons = codes(LspEditReason::all().map(LspEditReason::as_str));
    assert_eq!(schema_enum::<WriteOutput>("/properties/reason"), reasons);
    assert_eq!(
        schema_enum::<ApplyEditOutput>("/properties/reason"),
        reasons
    );
    assert_eq!(schema_enum::<LspEditOutput>("/properties/reason"), reasons);
}

// `propose_edit`'s `kind` is the workflow's own `ChangeKind`, sent as it is: its schema and its
// codes are the ones the MCP crate declared when it kept a copy.
#[test]
fn a_proposed_files_kind_is_the_workflows_change_kind() {
    use lspedit_workflow::ChangeKind;
    let kinds = [
        (ChangeKind::Create, "create"),
        (ChangeKind::Modify, "modify"),
        (ChangeKind::Delete, "delete"),
        (ChangeKind::Rename, "rename"),
    ];
    for (kind, code) in kinds {
        assert_eq!(json(kind), Value::from(code));
    }
    assert_eq!(
        schema_enum::<ProposeOutput>("/properties/files/items/properties/kind"),
        codes(kinds.map(|(_, code)| code))
    );
    let schema = Value::Object(portable_output::<ProposeOutput>().as_ref().clone());
    assert_eq!(
        schema.pointer("/properties/files/items/properties/kind/description"),
        Some(&Value::from("What a proposed change does to a file."))
    );
}
