"""cfzt-runner's stand-in for ansible.plugins.test."""
