//! `lspedit rename`, `lspedit fix`, `lspedit refs`, the symbol commands and the lookups with a
//! real TypeScript server: output, `--json`, exit codes (0 done, 1 refused).

use crate::harness::{Project, TS_SERVERS, have_server};

#[test]
fn rename_refs_and_fix_from_the_shell() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    let refs = p.run(&["refs", "src/index.ts", "3", "add"], "");
    refs.assert_code(0);
    assert!(
        refs.stdout.starts_with("3 references to `add` in 2 files:"),
        "{}",
        refs.stdout
    );
    let def = p.run(
        &["refs", "src/index.ts", "3", "add", "--definition", "--json"],
        "",
    );
    def.assert_code(0);
    assert_eq!(def.json()["locations"][0]["path"], "src/util.ts");

    let stale = p.run(&["rename", "src/util.ts", "1aaaa", "add", "sum"], "");
    stale.assert_code(1);
    assert!(stale.stderr.contains("stale_context"), "{}", stale.stderr);
    assert!(p.read("src/util.ts").contains("function add("));

    let renamed = p.run(&["rename", "src/util.ts", "1", "add", "sum", "--json"], "");
    renamed.assert_code(0);
    let v = renamed.json();
    assert_eq!(v["ok"], true);
    assert_eq!(v["status"], "applied");
    assert_eq!(v["files"].as_array().unwrap().len(), 2, "{v}");
    assert!(p.read("src/index.ts").contains("import { sum, greet }"));

    let list = p.run(&["fix", "src/index.ts", "3"], "");
    list.assert_code(0);
    assert!(list.stdout.contains("code action"), "{}", list.stdout);
    let missing = p.run(&["fix", "src/index.ts", "3", "--index", "99"], "");
    missing.assert_code(1);
    assert!(
        missing.stderr.contains("action_not_found"),
        "{}",
        missing.stderr
    );
}

/// `lspedit outline` and `lspedit find-symbol`: text, `--json`, exit codes.
#[test]
fn outline_and_find_symbol_from_the_shell() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    std::fs::write(
        p.root.join("src/cart.ts"),
        "export class Cart {\n  total(): number {\n    return 1;\n  }\n}\n",
    )
    .unwrap();
    let o = p.run(&["outline", "src/cart.ts"], "");
    o.assert_code(0);
    assert!(o.stdout.starts_with("src/cart.ts ("), "{}", o.stdout);
    assert!(o.stdout.contains("\n  method Cart/total 2"), "{}", o.stdout);
    let dir = p.run(&["outline", "src", "--json"], "");
    dir.assert_code(0);
    let v = dir.json();
    assert_eq!(v["ok"], true);
    assert!(
        v["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["name_path"] == "Cart" && s["path"] == "src/cart.ts"),
        "{v}"
    );

    // Declarations by default, the shell's words for the rest; `--all` lists them.
    std::fs::write(
        p.root.join("src/conf.ts"),
        "export const conf = { retries: 3 };\n",
    )
    .unwrap();
    let o = p.run(&["outline", "src/conf.ts"], "");
    o.assert_code(0);
    assert!(
        o.stdout.starts_with("src/conf.ts (")
            && o.stdout.contains("1 other symbol (imports, locals, object-literal keys) shown by `lspedit outline src/conf.ts --all`")
            && !o.stdout.contains("conf/retries"),
        "{}",
        o.stdout
    );
    let all = p.run(&["outline", "src/conf.ts", "--all", "--json"], "");
    all.assert_code(0);
    let names: Vec<String> = all.json()["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name_path"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(names, ["conf", "conf/retries"], "{}", all.stdout);
    assert_eq!(all.json()["hidden"], 0);

    let f = p.run(&["find-symbol", "Cart/total", "--exact", "--body"], "");
    f.assert_code(0);
    assert!(
        f.stdout
            .starts_with("1 symbol matches `Cart/total` exactly"),
        "{}",
        f.stdout
    );
    assert!(f.stdout.contains("|    return 1;"), "{}", f.stdout);
    let k = p.run(
        &[
            "find-symbol",
            "add",
            "--kind",
            "function",
            "--path",
            "src",
            "--json",
        ],
        "",
    );
    k.assert_code(0);
    assert_eq!(k.json()["matches"][0]["path"], "src/util.ts");
    let none = p.run(&["find-symbol", "totl", "--json"], "");
    none.assert_code(0);
    assert_eq!(none.json()["suggestions"][0], "Cart/total");
    let refused = p.run(&["outline", "../x.ts"], "");
    refused.assert_code(1);
    assert!(
        refused.stderr.contains("path_outside_workspace"),
        "{}",
        refused.stderr
    );
}

/// `lspedit replace-symbol`, `insert-after`, `insert-before`: the body from standard input or a
/// file, the text and `--json`, exit 1 on a refusal with nothing written.
#[test]
fn symbol_edits_from_the_shell() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    let cart = p.root.join("src/cart.ts");
    std::fs::write(
        &cart,
        "export class Cart {\n  total(): number {\n    return 1;\n  }\n}\n",
    )
    .unwrap();
    let r = p.run(
        &["replace-symbol", "src/cart.ts", "Cart/total"],
        "total(): number {\n  return 2;\n}\n",
    );
    r.assert_code(0);
    assert!(
        r.stdout
            .starts_with("Replace `Cart/total` (method, src/cart.ts lines 2-4)."),
        "{}",
        r.stdout
    );
    let body = p.root.join("body.txt");
    std::fs::write(&body, "size(): number {\n  return 0;\n}").unwrap();
    let r = p.run(
        &[
            "insert-after",
            "src/cart.ts",
            "Cart/total",
            body.to_str().unwrap(),
            "--json",
        ],
        "",
    );
    r.assert_code(0);
    let v = r.json();
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["status"], "applied", "{v}");
    assert_eq!(
        std::fs::read_to_string(&cart).unwrap(),
        "export class Cart {\n  total(): number {\n    return 2;\n  }\n\n  size(): number {\n    return 0;\n  }\n}\n"
    );
    let before = std::fs::read_to_string(&cart).unwrap();
    let r = p.run(&["insert-before", "src/cart.ts", "Cart/totl"], "x = 1;\n");
    r.assert_code(1);
    assert!(r.stderr.contains("symbol_not_found"), "{}", r.stderr);
    assert!(r.stderr.contains("Cart/total"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&cart).unwrap(), before);
}

