package replay

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/deathstacks/deathstacks/configs"
	"github.com/deathstacks/deathstacks/env"
	"github.com/deathstacks/deathstacks/model"
	"github.com/deathstacks/deathstacks/model/codec"
)

// Config sizes the replay buffer.
type Config struct {
	// Window is the buffer's capacity in positions; older ones drop out.
	Window int `yaml:"window"`
	// Augment trains on a random one of the eight symmetries of each sampled
	// position (see [Buffer.Sample]).
	Augment bool `yaml:"augment"`
	// SurpriseShare is KataGo's policy-surprise weighting: this share of
	// each batch is drawn with probabilities proportional to the samples'
	// Surprise (how far the search's target was from the network's
	// prior), the rest uniformly. 0 (the default) draws uniformly; KataGo
	// draws about half by surprise.
	SurpriseShare float64 `yaml:"surprise_share"`
}

// Validate reports every field out of range, each as a
// [*configs.FieldError] naming its YAML key.
func (c Config) Validate() error {
	var ch configs.Checker
	ch.AtLeast("window", c.Window, 1)
	ch.InRange("surprise_share", c.SurpriseShare, 0, 1)
	return ch.Err()
}

// Buffer is the sliding window of training positions: it keeps the newest
// Window samples and draws uniform batches from them. Observations are kept
// densely (they are what a batch needs); policies sparsely, over the legal
// actions only, which is a few hundred bytes instead of 27 KB per position.
// With augmentation on, each drawn sample is mapped by one of the eight
// symmetries of the board, chosen at random: in expectation the same
// training data as storing all eight images, at an eighth of the memory and
// without eight correlated copies crowding the window.
//
// A Buffer is safe for concurrent use.
type Buffer struct {
	mu       sync.RWMutex
	capacity int
	augment  bool
	// surpriseShare is Config.SurpriseShare; surprise holds the slots'
	// surprises for weighted draws when it is more than 0.
	surpriseShare float64
	surprise      fenwick
	obs           [][]float32 // blocks of obsBlock observations: see [observation]
	slots         []slot
	next          int    // the slot the next Add overwrites once the window is full
	added         uint64 // samples ever added, including those dropped since

	// An Encode reads the samples held when it began without holding mu:
	// while encoding, an Add that would overwrite one of them it has not
	// read yet (one of the oldest encodeCount from slot encodeFirst on, at
	// or past encoded) waits for it on read. encodeMu lets one Encode run
	// at a time.
	encodeMu                          sync.Mutex
	encoding                          bool
	encodeFirst, encodeCount, encoded int
	read                              *sync.Cond
}

// obsBlock is how many observations a block of the buffer's memory holds:
// the buffer grows a block at a time and never moves what it holds. (One
// slice grown by append copied the observations over and over while a
// run's first games came in: 1.6 GB allocated and moved to fill the
// default window of 80,000, under the lock that training's draws wait
// for.)
const obsBlock = 1024

// observation returns slot i's observation in blocks.
func observation(blocks [][]float32, i int) []float32 {
	at := (i % obsBlock) * env.ObservationSize
	return blocks[i/obsBlock][at : at+env.ObservationSize : at+env.ObservationSize]
}

// slot is a stored sample without its observation.
type slot struct {
	legal  []uint16 // env.Action values; NumActions < 1<<16
	policy []float32
	value  float32
	// The optional targets (see model.Sample): replyLegal nil for none,
	// ownership nil for none.
	replyLegal []uint16
	reply      []float32
	ownership  []int8
	score      float32
	final      bool
	surprise   float32
}

// New returns an empty buffer holding up to cfg.Window samples.
func New(cfg Config) (*Buffer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	b := &Buffer{capacity: cfg.Window, augment: cfg.Augment, surpriseShare: cfg.SurpriseShare}
	if b.surpriseShare > 0 {
		b.surprise = newFenwick(cfg.Window)
	}
	return b, nil
}

// pageFloats is the float32s of a 4 KB page of memory.
const pageFloats = 1024

// Reserve takes the memory of the whole window now and has the system map
// it, writing to every page of it, so that the Adds filling the window
// later copy into memory that is ready. Copying into fresh memory costs
// about ten times as much (BenchmarkFill), and a learner fed by many actors
// fills its window within seconds of its first games, while they wait.
func (r *Buffer) Reserve() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.slots = slices.Grow(r.slots, r.capacity-len(r.slots))
	for have := len(r.obs) * obsBlock; have < r.capacity; have += obsBlock {
		block := make([]float32, min(obsBlock, r.capacity-have)*env.ObservationSize)
		for j := 0; j < len(block); j += pageFloats {
			block[j] = 0
		}
		r.obs = append(r.obs, block)
	}
}

