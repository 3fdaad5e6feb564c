pub fn f() -> u8 {
    1
}
