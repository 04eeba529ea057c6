"""Booleans as Ansible reads them ('yes', 'on', 1...)."""

from ansible.module_utils.common.text.converters import to_text

BOOLEANS_TRUE = frozenset(('y', 'yes', 'on', '1', 'true', 't', 1, 1.0, True))
BOOLEANS_FALSE = frozenset(('n', 'no', 'off', '0', 'false', 'f', 0, 0.0, False))
BOOLEANS = BOOLEANS_TRUE.union(BOOLEANS_FALSE)


def boolean(value, strict=True):
    """Returns value as a bool, as ansible-core's convert_bool does."""
    if isinstance(value, bool):
        return value
    normalized = value
    if isinstance(value, (str, bytes)):
        normalized = to_text(value, errors='surrogate_or_strict').lower().strip()
    if normalized in BOOLEANS_TRUE:
        return True
    if normalized in BOOLEANS_FALSE or not strict:
        return False
    raise TypeError("The value '%s' is not a valid boolean. Valid booleans include: %s"
                    % (to_text(value), ', '.join(repr(i) for i in BOOLEANS)))
