// Package stdlib holds what Parley ships besides code: platform presets
// (platforms/*.toml, described in platforms/README.md), embedded so that a
// binary needs no checkout to find them. The package imports nothing but
// embed.
package stdlib
