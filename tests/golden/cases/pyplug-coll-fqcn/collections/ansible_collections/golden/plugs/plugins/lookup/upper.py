# A collection's lookup, for cfzt-runner's golden corpus.
from ansible.plugins.lookup import LookupBase


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        return [t.upper() for t in terms]
