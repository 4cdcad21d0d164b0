"""What is said (issue 39.1, the frame of it): Final Count's roll names the player and
the face with what it means, the call, whose turn, each hand and the game; the kinds of
``[speech] say``; said once (undo and resume repeat nothing); the words every game
shares (turns, refusals, the timer). Random legal games never say a wrong thing."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_final_count_props import legal_event

from companion import lang
from companion.games.final_count import FACES
from companion.session import Session
from companion.speech.announcer import (
    Announcement,
    Announcer,
    SpeechLog,
    words_for,
)
from companion.ui.final_count.aloud import FinalCountWords
from companion.ui.spoken import GameWords, few_words
from companion.voices import KINDS


class Voice:
    """A voice that keeps what it is asked to say."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.said: list[tuple[str, str]] = []
        self.hushed = 0

    def say(self, text: str, language: str) -> None:
        if self.enabled:
            self.said.append((text, language))

    def hush(self) -> None:
        self.hushed += 1


def table(players=("Ann", "Bob", "Cy"), kinds=KINDS, options=None):
    voice = Voice()
    heard: list[Announcement] = []
    announcer = Announcer(voice, kinds, wall_clock=lambda: 1_800_000_000.25)
    announcer.outlets.append(heard.append)
    session = Session.start("final-count", list(players), options, listeners=[announcer])
    announcer.watch(session)
    return session, announcer, voice, heard


def texts(heard):
    return [(said.kind, said.text) for said in heard]


def roll(session, value):
    session.apply({"type": "roll", "player": session.match.current, "value": value})


# --- Final Count --------------------------------------------------------------------------


def test_a_roll_names_the_player_the_face_and_what_it_means_then_whose_turn():
    session, _, voice, heard = table()
    roll(session, 3)
    assert texts(heard) == [("rolls", "Ann, 3: draw a card for the Board"),
                            ("turns", "Bob's turn")]
    assert voice.said == [("Ann, 3: draw a card for the Board. Bob's turn.", "en")]
    assert heard[0].json() == {"at": 1_800_000_000.25, "language": "en", "kind": "rolls",
                               "text": "Ann, 3: draw a card for the Board"}


def test_every_face_says_its_action_and_an_empty_pile_says_pass():
    words = FinalCountWords()
    session, *_ = table(players=("Ann", "Bob"))
    said = []
    for face in FACES:
        roll(session, face)
        said.append(words.roll(session.match.rolls[-1]))
    assert said == ["Ann, 1: draw a card for yourself", "Bob, 2: draw a card for an opponent",
                    "Ann, 3: draw a card for the Board", "Bob, 4: swap a card with the draw pile",
                    "Ann, 5: swap a card with an opponent", "Bob, 6: swap a card with the Board"]
    while session.match.draw_pile:
        roll(session, 1)
    roll(session, 2)
    assert words.roll(session.match.rolls[-1]).endswith(": the draw pile is empty: pass")


def test_the_hit_goal_the_call_and_the_final_round():
    session, _, voice, heard = table(players=("Ann", "Bob"), options={"hit_goal": True})
    session.apply({"type": "goal", "rolls": [4, 6]})
    assert texts(heard) == [("rolls", "Hit Goal: 64"), ("turns", "Ann's turn")]
    roll(session, 5)
    heard.clear()
    session.apply({"type": "call", "player": "Bob"})  # at the start of Bob's turn
    assert texts(heard) == [("turns", "Bob calls: final round"), ("turns", "Ann's turn")]
    heard.clear()
    roll(session, 6)  # Ann's last turn: then nobody's, the cards are entered
    assert texts(heard) == [("rolls", "Ann, 6: swap a card with the Board")]


