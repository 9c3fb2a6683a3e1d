// Package charttest checks the PNG charts that tests draw.
package charttest

import (
	"image/png"
	"os"
	"testing"
)

// CheckPNG fails tb unless path is a PNG large enough to read.
func CheckPNG(tb testing.TB, path string) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if cfg.Width < 800 || cfg.Height < 400 {
		tb.Errorf("%s is %dx%d: too small to read", path, cfg.Width, cfg.Height)
	}
}
