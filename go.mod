module github.com/parley-hpc/parley

go 1.26.8

require github.com/alecthomas/participle/v2 v2.1.4

require github.com/google/go-cmp v0.7.0 // indirect
