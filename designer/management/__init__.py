"""The management networks (in-band, out-of-band) of a design: their links, port to port."""
