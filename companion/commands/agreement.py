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

__all__ = ["LANGUAGES", "gendered"]

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
    r"(?:\}|\s)(?:ne\s+|n')?(?:est|était|sera|soit|fut|s'est|s'était|a été|avait été)"
    r"(?:\s+(?:déjà|encore|bien|pas|plus|toujours|jamais|aussi))*\s+"
    r"(\w+(?:é|ée|és|ées|i|ie|is|ies|u|ue|us|ues|it|ite|prêt|prête|seul|seule|"
    r"premier|première|dernier|dernière))\b")
_FR_NOT_AGREEING = frozenset(("ici", "aussi", "parmi", "plus", "tous", "nous", "vous", "si",
                              "qui", "lui", "oui", "ni", "midi", "dessus", "jus", "refus",
                              "un", "tu", "du", "au"))
# Italian: essere with a participle or an adjective that agrees.
_IT_AFTER_ESSERE = re.compile(
    r"(?:\}|\s)(?:non\s+)?(?:si\s+)?(?:è|era|sarà|sia|fu|è stato|è stata)"
    r"(?:\s+(?:già|ancora|appena|sempre|mai|pure|anche))*\s+"
    r"(\w+(?:ato|ata|ito|ita|uto|uta|sto|sta|tto|tta|so|sa|pronto|pronta|primo|prima|"
    r"ultimo|ultima|solo|sola))\b")
_IT_NOT_AGREEING = frozenset(("questo", "questa", "tutto", "tutta", "molto", "sotto",
                              "soltanto", "tanto", "quanto", "cosa", "casa", "pausa",
                              "sopra", "prima"))

#: The languages the check knows forms of.
LANGUAGES = ("ru", "pl", "fr", "it")


def _clauses(text: str) -> list[str]:
    return [part for part in _CLAUSE_END.split(text) if _PERSON.search(part)]


def gendered(code: str, text: str) -> list[str]:
    """The forms in ``text`` (a translation into ``code``) that agree with one gender in
    a clause with a person placeholder; [] for a language not in :data:`LANGUAGES`."""
    found: list[str] = []
    for clause in _clauses(text):
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
