//! The npm servers beyond TypeScript and Python, each on its real server and its test project
//! (`test-projects/<lang>-basic`, a `broken` file with a planted error and a `clean` one):
//! `lspedit check` reports the planted error (exit 1, the diagnostics block), an `edit` that
//! fixes it comes back checked and clean, and an `edit` that breaks the clean file reports the
//! new error in the same result. Skipped (see `have_server`) when the server is not installed.

use crate::harness::{Project, have_server};

/// One language: its server, project, files and the edits that fix and break them.
struct Case {
    server: &'static str,
    project: &'static str,
    broken: &'static str,
    /// The diagnostic line `check` shows for the planted error.
    planted: &'static str,
    /// `--old`, `--new` of the edit that fixes `broken`.
    fix: (&'static str, &'static str),
    clean: &'static str,
    /// `--old`, `--new` of the edit that breaks `clean`.
    breaks: (&'static str, &'static str),
    /// The diagnostic line the breaking edit's result shows.
    broke: &'static str,
}

fn check_edit_cycle(c: &Case) {
    if !have_server(&[c.server]) {
        return;
    }
    let p = Project::copy(c.project);

    let broken = p.run(&["check", c.broken], "");
    broken.assert_code(1);
    let block = format!("<diagnostics file=\"{}\">", c.broken);
    assert!(
        broken.stdout.contains(&block) && broken.stdout.contains(c.planted),
        "{:?} not reported:\n{}",
        c.planted,
        broken.stdout
    );

    let clean = p.run(&["check", c.clean], "");
    clean.assert_code(0);
    let no_errors = format!("{}: no errors ({}).", c.clean, c.server);
    assert!(clean.stdout.starts_with(&no_errors), "{}", clean.stdout);

    let llm = checked_edit(&p, c.broken, c.fix);
    assert!(
        !llm.contains("<diagnostics"),
        "the fix is not clean:\n{llm}"
    );

    let llm = checked_edit(&p, c.clean, c.breaks);
    let block = format!("<diagnostics file=\"{}\">", c.clean);
    assert!(
        llm.contains(&block) && llm.contains(c.broke),
        "{:?} not in the edit's result:\n{llm}",
        c.broke
    );
}

