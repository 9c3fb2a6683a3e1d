package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

func TestServeBadInput(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"bad spec", []string{"--player", "minimax"}, "minimax"},
		{"bad address", []string{"--addr", "8080"}, "--addr"},
		{"missing run", []string{"--run", "/nonexistent/run"}, "/nonexistent/run"},
		{"stray argument", []string{"now"}, "unexpected argument"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			code := run(append([]string{"serve", "--addr", "127.0.0.1:0"}, c.args...), stdio{in: strings.NewReader(""), out: &out, err: &errw})
			if code != 2 || !strings.Contains(errw.String(), c.says) {
				t.Errorf("exit %d, stderr %q; want 2 saying %q", code, errw.String(), c.says)
			}
		})
	}
}

func TestIsLoopback(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.3.2.1": true, "::1": true, "localhost": true,
		"": false, "0.0.0.0": false, "192.168.1.2": false, "example.org": false,
	} {
		if got := isLoopback(host); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestServeStops serves until the context ends, then returns nil.
func TestServeStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "up") }))
	}()
	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "up" {
		t.Errorf("answer %q", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
}
