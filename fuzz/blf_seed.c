/* Writes the seed of fuzz_can_log_blf from a BLF file the build's CLI wrote:
 * a wrapping byte (deflate), a split byte, then the objects of the file's
 * first log container, at most 4 KiB of them (binaries are not committed as
 * seeds). Usage: blf_seed IN.blf OUT */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>

int main(int argc, char **argv)
{
    static uint8_t in[1 << 20], out[1 << 17];
    FILE *f = argc == 3 ? fopen(argv[1], "rb") : NULL;
    size_t n = f ? fread(in, 1, sizeof in, f) : 0;
    if (f)
        fclose(f);
    if (n < 144 + 32) {
        fprintf(stderr, "blf_seed: %s: no BLF with a container\n", argc > 1 ? argv[1] : "?");
        return 1;
    }
    const uint8_t *c = in + 144;
    uint32_t size = (uint32_t)c[8] | (uint32_t)c[9] << 8 | (uint32_t)c[10] << 16 |
                    (uint32_t)c[11] << 24;
    uLongf got = sizeof out - 2;
    if (size < 32 || 144 + (size_t)size > n ||
        uncompress(out + 2, &got, c + 32, size - 32) != Z_OK) {
        fprintf(stderr, "blf_seed: %s: its first container does not inflate\n", argv[1]);
        return 1;
    }
    out[0] = 1;  /* deflate */
    out[1] = 57; /* split point */
    f = fopen(argv[2], "wb");
    if (!f || fwrite(out, 1, 2 + (got < 4096 ? got : 4096), f) == 0 || fclose(f) != 0) {
        fprintf(stderr, "blf_seed: cannot write %s\n", argv[2]);
        return 1;
    }
    return 0;
}