// Len returns the number of samples held.
func (r *Buffer) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.slots)
}

// Add copies a sample into the window, dropping the oldest one when the
// window is full. It refuses a malformed sample (wrong observation size,
// no or repeated or out-of-range actions, a policy that is not a
// distribution, a value outside [-1, 1]).
func (r *Buffer) Add(s model.Sample) error {
	if err := s.Validate(); err != nil {
		return fmt.Errorf("replay: add: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var i int
	if len(r.slots) < r.capacity {
		i = len(r.slots)
		r.slots = append(r.slots, slot{})
		if i == len(r.obs)*obsBlock {
			r.obs = append(r.obs, make([]float32, min(obsBlock, r.capacity-i)*env.ObservationSize))
		}
	} else {
		for r.encoding && r.unread(r.next) {
			r.read.Wait()
		}
		i = r.next
		r.next = (r.next + 1) % r.capacity
	}
	copy(observation(r.obs, i), s.Obs)
	sl := &r.slots[i]
	sl.legal = slices.Grow(sl.legal[:0], len(s.Legal))
	for _, a := range s.Legal {
		sl.legal = append(sl.legal, uint16(a))
	}
	sl.policy = append(sl.policy[:0], s.Policy...)
	sl.value = s.Value
	sl.replyLegal, sl.reply = nil, nil
	if s.Reply != nil {
		sl.replyLegal = make([]uint16, len(s.ReplyLegal))
		for j, a := range s.ReplyLegal {
			sl.replyLegal[j] = uint16(a)
		}
		sl.reply = append([]float32(nil), s.Reply...)
	}
	sl.ownership = nil
	if s.Ownership != nil {
		sl.ownership = make([]int8, len(s.Ownership))
		for k, o := range s.Ownership {
			sl.ownership[k] = int8(math.Round(float64(o)))
		}
	}
	sl.score, sl.final = s.Score, s.Final
	if r.surpriseShare > 0 {
		r.surprise.add(i, float64(s.Surprise)-float64(sl.surprise))
	}
	sl.surprise = s.Surprise
	r.added++
	return nil
}

// unread reports that slot i holds a sample the Encode under way has yet
// to read.
func (r *Buffer) unread(i int) bool {
	k := (i - r.encodeFirst + r.capacity) % r.capacity // its place in the Encode's order
	return k >= r.encoded && k < r.encodeCount
}

// slotIndex returns the slot of the i-th oldest sample.
func (r *Buffer) slotIndex(i int) int {
	if len(r.slots) < r.capacity {
		return i
	}
	return (r.next + i) % r.capacity
}

// At returns a copy of the i-th oldest sample held, 0 <= i < Len, as it was
// added (never augmented).
func (r *Buffer) At(i int) (model.Sample, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if i < 0 || i >= len(r.slots) {
		return model.Sample{}, fmt.Errorf("replay: sample %d: the buffer holds %d", i, len(r.slots))
	}
	var b Batch
	b.fill(r, []int{r.slotIndex(i)}, nil)
	return b.Samples[0], nil
}

// Batch is a set of samples drawn by [Buffer.Sample]. Reuse one Batch from
// draw to draw to save allocations: each draw overwrites the slices of the
// previous one. The zero Batch is ready to use; a Batch belongs to one
// goroutine at a time.
type Batch struct {
	// Samples are the drawn samples; they share memory with the Batch, not
	// with the Buffer.
	Samples []model.Sample

	obs    []float32
	legal  []env.Action
	policy []float32
	// The optional targets' memory: replies and ownership.
	replyLegal []env.Action
	reply      []float32
	ownership  []float32
	idx        []int
	picked     map[int]struct{}
}

// Sample draws n distinct samples uniformly at random into b, using rng
// only, so a seeded rng draws the same batch from the same buffer. With
// augmentation on, each sample is mapped by a random symmetry of the board.
// It reports an error when the buffer holds fewer than n samples.
func (r *Buffer) Sample(b *Batch, n int, rng *rand.Rand) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if n < 1 || n > len(r.slots) {
		return fmt.Errorf("replay: sample %d: the buffer holds %d", n, len(r.slots))
	}
	if total := r.surprise.total(); r.surpriseShare > 0 && total > 0 {
		b.pickBySurprise(r, n, rng)
	} else {
		b.pick(n, len(r.slots), rng)
	}
	if r.augment {
		b.fill(r, b.idx, rng)
	} else {
		b.fill(r, b.idx, nil)
	}
	return nil
}

// pick chooses n distinct indices below m by Floyd's algorithm: n draws,
// whatever m is.
func (b *Batch) pick(n, m int, rng *rand.Rand) {
	if b.picked == nil {
		b.picked = make(map[int]struct{}, n)
	}
	clear(b.picked)
	b.idx = b.idx[:0]
	for j := m - n; j < m; j++ {
		t := rng.IntN(j + 1)
		if _, dup := b.picked[t]; dup {
			t = j
		}
		b.picked[t] = struct{}{}
		b.idx = append(b.idx, t)
	}
}

// fill copies the samples of the given slots into b, each mapped by a
// random symmetry when rng is not nil.
func (b *Batch) fill(r *Buffer, slots []int, rng *rand.Rand) {
	const size = env.ObservationSize
	total, replies, owned := 0, 0, 0
	for _, i := range slots {
		sl := &r.slots[i]
		total += len(sl.legal)
		replies += len(sl.replyLegal)
		owned += len(sl.ownership)
	}
	b.obs = grow(b.obs, len(slots)*size)
	b.legal = grow(b.legal, total)
	b.policy = grow(b.policy, total)
	b.replyLegal, b.reply = grow(b.replyLegal, replies), grow(b.reply, replies)
	b.ownership = grow(b.ownership, owned)
	b.Samples = grow(b.Samples, len(slots))
	at, atReply, atOwn := 0, 0, 0
	for k, i := range slots {
		sl := &r.slots[i]
		src, dst := observation(r.obs, i), b.obs[k*size:(k+1)*size]
		legal, policy := b.legal[at:at+len(sl.legal)], b.policy[at:at+len(sl.legal)]
		at += len(sl.legal)
		y := env.Identity
		if rng != nil {
			y = env.Symmetry(rng.IntN(env.NumSymmetries))
		}
		if y == env.Identity {
			copy(dst, src)
		} else {
			y.Observation(dst, src)
		}
		for j, a := range sl.legal {
			legal[j] = y.Action(env.Action(a))
		}
		copy(policy, sl.policy)
		s := model.Sample{Obs: dst, Legal: legal, Policy: policy, Value: sl.value, Score: sl.score, Final: sl.final, Surprise: sl.surprise}
		if sl.replyLegal != nil {
			n := len(sl.replyLegal)
			s.ReplyLegal, s.Reply = b.replyLegal[atReply:atReply+n:atReply+n], b.reply[atReply:atReply+n:atReply+n]
			atReply += n
			for j, a := range sl.replyLegal {
				s.ReplyLegal[j] = y.Action(env.Action(a))
			}
			copy(s.Reply, sl.reply)
		}
		if sl.ownership != nil {
			s.Ownership = b.ownership[atOwn : atOwn+env.NumSquares : atOwn+env.NumSquares]
			atOwn += env.NumSquares
			for q, o := range sl.ownership {
				s.Ownership[y.Square(env.Square(q))] = float32(o)
			}
		}
		b.Samples[k] = s
	}
}

// grow returns s resized to n elements, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// The replay file format: the magic and a version, uncompressed, then a
// gzip stream (whose CRC-32 and length catch corruption and truncation)
// holding little-endian values:
//
//	uint32 env.ObservationSize, uint32 env.NumActions,
//	uint64 sample count, uint64 samples ever added,
//	per sample, oldest first: float32 value, uint16 n,
//	    n x uint16 action, n x float32 probability,
//	    ObservationSize x float32 observation,
//	    and from version 2 the optional targets: a byte of flags (1 a
//	    reply, 2 ownership, 4 a score), float32 surprise, float32 score,
//	    with a reply uint16 n, n x uint16 action, n x float32 probability,
//	    with ownership 36 x int8.
//
// A buffer without optional targets is written as version 1, which has
// none; both versions are read.
const (
	replayMagic   = "DSREPLAY"
	replayVersion = 2

	flagReply     = 1
	flagOwnership = 2
	flagFinal     = 4
)

// encodeChunk is how many samples Encode reads between telling waiting
// Adds how far it got.
const encodeChunk = 512

// Encode writes the buffer's samples, oldest first, in a compact binary
// form that [Decode] reads back: those held when it began (the
// [Buffer.Snapshot] it takes). Adds go on meanwhile; one waits only while
// it would overwrite a sample Encode has not read yet.
func (r *Buffer) Encode(w io.Writer) error { return r.Snapshot().Encode(w) }

// Snapshot is the samples a buffer held at one moment, to be written by
// its Encode: a checkpoint takes it before the games of the next
// iteration start coming in, so that it holds exactly the games before
// its cursor. Until it is written or released, Adds go on, and one that
// would overwrite a sample it has not written yet waits; so it must end
// in Encode or Release, and no other Snapshot or Encode of the buffer
// starts before it does.
type Snapshot struct {
	r       *Buffer
	first   int    // the oldest sample's slot
	added   uint64 // the buffer's count of samples ever added
	version uint32
	// The slots (the samples, oldest from first on) and observation
	// blocks in place at the snapshot never move; Adds may append more.
	slots []slot
	obs   [][]float32
	ended bool
}

// Snapshot takes the samples held now, for one [Snapshot.Encode].
func (r *Buffer) Snapshot() *Snapshot {
	r.encodeMu.Lock()
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.slots)
	s := &Snapshot{r: r, first: r.slotIndex(0), added: r.added, slots: r.slots[:n:n], obs: r.obs[:len(r.obs):len(r.obs)]}
	// Without optional targets the file is version 1, which readers that
	// predate the optional targets read too.
	s.version = 1
	for i := range s.slots {
		if s.slots[i].hasTargets() {
			s.version = replayVersion
			break
		}
	}
	if r.read == nil {
		r.read = sync.NewCond(&r.mu)
	}
	r.encoding, r.encodeFirst, r.encodeCount, r.encoded = true, s.first, n, 0
	return s
}

