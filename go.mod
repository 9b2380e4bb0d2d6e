module github.com/parley-hpc/parley

go 1.26.8

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/google/go-cmp v0.7.0
)
