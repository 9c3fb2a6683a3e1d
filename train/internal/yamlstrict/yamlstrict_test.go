package yamlstrict

import (
	"strings"
	"testing"
	"time"
)

type inner struct {
	Count int     `yaml:"count"`
	Rate  float64 `yaml:"rate"`
}

type doc struct {
	Name  string        `yaml:"name"`
	On    bool          `yaml:"on"`
	Wait  time.Duration `yaml:"wait"`
	Inner inner         `yaml:"inner"`
	List  []string      `yaml:"list"`
}

func TestDecode(t *testing.T) {
	v := doc{Name: "kept", Inner: inner{Count: 3, Rate: 0.5}}
	lines, err := Decode([]byte("on: true\nwait: 90s\ninner:\n  rate: 2\nlist: [a, b]\n"), &v)
	if err != nil {
		t.Fatal(err)
	}
	want := doc{Name: "kept", On: true, Wait: 90 * time.Second, Inner: inner{Count: 3, Rate: 2}, List: []string{"a", "b"}}
	if v.Name != want.Name || v.On != want.On || v.Wait != want.Wait || v.Inner != want.Inner || strings.Join(v.List, ",") != "a,b" {
		t.Errorf("decoded %+v, want %+v", v, want)
	}
	for path, line := range map[string]int{"on": 1, "inner.rate": 4, "inner.count": 3, "list[1]": 5, "name": 0} {
		if got := lines.Of(path); got != line {
			t.Errorf("line of %s = %d, want %d", path, got, line)
		}
	}
}

// A duration is written with its unit, but a plain 0, which the configs
// document as "0 = none", is no time in any unit.
func TestDecodeDuration(t *testing.T) {
	for _, tc := range []struct {
		text string
		want time.Duration
		err  string
	}{
		{"wait: 0", 0, ""},
		{"wait: 0s", 0, ""},
		{"wait: 1h30m", 90 * time.Minute, ""},
		{"wait: 90", 0, `line 1: wait is "90": want a duration such as 90s`},
		{"wait: 0.5", 0, `line 1: wait is "0.5": want a duration such as 90s`},
		{"wait: soon", 0, `line 1: wait is "soon": want a duration such as 90s`},
	} {
		t.Run(tc.text, func(t *testing.T) {
			v := doc{Wait: time.Minute}
			_, err := Decode([]byte(tc.text), &v)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			case tc.err == "" && (err != nil || v.Wait != tc.want):
				t.Errorf("wait %v, error %v: want %v", v.Wait, err, tc.want)
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown key", "inner:\n  size: 1\n", "line 2: inner.size is not a known key (known here: count, rate)"},
		{"set twice", "name: a\nname: b\n", "line 2: name is set twice (first on line 1)"},
		{"a fraction for a whole number", "inner:\n  count: 1.5\n", `line 2: inner.count is "1.5": want a whole number`},
		{"not a bool", "on: yes please\n", "line 1: on is \"yes please\": want true or false"},
		{"no value", "name:\n", "line 1: name has no value: want text"},
		{"a list for a mapping", "inner: [1]\n", "line 1: inner is a list: want a mapping of keys to values"},
		{"infinity", "inner:\n  rate: .inf\n", "want a finite number"},
		{"two documents", "name: a\n---\nname: b\n", "a second YAML document"},
		{"every problem", "on: 3\nwait: soon\n", "line 1: on is \"3\": want true or false\nline 2: wait"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var v doc
			if _, err := Decode([]byte(tc.text), &v); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("name: a\ninner:\n  count: 2\nlist: [x]\n"))
	f.Add([]byte("on: [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var v doc
		lines, err := Decode(data, &v)
		if err == nil && lines == nil {
			t.Error("no error and no lines")
		}
	})
}
