//! The LSP edit tools over MCP, end to end with a real TypeScript server: `rename_symbol` with
//! an anchor, its structured result agreeing with the files; `references` and `definition` as
//! anchored excerpts; a stale anchor refused; `code_actions` then `apply_code_action`.

use serde_json::json;

use crate::harness::{Project, TS_SERVERS, anchor_in, have_server};
use crate::mcp::{call, connect, is_error, text};

fn structured(r: &rmcp::model::CallToolResult) -> &serde_json::Value {
    r.structured_content.as_ref().unwrap()
}

#[tokio::test]
async fn rename_references_definition_and_a_quick_fix_over_mcp() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    let client = connect(&project.root, &[]).await;
    let view = text(&call(&client, "read_file", json!({ "path": "src/util.ts" })).await);
    let anchor = anchor_in(&view, 1);

    let refs = call(
        &client,
        "references",
        json!({ "path": "src/util.ts", "line": anchor, "symbol": "add" }),
    )
    .await;
    assert!(!is_error(&refs), "{}", text(&refs));
    let paths: Vec<&str> = structured(&refs)["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        ["src/index.ts", "src/index.ts", "src/util.ts"],
        "{}",
        text(&refs)
    );

    let def = call(
        &client,
        "definition",
        json!({ "path": "src/index.ts", "line": 3, "symbol": "add" }),
    )
    .await;
    assert_eq!(structured(&def)["locations"][0]["path"], "src/util.ts");
    assert!(
        text(&def).contains(&format!("{anchor}|export function add")),
        "{}",
        text(&def)
    );

    // A stale anchor: the line it names is not what line 1 is.
    let stale = call(
        &client,
        "rename_symbol",
        json!({ "path": "src/util.ts", "line": "1aaaa", "symbol": "add", "new_name": "sum" }),
    )
    .await;
    assert!(is_error(&stale));
    assert_eq!(structured(&stale)["reason"], "stale_context");
    assert_eq!(structured(&stale)["success"], false);

    let renamed = call(
        &client,
        "rename_symbol",
        json!({ "path": "src/util.ts", "line": anchor, "symbol": "add", "new_name": "sum" }),
    )
    .await;
    let t = text(&renamed);
    assert!(!is_error(&renamed), "{t}");
    let s = structured(&renamed);
    assert_eq!(s["status"], "applied", "{s}");
    assert_eq!(s["success"], true, "{s}");
    let applied: Vec<&str> = s["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let said: Vec<&str> = s["server_edit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(applied, said, "{s}");
    assert_eq!(applied, ["src/index.ts", "src/util.ts"]);
    assert!(s["checkpoint_id"].is_string());
    let index = std::fs::read_to_string(project.root.join("src/index.ts")).unwrap();
    assert!(
        index.contains("import { sum, greet }") && index.contains("sum(1, 2)"),
        "{index}"
    );
    assert!(!t.contains("LSP errors"), "{t}");

    // Break the import, then fix it with the server's quick fix.
    std::fs::write(
        project.root.join("src/index.ts"),
        index.replace("import { sum, greet }", "import { greet }"),
    )
    .unwrap();
    let actions = call(
        &client,
        "code_actions",
        json!({ "path": "src/index.ts", "line": 3 }),
    )
    .await;
    let list = structured(&actions)["actions"].as_array().unwrap().clone();
    let fix = list
        .iter()
        .find(|a| a["title"].as_str().unwrap().contains("import"))
        .unwrap_or_else(|| panic!("{}", text(&actions)));
    let fixed = call(
        &client,
        "apply_code_action",
        json!({ "path": "src/index.ts", "line": 3, "index": fix["index"] }),
    )
    .await;
    assert!(!is_error(&fixed), "{}", text(&fixed));
    let index = std::fs::read_to_string(project.root.join("src/index.ts")).unwrap();
    assert!(index.contains("sum"), "{index}");
    assert!(!text(&fixed).contains("LSP errors"), "{}", text(&fixed));
    client.cancel().await.unwrap();
}

const CART: &str = "export class Cart {\n  items: number[] = [];\n\n  total(): number {\n    return this.items.length;\n  }\n}\n";

