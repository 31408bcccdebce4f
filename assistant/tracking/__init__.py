"""Tracking: where an observation of the table becomes a checked move of the game.

:mod:`.base` holds the game-independent tracker (search of legal explanations, commit, ask,
illegal); each game supplies a :class:`~.base.TableModel` in its own module.
"""
