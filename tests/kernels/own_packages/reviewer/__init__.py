"""The submission's own package named like the reviewer's ``reviewer`` package."""
