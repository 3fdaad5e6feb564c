//! Diagnostics pulled from tsserver through typescript-language-server
//! ([`crate::Strategy::TsserverPull`]): the request, and tsserver's answer read as LSP
//! diagnostics.
//!
//! typescript-language-server publishes without a version, so a publish cannot be tied to the
//! text it is about (an empty syntactic publish followed by the semantic one passed for "no
//! errors"). Its workspace command `typescript.tsserverRequest` forwards any tsserver command:
//! `workspace/executeCommand` with `arguments: [command, args]`, where `args.file` naming an open
//! document's URI becomes its path. tsserver handles requests in order, after the `change`
//! typescript-language-server forwarded for the `didChange` sent before, and loads the file's
//! project before it answers, so `*DiagnosticsSync` answers for the text just sent.
//!
//! The LSP result is tsserver's whole response, `{"type": "response", "success": true, "body":
//! [...]}` (typescript-language-server 5.3, TypeScript 5.9); `{"type": "cancelled"}` when the
//! request was cancelled before tsserver answered, `{"type": "noServer"}` while tsserver is not
//! running. A failure inside tsserver (a file in no project: "No Project.") is an LSP error
//! answer with code 1.

use async_lsp::lsp_types::{self, DiagnosticSeverity, DiagnosticTag, NumberOrString, Url};
use serde_json::{Value, json};

/// The tsserver commands asked for each check, in this order. Suggestions carry the unused
/// declarations (TS6133) of a project without `noUnusedLocals` as hints, as the server's
/// publishes did; with the option, tsserver reports them among the semantic errors instead.
pub(crate) const COMMANDS: [&str; 3] = [
    "syntacticDiagnosticsSync",
    "semanticDiagnosticsSync",
    "suggestionDiagnosticsSync",
];

/// What typescript-language-server calls its source when tsserver names none.
const SOURCE: &str = "typescript";

/// `workspace/executeCommand` params asking tsserver for `command`'s diagnostics of the open
/// document `uri`.
pub(crate) fn params(command: &str, uri: &Url) -> Value {
    json!({
        "command": "typescript.tsserverRequest",
        "arguments": [command, { "file": uri.as_str() }],
    })
}

/// Why an answer holds no diagnostics.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Cancelled before tsserver answered: ask again.
    Cancelled,
    /// Anything else, with a message saying what came back.
    Failed(String),
}

/// tsserver's diagnostics in an answer to [`params`], as LSP diagnostics (0-based positions in
/// UTF-16 code units). A bare array is taken as the body too. A diagnostic that cannot be read
/// is left out, not the whole answer.
pub(crate) fn diagnostics(answer: &Value) -> Result<Vec<lsp_types::Diagnostic>, Refusal> {
    let body = match answer {
        Value::Array(_) => answer,
        _ => match answer.get("type").and_then(Value::as_str) {
            Some("cancelled") => return Err(Refusal::Cancelled),
            Some("noServer") => return Err(Refusal::Failed("tsserver is not running".into())),
            _ if answer.get("success").and_then(Value::as_bool) == Some(false) => {
                let message = answer
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                return Err(Refusal::Failed(format!("tsserver failed: {message}")));
            }
            _ => answer
                .get("body")
                .ok_or_else(|| Refusal::Failed(format!("unexpected answer: {}", brief(answer))))?,
        },
    };
    let items = body
        .as_array()
        .ok_or_else(|| Refusal::Failed(format!("body is not a list: {}", brief(body))))?;
    Ok(items.iter().filter_map(diagnostic).collect())
}

