// Package broken holds a planted error: an int assigned to a string.
package broken

func Add(a int, b int) int {
	return a + b
}

func Label() string {
	var s string = Add(1, 2)
	return s
}
