// Package examples holds the example programs that ship with Parley. They
// are embedded so that `parley run` has a default to run and so that every
// command can name an example without a checkout (e.g. `parley run
// halo3d.parley`). The package imports nothing.
package examples

import "embed"

// FS holds every example program, by file name.
//
//go:embed *.parley README.md
var FS embed.FS

// Default is the example `parley run` runs when given no program.
const Default = "halo3d.parley"
