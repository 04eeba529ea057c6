# Tests beside the playbook, for cfzt-runner's golden corpus.
import re


def semver_like(value):
    return re.match(r'^v?\d+\.\d+\.\d+$', value) is not None


def bigger_than(value, limit):
    return value > limit


def truthy_text(value):
    return value + '!'


class TestModule:
    def tests(self):
        return {'semver_like': semver_like, 'bigger_than': bigger_than, 'truthy_text': truthy_text}
