package configs

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Setting is one setting of a [Table], as its users see it: its Key is
// the field's YAML key in config files and also its key in player specs
// ("az:model=...,c_puct=2"); Aliases are the names of earlier versions
// ("cpuct"), still accepted; Help is a line for help texts.
type Setting struct {
	Key     string
	Aliases []string
	Help    string
}

// Field is one field of the settings struct C with its range: the one
// place where a setting is named and checked. Its Key comes from the
// field's yaml tag (see [NewTable]).
type Field[C any] struct {
	Setting
	// Ptr returns a pointer to the field in c: *int, *float64, *bool or
	// *time.Duration.
	Ptr func(c *C) any
	// Lo and Hi bound a number, or a duration in seconds (with Above, Lo
	// itself is out); Want says the range in words ("1 to 65536").
	Lo, Hi float64
	Above  bool
	Want   string
	// When, if set, says whether the field counts in c: a field that does
	// not (a Gumbel setting of a PUCT search) is not checked.
	When func(c *C) bool
}

// Table is the settings of one struct C, each with its key, aliases, help
// and range: [Table.Set] and [Table.Get] read and write a setting by key
// (in player specs, on command lines, in query strings), [Table.Check]
// checks every range (in Validate), all in the words of [Checker].
type Table[C any] struct {
	what   string // "search setting": what Set calls an unknown key
	fields []Field[C]
}

// NewTable returns the table of fields, filling in each key from the yaml
// tag of its field; what names the settings in errors ("search setting").
// A field that is not one of C's is a mistake of the table's code: it
// panics at start-up, where every test sees it.
func NewTable[C any](what string, fields []Field[C]) Table[C] {
	var c C
	v := reflect.ValueOf(&c).Elem()
	for i := range fields {
		p := reflect.ValueOf(fields[i].Ptr(&c)).Pointer()
		for f := range v.NumField() {
			if v.Field(f).Addr().Pointer() == p {
				fields[i].Key, _, _ = strings.Cut(v.Type().Field(f).Tag.Get("yaml"), ",")
			}
		}
		if fields[i].Key == "" {
			panic(fmt.Sprintf("configs.NewTable: %s %d (%s) is no tagged field of %T", what, i, fields[i].Help, c))
		}
	}
	return Table[C]{what: what, fields: fields}
}

// Settings lists the settings in the table's order.
func (t Table[C]) Settings() []Setting {
	out := make([]Setting, len(t.fields))
	for i, f := range t.fields {
		out[i] = f.Setting
	}
	return out
}

// find returns the field called key or one of its aliases.
func (t Table[C]) find(key string) *Field[C] {
	for i := range t.fields {
		if t.fields[i].Key == key || slices.Contains(t.fields[i].Aliases, key) {
			return &t.fields[i]
		}
	}
	return nil
}

// Canonical returns the key of the setting called key or one of its
// aliases, and false for no setting.
func (t Table[C]) Canonical(key string) (string, bool) {
	if f := t.find(key); f != nil {
		return f.Key, true
	}
	return "", false
}

// Set parses text as the value of the setting called key (or an alias)
// and sets it in c, checking its range: the error is a [*FieldError] of
// the key as given, saying what was wanted.
func (t Table[C]) Set(c *C, key, text string) error {
	f := t.find(key)
	if f == nil {
		names := make([]string, len(t.fields))
		for i, f := range t.fields {
			names[i] = f.Key
		}
		return Errorf(key, "is no %s: want one of %s", t.what, strings.Join(names, ", "))
	}
	switch p := f.Ptr(c).(type) {
	case *bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return Errorf(key, "is %q: want true or false", text)
		}
		*p = b
	case *int:
		n, err := strconv.Atoi(text)
		if err != nil || !f.inRange(float64(n)) {
			return Errorf(key, "is %q: want a whole number, %s", text, f.Want)
		}
		*p = n
	case *float64:
		x, err := strconv.ParseFloat(text, 64)
		if err != nil || !f.inRange(x) {
			return Errorf(key, "is %q: want a number, %s", text, f.Want)
		}
		*p = x
	case *time.Duration:
		d, err := time.ParseDuration(text)
		if err != nil || !f.inRange(d.Seconds()) {
			return Errorf(key, "is %q: want %s", text, f.Want)
		}
		*p = d
	}
	return nil
}

// Get returns the value of the setting called key (or an alias) in c, in
// the form Set reads, or "" for no setting.
func (t Table[C]) Get(c C, key string) string {
	f := t.find(key)
	if f == nil {
		return ""
	}
	switch p := f.Ptr(&c).(type) {
	case *bool:
		return strconv.FormatBool(*p)
	case *int:
		return strconv.Itoa(*p)
	case *float64:
		return strconv.FormatFloat(*p, 'g', -1, 64)
	case *time.Duration:
		return p.String()
	}
	return ""
}

// Check records every setting of c out of its range, in the table's order.
func (t Table[C]) Check(ch *Checker, c C) {
	for i := range t.fields {
		f := &t.fields[i]
		if f.When != nil && !f.When(&c) {
			continue
		}
		var x float64
		switch p := f.Ptr(&c).(type) {
		case *int:
			x = float64(*p)
		case *float64:
			x = *p
		case *time.Duration:
			x = p.Seconds()
		default:
			continue
		}
		ch.Check(f.inRange(x), f.Key, "is %v: want %s", t.Get(c, f.Key), f.Want)
	}
}

// inRange reports whether x is within the field's range; NaN and the
// infinities are not.
func (f *Field[C]) inRange(x float64) bool {
	if math.IsNaN(x) || math.IsInf(x, 0) || x > f.Hi {
		return false
	}
	if f.Above {
		return x > f.Lo
	}
	return x >= f.Lo
}
