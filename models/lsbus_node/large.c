/* LsBusNode with buffers for the largest CAN XL Transmit (22 + 2048 bytes)
 * in Tx_Data and Rx_Data: LsBusNodeLarge, for CAN FD and XL frames of any
 * length both ways (LsBusNode's Rx_Data takes 48 bytes on purpose). */
#define LSBUS_BUFFER_MAX 4096
#define LSBUS_NODE_RX_MAX 4096
#include "model.c"
