//! The `lspedit` command-line interface.
fn main() {}
