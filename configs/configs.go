package configs

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// Default is default.yaml: a complete, commented configuration for a useful
// run on a small machine.
//
//go:embed default.yaml
var Default []byte

// Smoke is smoke.yaml: a tiny run whose iterations take seconds, for tests
// and for checking a setup end to end.
//
//go:embed smoke.yaml
var Smoke []byte

// builtin holds every configuration of this folder; a file's name without
// .yaml is its name for Lookup.
//
//go:embed *.yaml
var builtin embed.FS

// Lookup returns the built-in configuration called name (see Names), with
// ok false for any other name. The bytes are shared: do not change them.
func Lookup(name string) (data []byte, ok bool) {
	if !slices.Contains(Names(), name) {
		return nil, false
	}
	data, err := builtin.ReadFile(name + ".yaml")
	return data, err == nil
}

// Names lists the built-in configurations in alphabetical order: default,
// long and smoke.
func Names() []string {
	files, _ := fs.Glob(builtin, "*.yaml") // the pattern is valid: no error
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(f, ".yaml")
	}
	return names
}
