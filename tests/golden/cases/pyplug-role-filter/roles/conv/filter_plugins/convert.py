# Filters of the conv role, written for cfzt-runner's golden corpus.
from __future__ import annotations


def cpu_string_to_decimal(cpu):
    cpu = str(cpu)
    if cpu.endswith('m'):
        return round(float(cpu[:-1]) / 1000, 3)
    return float(cpu)


def describe_types(value):
    out = {}
    for key in sorted(value):
        item = value[key]
        kind = next(t.__name__ for t in (bool, int, float, str, list, dict, tuple, type(None)) if isinstance(item, t))
        out[key] = '%s:%s' % (kind, item)
    return out


def parse_selectors(text):
    pairs = tuple(part.split('=', 1) for part in text.split(','))
    return {'pairs': pairs, 'first': pairs[0][0]}


def shout(text):
    return text.upper() + '!'


def stripnone(value, keep=None):
    keep = keep or []
    return dict((k, v) for k, v in value.items() if v is not None or k in keep)


def to_ints(values):
    return [int(v) for v in values]


class FilterModule(object):
    def filters(self):
        return {
            'cpu_string_to_decimal': cpu_string_to_decimal,
            'describe_types': describe_types,
            'parse_selectors': parse_selectors,
            'upper': shout,
            'stripnone': stripnone,
            'to_ints': to_ints,
        }
