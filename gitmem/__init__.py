"""gitmem: git-native project memory for AI coding agents.

This module must stay import-light: agent hooks import it on every tool call.
"""

__version__ = "0.1.0"
