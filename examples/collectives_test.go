package examples_test

import (
	"bytes"
	"io/fs"
	"reflect"
	"testing"

	"github.com/parley-hpc/parley/examples"
	"github.com/parley-hpc/parley/interp"
	"github.com/parley-hpc/parley/netmodel"
)

// TestExamplesWithoutCollectiveEvaluator: every example predicts the same,
// Result and output, with the interpreter's collective evaluator turned
// off.
func TestExamplesWithoutCollectiveEvaluator(t *testing.T) {
	names, _ := fs.Glob(examples.FS, "*.parley")
	plat, err := netmodel.Preset("ib-edr")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p := buildExample(t, name)
			var res [2]*interp.Result
			var out [2]bytes.Buffer
			for i, off := range []bool{true, false} {
				res[i], err = interp.Run(p, interp.Options{NumTasks: tasksFor(name), Platform: plat, Seed: 1, Output: &out[i], NoCollectiveEvaluator: off})
				if err != nil {
					t.Fatal(err)
				}
			}
			if !reflect.DeepEqual(res[0], res[1]) || out[0].String() != out[1].String() {
				t.Errorf("predicted %v (%d events) without the evaluator, %v (%d events) with it, or the output differs",
					res[0].Predicted, res[0].Events, res[1].Predicted, res[1].Events)
			}
		})
	}
}
