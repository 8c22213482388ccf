/* The version every tool prints for --version (mdlc, mdlsim, mdlprobe): one number for all, and
 * the commit it was built from when built from a git checkout (the Makefile writes git_version.h). */
#ifndef MDL_VERSION_H
#define MDL_VERSION_H

#define MDL_VERSION "0.26"

#if defined(__has_include)
#if __has_include("git_version.h")
#include "git_version.h"
#endif
#endif
#ifndef MDL_GIT_VERSION
#define MDL_GIT_VERSION ""          /* a build from a tarball: no commit to name */
#endif

/* "TOOL 0.26 (git v0.26-3-gabc1234)\n" or "TOOL 0.26\n" */
#define MDL_VERSION_LINE(tool) \
    tool " " MDL_VERSION "%s%s%s\n", *MDL_GIT_VERSION ? " (git " : "", MDL_GIT_VERSION, *MDL_GIT_VERSION ? ")" : ""

#endif
