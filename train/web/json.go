package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// maxBody bounds a request body: the largest legitimate one, an analysis
// of a game at the move limit, is a few kilobytes.
const maxBody = 64 << 10

// apiError is an answer other than 200: its status and what went wrong.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

// badRequest, notFound and the like build the errors handlers return.
func badRequest(format string, a ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, a...)}
}

func notFound(format string, a ...any) error {
	return &apiError{http.StatusNotFound, fmt.Sprintf(format, a...)}
}

func conflict(format string, a ...any) error {
	return &apiError{http.StatusConflict, fmt.Sprintf(format, a...)}
}

// handler is an API endpoint: it returns the value to send as JSON, or an
// error.
type handler func(r *http.Request) (any, error)

// serveJSON turns a handler into an http.Handler: its value as JSON with
// status 200, an *apiError as {"error": msg} with its status, and any other
// error as a 500.
func serveJSON(h handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v) // a failed write means the client left
}

func writeError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	var ae *apiError
	if errors.As(err, &ae) {
		status = ae.status
	}
	writeJSON(w, status, map[string]string{"error": err.Error()})
}

// decodeBody reads the JSON request body as a T, strictly: a body too
// large, an unknown field, a second value or a type mismatch is a 400.
func decodeBody[T any](r *http.Request) (T, error) {
	var v T
	dec := json.NewDecoder(r.Body) // limited by the server's middleware
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return v, &apiError{http.StatusRequestEntityTooLarge, fmt.Sprintf("request body: over %d bytes", tooLarge.Limit)}
		}
		if errors.Is(err, io.EOF) {
			return v, badRequest("request body: empty, want a JSON object")
		}
		return v, badRequest("request body: %v", err)
	}
	if dec.More() {
		return v, badRequest("request body: more than one JSON value")
	}
	return v, nil
}
