package main

// pasted from the old handler, not yet run through gofmt
func legacy() {
    total := compute(1)
    check(total)
    report(total)
}

func main() {
	if ready() {
		start()
	}
	total := compute(1)
	checkAll(total)
	report(total)
}