/// `outline` and `find_symbol` over MCP: the tree with anchors read_file agrees with, a name
/// path found with its body, an unknown name with a suggestion, a refusal as a reason.
#[tokio::test]
async fn outline_and_find_symbol_over_mcp() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    std::fs::write(project.root.join("src/cart.ts"), CART).unwrap();
    let client = connect(&project.root, &[]).await;
    let view = text(&call(&client, "read_file", json!({ "path": "src/cart.ts" })).await);
    let total_anchor = anchor_in(&view, 4);

    let o = call(&client, "outline", json!({ "path": "src/cart.ts" })).await;
    assert!(!is_error(&o), "{}", text(&o));
    assert!(
        text(&o).contains(&format!("  method Cart/total {total_anchor} lines 4-6")),
        "{}",
        text(&o)
    );
    let symbols = structured(&o)["symbols"].as_array().unwrap();
    let total = symbols
        .iter()
        .find(|s| s["name_path"] == "Cart/total")
        .unwrap();
    assert_eq!(total["anchor"], total_anchor.as_str());
    assert_eq!(
        (total["start_line"].as_u64(), total["end_line"].as_u64()),
        (Some(4), Some(6))
    );
    assert_eq!(total["kind"], "method");

    let f = call(
        &client,
        "find_symbol",
        json!({ "name": "Cart/total", "exact": true, "include_body": true }),
    )
    .await;
    assert!(!is_error(&f), "{}", text(&f));
    assert_eq!(structured(&f)["matches"][0]["path"], "src/cart.ts");
    assert!(
        text(&f).contains(&format!("{total_anchor}|  total(): number {{")),
        "{}",
        text(&f)
    );

    let none = call(&client, "find_symbol", json!({ "name": "Cart/totl" })).await;
    assert!(!is_error(&none), "{}", text(&none));
    assert_eq!(structured(&none)["matches"], json!([]));
    assert_eq!(structured(&none)["suggestions"][0], "Cart/total");

    // Declarations by default; `all` adds the keys of the object literal, and the
    // structured result counts them while they are left out.
    std::fs::write(
        project.root.join("src/conf.ts"),
        "export const conf = { retries: 3 };\n",
    )
    .unwrap();
    let names = |r: &rmcp::model::CallToolResult| -> Vec<String> {
        structured(r)["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name_path"].as_str().unwrap().to_owned())
            .collect()
    };
    let o = call(&client, "outline", json!({ "path": "src/conf.ts" })).await;
    assert_eq!(names(&o), ["conf"], "{}", text(&o));
    assert_eq!(structured(&o)["hidden"], 1, "{}", text(&o));
    let all = call(
        &client,
        "outline",
        json!({ "path": "src/conf.ts", "all": true }),
    )
    .await;
    assert_eq!(names(&all), ["conf", "conf/retries"], "{}", text(&all));
    assert_eq!(structured(&all).get("hidden"), None);

    let outside = call(&client, "outline", json!({ "path": "../x.ts" })).await;
    assert!(is_error(&outside));
    assert_eq!(structured(&outside)["reason"], "path_outside_workspace");
}

