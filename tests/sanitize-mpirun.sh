#!/bin/sh
# mpirun for the tests of a sanitizer build (found first on their PATH): the processes it starts
# run with LeakSanitizer's slow unwinder, which sees through Open MPI's frames, and the
# suppressions of the allocations Open MPI keeps until exit (its components stay loaded, so that
# their frames are named). Every other process of a test keeps the fast unwinder: the slow one
# made every allocation of every process of the MPI tests several times dearer.
#   (configured by tests/CMakeLists.txt as <build>/tests/sanitize-bin/mpirun)
LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=@IOLENS_LSAN_MPI_SUPP@:print_suppressions=0:fast_unwind_on_malloc=0"
OMPI_MCA_mca_base_component_disable_dlclose=1
export LSAN_OPTIONS OMPI_MCA_mca_base_component_disable_dlclose
exec @IOLENS_REAL_MPIRUN@ "$@"
