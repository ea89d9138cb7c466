"""The shape of bot/ (DESIGN.md "Hosting"): read every module with ``ast`` and check that the
imports between them form no cycle, that no extension imports another, that SQL lives only in
the store, that no function imports, that the layers point one way, that nothing but the app's
wiring and the gateway's notices calls into the outbox (the host announces every commit), that
only the one handler catches a refusal, that no module grows past :data:`MOST_LINES` lines, and
that bot/exts/ holds cogs only.

Imports inside functions count (they run). Imports under ``if TYPE_CHECKING:`` count for the
cycle check only: a circle of names is one even when only the type checker follows it (the
adapter never names the app's class), but they do not run, so the layers and the cogs'
separation are judged on what runs."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "bot"
STORE = "bot.host.store"
"""The store's package: every module in it is the store (and no other module is)."""

SQL = re.compile(
    r"\bSELECT\b[\s\S]+?\bFROM\b"
    r"|\bINSERT\s+(?:OR\s+\w+\s+)?INTO\b"
    r"|\bREPLACE\s+INTO\b"
    r"|\bUPDATE\s+\w+\s+SET\b"
    r"|\bDELETE\s+FROM\b"
    r"|\b(?:CREATE|ALTER|DROP)\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|VIEW|TRIGGER)\b"
    r"|\bPRAGMA\s+\w+")
"""SQL statements as the store writes them (upper-case keywords)."""

LAYERS = ("bot.exts", "bot.adapter", "bot.table", "bot.games", "bot.host")
"""Dependencies point one way: exts -> adapter -> table -> games -> host (DESIGN.md
"Hosting")."""
GROUP = "bot.exts._group"
"""The shared ``/game`` group: the one module of bot/exts/ that is not a cog."""
FOREIGN = {"bot.host": ("discord", "PIL", "render"), "bot.table": ("discord", "PIL"),
           "bot.games": ("discord",)}
"""Libraries a layer must not use: the host knows no Discord and no Pillow; the table and the
games are Discord-free."""

OUTBOX_CALLERS = {
    "bot.app": None,
    "bot.exts.watch": None,
    "bot.exts.timers": {"reconcile_all"},
}
"""Who may call into the outbox (None: any of its methods). The app builds it and subscribes
it to the host's announcements (``Host.listen``: the one seam after commit) and to the store's
notices of other processes' commits; the gateway's notices of what Discord deleted or changed
(a message, a thread, permissions) ask it to show a game again; the timers' tick has it
reconcile every game. Nothing else tells it of a commit: the host announces every one."""

REFUSAL_CATCHERS = {
    "bot.adapter.answer": "the one handler: it words every refusal (and lets the listing of "
                        "/game list skip a game gone since it was listed)",
    "bot.host._privacy": "forget-me's own use: the last human's seat cannot go to the AI "
                         "(step_down refuses it), so that game is closed instead; no user is "
                         "answered",
}
"""The modules that may catch a ``Refusal`` (alone or in a tuple), and why. Everywhere else a
command, a component, a modal or a typed DM raises it and the one handler words it."""

MOST_LINES = 500
"""The most lines a module of bot/ may have: past it, a module holds more than one concern."""


