/* decay_math.c for FMI 2.0, whose SourceFiles carry no definitions. */
#define DECAY_MATH_SET 1
#include "decay_math.c"
