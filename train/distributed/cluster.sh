#!/usr/bin/env bash
# scale.sh's load against a NATS cluster of three nats-server processes on
# loopback, each with its own store and ports, the games stream kept by all
# three (distributed.replicas 3), the servers requiring a token (the clients
# give it in the URLs). Once the simulated actors send, it waits a third of
# SECONDS, SIGKILLs the node leading the games stream (as the servers'
# monitoring reports it), waits a third more, starts that node again on its
# store, and prints what scale.sh prints, ending with whether every
# acknowledged game was taken exactly once (status 1 if not). Every process
# it started is stopped when it ends, also on an error or Ctrl-C.
#
# usage: DS=path/to/deathstacks NATS=path/to/nats-server train/distributed/cluster.sh ACTORS RATE SECONDS
#   nats-server 2.10 or later; the project's own: go build -o /tmp/nats-server github.com/nats-io/nats-server/v2
#   RUN=/tmp/cluster-run              the folder of the servers' stores, the learner's run and the logs (removed first)
#   CLIENT_PORTS='4241 4242 4243'     the nodes' client ports
#   ROUTE_PORTS='6241 6242 6243'      the nodes' cluster (route) ports
#   MONITOR_PORTS='8241 8242 8243'    the nodes' monitoring ports
#   REAL_GAMES=16                     real games the generator plays first and sends again
#   EXTRA='yaml'                      more top-level config keys (default: configs/default.yaml's)
# Needs jq and curl.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[ $# -eq 3 ] || usage
need DS path/to/deathstacks; need NATS path/to/nats-server; RUN=${RUN:-/tmp/cluster-run}
ACTORS=$1 RATE=$2 SECONDS_=$3
[[ $SECONDS_ =~ ^[0-9]+$ ]] || { echo "SECONDS $SECONDS_: want whole seconds, such as 120" >&2; exit 2; }
[ -n "$RUN" ] && [ "$RUN" != / ] || { echo "RUN=$RUN: want a folder to create" >&2; exit 2; }
read -r -a CP <<< "${CLIENT_PORTS:-4241 4242 4243}"
read -r -a RP <<< "${ROUTE_PORTS:-6241 6242 6243}"
read -r -a MP <<< "${MONITOR_PORTS:-8241 8242 8243}"
[ ${#CP[@]} -eq 3 ] && [ ${#RP[@]} -eq 3 ] && [ ${#MP[@]} -eq 3 ] ||
  { echo "CLIENT_PORTS, ROUTE_PORTS, MONITOR_PORTS: want 3 ports each" >&2; exit 2; }
TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')  # the servers' token; clients give it in the URLs
URLS=nats://$TOKEN@127.0.0.1:${CP[0]},nats://$TOKEN@127.0.0.1:${CP[1]},nats://$TOKEN@127.0.0.1:${CP[2]}
ROUTES=nats://127.0.0.1:${RP[0]},nats://127.0.0.1:${RP[1]},nats://127.0.0.1:${RP[2]}
NODE=(); L=; G=
stop_all() {  # on any exit: every process this script started, by its id
  for p in $G $L "${NODE[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in $G $L "${NODE[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap stop_all EXIT
node() {  # starts node $1 (0-2, named n1-n3) on its store and ports
  "$NATS" --name "n$(($1 + 1))" -a 127.0.0.1 -p "${CP[$1]}" -m "${MP[$1]}" -js -sd "$RUN/n$(($1 + 1))" --auth "$TOKEN" \
    --cluster_name deathstacks --cluster "nats://127.0.0.1:${RP[$1]}" --routes "$ROUTES" >> "$RUN/n$(($1 + 1)).log" 2>&1 &
  NODE[$1]=$!
}
healthy() { curl -sf "http://127.0.0.1:${MP[$1]}/healthz" > /dev/null; }
leader() {  # the node leading the games stream (n1-n3), as the nodes report it
  local i
  for i in 0 1 2; do
    curl -s "http://127.0.0.1:${MP[$i]}/jsz?streams=true" 2>/dev/null |
      jq -r '.account_details[]?.stream_detail[]? | select(.name == "DEATHSTACKS_GAMES") | .cluster.leader // empty' | grep . && return
  done
}

rm -rf "$RUN" && mkdir -p "$RUN"
for i in 0 1 2; do node $i; done
for i in 0 1 2; do until healthy $i; do kill -0 "${NODE[$i]}"; sleep 0.2; done; done
write_config "$RUN/learner.yaml" 1000000 3
"$DS" train --config "$RUN/learner.yaml" --out "$RUN/learner" --nats "$URLS" --no-selfplay --quiet > "$RUN/learner.log" 2>&1 &
L=$!
"$DS" actor --connect "$URLS" --simulate "$ACTORS" --rate "$RATE" --duration "${SECONDS_}s" --real-games "${REAL_GAMES:-16}" > "$RUN/sim.log" 2>&1 &
G=$!
until grep -qs "real games played" "$RUN/sim.log"; do
  kill -0 $G 2>/dev/null || { echo "the generator stopped; $RUN/sim.log:" >&2; tail -5 "$RUN/sim.log" >&2; exit 1; }
  sleep 0.2
done
sleep $((SECONDS_ / 3))
DOWN=$(leader || true); DOWN=${DOWN#n}
[ -n "$DOWN" ] || { echo "no node leads the games stream" >&2; exit 1; }
echo "$(date +%T) killing n$DOWN (SIGKILL), the games stream's leader"
kill -KILL "${NODE[$((DOWN - 1))]}"; wait "${NODE[$((DOWN - 1))]}" 2>/dev/null || true
NEW=
for _ in $(seq 300); do NEW=$(leader || true); [ -n "$NEW" ] && [ "$NEW" != "n$DOWN" ] && break; sleep 0.2; done
echo "$(date +%T) the games stream's leader now: ${NEW:-none}"
sleep $((SECONDS_ / 3))
echo "$(date +%T) restarting n$DOWN on its store"
node $((DOWN - 1))
for _ in $(seq 600); do healthy $((DOWN - 1)) && break; sleep 0.2; done
echo "$(date +%T) n$DOWN back: $(curl -s "http://127.0.0.1:${MP[$((DOWN - 1))]}/healthz")"
wait $G; G=
tail -3 "$RUN/sim.log"
ACKED=$(tail -1 "$RUN/sim.log" | cut -d' ' -f1)
wait_counted "$RUN/learner/metrics.jsonl" "$ACKED" $L || true
kill -INT $L; wait $L || true; L=
report "$RUN/learner/metrics.jsonl" "$ACKED"
