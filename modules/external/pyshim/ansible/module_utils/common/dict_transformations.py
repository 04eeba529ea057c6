"""Conversions between camelCase and snake_case dict keys, and dict merging
and diffing, with the behaviour of ansible-core's helpers of these names."""

import copy
import re

_ACRONYM_PLURAL = re.compile(r'[A-Z]{3,}s$')
_ANY_UPPER = re.compile(r'[A-Z]')
_WORD_START = re.compile(r'(.)([A-Z][a-z]+)')
_UPPER_RUN = re.compile(r'([a-z0-9])([A-Z]+)')


def _underscore_lower(match):
    return '_' + match.group(0).lower()


def _camel_to_snake(name, reversible=False):
    pattern = _ANY_UPPER if reversible else _ACRONYM_PLURAL
    out = pattern.sub(_underscore_lower, name)
    if out.startswith('_') and not name.startswith('_'):
        out = out[1:]
    if reversible:
        return out
    out = _WORD_START.sub(r'\1_\2', out)
    return _UPPER_RUN.sub(r'\1_\2', out).lower()


def _snake_to_camel(snake, capitalize_first=False):
    words = snake.split('_')
    rest = ''.join(w.capitalize() or '_' for w in words[1:])
    first = (words[0].capitalize() or '_') if capitalize_first else words[0]
    return first + rest


def camel_dict_to_snake_dict(camel_dict, reversible=False, ignore_list=()):
    """Returns camel_dict with its keys (recursively) in snake_case; the
    values of keys in ignore_list are kept as they are."""
    def convert_list(items):
        out = []
        for item in items:
            if isinstance(item, dict):
                out.append(camel_dict_to_snake_dict(item, reversible))
            elif isinstance(item, list):
                out.append(convert_list(item))
            else:
                out.append(item)
        return out

    result = {}
    for key, val in camel_dict.items():
        new_key = _camel_to_snake(key, reversible=reversible)
        if key in ignore_list:
            result[new_key] = val
        elif isinstance(val, dict):
            result[new_key] = camel_dict_to_snake_dict(val, reversible)
        elif isinstance(val, list):
            result[new_key] = convert_list(val)
        else:
            result[new_key] = val
    return result


def snake_dict_to_camel_dict(snake_dict, capitalize_first=False):
    """Returns snake_dict with its keys (recursively) in dromedaryCase, or
    CamelCase with capitalize_first."""
    def convert(obj):
        if obj is None:
            return None
        if isinstance(obj, dict):
            out = type(obj)()
            for key in obj:
                out[_snake_to_camel(key, capitalize_first)] = convert(obj[key])
            return out
        if isinstance(obj, list):
            out = type(obj)()
            for item in obj:
                out.append(convert(item))
            return out
        return obj
    return convert(snake_dict)


def dict_merge(a, b):
    """Returns a copy of a with b merged into it, dicts recursively."""
    if not isinstance(b, dict):
        return b
    merged = copy.deepcopy(a)
    for key, val in b.items():
        if key in merged and isinstance(merged[key], dict):
            merged[key] = dict_merge(merged[key], val)
        else:
            merged[key] = copy.deepcopy(val)
    return merged


def recursive_diff(dict1, dict2):
    """Returns (only in or different in dict1, only in or different in
    dict2), recursively, or None when they are equal."""
    if not isinstance(dict1, dict) or not isinstance(dict2, dict):
        raise TypeError("Unable to diff 'dict1' %s and 'dict2' %s. "
                        "Both must be a dictionary." % (type(dict1), type(dict2)))
    left = {k: v for k, v in dict1.items() if k not in dict2}
    right = {k: v for k, v in dict2.items() if k not in dict1}
    for key in set(dict1) & set(dict2):
        a, b = dict1[key], dict2[key]
        if isinstance(a, dict) and isinstance(b, dict):
            sub = recursive_diff(a, b)
            if sub:
                left[key], right[key] = sub
        elif a != b:
            left[key], right[key] = a, b
    if left or right:
        return left, right
    return None
