//go:build tools

// The Go programs of Pulumi's that this repository builds, pinned by this module's go.mod: the
// CLI and Pulumi's YAML language host (scripts/ensure-pulumi.sh, scripts/ensure-yaml.sh). They
// are one module graph with every other Go program of the repository (go.work at the root: the
// Node.js language host, the SDK generators, the generated Go SDK and its proof), so that a
// machine compiles Pulumi once: built alone at their own pins, the YAML host and the .NET
// generator each compiled most of Pulumi again.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
	_ "github.com/pulumi/pulumi/pkg/v3/cmd/pulumi"
)
