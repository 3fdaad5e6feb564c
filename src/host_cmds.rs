//! The server host from the command line: whether commands use it, `servers stop`, the hidden
//! `servers host` it runs as, and its part of `servers status`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use lspedit::lsp::host::daemon::HostOptions;
use lspedit::lsp::host::{self, HostError, HostStatus};
use lspedit::lsp::{HostConfig, PoolConfig};

use crate::{Failure, json, open_workspace, out, out_raw, print_json};

static ENABLED: AtomicBool = AtomicBool::new(true);

/// `--no-host` / `LSPEDIT_NO_HOST` turn the host off for this process.
pub(crate) fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::SeqCst);
}

/// `config` with its servers in the workspace's host (this binary serves it), unless the host
/// is turned off or this binary's path is unknown.
pub(crate) fn with_host(mut config: PoolConfig) -> PoolConfig {
    if ENABLED.load(Ordering::SeqCst)
        && let Ok(program) = std::env::current_exe()
    {
        config.host = Some(HostConfig::lspedit(program));
    }
    config
}

/// `lspedit servers host --root DIR`: serves until stopped or idle. Its first stdout line says
/// it listens (its starter waits for it); nothing else goes to stdout.
pub(crate) fn cmd_host(
    root: Option<std::path::PathBuf>,
    idle_secs: u64,
    runtime_dir: Option<std::path::PathBuf>,
) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let options = HostOptions {
        root: ws.root().to_path_buf(),
        idle: Duration::from_secs(idle_secs.max(1)),
        runtime_dir,
        config: None,
    };
    let mut listening = false;
    let served = host::daemon::serve(&options, |socket| {
        out_raw(&format!("ready {}\n", socket.display()));
        listening = true;
    });
    match served {
        Ok(()) => Ok(0),
        Err(e) => {
            // Before it listens its starter reads this line; after, nobody reads stdout.
            if !listening {
                out_raw(&format!("error {e}\n"));
            }
            Err(Failure::Failed(e.to_string()))
        }
    }
}

/// `lspedit servers stop`.
pub(crate) fn cmd_stop(root: Option<std::path::PathBuf>, as_json: bool) -> Result<u8, Failure> {
    let ws = open_workspace(root)?;
    let (text, stopped) = match host::stop(ws.root(), None) {
        Ok(status) => (stopped_text(&status), Some(status)),
        Err(HostError::NotRunning(root)) => (
            format!("No server host runs for {}.\n", root.display()),
            None,
        ),
        Err(e) => return Err(Failure::Failed(format!("servers stop: {e}"))),
    };
    if as_json {
        print_json(&json::Doc::ok(
            text,
            Vec::new(),
            json::HostStopJson { stopped },
        ))?;
    } else {
        out(&text);
    }
    Ok(0)
}

fn stopped_text(status: &HostStatus) -> String {
    let mut s = format!(
        "Stopped the server host of {} (pid {})",
        status.root.display(),
        status.pid
    );
    match status.servers.len() {
        0 => s.push_str("; it ran no server.\n"),
        n => {
            let names: Vec<String> = status
                .servers
                .iter()
                .map(|h| format!("{} ({})", h.server, h.root.display()))
                .collect();
            s.push_str(&format!(
                " and its {} {}: {}.\n",
                n,
                if n == 1 { "server" } else { "servers" },
                names.join(", ")
            ));
        }
    }
    s
}

/// The host's part of `servers status`: its text and, for `--json`, its status.
pub(crate) struct StatusSection {
    pub(crate) text: String,
    pub(crate) status: Option<HostStatus>,
}

pub(crate) fn status_section(workspace: &Path) -> StatusSection {
    match host::status(workspace, None) {
        Ok(status) => {
            let mut text = format!(
                "\nServer host: pid {}, up {} s, stops servers idle for {} s ({} to stop it).\n",
                status.pid,
                status.uptime_ms / 1000,
                status.idle_secs,
                "`lspedit servers stop`"
            );
            if status.servers.is_empty() {
                text.push_str("  no server running\n");
            }
            for h in &status.servers {
                text.push_str(&format!(
                    "  {} pgid {}: {} {} attached, {} served, up {} s{}, root {}\n",
                    h.server,
                    h.pgid,
                    h.clients,
                    if h.clients == 1 { "client" } else { "clients" },
                    h.served,
                    h.uptime_ms / 1000,
                    h.rss_kib
                        .map_or_else(String::new, |k| format!(", {} MiB", k / 1024)),
                    h.root.display()
                ));
            }
            StatusSection {
                text,
                status: Some(status),
            }
        }
        Err(HostError::NotRunning(_)) => StatusSection {
            text: "\nServer host: none running for this workspace; the next command that needs a server starts it (`--no-host` runs servers in the command's own process).\n".to_owned(),
            status: None,
        },
        Err(e) => StatusSection {
            text: format!("\nServer host: not reachable ({e}); commands run their servers themselves.\n"),
            status: None,
        },
    }
}
