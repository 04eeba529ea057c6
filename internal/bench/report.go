package bench

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// stats are the median, minimum and maximum of a series.
type stats struct{ med, min, max float64 }

func summarize(xs []float64) stats {
	if len(xs) == 0 {
		return stats{}
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return stats{med: med, min: s[0], max: s[n-1]}
}

// seconds formats a duration in seconds with a precision that suits it.
func seconds(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.1f s", x)
	case x >= 1:
		return fmt.Sprintf("%.2f s", x)
	default:
		return fmt.Sprintf("%.0f ms", x*1000)
	}
}

func mib(kb float64) string { return fmt.Sprintf("%.0f MiB", kb/1024) }

// mibOrEmpty is mib, or "" for no value.
func mibOrEmpty(kb float64) string {
	if kb == 0 {
		return ""
	}
	if kb < 10*1024 {
		return fmt.Sprintf("%.1f MiB", kb/1024)
	}
	return mib(kb)
}

func ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "–"
	}
	r := a / b
	if r >= 10 {
		return fmt.Sprintf("%.0f×", r)
	}
	return fmt.Sprintf("%.1f×", r)
}

// Markdown renders the results of one scenario as a table with notes.
func (b *Bench) Markdown(sc *Scenario, results []*Result, setupErr error) string {
	var w strings.Builder
	fmt.Fprintf(&w, "### %d. %s\n\n", sc.ID, sc.Title)
	if setupErr != nil {
		fmt.Fprintf(&w, "%s\n\n", setupErr)
		return w.String()
	}
	a, c := b.Runners[0].Name, b.Runners[1].Name
	da, dc := a, c // as the headings name them
	if sc.Runtimes[0] != "" {
		da, dc = sc.Runtimes[0], sc.Runtimes[1]
	}
	fmt.Fprintf(&w, "| case | %s wall, median (min–max) | %s wall, median (min–max) | wall ratio | %s peak RSS | %s peak RSS | RSS ratio | private RSS, %s / %s (ratio) | API requests per run (%s / %s) |\n", da, dc, da, dc, da, dc, da, dc)
	w.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	notes := sharedNotes(results)
	shared := map[string]bool{}
	for _, n := range notes {
		shared[n] = true
	}
	for _, res := range results {
		for _, ph := range res.Phases {
			name := res.Case
			if ph != "" {
				name += " — " + ph
			}
			row := []string{name}
			var walls, rss, anon [2]stats
			var reqs [2]string
			for i, r := range []string{a, c} {
				var ws, rs, as []float64
				counts := map[string][]float64{}
				for _, s := range res.Samples[r][ph] {
					ws = append(ws, s.Wall.Seconds())
					rs = append(rs, float64(s.RSSKB))
					if s.AnonKB > 0 {
						as = append(as, float64(s.AnonKB))
					}
					for k, v := range s.Requests {
						counts[k] = append(counts[k], float64(v))
					}
				}
				walls[i], rss[i], anon[i] = summarize(ws), summarize(rs), summarize(as)
				reqs[i] = countsText(counts)
				if len(ws) == 0 {
					walls[i] = stats{}
				}
			}
			for i := range 2 {
				if walls[i].med == 0 {
					row = append(row, "not run")
					continue
				}
				row = append(row, fmt.Sprintf("%s (%s–%s)", seconds(walls[i].med), seconds(walls[i].min), seconds(walls[i].max)))
			}
			row = append(row, ratio(walls[0].med, walls[1].med))
			for i := range 2 {
				if rss[i].med == 0 {
					row = append(row, "–")
					continue
				}
				row = append(row, fmt.Sprintf("%s (%s–%s)", mib(rss[i].med), mib(rss[i].min), mib(rss[i].max)))
			}
			row = append(row, ratio(rss[0].med, rss[1].med))
			if anon[0].med == 0 && anon[1].med == 0 {
				row = append(row, "–")
			} else {
				row = append(row, fmt.Sprintf("%s / %s (%s)", orDash(mibOrEmpty(anon[0].med)), orDash(mibOrEmpty(anon[1].med)), ratio(anon[0].med, anon[1].med)))
			}
			if reqs[0] == "" && reqs[1] == "" {
				row = append(row, "–")
			} else {
				row = append(row, orDash(reqs[0])+" / "+orDash(reqs[1]))
			}
			fmt.Fprintf(&w, "| %s |\n", strings.Join(row, " | "))
		}
		for _, n := range res.Notes {
			if !shared[n] {
				notes = append(notes, res.Case+": "+n)
			}
		}
	}
	w.WriteString("\n")
	for _, n := range notes {
		fmt.Fprintf(&w, "- %s\n", n)
	}
	if len(notes) > 0 {
		w.WriteString("\n")
	}
	return w.String()
}

// sharedNotes are the notes every case of a scenario has, printed once
// rather than under each case, when there are several cases.
func sharedNotes(results []*Result) []string {
	if len(results) < 2 {
		return nil
	}
	var out []string
	for _, n := range results[0].Notes {
		all := true
		for _, res := range results[1:] {
			all = all && contains(res.Notes, n)
		}
		if all {
			out = append(out, n)
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// countsText renders median request counts by kind.
func countsText(counts map[string][]float64) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, summarize(counts[k]).med))
	}
	return strings.Join(parts, ", ")
}

// Header is the report's preamble: when, where, what was run.
func (b *Bench) Header(machine string) string {
	var w strings.Builder
	fmt.Fprintf(&w, "# cfzt-runner benchmarks\n\n")
	fmt.Fprintf(&w, "- date: %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&w, "- machine: %s\n", machine)
	for _, v := range b.Versions {
		fmt.Fprintf(&w, "- %s\n", v)
	}
	fmt.Fprintf(&w, "- runs: %d measured per runner and case after %d warm-up, interleaved (%s, %s, %s, %s, …)\n",
		b.Runs, b.Warmup, b.Runners[0].Name, b.Runners[1].Name, b.Runners[0].Name, b.Runners[1].Name)
	fmt.Fprintf(&w, "- wall: elapsed time of the command from start to exit; peak RSS: its ru_maxrss (the largest process of its tree, file-backed pages included); private RSS: the largest RssAnon of the command's own process, sampled every 2 ms; all three taken by cmd/cfzt-measure; ratio: %s median / %s median\n\n",
		b.Runners[0].Name, b.Runners[1].Name)
	return w.String()
}
