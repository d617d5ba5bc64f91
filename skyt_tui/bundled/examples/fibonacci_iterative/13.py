def fibonacci(n):
    """
    Calculate the nth Fibonacci number iteratively.

    Args:
        n: A non-negative integer.

    Returns:
        The nth Fibonacci number, or 0 for negative n.
    """
    if n <= 0:
        return 0
    elif n == 1:
        return 1

    prev, curr = 0, 1
    for _ in range(2, n + 1):
        prev, curr = curr, prev + curr

    return curr
