package builtin

import (
	"errors"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
)

func TestValidateArgumentSpec(t *testing.T) {
	vars := value.DictOf("port", "8080", "name", "web")
	spec := value.DictOf("name", value.DictOf("required", true), "port", value.DictOf("type", "int"))
	for _, tc := range []struct {
		name string
		args *value.Dict
		msg  string
		err  string
	}{
		{name: "variables pass", args: value.DictOf("argument_spec", spec), msg: "The arg spec validation passed"},
		{name: "provided arguments win", args: value.DictOf("argument_spec", spec, "provided_arguments", value.DictOf("port", "x")),
			msg: "Validation of arguments failed:\nargument 'port' is of type str and we were unable to convert to int: \"'x'\" cannot be converted to an int"},
		{name: "no spec", args: value.DictOf("provided_arguments", value.NewDict(0)),
			err: `"argument_spec" arg is required in args: {'provided_arguments': {}}`},
		{name: "spec not a dict", args: value.DictOf("argument_spec", []any{"a"}),
			err: "Incorrect type for argument_spec, expected dict and got <class 'ansible.module_utils._internal._datatag._AnsibleTaggedList'>"},
		{name: "provided not a dict", args: value.DictOf("argument_spec", spec, "provided_arguments", "x"),
			err: "Incorrect type for provided_arguments, expected dict and got <class 'ansible.module_utils._internal._datatag._AnsibleTaggedStr'>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := validateArgumentSpecModule(newReq(tc.args, vars, nil))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				var af *diag.Diagnostic
				require.False(t, errors.As(err, &af) && af.AsResult, "an AnsibleError, not an action failure")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.msg, res.Default("msg", nil))
		})
	}
}
