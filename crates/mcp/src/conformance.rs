//! Every tool's every result validates against the `outputSchema` the server lists for it, in
//! every tool set and schema profile: the samples below (a success with every field, a
//! refusal with none of the optional ones, a partial answer, each status and kind) are the
//! crate's own output types, serialized as a call serializes them, and checked with an
//! independent JSON Schema validator (the `jsonschema` crate). A field serde may leave out that
//! the schema still requires (the bug of `outline` and seven other tools, whose results the
//! official SDKs rejected) fails here, as does a `null` the schema does not allow.
//!
//! A tool without samples fails too, so a new tool comes with its results. The interop suite
//! (`tests/it/mcp_interop.rs`) checks the same against real servers with the official Python
//! and TypeScript SDKs.

use std::collections::BTreeMap;

use lspedit_lsp_edits::{LspEditReason, LspEditStatus};
use lspedit_tools::DiagnosticsStatus;
use lspedit_workflow::{ApplyStatus, ChangeKind};
use serde::Serialize;
use serde_json::Value;

use crate::lookup_tools::{CallHierarchyOutput, CallItemOutput, CallOutput, HoverOutput};
use crate::lsp_tools::{
    CodeActionOutput, CodeActionsOutput, FindSymbolOutput, LocationOutput, LocationsOutput,
    LspEditFileOutput, LspEditOutput, LspEditState, OutlineOutput, ServerOpKind, ServerOpOutput,
    SymbolOutput,
};
use crate::output::{
    AppliedFile, ApplyEditOutput, ApplyState, ChangedBlock, CheckStatus, DiagnosticOutput,
    DiagnosticsOutput, FileDiagnosticsOutput, FileDiagnosticsState, FileResult, FileState,
    HunkResult, LineWindow, ProposeOutput, ProposedFileOutput, ReadFileOutput, ReasonCode,
    SeverityName, Statistics, UndoOutput, WriteOutput,
};
use crate::profile::{SchemaProfile, ToolSet, tools_of};
use crate::schema::portability_problems;
use crate::server::LspeditServer;

fn json<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("an output serializes")
}

/// Every reason code, the first and the last of the closed set (the schema lists them all).
fn reasons() -> Vec<ReasonCode> {
    let all: Vec<LspEditReason> = LspEditReason::all().collect();
    vec![ReasonCode(all[0]), ReasonCode(all[all.len() - 1])]
}

fn check_states() -> Vec<FileDiagnosticsState> {
    DiagnosticsStatus::ALL
        .iter()
        .map(|&s| FileDiagnosticsState {
            status: s.into(),
            errors: (s == DiagnosticsStatus::Checked).then_some(2),
        })
        .chain([FileDiagnosticsState {
            status: CheckStatus::Checked,
            errors: None,
        }])
        .collect()
}

fn read_file() -> Vec<Value> {
    let mut out = vec![json(&ReadFileOutput {
        path: "src/a.ts".into(),
        base_sha: Some("3f2a9c0b1d4e".into()),
        lines: Some(LineWindow {
            offset: 1,
            limit: 2000,
            shown: 3,
            total: 3,
            more: false,
        }),
        reason: None,
    })];
    for reason in reasons().into_iter().map(Some).chain([None]) {
        out.push(json(&ReadFileOutput {
            path: "missing.ts".into(),
            base_sha: None,
            lines: None,
            reason,
        }));
    }
    out
}

fn written_file(status: FileState, diagnostics: Option<FileDiagnosticsState>) -> FileResult {
    FileResult {
        path: "src/a.ts".into(),
        status,
        new_path: (status == FileState::Renamed).then(|| "src/b.ts".into()),
        reason: None,
        message: None,
        hunks: vec![HunkResult {
            index: 1,
            target_line: 4,
            found_line: 2,
            offset: -2,
        }],
        changed: vec![
            ChangedBlock {
                start_line: 2,
                line_count: 1,
                old_start_line: 2,
                old_line_count: 1,
                anchored_lines: Some(vec!["2abcd|x".into()]),
            },
            ChangedBlock {
                start_line: 9,
                line_count: 0,
                old_start_line: 9,
                old_line_count: 400,
                anchored_lines: None,
            },
        ],
        diagnostics,
    }
}

