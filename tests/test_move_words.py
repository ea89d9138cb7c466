"""Moves in the player's language: every legal move of every game has words in every locale.

Random games (random and greedy players, several seat counts and options) are walked and every
legal action of every position they pass through is put into words in every locale: each text
comes from the locale's own ``move.*`` keys (no English fallback, no key echoed), leaves no
``{placeholder}`` and fits Discord's limits as a button label and as an autocomplete choice.
The buttons and the private prompt show those words; the value sent stays the notation.
"""

from __future__ import annotations

import json
import random
import re
import string
from collections.abc import Callable, Iterator
from functools import cache
from types import SimpleNamespace
from typing import Any

import pytest

from bot.constants import MAX_LABEL
from bot.exts.play import Play, matches
from bot.games import MAX_CHOICE_NAME, Button, Select, _ui, choice_name, game_ui
from bot.games.giants import _moves as giants_moves
from bot.games.giganten import _moves as giganten_moves
from bot.games.makemake import _moves as makemake_moves
from bot.table import private
from render import i18n
from render.i18n import I18N_DIR, LANGUAGES, plural_category
from rules.ai import choose
from rules.core import CHANCE
from rules.registry import GAME_NAMES, game_module

MOVES = "moves.json"
MODULES = {"giants": giants_moves, "giganten": giganten_moves, "makemake": makemake_moves}
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "giants": [{}, {"quick": True, "running_score": True, "chief_split": False}],
    "giganten": [{}, {"unlimited_chips": True}],
    "makemake": [{}, {"chief_alone": True}],
}
GAMES_PER_SETUP = 3
MAX_STEPS = 3000
RARE = {
    "makemake": ["moai E1", "manu S03", "manu S03 S07", "place C5 0 chief", "place B2 21"],
    "giants": ["move moai4 K8 favour=blue", "move moai3 mark", "move hat1 crown tahai",
               "move moai17 erect runga-vae", "move moai2", "endround mark=hat2",
               "endround mark=moai1,moai2 recall=moai3", "bid 0m", "place worker K8 1logs",
               "place sorcerer K8 2logs", "sorcerer recruit 1logs", "chief reserve oroi K8"],
    "giganten": ["pay 2", "pay 1 2 2", "sell 0", "sell 1", "sell 5", "price jet -1",
                 "produce D3=hudson:grey H9=drop", "produce D3=jet:black", "loco 21"],
}
"""Forms random games seldom reach (a Moai ceremony, a favour, an empty path, big counts)."""
SIMPLIFIED = next(lang for lang in LANGUAGES if lang.startswith("zh") and lang != "zh-TW")
"""Simplified Chinese, whatever its catalogue folder is called."""

LABEL = re.compile(r"^[A-Z]{1,2}[0-9]{1,3}$")
"""A board label (a hex, a space), shown as it is typed even where the notation has none."""


# --- the legal actions of many random positions ---------------------------------------------

def walk(game: str, options: dict[str, Any], seats: int, seed: int,
         level: str) -> Iterator[str]:
    """Every legal action of every position of one game played to its end."""
    module = game_module(game)
    state = module.new(list(module.COLOURS[:seats]), options, seed)
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        pending = module.pending(state).seats
        if not pending:
            return
        if pending == (CHANCE,):
            state, _ = module.apply(state, CHANCE, module.chance(state, rng))
            continue
        for seat in pending:
            yield from (str(a) for a in module.legal(state, seat))
        seat = pending[0]
        action = choose(module, state, seat, level if rng.random() < 0.8 else "random", rng)
        state, _ = module.apply(state, seat, action)


@cache
def legal_moves(game: str) -> tuple[str, ...]:
    """Every distinct legal action met in random and greedy games of ``game`` (plus the rare
    forms), in the order first met."""
    module = game_module(game)
    found: dict[str, None] = {}
    for n, options in enumerate(OPTIONS[game]):
        for seats in range(module.MIN_SEATS, module.MAX_SEATS + 1):
            for k in range(GAMES_PER_SETUP):
                level = "greedy" if k == 0 else "random"
                found.update(dict.fromkeys(walk(game, options, seats, 100 * n + 10 * seats + k,
                                                level)))
    found.update(dict.fromkeys(RARE[game]))
    return tuple(found)


class Recorder:
    """Stands in for ``t`` inside a game's move module: records the keys it is asked for and
    whether the locale has each one itself."""

    def __init__(self, t: Callable[..., str]) -> None:
        self.t = t
        self.keys: set[str] = set()
        self.missing: set[tuple[str, str]] = set()

    def __call__(self, key: str, lang: str = "en", /, **params: Any) -> str:
        self.keys.add(key)
        if key.startswith("move.") and key not in i18n.catalogue(lang):
            self.missing.add((lang, key))
        return self.t(key, lang, **params)


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Recorder:
    found = Recorder(i18n.t)
    for module in (*MODULES.values(), _ui):
        monkeypatch.setattr(module, "t", found)
    return found


