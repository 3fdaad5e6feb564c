//! `lspedit rename`, `lspedit fix` and `lspedit refs` with a real TypeScript server: output,
//! `--json`, exit codes (0 done, 1 refused).

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
