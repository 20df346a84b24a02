/* plot_out (see plot_out.h): a fopencookie stream onto PATH.part, renamed
 * to PATH when whole. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot/plot_out.h"
#include "results/part_file.h"
#include "util/write_target.h"

static ssize_t out_write(void *cookie, const char *buf, size_t size)
{
    plot_out *o = cookie;
    if (o->error) {
        errno = o->error;
        return -1;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(o->fd, buf + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            o->error = n < 0 ? errno : EIO;
            errno = o->error;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)n;
    }
    return (ssize_t)done;
}

static int out_close(void *cookie)
{
    ((plot_out *)cookie)->closed = true;
    return 0;
}

/* The part file dropped: removed (when `remove`), unregistered, freed (and the target). */
static void drop_part(plot_out *o, bool remove)
{
    free(o->target);
    o->target = NULL;
    if (!o->part)
        return;
    if (remove)
        unlink(o->part);
    result_part_unregister(o->part_slot);
    free(o->part);
    o->part = NULL;
}

rtcosim_status plot_out_open(plot_out *o, const char *path, rtcosim_error *err)
{
    *o = (plot_out){.fd = -1, .part_slot = -1};
    struct stat sb;
    /* a device or a pipe (/dev/stdout) is written in place, without a part file */
    bool in_place = stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
    if (!in_place) {
        if (!(o->target = util_write_target(path)))
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        size_t n = strlen(o->target);
        if (!(o->part = malloc(n + sizeof ".part"))) {
            drop_part(o, false);
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        }
        memcpy(o->part, o->target, n);
        memcpy(o->part + n, ".part", sizeof ".part");
        /* registered first: a signal from here on finds it to remove */
        o->part_slot = result_part_register(o->part);
    }
    o->fd = in_place ? open(path, O_WRONLY | O_CLOEXEC)
                     : open(o->part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (o->fd < 0) {
        int e = errno;
        drop_part(o, false);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    cookie_io_functions_t io = {.write = out_write, .close = out_close};
    if (!(o->stream = fopencookie(o, "w", io))) {
        close(o->fd);
        drop_part(o, true);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    return RTCOSIM_OK;
}

rtcosim_status plot_out_finish(plot_out *o, const char *path, rtcosim_error *err)
{
    if (!o->closed)
        fclose(o->stream); /* (flushes through out_write: its error is kept) */
    o->stream = NULL;
    if (close(o->fd) != 0 && !o->error)
        o->error = errno;
    if (!o->error && o->part && rename(o->part, o->target) != 0)
        o->error = errno;
    drop_part(o, o->error != 0); /* a truncated image is no result */
    if (!o->error)
        return RTCOSIM_OK;
    return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the plot failed: %s", path,
                             strerror(o->error));
}
