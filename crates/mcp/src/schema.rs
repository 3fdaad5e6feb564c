//! Portable JSON Schemas for the tools' inputs and outputs, and lenient number arguments.
//!
//! Several model providers reject parts of JSON Schema that schemars emits by default: type
//! arrays (`"type": ["integer", "null"]` for an `Option`), `format: "uint"`, `default`,
//! `$schema`, `$ref` into `$defs`, maps (`additionalProperties` with a schema). A portable
//! schema says an optional field by leaving it out of `required`, an unsigned integer as
//! `"type": "integer", "minimum": 0`, and inlines every subschema; the tools' arguments have no
//! maps (`base_shas` is a list of `{path, sha}`). [`portable`] builds one from a Rust type;
//! [`make_portable`] is the rewrite, applied to every tool's schemas by the server. It is the
//! default profile ([`crate::SchemaProfile`]); [`make_strict`] turns a portable input schema
//! into the strict profile, what OpenAI's strict function calling accepts.
//!
//! An output schema ([`portable_output`]) describes what the result type serializes to, under
//! schemars' serialize contract: `required` lists exactly the fields serde always writes, so a
//! result cannot leave out a field its own schema requires (the official SDKs reject such a
//! result). Output schemas are the same in both profiles.
//!
//! Some clients send numbers as strings (MCP Inspector sends `offset` as `"2"`): the count
//! arguments accept both, and name the field when neither fits. `scope` takes one glob or a
//! list.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::{Deserialize, Deserializer, de::Error as _};
use serde_json::Value;

/// The portable schema of `T` (see the module doc), as an MCP tool schema object: the schema
/// of the arguments a tool reads (schemars' deserialize contract: a field with a default or an
/// `Option` is optional).
pub fn portable<T: JsonSchema>() -> Arc<JsonObject> {
    let mut value = raw_schema::<T>(SchemaSettings::for_deserialize);
    make_portable(&mut value);
    into_object(value)
}

/// The portable schema of what `T` serializes to: a tool's `outputSchema`, from the same type
/// whose serializer writes the `structuredContent`. It is generated under schemars' serialize
/// contract, which reads serde's own attributes: a field is `required` exactly when serde
/// always writes it (no `skip_serializing_if`), so the two cannot disagree. An optional
/// property (one serde may leave out) loses its `null` alternative: absent is how a portable
/// schema says optional, and `Option` fields are skipped when `None`. A `null` serde would
/// write (an `Option` without `skip_serializing_if`, an `Option` in a list) stays in the
/// schema, where [`portability_problems`] reports it (the test of every tool's schemas
/// fails), instead of being dropped from the schema while the serializer still writes it.
pub fn portable_output<T: JsonSchema>() -> Arc<JsonObject> {
    let mut value = raw_schema::<T>(SchemaSettings::for_serialize);
    rewrite(&mut value, Nulls::WhereAbsent);
    let problems = portability_problems(&value);
    if !problems.is_empty() {
        tracing::error!(?problems, "an output schema is not portable");
    }
    into_object(value)
}

/// The input and the output schema of a tool whose arguments are `A` and result `O`.
pub(crate) fn tool_schema_pair<A: JsonSchema, O: JsonSchema>() -> (Arc<JsonObject>, Arc<JsonObject>)
{
    (portable::<A>(), portable_output::<O>())
}

fn raw_schema<T: JsonSchema>(contract: fn(SchemaSettings) -> SchemaSettings) -> Value {
    let settings = contract(SchemaSettings::draft2020_12()).with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

fn into_object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        // A root schema is always an object for the structs this crate describes; `true`
        // (anything) would still be the honest schema.
        other => {
            let mut map = JsonObject::new();
            map.insert("type".into(), Value::from("object"));
            tracing::error!(schema = %other, "a tool schema is not an object");
            Arc::new(map)
        }
    }
}

/// Where [`rewrite`] drops the `null` of a nullable schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nulls {
    /// Everywhere: an input schema, where a client may leave out what it would send as null.
    Everywhere,
    /// Only on properties that may be absent: an output schema (see [`portable_output`]).
    WhereAbsent,
}

/// Rewrites `schema` in place into the portable subset: no `$schema`, no type arrays (the
/// `null` member dropped), no `{"type": "null"}` alternative in `anyOf`/`oneOf`, no `null`
/// among an `enum`'s values, no `default` (some hosts reject it, on objects and arrays above
/// all; a description says the default in words), no `title`, no integer `format`s (unsigned ones become
/// `minimum: 0`).
pub fn make_portable(schema: &mut Value) {
    rewrite(schema, Nulls::Everywhere);
}

