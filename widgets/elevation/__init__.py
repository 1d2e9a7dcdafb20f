"""The rack elevation: one rack's face, its units and what is mounted in them."""
