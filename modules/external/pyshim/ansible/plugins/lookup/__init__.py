"""cfzt-runner's stand-in for ansible.plugins.lookup.LookupBase."""

from ansible.plugins import AnsiblePlugin


class LookupBase(AnsiblePlugin):
    plugin_type = 'lookup'

    def __init__(self, loader=None, templar=None, **kwargs):
        super().__init__()
        self._loader = loader
        self._templar = templar
        self._display = None

    def run(self, terms, variables=None, **kwargs):
        raise NotImplementedError('the lookup plugin does not implement run()')

    @staticmethod
    def _flatten(elems):
        ret = []
        for x in elems:
            if isinstance(x, (list, tuple)):
                ret.extend(x)
            else:
                ret.append(x)
        return ret

    @staticmethod
    def _combine(a, b):
        results = []
        for x in a:
            for y in b:
                results.append(LookupBase._flatten([x, y]))
        return results

    @staticmethod
    def _flatten_hash_to_list(terms):
        ret = []
        for key in terms:
            ret.append({'key': key, 'value': terms[key]})
        return ret

    def find_file_in_search_path(self, myvars, subdir, needle, ignore_missing=False):
        """The file needle on the task's search path (files/, templates/
        and the like, as cfzt-runner's lookups search), else None with a
        warning unless ignore_missing."""
        hook = globals().get('_find_file')
        found = hook(subdir, needle) if hook else None
        if not found and not ignore_missing:
            from ansible.utils.display import Display
            Display().warning("Unable to find '%s' in expected paths (use -vvvvv to see paths)" % needle)
        return found
