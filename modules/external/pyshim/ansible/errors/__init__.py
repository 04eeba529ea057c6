"""cfzt-runner's stand-in for ansible.errors: the exception classes that
filter, test and lookup plugins raise. Their message is what cfzt-runner
reports, as ansible-core does."""


class AnsibleError(Exception):
    def __init__(self, message='', obj=None, show_content=True, suppress_extended_error=False,
                 orig_exc=None, help_text=None):
        super().__init__(message)
        self._message = str(message)
        self.obj = obj
        self.orig_exc = orig_exc
        self.help_text = help_text

    @property
    def message(self):
        return self._message

    @message.setter
    def message(self, value):
        self._message = str(value)

    def __str__(self):
        return self._message


class AnsibleParserError(AnsibleError):
    pass


class AnsibleRuntimeError(AnsibleError):
    pass


class AnsibleOptionsError(AnsibleError):
    pass


class AnsibleModuleError(AnsibleRuntimeError):
    pass


class AnsibleUndefinedVariable(AnsibleRuntimeError):
    pass


class AnsibleTemplateError(AnsibleRuntimeError):
    pass


class AnsibleFilterError(AnsibleTemplateError):
    pass


class AnsibleLookupError(AnsibleTemplateError):
    pass


class AnsibleTypeError(AnsibleRuntimeError, TypeError):
    pass


AnsibleFilterTypeError = AnsibleTypeError


class AnsibleAssertionError(AnsibleError, AssertionError):
    pass


class AnsibleFileNotFound(AnsibleRuntimeError):
    def __init__(self, message='', obj=None, show_content=True, suppress_extended_error=False,
                 orig_exc=None, paths=None, file_name=None):
        self.file_name = file_name
        self.paths = paths
        if file_name:
            message = ('%s Could not find or access %r' % (message, file_name)).strip()
        super().__init__(message, obj, show_content, suppress_extended_error, orig_exc)


class AnsibleAction(AnsibleRuntimeError):
    pass


class AnsiblePluginError(AnsibleError):
    def __init__(self, message='', plugin_load_context=None, **kwargs):
        super().__init__(message, **kwargs)
        self.plugin_load_context = plugin_load_context
