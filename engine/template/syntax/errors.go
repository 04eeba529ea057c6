package syntax

// SyntaxError is a template that does not parse, with Jinja2's message and
// the line and column of the token where parsing stopped.
type SyntaxError struct {
	Msg  string
	Line int
	Col  int
}

func (e *SyntaxError) Error() string { return e.Msg }
