// Package yamlstrict decodes YAML onto a Go value key by key, so that
// every error names the key path and its line, and stricter than yaml.v3:
// unknown keys, keys set twice, values of the wrong type or shape and
// empty values are all errors.
package yamlstrict

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

	"github.com/deathstacks/deathstacks/configs"
)

// Lines maps key paths to the lines where the YAML text sets them.
type Lines map[string]int

// Of returns the line of path, or of its nearest enclosing key that the
// text sets, or 0.
func (l Lines) Of(path string) int {
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

// Decode decodes one YAML document over *cfg, key by key, so that an
// error names the key path and line: it is stricter than yaml.v3's
// KnownFields(true), whose errors name Go types instead of keys. Unknown
// keys, keys set twice, values of the wrong type or shape and empty values
// are all errors; every problem found is reported. Keys the text does not
// set keep their value. It returns where each key was set.
func Decode(data []byte, cfg any) (Lines, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return Lines{}, nil // nothing but comments: every default stands
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
	d := strictDecoder{lines: Lines{}}
	d.decode(&root, reflect.ValueOf(cfg).Elem(), "")
	return d.lines, configs.Join(d.errs)
}

// strictDecoder walks a YAML node tree alongside a Go value.
type strictDecoder struct {
	lines Lines
	errs  []*configs.FieldError
}

func (d *strictDecoder) fail(n *yaml.Node, path, format string, args ...any) {
	if path == "" {
		path = "the document"
	}
	d.errs = append(d.errs, &configs.FieldError{Key: path, Line: n.Line, Msg: fmt.Sprintf(format, args...)})
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
	if v.Type() == durationType && n.ShortTag() == "!!int" && n.Value == "0" {
		// A plain 0 is no time at all ("time_limit: 0", none), in every
		// unit; any other number needs its unit.
		v.SetInt(0)
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
