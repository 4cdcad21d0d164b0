"""A player's grammatical gender made up by a translation: the check ``companion
lang-check`` runs on every catalog (its ``"gender"`` problems).

A message never knows whether the player it names is a man or a woman, so in a language
where a verb or an adjective agrees with a person it must be phrased around them
("Анна: выход", "Ann : sortie", "Ann: 6 на кубике"). This finds the forms that agree
with one gender beside a person placeholder (:data:`companion.commands.worst.PEOPLE`, and
``{names}``): Russian past tenses in -л/-ла ("Анна бросил", "Партию взял Анна"), Polish
past tenses in -ł/-ła/-łem ("Ann powiedział"), French participles and adjectives after
être ("Ann est sorti": avoir's participle does not agree, "a gagné" is fine), Italian
ones after essere ("Ann è già inserito")::

    >>> gendered("ru", "{name} бросил {value}"), gendered("ru", "{name}: бросок {value}")
    (['бросил'], [])
    >>> gendered("fr", "{name} est sorti"), gendered("fr", "{name} a gagné")
    (['est sorti'], [])

The heuristics are narrow on purpose: a neuter or plural form (Russian "выпало",
"вышли") agrees with no one, and a noun that merely ends like a verb ("стол", the Final
Count board; "reguła") is known here and left alone.
"""

from __future__ import annotations

import re

from companion.commands.worst import PEOPLE

__all__ = ["LANGUAGES", "PERSON_LABELS", "gendered"]

#: Placeholders that stand for players: one person, or a list of them.
PERSON_FIELDS = (*PEOPLE, "names", "winners")
_PERSON = re.compile(r"\{(?:" + "|".join(PERSON_FIELDS) + r")\}")
#: Where a clause ends: a verb beyond it is about something else.
_CLAUSE_END = re.compile(r"[.;!?\n]")

# Russian: the past tense agrees in the singular (-л he, -ла she); neuter -ло and
# plural -ли agree with no person.
_RU_PAST = re.compile(r"\b[а-яё]+?(?:[аяиеёуыо]л|[аяиеёуыо]ла|шла|шёл|шел)\b")
_RU_NOT_VERBS = frozenset(("стол", "пол", "угол", "гол", "футбол", "козёл", "орёл", "посол",
                           "сначала", "мала", "правила", "дела", "сила", "стрела", "пила",
                           "мыла", "игла", "метла", "цела", "стола", "пола", "угла"))
# Polish: the past tense agrees (-ł he, -ła she, -łem/-łam I, -łeś/-łaś you); -ło is
# neuter, -li/-ły plural.
_PL_PAST = re.compile(r"\b[a-ząćęłńóśźż]+?(?:[aeiyąę]ł|[aeiyąę]ła|[aeiyąę]łem|[aeiyąę]łam|"
                      r"[aeiyąę]łeś|[aeiyąę]łaś|edł|szła|ógł|ogła)\b|\b\w+ł\(a\)")
_PL_NOT_VERBS = frozenset(("reguła", "siła", "szkoła", "strzała", "pszczoła", "skała",
                           "kieł", "orzeł", "kocioł", "anioł", "popiół", "kościół", "dół",
                           "stół"))
# French: être with a participle or an adjective that agrees, the player its subject.
_FR_AFTER_ETRE = re.compile(
    r"(?:\}|\s)(?:ne\s+|n['’])?(?:est|était|sera|soit|fut|s['’]est|s['’]était|a été|"
    r"avait été)"
    r"(?:\s+(?:déjà|encore|bien|pas|plus|toujours|jamais|aussi))*\s+(?:le\s+|la\s+|l['’])?"
    r"(\w+(?:é|ée|és|ées|i|ie|is|ies|u|ue|us|ues|it|ite)|prête?s?|seule?s?|mort|morte|"
    r"premi(?:er|ère)s?|derni(?:er|ère)s?|sûre?s?|certaine?s?|contente?s?)\b")
_FR_NOT_AGREEING = frozenset(("ici", "aussi", "parmi", "plus", "tous", "nous", "vous", "si",
                              "qui", "lui", "oui", "ni", "midi", "dessus", "jus", "refus",
                              "un", "tu", "du", "au"))
# Italian: essere with a participle or an adjective that agrees.
_IT_AFTER_ESSERE = re.compile(
    r"(?:\}|\s)(?:non\s+)?(?:si\s+)?(?:è|era|sarà|sia|fu|è stato|è stata)"
    r"(?:\s+(?:già|ancora|appena|sempre|mai|pure|anche))*\s+(?:il\s+|la\s+|l['’])?"
    r"(\w+(?:ato|ata|ito|ita|uto|uta|sto|sta|tto|tta|so|sa)|pront[oaie]|prim[oaie]|"
    r"ultim[oaie]|sol[oaie]|mort[oaie]|sicur[oaie])\b")
_IT_NOT_AGREEING = frozenset(("questo", "questa", "tutto", "tutta", "molto", "sotto",
                              "soltanto", "tanto", "quanto", "cosa", "casa", "pausa",
                              "sopra", "prima"))

