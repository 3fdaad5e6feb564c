from app.main import add


def total() -> int:
    return add(1, 2)
