/* Pages given back (see pages.h). */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/pages.h"

void util_release_pages(const void *from, const void *to)
{
    static uintptr_t page;
    if (!page)
        page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1), b = (uintptr_t)to & ~(page - 1);
    if (from && b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED);
}
