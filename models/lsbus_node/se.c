/* LsBusNode for FMI 3.0 scheduled execution (LsBusNode-fmi3se.fmu): the same
 * CAN node with its receive interrupt and transmit task as model partitions,
 * as task-level virtual ECUs are exported (FMI 3.0 chapter 5). */
#define LSBUS_NODE_SE 1
#include "model.c"