@dataclass
class Module:
    name: str
    path: Path
    package: bool
    tree: ast.Module
    imports: set[str] = field(default_factory=set)
    """Every imported name, absolute (``bot.host.store``, ``bot.games.Button``, ``discord``)."""
    nested: list[tuple[int, str]] = field(default_factory=list)
    """Imports inside a function: (line, what)."""
    typed: set[str] = field(default_factory=set)
    """Names imported under ``if TYPE_CHECKING:`` only (for the type checker)."""


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def type_checking_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under an ``if TYPE_CHECKING:`` (not its ``else``), wherever it is."""
    for child in ast.walk(node):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for inner in child.body:
                yield from ast.walk(inner)


def imported(module: Module, node: ast.AST) -> list[str]:
    """The absolute names an import node imports (none for any other node)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = absolute(module, node)
        return [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return []


def runtime_nodes(node: ast.AST, in_function: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    """Every node that runs, with whether it is inside a function; the body of an
    ``if TYPE_CHECKING:`` is left out (its ``else`` runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and is_type_checking(child.test):
            for other in child.orelse:
                yield other, in_function
                yield from runtime_nodes(other, in_function)
            continue
        yield child, in_function
        inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef
                                           | ast.Lambda)
        yield from runtime_nodes(child, inside)


def absolute(module: Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = module.name.split(".") if module.package else module.name.split(".")[:-1]
    base = parts[:len(parts) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def read_modules() -> dict[str, Module]:
    modules = {}
    for path in sorted(BOT.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if package else parts)
        module = Module(name, path, package, ast.parse(path.read_text(encoding="utf-8"),
                                                       filename=str(path)))
        for node, in_function in runtime_nodes(module.tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            names = imported(module, node)
            module.imports.update(names)
            if in_function:
                module.nested.append((node.lineno, ast.unparse(node)))
        for node in type_checking_nodes(module.tree):
            module.typed.update(imported(module, node))
        modules[name] = module
    return modules


MODULES = read_modules()


def edges(typed: bool = False) -> dict[str, set[str]]:
    """Module -> the bot modules it imports (``from bot.games import giants`` names the
    submodule; ``from bot.games import Button`` the package); ``typed``: with the imports
    under ``if TYPE_CHECKING:``."""
    return {name: {target for target in module.imports | (module.typed if typed else set())
                   if target in MODULES and target != name}
            for name, module in MODULES.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def package_and_its_own(component: list[str]) -> bool:
    """A package ``__init__`` importing its own submodules, which import it back: fine."""
    top = min(component, key=len)
    return top in MODULES and MODULES[top].package and all(
        within(member, top) for member in component)


def true_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles but a package's with its own submodules; a circle among the submodules of
    such a package (``bot``: every module) is still one, so the package is taken out and its
    component searched again."""
    found = []
    for component in cycles(graph):
        if not package_and_its_own(component):
            found.append(component)
            continue
        top = min(component, key=len)
        members = set(component) - {top}
        found += true_cycles({name: graph[name] & members for name in members})
    return found


def is_cog(name: str) -> bool:
    """An extension module (``bot.exts.lobby``); the shared ``/game`` group is none."""
    return name.startswith("bot.exts.") and name != GROUP


def reachable(graph: dict[str, set[str]], start: str) -> dict[str, str]:
    """Every module ``start`` imports, directly or not, with the module that imports it."""
    seen: dict[str, str] = {}
    todo = [start]
    while todo:
        node = todo.pop()
        for target in graph[node]:
            if target not in seen and target != start:
                seen[target] = node
                todo.append(target)
    return seen


def layer(name: str) -> int | None:
    return next((i for i, top in enumerate(LAYERS) if within(name, top)), None)


# --- the checks --------------------------------------------------------------------------------

def test_every_module_of_bot_is_read() -> None:
    assert {"bot", "bot.app", "bot.host.store", "bot.host.sessions", "bot.table",
            "bot.games", "bot.exts.lobby", "bot.adapter.outbox"} <= set(MODULES)
    assert len(MODULES) == len(list(BOT.rglob("*.py")))
    assert edges()["bot.adapter.outbox"] >= {"bot.table", "bot.host.store",
                                             "bot.adapter._outbox_dms"}
    assert edges()["bot.adapter._outbox_live"] >= {"bot.table", "bot.host.store",
                                                   "bot.adapter.items"}
    assert "bot.app" in edges(typed=True)["bot.exts.lobby"], "TYPE_CHECKING imports are read"
    assert "bot.app" not in edges()["bot.exts.lobby"], "... and kept apart"


def test_the_imports_between_bot_modules_have_no_cycle() -> None:
    """No circle, not even one only the type checker follows."""
    found = true_cycles(edges(typed=True))
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_adapter_never_names_the_app() -> None:
    """The app builds the adapter (outbox, components) and hands it what it needs
    (:class:`bot.adapter.port.App`): the adapter imports neither the app nor a cog."""
    graph = edges(typed=True)
    found = sorted(f"{name} -> {target}" for name in graph if within(name, "bot.adapter")
                   for target in graph[name]
                   if within(target, "bot.app") or within(target, "bot.exts"))
    assert found == [], f"the adapter reaches up: {found}"


def test_bot_exts_holds_cogs_only() -> None:
    """Every module of bot/exts/ is an extension (it has a ``setup``), but the shared group."""
    found = sorted(name for name, module in MODULES.items()
                   if within(name, "bot.exts") and name not in ("bot.exts", GROUP)
                   and not any(isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)
                               and node.name == "setup" for node in module.tree.body))
    assert found == [], f"modules of bot/exts/ that are no cog (move them below): {found}"
    assert is_cog("bot.exts.lobby") and not is_cog(GROUP) and not is_cog("bot.adapter.items")


def test_no_extension_imports_another() -> None:
    graph = edges()
    direct = sorted(f"{name} -> {target}" for name in graph if is_cog(name)
                    for target in graph[name] if is_cog(target))
    assert direct == [], f"extensions import each other: {direct}"
    through = sorted(f"{name} -> {via} -> {target}" for name in graph if is_cog(name)
                     for target, via in reachable(graph, name).items()
                     if is_cog(target) and via != name)
    assert through == [], f"extensions reach each other through shared modules: {through}"


def has_sql(module: Module) -> bool:
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str)
               and SQL.search(node.value) for node in ast.walk(module.tree))


