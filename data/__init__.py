"""The games' shipped data, installed with the code as the package ``rapanui_data``.

It holds the boards and cards the engines and board images load (``giants_board.json``,
``giganten_data.json``, ``makemake_board.json``), the fonts the images are drawn with and their
licences (``fonts/``), and the translation catalogues (``i18n/<locale>/*.json``). Read it with
``importlib.resources.files("rapanui_data")``, never by a path into the source tree. The games
database is not part of it.
"""
