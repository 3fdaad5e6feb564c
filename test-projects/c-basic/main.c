#include <stdio.h>

static int add(int a, int b) { return a + b; }

int main(void) {
    int value = add(40, 2);
    printf("%d\n", value);
    return 0;
}