fn rewrite(schema: &mut Value, nulls: Nulls) {
    let Value::Object(map) = schema else {
        return;
    };
    map.remove("$schema");
    map.remove("default");
    // The struct's name: Gemini's parameters reject `title`, and it tells a model nothing.
    map.remove("title");
    if nulls == Nulls::Everywhere {
        drop_null(map);
    } else {
        single_types(map);
    }
    if nulls == Nulls::WhereAbsent {
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, child) in properties.iter_mut() {
                if let (false, Value::Object(child)) = (required.contains(name), child) {
                    drop_null(child);
                }
            }
        }
    }
    if let Some(Value::String(format)) = map.get("format") {
        let unsigned = format.starts_with("uint");
        if unsigned || format.starts_with("int") {
            map.remove("format");
            if unsigned && !map.contains_key("minimum") {
                map.insert("minimum".into(), Value::from(0));
            }
        }
    }
    // Recurse into subschemas only (a property named `default` or `format` is not a keyword).
    for key in ["properties", "patternProperties", "$defs", "definitions"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            children.values_mut().for_each(|c| rewrite(c, nulls));
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "contains",
        "propertyNames",
        "if",
        "then",
        "else",
    ] {
        if let Some(child) = map.get_mut(key) {
            rewrite(child, nulls);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = map.get_mut(key) {
            children.iter_mut().for_each(|c| rewrite(c, nulls));
        }
    }
}

/// A type array without `null` as one type, or an `anyOf` of single types.
fn single_types(map: &mut serde_json::Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    if types.iter().any(|t| t.as_str() == Some("null")) {
        // Kept as it is: a schema that says null is not portable, and says so.
        return;
    }
    let types = types.clone();
    match types.as_slice() {
        [one] => {
            map.insert("type".into(), one.clone());
        }
        _ => {
            map.remove("type");
            let alternatives = types
                .into_iter()
                .map(|t| serde_json::json!({ "type": t }))
                .collect();
            map.insert("anyOf".into(), Value::Array(alternatives));
        }
    }
}

/// `map`'s schema without its `null` alternative: from a type array, an `enum`'s values, an
/// `anyOf`/`oneOf` (one alternative left is merged into `map`).
fn drop_null(map: &mut serde_json::Map<String, Value>) {
    if let Some(Value::Array(types)) = map.get_mut("type") {
        types.retain(|t| t.as_str() != Some("null"));
        single_types(map);
    }
    // An `Option` of an enum lists `null` among its values; absent is how a portable schema
    // says optional, so the value goes with the `null` type.
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alts)) = map.get_mut(key) else {
            continue;
        };
        alts.retain(|a| a.get("type").and_then(Value::as_str) != Some("null"));
        if alts.len() == 1 {
            let only = alts.remove(0);
            map.remove(key);
            if let Value::Object(inner) = only {
                for (k, v) in inner {
                    map.entry(k).or_insert(v);
                }
            }
        }
    }
}

/// Rewrites a portable input schema (see [`make_portable`]) in place into the strict profile,
/// the subset both OpenAI's strict function calling and Anthropic's strict tool use accept:
/// every object gets `additionalProperties: false` and lists all its properties in `required`;
/// a property that was optional becomes a union with `null` (`"type": ["string", "null"]`,
/// `null` among an `enum`'s values, or a `{"type": "null"}` alternative of an `anyOf`), so a
/// model sends `null` for an argument it leaves out, which every tool reads as absent. Bounds
/// Anthropic's grammar rejects (`NOT_IN_BOTH`: `minimum: 0` on every count) are dropped, as
/// is a `format` outside both providers' lists: the tools check those values themselves.
pub fn make_strict(schema: &mut Value) {
    strict(schema, false);
}

/// Keywords OpenAI's strict mode or Anthropic's strict tool use rejects (Anthropic: no numeric,
/// string-length, object-size or `maxItems` constraints; `minItems` only 0 or 1).
const NOT_IN_BOTH: &[&str] = &[
    "default",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "minProperties",
    "maxProperties",
];