def allowed_latin(game: str, notation: str, lang: str) -> set[str]:
    """What may stay in Latin letters in a non-Latin text: the notation's own tokens (hexes,
    items, ahus, cards, companies), the companies' and colours' names, the game's proper
    names."""
    tokens = set(re.split(r"[\s=:,+]+", notation.lower()))
    names = {i18n.t(f"bot.giganten.company.{c}", lang).lower() for c in ("hudson", "jet",
                                                                        "standard")}
    colours = {i18n.t(f"bot.colour.{c}", lang).lower() for c in game_module(game).COLOURS}
    return tokens | names | colours | {"tangata", "manu", "make"}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_every_legal_move_has_words_in_every_locale(game: str, recorder: Recorder) -> None:
    ui = game_ui(game)
    moves = legal_moves(game)
    assert len(moves) > 100
    for lang in LANGUAGES:
        for notation in moves:
            words = ui.move_words(notation, lang)
            assert words.strip() and "{" not in words and "}" not in words, (lang, notation)
            assert not re.search(r"\b(move|bot|term)\.[a-z_]+\.", words), (lang, notation, words)
            if lang != "en":
                assert words != notation, (lang, notation)
            if lang in ("ru", SIMPLIFIED, "zh-TW"):
                latin = {w.lower() for w in re.findall(r"[A-Za-z][A-Za-z0-9'-]*", words)
                         if not LABEL.match(w)}
                assert latin <= allowed_latin(game, notation, lang), (lang, notation, words)
            assert len(ui.move_label(notation, lang)) <= MAX_LABEL
            assert len(choice_name(words, notation)) <= MAX_CHOICE_NAME
    assert recorder.missing == set()


def test_every_move_key_is_used(recorder: Recorder) -> None:
    """No dead key: every ``move.*`` key of the catalogue words some move."""
    for game in GAME_NAMES:
        for notation in legal_moves(game):
            game_ui(game).move_words(notation, "en")
    english = json.loads((I18N_DIR / "en" / MOVES).read_text(encoding="utf-8"))
    assert set(english) - recorder.keys == set()


def test_a_chance_line_or_nonsense_is_shown_as_typed() -> None:
    assert game_ui("giganten").move_words("tiles A1=2", "ru") == "tiles A1=2"
    assert game_ui("giants").move_words("dice 1 2 3", "es") == "dice 1 2 3"
    assert game_ui("makemake").move_words("fly away", SIMPLIFIED) == "fly away"
    assert game_ui("unknown").move_words("pass", "ru") == "pass"


# --- the catalogue ---------------------------------------------------------------------------

def load(lang: str) -> dict[str, Any]:
    return json.loads((I18N_DIR / lang / MOVES).read_text(encoding="utf-8"))


def forms(template: str | dict[str, str]) -> list[str]:
    if isinstance(template, str):
        return [template]
    return [form for category, form in template.items() if category != "#"]


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_locale_has_the_move_keys_with_their_placeholders(lang: str) -> None:
    english, here = load("en"), load(lang)
    assert set(here) == set(english)
    for key, template in here.items():
        want = set().union(*(fields(f) for f in forms(english[key])))
        for form in forms(template):
            assert fields(form) == want, (lang, key, form)
        assert isinstance(template, dict) == isinstance(english[key], dict), (lang, key)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_count_has_every_plural_form_its_locale_needs(lang: str) -> None:
    needed = {plural_category(n, lang) for n in range(1001)} | {"other"}
    for key, template in load(lang).items():
        if isinstance(template, dict):
            assert needed <= set(template), (lang, key, needed - set(template))
            assert template["#"] in fields(template["other"]), (lang, key)


@pytest.mark.parametrize(("game", "notation", "lang", "words"), [
    ("giants", "place worker K8", "es", "colocar un peón en K8"),
    ("giants", "place worker K8", "ru", "поставить рабочего на K8"),
    ("giants", "place sorcerer G1 2logs", "ru", "поставить колдуна на G1 с 2 брёвнами"),
    ("giants", "place worker G1 1logs", "ru", "поставить рабочего на G1 с 1 бревном"),
    ("giants", "bid 5m 2w chief", "ru", "сделать ставку: 5 маркеров, 2 рабочих, вождь"),
    ("giants", "bid 1m 1w", "ru", "сделать ставку: 1 маркер, 1 рабочий"),
    ("giants", "bid 2m", "ru", "сделать ставку: 2 маркера"),
    ("giants", "take 2", "es", "tomar un moái de tamaño 2"),
    ("giants", "place worker K8", "zh-TW", "在K8放置一個工人"),
    ("giants", "move moai4 L7 K8 erect oroi", "en",
     "move moai4 via L7 to K8, erect it on ahu oroi"),
    ("makemake", "place B2 1", "ru", "поставить 1 жетон на B2"),
    ("makemake", "place B2 3", "ru", "поставить 3 жетона на B2"),
    ("makemake", "place B2 5", "ru", "поставить 5 жетонов на B2"),
    ("makemake", "place B2 21", "ru", "поставить 21 жетон на B2"),
    ("makemake", "place B2 1 chief", "es", "colocar 1 ficha con el jefe en B2"),
    ("makemake", "place B2 3", SIMPLIFIED, "在B2放置3个统治标记"),
    ("giganten", "sell 1", "ru", "продать 1 нефтяную фишку"),
    ("giganten", "sell 2", "ru", "продать 2 нефтяные фишки"),
    ("giganten", "sell 0", "ru", "продать 0 нефтяных фишек"),
    ("giganten", "loco 5", "ru", "продвинуть локомотив на 5 позиций"),
    ("giganten", "build D3", "zh-TW", "在D3建造油井"),
    ("giganten", "price hudson +2", "es", "subir el precio de Hudson 2 pasos"),
])
def test_words_read_as_written(game: str, notation: str, lang: str, words: str) -> None:
    assert game_ui(game).move_words(notation, lang) == words