def test_a_hand_and_the_game_say_their_results():
    session, _, voice, heard = table(players=("Ann", "Bob"))
    for hand in range(10):
        if session.match.over:
            break
        roll(session, 4)
        session.apply({"type": "call", "player": session.match.expecting().choices["caller"][0]})
        while session.match.phase == "play":
            roll(session, 4)
        session.apply({"type": "board", "cards": ["K", "Q"]})
        session.apply({"type": "hand", "player": "Ann", "cards": ["K", "Q", "J"]})
        heard.clear()
        session.apply({"type": "hand", "player": "Bob", "cards": ["2", "3", "4"]})
        results = [text for kind, text in texts(heard) if kind == "results"]
        assert results[0].startswith(f"Hand {hand + 1}: Ann wins with 50")
    assert session.match.over
    assert results == ["Hand 6: Ann wins with 50, +10 as Bob called and lost",
                       "Game over. Winner: Ann with 330 points. Standings: Ann 330, Bob 0"]
    assert texts(heard)[-1][0] == "results"  # nobody's turn once the game is over


def test_a_hand_says_a_goal_hit_and_who_went_bust():
    session, _, voice, heard = table(players=("Ann", "Bob", "Cy"), options={"hit_goal": True})
    session.apply({"type": "goal", "rolls": [4, 6]})  # Hit Goal: 64
    for _ in range(4):  # four cards for the Board: six there
        roll(session, 3)
    session.apply({"type": "call", "player": "Ann"})  # right after her roll
    roll(session, 5)
    roll(session, 5)
    session.apply({"type": "board", "cards": ["K", "Q", "J", "10", "9", "8"]})  # 57
    session.apply({"type": "hand", "player": "Ann", "cards": ["K", "K", "K"]})  # 87: bust
    session.apply({"type": "hand", "player": "Cy", "cards": ["3", "3", "2"]})  # 65
    heard.clear()
    session.apply({"type": "hand", "player": "Bob", "cards": ["A", "2", "4"]})  # 64: the goal
    assert texts(heard) == [
        ("results", "Hand 1: Bob wins with 64 (hit the goal), +10 as Ann called and lost"),
        ("results", "Bust: Ann 87")]  # the next hand's goal is nobody's turn


# --- the kinds, said once -------------------------------------------------------------------


def test_only_the_kinds_say_lists_are_said():
    session, _, voice, heard = table(kinds=("turns",))
    roll(session, 3)
    assert texts(heard) == [("turns", "Bob's turn")]
    assert voice.said == [("Bob's turn.", "en")]


def test_undo_takes_the_words_back_and_says_nothing():
    session, announcer, voice, heard = table()
    roll(session, 3)
    roll(session, 6)
    said_before = list(voice.said)
    session.undo()
    assert voice.said == said_before and voice.hushed == 1
    assert [a.text for a in announcer.last] == ["Ann, 3: draw a card for the Board",
                                                "Bob's turn"]
    assert announcer.repeat() is True
    assert voice.said[-1] == ("Ann, 3: draw a card for the Board. Bob's turn.", "en")
    session.undo()
    assert announcer.last == [] and announcer.repeat() is False


def resume(store, match_id):
    """The match resumed from the log with an announcer of its own, which says nothing
    of what was played: (session, announcer, voice, what it said)."""
    voice, heard = Voice(), []
    announcer = Announcer(voice, KINDS)
    announcer.outlets.append(heard.append)
    resumed = Session.resume(store, match_id, listeners=[announcer])
    announcer.watch(resumed)
    assert heard == [] and voice.said == [] and announcer.repeat() is False
    return resumed, announcer, voice, heard


def test_a_resumed_game_says_nothing_of_what_was_played(tmp_path):
    from companion.store import Store

    store = Store.in_dir(tmp_path)
    first = Session.start("final-count", ["Ann", "Bob"], store=store)
    for value in (3, 4, 5):
        first.apply({"type": "roll", "player": first.match.current, "value": value})
    resumed, announcer, voice, heard = resume(store, first.match_id)
    resumed.apply({"type": "roll", "player": resumed.match.current, "value": 1})
    assert texts(heard) == [("rolls", "Bob, 1: draw a card for yourself"),
                            ("turns", "Ann's turn")]
    store.close()


def test_nothing_reaches_a_voice_that_is_off_but_the_log_and_the_page_hear_it():
    session, announcer, voice, heard = table()
    voice.enabled = False
    roll(session, 2)
    assert voice.said == [] and len(heard) == 2
    assert announcer.repeat() is False


