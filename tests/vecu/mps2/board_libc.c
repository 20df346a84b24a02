/* Test firmware for MPS2+ AN386 built with Debian's picolibc and its own
 * crt0 (not ours): printf and snprintf with floating point through the FPU,
 * strtod, qsort and malloc on the newlib-style heap, stdout on UART0, exit
 * through semihosting. Its text must equal QEMU's mps2-an386 run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mps2_io.h"

static int uart_putc(char c, FILE *f)
{
    (void)f;
    putc0(c);
    return (unsigned char)c;
}
static FILE uart_file = FDEV_SETUP_STREAM(uart_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &uart_file;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1;
    printf("picolibc on mps2-an386\n");
    printf("pi %.6f e %.4e int %d hex %#x\n", 3.14159265358979, 2.718281828e-3, -42, 48879u);
    double *v = malloc(6 * sizeof *v);
    if (!v)
        return 1;
    const char *text = "2.5 -1e2 7.25 0.125 3 -0.5";
    char *end = (char *)text;
    for (int i = 0; i < 6; i++)
        v[i] = strtod(end, &end);
    qsort(v, 6, sizeof *v, by_value);
    char line[128];
    int n = 0;
    for (int i = 0; i < 6; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, "%s%g", i ? " " : "", v[i]);
    printf("sorted %s (%d chars, strlen %u)\n", line, n, (unsigned)strlen(line));
    float f = 1.0f;
    for (int i = 0; i < 10; i++)
        f = f * 1.5f + 0.25f;
    printf("float %.3f\n", (double)f);
    free(v);
    fflush(stdout);
    semihost_exit(0); /* picolibc's exit() without --oslib=semihost loops */
    return 0;
}
