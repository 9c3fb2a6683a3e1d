package elo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// GameResult is the outcome of one game between two named players.
type GameResult struct {
	A, B string
	// Score is A's points: 1 for a win, 0.5 for a draw, 0 for a loss.
	Score float64
}

// Rating is a player's fitted Elo rating.
type Rating struct {
	Player string `json:"player"`
	// Elo is the rating relative to the anchor, which is 0.
	Elo float64 `json:"elo"`
	// Low and High bound the 95% confidence interval of Elo; the anchor's
	// interval is [0, 0].
	Low  float64 `json:"elo_low"`
	High float64 `json:"elo_high"`
	// Games and Points are the player's real games and points in them.
	Games  int     `json:"games"`
	Points float64 `json:"points"`
}

// eloScale turns the logistic model's natural units into Elo: a difference
// of 400 Elo is a 10:1 expected score ratio.
const eloScale = 400 / math.Ln10

// PriorDraws is the weight of the prior in [Fit]: every player except
// the anchor gets this many virtual drawn games against the anchor.
const PriorDraws = 1.0

// Fit fits Bradley-Terry (logistic Elo) ratings to game results by
// maximum likelihood, with draws as half a win and half a loss, and the
// anchor player fixed at 0. The result is sorted from the best rating down.
//
// A player who won or lost every game has no finite maximum-likelihood
// rating, and one with no path of games to the anchor has no rating at all;
// so each player other than the anchor also gets [PriorDraws] virtual drawn
// games against the anchor. This weak prior keeps every rating finite and
// pulls it towards the anchor by about one game's worth: a 76% score over
// 100 games (+200 Elo) comes out at +198, over 1000 games at +200.
//
// The 95% intervals are ±1.96 standard errors from the observed Fisher
// information (the negated Hessian of the log-likelihood, prior included)
// at the fitted ratings: they describe each rating's uncertainty relative
// to the anchor.
func Fit(results []GameResult, anchor string) ([]Rating, error) {
	t, err := tally(results, anchor)
	if err != nil {
		return nil, err
	}
	theta, cov, err := t.fit()
	if err != nil {
		return nil, err
	}
	out := make([]Rating, len(t.players))
	for i, name := range t.players {
		r := Rating{Player: name, Elo: theta[i] * eloScale, Games: t.games[i], Points: t.points[i]}
		r.Low, r.High = r.Elo, r.Elo
		if i > 0 {
			half := 1.96 * math.Sqrt(cov.At(i-1, i-1)) * eloScale
			r.Low, r.High = r.Elo-half, r.Elo+half
		}
		out[i] = r
	}
	slices.SortStableFunc(out, func(x, y Rating) int {
		if c := cmp.Compare(y.Elo, x.Elo); c != 0 {
			return c
		}
		return cmp.Compare(x.Player, y.Player)
	})
	return out, nil
}

// eloTally is the results summed by pair of players; player 0 is the
// anchor.
type eloTally struct {
	players []string
	games   []int     // real games per player
	points  []float64 // real points per player
	pairs   []eloPair // in order of first meeting, prior games included
}

// eloPair is the games between players a < b and a's points in them.
type eloPair struct {
	a, b          int
	games, points float64
}