/// String formats both providers' strict modes list.
const FORMATS_IN_BOTH: &[&str] = &[
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

fn strict(schema: &mut Value, optional: bool) {
    let Value::Object(map) = schema else {
        return;
    };
    for key in NOT_IN_BOTH {
        map.remove(*key);
    }
    if map
        .get("minItems")
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 1)
    {
        map.remove("minItems");
    }
    if map
        .get("format")
        .is_some_and(|f| !f.as_str().is_some_and(|f| FORMATS_IN_BOTH.contains(&f)))
    {
        map.remove("format");
    }
    let is_object =
        map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
    if is_object {
        let required: Vec<String> = match map.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        let properties = map
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        let mut all = Vec::new();
        if let Value::Object(properties) = properties {
            for (name, child) in properties.iter_mut() {
                strict(child, !required.contains(name));
                all.push(Value::from(name.as_str()));
            }
        }
        map.insert("required".into(), Value::Array(all));
        map.insert("additionalProperties".into(), Value::Bool(false));
    }
    if let Some(items) = map.get_mut("items") {
        strict(items, false);
    }
    if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
        alternatives.iter_mut().for_each(|a| strict(a, false));
    }
    if optional {
        or_null(map);
    }
}

/// `map`'s schema, or `null`.
fn or_null(map: &mut serde_json::Map<String, Value>) {
    let null = Value::from("null");
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    match map.get_mut("type") {
        Some(Value::String(t)) => {
            let t = Value::from(t.as_str());
            map.insert("type".into(), Value::Array(vec![t, null]));
        }
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null);
            }
        }
        _ => {
            if let Some(Value::Array(alternatives)) = map.get_mut("anyOf") {
                alternatives.push(serde_json::json!({ "type": "null" }));
            }
        }
    }
}

/// Why `schema` is not portable, as one line per problem with its JSON path; empty when it is.
/// The test of every tool's schemas, and a debug check, use it.
pub fn portability_problems(schema: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, "$", &mut problems);
    problems
}

fn walk(v: &Value, path: &str, problems: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            if map.contains_key("$schema") {
                problems.push(format!("{path}: $schema"));
            }
            if map.contains_key("$ref") {
                problems.push(format!("{path}: $ref"));
            }
            if let Some(t) = map.get("type") {
                if !t.is_string() {
                    problems.push(format!("{path}: type {t} is not a single type"));
                }
                if t == "null" {
                    problems.push(format!("{path}: type null"));
                }
            }
            if let Some(f) = map.get("format").and_then(Value::as_str)
                && (f.starts_with("uint") || f.starts_with("int"))
            {
                problems.push(format!("{path}: format {f}"));
            }
            if map.contains_key("default") {
                problems.push(format!("{path}: default"));
            }
            if map.contains_key("additionalProperties") {
                problems.push(format!("{path}: additionalProperties"));
            }
            for (k, child) in map {
                walk(child, &format!("{path}.{k}"), problems);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{path}[{i}]"), problems);
            }
        }
        _ => {}
    }
}

/// A count argument (`offset`, `limit`, ...): a non-negative integer, or one written as a
/// string (`"2"`), or absent/null.
fn count<'de, D: Deserializer<'de>>(d: D, field: &str) -> Result<Option<usize>, D::Error> {
    let bad = |got: &str| {
        D::Error::custom(format!(
            "`{field}` must be a non-negative integer (e.g. 2), not {got}"
        ))
    };
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad(&n.to_string())),
        Some(Value::String(s)) => s
            .trim()
            .parse::<usize>()
            .map(Some)
            .map_err(|_| bad(&format!("{s:?}"))),
        Some(other) => Err(bad(&other.to_string())),
    }
}

macro_rules! count_fields {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("Deserializes the `", stringify!($name), "` count argument.")]
            pub(crate) fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
                count(d, stringify!($name))
            }
        )*
    };
}

/// One deserializer per count field, so the error names the field.
pub(crate) mod lenient {
    use super::*;

    count_fields!(offset, limit, max_files, max_changed_lines);

