"""cfzt-runner's AnsibleModule: the module API small custom modules use.

Arguments are validated by the cfzt-runner binary (its internal
__validate-args command, the same validator its built-in modules use), so
defaults, conversions, aliases and error messages are ansible-core's.
"""

import atexit
import grp
import json
import os
import platform
import pwd
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time

from ansible.module_utils.common.text.converters import jsonify as _jsonify
from ansible.module_utils.common.text.converters import to_bytes, to_native, to_text  # noqa: F401
from ansible.module_utils.common.process import get_bin_path as _get_bin_path
from ansible.module_utils.parsing.convert_bool import BOOLEANS, BOOLEANS_FALSE, BOOLEANS_TRUE, boolean  # noqa: F401
from ansible.module_utils.six import PY3, binary_type, iteritems, string_types, text_type  # noqa: F401

SHIM_NAME = "cfzt-runner's ansible.module_utils compatibility package"
VALIDATOR_ENV = 'CFZT_RUNNER_VALIDATOR'
NO_LOG_MASK = 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'

# The internal arguments ansible-core passes to every module, with the
# attribute AnsibleModule keeps each in and its default.
PASS_VARS = {
    'check_mode': ('check_mode', False),
    'debug': ('_debug', False),
    'diff': ('_diff', False),
    'keep_remote_files': ('_keep_remote_files', False),
    'ignore_unknown_opts': ('_ignore_unknown_opts', False),
    'module_name': ('_name', None),
    'no_log': ('no_log', False),
    'remote_tmp': ('_remote_tmp', None),
    'target_log_info': ('_target_log_info', None),
    'selinux_special_fs': ('_selinux_special_fs', ['fuse', 'nfs', 'vboxsf', 'ramfs', '9p', 'vfat']),
    'shell_executable': ('_shell', '/bin/sh'),
    'socket': ('_socket_path', None),
    'syslog_facility': ('_syslog_facility', 'LOG_USER'),
    'tmpdir': ('_tmpdir', None),
    'tracebacks_for': ('_tracebacks_for', []),
    'verbosity': ('_verbosity', 0),
    'version': ('ansible_version', '0.0'),
}
PASS_BOOLS = ('check_mode', 'debug', 'diff', 'keep_remote_files', 'ignore_unknown_opts', 'no_log')

_ANSIBLE_ARGS = None
_warnings = []
_deprecations = []


class AnsibleFallbackNotFound(Exception):
    """Raised by a fallback that finds no value."""


def env_fallback(*args, **kwargs):
    """Returns the first of the environment variables args that is set."""
    for arg in args:
        if arg in os.environ:
            return os.environ[arg]
    raise AnsibleFallbackNotFound


FILE_COMMON_ARGUMENTS = dict(
    mode=dict(type='raw'),
    owner=dict(type='str'),
    group=dict(type='str'),
    seuser=dict(type='str'),
    serole=dict(type='str'),
    selevel=dict(type='str'),
    setype=dict(type='str'),
    attributes=dict(type='str', aliases=['attr']),
    unsafe_writes=dict(type='bool', default=False, fallback=(env_fallback, ['ANSIBLE_UNSAFE_WRITES'])),
)

def missing_required_lib(library, reason=None, url=None):
    """Returns the message a module fails with when a library is missing."""
    msg = "Failed to import the required Python library (%s) on %s's Python %s." % (
        library, platform.node(), sys.executable)
    if reason:
        msg += " This is required %s." % reason
    if url:
        msg += " See %s for more info." % url
    return msg + (" Please read the module documentation and install it in the appropriate location."
                  " If the required library is installed, but Ansible is using the wrong Python interpreter,"
                  " please consult the documentation on ansible_python_interpreter")


def _load_params():
    """Returns the module's arguments: ANSIBLE_MODULE_ARGS of the JSON on
    standard input (or of _ANSIBLE_ARGS when a caller set it)."""
    global _ANSIBLE_ARGS
    if _ANSIBLE_ARGS is None:
        _ANSIBLE_ARGS = sys.stdin.buffer.read()
    try:
        return json.loads(to_text(_ANSIBLE_ARGS))['ANSIBLE_MODULE_ARGS']
    except (ValueError, KeyError, TypeError) as e:
        print('\n{"msg": "Error: Module unable to decode stdin/parameters as valid JSON. Unable to parse what parameters were passed", "failed": true}')
        sys.exit(1)


