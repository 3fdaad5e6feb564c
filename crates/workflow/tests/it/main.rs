//! Integration tests of the workflow: propose, approve, apply, undo; the scan; validation; tampered state.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod library_defaults;
mod state_tamper;
// The diagnostics provider the tools tests script, shared rather than copied.
#[path = "../../../tools/tests/it/support.rs"]
#[allow(dead_code)]
mod support;
mod tools_seam;
mod workflow;
mod workflow_change;
mod workflow_scan;
mod workflow_validation;
mod writer_gate;
