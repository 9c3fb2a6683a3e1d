package mcts

import "time"

// Config sets up a PUCT search, with a Gumbel root when Gumbel is set. The
// YAML keys are the ones in the project's config files; [DefaultConfig]
// gives values for strong play (PUCT, no noise, the most visited move), and
// self-play turns on root noise (Dirichlet, or Gumbel at a temperature).
type Config struct {
	// Simulations is the number of simulations each search runs. With tree
	// reuse, the visits kept from the previous move come on top. The tree
	// takes about 32 bytes per legal move of every position evaluated
	// (some 2.5 MB for 800 simulations in the middle game).
	Simulations int `yaml:"simulations"`
	// Time is the search time per move; 0 leaves the search to
	// Simulations. With both, the search ends at whichever limit comes
	// first, and with Time, Simulations may be 0 for no simulation limit.
	// A timed search also ends early once its move is decided (see
	// timed.go).
	Time time.Duration `yaml:"time"`
	// CPuct is the exploration constant of PUCT; with CPuctBase > 0 it is
	// c_init of AlphaZero's schedule
	// c(s) = log((1 + N(s) + c_base) / c_base) + c_init.
	CPuct float64 `yaml:"c_puct"`
	// CPuctBase is c_base of that schedule; 0 keeps CPuct constant.
	CPuctBase float64 `yaml:"c_puct_base"`
	// FPUReduction sets the first-play urgency: a child not yet visited is
	// valued at the parent's value minus FPUReduction times the square root
	// of the prior mass of the children already visited.
	FPUReduction float64 `yaml:"fpu_reduction"`
	// DirichletAlpha is the concentration of the noise mixed into the root
	// priors.
	DirichletAlpha float64 `yaml:"dirichlet_alpha"`
	// DirichletEpsilon is the weight of that noise; 0 turns it off. It is
	// drawn once per root position.
	DirichletEpsilon float64 `yaml:"dirichlet_epsilon"`
	// Temperature is the move-choice temperature for the first
	// TemperaturePlies plies of the game (counted by the position's ply):
	// a move is drawn with probability proportional to visits^(1/T). With
	// a Gumbel root it scales the Gumbel noise instead (see Gumbel).
	Temperature float64 `yaml:"temperature"`
	// TemperaturePlies is the number of plies Temperature applies to.
	TemperaturePlies int `yaml:"temperature_plies"`
	// FinalTemperature applies after that; 0 plays the most visited move.
	FinalTemperature float64 `yaml:"final_temperature"`
	// LateTemperaturePly, when above 0, brings Temperature back from this
	// ply of the game on, so that the moves of long games are drawn with
	// the opening's noise again: self-play's endgames then vary, where the
	// best move alone would replay the same stalled ones. 0 = never.
	LateTemperaturePly int `yaml:"late_temperature_ply"`
	// BatchSize is the number of leaves one search gathers, with virtual
	// loss, for each Evaluator call.
	BatchSize int `yaml:"batch_size"`
	// VirtualLoss is the number of lost visits a simulation in flight adds
	// to every node on its path, so that the other leaves of a batch go
	// elsewhere.
	VirtualLoss float64 `yaml:"virtual_loss"`
	// ReuseTree keeps the subtree of the moves played between two searches
	// of the same game.
	ReuseTree bool `yaml:"reuse_tree"`
	// Contempt is what a draw (by repetition, or at the move limit) costs
	// the side ahead in material, as a share of a loss: the search scores
	// such a draw -Contempt*tanh(lead/60) for the side to move at the root,
	// lead being its material lead there (env.Position.Material), and the
	// opposite for the other side. A side that is well ahead then steers
	// away from repeating positions and plays to win. A side that is not
	// ahead scores a draw 0: material is not the outcome, and a player
	// whose search sees it winning from behind must not take a repetition
	// for a bonus, which loses games a deterministic opponent then wins.
	// With contempt a position that repeats one on the search path is
	// scored as that draw too (a cycle one side can repeat until the game
	// is drawn). 0 scores every draw 0.
	Contempt float64 `yaml:"contempt"`
	// DrawCost is what every draw costs the side to move at the root, on
	// top of Contempt, whatever the material: the search scores a draw
	// -(DrawCost + Contempt*tanh(max(0, lead)/60)) for that side. With level
	// material Contempt alone scores a draw 0, and against a deterministic
	// opponent a player that sees nothing better than 0 repeats positions
	// and draws early; a small cost (such as 0.1) makes it prefer any move
	// it judges nearly as good. 0 = off.
	DrawCost float64 `yaml:"draw_cost"`
	// Gumbel replaces the PUCT rule at the root by the root search of
	// Gumbel AlphaZero (Danihelka et al., "Policy improvement by planning
	// with Gumbel", ICLR 2022): GumbelConsidered moves, drawn without
	// replacement by Gumbel noise on the prior's logits, share the
	// simulations by sequential halving, and the training target is the
	// improved policy softmax(logit + sigma(completed Q)) over every legal
	// move rather than the visit shares. It is built for searches with
	// fewer simulations than legal moves, where visit shares say little.
	// The Gumbel noise, scaled by the temperature of the ply, takes the
	// place of both Dirichlet noise (which must be off) and move sampling:
	// the move is the best remaining one by noise + logit + sigma(Q).
	Gumbel bool `yaml:"gumbel"`
	// GumbelConsidered is the number of root moves the halving starts with;
	// a search of more than 16 times as many simulations considers one
	// move per 16 simulations instead.
	GumbelConsidered int `yaml:"gumbel_considered"`
	// GumbelCVisit and GumbelCScale shape sigma(q) = (c_visit + the most
	// visits of a root move) * c_scale * q, with q the completed Q values
	// rescaled to [0, 1] among the root moves.
	GumbelCVisit float64 `yaml:"gumbel_c_visit"`
	GumbelCScale float64 `yaml:"gumbel_c_scale"`
	// WinSearchPlies is the longest forced win, in plies, that an exact
	// search looks for at the root before the tree search (see
	// package mcts/internal/winsearch): when it proves one, the player plays a shortest win
	// and the tree search is skipped. 0 = off.
	WinSearchPlies int `yaml:"win_search_plies"`
	// WinSearchNodes bounds the positions that search may visit for one
	// move; a search of fewer simulations than Simulations (playout cap
	// randomization's fast moves) gets the same share of them.
	WinSearchNodes int `yaml:"win_search_nodes"`
	// MaterialUtility is the share of a leaf's value that the material
	// count gives: the search backs up (1-m)*value + m*share, share being
	// the side to move's material lead (env.Position.Material) over all
	// material on the board, in (-1, 1). A network sure of a win values
	// every move near 1, and the search then has nothing to choose by;
	// the material term keeps it taking stacks until the win is within
	// reach of the win search (KataGo's score utility plays this part).
	// 0 = off.
	MaterialUtility float64 `yaml:"material_utility"`
	// TowerCap, while some stack at the root is taller than it, counts
	// every stack as at most TowerCap pieces in the material term. A stack
	// taller than 8 freezes its owner's other stacks (the too-tall rule),
	// so its pieces win nothing until it is taken apart, 4 pieces a move,
	// each remainder the mover's where the tower's order allows; counted
	// whole, the tower scores as high as any dismantling and the search
	// keeps it. Before any such stack stands, material counts whole: a
	// tall stack is what wins the middle game. 0 = off.
	TowerCap int `yaml:"tower_cap"`
}