    /// The `base_shas` argument: a list of `{"path", "sha"}` objects; absent or null is none.
    /// The map form older versions took (`{"src/a.ts": "3f2a9c0b1d4e"}`) is refused, naming
    /// the list form (a map is not expressible in OpenAI's strict schemas, nor in Gemini's).
    pub(crate) fn base_shas<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<crate::server::BaseShaArg>, D::Error> {
        const FORM: &str = r#"a list of {"path", "sha"} objects, e.g. [{"path": "src/a.ts", "sha": "3f2a9c0b1d4e"}]"#;
        let bad = |why: String| D::Error::custom(format!("`base_shas` must be {FORM}; {why}"));
        let items = match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(items)) => items,
            Some(Value::Object(_)) => {
                return Err(bad(
                    "a map of path to sha (the form of earlier versions) is not accepted".into(),
                ));
            }
            Some(other) => return Err(bad(format!("not {other}"))),
        };
        let mut seen = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let field = |key: &str| item.get(key).and_then(Value::as_str).map(str::to_string);
            let unknown = item
                .as_object()
                .and_then(|o| o.keys().find(|k| *k != "path" && *k != "sha"));
            let (Some(path), Some(sha), None) = (field("path"), field("sha"), unknown) else {
                return Err(bad(format!("item {i} is {item}")));
            };
            if seen
                .iter()
                .any(|s: &crate::server::BaseShaArg| s.path == path)
            {
                return Err(bad(format!("`{path}` is named twice")));
            }
            seen.push(crate::server::BaseShaArg { path, sha });
        }
        Ok(seen)
    }

    /// The `scope` argument: one glob (`"backend/**/*.go"`, the seeds' own call) or a list of
    /// globs; absent or null is no scope. A string holding the JSON text of a list
    /// (`"[\"src/a.ts\"]"`: what MCP Inspector's CLI sends for a list argument) is that list,
    /// not a glob that matches nothing (which gave `empty_diff`); a JSON list of anything but
    /// strings is refused naming the field.
    pub(crate) fn scope<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        strings(
            d,
            "`scope` must be a glob or a list of globs (e.g. \"src/**/*.ts\" or [\"src/**/*.ts\"])",
        )
    }

    /// `propose_edit`'s `context_files`: one path or a list, as `scope` takes its globs.
    pub(crate) fn context_files<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        strings(
            d,
            "`context_files` must be a path or a list of paths (e.g. \"src/a.ts\" or [\"src/a.ts\"])",
        )
    }

    /// `propose_edit`'s `context_keywords`: one word or a list.
    pub(crate) fn context_keywords<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<String>, D::Error> {
        strings(
            d,
            "`context_keywords` must be a word or a list of words (e.g. \"parse\" or [\"parse\"])",
        )
    }

    /// `propose_edit`'s `context_focus`: a list of `{path, start_line, end_line}`; absent or
    /// null is none.
    pub(crate) fn context_focus<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<crate::server::FocusArg>, D::Error> {
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(v) => serde_json::from_value(v).map_err(|e| {
                D::Error::custom(format!(
                    "`context_focus` must be a list of {{\"path\", \"start_line\", \"end_line\"}} objects, e.g. [{{\"path\": \"src/a.ts\", \"start_line\": 40, \"end_line\": 60}}]; {e}"
                ))
            }),
        }
    }

    /// One string or a list of strings (see [`scope`]); `form` says what is expected.
    fn strings<'de, D: Deserializer<'de>>(d: D, form: &str) -> Result<Vec<String>, D::Error> {
        let bad = |got: &Value| D::Error::custom(format!("{form}, not {got}"));
        let list = |items: &[Value]| {
            items
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(|| bad(v)))
                .collect()
        };
        match Option::<Value>::deserialize(d)? {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => match serde_json::from_str::<Value>(&s) {
                Ok(Value::Array(items)) => list(&items),
                _ => Ok(vec![s]),
            },
            Some(Value::Array(items)) => list(&items),
            Some(other) => Err(bad(&other)),
        }
    }
}

