"""Final Card-Down at the table: the setup and the table
(:mod:`~companion.ui.card_down.table`), the questions of a turn
(:mod:`~companion.ui.card_down.turns`), the hands after a game
(:mod:`~companion.ui.card_down.hands`) and what every screen says the same way
(:mod:`~companion.ui.card_down.words`).
"""
