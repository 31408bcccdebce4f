"""Scene renderer: synthetic camera frames of a table with a game mat and pieces, with the
ground truth of every frame, deterministic by seed (for tests, benchmarks and the demo).

Modules (coordinates as in :mod:`assistant.vision`; table mm = mat mm of an unbumped mat,
heights are ``z = -height``):

- :mod:`.camera` — pinhole + OpenCV distortion, :func:`~.camera.look_at_mat`, projection,
  the plane homography ``K [r1 r2 t]``, the distortion remap;
- :mod:`.scene` — flat and tall pieces on a mat, immutable :class:`~.scene.Scene`;
- :mod:`.texture` — the mat-plane texture (``draw_mat`` + flat pieces) and the table;
- :mod:`.tall` — pawns in 3D and their shadows; :mod:`.hands` — arms, motion blur, shadows;
- :mod:`.lighting` — ambient, lamps, glare, white balance; :mod:`.effects` — image effects;
- :mod:`.renderer` — :class:`~.renderer.Renderer` composing all of it per frame;
- :mod:`.truth` — ground truth; :mod:`.sequence` — scripted sequences; :mod:`.video` — files;
- :mod:`.art`, :mod:`.art_cards` — own procedural Forbidden Desert art; :mod:`.photos` — load
  component photos from a folder given at run time; :mod:`.desert` — Forbidden Desert setups.

>>> from assistant.vision.render import desert_setup, look_at_mat, Renderer, CLEAN
>>> scene = desert_setup(seed=1)
>>> cam = look_at_mat(scene.layout.outline_mm(), (320, 240), fov_deg=60.0, tilt_deg=20.0)
>>> Renderer(cam).render(scene, settings=CLEAN).image.shape
(240, 320, 3)
"""

from .art import ALL_LABELS, PAWN_COLOURS, art_image, tile_label
from .camera import WEBCAM_DISTORTION, Camera, look_at, look_at_mat, plane_pose, undistort_map
from .desert import ProceduralArt, desert_setup, excavate, move_pawn, set_sand
from .hands import Arm, ArmStyle
from .lighting import COOL_CEILING, DAYLIGHT, POINT_LIGHT, PRESETS, WARM_LAMP, Lamp, Lighting
from .photos import ComponentImages
from .renderer import CLEAN, CameraSettings, Renderer
from .scene import FlatPiece, Scene, TallPiece
from .sequence import Bump, Do, Frame, Hold, MoveCamera, Reach, Sequence, SetBoard, SetCamera, SetLight, Sweep
from .video import read_truth, read_video, write_sequence

__all__ = ["ALL_LABELS", "PAWN_COLOURS", "art_image", "tile_label", "WEBCAM_DISTORTION", "Camera", "look_at",
           "look_at_mat", "plane_pose", "undistort_map", "ProceduralArt", "desert_setup", "excavate", "move_pawn",
           "set_sand", "Arm", "ArmStyle", "COOL_CEILING", "DAYLIGHT", "POINT_LIGHT", "PRESETS", "WARM_LAMP", "Lamp",
           "Lighting", "ComponentImages", "CLEAN", "CameraSettings", "Renderer", "FlatPiece", "Scene", "TallPiece",
           "Bump", "Do", "Frame", "Hold", "MoveCamera", "Reach", "Sequence", "SetBoard", "SetCamera", "SetLight",
           "Sweep", "read_truth", "read_video", "write_sequence"]
