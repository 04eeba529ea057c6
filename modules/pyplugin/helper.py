"""cfzt-runner's Python plugin helper: one process per run imports the
filter, test and lookup plugins written in Python and calls them for the
runner. It reads one JSON request a line on stdin and answers one JSON
line on stdout; while a call runs it may ask the runner for a variable,
a file on the search path or report a warning, and the runner may call a
plugin again before answering (a variable whose template uses one).

Values are JSON, with {"$t": ...} objects for what JSON lacks: tuples,
integers beyond 64 bits, non-finite floats, dicts whose keys are not
strings (or hold "$t"), bytes."""

import base64
import importlib
import importlib.util
import json
import math
import os
import sys
import types

_IN = os.fdopen(os.dup(0), 'rb')
_OUT = os.fdopen(os.dup(1), 'w', encoding='ascii')
# A plugin's print() or input() must not touch the protocol.
_null = os.open(os.devnull, os.O_RDONLY)
os.dup2(_null, 0)
os.dup2(2, 1)
sys.stdout = sys.stderr

_modules = {}   # path -> module
_maps = {}      # (kind, path) -> {name: function}
REAL = False


class ProtocolError(Exception):
    pass


def encode(v, depth=0):
    if depth > 400:
        raise ValueError('the value is nested too deeply to pass to cfzt-runner')
    if v is None or isinstance(v, bool):
        return v
    if isinstance(v, str):
        return str(v)
    if isinstance(v, int):
        v = int(v)
        if -(1 << 63) <= v < (1 << 63):
            return v
        return {'$t': 'int', 'v': str(v)}
    if isinstance(v, float):
        if math.isfinite(v):
            return float(v)
        return {'$t': 'float', 'v': repr(float(v))}
    if isinstance(v, (bytes, bytearray)):
        return {'$t': 'bytes', 'v': base64.b64encode(bytes(v)).decode('ascii')}
    if isinstance(v, tuple):
        return {'$t': 'tuple', 'v': [encode(x, depth + 1) for x in v]}
    if isinstance(v, dict) or _is_mapping(v):
        items = list(v.items())
        if all(type(k) is str or (isinstance(k, str) and not isinstance(k, bytes)) for k, _ in items) and '$t' not in v:
            return dict((str(k), encode(x, depth + 1)) for k, x in items)
        return {'$t': 'dict', 'v': [[encode(k, depth + 1), encode(x, depth + 1)] for k, x in items]}
    if isinstance(v, (list, set, frozenset)) or _is_iterable(v):
        return [encode(x, depth + 1) for x in v]
    raise TypeError('cfzt-runner cannot take a value of type %s from a Python plugin' % type(v).__name__)


def _is_mapping(v):
    try:
        import collections.abc
        return isinstance(v, collections.abc.Mapping)
    except Exception:
        return False


def _is_iterable(v):
    import collections.abc
    return isinstance(v, (collections.abc.Iterator, collections.abc.KeysView, collections.abc.ValuesView,
                          collections.abc.ItemsView, range))


def decode(v):
    if isinstance(v, list):
        return [decode(x) for x in v]
    if isinstance(v, dict):
        t = v.get('$t')
        if t is None:
            return dict((k, decode(x)) for k, x in v.items())
        if t == 'tuple':
            return tuple(decode(x) for x in v['v'])
        if t == 'int':
            return int(v['v'])
        if t == 'float':
            return float(v['v'])
        if t == 'bytes':
            return base64.b64decode(v['v'])
        if t == 'dict':
            return dict((_hashable(decode(k)), decode(x)) for k, x in v['v'])
        raise ProtocolError('unknown value tag %r' % t)
    return v


def _hashable(k):
    return tuple(_hashable(x) for x in k) if isinstance(k, list) else k


def send(msg):
    # ASCII only: a lone surrogate (bytes decoded with surrogateescape)
    # is escaped rather than failing the write.
    _OUT.write(json.dumps(msg, ensure_ascii=True, allow_nan=False))
    _OUT.write('\n')
    _OUT.flush()


def receive():
    line = _IN.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def ask(msg):
    """Sends a request to the runner and waits for its answer, serving the
    calls the runner makes meanwhile."""
    send(msg)
    while True:
        m = receive()
        if 'op' in m:
            serve(m)
            continue
        return m


def report(kind, msg):
    send({'req': kind, 'msg': msg})


def find_file(subdir, needle):
    return ask({'req': 'findfile', 'subdir': subdir, 'name': needle}).get('path') or None


def documentation_defaults(plugin):
    doc = getattr(sys.modules.get(type(plugin).__module__), 'DOCUMENTATION', None)
    if not isinstance(doc, str) or not doc.strip():
        return {}
    return decode(ask({'req': 'docdefaults', 'doc': doc}).get('value')) or {}


class Variables(dict):
    """The variables of the task, fetched from the runner when the lookup
    reads them. They cannot be listed."""

    def __missing__(self, key):
        a = ask({'req': 'var', 'name': str(key)})
        if not a.get('found'):
            raise KeyError(key)
        v = decode(a.get('value'))
        dict.__setitem__(self, key, v)
        return v

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        return True

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __bool__(self):
        # A task always has variables; `if variables:` must not list them.
        return True

    def _unlistable(self, *a, **kw):
        raise TypeError("cfzt-runner does not list a lookup's variables; read them by name")

    keys = items = values = __iter__ = __len__ = copy = _unlistable


