"""Count Up 21 at the table: its setup and table screens
(:mod:`~companion.ui.count_up.table`).
"""
