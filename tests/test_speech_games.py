"""What every game says aloud (issue 39.1): Full Counter, Final Card-Down, Block Lottery,
Count Up 21 and the Scoreboard, each a worked example from the first event to the
match's result, kind by kind; said once (an undo and a resumed game say nothing); and
random legal games of all six games, in all seven languages, never fail in the
announcer and never leave stale words waiting for the voice."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_block_lottery_props import legal_event as lottery_event
from test_card_down_props import legal_event as card_down_event
from test_count_up_props import legal_event as count_up_event
from test_final_count_props import legal_event as final_count_event
from test_full_counter_props import random_event as full_counter_event
from test_scoreboard_props import legal_event as scoreboard_event
from test_speech_engine import SlowWords
from test_speech_words import Voice, resume

from companion import lang
from companion.clock import ManualClock
from companion.device.speaker import Output, Speaker
from companion.session import Session
from companion.speech.announcer import Announcer
from companion.speech.voice import TableVoice
from companion.voices import KINDS, Speech


def table(game: str, players, options=None, kinds=KINDS):
    voice = Voice()
    heard = []
    announcer = Announcer(voice, kinds, wall_clock=lambda: 1_800_000_000.0)
    announcer.outlets.append(heard.append)
    session = Session.start(game, list(players), options, listeners=[announcer])
    announcer.watch(session)
    return session, announcer, voice, heard


def said(session, heard, *events):
    """What the events say, as (kind, text), in order."""
    count = len(heard)
    for event in events:
        session.apply(event)
    return [(item.kind, item.text) for item in heard[count:]]


# --- Full Counter ---------------------------------------------------------------------------


def quick(player, effect):
    return {"type": "play", "player": player, "effect": effect}


def test_full_counter_says_the_leader_burns_pick_ups_the_turns_and_who_loses():
    session, _, voice, heard = table("full-counter", ["Ann", "Bob", "Cy"],
                                     {"quick": True, "games": 2})
    assert said(session, heard, {"type": "starter", "value": 2, "face_up": ["Ann"]}) == [
        ("turns", "Ann leads")]
    assert said(session, heard, quick("Ann", "black_market")) == [
        ("turns", "Now anticlockwise"), ("turns", "Cy's turn")]
    assert said(session, heard, quick("Cy", "magnetic_rays")) == [
        ("turns", "Now going down"), ("turns", "Bob's turn")]
    assert said(session, heard, quick("Bob", "wildfire")) == [
        ("turns", "Burn: Bob plays again")]  # the same player: no turn to say
    assert said(session, heard, quick("Bob", "plain")) == [("turns", "Ann's turn")]
    assert said(session, heard, {"type": "pickup", "player": "Ann"}) == [
        ("turns", "Ann picks up the pile"), ("turns", "Cy's turn")]
    assert said(session, heard, {"type": "out", "player": "Cy"}) == [
        ("results", "Cy is out"), ("turns", "Bob's turn")]
    assert said(session, heard, {"type": "out", "player": "Bob"}) == [
        ("results", "Game 1: Ann loses and deals next"), ("turns", "The last game")]
    assert said(session, heard, {"type": "starter", "value": 2, "face_up": ["Cy"]}) == [
        ("turns", "Cy leads")]
    assert said(session, heard, quick("Cy", "black_market"), quick("Bob", "black_market")) == [
        ("turns", "Now anticlockwise"), ("turns", "Bob's turn"),
        ("turns", "Now clockwise"), ("turns", "Cy's turn")]
    assert said(session, heard, {"type": "out", "player": "Ann"},
                {"type": "out", "player": "Cy"}) == [
        ("results", "Ann is out"),
        ("results", "Game 2: Bob loses and deals next"),
        ("results", "Match over. Winner: Cy with 0 losses. Losses: Cy 0, Ann 1, Bob 1")]
    assert session.match.over and voice.said[-1][0].startswith("Game 2: Bob loses")


def test_full_counter_a_match_ended_between_games_says_its_winner():
    session, _, voice, heard = table("full-counter", ["Ann", "Bob"], {"quick": True})
    session.apply({"type": "starter", "value": 2, "face_up": ["Bob"]})
    assert said(session, heard, {"type": "out", "player": "Bob"}, {"type": "end"}) == [
        ("results", "Game 1: Ann loses and deals next"),
        ("results", "Match over. Winner: Bob with 0 losses. Losses: Bob 0, Ann 1")]


def test_full_counter_a_blind_card_that_cannot_go_picks_up_the_pile():
    session, _, voice, heard = table("full-counter", ["Ann", "Bob"], {"zones": False})
    session.apply({"type": "starter", "value": 2, "face_up": ["Ann"]})
    assert said(session, heard, {"type": "play", "player": "Ann", "value": 9}) == [
        ("turns", "Bob's turn")]  # a play itself is not said: the table sees it
    assert said(session, heard, {"type": "blind", "player": "Bob", "value": 3}) == [
        ("turns", "Bob picks up the pile"), ("turns", "Ann's turn")]
    assert said(session, heard, {"type": "blind", "player": "Ann", "value": "wildfire"}) == [
        ("turns", "Burn: Ann plays again")]


# --- Final Card-Down ------------------------------------------------------------------------


def card(value, colour, suit):
    return {"value": value, "colour": colour, "suit": suit}


def play(player, *exact):
    return {"type": "play", "player": player, **({"card": card(*exact)} if exact else {})}


def play_out(session, heard, player):
    """``player`` plays plain cards (each word said) until out, the others draw; what the
    last play said."""
    while session.match.phase == "play":
        match = session.match
        expect = match.expecting()
        if "said" in expect.types:
            session.apply({"type": "said", "player": expect.player,
                           "word": expect.choices["word"][0]})
        elif expect.player == player:
            count = len(heard)
            session.apply(play(player))
        else:
            session.apply({"type": "draw", "player": expect.player})
    return [(item.kind, item.text) for item in heard[count:]]


def test_card_down_says_the_top_card_its_effect_the_words_and_the_games():
    session, _, voice, heard = table("card-down", ["Ann", "Bob", "Cy"], {"games": 2})
    assert said(session, heard, {"type": "turn_up", "card": card("7", "red", "hearts")}) == [
        ("turns", "Top card: 7 red hearts"), ("turns", "Ann's turn")]
    assert said(session, heard, play("Ann", "A", "red", "clubs")) == [
        ("turns", "Top card: A red clubs"), ("turns", "Skip: Bob"), ("turns", "Cy's turn")]
    assert said(session, heard, play("Cy", "B", "blue", "clubs")) == [
        ("turns", "Top card: B blue clubs"), ("turns", "Reverse: now anticlockwise"),
        ("turns", "Bob's turn")]
    assert said(session, heard, play("Bob", "2", "blue", "hearts")) == [
        ("turns", "Top card: 2 blue hearts"), ("turns", "Stacked 2s: 2 cards to draw"),
        ("turns", "Ann's turn")]
    assert said(session, heard, play("Ann", "2", "green", "hearts")) == [
        ("turns", "Top card: 2 green hearts"), ("turns", "Stacked 2s: 4 cards to draw"),
        ("turns", "Cy's turn")]
    assert said(session, heard, {"type": "draw_stack", "player": "Cy"}) == [
        ("turns", "Cy draws 4 cards"), ("turns", "Bob's turn")]
    assert said(session, heard, play("Bob", "C", "green", "spades")) == [
        ("turns", "Top card: C green spades"), ("turns", "Bob: one more card, or pass")]
    assert said(session, heard, play("Bob", "D", "green", "diamonds")) == [
        ("turns", "Top card: D green diamonds"), ("turns", "Bob: name a colour")]
    assert said(session, heard, {"type": "colour", "player": "Bob", "colour": "purple"}) == [
        ("turns", "Colour named: purple"), ("turns", "Ann's turn")]
    assert said(session, heard, play("Ann", "5", "purple", "questions")) == [
        ("turns", "Top card: 5 purple questions"), ("turns", "Cy's turn")]
    # Bob goes down to 3 and forgets TRIO (not said: catching it is Ann's part) ...
    assert said(session, heard, play("Cy", "5", "red", "questions"),
                play("Bob", "5", "red", "hearts"),
                {"type": "forgot", "player": "Bob", "word": "TRIO"}) == [
        ("turns", "Top card: 5 red questions"), ("turns", "Bob's turn"),
        ("turns", "Top card: 5 red hearts"), ("turns", "Ann's turn")]
    # ... who catches it, then says her own
    assert said(session, heard, {"type": "call_out", "player": "Ann", "offender": "Bob",
                                 "word": "TRIO"}) == [("turns", "Caught: Bob draws 2 cards")]
    assert said(session, heard, play("Ann", "5", "blue", "spades"),
                {"type": "said", "player": "Ann", "word": "TRIO"}) == [
        ("turns", "Top card: 5 blue spades"), ("turns", "Ann: TRIO"), ("turns", "Cy's turn")]
    assert play_out(session, heard, "Ann") == [("results", "Ann is out of cards")]
    assert said(session, heard, {"type": "hand", "player": "Bob", "sum": 12},
                {"type": "hand", "player": "Cy", "values": ["F"] * session.match.in_hand["Cy"]}
                )[-1] == ("results", f"Game 1: Ann 0, Bob 12, Cy {15 * 12}")
    assert said(session, heard, {"type": "turn_up"}) == [
        ("turns", "The last game"), ("turns", "Bob's turn")]  # a quick card: not said
    play_out(session, heard, "Cy")
    assert said(session, heard, {"type": "hand", "player": "Ann", "sum": 30},
                {"type": "hand", "player": "Bob", "sum": 5}) == [
        ("results", "Game 2: Cy 0, Bob 5, Ann 30"),
        ("results", "Match over. Winner: Bob with 17 points. "
                    "Standings: Bob 17, Ann 30, Cy 180")]


# --- Block Lottery ----------------------------------------------------------------------------

POOL = [6, 1, 1, 4, 2, 2, 2, 5, 5, 3, 6, 6, 1, 4, 3]


def lottery_round(session, heard, tokens, ann=(9, 0), bob=(3, 3)):
    """One round: the pool, Ann takes a 6 and a 1, Bob a 2, Ann ends it with an empty
    hand, Bob re-rolls his 2, the tokens, the scores; what each step said."""
    steps = [
        [{"type": "pool", "faces": POOL}],
        [{"type": "take", "player": "Ann", "face": 6}, {"type": "take", "player": "Ann", "face": 1},
         {"type": "take", "player": "Bob", "face": 2}],
        [{"type": "end", "player": "Ann", "cause": "empty_hand"}],
        [{"type": "reroll", "player": "Bob", "from": [2], "to": [5]}],
        *([{"type": "token", "token": token}] for token in tokens),
        [{"type": "score", "player": "Ann", "blocks": ann[0], "hand": ann[1]},
         {"type": "score", "player": "Bob", "blocks": bob[0], "hand": bob[1]}],
    ]
    return [said(session, heard, *events) for events in steps]


def test_block_lottery_says_the_pool_the_end_the_rerolls_the_tokens_and_the_scores():
    session, _, voice, heard = table("block-lottery", ["Ann", "Bob"])
    pool, takes, end, reroll, *tokens, scores = lottery_round(session, heard,
                                                               ["6", "NONE", "ALL"])
    assert pool == [("rolls", "Round 1, the pool: 1 1 1, 2 2 2, 3 3, 4 4, 5 5, 6 6 6")]
    assert takes == []  # the table sees a die taken; nobody has a turn
    assert end == [("turns", "Round over: Ann had no cards in hand")]
    assert reroll == [("rolls", "Bob re-rolls: 5")]
    assert tokens == [[("rolls", "Token 1: 6")], [("rolls", "Token 2: NONE, no die scores")],
                      [("rolls", "Token 3: ALL, every die scores")]]
    # Ann: 9 cards + 2 dice + 1 (her 6) + 2x3 (ALL) = 18; Bob: 3 + 1 + 3 - 3 = 4
    assert scores == [("results", "Round 1: Ann 18, Bob 4")]
    second = lottery_round(session, heard, ["1", "2", "3"])
    assert second[-1] == [("results", "Round 2: Ann 13, Bob 1"),
                          ("results", "Standings: Ann 31, Bob 5")]
    third = lottery_round(session, heard, ["5", "4", "NONE"])
    assert third[0] == [("turns", "The last round"),
                        ("rolls", "Round 3, the pool: 1 1 1, 2 2 2, 3 3, 4 4, 5 5, 6 6 6")]
    assert third[-1] == [("results", "Round 3: Ann 11, Bob 4"),
                         ("results", "Game over. Winner: Ann with 42 points. "
                                     "Standings: Ann 42, Bob 9")]
    assert "turns" not in {kind for kind, _ in third[-1]}  # nobody's turn, ever


def test_block_lottery_a_tie_on_totals_says_how_round_3_broke_it():
    session, _, voice, heard = table("block-lottery", ["Ann", "Bob"])
    lottery_round(session, heard, ["NONE", "4", "3"], ann=(3, 0), bob=(9, 0))  # 5, 10
    lottery_round(session, heard, ["NONE", "4", "3"], ann=(9, 0), bob=(3, 3))  # 11, 1
    last = lottery_round(session, heard, ["NONE", "4", "3"], ann=(3, 0), bob=(9, 0))  # 5, 10
    assert session.match.totals == {"Ann": 21, "Bob": 21}
    assert last[-1] == [
        ("results", "Round 3: Bob 10, Ann 5"),
        ("results", "Game over. Winner: Bob with 21 points. Ann and Bob tie on 21; Bob wins "
                    "the tie on round 3 (10 to 5). Standings: Ann 21, Bob 21")]


# --- Count Up 21 ------------------------------------------------------------------------------


def count(session, *numbers):
    """Whoever is on turn plays each number in turn."""
    for number in numbers:
        session.apply({"type": "play", "player": session.match.current, "card": number})


def test_count_up_says_each_tricks_winner_each_game_and_the_match():
    session, _, voice, heard = table("count-up-21", ["Ann", "Bob"], {"games_to_win": 2})
    count(session, 7, 9)
    assert heard == []  # two players take turns card by card: that goes unsaid
    assert said(session, heard, {"type": "pass", "player": "Ann"}) == [
        ("results", "Bob takes the trick and leads")]
    count(session, 1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13, 14, 15, 16)  # Bob's cards are out
    assert said(session, heard, {"type": "pass", "player": "Bob"}) == [
        ("results", "Game 1: Ann, 1 trick each and the last trick"),
        ("results", "Games: Ann 1, Bob 0"),
        ("turns", "Bob leads")]  # the first leader alternates from game to game
    count(session, *range(1, 17))
    assert said(session, heard, {"type": "pass", "player": "Bob"}) == [
        ("results", "Game 2: Ann, 1 trick to 0"),
        ("results", "Match over. Winner: Ann, 2 games to 0")]
    assert session.match.over


# --- the Scoreboard ---------------------------------------------------------------------------


def points(player, value):
    return {"type": "points", "player": player, "points": value}


def test_the_scoreboard_says_each_entry_whose_turn_each_round_and_the_result():
    session, _, voice, heard = table("scoreboard", ["Ann", "Bob", "Cy"], {"target": 50})
    assert said(session, heard, points("Ann", 20)) == [("results", "Ann: 20"),
                                                       ("turns", "Bob's turn")]
    assert said(session, heard, points("Cy", -5)) == [("results", "Cy: minus 5")]  # still Bob
    assert said(session, heard, points("Bob", 30)) == [
        ("results", "Bob: 30"), ("results", "After round 1: Bob 30, Ann 20, Cy minus 5"),
        ("turns", "Ann's turn")]
    assert said(session, heard, points("Ann", 35)) == [
        ("results", "Ann: 35"),
        ("turns", "Ann reaches the target: this round is the last"), ("turns", "Bob's turn")]
    assert said(session, heard, points("Bob", 25)) == [("results", "Bob: 25"),
                                                       ("turns", "Cy's turn")]
    assert said(session, heard, points("Cy", 0)) == [
        ("results", "Cy: 0"),
        ("results", "Game over. Winners: Ann and Bob with 55 points. "
                    "Standings: Ann 55, Bob 55, Cy minus 5")]


def test_the_scoreboard_low_wins_and_an_end_between_rounds():
    session, _, voice, heard = table("scoreboard", ["Ann", "Bob"], {"low_wins": True})
    said(session, heard, points("Ann", 12), points("Bob", 3))
    assert said(session, heard, {"type": "end"}) == [
        ("results", "Game over. Winner: Bob with 3 points. Standings: Bob 3, Ann 12")]


# --- said once, every game ---------------------------------------------------------------------

#: Each game: (fewest players, most players, options, a legal event of the match now).
GAMES = {
    "final-count": (2, 4, {"hit_goal": True}, final_count_event),
    "full-counter": (2, 5, {"zones": False, "games": 2}, full_counter_event),
    "card-down": (2, 6, {"games": 2}, lambda match, rnd: card_down_event(match, rnd, 0.6, 0.3)),
    "block-lottery": (2, 6, {}, lottery_event),
    "count-up-21": (2, 2, {"games_to_win": 2}, count_up_event),
    "scoreboard": (2, 6, {"target": 60}, scoreboard_event),
}
NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Flo"]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_an_undo_and_a_resumed_game_say_nothing_in_every_game(game, tmp_path):
    from companion.store import Store

    low, _, options, legal = GAMES[game]
    store = Store.in_dir(tmp_path)
    voice, heard = Voice(), []
    announcer = Announcer(voice, KINDS)
    announcer.outlets.append(heard.append)
    session = Session.start(game, NAMES[:max(low, 3) if game != "count-up-21" else 2],
                            options, store=store, listeners=[announcer])
    announcer.watch(session)
    rnd = random.Random(7)
    while len(heard) < 6:
        session.apply(legal(session.match, rnd))
    count, spoken = len(heard), len(voice.said)
    session.undo()
    session.undo()
    assert len(heard) == count and len(voice.said) == spoken and voice.hushed == 2
    resume(store, session.match_id)  # says nothing of what was played
    store.close()


class SlowSpeaker:
    """A speaker of fake espeak-ng processes on a manual clock, each utterance lasting
    ``per_char`` seconds a character; it keeps what it was offered, and when."""

    def __init__(self, per_char: float = 0.06):
        self.clock = ManualClock()
        self.offered: list[str] = []
        #: Each start: how many utterances were offered by then, and its words.
        self.started: list[tuple[int, str]] = []

        def start(words):
            self.started.append((len(self.offered), words.text))
            return SlowWords(self.clock, words.text, per_char)

        self.speaker = Speaker(start, threaded=False)
        offer = self.speaker.say

        def say(words):
            self.offered.append(words.text)
            offer(words)

        self.speaker.say = say
        self.voice = TableVoice(Speech(enabled=True),
                                find=lambda device: Output("espeak-ng", through="a test"),
                                make=lambda output: self.speaker)

    def pump(self, seconds: float) -> None:
        self.speaker.pump()
        self.clock.advance(seconds)
        self.speaker.pump()

    def check_newest_first(self) -> None:
        """What waits is the newest words; nothing started older than the newest offered."""
        waiting = self.speaker.waiting
        assert waiting is None or waiting.text == self.offered[-1]
        for offered, text in self.started:
            assert text == self.offered[offered - 1]


@pytest.mark.parametrize("game", sorted(GAMES))
@settings(max_examples=12, deadline=None)
@given(language=st.sampled_from(lang.LANGUAGES), rnd=st.randoms(use_true_random=False),
       players=st.integers(min_value=2, max_value=6))
def test_random_legal_games_never_fail_and_never_leave_stale_words(game, language, rnd,
                                                                   players):
    low, high, options, legal = GAMES[game]
    names = NAMES[:min(high, max(low, players))]
    lang.use(language)
    slow = SlowSpeaker()
    heard, failed = [], []
    announcer = Announcer(slow.voice, KINDS)
    announcer.outlets.append(heard.append)

    def strict(session, event, **undone):  # a session logs what its listeners raise
        try:
            announcer(session, event, **undone)
        except Exception as problem:
            failed.append(problem)
            raise

    session = Session.start(game, names, options, listeners=[strict])
    announcer.watch(session)
    rng = random.Random(rnd.random())
    for _ in range(250):
        if session.match.over:
            break
        count = len(heard)
        if session.match.events and rng.random() < 0.08:
            session.undo()
            assert len(heard) == count  # an undo says nothing ...
            slow.pump(0)
            assert slow.speaker.waiting is None and slow.speaker.speaking is None  # ... at once
            continue
        session.apply(legal(session.match, rng))
        for item in heard[count:]:
            assert item.kind in KINDS and item.text and item.language == language
            assert "{" not in item.text and "}" not in item.text, item.text
        if len(heard) > count:
            assert slow.offered[-1].startswith(heard[count].text)  # one moment, at once
        slow.pump(rng.choice((0, 0.1, 0.5, 3)))
        slow.check_newest_first()
    assert failed == []
    slow.pump(600)
    assert slow.speaker.waiting is None and slow.speaker.speaking is None


@pytest.mark.parametrize("module", [
    "ui.spoken", "speech.announcer", "ui.final_count.aloud", "ui.full_counter.aloud",
    "ui.card_down.aloud", "ui.block_lottery.aloud", "ui.count_up.aloud", "ui.scoreboard.aloud"])
def test_the_worked_examples_of_each_games_words_hold(module):
    import doctest
    import importlib

    tested = doctest.testmod(importlib.import_module(f"companion.{module}"))
    assert tested.attempted > 0 and tested.failed == 0
