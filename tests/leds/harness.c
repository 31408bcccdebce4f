/* Test hardware layer for firmware/adalight_core.c: pixels in RAM, shows snapshotted, the
   bytes sent to the host buffered, millis injected. Built by conftest.py into a shared library
   (ctypes) and, with fuzz.c, into the fuzz binary. */
#include <stdlib.h>
#include <string.h>
#include "adalight_core.h"

#define OUT_CAP 65536

typedef struct harness {
    ada_core_t core;
    ada_hw_t hw;
    uint16_t max;
    uint8_t *buf;        /* the strip's pixel buffer (what set_pixel writes) */
    uint8_t *shown;      /* the buffer as of the last show() */
    uint32_t shows;
    uint32_t now;
    uint32_t out_of_bounds;   /* set_pixel calls with index >= max: must stay 0 */
    uint32_t out_dropped;
    size_t out_len;
    uint8_t out[OUT_CAP];
} harness_t;

static void hw_set_pixel(void *ctx, uint16_t i, uint8_t r, uint8_t g, uint8_t b)
{
    harness_t *h = ctx;
    if (i >= h->max) { h->out_of_bounds++; return; }
    h->buf[3 * i] = r; h->buf[3 * i + 1] = g; h->buf[3 * i + 2] = b;
}

static void hw_show(void *ctx)
{
    harness_t *h = ctx;
    memcpy(h->shown, h->buf, 3u * h->max);
    h->shows++;
}

static void hw_write(void *ctx, const uint8_t *data, size_t len)
{
    harness_t *h = ctx;
    if (h->out_len + len > OUT_CAP) { h->out_dropped += (uint32_t)len; return; }
    memcpy(h->out + h->out_len, data, len);
    h->out_len += len;
}

static uint32_t hw_millis(void *ctx) { return ((harness_t *)ctx)->now; }

harness_t *h_new(uint16_t max_leds, uint32_t timeout_ms, uint32_t start_ms)
{
    harness_t *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->max = max_leds ? max_leds : 1;
    h->buf = malloc(3u * h->max);
    h->shown = calloc(3u, h->max);
    if (!h->buf || !h->shown) { free(h->buf); free(h->shown); free(h); return NULL; }
    memset(h->buf, 0x5A, 3u * h->max);      /* power-on garbage; ada_init must blank it */
    h->now = start_ms;
    h->hw.set_pixel = hw_set_pixel; h->hw.show = hw_show; h->hw.write_bytes = hw_write;
    h->hw.millis = hw_millis; h->hw.ctx = h;
    ada_init(&h->core, &h->hw, h->max, timeout_ms);
    return h;
}

void h_free(harness_t *h) { if (h) { free(h->buf); free(h->shown); free(h); } }
void h_feed(harness_t *h, const uint8_t *data, size_t len) { ada_feed(&h->core, data, len); }
void h_poll(harness_t *h) { ada_poll(&h->core); }
void h_set_millis(harness_t *h, uint32_t ms) { h->now = ms; }
uint32_t h_shows(const harness_t *h) { return h->shows; }
uint32_t h_out_of_bounds(const harness_t *h) { return h->out_of_bounds; }
int h_state(const harness_t *h) { return (int)h->core.state; }
void h_shown(const harness_t *h, uint8_t *out) { memcpy(out, h->shown, 3u * h->max); }
/* frames, bad_checksum, too_many, abandoned, blanks, identifies */
void h_stats(const harness_t *h, uint32_t *out)
{
    out[0] = h->core.stats.frames; out[1] = h->core.stats.bad_checksum; out[2] = h->core.stats.too_many;
    out[3] = h->core.stats.abandoned; out[4] = h->core.stats.blanks; out[5] = h->core.stats.identifies;
}
/* Move up to cap bytes the board sent into out; returns how many. */
size_t h_take_output(harness_t *h, uint8_t *out, size_t cap)
{
    size_t n = h->out_len < cap ? h->out_len : cap;
    memcpy(out, h->out, n);
    memmove(h->out, h->out + n, h->out_len - n);
    h->out_len -= n;
    return n;
}
