package k8s

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// The suffixes were computed by kubernetes.core 6.1's
// plugins/module_utils/hashes.py generate_hash on the same definitions.
func TestAppendHashMatchesKubernetesCore(t *testing.T) {
	cases := []struct{ def, name, generateName string }{
		{`{"kind": "ConfigMap", "metadata": {"name": "config-map-test"}, "data": {"hello": "world"}}`, "config-map-test-5khcd6g5kk", ""},
		{`{"kind": "ConfigMap", "metadata": {"name": "config-map-test"}, "data": {"hello": "world", "another": "value"}}`, "config-map-test-25mggh69bh", ""},
		// Non-ASCII is hashed \u-escaped, keys sorted.
		{`{"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"b": "\u00e9 \u2603 \"q\"\n", "a": "x"}}`, "cm-44bcm5h5m8", ""},
		{`{"kind": "ConfigMap", "metadata": {"name": "cm"}}`, "cm-99mdmmt5k9", ""},
		{`{"kind": "ConfigMap", "metadata": {"generateName": "gen-"}, "data": {"k": "v"}}`, "", "gen--522k78dgf6"},
		{`{"kind": "Secret", "metadata": {"name": "s"}, "type": "Opaque", "data": {"k": "dg=="}}`, "s-f9fm229cgt", ""},
		// stringData is not part of the hash.
		{`{"kind": "Secret", "metadata": {"name": "s"}, "stringData": {"k": "v"}}`, "s-25g75kd9dt", ""},
		// Nested mappings sorted, lists kept as they are.
		{`{"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"n": 1, "t": true, "z": null, "l": [{"b": 1, "a": 2}], "d": {"y": 1, "x": 2}}}`, "cm-k6ffkh778d", ""},
	}
	for _, c := range cases {
		v, err := py.JSONLoads(c.def)
		require.NoError(t, err)
		def := v.(*value.Dict)
		md := field(def, "metadata").(*value.Dict)
		name, err := appendHash(def, md, value.Str(md.Default("name", "")))
		require.NoError(t, err)
		require.Equal(t, c.name, name, c.def)
		if c.name != "" {
			require.Equal(t, c.name, field(md, "name"))
		} else {
			require.Equal(t, c.generateName, field(md, "generateName"))
		}
	}
}
