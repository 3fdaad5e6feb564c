//! Diagnostic severities as declarations spell them, and the per-code overrides a server
//! declaration carries (`severity_overrides`). The pool applies them when it converts a
//! server's diagnostics.

/// Severity of a diagnostic. A server that sends none means an error (the common reading of
/// the spec, and what editors show). In configs (`severity_overrides`) it is spelled `error`,
/// `warning`, `info` (or `information`) and `hint`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    #[serde(alias = "info")]
    Information,
    Hint,
}

impl Severity {
    /// Upper-case label: `ERROR`, `WARNING`, `INFO`, `HINT`.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Error => "ERROR",
            Severity::Warning => "WARNING",
            Severity::Information => "INFO",
            Severity::Hint => "HINT",
        }
    }
}

/// Per diagnostic code (the server's code as text: `2322`, `E0308`), the severity to report instead of the
/// server's: a server declaration's `severity_overrides`.
pub type SeverityOverrides = std::collections::BTreeMap<String, SeverityOverride>;

/// One entry of [`SeverityOverrides`]: `"6133" = "error"` ([`SeverityOverride::Always`]) or
/// `"6133" = { from = "warning", to = "error" }` ([`SeverityOverride::From`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(untagged)]
pub enum SeverityOverride {
    /// Every diagnostic with the code gets this severity.
    Always(Severity),
    /// Only those the server reports as `from` get `to`; the others keep theirs.
    From { from: Severity, to: Severity },
}

impl SeverityOverride {
    /// The severity a diagnostic the server reported as `reported` is shown with.
    pub fn apply(self, reported: Severity) -> Severity {
        match self {
            SeverityOverride::Always(s) => s,
            SeverityOverride::From { from, to } if from == reported => to,
            SeverityOverride::From { .. } => reported,
        }
    }
}
