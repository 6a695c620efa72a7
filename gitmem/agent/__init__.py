"""Agent integrations (Claude Code hooks first). Import-light: runs on every tool call."""