// progress tells waiting Adds that the first done samples are written,
// and with end that the snapshot is over.
func (s *Snapshot) progress(done int, end bool) {
	r := s.r
	r.mu.Lock()
	r.encoded = done
	if end {
		r.encoding = false
	}
	r.read.Broadcast()
	r.mu.Unlock()
	if end {
		r.encodeMu.Unlock()
	}
}

// Release ends the snapshot without writing it; it does nothing after
// Encode or an earlier Release.
func (s *Snapshot) Release() {
	if !s.ended {
		s.ended = true
		s.progress(len(s.slots), true)
	}
}

// Encode writes the snapshot's samples as [Buffer.Encode] does, and ends
// it: a second call is an error.
func (s *Snapshot) Encode(w io.Writer) error {
	if s.ended {
		return errors.New("encode replay: the snapshot is already written or released")
	}
	defer s.Release()
	n, first, slots, obs, version := len(s.slots), s.first, s.slots, s.obs, s.version
	head := codec.NewWriter(w)
	head.Header(replayMagic, version)
	if err := head.Err(); err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	zw, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
	if err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	bw := bufio.NewWriterSize(zw, 64<<10)
	out := codec.NewWriter(bw)
	out.U32(env.ObservationSize)
	out.U32(env.NumActions)
	out.U64(uint64(n))
	out.U64(s.added)
	for i := range n {
		if i > 0 && i%encodeChunk == 0 {
			s.progress(i, false)
		}
		k := (first + i) % n
		sl := &slots[k]
		out.F32(sl.value)
		out.U16(uint16(len(sl.legal)))
		for _, a := range sl.legal {
			out.U16(a)
		}
		out.Float32s(sl.policy)
		out.Float32s(observation(obs, k))
		if version >= 2 {
			sl.encodeTargets(out)
		}
	}
	if err := out.Err(); err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("encode replay: %w", err)
	}
	return nil
}