/// `replace_symbol_body`, `insert_after_symbol` and `insert_before_symbol` over MCP: a broken
/// body is written with its error in the same result (`files[].diagnostics`), the fix comes back
/// clean at the method's indentation, an insertion lands between members with one blank line,
/// and an ambiguous name is a refusal with nothing written.
#[tokio::test]
async fn symbol_edits_over_mcp() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    let cart = project.root.join("src/cart.ts");
    std::fs::write(&cart, CART).unwrap();
    let client = connect(&project.root, &[]).await;
    let args =
        |name: &str, body: &str| json!({ "path": "src/cart.ts", "name_path": name, "body": body });

    let broken = call(
        &client,
        "replace_symbol_body",
        args(
            "Cart/total",
            "total(): number {\n  return this.items.length +;\n}",
        ),
    )
    .await;
    assert!(!is_error(&broken), "{}", text(&broken));
    assert_eq!(structured(&broken)["status"], "applied");
    assert!(text(&broken).contains("LSP errors"), "{}", text(&broken));

    let fixed = call(
        &client,
        "replace_symbol_body",
        args(
            "Cart/total",
            "total(): number {\n  return this.items.length + 1;\n}",
        ),
    )
    .await;
    assert!(!is_error(&fixed), "{}", text(&fixed));
    assert!(!text(&fixed).contains("LSP errors"), "{}", text(&fixed));
    assert!(structured(&fixed)["checkpoint_id"].is_string());

    let after = call(
        &client,
        "insert_after_symbol",
        args("Cart/items", "count = 0;"),
    )
    .await;
    assert!(!is_error(&after), "{}", text(&after));
    assert_eq!(
        std::fs::read_to_string(&cart).unwrap(),
        "export class Cart {\n  items: number[] = [];\n  count = 0;\n\n  total(): number {\n    return this.items.length + 1;\n  }\n}\n"
    );

    let before = call(
        &client,
        "insert_before_symbol",
        args("Cart", "export const LIMIT = 3;"),
    )
    .await;
    assert!(!is_error(&before), "{}", text(&before));
    assert!(
        std::fs::read_to_string(&cart)
            .unwrap()
            .starts_with("export const LIMIT = 3;\n\nexport class Cart {\n"),
    );

    std::fs::write(
        project.root.join("src/two.ts"),
        "export function a() {\n  return 1;\n}\nexport namespace N {\n  export function a() {\n    return 2;\n  }\n}\n",
    )
    .unwrap();
    let before = std::fs::read_to_string(project.root.join("src/two.ts")).unwrap();
    let ambiguous = call(
        &client,
        "replace_symbol_body",
        json!({ "path": "src/two.ts", "name_path": "a", "body": "function a() {}" }),
    )
    .await;
    assert!(is_error(&ambiguous), "{}", text(&ambiguous));
    assert_eq!(structured(&ambiguous)["reason"], "ambiguous_match");
    assert!(text(&ambiguous).contains("N/a"), "{}", text(&ambiguous));
    assert_eq!(
        std::fs::read_to_string(project.root.join("src/two.ts")).unwrap(),
        before
    );
    // references, definition and rename_symbol take a name path too.
    let refs = call(
        &client,
        "references",
        json!({ "path": "src/two.ts", "name_path": "N/a" }),
    )
    .await;
    assert!(!is_error(&refs), "{}", text(&refs));
    assert_eq!(
        structured(&refs)["locations"][0]["line"],
        5,
        "{}",
        text(&refs)
    );
    let both = call(
        &client,
        "definition",
        json!({ "path": "src/two.ts", "name_path": "N/a", "symbol": "a", "line": 5 }),
    )
    .await;
    assert!(is_error(&both), "{}", text(&both));
    assert!(text(&both).contains("invalid arguments"), "{}", text(&both));
    // A leading `/` names the top-level one.
    let top = call(
        &client,
        "replace_symbol_body",
        json!({ "path": "src/two.ts", "name_path": "/a", "body": "export function a() {\n  return 3;\n}" }),
    )
    .await;
    assert!(!is_error(&top), "{}", text(&top));
    assert!(
        std::fs::read_to_string(project.root.join("src/two.ts"))
            .unwrap()
            .starts_with("export function a() {\n  return 3;\n}\nexport namespace N {\n  export function a() {\n    return 2;"),
    );
}

const PRICED: &str = "import { add } from \"./util\";\n\nexport interface Priced {\n  price(): number;\n}\n\nexport class Cart implements Priced {\n  total(): number {\n    return add(1, 2);\n  }\n\n  price(): number {\n    return this.total();\n  }\n}\n\nexport const cart: Cart = new Cart();\n";

