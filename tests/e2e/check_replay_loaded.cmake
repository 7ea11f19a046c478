# The replay of a trace while the machine is loaded (issue 22, item 11: on a
# loaded machine saved traces diverged when replayed). Records PROGRAM's
# first bug, then replays its trace three times while two busy processes
# take the CPUs: each replay must reproduce the bug (exit 1).
#
#   cmake -DCTRL=<ctrl> -DWORKDIR=<fresh directory> -DPROGRAM=<buggy sample>
#         -P check_replay_loaded.cmake

cmake_minimum_required(VERSION 3.20)
include("${CMAKE_CURRENT_LIST_DIR}/e2e_common.cmake")

e2e_fresh_workdir()
e2e_exec(run "${CTRL}" attach --json "${WORKDIR}/report.json" --trace-dir "${WORKDIR}/traces" "${PROGRAM}")
e2e_expect_exit("${run_rc}" 1 "ctrl attach")
e2e_check_report(report "${WORKDIR}/report.json" "ctrl attach")
# The busy processes end with the script (killed by their job ids) or after
# 60 s at the latest.
file(WRITE "${WORKDIR}/loaded.sh" [=[
for i in 1 2; do timeout 60 sh -c 'while :; do :; done' >/dev/null 2>&1 & done
rc=0
for i in 1 2 3; do "$1" replay "$2"; r=$?; [ $r -eq 1 ] || rc=$r; done
kill %1 %2 2>/dev/null
wait
exit $rc
]=])
e2e_exec(loaded bash "${WORKDIR}/loaded.sh" "${CTRL}" "${report_trace}")
e2e_expect_exit("${loaded_rc}" 0 "three replays of ${report_trace} on a loaded machine (0: each exited 1)")
message(STATUS "ok: the trace replays three times on a loaded machine")
