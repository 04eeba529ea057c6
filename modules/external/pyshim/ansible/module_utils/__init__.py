"""cfzt-runner's compatibility package for ansible.module_utils.

Only the API small modules use is provided; anything else fails with an
ImportError or AttributeError naming this package.
"""

SHIM_NAME = "cfzt-runner's ansible.module_utils compatibility package"


def __getattr__(name):
    raise AttributeError("%s has no attribute %r" % (SHIM_NAME, name))
