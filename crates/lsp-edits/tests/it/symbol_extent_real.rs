//! The symbol edits' invariant on real servers (docs/design.md §13, "Range" and "Text"): a
//! symbol edit changes only the target's own lines. For each language (pyright, tsc7,
//! rust-analyzer, clangd):
//!
//! - a file that arrived with a syntax error in the target, code after it (constants, calls,
//!   `if __name__`, `unsafe fn`, `extern "C" fn`, `console.log`): the fix by name either
//!   applies with every line after the target as it was, or is refused with the file unchanged
//!   — never an OK over lost code;
//! - strings, template literals and raw strings whose lines sit at the symbol's indentation or
//!   hold a column-0 `def`/`export`/`fn`: the whole symbol is replaced, no old tail stays;
//! - decorators, doc comments and attributes the body does not bring stay, and the result says
//!   so; a body that brings its own replaces them;
//! - a body shaped as `find_symbol` shows it (first line bare, the rest at the file's
//!   indentation) lands at the file's indentation, not shifted;
//! - pyright's name-only range of a constant: the statement is replaced, not doubled;
//! - a file read whole (an outline), then broken inside the target by another writer, is fixed
//!   by name over the recalled lines.

use lspedit_lsp_edits::{EditOptions, LspEditResult, LspEditStatus, SymbolEdit, SymbolEditKind};

use crate::lsp_edits_real::{Real, open_real};

fn replace(env: &Real, file: &str, name: &str, body: &str) -> LspEditResult {
    env.edits().edit_symbol(
        &SymbolEdit::new(SymbolEditKind::Replace, file, name, body),
        EditOptions::default(),
    )
}

/// A copy of `project` for `server` with `file` written as `text` (and `register` appended to
/// an existing file, so the new one is part of the project).
fn open(
    server: &str,
    project: &str,
    file: &str,
    text: &str,
    register: Option<(&str, &str)>,
) -> Option<Real> {
    let env = open_real(server, project)?;
    let root = env.dir.path();
    std::fs::write(root.join(file), text).unwrap();
    if let Some((path, line)) = register {
        let mut old = std::fs::read_to_string(root.join(path)).unwrap();
        old.push_str(line);
        std::fs::write(root.join(path), old).unwrap();
    }
    Some(env)
}

/// The invariant after fixing a broken symbol: refused with the file as it was, or applied
/// with everything from `after` on (the code following the target) byte for byte as it was.
fn nothing_after_is_lost(server: &str, r: &LspEditResult, old: &str, now: &str, after: &str) {
    eprintln!("{server}:\n{}\n---\n{now}", r.llm_content);
    let tail = &old[old.find(after).unwrap()..];
    match r.status {
        LspEditStatus::Refused => {
            assert_eq!(now, old, "{server}: refused but the file changed");
            assert_eq!(
                r.reason.map(|r| r.as_str()),
                Some("symbol_range_unreliable"),
                "{server}: {}",
                r.llm_content
            );
        }
        LspEditStatus::Applied => assert!(
            now.ends_with(tail),
            "{server}: code after the target was lost:\n{now}"
        ),
        other => panic!("{server}: {other:?}: {}", r.llm_content),
    }
}

/// Applied, and the file is exactly `want`.
fn applied_as(server: &str, r: &LspEditResult, now: &str, want: &str) {
    assert_eq!(
        r.status,
        LspEditStatus::Applied,
        "{server}: {}",
        r.llm_content
    );
    assert_eq!(now, want, "{server}: {}", r.llm_content);
}

const PY_BROKEN: &str = "import os\n\n\ndef f(x):\n    return os.path.join(x,\n\n\nKEEP_CONST = 42\nprint(KEEP_CONST)\n\nif __name__ == \"__main__\":\n    f(\"a\")\n";

const PY: &str = r#"from functools import lru_cache

KEEP_CONST = 42


class K:
    @staticmethod
    @lru_cache
    def f(a):
        s = """
    def g(self):
def h():
"""
        return s + a

    @property
    def ok(self):
        return True

    def after(self):
        return 2
"#;

#[test]
fn pyright_symbol_edits_change_only_the_target() {
    let file = "app/hostile.py";
    let Some(env) = open("pyright", "python-basic", file, PY_BROKEN, None) else {
        return;
    };
    let r = replace(
        &env,
        file,
        "f",
        "def f(x):\n    return os.path.join(x, \"b\")\n",
    );
    nothing_after_is_lost("pyright", &r, PY_BROKEN, &env.read(file), "KEEP_CONST = 42");

    std::fs::write(env.dir.path().join(file), PY).unwrap();
    // A string whose lines sit at the method's indentation and at column 0.
    let r = replace(
        &env,
        file,
        "K/f",
        "@staticmethod\n@lru_cache\ndef f(a):\n    return a\n",
    );
    let want = PY.replace(
        "    def f(a):\n        s = \"\"\"\n    def g(self):\ndef h():\n\"\"\"\n        return s + a\n",
        "    def f(a):\n        return a\n",
    );
    applied_as("pyright", &r, &env.read(file), &want);
    // A decorator the body does not bring stays; the body as find_symbol shows it.
    let r = replace(&env, file, "K/ok", "def ok(self):\n        return False");
    let want = want.replace("        return True", "        return False");
    applied_as("pyright", &r, &env.read(file), &want);
    assert!(
        r.llm_content.contains("Kept line 12 above it"),
        "{}",
        r.llm_content
    );
    // One the body brings replaces them all.
    let r = replace(
        &env,
        file,
        "K/f",
        "@staticmethod\ndef f(a):\n    return a + 1",
    );
    let want = want.replace(
        "    @staticmethod\n    @lru_cache\n    def f(a):\n        return a\n",
        "    @staticmethod\n    def f(a):\n        return a + 1\n",
    );
    applied_as("pyright", &r, &env.read(file), &want);
    // pyright's range of a constant is its name: the statement is replaced, not doubled.
    let r = replace(&env, file, "KEEP_CONST", "KEEP_CONST = 43");
    let want = want.replace("KEEP_CONST = 42", "KEEP_CONST = 43");
    applied_as("pyright", &r, &env.read(file), &want);
}

