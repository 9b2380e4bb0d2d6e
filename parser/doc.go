// Package parser turns Parley source text (.parley, or coNCePTuaL's .ncptl)
// into a lang syntax tree. It owns the lexer (case folding, singular and
// plural synonyms, number suffixes, '-' before keywords) and the
// participle/v2 grammar, and reports syntax errors as lang diagnostics with
// positions and hints.
//
// parser imports lang and participle; nothing in Parley imports parser
// except the commands and the frontends that read source text.
package parser
