/* Test firmware for ARM's MPS2+ AN386 (Cortex-M4) written the way CMSIS
 * startup code and an RTOS port are: FPU enabled through SCB->CPACR, vector
 * table moved by VTOR, SysTick, NVIC priorities, preemption and
 * tail-chaining, SVC, a PendSV switch of two tasks on the process stack that
 * keep values in r4-r11 and s16-s31, faults with their CFSR/HFSR/BFAR bits,
 * the CMSDK timer and FPGA I/O, UART0 output and a semihosting exit (code 3).
 * Its UART text must be the same under QEMU's mps2-an386 and rtcosim; nothing
 * it prints depends on how fast either runs. */
#pragma GCC diagnostic ignored "-Woverride-init" /* defaults, then the used vectors */
#include <stdint.h>

#include "mps2_io.h"

/* ARMv7-M ARM B3.2.2 (SCB), B3.3 (SysTick), B3.4 (NVIC), C1.8 (DWT) */
#define SCB_CPUID REG(0xE000ED00)
#define SCB_ICSR REG(0xE000ED04)
#define SCB_VTOR REG(0xE000ED08)
#define SCB_AIRCR REG(0xE000ED0C)
#define SCB_CCR REG(0xE000ED14)
#define SCB_SHPR2 REG(0xE000ED1C)
#define SCB_SHPR3 REG(0xE000ED20)
#define SCB_SHCSR REG(0xE000ED24)
#define SCB_CFSR REG(0xE000ED28)
#define SCB_HFSR REG(0xE000ED2C)
#define SCB_BFAR REG(0xE000ED38)
#define SCB_CPACR REG(0xE000ED88)
#define SYST_CSR REG(0xE000E010)
#define SYST_RVR REG(0xE000E014)
#define SYST_CVR REG(0xE000E018)
#define NVIC_ISER0 REG(0xE000E100)
#define NVIC_ICER0 REG(0xE000E180)
#define NVIC_ISPR0 REG(0xE000E200)
#define NVIC_ICPR0 REG(0xE000E280)
#define NVIC_IPR(n) (*(volatile uint8_t *)(0xE000E400 + (n)))
/* MPS2 AN386 (QEMU hw/arm/mps2.c): CMSDK APB UART0, timer 0 (IRQ 8), FPGA I/O */
#define TIMER0 0x40000000u
#define TIMER0_CTRL REG(TIMER0 + 0x0)
#define TIMER0_RELOAD REG(TIMER0 + 0x8)
#define TIMER0_INTCLEAR REG(TIMER0 + 0xC)
#define FPGAIO_LED REG(0x40028000)
#define IRQ_TIMER0 8
#define IRQ_LOW 30
#define IRQ_HIGH 31
#define IRQ_A 28
#define IRQ_B 29

/* ---- exception handlers ---- */
static volatile uint32_t trace[16];
static volatile uint32_t trace_len;
static volatile uint32_t systicks, timer_irqs;
static volatile uint32_t last_cfsr, last_hfsr;

static void record(uint32_t what)
{
    if (trace_len < 16)
        trace[trace_len++] = what;
}

void IRQ_LOW_Handler(void)
{
    record(1);
    NVIC_ISPR0 = 1u << IRQ_HIGH; /* higher priority: preempts at once */
    record(3);
}
void IRQ_HIGH_Handler(void) { record(2); }
void IRQ_A_Handler(void) { record(0xA); }
void IRQ_B_Handler(void) { record(0xB); }
/* The tenth tick stops SysTick and drops a tick pending meanwhile, here in
 * the handler: QEMU's SysTick runs on the host's clock, and a host stall of
 * a period (1 ms) while this handler runs would otherwise pend an 11th that
 * tail-chains before the wait loop's cpsid. (The later PENDSTSET tick comes
 * here too, with SysTick already stopped.) */
void SysTick_Handler(void)
{
    if (++systicks >= 10) {
        SYST_CSR = 0;
        SCB_ICSR = 1u << 25; /* PENDSTCLR */
    }
}
void TIMER0_Handler(void)
{
    /* the third stops the timer here: QEMU's timer runs on the host's clock,
     * and a host stall between the wait loop's cpsie and cpsid let a fourth
     * one in (seen once under load, "timer irqs 4"). Stopped before its
     * interrupt is cleared, and one that the NVIC latched meanwhile dropped,
     * so that no fourth can tail-chain whatever the host does. */
    if (++timer_irqs >= 3)
        TIMER0_CTRL = 0;
    TIMER0_INTCLEAR = 1;
    if (timer_irqs >= 3)
        NVIC_ICPR0 = 1u << IRQ_TIMER0;
}

/* SVC: the immediate is in the instruction before the stacked PC; the
 * result goes back in the stacked r0 (AAPCS return value). */
