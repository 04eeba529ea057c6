# A lookup beside the playbook, for cfzt-runner's golden corpus.
from __future__ import annotations

from ansible.errors import AnsibleError
from ansible.plugins.lookup import LookupBase


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        out = []
        for term in terms:
            if term == 'boom':
                raise AnsibleError('echo cannot echo %s' % term)
            if kwargs.get('from_vars'):
                term = variables[term]
            out.append(term + kwargs.get('suffix', ''))
        return out
