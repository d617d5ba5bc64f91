"""Reusable widgets of the terminal app."""
