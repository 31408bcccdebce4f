# Two entry points, both self-installing: `make demo` (the main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# The main job on the bundled default: the bundled recordings through the whole pipeline
# (frames -> vision -> tracker -> rules -> server API), then the bundled Forbidden Desert record.
demo: $(STAMP)
	$(BIN)/assistant demo --headless
	$(BIN)/assistant check examples/forbidden-desert/sample-game.jsonl

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
