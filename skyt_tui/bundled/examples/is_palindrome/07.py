def is_palindrome(s):
    # Keep only letters and digits, lowercased
    cleaned = "".join(c.lower() for c in s if c.isalnum())
    # A palindrome equals its reverse
    return cleaned == cleaned[::-1]
