def binary_search(arr, target):
    """
    Search for target in a sorted list using binary search.

    Args:
        arr: A list of integers sorted in ascending order.
        target: The integer to find.

    Returns:
        The index of target in arr, or -1 if it is not present.
    """
    left, right = 0, len(arr) - 1

    while left <= right:
        mid = (left + right) // 2
        if arr[mid] == target:
            return mid
        elif arr[mid] < target:
            left = mid + 1
        else:
            right = mid - 1

    return -1
