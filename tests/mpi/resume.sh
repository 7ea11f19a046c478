#!/usr/bin/env bash
# A run stopped mid-way and resumed from --state gives the exact counts of
# a run never stopped (issue 28): nothing lost, nothing counted twice.
#
#   [RESUME_PROGRAM_ARGS="a b"] resume.sh CTRL PROGRAM WORKDIR MODE [MPIRUN]
# MODE: j1 (killed with SIGKILL), j2 (the same with -j 2), mpi-job (the
# whole mpirun job stopped with SIGTERM, as a scheduler does), mpi-rank
# (one rank other than 0 killed with SIGKILL: MPI ends the job), dpor-j1
# (--strategy dpor, exhaustive, killed with SIGKILL: its frontier is the
# search's stack, analyses/DporSavedState.cpp), dpor-term (the same stopped
# with SIGTERM: the analysis a stop may cut short is not saved).
# The runs use --no-checkpoints: `steps` and `handoffs` then sum every
# step of every counted execution, so they tell which plans were counted,
# not only how many.
set -u
ctrl=$1 program=$2 work=$3 mode=$4 mpirun=${5:-}
read -r -a program_args <<<"${RESUME_PROGRAM_ARGS:-}"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
max=60000
# Under mpirun the stop comes 2,000-6,000 executions in (once the job saved
# its frontier, and 0.3 s): 40,000 keeps it mid-way, and the uninterrupted
# -j 1 run and the resumed one short (200,000 took two minutes per mode).
case "$mode" in mpi-*) max=40000 ;; esac
# The first frontier is saved a second into the job, so a machine where a
# rank makes tens of thousands of executions a second finished all 40,000
# before the stop (seen: 3 ranks, 40,000 counted at the SIGTERM). There the
# runs are made about 12 seconds of one session long, measured here
# (5,000 executions, start-up included: the rate is underestimated, never
# over), so the stop still comes mid-way; slower machines keep 40,000.
# The same holds for -j 1 and -j 2 (stopped 0.3 s after the first frontier):
# at about 45 us per mutex_counter execution, -j 2 finished all 60,000
# before the stop. They are made at least 6 seconds of one session long.
case "$mode" in
  mpi-*) target_ms=12000 ;;
  j1 | j2) target_ms=6000 ;;
  *) target_ms=0 ;;
esac
if [ "$target_ms" -gt 0 ]; then
  start=$(date +%s%N)
  "$ctrl" attach -j 1 --strategy random --seed 7 --max-executions 5000 --no-checkpoints --races off \
    "$program" "${program_args[@]}" >/dev/null 2>&1
  elapsed_ms=$((($(date +%s%N) - start) / 1000000 + 1))
  scaled=$((5000 * target_ms / elapsed_ms))
  [ "$scaled" -gt "$max" ] && max=$scaled
fi
args=(--strategy random --seed 7 --max-executions "$max" --no-checkpoints --races off)
case "$mode" in dpor-*) args=(--strategy dpor --max-executions "$max" --no-checkpoints --races off) ;; esac
fail() { echo "resume.sh ($mode): FAIL: $*"; for f in *.err; do echo "-- $f:"; cat "$f"; done; exit 1; }
counts() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); e=j["executions"]; print(e["total"], e["complete"], e["blocked"], j["steps"], j["handoffs"])' "$1"; }

launch=("$ctrl" attach)
case "$mode" in
  j2) launch+=(-j 2) ;;
  mpi-*)
    [ -n "$mpirun" ] || fail "no mpirun given"
    launch=("$mpirun" --oversubscribe -np 3)
    [ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
    launch+=("$ctrl" attach --mpi)
    ;;
esac

"$ctrl" attach -j 1 "${args[@]}" --json whole.json "$program" "${program_args[@]}" >whole.out 2>whole.err
[ $? -eq 0 ] || fail "the run never stopped did not exit 0"
expected=$(counts whole.json)

"${launch[@]}" "${args[@]}" --state state --json part.json "$program" "${program_args[@]}" >part.out 2>part.err &
pid=$!
# Stopped once the frontier was saved and some executions ran.
for _ in $(seq 1 600); do
  [ -f state/frontier.ctrlstate ] && break
  sleep 0.1
done
[ -f state/frontier.ctrlstate ] || fail "no frontier saved"
sleep 0.3
case "$mode" in
  j1 | j2 | dpor-j1) kill -KILL "$pid" ;;
  dpor-term) kill -TERM "$pid" ;;
  mpi-job) kill -TERM "$pid" ;;
  mpi-rank)
    victim=""
    # Among this job's processes only (mpirun starts the local ranks as its
    # children): another job may run beside it.
    for p in $(pgrep -P "$pid"); do
      if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$p; fi
    done
    [ -n "$victim" ] || fail "rank 1 not found"
    kill -KILL "$victim"
    ;;
esac
wait "$pid"
status=$?
if [ "$mode" = dpor-term ]; then
  # ctrl stopped by SIGTERM says so and exits 0: its report says where.
  python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["interrupted"] else 1)' part.json ||
    fail "the stopped run was not interrupted: it was not stopped mid-way (make it longer)"
else
  [ "$status" -ne 0 ] || fail "the stopped run exited 0: it was not stopped mid-way (make it longer)"
fi

"${launch[@]}" "${args[@]}" --resume state --json resumed.json "$program" "${program_args[@]}" >resumed.out 2>resumed.err
status=$?
[ "$status" -eq 0 ] || fail "the resumed run exited $status"
line=$(grep -o 'resuming from state: [0-9]* executions counted' resumed.err)
counted=$(echo "$line" | grep -o '[0-9][0-9]*' | head -1)
[ -n "$counted" ] || fail "the resumed run did not say where it resumed"
[ "$counted" -gt 0 ] && [ "$counted" -lt "$max" ] || fail "resumed after $counted executions: not mid-way"
got=$(counts resumed.json)
[ "$got" = "$expected" ] || fail "resumed counts (total complete blocked steps handoffs) $got, never stopped: $expected"
echo "resume.sh ($mode): stopped after $counted of $max executions; resumed counts $got equal the uninterrupted run's"
