"""The command line's commands, one module each (``run``, ``sync``, ``adopt-application``,
``backup`` and ``migrate-store``, ``health``, ``check``) and what they share
(:mod:`bot.cli.common`); :mod:`bot.__main__` parses the command line and hands over to them.
"""
