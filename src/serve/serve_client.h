/* A minimal HTTP/1.1 and WebSocket client over loopback TCP, for the live
 * view's tests and `rtcosim bench realtime` (not part of the library). */
#ifndef RTCOSIM_SERVE_CLIENT_H
#define RTCOSIM_SERVE_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One request (Connection: close); `headers` are extra lines, each ending
 * in \r\n. Returns the status (-1: no answer); *response_body points into
 * response (NUL-terminated). */
int serve_client_request(const char *host, int port, const char *method, const char *path,
                         const char *headers, const char *body, size_t body_size, char *response,
                         size_t response_size, const char **response_body);

typedef struct serve_ws {
    int fd;
    size_t pending;
    char buffer[1 << 17];
} serve_ws;

bool serve_ws_open(serve_ws *ws, const char *host, int port, const char *path,
                   const char *headers);
/* The next text or binary message into out (NUL-terminated, cut to size);
 * its length, or -1 on close, error or timeout. */
long serve_ws_read(serve_ws *ws, char *out, size_t size, int timeout_ms);
bool serve_ws_send_text(serve_ws *ws, const char *text, size_t size);
void serve_ws_close(serve_ws *ws);

#endif
