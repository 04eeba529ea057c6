package argspec

// FileCommonOptions are the options every module that writes files takes
// (AnsibleModule's add_file_common_args): mode, ownership, SELinux
// context, attributes and unsafe_writes.
func FileCommonOptions() []Option {
	return []Option{
		{Name: "mode", Type: Raw},
		{Name: "owner", Type: Str},
		{Name: "group", Type: Str},
		{Name: "seuser", Type: Str},
		{Name: "serole", Type: Str},
		{Name: "selevel", Type: Str},
		{Name: "setype", Type: Str},
		{Name: "attributes", Type: Str, Aliases: []string{"attr"}},
		{Name: "unsafe_writes", Type: Bool, Default: false, EnvFallback: []string{"ANSIBLE_UNSAFE_WRITES"}},
	}
}
