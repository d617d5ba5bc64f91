from collections import OrderedDict


class LRUCache:
    """A least-recently-used cache with a fixed capacity."""

    def __init__(self, capacity: int):
        """Create an empty cache holding at most capacity keys."""
        self.capacity = capacity
        self.cache = OrderedDict()

    def get(self, key):
        """Return the value for key, or -1 if absent; marks key as most recently used."""
        if key not in self.cache:
            return -1
        self.cache.move_to_end(key)
        return self.cache[key]

    def put(self, key, value) -> None:
        """Store value under key, evicting the least recently used key when full."""
        if key in self.cache:
            self.cache.move_to_end(key)
        self.cache[key] = value
        if len(self.cache) > self.capacity:
            self.cache.popitem(last=False)
