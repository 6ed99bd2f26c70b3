#!/bin/sh
# mpirun for the tests of a sanitizer build (found first on their PATH, by the tests and by the
# replays that start one process per traced process). The processes it starts keep every
# AddressSanitizer and UndefinedBehaviorSanitizer check but no leak scan at exit: the scan of a
# multi-rank job races Open MPI's progress threads, and with the slow unwinder it needs (Open
# MPI's frames have no frame pointers) a 3-rank replay took 4.0 s instead of 1.2 s. The code these
# processes run has its leaks checked in one process (singleton MPI, a replay of one traced
# process, the unit tests); a test that wants a multi-rank job's leaks scanned sets
# IOLENS_MPI_LEAKS=1 for it: then the slow unwinder, which sees through Open MPI's frames, and
# the suppressions of the allocations Open MPI keeps until exit (its components stay loaded, so
# that their frames are named).
#   (configured by tests/CMakeLists.txt as <build>/tests/sanitize-bin/mpirun)
if [ "${IOLENS_MPI_LEAKS:-}" = 1 ]; then
  LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=@IOLENS_LSAN_MPI_SUPP@:print_suppressions=0:fast_unwind_on_malloc=0"
  OMPI_MCA_mca_base_component_disable_dlclose=1
  export LSAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose
else
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  export ASAN_OPTIONS
fi
exec @IOLENS_REAL_MPIRUN@ "$@"
