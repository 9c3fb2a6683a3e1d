package distributed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnectOptions say how to reach a NATS server.
type ConnectOptions struct {
	// URL is the server, such as nats://host:4222 (tls://... for TLS).
	URL string
	// Token is the learner's token; CredsFile a NATS credentials file for
	// an existing cluster instead. CAFile, when set, is the certificate
	// authority that signed the server's TLS certificate.
	Token, CredsFile, CAFile string
	// Name names the client in the server's monitoring.
	Name string
	// Log hears that the server cannot be reached yet; nil is silent.
	Log io.Writer
}

// ErrRefused matches the error of a server that refused the credentials:
// retrying cannot help.
var ErrRefused = errors.New("the server refused the credentials (check --token or --nats-creds)")

// Connect connects to the server, waiting for it while it cannot be
// reached (until ctx ends); once connected, the connection reconnects by
// itself for as long as it takes. Credentials the server refuses are an
// error matching [ErrRefused] at once.
func Connect(ctx context.Context, o ConnectOptions) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(o.Name), nats.MaxReconnects(-1), nats.ReconnectWait(250 * time.Millisecond),
		nats.Timeout(5 * time.Second),
		// The default handler prints the client's asynchronous errors (a
		// watcher's consumer gone while the server was away) to stderr;
		// the actor and learner deal with them by retrying.
		nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}),
	}
	switch {
	case o.Token != "":
		opts = append(opts, nats.Token(o.Token))
	case o.CredsFile != "":
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	}
	if o.CAFile != "" {
		opts = append(opts, nats.RootCAs(o.CAFile))
	}
	told := false
	for {
		nc, err := nats.Connect(o.URL, opts...)
		switch {
		case err == nil:
			return nc, nil
		case errors.Is(err, nats.ErrAuthorization):
			return nil, fmt.Errorf("connect %s: %w", o.URL, ErrRefused)
		case !errors.Is(err, nats.ErrNoServers):
			return nil, fmt.Errorf("connect %s: %w", o.URL, err)
		}
		if !told && o.Log != nil {
			fmt.Fprintf(o.Log, "waiting for the server at %s ...\n", o.URL)
			told = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
