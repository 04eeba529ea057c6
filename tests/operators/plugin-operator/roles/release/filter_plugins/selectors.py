# Filters of the release role, written for cfzt-runner's plugin-operator.


def stripnone(value):
    """The dict without the keys whose value is None."""
    return dict((k, v) for k, v in value.items() if v is not None)


def selector_string(labels):
    """A label selector matching every label of a dict."""
    return ','.join('%s=%s' % (k, labels[k]) for k in sorted(labels))


class FilterModule(object):
    def filters(self):
        return {'stripnone': stripnone, 'selector_string': selector_string}