fn write() -> Vec<Value> {
    let mut files: Vec<FileResult> = [
        FileState::Added,
        FileState::Modified,
        FileState::Deleted,
        FileState::Renamed,
    ]
    .into_iter()
    .map(|s| written_file(s, None))
    .collect();
    files.extend(check_states().into_iter().map(|d| {
        let mut f = written_file(FileState::Modified, Some(d));
        f.hunks.clear();
        f
    }));
    let failed = |reason| FileResult {
        path: "src/c.ts".into(),
        status: FileState::Failed,
        new_path: None,
        reason,
        message: reason.map(|_| "hunk 1 does not match".into()),
        hunks: Vec::new(),
        changed: Vec::new(),
        diagnostics: None,
    };
    let mut out = vec![json(&WriteOutput {
        success: true,
        reason: None,
        files,
    })];
    for reason in reasons() {
        out.push(json(&WriteOutput {
            success: false,
            reason: Some(reason),
            files: vec![
                written_file(FileState::Modified, None),
                failed(Some(reason)),
            ],
        }));
    }
    out.push(json(&WriteOutput {
        success: false,
        reason: None,
        files: vec![failed(None)],
    }));
    out.push(json(&WriteOutput {
        success: false,
        reason: reasons().first().copied(),
        files: Vec::new(),
    }));
    out
}

fn propose_edit() -> Vec<Value> {
    let file = |kind, refused: Option<ReasonCode>| ProposedFileOutput {
        path: "src/a.ts".into(),
        new_path: (kind == ChangeKind::Rename).then(|| "src/b.ts".into()),
        kind,
        base_sha: (kind != ChangeKind::Create).then(|| "3f2a9c0b1d4e".into()),
        new_sha: (kind != ChangeKind::Delete && refused.is_none()).then(|| "0123456789ab".into()),
        added: 1,
        removed: 1,
        changes: 1,
        reason: refused,
        message: refused.map(|_| "stale".into()),
    };
    let mut files: Vec<ProposedFileOutput> = [
        ChangeKind::Create,
        ChangeKind::Modify,
        ChangeKind::Delete,
        ChangeKind::Rename,
    ]
    .into_iter()
    .map(|k| file(k, None))
    .collect();
    files.push(file(ChangeKind::Modify, reasons().first().copied()));
    let full = ProposeOutput {
        success: true,
        patch_id: Some("patch_1_00000000000000000000000000000000".into()),
        affected_files: vec!["src/a.ts".into(), "src/b.ts".into()],
        unified_diff: Some("--- a/src/a.ts\n+++ b/src/a.ts\n".into()),
        statistics: Some(Statistics {
            files_scanned: 3,
            files_matched: 2,
            total_changes: 4,
            files_skipped: 1,
        }),
        files,
        evidence_id: Some("ev_1".into()),
        reason: None,
    };
    let mut out = vec![json(&full), json(&ProposeOutput::refused(None))];
    for reason in reasons() {
        out.push(json(&ProposeOutput {
            reason: Some(reason),
            ..ProposeOutput::default()
        }));
    }
    out
}

fn apply_edit() -> Vec<Value> {
    let mut out = Vec::new();
    for &status in ApplyStatus::ALL {
        let written = matches!(status, ApplyStatus::Applied | ApplyStatus::PartiallyApplied);
        let mut files: Vec<AppliedFile> = check_states()
            .into_iter()
            .map(|d| AppliedFile {
                path: "src/a.ts".into(),
                applied: written,
                reason: None,
                message: "M src/a.ts (1 hunk)".into(),
                diagnostics: written.then_some(d),
            })
            .collect();
        files.push(AppliedFile {
            path: "src/b.ts".into(),
            applied: false,
            reason: reasons().first().copied(),
            message: "FAILED src/b.ts".into(),
            diagnostics: None,
        });
        out.push(json(&ApplyEditOutput {
            success: status == ApplyStatus::Applied,
            status: ApplyState::from(status),
            patch_id: "patch_1_00000000000000000000000000000000".into(),
            modified_files: if written {
                vec!["src/a.ts".into()]
            } else {
                Vec::new()
            },
            checkpoint_id: written.then(|| "cp_1".into()),
            evidence_id: Some("ev_1".into()),
            reason: (!written).then(|| reasons()[0]),
            rolled_back: status == ApplyStatus::Refused,
            files,
        }));
    }
    out.push(json(&ApplyEditOutput::unavailable("patch_x", None)));
    out
}

