# Written by the CMake install step with the installed library's path; in the
# source tree the library comes from $RTCOSIM_LIBRARY or the loader's search.
LIBRARY = None
