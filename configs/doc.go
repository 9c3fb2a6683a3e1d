// Package configs is what the project's configurations share: the built-in
// training configurations (the YAML files beside this one), embedded so
// that the binary carries them and a run can name one instead of a file
// path; [FieldError], the error of a bad setting in any package; and
// [Checker], which collects them in the same words everywhere.
// Package train parses default.yaml as its defaults.
package configs
