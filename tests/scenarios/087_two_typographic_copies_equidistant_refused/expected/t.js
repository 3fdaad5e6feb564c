say(“hi”);
done();
// target
// next
say(„hi”);
done();