def test_sql_only_in_the_store() -> None:
    found = sorted(f"{name}:{node.lineno}: {SQL.search(node.value)[0]!r}"  # type: ignore[index]
                   for name, module in MODULES.items() if not within(name, STORE)
                   for node in ast.walk(module.tree)
                   if isinstance(node, ast.Constant) and isinstance(node.value, str)
                   and SQL.search(node.value))
    assert found == [], f"SQL outside {STORE}: {found}"
    assert MODULES[STORE].package, "the store is a package"
    backends = [f"{STORE}._sqlite_store", f"{STORE}._postgres_store",
                f"{STORE}._sqlite_store_schema", f"{STORE}._postgres_store_schema"]
    assert all(has_sql(MODULES[name]) for name in backends), \
        "the pattern finds the store's own SQL, in each backend"


def test_the_store_is_its_package_and_nothing_else() -> None:
    assert within(f"{STORE}._postgres", STORE) and within(STORE, STORE)
    assert not within(f"{STORE}_postgres", STORE) and not within("bot.host.sessions", STORE)


def test_no_function_level_imports() -> None:
    found = [f"{module.path.relative_to(ROOT)}:{line}: {what}"
             for module in MODULES.values() for line, what in module.nested]
    assert found == [], "imports inside functions (a cycle dodged?): " + "; ".join(found)


def test_the_layers_point_one_way() -> None:
    graph = edges()
    upward = sorted(f"{name} -> {target}" for name, targets in graph.items()
                    for target in targets
                    if (low := layer(name)) is not None and (high := layer(target)) is not None
                    and high < low)
    assert upward == [], f"imports against exts -> table -> games -> host: {upward}"
    foreign = sorted(f"{name} imports {target}" for name, module in MODULES.items()
                     for top, banned in FOREIGN.items() if within(name, top)
                     for target in module.imports
                     if target.split(".")[0] in banned)
    assert foreign == [], foreign


def outbox_calls(module: Module) -> list[tuple[int, str]]:
    """Every use of an ``outbox`` attribute (``bot.outbox.kick``): (line, what it reaches)."""
    found, reached = [], set()
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute) \
                and node.value.attr == "outbox":
            found.append((node.lineno, node.attr))
            reached.add(id(node.value))
    found += [(node.lineno, "") for node in ast.walk(module.tree)
              if isinstance(node, ast.Attribute) and node.attr == "outbox"
              and id(node) not in reached]
    return sorted(found)


def test_only_the_app_and_the_gateway_call_into_the_outbox() -> None:
    found = sorted(f"{module.path.relative_to(ROOT)}:{line}: outbox.{what or '(handed on)'}"
                   for name, module in MODULES.items() if name not in OUTBOX_CALLERS
                   for line, what in outbox_calls(module))
    assert found == [], "calls into the outbox (the host announces every commit): " + \
        "; ".join(found)
    for name, allowed in OUTBOX_CALLERS.items():
        if allowed is not None:
            wrong = [f"{line}: outbox.{what}" for line, what in outbox_calls(MODULES[name])
                     if what and what not in allowed]
            assert wrong == [], f"{name} calls into the outbox: {wrong}"
    assert any(what == "kick" for _, what in outbox_calls(MODULES["bot.exts.watch"])), \
        "the check sees the calls it allows"


def refusal_catches(module: Module) -> list[int]:
    """The lines of ``except Refusal`` (or of a tuple naming it) in ``module``."""
    def names(node: ast.expr | None) -> list[str]:
        if isinstance(node, ast.Tuple):
            return [n for item in node.elts for n in names(item)]
        if isinstance(node, ast.Name):
            return [node.id]
        return [node.attr] if isinstance(node, ast.Attribute) else []
    return sorted(node.lineno for node in ast.walk(module.tree)
                  if isinstance(node, ast.ExceptHandler) and "Refusal" in names(node.type))


