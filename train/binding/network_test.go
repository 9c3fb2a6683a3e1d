package binding

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/train"
	"github.com/deathstacks/deathstacks/train/inspect"
)

// testModels loads the networks of the tests' players, each once.
var testModels = train.NewModels(model.DefaultServerConfig(), nil)

// builtinWeights returns the built-in network's description, as
// ds_network_about writes it, and its weights in file order.
func builtinWeights(t *testing.T) (about, []float32) {
	t.Helper()
	nw, err := NewNetwork("", testModels.Load)
	if err != nil {
		t.Fatal(err)
	}
	text, err := nw.About()
	if err != nil {
		t.Fatal(err)
	}
	var about about
	if err := json.Unmarshal([]byte(text), &about); err != nil {
		t.Fatal(err)
	}
	ts, err := nw.weights()
	if err != nil {
		t.Fatal(err)
	}
	last := ts[len(ts)-1]
	flat := make([]float32, last.Offset+len(last.data))
	if err := nw.CopyWeights(flat); err != nil {
		t.Fatal(err)
	}
	return about, flat
}

// requestOf is a save request as JSON.
func requestOf(t *testing.T, r saveRequest) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSaveNetwork writes the built-in network back from its weights, as
// Python does after a round trip through PyTorch: the file keeps every
// weight bit for bit, the search settings it carried under the ones
// asked for, the metadata given, and it plays and is described as a
// player.
func TestSaveNetwork(t *testing.T) {
	about, flat := builtinWeights(t)
	net, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	if about.Config.config() != net.Config() || about.Steps != net.Steps() {
		t.Fatalf("about: config %+v, %d steps: want %v, %d", about.Config, about.Steps, net.Config(), net.Steps())
	}
	if about.Meta["search"] == "" {
		t.Fatalf("about: no search settings in %v", about.Meta)
	}
	path := filepath.Join(t.TempDir(), "net.dsnn")
	req := saveRequest{about: about, Search: map[string]string{"sims": "8"}, Extra: map[string]string{"made_by": "test"}}
	if err := SaveNetwork(requestOf(t, req), flat, path); err != nil {
		t.Fatal(err)
	}
	saved, err := NewNetwork(path, testModels.Load)
	if err != nil {
		t.Fatal(err)
	}
	back := make([]float32, len(flat))
	if err := saved.CopyWeights(back); err != nil {
		t.Fatal(err)
	}
	for i := range flat {
		if math.Float32bits(back[i]) != math.Float32bits(flat[i]) {
			t.Fatalf("weight %d reads back as %v, was %v", i, back[i], flat[i])
		}
	}
	info, err := train.Inspect(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Kind != inspect.KindPlayer || info.Meta["made_by"] != "test" || info.Steps != about.Steps || !strings.Contains(info.Search, "simulations: 8") {
		t.Errorf("inspect: kind %q, steps %d (want %d), meta %v, search %q", info.Kind, info.Steps, about.Steps, info.Meta, info.Search)
	}
	p, err := NewPlayer("az:model="+path, 1, testModels.Load)
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Choose(Position{FEN: env.StartFEN}, env.DefaultRules(), func(search func() error) error { return search() })
	if err != nil || !strings.Contains(d, `"simulations":8`) {
		t.Errorf("az:model=%s chose %s (%v): want a move after 8 simulations", path, d, err)
	}
}

func TestSaveNetworkErrors(t *testing.T) {
	about, flat := builtinWeights(t)
	good := saveRequest{about: about}
	dir := t.TempDir()
	other := good
	other.Config.Blocks++
	nan := slices.Clone(flat)
	nan[3] = float32(math.NaN())
	tests := []struct {
		name    string
		request string
		flat    []float32
		path    string
		want    string
	}{
		{"no path", requestOf(t, good), flat, "", "no path"},
		{"not JSON", "{", flat, filepath.Join(dir, "a"), "its description"},
		{"unknown key", `{"config": {"blocks": 1}, "colour": 1}`, flat, filepath.Join(dir, "a"), "unknown field"},
		{"short weights", requestOf(t, good), flat[1:], filepath.Join(dir, "a"), "do not match its architecture"},
		{"other config", requestOf(t, other), flat, filepath.Join(dir, "a"), "do not match its architecture"},
		{"bad config", `{"config": {"blocks": 1}}`, flat, filepath.Join(dir, "a"), "channels"},
		{"NaN weight", requestOf(t, good), nan, filepath.Join(dir, "a"), "stem.w[3] is NaN"},
		{"reserved metadata", requestOf(t, saveRequest{about: about, Extra: map[string]string{"kind": "x"}}), flat, filepath.Join(dir, "a"), "writes that entry itself"},
		{"bad search", requestOf(t, saveRequest{about: about, Search: map[string]string{"sims": "-3"}}), flat, filepath.Join(dir, "a"), "sims is \"-3\""},
		{"missing directory", requestOf(t, good), flat, filepath.Join(dir, "no", "a"), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := SaveNetwork(tt.request, tt.flat, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to say %q", err, tt.want)
			}
		})
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*")); len(m) != 0 {
		t.Errorf("failed saves left %v", m)
	}
}

