"""The quote: its settings in the project file, user price lists, and the bill of materials lines."""
