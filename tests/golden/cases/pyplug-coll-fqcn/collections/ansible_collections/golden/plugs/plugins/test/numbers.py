# A collection's tests, for cfzt-runner's golden corpus.
class TestModule(object):
    def tests(self):
        return {'even': lambda n: n % 2 == 0}
