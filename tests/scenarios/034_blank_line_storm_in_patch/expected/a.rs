fn a() {}

fn b() {
    2
}
