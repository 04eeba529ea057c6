#!/usr/bin/python
# A role's module using the role's module_utils, for cfzt-runner's golden corpus.
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.wordcount import count_words


def main():
    module = AnsibleModule(argument_spec=dict(text=dict(type='str', required=True)))
    module.exit_json(changed=False, words=count_words(module.params['text']))


if __name__ == '__main__':
    main()
