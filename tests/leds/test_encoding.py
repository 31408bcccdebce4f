"""Frame encoding (Adalight, WLED), layout files, and the driver over loop:// and socket://."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from assistant.leds import adalight, wled
from assistant.leds.driver import LedBoard, find_port, parse_colour, render, BoardNotFound
from assistant.leds.layout import LayoutError, load_layout, parse_layout
from assistant.vision.mats import mat_layout


def test_adalight_header_for_25_leds():
    assert adalight.encode_frame([(1, 2, 3)] * 25)[:6] == bytes.fromhex("41 64 61 00 18 4D")
    assert adalight.header(256) == b"Ada\x00\xff" + bytes([0xFF ^ 0x55])
    assert adalight.header(257) == b"Ada\x01\x00" + bytes([0x01 ^ 0x55])


def test_adalight_round_trip_and_rejects():
    px = [(255, 0, 0), (0, 128, 7)]
    assert adalight.decode_frames(b"junk" + adalight.encode_frame(px) * 2 + b"Ada\x00") == [px, px]
    with pytest.raises(ValueError, match="1 to 65536"):
        adalight.encode_frame([])
    with pytest.raises(ValueError, match="pixel 1"):
        adalight.encode_frame([(0, 0, 0), (0, 256, 0)])


def test_wled_frame_is_one_json_line_with_every_led():
    line = wled.encode_frame([(255, 0, 0), (0, 0, 16)])
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    state = json.loads(line)
    assert state["on"] is True and state["seg"]["i"] == ["FF0000", "000010"]
    assert wled.decode_frame(line) == [(255, 0, 0), (0, 0, 16)]


@pytest.mark.parametrize("game", ["forbidden-desert", "discovery-island", "scout-pennant"])
def test_bundled_layouts_cover_every_mat_cell_once(game):
    layout = load_layout(game)
    mat_keys = {c.key for c in mat_layout(game).cells}
    extra = {"card"} if game == "forbidden-desert" else set()
    assert set(layout.cells) == mat_keys | extra
    leds = sorted(i for v in layout.cells.values() for i in v)
    assert leds == list(range(layout.led_count))          # every LED used once, no gaps
    assert layout.full_white_ma * layout.max_brightness <= layout.supply_ma + 1e-9


def test_serpentine_square_grid_and_hex_columns():
    fd = load_layout("forbidden-desert")
    assert [fd.cells[(0, c)][0] for c in range(5)] == [0, 1, 2, 3, 4]
    assert [fd.cells[(1, c)][0] for c in range(5)] == [9, 8, 7, 6, 5]     # row 1 runs back
    di = load_layout("discovery-island")
    assert di.cells[(0, 6)] == (6,) and di.cells[(1, 6)] == (7,) and di.cells[(1, 0)] == (13,)
    sp = load_layout("scout-pennant")
    assert sp.cells[(-4, 0)] == (0,) and sp.cells[(-4, 4)] == (4,) and sp.cells[(-3, 4)] == (5,)


def test_power_budget_caps_every_frame():
    layout = parse_layout({"grid": {"kind": "square", "rows": 10, "cols": 10},
                           "power": {"ma_per_led": 60, "supply_ma": 3000}}, "cap.toml")
    assert layout.max_brightness == pytest.approx(0.5)
    frame = render(layout, {k: ((255, 255, 255), "solid", 0.0) for k in layout.cells}, 0.0)
    drawn_ma = sum(sum(px) / (3 * 255) * layout.ma_per_led for px in frame)
    assert drawn_ma <= 3000 and frame[0] == (127, 127, 127)


def test_layout_file_toml_and_json(tmp_path):
    toml = tmp_path / "a.toml"
    toml.write_text('led_count = 4\n[cells]\n"0,0" = [0, 1]\nstart = 3\n[power]\nsupply_ma = 100\n')
    layout = load_layout(toml)
    assert layout.cells == {(0, 0): (0, 1), "start": (3,)} and layout.led_count == 4
    js = tmp_path / "b.json"
    js.write_text(json.dumps({"cells": {"-1,2": [0]}}))
    assert load_layout(js).cells == {(-1, 2): (0,)}


@pytest.mark.parametrize("text, message", [
    ('[grid]\nkind = "tri"\nrows = 2\ncols = 2\n', "field 'grid.kind' must be"),
    ('[grid]\nkind = "square"\nrows = 0\ncols = 2\n', "field 'grid.rows' must be an integer >= 1"),
    ('[cells]\na = [0]\nb = [0]\n', "maps LED 0 to both cell 'a' and cell 'b'"),
    ('led_count = 1\n[cells]\na = [3]\n', "field 'led_count' is 1 but the cells use LED index 3"),
    ('[cells]\na = [0]\n[power]\nbrightness = 2\n', "field 'power.brightness' must be between"),
    ('[cells]\n"1,x" = [0]\n', "field 'cells.1,x' has a bad key"),
    ('name = "x"\n', "maps no cells"),
    ('[cells\n', "not valid TOML"),
])
def test_malformed_layouts_name_file_and_field(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_missing_layout_file(tmp_path):
    with pytest.raises(LayoutError, match="cannot read the layout file"):
        load_layout(tmp_path / "none.toml")


def test_colours_and_discovery_errors():
    assert parse_colour("#ff8000") == (255, 128, 0) and parse_colour("green") == (0, 255, 0)
    with pytest.raises(ValueError, match="neither a known name"):
        parse_colour("mauve")
    with pytest.raises(BoardNotFound, match="no serial port with a USB id among 2341"):
        find_port([(0x2341, 0x0043)], ports=[])


def test_find_port_matches_vendor_and_product():
    from serial.tools.list_ports_common import ListPortInfo
    other, uno = ListPortInfo("/dev/ttyS0"), ListPortInfo("/dev/ttyACM0")
    uno.vid, uno.pid = 0x2341, 0x0043
    assert find_port([(0x2341, None)], ports=[other, uno]) == "/dev/ttyACM0"
    with pytest.raises(BoardNotFound):
        find_port([(0x2341, 0x0001)], ports=[other, uno])


def test_driver_on_loop_url_runs_without_a_reply():
    layout = load_layout("forbidden-desert")
    with LedBoard(layout, port="loop://", identify_timeout_s=0.1) as board:
        assert board.wait_until(lambda b: b.connected, 5)
        assert "no identify reply" in board.status and board.identity is None
        board.show({(0, 0): "red"})
        assert board.wait_until(lambda b: b.frames_sent >= 2, 5)


@pytest.mark.parametrize("backend", ["adalight", "wled"])
def test_driver_frames_over_socket_url(backend):
    """The bytes the driver sends, read on the far side of a socket:// port."""
    layout = load_layout("forbidden-desert")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    received = bytearray()
    got = threading.Event()

    def serve():
        conn, _ = server.accept()
        conn.settimeout(5)
        try:
            while not got.is_set():
                chunk = conn.recv(65536)
                if not chunk:
                    break
                received.extend(chunk)
                if backend == "adalight":
                    frames = adalight.decode_frames(bytes(received))
                    ok = any(f[12] != (0, 0, 0) for f in frames)
                else:
                    ok = any(b"00FF00" in line for line in bytes(received).split(b"\n"))
                if ok:
                    got.set()
        finally:
            conn.close()

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    with LedBoard(layout, port=f"socket://127.0.0.1:{port}", backend=backend, identify_timeout_s=0.1) as board:
        board.show({(2, 2): "green"})                 # the centre cell: LED 12 (row 2 runs forwards)
        assert got.wait(5), bytes(received[:200])
    server.close()
    if backend == "adalight":
        frame = [f for f in adalight.decode_frames(bytes(received)) if f[12] != (0, 0, 0)][0]
        assert len(frame) == 26 and frame[12] == (0, 255, 0) and frame.count((0, 0, 0)) == 25
    else:
        # the "v" version requests sent while waiting for a reply precede the first JSON line
        lines = [ln[ln.find(b"{"):] for ln in bytes(received).split(b"\n") if b"{" in ln]
        frame = wled.decode_frame([ln for ln in lines if b"00FF00" in ln][0])
        assert len(frame) == 26 and frame[12] == (0, 255, 0)
