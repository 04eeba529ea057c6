"""The ansible-core release whose behaviour cfzt-runner follows."""

__version__ = '2.19.11'
__author__ = 'Ansible, Inc.'
__codename__ = "What Is and What Should Never Be"
