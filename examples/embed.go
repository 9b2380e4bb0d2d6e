// Package examples holds the example programs that ship with Parley. They
// are embedded so that `parley run` has a default to run and so that every
// command can name an example without a checkout (e.g. `parley run
// halo3d.parley`). The package imports only the standard library.
package examples

import (
	"embed"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// FS holds every example program, by file name.
//
//go:embed *.parley README.md
var FS embed.FS

// Default is the example `parley run` runs when given no program.
const Default = "halo3d.parley"

// Read reads the program file at path or, if there is no such file, the
// embedded example of that name ("ring.parley", or "examples/ring.parley"
// as a checkout names it).
func Read(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if emb, embErr := FS.ReadFile(strings.TrimPrefix(path, "examples/")); embErr == nil {
			return emb, nil
		}
	}
	return src, err
}

// Names lists the embedded examples' file names.
func Names() []string {
	names, _ := fs.Glob(FS, "*.parley") // the pattern is valid
	return names
}