// Decode reads a buffer written by [Buffer.Encode] into a new buffer
// configured by cfg; when the file holds more samples than cfg.Window, the
// newest are kept. Truncated or corrupt data, a file for another
// observation or action encoding and malformed samples are errors. If r is
// not an io.ByteReader, Decode may read past the end of the encoded
// data.
func Decode(r io.Reader, cfg Config) (*Buffer, error) {
	buf, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := buf.decode(r); err != nil {
		return nil, fmt.Errorf("decode replay: %w", err)
	}
	return buf, nil
}

// The errors of damaged replay data.
var (
	errCorrupt   = errors.New("corrupt")
	errTruncated = fmt.Errorf("truncated: %w", io.ErrUnexpectedEOF)
)

func (r *Buffer) decode(rd io.Reader) error {
	version, err := codec.NewReader(rd, errCorrupt, errTruncated).HeaderVersions(replayMagic, 1, replayVersion)
	switch {
	case errors.Is(err, codec.ErrBadMagic):
		return errors.New("not a replay buffer file")
	case err != nil:
		return fmt.Errorf("header: %w", err)
	}
	zr, err := gzip.NewReader(rd)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errTruncated
		}
		return err
	}
	zr.Multistream(false)
	buffered := bufio.NewReaderSize(zr, 64<<10)
	in := codec.NewReader(buffered, errCorrupt, errTruncated)
	obsSize, numActions := in.U32(), in.U32()
	count, added := in.U64(), in.U64()
	if err := in.Err(); err != nil {
		return err
	}
	if obsSize != env.ObservationSize || numActions != env.NumActions {
		return fmt.Errorf("written for observations of %d values and %d actions: this program has %d and %d",
			obsSize, numActions, env.ObservationSize, env.NumActions)
	}
	if added < count {
		return fmt.Errorf("corrupt: %d samples but only %d ever added", count, added)
	}
	s := model.Sample{Obs: make([]float32, env.ObservationSize)}
	for k := uint64(0); k < count; k++ {
		s.Value = in.F32()
		n := int(in.U16())
		if in.Err() == nil && (n == 0 || n > env.NumActions) {
			return fmt.Errorf("sample %d: corrupt: %d legal actions", k, n)
		}
		s.Legal, s.Policy = grow(s.Legal, n), grow(s.Policy, n)
		for j := range s.Legal {
			s.Legal[j] = env.Action(in.U16())
		}
		in.Float32s(s.Policy)
		in.Float32s(s.Obs)
		if version >= 2 {
			decodeTargets(in, &s)
		}
		if err := in.Err(); err != nil {
			return fmt.Errorf("sample %d of %d: %w", k, count, err)
		}
		if err := r.Add(s); err != nil {
			return fmt.Errorf("sample %d: corrupt: %w", k, err)
		}
	}
	// Reading on to the end makes gzip check the CRC and length.
	var extra [1]byte
	switch n, err := io.ReadFull(buffered, extra[:]); {
	case n > 0:
		return errors.New("corrupt: data after the last sample")
	case !errors.Is(err, io.EOF):
		return err
	}
	r.added = added
	return nil
}

