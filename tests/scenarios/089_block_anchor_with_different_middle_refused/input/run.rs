fn run() {
    start();
    step_one();
    step_two();
    finish();
}
