package tit

import (
	"bytes"
	"strings"
)

// sniffLines is how many lines Sniff looks at.
const sniffLines = 32

// Sniff reports whether head, the start of a file, looks like a TIT trace
// or an index of TIT trace files.
//
// A trace line is a rank, a TIT action and numeric arguments. Ranks
// written p0, p1, ... are also dPerf's; Sniff claims such a file only if a
// point-to-point line names its peer by a bare number, as TIT does (dPerf
// writes "p0 Isend p1 SIZE"), so that the two sniffers never both say yes.
// An index is lines of one word each that look like file paths.
func Sniff(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	lines := strings.Split(string(head), "\n")
	if len(lines) > 1 && !bytes.HasSuffix(head, []byte("\n")) {
		lines = lines[:len(lines)-1] // possibly cut short
	}
	seen, pRanks, barePeer := 0, false, false
	index := false
	for _, text := range lines {
		text = strings.TrimSpace(text)
		if text == "" || text[0] == '#' {
			continue
		}
		if seen == sniffLines {
			break
		}
		fields := strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' })
		if seen == 0 {
			_, isRank := parseRankText(fields[0])
			index = len(fields) == 1 && !isRank
		}
		seen++
		if index {
			if len(fields) != 1 || !looksLikePath(fields[0]) {
				return false
			}
			continue
		}
		if len(fields) < 2 || !isAction(fields[1]) {
			return false
		}
		if _, ok := parseRankText(fields[0]); !ok {
			return false
		}
		pRanks = pRanks || fields[0][0] == 'p'
		switch strings.ToLower(fields[1]) {
		case "send", "isend", "recv", "irecv":
			if len(fields) < 3 {
				return false
			}
			if strings.HasPrefix(fields[2], "p") {
				return false // dPerf's peers
			}
			barePeer = true
		}
	}
	return seen > 0 && (index || !pRanks || barePeer)
}

// looksLikePath reports whether an index line looks like the path of a
// trace file: a name with an extension or a directory in it, and none of
// the "key=value" of other formats' metadata.
func looksLikePath(s string) bool {
	return strings.ContainsAny(s, "./") && !strings.ContainsAny(s, "=:;,\"'")
}
