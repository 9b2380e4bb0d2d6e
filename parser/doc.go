// Package parser turns Parley source text (.parley, or coNCePTuaL's .ncptl)
// into a lang syntax tree. It owns the lexer (case folding, singular and
// plural synonyms, number suffixes, '-' before keywords) and the
// participle/v2 grammar, and reports syntax errors as lang diagnostics with
// positions and hints. Before the grammar recurses it refuses programs
// nested deeper than MaxNesting, so that no input can overflow the stack
// of the parser or of the passes over the tree after it, and, as its
// tokens show it, a program whose estimated parse memory passes
// Options.MaxMemory.
//
// parser imports lang, internal/memlimit and participle; nothing in
// Parley imports parser except the commands and the frontends that read
// source text.
package parser
