"""One tree of errors (issue 40): every exception class the companion defines is in
companion/errors.py under CompanionError, each saying when it is raised, and
docs/architecture.md draws the tree as it is."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
import sys
from pathlib import Path

import pytest

import companion
from companion import errors, lang
from companion.errors import CompanionError

ROOT = Path(__file__).resolve().parents[1]
ERRORS_FILE = ROOT / "companion" / "errors.py"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
sys.path.insert(0, str(ROOT / "scripts"))
import layers  # noqa: E402  (scripts/layers.py: the import graph)

#: The one class of errors.py that is no error: a number a message writes as typed.
NOT_AN_ERROR = {"TypedNumber"}


def product_modules() -> list:
    """Every module of the package, imported (``__main__`` runs the command line when
    imported: its classes are read from its source below)."""
    names = [info.name for info in pkgutil.walk_packages(companion.__path__, "companion.")
             if not info.name.endswith("__main__")]
    return [importlib.import_module(name) for name in ["companion", *names]]


def the_tree() -> dict[str, type]:
    """The exception classes errors.py defines, by name."""
    return {name: cls for name, cls in vars(errors).items()
            if inspect.isclass(cls) and cls.__module__ == errors.__name__
            and issubclass(cls, BaseException)}


def test_no_exception_class_is_defined_outside_errors_py():
    outside = sorted(f"{module.__name__}.{name}" for module in product_modules()
                     for name, cls in vars(module).items()
                     if inspect.isclass(cls) and issubclass(cls, BaseException)
                     and cls.__module__ == module.__name__ and module is not errors)
    assert outside == []


def test_no_exception_class_hides_inside_a_function_or_a_class():
    """A class made inside a function or another class is no module attribute: each
    class statement's bases are looked up in its module instead."""
    by_file = {Path(inspect.getfile(module)).resolve(): module for module in product_modules()}
    found = []
    for path in sorted((ROOT / "companion").rglob("*.py")):
        if path == ERRORS_FILE:
            continue
        module = by_file.get(path.resolve())
        space = vars(module) if module is not None else {}
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for base in node.bases:
                try:
                    value = eval(ast.unparse(base), dict(space))  # noqa: S307 - our own names
                except Exception:  # noqa: BLE001 - a name local to a function: by its name
                    value = None
                named = ast.unparse(base).split(".")[-1]
                if (inspect.isclass(value) and issubclass(value, BaseException)
                        or value is None and re.search(r"(Error|Exception)$", named)):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert found == []


def test_every_class_of_errors_py_is_in_the_tree_with_a_line_saying_when():
    classes = {name: cls for name, cls in vars(errors).items()
               if inspect.isclass(cls) and cls.__module__ == errors.__name__}
    assert set(classes) - set(the_tree()) == NOT_AN_ERROR
    assert not issubclass(errors.TypedNumber, BaseException)
    assert CompanionError.__bases__ == (Exception,)
    for name, cls in the_tree().items():
        assert cls is CompanionError or issubclass(cls, CompanionError), name
        doc = cls.__dict__.get("__doc__") or ""
        assert doc and "\n" not in doc, f"{name}: one line of docstring"
        assert cls is CompanionError or doc.startswith("Raised "), f"{name}: says when"


def test_the_tree_is_big_enough_to_be_the_whole_of_it():
    # The 37 classes of 16 modules, and those added since, are all here.
    assert len(the_tree()) >= 40
    for name in ("SeatingError", "UnknownLanguage", "PoError", "Refusal", "Refused",
                 "NotStrictJson", "LineError", "BadName", "RemoteError", "RosterFull"):
        assert issubclass(the_tree()[name], CompanionError), name


def test_errors_py_imports_nothing_of_ours():
    graph = layers.import_graph()
    assert graph["companion.errors"] == set()
    assert "companion.errors" in graph["companion.lang"]


@pytest.mark.parametrize("name", ["SeatingError", "UnknownLanguage", "PoError",
                                  "NotStrictJson"])
