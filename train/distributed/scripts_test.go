//go:build unix

package distributed

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tinyRun is the scripts' EXTRA for the tests: smoke's network, search and
// training sizes, so that the learner's iterations take a fraction of a
// second.
const tinyRun = `model: {blocks: 1, channels: 8, value_planes: 1, value_hidden: 8}
search: {simulations: 32, batch_size: 4}
env: {rules: {max_plies: 60}}
replay: {window: 2000}
optim: {batch_size: 16, steps_per_iteration: 4, warmup_steps: 2, total_steps: 8}`

// verdictLine is the scripts' last line.
var verdictLine = regexp.MustCompile(`(?m)^(\d+) acknowledged, \d+ taken, \d+ stale, 0 invalid, \d+ duplicate: every acknowledged game taken once or dropped as stale$`)

// TestScripts runs scale.sh and cluster.sh at a tiny scale (3 simulated
// actors, 20 games a second, a few seconds, loopback ports free a moment
// before) with the binaries built from this module, and checks what they
// print: the generator's count, the node killed and back (cluster.sh), and
// every acknowledged game read once. Without arguments, without DS or
// with a bad argument they say what is wanted, with status 2.
func TestScripts(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the built binaries for about 30 s")
	}
	for _, tool := range []string{"bash", "jq", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("the scripts need %s: %v", tool, err)
		}
	}
	bin := t.TempDir()
	ds := goBuild(t, bin, "deathstacks", "github.com/deathstacks/deathstacks/cmd/deathstacks")
	natsServer := goBuild(t, bin, "nats-server", "github.com/nats-io/nats-server/v2")
	// ports lists n ports of a set chosen at once, distinct from those
	// listed before.
	free := freePorts(t, 10)
	ports := func(n int) string {
		s := strconv.Itoa(free[0])
		for _, p := range free[1:n] {
			s += " " + strconv.Itoa(p)
		}
		free = free[n:]
		return s
	}
	tests := []struct {
		script     string
		args       []string
		env        func() []string
		wantStatus int
		want       []string // regular expressions, each matching a line of the output
		newLeader  bool     // the games stream's new leader is not the node killed
	}{
		{script: "scale.sh", wantStatus: 2, want: []string{`^usage: DS=path/to/deathstacks train/distributed/scale.sh ACTORS RATE DURATION`}},
		{script: "cluster.sh", wantStatus: 2, want: []string{`^usage: DS=path/to/deathstacks NATS=path/to/nats-server train/distributed/cluster.sh ACTORS RATE SECONDS$`}},
		{script: "scale.sh", args: []string{"3", "20", "3s"}, env: func() []string { return []string{"DS="} }, wantStatus: 2, want: []string{`^DS is not set: want DS=path/to/deathstacks$`}},
		{script: "cluster.sh", args: []string{"3", "20", "2m"}, env: func() []string { return []string{"NATS=" + natsServer} }, wantStatus: 2, want: []string{`^SECONDS 2m: want whole seconds, such as 120$`}},
		{
			script: "scale.sh", args: []string{"3", "20", "3s"},
			env: func() []string { return []string{"LISTEN=127.0.0.1:" + ports(1)} },
		},
		{
			script: "cluster.sh", args: []string{"3", "20", "6"},
			env: func() []string {
				return []string{"NATS=" + natsServer, "CLIENT_PORTS=" + ports(3), "ROUTE_PORTS=" + ports(3), "MONITOR_PORTS=" + ports(3)}
			},
			want: []string{
				`^\d\d:\d\d:\d\d killing n[123] \(SIGKILL\), the games stream's leader$`,
				`^\d\d:\d\d:\d\d the games stream's leader now: n[123]$`,
				`^\d\d:\d\d:\d\d n[123] back: \{"status":"ok"\}$`,
			},
			newLeader: true,
		},
	}
	for _, tt := range tests {
		name := strings.Join(append([]string{tt.script}, tt.args...), " ")
		if tt.wantStatus != 0 {
			name += " refused"
		}
		t.Run(name, func(t *testing.T) {
			env := append(os.Environ(), "DS="+ds, "RUN="+filepath.Join(t.TempDir(), "run"), "REAL_GAMES=2", "TAKE_WAIT=120", "EXTRA="+tinyRun)
			if tt.env != nil {
				env = append(env, tt.env()...)
			}
			out, status := runScript(t, tt.script, tt.args, env)
			if status != tt.wantStatus {
				t.Fatalf("%s %v: status %d, want %d; output:\n%s", tt.script, tt.args, status, tt.wantStatus, out)
			}
			for _, w := range tt.want {
				if !regexp.MustCompile("(?m)" + w).MatchString(out) {
					t.Errorf("%s %v: no line matches %s; output:\n%s", tt.script, tt.args, w, out)
				}
			}
			if tt.newLeader {
				killed := regexp.MustCompile(`killing (n[123])`).FindStringSubmatch(out)
				leader := regexp.MustCompile(`leader now: (n[123])`).FindStringSubmatch(out)
				if killed != nil && leader != nil && killed[1] == leader[1] {
					t.Errorf("%s %v: the leader now is %s, the node killed", tt.script, tt.args, leader[1])
				}
			}
			if tt.wantStatus != 0 {
				return
			}
			gen := regexp.MustCompile(`(?m)^(\d+) games acknowledged$`).FindStringSubmatch(out)
			v := verdictLine.FindStringSubmatch(out)
			if gen == nil || v == nil {
				t.Fatalf("%s %v: no generator's count or no verdict line; output:\n%s", tt.script, tt.args, out)
			}
			if gen[1] != v[1] || gen[1] == "0" {
				t.Errorf("%s %v: the generator says %s games acknowledged, the verdict %s (want the same, more than 0)", tt.script, tt.args, gen[1], v[1])
			}
		})
	}
}

// goBuild builds the package pkg of the module graph into dir/name.
func goBuild(t *testing.T, dir, name, pkg string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command("go", "build", "-mod=readonly", "-o", path, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return path
}

// runScript runs script with args and env and returns its output (stdout
// and stderr) and exit status. It gets 4 minutes; then its process group
// (the script and every process it started) is killed.
func runScript(t *testing.T, script string, args, env []string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./"+script, args...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("%s %v: still running after 4 minutes, killed; output:\n%s", script, args, out)
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	case err != nil:
		t.Fatalf("%s %v: %v", script, args, err)
	}
	return string(out), 0
}
