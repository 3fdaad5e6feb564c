//! Integration tests of lspedit-tools: one binary, modules per feature.

mod support;
mod tools_mock;
mod pool_fake;
mod pool_real;