/// `hover`, `call_hierarchy`, `implementations` and `type_definition` over MCP: by line and
/// symbol and by name path, the text is the library's and the structured result agrees; a
/// position named two ways at once is an invalid argument.
#[tokio::test]
async fn lookups_over_mcp() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    std::fs::write(project.root.join("src/cart.ts"), PRICED).unwrap();
    let client = connect(&project.root, &[]).await;
    let view = text(&call(&client, "read_file", json!({ "path": "src/cart.ts" })).await);

    let h = call(
        &client,
        "hover",
        json!({ "path": "src/cart.ts", "line": anchor_in(&view, 9), "symbol": "add" }),
    )
    .await;
    assert!(!is_error(&h), "{}", text(&h));
    assert!(
        text(&h).starts_with("Hover on `add` at src/cart.ts:9 (")
            && text(&h).contains("add(a: number, b: number): number"),
        "{}",
        text(&h)
    );
    assert_eq!(structured(&h)["line"], 9);
    assert!(structured(&h)["hover"].as_str().unwrap().contains("```"));

    let calls = call(
        &client,
        "call_hierarchy",
        json!({ "path": "src/cart.ts", "name_path": "Cart/total", "direction": "incoming" }),
    )
    .await;
    assert!(!is_error(&calls), "{}", text(&calls));
    let s = structured(&calls);
    assert_eq!(s["targets"][0]["name"], "total", "{s}");
    assert_eq!(s["calls"][0]["item"]["name"], "price", "{s}");
    assert_eq!(s["calls"][0]["sites"], json!([13]), "{s}");
    assert_eq!(s["calls"][0]["target"], 0, "{s}");
    assert!(
        text(&calls).contains(&format!(
            "{}|    return this.total();",
            anchor_in(&view, 13)
        )),
        "{}",
        text(&calls)
    );

    let imp = call(
        &client,
        "implementations",
        json!({ "path": "src/cart.ts", "name_path": "Priced" }),
    )
    .await;
    assert!(!is_error(&imp), "{}", text(&imp));
    assert_eq!(
        structured(&imp)["locations"][0]["line"],
        7,
        "{}",
        text(&imp)
    );
    let ty = call(
        &client,
        "type_definition",
        json!({ "path": "src/cart.ts", "line": 17, "symbol": "cart" }),
    )
    .await;
    assert!(!is_error(&ty), "{}", text(&ty));
    assert!(
        text(&ty).starts_with("1 type definition of `cart` in 1 file:"),
        "{}",
        text(&ty)
    );

    let both = call(
        &client,
        "hover",
        json!({ "path": "src/cart.ts", "line": 9, "symbol": "add", "name_path": "Cart/total" }),
    )
    .await;
    assert!(is_error(&both));
    assert_eq!(
        text(&both),
        "Error: invalid arguments: give either `line` and `symbol`, or `name_path`, not both"
    );
    let unknown = call(
        &client,
        "hover",
        json!({ "path": "src/cart.ts", "name_path": "Cart/totl" }),
    )
    .await;
    assert!(is_error(&unknown));
    assert_eq!(structured(&unknown)["reason"], "symbol_not_found");
    client.cancel().await.unwrap();
}

/// Regression: `lspedit mcp --no-diagnostics` refused every language-server tool as
/// `no_server` (the flag dropped the pool). It turns off the checks after writes only: outline,
/// references and a symbol edit run, the edit's result carries no diagnostics although its
/// body is broken, and `diagnostics` says they are off.
#[tokio::test]
async fn no_diagnostics_keeps_the_language_server_tools() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let project = Project::copy("ts-basic");
    std::fs::write(project.root.join("src/cart.ts"), CART).unwrap();
    let client = connect(&project.root, &["--no-diagnostics"]).await;

    let o = call(&client, "outline", json!({ "path": "src/cart.ts" })).await;
    assert!(!is_error(&o), "{}", text(&o));
    assert!(
        structured(&o)["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name_path"] == "Cart/total"),
        "{}",
        text(&o)
    );

    let refs = call(
        &client,
        "references",
        json!({ "path": "src/util.ts", "name_path": "add" }),
    )
    .await;
    assert!(!is_error(&refs), "{}", text(&refs));
    assert!(
        structured(&refs)["locations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["path"] == "src/index.ts"),
        "{}",
        text(&refs)
    );

    let broken = call(
        &client,
        "replace_symbol_body",
        json!({
            "path": "src/cart.ts",
            "name_path": "Cart/total",
            "body": "total(): number {\n  return this.items.length +;\n}",
        }),
    )
    .await;
    assert!(!is_error(&broken), "{}", text(&broken));
    assert_eq!(
        structured(&broken)["status"],
        "applied",
        "{}",
        text(&broken)
    );
    assert!(!text(&broken).contains("LSP errors"), "{}", text(&broken));

    let d = call(&client, "diagnostics", json!({ "paths": ["src/cart.ts"] })).await;
    assert!(
        text(&d).contains("diagnostics are turned off for this session"),
        "{}",
        text(&d)
    );
}
