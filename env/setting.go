package env

// SettingError is a setting of [Rules] or [Options] out of range: its key
// (the field's YAML key, such as "max_plies", or "rules.max_plies" in
// Options) and what is wrong, starting with a verb ("is -1: want 0 (no
// limit) or more").
//
// It is env's form of the project's one error of a bad setting
// (configs.FieldError, with the key path and the line of a config file):
// env imports nothing else of the module, so it cannot return that type
// itself. configs.Checker.Section reads a SettingError as a FieldError,
// putting the section in front of its key, through its Setting method.
type SettingError struct {
	Key, Msg string
}

// Error returns "max_plies is -1: want 0 (no limit) or more".
func (e *SettingError) Error() string { return e.Key + " " + e.Msg }

// Setting returns the key and the message: what configs.Checker reads.
func (e *SettingError) Setting() (key, msg string) { return e.Key, e.Msg }
