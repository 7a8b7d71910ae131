"""The UCI front end: protocol (lines to Engine calls), options table, stdin loop, opening book."""
