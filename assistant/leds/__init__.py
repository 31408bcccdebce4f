"""The optional LED board: light mat cells from the host over a serial port.

* :mod:`.adalight` and :mod:`.wled` encode frames (bytes) for the two backends;
* :mod:`.layout` maps board cells to LED indices and caps brightness to a power budget;
* :mod:`.driver` holds :class:`~.driver.LedBoard`, which opens the port, animates, resends and
  reconnects in a background thread;
* :mod:`.cli` adds ``assistant leds test``.

Nothing here opens a port at import time.
"""
