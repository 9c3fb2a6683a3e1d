// Package configs is what the project's configurations share: the built-in
// training configurations (the YAML files beside this one), embedded so
// that the binary carries them and a run can name one instead of a file
// path; [FieldError], the error of a bad setting in any package; [Checker],
// which collects them in the same words everywhere; and [Table], the
// settings of one struct by key (YAML key, spec key, query or flag name,
// older names as aliases) with their ranges, which the search's settings
// and the baselines' share.
//
// One validation style: every package's Validate reports every setting out
// of range as a FieldError naming its key and value and what is allowed,
// through a Checker; the loader of a config file puts the section in front
// of the key ([Checker.Section]) and adds the line. Package env imports
// nothing else of the module, so it cannot return a FieldError: it returns
// its own env.SettingError (a key and a message), which Checker.Section
// reads as one through its Setting method. That keeps env at the bottom of
// the imports and still gives one error, in one wording, to every caller.
// Package train/runconfig parses default.yaml as its defaults.
package configs
