/* LsBusSimulation whose Tx clocks are input countdown clocks: deliveries come
 * 100 us after the op arrived, when the importer ticks the clock it announced
 * (a bus simulation's input countdown clock connected to a node's input
 * clock is a lenient case of issue 25: LS-BUS allows clock connections in
 * both directions between a bus simulation and its nodes). */
#define BUSSIM_COUNTDOWN 1
#include "model.c"
