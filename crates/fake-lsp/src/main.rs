//! `lspedit-fake-lsp`: the scripted language server binary. See the library docs for the script.

use std::io::Write;

use lspedit_fake_lsp::{Script, serve};

fn main() {
    let script = match Script::from_env() {
        Ok(script) => script,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "lspedit-fake-lsp: {err}");
            std::process::exit(2);
        }
    };
    let code = match serve(script) {
        Ok(code) => code,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "lspedit-fake-lsp: {err}");
            1
        }
    };
    std::process::exit(code);
}