fn undo() -> Vec<Value> {
    let mut out = vec![json(&UndoOutput {
        success: true,
        checkpoint_id: "cp_1".into(),
        restored: vec!["src/a.ts".into()],
        redo_checkpoint_id: Some("cp_2".into()),
        reason: None,
    })];
    out.push(json(&UndoOutput::refused("cp_x", None)));
    for reason in reasons() {
        out.push(json(&UndoOutput {
            reason: Some(reason),
            ..UndoOutput::refused("cp_x", None)
        }));
    }
    out
}

fn diagnostics() -> Vec<Value> {
    let checked = |status: Option<DiagnosticsStatus>| FileDiagnosticsOutput {
        path: "src/a.ts".into(),
        server: status.map(|_| "typescript".into()),
        status: status.map(CheckStatus::from),
        diagnostics: (status == Some(DiagnosticsStatus::Checked)).then(|| {
            [
                SeverityName::Error,
                SeverityName::Warning,
                SeverityName::Info,
                SeverityName::Hint,
            ]
            .into_iter()
            .enumerate()
            .map(|(i, severity)| DiagnosticOutput {
                line: 3,
                column: 7,
                severity,
                code: (i % 2 == 0).then(|| "2322".into()),
                message: "Type 'number' is not assignable to type 'string'.".into(),
            })
            .collect()
        }),
        text: "ERROR [3:7] ...".into(),
        reason: None,
    };
    let mut files: Vec<FileDiagnosticsOutput> = DiagnosticsStatus::ALL
        .iter()
        .map(|&s| checked(Some(s)))
        .collect();
    files.push(FileDiagnosticsOutput {
        reason: reasons().first().copied(),
        ..checked(None)
    });
    vec![
        json(&DiagnosticsOutput {
            files,
            unavailable: None,
            warnings: vec!["unknown key".into()],
        }),
        json(&DiagnosticsOutput {
            unavailable: Some("diagnostics are off".into()),
            ..DiagnosticsOutput::default()
        }),
        json(&DiagnosticsOutput::default()),
    ]
}

fn lsp_edit() -> Vec<Value> {
    let mut out = vec![json(&LspEditOutput::refused(None))];
    for reason in reasons() {
        out.push(json(&LspEditOutput::refused(Some(reason))));
    }
    for &status in LspEditStatus::ALL {
        let files = check_states()
            .into_iter()
            .map(Some)
            .chain([None])
            .map(|diagnostics| LspEditFileOutput {
                path: "src/a.ts".into(),
                applied: diagnostics.is_some(),
                reason: diagnostics.is_none().then(|| reasons()[0]),
                message: "M src/a.ts (1 hunk)".into(),
                diagnostics,
            })
            .collect();
        out.push(json(&LspEditOutput {
            success: matches!(status, LspEditStatus::Applied | LspEditStatus::Proposed),
            status: LspEditState::from(status),
            reason: (status == LspEditStatus::Refused).then(|| reasons()[0]),
            server: Some("typescript".into()),
            server_time_ms: Some(12),
            server_edit: [
                ServerOpKind::Edit,
                ServerOpKind::Create,
                ServerOpKind::Rename,
                ServerOpKind::Delete,
            ]
            .into_iter()
            .map(|op| ServerOpOutput {
                op,
                path: "src/a.ts".into(),
                to: (op == ServerOpKind::Rename).then(|| "src/b.ts".into()),
                edits: (op == ServerOpKind::Edit).then_some(3),
            })
            .collect(),
            patch_id: Some("patch_1_00000000000000000000000000000000".into()),
            checkpoint_id: (status != LspEditStatus::Proposed).then(|| "cp_1".into()),
            files,
        }));
    }
    out
}

fn code_actions() -> Vec<Value> {
    let action = |kind: Option<&str>| CodeActionOutput {
        index: 1,
        title: "Add import".into(),
        kind: kind.map(str::to_string),
        fixes: vec!["Cannot find name 'add'. (2304)".into()],
        preferred: kind.is_some(),
    };
    let mut out = vec![
        json(&CodeActionsOutput {
            reason: None,
            actions: vec![action(Some("quickfix")), action(None)],
        }),
        json(&CodeActionsOutput::refused(None)),
    ];
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&CodeActionsOutput::refused(Some(r)))),
    );
    out
}

fn locations() -> Vec<Value> {
    let location = |in_workspace| LocationOutput {
        path: "src/a.ts".into(),
        line: 1,
        column: 2,
        end_line: 1,
        end_column: 5,
        in_workspace,
    };
    let mut out = vec![json(&LocationsOutput::refused(None))];
    for partial in [false, true] {
        out.push(json(&LocationsOutput {
            reason: None,
            locations: vec![location(true), location(false)],
            with_context: 1,
            partial,
        }));
    }
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&LocationsOutput::refused(Some(r)))),
    );
    out
}

