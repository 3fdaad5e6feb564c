def main():
    load()
    run()
    report()


def load():
    pass