void SVC_Handler_C(uint32_t *frame)
{
    uint8_t imm = ((const uint8_t *)frame[6])[-2];
    frame[0] = frame[0] * 10u + imm;
}
__attribute__((naked)) void SVC_Handler(void)
{
    __asm__ volatile("tst lr, #4\n ite eq\n mrseq r0, msp\n mrsne r0, psp\n b SVC_Handler_C");
}

/* UsageFault and HardFault: note the status, clear it (W1C), skip the
 * 16-bit UDF and return. */
void Fault_C(uint32_t *frame)
{
    last_cfsr = SCB_CFSR;
    last_hfsr = SCB_HFSR;
    SCB_CFSR = last_cfsr;
    SCB_HFSR = last_hfsr;
    frame[6] += 2;
}
__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("tst lr, #4\n ite eq\n mrseq r0, msp\n mrsne r0, psp\n b Fault_C");
}

/* BusFault: the last test; report (with the stacked PC, which must be the
 * faulting load's own address for a precise fault) and end the run with
 * exit code 3. */
extern const char bus_fault_load[];
void BusFault_C(const uint32_t *frame)
{
    puts0(frame[6] == (uint32_t)bus_fault_load ? "busfault pc is the load\n"
                                                : "busfault pc elsewhere\n");
    line("busfault cfsr ", SCB_CFSR);
    line("busfault bfar ", SCB_BFAR);
    puts0("end\n");
    semihost_exit(3);
}
__attribute__((naked)) void BusFault_Handler(void)
{
    __asm__ volatile("tst lr, #4\n ite eq\n mrseq r0, msp\n mrsne r0, psp\n b BusFault_C");
}

/* ---- two tasks switched by PendSV on the process stack ---- */
static uint32_t stack_a[256] __attribute__((aligned(8)));
static uint32_t stack_b[256] __attribute__((aligned(8)));
uint32_t *task_sp[2];
uint32_t task_current;
static volatile uint32_t tasks_done;

void task_yield(void)
{
    SCB_ICSR = 1u << 28; /* PENDSVSET */
    __asm__ volatile("dsb\n isb" ::: "memory");
}

/* Each task holds a value in r8 and s20 across its yields: the switch must
 * save and restore r4-r11 and s16-s31. One asm block, so that the compiler
 * keeps nothing of its own in them meanwhile. */
static void task(uint32_t id)
{
    for (uint32_t round = 0; round < 3; round++) {
        puts0(id ? "task B round " : "task A round ");
        putdec((int32_t)round);
        putc0('\n');
        uint32_t want_r = id * 1000 + round, got_r;
        float want_f = (float)(id * 100 + round) + 0.5f, got_f;
        __asm__ volatile("mov r8, %2\n vmov s20, %3\n bl task_yield\n mov %0, r8\n vmov %1, s20"
                         : "=&r"(got_r), "=&t"(got_f)
                         : "r"(want_r), "r"(want_f)
                         : "r0", "r1", "r2", "r3", "r12", "lr", "r8", "s0", "s1", "s2", "s3", "s4",
                           "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15",
                           "s20", "memory", "cc");
        if (got_r != want_r || got_f * 2.0f != want_f * 2.0f) {
            puts0("task lost its registers\n");
            semihost_exit(1);
        }
    }
    if (++tasks_done == 2) {
        puts0("tasks done\n");
        /* nothing there: precise BusFault */
        __asm__ volatile("mov r0, #0x60000000\n"
                         ".global bus_fault_load\n"
                         "bus_fault_load: ldr r0, [r0]" ::: "r0", "memory");
    }
    for (;;)
        task_yield();
}
void task_a(void) { task(0); }
static void task_b(void) { task(1); }

__attribute__((naked)) void PendSV_Handler(void)
{
    __asm__ volatile(
        "mrs r0, psp\n"
        "tst lr, #0x10\n"
        "it eq\n"
        "vstmdbeq r0!, {s16-s31}\n"
        "stmdb r0!, {r4-r11, lr}\n"
        "ldr r1, =task_current\n"
        "ldr r2, [r1]\n"
        "ldr r3, =task_sp\n"
        "str r0, [r3, r2, lsl #2]\n"
        "eor r2, r2, #1\n"
        "str r2, [r1]\n"
        "ldr r0, [r3, r2, lsl #2]\n"
        "ldmia r0!, {r4-r11, lr}\n"
        "tst lr, #0x10\n"
        "it eq\n"
        "vldmiaeq r0!, {s16-s31}\n"
        "msr psp, r0\n"
        "bx lr\n");
}

/* A new task's stack: a basic exception frame (xPSR with T, PC, LR) under
 * r4-r11 and EXC_RETURN 0xFFFFFFFD (thread mode, process stack, no FP). */
