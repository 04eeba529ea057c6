package main

// logFormatEnv is the environment variable whose value (text or json) is
// the default of --log-format in both operator modes: the --watch /
// --interval operator (default text, Ansible's output) and `cfzt-runner
// operator` (default json, ansible-operator's lines). The chart sets the
// flag from its logFormat value.
const logFormatEnv = "CFZT_LOG_FORMAT"
