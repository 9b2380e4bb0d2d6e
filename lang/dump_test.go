package lang_test

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/parley-hpc/parley/lang"
)

// dump renders a syntax tree as indented text, leaving out positions and
// source text, so that two trees can be compared quickly and a difference
// shown line by line.
func dump(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v), 0)
	return b.String()
}

var spanType = reflect.TypeOf(lang.Span{})

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	pad := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Struct:
		fmt.Fprintf(b, "%s {\n", v.Type().Name())
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type == spanType || (v.Type() == reflect.TypeOf(lang.Program{}) && (f.Name == "File" || f.Name == "Source" || f.Name == "Comments")) {
				continue
			}
			fmt.Fprintf(b, "%s  %s: ", pad, f.Name)
			dumpValue(b, v.Field(i), depth+1)
		}
		fmt.Fprintf(b, "%s}\n", pad)
	case reflect.Slice:
		if v.Len() == 0 {
			b.WriteString("[]\n")
			return
		}
		b.WriteString("[\n")
		for i := range v.Len() {
			fmt.Fprintf(b, "%s  ", pad)
			dumpValue(b, v.Index(i), depth+1)
		}
		fmt.Fprintf(b, "%s]\n", pad)
	default:
		fmt.Fprintf(b, "%#v\n", v.Interface())
	}
}

func lines(s string) []string { return strings.Split(s, "\n") }
