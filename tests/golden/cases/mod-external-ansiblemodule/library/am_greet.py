#!/usr/bin/python
# A small custom module written against AnsibleModule, as roles ship them.
from __future__ import annotations

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.six import string_types


def main():
    module = AnsibleModule(
        argument_spec=dict(
            name=dict(type='str', required=True, aliases=['who']),
            count=dict(type='int', default=2),
            style=dict(type='str', default='plain', choices=['plain', 'shout']),
            enabled=dict(type='bool', default=True),
            token=dict(type='str', no_log=True),
            tags=dict(type='list', elements='str', default=[]),
            command=dict(type='list', elements='str'),
            check_rc=dict(type='bool', default=False),
            fail=dict(type='bool', default=False),
            warn=dict(type='str'),
        ),
        mutually_exclusive=[['fail', 'command']],
        supports_check_mode=True,
    )
    p = module.params
    if p['warn']:
        module.warn(p['warn'])
    if p['fail']:
        module.fail_json(msg='greeting %s failed on purpose' % p['name'], count=p['count'])
    result = dict(changed=not module.check_mode, check_mode=module.check_mode)
    if p['command']:
        rc, out, err = module.run_command(p['command'], check_rc=p['check_rc'])
        result.update(rc=rc, out=out, err=err)
    text = ' '.join(['hello %s' % p['name']] * p['count'])
    if p['style'] == 'shout':
        text = text.upper()
    result['greeting'] = to_text(text)
    result['is_string'] = isinstance(p['name'], string_types)
    result['enabled'] = p['enabled']
    result['tags'] = p['tags']
    result['token_seen'] = p['token']
    module.exit_json(**result)


if __name__ == '__main__':
    main()
