/* Shared by the frame geometry files (frame.c classic, frame_fd.c CAN FD,
 * frame_xl.c CAN XL): dynamic bit stuffing. */
#ifndef RTCOSIM_CAN_FRAME_INTERNAL_H
#define RTCOSIM_CAN_FRAME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* The rule, one bit at a time (ISO 11898-1): after five equal bits a
 * complementary one is sent, which starts the next run. *last is the last
 * bit sent (2 before the first), *run how many equal bits end the stream;
 * returns 1 when a stuff bit follows bit b. */
static inline unsigned can_stuff_step(unsigned b, unsigned *last, unsigned *run)
{
    *run = b == *last ? *run + 1 : 1;
    *last = b;
    if (*run < 5)
        return 0;
    *last ^= 1u;
    *run = 1;
    return 1;
}

/* Stuff bits of bits[0..n) (one bit per byte, 0 dominant). A stuff bit sent
 * after bit i counts in the result when i < split, else in *after (CAN FD:
 * the data phase from BRS on; NULL when split >= n). */
static inline uint32_t can_stuff_count(const uint8_t *bits, size_t n, size_t split,
                                       uint32_t *after)
{
    uint32_t before = 0, later = 0;
    unsigned run = 0, last = 2;
    for (size_t i = 0; i < n; i++) {
        unsigned stuffed = can_stuff_step(bits[i], &last, &run);
        if (i < split)
            before += stuffed;
        else
            later += stuffed;
    }
    if (after)
        *after = later;
    return before;
}

#endif