/// `lspedit edit FILE --old --new --json` in `p`: it applies, its one file is `checked`, and its
/// text is returned.
fn checked_edit(p: &Project, file: &str, (old, new): (&str, &str)) -> String {
    let r = p.run(&["edit", file, "--old", old, "--new", new, "--json"], "");
    r.assert_code(0);
    let v = r.json();
    let statuses: Vec<(&str, &str)> = v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["path"].as_str().unwrap(), d["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses, [(file, "checked")], "{v}");
    v["llm_content"].as_str().unwrap().to_string()
}

/// bash-language-server's diagnostics are shellcheck's (installed with it, see
/// `lsp-configs/bash-language-server.toml`).
#[test]
fn shell_errors_come_from_bash_language_server_and_shellcheck() {
    check_edit_cycle(&Case {
        server: "bash-language-server",
        project: "shell-basic",
        broken: "broken.sh",
        planted: "ERROR [4:1] Couldn't find 'fi' for this 'if'. (SC1046)",
        fix: ("  echo \"hello $name\"\n", "  echo \"hello $name\"\nfi\n"),
        clean: "clean.sh",
        breaks: ("echo \"hello $name\"", "if true; then echo \"hello $name\""),
        broke: "Couldn't find 'fi' for this 'if'. (SC1046)",
    });
}

#[test]
fn yaml_syntax_errors_come_from_yaml_language_server() {
    check_edit_cycle(&Case {
        server: "yaml-language-server",
        project: "yaml-basic",
        broken: "broken.yaml",
        planted: "ERROR [4:1] Flow sequence in block collection must be sufficiently indented and end with a ]",
        fix: ("[one, two", "[one, two]"),
        clean: "clean.yaml",
        breaks: ("[one, two]", "[one, two"),
        broke: "ERROR [3:1] Flow sequence in block collection must be sufficiently indented and end with a ]",
    });
}

#[test]
fn json_errors_come_from_vscode_json_language_server() {
    check_edit_cycle(&Case {
        server: "vscode-json-language-server",
        project: "json-basic",
        broken: "broken.json",
        planted: "ERROR [4:1] Value expected (516)",
        fix: ("\"version\": ", "\"version\": 1"),
        clean: "clean.json",
        breaks: ("\"version\": 1", "\"version\": "),
        broke: "ERROR [4:1] Value expected (516)",
    });
}

#[test]
fn css_errors_come_from_vscode_css_language_server() {
    check_edit_cycle(&Case {
        server: "vscode-css-language-server",
        project: "css-basic",
        broken: "broken.css",
        planted: "ERROR [4:1] } expected (css-rcurlyexpected)",
        fix: ("  color: red;\n", "  color: red;\n}\n"),
        clean: "clean.css",
        breaks: ("color: red;", "color: ;"),
        broke: "ERROR [2:10] property value expected (css-propertyvalueexpected)",
    });
}

/// The HTML server checks the embedded CSS and JavaScript, not the markup.
#[test]
fn html_embedded_style_errors_come_from_vscode_html_language_server() {
    check_edit_cycle(&Case {
        server: "vscode-html-language-server",
        project: "html-basic",
        broken: "broken.html",
        planted: "ERROR [4:15] property value expected (css-propertyvalueexpected)",
        fix: ("color: }", "color: red; }"),
        clean: "clean.html",
        breaks: (
            "<body><p class=\"box\">hi</p></body>",
            "<body><script>let n = ;</script></body>",
        ),
        broke: "ERROR [6:23] Expression expected.",
    });
}

/// A schema the file names but the sandbox cannot fetch is the server's problem, not the
/// file's: a warning (`severity_overrides` in `lsp-configs/yaml-language-server.toml`), so
/// the file has no errors.
#[test]
fn a_yaml_schema_that_cannot_be_fetched_is_no_error() {
    if !have_server(&["yaml-language-server"]) {
        return;
    }
    let p = crate::harness::Project::with_files(&[(
        "ci.yaml",
        "# yaml-language-server: $schema=https://json.schemastore.org/github-workflow.json\non: push\n",
    )]);
    let r = p.run(&["check", "ci.yaml"], "");
    r.assert_code(0);
    assert!(
        r.stdout
            .starts_with("ci.yaml: no errors (yaml-language-server)."),
        "{}",
        r.stdout
    );
}

/// A `Dockerfile` has no extension: the declaration names it (`file_names`).
#[test]
fn dockerfile_errors_come_from_dockerfile_language_server() {
    check_edit_cycle(&Case {
        server: "dockerfile-language-server",
        project: "dockerfile-basic",
        broken: "broken/Dockerfile",
        planted: "ERROR [3:6] COPY requires at least two arguments (7)",
        fix: ("COPY app.sh\n", "COPY app.sh /app.sh\n"),
        clean: "clean/Dockerfile",
        breaks: ("COPY app.sh /app.sh", "COPY app.sh"),
        broke: "ERROR [2:6] COPY requires at least two arguments (7)",
    });
}

#[test]
fn php_errors_come_from_intelephense() {
    check_edit_cycle(&Case {
        server: "intelephense",
        project: "php-basic",
        broken: "broken.php",
        planted: "ERROR [6:5] Unexpected 'return'. Expected ';'. (P1001)",
        fix: ("\"hello \" . $name\n", "\"hello \" . $name;\n"),
        clean: "clean.php",
        breaks: ("$loud = $name . \"!\";", "$loud = $name . \"!\""),
        broke: "ERROR [6:5] Unexpected 'return'. Expected ';'. (P1001)",
    });
}

/// The Svelte compiler's error, through the server's pull diagnostics (in restricted mode,
/// sandboxed: the server imports workspace JavaScript).
#[test]
fn svelte_errors_come_from_svelte_language_server() {
    check_edit_cycle(&Case {
        server: "svelte-language-server",
        project: "svelte-basic",
        broken: "src/Broken.svelte",
        planted: "ERROR [6:1] Block was left open (unclosed-block)",
        fix: ("  <p>{name}</p>\n", "  <p>{name}</p>\n{/if}\n"),
        clean: "src/Clean.svelte",
        breaks: ("<p>{count}</p>", "{#if count}<p>{count}</p>"),
        broke: "Block was left open (unclosed-block)",
    });
}

/// taplo, built from crates.io (`lsp-configs/taplo.toml`: no registry ships its LSP prebuilt).
#[test]
fn toml_errors_come_from_taplo() {
    check_edit_cycle(&Case {
        server: "taplo",
        project: "toml-basic",
        broken: "broken.toml",
        planted: "ERROR [4:7] expected \"]\"",
        fix: ("[owner\n", "[owner]\n"),
        clean: "clean.toml",
        breaks: ("[owner]", "[owner"),
        broke: "ERROR [3:7] expected \"]\"",
    });
}

/// `.vue` files: typescript-language-server with the Vue TypeScript plugin checks the
/// `<script setup lang="ts">` block. `@vue/language-server` (3.x) gives no diagnostics alone (it
/// forwards everything to a tsserver running this plugin through the editor, which lspedit's
/// pool does not do), so template syntax errors are not reported: see
/// `lsp-configs/vue-typescript.toml`.
#[test]
fn vue_script_errors_come_from_typescript_with_the_vue_plugin() {
    check_edit_cycle(&Case {
        server: "vue-typescript",
        project: "vue-basic",
        broken: "src/Broken.vue",
        planted: "ERROR [3:7] Type 'string' is not assignable to type 'number'. (ts2322)",
        fix: ("const count: number = \"one\";", "const count: number = 1;"),
        clean: "src/Clean.vue",
        breaks: (
            "const label: string = \"basic\";",
            "const label: string = 1;",
        ),
        broke: "ERROR [2:7] Type 'number' is not assignable to type 'string'. (ts2322)",
    });
}

/// svelte-language-server imports the workspace's `svelte.config.js`, and no setting stops it:
/// that code runs only inside the sandbox. The planted config writes a file outside the
/// workspace: refused by the sandbox, and written once the person's config grants that
/// directory (`[pool] sandbox_allow`), which shows the config ran both times. Without Landlock,
/// restricted mode does not start the server at all.
#[test]
fn svelte_config_js_runs_only_inside_the_sandbox() {
    if !have_server(&["svelte-language-server"]) {
        return;
    }
    let p = Project::copy("svelte-basic");
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let marker = outside.join("escaped");
    let literal = serde_json::to_string(marker.to_str().unwrap()).unwrap();
    std::fs::write(
        p.root.join("svelte.config.js"),
        format!(
            "import {{ writeFileSync }} from \"node:fs\";\n\
             try {{ writeFileSync({literal}, \"svelte.config.js ran\\n\"); }} catch {{}}\n\
             export default {{}};\n"
        ),
    )
    .unwrap();
    let config_home = tempfile::tempdir().unwrap();
    let check = || {
        let out = std::process::Command::new(crate::harness::bin())
            .args(["check", "src/Broken.svelte", "--root"])
            .arg(&p.root)
            .env("XDG_CONFIG_HOME", config_home.path())
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };

    let (code, stdout) = check();
    assert!(
        !marker.exists(),
        "svelte.config.js wrote outside the sandbox"
    );
    if !lspedit::process::sandbox::support().holds() {
        assert_eq!(code, Some(3), "not started without a sandbox:\n{stdout}");
        return;
    }
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.contains("Block was left open (unclosed-block)"),
        "{stdout}"
    );

    std::fs::create_dir_all(config_home.path().join("lspedit")).unwrap();
    std::fs::write(
        config_home.path().join("lspedit/config.toml"),
        format!(
            "[pool]\nsandbox_allow = [{}]\n",
            serde_json::to_string(outside.to_str().unwrap()).unwrap()
        ),
    )
    .unwrap();
    let (code, stdout) = check();
    assert_eq!(code, Some(1), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap_or_default(),
        "svelte.config.js ran\n",
        "the config did not run where it was allowed to write"
    );
}

/// Go: Debian's gopls and Go (the module proxy is not reachable from this project's machines;
/// see `lsp-configs/gopls.toml`), a go/types error with its code.
#[test]
fn go_errors_come_from_gopls() {
    check_edit_cycle(&Case {
        server: "gopls",
        project: "go-basic",
        broken: "broken/broken.go",
        planted: "ERROR [9:17] cannot use Add(1, 2) (value of type int) as string value in variable declaration (IncompatibleAssign)",
        fix: ("var s string = Add(1, 2)", "var s string = \"three\""),
        clean: "clean/clean.go",
        breaks: ("var n int = Add(1, 2)", "var n string = Add(1, 2)"),
        broke: "ERROR [9:17] cannot use Add(1, 2) (value of type int) as string value in variable declaration (IncompatibleAssign)",
    });
}
