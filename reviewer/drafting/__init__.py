"""Writing the assessment: drafters, the grounding check, and rendering."""
