#!/usr/bin/python
# A collection's module using the collection's module_utils, for cfzt-runner's golden corpus.
from ansible.module_utils.basic import AnsibleModule
from ansible_collections.golden.utilsdemo.plugins.module_utils.loud import loud


def main():
    module = AnsibleModule(argument_spec=dict(text=dict(type='str', required=True)))
    module.exit_json(changed=True, text=loud(module.params['text']))


if __name__ == '__main__':
    main()
