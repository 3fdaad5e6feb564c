//! The model providers' published rules for a function's parameter schema, as checks, and the
//! tests that hold every tool's input schema to them: OpenAI's strict function calling and
//! Anthropic's strict tool use for the strict profile, Gemini's function `parameters` for the
//! default profile. Each check returns
//! the violations as `<JSON path>: <rule>`, empty when the schema passes; the validators' own
//! tests feed them known-bad schemas so they cannot pass vacuously. Where the providers'
//! pages and their past versions differ, the stricter rule is kept.
//!
//! Sources (read 2026-11):
//! - OpenAI, "Structured Outputs: supported schemas":
//!   <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>, and
//!   "Function calling: strict mode":
//!   <https://platform.openai.com/docs/guides/function-calling#strict-mode>. The API's own
//!   refusal of a `default` reads "In context=('properties', 'x'), 'default' is not permitted."
//! - Gemini, the `Schema` object ("a select subset of an OpenAPI 3.0 schema object"):
//!   <https://ai.google.dev/api/caching#Schema>, and "Function calling: function
//!   declarations": <https://ai.google.dev/gemini-api/docs/function-calling#function_declarations>
//!   (parameter names: a letter or `_`, then letters, digits or `_`, at most 64).
//! - Anthropic, "Strict tool use" (`tools[].strict`), whose subset is the one of "Structured
//!   outputs: JSON Schema limitations":
//!   <https://platform.claude.com/docs/en/build-with-claude/structured-outputs#json-schema-limitations>
//!   and <https://platform.claude.com/docs/en/agents-and-tools/tool-use/strict-tool-use>. The
//!   API's refusal of a bound reads "For 'integer' type, property 'minimum' is not supported".

use serde_json::Value;

/// OpenAI strict mode: the keywords a schema may use.
const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// OpenAI strict mode: the string formats it supports.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const OPENAI_TYPES: &[&str] = &[
    "string", "number", "boolean", "integer", "object", "array", "null",
];

/// Object nesting: the current page allows 10 levels, earlier ones 5; the stricter is kept.
const OPENAI_MAX_DEPTH: usize = 5;
/// Properties in the whole schema: 5000 now, 100 earlier; the stricter is kept.
const OPENAI_MAX_PROPERTIES: usize = 100;
/// Enum values in the whole schema.
const OPENAI_MAX_ENUM_VALUES: usize = 1000;
/// Total length of property names, definition names, enum and const values: 120,000 now,
/// 15,000 earlier; the stricter is kept.
const OPENAI_MAX_STRING_CHARS: usize = 15_000;

#[derive(Default)]
struct OpenAiTotals {
    properties: usize,
    enum_values: usize,
    string_chars: usize,
}

/// Why OpenAI's strict function calling would refuse `schema` as a function's `parameters`.
pub(crate) fn openai_strict_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push("$: the root must be `\"type\": \"object\"`".into());
    }
    if schema.get("anyOf").is_some() {
        out.push("$: the root must not be `anyOf`".into());
    }
    let mut totals = OpenAiTotals::default();
    openai_walk(schema, "$", 0, &mut totals, &mut out);
    if totals.properties > OPENAI_MAX_PROPERTIES {
        out.push(format!(
            "$: {} properties, more than {OPENAI_MAX_PROPERTIES}",
            totals.properties
        ));
    }
    if totals.enum_values > OPENAI_MAX_ENUM_VALUES {
        out.push(format!(
            "$: {} enum values, more than {OPENAI_MAX_ENUM_VALUES}",
            totals.enum_values
        ));
    }
    if totals.string_chars > OPENAI_MAX_STRING_CHARS {
        out.push(format!(
            "$: {} characters of names and values, more than {OPENAI_MAX_STRING_CHARS}",
            totals.string_chars
        ));
    }
    out
}

