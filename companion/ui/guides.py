"""Help's words about each game, the Tools and the Settings: what a game is and how a
turn goes into the device, in the project's own words (the rule sheets and RULINGS.md
decide the rules; these say them short).

Each text is written once and read in two places: the device's Help screen
(:mod:`companion.ui.help`, folded into lines of 21) and the table page's help pages
(``/help``). What each button does on a screen is not here: the screens say it in their
own keys (:mod:`companion.ui.keys`).
"""

from __future__ import annotations

from typing import NamedTuple

from companion.lang import lazy


class Guide(NamedTuple):
    """A game's help: what it is (``about``) and how a turn is entered (``turn``), each
    a few paragraphs ("screen 21xN" messages)."""

    about: tuple[lazy, ...]
    turn: tuple[lazy, ...]


class Topic(NamedTuple):
    """One thing Tools or Settings offers: its menu name and what it is for."""

    name: lazy
    about: lazy


# Translators: Help's paragraphs, folded into lines of 21 characters on the device and
# shown whole on the table page. Use the table words of docs/glossary.md; the button
# names printed on the device (UP, DOWN, OK, BACK, ROLL) and TRIO, DUO, UNO stay.
GUIDES: dict[str, Guide] = {
    "final-count": Guide(
        about=(lazy("screen 21xN", "2 to 4 players draw and swap cards for the best total "
                    "up to 75, with their own cards and the Board's: an ace is 1 or 11, "
                    "a face card 10. Over 75 is bust."),
               lazy("screen 21xN", "A turn is a roll of the die, whose face says what to "
                    "do, or a call: after a call everyone else has one more turn, then the "
                    "hand is scored. The best total scores it (a caller who loses gives "
                    "the winner 10 more). The first to 300 wins."),
               lazy("screen 21xN", "With Hit Goal two dice set a number before each hand: "
                    "a hand that makes it exactly wins 75.")),
        turn=(lazy("screen 21xN", "ROLL rolls for the player named on the screen, and the "
                   "screen says what the face means. OK calls; right after a roll the "
                   "device asks who calls, the roller or the next player."),
              lazy("screen 21xN", "When the hand ends, enter the Board's cards, then each "
                   "player's: UP/DOWN move to a rank, OK adds it (again for a second one), "
                   "BACK takes the last off, ROLL enters them. The device scores the "
                   "hand."))),
    "full-counter": Guide(
        about=(lazy("screen 21xN", "2 to 5 players try to get rid of all their cards: the "
                    "last one left holding cards loses and deals the next game. The match "
                    "counts losses; the fewest win."),
               lazy("screen 21xN", "A play is one value (as many cards of it as you lay) or "
                    "a chain of values in a row, equal to or higher than the top of the "
                    "pile; who cannot play picks the pile up. Powers go on anything; "
                    "abilities reverse the order, skip a player or turn it to descending. "
                    "A Wildfire or four of a value burn the pile.")),
        turn=(lazy("screen 21xN", "First the device asks who starts: who has a face-up "
                   "Gold Bar, then who has one in hand, and so on."),
              lazy("screen 21xN", "Full mode: ROLL opens the card picker: UP/DOWN move to "
                   "the value, OK adds a card (again for each card of a set or a chain), "
                   "ROLL enters the play. OK on the table has the rest: a pick-up, a "
                   "face-down card, who is out. Once only face-down cards are left, ROLL "
                   "enters the one turned over."),
              lazy("screen 21xN", "Quick mode: ROLL is a plain play; OK names a power or an "
                   "ability, a burn or a pick-up."))),
    "card-down": Guide(
        about=(lazy("screen 21xN", "2 to 10 players lay cards on the discard pile, each "
                    "matching the top card's value, colour or suit (a 0 goes on anything), "
                    "or draw one. A 2 makes the next draw 2 (2s stack), an A skips, a B "
                    "reverses, a C lays one more, a D names a colour."),
               lazy("screen 21xN", "Going down to 3, 2 or 1 card, say TRIO, DUO or UNO; "
                    "who forgets can be called out by the next player and draws 2. A game "
                    "ends when someone lays their last card: the cards left in each hand "
                    "count against their holder, and the lowest total wins the match.")),
        turn=(lazy("screen 21xN", "Quick entry: OK is a plain card, DOWN a special one (one "
                   "more press says which), ROLL draws. Exact entry: OK opens a picker of "
                   "value, colour and suit (UP/DOWN change, OK moves on, ROLL enters); a "
                   "card that cannot go is refused. The game menu switches between the "
                   "two."),
              lazy("screen 21xN", "When a player goes down to 3, 2 or 1 card the device "
                   "asks whether they said the word. A word forgotten: the next player's UP "
                   "calls it out. After a game, enter each hand card by card or as a "
                   "sum."))),
    "block-lottery": Guide(
        about=(lazy("screen 21xN", "2 to 6 players play blocks of 3 or more cards, the "
                    "same number or numbers in a row, and add to others' blocks to take "
                    "dice from the pool of 15. The round ends when the pool or the deck "
                    "runs out, or a player has no cards left."),
               lazy("screen 21xN", "Then everyone may re-roll their dice once, and 3 "
                    "lottery tokens go on the prize card: each die showing a token's number "
                    "scores that space. A round scores the cards in blocks, the dice and "
                    "the lottery, less the cards in hand. After 3 rounds the highest total "
                    "wins.")),
        turn=(lazy("screen 21xN", "ROLL rolls the pool. When a player takes a die, UP/DOWN "
                   "move to its face, OK takes it and asks who; ROLL ends the round and "
                   "asks how."),
              lazy("screen 21xN", "After the round: OK re-rolls the dice of the player "
                   "picked, ROLL draws the lottery tokens one by one, then each player's "
                   "cards are counted: UP/DOWN change the number, OK goes to the next "
                   "line, ROLL enters them."))),
    "count-up-21": Guide(
        about=(lazy("screen 21xN", "2 players, cards 1 to 21, 8 each. The leader plays any "
                    "card; then each in turn plays a card 1 to 3 higher than the highest, "
                    "or passes. A pass gives the trick to the other player, who leads the "
                    "next."),
               lazy("screen 21xN", "When a hand runs out the game ends: more tricks win, "
                    "equal tricks go to the winner of the last one. The first to win 3 "
                    "games wins the match.")),
        turn=(lazy("screen 21xN", "The screen offers only the cards that may go: UP/DOWN "
                   "move to the card played, OK enters it. ROLL passes."),)),
    "scoreboard": Guide(
        about=(lazy("screen 21xN", "Scores for any other game: the players, a target or "
                    "none, high or low wins. Each round every player's points are entered; "
                    "the device keeps the totals and the leader."),),
        turn=(lazy("screen 21xN", "ROLL opens the picker of the next player to enter (OK "
                   "the one picked): UP adds the step, DOWN takes it off, OK changes the "
                   "step, ROLL enters the points."),)),
}

