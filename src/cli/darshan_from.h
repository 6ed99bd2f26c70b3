/* iolens darshan --from: the hook cmd_darshan.c calls. */
#ifndef IOLENS_CLI_DARSHAN_FROM_H
#define IOLENS_CLI_DARSHAN_FROM_H
/* 1 if the arguments ask for --from (a trace to convert). */
int iol_darshan_from_wanted(int argc, char **argv);
int iol_darshan_from_main(int argc, char **argv);
#endif
