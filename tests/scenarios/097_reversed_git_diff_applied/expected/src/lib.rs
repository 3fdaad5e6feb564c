fn a() {}
fn c() {}
