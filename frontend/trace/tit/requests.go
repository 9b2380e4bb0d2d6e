package tit

import (
	"fmt"
	"strings"

	"github.com/parley-hpc/parley/frontend/trace"
)

// reqKey is what SimGrid files a request under (RequestStorage in
// smpi_replay.cpp): its sender, receiver and tag, as world ranks. A receive
// from any source or with any tag has trace.AnySource or trace.AnyTag there.
type reqKey struct{ src, dst, tag int }

// pending is one nonblocking call not yet completed.
type pending struct {
	call int // its number among the rank's nonblocking calls, from 1
	key  reqKey
	op   trace.Op
	line int
	done bool
}

// requests are a rank's outstanding nonblocking calls.
//
// In the current form "wait SRC DST TAG" completes the oldest outstanding
// request filed under that key (RequestStorage::pop takes the front of the
// key's list); in the old form "wait" completes the most recent one
// (get_reqq_self()->back()). waitall completes them all.
type requests struct {
	order []*pending // in issue order; completed ones are dropped lazily
	open  int
	byKey map[reqKey][]*pending // current form: per key, oldest first
}

func (q *requests) add(p *pending, keyed bool) {
	q.order = append(q.order, p)
	q.open++
	if keyed {
		if q.byKey == nil {
			q.byKey = map[reqKey][]*pending{}
		}
		q.byKey[p.key] = append(q.byKey[p.key], p)
	}
}

// popKey completes the oldest request filed under (src, dst, tag), or under
// a wildcard receive that (src, dst, tag) matches; nil if there is none.
// src may be trace.AnySource when the trace gives no sender.
func (q *requests) popKey(src, dst, tag int) *pending {
	keys := [4]reqKey{{src, dst, tag}, {trace.AnySource, dst, tag}, {src, dst, trace.AnyTag}, {trace.AnySource, dst, trace.AnyTag}}
	var best reqKey
	var found *pending
	for _, k := range keys {
		if list := q.byKey[k]; len(list) > 0 && (found == nil || list[0].call < found.call) {
			best, found = k, list[0]
		}
	}
	if found == nil {
		return nil
	}
	if list := q.byKey[best][1:]; len(list) > 0 {
		q.byKey[best] = list
	} else {
		delete(q.byKey, best)
	}
	q.complete(found)
	return found
}

// popLast completes the most recent outstanding request; nil if none.
func (q *requests) popLast() *pending {
	for len(q.order) > 0 {
		p := q.order[len(q.order)-1]
		q.order = q.order[:len(q.order)-1]
		if !p.done {
			q.complete(p)
			return p
		}
	}
	return nil
}

// complete marks p done, compacting order once most of it is done.
func (q *requests) complete(p *pending) {
	p.done = true
	q.open--
	if len(q.order) > 64 && q.open < len(q.order)/2 {
		kept := q.order[:0]
		for _, o := range q.order {
			if !o.done {
				kept = append(kept, o)
			}
		}
		clear(q.order[len(kept):])
		q.order = kept
	}
}

// popAll completes every outstanding request and returns them in issue
// order.
func (q *requests) popAll() []*pending {
	var out []*pending
	for _, p := range q.order {
		if !p.done {
			p.done = true
			out = append(out, p)
		}
	}
	clear(q.order)
	q.order, q.open = q.order[:0], 0
	clear(q.byKey)
	return out
}

// describe lists up to three outstanding requests for an error message.
func (q *requests) describe() string {
	if q.open == 0 {
		return "it has no outstanding isend or irecv"
	}
	var parts []string
	for _, p := range q.order {
		if p.done {
			continue
		}
		if len(parts) == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%v %s tag %s (line %d)", p.op, keyText(p), tagText(p.key.tag), p.line))
	}
	return fmt.Sprintf("its %d outstanding: %s", q.open, strings.Join(parts, ", "))
}

func keyText(p *pending) string {
	if p.op == trace.Isend {
		return fmt.Sprintf("to %d", p.key.dst)
	}
	if p.key.src == trace.AnySource {
		return "from any"
	}
	return fmt.Sprintf("from %d", p.key.src)
}

func tagText(tag int) string {
	if tag == trace.AnyTag {
		return "any"
	}
	return fmt.Sprint(tag)
}
