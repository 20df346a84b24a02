/* A minimal HTTP/1.1 and WebSocket (RFC 6455) client over loopback TCP for
 * the live view's tests and for `rtcosim bench realtime`, which streams the
 * view while it measures: written from the RFCs, blocking with timeouts,
 * no dependency. Not part of the library. */
#include "serve/serve_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int connect_to(const char *host, int port, int timeout_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static bool send_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

int serve_client_request(const char *host, int port, const char *method, const char *path,
                         const char *headers, const char *body, size_t body_size, char *response,
                         size_t response_size, const char **response_body)
{
    *response_body = NULL;
    if (response_size)
        response[0] = '\0';
    int fd = connect_to(host, port, 10000);
    if (fd < 0)
        return -1;
    char head[2048], host_line[96] = "";
    if (!headers || !strstr(headers, "Host:")) /* a test may give its own */
        snprintf(host_line, sizeof host_line, "Host: %s:%d\r\n", host, port);
    int n = snprintf(head, sizeof head,
                     "%s %s HTTP/1.1\r\n%sConnection: close\r\n%s"
                     "Content-Length: %zu\r\n\r\n",
                     method, path, host_line, headers ? headers : "", body ? body_size : 0);
    if (n < 0 || (size_t)n >= sizeof head || !send_all(fd, head, (size_t)n) ||
        (body && body_size && !send_all(fd, body, body_size))) {
        close(fd);
        return -1;
    }
    size_t len = 0;
    for (;;) {
        if (len + 1 >= response_size)
            break;
        ssize_t got = recv(fd, response + len, response_size - 1 - len, 0);
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(fd);
    response[len] = '\0';
    int status = -1;
    if (sscanf(response, "HTTP/1.%*d %d", &status) != 1)
        return -1;
    char *split = strstr(response, "\r\n\r\n");
    *response_body = split ? split + 4 : response + len;
    return status;
}

bool serve_ws_open(serve_ws *ws, const char *host, int port, const char *path,
                   const char *headers)
{
    ws->fd = connect_to(host, port, 10000);
    ws->pending = 0;
    if (ws->fd < 0)
        return false;
    /* A fixed key: the client need not check the accept hash to work. */
    char head[2048];
    int n = snprintf(head, sizeof head,
                     "GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\n"
                     "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n%s\r\n",
                     path, host, port, headers ? headers : "");
    if (n < 0 || (size_t)n >= sizeof head || !send_all(ws->fd, head, (size_t)n)) {
        serve_ws_close(ws);
        return false;
    }
    /* The 101 response, up to its blank line; anything after is a frame. */
    size_t len = 0;
    char *end = NULL;
    while (!end && len + 1 < sizeof ws->buffer) {
        ssize_t got = recv(ws->fd, ws->buffer + len, sizeof ws->buffer - 1 - len, 0);
        if (got <= 0)
            break;
        len += (size_t)got;
        ws->buffer[len] = '\0';
        end = strstr(ws->buffer, "\r\n\r\n");
    }
    if (!end || strncmp(ws->buffer, "HTTP/1.1 101", 12) != 0) {
        serve_ws_close(ws);
        return false;
    }
    size_t header_len = (size_t)(end + 4 - ws->buffer);
    ws->pending = len - header_len;
    memmove(ws->buffer, end + 4, ws->pending);
    return true;
}

static bool fill(serve_ws *ws, size_t need, int timeout_ms)
{
    while (ws->pending < need) {
        if (need > sizeof ws->buffer)
            return false;
        struct pollfd p = {ws->fd, POLLIN, 0};
        if (poll(&p, 1, timeout_ms) <= 0)
            return false;
        ssize_t got = recv(ws->fd, ws->buffer + ws->pending, sizeof ws->buffer - ws->pending, 0);
        if (got <= 0)
            return false;
        ws->pending += (size_t)got;
    }
    return true;
}

long serve_ws_read(serve_ws *ws, char *out, size_t size, int timeout_ms)
{
    for (;;) {
        if (!fill(ws, 2, timeout_ms))
            return -1;
        unsigned char *b = (unsigned char *)ws->buffer;
        int opcode = b[0] & 0x0F;
        uint64_t len = b[1] & 0x7F;
        size_t header = 2;
        if (len == 126) {
            if (!fill(ws, 4, timeout_ms))
                return -1;
            len = ((uint64_t)b[2] << 8) | b[3];
            header = 4;
        } else if (len == 127) {
            if (!fill(ws, 10, timeout_ms))
                return -1;
            len = 0;
            for (int i = 0; i < 8; i++)
                len = (len << 8) | b[2 + i];
            header = 10;
        }
        if (len > sizeof ws->buffer - header || !fill(ws, header + (size_t)len, timeout_ms))
            return -1;
        size_t payload = (size_t)len;
        long result = -2;
        if (opcode == 0x8)
            result = -1;
        else if (opcode == 0x1 || opcode == 0x2) {
            size_t copy = payload < size - 1 ? payload : size - 1;
            memcpy(out, ws->buffer + header, copy);
            out[copy] = '\0';
            result = (long)copy;
        }
        ws->pending -= header + payload;
        memmove(ws->buffer, ws->buffer + header + payload, ws->pending);
        if (result != -2)
            return result;
    }
}

bool serve_ws_send_text(serve_ws *ws, const char *text, size_t size)
{
    /* Client frames are masked (RFC 6455 5.3); a zero mask keeps it simple. */
    unsigned char head[14];
    size_t n = 0;
    head[n++] = 0x81;
    if (size < 126) {
        head[n++] = (unsigned char)(0x80 | size);
    } else if (size < 65536) {
        head[n++] = 0x80 | 126;
        head[n++] = (unsigned char)(size >> 8);
        head[n++] = (unsigned char)size;
    } else {
        head[n++] = 0x80 | 127;
        for (int i = 7; i >= 0; i--)
            head[n++] = (unsigned char)((uint64_t)size >> (8 * i));
    }
    memset(head + n, 0, 4);
    n += 4;
    return send_all(ws->fd, head, n) && send_all(ws->fd, text, size);
}

void serve_ws_close(serve_ws *ws)
{
    if (ws->fd >= 0)
        close(ws->fd);
    ws->fd = -1;
}
