#!/usr/bin/env bash
# Measures every speed figure of cmd/PERFORMANCE.md again and prints its
# table in Markdown: figure, median, range (min-max over the runs) and the
# command that measures it. Run from anywhere in the repository:
#
#   bash cmd/performance.sh                 # the full run, about 15 minutes on 2 cores
#   bash cmd/performance.sh --quick         # 2 runs of each, shorter lines: about 5 minutes
#   bash cmd/performance.sh --rounds 3 --note "load 0.1" --raw raw.txt
#
# --rounds N   runs of each command (default 5; 3 for the slow Python rows)
# --quick      --rounds 2, 1-second lines, self-play from Python with 64 games
# --note TEXT  appended to the header line (for example the load seen)
# --raw FILE   also keeps every command's output in FILE
# PYTHON=PATH  the Python of the Python rows (default: the first python3 with numpy)
#
# It builds the deathstacks binary and, when python3 has numpy and a C
# compiler is there, the C library of the Python package. Rows whose
# prerequisites are missing print as skipped with the reason: PyTorch for
# self-play from Python, onnxruntime-node (DEATHSTACKS_ORT names a folder
# where `npm install --ignore-scripts onnxruntime-node@1.30.0` ran) for
# the ONNX row. Measure on a quiet machine: other work lowers every figure.
set -euo pipefail

ROUNDS=5 QUICK=0 NOTE="" RAW=""
while (($#)); do
	case $1 in
	--quick) QUICK=1 ROUNDS=2 ;;
	--rounds) ROUNDS=${2:?--rounds needs a number}; shift ;;
	--note) NOTE=${2?--note needs a text}; shift ;;
	--raw) RAW=${2:?--raw needs a file}; shift ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	*) echo "performance.sh: unknown argument $1: want --quick, --rounds N, --note TEXT or --raw FILE (--help)" >&2; exit 2 ;;
	esac
	shift
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || { echo "performance.sh: --rounds $ROUNDS: want a whole number of 1 or more" >&2; exit 2; }

cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
mkdir "$W/samples"
: >"$W/raw"
SLOW=$((ROUNDS < 3 ? ROUNDS : 3)) # runs of the rows that take a minute each
SECS=3                            # seconds of each bench nn line
MCTS_SECS=2
PY_GAMES=256
if ((QUICK)); then SECS=1 MCTS_SECS=1 PY_GAMES=64; fi

log() { echo "performance.sh: $*" >&2; }

# run CMD...: runs a command, keeps its output (stdout and stderr) in the raw
# log and prints it.
run() {
	log "$*"
	{ echo "\$ $*"; } >>"$W/raw"
	local out
	out=$("$@" 2>&1) || { echo "$out" >>"$W/raw"; log "failed, its rows print as not measured: $*"; tail -5 <<<"$out" >&2; return 0; }
	echo "$out" >>"$W/raw"
	echo "$out"
}

# add ROW VALUE...: records samples of a row.
add() {
	local row=$1
	shift
	for v in "$@"; do [[ -n $v ]] && echo "$v" >>"$W/samples/$row"; done
	return 0
}

# skip ROW REASON: the row prints as skipped.
skip() { echo "$2" >"$W/samples/$1.skipped"; }

# bench OUTPUT NAME UNIT: the values of a Go benchmark's metric, one per line
# of -count (NAME is the benchmark's full name, without the -N of GOMAXPROCS).
bench() {
	awk -v name="$2" -v unit="$3" '
		{ n = $1; sub(/-[0-9]+$/, "", n) }
		n == name { for (i = 3; i <= NF; i++) if ($i == unit) print $(i - 1) }' <<<"$1"
}

# field OUTPUT PREFIX KEY: the value of KEY=<v> on the lines starting with
# PREFIX (the lines of deathstacks bench).
field() {
	awk -v p="$2" -v k="$3=" 'index($0, p) == 1 { for (i = 1; i <= NF; i++) if (index($i, k) == 1) { v = substr($i, length(k) + 1); sub(/%$/, "", v); print v } }' <<<"$1"
}

# ---------------------------------------------------------------- builds
log "building the deathstacks binary"
go build -o "$W/deathstacks" ./cmd/deathstacks
DS=$W/deathstacks