fn openai_walk(
    schema: &Value,
    path: &str,
    depth: usize,
    totals: &mut OpenAiTotals,
    out: &mut Vec<String>,
) {
    let Value::Object(map) = schema else {
        out.push(format!("{path}: a schema must be an object, not {schema}"));
        return;
    };
    for key in map.keys() {
        if !OPENAI_KEYWORDS.contains(&key.as_str()) {
            out.push(format!("{path}: `{key}` is not supported in strict mode"));
        }
    }
    let types: Vec<&str> = match map.get("type") {
        None => Vec::new(),
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) if !ts.is_empty() && ts.iter().all(Value::is_string) => {
            ts.iter().filter_map(Value::as_str).collect()
        }
        Some(other) => {
            out.push(format!(
                "{path}: `type` {other} is neither a type nor a list of types"
            ));
            Vec::new()
        }
    };
    for t in &types {
        if !OPENAI_TYPES.contains(t) {
            out.push(format!("{path}: unknown type `{t}`"));
        }
    }
    if let Some(format) = map.get("format").and_then(Value::as_str)
        && !OPENAI_FORMATS.contains(&format)
    {
        out.push(format!("{path}: format `{format}` is not supported"));
    }
    let is_object = types.contains(&"object") || map.contains_key("properties");
    let depth = depth + usize::from(is_object);
    if is_object {
        if depth > OPENAI_MAX_DEPTH {
            out.push(format!(
                "{path}: object nested {depth} deep, more than {OPENAI_MAX_DEPTH}"
            ));
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            out.push(format!(
                "{path}: an object needs `additionalProperties: false` (no maps, no open objects)"
            ));
        }
        let empty = serde_json::Map::new();
        let properties = match map.get("properties") {
            Some(Value::Object(p)) => p,
            None => &empty,
            Some(other) => {
                out.push(format!("{path}.properties: not an object: {other}"));
                &empty
            }
        };
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for name in properties.keys() {
            if !required.contains(&name.as_str()) {
                out.push(format!(
                    "{path}: property `{name}` is not in `required` (optional = a union with null)"
                ));
            }
        }
        for name in &required {
            if !properties.contains_key(*name) {
                out.push(format!("{path}: `required` names `{name}`, not a property"));
            }
        }
        totals.properties += properties.len();
        for (name, child) in properties {
            totals.string_chars += name.chars().count();
            openai_walk(
                child,
                &format!("{path}.properties.{name}"),
                depth,
                totals,
                out,
            );
        }
    } else if map.contains_key("additionalProperties") {
        out.push(format!("{path}: `additionalProperties` outside an object"));
    }
    if let Some(items) = map.get("items") {
        openai_walk(items, &format!("{path}.items"), depth, totals, out);
    }
    if let Some(alternatives) = map.get("anyOf") {
        match alternatives.as_array() {
            Some(alts) if !alts.is_empty() => {
                for (i, alt) in alts.iter().enumerate() {
                    openai_walk(alt, &format!("{path}.anyOf[{i}]"), depth, totals, out);
                }
            }
            _ => out.push(format!("{path}.anyOf: not a non-empty list")),
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = map.get(defs) {
            for (name, child) in d {
                totals.string_chars += name.chars().count();
                openai_walk(child, &format!("{path}.{defs}.{name}"), depth, totals, out);
            }
        }
    }
    if let Some(r) = map.get("$ref")
        && !r.as_str().is_some_and(|r| r.starts_with('#'))
    {
        out.push(format!("{path}: `$ref` {r} is not local to the schema"));
    }
    if let Some(values) = map.get("enum") {
        match values.as_array() {
            Some(values) => {
                totals.enum_values += values.len();
                totals.string_chars += values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|v| v.chars().count())
                    .sum::<usize>();
            }
            None => out.push(format!("{path}.enum: not a list")),
        }
    }
    if let Some(Value::String(c)) = map.get("const") {
        totals.string_chars += c.chars().count();
    }
}

/// Anthropic strict tool use: the keywords a schema may use. Not numeric constraints
/// (`minimum`, `maximum`, their exclusive forms, `multipleOf`), string lengths, `maxItems`,
/// object sizes.
const ANTHROPIC_KEYWORDS: &[&str] = &[
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "pattern",
    "format",
    "default",
    "minItems",
];

