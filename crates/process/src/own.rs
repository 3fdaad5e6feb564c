//! What lspedit's own long-lived processes (`lspedit mcp`, the server host) do to themselves at
//! start, so that nothing a language server runs can read a secret out of them
//! (`docs/sandbox.md`, "lspedit's own processes").
//!
//! - [`keep_needed_environment`]: the process re-executes itself with only the environment
//!   lspedit uses. `unsetenv` would not do: `/proc/<pid>/environ` shows the block the process
//!   was started with, whatever it changes later, so an API key an agent's host passed down
//!   would stay readable there by every process of the same user. After the re-exec the block
//!   holds only what [`needed`] keeps.
//! - [`make_undumpable`]: `/proc/<pid>/environ`, `maps`, `auxv`, `mem` and ptrace of the process
//!   then need `CAP_SYS_PTRACE`, which a sandboxed server never has (the sandbox drops every
//!   capability, root's too). `cmdline` stays world-readable (the kernel's rule): it holds only
//!   the arguments.

use std::ffi::{OsStr, OsString};

/// The environment variable that names further variables to keep, comma-separated (an
/// operator's validation command that needs `DATABASE_URL`, say).
pub const KEEP_ENV: &str = "LSPEDIT_KEEP_ENV";

/// Variables kept by name: where things are (`PATH`, `HOME`, the toolchain homes), the
/// terminal and locale, Rust's own diagnostics switches, and the CA bundle.
const KEPT: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLUMNS",
    "TZ",
    "LANG",
    "LANGUAGE",
    "TMPDIR",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "PYENV_ROOT",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
];

/// Variables kept by prefix: locale categories, the XDG directories (the runtime directory is
/// where the host's socket lives), and lspedit's own settings.
const KEPT_PREFIXES: &[&str] = &["LC_", "XDG_", "LSPEDIT_"];

/// Whether the variable `name` is one lspedit uses, or one the operator named in `extra`.
pub fn needed(name: &OsStr, extra: &[String]) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    KEPT.contains(&name)
        || KEPT_PREFIXES.iter().any(|p| name.starts_with(p))
        || extra.iter().any(|e| e == name)
}

/// The names [`KEEP_ENV`] lists in `value`.
fn extra(value: Option<&OsStr>) -> Vec<String> {
    value
        .and_then(OsStr::to_str)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// `vars` without what lspedit does not need; `None` when nothing would be dropped.
pub fn without_unneeded(vars: &[(OsString, OsString)]) -> Option<Vec<(OsString, OsString)>> {
    let keep = extra(
        vars.iter()
            .find(|(k, _)| k == KEEP_ENV)
            .map(|(_, v)| v.as_os_str()),
    );
    let kept: Vec<(OsString, OsString)> = vars
        .iter()
        .filter(|(k, _)| needed(k, &keep))
        .cloned()
        .collect();
    (kept.len() != vars.len()).then_some(kept)
}

/// Re-executes the current program with the same arguments and only the variables
/// [`without_unneeded`] keeps; returns at once when there is nothing to drop (so the re-executed
/// process goes on from here). Must run before the process starts any thread. Returns the
/// error only when the re-exec failed, and the process then goes on with its environment as
/// it was (the caller says so).
#[cfg(target_os = "linux")]
pub fn keep_needed_environment() -> std::io::Result<()> {
    use std::os::unix::process::CommandExt;
    let vars: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    let Some(kept) = without_unneeded(&vars) else {
        return Ok(());
    };
    let mut args = std::env::args_os();
    let arg0 = args.next().unwrap_or_default();
    let err = std::process::Command::new("/proc/self/exe")
        .arg0(arg0)
        .args(args)
        .env_clear()
        .envs(kept)
        .exec();
    Err(err)
}

/// Only Linux shows another process's start-up environment in `/proc`: nothing to do
/// elsewhere.
#[cfg(not(target_os = "linux"))]
pub fn keep_needed_environment() -> std::io::Result<()> {
    Ok(())
}

/// Makes the calling process non-dumpable (see the module docs).
#[cfg(target_os = "linux")]
pub fn make_undumpable() -> std::io::Result<()> {
    // SAFETY: prctl with integer arguments only.
    #[allow(unsafe_code)]
    let r = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
pub fn make_undumpable() -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| (OsString::from(k), OsString::from(v)))
            .collect()
    }

    /// Keys and tokens go; what lspedit uses stays; the operator can keep more by name; an
    /// environment with nothing to drop is not re-executed (no loop).
    #[test]
    fn only_what_lspedit_uses_is_kept() {
        let given = vars(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/home/me"),
            ("ANTHROPIC_API_KEY", "sk-ant-secret"),
            ("OPENAI_API_KEY", "sk-secret"),
            ("GITHUB_TOKEN", "ghp_secret"),
            ("AWS_SECRET_ACCESS_KEY", "x"),
            ("SSH_AUTH_SOCK", "/tmp/agent"),
            ("XDG_RUNTIME_DIR", "/run/user/1000"),
            ("LC_ALL", "C.UTF-8"),
            ("LSPEDIT_LOG", "debug"),
            ("DATABASE_URL", "postgres://"),
            ("CARGO_HOME", "/home/me/.cargo"),
        ]);
        let kept = without_unneeded(&given).expect("something to drop");
        let names: Vec<&str> = kept.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(
            names,
            [
                "PATH",
                "HOME",
                "XDG_RUNTIME_DIR",
                "LC_ALL",
                "LSPEDIT_LOG",
                "CARGO_HOME"
            ]
        );
        let mut with_extra = given.clone();
        with_extra.push(("LSPEDIT_KEEP_ENV".into(), " DATABASE_URL ,".into()));
        let kept = without_unneeded(&with_extra).unwrap();
        assert!(kept.iter().any(|(k, _)| k == "DATABASE_URL"));
        assert!(!kept.iter().any(|(k, _)| k == "ANTHROPIC_API_KEY"));
        assert_eq!(without_unneeded(&kept), None, "kept is a fixed point");
    }
}
