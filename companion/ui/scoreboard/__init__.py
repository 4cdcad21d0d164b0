"""The scoreboard at the table: its setup and table screens
(:mod:`~companion.ui.scoreboard.table`).
"""