# The Python rows run on $PYTHON, else the first python3 with numpy (a
# pyenv shim on the PATH may have none where Debian's /usr/bin/python3 has).
PY="" PYTHON=${PYTHON:-}
if [[ -z $PYTHON ]]; then
	for p in python3 /usr/bin/python3; do
		if command -v $p >/dev/null && $p -c 'import numpy' 2>/dev/null; then PYTHON=$(command -v $p) && break; fi
	done
fi
if [[ -z $PYTHON ]]; then
	PYWHY="no python3 with numpy"
elif ! command -v "${CC:-gcc}" >/dev/null && ! command -v cc >/dev/null; then
	PYWHY="no C compiler for the Python library (cgo)"
else
	log "building the Python package's C library"
	go build -buildmode=c-shared -o "$W/libdeathstacks.so" ./cmd/libdeathstacks
	PY=1
fi
pyrun() { DEATHSTACKS_LIB=$W/libdeathstacks.so PYTHONPATH=env/python/src run "$PYTHON" env/python/bench.py "$@"; }

DESC=$("$DS" bench nn --batches 1 --clients 1 --train-batch 0 --seconds 0.1 2>&1 >/dev/null | sed -n 1p)
KERNELS=$(sed -n 's/.*kernels \([a-z0-9]*\).*/\1/p' <<<"$DESC")
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
START=$(date -u +%F)

# ---------------------------------------------------------------- rules engine
for _ in $(seq "$ROUNDS"); do
	t0=$(date +%s.%N)
	out=$(GOMAXPROCS=1 run "$DS" perft --depth 5)
	t1=$(date +%s.%N)
	grep -q 'Nodes searched: 309812386' <<<"$out" || { log "perft(5) did not count 309,812,386"; exit 1; }
	add perft "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')"
done

out=$(GOMAXPROCS=1 run go test -run '^$' -bench 'LegalMoves$|Playout$|StepInto$|^BenchmarkStep$' -benchmem -count "$ROUNDS" ./env)
add movegen $(bench "$out" BenchmarkLegalMoves ns/position)
add playout $(bench "$out" BenchmarkPlayout plies/s)
add stepinto $(bench "$out" BenchmarkStepInto ns/op)
add stepinto_allocs $(bench "$out" BenchmarkStepInto allocs/op)
add step $(bench "$out" BenchmarkStep/Env ns/op)

# ---------------------------------------------------------------- search
for _ in $(seq "$ROUNDS"); do
	out=$(run "$DS" bench mcts --seconds "$MCTS_SECS")
	add puct "$(field "$out" puct sims/s)"
	add uct "$(field "$out" uct-rollout sims/s)"
	add alphabeta "$(field "$out" alphabeta nodes/s)"
done

# ---------------------------------------------------------------- network
for _ in $(seq "$ROUNDS"); do
	out=$(run "$DS" bench nn --batches 8,256 --clients 16 --per-call 8 --train-batch 128 --seconds "$SECS")
	add peak "$(field "$out" peak gflops)"
	add raw8 "$(field "$out" 'raw batch=8 ' evals/s)"
	add raw256 "$(field "$out" 'raw batch=256 ' evals/s)"
	add server16 "$(field "$out" server evals/s)"
	add server16_share "$(field "$out" server share)"
	add train128 "$(field "$out" train samples/s)"
	add train128_share "$(field "$out" train share)"
	out=$(run "$DS" bench nn --batches 1 --clients 1 --per-call 8 --train-batch 0 --seconds "$SECS")
	add lone "$(field "$out" server evals/s)"
	add peak "$(field "$out" peak gflops)"
	out=$(run "$DS" bench nn --batches 32 --train-batch 0 --seconds "$SECS")
	add server64 "$(field "$out" server evals/s)"
	add server64_share "$(field "$out" server share)"
	add peak "$(field "$out" peak gflops)"
done
if [[ $KERNELS == avx512 ]]; then
	for _ in $(seq "$SLOW"); do
		out=$(DEATHSTACKS_NOAVX512=1 run "$DS" bench nn --batches 8,256 --clients 16 --per-call 8 --train-batch 0 --seconds "$SECS")
		add avx2_raw8 "$(field "$out" 'raw batch=8 ' evals/s)"
		add avx2_raw256 "$(field "$out" 'raw batch=256 ' evals/s)"
		add avx2_server16 "$(field "$out" server evals/s)"
	done
else
	for r in avx2_raw8 avx2_raw256 avx2_server16; do skip $r "the kernels in use are already $KERNELS"; done
