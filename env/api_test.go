package env

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The two tests PettingZoo runs on every environment (api_test and
// seed_test), written for ours: random rollouts through the per-agent view,
// with an Env clone stepped alongside so that both APIs are checked.

// randomReset draws reset options: openings, rules with short move limits
// (so that truncation happens) and random start positions.
func randomReset(rng *rand.Rand) ResetOptions {
	o := ResetOptions{OpeningPlies: rng.IntN(10)}
	if rng.IntN(2) == 0 {
		o.Rules = &Rules{TooTall: rng.IntN(4) > 0, MaxPlies: 10 + rng.IntN(60), RepetitionLimit: 2}
	}
	if rng.IntN(2) == 0 { // fewer pieces: wins and repetitions come sooner
		if p := randomPosition(rng); !p.Finished() {
			o.FEN = p.FEN()
		}
	}
	return o
}

// legalSet returns the mask of g's legal moves, computed from the move
// generator rather than the action mask code.
func legalSet(g *Game) []bool {
	mask := make([]bool, NumActions)
	for _, m := range g.LegalMoves(nil) {
		a, err := ActionOf(m)
		if err != nil {
			panic(err)
		}
		mask[a] = true
	}
	return mask
}

// checkAgents checks what each agent of a sees against the game.
func checkAgents(t *testing.T, a *AEC) {
	t.Helper()
	g := a.Env().Game()
	st := g.Status()
	space := ObservationSpace()
	var planes []float32
	for _, agent := range a.Agents() {
		obs := a.Observe(agent)
		if !space.Contains(obs.Planes) {
			t.Fatalf("%v's observation is outside the observation space", agent)
		}
		if planes != nil && !slices.Equal(planes, obs.Planes) {
			t.Fatal("the agents see different planes")
		}
		planes = obs.Planes
		want := make([]bool, NumActions)
		if agent == a.AgentSelection() && !st.Over() {
			want = legalSet(g)
			if !slices.Contains(obs.Mask, true) {
				t.Fatalf("%v to move in an ongoing game has an empty mask", agent)
			}
		}
		if len(obs.Mask) != ActionSpace().N || !slices.Equal(obs.Mask, want) {
			t.Fatalf("%v's mask is not its legal actions", agent)
		}
		if a.Terminated(agent) != (st.Over() && st != MoveLimit) || a.Truncated(agent) != (st == MoveLimit) {
			t.Fatalf("%v: terminated %v truncated %v with status %v", agent, a.Terminated(agent), a.Truncated(agent), st)
		}
	}
	red, blue := a.Reward(Red), a.Reward(Blue)
	w, won := st.Winner()
	switch {
	case red+blue != 0:
		t.Fatalf("rewards %v and %v are not zero-sum", red, blue)
	case !won && red != 0:
		t.Fatalf("reward %v with status %v", red, st)
	case won && a.Reward(w) != 1:
		t.Fatalf("the winner %v has reward %v", w, a.Reward(w))
	}
	p := g.Position()
	if a.AgentSelection() != p.SideToMove() {
		t.Fatal("the agent to act is not the side to move")
	}
	agent := a.AgentSelection()
	obs, reward, term, trunc, info := a.Last()
	if !sameObservation(obs, a.Observe(agent)) || reward != a.Reward(agent) || term != a.Terminated(agent) || trunc != a.Truncated(agent) {
		t.Fatal("Last is not the agent to act's observation, reward and ending")
	}
	if info.Status != st || info.Ply != p.Ply() || info.Repetitions != g.Repetitions() {
		t.Fatalf("info %+v, game at ply %d with status %v seen %d times", info, p.Ply(), st, g.Repetitions())
	}
}

func sameObservation(a, b Observation) bool {
	return slices.Equal(a.Planes, b.Planes) && slices.Equal(a.Mask, b.Mask)
}

func sameInfo(a, b Info) bool {
	return a.Status == b.Status && a.Ply == b.Ply && a.Repetitions == b.Repetitions && a.Move == b.Move &&
		slices.Equal(a.Opening, b.Opening)
}

// illegalAction draws an action the mask forbids, sometimes out of range.
func illegalAction(rng *rand.Rand, mask []bool) Action {
	switch rng.IntN(8) {
	case 0:
		return -1 - Action(rng.IntN(3))
	case 1:
		return NumActions + Action(rng.IntN(3))
	}
	for {
		if a := Action(rng.IntN(NumActions)); !mask[a] {
			return a
		}
	}
}

// pick draws an allowed action of a mask, which must allow one.
func pick(rng *rand.Rand, mask []bool) Action {
	var legal []Action
	for a, ok := range mask {
		if ok {
			legal = append(legal, Action(a))
		}
	}
	return legal[rng.IntN(len(legal))]
}

// moveBack returns the action that takes back the mover's last move, if it
// is legal: played by both sides, it makes positions repeat, which random
// play seldom does.
func moveBack(g *Game, mask []bool) (Action, bool) {
	moves := g.Moves()
	if len(moves) < 2 {
		return 0, false
	}
	m := moves[len(moves)-2]
	a, err := ActionOf(Move{From: m.To, To: m.From, Count: m.Count})
	return a, err == nil && mask[a]
}

func TestAPI(t *testing.T) {
	rollouts := 80
	if testing.Short() {
		rollouts = 40
	}
	endings := map[Status]int{}
	for seed := uint64(0); seed < uint64(rollouts); seed++ {
		rng := newRNG(seed)
		a, err := NewAEC(DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		o := randomReset(rng)
		info, err := a.ResetWith(seed, o)
		if err != nil {
			t.Fatalf("seed %d: reset %+v: %v", seed, o, err)
		}
		g := a.Env().Game()
		if info.Status != Ongoing || info.Move != (Move{}) || !slices.Equal(info.Opening, g.Moves()) || len(info.Opening) > o.OpeningPlies {
			t.Fatalf("seed %d: reset info %+v", seed, info)
		}
		mirror := a.Env().Clone()
		shuffler := rng.IntN(4) == 0 // a rollout that often moves back and forth
		for {
			checkAgents(t, a)
			mover := a.AgentSelection()
			mask := a.Observe(mover).Mask
			before, beforeInfo := stateOf(a.Env()), a.info
			if err := a.Step(illegalAction(rng, mask)); err == nil {
				t.Fatalf("seed %d: an illegal action was accepted", seed)
			}
			if !stateOf(a.Env()).equal(before) || !sameInfo(a.info, beforeInfo) {
				t.Fatalf("seed %d: an illegal action changed the environment", seed)
			}
			if g.Status().Over() {
				endings[g.Status()]++
				break
			}
			action := pick(rng, mask)
			if back, ok := moveBack(g, mask); ok && shuffler && rng.IntN(2) == 0 {
				action = back
			}
			p := g.Position()
			ply := p.Ply()
			obs, reward, term, trunc, stepInfo, err := mirror.Step(action)
			if err != nil {
				t.Fatalf("seed %d: a legal action failed: %v", seed, err)
			}
			if err := a.Step(action); err != nil {
				t.Fatalf("seed %d: a legal action failed: %v", seed, err)
			}
			st := g.Status()
			m, _ := MoveOf(action)
			_, _, _, _, info := a.Last()
			switch {
			case !sameInfo(info, stepInfo):
				t.Fatalf("seed %d: Last's info %+v, Step's %+v", seed, info, stepInfo)
			case stepInfo.Move != m || stepInfo.Status != st || stepInfo.Ply != ply+1 || stepInfo.Opening != nil:
				t.Fatalf("seed %d: step info %+v after %v", seed, stepInfo, m)
			case !slices.Equal(obs, a.Observe(mover).Planes):
				t.Fatalf("seed %d: Env and AEC observations differ", seed)
			case reward != a.Reward(mover) || term != a.Terminated(mover) || trunc != a.Truncated(mover):
				t.Fatalf("seed %d: Env step reward %v terminated %v truncated %v, AEC %v %v %v", seed,
					reward, term, trunc, a.Reward(mover), a.Terminated(mover), a.Truncated(mover))
			case !st.Over() && (reward != 0 || term || trunc):
				t.Fatalf("seed %d: reward %v terminated %v truncated %v in an ongoing game", seed, reward, term, trunc)
			}
		}
	}
	t.Logf("endings %v", endings)
	// The rollouts must reach every way an episode ends that random play
	// reaches, or the checks above were not exercised on it.
	for _, st := range []Status{RedWins, BlueWins, DrawRepetition, MoveLimit} {
		if endings[st] == 0 {
			t.Errorf("no rollout ended with %v: %v", st, endings)
		}
	}
}

// episode is everything an agent receives over an episode.
type episode struct {
	reset Info
	steps []Info
	obs   []Observation
}

// rollout plays an episode with actions drawn from actionSeed.
func rollout(t *testing.T, seed, actionSeed uint64) episode {
	a, err := NewAEC(Options{Rules: DefaultRules(), OpeningPlies: 6})
	if err != nil {
		t.Fatal(err)
	}
	rng := newRNG(actionSeed)
	ep := episode{reset: a.Reset(seed)}
	for {
		obs, _, term, trunc, _ := a.Last()
		ep.obs = append(ep.obs, obs)
		if term || trunc {
			return ep
		}
		if err := a.Step(pick(rng, obs.Mask)); err != nil {
			t.Fatal(err)
		}
		ep.steps = append(ep.steps, a.info)
	}
}

func TestSeed(t *testing.T) {
	for seed := uint64(0); seed < 20; seed++ {
		a, b := rollout(t, seed, 100+seed), rollout(t, seed, 100+seed)
		if len(a.obs) != len(b.obs) {
			t.Fatalf("seed %d: episodes of %d and %d observations", seed, len(a.obs), len(b.obs))
		}
		for i := range a.obs {
			if !sameObservation(a.obs[i], b.obs[i]) {
				t.Fatalf("seed %d: observation %d differs", seed, i)
			}
		}
		if !sameInfo(a.reset, b.reset) || !slices.EqualFunc(a.steps, b.steps, sameInfo) {
			t.Fatalf("seed %d: same seed and actions, different infos", seed)
		}
		if c := rollout(t, seed+1, 100+seed); slices.Equal(c.reset.Opening, a.reset.Opening) || sameObservation(c.obs[0], a.obs[0]) {
			t.Errorf("seeds %d and %d start the same: %v", seed, seed+1, a.reset.Opening)
		}
	}
}