# Adjectives, short participles and role nouns that take the gender of the person they
# are said of ("{name} готов", "Первым ходит {name}", "Donneur : {name}", "{name}
# pronto", "Zwycięzca: {name}"): found directly beside a person placeholder (one word
# between on the verb's side: "{name} ходит первым", "{name} jest gotowy"), not where
# they agree with a noun ("Последний кубик: {name}", "{name}: ostatni rzut").
_BESIDE: dict[str, frozenset[str]] = {
    "ru": frozenset((
        "первым", "первой", "первый", "первая", "последним", "последней", "последний",
        "последняя", "готов", "готова", "должен", "должна", "уверен", "уверена",
        "согласен", "согласна", "сам", "сама", "победитель", "победительница",
        "проигравший", "проигравшая", "сдающий", "сдающая", "выбывший", "выбывшая",
        "следующий", "следующая", "рад", "рада", "виноват", "виновата")),
    "pl": frozenset((
        "gotowy", "gotowa", "pierwszy", "pierwsza", "ostatni", "ostatnia", "pewien",
        "pewna", "pewny", "sam", "sama", "zwycięzca", "zwyciężczyni", "rozdający",
        "rozdająca", "przegrany", "wygrany", "wyeliminowany", "wyeliminowana", "następny",
        "następna")),
    "fr": frozenset((
        "prêt", "prête", "premier", "première", "1er", "1re", "dernier", "dernière",
        "seul", "seule", "sûr", "sûre", "gagnant", "gagnante", "perdant", "perdante",
        "donneur", "donneuse", "sorti", "éliminé", "éliminée", "assis", "assise", "suivant",
        "suivante")),
    "it": frozenset((
        "pronto", "pronta", "primo", "ultimo", "ultima", "solo", "sola", "sicuro",
        "sicura", "vincitore", "vincitrice", "perdente", "uscito", "uscita", "seduto",
        "seduta", "eliminato", "eliminata", "prossimo", "mazziere")),
}
#: Labels the device and the pages put beside a player's name without a placeholder:
#: a game's facts on the pages ("Dealer" | "Ann") and the result screen's word over
#: the winner's name. Their translations are checked as "{label}: {name}".
PERSON_LABELS = frozenset(("Dealer", "Next", "Leads", "Went out", "Called", "Winner"))
#: One word of a text (a placeholder is one too), or a mark that stands between words.
_TOKEN = re.compile(r"\{\w+\}|[\w’'-]+|[:—–]")
#: Marks a label stands before a name with ("Donneur : Ann", "Vincitore — Anna").
_LABEL_MARKS = frozenset(":—–")


def _beside(code: str, clause: str) -> list[str]:
    """The words of :data:`_BESIDE` said of a person placeholder in ``clause``: right
    after it, or one word after it at the clause's end; right before it, or before
    it with a colon or one word (a verb) between; or alone after "{name}:"."""
    words = _BESIDE.get(code)
    if not words:
        return []
    tokens = _TOKEN.findall(clause)
    lower = [token.lower() for token in tokens]
    found: list[str] = []
    for at, token in enumerate(tokens):
        if not _PERSON.fullmatch(token):
            continue
        after = lower[at + 1:]
        before = lower[:at][::-1]
        if after[:1] and after[0] in words:                          # {name} готов
            found.append(after[0])
        elif len(after) == 2 and after[1] in words and after[0] not in _LABEL_MARKS:
            found.append(after[1])                                   # {name} ходит первым
        elif len(after) == 2 and after[0] in _LABEL_MARKS and after[1] in words:
            found.append(after[1])                                   # {name}: gotowy
        if before[:1] and before[0] in words:                        # Vincitore {name}
            found.append(before[0])
        elif len(before) >= 2 and before[1] in words and (
                before[0] in _LABEL_MARKS or _is_word(before[0])):   # Donneur: {name}
            if before[0] in _LABEL_MARKS or len(before) == 2:        # Первым ходит {name}
                found.append(before[1])
    return found


def _is_word(token: str) -> bool:
    return token not in _LABEL_MARKS and not _PERSON.fullmatch(token)


#: The languages the check knows forms of.
LANGUAGES = ("ru", "pl", "fr", "it")


def _clauses(text: str) -> list[str]:
    return [part for part in _CLAUSE_END.split(text) if _PERSON.search(part)]


def gendered(code: str, text: str, english: str | None = None) -> list[str]:
    """The forms in ``text`` (a translation into ``code``) that agree with one gender in
    a clause with a person placeholder; [] for a language not in :data:`LANGUAGES`.
    ``english`` is the message translated: a label of :data:`PERSON_LABELS` is checked
    with the name it stands beside."""
    if english in PERSON_LABELS:
        text = f"{text}: {{name}}"
    found: list[str] = []
    for clause in _clauses(text):
        beside = _beside(code, clause)
        lower = clause.lower()
        if code == "ru":
            found += [word for word in _RU_PAST.findall(lower) if word not in _RU_NOT_VERBS]
        elif code == "pl":
            found += [word for word in _PL_PAST.findall(lower) if word not in _PL_NOT_VERBS]
        elif code == "fr":
            found += [match.group(0).strip(" }") for match in _FR_AFTER_ETRE.finditer(clause)
                      if _subject_before(clause, match.start())
                      and match.group(1).lower() not in _FR_NOT_AGREEING]
        elif code == "it":
            found += [match.group(0).strip(" }") for match in _IT_AFTER_ESSERE.finditer(clause)
                      if _subject_before(clause, match.start())
                      and match.group(1).lower() not in _IT_NOT_AGREEING]
        # A word already found with its copula ("est prêt") is said once.
        found += [word for word in beside
                  if not any(word in form.lower().split() for form in found)]
    return found


def _subject_before(clause: str, at: int) -> bool:
    """Whether a person placeholder stands just before ``at`` (at most two words between):
    the player is the verb's subject, not some other noun of the clause."""
    before = clause[:at + 1]
    found = list(_PERSON.finditer(before))
    if not found:
        return False
    last = found[-1]
    between = before[last.end():]
    # "(Ann, Bob) sera proposée": a placeholder in brackets is not the verb's subject.
    return not between.lstrip().startswith(")") and len(between.split()) <= 2
