// header
const msg = “hello”;
log(msg);
// filler 0
// filler 1
// filler 2
// filler 3
// filler 4
// filler 5
const msg = "hello";
console.log(msg);
// end
