/* Little-endian fields of FMI-LS-BUS 1.0 operations (section 5.2: an op is
 * opCode uint32, length uint32 = its total size, then its fields) for the
 * project's LS-BUS test models (models/lsbus_node, models/lsbus_bussim),
 * which cannot link the importer's reader (src/lsbus/ops.c). */
#ifndef RTCOSIM_MODELS_LSBUS_OPS_H
#define RTCOSIM_MODELS_LSBUS_OPS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "model.h"

/* Largest Tx_Data buffer of the models (their Binary maxSize); a model may
 * define a larger one before including this (LsBusNodeLarge: a CAN XL
 * Transmit of 2048 bytes is 2070). */
#ifndef LSBUS_BUFFER_MAX
#define LSBUS_BUFFER_MAX 2048
#endif

static inline uint8_t *lsbus_put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static inline uint32_t lsbus_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Appends an op to a Tx_Data buffer; a buffer the importer has read since
 * (*read) starts over (LS-BUS 1.0 section 5.2.1: the buffer holds the ops
 * of one clock tick). */
static inline bool lsbus_append(model_instance *inst, model_binary *buffer, bool *read,
                                const uint8_t *op, size_t size)
{
    uint8_t joined[LSBUS_BUFFER_MAX];
    size_t used = *read ? 0 : buffer->size;
    if (used + size > sizeof joined) {
        /* Nobody reads this Tx_Data (an unconnected terminal, rtcosim
         * simulate): the unread ops are dropped, as a controller's full
         * transmit buffer would drop them. */
        model_log(inst, MODEL_LOG_EVENTS, "Tx_Data: %zu bytes unread, dropped", used);
        used = 0;
    }
    if (size > sizeof joined)
        return false;
    if (used)
        memcpy(joined, buffer->data, used);
    memcpy(joined + used, op, size);
    *read = false;
    return model_set_binary(inst, buffer, joined, used + size);
}

#endif
