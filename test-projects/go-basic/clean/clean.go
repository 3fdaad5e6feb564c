// Package clean type-checks.
package clean

func Add(a int, b int) int {
	return a + b
}

func Total() int {
	var n int = Add(1, 2)
	return n
}