def setup(msg):
    global REAL
    try:
        import ansible.errors  # noqa: F401
        import ansible.plugins.lookup  # noqa: F401
        import ansible.module_utils.common.text.converters  # noqa: F401
        REAL = True
    except Exception:
        for name in list(sys.modules):
            if name == 'ansible' or name.startswith('ansible.'):
                del sys.modules[name]
        sys.path.insert(0, msg['shim'])
        importlib.invalidate_caches()
        import ansible.plugins
        import ansible.plugins.lookup
        import ansible.utils.display
        ansible.utils.display._report = report
        ansible.plugins._documentation_defaults = documentation_defaults
        ansible.plugins.lookup._find_file = find_file
    roots = [os.path.join(r, 'ansible_collections') for r in msg.get('collections') or []]
    roots = [r for r in roots if os.path.isdir(r)]
    if 'ansible_collections' not in sys.modules:
        pkg = types.ModuleType('ansible_collections')
        pkg.__path__ = roots
        sys.modules['ansible_collections'] = pkg
    return {'real': REAL, 'python': sys.version.split()[0]}


def load(path, modname):
    m = _modules.get(path)
    if m is not None:
        return m
    spec = importlib.util.spec_from_file_location(modname, path)
    m = importlib.util.module_from_spec(spec)
    sys.modules[modname] = m
    try:
        spec.loader.exec_module(m)
    except BaseException:
        del sys.modules[modname]
        raise
    _modules[path] = m
    return m


def plugin_map(kind, path, modname):
    key = (kind, path)
    if key in _maps:
        return _maps[key]
    m = load(path, modname)
    cls = getattr(m, 'FilterModule' if kind == 'filter' else 'TestModule')
    funcs = getattr(cls(), 'filters' if kind == 'filter' else 'tests')()
    _maps[key] = dict(funcs)
    return _maps[key]


def op_index(msg):
    # A file that does not import, or has no FilterModule/TestModule, is
    # skipped with ansible-core's warnings; one whose filters() fails is
    # skipped silently (ansible-core says so only at -vvvv).
    out = []
    kind = msg['kind']
    for f in msg['files']:
        try:
            m = load(f['path'], f['module'])
        except Exception as ex:
            out.append({'warning': 'Skipping plugin (%s), cannot load: %s' % (f['path'], describe(ex)['msg'])})
            continue
        cls = 'FilterModule' if kind == 'filter' else 'TestModule'
        if not hasattr(m, cls):
            out.append({'warning': "Skipping plugin (%s) as it seems to be invalid: module %r has no attribute %r"
                        % (f['path'], f['module'], cls)})
            continue
        try:
            names = [n for n in plugin_map(kind, f['path'], f['module']) if isinstance(n, str) and '.' not in n]
            out.append({'names': names})
        except Exception:
            out.append({'names': []})
    return out


def op_call(msg):
    fn = plugin_map(msg['kind'], msg['path'], msg['module'])[msg['name']]
    args = decode(msg.get('args') or [])
    kwargs = decode(msg.get('kwargs') or {})
    return fn(*args, **kwargs)


def real_option_definitions(m, name):
    """With ansible-core, registers the options the plugin's DOCUMENTATION
    declares, as its plugin loader does when it loads a plugin, so that
    set_options and get_option work."""
    doc = getattr(m, 'DOCUMENTATION', None)
    if not isinstance(doc, str) or not doc.strip():
        return
    from ansible import constants as C
    if C.config.has_configuration_definition('lookup', name):
        return
    import yaml
    d = yaml.safe_load(doc)
    if isinstance(d, dict) and isinstance(d.get('options'), dict):
        C.config.initialize_plugin_configuration_definitions('lookup', name, d['options'])


def op_lookup(msg):
    m = load(msg['path'], msg['module'])
    if REAL:
        real_option_definitions(m, msg['name'])
    inst = m.LookupModule()
    inst._load_name = msg['name']
    inst._original_path = msg['path']
    terms = decode(msg.get('terms') or [])
    kwargs = decode(msg.get('kwargs') or {})
    return inst.run(terms, variables=Variables(), **kwargs)


def describe(ex):
    # ansible-core reports an AnsibleError by its own message, without
    # the messages of its causes.
    msg = getattr(ex, '_message', None)
    if not isinstance(msg, str):
        try:
            msg = str(ex)
        except Exception:
            msg = ''
    return {'type': type(ex).__name__, 'msg': msg,
            'ansible': type(ex).__module__.startswith('ansible.'),
            'detached': (ex.__cause__ is not None) or (ex.__context__ is not None and not ex.__suppress_context__)}


OPS = {'setup': setup, 'index': op_index, 'call': op_call, 'lookup': op_lookup}


def serve(msg):
    rid = msg.get('id')
    try:
        result = OPS[msg['op']](msg)
        send({'id': rid, 'ok': True, 'value': encode(result)})
    except (KeyboardInterrupt, SystemExit) as ex:
        send({'id': rid, 'ok': False, 'error': {'type': type(ex).__name__, 'msg': 'the plugin tried to exit', 'detached': False}})
    except Exception as ex:
        send({'id': rid, 'ok': False, 'error': describe(ex)})


def main():
    while True:
        serve(receive())


if __name__ == '__main__':
    main()
