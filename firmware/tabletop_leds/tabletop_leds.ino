// tabletop_leds.ino - the tabletop assistant's LED board: a WS2812B strip fed Adalight frames.
//
// All protocol logic is in adalight_core.c (shared with the host tests); this file is only the
// hardware layer: FastLED for the strip, Serial for the host, millis() for time.
// Build: copy ../adalight_core.c and ../adalight_core.h next to this file (see ../README.md),
// set NUM_LEDS / DATA_PIN below, then compile and upload with the Arduino IDE or arduino-cli.

#include <FastLED.h>
#include "adalight_core.h"

#define NUM_LEDS 64            // >= the led_count of your layout file (26 / 63 / 61 for the bundled mats)
#define DATA_PIN 6             // to DIN through a 330-470 ohm resistor
#define BAUD 115200
#define BLANK_AFTER_MS 5000    // the host resends at least once a second
#define MAX_MILLIAMPS 2000     // FastLED's own limiter: a second guard below your 5 V supply rating

static CRGB leds[NUM_LEDS];
static ada_core_t core;

static void hw_set_pixel(void *ctx, uint16_t i, uint8_t r, uint8_t g, uint8_t b) {
  (void)ctx;
  if (i < NUM_LEDS) leds[i] = CRGB(r, g, b);
}

static void hw_show(void *ctx) { (void)ctx; FastLED.show(); }

static void hw_write(void *ctx, const uint8_t *data, size_t len) { (void)ctx; Serial.write(data, len); }

static uint32_t hw_millis(void *ctx) { (void)ctx; return millis(); }

static const ada_hw_t hw = { hw_set_pixel, hw_show, hw_write, hw_millis, 0 };

void setup() {
  Serial.begin(BAUD);
  FastLED.addLeds<WS2812B, DATA_PIN, GRB>(leds, NUM_LEDS);
  FastLED.setMaxPowerInVoltsAndMilliamps(5, MAX_MILLIAMPS);
  ada_init(&core, &hw, NUM_LEDS, BLANK_AFTER_MS);   // blanks the strip and sends the ID line
}

void loop() {
  uint8_t buf[64];
  int n = Serial.available();
  if (n > 0) {
    if (n > (int)sizeof buf) n = sizeof buf;
    n = Serial.readBytes(buf, n);
    ada_feed(&core, buf, (size_t)n);
  }
  ada_poll(&core);
}
