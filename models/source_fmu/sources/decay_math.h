#ifndef DECAY_MATH_H
#define DECAY_MATH_H
double decay_value(double x0, double k, double t);
#endif
