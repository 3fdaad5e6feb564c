//! Tiny crate for lspedit's language-server tests.

pub fn add(a: i32, b: i32) -> i32 {
    a + b
}

pub fn answer() -> i32 {
    let value: i32 = add(40, 2);
    value
}

pub mod twice;
