"""Teaching mode (placeholder)."""
