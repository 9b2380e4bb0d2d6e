// Package logfile owns coNCePTuaL's log-file format, which Parley's
// interpreter and its compiled benchmarks both write (one file per task):
// `# key: value` comment lines, then one CSV table per top-level statement
// (a row of headings, a row of aggregate labels such as "(median)", then
// the values), then a footer. It also computes the aggregates (mean,
// median, percentiles, ...) exactly as coNCePTuaL's run-time library does,
// and reads log files back for comparison.
//
// logfile imports only the standard library.
package logfile
