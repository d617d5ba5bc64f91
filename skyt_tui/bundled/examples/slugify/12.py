import re

_SEPARATORS = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    return _SEPARATORS.sub("-", text.lower()).strip("-")