def test_refusals_are_caught_only_by_the_one_handler() -> None:
    found = sorted(f"{module.path.relative_to(ROOT)}:{line}"
                   for name, module in MODULES.items() if name not in REFUSAL_CATCHERS
                   for line in refusal_catches(module))
    assert found == [], "raise the refusal, the handler (bot/adapter/answer.py) words it: " + \
        "; ".join(found)
    assert all(refusal_catches(MODULES[name]) for name in REFUSAL_CATCHERS), \
        "an allowed catcher that catches no refusal any more leaves REFUSAL_CATCHERS"


def lines_of(module: Module) -> int:
    return len(module.path.read_text(encoding="utf-8").splitlines())


def test_no_module_of_bot_is_over_its_size() -> None:
    big = sorted(f"{module.path.relative_to(ROOT)} ({lines_of(module)} lines)"
                 for module in MODULES.values() if lines_of(module) > MOST_LINES)
    assert big == [], f"modules over {MOST_LINES} lines (split them by concern): {big}"


# --- the checker itself --------------------------------------------------------------------------

def test_the_cycle_finder_finds_cycles_and_only_them() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}, "f": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"x": {"y"}, "y": set()}) == []
    hidden = {"bot": {"bot.a"}, "bot.a": {"bot", "bot.b"}, "bot.b": {"bot.a"}}
    assert true_cycles(hidden) == [["bot.a", "bot.b"]], "a package does not hide a cycle"


def test_type_checking_imports_are_left_out_and_nested_ones_found() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "import typing\n"
        "if TYPE_CHECKING:\n    from bot.app import GameBot\n"
        "if typing.TYPE_CHECKING:\n    import bot.exts.lobby\n"
        "else:\n    import bot.exts.play\n"
        "def f():\n    from bot.host import store\n"
        "class C:\n    async def g(self):\n        import bot.table\n")
    module = Module("bot.exts.probe", Path("probe.py"), False, ast.parse(source))
    found = {(type(node).__name__, inside) for node, inside in runtime_nodes(module.tree)
             if isinstance(node, ast.Import | ast.ImportFrom)}
    assert found == {("ImportFrom", False), ("Import", False), ("ImportFrom", True),
                     ("Import", True)}
    names = [ast.unparse(node) for node, _ in runtime_nodes(module.tree)
             if isinstance(node, ast.Import | ast.ImportFrom)]
    assert "from bot.app import GameBot" not in names and "import bot.exts.lobby" not in names
    assert "import bot.exts.play" in names
    typed = {name for node in type_checking_nodes(module.tree)
             for name in imported(module, node)}
    assert typed == {"bot.app", "bot.app.GameBot", "bot.exts.lobby"}, "the else runs: not typed"
    relative = ast.parse("from ..host import store\nfrom . import _items\n").body
    assert absolute(module, relative[0]) == "bot.host"  # type: ignore[arg-type]
    assert absolute(module, relative[1]) == "bot.exts"  # type: ignore[arg-type]


def test_the_outbox_finder_finds_calls() -> None:
    source = ("def f(bot, interaction):\n    bot.outbox.kick(1)\n"
              "    bot_of(interaction).outbox.adopt(1)\n    box = bot.outbox\n"
              "    bot.outbox_queue.set(1)\n")
    module = Module("bot.exts.probe", Path("probe.py"), False, ast.parse(source))
    assert outbox_calls(module) == [(2, "kick"), (3, "adopt"), (4, "")]


def test_the_refusal_finder_finds_every_form() -> None:
    source = ("try:\n    pass\nexcept Refusal:\n    pass\n"
              "try:\n    pass\nexcept (Refusal, IllegalAction) as e:\n    pass\n"
              "try:\n    pass\nexcept sessions.Refusal:\n    pass\n"
              "try:\n    pass\nexcept (KeyError, IllegalAction):\n    pass\n")
    module = Module("bot.exts.probe", Path("probe.py"), False, ast.parse(source))
    assert refusal_catches(module) == [3, 7, 11]


def test_the_sql_pattern() -> None:
    for sql in ("SELECT seq, line FROM actions", "INSERT INTO games (id) VALUES (?)",
                "INSERT OR REPLACE INTO snapshots", "UPDATE games SET status = ?",
                "DELETE FROM seats WHERE 1", "ALTER TABLE games ADD COLUMN x",
                "PRAGMA user_version"):
        assert SQL.search(sql), sql
    for words in ("Select a card from your hand", "the update sets", "delete the message",
                  "INSERT the token", "UPDATE: the game"):
        assert not SQL.search(words), words
