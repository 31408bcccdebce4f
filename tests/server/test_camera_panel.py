"""The camera panel: a source run through the board watcher, served as JPEG on /api/camera.jpg."""

from __future__ import annotations


import cv2
import numpy as np

from assistant.games.scout_pennant.simulate import random_game
from assistant.referee.session import Session
from assistant.server.app import create_app
from assistant.server.camera import CameraPanel
from assistant.vision.mats import mat_layout
from assistant.vision.render.camera import look_at_mat
from assistant.vision.render.renderer import Renderer
from assistant.vision.render.scene import Scene
from assistant.vision.sources import FolderSource


def test_the_panel_shows_the_rectified_mat_then_says_the_source_stopped(tmp_path):
    layout = mat_layout("scout-pennant")
    cam = look_at_mat(layout.outline_mm(), (1280, 720), 60.0, 20.0, 0.0, 0.0)
    frame = Renderer(cam).render(Scene(layout), seed=1).image
    (tmp_path / "frames").mkdir()
    for k in range(8):
        cv2.imwrite(str(tmp_path / "frames" / f"{k:03d}.png"), frame)
    cv2.imwrite(str(tmp_path / "frames" / "008.png"), np.zeros((50, 50, 3), np.uint8))
    panel = CameraPanel(FolderSource(tmp_path / "frames"), "scout-pennant")
    game = random_game(3)
    client = create_app(Session.start("scout-pennant", game.setup, game.rulings, tmp_path / "g.jsonl"),
                        camera=panel.jpeg).test_client()
    assert client.get("/api/camera.jpg").status_code == 404           # no frame yet: said, not a 500
    panel.start()
    panel.thread.join(30)
    assert panel.status == "the camera source stopped"
    r = client.get("/api/camera.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    image = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and image.shape[0] > 50                 # the rectified mat, not the last tiny frame
