"""cfzt-runner's compatibility package: a small stand-in for the parts of
ansible-core's module API that small custom modules use. cfzt-runner puts
it on a module's import path only when the interpreter cannot import
ansible-core's own ansible.module_utils.basic."""

import importlib.abc
import sys

SHIM_NAME = "cfzt-runner's ansible.module_utils compatibility package"


class _Unavailable(importlib.abc.MetaPathFinder):
    """Makes an import of a part of ansible this package lacks fail with
    an ImportError that names the package."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == 'ansible' or fullname.startswith('ansible.'):
            raise ImportError('%s is not provided by %s (ansible-core is not installed for %s)'
                              % (fullname, SHIM_NAME, sys.executable), name=fullname)
        return None


sys.meta_path.append(_Unavailable())
