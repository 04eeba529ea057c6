#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
def main():
    m = AnsibleModule(argument_spec=dict(kind=dict(type='str', default='cause')))
    try:
        {}['inner']
    except KeyError as e:
        if m.params['kind'] == 'cause':
            raise RuntimeError("outer") from e
        raise RuntimeError("during")
main()