/// The schema of an argument that takes one string or a list of strings (`scope`): an `anyOf`
/// of single types, the portable form of a type union.
pub(crate) fn string_or_list(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            { "type": "string" },
            { "type": "array", "items": { "type": "string" } }
        ]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn option_unions_formats_and_null_defaults_are_rewritten() {
        let mut s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "offset": {"type": ["integer", "null"], "format": "uint", "minimum": 0, "default": null},
                "drift": {"type": "integer", "format": "int64"},
                "name": {"anyOf": [{"type": "string", "description": "d"}, {"type": "null"}]},
                "default": {"type": "string"},
                "tags": {"type": "array", "items": {"type": ["string", "null"]}},
                "status": {"type": ["string", "null"], "enum": ["checked", "failed", null]}
            }
        });
        make_portable(&mut s);
        assert_eq!(
            s,
            json!({
                "type": "object",
                "properties": {
                    "offset": {"type": "integer", "minimum": 0},
                    "drift": {"type": "integer"},
                    "name": {"type": "string", "description": "d"},
                    "default": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "status": {"type": "string", "enum": ["checked", "failed"]}
                }
            })
        );
    }

    #[test]
    fn strict_closes_every_object_and_makes_the_optional_properties_nullable() {
        let mut s = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "minimum": 0},
                "line": {"description": "d", "anyOf": [{"type": "integer"}, {"type": "string"}]},
                "direction": {"type": "string", "enum": ["incoming", "outgoing"]},
                "base_shas": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "sha": {"type": "string"}},
                    "required": ["path", "sha"]
                }}
            },
            "required": ["path", "direction"]
        });
        make_strict(&mut s);
        let expected = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": ["integer", "null"]},
                "line": {"description": "d", "anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
                "direction": {"type": "string", "enum": ["incoming", "outgoing"]},
                "base_shas": {"type": ["array", "null"], "items": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "sha": {"type": "string"}},
                    "required": ["path", "sha"],
                    "additionalProperties": false
                }}
            },
            "required": ["base_shas", "direction", "line", "offset", "path"],
            "additionalProperties": false
        });
        assert_eq!(s, expected);
        // Applying it again changes nothing: a strict schema is its own strict form.
        make_strict(&mut s);
        assert_eq!(s, expected);
        let mut optional_enum = json!({
            "type": "object",
            "properties": {"direction": {"type": "string", "enum": ["incoming"]}}
        });
        make_strict(&mut optional_enum);
        assert_eq!(
            optional_enum["properties"]["direction"],
            json!({"type": ["string", "null"], "enum": ["incoming", null]})
        );
    }

    #[derive(Deserialize)]
    struct Args {
        #[serde(default, deserialize_with = "lenient::offset")]
        offset: Option<usize>,
    }

    #[derive(Deserialize)]
    struct ScopeArgs {
        #[serde(default, deserialize_with = "lenient::scope")]
        scope: Vec<String>,
    }

    // Regression: MCP Inspector's CLI sends a list argument as its JSON text; `scope` took
    // that text as one glob, which matched no file, and propose_edit answered `empty_diff`.
    #[test]
    fn scope_takes_a_glob_a_list_or_the_json_text_of_a_list() {
        let parse = |v: Value| serde_json::from_value::<ScopeArgs>(v).map(|a| a.scope);
        let globs = |g: &[&str]| g.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(parse(json!({})).unwrap(), globs(&[]));
        assert_eq!(parse(json!({"scope": null})).unwrap(), globs(&[]));
        assert_eq!(
            parse(json!({"scope": "src/**/*.ts"})).unwrap(),
            globs(&["src/**/*.ts"])
        );
        assert_eq!(
            parse(json!({"scope": ["src/a.ts", "!src/gen/**"]})).unwrap(),
            globs(&["src/a.ts", "!src/gen/**"])
        );
        assert_eq!(
            parse(json!({"scope": "[\"src/a.ts\", \"src/b.ts\"]"})).unwrap(),
            globs(&["src/a.ts", "src/b.ts"])
        );
        // A glob that only starts like a list (a character class) stays a glob.
        assert_eq!(
            parse(json!({"scope": "[ab]*.ts"})).unwrap(),
            globs(&["[ab]*.ts"])
        );
        for bad in [json!("[1, 2]"), json!([1]), json!(3)] {
            let e = parse(json!({ "scope": bad })).unwrap_err().to_string();
            assert!(
                e.contains("`scope` must be a glob or a list of globs"),
                "{e}"
            );
        }
    }

    #[test]
    fn counts_accept_numbers_and_numeric_strings_and_name_the_field_otherwise() {
        let parse = |v: Value| serde_json::from_value::<Args>(v).map(|a| a.offset);
        assert_eq!(parse(json!({})).unwrap(), None);
        assert_eq!(parse(json!({"offset": null})).unwrap(), None);
        assert_eq!(parse(json!({"offset": 2})).unwrap(), Some(2));
        assert_eq!(parse(json!({"offset": " 2"})).unwrap(), Some(2));
        for bad in [json!(-1), json!("two"), json!(1.5), json!([2])] {
            let e = parse(json!({ "offset": bad })).unwrap_err().to_string();
            assert!(e.contains("`offset` must be a non-negative integer"), "{e}");
        }
    }
}
