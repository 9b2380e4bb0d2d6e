// Package ir owns the resolved form of a checked Parley program: the API the
// interpreter and the code generators walk.
//
// Build turns a lang.Program into an ir.Program: every name is resolved to
// a parameter, a predeclared counter or a variable slot in a task's Frame;
// units are turned into byte and microsecond counts; statements keep their
// structure, so loops stay loops (one node, never n copies). Globals binds
// the program to a number of tasks and to parameter values, and Frame is
// one task's view of the program while it runs.
//
// Evaluation follows coNCePTuaL exactly. Integer context is the default:
// 64-bit integers, truncating at every step (24/5*5 = 20), MOD never
// negative, ** rounding toward zero, shifts by negative amounts shifting the
// other way. OUTPUTS, LOGS and BACKEND EXECUTES evaluate in floating-point
// context, and REAL(e) evaluates e there and rounds. Task sets are evaluated
// lazily: membership is tested and members are visited in ascending order
// without building lists of tasks, so programs scale to a million tasks.
//
// ir imports lang and the standard library only.
package ir
