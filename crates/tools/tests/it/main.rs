//! Integration tests of lspedit-tools: one binary, modules per feature.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod async_embed;
mod bounds;
mod concurrency;
mod confinement;
mod pool_fake;
mod pool_real;
mod results;
mod support;
mod tools_mock;
mod workspace_api;
