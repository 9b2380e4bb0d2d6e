package dperf

import (
	"bytes"
	"strings"
)

// sniffLines is how many lines Sniff looks at.
const sniffLines = 32

// Sniff reports whether head, the start of a file, looks like a dPerf
// trace: lines "pRANK ACTION ..." with ranks written p0, p1, ... and the
// peers of point-to-point lines written the same way (p0 Isend p1 SIZE).
// SimGrid's TIT traces name peers by bare numbers, and its old ones also
// wrote ranks as p0; a file whose point-to-point lines have bare peers is
// left to the TIT reader, so that the two sniffers never both say yes.
func Sniff(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	lines := strings.Split(string(head), "\n")
	if len(lines) > 1 && !bytes.HasSuffix(head, []byte("\n")) {
		lines = lines[:len(lines)-1] // possibly cut short
	}
	seen := 0
	for _, text := range lines {
		text = strings.TrimSpace(text)
		if text == "" || text[0] == '#' {
			continue
		}
		if seen == sniffLines {
			break
		}
		seen++
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' })
		if len(fields) < 2 || !strings.HasPrefix(fields[0], "p") || !isAction(fields[1]) {
			return false
		}
		if _, ok := parseRankText(fields[0]); !ok {
			return false
		}
		switch strings.ToLower(fields[1]) {
		case "send", "isend", "recv", "irecv":
			if len(fields) < 3 || !strings.HasPrefix(fields[2], "p") {
				return false
			}
		}
	}
	return seen > 0
}