fn symbol(detail: Option<&str>) -> SymbolOutput {
    SymbolOutput {
        path: "src/cart.ts".into(),
        name_path: "Cart/total".into(),
        name: "total".into(),
        kind: "method".into(),
        depth: 1,
        line: 4,
        anchor: "4abcd".into(),
        start_line: 4,
        end_line: 6,
        detail: detail.map(str::to_string),
    }
}

fn outline() -> Vec<Value> {
    let mut out = vec![json(&OutlineOutput::refused(None))];
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&OutlineOutput::refused(Some(r)))),
    );
    out.push(json(&OutlineOutput {
        reason: None,
        symbols: vec![symbol(Some("(): number")), symbol(None)],
        left_out: Vec::new(),
        hidden: 0,
        partial: false,
    }));
    out.push(json(&OutlineOutput {
        reason: None,
        symbols: vec![symbol(None)],
        left_out: vec!["src/big.ts".into()],
        hidden: 3,
        partial: true,
    }));
    out
}

fn find_symbol() -> Vec<Value> {
    let mut out = vec![json(&FindSymbolOutput::refused(None))];
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&FindSymbolOutput::refused(Some(r)))),
    );
    out.push(json(&FindSymbolOutput {
        reason: None,
        matches: vec![symbol(Some("(): number"))],
        more: 0,
        suggestions: Vec::new(),
        partial: false,
    }));
    out.push(json(&FindSymbolOutput {
        reason: None,
        matches: vec![symbol(None)],
        more: 7,
        suggestions: Vec::new(),
        partial: true,
    }));
    out.push(json(&FindSymbolOutput {
        reason: None,
        matches: Vec::new(),
        more: 0,
        suggestions: vec!["total".into()],
        partial: false,
    }));
    out
}

fn hover() -> Vec<Value> {
    let mut out = vec![json(&HoverOutput::refused(None))];
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&HoverOutput::refused(Some(r)))),
    );
    for (text, truncated, partial) in [
        (
            Some("```ts\nfunction add(a: number, b: number): number\n```"),
            false,
            false,
        ),
        (Some("long"), true, true),
        (None, false, false),
    ] {
        out.push(json(&HoverOutput {
            reason: None,
            path: Some("src/a.ts".into()),
            line: Some(3),
            server: Some("typescript".into()),
            hover: text.map(str::to_string),
            truncated,
            partial,
        }));
    }
    out
}

fn call_hierarchy() -> Vec<Value> {
    let item = |in_workspace: bool| CallItemOutput {
        name: "add".into(),
        kind: "function".into(),
        path: "src/util.ts".into(),
        line: 1,
        anchor: in_workspace.then(|| "1abcd".into()),
        in_workspace,
        detail: in_workspace.then(|| "util.ts".into()),
    };
    let mut out = vec![json(&CallHierarchyOutput::refused(None))];
    out.extend(
        reasons()
            .into_iter()
            .map(|r| json(&CallHierarchyOutput::refused(Some(r)))),
    );
    for (more, partial) in [(0, false), (3, true)] {
        out.push(json(&CallHierarchyOutput {
            reason: None,
            targets: vec![item(true)],
            calls: vec![
                CallOutput {
                    item: item(true),
                    sites_path: "src/index.ts".into(),
                    sites: vec![3, 4],
                    target: 0,
                },
                CallOutput {
                    item: item(false),
                    sites_path: "/usr/lib/x.ts".into(),
                    sites: vec![1],
                    target: 0,
                },
            ],
            more,
            partial,
        }));
    }
    out
}

/// The sample results of `tool`; `None` for a tool this file does not know yet.
fn samples(tool: &str) -> Option<Vec<Value>> {
    Some(match tool {
        "read_file" => read_file(),
        "edit" | "write_file" | "apply_patch" => write(),
        "propose_edit" => propose_edit(),
        "apply_edit" => apply_edit(),
        "undo" => undo(),
        "diagnostics" => diagnostics(),
        "rename_symbol"
        | "apply_code_action"
        | "replace_symbol_body"
        | "insert_before_symbol"
        | "insert_after_symbol" => lsp_edit(),
        "code_actions" => code_actions(),
        "references" | "definition" | "implementations" | "type_definition" => locations(),
        "outline" => outline(),
        "find_symbol" => find_symbol(),
        "hover" => hover(),
        "call_hierarchy" => call_hierarchy(),
        _ => return None,
    })
}

