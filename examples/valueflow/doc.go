// Package valueflow holds the value-flow examples: serial C kernels that
// `parley analyze` reads, each with a hand-written MPI version, and the
// traffic those MPI versions were measured to send, so that the analyzer's
// accuracy test can set its predictions against real programs.
//
// The C sources are in kernels/ (a Go package's own directory may not hold
// C files without cgo) and mpicount/ holds the PMPI library that measures
// the MPI versions. valueflow_test.go builds each kernel, runs the MPI
// version under mpirun with mpicount on 2, 4 and 8 tasks, checks its
// checksum against the serial version's and its volumes against figures
// derived by hand from the decomposition, and compares them with the
// golden files testdata/KERNEL.json, which `go test -update` rewrites.
// Measured reads those golden files, so callers need no MPI. README.md
// describes the kernels, their decompositions and how volume is counted.
package valueflow

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
)

// Kernel is one example kernel and the run its volumes were measured on.
type Kernel struct {
	Name   string   // "matmul", "spmv", "jacobi2d", "histogram"
	Serial string   // the serial C source, relative to the repository root
	MPI    string   // its MPI version, relative to the repository root
	Args   []string // the command-line arguments of both versions in the measurements
	Tasks  []int    // the task counts measured
}

// Source is the directory of the C sources, relative to the repository
// root. kernels.h in it holds what the serial and MPI versions share.
const Source = "examples/valueflow/kernels"

var kernels = []Kernel{
	{Name: "matmul", Args: []string{"64"}},
	{Name: "spmv", Args: []string{"4096", "10"}},
	{Name: "jacobi2d", Args: []string{"64", "20"}},
	{Name: "histogram", Args: []string{"16384", "64", "10"}},
}

// Kernels lists the example kernels in a fixed order. The slice is the
// caller's to modify.
func Kernels() []Kernel {
	out := make([]Kernel, len(kernels))
	for i, k := range kernels {
		out[i] = Kernel{
			Name:   k.Name,
			Serial: Source + "/" + k.Name + ".c",
			MPI:    Source + "/" + k.Name + "_mpi.c",
			Args:   slices.Clone(k.Args),
			Tasks:  []int{2, 4, 8},
		}
	}
	return out
}

// Measurement is the traffic of a kernel's MPI version on one task count,
// as mpicount counts it (README.md, "How volume is counted"). Matrices are
// tasks x tasks, row = sender, in bytes.
type Measurement struct {
	Tasks           int              `json:"tasks"`
	TotalBytes      int64            `json:"total_bytes"`      // the sum of MatrixBytes
	MatrixBytes     [][]int64        `json:"matrix_bytes"`     // P2PBytes + CollectiveBytes
	P2PBytes        [][]int64        `json:"p2p_bytes"`        // point-to-point sends
	CollectiveBytes [][]int64        `json:"collective_bytes"` // collectives, as a flat algorithm moves them
	ExcludedBytes   int64            `json:"excluded_bytes"`   // sent between MPI_Pcontrol(0) and (1): set-up, not counted above
	Calls           map[string]int64 `json:"calls"`            // MPI calls counted, summed over tasks
}

// Golden is the content of a golden file, testdata/KERNEL.json.
type Golden struct {
	Kernel   string        `json:"kernel"`
	Args     []string      `json:"args"`
	Checksum string        `json:"checksum"` // what the serial version prints
	Results  []Measurement `json:"results"`  // one per task count, ascending
}

//go:embed testdata/*.json
var golden embed.FS

// ReadGolden returns the measurements recorded for the named kernel.
func ReadGolden(kernel string) (*Golden, error) {
	i := slices.IndexFunc(kernels, func(k Kernel) bool { return k.Name == kernel })
	if i < 0 {
		return nil, fmt.Errorf("valueflow: no kernel %q (Kernels lists them)", kernel)
	}
	name := "testdata/" + kernel + ".json"
	data, err := golden.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("valueflow: %s is missing: run go test ./examples/valueflow -update where Open MPI is installed: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("valueflow: %w", err)
	}
	var g Golden
	if err := json.Unmarshal(data, &g); err != nil {
		return nil, fmt.Errorf("valueflow: %s: %w", name, err)
	}
	if !slices.Equal(g.Args, kernels[i].Args) {
		return nil, fmt.Errorf("valueflow: %s was measured with arguments %q but the kernel now runs with %q: run go test ./examples/valueflow -update",
			name, g.Args, kernels[i].Args)
	}
	return &g, nil
}

// Measured returns the bytes the MPI version of the named kernel sent on
// the given number of tasks with the kernel's Args: the total and the
// tasks x tasks matrix (row = sender), point-to-point and collective
// traffic together, set-up excluded.
func Measured(kernel string, tasks int) (total int64, matrix [][]int64, err error) {
	g, err := ReadGolden(kernel)
	if err != nil {
		return 0, nil, err
	}
	for _, m := range g.Results {
		if m.Tasks == tasks {
			return m.TotalBytes, m.MatrixBytes, nil
		}
	}
	return 0, nil, fmt.Errorf("valueflow: %s was not measured on %d tasks (only on %v)", kernel, tasks, taskCounts(g))
}

func taskCounts(g *Golden) []int {
	var ts []int
	for _, m := range g.Results {
		ts = append(ts, m.Tasks)
	}
	return ts
}
