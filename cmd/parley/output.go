package main

import (
	"fmt"
	"io"
	"os"

	"github.com/parley-hpc/parley/internal/output"
)

// Output files: "-" is standard output, as it is standard input for
// inputs; paths are checked before the work that fills them is done.

// createOutput opens the output file at path, "-" being standard output.
func createOutput(e *env, path string) (io.WriteCloser, error) {
	return output.Create(path, e.stdout)
}

// writeOutput writes data to the output file at path, "-" being standard
// output.
func writeOutput(e *env, path string, data []byte) error {
	w, err := createOutput(e, path)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkDir makes sure dir exists and files can be created in it.
func checkDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".parley-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write into %s: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// sameFile reports whether paths a and b name one existing file.
func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