static uint32_t *task_stack(uint32_t *top, void (*entry)(void))
{
    uint32_t *sp = top - 8;
    for (int i = 0; i < 8; i++)
        sp[i] = 0;
    sp[5] = 0xFFFFFFFFu;            /* LR */
    sp[6] = (uint32_t)entry & ~1u;  /* PC */
    sp[7] = 1u << 24;               /* xPSR.T */
    sp -= 9;
    for (int i = 0; i < 8; i++)
        sp[i] = 0;
    sp[8] = 0xFFFFFFFDu;
    return sp;
}

/* ---- vector table, copied to RAM and moved there by VTOR ---- */
extern uint32_t __stack_top, __data_start, __data_end, __data_load, __bss_start, __bss_end;
void Reset_Handler(void);
void Default_Handler(void)
{
    puts0("unexpected exception ");
    uint32_t ipsr;
    __asm__ volatile("mrs %0, ipsr" : "=r"(ipsr));
    putdec((int32_t)ipsr);
    putc0('\n');
    semihost_exit(1);
}
void Moved_Handler(void) { record(0x77); }

__attribute__((section(".vectors"), used)) void (*const vectors[16 + 32])(void) = {
    [0] = (void (*)(void))&__stack_top,
    [1] = Reset_Handler,
    [2 ... 47] = Default_Handler,
    [3] = Fault_Handler,
    [5] = BusFault_Handler,
    [6] = Fault_Handler,
    [11] = SVC_Handler,
    [14] = PendSV_Handler,
    [15] = SysTick_Handler,
    [16 + IRQ_TIMER0] = TIMER0_Handler,
    [16 + IRQ_A] = IRQ_A_Handler,
    [16 + IRQ_B] = IRQ_B_Handler,
    [16 + IRQ_LOW] = IRQ_LOW_Handler,
    [16 + IRQ_HIGH] = IRQ_HIGH_Handler,
};
static void (*ram_vectors[16 + 32])(void) __attribute__((aligned(256)));

static void print_trace(const char *label)
{
    puts0(label);
    for (uint32_t i = 0; i < trace_len; i++) {
        putc0(' ');
        putdec((int32_t)trace[i]);
    }
    putc0('\n');
    trace_len = 0;
}

static float fpu_poly(float x) { return x * x * 0.5f + x * 3.25f - 1.0f; }