func tally(results []GameResult, anchor string) (*eloTally, error) {
	t := &eloTally{players: []string{anchor}, games: []int{0}, points: []float64{0}}
	ids := map[string]int{anchor: 0}
	id := func(name string) int {
		i, ok := ids[name]
		if !ok {
			i = len(t.players)
			ids[name] = i
			t.players = append(t.players, name)
			t.games = append(t.games, 0)
			t.points = append(t.points, 0)
		}
		return i
	}
	pairIndex := map[[2]int]int{}
	for i, r := range results {
		switch {
		case r.A == "" || r.B == "":
			return nil, fmt.Errorf("elo: result %d: a player without a name", i)
		case r.A == r.B:
			return nil, fmt.Errorf("elo: result %d: %s plays itself", i, r.A)
		case !(r.Score >= 0 && r.Score <= 1):
			return nil, fmt.Errorf("elo: result %d: score %v: want 0 to 1", i, r.Score)
		}
		a, b, s := id(r.A), id(r.B), r.Score
		t.games[a]++
		t.games[b]++
		t.points[a] += s
		t.points[b] += 1 - s
		if a > b {
			a, b, s = b, a, 1-s
		}
		j, ok := pairIndex[[2]int{a, b}]
		if !ok {
			j = len(t.pairs)
			pairIndex[[2]int{a, b}] = j
			t.pairs = append(t.pairs, eloPair{a: a, b: b})
		}
		t.pairs[j].games++
		t.pairs[j].points += s
	}
	if t.games[0] == 0 {
		return nil, fmt.Errorf("elo: the anchor %q played no game", anchor)
	}
	for p := 1; p < len(t.players); p++ {
		t.pairs = append(t.pairs, eloPair{a: 0, b: p, games: PriorDraws, points: PriorDraws / 2})
	}
	return t, nil
}

// logLik is the log-likelihood of ratings theta (in natural units).
func (t *eloTally) logLik(theta []float64) float64 {
	var l float64
	for _, pr := range t.pairs {
		d := theta[pr.a] - theta[pr.b]
		l -= pr.points*softplus(-d) + (pr.games-pr.points)*softplus(d)
	}
	return l
}

// fit maximises the log-likelihood, which is concave, by Newton's method
// with backtracking; the anchor's theta stays 0. It returns the ratings in
// natural units (Elo / eloScale) and the inverse of the information matrix
// of the others (index i-1 for player i).
func (t *eloTally) fit() (theta []float64, cov *mat.SymDense, err error) {
	k := len(t.players) - 1
	theta = make([]float64, len(t.players))
	cov = mat.NewSymDense(max(k, 1), nil)
	if k == 0 {
		return theta, cov, nil
	}
	info, grad := mat.NewSymDense(k, nil), mat.NewVecDense(k, nil)
	var step mat.VecDense
	var chol mat.Cholesky
	trial := make([]float64, len(theta))
	for iter := 0; ; iter++ {
		info.Zero()
		grad.Zero()
		for _, pr := range t.pairs {
			p := sigmoid(theta[pr.a] - theta[pr.b])
			resid, w := pr.points-pr.games*p, pr.games*p*(1-p)
			if pr.a > 0 {
				grad.SetVec(pr.a-1, grad.AtVec(pr.a-1)+resid)
				info.SetSym(pr.a-1, pr.a-1, info.At(pr.a-1, pr.a-1)+w)
				info.SetSym(pr.a-1, pr.b-1, info.At(pr.a-1, pr.b-1)-w)
			}
			grad.SetVec(pr.b-1, grad.AtVec(pr.b-1)-resid)
			info.SetSym(pr.b-1, pr.b-1, info.At(pr.b-1, pr.b-1)+w)
		}
		if !chol.Factorize(info) {
			return nil, nil, errors.New("elo: the information matrix is singular")
		}
		if iter == 100 {
			return nil, nil, errors.New("elo: the fit did not converge")
		}
		if err := chol.SolveVecTo(&step, grad); err != nil {
			return nil, nil, fmt.Errorf("elo: %w", err)
		}
		// Newton's full step can overshoot far from the optimum: halve it
		// until the likelihood does not fall.
		before, largest := t.logLik(theta), 0.0
		for scale := 1.0; scale > 1e-6; scale /= 2 {
			for i := 1; i < len(theta); i++ {
				trial[i] = theta[i] + scale*step.AtVec(i-1)
			}
			if t.logLik(trial) >= before-1e-12 {
				break
			}
		}
		for i := 1; i < len(theta); i++ {
			largest = max(largest, math.Abs(trial[i]-theta[i]))
		}
		copy(theta, trial)
		if largest < 1e-9 {
			break
		}
	}
	if err := chol.InverseTo(cov); err != nil {
		return nil, nil, fmt.Errorf("elo: %w", err)
	}
	return theta, cov, nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// softplus returns log(1 + e^x) without overflow: -log sigma(-x).
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}