def test_spanish_takes_and_never_coge() -> None:
    spanish = " ".join(f for template in load("es").values() for f in forms(template))
    assert "tomar" in spanish and not re.search(r"\bcog", spanish)


# --- where the words are shown ---------------------------------------------------------------

def test_a_choice_name_keeps_the_notation_whole() -> None:
    assert choice_name("colocar un peón en K8", "place worker K8") == \
        "colocar un peón en K8 · place worker K8"
    assert choice_name("pass", "pass") == "pass"
    long = choice_name("x" * 200, "move moai4 K6 L6 M5 N5 O5 P5 mark")
    assert len(long) == MAX_CHOICE_NAME and long.endswith(" · move moai4 K6 L6 M5 N5 O5 P5 mark")
    assert len(choice_name("y" * 200, "z" * 90)) == MAX_CHOICE_NAME


def test_table_buttons_show_words_and_send_notation() -> None:
    buttons = game_ui("makemake").components("moai", {}, "red", ["moai E1", "moai B2"], "es")
    assert [(b.label, b.arg) for b in buttons if isinstance(b, Button)] == [
        ("alzar el Moái en E1", "moai E1"), ("alzar el Moái en B2", "moai B2")]
    giants = game_ui("giants").components("place", {}, "red", ["place worker K8", "rongo",
                                                                "pass"], "ru")
    assert [(b.label, b.arg) for b in giants if isinstance(b, Button)] == [
        ("обменять маркер на половинку ронго", "rongo"), ("пасовать", "pass")]


def test_private_prompt_shows_words_in_the_reader_s_language(
        monkeypatch: pytest.MonkeyPatch) -> None:
    legal = ["endround", "endround recall=moai1", "endround mark=moai2"]
    session = SimpleNamespace(
        row=SimpleNamespace(game="giants", home_id=5), id=7, kind=lambda: "endround",
        view=lambda colour: {"round": 2}, legal_lines=lambda colour: legal,
        turns=lambda colour: 3)
    seat = SimpleNamespace(colour="red")
    shown = private.prompt(session, seat, "zh-TW")  # type: ignore[arg-type]
    assert [(b.op, b.label) for b in shown.components if isinstance(b, Button)] == [
        ("a0", "所有部落標記維持不動"), ("a1", "從moai1收回部落標記"),
        ("a2", "在moai2上放部落標記")]
    many = [f"endround recall=moai{i}" for i in range(1, 9)]
    session.legal_lines = lambda colour: many
    [select] = private.prompt(session, seat, "es").components  # type: ignore[arg-type]
    assert isinstance(select, Select)
    assert select.choices[0].label == "recuperar el marcador de moai1"
    assert [c.value for c in select.choices] == [str(i) for i in range(8)]


# --- /play autocomplete ----------------------------------------------------------------------

def test_autocomplete_matches_the_notation_and_the_words() -> None:
    actions = ["place worker K8", "place chief K8", "rongo", "pass"]
    ui = game_ui("giants")
    worded = {a: ui.move_words(a, "es") for a in actions}
    assert matches("place w", actions, worded) == ["place worker K8"]
    assert matches("peón", actions, worded) == ["place worker K8"]
    assert matches("cambiar marcador", actions, worded) == ["rongo"]
    chinese = {a: ui.move_words(a, SIMPLIFIED) for a in actions}
    assert matches("头领", actions, chinese) == ["place chief K8"]


async def test_autocomplete_names_moves_in_the_user_s_language() -> None:
    actions = ["place worker K8", "pass"]
    session = SimpleNamespace(id=7, seq=4, row=SimpleNamespace(game="giants", language="en"))
    games = SimpleNamespace(legal_texts=lambda channel, user: actions,
                            in_channel=lambda channel: session, stale=set())
    cog = Play(SimpleNamespace(games=games))  # type: ignore[arg-type]
    interaction = SimpleNamespace(channel_id=1, user=SimpleNamespace(id=2), locale="ru")
    choices = await cog.notation_choices(interaction, "")  # type: ignore[arg-type]
    assert [(c.name, c.value) for c in choices] == [
        ("поставить рабочего на K8 · place worker K8", "place worker K8 @4"),
        ("пасовать · pass", "pass @4")]
