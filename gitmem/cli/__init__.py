"""The click + rich command-line layer. The core (``gitmem.*``) never imports it."""
