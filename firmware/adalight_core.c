/* adalight_core.c - see adalight_core.h for the protocol. Portable C99, no allocation. */
#include "adalight_core.h"

static void put_line(ada_core_t *c, const char *a, uint32_t n, int with_n)
{
    /* Builds "<a>[ <n>]\n" without printf (keeps AVR builds small). */
    char buf[64];
    size_t len = 0;
    while (*a && len < sizeof buf - 13) buf[len++] = *a++;
    if (with_n) {
        char digits[10];
        int k = 0;
        buf[len++] = ' ';
        do { digits[k++] = (char)('0' + n % 10u); n /= 10u; } while (n && k < 10);
        while (k) buf[len++] = digits[--k];
    }
    buf[len++] = '\n';
    c->hw->write_bytes(c->hw->ctx, (const uint8_t *)buf, len);
}

static void send_identity(ada_core_t *c)
{
    char buf[64];
    const char *p = "ID " ADA_NAME " " ADA_VERSION " max=";
    size_t len = 0;
    uint32_t n = c->max_leds;
    char digits[10];
    int k = 0;
    while (*p) buf[len++] = *p++;
    do { digits[k++] = (char)('0' + n % 10u); n /= 10u; } while (n);
    while (k) buf[len++] = digits[--k];
    buf[len++] = '\n';
    c->hw->write_bytes(c->hw->ctx, (const uint8_t *)buf, len);
}

static void blank_from(ada_core_t *c, uint16_t first)
{
    uint16_t i;
    for (i = first; i < c->high_water; i++) c->hw->set_pixel(c->hw->ctx, i, 0, 0, 0);
    if (c->high_water > first) c->high_water = first;
}

void ada_init(ada_core_t *c, const ada_hw_t *hw, uint16_t max_leds, uint32_t timeout_ms)
{
    uint32_t now;
    c->hw = hw;
    c->max_leds = max_leds ? max_leds : 1;
    c->timeout_ms = timeout_ms;
    c->state = ADA_HUNT_A;
    c->hi = c->lo = 0;
    c->count = 0;
    c->pos = 0;
    c->rgb[0] = c->rgb[1] = c->rgb[2] = 0;
    c->stats.frames = c->stats.bad_checksum = c->stats.too_many = 0;
    c->stats.abandoned = c->stats.blanks = c->stats.identifies = 0;
    c->high_water = c->max_leds; /* unknown power-on contents: blank them all */
    blank_from(c, 0);
    hw->show(hw->ctx);
    c->lit = 0;
    now = hw->millis(hw->ctx);
    c->last_frame_ms = now;
    c->last_byte_ms = now;
    send_identity(c);
}

static void hunt(ada_core_t *c, uint8_t b)
{
    /* Header search; an 'A' anywhere restarts it, so "AAda" or "AdAda" still sync. */
    switch (c->state) {
    case ADA_HUNT_D:
        c->state = (b == 'd') ? ADA_HUNT_A2 : (b == 'A' ? ADA_HUNT_D : ADA_HUNT_A);
        break;
    case ADA_HUNT_A2:
        if (b == 'a') {
            c->state = ADA_HI;
        } else if (b == 'i') {
            c->stats.identifies++;
            send_identity(c);
            c->state = ADA_HUNT_A;
        } else {
            c->state = (b == 'A') ? ADA_HUNT_D : ADA_HUNT_A;
        }
        break;
    default:
        c->state = (b == 'A') ? ADA_HUNT_D : ADA_HUNT_A;
        break;
    }
}

static void frame_done(ada_core_t *c)
{
    uint32_t now = c->hw->millis(c->hw->ctx);
    blank_from(c, c->count);
    c->hw->show(c->hw->ctx);
    c->lit = 1;
    c->last_frame_ms = now;
    c->stats.frames++;
    put_line(c, "OK", c->count, 1);
    c->state = ADA_HUNT_A;
}

static void feed_byte(ada_core_t *c, uint8_t b)
{
    switch (c->state) {
    case ADA_HUNT_A:
    case ADA_HUNT_D:
    case ADA_HUNT_A2:
        hunt(c, b);
        break;
    case ADA_HI:
        c->hi = b;
        c->state = ADA_LO;
        break;
    case ADA_LO:
        c->lo = b;
        c->state = ADA_CHK;
        break;
    case ADA_CHK:
        if (b != (uint8_t)(c->hi ^ c->lo ^ 0x55)) {
            c->stats.bad_checksum++;
            put_line(c, "ERR checksum", 0, 0);
            /* The byte that failed may itself start a header. */
            c->state = ADA_HUNT_A;
            hunt(c, b);
            break;
        }
        {
            uint32_t n = (((uint32_t)c->hi << 8) | c->lo) + 1u;
            c->pos = 0;
            if (n > c->max_leds) {
                c->stats.too_many++;
                put_line(c, "ERR too-many", n, 1);
                c->pos = 3u * n;
                c->state = ADA_SKIP;
            } else {
                c->count = (uint16_t)n;
                c->state = ADA_PAYLOAD;
            }
        }
        break;
    case ADA_PAYLOAD:
        c->rgb[c->pos % 3u] = b;
        c->pos++;
        if (c->pos % 3u == 0) {
            uint16_t i = (uint16_t)(c->pos / 3u - 1u);
            c->hw->set_pixel(c->hw->ctx, i, c->rgb[0], c->rgb[1], c->rgb[2]);
            if (i >= c->high_water) c->high_water = (uint16_t)(i + 1u);
            if (c->pos == 3u * c->count) frame_done(c);
        }
        break;
    case ADA_SKIP:
        if (--c->pos == 0) c->state = ADA_HUNT_A;
        break;
    }
}

void ada_feed(ada_core_t *c, const uint8_t *data, size_t len)
{
    size_t k;
    if (len == 0) return;
    ada_poll(c); /* a long gap before these bytes ends a stalled frame first */
    for (k = 0; k < len; k++) feed_byte(c, data[k]);
    c->last_byte_ms = c->hw->millis(c->hw->ctx);
}

void ada_poll(ada_core_t *c)
{
    uint32_t now = c->hw->millis(c->hw->ctx);
    if (c->state != ADA_HUNT_A && (uint32_t)(now - c->last_byte_ms) >= ADA_BYTE_TIMEOUT_MS) {
        if (c->state >= ADA_HI) c->stats.abandoned++; /* a header or payload was cut short */
        c->state = ADA_HUNT_A;
    }
    if (c->lit && c->timeout_ms && (uint32_t)(now - c->last_frame_ms) >= c->timeout_ms) {
        c->high_water = c->max_leds;
        blank_from(c, 0);
        c->hw->show(c->hw->ctx);
        c->lit = 0;
        c->stats.blanks++;
        put_line(c, "BLANK", 0, 0);
    }
}
