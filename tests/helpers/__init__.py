"""What the tests share: fakes (a stub Discord, the stores on both backends, a PostgreSQL
server), ways to play a game through the simulated Discord, and readers of pictures, words
and build files.

Nothing here is collected as a test, and no test module imports another: a test module
imports what it needs from here, and the fixtures come from the plugins that
``tests/conftest.py`` names, so a test only asks for them by name."""
