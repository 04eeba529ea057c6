package module

import "github.com/cfzt/cfzt-runner/engine/template/syntax"

// Syntax is the template environment of the options: ansible-core's
// default with the options' whitespace control, newline sequence and the
// delimiters that are set.
func (o FileTemplate) Syntax() syntax.Config {
	cfg := syntax.Default()
	cfg.TrimBlocks, cfg.LStripBlocks = o.TrimBlocks, o.LStripBlocks
	if o.NewlineSequence != "" {
		cfg.NewlineSequence = o.NewlineSequence
	}
	for _, d := range []struct{ from, to *string }{
		{&o.BlockStart, &cfg.BlockStart}, {&o.BlockEnd, &cfg.BlockEnd},
		{&o.VariableStart, &cfg.VariableStart}, {&o.VariableEnd, &cfg.VariableEnd},
		{&o.CommentStart, &cfg.CommentStart}, {&o.CommentEnd, &cfg.CommentEnd},
	} {
		if *d.from != "" {
			*d.to = *d.from
		}
	}
	return cfg
}
