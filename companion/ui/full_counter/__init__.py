"""Full Counter at the table: the setup and the table
(:mod:`~companion.ui.full_counter.table`), the cards as the screens name them
(:mod:`~companion.ui.full_counter.cards`), the deck profile
(:mod:`~companion.ui.full_counter.deck`), the questions of a game
(:mod:`~companion.ui.full_counter.turns`) and its results
(:mod:`~companion.ui.full_counter.results`).
"""
