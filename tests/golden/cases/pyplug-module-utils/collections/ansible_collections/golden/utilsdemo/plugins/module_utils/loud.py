# module_utils of a collection, for cfzt-runner's golden corpus.
def loud(text):
    return text.upper() + '!'
