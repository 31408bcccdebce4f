"""``assistant print kit --game G`` writes each game's kit through the real command line."""

import pytest

from assistant.cli import main


@pytest.mark.parametrize("game", ["discovery-island", "scout-pennant"])
def test_print_kit_writes_a_pdf_for_each_game(tmp_path, capsys, game):
    assert main(["print", "kit", "--game", game, "-o", str(tmp_path / "kit"), "--dpi", "60"]) == 0
    pdf = tmp_path / "kit.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    assert "100 mm" in capsys.readouterr().out


@pytest.mark.parametrize("game", ["discovery-island", "scout-pennant"])
def test_print_kit_where_a_file_blocks_the_folder_says_so(tmp_path, capsys, game):
    (tmp_path / "blocker").write_text("a file, not a folder")
    status = main(["print", "kit", "--game", game, "-o", str(tmp_path / "blocker" / "kit"), "--dpi", "60"])
    assert status == 2
    assert "cannot write" in capsys.readouterr().err


def test_print_kit_refuses_a_game_without_a_kit(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["print", "kit", "--game", "forbidden-desert"])
    assert exc.value.code == 2


@pytest.mark.parametrize("dpi", ["0", "-10", "many"])
def test_print_kit_refuses_a_bad_resolution(capsys, dpi):
    with pytest.raises(SystemExit) as exc:
        main(["print", "kit", "--game", "discovery-island", "--dpi", dpi])
    assert exc.value.code == 2 and "dpi" in capsys.readouterr().err
