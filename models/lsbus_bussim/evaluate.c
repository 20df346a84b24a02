/* LsBusSimulationCountdown as the FMI-LS-BUS project's FlexRay demo bus
 * simulation evaluates (model.c, BUSSIM_EVALUATE): ops taken only in
 * fmi3EvaluateDiscreteStates, a delivery's interval announced until the
 * update after its tick. */
#define BUSSIM_COUNTDOWN 1
#define BUSSIM_EVALUATE 1
#include "model.c"
