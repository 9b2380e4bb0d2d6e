package interp

import "github.com/parley-hpc/parley/ir"

// A face is a send statement whose every part is asynchronous and found
// without evaluating anything twice: ALL TASKS t ASYNCHRONOUSLY SEND ... TO
// TASK f(t), each task posting its implied receives from the sources the
// statement's cached pattern names and making at most one send, to the
// target the pattern names (the halo's six statements a step). Such a
// statement never blocks, so its task needs no activity: it posts its
// receives and sends at once, in the order the activity would, and when its
// NIC or CPU is still busy before the send it holds faceSending and keeps
// the send in its point-to-point state until it resumes. Every task of a
// 262,144-task halo built an activity and appended two operations to it for
// each face and read them back when it resumed.

// faceSending is the activity of a task whose face waits for its CPU or
// NIC before its one send (p2pState.face). It is a sentinel, like
// doneActivity: no task owns it and it is never pooled.
var faceSending = &activity{}

// isFace reports whether every task's part in st can be taken as a face's:
// both sides asynchronous, the message the same from every sender and
// reading nothing that differs between evaluations (so that finding the
// send again when a task resumes finds the same send), one target per task,
// no Observer (which is told of each operation of an activity). Worked out
// once per statement.
func (s *Sim) isFace(st *ir.Send) bool {
	id := st.ID()
	if id >= len(s.faces) {
		s.faces = append(s.faces, make([]uint8, len(s.stmts)-len(s.faces))...)
	}
	if v := s.faces[id]; v != 0 {
		return v == 1
	}
	_, dynamic := ir.Uses(st.Msg)
	ok := st.Async && st.RecvAsync && !st.Unsuspecting && !dynamic &&
		st.Target.Kind == ir.SingleSet && s.opts.Observer == nil &&
		s.senderFree(st, st.Source, st.Target, st.Recv)
	s.faces[id] = 2
	if ok {
		s.faces[id] = 1
	}
	return ok
}

// face takes task t's part in face statement st (see isFace) as sendStmt's
// activity would: the same evaluations in the same order, the receives,
// then the send. ok is false where t's part is not a face's (no cached
// pattern, processors reassigned, several messages to send); nothing has
// happened then but evaluations, which read nothing that changes, and the
// caller takes the general path. Otherwise finished reports whether the
// statement is done, as activity.run does.
func (s *Sim) face(t *task, st *ir.Send) (finished, ok bool) {
	f := t.frame()
	if f.Procs != nil {
		return false, false
	}
	senders, p := s.sendersTo(t, st, st.Source, st.Target)
	if p == nil {
		return false, false
	}
	var recvCount, recvBytes int64
	var recvTag int32
	if len(senders) > 0 {
		recvCount, recvBytes, recvTag = s.message(st, true, st.Recv, f)
	}
	dst := int64(-1)
	var sendCount, sendBytes int64
	var sendTag int32
	if st.Source.Contains(f, f.Task, -1) {
		if dst, ok = p.target(f, st.Target); !ok {
			return false, false
		}
		if dst >= 0 {
			sendCount, sendBytes, sendTag = s.message(st, false, st.Msg, f)
		}
	}
	if sendCount > 1 {
		return false, false
	}
	if recvCount <= 0 && sendCount <= 0 {
		s.tookNoPart()
		return true, true
	}
	stmt := ref(st)
	if recvCount > 0 {
		for _, src := range senders {
			for range recvCount {
				t.issueAsync(stmt)
				req, r := s.newReq(stmt)
				r.src, r.tag, r.bytes, r.mode, r.counted = src, recvTag, recvBytes, modeAsync, true
				s.postRecv(t, req)
			}
		}
	}
	if sendCount <= 0 {
		return true, true
	}
	return s.faceSend(t, faceMsg{bytes: sendBytes, dst: int32(dst), tag: sendTag}, stmt), true
}

// faceSend makes task t's one send of a face, when its CPU and NIC allow,
// and reports whether the statement is done; otherwise t holds faceSending
// (waiting to send, the send kept in its point-to-point state) or
// issuedActivity (sent, waiting for its CPU), as an activity would be held
// or retired.
func (s *Sim) faceSend(t *task, m faceMsg, stmt stmtRef) bool {
	if at := t.sendReady(); at > s.now {
		s.resumeAt(t, at)
		t.act = faceSending
		t.p2p().face = m
		return false
	}
	t.issueAsync(stmt)
	s.send(t, m.dst, m.bytes, m.tag, true, modeAsync, stmt)
	if t.cpuFree > s.now {
		s.resumeAt(t, t.cpuFree)
		t.act = issuedActivity
		return false
	}
	return true
}

// resumeFace goes on with the face task t waits in (t.act is faceSending)
// with the send it kept: its statement is still the one at t.pc.
func (s *Sim) resumeFace(t *task) bool {
	return s.faceSend(t, t.pt.face, ref(s.code[t.pc].stmt))
}
