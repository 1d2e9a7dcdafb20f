"""The cabling panel: links, their lengths and media, and their routes on the plan."""
