def slugify(text):
    result = []
    prev_hyphen = False
    for char in text.lower():
        if 'a' <= char <= 'z' or '0' <= char <= '9':
            result.append(char)
            prev_hyphen = False
        elif not prev_hyphen:
            result.append('-')
            prev_hyphen = True
    return ''.join(result).strip('-')
