// Package lang owns Parley's syntax tree: the node types with their source
// spans, the keyword table, the canonical printer behind `parley fmt`, the
// semantic checks behind `parley check`, and the diagnostics both report.
//
// lang is the bottom of the import graph: it imports only the standard
// library. The parser builds lang trees; ir, the interpreter, the code
// generators and the frontends consume them.
package lang
