"""Pages of the scoring app, by what they are for: entry, results, infractions, printing,
the event file, the clock and seating."""
