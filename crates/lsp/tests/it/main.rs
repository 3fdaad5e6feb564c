//! Integration tests of the language-server pool: fault injection with the scripted fake
//! server, concurrency, and real servers against `test-projects/`.

mod concurrency;
mod fake;
mod harness;
mod real;
