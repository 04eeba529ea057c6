// Package template renders Ansible's Jinja2 templates. Package syntax parses
// them (gonja v2's lexer, a grammar of our own that follows Jinja2's); this
// package evaluates the nodes with the semantics ansible-core 2.19 gives
// them: insertion-ordered dicts, lazy undefined values, native result
// types, Jinja2's undefined and Markup objects, and the filters, tests and
// lookups that compute from their input alone, which live in one file per
// family (see families). The plugins that read files, run processes,
// fetch URLs or read the environment are engine/lookup's: a Library
// handed to New, which reaches the run through the plugin API on Ctx.
// This package does not import it; an engine made by New() alone is the
// language without I/O. Python's own value semantics (operators, str
// methods, codecs) are engine/py's.
package template
