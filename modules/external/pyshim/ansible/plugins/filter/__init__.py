"""cfzt-runner's stand-in for ansible.plugins.filter."""
