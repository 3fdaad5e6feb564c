def add(a: int, b: int) -> int:
    return a + b


def answer() -> int:
    value: int = add(40, 2)
    return value
