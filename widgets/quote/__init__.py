"""The quote: bill of materials, quote settings and price lists, and the Export menu."""
