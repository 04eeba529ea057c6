package value

// MaxDepth is how deeply lists, tuples and dicts may nest in a value that
// templates build or keep. Python meets its recursion limit on such data
// (ansible-core 2.19 fails at a few hundred levels, at a depth that
// depends on the operation); cfzt-runner refuses at one fixed depth, far
// below where its own recursive walkers would exhaust the stack.
const MaxDepth = 1000

// TooDeep reports whether v nests more than MaxDepth levels. It never
// goes deeper than that itself, and it measures a list or dict shared at
// several places (a YAML alias, `ns.x + [ns.x]` in a loop) only once, so
// a value whose tree is exponential in its size is checked in time
// linear in its size.
func TooDeep(v any) bool {
	w := depthWalk{budget: 4096}
	_, deep, done := w.height(v, MaxDepth)
	if done {
		return deep
	}
	// Past the budget: again, remembering each list's and dict's height.
	w = depthWalk{budget: -1, heights: map[any]int{}}
	_, deep, _ = w.height(v, MaxDepth)
	return deep
}

// depthWalk is one check of TooDeep: budget counts the containers a walk
// without memory may visit (-1: no limit); heights remembers the height
// of each list and dict measured.
type depthWalk struct {
	budget  int
	heights map[any]int
}

// height measures how many levels of containers v has, when that is at
// most left; deep reports that it is more (and h is then meaningless);
// done is false when the budget ran out first.
func (w *depthWalk) height(v any, left int) (h int, deep, done bool) {
	var elems []any
	var d *Dict
	var key any
	switch x := v.(type) {
	case []any:
		elems = x
		if len(x) > 0 {
			key = listKey{&x[0], len(x)}
		}
	case Tuple:
		elems = x
		if len(x) > 0 {
			key = listKey{&x[0], len(x)}
		}
	case *Dict:
		d, key = x, x
	default:
		return 0, false, true
	}
	if left == 0 {
		return 0, true, true
	}
	if w.heights != nil && key != nil {
		if h, ok := w.heights[key]; ok {
			return h, h > left, true
		}
	} else if w.heights == nil {
		if w.budget--; w.budget < 0 {
			return 0, false, false
		}
	}
	top := 0
	visit := func(e any) bool {
		eh, edeep, edone := w.height(e, left-1)
		deep, done = edeep, edone
		top = max(top, eh)
		return !deep && done
	}
	deep, done = false, true
	if d != nil {
		d.Each(func(_ string, e any) bool { return visit(e) })
	} else {
		for _, e := range elems {
			if !visit(e) {
				break
			}
		}
	}
	if deep || !done {
		return 0, deep, done
	}
	if w.heights != nil && key != nil {
		w.heights[key] = top + 1
	}
	return top + 1, false, true
}

// listKey identifies a list by its first element's address and length.
type listKey struct {
	first *any
	n     int
}

// YAMLTooDeep reports where YAML source first opens a flow collection
// ([ or {) more than MaxDepth levels deep, before a parser sees it: the
// YAML library takes time quadratic in that depth (minutes for 20,000
// levels), where PyYAML fails at a few hundred with a RecursionError.
// Brackets are counted wherever they are, in strings and comments too,
// so that the check is a single pass; only a text with more than
// MaxDepth unclosed brackets can be refused by mistake.
func YAMLTooDeep(src []byte) (line, col int, deep bool) {
	depth, line, col := 0, 1, 0
	for _, c := range src {
		col++
		switch c {
		case '\n':
			line, col = line+1, 0
		case '[', '{':
			if depth++; depth > MaxDepth {
				return line, col, true
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return 0, 0, false
}
