"""The site view: a design's halls and buildings on one plan."""