// DefaultConfig returns settings for strong play: 800 simulations,
// AlphaZero's c_puct schedule (c_init 1.25, c_base 19652), an FPU reduction
// of 0.25, no noise, the most visited move, batches of 8 leaves with a
// virtual loss of 1, tree reuse, a contempt of 0.5, the root's win search
// (9 plies, 500,000 positions) and a material utility of 0.3 (by SPRT
// against 0 at 200 simulations: +214 +-114 Elo,
// train/EXPERIMENTS.md#material-utility).
// Self-play (configs/default.yaml) searches instead with a Gumbel root, its
// noise at a temperature of 1 all game, 64 simulations (16 on most moves)
// and a win search of 20,000 positions.
func DefaultConfig() Config {
	return Config{
		Simulations:    800,
		CPuct:          1.25,
		CPuctBase:      19652,
		FPUReduction:   0.25,
		DirichletAlpha: 0.3,
		BatchSize:      8,
		VirtualLoss:    1,
		ReuseTree:      true,
		Contempt:       0.5,

		GumbelConsidered: 16,
		GumbelCVisit:     50,
		GumbelCScale:     0.1,

		WinSearchPlies:  9,
		WinSearchNodes:  500_000,
		MaterialUtility: 0.3,
	}
}

// WithSimulations returns c for a search of sims simulations instead of
// c.Simulations, such as the fast searches of playout cap randomization:
// the root's win search gets the same share of its positions
// (WinSearchNodes) as of the simulations, when sims is fewer.
func (c Config) WithSimulations(sims int) Config {
	if c.Simulations > 0 && sims < c.Simulations {
		c.WinSearchNodes = int(int64(c.WinSearchNodes) * int64(sims) / int64(c.Simulations))
	}
	c.Simulations = sims
	return c
}
