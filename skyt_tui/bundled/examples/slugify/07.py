import re


def slugify(text):
    # Lowercase everything first
    text = text.lower()
    # Collapse every run of characters other than a-z and 0-9 into one hyphen
    text = re.sub(r'[^a-z0-9]+', '-', text)
    # Remove hyphens at the start and end
    return text.strip('-')
