#!/usr/bin/env bash
# Installs every Debian package iolens needs to build, test and run.
# One place for all dependencies: later features add their packages here.
set -euo pipefail

PACKAGES=(
  build-essential cmake pkg-config clang libclang-rt-14-dev
  zlib1g-dev libbz2-dev libzstd-dev
  libjansson-dev
  libcmocka-dev
  libsimgrid-dev   # optional: place simulator cross-check (tests/place/test_simgrid.cpp)
  libxgboost-dev
  libopenmpi-dev openmpi-bin   # MPI-IO replay and tracing, MPI tests
  gfortran                      # a Fortran MPI-IO program under the tracer (cli_trace_fortran)
  libhdf5-openmpi-dev           # HDF5 replay back end; the HDF5 tracer's probes
  hdf5-tools                    # h5perf_serial and h5dump under the HDF5 tracer (cli_trace_hdf5)
  libpnetcdf-dev pnetcdf-bin    # the PnetCDF tracer's probe, ncmpidump (cli_trace_pnetcdf)
  libnetcdf-mpi-dev netcdf-bin  # the NetCDF tracer's probe; ncgen, ncdump, nccopy traced (cli_trace_netcdf)
  libcurl4-openssl-dev          # iolens advise: the OpenAI-compatible client
  python3                       # test scripts parse JSON with it (tests only)
  time                          # /usr/bin/time: run time and peak memory of each command in cli_hostile_inputs
  python3-numpy python3-mpi4py  # mpi4py programs under the tracer (cli_trace_mpi4py); the traced Python start-up behind generate.py's PY_STARTUP
  fio python3-h5py-mpi sqlite3  # real programs of the detection suite (bench/detect/suite, cli_detect_suite)
  chromium                      # the HTML report rendered headless in the tests (cli_report)
  python3-pandas python3-pytest # the Python API's tests (python_api)
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
