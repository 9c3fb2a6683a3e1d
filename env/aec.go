package env

// Observation is what an agent of [AEC] observes: the observation planes
// and the mask of the actions it may take, as PettingZoo's
// {"observation", "action_mask"}.
type Observation struct {
	// Planes is the observation of the position, seen from the side to
	// move (see [EncodeObservation]); the game has no hidden information,
	// so both agents see the same planes.
	Planes []float32
	// Mask has NumActions entries: Mask[a] says whether the agent may
	// take action a. It is all false for the agent not to move and once
	// the game has ended.
	Mask []bool
}

// AEC is the per-agent view of an [Env], as PettingZoo's agent environment
// cycle API: the agents Red and Blue ("red" and "blue") take turns, the
// agent to move acts, and at the end both receive their reward (+1 for a
// win, -1 for a loss, 0 for a draw). Its steps are the Env's steps.
//
// Unlike PettingZoo, an agent whose game has ended takes no final step:
// once both are terminated or truncated, call Reset.
//
// AEC, with [Observation], is for Go programs that train or play through
// the PettingZoo-style interface (see the README); nothing else in this
// module uses it, and the Python package builds its own AEC over the C
// library.
type AEC struct {
	env  *Env
	info Info
}

// NewAEC returns the per-agent view of a new environment at the start
// position.
func NewAEC(opts Options) (*AEC, error) {
	e, err := NewEnv(opts)
	if err != nil {
		return nil, err
	}
	return &AEC{env: e, info: e.info()}, nil
}

// Env returns the environment the view wraps; stepping it directly leaves
// Last's info stale.
func (a *AEC) Env() *Env { return a.env }

// Agents returns the agents, Red then Blue.
func (a *AEC) Agents() []Color { return []Color{Red, Blue} }

// Reset starts a new episode as [Env.Reset] does.
func (a *AEC) Reset(seed uint64) Info {
	_, a.info = a.env.Reset(seed)
	return a.info
}

// ResetWith starts a new episode as [Env.ResetWith] does.
func (a *AEC) ResetWith(seed uint64, o ResetOptions) (Info, error) {
	_, info, err := a.env.ResetWith(seed, o)
	if err != nil {
		return Info{}, err
	}
	a.info = info
	return info, nil
}

// AgentSelection returns the agent to act: the side to move, which after
// the end is the side that would have moved next.
func (a *AEC) AgentSelection() Color { return a.env.game.pos.SideToMove() }

// Step takes action for the agent to move. An illegal action, or a step
// after the end, returns an error and changes nothing.
func (a *AEC) Step(action Action) error {
	_, info, err := a.env.play(action)
	if err != nil {
		return err
	}
	a.info = info
	return nil
}

// Observe returns what agent observes now.
func (a *AEC) Observe(agent Color) Observation {
	if agent != a.AgentSelection() {
		return Observation{Planes: a.env.Observation(), Mask: make([]bool, NumActions)}
	}
	return Observation{Planes: a.env.Observation(), Mask: a.env.LegalMask()}
}

// Reward returns agent's reward: 0 while the game goes on, and at the end
// its result (see [Status.Reward]). The two agents' rewards sum to zero.
func (a *AEC) Reward(agent Color) float32 { return a.env.game.Status().Reward(agent) }

// Terminated reports whether agent's episode ended by the rules: a win,
// no stacks or a draw by repetition. Both agents end together.
func (a *AEC) Terminated(agent Color) bool { return a.env.game.Status().Terminated() }

// Truncated reports whether agent's episode was cut off by the move limit.
func (a *AEC) Truncated(agent Color) bool { return a.env.game.Status().Truncated() }

// Last returns, for the agent to act, what PettingZoo's last() does: its
// observation, its reward, whether it is terminated or truncated, and the
// info of the last reset or step.
func (a *AEC) Last() (obs Observation, reward float32, terminated, truncated bool, info Info) {
	agent := a.AgentSelection()
	return a.Observe(agent), a.Reward(agent), a.Terminated(agent), a.Truncated(agent), a.info
}