fi
out=$(GOMAXPROCS=1 run go test -run '^$' -bench 'Kernel$' -count "$ROUNDS" ./model/internal/kernel)
add kernel512 $(bench "$out" BenchmarkKernel/avx512 GFLOP/s)
add kernel2 $(bench "$out" BenchmarkKernel/avx2 GFLOP/s)
[[ -s $W/samples/kernel512 ]] || skip kernel512 "no AVX-512 on this CPU"

# ---------------------------------------------------------------- self-play and the default run
out=$(run go test -run '^$' -bench 'SelfPlay$' -benchtime 3x -count "$ROUNDS" ./train)
add selfplay $(bench "$out" BenchmarkSelfPlay plies/s)
add selfplay_evals $(bench "$out" BenchmarkSelfPlay evals/s)
if ! command -v jq >/dev/null; then
	for r in run_plies run_positions run_evals run_samples run_selfplay_share; do skip $r "no jq to read metrics.jsonl"; done
else
	run "$DS" train --iterations 3 --out "$W/run" --quiet >/dev/null
	run cat "$W/run/metrics.jsonl" >/dev/null
	while read -r plies pos evals samples sp tr; do
		add run_plies "$plies"
		add run_positions "$pos"
		add run_evals "$evals"
		add run_samples "$samples"
		add run_selfplay_share "$(awk -v a="$sp" -v b="$tr" 'BEGIN { print 100 * a / (a + b) }')"
	done < <(jq -r '[.mean_game_length * .selfplay_games / .selfplay_sec, .positions_per_sec, .evals_per_sec, .samples_per_sec, .selfplay_sec, .train_sec] | @tsv' "$W/run/metrics.jsonl" 2>/dev/null)
fi

# ---------------------------------------------------------------- environments and the C library
out=$(run go test -run '^$' -bench 'VectorStep$' -count "$ROUNDS" ./env/vector)
add vectorstep $(bench "$out" BenchmarkVectorStep steps/s)
out=$(run go test -run '^$' -bench 'VectorAZ/envs=128$' -benchtime 60x -count "$SLOW" ./cmd/libdeathstacks)
add vectoraz $(bench "$out" BenchmarkVectorAZ/envs=128 evals/s)

if [[ -n $PY ]]; then
	for _ in $(seq "$ROUNDS"); do
		out=$(pyrun aec vector)
		add py_aec "$(sed -n 's/^aec: step + last \([0-9.]*\) us.*/\1/p' <<<"$out")"
		add py_vector "$(sed -n 's/^vector: .*, \([0-9,]*\) steps\/s.*/\1/p' <<<"$out" | tr -d ,)"
	done
	for _ in $(seq "$SLOW"); do
		out=$(pyrun az)
		add py_az "$(sed -n 's/.* \([0-9,]*\) network evals\/s.*/\1/p' <<<"$out" | tr -d ,)"
	done
	out=$(pyrun search "$DS" "$ROUNDS" 3)
	add py_search_go $(sed -n 's/^round [0-9]*: bench mcts puct \([0-9,]*\) sims\/s.*/\1/p' <<<"$out" | tr -d ,)
	add py_search $(sed -n 's/.*Search from Python \([0-9,]*\) sims\/s.*/\1/p' <<<"$out" | tr -d ,)
	add py_search_share $(sed -n 's/.*sims\/s (\([0-9]*\)%;.*/\1/p' <<<"$out")
	if "$PYTHON" -c 'import torch' 2>/dev/null; then
		for _ in $(seq "$((QUICK ? 1 : 2))"); do
			out=$(OMP_NUM_THREADS=1 pyrun selfplay torch "$PY_GAMES")
			add py_selfplay_share "$(sed -n 's/^selfplay torch: .*, \([0-9.]*\)% of the time in the evaluator/\1/p' <<<"$out")"
			add py_selfplay_positions "$(sed -n 's/^selfplay torch: .* s: \([0-9,.]*\) positions\/s.*/\1/p' <<<"$out" | tr -d ,)"
		done
		for _ in $(seq "$ROUNDS"); do
			out=$(OMP_NUM_THREADS=1 pyrun torch "$SECS")
			add torch8 "$(field "$out" 'torch: inference batch=8 ' positions/s)"
			add torch256 "$(field "$out" 'torch: inference batch=256 ' positions/s)"
			add torch_train "$(field "$out" 'torch: train batch=256 ' ms/step)"
		done
	else
		for r in py_selfplay_share py_selfplay_positions torch8 torch256 torch_train; do skip $r "$PYTHON has no torch (Debian's python3-torch)"; done
	fi
