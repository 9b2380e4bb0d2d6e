package netmodel

import (
	"errors"
	"fmt"
	"math"
)

// The methods below take a task and the number of tasks in the run; they
// expect a valid machine (see Validate) and 0 <= task < numTasks.

// mappings lists the task placements, each named by its String.
var mappings = []Mapping{Block, Cyclic}

// String returns the name of the mapping in platform files: "block" or
// "cyclic".
func (m Mapping) String() string {
	switch m {
	case Block:
		return "block"
	case Cyclic:
		return "cyclic"
	}
	return fmt.Sprintf("Mapping(%d)", int(m))
}

// NodeCount returns the number of nodes numTasks tasks occupy:
// numTasks / TasksPerNode, rounded up (without overflow, however large
// TasksPerNode is).
func (m *Machine) NodeCount(numTasks int64) int64 {
	if numTasks <= 0 {
		return 0
	}
	return (numTasks-1)/int64(m.TasksPerNode) + 1
}

// NodeOf returns the node that task runs on: task / TasksPerNode under the
// block mapping, task mod NodeCount(numTasks) under the cyclic one.
func (m *Machine) NodeOf(task, numTasks int64) int64 {
	if m.Mapping == Cyclic {
		return task % m.NodeCount(numTasks)
	}
	return task / int64(m.TasksPerNode)
}

// SameNode reports whether tasks a and b run on the same node.
func (m *Machine) SameNode(a, b, numTasks int64) bool {
	return m.NodeOf(a, numTasks) == m.NodeOf(b, numTasks)
}

// GroupOf returns the group that node (counted from 0) belongs to. Groups
// take nodes in order; a group with Count 0 takes all the rest. If every
// group has a fixed count and node lies beyond them all, it belongs to the
// last group, as if that group were as large as needed.
func (m *Machine) GroupOf(node int64) *NodeGroup {
	for i := range m.Nodes {
		g := &m.Nodes[i]
		if g.Count == 0 || node < int64(g.Count) {
			return g
		}
		node -= int64(g.Count)
	}
	return &m.Nodes[len(m.Nodes)-1]
}

// groupOfTask returns the group of the node that task runs on.
func (m *Machine) groupOfTask(task, numTasks int64) *NodeGroup {
	return m.GroupOf(m.NodeOf(task, numTasks))
}

// ComputeFor returns how long task takes for a COMPUTES FOR d: d divided
// by the speed of its node, rounded to the nearest picosecond.
func (m *Machine) ComputeFor(task, numTasks int64, d Duration) Duration {
	return roundPicos(float64(d) / m.groupOfTask(task, numTasks).Speed)
}

// Work returns how long task takes for flops floating-point operations and
// bytes of memory traffic, by the roofline model: the slower of the two at
// the task's share of its node, 1/TasksPerNode of the node's flop rate and
// memory bandwidth (whether or not the node is full). It is rounded to the
// nearest picosecond.
func (m *Machine) Work(task, numTasks, flops, bytes int64) Duration {
	g := m.groupOfTask(task, numTasks)
	share := float64(m.TasksPerNode) * float64(Second)
	return roundPicos(max(
		float64(max(flops, 0))*share/g.FlopRate,
		float64(max(bytes, 0))*share/g.MemBandwidth))
}

// Touch returns how long task takes to move bytes of memory traffic at its
// share of its node's memory bandwidth.
func (m *Machine) Touch(task, numTasks, bytes int64) Duration {
	return m.Work(task, numTasks, 0, bytes)
}

// Validate reports the first problem with the machine, naming the field
// as a platform file does.
func (m *Machine) Validate() error {
	switch {
	case m.TasksPerNode < 1:
		return fieldError("machine.tasks_per_node", fmt.Errorf("%d is less than 1", m.TasksPerNode))
	case m.Mapping != Block && m.Mapping != Cyclic:
		return fieldError("machine.mapping", fmt.Errorf("%v is not a mapping", m.Mapping))
	case m.IntSize < 1:
		return fieldError("machine.int_size", fmt.Errorf("%d is less than 1", m.IntSize))
	case m.PageSize < 1:
		return fieldError("machine.page_size", fmt.Errorf("%d is less than 1", m.PageSize))
	case len(m.Nodes) == 0:
		return fieldError("machine.nodes", errors.New("need at least one node group"))
	}
	for i, g := range m.Nodes {
		field := fmt.Sprintf("machine.nodes[%d].", i)
		switch {
		case g.Count < 0:
			return fieldError(field+"count", fmt.Errorf("%d is negative", g.Count))
		case g.Count == 0 && i < len(m.Nodes)-1:
			return fieldError(field+"count", errors.New("0 (all remaining nodes) is only allowed in the last group"))
		case !isPositive(g.FlopRate):
			return fieldError(field+"flops", fmt.Errorf("%g is not a positive rate", g.FlopRate))
		case !isPositive(g.MemBandwidth):
			return fieldError(field+"memory_bandwidth", fmt.Errorf("%g is not a positive bandwidth", g.MemBandwidth))
		case !isPositive(g.Speed):
			return fieldError(field+"speed", fmt.Errorf("%g is not a positive speed", g.Speed))
		}
	}
	return nil
}

// isPositive reports whether x is positive and finite.
func isPositive(x float64) bool { return x > 0 && !math.IsInf(x, 1) }
