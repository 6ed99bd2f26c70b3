/* iolens darshan --convert / --merge / --diff: the hook cmd_darshan.c calls. */
#ifndef IOLENS_CLI_DARSHAN_TOOLS_H
#define IOLENS_CLI_DARSHAN_TOOLS_H

/* 1 if the arguments ask for --convert, --merge or --diff. */
int iol_darshan_tools_wanted(int argc, char **argv);
int iol_darshan_tools_main(int argc, char **argv);

#endif
