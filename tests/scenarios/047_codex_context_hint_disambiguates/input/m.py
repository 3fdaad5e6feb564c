def first():
    return 0

def second():
    return 0
