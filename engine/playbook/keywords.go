package playbook

// taskKeywords are the keys of a task mapping that are not its action.
var taskKeywords = map[string]bool{
	"name": true, "when": true, "loop": true, "loop_control": true, "register": true, "until": true,
	"retries": true, "delay": true, "failed_when": true, "changed_when": true, "ignore_errors": true,
	"ignore_unreachable": true, "no_log": true, "vars": true, "tags": true, "notify": true, "listen": true,
	"environment": true, "args": true, "check_mode": true, "diff": true, "run_once": true,
	"delegate_to": true, "delegate_facts": true, "become": true, "become_user": true,
	"become_method": true, "become_flags": true, "connection": true, "any_errors_fatal": true,
	"throttle": true, "timeout": true, "async": true, "poll": true, "collections": true,
	"module_defaults": true, "debugger": true, "local_action": true, "action": true, "remote_user": true,
	"port": true,
}

// blockKeywords are the keys a block mapping may carry.
var blockKeywords = map[string]bool{
	"block": true, "rescue": true, "always": true, "name": true, "when": true, "vars": true, "tags": true,
	"ignore_errors": true, "ignore_unreachable": true, "no_log": true, "environment": true,
	"check_mode": true, "diff": true, "run_once": true, "delegate_to": true, "delegate_facts": true,
	"become": true, "become_user": true, "become_method": true, "become_flags": true,
	"any_errors_fatal": true, "connection": true, "collections": true, "module_defaults": true,
	"throttle": true, "timeout": true, "debugger": true, "notify": true, "remote_user": true, "port": true,
}

// playKeywords are the keys of a play mapping.
var playKeywords = map[string]bool{
	"name": true, "hosts": true, "gather_facts": true, "connection": true, "vars": true,
	"vars_files": true, "vars_prompt": true, "pre_tasks": true, "roles": true, "tasks": true,
	"post_tasks": true, "handlers": true, "tags": true, "become": true, "become_user": true,
	"become_method": true, "environment": true, "ignore_errors": true, "no_log": true,
	"any_errors_fatal": true, "max_fail_percentage": true, "serial": true, "strategy": true,
	"order": true, "force_handlers": true, "check_mode": true, "diff": true, "run_once": true,
	"collections": true, "module_defaults": true, "gather_subset": true, "gather_timeout": true,
	"fact_path": true, "remote_user": true, "port": true, "throttle": true, "timeout": true,
	"ignore_unreachable": true, "debugger": true, "become_flags": true,
}

// roleEntryKeywords are keys of a `roles:` entry or a dependency that are
// keywords rather than role parameters (the attributes of ansible-core's
// role definition).
var roleEntryKeywords = map[string]bool{
	"role": true, "name": true, "when": true, "tags": true, "vars": true, "become": true,
	"become_user": true, "become_method": true, "become_flags": true, "become_exe": true,
	"environment": true, "ignore_errors": true, "ignore_unreachable": true, "no_log": true,
	"delegate_to": true, "delegate_facts": true, "any_errors_fatal": true, "check_mode": true, "diff": true,
	"run_once": true, "connection": true, "collections": true, "debugger": true, "module_defaults": true,
	"remote_user": true, "port": true, "throttle": true, "timeout": true,
}
