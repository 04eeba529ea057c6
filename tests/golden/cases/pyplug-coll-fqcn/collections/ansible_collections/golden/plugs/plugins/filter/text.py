# A collection's filters, for cfzt-runner's golden corpus.
def reverse_text(value):
    return value[::-1]


class FilterModule(object):
    def filters(self):
        return {'reverse_text': reverse_text}
