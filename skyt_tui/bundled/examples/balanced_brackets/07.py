def is_balanced(s):
    stack = []
    # Map each closing bracket to its opening bracket
    bracket_map = {')': '(', ']': '[', '}': '{'}

    for char in s:
        if char in bracket_map.values():
            # Opening bracket: remember it
            stack.append(char)
        elif char in bracket_map:
            # Closing bracket: it must match the most recent opening one
            if not stack or stack.pop() != bracket_map[char]:
                return False

    # Anything left open means unbalanced
    return not stack
