"""Pure game engines: no I/O, no asyncio, no Discord, no Pillow. Deterministic."""
