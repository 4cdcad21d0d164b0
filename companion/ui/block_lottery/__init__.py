"""Block Lottery at the table: the setup (:mod:`~companion.ui.block_lottery.setup`), the
round in play (:mod:`~companion.ui.block_lottery.table`), after a round's end
(:mod:`~companion.ui.block_lottery.round_end`) and what every screen draws the same way
(:mod:`~companion.ui.block_lottery.draw`).
"""