else
	for r in py_aec py_vector py_az py_search py_search_go py_search_share py_selfplay_share py_selfplay_positions torch8 torch256 torch_train; do skip $r "$PYWHY"; done
fi

# ---------------------------------------------------------------- the web app
if command -v chromium-headless-shell >/dev/null || [[ -n ${DEATHSTACKS_CHROME:-} ]]; then
	for _ in $(seq "$SLOW"); do
		out=$(run go test -count 1 -run 'TestBrowser$' -v ./train/web)
		add web_reply "$(sed -n 's/.*click to reply at 200 simulations: \([0-9.]*\) ms.*/\1/p' <<<"$out")"
		add web_bytes "$(sed -n 's/.*page weight: \([0-9]*\) bytes.*/\1/p' <<<"$out")"
	done
else
	for r in web_reply web_bytes; do skip $r "no chromium-headless-shell (Debian's package; or DEATHSTACKS_CHROME)"; done
fi

# ---------------------------------------------------------------- ONNX
if [[ -z ${DEATHSTACKS_ORT:-} ]]; then
	ORTWHY="DEATHSTACKS_ORT names no folder with onnxruntime-node"
elif [[ ! -d $DEATHSTACKS_ORT/node_modules/onnxruntime-node ]]; then
	ORTWHY="no onnxruntime-node in $DEATHSTACKS_ORT/node_modules"
elif ! command -v node >/dev/null; then
	ORTWHY="no node"
else
	ORTWHY=""
	run "$DS" export --format onnx --out "$W/builtin.onnx" >/dev/null
	for _ in $(seq "$SLOW"); do
		out=$(NODE_PATH=$DEATHSTACKS_ORT/node_modules run node model/onnx/testdata/ort_bench.js "$W/builtin.onnx" "$SECS" 1 8 256)
		add ort8 "$(field "$out" 'onnxruntime threads=1 batch=8 ' evals/s)"
		add ort256 "$(field "$out" 'onnxruntime threads=1 batch=256 ' evals/s)"
	done
fi
[[ -z $ORTWHY ]] || { skip ort8 "$ORTWHY"; skip ort256 "$ORTWHY"; }

# ---------------------------------------------------------------- NATS ingest
out=$(run go test -run '^$' -bench 'Ingest$' -benchtime 1000x -count "$ROUNDS" ./train/distributed)
add ingest $(bench "$out" BenchmarkIngest games/s)
out=$(run go test -run '^$' -bench 'PublishGame$' -benchtime 3000x -cpu 1 -count "$ROUNDS" ./train/distributed)
add publish $(bench "$out" BenchmarkPublishGame ns/op)

# ---------------------------------------------------------------- the table
COMMIT=$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo "+changes")
CPU=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
echo "Machine: $CPU, $(nproc) cores, kernels $KERNELS; $(go version | cut -d' ' -f3); $START; commit $COMMIT; load average before $LOAD0, after $(cut -d' ' -f1-3 /proc/loadavg)${NOTE:+; $NOTE}"
echo
echo "| figure | median | range | command |"
echo "|---|---:|---:|---|"

# row ID FORMAT UNIT SCALE FIGURE COMMAND: one line of the table; FORMAT is
# the number's decimals (, for thousands separators), SCALE multiplies the
# samples.
row() {
	local id=$1 dec=$2 unit=$3 scale=$4 what=$5 cmd=$6
	if [[ -f $W/samples/$id.skipped ]]; then
		echo "| $what | skipped: $(cat "$W/samples/$id.skipped") | | \`$cmd\` |"
		return
	fi
	if [[ ! -s $W/samples/$id ]]; then
		echo "| $what | not measured: no figure in the output | | \`$cmd\` |"
		return
	fi
	sort -g "$W/samples/$id" | awk -v dec="$dec" -v unit="$unit" -v s="$scale" -v what="$what" -v cmd="$cmd" '
		function fmt(x,   d, r, i, sign, ip, fp) {
			d = dec; sub(/,/, "", d)
			r = sprintf("%." d "f", x * s)
			if (index(dec, ",") == 0) return r
			sign = ""; if (substr(r, 1, 1) == "-") { sign = "-"; r = substr(r, 2) }
			ip = r; fp = ""; i = index(r, "."); if (i) { ip = substr(r, 1, i - 1); fp = substr(r, i) }
			while (length(ip) > 3) { fp = "," substr(ip, length(ip) - 2) fp; ip = substr(ip, 1, length(ip) - 3) }
			return sign ip fp
		}
		{ v[NR] = $1 }
		END {
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			c = index(cmd, "the same") == 1 ? cmd : "`" cmd "`"; printf "| %s | %s %s | %s-%s (%d runs) | %s |\n", what, fmt(m), unit, fmt(v[1]), fmt(v[NR]), NR, c
		}'
}

