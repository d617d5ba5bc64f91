def fibonacci(n):
    if n <= 0:
        return 0

    a, b = 0, 1
    for i in range(1, n):
        temp = a + b
        a = b
        b = temp

    return b
