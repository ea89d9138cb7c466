"""Pillow rendering: a game view -> PNG bytes. Knows nothing of Discord."""
