# Functions shared by scale.sh and cluster.sh (sourced, not run).
# They need jq.

# usage: prints the calling script's usage (its comment from "# usage:" on) and exits with status 2.
usage() { awk '/^# usage:/ { p = 1 } p && !/^#/ { exit } p { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

# need VAR WANT: exits with status 2 unless the environment variable VAR is set.
need() { [ -n "${!1:-}" ] || { echo "$1 is not set: want $1=$2" >&2; exit 2; }; }

# write_config FILE STREAM_MAX_GAMES REPLICAS: the learner's config, a pure
# learner that takes every game there is at each iteration, with $EXTRA
# (YAML of other top-level keys, such as model or optim) appended. Written
# to a temporary file, then renamed.
write_config() {
  cat > "$1.tmp" <<YAML
name: $(basename "$1" .yaml)
time_limit: 30m  # stopped by SIGINT once it has taken every game
eval: {every: 0}
output: {plot: false}
selfplay: {games_per_iteration: 1}  # a pure learner waits for 1 game, takes all there is
distributed: {stream_max_games: $2, replicas: $3}
${EXTRA:-}
YAML
  mv "$1.tmp" "$1"
}

# counted METRICS: the games the learner has read so far, taken or dropped
# (stale: played with a network more than distributed.max_staleness versions
# old; invalid), each game once.
counted() { [ -f "$1" ] && jq -s 'map(.remote_games + .remote_stale + .remote_invalid) | add // 0' "$1" || echo 0; }

# wait_counted METRICS ACKED PID: waits, up to $TAKE_WAIT seconds (300), until
# the learner PID has read ACKED games (it takes the last ones in its next
# iteration).
wait_counted() {
  local i
  for ((i = 0; i < ${TAKE_WAIT:-300}; i++)); do
    [ "$(counted "$1")" -ge "$2" ] && return
    kill -0 "$3" 2>/dev/null || { echo "the learner stopped before it read $2 games" >&2; return 1; }
    sleep 1
  done
  echo "the learner read $(counted "$1") of $2 games in ${TAKE_WAIT:-300} s" >&2
}

# report METRICS ACKED: the learner's iterations as a table, a summary, and a
# last line saying whether every acknowledged game was read exactly once:
# taken, or dropped as stale (a game the server stored twice is dropped as a
# duplicate and counted apart). Status 1 if not, or if a game was invalid.
report() {
  echo "per iteration: games taken, games/s, backlog after, publish-to-window ms p50/p99/max, to stored/fetched/checked p99, actors, held back, training s"
  jq -r '[.iteration, .remote_games, (.ingest_games_per_sec|floor), .ingest_backlog, (.publish_to_window_ms_p50|floor), (.publish_to_window_ms_p99|floor), (.publish_to_window_ms_max|floor), (.publish_to_stored_ms_p99|floor), (.publish_to_fetched_ms_p99|floor), (.publish_to_checked_ms_p99|floor), .actors, .actors_held_back, (.train_sec*10|floor/10)] | @tsv' "$1"
  jq -s -c '{positions: (map(.remote_positions)|add), iterations: length, max_backlog: (map(.ingest_backlog)|max), max_p99_ms: (map(.publish_to_window_ms_p99)|max)}' "$1"
  local verdict
  verdict=$(jq -s -r --argjson acked "$2" '
    {t: (map(.remote_games)|add), d: (map(.remote_duplicate)|add), s: (map(.remote_stale)|add), i: (map(.remote_invalid)|add)} |
    "\($acked) acknowledged, \(.t) taken, \(.s) stale, \(.i) invalid, \(.d) duplicate: " +
    (if .t + .s == $acked and .i == 0 then "every acknowledged game taken once or dropped as stale" else "NOT exactly once" end)' "$1") || return
  echo "$verdict"
  [[ $verdict == *"dropped as stale" ]]
}
