"""The Textual application; thin screens over `skyt_tui.engine`."""
