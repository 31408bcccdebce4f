"""Vision: where a camera frame becomes an observation of the board.

Coordinate note, used everywhere in this package:

- image pixels are ``(x, y)`` as in OpenCV, x to the right, y down, origin at the top-left
  pixel's centre; arrays are indexed ``[row, col]`` = ``[y, x]`` as in numpy;
- the mat is measured in millimetres ``(x_mm, y_mm)`` from its top-left corner, x right, y down
  (the printed sheet seen from above); a rectified board image is the mat scaled by
  ``px_per_mm``, so mat point ``(x, y)`` is rectified pixel ``(x * px_per_mm, y * px_per_mm)``;
- cells use each game's own keys: ``(row, col)`` for Forbidden Desert, ``(col, row)`` odd-q
  offset for Discovery Island, axial ``(q, r)`` for Scout Pennant.

Frames are ``(H, W, 3) uint8`` BGR unless a docstring says otherwise.
"""
