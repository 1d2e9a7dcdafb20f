"""The quote's pricing: user price lists, the bill of materials lines, the cost of ownership.

The quote's settings are part of the project model (:mod:`designer.quote_settings`), so the model
imports nothing of the pricing.
"""
