// Package output opens the files commands write, where "-" means standard
// output, as it means standard input for inputs.
//
// output imports only the standard library.
package output

import (
	"fmt"
	"io"
	"os"
)

// Create opens the output file at path for writing, "-" being stdout
// (which closing leaves open). A directory is refused by name.
func Create(path string, stdout io.Writer) (io.WriteCloser, error) {
	if path == "-" {
		return nopCloser{stdout}, nil
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory; name a file", path)
	}
	return os.Create(path)
}

// nopCloser is standard output as an output file.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
