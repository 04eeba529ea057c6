package config

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
)

// The privilege escalation and connection defaults of ansible-core's
// base.yml. cfzt-runner runs only the local connection as its own user,
// so these are read to refuse what they ask for, never to ignore it.
var (
	becomeSetting     = setting{"ANSIBLE_BECOME", "privilege_escalation", "become", "false"}
	becomeUserSetting = setting{"ANSIBLE_BECOME_USER", "privilege_escalation", "become_user", ""}
	transportSetting  = setting{"ANSIBLE_TRANSPORT", "defaults", "transport", ""}
)

// Escalation is DEFAULT_BECOME, DEFAULT_BECOME_USER and DEFAULT_TRANSPORT
// when the environment or ansible.cfg set them (empty otherwise).
type Escalation struct {
	Become     bool
	BecomeUser string
	Transport  string
}

func (r *reader) escalation() Escalation {
	var e Escalation
	e.Become, _ = py.LenientBoolean(r.str(becomeSetting))
	e.BecomeUser = strings.TrimSpace(r.str(becomeUserSetting))
	e.Transport = strings.TrimSpace(r.str(transportSetting))
	return e
}
