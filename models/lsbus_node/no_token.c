/* LsBusNode with an empty instantiationToken, as some exported virtual ECUs
 * have (FMI 3.0 section 2.4.1 asks for one): the importer warns and passes
 * the empty string, which this FMU then expects. */
#define LSBUS_NODE_TOKEN ""
#include "model.c"
