"""Tabletop assistant: a camera-watched referee for physical board games.

Where things live:

- ``assistant.games``: the rules engines, one plug-in per game behind ``games.base.Game``
  (a move becomes a new state or a refusal; a state becomes a view).
- ``assistant.records``: the shared ``tabletop-record/1`` format (reading and writing).
- ``assistant.check``: replaying a record and judging every event.
- ``assistant.cli``: the ``assistant`` command.
"""

__version__ = "0.1.0"