int main(void)
{
    UART_BAUDDIV = 16;
    UART_CTRL = 1; /* TX enable */
    puts0("hello from mps2-an386\n");
    line("cpuid ", SCB_CPUID);

    /* FPU, enabled by the startup code through CPACR */
    volatile float x = 2.0f;
    float s = __builtin_sqrtf(x);
    putdec((int32_t)(s * 1000000.0f));
    putc0(' ');
    putdec((int32_t)(fpu_poly(x) * 1000.0f));
    putc0('\n');

    /* VTOR: the RAM copy serves exceptions; change one entry to prove it */
    ram_vectors[16 + IRQ_A] = Moved_Handler;
    NVIC_ISER0 = 1u << IRQ_A;
    NVIC_ISPR0 = 1u << IRQ_A;
    __asm__ volatile("dsb\n isb" ::: "memory");
    ram_vectors[16 + IRQ_A] = IRQ_A_Handler;
    print_trace("vtor");

    /* priorities: 4 bits implemented (upper nibble); preemption */
    NVIC_IPR(IRQ_LOW) = 0xC0;
    NVIC_IPR(IRQ_HIGH) = 0x40;
    line("ipr readback ", NVIC_IPR(IRQ_LOW) | (uint32_t)NVIC_IPR(IRQ_HIGH) << 8);
    NVIC_ISER0 = (1u << IRQ_LOW) | (1u << IRQ_HIGH) | (1u << IRQ_B);
    NVIC_ISPR0 = 1u << IRQ_LOW;
    __asm__ volatile("dsb\n isb" ::: "memory");
    print_trace("preempt");

    /* masked by PRIMASK, then taken in priority order and by number */
    NVIC_IPR(IRQ_A) = 0x80;
    NVIC_IPR(IRQ_B) = 0x80;
    __asm__ volatile("cpsid i" ::: "memory");
    NVIC_ISPR0 = (1u << IRQ_B) | (1u << IRQ_A) | (1u << IRQ_HIGH);
    __asm__ volatile("dsb\n isb" ::: "memory");
    record(9);
    __asm__ volatile("cpsie i\n isb" ::: "memory");
    print_trace("tailchain");

    /* BASEPRI masks priorities >= its value */
    __asm__ volatile("msr basepri, %0" ::"r"(0x80u));
    NVIC_ISPR0 = 1u << IRQ_A;
    __asm__ volatile("dsb\n isb" ::: "memory");
    record(9);
    __asm__ volatile("msr basepri, %0\n isb" ::"r"(0u));
    print_trace("basepri");
    line("ispr after ", NVIC_ISPR0 & 0xF0000000u);

    /* SysTick at 1 kHz of the 25 MHz clock; wfi sleeps until each tick */
    SCB_SHPR3 = 0xE0u << 24 | 0xF0u << 16; /* SysTick, PendSV priorities */
    line("shpr3 ", SCB_SHPR3);
    SYST_RVR = 25000 - 1;
    SYST_CVR = 0;
    /* The count is checked with PRIMASK set and the timer stopped before it
     * is cleared: QEMU's SysTick runs on the host's clock, and a host that
     * stalls the emulator between the loop's last check and the stop would
     * otherwise let an 11th tick in (wfi still wakes with PRIMASK set,
     * B1.5.19, and cpsie lets the one pending tick run). */
    __asm__ volatile("cpsid i" ::: "memory");
    SYST_CSR = 7; /* processor clock, interrupt, enable */
    while (systicks < 10)
        __asm__ volatile("wfi\n cpsie i\n isb\n cpsid i" ::: "memory");
    SYST_CSR = 0;
    SCB_ICSR = 1u << 25; /* PENDSTCLR: a tick that came after the tenth */
    __asm__ volatile("cpsie i" ::: "memory");
    puts0("systicks ");
    putdec((int32_t)systicks);
    putc0('\n');
    SCB_ICSR = 1u << 26; /* PENDSTSET: one more tick by software */
    __asm__ volatile("dsb\n isb" ::: "memory");
    puts0("systicks after pendstset ");
    putdec((int32_t)systicks);
    putc0('\n');

    /* CMSDK timer 0: three interrupts */
    NVIC_ISER0 = 1u << IRQ_TIMER0;
    TIMER0_RELOAD = 2500;
    __asm__ volatile("cpsid i" ::: "memory"); /* as for SysTick above */
    TIMER0_CTRL = 1 | 8; /* enable, interrupt enable */
    while (timer_irqs < 3)
        __asm__ volatile("wfi\n cpsie i\n isb\n cpsid i" ::: "memory");
    TIMER0_CTRL = 0;
    TIMER0_INTCLEAR = 1;
    NVIC_ICPR0 = 1u << IRQ_TIMER0;
    __asm__ volatile("cpsie i" ::: "memory");
    puts0("timer irqs ");
    putdec((int32_t)timer_irqs);
    putc0('\n');

    /* FPGA I/O LEDs */
    FPGAIO_LED = 0x2;
    line("leds ", FPGAIO_LED);

    /* SVC */
    register uint32_t r0 __asm__("r0") = 4;
    __asm__ volatile("svc #7" : "+r"(r0)::"memory");
    uint32_t svc_result = r0;
    puts0("svc returned ");
    putdec((int32_t)svc_result);
    putc0('\n');

    /* UsageFault enabled: UDF gives CFSR.UNDEFINSTR */
    SCB_SHCSR |= 1u << 18;
    __asm__ volatile("udf #1" ::: "memory");
    line("usagefault cfsr ", last_cfsr);
    line("usagefault hfsr ", last_hfsr);
    /* UsageFault disabled: escalates to HardFault with HFSR.FORCED */
    SCB_SHCSR &= ~(1u << 18);
    __asm__ volatile("udf #2" ::: "memory");
    line("hardfault cfsr ", last_cfsr);
    line("hardfault hfsr ", last_hfsr);
    line("cfsr cleared ", SCB_CFSR);

    /* two tasks switched by PendSV; BusFault enabled for the last test */
    SCB_SHCSR |= 1u << 17;
    SCB_SHPR3 = 0xF0u << 16 | (SCB_SHPR3 & 0xFF00FFFFu);
    task_sp[1] = task_stack(stack_b + 256, task_b);
    task_current = 0;
    /* task A runs on its process stack; B starts from its prepared frame */
    __asm__ volatile("msr psp, %0\n"
                     "mov r0, #2\n"
                     "msr control, r0\n"
                     "isb\n"
                     "b task_a_entry\n" ::"r"(stack_a + 256)
                     : "r0", "memory");
    for (;;)
        ;
}

void task_a_entry(void) { task_a(); }

void Reset_Handler(void)
{
    SCB_CPACR |= 0xFu << 20; /* CP10, CP11 full access (ARMv7-M B3.2.20) */
    __asm__ volatile("dsb\n isb" ::: "memory");
    const uint32_t *src = &__data_load;
    for (uint32_t *dst = &__data_start; dst < &__data_end;)
        *dst++ = *src++;
    for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
        *dst++ = 0;
    for (int i = 0; i < 16 + 32; i++)
        ram_vectors[i] = vectors[i];
    SCB_VTOR = (uint32_t)ram_vectors;
    __asm__ volatile("dsb\n isb" ::: "memory");
    main();
}
