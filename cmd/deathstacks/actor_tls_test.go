package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deathstacks/deathstacks/train/testctx"
)

// TestActorOverTLSStopsOnSignal runs the built binary: a learner speaking
// TLS with a certificate made here, a plain-text client and an actor that
// does not trust the certificate refused, then actors trusting it through
// --tls-ca or the system's trust store (SSL_CERT_FILE), each stopped by a
// signal while playing: it must exit with status 143 (SIGTERM) or 130
// (SIGINT) within about a second.
func TestActorOverTLSStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes for about half a minute")
	}
	bin := buildBinary(t)
	tmp := t.TempDir()
	cert, key := selfSignedCert(t, tmp)
	addr := freeAddr(t)
	logPath := filepath.Join(tmp, "learner.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	learner := exec.Command(bin, "train", "--config", "smoke", "--out", filepath.Join(tmp, "run"), "--quiet",
		"--iterations", "100", "--listen", addr, "--tls-cert", cert, "--tls-key", key, "--no-selfplay")
	learner.Stdout, learner.Stderr = logFile, logFile
	if err := learner.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		learner.Process.Kill()
		learner.Wait()
		if t.Failed() {
			data, _ := os.ReadFile(logPath)
			t.Logf("learner.log:\n%s", data)
		}
	})
	line := actorLine(t, logPath)
	if url := line[slices.Index(line, "--connect")+1]; !strings.HasPrefix(url, "tls://") {
		t.Fatalf("actor line %q: want a tls:// URL", line)
	}

	t.Run("plain text refused", func(t *testing.T) {
		token := line[slices.Index(line, "--token")+1]
		if reply := plainTextConnect(t, addr, token); strings.HasPrefix(reply, "PONG") {
			t.Errorf("a plain-text client got %q: want no session", reply)
		}
	})
	t.Run("untrusted certificate refused", func(t *testing.T) {
		c := exec.Command(bin, line...)
		c.Env = withoutCertEnv()
		out, err := runToEnd(t, c, "the actor without the certificate")
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(out, "certificate") {
			t.Errorf("actor without the certificate: %v, output %q: want status 1 and a word on the certificate", err, out)
		}
	})
	// The actors' switches to new networks, as they log them: separate
	// processes, unlike TestNetworkSwitchDelay's.
	var switches []int
	defer func() {
		if len(switches) > 0 {
			slices.Sort(switches)
			t.Logf("%d network switches: median %d ms, max %d ms", len(switches), switches[len(switches)/2], switches[len(switches)-1])
		}
	}()
	for _, tc := range []struct {
		name  string
		trust func(c *exec.Cmd)
		sig   syscall.Signal
	}{
		{"tls-ca flag, SIGTERM", func(c *exec.Cmd) { c.Args = append(c.Args, "--tls-ca", cert) }, syscall.SIGTERM},
		{"system trust, SIGINT", func(c *exec.Cmd) { c.Env = append(c.Env, "SSL_CERT_FILE="+cert) }, syscall.SIGINT},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := exec.Command(bin, append(line, "--workers", "1", "--parallel-games", "2")...)
			c.Env = withoutCertEnv()
			tc.trust(c)
			outPath := filepath.Join(tmp, strings.NewReplacer(" ", "-", ",", "").Replace(tc.name)+".log")
			outFile, err := os.Create(outPath)
			if err != nil {
				t.Fatal(err)
			}
			defer outFile.Close()
			c.Stdout, c.Stderr = outFile, outFile
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- c.Wait() }()
			output := func() string { data, _ := os.ReadFile(outPath); return string(data) }
			// Playing, with a smoke game or so finished (they take well
			// under a second), to flush and to stop in the middle of.
			waitForLine(t, outPath, "games at a time")
			time.Sleep(time.Second)
			ctx := testctx.Context(t)
			start := time.Now()
			c.Process.Signal(tc.sig)
			select {
			case err := <-done:
				took := time.Since(start)
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() != 128+int(tc.sig) || !strings.Contains(output(), "deathstacks actor: stopped\n") {
					t.Errorf("actor after %v: %v, output:\n%s\nwant status %d and the line that says it stopped", tc.sig, err, output(), 128+int(tc.sig))
				}
				// No budget (it takes about a second): an actor that does
				// not stop fails the test when the test's time runs out.
				t.Logf("stopped %v after %v", took.Round(time.Millisecond), tc.sig)
				for _, m := range switchLine.FindAllStringSubmatch(output(), -1) {
					ms, _ := strconv.Atoi(m[1])
					switches = append(switches, ms)
				}
			case <-ctx.Done():
				c.Process.Kill()
				t.Fatalf("actor still running %v after %v, when the test's time ran out; output:\n%s", time.Since(start).Round(time.Second), tc.sig, output())
			}
		})
	}
}

// switchLine matches an actor's log line of a switch to a new network.
var switchLine = regexp.MustCompile(`playing with network \d+, (\d+) ms after it was published`)

// selfSignedCert writes a certificate for 127.0.0.1 that is its own
// authority, and its key, into dir.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "deathstacks test learner"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true,
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for _, f := range []struct {
		path, kind string
		der        []byte
	}{{certFile, "CERTIFICATE", der}, {keyFile, "PRIVATE KEY", keyDER}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return certFile, keyFile
}

// plainTextConnect speaks the NATS protocol in plain text, with the right
// token, and returns the server's answer to a PING (empty if it closed
// the connection). It has no deadline of its own: the server ends a
// session that does not start TLS, and a server that neither answers nor
// ends it fails the test when the test's time runs out.
func plainTextConnect(t *testing.T, addr, token string) string {
	t.Helper()
	ctx := testctx.Context(t)
	conn, err := new(net.Dialer).DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	hung := context.AfterFunc(ctx, func() { conn.Close() })
	defer func() {
		if !hung() {
			t.Fatal("the server neither answered nor closed the connection when the test's time ran out")
		}
	}()
	r := bufio.NewReader(conn)
	info, err := r.ReadString('\n')
	if err != nil || !strings.Contains(info, `"tls_required":true`) {
		t.Errorf("server greeting %q, %v: want TLS required", info, err)
	}
	if _, err := conn.Write([]byte(`CONNECT {"verbose":false,"auth_token":"` + token + `"}` + "\r\nPING\r\n")); err != nil {
		return ""
	}
	reply, _ := r.ReadString('\n')
	return reply
}

// withoutCertEnv is the environment without a trust store of its own.
func withoutCertEnv() []string {
	return slices.DeleteFunc(os.Environ(), func(v string) bool {
		return strings.HasPrefix(v, "SSL_CERT_FILE=") || strings.HasPrefix(v, "SSL_CERT_DIR=")
	})
}

// runToEnd runs c to its end and returns its output. It has no budget: c
// still running when the test's time runs out (see testctx.Context) is killed,
// and fails the test, named as what.
func runToEnd(t *testing.T, c *exec.Cmd, what string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		return "", err
	}
	stop := context.AfterFunc(testctx.Context(t), func() { c.Process.Kill() })
	err := c.Wait()
	if !stop() {
		t.Fatalf("%s still running when the test's time ran out; output %q", what, out.String())
	}
	return out.String(), err
}

// waitForLine waits until the log has text.
func waitForLine(t *testing.T, log, text string) {
	t.Helper()
	testctx.WaitUntil(t, fmt.Sprintf("%q in %s", text, filepath.Base(log)), func() bool {
		data, _ := os.ReadFile(log)
		return strings.Contains(string(data), text)
	})
}
