/* Doubling growth of heap arrays (see array.h). Doubling keeps the cost of n
 * appends at O(n) copies in all. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

bool util_array_reserve(void *array_ptr, size_t count, size_t *capacity, size_t element_size,
                        size_t first_capacity)
{
    if (count < *capacity)
        return true;
    size_t new_capacity = *capacity ? *capacity * 2 : first_capacity;
    if (new_capacity <= count)
        new_capacity = count + 1;
    if (new_capacity > SIZE_MAX / element_size)
        return false;
    void *array;
    memcpy(&array, array_ptr, sizeof array); /* any object pointer type (see the header) */
    void *bigger = realloc(array, new_capacity * element_size);
    if (!bigger)
        return false;
    memcpy(array_ptr, &bigger, sizeof bigger);
    *capacity = new_capacity;
    return true;
}
