"""Forms of the scoring app: round entry and infractions."""
