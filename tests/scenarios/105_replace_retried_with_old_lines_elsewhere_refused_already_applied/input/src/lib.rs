fn setup() {
    let cfg = load();
    begin(cfg);
}

// note 0
// note 1
// note 2
// note 3
// note 4
// note 5
// note 6
// note 7
// note 8
// note 9
// note 10
// note 11

// The previous version, kept for reference:
#[cfg(any())]
fn setup() {
    let cfg = load();
    start(cfg);
}
