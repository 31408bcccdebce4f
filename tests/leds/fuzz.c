/* Fuzz loop for firmware/adalight_core.c: N random inputs (random bytes, mutated frames: bit
   flips, truncation, insertions, lying headers; identify requests; clock jumps and wraps), each
   fed in random pieces. After every input the invariants are checked:
     - set_pixel never got an index >= max_leds;
     - the receiver's state and counters are in range;
     - every byte the board sent is a well-formed reply line;
     - after a quiet gap of ADA_BYTE_TIMEOUT_MS a valid frame is shown exactly (pixels beyond it
       black) and acknowledged with "OK <n>";
     - after a BLANK line every shown pixel is black.
   Usage: fuzz SEED N MAX_LEDS. Prints "inputs=N frames=F ..." and exits 0, or prints the first
   violation and exits 1. Built with -fsanitize=address,undefined when the compiler has them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adalight_core.h"

typedef struct harness harness_t;
harness_t *h_new(uint16_t, uint32_t, uint32_t);
void h_free(harness_t *);
void h_feed(harness_t *, const uint8_t *, size_t);
void h_poll(harness_t *);
void h_set_millis(harness_t *, uint32_t);
uint32_t h_shows(const harness_t *);
uint32_t h_out_of_bounds(const harness_t *);
int h_state(const harness_t *);
void h_shown(const harness_t *, uint8_t *);
void h_stats(const harness_t *, uint32_t *);
size_t h_take_output(harness_t *, uint8_t *, size_t);

static uint64_t rng;
static uint32_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)(rng >> 11); }
static uint32_t below(uint32_t n) { return n ? rnd() % n : 0; }

static size_t frame(uint8_t *dst, uint32_t n, const uint8_t *rgb)
{
    uint32_t c = n - 1;
    uint8_t hi = (uint8_t)(c >> 8), lo = (uint8_t)c;
    dst[0] = 'A'; dst[1] = 'd'; dst[2] = 'a'; dst[3] = hi; dst[4] = lo; dst[5] = (uint8_t)(hi ^ lo ^ 0x55);
    memcpy(dst + 6, rgb, 3u * n);
    return 6 + 3u * n;
}

static char line[256];
static size_t line_len;
static int saw_blank;

/* Checks the board's output: only known reply lines. Returns 0 or 1 (violation). */
static int check_output(harness_t *h, char *last_line, size_t cap)
{
    static uint8_t out[70000];
    size_t n = h_take_output(h, out, sizeof out), i;
    for (i = 0; i < n; i++) {
        if (out[i] != '\n') {
            if (line_len >= sizeof line - 1) { printf("reply line too long\n"); return 1; }
            line[line_len++] = (char)out[i];
            continue;
        }
        line[line_len] = 0;
        if (strncmp(line, "OK ", 3) && strncmp(line, "ERR checksum", 12) && strncmp(line, "ERR too-many ", 13)
            && strcmp(line, "BLANK") && strncmp(line, "ID " ADA_NAME " " ADA_VERSION " max=", 27)) {
            printf("unexpected reply line: '%s'\n", line);
            return 1;
        }
        if (!strcmp(line, "BLANK")) saw_blank = 1;          /* the last show blanked */
        else if (!strncmp(line, "OK ", 3)) saw_blank = 0;   /* the last show was a frame */
        if (last_line) { strncpy(last_line, line, cap - 1); last_line[cap - 1] = 0; }
        line_len = 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    long inputs = argc > 2 ? atol(argv[2]) : 100000;
    uint32_t max = argc > 3 ? (uint32_t)atol(argv[3]) : 64;
    static uint8_t buf[1 << 16], rgb[3 * 1024], shown[3 * 1024], good[3 * 1024];
    uint32_t now = 0xFFFF0000u; /* starts near the 32-bit wrap: it is crossed during the run */
    uint32_t stats[6], checked = 0;
    long k;
    char last[256];
    harness_t *h;
    rng = seed * 2654435761u + 88172645463325252ull;
    if (max == 0 || max > 1024) { printf("max must be 1..1024\n"); return 2; }
    h = h_new((uint16_t)max, 5000, now);
    if (!h) { printf("out of memory\n"); return 2; }
    for (k = 0; k < inputs; k++) {
        size_t len = 0, pos;
        uint32_t kind = below(6), i;
        if (kind == 0) {                       /* random bytes */
            len = below(300);
            for (i = 0; i < len; i++) buf[i] = (uint8_t)rnd();
        } else if (kind == 1 || kind == 2) {   /* a frame (maybe too long), then mutated */
            uint32_t n = 1 + below(max + 8);
            for (i = 0; i < 3 * n; i++) rgb[i] = (uint8_t)rnd();
            if (n > 1024) n = 1024;
            len = frame(buf, n, rgb);
            if (kind == 1) { uint32_t flips = 1 + below(4); while (flips--) buf[below((uint32_t)len)] ^= (uint8_t)(1u << below(8)); }
            else len = below((uint32_t)len);   /* truncated */
        } else if (kind == 3) {                /* headers with random counts and checksums, "Ad" runs */
            len = 0;
            while (len < 40) {
                buf[len++] = 'A'; buf[len++] = 'd'; buf[len++] = below(3) ? 'a' : (below(2) ? 'i' : 'A');
                buf[len++] = (uint8_t)rnd(); buf[len++] = (uint8_t)rnd(); buf[len++] = (uint8_t)rnd();
            }
        } else if (kind == 4) {                /* bytes inserted into a valid frame */
            uint32_t n = 1 + below(max);
            for (i = 0; i < 3 * n; i++) rgb[i] = (uint8_t)rnd();
            len = frame(buf, n, rgb);
            pos = below((uint32_t)len);
            memmove(buf + pos + 3, buf + pos, len - pos);
            buf[pos] = 'A'; buf[pos + 1] = (uint8_t)rnd(); buf[pos + 2] = (uint8_t)rnd();
            len += 3;
        } else {                               /* the clock jumps (maybe past the blank timeout) */
            now += below(2) ? below(200) : below(20000);
            h_set_millis(h, now);
            h_poll(h);
        }
        for (pos = 0; pos < len;) {            /* feed in random pieces, time creeping on */
            size_t piece = 1 + below(64);
            if (piece > len - pos) piece = len - pos;
            h_feed(h, buf + pos, piece);
            pos += piece;
            now += below(3);
            h_set_millis(h, now);
        }
        if (h_out_of_bounds(h)) { printf("input %ld: set_pixel index >= %u\n", k, max); return 1; }
        if (h_state(h) < 0 || h_state(h) > ADA_SKIP) { printf("input %ld: bad state %d\n", k, h_state(h)); return 1; }
        if (check_output(h, NULL, 0)) { printf("at input %ld\n", k); return 1; }
        if (saw_blank) {   /* the last reply line was BLANK: nothing may be lit */
            h_shown(h, shown);
            for (i = 0; i < 3 * max; i++) if (shown[i]) { printf("input %ld: lit pixel after BLANK\n", k); return 1; }
        }
        /* Resync: after a quiet gap, a valid frame must be shown exactly and acknowledged. */
        {
            uint32_t n = 1 + below(max), shows = h_shows(h), blanks;
            h_stats(h, stats);
            blanks = stats[4];
            now += ADA_BYTE_TIMEOUT_MS;
            h_set_millis(h, now);
            for (i = 0; i < 3 * n; i++) good[i] = (uint8_t)rnd();
            len = frame(buf, n, good);
            h_feed(h, buf, len);
            last[0] = 0;
            if (check_output(h, last, sizeof last)) { printf("at check %ld\n", k); return 1; }
            h_shown(h, shown);
            h_stats(h, stats);
            /* one show for the frame, plus one if the gap also ran out the blank timeout */
            if (h_shows(h) != shows + 1u + (stats[4] - blanks)) { printf("input %ld: the check frame was not shown once\n", k); return 1; }
            if (memcmp(shown, good, 3 * n)) { printf("input %ld: shown pixels differ from the frame\n", k); return 1; }
            for (i = 3 * n; i < 3 * max; i++) if (shown[i]) { printf("input %ld: pixel %u beyond the frame lit\n", k, i / 3); return 1; }
            { char want[32]; snprintf(want, sizeof want, "OK %u", n);
              if (strcmp(last, want)) { printf("input %ld: last reply '%s', wanted '%s'\n", k, last, want); return 1; } }
            checked++;
        }
    }
    h_stats(h, stats);
    printf("inputs=%ld checked=%u frames=%u bad_checksum=%u too_many=%u abandoned=%u blanks=%u identifies=%u\n",
           inputs, checked, stats[0], stats[1], stats[2], stats[3], stats[4], stats[5]);
    h_free(h);
    return 0;
}