// hasTargets says whether the slot has an optional target.
func (sl *slot) hasTargets() bool {
	return sl.replyLegal != nil || sl.ownership != nil || sl.final || sl.surprise != 0
}

// encodeTargets writes the slot's optional targets (format version 2).
func (sl *slot) encodeTargets(out *codec.Writer) {
	var flags byte
	if sl.replyLegal != nil {
		flags |= flagReply
	}
	if sl.ownership != nil {
		flags |= flagOwnership
	}
	if sl.final {
		flags |= flagFinal
	}
	out.Bytes([]byte{flags})
	out.F32(sl.surprise)
	out.F32(sl.score)
	if sl.replyLegal != nil {
		out.U16(uint16(len(sl.replyLegal)))
		for _, a := range sl.replyLegal {
			out.U16(a)
		}
		out.Float32s(sl.reply)
	}
	for _, o := range sl.ownership {
		out.Bytes([]byte{byte(o)})
	}
}

// decodeTargets reads the optional targets encodeTargets wrote into s;
// Add checks them.
func decodeTargets(in *codec.Reader, s *model.Sample) {
	var flags byte
	if b := in.Bytes(1); b != nil {
		flags = b[0]
	}
	if in.Err() == nil && flags&^(flagReply|flagOwnership|flagFinal) != 0 {
		in.Fail(fmt.Errorf("%w: target flags %#x", errCorrupt, flags))
	}
	s.Surprise, s.Score, s.Final = in.F32(), in.F32(), flags&flagFinal != 0
	s.ReplyLegal, s.Reply, s.Ownership = nil, nil, nil
	if flags&flagReply != 0 {
		n := int(in.U16())
		if in.Err() == nil && (n == 0 || n > env.NumActions) {
			in.Fail(fmt.Errorf("%w: %d reply actions", errCorrupt, n))
			return
		}
		s.ReplyLegal, s.Reply = make([]env.Action, n), make([]float32, n)
		for j := range s.ReplyLegal {
			s.ReplyLegal[j] = env.Action(in.U16())
		}
		in.Float32s(s.Reply)
	}
	if flags&flagOwnership != 0 {
		if b := in.Bytes(env.NumSquares); b != nil {
			s.Ownership = make([]float32, env.NumSquares)
			for k, o := range b {
				s.Ownership[k] = float32(int8(o))
			}
		}
	}
}
