package natsserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStartRefusesBadAddresses(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"localhost", `listen address "localhost"`},
		{"127.0.0.1:port", `port "port": want 0 to 65535`},
		{"127.0.0.1:70000", `port "70000": want 0 to 65535`},
	} {
		t.Run(tc.addr, func(t *testing.T) {
			s, err := Start(Options{Addr: tc.addr, RunDir: t.TempDir()})
			if err == nil {
				s.Close()
				t.Fatalf("Start(%q) started a server, want an error", tc.addr)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Start(%q): %v, want it to say %q", tc.addr, err, tc.want)
			}
		})
	}
}

// The run's token and id are made once, kept in the run directory for
// the owner alone, and read back the same by the next start.
func TestSecretsPersist(t *testing.T) {
	dir := t.TempDir()
	s, err := Start(Options{Addr: "127.0.0.1:0", RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	again, err := Start(Options{Addr: "127.0.0.1:0", RunDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
	if s.Token == "" || again.Token != s.Token || !strings.HasPrefix(again.URL, "nats://127.0.0.1:") {
		t.Errorf("tokens %q then %q, URL %q: want one token and a loopback URL", s.Token, again.Token, again.URL)
	}
	id, err := RunID(dir)
	if err != nil {
		t.Fatal(err)
	}
	if idAgain, err := RunID(dir); err != nil || idAgain != id || id == s.Token {
		t.Errorf("run ids %q, %q (%v): want one id, not the token", id, idAgain, err)
	}
	info, err := os.Stat(filepath.Join(dir, Dir, "token"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, %v: want mode 0600", info, err)
	}
}
