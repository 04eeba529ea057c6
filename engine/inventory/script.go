package inventory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// PluginFailure is one inventory plugin's failure to parse a source, as
// ansible-core's InventoryManager collects them: shown as warnings when
// no plugin parsed the source.
type PluginFailure struct {
	// Plugin is the plugin's name (script, auto, yaml, ini).
	Plugin string
	// Message is the error's message, Cause the message of the error it
	// was raised from ("" for none), Origin the "Origin:" text ("" for
	// none) and Help what ansible-core shows after it.
	Message, Cause, Origin, Help string
}

// Warning is the warning ansible-core shows for the failure.
func (f PluginFailure) Warning() string {
	head := fmt.Sprintf("Failed to parse inventory with '%s' plugin", f.Plugin)
	inner := f.Message
	if f.Cause != "" {
		inner = strings.TrimSuffix(f.Message, ".") + ": " + f.Cause
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n%s.\n\n<<< caused by >>>\n\n%s", head, inner, head, inner)
	if f.Origin != "" {
		b.WriteString("\nOrigin: " + f.Origin)
	}
	if f.Help != "" {
		b.WriteString("\n\n" + strings.TrimRight(f.Help, "\n"))
	}
	return b.String()
}

// SourceError is a source no inventory plugin could parse: the plugins'
// failures, then ansible-core's "Unable to parse" warning. Refused marks
// a source cfzt-runner refuses to run without (an inventory plugin
// configuration it cannot run), which ends the run.
type SourceError struct {
	Source   string
	Failures []PluginFailure
	Refused  bool
}

func (e *SourceError) Error() string {
	return fmt.Sprintf("Unable to parse %s as an inventory source", e.Source)
}

// isScript reports whether an inventory file is an executable the script
// plugin runs (its verify_file: a file with an execute bit).
func isScript(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// scriptError is a failure of the script plugin.
type scriptError struct{ msg, cause, help string }

func (e *scriptError) Error() string { return e.msg }

// runScript runs an inventory script with args and returns its output,
// as the script plugin's run_command does.
func runScript(path string, args ...string) (string, string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	errText := stderr.String()
	if errText != "" && !strings.HasSuffix(errText, "\n") {
		errText += "\n"
	}
	help := ""
	if strings.TrimSpace(errText) != "" {
		help = "Standard error from inventory script:\n" + errText
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return "", help, &scriptError{msg: fmt.Sprintf("Inventory script returned non-zero exit code %d.", exit.ExitCode()), help: help}
	case err != nil:
		return "", help, &scriptError{msg: fmt.Sprintf("Failed to execute inventory script command %s.", value.QuoteString(shlexJoin(append([]string{path}, args...))))}
	case !utf8.Valid(stdout.Bytes()):
		return "", help, &scriptError{msg: "Inventory script result contained characters that cannot be interpreted as UTF-8.", help: help}
	}
	return stdout.String(), help, nil
}

// typeName is Python's name of a decoded JSON value's type.
func typeName(v any) string {
	switch v.(type) {
	case *value.Dict:
		return "dict"
	case []any:
		return "list"
	case string:
		return "str"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	case float64:
		return "float"
	}
	return "int"
}

// parseScript runs an executable inventory source as ansible-core's
// script plugin does: --list gives the groups (and, in _meta.hostvars,
// the host variables); without _meta, --host runs once per host. Its
// deprecations go to deprecate.
func (inv *Inventory) parseScript(path string) error {
	origin := "<inventory script output from " + value.QuoteString(path) + ">"
	data, help, err := runScript(path, "--list")
	if err != nil {
		return err
	}
	decoded, err := py.JSONLoads(data)
	if err != nil {
		return &scriptError{msg: "Unable to get JSON decoder for inventory script result.", cause: "Value could not be parsed as JSON: " + err.Error(), help: help}
	}
	root, ok := decoded.(*value.Dict)
	if !ok {
		return &scriptError{msg: "Unable to get JSON decoder for inventory script result.", cause: fmt.Sprintf("Value is '%s' instead of 'dict'.", typeName(decoded)), help: help}
	}
	var metaVars *value.Dict
	hasMeta := false
	var hosts []string
	seen := map[string]bool{}
	deprecate := func(msg string) {
		inv.deprecation(&diag.Diagnostic{Severity: diag.Deprecation, Summary: msg, Version: "2.23", Plugin: "inventory plugin 'script'",
			Origin: &value.Pos{File: origin}})
	}
	var failure error
	root.Each(func(name string, gdata any) bool {
		if name == "_meta" {
			meta, ok := gdata.(*value.Dict)
			if !ok {
				failure = &scriptError{msg: "Unable to get JSON decoder for inventory script result.", cause: fmt.Sprintf("Value contains '_meta' which is '%s' instead of 'dict'.", typeName(gdata)), help: help}
				return false
			}
			hv, _ := meta.Get("hostvars")
			if metaVars, ok = hv.(*value.Dict); !ok {
				failure = &scriptError{msg: fmt.Sprintf("Value contains '_meta.hostvars' which is '%s' instead of 'dict'.", typeName(hv))}
				return false
			}
			hasMeta = true
			return true
		}
		g := inv.group(name)
		d, isDict := gdata.(*value.Dict)
		switch {
		case !isDict:
			deprecate(fmt.Sprintf("Group %s was converted to 'dict' from %s.", value.QuoteString(name), value.QuoteString(typeName(gdata))))
			d = value.DictOf("hosts", gdata)
		case !d.Has("hosts") && !d.Has("vars") && !d.Has("children"):
			deprecate(fmt.Sprintf("Treating malformed group %s as the sole host of that group. Variables provided in this manner cannot be templated.", value.QuoteString(name)))
			d = value.DictOf("hosts", []any{name}, "vars", d)
		}
		if hv, ok := d.Get("hosts"); ok {
			l, ok := hv.([]any)
			if !ok {
				failure = &scriptError{msg: fmt.Sprintf("Value contains '%s.hosts' which is '%s' instead of 'list'.", name, typeName(hv))}
				return false
			}
			for _, h := range l {
				host := value.Str(h)
				if !seen[host] {
					seen[host] = true
					hosts = append(hosts, host)
				}
				inv.addHost(host, name, path)
			}
		}
		if vv, ok := d.Get("vars"); ok {
			vd, ok := vv.(*value.Dict)
			if !ok {
				failure = &scriptError{msg: fmt.Sprintf("Value contains '%s.vars' which is '%s' instead of 'dict'.", name, typeName(vv))}
				return false
			}
			vd.Each(func(k string, v any) bool { inv.setGroupVar(g, k, v); return true })
		}
		if ch, ok := d.Get("children"); ok {
			if l, ok := ch.([]any); ok {
				for _, c := range l {
					inv.link(name, value.Str(c))
				}
			}
		}
		return true
	})
	if failure != nil {
		return failure
	}
	if !hasMeta {
		deprecate("Inventory scripts should always provide 'meta.hostvars'. Host variables will be collected by running the inventory script with the '--host' option for each host.")
	}
	for _, h := range hosts {
		var got *value.Dict
		if hasMeta {
			got, _ = metaVars.Default(h, value.NewDict(0)).(*value.Dict)
		} else {
			out, help, err := runScript(path, "--host", h)
			if err != nil {
				return err
			}
			if strings.TrimSpace(out) == "" {
				continue
			}
			v, err := py.JSONLoads(out)
			if err != nil {
				return &scriptError{msg: fmt.Sprintf("Inventory script result for host %s could not be parsed as JSON.", value.QuoteString(h)), cause: err.Error(), help: help}
			}
			got, _ = v.(*value.Dict)
		}
		if got != nil {
			got.Each(func(k string, v any) bool { inv.setVar(inv.hostVars[h], k, v); return true })
		}
	}
	return nil
}

// deprecation shows an inventory plugin's deprecation.
func (inv *Inventory) deprecation(d *diag.Diagnostic) {
	if inv.Deprecate != nil {
		inv.Deprecate(d)
	}
}

// pluginConfig returns the plugin a YAML inventory file configures (its
// `plugin:` key), which the auto plugin would load; "" for an ordinary
// YAML inventory.
func pluginConfig(path string, data []byte) string {
	if !strings.HasSuffix(path, ".yml") && !strings.HasSuffix(path, ".yaml") {
		return ""
	}
	docs, _, err := value.DecodeYAML(path, data)
	if err != nil || len(docs) == 0 {
		return ""
	}
	root, ok := docs[0].(*value.Dict)
	if !ok {
		return ""
	}
	name, ok := root.Get("plugin")
	if !ok {
		return ""
	}
	return value.Str(name)
}

// pluginRefusal is the SourceError of an inventory plugin configuration:
// cfzt-runner runs no inventory plugin, so each plugin ansible-core
// would try fails as it fails for a plugin it does not know.
func pluginRefusal(abs, plugin string, data []byte) *SourceError {
	failures := []PluginFailure{
		{Plugin: "auto", Message: fmt.Sprintf("inventory config %s specifies unknown plugin %s", value.QuoteString(abs), value.QuoteString(plugin)),
			Origin: fmt.Sprintf("<inventory plugin 'auto' with source %s>", value.QuoteString(abs))},
		{Plugin: "yaml", Message: "Plugin configuration YAML file, not YAML inventory",
			Origin: fmt.Sprintf("<inventory plugin 'yaml' with source %s>", value.QuoteString(abs))},
	}
	if msg := iniFailure(string(data)); msg != "" {
		failures = append(failures, PluginFailure{Plugin: "ini", Message: "Failed to parse inventory: " + msg, Origin: abs})
	}
	return &SourceError{Source: abs, Failures: failures, Refused: true}
}

// iniFailure is the error ansible-core's ini plugin gives for a YAML
// mapping: its first key line is read as a host pattern ending in ':'.
func iniFailure(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line == "---" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		tok := strings.Fields(line)[0]
		if strings.HasSuffix(tok, ":") {
			return fmt.Sprintf("Invalid host pattern %s supplied, ending in ':' is not allowed, this character is reserved to provide a port.", value.QuoteString(tok))
		}
		return ""
	}
	return ""
}

// shlexJoin is Python's shlex.join.
func shlexJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "" || strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r))
		}) >= 0 {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'"'"'`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// scriptFailure is the script plugin's failure on path.
func scriptFailure(err error, path string) PluginFailure {
	f := PluginFailure{Plugin: "script", Message: err.Error(), Origin: fmt.Sprintf("<inventory plugin 'script' with source %s>", value.QuoteString(path))}
	var se *scriptError
	if errors.As(err, &se) {
		f.Cause, f.Help = se.cause, se.help
	}
	return f
}
