package configs

import (
	"errors"
	"fmt"
)

// FieldError is a setting that is unknown, of the wrong type or out of
// range. Every package checks its own settings and returns this error;
// the loader of a config file puts the section in front of the key and
// adds the line.
type FieldError struct {
	// Key is the setting's key, or its key path in a config file, such as
	// "selfplay.games_per_iteration" or "eval.baselines[1]".
	Key string
	// Line is the setting's 1-based line in the YAML text, 0 when unknown
	// (a value that came from the defaults, or a config built in code).
	Line int
	// Msg says what is wrong, starting with a verb: "is 0: want 1 or more".
	Msg string
}

// Error returns "line 7: selfplay.games_per_iteration is 0: want 1 or more".
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s %s", e.Line, e.Key, e.Msg)
	}
	return e.Key + " " + e.Msg
}

// Errorf returns the FieldError of key with a message.
func Errorf(key, format string, args ...any) *FieldError {
	return &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Join returns nil for no problems, the problem itself for one, and all of
// them joined (one a line) for several.
func Join(problems []*FieldError) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return problems[0]
	}
	errs := make([]error, len(problems))
	for i, p := range problems {
		errs[i] = p
	}
	return errors.Join(errs...)
}
