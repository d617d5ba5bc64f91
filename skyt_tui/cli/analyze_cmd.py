"""Placeholder, filled below."""


def register(subparsers):
    pass