/// Anthropic strict tool use: the string formats it supports.
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Why Anthropic's strict tool use would refuse `schema` as a tool's `input_schema`: a keyword
/// outside its subset, an object not closed by `additionalProperties: false`, a `minItems` other
/// than 0 or 1, a format it does not list, an `enum` value that is not a string, number, boolean
/// or null.
pub(crate) fn anthropic_strict_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        out.push("$: the root must be `\"type\": \"object\"`".into());
    }
    anthropic_walk(schema, "$", &mut out);
    out
}

fn anthropic_walk(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        out.push(format!("{path}: a schema must be an object, not {schema}"));
        return;
    };
    for key in map.keys() {
        if !ANTHROPIC_KEYWORDS.contains(&key.as_str()) {
            out.push(format!(
                "{path}: `{key}` is not supported in strict tool use"
            ));
        }
    }
    let is_object = map.get("type").is_some_and(|t| {
        t == "object"
            || t.as_array()
                .is_some_and(|ts| ts.iter().any(|t| t == "object"))
    }) || map.contains_key("properties");
    if is_object && map.get("additionalProperties") != Some(&Value::Bool(false)) {
        out.push(format!(
            "{path}: an object needs `additionalProperties: false`"
        ));
    }
    if map.contains_key("minItems")
        && !matches!(map.get("minItems").and_then(Value::as_u64), Some(0 | 1))
    {
        out.push(format!("{path}: `minItems` other than 0 or 1"));
    }
    if let Some(format) = map.get("format")
        && !format
            .as_str()
            .is_some_and(|f| ANTHROPIC_FORMATS.contains(&f))
    {
        out.push(format!("{path}: format {format} is not supported"));
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        for v in values {
            if v.is_object() || v.is_array() {
                out.push(format!(
                    "{path}.enum: {v} is not a string, number, boolean or null"
                ));
            }
        }
    }
    if let Some(Value::Object(properties)) = map.get("properties") {
        for (name, child) in properties {
            anthropic_walk(child, &format!("{path}.properties.{name}"), out);
        }
    }
    if let Some(items) = map.get("items") {
        anthropic_walk(items, &format!("{path}.items"), out);
    }
    for key in ["anyOf", "allOf"] {
        if let Some(Value::Array(alts)) = map.get(key) {
            for (i, alt) in alts.iter().enumerate() {
                anthropic_walk(alt, &format!("{path}.{key}[{i}]"), out);
            }
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = map.get(defs) {
            for (name, child) in d {
                anthropic_walk(child, &format!("{path}.{defs}.{name}"), out);
            }
        }
    }
}

/// Gemini `parameters`: the keywords a schema may use (the `Schema` object's fields, less
/// `title`, which some of Google's endpoints reject).
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

const GEMINI_TYPES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

/// Why Gemini would refuse `schema` as a function declaration's `parameters`.
pub(crate) fn gemini_parameters_violations(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let root_type = schema.get("type").and_then(Value::as_str);
    if !root_type.is_some_and(|t| t.eq_ignore_ascii_case("object")) {
        out.push("$: the root must be `\"type\": \"object\"`".into());
    }
    gemini_walk(schema, "$", &mut out);
    out
}

