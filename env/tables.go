package env

// Lookup tables computed once at start-up and never written again. Every
// move a stack can make depends only on its square and on the lifted count
// modulo 10, because each axis repeats with period 10.

// period is the length after which a reflected walk along one axis repeats.
const period = 2 * (BoardSize - 1)

// reach lists the distinct squares other than the start that k pieces can
// reach from one square, for one residue k mod 10, each with the first
// direction (in Direction order) that reaches it.
type reach struct {
	n   uint8
	to  [numDirections]Square
	dir [numDirections]Direction
}

// The tables are package-level variables with initializers, not filled by
// an init function: Go initializes variables before running any init
// function, so init code elsewhere in the package (the symmetry tables)
// can rely on them whatever the file order.
var (
	// reachTable[s][k%10] lists the targets of a k-piece move from s, and
	// movesUpTo[s][h] counts the moves from s with 1 <= k <= h, for bulk
	// counting.
	reachTable, movesUpTo = buildReachTables()
	// zobristPiece[s][level][c] is XORed into a hash for a piece of colour c
	// at the given level (0 = bottom) of the stack on s; zobristBlueToMove
	// is XORed into the hash when Blue is to move.
	zobristPiece, zobristBlueToMove = buildZobrist()
)

func buildReachTables() (reachTable [NumSquares][period]reach, movesUpTo [NumSquares][maxHeight + 1]uint16) {
	for s := Square(0); s < NumSquares; s++ {
		for r := 1; r < period; r++ {
			var seen uint64
			rc := &reachTable[s][r]
			for d := Direction(0); d < numDirections; d++ {
				t := Destination(s, d, r)
				if t == s || seen&(1<<t) != 0 {
					continue
				}
				seen |= 1 << t
				rc.to[rc.n], rc.dir[rc.n] = t, d
				rc.n++
			}
		}
		for h := 1; h <= maxHeight; h++ {
			movesUpTo[s][h] = movesUpTo[s][h-1] + uint16(reachTable[s][h%period].n)
		}
	}
	return reachTable, movesUpTo
}

func buildZobrist() (piece [NumSquares][maxHeight][2]uint64, blueToMove uint64) {
	// A fixed seed keeps hashes identical across runs and machines.
	state := uint64(goldenGamma)
	for s := range piece {
		for l := range piece[s] {
			for c := range piece[s][l] {
				piece[s][l][c] = splitmix64(&state)
			}
		}
	}
	return piece, splitmix64(&state)
}

// splitmix64 is a small, well-mixed generator used only to fill the Zobrist
// table.
func splitmix64(state *uint64) uint64 {
	*state += goldenGamma
	return finalize(*state)
}
