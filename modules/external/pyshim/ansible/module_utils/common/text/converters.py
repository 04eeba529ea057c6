"""Text and bytes conversions (to_text, to_bytes, to_native)."""

import json

_STRATEGIES = ('simplerepr', 'empty', 'passthru', 'strict')


def _nonstring(obj, nonstring, convert):
    if nonstring == 'simplerepr':
        try:
            return convert(str(obj))
        except UnicodeError:
            return convert(repr(obj))
    if nonstring == 'passthru':
        return obj
    if nonstring == 'empty':
        return convert('')
    if nonstring == 'strict':
        raise TypeError('obj must be a string type')
    raise TypeError("Invalid value %s for to_text's nonstring parameter" % nonstring)


def _errors(errors):
    if errors in (None, 'surrogate_or_strict', 'surrogate_or_replace', 'surrogate_then_replace'):
        return 'surrogateescape'
    return errors


def to_bytes(obj, encoding='utf-8', errors=None, nonstring='simplerepr'):
    """Returns obj as bytes, encoding text with encoding."""
    if isinstance(obj, bytes):
        return obj
    if isinstance(obj, str):
        try:
            return obj.encode(encoding, _errors(errors))
        except UnicodeEncodeError:
            return obj.encode('utf-8', 'replace')
    return _nonstring(obj, nonstring, lambda s: to_bytes(s, encoding, errors))


def to_text(obj, encoding='utf-8', errors=None, nonstring='simplerepr'):
    """Returns obj as text, decoding bytes with encoding."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, bytes):
        return obj.decode(encoding, _errors(errors))
    return _nonstring(obj, nonstring, lambda s: s)


to_native = to_text


def jsonify(data, **kwargs):
    """Returns data as JSON text."""
    return json.dumps(data, **kwargs)


def container_to_text(d, encoding='utf-8', errors='surrogate_or_strict'):
    """Returns a container with its bytes decoded to text."""
    if isinstance(d, bytes):
        return to_text(d, encoding=encoding, errors=errors)
    if isinstance(d, dict):
        return dict((container_to_text(k), container_to_text(v)) for k, v in d.items())
    if isinstance(d, (list, tuple)):
        return type(d)(container_to_text(o) for o in d)
    return d
