/*
 * adalight_core.h - portable Adalight receiver for the tabletop LED board.
 *
 * The protocol logic of the firmware, free of any Arduino header, so that the same file is
 * compiled into the sketch (firmware/tabletop_leds/) and, with the system C compiler, into the
 * host tests (tests/leds/).  The hardware is reached only through the small ada_hw_t table.
 *
 * Protocol (host -> board):
 *   frame     'A' 'd' 'a' hi lo chk  then 3 * (N) bytes R G B, where N - 1 = (hi << 8) | lo
 *             and chk = hi ^ lo ^ 0x55 (the stock Adalight header).
 *   identify  'A' 'd' 'i'  (three bytes; never a valid frame header because the third byte differs)
 * Board -> host, one ASCII line each, ending in '\n':
 *   "ID <name> <version> max=<max_leds>"   on start-up and in answer to identify
 *   "OK <N>"                               after a frame of N LEDs has been shown
 *   "ERR checksum"                         a header whose checksum is wrong (frame ignored)
 *   "ERR too-many <N>"                     a frame of more LEDs than max_leds (payload skipped)
 *   "BLANK"                                the LEDs were switched off after timeout_ms without a frame
 */
#ifndef ADALIGHT_CORE_H
#define ADALIGHT_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ADA_NAME "tabletop-leds"
#define ADA_VERSION "1.0.0"
/* A frame whose bytes stop for this long is abandoned and the receiver hunts for a header. */
#define ADA_BYTE_TIMEOUT_MS 100u

/* The hardware layer: four functions and an opaque context handed back to each of them. */
typedef struct ada_hw {
    void (*set_pixel)(void *ctx, uint16_t index, uint8_t r, uint8_t g, uint8_t b); /* index < max_leds */
    void (*show)(void *ctx);                                      /* latch the pixels onto the strip */
    void (*write_bytes)(void *ctx, const uint8_t *data, size_t len); /* to the host */
    uint32_t (*millis)(void *ctx);                                /* ms since start, may wrap */
    void *ctx;
} ada_hw_t;

typedef enum {
    ADA_HUNT_A = 0, /* waiting for 'A' */
    ADA_HUNT_D,     /* got 'A' */
    ADA_HUNT_A2,    /* got "Ad": 'a' = frame, 'i' = identify */
    ADA_HI, ADA_LO, ADA_CHK,
    ADA_PAYLOAD,    /* reading RGB triples */
    ADA_SKIP        /* discarding the payload of a frame too long for us */
} ada_state_t;

typedef struct ada_stats {
    uint32_t frames;       /* frames shown */
    uint32_t bad_checksum; /* headers with a wrong checksum */
    uint32_t too_many;     /* headers announcing more than max_leds */
    uint32_t abandoned;    /* frames cut short by ADA_BYTE_TIMEOUT_MS */
    uint32_t blanks;       /* timeout blankings */
    uint32_t identifies;   /* identify requests answered */
} ada_stats_t;

typedef struct ada_core {
    const ada_hw_t *hw;
    uint16_t max_leds;
    uint32_t timeout_ms;   /* blank after this long without a frame; 0 = never */
    ada_state_t state;
    uint8_t hi, lo;
    uint16_t count;        /* LEDs in the frame being read */
    uint32_t pos;          /* bytes of payload read (or left to skip in ADA_SKIP) */
    uint8_t rgb[3];
    uint16_t high_water;   /* pixels [0, high_water) may be non-black in the buffer */
    uint8_t lit;           /* something non-blanked is shown */
    uint32_t last_frame_ms;
    uint32_t last_byte_ms;
    ada_stats_t stats;
} ada_core_t;

/* Set up the receiver: blank and show the strip, then send the "ID ..." greeting line.
   max_leds: LEDs the strip has (>= 1); timeout_ms: blank after this long without frames. */
void ada_init(ada_core_t *core, const ada_hw_t *hw, uint16_t max_leds, uint32_t timeout_ms);
/* Feed bytes received from the host (any split; may be called with len 0). */
void ada_feed(ada_core_t *core, const uint8_t *data, size_t len);
/* Call often (every loop): abandons a stalled frame and blanks the strip after timeout_ms. */
void ada_poll(ada_core_t *core);

#ifdef __cplusplus
}
#endif
#endif
