package stdlib

import "embed"

// Platforms holds the platform presets as platforms/NAME.toml.
//
//go:embed platforms/*.toml
var Platforms embed.FS