/// `lspedit hover`, `calls`, `implementations` and `type-definition`: text, `--json`, exit
/// codes (0 answered, 1 refused, 2 a position named two ways).
#[test]
fn lookups_from_the_shell() {
    if !have_server(TS_SERVERS) {
        return;
    }
    let p = Project::copy("ts-basic");
    std::fs::write(
        p.root.join("src/cart.ts"),
        "import { add } from \"./util\";\n\nexport class Cart {\n  total(): number {\n    return add(1, 2);\n  }\n}\n",
    )
    .unwrap();
    let h = p.run(&["hover", "src/cart.ts", "5", "add"], "");
    h.assert_code(0);
    assert!(
        h.stdout.starts_with("Hover on `add` at src/cart.ts:5 (")
            && h.stdout.contains("add(a: number, b: number): number"),
        "{}",
        h.stdout
    );
    let out = p.run(
        &[
            "calls",
            "src/cart.ts",
            "--name-path",
            "Cart/total",
            "--direction",
            "outgoing",
            "--json",
        ],
        "",
    );
    out.assert_code(0);
    let v = out.json();
    assert_eq!(v["direction"], "outgoing", "{v}");
    assert_eq!(v["calls"][0]["item"]["name"], "add", "{v}");
    assert_eq!(v["calls"][0]["item"]["path"], "src/util.ts", "{v}");
    assert_eq!(v["calls"][0]["sites"], serde_json::json!([5]), "{v}");
    assert!(
        v["llm_content"]
            .as_str()
            .unwrap()
            .contains("|    return add(1, 2);"),
        "{v}"
    );
    let inc = p.run(&["calls", "src/util.ts", "1", "add"], "");
    inc.assert_code(0);
    assert!(inc.stdout.contains("callers of `add`"), "{}", inc.stdout);
    assert!(
        inc.stdout.contains("\nsrc/cart.ts:4 method total "),
        "{}",
        inc.stdout
    );
    let ty = p.run(
        &["type-definition", "src/cart.ts", "5", "add", "--json"],
        "",
    );
    ty.assert_code(0);
    let v = ty.json();
    assert!(
        v["llm_content"]
            .as_str()
            .unwrap()
            .contains("1 type definition of `add` in 1 file:")
            && v["locations"].is_array(),
        "{v}"
    );
    let imp = p.run(
        &["implementations", "src/cart.ts", "--name-path", "Cart"],
        "",
    );
    imp.assert_code(0);
    assert!(
        imp.stdout.contains("1 implementation of `Cart` in 1 file:"),
        "{}",
        imp.stdout
    );
    let both = p.run(
        &[
            "hover",
            "src/cart.ts",
            "5",
            "add",
            "--name-path",
            "Cart/total",
        ],
        "",
    );
    both.assert_code(2);
    assert!(both.stderr.contains("not both"), "{}", both.stderr);
    let refused = p.run(&["hover", "src/cart.ts", "--name-path", "Cart/totl"], "");
    refused.assert_code(1);
    assert!(
        refused.stderr.contains("symbol_not_found"),
        "{}",
        refused.stderr
    );
}
