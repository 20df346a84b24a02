/* Memory given back to the system page by page: the MDF reader's walk of a
 * mapped file (its pages behind it) and the bindings' hand-over of results
 * (a heap block's tail once copied out). */
#ifndef RTCOSIM_UTIL_PAGES_H
#define RTCOSIM_UTIL_PAGES_H

/* The whole pages inside [from, to) given back (MADV_DONTNEED): a mapped
 * file's come back from the page cache when read again, anonymous ones read
 * as zeros. No page holding a byte outside the range is touched, so a heap
 * block stays whole for free(). NULL or an empty range: nothing. */
void util_release_pages(const void *from, const void *to);

#endif
