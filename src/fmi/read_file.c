/* Reads modelDescription.xml (or any small file of an extracted FMU) into
 * memory in one go, refusing links and files above a size limit, so that the
 * XML parser gets a bounded buffer instead of a path it might follow. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmi/fmu_internal.h"

rtcosim_status rtcosim_fmi_read_file(const char *path, size_t max_size, char **data,
                                     size_t *size, rtcosim_error *err)
{
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return rtcosim_error_set(err, errno == ENOENT ? RTCOSIM_ENOTFOUND : RTCOSIM_EIO,
                                 "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: not a regular file", path);
    }
    if ((uint64_t)sb.st_size > max_size) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: %" PRIu64 " bytes is larger than the limit of %zu",
                                 path, (uint64_t)sb.st_size, max_size);
    }
    size_t want = (size_t)sb.st_size;
    char *buf = malloc(want + 1);
    if (!buf) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    size_t have = 0;
    while (have < want) {
        ssize_t r = read(fd, buf + have, want - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    close(fd);
    if (have != want) {
        free(buf);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: short read", path);
    }
    buf[have] = '\0';
    *data = buf;
    *size = have;
    return RTCOSIM_OK;
}
