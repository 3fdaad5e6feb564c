pub fn f() -> u8 {
    2
}
