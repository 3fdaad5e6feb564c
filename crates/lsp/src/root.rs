//! Project-root detection: which directory a server is started in for a file.
//!
//! Root = the nearest ancestor of the file holding one of the server's markers, never above
//! the workspace root; no marker means the workspace root. For Cargo the nearest `Cargo.toml`
//! is only the package: the root is the nearest ancestor manifest with a `[workspace]` table
//! (what cargo itself uses), so all members of a workspace share one rust-analyzer. A server
//! declared `single_root` (it serves several projects in one process) always gets the
//! workspace root.

use std::path::{Path, PathBuf};

use crate::ServerConfig;

/// The root directory for `file` under `workspace_root` (both absolute, workspace canonical).
pub fn detect_root(workspace_root: &Path, file: &Path, server: &ServerConfig) -> PathBuf {
    if server.single_root {
        return workspace_root.to_owned();
    }
    let start = file.parent().unwrap_or(workspace_root);
    let ancestors = || {
        start
            .ancestors()
            .take_while(move |d| d.starts_with(workspace_root))
    };
    if server.cargo_workspace {
        let Some(package) = ancestors().find(|d| d.join("Cargo.toml").is_file()) else {
            return workspace_root.to_owned();
        };
        let workspace = package
            .ancestors()
            .take_while(|d| d.starts_with(workspace_root))
            .find(|d| has_workspace_table(&d.join("Cargo.toml")));
        return workspace.unwrap_or(package).to_owned();
    }
    ancestors()
        .find(|d| server.root_markers.iter().any(|m| d.join(m).exists()))
        .unwrap_or(workspace_root)
        .to_owned()
}

fn has_workspace_table(manifest: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(manifest) else {
        return false;
    };
    match text.parse::<toml::Table>() {
        Ok(t) => t.contains_key("workspace"),
        // A manifest we cannot parse: fall back to a textual look.
        Err(_) => text.lines().any(|l| l.trim() == "[workspace]"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(markers: &[&str], cargo: bool) -> ServerConfig {
        let mut s = ServerConfig::from_toml(
            r#"
            id = "t"
            command = "t"
            languages = { rs = "rust" }
            diagnostics = { strategy = "pull" }
            "#,
        )
        .unwrap();
        s.root_markers = markers.iter().map(|m| (*m).to_owned()).collect();
        s.cargo_workspace = cargo;
        s
    }

    #[test]
    fn markers_and_cargo_workspaces() {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().canonicalize().unwrap();
        let w = |p: &str, t: &str| {
            let p = ws.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, t).unwrap();
        };
        w("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n");
        w("crates/a/Cargo.toml", "[package]\nname = \"a\"\n");
        w("crates/a/src/lib.rs", "");
        w("lone/Cargo.toml", "[package]\nname = \"lone\"\n");
        w("web/app/tsconfig.json", "{}");
        w("web/app/src/x.ts", "");
        w("plain/y.ts", "");

        let cargo = server(&["Cargo.toml"], true);
        assert_eq!(
            detect_root(&ws, &ws.join("crates/a/src/lib.rs"), &cargo),
            ws
        );
        // A package with no workspace above it inside the root (the root's [workspace] is
        // above it, so this one joins it: cargo would complain, we still pick the workspace).
        assert_eq!(detect_root(&ws, &ws.join("lone/src/main.rs"), &cargo), ws);

        let ts = server(&["tsconfig.json", "package.json"], false);
        assert_eq!(
            detect_root(&ws, &ws.join("web/app/src/x.ts"), &ts),
            ws.join("web/app")
        );
        assert_eq!(detect_root(&ws, &ws.join("plain/y.ts"), &ts), ws);

        let mut one = ts.clone();
        one.single_root = true;
        assert_eq!(detect_root(&ws, &ws.join("web/app/src/x.ts"), &one), ws);
    }

    #[test]
    fn never_climbs_above_the_workspace() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().canonicalize().unwrap();
        std::fs::write(outer.join("tsconfig.json"), "{}").unwrap();
        let ws = outer.join("inner");
        std::fs::create_dir_all(&ws).unwrap();
        let ts = server(&["tsconfig.json"], false);
        assert_eq!(detect_root(&ws, &ws.join("a.ts"), &ts), ws);
        let cargo = server(&["Cargo.toml"], true);
        assert_eq!(detect_root(&ws, &ws.join("a.rs"), &cargo), ws);
    }
}