_TYPE_NAMES = {str: 'str', int: 'int', float: 'float', bool: 'bool', list: 'list', dict: 'dict', bytes: 'bytes'}


def _spec_data(spec, params):
    """Returns an argument_spec as data for the validator: callable types
    by name, and env_fallback values looked up here (they are the
    module's environment) and given as parameters."""
    out = {}
    for name, opt in (spec or {}).items():
        opt = dict(opt or {})
        typ = opt.get('type')
        if callable(typ):
            opt['type'] = _TYPE_NAMES.get(typ, 'raw')
        fallback = opt.pop('fallback', None)
        if fallback and name not in params and not any(a in params for a in opt.get('aliases') or []):
            func, args = fallback[0], fallback[1] if len(fallback) > 1 else []
            kwargs = fallback[2] if len(fallback) > 2 else {}
            try:
                params[name] = func(*args, **kwargs)
            except AnsibleFallbackNotFound:
                pass
        if isinstance(opt.get('options'), dict):
            opt['options'] = _spec_data(opt['options'], {})
        out[name] = opt
    return out


def _validate(spec, rules, params):
    """Asks cfzt-runner to validate params against spec and rules."""
    exe = os.environ.get(VALIDATOR_ENV)
    if not exe:
        raise RuntimeError('%s: %s is not set, so arguments cannot be validated' % (SHIM_NAME, VALIDATOR_ENV))
    request = json.dumps({'argument_spec': spec, 'rules': rules, 'params': params}, default=to_text)
    proc = subprocess.run([exe, '__validate-args'], input=to_bytes(request), stdout=subprocess.PIPE)
    if proc.returncode != 0:
        raise RuntimeError('%s: %s __validate-args failed (rc=%d)' % (SHIM_NAME, exe, proc.returncode))
    return json.loads(to_text(proc.stdout))


