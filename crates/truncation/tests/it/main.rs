//! Integration tests of the truncation-safe executor, its ledger, and the event schema of the executor and the workflow.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod events_schema;
mod truncation;
mod truncation_ledger;
