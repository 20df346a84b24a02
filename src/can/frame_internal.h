/* Shared by the frame geometry files (frame.c classic, frame_fd.c CAN FD,
 * frame_xl.c CAN XL): dynamic bit stuffing. */
#ifndef RTCOSIM_CAN_FRAME_INTERNAL_H
#define RTCOSIM_CAN_FRAME_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Stuff bits of bits[0..n) (one bit per byte, 0 dominant): after five equal
 * bits a complementary one is sent, which starts the next run (ISO
 * 11898-1). A stuff bit sent after bit i counts in the result when
 * i < split, else in *after (CAN FD: the data phase from BRS on; NULL when
 * split >= n). */
static inline uint32_t can_stuff_count(const uint8_t *bits, size_t n, size_t split,
                                       uint32_t *after)
{
    uint32_t before = 0, later = 0;
    unsigned run = 0, last = 2;
    for (size_t i = 0; i < n; i++) {
        if (bits[i] == last) {
            run++;
        } else {
            run = 1;
            last = bits[i];
        }
        if (run == 5) {
            if (i < split)
                before++;
            else
                later++;
            last ^= 1u;
            run = 1;
        }
    }
    if (after)
        *after = later;
    return before;
}

#endif
