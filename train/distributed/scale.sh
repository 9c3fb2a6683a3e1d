#!/usr/bin/env bash
# Load test of one learner: a pure learner with its embedded server on
# loopback, and the load generator's ACTORS simulated actors sending RATE
# games a second for DURATION (a Go duration, such as 90s or 10m). It prints
# the learner's iterations, a summary, and a last line saying whether every
# acknowledged game was taken exactly once (status 1 if not).
#
# usage: DS=path/to/deathstacks train/distributed/scale.sh ACTORS RATE DURATION [STREAM_MAX_GAMES]
#   STREAM_MAX_GAMES  distributed.stream_max_games (default 1000000; 10000 shows back-pressure)
#   RUN=/tmp/scale-run        the learner's run folder (removed first), with RUN.yaml and RUN.*.log beside it
#   LISTEN=127.0.0.1:4333     the embedded server's address
#   REAL_GAMES=16             real games the generator plays first and sends again
#   EXTRA='yaml'              more top-level config keys (default: configs/default.yaml's)
# Needs jq.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -ge 3 ] && [ $# -le 4 ] || usage
need DS path/to/deathstacks; RUN=${RUN:-/tmp/scale-run}; LISTEN=${LISTEN:-127.0.0.1:4333}
ACTORS=$1 RATE=$2 DURATION=$3 STREAM=${4:-1000000}
[ -n "$RUN" ] && [ "$RUN" != / ] || { echo "RUN=$RUN: want a run folder to create" >&2; exit 2; }

rm -rf "$RUN"
write_config "$RUN.yaml" "$STREAM" 1
"$DS" train --config "$RUN.yaml" --out "$RUN" --listen "$LISTEN" --no-selfplay --quiet > "$RUN.learner.log" 2>&1 &
L=$!
trap 'kill $L 2>/dev/null || true' EXIT  # the learner stops with the script, also on an error
until [ -s "$RUN/distributed/token" ] && grep -q "deathstacks actor" "$RUN.learner.log"; do
  kill -0 $L 2>/dev/null || { echo "the learner stopped before it was up; $RUN.learner.log:" >&2; tail -5 "$RUN.learner.log" >&2; exit 1; }
  sleep 0.2
done
"$DS" actor --connect "nats://$LISTEN" --token "$(cat "$RUN/distributed/token")" \
  --simulate "$ACTORS" --rate "$RATE" --duration "$DURATION" --real-games "${REAL_GAMES:-16}" | tee "$RUN.sim.log"
ACKED=$(tail -1 "$RUN.sim.log" | cut -d' ' -f1)
wait_counted "$RUN/metrics.jsonl" "$ACKED" $L || true
kill -INT $L; wait $L || true
report "$RUN/metrics.jsonl" "$ACKED"
