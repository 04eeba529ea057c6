#!/usr/bin/python
# An AnsibleModule module that does not support check mode.
from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule


def main():
    module = AnsibleModule(argument_spec=dict(path=dict(type='path', required=True)))
    module.exit_json(changed=True, path=module.params['path'])


if __name__ == '__main__':
    main()
