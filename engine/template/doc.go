// Package template renders Ansible's Jinja2 templates. Package syntax parses
// them (gonja v2's lexer, a grammar of our own that follows Jinja2's); this
// package evaluates the nodes with the semantics ansible-core 2.19 gives
// them: insertion-ordered dicts, lazy undefined values, native result
// types, Jinja2's undefined and Markup objects, and every filter, test and
// lookup, which live in one file per family (see families). Python's own
// value semantics (operators, str methods, codecs) are engine/py's.
package template
