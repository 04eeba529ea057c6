// Package template renders Ansible's Jinja2 templates. It lexes with gonja
// v2 and parses and evaluates with its own Jinja2 grammar and Python value
// semantics (engine/value), because Ansible's behaviour depends on details
// gonja's evaluator does not reproduce: insertion-ordered dicts, int versus
// float, lazy undefined values, conditional expressions anywhere, native
// result types, and Python's string escapes.
package template

// node is any element of a parsed template.
type node interface{}

// expr is an expression node; pos is its byte offset and line/col in the
// template source, for error messages.
type expr interface{}

type (
	textNode   struct{ text string }
	outputNode struct{ e expr }
	ifNode     struct {
		conds  []expr
		bodies [][]node // len(bodies) == len(conds) or len(conds)+1 (else)
	}
	forNode struct {
		targets   []string
		iter      expr
		cond      expr
		body      []node
		elseBody  []node
		recursive bool
	}
	setNode struct {
		target expr // *nameExpr or *attrExpr
		names  []string
		value  expr
		body   []node // block set
	}
	macroNode struct {
		name     string
		params   []string
		defaults []expr
		body     []node
	}
	// callNode is {% call %}: call invokes a macro that can call back the
	// block's body as caller().
	callNode struct {
		caller *macroNode
		call   *callExpr
	}
	withNode struct {
		names  []string
		values []expr
		body   []node
	}
	filterBlockNode struct {
		filters []*filterCall
		body    []node
	}
)

type (
	literalExpr struct{ v any }
	nameExpr    struct{ name string }
	listExpr    struct{ items []expr }
	tupleExpr   struct{ items []expr }
	dictExpr    struct{ keys, values []expr }
	attrExpr    struct {
		obj  expr
		attr string
	}
	itemExpr  struct{ obj, key expr }
	sliceExpr struct {
		obj               expr
		start, stop, step expr
	}
	callExpr struct {
		fn      expr
		args    []expr
		kwNames []string
		kwVals  []expr
		star    expr
		dstar   expr
	}
	binExpr struct {
		op   string
		l, r expr
	}
	andExpr struct{ l, r expr }
	orExpr  struct{ l, r expr }
	notExpr struct{ e expr }
	negExpr struct {
		e    expr
		plus bool
	}
	compareExpr struct {
		first expr
		ops   []string
		rest  []expr
	}
	condExpr   struct{ cond, then, els expr }
	filterExpr struct {
		e       expr
		filters []*filterCall
	}
	testExpr struct {
		e       expr
		name    string
		negate  bool
		args    []expr
		kwNames []string
		kwVals  []expr
	}
)

// filterCall is one `| name(args)` step.
type filterCall struct {
	name    string
	args    []expr
	kwNames []string
	kwVals  []expr
}
