"""Final Count at the table: its setup and table screens
(:mod:`~companion.ui.final_count.table`).
"""
