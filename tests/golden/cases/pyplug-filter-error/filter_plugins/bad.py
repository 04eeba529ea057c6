# Filters that fail, for cfzt-runner's golden corpus.
from ansible.errors import AnsibleFilterError


def strict_int(value):
    try:
        return int(value)
    except ValueError:
        raise AnsibleFilterError('strict_int: %r is not an integer' % value)


def first_key(value):
    return list(value.keys())[0]


class FilterModule:
    def filters(self):
        return {'strict_int': strict_int, 'first_key': first_key}
