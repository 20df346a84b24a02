/* plot_out (see plot_out.h): a fopencookie stream onto the output's file
 * descriptor. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot/plot_out.h"

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

rtcosim_status plot_out_open(plot_out *o, const char *path, rtcosim_error *err)
{
    *o = (plot_out){.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)};
    if (o->fd < 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    cookie_io_functions_t io = {.write = out_write, .close = out_close};
    if (!(o->stream = fopencookie(o, "w", io))) {
        close(o->fd);
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
    if (!o->error)
        return RTCOSIM_OK;
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
        unlink(path); /* a truncated image is no result */
    return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the plot failed: %s", path,
                             strerror(o->error));
}
