/* DecaySource's solution, a SourceFileSet of its own (C11, DECAY_MATH_SET
 * defined for it only) that needs libm. */
#include <math.h>

#include "decay_math.h"

#ifndef DECAY_MATH_SET
#error "DECAY_MATH_SET: this SourceFileSet's definition is missing"
#endif

double decay_value(double x0, double k, double t)
{
    return x0 * exp(-k * t);
}
