// Package natsserver runs the embedded NATS server with JetStream that a
// learner's actors connect to, its data and secrets kept in the run
// directory.
package natsserver

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Dir is the folder of a run directory that holds what training on many
// machines keeps: the run id, the token and the embedded server's data.
const Dir = "distributed"

// MaxPayload bounds a message: a game record of the longest game is far
// below it (no observations are sent), a network goes through the object
// store in chunks.
const MaxPayload = 4 << 20

// Options configure the embedded NATS server of a learner.
type Options struct {
	// Addr is host:port to listen on, such as 0.0.0.0:4222 (port 0 picks
	// a free one).
	Addr string
	// RunDir is the run directory: the server's data and the token go to
	// its Dir folder.
	RunDir string
	// TLSCert and TLSKey, when both set, make the server speak TLS only.
	TLSCert, TLSKey string
}

// Server is a running embedded NATS server with JetStream.
type Server struct {
	srv *server.Server
	// URL is where actors connect, with the host a remote machine can
	// reach when the server listens on every interface.
	URL string
	// Token is the secret actors must give.
	Token string
}

// Start starts the embedded server, storing its data under the run
// directory, and requires the run's token (created at the first start)
// from every client.
func Start(o Options) (*Server, error) {
	host, portText, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen address %q: %w", o.Addr, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("listen address %q: port %q: want 0 to 65535", o.Addr, portText)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	token, err := secret(filepath.Join(o.RunDir, Dir, "token"))
	if err != nil {
		return nil, err
	}
	opts := &server.Options{
		Host: host, Port: port, JetStream: true,
		StoreDir:      filepath.Join(o.RunDir, Dir),
		Authorization: token, MaxPayload: MaxPayload,
		NoSigs: true, NoLog: true,
	}
	scheme := "nats"
	if o.TLSCert != "" || o.TLSKey != "" {
		if opts.TLSConfig, err = server.GenTLSConfig(&server.TLSConfigOpts{CertFile: o.TLSCert, KeyFile: o.TLSKey}); err != nil {
			return nil, fmt.Errorf("tls: %w", err)
		}
		opts.TLS, scheme = true, "tls"
	}
	srv, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		return nil, fmt.Errorf("nats server on %s: not ready after 10s (is the port in use?)", o.Addr)
	}
	addr, ok := srv.Addr().(*net.TCPAddr)
	if !ok {
		srv.Shutdown()
		return nil, fmt.Errorf("nats server on %s: no TCP address", o.Addr)
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		if name, err := os.Hostname(); err == nil {
			host = name
		}
	}
	url := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
	return &Server{srv: srv, URL: url, Token: token}, nil
}

// Close stops the server.
func (s *Server) Close() {
	s.srv.Shutdown()
	s.srv.WaitForShutdown()
}

// RunID returns the run's id, created at the first call for a run
// directory: games of any other run are refused.
func RunID(runDir string) (string, error) {
	return secret(filepath.Join(runDir, Dir, "run-id"))
}

// secret reads the random hex string kept in path, or creates it, readable
// by the owner only.
func secret(path string) (string, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil && len(strings.TrimSpace(string(data))) > 0:
		return strings.TrimSpace(string(data)), nil
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	text := hex.EncodeToString(b)
	// The run directory is for everyone to read, its secrets are not.
	if err := os.MkdirAll(filepath.Dir(filepath.Dir(path)), 0o755); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	// CreateTemp makes the file with mode 0600: the secret is never
	// readable by others, not even before the rename.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = tmp.WriteString(text + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return text, nil
}
