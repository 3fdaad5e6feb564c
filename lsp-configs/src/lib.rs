//! lspedit-lsp-configs: the bundled server declarations (`lsp-configs/*.toml` of the
//! repository, the one copy) and the npm manifest and lockfile `lspedit servers install` pins
//! the npm servers with, embedded so nothing is read from disk at run time.
//!
//! Data only: what the declarations mean is `lspedit-servers`' business.

/// The bundled server declarations, as (name for messages, TOML text). Order does not matter;
/// a declaration's `priority` decides between servers for the same extension.
pub const BUNDLED: &[(&str, &str)] = &[
    ("lsp-configs/tsc7.toml", include_str!("../tsc7.toml")),
    (
        "lsp-configs/typescript-language-server.toml",
        include_str!("../typescript-language-server.toml"),
    ),
    (
        "lsp-configs/rust-analyzer.toml",
        include_str!("../rust-analyzer.toml"),
    ),
    ("lsp-configs/pyright.toml", include_str!("../pyright.toml")),
    ("lsp-configs/clangd.toml", include_str!("../clangd.toml")),
    (
        "lsp-configs/bash-language-server.toml",
        include_str!("../bash-language-server.toml"),
    ),
    (
        "lsp-configs/yaml-language-server.toml",
        include_str!("../yaml-language-server.toml"),
    ),
    (
        "lsp-configs/vscode-json-language-server.toml",
        include_str!("../vscode-json-language-server.toml"),
    ),
    (
        "lsp-configs/vscode-css-language-server.toml",
        include_str!("../vscode-css-language-server.toml"),
    ),
    (
        "lsp-configs/vscode-html-language-server.toml",
        include_str!("../vscode-html-language-server.toml"),
    ),
    (
        "lsp-configs/dockerfile-language-server.toml",
        include_str!("../dockerfile-language-server.toml"),
    ),
    (
        "lsp-configs/intelephense.toml",
        include_str!("../intelephense.toml"),
    ),
    (
        "lsp-configs/svelte-language-server.toml",
        include_str!("../svelte-language-server.toml"),
    ),
    ("lsp-configs/taplo.toml", include_str!("../taplo.toml")),
    ("lsp-configs/gopls.toml", include_str!("../gopls.toml")),
    (
        "lsp-configs/vue-typescript.toml",
        include_str!("../vue-typescript.toml"),
    ),
];

/// The npm manifest of the pinned servers (`package.json`).
pub const NPM_MANIFEST: &str = include_str!("../package.json");

/// Its lockfile (`package-lock.json`): every transitive version is pinned.
pub const NPM_LOCKFILE: &str = include_str!("../package-lock.json");