fn gemini_walk(schema: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(map) = schema else {
        out.push(format!("{path}: a schema must be an object, not {schema}"));
        return;
    };
    for key in map.keys() {
        if !GEMINI_KEYWORDS.contains(&key.as_str()) {
            out.push(format!("{path}: `{key}` is not a field of Gemini's Schema"));
        }
    }
    let ty = match map.get("type") {
        None => None,
        Some(Value::String(t)) => {
            let lower = t.to_ascii_lowercase();
            if !GEMINI_TYPES.contains(&lower.as_str()) {
                out.push(format!(
                    "{path}: type `{t}` is not one of Gemini's (null is `nullable: true`)"
                ));
            }
            Some(lower)
        }
        Some(other) => {
            out.push(format!(
                "{path}: `type` {other} must be one type (OpenAPI 3.0)"
            ));
            None
        }
    };
    if map.contains_key("anyOf") && ty.is_some() {
        out.push(format!("{path}: `anyOf` beside `type`"));
    }
    if let Some(format) = map.get("format").and_then(Value::as_str) {
        let allowed: &[&str] = match ty.as_deref() {
            Some("string") => &["enum", "date-time"],
            Some("number") => &["float", "double"],
            Some("integer") => &["int32", "int64"],
            _ => &[],
        };
        if !allowed.contains(&format) {
            out.push(format!("{path}: format `{format}` is not supported here"));
        }
    }
    if let Some(values) = map.get("enum") {
        if ty.as_deref() != Some("string") {
            out.push(format!(
                "{path}: `enum` on a schema whose type is not string"
            ));
        }
        if !values
            .as_array()
            .is_some_and(|v| v.iter().all(Value::is_string))
        {
            out.push(format!("{path}.enum: values must be strings"));
        }
    }
    if map
        .get("default")
        .is_some_and(|d| d.is_object() || d.is_array())
    {
        out.push(format!("{path}: `default` of an object or array"));
    }
    if ty.as_deref() == Some("array") && !map.contains_key("items") {
        out.push(format!("{path}: an array needs `items`"));
    }
    if let Some(properties) = map.get("properties") {
        let Value::Object(properties) = properties else {
            out.push(format!("{path}.properties: not an object"));
            return;
        };
        for (name, child) in properties {
            if !gemini_parameter_name(name) {
                out.push(format!(
                    "{path}.properties: `{name}` is not a valid parameter name"
                ));
            }
            gemini_walk(child, &format!("{path}.properties.{name}"), out);
        }
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !properties.contains_key(name) {
                    out.push(format!("{path}: `required` names `{name}`, not a property"));
                }
            }
        }
    }
    if let Some(items) = map.get("items") {
        gemini_walk(items, &format!("{path}.items"), out);
    }
    if let Some(alternatives) = map.get("anyOf") {
        match alternatives.as_array() {
            Some(alts) if !alts.is_empty() => {
                for (i, alt) in alts.iter().enumerate() {
                    gemini_walk(alt, &format!("{path}.anyOf[{i}]"), out);
                }
            }
            _ => out.push(format!("{path}.anyOf: not a non-empty list")),
        }
    }
}

