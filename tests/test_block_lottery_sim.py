"""A whole Block Lottery game pressed on the mock pins by ``companion sim --script``, as a
subprocess, then ``companion export`` and ``companion replay`` of what was stored."""

import json

from companion_cli import play_export_replay

#: Ann, Bob and Cy; each round ends a different way. Every press is what a person at the
#: table would do; the dice and tokens come from ``--seed 1``. Two long presses of the
#: same button in a row have a short WAIT between them, as fingers do.
GAME = """\
# Block Lottery, Ann Bob Cy: three rounds, each ended a different way
# Round 1 (Cy deals, Ann first): roll the pool, Ann, Bob, Cy take 5 dice each
ROLL
OK
OK
OK
OK
OK
OK
OK
OK
OK
OK
OK
DOWN
OK
OK
OK
OK
OK
OK
OK
OK
OK
OK
DOWN
OK
OK
OK
OK
OK
OK
OK
OK
OK
# Cy took the last die: the round is over
OK
# Ann re-rolls one die
OK
OK
ROLL
OK
# the lottery: Bob and Cy did not re-roll, so confirm, then three tokens
ROLL
OK
ROLL
ROLL
ROLL
# Ann: 9 in blocks, 2 in hand
UP
UP
UP
UP
UP
UP
OK
UP
UP
ROLL
# Bob: 3 in blocks, 1 in hand
OK
UP
ROLL
# Cy: 3 in blocks, 3 in hand
OK
UP
UP
UP
ROLL
# the round's scores, then the totals
OK
OK
OK
OK
OK
# Round 2 (Cy deals again, Ann first): Ann takes 2, then her hand is empty
ROLL
OK
OK
OK
OK
ROLL
DOWN
OK
OK
OK
# Ann re-rolls one die and enters the face rolled at the table (a 6)
OK
OK
HOLD ROLL
DOWN
DOWN
DOWN
DOWN
DOWN
OK
ROLL
ROLL
ROLL
ROLL
ROLL
# Ann: 3 in blocks, 0 in hand; Bob: 10 in hand; Cy: 5 in hand
ROLL
OK
HOLD UP
WAIT 0.1
HOLD UP
ROLL
OK
HOLD UP
ROLL
OK
OK
OK
OK
OK
# Round 3 (Ann deals, Bob first): Bob takes a die, then Ann cannot draw: the deck is out
ROLL
OK
OK
ROLL
OK
OK
OK
# Bob may still re-roll: confirm the lottery, then three tokens and on to the cards
ROLL
OK
ROLL
ROLL
ROLL
# 52 cards in all: Ann 20 in hand, Bob 13 in blocks and 4 in hand, Cy 15 in blocks
OK
HOLD UP
WAIT 0.1
HOLD UP
WAIT 0.1
HOLD UP
WAIT 0.1
HOLD UP
ROLL
HOLD UP
WAIT 0.1
HOLD UP
OK
UP
UP
UP
UP
ROLL
HOLD UP
WAIT 0.1
HOLD UP
WAIT 0.1
HOLD UP
ROLL
# the last round's scores, then the game is over
OK
OK
OK
OK
"""


def test_a_whole_block_lottery_game_through_the_pins(tmp_path):
    played = play_export_replay(tmp_path, "block-lottery", ["Ann", "Bob", "Cy"], GAME,
                                "--seed", "1", "--log-events")
    printed = [json.loads(line[len("event "):]) for line in played.sim.stdout.splitlines()]
    kinds = [event["type"] for event in printed]
    assert kinds.count("pool") == 3 and kinds.count("token") == 9 and kinds.count("score") == 9
    assert [e["cause"] for e in printed if e["type"] == "end"] == ["empty_hand", "deck_out"]
    rerolls = [e for e in printed if e["type"] == "reroll"]
    assert [e["player"] for e in rerolls] == ["Ann", "Ann"]
    assert rerolls[1]["to"] == [6]                       # entered by hand, not rolled
    assert rerolls[1]["entered"] is True and "entered" not in rerolls[0]  # and marked so

    lines = played.log
    assert lines[0]["type"] == "start" and lines[1:] == printed

    result = played.result
    assert result["over"] is True
    rounds = result["rounds"]
    assert [(r["dealer"], r["ended_by"], r["end"]) for r in rounds] == [
        ("Cy", "Cy", "last_die"), ("Cy", "Ann", "empty_hand"), ("Ann", "Ann", "deck_out")]
    # every die of round 1 went to a player: 5 each
    assert [rounds[0]["players"][p]["dice"] for p in ("Ann", "Bob", "Cy")] == [5, 5, 5]
    # the cards as pressed: round 3 holds the whole deck
    cards = {p: (row["cards"], row["hand"]) for p, row in rounds[2]["players"].items()}
    assert cards == {"Ann": (0, 20), "Bob": (13, 4), "Cy": (15, 0)}
    assert result["totals"] == {p: sum(r["points"][p] for r in rounds) for p in result["players"]}
    assert result["totals"] == {"Ann": 24, "Bob": 34, "Cy": 23}
    assert result["winners"] == ["Bob"] and result["tie_break"] is False
