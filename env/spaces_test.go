package env

import (
	"math"
	"testing"
)

func TestBoxContains(t *testing.T) {
	space := ObservationSpace()
	tall := mustFEN(t, "rrrrrrrrrrrrbbbbbbbbbbbb,,,,,/,,,,,/,,,,,/,,,,,/,,,,,/,,,,, r")
	tallObs := make([]float32, ObservationSize)
	EncodeObservation(tallObs, &tall, DefaultRules(), 1)
	with := func(i int, v float32) []float32 {
		obs := make([]float32, ObservationSize)
		obs[i] = v
		return obs
	}
	tests := []struct {
		name string
		obs  []float32
		want bool
	}{
		{"zeros", make([]float32, ObservationSize), true},
		{"a 24-piece stack", tallObs, true},
		{"too short", make([]float32, ObservationSize-1), false},
		{"too long", make([]float32, ObservationSize+1), false},
		{"negative", with(3, -0.5), false},
		{"above 1", with(planeOwnBelow*NumSquares+7, 1.01), false},
		{"height 2", with(planeHeight*NumSquares+35, 2), true},
		{"height above 2", with(planeHeight*NumSquares, 2.1), false},
		{"NaN", with(0, float32(math.NaN())), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := space.Contains(tt.obs); got != tt.want {
				t.Errorf("Contains = %v, want %v", got, tt.want)
			}
		})
	}
	a6, _ := ParseSquare("a6")
	if tallObs[planeHeight*NumSquares+int(a6)] != space.High[planeHeight] {
		t.Error("a 24-piece stack does not reach the height plane's bound")
	}
	if got := (Box{Shape: []int{2, 3}, Low: make([]float32, 4), High: make([]float32, 4)}).Contains(make([]float32, 6)); got {
		t.Error("a box whose bounds do not divide its shape contains something")
	}
}

func TestObservationsInSpace(t *testing.T) {
	space := ObservationSpace()
	rng := newRNG(11)
	obs := make([]float32, ObservationSize)
	for i := 0; i < 2000; i++ {
		p := randomPosition(rng)
		rules := Rules{TooTall: rng.IntN(2) == 0, MaxPlies: rng.IntN(50), RepetitionLimit: rng.IntN(4)}
		EncodeObservation(obs, &p, rules, 1+rng.IntN(4))
		if !space.Contains(obs) {
			t.Fatalf("%s under %+v: observation outside the space", p.FEN(), rules)
		}
	}
}

func TestDiscreteContains(t *testing.T) {
	space := ActionSpace()
	for _, tt := range []struct {
		a    Action
		want bool
	}{{0, true}, {NumActions - 1, true}, {NumActions, false}, {-1, false}} {
		if got := space.Contains(tt.a); got != tt.want || got != tt.a.Valid() {
			t.Errorf("Contains(%d) = %v, want %v", tt.a, got, tt.want)
		}
	}
}
