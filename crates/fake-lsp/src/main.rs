//! `lspedit-fake-lsp`: the scripted language server binary. See the library docs for the script.

use std::io::Write;

use lspedit_fake_lsp::{Script, Server};

fn main() {
    let script = match Script::from_env() {
        Ok(script) => script,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "lspedit-fake-lsp: {err}");
            std::process::exit(2);
        }
    };
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    let code = match Server::new(script, stdin, stdout).run() {
        Ok(code) => code,
        Err(err) => {
            let _ = writeln!(std::io::stderr(), "lspedit-fake-lsp: {err}");
            1
        }
    };
    std::process::exit(code);
}
