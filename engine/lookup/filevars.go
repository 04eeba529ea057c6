package lookup

import (
	"os"
	"os/user"
	"strconv"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// ManagedDefault is ansible_managed as ansible-core 2.19 sets it for a
// template when no variable of that name exists: the default of the
// deprecated DEFAULT_MANAGED_STR setting, which has no placeholders.
const ManagedDefault = "Ansible managed"

// FileVars are the variables ansible-core adds while it renders the
// template file at fullpath (generate_ansible_template_vars): path is the
// name the task gave, dest the template module's destination (nil for a
// lookup), now the render's start. ansible_managed is included only with
// managed set, as ansible-core leaves a variable of that name alone.
func FileVars(path, fullpath string, dest any, now time.Time, managed bool) (*value.Dict, error) {
	st, err := os.Stat(fullpath)
	if err != nil {
		return nil, err
	}
	var owner any = ""
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		owner = int(sys.Uid)
		if u, err := user.LookupId(strconv.Itoa(int(sys.Uid))); err == nil {
			owner = u.Username
		}
	}
	host, _ := os.Hostname()
	vars := value.DictOf(
		"template_host", host,
		"template_path", path,
		"template_mtime", &py.Datetime{Time: st.ModTime().In(time.Local)},
		"template_uid", owner,
		"template_run_date", &py.Datetime{Time: now.In(time.Local)},
		"template_destpath", dest,
		"template_fullpath", fullpath,
	)
	if managed {
		vars.Set("ansible_managed", ManagedDefault)
	}
	return vars, nil
}
