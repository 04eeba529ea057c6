"""Backwards-compatible home of to_text, to_bytes and to_native."""

from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text  # noqa: F401