/// The start of a JSON value, for a message.
fn brief(v: &Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// One tsserver diagnostic (`start`/`end` as 1-based `line` and `offset`, the offset in UTF-16
/// code units; `text`; numeric `code`; `category`) as an LSP diagnostic.
fn diagnostic(d: &Value) -> Option<lsp_types::Diagnostic> {
    let position = |key: &str| {
        let p = d.get(key)?;
        let one_based = |k: &str| {
            let n = u32::try_from(p.get(k)?.as_u64()?).ok()?;
            Some(n.saturating_sub(1))
        };
        Some(lsp_types::Position::new(
            one_based("line")?,
            one_based("offset")?,
        ))
    };
    let start = position("start")?;
    let end = position("end").unwrap_or(start);
    let severity = match d.get("category").and_then(Value::as_str) {
        Some("warning") => DiagnosticSeverity::WARNING,
        Some("suggestion") => DiagnosticSeverity::HINT,
        // A message is information, not an error (typescript-language-server shows it as one).
        Some("message") => DiagnosticSeverity::INFORMATION,
        _ => DiagnosticSeverity::ERROR,
    };
    let code = match d.get("code") {
        Some(Value::Number(n)) => n
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .map(NumberOrString::Number),
        Some(Value::String(s)) => Some(NumberOrString::String(s.clone())),
        _ => None,
    };
    let mut tags = Vec::new();
    if d.get("reportsUnnecessary").and_then(Value::as_bool) == Some(true) {
        tags.push(DiagnosticTag::UNNECESSARY);
    }
    if d.get("reportsDeprecated").and_then(Value::as_bool) == Some(true) {
        tags.push(DiagnosticTag::DEPRECATED);
    }
    Some(lsp_types::Diagnostic {
        range: lsp_types::Range::new(start, end),
        severity: Some(severity),
        code,
        source: Some(
            d.get("source")
                .and_then(Value::as_str)
                .unwrap_or(SOURCE)
                .to_owned(),
        ),
        message: d.get("text").and_then(Value::as_str)?.to_owned(),
        tags: (!tags.is_empty()).then_some(tags),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Refusal, diagnostics};
    use crate::diagnostics::convert;
    use crate::position::PositionEncoding;
    use crate::{Severity, SeverityOverrides};

    /// The diagnostics of a tsserver answer as the pool hands them out for `text`:
    /// `line:column-end_line:end_column severity code message` (1-based, columns in `char`s).
    fn check(text: &str, answer: Value, expected: &[&str]) {
        let lsp = diagnostics(&answer).unwrap();
        let got: Vec<String> = convert(
            text,
            &lsp,
            &SeverityOverrides::default(),
            PositionEncoding::Utf16,
        )
        .iter()
        .map(|d| {
            format!(
                "{}:{}-{}:{} {} {} {}",
                d.line,
                d.column,
                d.end_line,
                d.end_column,
                d.severity.label(),
                d.code.as_deref().unwrap_or("-"),
                d.message
            )
        })
        .collect();
        assert_eq!(got, expected);
    }

    fn response(body: Value) -> Value {
        json!({ "seq": 0, "type": "response", "command": "semanticDiagnosticsSync",
                "request_seq": 6, "success": true, "body": body })
    }

    #[test]
    fn positions_are_one_based_utf16_offsets() {
        // "𝔁" takes two UTF-16 code units and one char: tsserver's offset 10 of line 2 (after
        // `let 𝔁 = ` , 9 units) is the 9th char.
        let text = "const a = 1;\nlet 𝔁 = \"s\" as number;\n";
        check(
            text,
            response(json!([{
                "start": { "line": 2, "offset": 10 }, "end": { "line": 2, "offset": 23 },
                "text": "Conversion may be a mistake.", "code": 2352, "category": "error",
            }])),
            &["2:9-2:22 ERROR 2352 Conversion may be a mistake."],
        );
    }

    #[test]
    fn categories_codes_and_tags() {
        let text = "import { x } from \"./x\";\nx;\n";
        let d = |line: u64, category: &str, code: Value| {
            json!({ "start": { "line": line, "offset": 1 }, "end": { "line": line, "offset": 2 },
                    "text": category, "code": code, "category": category })
        };
        check(
            text,
            response(json!([
                d(1, "error", json!(2307)),
                d(1, "warning", json!(7027)),
                d(2, "suggestion", json!(6133)),
                d(2, "message", json!("custom")),
            ])),
            &[
                "1:1-1:2 ERROR 2307 error",
                "1:1-1:2 WARNING 7027 warning",
                "2:1-2:2 INFO custom message",
                "2:1-2:2 HINT 6133 suggestion",
            ],
        );
        let lsp = diagnostics(&response(json!([{
            "start": { "line": 1, "offset": 10 }, "end": { "line": 1, "offset": 11 },
            "text": "'x' is declared but its value is never read.", "code": 6133,
            "category": "suggestion", "reportsUnnecessary": true,
        }])))
        .unwrap();
        assert_eq!(
            lsp[0].tags.as_deref(),
            Some(&[async_lsp::lsp_types::DiagnosticTag::UNNECESSARY][..])
        );
        assert_eq!(lsp[0].source.as_deref(), Some("typescript"));
    }

    #[test]
    fn an_empty_body_is_clean_and_a_bare_list_is_a_body() {
        check("x\n", response(json!([])), &[]);
        check(
            "let s: number = \"\";\n",
            json!([{ "start": { "line": 1, "offset": 5 }, "end": { "line": 1, "offset": 6 },
                     "text": "Type 'string' is not assignable to type 'number'.",
                     "code": 2322, "category": "error" }]),
            &["1:5-1:6 ERROR 2322 Type 'string' is not assignable to type 'number'."],
        );
    }

    #[test]
    fn refusals() {
        assert_eq!(
            diagnostics(&json!({ "type": "cancelled", "reason": "x" })),
            Err(Refusal::Cancelled)
        );
        assert!(matches!(
            diagnostics(&json!({ "type": "noServer" })),
            Err(Refusal::Failed(m)) if m.contains("not running")
        ));
        assert!(matches!(
            diagnostics(&json!({ "type": "response", "success": false, "message": "No Project." })),
            Err(Refusal::Failed(m)) if m.contains("No Project.")
        ));
        assert!(matches!(diagnostics(&Value::Null), Err(Refusal::Failed(_))));
    }

    #[test]
    fn an_unreadable_diagnostic_is_left_out_alone() {
        let lsp = diagnostics(&response(json!([
            { "start": { "line": 1 }, "text": "no offset" },
            { "start": { "line": 1, "offset": 1 }, "text": "fine", "category": "error" },
        ])))
        .unwrap();
        assert_eq!(lsp.len(), 1);
        assert_eq!(
            convert(
                "a\n",
                &lsp,
                &SeverityOverrides::default(),
                PositionEncoding::Utf16
            )[0]
            .severity,
            Severity::Error
        );
    }
}
