"""The facility: halls' power and air figures, the facility and project forms."""
