"""cfzt-runner's stand-in for ansible.utils.display.Display: a plugin's
warnings and deprecations become cfzt-runner's; its verbose messages are
dropped."""


def _send(kind, msg):
    hook = globals().get('_report')
    if hook is not None:
        hook(kind, msg)


class Display(object):
    verbosity = 0

    def warning(self, msg, formatted=False, **kwargs):
        _send('warning', str(msg))

    def deprecated(self, msg, version=None, removed=False, date=None, collection_name=None, **kwargs):
        _send('deprecated', str(msg))

    def error(self, msg, wrap_text=True, **kwargs):
        _send('warning', str(msg))

    def display(self, msg, *args, **kwargs):
        pass

    def v(self, msg, host=None):
        pass

    vv = vvv = vvvv = vvvvv = vvvvvv = v

    def debug(self, msg, host=None):
        pass
