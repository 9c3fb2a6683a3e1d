package train

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// FieldError is a configuration setting that is unknown, of the wrong type
// or out of range.
type FieldError struct {
	// Path is the key path, such as "selfplay.games_per_iteration" or
	// "eval.baselines[1]".
	Path string
	// Line is the setting's 1-based line in the YAML text, 0 when unknown
	// (a value that came from the defaults, or a config built in code).
	Line int
	// Msg says what is wrong, starting with a verb: "is 0: want 1 or more".
	Msg string
}

// Error returns "line 7: selfplay.games_per_iteration is 0: want 1 or more".
func (e *FieldError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s %s", e.Line, e.Path, e.Msg)
	}
	return e.Path + " " + e.Msg
}

// joinFieldErrors returns nil for no problems, the problem itself for one,
// and all of them joined (one per line) for several.
func joinFieldErrors(problems []*FieldError) error {
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

// checker collects the problems of a configuration.
type checker struct{ errs []*FieldError }

// check records a problem at path unless ok.
func (ch *checker) check(ok bool, path, format string, args ...any) {
	if !ok {
		ch.errs = append(ch.errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
}

func (ch *checker) atLeast(path string, v, lo int) {
	ch.check(v >= lo, path, "is %d: want %d or more", v, lo)
}

func (ch *checker) between(path string, v, lo, hi int) {
	ch.check(v >= lo && v <= hi, path, "is %d: want %d to %d", v, lo, hi)
}

// inRange also refuses NaN, which no comparison would catch.
func (ch *checker) inRange(path string, v, lo, hi float64) {
	ch.check(v >= lo && v <= hi, path, "is %v: want %v to %v", v, lo, hi)
}

func (ch *checker) oneOf(path, v string, options ...string) {
	for _, o := range options {
		if v == o {
			return
		}
	}
	ch.check(false, path, "is %q: want one of %s", v, strings.Join(options, ", "))
}

// keyedError is a setting error of another package's config section
// (model.FieldError, mcts.FieldError): the key within the section and what
// is wrong.
type keyedError interface {
	error
	Field() string
	Problem() string
}

// section records the problems a section's own Validate found: field errors
// get the section's path in front, any other error is put on the section.
func (ch *checker) section(prefix string, err error) {
	if err == nil {
		return
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	for _, e := range errs {
		var fe *FieldError
		if errors.As(e, &fe) {
			ch.errs = append(ch.errs, &FieldError{Path: prefix + "." + fe.Path, Msg: fe.Msg})
			continue
		}
		var keyed keyedError
		if errors.As(e, &keyed) {
			ch.errs = append(ch.errs, &FieldError{Path: prefix + "." + keyed.Field(), Msg: keyed.Problem()})
			continue
		}
		ch.errs = append(ch.errs, &FieldError{Path: prefix, Msg: "is invalid: " + e.Error()})
	}
}

// lineIndex maps key paths to the lines where the YAML text sets them.
type lineIndex map[string]int

// of returns the line of path, or of its nearest enclosing key that the text
// sets, or 0.
func (l lineIndex) of(path string) int {
	for path != "" {
		if line, ok := l[path]; ok {
			return line
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// decodeStrict decodes one YAML document over *cfg, key by key, so that an
// error names the key path and line: it is stricter than yaml.v3's
// KnownFields(true), whose errors name Go types instead of keys. Unknown
// keys, keys set twice, values of the wrong type or shape and empty values
// are all errors; every problem found is reported. Keys the text does not
// set keep their value. It returns where each key was set.
func decodeStrict(data []byte, cfg any) (lineIndex, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return lineIndex{}, nil // nothing but comments: every default stands
		}
		return nil, err // a syntax error, which yaml.v3 gives with its line
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return nil, fmt.Errorf("line %d: a second YAML document: want only one", extra.Line)
	case !errors.Is(err, io.EOF):
		return nil, err
	}
	d := strictDecoder{lines: lineIndex{}}
	d.decode(&root, reflect.ValueOf(cfg).Elem(), "")
	return d.lines, joinFieldErrors(d.errs)
}

// strictDecoder walks a YAML node tree alongside a Go value.
type strictDecoder struct {
	lines lineIndex
	errs  []*FieldError
}

func (d *strictDecoder) fail(n *yaml.Node, path, format string, args ...any) {
	if path == "" {
		path = "the document"
	}
	d.errs = append(d.errs, &FieldError{Path: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

func (d *strictDecoder) decode(n *yaml.Node, v reflect.Value, path string) {
	for n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) == 0 {
			return
		} else {
			n = n.Content[0]
		}
	}
	isNull := n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
	if reflect.PointerTo(v.Type()).Implements(unmarshalerType) {
		d.leaf(n, v, path, isNull)
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if isNull {
			return // an empty section keeps its defaults
		}
		d.mapping(n, v, path)
	case reflect.Slice:
		if isNull {
			v.SetZero()
			return
		}
		if n.Kind != yaml.SequenceNode {
			d.fail(n, path, "is %s: want a list", describeNode(n))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			d.lines[p] = item.Line
			d.decode(item, s.Index(i), p)
		}
		v.Set(s)
	case reflect.Pointer:
		if isNull {
			v.SetZero()
			return
		}
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), path)
	default:
		d.leaf(n, v, path, isNull)
	}
}

// mapping decodes a mapping into a struct, field by yaml tag.
func (d *strictDecoder) mapping(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.fail(n, path, "is %s: want a mapping of keys to values", describeNode(n))
		return
	}
	names, index := yamlFields(v.Type())
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			d.fail(key, path, "has a key that is %s: want a name", describeNode(key))
			continue
		}
		p := key.Value
		if path != "" {
			p = path + "." + key.Value
		}
		if first, dup := seen[key.Value]; dup {
			d.fail(key, p, "is set twice (first on line %d)", first)
			continue
		}
		seen[key.Value] = key.Line
		field, ok := index[key.Value]
		if !ok {
			d.fail(key, p, "is not a known key (known here: %s)", strings.Join(names, ", "))
			continue
		}
		d.lines[p] = key.Line
		d.decode(val, v.FieldByIndex(field), p)
	}
}

// leaf decodes a single value with yaml.v3's own conversions.
func (d *strictDecoder) leaf(n *yaml.Node, v reflect.Value, path string, isNull bool) {
	switch {
	case isNull:
		d.fail(n, path, "has no value: want %s", describeType(v.Type()))
		return
	case n.Kind != yaml.ScalarNode && !reflect.PointerTo(v.Type()).Implements(unmarshalerType):
		d.fail(n, path, "is %s: want %s", describeNode(n), describeType(v.Type()))
		return
	}
	target := reflect.New(v.Type())
	if !tagFits(n, v.Type()) {
		d.fail(n, path, "is %s: want %s", describeNode(n), describeType(v.Type()))
		return
	}
	if err := n.Decode(target.Interface()); err != nil {
		d.fail(n, path, "is %s: want %s", describeNode(n), describeType(v.Type()))
		return
	}
	if f := target.Elem(); f.CanFloat() && (math.IsNaN(f.Float()) || math.IsInf(f.Float(), 0)) {
		d.fail(n, path, "is %s: want a finite number", describeNode(n))
		return
	}
	v.Set(target.Elem())
}

// yamlFields returns a struct's yaml key names in field order and the field
// index of each, as yaml.v3 names them: the tag's name or the lowercased
// field name, with the keys of ",inline" structs taken in.
func yamlFields(t reflect.Type) (names []string, index map[string][]int) {
	index = map[string][]int{}
	var add func(t reflect.Type, prefix []int)
	add = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			at := append(append([]int(nil), prefix...), i)
			switch {
			case !f.IsExported() || name == "-":
			case slices.Contains(strings.Split(opts, ","), "inline") && f.Type.Kind() == reflect.Struct:
				add(f.Type, at)
			default:
				if name == "" {
					name = strings.ToLower(f.Name)
				}
				names = append(names, name)
				index[name] = at
			}
		}
	}
	add(t, nil)
	return names, index
}

var durationType = reflect.TypeFor[time.Duration]()

// tagFits refuses the conversions yaml.v3 makes silently that a strict
// config must not: a fraction cut down to a whole number (batch_size: 1.5
// would become 1) and anything but true or false for a bool.
func tagFits(n *yaml.Node, t reflect.Type) bool {
	switch {
	case t == durationType:
		return true
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return n.ShortTag() == "!!int"
	case t.Kind() == reflect.Bool:
		return n.ShortTag() == "!!bool"
	}
	return true
}

// describeType says in words what a value of type t looks like in YAML.
func describeType(t reflect.Type) string {
	switch {
	case t == durationType:
		return "a duration such as 90s, 45m or 1h30m"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "a whole number"
	case t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64:
		return "a whole number, 0 or more"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.String:
		return "text"
	}
	return "a value of type " + t.String()
}

// describeNode quotes a scalar and names the shape of anything else.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}
