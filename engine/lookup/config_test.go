package lookup

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/settings"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/stretchr/testify/require"
)

func TestConfigLookup(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "ansible.cfg")
	require.NoError(t, os.WriteFile(cfg, []byte("[defaults]\nforks = 7\nroles_path = roles\n[colors]\nok = blue\n"), 0o644))
	e := newEngine()
	env := map[string]string{"ANSIBLE_TIMEOUT": "33"}
	e.Settings = &settings.Source{Path: cfg, File: settings.ParseINI("[defaults]\nforks = 7\nroles_path = roles\n[colors]\nok = blue\n"),
		Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	var warnings []string
	opt := template.Options{Warn: func(w *diag.Diagnostic, _ bool) { warnings = append(warnings, w.Summary) }}
	cases := []tcase{
		{"{{ lookup('config', 'DEFAULT_FORKS') }}", 7, ""},
		{"{{ lookup('config', 'DEFAULT_ROLES_PATH') }}", L(filepath.Join(dir, "roles")), ""},
		{"{{ query('config', 'COLOR_OK', 'DEFAULT_TIMEOUT', 'DEFAULT_REMOTE_USER') }}", L("blue", 33, nil), ""},
		{"{{ query('config', 'DEFAULT_TIMEOUT', show_origin=true) }}", L(L(33, "env: ANSIBLE_TIMEOUT")), ""},
		{"{{ lookup('config', 'CONFIG_FILE') }}", cfg, ""},
		{"{{ lookup('config', 'NOPE') }}", nil, le("config", "No config definition exists for 'NOPE'.")},
		{"{{ query('config', 'NOPE', 'DEFAULT_FORKS', on_missing='skip') }}", L(7), ""},
		{"{{ query('config', 'NOPE', on_missing='warn') }}", []any{}, ""},
		{"{{ query('config', 'NOPE', on_missing='x') }}", nil, le("config", "Invalid value 'x' for config 'on_missing' for 'config' lookup plugin.")},
		{"{{ query('config', 5) }}", nil, le("config", "Invalid setting identifier, 5 is not a <class 'str'>, its a <class 'int'>.")},
		{"{{ query('config', 'rstrip', plugin_type='lookup', plugin_name='file') }}", L(true), ""},
		{"{{ query('config', 'rstrip', plugin_type='lookup', plugin_name='ansible.builtin.file', on_missing='skip') }}", []any{}, ""},
		{"{{ query('config', 'x', plugin_type='lookup') }}", nil, le("config", "Both plugin_type and plugin_name are required, cannot use one without the other.")},
		{"{{ query('config', 'x', plugin_type='shell', plugin_name='sh') }}", nil, le("config", "Unable to load shell plugin 'sh'.")},
	}
	renderCases(t, e, noVars(), opt, cases)
	require.Equal(t, []string{"Skipping NOPE: No config definition exists for 'NOPE'."}, warnings)
}
