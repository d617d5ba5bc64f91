def binary_search(arr, target):
    left, right = 0, len(arr) - 1

    while left <= right:
        mid = (left + right) // 2  # middle index
        if arr[mid] == target:
            return mid  # found it
        elif arr[mid] < target:
            left = mid + 1  # search the right half
        else:
            right = mid - 1  # search the left half

    return -1  # not found
