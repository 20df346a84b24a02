/* DecaySource for FMI 2.0, whose SourceFiles carry no definitions or
 * include directories: they are given here. */
#define FMI_VERSION 2
#include "include/decay_config.h"
#include "decay.c"
