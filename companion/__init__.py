"""Tabletop Companion: dice, shuffles, lottery tokens and rule-aware scorekeeping for a
Raspberry Pi with five buttons and a 128x64 OLED."""

__version__ = "0.1.0"
