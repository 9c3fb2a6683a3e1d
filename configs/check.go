package configs

import "errors"

// Checker collects the problems of a configuration as FieldErrors, in
// the words every package uses for a value out of range ("is 0: want 1 or
// more"). The zero value is ready; [Checker.Err] is the verdict.
type Checker struct{ problems []*FieldError }

// Check records a problem at key unless ok; the message follows the key,
// starting with a verb ("is %d: want ...").
func (ch *Checker) Check(ok bool, key, format string, args ...any) {
	if !ok {
		ch.problems = append(ch.problems, Errorf(key, format, args...))
	}
}

// AtLeast records a problem unless v >= lo.
func (ch *Checker) AtLeast(key string, v, lo int) {
	ch.Check(v >= lo, key, "is %d: want %d or more", v, lo)
}

// Between records a problem unless lo <= v <= hi.
func (ch *Checker) Between(key string, v, lo, hi int) {
	ch.Check(v >= lo && v <= hi, key, "is %d: want %d to %d", v, lo, hi)
}

// InRange records a problem unless lo <= v <= hi; NaN, which no
// comparison would catch, is one too.
func (ch *Checker) InRange(key string, v, lo, hi float64) {
	ch.Check(v >= lo && v <= hi, key, "is %v: want %v to %v", v, lo, hi)
}

// Section records the problems a section's own Validate found: field
// errors get the section's key in front ("search" + "c_puct"), and so do
// the setting errors of a package that cannot import this one (env's
// SettingError, read through its Setting method); any other error is put
// on the section itself.
func (ch *Checker) Section(key string, err error) {
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var fe *FieldError
		var se setting
		switch {
		case errors.As(e, &fe):
			ch.problems = append(ch.problems, &FieldError{Key: key + "." + fe.Key, Msg: fe.Msg})
		case errors.As(e, &se):
			k, msg := se.Setting()
			ch.problems = append(ch.problems, &FieldError{Key: key + "." + k, Msg: msg})
		default:
			ch.problems = append(ch.problems, &FieldError{Key: key, Msg: "is invalid: " + e.Error()})
		}
	}
}

// setting is the error of one setting in a package that cannot return a
// FieldError: env, which imports nothing else of the module, returns an
// env.SettingError.
type setting interface {
	error
	Setting() (key, msg string)
}

// Reported reports whether a problem was recorded at key: a check that
// asks more of a value than its own package does is made only where that
// package found nothing wrong with it, so that a value gets one problem.
func (ch *Checker) Reported(key string) bool {
	for _, p := range ch.problems {
		if p.Key == key {
			return true
		}
	}
	return false
}

// Len returns the number of problems recorded so far.
func (ch *Checker) Len() int { return len(ch.problems) }

// Problems returns the problems recorded, in order.
func (ch *Checker) Problems() []*FieldError { return ch.problems }

// Err returns the problems as one error, as [Join] does: nil for none.
func (ch *Checker) Err() error { return Join(ch.problems) }