const SETS: [ToolSet; 5] = [
    ToolSet::Core,
    ToolSet::Lsp,
    ToolSet::Workflow,
    ToolSet::All,
    ToolSet::Review,
];
const PROFILES: [SchemaProfile; 2] = [SchemaProfile::Default, SchemaProfile::Strict];

/// Why `instance` is not valid against `schema`, one line per error; empty when it is.
fn invalid(schema: &Value, instance: &Value) -> Vec<String> {
    let compiled = jsonschema::JSONSchema::options()
        .with_draft(jsonschema::Draft::Draft7)
        .compile(schema)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}\n{schema}"));
    match compiled.validate(instance) {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .map(|e| format!("{}: {e}", e.instance_path))
            .collect(),
    }
}

#[test]
fn every_result_of_every_listed_tool_validates_against_its_output_schema() {
    let mut problems = Vec::new();
    let mut schemas: BTreeMap<String, Value> = BTreeMap::new();
    for profile in PROFILES {
        for set in SETS {
            for tool in LspeditServer::routes(&tools_of(&[set]), profile).list_all() {
                let name = tool.name.to_string();
                let schema = Value::Object(
                    tool.output_schema
                        .as_ref()
                        .unwrap_or_else(|| panic!("{name} has no output schema"))
                        .as_ref()
                        .clone(),
                );
                // The profiles shape the inputs only: a tool's output schema is the same in
                // every set and profile.
                let first = schemas
                    .entry(name.clone())
                    .or_insert_with(|| schema.clone());
                assert_eq!(*first, schema, "{name}: {profile} {set}");
                let samples =
                    samples(&name).unwrap_or_else(|| panic!("no sample results of {name}"));
                for (i, sample) in samples.iter().enumerate() {
                    for e in invalid(&schema, sample) {
                        problems.push(format!("{profile} {set} {name} sample {i}: {e}"));
                    }
                }
            }
        }
    }
    assert_eq!(schemas.len(), 22, "{:?}", schemas.keys());
    assert!(
        problems.is_empty(),
        "{} invalid results:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Structural, without samples: in every output schema, a property that is `required` is one
/// serde always writes, and none allows `null` (which the portable subset cannot say). With the
/// schema generated under the serialize contract ([`crate::schema::portable_output`]) this
/// holds by construction; the test keeps it so if the generation changes.
#[test]
fn output_schemas_require_only_what_serde_always_writes() {
    for tool in LspeditServer::router().list_all() {
        let schema = Value::Object(tool.output_schema.as_ref().unwrap().as_ref().clone());
        assert_eq!(
            portability_problems(&schema),
            Vec::<String>::new(),
            "{}",
            tool.name
        );
        // The emptiest result each tool gives (a refusal with no reason, or bad arguments)
        // carries every required property.
        let emptiest = samples(&tool.name)
            .unwrap()
            .into_iter()
            .min_by_key(|v| v.to_string().len())
            .unwrap();
        let required = schema.get("required").and_then(Value::as_array);
        for key in required.into_iter().flatten() {
            let key = key.as_str().unwrap();
            assert!(
                emptiest.get(key).is_some(),
                "{}: `{key}` is required but serde left it out of {emptiest}",
                tool.name
            );
        }
    }
}

/// A validator that accepts everything would pass the test above: it must reject a result
/// without a required field, one with a wrong type, and a `null` the schema does not allow.
#[test]
fn the_validator_rejects_what_the_schemas_forbid() {
    let tools = LspeditServer::router().list_all();
    let schema_of = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        Value::Object(tool.output_schema.as_ref().unwrap().as_ref().clone())
    };
    let outline = schema_of("outline");
    let mut sample = json(&OutlineOutput::refused(None));
    assert!(invalid(&outline, &sample).is_empty());
    sample.as_object_mut().unwrap().remove("symbols");
    assert!(!invalid(&outline, &sample).is_empty(), "{sample}");
    let mut sample = json(&OutlineOutput::refused(None));
    sample["reason"] = Value::Null;
    assert!(!invalid(&outline, &sample).is_empty(), "{sample}");
    sample["reason"] = Value::from("no_such_code");
    assert!(!invalid(&outline, &sample).is_empty(), "{sample}");
    let mut sample = json(&OutlineOutput::refused(None));
    sample["partial"] = Value::from("yes");
    assert!(!invalid(&outline, &sample).is_empty(), "{sample}");
}
