//! Integration tests of lspedit-tools: one binary, modules per feature.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod async_embed;
mod bounds;
mod concurrency;
mod confinement;
mod events_schema;
mod foreign_writers;
mod lsp_edits_fake;
mod lsp_edits_real;
mod patch_report;
mod pool_fake;
mod pool_real;
mod session;
mod state_tamper;
mod support;
mod tools_mock;
mod truncation;
mod truncation_ledger;
mod workflow;
mod workflow_scan;
mod workflow_validation;
mod workspace_api;