/// A letter or `_`, then letters, digits or `_`; at most 64 characters.
fn gemini_parameter_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 64
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::profile::{SchemaProfile, ToolSet, tools_of};
    use crate::server::LspeditServer;

    /// Each expected fragment is in exactly one violation, and nothing else is reported.
    fn check(found: Vec<String>, expected: &[&str]) {
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for e in expected {
            let n = found.iter().filter(|f| f.contains(e)).count();
            assert_eq!(n, 1, "{e:?} in {n} violations: {found:#?}");
        }
    }

    fn strict_ok() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "d"},
                "offset": {"type": ["integer", "null"], "minimum": 0},
                "line": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
                "direction": {"type": ["string", "null"], "enum": ["incoming", "outgoing", null]},
                "base_shas": {"type": ["array", "null"], "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "sha": {"type": "string"}},
                    "required": ["path", "sha"],
                    "additionalProperties": false
                }}
            },
            "required": ["path", "offset", "line", "direction", "base_shas"],
            "additionalProperties": false
        })
    }

    #[test]
    fn openai_accepts_a_strict_schema_and_names_each_broken_rule() {
        check(openai_strict_violations(&strict_ok()), &[]);
        let mut open = strict_ok();
        open.as_object_mut().unwrap().remove("additionalProperties");
        check(
            openai_strict_violations(&open),
            &["$: an object needs `additionalProperties: false`"],
        );
        let mut optional = strict_ok();
        optional["required"] = json!(["path", "line", "direction", "base_shas"]);
        check(
            openai_strict_violations(&optional),
            &["$: property `offset` is not in `required`"],
        );
        let map = json!({
            "type": "object",
            "properties": {"base_shas": {"type": "object", "additionalProperties": {"type": "string"}}},
            "required": ["base_shas"],
            "additionalProperties": false
        });
        check(
            openai_strict_violations(&map),
            &["$.properties.base_shas: an object needs `additionalProperties: false`"],
        );
        let mut nested = strict_ok();
        nested["properties"]["base_shas"]["items"]["required"] = json!(["path"]);
        check(
            openai_strict_violations(&nested),
            &["$.properties.base_shas.items: property `sha` is not in `required`"],
        );
        let mut default = strict_ok();
        default["properties"]["path"]["default"] = json!("");
        check(
            openai_strict_violations(&default),
            &["$.properties.path: `default` is not supported"],
        );
        let mut keywords = strict_ok();
        keywords["properties"]["path"]["minLength"] = json!(1);
        keywords["properties"]["line"]["oneOf"] = json!([{"type": "integer"}]);
        keywords["properties"]["path"]["format"] = json!("uint");
        check(
            openai_strict_violations(&keywords),
            &[
                "`minLength` is not supported",
                "format `uint`",
                "`oneOf` is not supported",
            ],
        );
        let root = json!({"anyOf": [strict_ok(), strict_ok()]});
        check(
            openai_strict_violations(&root),
            &[
                "root must be `\"type\": \"object\"`",
                "root must not be `anyOf`",
            ],
        );
        let mut deep = json!({"type": "string"});
        for _ in 0..6 {
            deep = json!({"type": "object", "properties": {"a": deep}, "required": ["a"], "additionalProperties": false});
        }
        check(openai_strict_violations(&deep), &["nested 6 deep"]);
        let mut many = serde_json::Map::new();
        for i in 0..101 {
            many.insert(format!("p{i}"), json!({"type": "string"}));
        }
        let names: Vec<String> = many.keys().cloned().collect();
        let wide = json!({"type": "object", "properties": many, "required": names, "additionalProperties": false});
        check(openai_strict_violations(&wide), &["101 properties"]);
        let bad_type = json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["a"], "additionalProperties": false});
        check(
            openai_strict_violations(&bad_type),
            &["unknown type `text`"],
        );
    }

    fn gemini_ok() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "d"},
                "offset": {"type": "integer", "minimum": 0},
                "line": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]},
                "direction": {"type": "string", "enum": ["incoming", "outgoing"]},
                "base_shas": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "sha": {"type": "string"}},
                    "required": ["path", "sha"]
                }}
            },
            "required": ["path"]
        })
    }

    #[test]
    fn gemini_accepts_an_openapi_subset_schema_and_names_each_broken_rule() {
        check(gemini_parameters_violations(&gemini_ok()), &[]);
        check(
            gemini_parameters_violations(&strict_ok()),
            &[
                "$: `additionalProperties` is not a field",
                "$.properties.offset: `type` [\"integer\",\"null\"] must be one type",
                "$.properties.line.anyOf[2]: type `null` is not one of Gemini's",
                "$.properties.direction: `type` [\"string\",\"null\"] must be one type",
                "$.properties.direction: `enum` on a schema whose type is not string",
                "$.properties.direction.enum: values must be strings",
                "$.properties.base_shas: `type` [\"array\",\"null\"] must be one type",
                "$.properties.base_shas.items: `additionalProperties` is not a field",
            ],
        );
        let map = json!({
            "type": "object",
            "properties": {"base_shas": {"type": "object", "additionalProperties": {"type": "string"}}}
        });
        check(
            gemini_parameters_violations(&map),
            &["$.properties.base_shas: `additionalProperties`"],
        );
        let refs = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"oneOf": [{"type": "string"}]}},
            "$defs": {"A": {"type": "string"}}
        });
        check(
            gemini_parameters_violations(&refs),
            &[
                "$: `$defs`",
                "$.properties.a: `$ref`",
                "$.properties.b: `oneOf`",
            ],
        );
        let mut defaults = gemini_ok();
        defaults["properties"]["base_shas"]["default"] = json!([]);
        defaults["properties"]["path"]["default"] = json!("");
        check(
            gemini_parameters_violations(&defaults),
            &["$.properties.base_shas: `default` of an object or array"],
        );
        let mut names = gemini_ok();
        names["properties"]["2nd-path"] = json!({"type": "string"});
        names["properties"]["path"]["format"] = json!("uint");
        names["properties"]["all"] = json!({"type": "array"});
        check(
            gemini_parameters_violations(&names),
            &[
                "`2nd-path` is not a valid parameter name",
                "$.properties.path: format `uint`",
                "$.properties.all: an array needs `items`",
            ],
        );
        check(
            gemini_parameters_violations(&json!({"type": "string"})),
            &["root must be"],
        );
    }

    /// Every tool the server lists, with its input schema in `profile`.
    fn listed(sets: &[ToolSet], profile: SchemaProfile) -> Vec<rmcp::model::Tool> {
        LspeditServer::routes(&tools_of(sets), profile).list_all()
    }

    #[test]
    fn every_tool_in_the_strict_profile_passes_openai_strict_mode() {
        let tools = listed(&[ToolSet::All], SchemaProfile::Strict);
        assert_eq!(tools.len(), 22);
        for tool in tools {
            let input = Value::Object(tool.input_schema.as_ref().clone());
            check(openai_strict_violations(&input), &[]);
            assert!(tool.name.len() <= 64 && gemini_parameter_name(&tool.name));
        }
    }

    #[test]
    fn anthropic_accepts_a_strict_schema_and_names_each_broken_rule() {
        let mut ok = strict_ok();
        ok["properties"]["offset"]
            .as_object_mut()
            .unwrap()
            .remove("minimum");
        check(anthropic_strict_violations(&ok), &[]);
        let mut bad = ok.clone();
        let props = bad["properties"].as_object_mut().unwrap();
        props.insert("count".into(), json!({"type": "integer", "minimum": 0}));
        props.insert("name".into(), json!({"type": "string", "maxLength": 9}));
        props.insert(
            "list".into(),
            json!({"type": "array", "minItems": 2, "maxItems": 3}),
        );
        props.insert(
            "url".into(),
            json!({"type": "string", "format": "uri-reference"}),
        );
        props.insert("open".into(), json!({"type": "object", "properties": {}}));
        props.insert("pick".into(), json!({"enum": [[1]]}));
        check(
            anthropic_strict_violations(&bad),
            &[
                "count: `minimum`",
                "name: `maxLength`",
                "list: `maxItems`",
                "list: `minItems` other than 0 or 1",
                "url: format",
                "open: an object needs",
                "pick.enum",
            ],
        );
    }

    // Regression: under Anthropic's strict tool use, 11 of the 22 input schemas were refused
    // for `minimum: 0`. The strict profile is the subset both providers accept.
    #[test]
    fn every_tool_in_the_strict_profile_passes_anthropic_strict_tool_use() {
        let tools = listed(&[ToolSet::All], SchemaProfile::Strict);
        assert_eq!(tools.len(), 22);
        for tool in tools {
            let input = Value::Object(tool.input_schema.as_ref().clone());
            let found = anthropic_strict_violations(&input);
            assert!(found.is_empty(), "{}: {found:#?}", tool.name);
        }
    }

    #[test]
    fn every_tool_in_the_default_profile_passes_gemini_parameters() {
        let tools = listed(&[ToolSet::All], SchemaProfile::Default);
        assert_eq!(tools.len(), 22);
        for tool in tools {
            let input = Value::Object(tool.input_schema.as_ref().clone());
            let found = gemini_parameters_violations(&input);
            assert!(found.is_empty(), "{}: {found:#?}", tool.name);
        }
    }
}
