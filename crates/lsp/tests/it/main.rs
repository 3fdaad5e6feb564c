//! Integration tests of the language-server pool: fault injection with the scripted fake
//! server, concurrency, and real servers against `test-projects/`.
//!
//! Run the real-server part after `scripts/install-servers`; set `LSPEDIT_REQUIRE_SERVERS=1` to
//! fail instead of skip when one is missing, and `LSPEDIT_TEST_LOG=lspedit_lsp=debug` to log.

#![allow(
    clippy::unwrap_used,
    clippy::print_stderr,
    reason = "test helpers: a failed unwrap is a failed test, eprintln reports skips and timings"
)]

mod concurrency;
mod cross_file;
mod fake;
mod harness;
mod host;
mod others;
mod real;
mod sandbox;
mod symbols;
mod verdict;
mod watch;
