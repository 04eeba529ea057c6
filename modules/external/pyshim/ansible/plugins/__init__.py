"""cfzt-runner's stand-in for ansible.plugins: the option handling that
filter, test and lookup plugins inherit (AnsiblePlugin)."""


class AnsiblePlugin(object):
    # Set by cfzt-runner's plugin helper when it loads the plugin.
    _load_name = None
    _original_path = None

    def __init__(self):
        self._options = {}
        self._defs = None

    def get_option(self, option, hostvars=None):
        if option not in self._options:
            raise KeyError('Requested entry (plugin_type: %s plugin: %s setting: %s ) was not defined in configuration'
                           % (getattr(self, 'plugin_type', ''), self._load_name, option))
        return self._options[option]

    def get_options(self, hostvars=None):
        return dict(self._options)

    def set_option(self, option, value):
        self._options[option] = value

    def set_options(self, task_keys=None, var_options=None, direct=None):
        # Option defaults come from the plugin's DOCUMENTATION, which
        # cfzt-runner's helper reads (see _option_defaults); direct
        # (keyword) options override them.
        options = dict(_option_defaults(self))
        if direct:
            options.update(direct)
        self._options = options

    def has_option(self, option):
        return option in self._options


def _option_defaults(plugin):
    """The defaults of the options the plugin's DOCUMENTATION declares, as
    parsed by cfzt-runner (a hook the helper installs); none without it."""
    hook = globals().get('_documentation_defaults')
    if hook is None:
        return {}
    return hook(plugin)
