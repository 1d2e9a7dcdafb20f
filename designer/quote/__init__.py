"""The quote's pricing: user price lists, the bill of materials lines, the cost of ownership.

Pure functions of the design, its quote settings and the catalog. The quote's settings are part of
the project model (:mod:`designer.quote_settings`), so the model imports nothing of the pricing; the
engines that run the pricing in an analysis are :mod:`designer.bom` and :mod:`designer.cost`.
"""
