package configs

import (
	"math"
	"slices"
	"testing"
	"time"
)

type tableConfig struct {
	Count int           `yaml:"count"`
	Share float64       `yaml:"share"`
	On    bool          `yaml:"on"`
	Wait  time.Duration `yaml:"wait,omitempty"`
}

var testTable = NewTable("test setting", []Field[tableConfig]{
	{Setting: Setting{Aliases: []string{"n"}}, Ptr: func(c *tableConfig) any { return &c.Count }, Lo: 1, Hi: 10, Want: "1 to 10"},
	{Ptr: func(c *tableConfig) any { return &c.Share }, Above: true, Hi: 1, Want: "above 0, at most 1", When: func(c *tableConfig) bool { return c.On }},
	{Ptr: func(c *tableConfig) any { return &c.On }},
	{Ptr: func(c *tableConfig) any { return &c.Wait }, Hi: math.Inf(1), Want: "0s or more"},
})

func TestTableSetGet(t *testing.T) {
	cases := []struct {
		key, text string
		get       string // "" for an error
		err       string
	}{
		{"count", "07", "7", ""},
		{"n", "3", "3", ""},
		{"count", "11", "", `count is "11": want a whole number, 1 to 10`},
		{"share", "0", "", `share is "0": want a number, above 0, at most 1`},
		{"share", "NaN", "", `share is "NaN": want a number, above 0, at most 1`},
		{"on", "1", "true", ""},
		{"on", "yes", "", `on is "yes": want true or false`},
		{"wait", "0.5s", "500ms", ""},
		{"wait", "-1s", "", `wait is "-1s": want 0s or more`},
		{"bogus", "1", "", "bogus is no test setting: want one of count, share, on, wait"},
	}
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.text, func(t *testing.T) {
			var c tableConfig
			err := testTable.Set(&c, tc.key, tc.text)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("Set: %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || testTable.Get(c, tc.key) != tc.get {
				t.Errorf("Set: %v, Get %q: want %q", err, testTable.Get(c, tc.key), tc.get)
			}
		})
	}
}

func TestTableCheck(t *testing.T) {
	var ch Checker
	testTable.Check(&ch, tableConfig{Count: 0, Share: 2}) // share is not checked: On is false
	testTable.Check(&ch, tableConfig{Count: 5, Share: 2, On: true})
	var got []string
	for _, p := range ch.Problems() {
		got = append(got, p.Error())
	}
	want := []string{"count is 0: want 1 to 10", "share is 2: want above 0, at most 1"}
	if !slices.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	if k, ok := testTable.Canonical("n"); !ok || k != "count" {
		t.Errorf("Canonical(n) = %q, %v", k, ok)
	}
	if keys := testTable.Settings(); len(keys) != 4 || keys[3].Key != "wait" {
		t.Errorf("Settings() = %+v", keys)
	}
}