B=deathstacks
row perft 2 s 1 "perft(5) from the start (309,812,386 leaves), one core" "GOMAXPROCS=1 $B perft --depth 5"
row movegen 0 "ns a position" 1 "move generation, varied positions (64 moves a position)" "GOMAXPROCS=1 go test -run '^\$' -bench LegalMoves ./env"
row playout , "plies/s" 1 "random playouts, one core" "GOMAXPROCS=1 go test -run '^\$' -bench Playout ./env"
row stepinto , ns 1 "the Go environment's step, observation and mask into the caller's buffers" "GOMAXPROCS=1 go test -run '^\$' -bench 'StepInto\$' -benchmem ./env"
row stepinto_allocs 0 "allocations" 1 "... its allocations a step" "the same"
row step , ns 1 "the Go environment's \`Env.Step\` (fresh observation and mask)" "GOMAXPROCS=1 go test -run '^\$' -bench '^BenchmarkStep\$' -benchmem ./env"
row puct , "sims/s" 1 "PUCT search, uniform evaluator (the tree's own cost), 800 simulations, one goroutine" "$B bench mcts (its puct line)"
row uct , "sims/s" 1 "UCT with 20-ply random rollouts, 800 simulations" "$B bench mcts (its uct-rollout line)"
row alphabeta , "nodes/s" 1 "alpha-beta to depth 4" "$B bench mcts (its alphabeta line)"
row peak 0 "GFLOP/s" 1 "FMA peak of the cores, kernels $KERNELS (a pure FMA loop on all cores)" "$B bench nn (its peak line)"
row server16 , "evals/s" 1 "network 3x32 behind the batching server, 16 searches at once (16 clients of 8 positions, 2 workers)" "$B bench nn --batches 8,256 --clients 16 --per-call 8 --train-batch 128 --seconds 3 (server line)"
row server16_share 1 "% of the peak" 1 "... its share of the FMA peak" "the same"
row lone , "evals/s" 1 "network behind the server, a lone search's shape (1 client of 8 positions, split between the 2 workers)" "$B bench nn --batches 1 --clients 1 --per-call 8 --train-batch 0 --seconds 3 (server line)"
row server64 , "evals/s" 1 "network behind the server, 64 clients of one position" "$B bench nn --batches 32 --train-batch 0 --seconds 3 (server line)"
row server64_share 1 "% of the peak" 1 "... its share of the FMA peak" "the same"
row raw8 , "evals/s" 1 "network, one engine on one goroutine, batch 8" "$B bench nn --batches 8,256 ... (raw batch=8 line)"
row raw256 , "evals/s" 1 "network, one engine on one goroutine, batch 256 (run in parts of 64)" "$B bench nn --batches 8,256 ... (raw batch=256 line)"
row train128 , "samples/s" 1 "training step at the default's batch of 128 (its halves on two goroutines)" "$B bench nn --batches 8,256 --clients 16 --per-call 8 --train-batch 128 --seconds 3 (train line)"
row train128_share 1 "% of the peak" 1 "... its share of the FMA peak" "the same"
row avx2_server16 , "evals/s" 1 "the server, 16 searches at once, with the AVX2 kernels (as on a CPU without AVX-512)" "DEATHSTACKS_NOAVX512=1 $B bench nn --batches 8,256 --clients 16 --per-call 8 --train-batch 0 --seconds 3 (server line)"
row avx2_raw8 , "evals/s" 1 "... one engine, batch 8, AVX2 kernels" "the same (raw batch=8 line)"
row avx2_raw256 , "evals/s" 1 "... one engine, batch 256, AVX2 kernels" "the same (raw batch=256 line)"
row kernel512 0 "GFLOP/s" 1 "the microkernel alone on one core, AVX-512 (two 6x16 tiles at once)" "GOMAXPROCS=1 go test -run '^\$' -bench 'Kernel\$' ./model/internal/kernel"
row kernel2 0 "GFLOP/s" 1 "the microkernel alone on one core, AVX2 (one 6x16 tile)" "the same"
row selfplay , "plies/s" 1 "self-play, the default's settings on the built-in player's network, 16 games at once" "go test -run '^\$' -bench SelfPlay -benchtime 3x ./train"
row selfplay_evals , "evals/s" 1 "... its network evaluations" "the same"
row run_plies , "plies/s" 1 "the default run's self-play, its first 3 iterations (from random weights): plies played" "$B train --iterations 3 (metrics.jsonl: mean_game_length x selfplay_games / selfplay_sec)"
row run_positions , "positions/s" 1 "... training positions recorded (the moves searched fully)" "the same (positions_per_sec)"
row run_evals , "evals/s" 1 "... its network evaluations" "the same (evals_per_sec)"
row run_samples , "samples/s" 1 "... its training" "the same (samples_per_sec)"
row run_selfplay_share 0 "% of an iteration" 1 "... self-play's share of an iteration (the rest training)" "the same (selfplay_sec, train_sec)"
row vectorstep , "steps/s" 1 "vector environment, 256 games on 2 cores, random legal actions, from Go" "go test -run '^\$' -bench 'VectorStep\$' ./env/vector"
row vectoraz , "evals/s" 1 "vector environment of 128 games against az:sims=50, network evaluations, from Go" "go test -run '^\$' -bench 'VectorAZ/envs=128\$' -benchtime 60x ./cmd/libdeathstacks"
row py_aec 1 us 1 "Python AEC environment, a step + last" "python3 env/python/bench.py aec"
row py_vector , "steps/s" 1 "Python \`VectorEnv(256, copy=False)\`, \`sample_actions()\`" "python3 env/python/bench.py vector"
row py_az , "evals/s" 1 "Python \`VectorEnv(128)\` against az:sims=50, network evaluations" "python3 env/python/bench.py az"
row py_search_go , "sims/s" 1 "\`bench mcts\`'s PUCT beside the Python search (the same run)" "python3 env/python/bench.py search BINARY $ROUNDS 3"
row py_search , "sims/s" 1 "the search from Python, 16 positions, a trivial evaluator" "the same"
row py_search_share 0 "% of bench mcts" 1 "... against \`bench mcts\` beside it (each round)" "the same"
row py_selfplay_share 1 "%" 1 "self-play from Python, the built-in network in PyTorch (1 thread), $PY_GAMES games: wall time in the evaluator" "OMP_NUM_THREADS=1 python3 env/python/bench.py selfplay torch $PY_GAMES"
row py_selfplay_positions 1 "positions/s" 1 "... its training positions" "the same"
row torch8 , "positions/s" 1 "the built-in network as \`deathstacks.torch\`'s module (1 thread), inference at batch 8" "OMP_NUM_THREADS=1 python3 env/python/bench.py torch"
row torch256 , "positions/s" 1 "... inference at batch 256" "the same"
row torch_train 1 "ms a step" 1 "... a training step at batch 256 (Adam)" "the same"
row ort8 , "evals/s" 1 "onnxruntime-node 1.30.0, 1 thread, batch 8 (the exported built-in player)" "node model/onnx/testdata/ort_bench.js builtin.onnx 3 1 8 256"
row ort256 , "evals/s" 1 "onnxruntime-node 1.30.0, 1 thread, batch 256" "the same"
row web_reply 0 ms 1 "the web app: a click on the board to the engine's reply (az:sims=200 on a 1x8 test network, 3 moves)" "go test -run TestBrowser -v ./train/web"
row web_bytes 0 bytes 1 "... the page's weight (HTML, CSS, JavaScript, uncompressed)" "the same"
row ingest , "games/s" 1 "NATS ingest: the learner reads, checks and replays smoke games from the embedded server" "go test -run '^\$' -bench 'Ingest\$' -benchtime 1000x ./train/distributed"
row publish 0 "us of one core" 0.001 "an actor makes, encodes and publishes a game and awaits its acknowledgement" "go test -run '^\$' -bench 'PublishGame\$' -benchtime 3000x -cpu 1 ./train/distributed"

if [[ -n $RAW ]]; then cp "$W/raw" "$RAW"; fi
