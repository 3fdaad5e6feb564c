//! Integration tests of the write core: the report of apply_patch, and foreign writers racing a switch.

// Test code: a failed unwrap is a failed test, and skipped real-server tests say why on stderr.
#![allow(clippy::unwrap_used, clippy::print_stderr, clippy::type_complexity)]

mod failure_rule;
mod foreign_writers;
mod patch_report;