// FuzzSaveNetwork feeds descriptions from outside to saveNetwork, with
// the weights of a 0x1 network: an error, or a file that loads back as
// the architecture described.
func FuzzSaveNetwork(f *testing.F) {
	cfg := model.Config{Blocks: 0, Channels: 1, ValuePlanes: 1, ValueHidden: 1}
	shape, err := model.New(cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		f.Fatal(err)
	}
	flat := make([]float32, shape.NumParams())
	f.Add(`{"config": {"blocks": 0, "channels": 1, "value_planes": 1, "value_hidden": 1}, "steps": 3, "meta": {"a": "b"}, "search": {"sims": "5"}, "extra_meta": {"c": "d"}}`)
	f.Add(`{"config": {"blocks": 0, "channels": 1, "value_planes": 1, "value_hidden": 1}, "meta": {"search": "simulations: 9\n"}}`)
	f.Add(`{"config": {"channels": -1}}`)
	f.Add(`[1, 2]`)
	f.Fuzz(func(t *testing.T, request string) {
		path := filepath.Join(t.TempDir(), "net.dsnn")
		if err := SaveNetwork(request, flat, path); err != nil {
			return
		}
		net, err := train.LoadNetwork(path)
		if err != nil {
			t.Fatalf("a saved network does not load: %v", err)
		}
		if net.Config() != cfg {
			t.Fatalf("saved %v from %q", net.Config(), request)
		}
	})
}

// TestWeightsLeaveOutAuxHeads: a network with auxiliary heads (a run's
// checkpoint network) reaches other languages as its inference part, the
// tensors and architecture PyTorch's twin builds.
func TestWeightsLeaveOutAuxHeads(t *testing.T) {
	cfg := model.Config{Blocks: 1, Channels: 8, ValuePlanes: 1, ValueHidden: 8, ReplyHead: true, OwnershipHead: true, ScoreHead: true}
	net, err := model.New(cfg, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "aux.dsnn")
	if err := net.Save(path); err != nil {
		t.Fatal(err)
	}
	nw, err := NewNetwork(path, testModels.Load)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := nw.weights()
	if err != nil {
		t.Fatal(err)
	}
	want := net.WithoutAux().Weights()
	if len(ts) != len(want) || nw.about.Config != architectureOf(net.WithoutAux().Config()) {
		t.Fatalf("%d tensors of %+v, want %d of the network without its heads", len(ts), nw.about.Config, len(want))
	}
	for i, w := range want {
		if ts[i].Name != w.Name || !slices.Equal(ts[i].data, w.Data) {
			t.Errorf("tensor %d is %s, want %s with the same values", i, ts[i].Name, w.Name)
		}
	}
}

// TestWeights checks the tensors read back from the built-in network: the
// names of its layout, shapes that multiply out to the parameter count,
// and the policy head's shape from the action space.
func TestWeights(t *testing.T) {
	nw, err := NewNetwork("", testModels.Load)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := nw.weights()
	if err != nil {
		t.Fatal(err)
	}
	net, err := train.LoadNetwork("")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, tn := range ts {
		if tn.Offset != total {
			t.Fatalf("tensor %d (%s): offset %d, want %d", i, tn.Name, tn.Offset, total)
		}
		total += len(tn.data)
	}
	if total != net.NumParams() {
		t.Fatalf("%d values, the network has %d parameters", total, net.NumParams())
	}
	byName := map[string]tensor{}
	for _, tn := range ts {
		byName[tn.Name] = tn
	}
	if got := byName["policy.b"].Shape; !slices.Equal(got, []int{1, env.NumActions}) {
		t.Errorf("policy.b has shape %v", got)
	}
	if got := byName["stem.w"].Shape; len(got) != 4 || got[1] != env.NumPlanes {
		t.Errorf("stem.w has shape %v", got)
	}
	dst := make([]float32, total)
	if err := nw.CopyWeights(dst); err != nil {
		t.Fatal(err)
	}
	if err := nw.CopyWeights(dst[1:]); err == nil {
		t.Error("a short buffer accepted")
	}
}
