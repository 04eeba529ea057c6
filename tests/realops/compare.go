package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// compareCmd prints a Markdown report of two results of the same operator.
func compareCmd(args []string) error {
	if len(args) != 2 {
		return errors.New("compare needs two result files")
	}
	var rs [2]*Result
	for i, f := range args {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		rs[i] = &Result{}
		if err := json.Unmarshal(data, rs[i]); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		// Results of older harness builds kept a generated pod's suffix.
		objs := map[string]map[string]any{}
		for k, v := range rs[i].Objects {
			dropAllocated(strings.SplitN(k, "/", 2)[0], v)
			objs[oldPodSuffix.ReplaceAllString(k, "-HASH-*")] = v
		}
		rs[i].Objects = objs
		// The log also holds what happened after the dump (the CR's
		// deletion): it is read only for results that lack the tasks.
		if rs[i].Log != "" && rs[i].LastTask == "" {
			if last, failed := lastTasks(rs[i].Log); last != "" {
				rs[i].LastTask, rs[i].FailedTask = last, failed
			}
		}
	}
	fmt.Print(report(rs[0], rs[1]))
	return nil
}

var oldHidden = regexp.MustCompile(`\\u003c(\d+) chars\\u003e`)

var oldPodSuffix = regexp.MustCompile(`-HASH-[a-z0-9]{5}$`)

func secs(v float64) string {
	if v < 0 {
		return "never"
	}
	return fmt.Sprintf("%.1f s", v)
}

func report(a, b *Result) string {
	var w strings.Builder
	fmt.Fprintf(&w, "### %s\n\n", a.Operator)
	fmt.Fprintf(&w, "| | %s | %s |\n|---|---|---|\n", a.Runtime, b.Runtime)
	row := func(name string, f func(r *Result) string) {
		fmt.Fprintf(&w, "| %s | %s | %s |\n", name, esc(f(a)), esc(f(b)))
	}
	row("outcome", func(r *Result) string { return r.StopReason })
	row("time to first Successful", func(r *Result) string { return secs(r.FirstSuccessful) })
	row("time to the first Failure (end of a failed first run)", func(r *Result) string { return secs(r.FirstFailure) })
	row("time to the last change (no success)", func(r *Result) string { return secs(r.Stopped) })
	row("last task logged", func(r *Result) string { return r.LastTask })
	row("last failed task", func(r *Result) string { return r.FailedTask })
	row("conditions", func(r *Result) string { return conds(r) })
	sa, sb := flatten(a.Status), flatten(b.Status)
	var sd []string
	for _, p := range unionKeys(sa, sb) {
		if sa[p] != sb[p] {
			sd = append(sd, fmt.Sprintf("%s: %s / %s", p, clip(sa[p]), clip(sb[p])))
		}
	}
	if len(sd) == 0 {
		fmt.Fprintf(&w, "| status besides conditions | same (%d fields) | same |\n", len(sa))
	} else {
		fmt.Fprintf(&w, "| status besides conditions | %d differences: %s | |\n", len(sd), esc(strings.Join(sd, "; ")))
	}
	row("objects in the namespace", func(r *Result) string { return fmt.Sprint(len(r.Objects)) })
	row("peak private memory of the process tree", func(r *Result) string {
		return fmt.Sprintf("%.1f MiB (%d processes)", r.Memory.PeakPrivateMiB, r.Memory.PeakProcs)
	})
	row("peak PSS of the process tree", func(r *Result) string { return fmt.Sprintf("%.1f MiB", r.Memory.PeakPSSMiB) })
	row("finalizers on the CR", func(r *Result) string { return strings.Join(r.Delete.Finalizers, ", ") })
	row("CR gone after delete", func(r *Result) string { return secs(r.Delete.Gone) })
	row("left after delete + GC", func(r *Result) string { return strings.Join(r.Delete.Remaining, ", ") })
	w.WriteString("\n")

	keys := map[string]bool{}
	for k := range a.Objects {
		keys[k] = true
	}
	for k := range b.Objects {
		keys[k] = true
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	fmt.Fprintf(&w, "Objects (%s / %s):\n\n", a.Runtime, b.Runtime)
	for _, k := range names {
		oa, oka := a.Objects[k]
		ob, okb := b.Objects[k]
		switch {
		case !okb:
			fmt.Fprintf(&w, "- `%s`: only %s\n", k, a.Runtime)
		case !oka:
			fmt.Fprintf(&w, "- `%s`: only %s\n", k, b.Runtime)
		default:
			fa, fb := flatten(oa), flatten(ob)
			var diffs []string
			for _, p := range unionKeys(fa, fb) {
				va, ina := fa[p]
				vb, inb := fb[p]
				switch {
				case !inb:
					diffs = append(diffs, fmt.Sprintf("`%s` only %s (%s)", p, a.Runtime, clip(va)))
				case !ina:
					diffs = append(diffs, fmt.Sprintf("`%s` only %s (%s)", p, b.Runtime, clip(vb)))
				case va != vb:
					diffs = append(diffs, fmt.Sprintf("`%s`: %s / %s", p, clip(va), clip(vb)))
				}
			}
			if len(diffs) == 0 {
				fmt.Fprintf(&w, "- `%s`: same\n", k)
			} else {
				fmt.Fprintf(&w, "- `%s`: %d differences\n", k, len(diffs))
				for _, d := range diffs {
					fmt.Fprintf(&w, "  - %s\n", d)
				}
			}
		}
	}
	return w.String()
}

func conds(r *Result) string {
	var parts []string
	for _, c := range r.Conditions {
		s := fmt.Sprintf("%v=%v (%v)", c["type"], c["status"], c["reason"])
		if m, _ := c["message"].(string); m != "" {
			s += ": " + clip(m)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func esc(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

func clip(s string) string {
	s = strings.ReplaceAll(s, "\n", "\\n")
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// flatten maps each leaf of v to its path.
func flatten(v any) map[string]string {
	out := map[string]string{}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				out[p] = "{}"
			}
			for k, x := range t {
				walk(p+"."+k, x)
			}
		case []any:
			if len(t) == 0 {
				out[p] = "[]"
			}
			for i, x := range t {
				walk(fmt.Sprintf("%s[%d]", p, i), x)
			}
		default:
			b, _ := json.Marshal(t)
			// Results of older harness builds wrote hidden values as <N chars>.
			out[p] = oldHidden.ReplaceAllString(string(b), "($1 chars)")
		}
	}
	walk("", v)
	return out
}

func unionKeys(a, b map[string]string) []string {
	seen := map[string]bool{}
	var ks []string
	for k := range a {
		seen[k] = true
		ks = append(ks, k)
	}
	for k := range b {
		if !seen[k] {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}
