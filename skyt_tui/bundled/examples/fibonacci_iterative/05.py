def fibonacci(n):
    # Handle the base cases (and negative input)
    if n <= 0:
        return 0
    elif n == 1:
        return 1

    # Build up the sequence iteratively
    a, b = 0, 1
    for _ in range(2, n + 1):
        a, b = b, a + b  # shift the window by one
    return b
