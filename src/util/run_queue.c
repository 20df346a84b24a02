/* The calling thread's run-queue wait from /proc/thread-self/schedstat
 * (run_queue.h): "time on the CPU, run_delay, time slices", in ns. */
#include "util/run_queue.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int run_queue_open(void)
{
    return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int64_t run_queue_wait_ns(int fd)
{
    if (fd < 0)
        return -1;
    char text[96];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n <= 0)
        return -1;
    text[n] = '\0';
    char *end;
    strtoll(text, &end, 10); /* time on the CPU */
    char *second = end;
    long long v = strtoll(second, &end, 10);
    return end == second || v < 0 ? -1 : v;
}
