package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzPositionRequest sends arbitrary bodies to the endpoints that read a
// position: each answer is 200 or a 4xx, never a 500 or a panic.
func FuzzPositionRequest(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"fen":"rr,rr,rr,rr,rr,rr/,,,,,/,,,,,/,,,,,/,,,,,/bb,bb,bb,bb,bb,bb b","start_ply":3}`,
		`{"moves":["a6-2-a4","b1-1-b2"]}`, `{"moves":["a6-9-a4"]}`, `{"fen":"r,b/"}`, `[1,2]`, `{"start_ply":1e9}`,
	} {
		f.Add(seed)
	}
	s, err := New(Options{Players: []string{"random"}})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/api/legal", "/api/analyse", "/api/games"} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
			if w.Code != http.StatusOK && (w.Code < 400 || w.Code >= 500) {
				t.Fatalf("POST %s %q: status %d %s", path, body, w.Code, w.Body.String())
			}
		}
	})
}
