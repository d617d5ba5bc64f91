def binary_search(arr, target):
    def search(low, high):
        if low > high:
            return -1
        mid = (low + high) // 2
        if arr[mid] == target:
            return mid
        if arr[mid] < target:
            return search(mid + 1, high)
        return search(low, mid - 1)

    return search(0, len(arr) - 1)
