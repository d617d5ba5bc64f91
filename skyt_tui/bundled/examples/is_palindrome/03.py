def is_palindrome(s):
    filtered = ''.join(char.lower() for char in s if char.isalnum())
    return filtered == filtered[::-1]
