/* UART0 output and semihosting for MPS2 firmware (freestanding; the tests
 * and the bench use it):
 * CMSDK APB UART0 at 0x40004000 (QEMU hw/arm/mps2.c), ARM semihosting by
 * BKPT 0xAB (semihosting specification 2.0). */
#ifndef MPS2_IO_H
#define MPS2_IO_H
#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))
#define UART0 0x40004000u
#define UART_DATA REG(UART0 + 0x0)
#define UART_STATE REG(UART0 + 0x4)
#define UART_CTRL REG(UART0 + 0x8)
#define UART_BAUDDIV REG(UART0 + 0x10)

static inline void putc0(char c)
{
    while (UART_STATE & 1u) /* TX buffer full */
        ;
    UART_DATA = (uint8_t)c;
}
static inline void puts0(const char *s)
{
    while (*s)
        putc0(*s++);
}
static inline void puthex(uint32_t v)
{
    puts0("0x");
    for (int i = 28; i >= 0; i -= 4)
        putc0("0123456789abcdef"[(v >> i) & 0xF]);
}
static inline void putdec(int32_t v)
{
    char b[12];
    int n = 0;
    uint32_t u = v < 0 ? 0u - (uint32_t)v : (uint32_t)v;
    if (v < 0)
        putc0('-');
    do
        b[n++] = (char)('0' + u % 10);
    while (u /= 10);
    while (n)
        putc0(b[--n]);
}
static inline void line(const char *label, uint32_t v)
{
    puts0(label);
    puthex(v);
    putc0('\n');
}

/* ARM semihosting (ARM DUI 0471 / semihosting spec 2.0): BKPT 0xAB */
static inline uint32_t semihost(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}
static inline void semihost_exit(uint32_t code)
{
    uint32_t block[2] = {0x20026u /* ADP_Stopped_ApplicationExit */, code};
    semihost(0x20u /* SYS_EXIT_EXTENDED */, block);
    for (;;)
        ;
}

#endif
