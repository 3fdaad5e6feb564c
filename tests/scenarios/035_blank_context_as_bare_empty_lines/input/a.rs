fn a() {}


fn b() {
    1
}
