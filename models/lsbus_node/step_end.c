/* LsBusNode as the FMI-LS-BUS demo nodes (modelica/fmi-ls-bus-examples,
 * can-node-triggered-output) behave: a frame composed and Tx_Clock ticked at
 * the end of the fmi3DoStep that reaches its time, and a tick the importer
 * has not read by fmi3UpdateDiscreteStates dropped there (tx_lost), as
 * FMI 3.0's event-mode order reads output clocks and their clocked outputs
 * before the update. */
#define LSBUS_NODE_AT_STEP_END 1
#include "model.c"
