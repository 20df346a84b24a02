/* DecaySource's defaults (an include directory of its build description). */
#ifndef DECAY_CONFIG_H
#define DECAY_CONFIG_H
#define DECAY_DEFAULT_K 0.5
#define DECAY_DEFAULT_X0 2.0
#define DECAY_TOKEN "{6d1f0c52-7a3e-4b8e-9d2a-3c5b7e9f1a04}"
#endif