def _remove_values(value, no_log_values):
    """Returns value with the no_log strings masked."""
    if isinstance(value, dict):
        return dict((k, _remove_values(v, no_log_values)) for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return type(value)(_remove_values(v, no_log_values) for v in value)
    if isinstance(value, (string_types, binary_type, int, float)) and not isinstance(value, bool):
        text = to_text(value)
        if text in no_log_values:
            return NO_LOG_MASK
        if isinstance(value, string_types):
            for secret in no_log_values:
                value = value.replace(secret, '********')
    return value


def _clean_args(args):
    """Returns a command as the one string a failed result shows."""
    if isinstance(args, (list, tuple)):
        return ' '.join(shlex.quote(a) for a in args)
    return args


class AnsibleModule(object):
    """A module's arguments, settings and results, as ansible-core's
    AnsibleModule offers them."""

    def __init__(self, argument_spec, bypass_checks=False, no_log=False,
                 mutually_exclusive=None, required_together=None,
                 required_one_of=None, add_file_common_args=False,
                 supports_check_mode=False, required_if=None, required_by=None):
        self.argument_spec = argument_spec
        self.supports_check_mode = supports_check_mode
        self.bypass_checks = bypass_checks
        self.no_log = no_log
        self.mutually_exclusive = mutually_exclusive
        self.required_together = required_together
        self.required_one_of = required_one_of
        self.required_if = required_if
        self.required_by = required_by
        self.cleanup_files = []
        self.run_command_environ_update = {}
        self.aliases = {}
        self.no_log_values = set()
        self._name = os.path.basename(sys.argv[0] if sys.argv else 'module')
        if add_file_common_args:
            for k, v in FILE_COMMON_ARGUMENTS.items():
                self.argument_spec.setdefault(k, v)
        self.params = _load_params()
        self._set_internal_properties()
        self._validate_params()
        if self.check_mode and not self.supports_check_mode:
            self.exit_json(skipped=True, msg="remote module (%s) does not support check mode" % self._name)

    def _set_internal_properties(self):
        for key, (attr, default) in PASS_VARS.items():
            param = '_ansible_' + key
            if param in self.params:
                val = self.params.pop(param)
                setattr(self, attr, self.boolean(val) if key in PASS_BOOLS else val)
            elif not hasattr(self, attr):
                setattr(self, attr, default)
        self.check_mode = bool(getattr(self, 'check_mode', False))

    def _validate_params(self):
        rules = {
            'mutually_exclusive': self.mutually_exclusive,
            'required_together': self.required_together,
            'required_one_of': self.required_one_of,
            'required_if': self.required_if,
            'required_by': self.required_by,
        }
        params = dict(self.params)
        spec = _spec_data(self.argument_spec, params)
        result = _validate(spec, rules, params)
        self.params.update(result.get('params') or {})
        self.no_log_values.update(result.get('no_log_values') or [])
        self.aliases.update(result.get('aliases') or {})
        for w in result.get('warnings') or []:
            self.warn(w)
        error = result.get('error')
        if error and result.get('unsupported') and self._ignore_unknown_opts:
            error = None
        if error:
            if result.get('unsupported'):
                error = 'Unsupported parameters for (%s) module: %s' % (self._name, error)
            self.fail_json(msg=error)

    @property
    def tmpdir(self):
        """A private temporary directory, removed when the module exits
        (unless keep_remote_files is set)."""
        if self._tmpdir is None:
            base = os.path.expanduser(os.path.expandvars(self._remote_tmp or tempfile.gettempdir()))
            if not os.path.exists(base):
                try:
                    os.makedirs(base, mode=0o700)
                except OSError:
                    base = None
            self._tmpdir = tempfile.mkdtemp(prefix='ansible-moduletmp-%s-' % time.time(), dir=base)
            if not self._keep_remote_files:
                atexit.register(shutil.rmtree, self._tmpdir, True)
        return self._tmpdir

    def warn(self, warning, *args, **kwargs):
        """Records a warning for the result."""
        if warning not in _warnings:
            _warnings.append(warning)

    def deprecate(self, msg, version=None, date=None, collection_name=None, *args, **kwargs):
        """Records a deprecation for the result."""
        entry = {'msg': msg}
        if date is not None:
            entry['date'] = date
        else:
            entry['version'] = version
        entry['collection_name'] = collection_name
        _deprecations.append(entry)

    def debug(self, msg):
        """Does nothing: cfzt-runner keeps no module log."""

    def log(self, msg, log_args=None):
        """Does nothing: cfzt-runner keeps no module log."""

    def boolean(self, arg):
        """Returns arg as a bool (None stays None); fails the module on a
        value that is not a boolean."""
        if arg is None:
            return arg
        try:
            return boolean(arg)
        except TypeError as e:
            self.fail_json(msg=to_native(e))

    def jsonify(self, data):
        """Returns data as JSON text."""
        try:
            return _jsonify(data)
        except UnicodeError as e:
            self.fail_json(msg=to_text(e))

    def from_json(self, data):
        return json.loads(data)

    def add_cleanup_file(self, path):
        if path not in self.cleanup_files:
            self.cleanup_files.append(path)

    def do_cleanup_files(self):
        for path in self.cleanup_files:
            if os.path.exists(path):
                os.remove(path)

    def get_bin_path(self, arg, required=False, opt_dirs=None):
        """Returns the path of executable arg on PATH (and opt_dirs and
        the sbin directories), or None; fails the module when required."""
        try:
            return _get_bin_path(arg, opt_dirs=opt_dirs)
        except ValueError as e:
            if required:
                self.fail_json(msg=to_text(e))
        return None

    def atomic_move(self, src, dest, unsafe_writes=False, keep_dest_attrs=True):
        """Moves src over dest in one rename, keeping dest's mode."""
        mode = None
        if keep_dest_attrs and os.path.exists(dest):
            mode = os.stat(dest).st_mode & 0o7777
        try:
            os.replace(src, dest)
        except OSError:
            shutil.move(src, dest)
        if mode is not None:
            os.chmod(dest, mode)

    def run_command(self, args, check_rc=False, close_fds=True, executable=None, data=None,
                    binary_data=False, path_prefix=None, cwd=None, use_unsafe_shell=False,
                    prompt_regex=None, environ_update=None, umask=None, encoding='utf-8',
                    errors='surrogate_or_strict', expand_user_and_vars=True, pass_fds=None,
                    before_communicate_callback=None, ignore_invalid_cwd=True, handle_exceptions=True):
        """Runs a command and returns (rc, stdout, stderr)."""
        shell = bool(use_unsafe_shell)
        if isinstance(args, (list, tuple)):
            args = [to_native(a) for a in args]
            if shell:
                args = ' '.join(shlex.quote(a) for a in args)
        elif isinstance(args, (string_types, binary_type)):
            args = to_native(args)
            if not shell:
                args = shlex.split(args)
        else:
            self.fail_json(rc=257, cmd=args, msg='Argument \'args\' to run_command must be list or string')
        if not shell and expand_user_and_vars:
            args = [os.path.expanduser(os.path.expandvars(a)) for a in args]
        env = dict(os.environ)
        env.update(self.run_command_environ_update)
        env.update(environ_update or {})
        if path_prefix:
            env['PATH'] = '%s:%s' % (path_prefix, env.get('PATH', ''))
        if cwd and not os.path.isdir(cwd):
            if not ignore_invalid_cwd:
                self.fail_json(msg='Provided cwd is not a valid directory: %s' % cwd)
            cwd = None
        stdin = None
        if data is not None:
            stdin = to_bytes(data)
            if not binary_data and not stdin.endswith(b'\n'):
                stdin += b'\n'
        old_umask = os.umask(umask) if umask else None
        try:
            proc = subprocess.run(args, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  shell=shell, executable=executable if shell else None, cwd=cwd, env=env,
                                  close_fds=close_fds, stdin=None if stdin is not None else subprocess.DEVNULL)
            rc, out, err = proc.returncode, proc.stdout, proc.stderr
        except (OSError, IOError) as e:
            if not handle_exceptions:
                raise
            self.fail_json(rc=e.errno, stdout='', stderr='', msg=to_native(e), cmd=_clean_args(args))
        finally:
            if old_umask is not None:
                os.umask(old_umask)
        if encoding is not None:
            out, err = to_native(out, encoding=encoding, errors=errors), to_native(err, encoding=encoding, errors=errors)
        if rc != 0 and check_rc:
            self.fail_json(cmd=_clean_args(args), rc=rc, stdout=out, stderr=err, msg=to_native(err).rstrip())
        return rc, out, err

    def add_path_info(self, kwargs):
        """Adds the owner, mode, state and size of the file a result names
        (path, else dest) when it exists."""
        path = kwargs.get('path', kwargs.get('dest'))
        if path is None:
            return kwargs
        b_path = os.path.expanduser(os.path.expandvars(to_bytes(path)))
        if not os.path.exists(b_path):
            return kwargs
        st = os.lstat(b_path)
        kwargs['uid'], kwargs['gid'] = st.st_uid, st.st_gid
        try:
            kwargs['owner'] = pwd.getpwuid(st.st_uid)[0]
        except KeyError:
            kwargs['owner'] = str(st.st_uid)
        try:
            kwargs['group'] = grp.getgrgid(st.st_gid)[0]
        except KeyError:
            kwargs['group'] = str(st.st_gid)
        kwargs['mode'] = '0%03o' % stat.S_IMODE(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            kwargs['state'] = 'link'
        elif stat.S_ISDIR(st.st_mode):
            kwargs['state'] = 'directory'
        elif os.stat(b_path).st_nlink > 1:
            kwargs['state'] = 'hard'
        else:
            kwargs['state'] = 'file'
        kwargs['size'] = st.st_size
        return kwargs

    def _return_formatted(self, kwargs):
        self.add_path_info(kwargs)
        if 'invocation' not in kwargs:
            kwargs['invocation'] = {'module_args': self.params}
        for w in kwargs.pop('warnings', None) or []:
            self.warn(w)
        if _warnings:
            kwargs['warnings'] = list(_warnings)
        if _deprecations:
            kwargs['deprecations'] = list(_deprecations)
        kept = dict((k, v) for k, v in kwargs.items() if v is None or isinstance(v, bool))
        kwargs = _remove_values(kwargs, self.no_log_values)
        kwargs.update(kept)
        print('\n%s' % json.dumps(kwargs, default=to_text))

    def exit_json(self, **kwargs):
        """Prints the result and exits 0."""
        self.do_cleanup_files()
        self._return_formatted(kwargs)
        sys.exit(0)

    def fail_json(self, msg, **kwargs):
        """Prints a failed result with msg and exits 1."""
        kwargs.pop('exception', None)
        kwargs.update(failed=True, msg=str(msg))
        self.do_cleanup_files()
        self._return_formatted(kwargs)
        sys.exit(1)


def __getattr__(name):
    raise AttributeError('%s: ansible.module_utils.basic has no attribute %r' % (SHIM_NAME, name))
