pub struct Runner;

fn helper() {
    let total = compute(1);
    check(total);
    report(total);
}

impl Runner {
    pub fn new() -> Self {
        Runner
    }

    fn run(&self) {
        let total = compute(1);
        check_all(total);
        report(total);
    }
}
