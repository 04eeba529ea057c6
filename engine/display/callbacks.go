package display

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
)

// Aggregate is an aggregate callback (callbacks_enabled): it sees tasks
// start and adds its summary below the recap.
type Aggregate interface {
	TaskStart(t *playbook.Task, name string, handler bool)
	Summary()
}

// CallbackOptions are the options of the aggregate callbacks.
type CallbackOptions struct {
	// Out is where they write (the stdout callback's writer).
	Out io.Writer
	// Verbose is the -v level.
	Verbose int
	// ProfileTasksLimit is profile_tasks' output_limit ("all" or a
	// number), ProfileTasksSort its sort_order, ProfileTasksSummaryOnly
	// and ProfileRolesSummaryOnly the summary_only options.
	ProfileTasksLimit, ProfileTasksSort              string
	ProfileTasksSummaryOnly, ProfileRolesSummaryOnly bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewAggregates loads the callbacks named in callbacks_enabled, in that
// order, as ansible-core does; a name cfzt-runner has no callback for is
// skipped with ansible-core's warning.
func NewAggregates(names []string, o CallbackOptions) ([]Aggregate, []*diag.Diagnostic) {
	if o.Now == nil {
		o.Now = time.Now
	}
	var out []Aggregate
	var warns []*diag.Diagnostic
	seen := map[string]bool{}
	for _, name := range names {
		short := strings.TrimPrefix(name, "ansible.posix.")
		if seen[short] {
			continue
		}
		seen[short] = true
		clock := &profileClock{now: o.Now, t0: o.Now()}
		clock.tn = clock.t0
		switch short {
		case "timer":
			out = append(out, &timerCallback{out: o.Out, now: o.Now, start: o.Now()})
		case "profile_tasks":
			out = append(out, &profileTasks{out: o.Out, clock: clock, limit: o.ProfileTasksLimit, sort: o.ProfileTasksSort,
				summaryOnly: o.ProfileTasksSummaryOnly, verbose: o.Verbose})
		case "profile_roles":
			out = append(out, &profileRoles{out: o.Out, clock: clock, summaryOnly: o.ProfileRolesSummaryOnly, totals: map[string]float64{}})
		case "json", "ansible.builtin.minimal", "minimal", "ansible.builtin.oneline", "oneline", "ansible.builtin.default", "default":
			// A stdout callback is skipped: there is one already (a
			// message ansible-core shows at -vv only).
		default:
			warns = append(warns, diag.Warn(fmt.Sprintf("Skipping callback plugin '%s', unable to load", name), nil))
		}
	}
	return out, warns
}

// WithAggregates is a display that shows what main shows, with the
// aggregate callbacks beside it: they see each task start after main
// and add their summaries once the playbook's stats are shown.
type WithAggregates struct {
	run.Display
	Aggregates []Aggregate
}

// TaskStart implements run.Display.
func (w *WithAggregates) TaskStart(name string, t *playbook.Task, handler bool) {
	w.Display.TaskStart(name, t, handler)
	for _, a := range w.Aggregates {
		a.TaskStart(t, name, handler)
	}
}

// StatsShown implements run.StatsEnder.
func (w *WithAggregates) StatsShown() {
	if e, ok := w.Display.(run.StatsEnder); ok {
		e.StatsShown()
	}
	for _, a := range w.Aggregates {
		a.Summary()
	}
}

// bannerTo writes ansible-core's banner.
func bannerTo(w io.Writer, msg string) {
	msg = strings.TrimSpace(msg)
	stars := 79 - textWidth(msg)
	if stars <= 3 {
		stars = 3
	}
	fmt.Fprintf(w, "\n%s %s\n", msg, strings.Repeat("*", stars))
}

// timerCallback is ansible.posix.timer: the playbook's duration.
type timerCallback struct {
	out   io.Writer
	now   func() time.Time
	start time.Time
}

func (c *timerCallback) TaskStart(*playbook.Task, string, bool) {}

func (c *timerCallback) Summary() {
	d := c.now().Sub(c.start)
	secs := int64(d / time.Second)
	days := secs / 86400
	secs %= 86400
	bannerTo(c.out, "PLAYBOOK RECAP")
	fmt.Fprintf(c.out, "Playbook run took %d days, %d hours, %d minutes, %d seconds\n\r\n", days, secs/3600, (secs/60)%60, secs%60)
}

// profileClock is the module-level clock of profile_tasks and
// profile_roles: the time they were loaded and of the last line.
type profileClock struct {
	now    func() time.Time
	t0, tn time.Time
}

// secondsToStr is the callbacks' H:MM:SS.mmm.
func secondsToStr(d time.Duration) string {
	ms := math.Floor(d.Seconds() * 1000)
	s, msr := math.Floor(ms/1000), math.Mod(ms, 1000)
	m, sr := math.Floor(s/60), math.Mod(s, 60)
	h, mr := math.Floor(m/60), math.Mod(m, 60)
	return fmt.Sprintf("%d:%02d:%02d.%03d", int64(h), int64(mr), int64(sr), int64(msr))
}

// filled pads msg with fill characters to the callbacks' width.
func filled(msg string, fill string) string {
	width := 79
	if msg != "" {
		msg += " "
		width = 79 - len([]rune(msg))
	}
	if width < 3 {
		width = 3
	}
	return msg + strings.Repeat(fill, width) + " "
}

// taskTime is the callbacks' timing line: the time, the time since the
// last line and since they were loaded.
func (c *profileClock) taskTime() string {
	now := c.now()
	line := fmt.Sprintf("%s (%s)%s%s", now.Format("Monday 02 January 2006  15:04:05 -0700"), secondsToStr(now.Sub(c.tn)), "       ", secondsToStr(now.Sub(c.t0)))
	c.tn = now
	return filled(line, "*")
}

// profileTasks is ansible.posix.profile_tasks.
type profileTasks struct {
	out         io.Writer
	clock       *profileClock
	limit, sort string
	summaryOnly bool
	verbose     int
	tasks       []*taskProfile
	byTask      map[*playbook.Task]*taskProfile
	current     *taskProfile
}

type taskProfile struct {
	name, path string
	started    time.Time
	elapsed    time.Duration
}

func (c *profileTasks) stamp() {
	if c.current != nil {
		c.current.elapsed += c.clock.now().Sub(c.current.started)
	}
}

func (c *profileTasks) TaskStart(t *playbook.Task, name string, _ bool) {
	if !c.summaryOnly {
		fmt.Fprintln(c.out, c.clock.taskTime())
	}
	c.stamp()
	if c.byTask == nil {
		c.byTask = map[*playbook.Task]*taskProfile{}
	}
	p, ok := c.byTask[t]
	if !ok {
		p = &taskProfile{name: strings.TrimSpace(name)}
		c.byTask[t] = p
		c.tasks = append(c.tasks, p)
	}
	p.started = c.clock.now()
	if c.verbose >= 2 {
		p.path = t.Pos.File + ":" + fmt.Sprint(t.Pos.Line)
	}
	c.current = p
}

func (c *profileTasks) Summary() {
	bannerTo(c.out, "TASKS RECAP")
	fmt.Fprintln(c.out, c.clock.taskTime())
	fmt.Fprintln(c.out, filled("", "="))
	c.stamp()
	c.current = nil
	results := append([]*taskProfile(nil), c.tasks...)
	switch c.sort {
	case "ascending":
		sort.SliceStable(results, func(i, j int) bool { return results[i].elapsed < results[j].elapsed })
	case "none":
	default:
		sort.SliceStable(results, func(i, j int) bool { return results[i].elapsed > results[j].elapsed })
	}
	if c.limit != "all" {
		n := 20
		fmt.Sscan(c.limit, &n)
		if n >= 0 && n < len(results) {
			results = results[:n]
		} else if n < 0 {
			results = results[:max(0, len(results)+n)]
		}
	}
	for _, r := range results {
		line := padRight(r.name+" ", 70, '-') + padLeft(fmt.Sprintf(" %.02fs", r.elapsed.Seconds()), 9, '-')
		if r.path != "" {
			line += "\n" + padRight(r.path+" ", 79, '-')
		}
		fmt.Fprintln(c.out, line)
	}
}

// profileRoles is ansible.posix.profile_roles: time by role (by action
// for tasks outside roles).
type profileRoles struct {
	out         io.Writer
	clock       *profileClock
	summaryOnly bool
	order       []string
	totals      map[string]float64
	current     string
	started     time.Time
}

func (c *profileRoles) stamp() {
	if c.current != "" {
		c.totals[c.current] += c.clock.now().Sub(c.started).Seconds()
	}
}

func (c *profileRoles) TaskStart(t *playbook.Task, _ string, _ bool) {
	if !c.summaryOnly {
		fmt.Fprintln(c.out, c.clock.taskTime())
	}
	c.stamp()
	key := t.Action
	if t.Role != nil {
		key = t.Role.Role.Name
	}
	if _, ok := c.totals[key]; !ok {
		c.order = append(c.order, key)
		c.totals[key] = 0
	}
	c.current, c.started = key, c.clock.now()
}

func (c *profileRoles) Summary() {
	bannerTo(c.out, "ROLES RECAP")
	fmt.Fprintln(c.out, c.clock.taskTime())
	fmt.Fprintln(c.out, filled("", "="))
	c.stamp()
	c.current = ""
	keys := append([]string(nil), c.order...)
	sort.SliceStable(keys, func(i, j int) bool { return c.totals[keys[i]] > c.totals[keys[j]] })
	total := 0.0
	for _, k := range keys {
		total += c.totals[k]
		fmt.Fprintln(c.out, padRight(k+" ", 70, '-')+padLeft(fmt.Sprintf(" %.02fs", c.totals[k]), 9, '-'))
	}
	fmt.Fprintln(c.out, filled("", "~"))
	fmt.Fprintln(c.out, padRight("total ", 70, '-')+padLeft(fmt.Sprintf(" %.02fs", total), 9, '-'))
}

// padRight and padLeft are Python's format alignment with a fill
// character ("{:-<70}", "{:->9}").
func padRight(s string, width int, fill rune) string {
	if n := width - len([]rune(s)); n > 0 {
		return s + strings.Repeat(string(fill), n)
	}
	return s
}

func padLeft(s string, width int, fill rune) string {
	if n := width - len([]rune(s)); n > 0 {
		return strings.Repeat(string(fill), n) + s
	}
	return s
}