def test_a_reader_of_text_is_still_a_value_error(name):
    # Callers catch these as ValueError (load_json's callers, the language check).
    assert issubclass(the_tree()[name], ValueError)


@pytest.mark.parametrize("name, status", [
    ("ConfigError", 78), ("UsageError", 2), ("RoundRefused", 2), ("NoRoom", 1),
    ("LogInUse", 5), ("BackupError", 4), ("BackupTooNew", 3), ("ForeignDevice", 6),
])
def test_exit_statuses_are_kept(name, status):
    assert the_tree()[name].exit_status == status


def test_constructors_and_attributes_are_kept():
    assert errors.UnreadableFile("gone", missing=True).missing is True
    assert errors.FolderNotWritable("ro", read_only=True).read_only is True
    duplicate = errors.DuplicateMatch("abc", 7)
    assert (duplicate.uid, duplicate.match_id) == ("abc", 7)
    locked = errors.PairingLocked(0.2)
    assert locked.seconds == 1
    refusal = errors.Refusal(429, "wait", {"Retry-After": "3"}, code="LOCKED", seconds=3)
    assert (refusal.status, refusal.message, refusal.headers, refusal.extra) == (
        429, "wait", {"Retry-After": "3"}, {"code": "LOCKED", "seconds": 3})
    refused = errors.Refused(421, "HOST", "not this device")
    assert (refused.status, refused.code, refused.message) == (421, "HOST", "not this device")
    assert errors.RosterFull("full").full is True
    assert errors.GPIOError.shown_limit == 600


def test_a_refusal_without_words_says_what_its_code_means():
    from companion.remote import commands

    busy = errors.RemoteError("BUSY", " \n ")
    assert (busy.code, busy.message) == ("BUSY", commands.ERRORS["BUSY"])
    assert errors.RemoteError("NOSUCH", "").message == "error"


def test_the_messages_made_in_errors_py_are_in_the_language_spoken():
    try:
        lang.use("de")
        german = str(errors.LineError(3, "x"))
        locked = str(errors.PairingLocked(5))
        expected = lang.gettext("line {line}: {reason}").format(line=3, reason="x")
    finally:
        lang.use("en")
    assert german == expected
    assert german != "line 3: x"
    assert str(errors.LineError(3, "x")) == "line 3: x"
    assert "5 s" in locked and locked != str(errors.PairingLocked(5))


def test_a_torn_catalog_is_one_line_not_a_traceback(tmp_path, monkeypatch, capsys):
    """PoError joined the tree: ``companion lang-check`` on a damaged catalog says so
    in one line (it was a traceback)."""
    from companion import cli
    from companion.commands import langcheck

    torn = tmp_path / "companion.pot"
    torn.write_text('msgid ""\nmsgstr ""\n\nmsgid "Dice"\nthis is not PO\n', encoding="utf-8")
    monkeypatch.setattr(langcheck, "TEMPLATE", torn)
    assert cli.main(["lang-check", "--language", "de", "--steps", "0"]) == 1
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "Traceback" not in said
    assert said.startswith("companion: ") and "not a PO line" in said


def test_the_page_draws_the_tree_as_it_is():
    """docs/architecture.md's "One tree of errors" lists every class, each nested under
    its parent (the layers' headings between them are no classes), and no other."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## One tree of errors", 1)[1].split("\n## ", 1)[0]
    drawn: dict[str, str | None] = {}
    parents: list[tuple[int, str]] = []
    for line in section.splitlines():
        item = re.match(r"^( *)- `(\w+)`", line)
        if not item:
            continue
        depth, name = len(item.group(1)) // 2, item.group(2)
        parents = [(d, n) for d, n in parents if d < depth]
        drawn[name] = parents[-1][1] if parents else None
        parents.append((depth, name))
    tree = the_tree()
    assert set(drawn) == set(tree)
    for name, parent in drawn.items():
        cls = tree[name]
        bases = [base.__name__ for base in cls.__bases__ if base.__module__ == errors.__name__]
        assert bases == ([parent] if parent else []), name
