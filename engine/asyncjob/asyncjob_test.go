package asyncjob

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
)

func TestResolveDir(t *testing.T) {
	env := func(vars map[string]string) func(string) (string, bool) {
		return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	}
	cases := []struct {
		name, fromVar string
		env           map[string]string
		want          string
	}{
		{"default under HOME", "", map[string]string{"HOME": "/h"}, "/h/.ansible_async"},
		{"environment", "", map[string]string{"HOME": "/h", "ANSIBLE_ASYNC_DIR": "~/jobs"}, "/h/jobs"},
		{"variable wins", "/v/jobs", map[string]string{"ANSIBLE_ASYNC_DIR": "/e"}, "/v/jobs"},
		{"a tilde only at the start", "/a/~b", map[string]string{"HOME": "/h"}, "/a/~b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, ResolveDir(c.fromVar, env(c.env)))
		})
	}
}

func TestNewJIDIsAsyncWrapperShaped(t *testing.T) {
	require.Regexp(t, regexp.MustCompile(`^j\d{1,12}\.\d+$`), NewJID())
}

func TestKillAfterUsesFiveSecondSteps(t *testing.T) {
	cases := []struct {
		timeout int
		want    time.Duration
	}{{0, 5 * time.Second}, {1, 5 * time.Second}, {5, 5 * time.Second}, {6, 10 * time.Second}, {45, 45 * time.Second}}
	for _, c := range cases {
		require.Equal(t, c.want, killAfter(c.timeout), "timeout %d", c.timeout)
	}
}

func TestStatusAndCleanup(t *testing.T) {
	cases := []struct {
		name    string
		content string // "" for no job file
		want    map[string]any
	}{
		{"running", `{"started": true, "finished": false, "ansible_job_id": "j1.2"}`,
			map[string]any{"started": true, "finished": false, "stdout": ""}},
		{"finished module result", `{"changed": true, "rc": 0, "stdout": "hi"}`,
			map[string]any{"started": true, "finished": true, "stdout": "hi", "rc": 0, "changed": true}},
		{"half written", `{"changed": tr`, map[string]any{"started": true, "finished": false}},
		{"no job file", "", map[string]any{"failed": true, "msg": "could not find job", "finished": true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.content != "" {
				require.NoError(t, os.WriteFile(Path(dir, "j1.2"), []byte(c.content), 0o644))
			}
			res := Status(dir, "j1.2")
			require.Equal(t, "j1.2", res.Default("ansible_job_id", nil))
			require.Equal(t, Path(dir, "j1.2"), res.Default("results_file", nil))
			for k, v := range c.want {
				require.Equal(t, v, res.Default(k, nil), k)
			}
			cleaned := Cleanup(dir, "j1.2")
			if c.content == "" {
				require.Equal(t, true, cleaned.Default("failed", nil))
				return
			}
			require.Equal(t, Path(dir, "j1.2"), cleaned.Default("erased", nil))
			require.NoFileExists(t, Path(dir, "j1.2"))
		})
	}
}

// TestRunChildWritesTheModuleResult runs the job side in process: the
// request file is consumed and the job file holds the module's result,
// or an error as its msg (the timeout is tested with a real job in
// cmd/cfzt-runner).
func TestRunChildWritesTheModuleResult(t *testing.T) {
	reg, err := module.NewRegistry([]module.Entry{
		{FQCN: "cfzt.test.echo", Module: module.Func(func(req *module.Request) (*value.Dict, error) {
			return value.DictOf("changed", req.Check, "args", req.Args, "dir", req.BaseDir()), nil
		})},
		{FQCN: "cfzt.test.broken", Module: module.Func(func(*module.Request) (*value.Dict, error) {
			return nil, errors.New("it broke")
		})},
	})
	require.NoError(t, err)
	cases := []struct {
		name, fqcn string
		want       map[string]any
	}{
		{"result", "cfzt.test.echo", map[string]any{"changed": true, "failed": false, "dir": "/play"}},
		{"error", "cfzt.test.broken", map[string]any{"failed": true, "msg": "it broke"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			args := value.DictOf("x", 1)
			spec, err := SpecOf(&module.Request{FQCN: c.fqcn, Name: "n", Action: "n", Args: args, Check: true}, "/play")
			require.NoError(t, err)
			data, err := json.Marshal(spec)
			require.NoError(t, err)
			reqFile := filepath.Join(dir, ".j1.2.request")
			require.NoError(t, os.WriteFile(reqFile, data, 0o600))
			require.Equal(t, 0, RunChild(context.Background(), reg, []string{"j1.2", "10", reqFile}))
			require.NoFileExists(t, reqFile)
			res := Status(dir, "j1.2")
			for k, v := range c.want {
				require.Equal(t, v, res.Default(k, nil), k)
			}
		})
	}
	t.Run("bad arguments", func(t *testing.T) {
		require.Equal(t, 2, RunChild(context.Background(), reg, []string{"j1.2"}))
		require.Equal(t, 2, RunChild(context.Background(), reg, []string{"j1.2", "x", "f"}))
	})
}