def test_the_speech_log_is_one_json_line_an_announcement():
    import io
    import json

    stream = io.StringIO()
    SpeechLog(stream)(Announcement(1.5, "ru", "rolls", "Анна, 3"))
    assert stream.getvalue() == '{"at": 1.5, "language": "ru", "kind": "rolls", ' \
                                '"text": "Анна, 3"}\n'
    assert json.loads(stream.getvalue())["text"] == "Анна, 3"


# --- every game's words ----------------------------------------------------------------------


def test_every_game_has_words_of_its_own_and_any_other_says_whose_turn():
    from companion.games import GAMES

    assert len(GAMES) == 6
    for game_id in (info.game_id for info in GAMES):
        words = words_for(game_id)
        assert isinstance(words, GameWords) and type(words) is not GameWords
        assert words is words_for(game_id)  # made once
    assert isinstance(words_for("final-count"), FinalCountWords)
    assert type(words_for("a-game-from-a-newer-device")) is GameWords
    assert type(words_for(None)) is GameWords


def test_a_refusal_is_said_in_a_few_words():
    words = GameWords()
    assert few_words("Bob has 5 cards; at most 4 this hand (3 dealt + 1 from own 1s)") == \
        "Bob has 5 cards"
    assert words.refused("it is Bob's turn, not Ann's") == [
        ("refusals", "Sorry: it is Bob's turn, not Ann's")]


def test_the_timer_says_the_seconds_left_and_the_end():
    words = GameWords()
    assert words.timer("warning", "Ann", 10) == [("timer", "Ann, 10 seconds left")]
    assert words.timer("end", "Ann", 0) == [("timer", "Ann: time is up")]


def test_the_words_are_in_the_language_spoken_now():
    session, _, voice, heard = table(players=("Анна", "Борис"))
    lang.use("ru")
    roll(session, 3)
    assert heard[0].language == "ru"
    assert heard[0].text.startswith("Анна, 3: ")
    assert heard[0].text != "Анна, 3: draw a card for the Board"  # translated
    assert voice.said[0][1] == "ru"


# --- random legal games ----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=2, max_value=4), st.booleans(), st.randoms(use_true_random=False),
       st.sampled_from([KINDS, ("rolls",), ("turns", "results"), ()]))
def test_random_games_say_each_roll_once_and_undo_says_nothing(players, goal, rnd, kinds):
    names = ["Ann", "Bob", "Cy", "Dee"][:players]
    session, announcer, voice, heard = table(names, kinds=kinds, options={"hit_goal": goal})
    rng = random.Random(rnd.random())
    for _ in range(300):
        if session.match.over:
            break
        if session.match.events and rng.random() < 0.1:
            count = len(heard)
            session.undo()
            assert len(heard) == count  # an undo says nothing
            continue
        event = legal_event(session.match, rng)
        count = len(heard)
        session.apply(event)
        new = heard[count:]
        assert all(said.kind in kinds and said.text for said in new)
        rolls = [said for said in new if said.kind == "rolls"]
        if event["type"] == "roll" and "rolls" in kinds:
            assert len(rolls) == 1
            assert rolls[0].text.startswith(f"{event['player']}, {event['value']}: ")
        elif event["type"] not in ("roll", "goal"):
            assert rolls == []
        if event["type"] == "hand" and session.match.over and "results" in kinds:
            assert new[-1].text.startswith("Game over.")
    assert len(voice.said) <= len(heard)


def test_an_outlet_that_fails_stops_neither_the_game_nor_the_voice(caplog):
    import logging

    session, announcer, voice, heard = table()

    def full_disk(said):
        raise OSError(28, "No space left on device")

    announcer.outlets.insert(0, full_disk)
    with caplog.at_level(logging.ERROR, logger="companion"):
        roll(session, 3)
        announcer.refused("it is Bob's turn")
    assert len(session.match.events) == 1
    assert [said.kind for said in heard] == ["rolls", "turns", "refusals"]  # the rest hear it
    assert len(voice.said) == 2
    # one line for the outlet, not one an announcement
    assert len([r for r in caplog.records if "outlet failed" in r.getMessage()]) == 1
