def f():
    return 1

def g():
    return 1
