"""Sealed Nim, a toy fourth game that lives only under ``tests/``: its rules (:mod:`.rules`),
pictures (:mod:`.render`), Discord presentation (:mod:`.ui`) and words (``<locale>/nim.json``)
are its own, and :data:`ENTRY` is all the registry needs to host it."""

from rules.registry import GameEntry

ENTRY = GameEntry("nim", rules="tests.nim.rules", ai="tests.nim.rules", strong=None,
                  renderer="tests.nim.render", presentation="tests.nim.ui",
                  catalogues="tests.nim")