TOOLS: tuple[Topic, ...] = (
    Topic(lazy("screen 21", "Dice"),
          lazy("screen 21xN", "1 to 15 dice: roll them, hold some, roll the rest again.")),
    Topic(lazy("screen 21", "Token bag"),
          lazy("screen 21xN", "Draws tokens one at a time without putting them back: Block "
               "Lottery's tokens or numbered ones.")),
    Topic(lazy("screen 21", "Shuffle guide"),
          lazy("screen 21xN", "Shuffles a real deck by dealing it into piles: the guide "
               "names the pile for every card, pass by pass.")),
    Topic(lazy("screen 21", "First player"),
          lazy("screen 21xN", "Picks a seat at random to start.")),
    Topic(lazy("screen 21", "Sand timer"),
          lazy("screen 21xN", "Counts minutes down and beeps at the end.")),
    Topic(lazy("screen 21", "Scoreboard"),
          lazy("screen 21xN", "Keeps the scores of any other game, round by round.")),
)

SETTINGS: tuple[Topic, ...] = (
    Topic(lazy("screen 21", "Pair a phone"),
          lazy("screen 21xN", "Shows a code (and a QR code) that lets a phone on the same "
               "network enter moves on the table page.")),
    Topic(lazy("screen 21", "Paired phones"),
          lazy("screen 21xN", "The phones that may enter moves; OK on one forgets it (after "
               "asking).")),
    Topic(lazy("screen 21", "Language"),
          lazy("screen 21xN", "The language of the screen and the table page.")),
    Topic(lazy("screen 21", "Speech"),
          lazy("screen 21xN", "Whether the device says rolls, turns and results aloud, how "
               "fast and how loud; Say a sample lets you hear it. Long ROLL on the main menu "
               "or in Tools says the last words again.")),
    Topic(lazy("screen 21", "This device"),
          lazy("screen 21xN", "How the device is set up: display, buttons, serial, the "
               "page's address, the version. Change them in the config file.")),
)

#: How the five buttons work everywhere, for the Settings' Help and the page.
BUTTON_BASICS: tuple[lazy, ...] = (
    lazy("screen 21xN", "Five buttons: UP and DOWN move or change a number, OK picks, BACK "
         "goes back (on a game's screen: its menu), ROLL rolls, draws or goes on. The line "
         "along the bottom says what they do on each screen; Help says it whole."),
    lazy("screen 21xN", "A press held for a moment is a long press: it jumps further or "
         "does a second thing. A long BACK stops a turn timer and lets it run on again."),
    lazy("screen 21xN", "The ROLL button lights up when ROLL is the thing to press. A dim "
         "or blank screen wakes at any press, which does nothing else."),
)