const TS_BROKEN: &str = "export function f(x: number): number {\n  return add(x,\n}\nconsole.log(f(1));\nexport const KEEP = 42;\n";

const TS: &str = "export function g(): string {\n  const s = `\nexport function notMe() {\n  }\n`;\n  return s;\n}\n\nexport class C {\n  /** Doc. */\n  m(): number {\n    return 1;\n  }\n}\n";

#[test]
fn tsc7_symbol_edits_change_only_the_target() {
    let file = "src/hostile.ts";
    let Some(env) = open("tsc7", "ts-basic", file, TS_BROKEN, None) else {
        return;
    };
    let r = replace(
        &env,
        file,
        "f",
        "export function f(x: number): number {\n  return x;\n}",
    );
    nothing_after_is_lost("tsc7", &r, TS_BROKEN, &env.read(file), "console.log");

    std::fs::write(env.dir.path().join(file), TS).unwrap();
    let r = replace(
        &env,
        file,
        "g",
        "export function g(): string {\n  return \"\";\n}\n",
    );
    let want = TS.replace(
        "  const s = `\nexport function notMe() {\n  }\n`;\n  return s;\n",
        "  return \"\";\n",
    );
    applied_as("tsc7", &r, &env.read(file), &want);
    // As find_symbol shows it: the first line bare, the rest at the file's indentation.
    let r = replace(&env, file, "C/m", "m(): number {\n    return 2;\n  }");
    let want = want.replace("    return 1;", "    return 2;");
    applied_as("tsc7", &r, &env.read(file), &want);
}

const RS_BROKEN: &str = "pub fn f(x: i32) -> i32 {\n    crate::add(x,\n}\n\nunsafe fn g() {}\n\nextern \"C\" fn h() {}\n";

const RS: &str = "pub fn t() -> &'static str {\n    let s = r#\"\nfn not_me() {\n    \"#;\n    s\n}\n\n/// Doc.\n#[inline]\npub fn k() -> i32 {\n    1\n}\n";

#[test]
fn rust_analyzer_symbol_edits_change_only_the_target() {
    let file = "src/hostile.rs";
    let register = Some(("src/lib.rs", "\npub mod hostile;\n"));
    let Some(env) = open("rust-analyzer", "rust-basic", file, RS_BROKEN, register) else {
        return;
    };
    let r = replace(
        &env,
        file,
        "f",
        "pub fn f(x: i32) -> i32 {\n    crate::add(x, 1)\n}",
    );
    nothing_after_is_lost(
        "rust-analyzer",
        &r,
        RS_BROKEN,
        &env.read(file),
        "unsafe fn g",
    );

    std::fs::write(env.dir.path().join(file), RS).unwrap();
    let r = replace(&env, file, "t", "pub fn t() -> &'static str {\n    \"\"\n}");
    let want = RS.replace(
        "    let s = r#\"\nfn not_me() {\n    \"#;\n    s\n",
        "    \"\"\n",
    );
    applied_as("rust-analyzer", &r, &env.read(file), &want);
    let r = replace(&env, file, "k", "pub fn k() -> i32 {\n    2\n}");
    let want = want.replace("    1\n}", "    2\n}");
    applied_as("rust-analyzer", &r, &env.read(file), &want);
    assert!(
        r.llm_content.contains("Kept lines 5-6 above it"),
        "{}",
        r.llm_content
    );
}

const C_BROKEN: &str =
    "int f(int x) {\n    return (x + 1;\n\nint g(void) { return 1; }\nint h(void) { return 2; }\n";

#[test]
fn clangd_symbol_edits_change_only_the_target() {
    let file = "hostile.c";
    let Some(env) = open("clangd", "c-basic", file, C_BROKEN, None) else {
        return;
    };
    let r = replace(&env, file, "f", "int f(int x) {\n    return x + 1;\n}");
    nothing_after_is_lost("clangd", &r, C_BROKEN, &env.read(file), "int g(void)");
    std::fs::write(
        env.dir.path().join(file),
        "int f(int x) {\n    const char *s = \"}\";\n    return x;\n}\nint g(void) { return 1; }\n",
    )
    .unwrap();
    let r = replace(&env, file, "f", "int f(int x) {\n    return x;\n}");
    applied_as(
        "clangd",
        &r,
        &env.read(file),
        "int f(int x) {\n    return x;\n}\nint g(void) { return 1; }\n",
    );
}
