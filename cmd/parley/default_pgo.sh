#!/bin/sh
# Writes default.pgo, the CPU profile `go build` uses to optimise parley
# (profile-guided optimisation, on by default for a main package with a
# default.pgo). It merges the profiles of the benchmarks that stand for
# parley's work: the interpreter on the 262,144-task halo and the 4,096-task
# halo under every network model, million-task collectives, parsing, trace
# lowering, value flow and partitioning. Run it from cmd/parley
# (`go generate ./cmd/parley`) after changes to those paths; it takes two and a
# half minutes on an idle 2-core machine.
set -eu
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
bench() { # package, benchmark pattern, iterations, profile name
	go test "$1" -run '^$' -bench "$2" -benchtime "$3" -cpu 1 -timeout 30m \
		-o "$dir/$4.test" -cpuprofile "$dir/$4.prof" >/dev/null
}
bench ./interp 'Halo3D262kGoal' 1x halo262k
bench ./interp 'Halo3D4096$|CollectiveMillion|NetworkModels|ManyOutstanding|MatchWildcards|FastForwardHalo3D4096' 2x interp
bench ./parser . 3x parser
bench ./frontend/trace/lower 'LowerStencil4096' 1x lower
bench ./frontend/valueflow 'Execute|Analyze$' 2x valueflow
bench ./partition 'KWay3DGrid1M' 1x partition
go tool pprof -proto "$dir"/*.prof >cmd/parley/default.pgo
