package configs

import _ "embed"

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

// Lookup returns the built-in configuration called name ("default" or
// "smoke"), with ok false for any other name. The bytes are shared: do not
// change them.
func Lookup(name string) (data []byte, ok bool) {
	switch name {
	case "default":
		return Default, true
	case "smoke":
		return Smoke, true
	}
	return nil, false
}

// Names lists the built-in configurations in alphabetical order.
func Names() []string {
	return []string{"default", "smoke"}
}
