"""Finding executables, as ansible-core's common.process does."""

import os


def get_bin_path(arg, opt_dirs=None, required=None):
    """Returns the path of executable arg on PATH (after opt_dirs, before
    the sbin directories); raises ValueError when it is not found."""
    dirs = [d for d in (opt_dirs or []) if d]
    dirs += [d for d in os.environ.get('PATH', '').split(os.pathsep) if d]
    for sbin in ('/sbin', '/usr/sbin', '/usr/local/sbin'):
        if sbin not in dirs and os.path.exists(sbin):
            dirs.append(sbin)
    for d in dirs:
        path = os.path.join(d, arg)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise ValueError('Failed to find required executable "%s" in paths: %s' % (arg, os.pathsep.join(dirs)))
