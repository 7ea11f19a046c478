# Sourced by the bench scripts that run the shared performance programs
# (../shared/bench next to the project). Expects $root and $work; sets
# $shared and checks that the programs are there ($1: the calling script's
# name, for the message).
shared=$root/../shared/bench
[ -f "$shared/queue2.c" ] || { echo "$1: $shared/queue2.c is missing" >&2; exit 2; }

# Builds one instance into $work/NAME: the libatomic variant (every atomic a
# call ctrl sees with its order); tso: the relaxed variant.
build_one() { # name program n [model]
  local mo=()
  [ "${4:-sc}" = tso ] && mo=(-DMO=memory_order_relaxed)
  gcc -O2 -pthread -DN="$3" "${mo[@]}" -I"$shared" -fno-inline-atomics -o "$work/$1" "$shared/$2.c" -latomic
}
