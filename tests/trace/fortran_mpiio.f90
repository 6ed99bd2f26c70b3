! MPI-IO from Fortran (`use mpi`): Open MPI's Fortran bindings call libmpi's PMPI_ entry points,
! not the MPI_ ones, so the shim must wrap those too (tests/trace/test_trace_fortran.sh).
! Usage: fortran_mpiio FILE. Each rank writes 8 x 4 KiB at its own offsets, one collective
! write, one non-blocking write completed with MPI_Wait, syncs, then reads its blocks back.
program fortran_mpiio
  use mpi
  implicit none
  integer :: ierr, fh, rank, nranks, i, req
  integer(kind=MPI_OFFSET_KIND) :: off
  integer :: status(MPI_STATUS_SIZE)
  character(len=4096) :: buf, back
  character(len=1024) :: path
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, path)
  buf = repeat(achar(65 + rank), 4096)
  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  do i = 0, 7
    off = (rank * 10 + i) * 4096
    call MPI_File_write_at(fh, off, buf, 4096, MPI_CHARACTER, status, ierr)
  end do
  off = (rank * 10 + 8) * 4096
  call MPI_File_write_at_all(fh, off, buf, 4096, MPI_CHARACTER, status, ierr)
  off = (rank * 10 + 9) * 4096
  call MPI_File_iwrite_at(fh, off, buf, 4096, MPI_CHARACTER, req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_File_sync(fh, ierr)
  do i = 0, 9
    off = (rank * 10 + i) * 4096
    call MPI_File_read_at(fh, off, back, 4096, MPI_CHARACTER, status, ierr)
    if (back /= buf) call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
  end do
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program
