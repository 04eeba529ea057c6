#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
def main():
    m = AnsibleModule(argument_spec=dict(kind=dict(type='str', default='value')))
    k = m.params['kind']
    if k == 'value':
        raise ValueError("boom: bad value")
    if k == 'noexit':
        return
    if k == 'keyerror':
        {}['missing']
    if k == 'exit':
        raise SystemExit(3)
main()
