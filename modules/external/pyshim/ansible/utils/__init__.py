"""cfzt-runner's stand-in for ansible.utils."""
