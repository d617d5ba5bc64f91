def is_balanced(s: str) -> bool:
    """Return True if every bracket in s is closed by the matching bracket in the right order."""
    stack = []
    bracket_map = {')': '(', ']': '[', '}': '{'}

    for char in s:
        if char in bracket_map.values():
            stack.append(char)
        elif char in bracket_map:
            if not stack or stack.pop() != bracket_map[char]:
                return False

    return not stack
