# An optimisation from a restart file: its evaluation journal is tied to its start
# (`optimize --resume` with the --restart file the run started from replays its evaluations,
# with another restart file is refused, exit 2, naming --restart, instead of replaying
# evaluations of the other start), and its final_design.txt replays the final design with
# `run --restart` of the same file, whose clock continues at the file's time: the actuation at
# the horizon's end is the final evaluation's (the forces are printed, not compared: the
# optimisation starts from the file's velocity with its pressure recomputed, `run` continues the
# file's pressure too, and this start-up flow is still oscillating from its impulsive start).
# cmake -DMPI=<mpiexec|-n|2> -DUNDERTOW=... -DCASE=<rabault.ini> -DWORK=... -P optimize_restart_identity.cmake
file(REMOVE_RECURSE ${WORK})
string(REPLACE "|" ";" mpi "${MPI}")
set(common --set "domain.cells=110 21" --set obstacle1.jet_width=60 --set time.dt=0.004)
set(design --set time.t_end=0.04 --set obstacle1.jet_signal_interval=0,0.04
           --set optimize.max_iterations=1 --set diagnostics.every=1)

function(undertow expect_rc expect)
  execute_process(COMMAND ${mpi} ${UNDERTOW} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE out TIMEOUT 300)
  if(NOT rc EQUAL expect_rc OR NOT out MATCHES "${expect}")
    message(FATAL_ERROR "undertow ${ARGN}: exit ${rc} (expected ${expect_rc}), output not "
                        "matching '${expect}':\n${out}")
  endif()
  message(STATUS "undertow ${ARGN}: exit ${rc}, as expected")
endfunction()

# Two starts: restart files at steps 5 and 10 of one run.
undertow(0 "restart file for step 10" run ${CASE} ${common} --set time.t_end=0.04
         --set restart.every=5 --set restart.keep=2 --output ${WORK}/street)
set(first ${WORK}/street/restart/restart_000000005.h5)
set(second ${WORK}/street/restart/restart_000000010.h5)
undertow(0 "objective: " optimize ${CASE} ${common} ${design} --restart ${first}
         --output ${WORK}/opt)

# The final design replayed by `run --restart` (signals delayed by the restart's time 0.02 s).
file(READ ${WORK}/opt/final_design.txt settings)
string(STRIP "${settings}" settings)
if(NOT settings MATCHES "jet_signal_interval=0.02,0.06 .*time.t_end=0.06$")
  message(FATAL_ERROR "final_design.txt does not move the signal and t_end by the restart's "
                      "time 0.02 s: ${settings}")
endif()
separate_arguments(settings UNIX_COMMAND "${settings}")
undertow(0 "restarted from" run ${CASE} ${common} ${design} --restart ${first} ${settings}
         --output ${WORK}/replay)
# Every step's actuation of the replay (from step 5 of the file) against the final
# evaluation's (from step 0): equal to round-off, and not all zero.
set(compare [=[
import csv, sys
work = sys.argv[1]
history = list(csv.DictReader(open(f"{work}/opt/history.csv")))
last = int(history[-1]["flow_solves"])
optimised = list(csv.DictReader(open(f"{work}/opt/evaluations/{last:04d}/diagnostics.csv")))
replayed = {int(r["step"]) - 5: r for r in csv.DictReader(open(f"{work}/replay/diagnostics.csv"))}
worst, peak, n = 0.0, 0.0, 0
for r in optimised:
    s = int(r["step"])
    a, b = float(r["obstacle1.jet"]), float(replayed[s]["obstacle1.jet"])
    worst, peak, n = max(worst, abs(a - b)), max(peak, abs(a)), n + 1
print(f"{n} steps of evaluation {last}: largest actuation difference {worst:.2e} m/s "
      f"(peak {peak:.3e} m/s); C_D at the end {float(replayed[s]['Cx_1']):.6f} replayed, "
      f"{float(r['Cx_1']):.6f} optimised")
sys.exit(0 if n >= 10 and peak > 0 and worst <= 1e-15 else 1)
]=])
execute_process(COMMAND python3 -c "${compare}" ${WORK} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the replay's actuation is not the final evaluation's:\n${out}")
endif()
message(STATUS "${out}")

undertow(0 "resuming: [1-9][0-9]* recorded evaluations" optimize ${CASE} ${common} ${design}
         --restart ${first} --resume ${WORK}/opt)
undertow(2 "belongs to another optimisation .*--restart start.*-start[0-9a-f]+.*resume with the same .*--restart file"
         optimize ${CASE} ${common} ${design} --restart ${second} --resume ${WORK}/opt)
undertow(2 "belongs to another optimisation" optimize ${CASE} ${common} ${design}
         --resume ${WORK}/opt)
