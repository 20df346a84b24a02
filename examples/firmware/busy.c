/* Benchmark firmware (B10, `rtcosim bench vecu`): TIMER0 runs a bitwise
 * CRC-32 over a 1 KiB RAM buffer, a branchy integer kernel whose short basic
 * blocks are the worst case for per-block instruction counting. */
#include <stdint.h>

#include "rtcosim/vecu_periph.h"

static uint8_t buffer[1024];
uint32_t busy_crc;

void firmware_init(void)
{
    for (uint32_t i = 0; i < sizeof buffer; i++)
        buffer[i] = (uint8_t)(i * 7u + 3u);
}

void TIMER0_IRQHandler(void)
{
    uint32_t crc = 0xFFFFFFFFu;
    for (uint32_t i = 0; i < sizeof buffer; i++) {
        crc ^= buffer[i];
        for (int b = 0; b < 8; b++)
            crc = crc & 1u ? (crc >> 1) ^ 0xEDB88320u : crc >> 1;
    }
    busy_crc = ~crc;
    buffer[busy_crc % sizeof buffer]++; /* next call computes something new */
}
