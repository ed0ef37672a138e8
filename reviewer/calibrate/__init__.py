"""Calibration: run the reviewer over human-graded eval sets and measure agreement per criterion."""
