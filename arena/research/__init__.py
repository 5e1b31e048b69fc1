"""Research measures over transcripts: side-aware ratings, deception and detection metrics, belief-probe scores,
and the `arena report` output. Reads transcripts only (never the engine's state), so any folder of games works."""
