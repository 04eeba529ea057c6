package k8s

import (
	"github.com/cfzt/cfzt-runner/engine/value"
)

// smpKeys are the list merge keys kubernetes.core's diff knows, by the
// dotted position of the list from the object's kind.
var smpKeys = func() map[string]string {
	keys := map[string]string{
		"Service.spec.ports":                      "port",
		"ServiceAccount.secrets":                  "name",
		"ValidatingWebhookConfiguration.webhooks": "name",
		"MutatingWebhookConfiguration.webhooks":   "name",
	}
	suffixes := map[string]string{
		"containers": "name", "initContainers": "name", "ephemeralContainers": "name",
		"volumes": "name", "imagePullSecrets": "name",
	}
	for _, c := range []string{"containers", "initContainers", "ephemeralContainers"} {
		suffixes[c+".volumeMounts"] = "mountPath"
		suffixes[c+".volumeDevices"] = "devicePath"
		suffixes[c+".env"] = "name"
		suffixes[c+".ports"] = "containerPort"
	}
	for _, p := range []string{"Pod.spec", "Deployment.spec.template.spec", "DaemonSet.spec.template.spec",
		"StatefulSet.spec.template.spec", "Job.spec.template.spec", "Cronjob.spec.jobTemplate.spec.template.spec"} {
		for s, k := range suffixes {
			keys[p+"."+s] = k
		}
	}
	return keys
}()

// recursiveDiff returns the parts of a and b that differ (nil, nil when
// they are equal), as kubernetes.core's recursive_diff does.
func recursiveDiff(a, b *value.Dict, position string) (*value.Dict, *value.Dict) {
	if position == "" {
		if k, ok := a.Get("kind"); ok {
			if k2, _ := b.Get("kind"); value.Equal(k, k2) {
				position = value.Str(k)
			}
		}
	}
	left, right := value.NewDict(0), value.NewDict(0)
	a.Each(func(k string, v any) bool {
		if !b.Has(k) {
			left.Set(k, v)
		}
		return true
	})
	b.Each(func(k string, v any) bool {
		if !a.Has(k) {
			right.Set(k, v)
		}
		return true
	})
	a.Each(func(k string, av any) bool {
		bv, ok := b.Get(k)
		if !ok {
			return true
		}
		here := position + "." + k
		ad, aIsDict := av.(*value.Dict)
		bd, bIsDict := bv.(*value.Dict)
		al, aIsList := av.([]any)
		bl, bIsList := bv.([]any)
		switch {
		case aIsDict && bIsDict:
			if l, r := recursiveDiff(ad, bd, here); l != nil {
				left.Set(k, l)
				right.Set(k, r)
			}
		case aIsList && bIsList:
			if l, r, diff := recursiveListDiff(al, bl, here); diff {
				left.Set(k, l)
				right.Set(k, r)
			}
		case !value.Equal(av, bv):
			left.Set(k, av)
			right.Set(k, bv)
		}
		return true
	})
	if left.Len() == 0 && right.Len() == 0 {
		return nil, nil
	}
	return left, right
}

func recursiveListDiff(a, b []any, position string) ([]any, []any, bool) {
	key, keyed := smpKeys[position]
	if keyed {
		da, okA := listByKey(a, key)
		db, okB := listByKey(b, key)
		if okA && okB {
			left, right := []any{}, []any{}
			for _, k := range da.Keys() {
				if !db.Has(k) {
					v, _ := da.Get(k)
					left = append(left, v)
				}
			}
			for _, k := range db.Keys() {
				if !da.Has(k) {
					v, _ := db.Get(k)
					right = append(right, v)
				}
			}
			for _, k := range da.Keys() {
				bv, ok := db.Get(k)
				if !ok {
					continue
				}
				av, _ := da.Get(k)
				l, r := recursiveDiff(av.(*value.Dict), bv.(*value.Dict), position)
				if l != nil {
					kv, _ := av.(*value.Dict).Get(key)
					l.Set(key, kv)
					kv, _ = bv.(*value.Dict).Get(key)
					r.Set(key, kv)
					left = append(left, l)
					right = append(right, r)
				}
			}
			return left, right, len(left) > 0 || len(right) > 0
		}
	}
	if !value.Equal(a, b) {
		return a, b, true
	}
	return nil, nil, false
}

// listByKey indexes a list of dicts by key; false when an item lacks it.
func listByKey(l []any, key string) (*value.Dict, bool) {
	out := value.NewDict(len(l))
	for _, e := range l {
		d, ok := e.(*value.Dict)
		if !ok {
			return nil, false
		}
		k, ok := d.Get(key)
		if !ok {
			return nil, false
		}
		out.Set(value.Str(k), d)
	}
	return out, true
}

// diffObjects compares the live object before and after an operation. The
// objects match when nothing but metadata.generation or
// metadata.resourceVersion differs, once the hidden fields are removed.
// diff holds before/after (without the hidden fields) when they differ.
func diffObjects(existing, instance *value.Dict, hidden []string) (bool, *value.Dict) {
	left, right := recursiveDiff(existing, instance, "")
	diff := value.NewDict(2)
	if left == nil {
		return true, diff
	}
	before, _ := hideFields(left, hidden).(*value.Dict)
	after, _ := hideFields(right, hidden).(*value.Dict)
	diff.Set("before", before)
	diff.Set("after", after)
	// As upstream, the test is on the diff with hidden_fields removed: a
	// change of hidden fields only is no change.
	if onlyKeys(before, "metadata") && onlyKeys(after, "metadata") {
		lm, _ := before.Get("metadata")
		rm, _ := after.Get("metadata")
		if subsetOf(lm, "generation", "resourceVersion") && subsetOf(rm, "generation", "resourceVersion") {
			return true, diff
		}
	}
	return false, diff
}

func onlyKeys(d *value.Dict, keys ...string) bool {
	if d.Len() != len(keys) {
		return false
	}
	for _, k := range keys {
		if !d.Has(k) {
			return false
		}
	}
	return true
}

func subsetOf(v any, allowed ...string) bool {
	d, ok := v.(*value.Dict)
	if !ok {
		return false
	}
	ok = true
	d.Each(func(k string, _ any) bool {
		found := false
		for _, a := range allowed {
			found = found || a == k
		}
		ok = ok && found
		return ok
	})
	return ok
}
